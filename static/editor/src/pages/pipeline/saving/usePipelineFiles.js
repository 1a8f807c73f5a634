// The pipeline as a file: Export downloads the saved document, Export as Python the script it
// compiles to (or says which node cannot be compiled), Import replaces the graph with a JSON
// file's (one undo step brings the previous graph back).

import { useCallback } from "react";
import { documentToCanvas } from "../document/document.js";
import { refusalDetails } from "../document/problems.js";

/** `{exportJson, exportPython, importJson(file)}`; each saves first, or works on what the
 * server has. `importJson` resolves to true when the file's nodes came without positions (a
 * pipeline written by hand or by a program, such as tests/golden/tpch): they need a layout. */
export function usePipelineFiles({
  api,
  base,
  catalog,
  stateRef,
  dispatch,
  saving,
  saveFirst,
  onReplaced,
  toasts,
}) {
  const { adopt, revision, during } = saving;

  const exportJson = useCallback(async () => {
    if (!(await saveFirst())) return;
    const link = document.createElement("a");
    link.href = `${base}/export`;
    link.download = "";
    document.body.append(link);
    link.click();
    link.remove();
  }, [base, saveFirst]);

  const exportPython = useCallback(async () => {
    if (!(await saveFirst())) return;
    const response = await fetch(`${base}/script`, { credentials: "same-origin" });
    if (!response.ok) {
      const body = await response.json().catch(() => ({}));
      const where = body.node ? `node ${body.node}: ` : "";
      toasts.show(`Cannot export as Python: ${where}${body.message || response.statusText}`, {
        kind: "error",
        details: refusalDetails(body),
      });
      return;
    }
    const disposition = response.headers.get("Content-Disposition") || "";
    const link = document.createElement("a");
    link.href = URL.createObjectURL(await response.blob());
    link.download = /filename="([^"]+)"/.exec(disposition)?.[1] || "pipeline.py";
    document.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(link.href), 0);
  }, [base, saveFirst, toasts]);

  const importJson = useCallback(
    async (file) => {
      let chosen;
      try {
        chosen = JSON.parse(await file.text());
      } catch (error) {
        toasts.show(`${file.name} is not valid JSON: ${error.message}`, { kind: "error" });
        return;
      }
      if (!chosen || typeof chosen !== "object" || Array.isArray(chosen)) {
        toasts.show(`${file.name} is not a pipeline document (a JSON object).`, { kind: "error" });
        return;
      }
      const name = stateRef.current.history.present.meta.name;
      try {
        const saved = await during(api.put(base, { ...chosen, name, revision: revision.current }));
        adopt(saved);
        dispatch({ type: "reload", canvas: documentToCanvas(saved, catalog.typeOf) });
        onReplaced(saved);
        toasts.show(`Imported ${file.name}. Undo brings the previous graph back.`, {
          kind: "success",
        });
        return (chosen.nodes ?? []).some((node) => !node?.position);
      } catch (error) {
        toasts.show(`${file.name} was not imported: ${error.message}`, {
          kind: "error",
          details: refusalDetails(error.body),
        });
      }
    },
    [api, base, catalog, stateRef, dispatch, adopt, revision, during, onReplaced, toasts],
  );

  return { exportJson, exportPython, importJson };
}
