// The plan view: while it is shown, the saved pipeline's plan is fetched (again after each
// save, and when another backend is chosen) and its marks are put on the overlay for the
// cards; hidden, the cards go back to normal.

import { useCallback, useEffect, useMemo, useState } from "react";
import { planMarks, planQuery } from "./plan.js";

/** `{shown: {loading, plan, legend, error}, backend, setBackend, saved}`; call `saved()` after a save. */
export function usePlanView({ api, base, overlay, active }) {
  const [backend, setBackend] = useState("");
  const [version, setVersion] = useState(0);
  const [shown, setShown] = useState({ loading: active, plan: null, legend: [], error: null });
  // Each question (opened, another backend, a save) shows "loading" from the render that asks it.
  const question = `${base}:${active}:${backend}:${version}`;
  const [asked, setAsked] = useState(question);
  if (asked !== question) {
    setAsked(question);
    if (active) setShown((old) => ({ ...old, loading: true }));
  }

  useEffect(() => {
    if (!active) {
      overlay.set((value) => (value.plan ? { ...value, plan: null } : value));
      return undefined;
    }
    let current = true; // an answer to an older request (before a save, another backend) is dropped
    api.get(`${base}/plan${planQuery(backend)}`).then(
      (plan) => {
        if (!current) return;
        const marks = planMarks(plan);
        overlay.set((value) => ({ ...value, plan: marks.byNode }));
        setShown({ loading: false, plan, legend: marks.legend, error: null });
      },
      (error) => {
        if (!current) return;
        overlay.set((value) => ({ ...value, plan: null }));
        setShown({ loading: false, plan: null, legend: [], error });
      },
    );
    return () => {
      current = false;
    };
  }, [api, base, overlay, active, backend, version]);

  const saved = useCallback(() => setVersion((count) => count + 1), []);
  // One object while nothing changed: the bottom panel showing it skips renders.
  return useMemo(() => ({ shown, backend, setBackend, saved }), [shown, backend, saved]);
}
