// The bottom panel: whether it is open, which tab it shows, and what its tabs read of the graph
// (node ids and labels, the shown nodes' operators and params), kept the same objects while
// those stay the same so that the panel skips the renders of a drag.

import { useCallback, useMemo, useState } from "react";
import { PANEL_HEIGHT_KEY, storedPanelHeight } from "./panelHeight.js";

/** `{open, tab, height, openTab(tab), toggle(), openLogs(), resize(height)}`: a run opens the
 * logs, unless the user watches its timeline. `height` (px, or null for the stylesheet's) is
 * the one last chosen, in this pipeline or another. */
export function useBottomPanel() {
  const [bottom, setBottom] = useState({ open: false, tab: "logs" });
  const [height, setHeight] = useState(() => storedPanelHeight(window.localStorage));
  const resize = useCallback((next) => {
    setHeight(next);
    try {
      window.localStorage.setItem(PANEL_HEIGHT_KEY, String(next));
    } catch {
      // storage full or disabled: the height lasts until the page is left
    }
  }, []);
  const openTab = useCallback((tab) => setBottom({ open: true, tab }), []);
  const toggle = useCallback(() => setBottom((old) => ({ ...old, open: !old.open })), []);
  const openLogs = useCallback(
    () =>
      setBottom((old) => ({
        open: true,
        tab: old.open && old.tab === "timeline" ? "timeline" : "logs",
      })),
    [],
  );
  return { ...bottom, height, openTab, toggle, openLogs, resize };
}

/** `{nodeIds, labels, data}` for the panel: `nodes` are the editor's, `shown` the canvas'
 * (a viewed run's own); `data` is the data tab's `{api, selectedId, operators}`. */
export function useBottomPanelData({ api, nodes, shown, selectedId, pins }) {
  const idKey = nodes.map((node) => node.id).join("\n");
  const nodeIds = useMemo(() => (idKey ? idKey.split("\n") : []), [idKey]);
  const labelKey = JSON.stringify(nodes.map((node) => [node.id, node.data.label ?? ""]));
  const labels = useMemo(() => Object.fromEntries(JSON.parse(labelKey)), [labelKey]);
  const operatorKey = JSON.stringify(
    shown.map((node) => [node.id, { operator: node.data.operator, params: node.data.params }]),
  );
  const data = useMemo(
    () => ({ api, selectedId, pins, operators: Object.fromEntries(JSON.parse(operatorKey)) }),
    [api, selectedId, pins, operatorKey],
  );
  return { nodeIds, labels, data };
}
