// The bottom panel: whether it is open, which tab it shows, and what its tabs read of the graph
// (node ids and labels, the shown nodes' operators and params), kept the same objects while
// those stay the same so that the panel skips the renders of a drag.

import { useCallback, useMemo, useState } from "react";

/** `{open, tab, openTab(tab), toggle(), openLogs()}`: a run opens the logs, unless the user
 * watches its timeline. */
export function useBottomPanel() {
  const [bottom, setBottom] = useState({ open: false, tab: "logs" });
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
  return { ...bottom, openTab, toggle, openLogs };
}

/** `{nodeIds, labels, data}` for the panel: `nodes` are the editor's, `shown` the canvas'
 * (a viewed run's own); `data` is the data tab's `{api, selectedId, operators}`. */
export function useBottomPanelData({ api, nodes, shown, selectedId }) {
  const idKey = nodes.map((node) => node.id).join("\n");
  const nodeIds = useMemo(() => (idKey ? idKey.split("\n") : []), [idKey]);
  const labelKey = JSON.stringify(nodes.map((node) => [node.id, node.data.label ?? ""]));
  const labels = useMemo(() => Object.fromEntries(JSON.parse(labelKey)), [labelKey]);
  const operatorKey = JSON.stringify(
    shown.map((node) => [node.id, { operator: node.data.operator, params: node.data.params }]),
  );
  const data = useMemo(
    () => ({ api, selectedId, operators: Object.fromEntries(JSON.parse(operatorKey)) }),
    [api, selectedId, operatorKey],
  );
  return { nodeIds, labels, data };
}
