// The pipeline editor page: loads the catalog and the pipeline, then wires the features
// together: the canvas, the palette, the panels and the hooks that do the work (saving,
// analysis, clipboard, shortcuts, runs, files, the live view, versions, comparisons, previews).
// What the buttons and keys do to the graph is commands.js; nothing here does more than pass
// things between the features. A viewer of the pipeline's workspace gets it read-only: no
// palette, drags, connections, deletes, saves or runs, and a banner saying why. A past run
// picked from the history shows its own document instead of the editor's graph, read-only too
// (runs/useViewedCanvas.js); so is the pipeline that ran inside a sub-pipeline node of the run
// shown, opened from the node's card (subpipelines/). Others editing the same pipeline show as avatars and outlines,
// and their saves arrive live (together/).

import "./editor.css";
import { ReactFlowProvider } from "@xyflow/react";
import { useCallback, useEffect, useMemo, useState } from "react";
import { useStore } from "../../lib/store.js";
import Toasts from "../../ui/Toasts.jsx";
import { useToasts } from "../../ui/useToasts.js";
import { mayEdit } from "../workspace/roles.js";
import Canvas from "./canvas/Canvas.jsx";
import { nodeTypeOf } from "./canvas/nodes/registry.js";
import { useCanvasItems } from "./canvas/useCanvasItems.js";
import { useClipboard } from "./canvas/useClipboard.js";
import { useViewCenter } from "./canvas/useViewCenter.js";
import { useFreeSpot } from "./canvas/useFreeSpot.js";
import { useWiredAdds } from "./canvas/useWiredAdds.js";
import { useEditorCommands, useEditorState } from "./commands.js";
import RunCompareView from "./compare/RunCompareView.jsx";
import { useHistoryViews } from "./compare/useHistoryViews.js";
import { CatalogContext, InsideContext, OverlayContext, WorkspaceContext } from "./contexts.js";
import { usePreview } from "./data/usePreview.js";
import { createCatalog } from "./document/catalog.js";
import { isDirty } from "./document/editorState.js";
import { canRedo, canUndo } from "./document/history.js";
import { createOverlay } from "./overlay.js";
import BottomPanel from "./panels/BottomPanel.jsx";
import Palette from "./panels/Palette.jsx";
import InsideBanner from "./subpipelines/InsideBanner.jsx";
import { useRunInside } from "./subpipelines/useRunInside.js";
import { useSubpipelines } from "./subpipelines/useSubpipelines.js";
import SidePanel from "./panels/SidePanel.jsx";
import TopBar from "./panels/TopBar.jsx";
import { useBottomPanel, useBottomPanelData } from "./panels/useBottomPanel.js";
import { useSelectedNodes } from "./panels/useSelectedNodes.js";
import { usePlanView } from "./plan/usePlanView.js";
import LineageLegend from "./lineage/LineageLegend.jsx";
import HistoryMenu from "./runs/HistoryMenu.jsx";
import RunDialog from "./runs/RunDialog.jsx";
import RunProblemsDialog from "./runs/RunProblemsDialog.jsx";
import { useStaleNodes } from "./runs/useStaleNodes.js";
import { usePins } from "./pins/usePins.js";
import { ANYWAY, runProblems } from "./runs/runProblems.js";
import { RunProgress, ViewedRunBanner } from "./runs/RunStatus.jsx";
import { useLiveRun } from "./runs/useLiveRun.js";
import { useRunControls } from "./runs/useRunControls.js";
import { useViewedCanvas } from "./runs/useViewedCanvas.js";
import ConflictDialog from "./saving/ConflictDialog.jsx";
import { useAnalysis } from "./saving/useAnalysis.js";
import { useDocumentSaving } from "./saving/useDocumentSaving.js";
import { saveStatus } from "./saving/useSaving.js";
import SettingsDialog from "./settings/SettingsDialog.jsx";
import PresenceBar from "./together/PresenceBar.jsx";
import SelectionOutlines from "./together/SelectionOutlines.jsx";
import { createTogether } from "./together/together.js";
import { useTogether } from "./together/useTogether.js";
import ShortcutSheet from "./ShortcutSheet.jsx";
import { useShortcuts } from "./useShortcuts.js";
import { useVersions } from "./versions/useVersions.js";
import VersionsMenu from "./versions/VersionsMenu.jsx";
import VersionView from "./versions/VersionView.jsx";

const NO_NODES = [];
const ignoreChanges = () => {};

/** Loads what the editor needs, then shows it (or says what went wrong). */
export default function EditorApp({ api, pipelineId, userName, workspace }) {
  const [loaded, setLoaded] = useState(null);
  const [error, setError] = useState(null);
  const access = useMemo(() => ({ api, workspace }), [api, workspace]);
  useEffect(() => {
    Promise.all([api.get("/api/operators"), api.get(`/api/pipelines/${pipelineId}`)]).then(
      ([operators, pipeline]) =>
        setLoaded({
          catalog: createCatalog(operators.items, nodeTypeOf, operators.statuses, operators.checks),
          pipeline,
        }),
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
      <WorkspaceContext.Provider value={access}>
        <Editor
          api={api}
          pipelineId={pipelineId}
          userName={userName}
          workspace={workspace}
          catalog={loaded.catalog}
          pipeline={loaded.pipeline}
        />
      </WorkspaceContext.Provider>
    </ReactFlowProvider>
  );
}

function Editor({ api, pipelineId, userName, workspace, catalog, pipeline }) {
  const base = `/api/pipelines/${pipelineId}`;
  const subpipelines = useSubpipelines(api, base);
  const readOnly = !mayEdit(workspace?.role);
  const editor = useEditorState(pipeline, catalog, readOnly);
  const { state, dispatch, stateRef, commit, amend } = editor;
  const { meta, nodes, edges } = state.history.present;
  const [overlay] = useState(createOverlay);
  const [together] = useState(createTogether);
  const toasts = useToasts();
  const [dialog, setDialog] = useState(null);
  const [filing, setFiling] = useState(() => ({ folder: pipeline.folder, tags: pipeline.tags }));
  const bottom = useBottomPanel();
  const connection = useLiveRun(pipelineId, overlay, catalog.statuses, together);
  const liveRunId = useStore(overlay, (value) => value.live.runId);
  const viewedId = useStore(overlay, (value) => value.viewed?.runId ?? null);
  const viewedCanvas = useViewedCanvas(overlay, catalog.typeOf);
  const inside = useStore(overlay, (value) => value.inside !== null);
  const locked = readOnly || viewedCanvas !== null;
  const selected = useSelectedNodes(nodes);
  const analysis = useAnalysis({ api, base, overlay, present: state.history.present, readOnly });
  useStaleNodes({ api, overlay, present: state.history.present, sets: catalog.statuses });
  const pins = usePins({ api, base, overlay, readOnly });
  const plan = usePlanView({ api, base, overlay, active: bottom.open && bottom.tab === "plan" });
  const { saving, saveFirst, onReplaced, onTaken, conflictChoices, files } = useDocumentSaving({
    api,
    pipelineId,
    catalog,
    workspace,
    pipeline,
    editor,
    analysis,
    planSaved: plan.saved,
    readOnly,
    toasts,
  });
  const { save } = saving;
  const { freeSpot, sizeOf } = useFreeSpot({ catalog, overlay, stateRef });
  const wired = useWiredAdds({ catalog, stateRef, commit, amend, toasts, freeSpot });
  const { box: canvasBox, viewCenter } = useViewCenter();
  const items = useCanvasItems({
    meta,
    stateRef,
    commit,
    center: viewCenter,
    freeSpot,
    toasts,
    readOnly: locked,
  });
  const clipboard = useClipboard({ stateRef, commit, toasts, viewCenter, freeSpot, sizeOf });

  const runs = useRunControls({
    api,
    base,
    overlay,
    sets: catalog.statuses,
    stateRef,
    saveFirst,
    showProblems: analysis.showProblems,
    toasts,
    setDialog,
    openLogs: bottom.openLogs,
  });
  const commands = useEditorCommands({
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
    withoutSelected: items.withoutSelected,
    saveFirst,
    toasts,
  });
  const { undo, redo, deleteSelection } = commands;
  const { importJson: importFile } = files;
  const { layOutImported } = commands;
  // A file whose nodes have no positions would stack them all in one place: lay it out.
  const importJson = useCallback(
    async (file) => {
      if (await importFile(file)) await layOutImported();
    },
    [importFile, layOutImported],
  );
  useShortcuts(locked, {
    save,
    undo,
    redo,
    copy: clipboard.copy,
    paste: clipboard.paste,
    remove: deleteSelection,
    selectAll: commands.selectAll,
    help: () => setDialog({ kind: "shortcuts" }),
  });
  const { openTab } = bottom;
  const showPreview = useCallback(() => openTab("preview"), [openTab]);
  const { preview, runPreview } = usePreview({ api, base, saveFirst, onStart: showPreview });

  const versions = useVersions({
    api,
    base,
    catalog,
    saving,
    saveFirst,
    dispatch,
    onReplaced,
    toasts,
  });
  const viewedVersion = versions.viewing?.item.revision ?? null;
  const { comparing, showRun, showVersion, compareRuns, comparePair, closeComparison } =
    useHistoryViews({ runs, versions, viewedId });
  const { backToLive } = runs;
  const runInside = useRunInside({ api, overlay, toasts });
  const shownRunId = useStore(overlay, (value) => (value.viewed ?? value.live).runId);
  const historyMenu = useMemo(
    () => (
      <>
        <HistoryMenu
          load={runs.loadRuns}
          onPick={showRun}
          onLive={backToLive}
          onCompare={compareRuns}
          viewedId={viewedId}
          userName={userName}
        />
        <VersionsMenu
          load={versions.load}
          onPick={showVersion}
          viewed={viewedVersion}
          userName={userName}
        />
      </>
    ),
    [
      runs.loadRuns,
      showRun,
      backToLive,
      compareRuns,
      viewedId,
      userName,
      versions.load,
      showVersion,
      viewedVersion,
    ],
  );
  const saveNow = useCallback(() => save(), [save]);
  const openSettings = useCallback(() => setDialog({ kind: "settings" }), []);
  const problemsByNode = useStore(overlay, (value) => value.problems);
  const knownProblems = useMemo(
    () => runProblems(problemsByNode, analysis.pipelineProblems, nodes),
    [problemsByNode, analysis.pipelineProblems, nodes],
  );
  const closeDialog = useCallback(() => setDialog(null), []);

  const dirty = isDirty(state);
  const { label: saveLabel, title: saveTitle } = saveStatus(saving, dirty);
  const shown = viewedCanvas ?? { nodes, edges };
  const selectedId = !viewedCanvas && selected.length === 1 ? selected[0].id : null;
  const team = useTogether({
    together,
    api,
    base,
    catalog,
    saving,
    stateRef,
    dispatch,
    onTaken,
    selectedId,
    userName,
  });
  const { nodeIds, labels, data } = useBottomPanelData({
    api,
    nodes,
    shown: shown.nodes,
    selectedId,
    pins,
  });

  return (
    <CatalogContext.Provider value={catalog}>
      <OverlayContext.Provider value={overlay}>
        <div className="pw-editor">
          {/* The page's heading for assistive technology; the top bar shows the name as a field. */}
          <h1 className="pw-visually-hidden">{meta.name}</h1>
          <TopBar
            readOnly={readOnly}
            workspace={workspace}
            name={meta.name}
            onRename={commands.rename}
            saveLabel={saveLabel}
            saveTitle={saveTitle}
            onSave={saveNow}
            onUndo={undo}
            canUndo={canUndo(state.history)}
            onRedo={redo}
            canRedo={canRedo(state.history)}
            onLayout={commands.autoLayout}
            onSettings={openSettings}
            onExport={files.exportJson}
            onExportPython={files.exportPython}
            onImport={importJson}
            imageUrl={`${base}/graph`}
            history={historyMenu}
            runActive={runs.phase === "cancelling" || catalog.statuses.runActive.has(runs.phase)}
            cancelling={runs.phase === "cancelling"}
            onRun={runs.onRun}
            tuning={runs.tuning}
            onTuning={runs.setTuning}
            onCancel={runs.onCancel}
            connection={connection}
            presence={<PresenceBar people={team.people} newer={team.newer} />}
            problemCount={knownProblems.length}
          />
          <SelectionOutlines people={team.people} />
          <RunProgress />
          {readOnly ? (
            <div className="pw-readonly-bar" role="status">
              <strong>Read only</strong> — you are a viewer in {workspace?.name ?? "this workspace"}
              . You can look, preview and export; ask one of its admins for the editor role to
              change or run it.
            </div>
          ) : null}
          <div className="pw-workspace">
            {locked ? null : (
              <Palette
                items={catalog.items}
                onAdd={commands.addAtCenter}
                subpipelines={subpipelines}
              />
            )}
            <div className={`pw-center${inside ? " is-inside" : ""}`} ref={canvasBox}>
              <InsideContext.Provider value={shownRunId === null ? null : runInside.openNode}>
                <Canvas
                  readOnly={locked}
                  nodes={shown.nodes}
                  edges={shown.edges}
                  notes={(viewedCanvas?.meta ?? meta).notes}
                  groups={(viewedCanvas?.meta ?? meta).groups}
                  items={items}
                  onNodesChange={viewedCanvas ? ignoreChanges : commands.onNodesChange}
                  onNodesMoved={commands.onNodesMoved}
                  onEdgesChange={viewedCanvas ? ignoreChanges : commands.onEdgesChange}
                  onConnect={commands.onConnect}
                  onDropOperator={commands.dropOperator}
                  onAddConnected={wired.addConnected}
                  onInsertNode={wired.insertNode}
                >
                  <ViewedRunBanner onLive={runs.backToLive} liveRunId={liveRunId} />
                  <InsideBanner onOpen={runInside.open} onClose={runInside.close} />
                  <LineageLegend api={api} base={base} />
                  {!shown.nodes.length ? (
                    <div className="pw-canvas-empty">
                      <h2>An empty pipeline</h2>
                      <p>
                        {readOnly
                          ? "Nobody has added a node yet."
                          : "Drag an input from the palette on the left onto this canvas to begin."}
                      </p>
                    </div>
                  ) : null}
                </Canvas>
              </InsideContext.Provider>
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
              {comparing ? (
                <RunCompareView
                  api={api}
                  runs={comparing.runs}
                  pair={comparing.pair}
                  onPair={comparePair}
                  onClose={closeComparison}
                  userName={userName}
                />
              ) : null}
              <BottomPanel
                open={bottom.open}
                tab={bottom.tab}
                onTab={bottom.openTab}
                onToggle={bottom.toggle}
                height={bottom.height}
                onResize={bottom.resize}
                preview={preview}
                nodeIds={nodeIds}
                labels={labels}
                plan={plan}
                dirty={dirty}
                data={data}
              />
            </div>
            <SidePanel
              api={api}
              base={base}
              readOnly={locked}
              selected={viewedCanvas ? NO_NODES : selected}
              schemas={analysis.schemas}
              onNodeChange={commands.onNodeChange}
              onPreview={runPreview}
              onRun={locked ? null : runs.onRun}
              runActive={runs.phase === "cancelling" || catalog.statuses.runActive.has(runs.phase)}
              onDelete={deleteSelection}
              onFocusNode={commands.focusNode}
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
              filing={filing}
              onFiled={setFiling}
              onClose={closeDialog}
              onApply={(next) => {
                commands.applySettings(next);
                closeDialog();
              }}
            />
          ) : null}
          {dialog?.kind === "problems" ? (
            <RunProblemsDialog
              problems={knownProblems}
              onFocusNode={commands.focusNode}
              onRunAnyway={() => runs.onRun(ANYWAY)}
              onClose={closeDialog}
            />
          ) : null}
          {dialog?.kind === "shortcuts" ? <ShortcutSheet onClose={closeDialog} /> : null}
          {dialog?.kind === "run" ? (
            <RunDialog
              parameters={dialog.parameters}
              options={dialog.options}
              onStart={runs.startRun}
              onClose={closeDialog}
            />
          ) : null}
          {saving.conflict ? (
            <ConflictDialog
              who={conflictChoices.who}
              rows={conflictChoices.rows}
              onReload={conflictChoices.reloadTheirs}
              onKeepCopy={conflictChoices.keepMineAsCopy}
              onOverwrite={conflictChoices.overwrite}
              onShowDifferences={conflictChoices.showDifferences}
              differences={conflictChoices.differences}
            />
          ) : null}
          <Toasts toasts={toasts.toasts} dismiss={toasts.dismiss} />
        </div>
      </OverlayContext.Provider>
    </CatalogContext.Provider>
  );
}
