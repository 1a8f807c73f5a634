// The canvas: React Flow with the node-type registry, minimap, zoom controls and a grid.
// Operators dropped from the palette arrive through `onDropOperator(name, position)`.

import { Background, Controls, MiniMap, ReactFlow, useReactFlow } from "@xyflow/react";
import { nodeTypes } from "../nodes/registry.js";
import { OPERATOR_MIME } from "./Palette.jsx";

const MULTI_SELECT_KEYS = ["Shift", "Meta", "Control"];
const FIT_VIEW = { padding: 0.08, maxZoom: 1.2 };
const TYPE_COLORS = { inputOperator: "#0d9488", processOperator: "#4f46e5", outputOperator: "#d97706" };

/** The graph view; all edits go out through the callbacks (the canvas keeps no state). */
// The minimap redraws every node on every move; on big graphs it costs more than it helps
// (drag p95 83–100 ms → 50 ms without it at 1,000 nodes).
const MINIMAP_MAX_NODES = 300;

export default function Canvas({ nodes, edges, onNodesChange, onEdgesChange, onConnect, onDropOperator, onNodeDragStart, onNodeDragStop, children }) {
  const { screenToFlowPosition } = useReactFlow();
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
        nodes={nodes}
        edges={edges}
        nodeTypes={nodeTypes}
        onNodesChange={onNodesChange}
        onEdgesChange={onEdgesChange}
        onConnect={onConnect}
        onNodeDragStart={onNodeDragStart}
        onNodeDragStop={onNodeDragStop}
        onSelectionDragStart={onNodeDragStart}
        onSelectionDragStop={onNodeDragStop}
        onlyRenderVisibleElements
        deleteKeyCode={null}
        multiSelectionKeyCode={MULTI_SELECT_KEYS}
        minZoom={0.05}
        maxZoom={2}
        fitView
        fitViewOptions={FIT_VIEW}
        defaultEdgeOptions={{ interactionWidth: 16 }}
      >
        <Background gap={20} size={1} color="#d5dbe5" />
        <Controls showInteractive={false} fitViewOptions={FIT_VIEW} />
        {nodes.length <= MINIMAP_MAX_NODES && (
          <MiniMap pannable zoomable style={{ width: 150, height: 96 }} nodeColor={(node) => TYPE_COLORS[node.type] ?? "#94a3b8"} nodeStrokeWidth={0} maskColor="rgba(241,245,249,0.7)" />
        )}
        {children}
      </ReactFlow>
    </div>
  );
}
