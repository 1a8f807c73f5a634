// The pipeline editor page: loads the catalog and the pipeline, then wires the canvas, the
// palette, the side and bottom panels, saving, validation, runs and the live view together.
// A viewer of the pipeline's workspace gets it read-only: no palette, drags, connections,
// deletes, saves or runs, and a banner saying why.

import { ReactFlowProvider, useReactFlow } from "@xyflow/react";
import { useCallback, useContext, useEffect, useMemo, useReducer, useRef, useState } from "react";
import { createCatalog } from "../model/catalog.js";
import { documentToCanvas } from "../model/document.js";
import { formatDuration } from "../model/format.js";
import { addNode, connect, copySelection, createNode, deleteSelected, freePosition, paste, uniqueNodeId, updateNodeData } from "../model/graph.js";
import { canRedo, canUndo } from "../model/history.js";
import { describeProblem, groupProblems } from "../model/problems.js";
import { fromRunDetails, fromStartedRun, isActive, runProgress } from "../model/runState.js";
import { useStore } from "../model/store.js";
import { CatalogContext, OverlayContext } from "./contexts.js";
import { nodeTypeOf } from "../nodes/registry.js";
import BottomPanel from "./panels/BottomPanel.jsx";
import Canvas from "./canvas/Canvas.jsx";
import ConflictDialog from "./dialogs/ConflictDialog.jsx";
import HistoryMenu from "./panels/HistoryMenu.jsx";
import Palette from "./panels/Palette.jsx";
import RunDialog from "./dialogs/RunDialog.jsx";
import SettingsDialog from "./dialogs/SettingsDialog.jsx";
import SidePanel from "./panels/SidePanel.jsx";
import Toasts from "../ui/Toasts.jsx";
import TopBar from "./panels/TopBar.jsx";
import { mayEdit } from "../workspaces/roles.js";
import { editorReducer, initialEditorState, isDirty, viewerReducer } from "../model/editorState.js";
import { createOverlay, shownRun } from "../model/overlay.js";
import { useLiveRun } from "./hooks/useLiveRun.js";
import { useSaving } from "./hooks/useSaving.js";
import { useToasts } from "../ui/useToasts.js";

const CLIPBOARD_KEY = "pipewright.clipboard";
const PREVIEW_ROWS = 50;
const NODE_SIZE = { width: 200, height: 56 };

/** Loads what the editor needs, then shows it (or says what went wrong). */
export default function EditorApp({ api, pipelineId, userName, workspace }) {
  const [loaded, setLoaded] = useState(null);
  const [error, setError] = useState(null);
  useEffect(() => {
    Promise.all([api.get("/api/operators"), api.get(`/api/pipelines/${pipelineId}`)]).then(
      ([operators, pipeline]) => setLoaded({ catalog: createCatalog(operators.items, nodeTypeOf), pipeline }),
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

function isTyping(target) {
  return target instanceof HTMLElement && (target.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(target.tagName));
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
  const pasteCount = useRef(0);
  const [pipelineProblems, setPipelineProblems] = useState([]);
  const [schemas, setSchemas] = useState(null);
  const [savedRevision, setSavedRevision] = useState(pipeline.revision);
  const [dialog, setDialog] = useState(null);
  const [bottom, setBottom] = useState({ open: false, tab: "logs" });
  const [preview, setPreview] = useState(null);
  const connection = useLiveRun(pipelineId, overlay);
  const liveStatus = useStore(overlay, (value) => value.live.status);
  const liveRunId = useStore(overlay, (value) => value.live.runId);
  const viewedId = useStore(overlay, (value) => value.viewed?.runId ?? null);

  const showProblems = useCallback(
    (problems) => {
      const grouped = groupProblems(problems);
      overlay.set((value) => ({ ...value, problems: grouped.byNode }));
      setPipelineProblems(grouped.pipeline);
    },
    [overlay],
  );

  const validate = useCallback(() => {
    api.post(`${base}/validate`, {}).then(
      (answer) => showProblems(answer.problems),
      () => {},
    );
  }, [api, base, showProblems]);

  const onSaved = useCallback(
    (saved) => {
      setSavedRevision(saved.revision);
      validate();
    },
    [validate],
  );
  const onSaveFailed = useCallback(
    (error) => {
      toasts.show(`Not saved: ${error.message}`, { kind: "error", details: (error.body.problems ?? []).map((problem) => describeProblem(problem, true)) });
      if (error.body.problems) showProblems(error.body.problems);
    },
    [toasts, showProblems],
  );
  const saving = useSaving({ api, pipelineId, state, stateRef, dispatch, initialRevision: pipeline.revision, onSaved, onFailed: onSaveFailed, readOnly });
  const { save, resolve, adopt, revision } = saving;

  useEffect(validate, [validate]);

  const selected = useSelectedNodes(nodes);
  const selectedId = selected.length === 1 ? selected[0].id : null;
  useEffect(() => {
    if (!selectedId || schemas?.revision === savedRevision) return undefined;
    let stale = false;
    api.get(`${base}/schemas`).then(
      (answer) => !stale && setSchemas({ revision: savedRevision, nodes: answer.nodes }),
      () => {},
    );
    return () => {
      stale = true;
    };
  }, [api, base, selectedId, savedRevision, schemas]);

  // Tell the user when a live run ends.
  const lastStatus = useRef(liveStatus);
  useEffect(() => {
    const was = lastStatus.current;
    lastStatus.current = liveStatus;
    if ((was === "running" || was === "queued") && !isActive({ status: liveStatus }) && liveStatus !== "idle") {
      const run = overlay.get().live;
      const took = run.durationS != null ? ` in ${formatDuration(run.durationS)}` : "";
      toasts.show(`Run ${liveStatus}${took}.`, { kind: liveStatus === "succeeded" ? "success" : "error" });
    }
  }, [liveStatus, overlay, toasts]);

  const commit = useCallback((update, key) => dispatch({ type: "commit", update, key }), []);

  const addOperator = useCallback(
    (name, center) => {
      const operator = catalog.byName.get(name);
      if (!operator) return;
      const present = stateRef.current.history.present;
      const id = uniqueNodeId(name, present.nodes.map((node) => node.id));
      const position = { x: center.x - NODE_SIZE.width / 2, y: center.y - NODE_SIZE.height / 2 };
      commit((now) => ({ ...now, nodes: addNode(now.nodes, createNode(name, catalog.typeOf(name), position, id)) }));
    },
    [catalog, commit],
  );

  const addAtCenter = useCallback(
    (name) => {
      const box = canvasBox.current?.getBoundingClientRect();
      const center = box ? reactFlow.screenToFlowPosition({ x: box.left + box.width / 2, y: box.top + box.height / 2 }) : { x: 0, y: 0 };
      const corner = { x: center.x - NODE_SIZE.width / 2, y: center.y - NODE_SIZE.height / 2 };
      const spot = freePosition(stateRef.current.history.present.nodes, corner, NODE_SIZE);
      const middle = { x: spot.x + NODE_SIZE.width / 2, y: spot.y + NODE_SIZE.height / 2 };
      addOperator(name, middle);
      const far = box && reactFlow.screenToFlowPosition({ x: box.right, y: box.bottom });
      if (far && (spot.x + NODE_SIZE.width > far.x || spot.y + NODE_SIZE.height > far.y)) {
        reactFlow.setCenter(middle.x, middle.y, { zoom: reactFlow.getZoom(), duration: 200 });
      }
    },
    [addOperator, reactFlow],
  );

  const onConnect = useCallback(
    (connection) => {
      const present = stateRef.current.history.present;
      const result = connect(present.nodes, present.edges, connection, catalog.portsOf);
      if (result.error) {
        toasts.show(`Not connected: ${result.error}.`, { kind: "error" });
        return;
      }
      commit((now) => ({ ...now, edges: result.edges }));
    },
    [catalog, commit, toasts],
  );

  const deleteSelection = useCallback(() => {
    commit((now) => {
      const result = deleteSelected(now.nodes, now.edges);
      return result.changed ? { ...now, nodes: result.nodes, edges: result.edges } : now;
    });
  }, [commit]);

  const copy = useCallback(() => {
    const present = stateRef.current.history.present;
    const clipboard = copySelection(present.nodes, present.edges);
    if (!clipboard) return;
    pasteCount.current = 0;
    try {
      window.localStorage.setItem(CLIPBOARD_KEY, JSON.stringify(clipboard));
    } catch {
      // storage full or disabled: the copy is simply not kept
    }
    toasts.show(`Copied ${clipboard.nodes.length} node${clipboard.nodes.length === 1 ? "" : "s"}.`);
  }, [toasts]);

  const pasteClipboard = useCallback(() => {
    let clipboard = null;
    try {
      clipboard = JSON.parse(window.localStorage.getItem(CLIPBOARD_KEY) ?? "null");
    } catch {
      clipboard = null;
    }
    if (!clipboard?.nodes?.length) return;
    pasteCount.current += 1;
    const shift = 40 * pasteCount.current;
    commit((now) => {
      const result = paste(now.nodes, now.edges, clipboard, { x: shift, y: shift * 2 });
      return { ...now, nodes: result.nodes, edges: result.edges };
    });
  }, [commit]);

  const undo = useCallback(() => dispatch({ type: "undo" }), []);
  const redo = useCallback(() => dispatch({ type: "redo" }), []);

  useEffect(() => {
    const onKey = (event) => {
      const mod = event.ctrlKey || event.metaKey;
      const key = event.key.toLowerCase();
      if (mod && key === "s") {
        event.preventDefault();
        if (!readOnly) save({ force: false });
        return;
      }
      if (isTyping(event.target) || document.querySelector(".pw-backdrop")) return;
      if (readOnly) {
        if (mod && key === "c") copy();
        return;
      }
      if (mod && key === "z") {
        event.preventDefault();
        if (event.shiftKey) redo();
        else undo();
      } else if (mod && key === "y") {
        event.preventDefault();
        redo();
      } else if (mod && key === "c") {
        copy();
      } else if (mod && key === "v") {
        event.preventDefault();
        pasteClipboard();
      } else if (!mod && (event.key === "Delete" || event.key === "Backspace")) {
        event.preventDefault();
        deleteSelection();
      }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [readOnly, save, undo, redo, copy, pasteClipboard, deleteSelection]);

  const onNodesChange = useCallback((changes) => dispatch({ type: "nodesChange", changes }), []);
  const onEdgesChange = useCallback((changes) => dispatch({ type: "edgesChange", changes }), []);
  const onNodesMoved = useCallback((positions, key) => dispatch({ type: "move", positions, key }), []);

  const onNodeChange = useCallback((id, patch, key) => commit((now) => ({ ...now, nodes: updateNodeData(now.nodes, id, patch) }), key), [commit]);

  /** Saves first when there are unsaved changes; false when that did not work. */
  const saveFirst = useCallback(async () => {
    if (!isDirty(stateRef.current)) return true;
    const ok = await save();
    if (!ok) toasts.show("Save the pipeline first: the server works on the saved version.", { kind: "error" });
    return ok;
  }, [save, toasts]);

  const runPreview = useCallback(
    async (node) => {
      setBottom({ open: true, tab: "preview" });
      setPreview({ node, loading: true });
      if (!(await saveFirst())) {
        setPreview({ node, error: "the pipeline is not saved" });
        return;
      }
      try {
        const result = await api.post(`${base}/preview`, { node, limit: PREVIEW_ROWS });
        setPreview({ node, result });
      } catch (error) {
        setPreview({ node, error: error.message });
      }
    },
    [api, base, saveFirst],
  );

  const autoLayout = useCallback(async () => {
    if (!(await saveFirst())) return;
    try {
      const { positions } = await api.post(`${base}/layout`, {});
      dispatch({ type: "move", positions });
      window.requestAnimationFrame(() => reactFlow.fitView({ padding: 0.2, duration: 300 }));
    } catch (error) {
      toasts.show(`Auto-layout failed: ${error.message}`, { kind: "error" });
    }
  }, [api, base, reactFlow, saveFirst, toasts]);

  const exportJson = useCallback(async () => {
    if (!(await saveFirst())) return;
    const link = document.createElement("a");
    link.href = `${base}/export`;
    link.download = "";
    document.body.append(link);
    link.click();
    link.remove();
  }, [base, saveFirst]);

  const importJson = useCallback(
    async (file) => {
      let document;
      try {
        document = JSON.parse(await file.text());
      } catch (error) {
        toasts.show(`${file.name} is not valid JSON: ${error.message}`, { kind: "error" });
        return;
      }
      if (!document || typeof document !== "object" || Array.isArray(document)) {
        toasts.show(`${file.name} is not a pipeline document (a JSON object).`, { kind: "error" });
        return;
      }
      const name = stateRef.current.history.present.meta.name;
      try {
        const saved = await api.put(base, { ...document, name, revision: revision.current });
        adopt(saved);
        dispatch({ type: "reload", canvas: documentToCanvas(saved, catalog.typeOf) });
        setSavedRevision(saved.revision);
        validate();
        window.requestAnimationFrame(() => reactFlow.fitView({ padding: 0.2 }));
        toasts.show(`Imported ${file.name}. Undo brings the previous graph back.`, { kind: "success" });
      } catch (error) {
        toasts.show(`${file.name} was not imported: ${error.message}`, {
          kind: "error",
          details: (error.body.problems ?? []).map((problem) => describeProblem(problem, true)),
        });
      }
    },
    [api, base, catalog, reactFlow, adopt, revision, toasts, validate],
  );

  const reload = useCallback(async () => {
    try {
      const fresh = await api.get(base);
      await resolve("reload", fresh);
      dispatch({ type: "reload", canvas: documentToCanvas(fresh, catalog.typeOf) });
      setSavedRevision(fresh.revision);
      validate();
    } catch (error) {
      toasts.show(`Could not reload: ${error.message}`, { kind: "error" });
    }
  }, [api, base, catalog, resolve, toasts, validate]);

  const startRun = useCallback(
    async (parameters) => {
      setDialog(null);
      if (!(await saveFirst())) return;
      try {
        const run = await api.post(`${base}/runs`, { parameters });
        overlay.set((value) => ({ ...value, viewed: null, live: fromStartedRun(value.live, run) }));
        toasts.clear();
        setBottom((old) => ({ ...old, open: true, tab: "logs" }));
      } catch (error) {
        toasts.show(`The run did not start: ${error.message}`, {
          kind: "error",
          details: (error.body.problems ?? []).map((problem) => describeProblem(problem, true)),
        });
        if (error.body.problems) showProblems(error.body.problems);
      }
    },
    [api, base, overlay, saveFirst, showProblems, toasts],
  );

  const onRun = useCallback(() => {
    const parameters = stateRef.current.history.present.meta.config?.parameters ?? {};
    if (Object.keys(parameters).length) setDialog({ kind: "run", parameters });
    else startRun({});
  }, [startRun]);

  const onCancel = useCallback(async () => {
    const runId = overlay.get().live.runId;
    if (runId === null) return;
    try {
      await api.post(`/api/runs/${runId}/cancel`, {});
      toasts.show("Cancelling the run…");
    } catch (error) {
      toasts.show(`Could not cancel: ${error.message}`, { kind: "error" });
    }
  }, [api, overlay, toasts]);

  const loadRuns = useCallback(() => api.get(`${base}/runs?limit=30`), [api, base]);
  const pickRun = useCallback(
    async (run) => {
      try {
        const details = await api.get(`/api/runs/${run.id}`);
        overlay.set((value) => ({ ...value, viewed: fromRunDetails(details) }));
      } catch (error) {
        toasts.show(`Could not load run ${run.id}: ${error.message}`, { kind: "error" });
      }
    },
    [api, overlay, toasts],
  );
  const backToLive = useCallback(() => overlay.set((value) => ({ ...value, viewed: null })), [overlay]);
  const historyMenu = useMemo(
    () => <HistoryMenu load={loadRuns} onPick={pickRun} onLive={backToLive} viewedId={viewedId} userName={userName} />,
    [loadRuns, pickRun, backToLive, viewedId, userName],
  );
  const rename = useCallback((name) => commit((now) => ({ ...now, meta: { ...now.meta, name } }), "name"), [commit]);
  const saveNow = useCallback(() => save(), [save]);
  const openSettings = useCallback(() => setDialog({ kind: "settings" }), []);
  const closeDialog = useCallback(() => setDialog(null), []);
  const overwrite = useCallback(() => resolve("overwrite"), [resolve]);

  const dirty = isDirty(state);
  const saveLabel = saving.phase === "saving" ? "Saving…" : dirty || saving.conflict ? "Unsaved" : "Saved";
  const saveTitle = saving.conflict ? "Someone else saved meanwhile: reload or overwrite" : saving.phase === "failed" ? "The last save failed" : "";
  const idKey = nodes.map((node) => node.id).join("\n");
  const nodeIds = useMemo(() => (idKey ? idKey.split("\n") : []), [idKey]);
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
            onExport={exportJson}
            onImport={importJson}
            imageUrl={`${base}/graph`}
            history={historyMenu}
            runActive={isActive({ status: liveStatus })}
            onRun={onRun}
            onCancel={onCancel}
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
            {readOnly ? null : <Palette items={catalog.items} onAdd={addAtCenter} />}
            <div className="pw-center" ref={canvasBox}>
              <Canvas
                readOnly={readOnly}
                nodes={nodes}
                edges={edges}
                onNodesChange={onNodesChange}
                onNodesMoved={onNodesMoved}
                onEdgesChange={onEdgesChange}
                onConnect={onConnect}
                onDropOperator={addOperator}
              >
                <ViewedRunBanner onLive={backToLive} liveRunId={liveRunId} />
                {!nodes.length ? (
                  <div className="pw-canvas-empty">
                    <h2>An empty pipeline</h2>
                    <p>{readOnly ? "Nobody has added a node yet." : "Drag an input from the palette on the left onto this canvas to begin."}</p>
                  </div>
                ) : null}
              </Canvas>
              <BottomPanel
                open={bottom.open}
                tab={bottom.tab}
                onTab={onBottomTab}
                onToggle={onBottomToggle}
                preview={preview}
                nodeIds={nodeIds}
              />
            </div>
            <SidePanel
              readOnly={readOnly}
              selected={selected}
              schemas={schemas}
              onNodeChange={onNodeChange}
              onPreview={runPreview}
              onDelete={deleteSelection}
              pipelineProblems={pipelineProblems}
              nodeCount={nodes.length}
            />
          </div>
          {dialog?.kind === "settings" ? (
            <SettingsDialog
              meta={meta}
              onClose={closeDialog}
              onApply={(next) => {
                commit((now) => ({ ...now, meta: next }));
                setDialog(null);
              }}
            />
          ) : null}
          {dialog?.kind === "run" ? <RunDialog parameters={dialog.parameters} onStart={startRun} onClose={closeDialog} /> : null}
          {saving.conflict ? <ConflictDialog onReload={reload} onOverwrite={overwrite} /> : null}
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

function RunProgress() {
  const overlay = useContext(OverlayContext);
  const status = useStore(overlay, (value) => shownRun(value).status);
  const done = useStore(overlay, (value) => runProgress(shownRun(value)).done);
  const total = useStore(overlay, (value) => runProgress(shownRun(value)).total);
  if (status === "idle" || !total) return <div className="pw-progress" aria-hidden="true" />;
  const percent = Math.round((done / total) * 100);
  return (
    <div className={`pw-progress pw-progress-${status}`} role="progressbar" aria-label="Run progress" aria-valuemin={0} aria-valuemax={total} aria-valuenow={done} title={`${done} of ${total} nodes done`}>
      <div className="pw-progress-fill" style={{ width: `${percent}%` }} />
    </div>
  );
}

function ViewedRunBanner({ onLive, liveRunId }) {
  const overlay = useContext(OverlayContext);
  const viewed = useStore(overlay, (value) => value.viewed);
  if (!viewed) return null;
  return (
    <div className="pw-banner" role="status">
      <span>
        Showing run #{viewed.runId} as it ended: <strong>{viewed.status}</strong>
        {viewed.durationS != null ? ` in ${formatDuration(viewed.durationS)}` : ""}
        {viewed.runId === liveRunId ? " (the latest run)" : ""}
      </span>
      <button type="button" onClick={onLive}>
        Back to live
      </button>
    </div>
  );
}
