// The canvas: React Flow with the node-type registry, minimap, zoom controls and a grid.
// Operators dropped from the palette arrive through `onDropOperator(name, position)`.

import { Background, Controls, MiniMap, ReactFlow, useReactFlow, useStore } from "@xyflow/react";
import { useLayoutEffect, useRef, useState } from "react";
import { useNodeDrag } from "../editor/useNodeDrag.js";
import { nodeTypes } from "../nodes/registry.js";
import { isInView } from "../viewport.js";
import { OPERATOR_MIME } from "./Palette.jsx";

const MULTI_SELECT_KEYS = ["Shift", "Meta", "Control"];
const FIT_VIEW = { padding: 0.08, maxZoom: 1.2 };
const TYPE_COLORS = { inputOperator: "#0d9488", processOperator: "#4f46e5", outputOperator: "#d97706" };
// At module scope: every edge re-renders when React Flow is given a new object here.
const EDGE_OPTIONS = { interactionWidth: 16 };
// The minimap redraws every node on every move; on big graphs it costs more than it helps
// (drag p95 83–100 ms → 50 ms without it at 1,000 nodes).
const MINIMAP_MAX_NODES = 300;

/**
 * The graph view. Edits go out through the callbacks: `onNodesMoved(positions, key)` when a
 * drag ends or the arrow keys move nodes, `onNodesChange` for selection and sizes.
 */
export default function Canvas({ nodes, edges, onNodesChange, onNodesMoved, onEdgesChange, onConnect, onDropOperator, children }) {
  const { screenToFlowPosition } = useReactFlow();
  const drag = useNodeDrag(nodes, onNodesChange, onNodesMoved);
  // Fitting an empty pipeline's view would wait for its first node, then jump it away from
  // where it was dropped: only a pipeline that opens with nodes is fitted.
  const [fitOnOpen] = useState(nodes.length > 0);
  return (
    <div
      className="pw-canvas"
      onDragOver={(event) => {
        if (event.dataTransfer.types.includes(OPERATOR_MIME)) {
          event.preventDefault();
          event.dataTransfer.dropEffect = "copy";
        }
      }}
      onDrop={(event) => {
        const name = event.dataTransfer.getData(OPERATOR_MIME);
        if (!name) return;
        event.preventDefault();
        onDropOperator(name, screenToFlowPosition({ x: event.clientX, y: event.clientY }));
      }}
    >
      <ReactFlow
        nodes={drag.nodes}
        edges={edges}
        nodeTypes={nodeTypes}
        onNodesChange={drag.onNodesChange}
        onEdgesChange={onEdgesChange}
        onConnect={onConnect}
        onlyRenderVisibleElements
        deleteKeyCode={null}
        multiSelectionKeyCode={MULTI_SELECT_KEYS}
        minZoom={0.05}
        maxZoom={2}
        fitView={fitOnOpen}
        fitViewOptions={FIT_VIEW}
        defaultEdgeOptions={EDGE_OPTIONS}
      >
        <Background gap={20} size={1} color="#d5dbe5" />
        <Controls showInteractive={false} fitViewOptions={FIT_VIEW} />
        {nodes.length <= MINIMAP_MAX_NODES && (
          <MiniMap pannable zoomable style={{ width: 150, height: 96 }} nodeColor={(node) => TYPE_COLORS[node.type] ?? "#94a3b8"} nodeStrokeWidth={0} maskColor="rgba(241,245,249,0.7)" />
        )}
        <KeepGraphInView />
        {children}
      </ReactFlow>
    </div>
  );
}

/**
 * Fits the graph again when the canvas changes size (the log panel opens or closes, the
 * window is resized) if it was wholly in view before: the user keeps seeing all of it, clear
 * of the minimap. A view zoomed into a part of the graph stays as it is.
 */
function KeepGraphInView() {
  const width = useStore((state) => state.width);
  const height = useStore((state) => state.height);
  const { fitView, getNodes, getNodesBounds, getViewport } = useReactFlow();
  const previousSize = useRef(null);
  useLayoutEffect(() => {
    const before = previousSize.current;
    previousSize.current = { width, height };
    if (!before?.width || !before?.height) return;
    const nodes = getNodes();
    if (nodes.length && isInView(getNodesBounds(nodes), getViewport(), before)) fitView(FIT_VIEW);
  }, [width, height, fitView, getNodes, getNodesBounds, getViewport]);
  return null;
}
