// The pipeline editor page: loads the catalog and the pipeline, then wires the canvas, the
// palette, the panels and the hooks that do the work (saving, analysis, clipboard, shortcuts,
// runs, files, the live view). Nothing here does more than pass things between them.
// A viewer of the pipeline's workspace gets it read-only: no palette, drags, connections,
// deletes, saves or runs, and a banner saying why. A past run picked from the history shows
// its own document instead of the editor's graph, read-only too (runs/useViewedCanvas.js).

import { ReactFlowProvider, useReactFlow } from "@xyflow/react";
import { useCallback, useEffect, useMemo, useReducer, useRef, useState } from "react";
import { createCatalog } from "./document/catalog.js";
import { documentToCanvas } from "./document/document.js";
import { isDirty, editorReducer, initialEditorState, viewerReducer } from "./document/editorState.js";
import { addNode, connect, createNode, deleteSelected, freePosition, selectAllChanges, uniqueNodeId, updateNodeData } from "./document/graph.js";
import { canRedo, canUndo } from "./document/history.js";
import { spreadLayout } from "./document/layout.js";
import { createOverlay } from "./overlay.js";
import { refusalDetails } from "./document/problems.js";
import { defaultPair } from "./compare/runComparison.js";
import { useStore } from "../../lib/store.js";
import { cardGeometry } from "./canvas/nodes/geometry.js";
import { nodeTypeOf } from "./canvas/nodes/registry.js";
import Toasts from "../../ui/Toasts.jsx";
import { useToasts } from "../../ui/useToasts.js";
import { mayEdit } from "../workspace/roles.js";
import Canvas from "./canvas/Canvas.jsx";
import { useCanvasItems } from "./canvas/useCanvasItems.js";
import { useWiredAdds } from "./canvas/useWiredAdds.js";
import { CatalogContext, OverlayContext } from "./contexts.js";
import ConflictDialog from "./saving/ConflictDialog.jsx";
import { useConflict } from "./saving/useConflict.js";
import RunDialog from "./runs/RunDialog.jsx";
import SettingsDialog from "./settings/SettingsDialog.jsx";
import { useAnalysis } from "./saving/useAnalysis.js";
import { useClipboard } from "./canvas/useClipboard.js";
import { useLiveRun } from "./runs/useLiveRun.js";
import { usePlanView } from "./plan/usePlanView.js";
import { usePipelineFiles } from "./saving/usePipelineFiles.js";
import { useRunControls } from "./runs/useRunControls.js";
import { useSaving } from "./saving/useSaving.js";
import { useShortcuts } from "./useShortcuts.js";
import { useViewedCanvas } from "./runs/useViewedCanvas.js";
import BottomPanel from "./panels/BottomPanel.jsx";
import RunCompareView from "./compare/RunCompareView.jsx";
import HistoryMenu from "./runs/HistoryMenu.jsx";
import Palette from "./panels/Palette.jsx";
import { RunProgress, ViewedRunBanner } from "./runs/RunStatus.jsx";
import SidePanel from "./panels/SidePanel.jsx";
import TopBar from "./panels/TopBar.jsx";
import { useVersions } from "./versions/useVersions.js";
import VersionsMenu from "./versions/VersionsMenu.jsx";
import VersionView from "./versions/VersionView.jsx";

const PREVIEW_ROWS = 50;
// While a preview's request is held in the server's line, how often to ask where it waits.
const LINE_POLL_MS = 1000;
const NODE_SIZE = { width: 200, height: 56 };
const NO_NODES = [];
const ignoreChanges = () => {};

/** Loads what the editor needs, then shows it (or says what went wrong). */
export default function EditorApp({ api, pipelineId, userName, workspace }) {
  const [loaded, setLoaded] = useState(null);
  const [error, setError] = useState(null);
  useEffect(() => {
    Promise.all([api.get("/api/operators"), api.get(`/api/pipelines/${pipelineId}`)]).then(
      ([operators, pipeline]) => setLoaded({ catalog: createCatalog(operators.items, nodeTypeOf, operators.statuses), pipeline }),
      setError,
    );
  }, [api, pipelineId]);
  if (error) {
    return (
      <div className="pw-page-message" role="alert">
        <h1>The pipeline could not be opened</h1>
        <p>{error.message}</p>
        <a href="/">Back to the pipelines</a>
      </div>
    );
  }
  if (!loaded) return <div className="pw-page-message pw-muted">Loading the editor…</div>;
  return (
    <ReactFlowProvider>
      <Editor api={api} pipelineId={pipelineId} userName={userName} workspace={workspace} catalog={loaded.catalog} pipeline={loaded.pipeline} />
    </ReactFlowProvider>
  );
}

function Editor({ api, pipelineId, userName, workspace, catalog, pipeline }) {
  const base = `/api/pipelines/${pipelineId}`;
  const readOnly = !mayEdit(workspace?.role);
  // The pipeline is converted once, not at every render (1,000 nodes: a few ms each time).
  const [state, dispatch] = useReducer(readOnly ? viewerReducer : editorReducer, pipeline, (loaded) => initialEditorState(documentToCanvas(loaded, catalog.typeOf)));
  const stateRef = useRef(state);
  stateRef.current = state;
  const { meta, nodes, edges } = state.history.present;
  const overlay = useMemo(createOverlay, []);
  const toasts = useToasts();
  const reactFlow = useReactFlow();
  const canvasBox = useRef(null);
  const [dialog, setDialog] = useState(null);
  const [bottom, setBottom] = useState({ open: false, tab: "logs" });
  const [preview, setPreview] = useState(null);
  const connection = useLiveRun(pipelineId, overlay, catalog.statuses);
  const liveRunId = useStore(overlay, (value) => value.live.runId);
  const viewedId = useStore(overlay, (value) => value.viewed?.runId ?? null);
  const viewedCanvas = useViewedCanvas(overlay, catalog.typeOf);
  const locked = readOnly || viewedCanvas !== null;
  const selected = useSelectedNodes(nodes);
  const analysis = useAnalysis({ api, base, overlay, present: state.history.present, readOnly });
  const { showProblems, analysed, analyseStored } = analysis;
  const plan = usePlanView({ api, base, overlay, active: bottom.open && bottom.tab === "plan" });
  const planSaved = plan.saved;
  /** A save's answer (or a replaced graph's): its analysis, and the plan view follows it. */
  const onSaved = useCallback(
    (answer) => {
      analysed(answer);
      planSaved();
    },
    [analysed, planSaved],
  );
  const onSaveFailed = useCallback(
    (error) => {
      toasts.show(`Not saved: ${error.message}`, { kind: "error", details: refusalDetails(error.body) });
      if (error.body.problems) showProblems(error.body.problems);
    },
    [toasts, showProblems],
  );
  const cardSize = useCallback((node) => cardGeometry(catalog.portsOf(node), false), [catalog]);
  const saving = useSaving({ api, pipelineId, state, stateRef, dispatch, initialRevision: pipeline.revision, onSaved, onFailed: onSaveFailed, readOnly, sizeOf: cardSize });
  const { save, resolve } = saving;
  const commit = useCallback((update, key) => dispatch({ type: "commit", update, key }), []);
  const amend = useCallback((update) => dispatch({ type: "commit", update, amend: true }), []);
  const wired = useWiredAdds({ catalog, stateRef, commit, amend, toasts });
  const viewCenter = useCallback(() => {
    const box = canvasBox.current?.getBoundingClientRect();
    return box ? reactFlow.screenToFlowPosition({ x: box.left + box.width / 2, y: box.top + box.height / 2 }) : { x: 0, y: 0 };
  }, [reactFlow]);
  const items = useCanvasItems({ meta, stateRef, commit, center: viewCenter, toasts, readOnly: locked });
  const clipboard = useClipboard({ stateRef, commit, toasts });

  /** Saves first when there are unsaved changes; false when that did not work. */
  const saveFirst = useCallback(async () => {
    if (!isDirty(stateRef.current)) return true;
    const ok = await save();
    if (!ok) toasts.show("Save the pipeline first: the server works on the saved version.", { kind: "error" });
    return ok;
  }, [save, toasts]);

  // A run opens the logs, unless the user watches its timeline.
  const openLogs = useCallback(() => setBottom((old) => ({ open: true, tab: old.open && old.tab === "timeline" ? "timeline" : "logs" })), []);
  const runs = useRunControls({ api, base, overlay, sets: catalog.statuses, stateRef, saveFirst, showProblems, toasts, setDialog, openLogs });
  const onReplaced = useCallback(
    (saved) => {
      onSaved(saved);
      window.requestAnimationFrame(() => reactFlow.fitView({ padding: 0.2 }));
    },
    [onSaved, reactFlow],
  );
  const files = usePipelineFiles({ api, base, catalog, stateRef, dispatch, saving, saveFirst, onReplaced, toasts });

  const addOperator = useCallback(
    (name, center) => {
      if (!catalog.byName.get(name)) return;
      const id = uniqueNodeId(name, stateRef.current.history.present.nodes.map((node) => node.id));
      const position = { x: center.x - NODE_SIZE.width / 2, y: center.y - NODE_SIZE.height / 2 };
      commit((now) => ({ ...now, nodes: addNode(now.nodes, createNode(name, catalog.typeOf(name), position, id)) }));
    },
    [catalog, commit],
  );

  const dropOperator = useCallback((name, point, edgeId) => (edgeId ? wired.dropOnEdge(name, edgeId, point) : addOperator(name, point)), [wired, addOperator]);

  const addAtCenter = useCallback(
    (name) => {
      const box = canvasBox.current?.getBoundingClientRect();
      const center = viewCenter();
      const corner = { x: center.x - NODE_SIZE.width / 2, y: center.y - NODE_SIZE.height / 2 };
      const spot = freePosition(stateRef.current.history.present.nodes, corner, NODE_SIZE);
      const middle = { x: spot.x + NODE_SIZE.width / 2, y: spot.y + NODE_SIZE.height / 2 };
      addOperator(name, middle);
      const far = box && reactFlow.screenToFlowPosition({ x: box.right, y: box.bottom });
      if (far && (spot.x + NODE_SIZE.width > far.x || spot.y + NODE_SIZE.height > far.y)) {
        reactFlow.setCenter(middle.x, middle.y, { zoom: reactFlow.getZoom(), duration: 200 });
      }
    },
    [addOperator, reactFlow, viewCenter],
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
    [catalog, commit, toasts],
  );

  const { withoutSelected } = items;
  const deleteSelection = useCallback(() => {
    commit((now) => {
      const result = deleteSelected(now.nodes, now.edges);
      const deleted = result.changed ? now.nodes.filter((node) => node.selected).map((node) => node.id) : [];
      const meta = withoutSelected(now.meta, deleted);
      if (!result.changed && meta === now.meta) return now;
      return { ...now, meta, nodes: result.nodes, edges: result.edges };
    });
  }, [commit, withoutSelected]);

  const undo = useCallback(() => dispatch({ type: "undo" }), []);
  const redo = useCallback(() => dispatch({ type: "redo" }), []);
  const selectAll = useCallback(() => dispatch({ type: "nodesChange", changes: selectAllChanges(stateRef.current.history.present.nodes) }), []);
  useShortcuts(locked, { save, undo, redo, copy: clipboard.copy, paste: clipboard.paste, remove: deleteSelection, selectAll });

  const onNodesChange = useCallback((changes) => dispatch({ type: "nodesChange", changes }), []);
  const onEdgesChange = useCallback((changes) => dispatch({ type: "edgesChange", changes }), []);
  const onNodesMoved = useCallback((positions, key) => dispatch({ type: "move", positions, key }), []);
  const onNodeChange = useCallback((id, patch, key) => commit((now) => ({ ...now, nodes: updateNodeData(now.nodes, id, patch) }), key), [commit]);

  /** Selects only node `id` and brings it to the middle of the view (the problem list). */
  const focusNode = useCallback(
    (id) => {
      const present = stateRef.current.history.present;
      const node = present.nodes.find((item) => item.id === id);
      if (!node) return;
      const changes = present.nodes.filter((item) => item.selected !== (item.id === id)).map((item) => ({ id: item.id, type: "select", selected: item.id === id }));
      dispatch({ type: "nodesChange", changes });
      const { width, height } = cardGeometry(catalog.portsOf(node), Boolean(overlay.get().problems[id]?.length));
      reactFlow.setCenter(node.position.x + width / 2, node.position.y + height / 2, { zoom: Math.max(reactFlow.getZoom(), 0.8), duration: 300 });
    },
    [catalog, overlay, reactFlow],
  );

  const runPreview = useCallback(
    async (node) => {
      setBottom({ open: true, tab: "preview" });
      setPreview({ node, loading: true });
      if (!(await saveFirst())) {
        setPreview({ node, error: "the pipeline is not saved" });
        return;
      }
      const inLine = window.setInterval(() => {
        api.get("/api/previews/line").then(
          ({ place }) => setPreview((shown) => (shown?.node === node && shown.loading ? { ...shown, place } : shown)),
          () => {},
        );
      }, LINE_POLL_MS);
      try {
        const result = await api.post(`${base}/preview`, { node, limit: PREVIEW_ROWS });
        setPreview({ node, result });
      } catch (error) {
        setPreview({ node, error: error.message });
      } finally {
        window.clearInterval(inLine);
      }
    },
    [api, base, saveFirst],
  );

  const autoLayout = useCallback(async () => {
    if (!(await saveFirst())) return;
    try {
      const { positions } = await api.post(`${base}/layout`, {});
      const { problems } = overlay.get();
      const sizes = Object.fromEntries(stateRef.current.history.present.nodes.map((node) => [node.id, cardGeometry(catalog.portsOf(node), Boolean(problems[node.id]?.length))]));
      dispatch({ type: "move", positions: spreadLayout(positions, sizes) });
      window.requestAnimationFrame(() => reactFlow.fitView({ padding: 0.2, duration: 300 }));
    } catch (error) {
      toasts.show(`Auto-layout failed: ${error.message}`, { kind: "error" });
    }
  }, [api, base, catalog, overlay, reactFlow, saveFirst, toasts]);

  const onTaken = useCallback(
    (fresh) => {
      analyseStored(fresh);
      planSaved();
    },
    [analyseStored, planSaved],
  );
  const conflictChoices = useConflict({ api, base, catalog, workspace, stateRef, dispatch, resolve, sizeOf: cardSize, onTaken, toasts });

  const versions = useVersions({ api, base, catalog, saving, saveFirst, dispatch, onReplaced, toasts });
  const viewedVersion = versions.viewing?.item.revision ?? null;
  // A past run, an earlier version and a comparison of runs are never shown at once: opening
  // one closes the others (a comparison keeps the run viewed under it).
  const { pickRun, backToLive } = runs;
  const { pick: pickVersion, close: closeVersion } = versions;
  const [comparing, setComparing] = useState(null);
  const showRun = useCallback(
    (run) => {
      closeVersion();
      setComparing(null);
      pickRun(run);
    },
    [closeVersion, pickRun],
  );
  const showVersion = useCallback(
    (item, items) => {
      backToLive();
      setComparing(null);
      pickVersion(item, items);
    },
    [backToLive, pickVersion],
  );
  const compareRuns = useCallback(
    (listed) => {
      closeVersion();
      setComparing({ runs: listed, pair: defaultPair(listed, viewedId) });
    },
    [closeVersion, viewedId],
  );
  const comparePair = useCallback((pair) => setComparing((old) => ({ ...old, pair })), []);
  const closeComparison = useCallback(() => setComparing(null), []);
  const historyMenu = useMemo(
    () => (
      <>
        <HistoryMenu load={runs.loadRuns} onPick={showRun} onLive={backToLive} onCompare={compareRuns} viewedId={viewedId} userName={userName} />
        <VersionsMenu load={versions.load} onPick={showVersion} viewed={viewedVersion} userName={userName} />
      </>
    ),
    [runs.loadRuns, showRun, backToLive, compareRuns, viewedId, userName, versions.load, showVersion, viewedVersion],
  );
  const rename = useCallback((name) => commit((now) => ({ ...now, meta: { ...now.meta, name } }), "name"), [commit]);
  const saveNow = useCallback(() => save(), [save]);
  const openSettings = useCallback(() => setDialog({ kind: "settings" }), []);
  const closeDialog = useCallback(() => setDialog(null), []);

  const dirty = isDirty(state);
  const saveLabel = saving.phase === "saving" ? "Saving…" : dirty || saving.conflict ? "Unsaved" : "Saved";
  const saveTitle = saving.conflict ? "Someone else saved meanwhile: reload theirs or keep yours as a copy" : saving.phase === "failed" ? "The last save failed" : "";
  const idKey = nodes.map((node) => node.id).join("\n");
  const nodeIds = useMemo(() => (idKey ? idKey.split("\n") : []), [idKey]);
  const labelKey = JSON.stringify(nodes.map((node) => [node.id, node.data.label ?? ""]));
  const labels = useMemo(() => Object.fromEntries(JSON.parse(labelKey)), [labelKey]);
  const shown = viewedCanvas ?? { nodes, edges };
  const operatorKey = JSON.stringify(shown.nodes.map((node) => [node.id, { operator: node.data.operator, params: node.data.params }]));
  const selectedId = !viewedCanvas && selected.length === 1 ? selected[0].id : null;
  const data = useMemo(() => ({ api, selectedId, operators: Object.fromEntries(JSON.parse(operatorKey)) }), [api, selectedId, operatorKey]);
  const onBottomTab = useCallback((tab) => setBottom({ open: true, tab }), []);
  const onBottomToggle = useCallback(() => setBottom((old) => ({ ...old, open: !old.open })), []);

  return (
    <CatalogContext.Provider value={catalog}>
      <OverlayContext.Provider value={overlay}>
        <div className="pw-editor">
          <TopBar
            readOnly={readOnly}
            workspace={workspace}
            name={meta.name}
            onRename={rename}
            saveLabel={saveLabel}
            saveTitle={saveTitle}
            onSave={saveNow}
            onUndo={undo}
            canUndo={canUndo(state.history)}
            onRedo={redo}
            canRedo={canRedo(state.history)}
            onLayout={autoLayout}
            onSettings={openSettings}
            onExport={files.exportJson}
            onExportPython={files.exportPython}
            onImport={files.importJson}
            imageUrl={`${base}/graph`}
            history={historyMenu}
            runActive={runs.phase === "cancelling" || catalog.statuses.runActive.has(runs.phase)}
            cancelling={runs.phase === "cancelling"}
            onRun={runs.onRun}
            onCancel={runs.onCancel}
            connection={connection}
          />
          <RunProgress />
          {readOnly ? (
            <div className="pw-readonly-bar" role="status">
              <strong>Read only</strong> — you are a viewer in {workspace?.name ?? "this workspace"}. You can look, preview and export; ask one of
              its admins for the editor role to change or run it.
            </div>
          ) : null}
          <div className="pw-workspace">
            {locked ? null : <Palette items={catalog.items} onAdd={addAtCenter} />}
            <div className="pw-center" ref={canvasBox}>
              <Canvas
                readOnly={locked}
                nodes={shown.nodes}
                edges={shown.edges}
                notes={(viewedCanvas?.meta ?? meta).notes}
                groups={(viewedCanvas?.meta ?? meta).groups}
                items={items}
                onNodesChange={viewedCanvas ? ignoreChanges : onNodesChange}
                onNodesMoved={onNodesMoved}
                onEdgesChange={viewedCanvas ? ignoreChanges : onEdgesChange}
                onConnect={onConnect}
                onDropOperator={dropOperator}
                onAddConnected={wired.addConnected}
                onInsertNode={wired.insertNode}
              >
                <ViewedRunBanner onLive={runs.backToLive} liveRunId={liveRunId} />
                {!shown.nodes.length ? (
                  <div className="pw-canvas-empty">
                    <h2>An empty pipeline</h2>
                    <p>{readOnly ? "Nobody has added a node yet." : "Drag an input from the palette on the left onto this canvas to begin."}</p>
                  </div>
                ) : null}
              </Canvas>
              {versions.viewing ? (
                <VersionView
                  key={versions.viewing.item.revision}
                  item={versions.viewing.item}
                  items={versions.viewing.items}
                  loadPair={versions.loadPair}
                  onRestore={versions.restore}
                  onClose={versions.close}
                  readOnly={readOnly}
                />
              ) : null}
              {comparing ? <RunCompareView api={api} runs={comparing.runs} pair={comparing.pair} onPair={comparePair} onClose={closeComparison} userName={userName} /> : null}
              <BottomPanel open={bottom.open} tab={bottom.tab} onTab={onBottomTab} onToggle={onBottomToggle} preview={preview} nodeIds={nodeIds} labels={labels} plan={plan} dirty={dirty} data={data} />
            </div>
            <SidePanel
              api={api}
              base={base}
              readOnly={locked}
              selected={viewedCanvas ? NO_NODES : selected}
              schemas={analysis.schemas}
              onNodeChange={onNodeChange}
              onPreview={runPreview}
              onRun={locked ? null : runs.onRun}
              runActive={runs.phase === "cancelling" || catalog.statuses.runActive.has(runs.phase)}
              onDelete={deleteSelection}
              onFocusNode={focusNode}
              pipelineProblems={analysis.pipelineProblems}
              nodeCount={shown.nodes.length}
            />
          </div>
          {dialog?.kind === "settings" ? (
            <SettingsDialog
              api={api}
              pipelineId={pipelineId}
              readOnly={readOnly}
              meta={meta}
              problems={analysis.pipelineProblems}
              onClose={closeDialog}
              onApply={(next) => {
                commit((now) => ({ ...now, meta: next }));
                setDialog(null);
              }}
            />
          ) : null}
          {dialog?.kind === "run" ? <RunDialog parameters={dialog.parameters} options={dialog.options} onStart={runs.startRun} onClose={closeDialog} /> : null}
          {saving.conflict ? <ConflictDialog onReload={conflictChoices.reloadTheirs} onKeepCopy={conflictChoices.keepMineAsCopy} onOverwrite={conflictChoices.overwrite} onShowDifferences={conflictChoices.showDifferences} differences={conflictChoices.differences} /> : null}
          <Toasts toasts={toasts.toasts} dismiss={toasts.dismiss} />
        </div>
      </OverlayContext.Provider>
    </CatalogContext.Provider>
  );
}

/** The selected nodes: the same array while the same node objects are selected, so that the
 * panels showing them skip a render when other nodes change. */
function useSelectedNodes(nodes) {
  const last = useRef([]);
  const selected = nodes.filter((node) => node.selected);
  if (!sameItems(selected, last.current)) last.current = selected;
  return last.current;
}

const sameItems = (a, b) => a.length === b.length && a.every((item, index) => item === b[index]);
