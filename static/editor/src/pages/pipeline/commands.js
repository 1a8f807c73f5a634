// The editor's state and what its buttons, keys and canvas gestures do to the graph: add an operator (at the
// middle of the view, or where it was dropped), connect, delete the selection, undo / redo,
// select all, edit a node, show a node, auto-layout, rename, apply the settings. Each is a
// dispatch to the editor's reducer (document/editorState.js), one undo step where it edits.

import { useReactFlow } from "@xyflow/react";
import { useCallback, useReducer } from "react";
import { useLatest } from "../../lib/useLatest.js";
import { documentToCanvas } from "./document/document.js";
import { editorReducer, initialEditorState, viewerReducer } from "./document/editorState.js";
import { spreadLayout } from "./document/layout.js";
import {
  addNode,
  connect,
  createNode,
  deleteSelected,
  selectAllChanges,
  uniqueNodeId,
  updateNodeData,
} from "./document/graph.js";
import { cardGeometry } from "./canvas/nodes/geometry.js";
import { FIT_VIEW } from "./canvas/viewport.js";
import { chosenSubpipeline } from "./subpipelines/subpipelines.js";

const NODE_SIZE = { width: 200, height: 56 };

/**
 * The editor's state (document/editorState.js) for the loaded `pipeline`: `{state, dispatch,
 * stateRef, commit(update, key), amend(update)}`. `stateRef.current` is the state of the last
 * render, for callbacks that stay the same; a viewer's reducer (`readOnly`) records no edits.
 */
export function useEditorState(pipeline, catalog, readOnly) {
  // The pipeline is converted once, not at every render (1,000 nodes: a few ms each time).
  const [state, dispatch] = useReducer(
    readOnly ? viewerReducer : editorReducer,
    pipeline,
    (loaded) => initialEditorState(documentToCanvas(loaded, catalog.typeOf)),
  );
  const stateRef = useLatest(state);
  const commit = useCallback((update, key) => dispatch({ type: "commit", update, key }), []);
  const amend = useCallback((update) => dispatch({ type: "commit", update, amend: true }), []);
  return { state, dispatch, stateRef, commit, amend };
}

/**
 * The commands on the graph in `stateRef` (the editor's state, current at each call).
 * `commit(update, key)` records an edit; `viewCenter()` is the middle of the canvas in flow
 * coordinates; `wired` the adds that connect (canvas/useWiredAdds.js); `withoutSelected` drops
 * deleted nodes from notes and groups (canvas/useCanvasItems.js); `saveFirst()` saves before
 * asking the server for a layout.
 */
export function useEditorCommands({
  api,
  base,
  catalog,
  overlay,
  stateRef,
  dispatch,
  commit,
  viewCenter,
  freeSpot,
  canvasBox,
  wired,
  withoutSelected,
  saveFirst,
  toasts,
}) {
  const reactFlow = useReactFlow();

  const addOperator = useCallback(
    (name, center) => {
      const chosen = chosenSubpipeline(name); // a pipeline from the palette's Sub-pipelines
      const operator = chosen ? "subpipeline" : name;
      if (!catalog.byName.get(operator)) return;
      const id = uniqueNodeId(
        chosen ? chosen.id : name,
        stateRef.current.history.present.nodes.map((node) => node.id),
      );
      const position = { x: center.x - NODE_SIZE.width / 2, y: center.y - NODE_SIZE.height / 2 };
      const node = createNode(operator, catalog.typeOf(operator), position, id);
      if (chosen) node.data.params = chosen.params;
      commit((now) => ({ ...now, nodes: addNode(now.nodes, node) }));
    },
    [catalog, commit, stateRef],
  );

  const dropOperator = useCallback(
    (name, point, edgeId) =>
      edgeId && !chosenSubpipeline(name)
        ? wired.dropOnEdge(name, edgeId, point)
        : addOperator(name, point),
    [wired, addOperator],
  );

  const addAtCenter = useCallback(
    (name) => {
      const box = canvasBox.current?.getBoundingClientRect();
      const spot = freeSpot(viewCenter(), NODE_SIZE);
      const middle = { x: spot.x + NODE_SIZE.width / 2, y: spot.y + NODE_SIZE.height / 2 };
      addOperator(name, middle);
      const far = box && reactFlow.screenToFlowPosition({ x: box.right, y: box.bottom });
      if (far && (spot.x + NODE_SIZE.width > far.x || spot.y + NODE_SIZE.height > far.y)) {
        reactFlow.setCenter(middle.x, middle.y, { zoom: reactFlow.getZoom(), duration: 200 });
      }
    },
    [addOperator, canvasBox, reactFlow, freeSpot, viewCenter],
  );

  const onConnect = useCallback(
    (made) => {
      const present = stateRef.current.history.present;
      const result = connect(present.nodes, present.edges, made, catalog.portsOf);
      if (result.error) {
        toasts.show(`Not connected: ${result.error}.`, { kind: "error" });
        return;
      }
      commit((now) => ({ ...now, edges: result.edges }));
    },
    [catalog, commit, stateRef, toasts],
  );

  const deleteSelection = useCallback(() => {
    commit((now) => {
      const result = deleteSelected(now.nodes, now.edges, catalog.portsOf);
      const deleted = result.changed
        ? now.nodes.filter((node) => node.selected).map((node) => node.id)
        : [];
      const meta = withoutSelected(now.meta, deleted);
      if (!result.changed && meta === now.meta) return now;
      return { ...now, meta, nodes: result.nodes, edges: result.edges };
    });
  }, [catalog, commit, withoutSelected]);

  const undo = useCallback(() => dispatch({ type: "undo" }), [dispatch]);
  const redo = useCallback(() => dispatch({ type: "redo" }), [dispatch]);
  const selectAll = useCallback(
    () =>
      dispatch({
        type: "nodesChange",
        changes: selectAllChanges(stateRef.current.history.present.nodes),
      }),
    [dispatch, stateRef],
  );
  const onNodesChange = useCallback(
    (changes) => dispatch({ type: "nodesChange", changes }),
    [dispatch],
  );
  const onEdgesChange = useCallback(
    (changes) => dispatch({ type: "edgesChange", changes }),
    [dispatch],
  );
  const onNodesMoved = useCallback(
    (positions, key) => dispatch({ type: "move", positions, key }),
    [dispatch],
  );
  const onNodeChange = useCallback(
    (id, patch, key) =>
      commit((now) => ({ ...now, nodes: updateNodeData(now.nodes, id, patch) }), key),
    [commit],
  );
  const rename = useCallback(
    (name) => commit((now) => ({ ...now, meta: { ...now.meta, name } }), "name"),
    [commit],
  );
  const applySettings = useCallback((meta) => commit((now) => ({ ...now, meta })), [commit]);

  /** Selects only node `id` and brings it to the middle of the view (the problem list). */
  const focusNode = useCallback(
    (id) => {
      const present = stateRef.current.history.present;
      const node = present.nodes.find((item) => item.id === id);
      if (!node) return;
      const changes = present.nodes
        .filter((item) => item.selected !== (item.id === id))
        .map((item) => ({ id: item.id, type: "select", selected: item.id === id }));
      dispatch({ type: "nodesChange", changes });
      const { width, height } = cardGeometry(
        catalog.portsOf(node),
        Boolean(overlay.get().problems[id]?.length),
      );
      reactFlow.setCenter(node.position.x + width / 2, node.position.y + height / 2, {
        zoom: Math.max(reactFlow.getZoom(), 0.8),
        duration: 300,
      });
    },
    [catalog, dispatch, overlay, reactFlow, stateRef],
  );

  // Every card is sized as if it had a problem note: a problem found after the layout (an
  // edit, a file removed, a graph just imported whose problems the server has not said yet)
  // then shows its note without covering the card below.
  const layOut = useCallback(async () => {
    if (!(await saveFirst())) return;
    try {
      const { positions } = await api.post(`${base}/layout`, {});
      const sizes = Object.fromEntries(
        stateRef.current.history.present.nodes.map((node) => [
          node.id,
          cardGeometry(catalog.portsOf(node), true),
        ]),
      );
      dispatch({ type: "move", positions: spreadLayout(positions, sizes) });
      window.requestAnimationFrame(() =>
        reactFlow.fitView({ ...FIT_VIEW, padding: 0.2, duration: 300 }),
      );
    } catch (error) {
      toasts.show(`Auto-layout failed: ${error.message}`, { kind: "error" });
    }
  }, [api, base, catalog, dispatch, reactFlow, saveFirst, stateRef, toasts]);
  const autoLayout = layOut;
  const layOutImported = layOut;

  return {
    addAtCenter,
    dropOperator,
    onConnect,
    deleteSelection,
    undo,
    redo,
    selectAll,
    onNodesChange,
    onEdgesChange,
    onNodesMoved,
    onNodeChange,
    rename,
    applySettings,
    focusNode,
    autoLayout,
    layOutImported,
  };
}
