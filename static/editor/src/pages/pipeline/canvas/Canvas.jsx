// The canvas: React Flow with the node-type registry, minimap, zoom controls and a grid.
// Operators dropped from the palette arrive through `onDropOperator(name, position, edgeId)`
// (`edgeId` when dropped on an edge: useEdgeDrop.js); a connection let go on empty canvas
// opens a palette of the operators it can reach (ConnectPalette.jsx). Sticky notes and groups
// are drawn as nodes of their own types (useItemNodes.js), never sent on as operators.
// `readOnly` (a viewer's editor): nodes are selected and the view moves, nothing else.
// While a connection is dragged, the handles it may not end at are greyed (useRefusedEnds.js).

import {
  Background,
  Controls,
  MiniMap,
  ReactFlow,
  useReactFlow,
  useStore,
  useStoreApi,
} from "@xyflow/react";
import {
  useCallback,
  useContext,
  useEffect,
  useLayoutEffect,
  useMemo,
  useRef,
  useState,
} from "react";
import { itemOf } from "../document/canvasItems.js";
import { isStrayEdge, strayPorts } from "../document/graph.js";
import { operatorsFor } from "../document/wiring.js";
import { useNodeDrag } from "./useNodeDrag.js";
import { useRefusedEnds } from "./useRefusedEnds.js";
import { useSizedNodes } from "./useSizedNodes.js";
import {
  CanvasItemsContext,
  CatalogContext,
  CardDetailContext,
  OverlayContext,
  RefusedEndsContext,
} from "../contexts.js";
import { nodeTypes } from "./nodes/registry.js";
import { useStore as useOverlayStore } from "../../../lib/store.js";
import { FIT_VIEW, cardDetailOf, isInView, isZoomedOut, openingViewport } from "./viewport.js";
import { OPERATOR_MIME } from "../panels/Palette.jsx";
import CanvasTools from "./CanvasTools.jsx";
import ConnectPalette from "./ConnectPalette.jsx";
import PortTargets, { PortPickContext } from "./PortTargets.jsx";
import { connectTargets } from "../document/keyboardConnect.js";
import PlainEdges from "./PlainEdges.jsx";
import { markPathEdges } from "../lineage/lineage.js";
import { useEdgeDrop } from "./useEdgeDrop.js";
import { useItemNodes } from "./useItemNodes.js";
// After the cards' and the palette's styles (imported above), which its rules override.
import "./canvas.css";

const MULTI_SELECT_KEYS = ["Shift", "Meta", "Control"];
const MIN_ZOOM = 0.05;
const TYPE_COLORS = {
  inputOperator: "#0d9488",
  processOperator: "#4f46e5",
  outputOperator: "#d97706",
};
// At module scope: every edge re-renders when React Flow is given a new object here.
const EDGE_OPTIONS = { interactionWidth: 16 };
// The minimap redraws every node on every move; on big graphs it costs more than it helps
// (drag p95 83–100 ms → 50 ms without it at 1,000 nodes).
const MINIMAP_MAX_NODES = 300;
// Zoomed out on a big graph, edges are plain curves instead of React Flow's (PlainEdges.jsx).
const PLAIN_EDGES_ABOVE = 300;
const NO_EDGES = [];
const PALETTE_BOX = { width: 270, height: 330 }; // ConnectPalette.jsx's, with a margin

/**
 * The graph view. Edits go out through the callbacks: `onNodesMoved(positions, key)` when a
 * drag ends or the arrow keys move nodes, `onNodesChange` for selection, `onAddConnected(name,
 * from, position)` for an operator picked where a connection from the handle `from` was let
 * go, `onInsertNode(nodeId, edgeId)` when a node without edges is let go on an edge. `items`
 * (canvas/useCanvasItems.js) does the notes' and groups' edits.
 */
export default function Canvas({
  readOnly = false,
  nodes,
  edges,
  notes,
  groups,
  items,
  onNodesChange,
  onNodesMoved,
  onEdgesChange,
  onConnect,
  onDropOperator,
  onAddConnected,
  onInsertNode,
  children,
}) {
  const { screenToFlowPosition, viewportInitialized } = useReactFlow();
  const drag = useNodeDrag(nodes, onNodesChange, onNodesMoved);
  const catalog = useContext(CatalogContext);
  const stray = useMemo(
    () =>
      strayPorts(nodes, edges, catalog.portsOf, (node) => catalog.byName.has(node.data.operator)),
    [nodes, edges, catalog],
  );
  const sized = useSizedNodes(drag.nodes, catalog.portsOf, useFlaggedNodes(), stray);
  const overlay = useContext(OverlayContext);
  const lineage = useOverlayStore(overlay, (value) => value.lineage ?? null); // a column's path
  const markedEdges = useMemo(
    () => markPathEdges(markStrayEdges(edges, stray), lineage),
    [edges, stray, lineage],
  );
  const edgeDrop = useEdgeDrop({ sized, edges: markedEdges, onInsertNode });
  const shownEdges = edgeDrop.shownEdges;
  const itemNodes = useItemNodes({ items, notes, groups, shown: sized });
  const { groupNodes, noteNodes, route } = itemNodes;
  const flowNodes = useMemo(
    () => (groupNodes.length || noteNodes.length ? [...groupNodes, ...noteNodes, ...sized] : sized),
    [groupNodes, noteNodes, sized],
  );
  const dragChange = drag.onNodesChange;
  const onFlowNodesChange = useCallback(
    (changes) => {
      const theirs = changes.filter((change) => itemOf(change.id));
      if (!theirs.length) {
        dragChange(changes);
        return;
      }
      const moved = route(theirs);
      const movedIds = new Set(moved.map((change) => change.id));
      const own = changes.filter(
        (change) => !itemOf(change.id) && !(change.type === "position" && movedIds.has(change.id)),
      );
      if (own.length || moved.length) dragChange([...own, ...moved]);
    },
    [dragChange, route],
  );
  const box = useRef(null);
  const [reach, setReach] = useState(null); // {from, at, position} while the palette at a let-go connection is open
  const closeReach = useCallback(() => setReach(null), []);
  const onConnectEnd = useCallback(
    (event, state) => {
      if (readOnly || state.isValid || state.toHandle || !state.fromHandle) return;
      if (!(event.target instanceof Element) || !event.target.closest(".react-flow__pane")) return;
      const { clientX, clientY } = "changedTouches" in event ? event.changedTouches[0] : event;
      const rect = box.current.getBoundingClientRect();
      const { nodeId, id, type } = state.fromHandle;
      // The palette opens at the pointer, kept inside the canvas.
      const at = {
        x: Math.min(clientX - rect.left, rect.width - PALETTE_BOX.width),
        y: Math.min(clientY - rect.top, rect.height - PALETTE_BOX.height),
      };
      setReach({
        from: { nodeId, id, type },
        at: { x: Math.max(0, at.x), y: Math.max(0, at.y) },
        position: screenToFlowPosition({ x: clientX, y: clientY }),
      });
    },
    [readOnly, screenToFlowPosition],
  );
  const reachable = useMemo(
    () => (reach ? operatorsFor(catalog.items, reach.from.type) : []),
    [reach, catalog],
  );
  const pickReached = useCallback(
    (name) => {
      setReach(null);
      onAddConnected(name, reach.from, reach.position);
    },
    [reach, onAddConnected],
  );
  const portPick = usePortPick({ box, nodes, edges, portsOf: catalog.portsOf, onConnect });
  const refused = useRefusedEnds(nodes, edges, catalog.portsOf);
  const zoomedOut = useStore(isZoomedOut);
  const detail = useStore(cardDetailOf);
  const plainEdges = zoomedOut && edges.length > PLAIN_EDGES_ABOVE;
  // Until the view is fitted it is not known which edges to draw: React Flow would draw its
  // own and then drop them for plain ones.
  const flowEdges = viewportInitialized && !plainEdges ? shownEdges : NO_EDGES;
  useUnselectedEdges(plainEdges, edges, onEdgesChange);
  return (
    <RefusedEndsContext.Provider value={refused}>
      <PortPickContext.Provider value={readOnly ? null : portPick.open}>
        <CardDetailContext.Provider value={detail}>
          <CanvasItemsContext.Provider value={items}>
            <div
              className="pw-canvas"
              ref={box}
              onDragOver={(event) => {
                if (!readOnly && event.dataTransfer.types.includes(OPERATOR_MIME)) {
                  event.preventDefault();
                  event.dataTransfer.dropEffect = "copy";
                  edgeDrop.overAt(event);
                }
              }}
              onDragLeave={(event) => {
                if (!event.currentTarget.contains(event.relatedTarget)) edgeDrop.clear();
              }}
              onDrop={(event) => {
                const name = event.dataTransfer.getData(OPERATOR_MIME);
                if (!name || readOnly) return;
                event.preventDefault();
                const edgeId = edgeDrop.overAt(event);
                edgeDrop.clear();
                onDropOperator(
                  name,
                  screenToFlowPosition({ x: event.clientX, y: event.clientY }),
                  edgeId,
                );
              }}
            >
              <ReactFlow
                nodes={flowNodes}
                edges={flowEdges}
                nodeTypes={nodeTypes}
                onNodesChange={onFlowNodesChange}
                onEdgesChange={onEdgesChange}
                onConnect={onConnect}
                onConnectEnd={onConnectEnd}
                onNodeDrag={readOnly ? undefined : edgeDrop.onNodeDrag}
                onNodeDragStop={readOnly ? undefined : edgeDrop.onNodeDragStop}
                nodesDraggable={!readOnly}
                nodesConnectable={!readOnly}
                onlyRenderVisibleElements
                deleteKeyCode={null}
                multiSelectionKeyCode={MULTI_SELECT_KEYS}
                minZoom={MIN_ZOOM}
                maxZoom={2}
                defaultEdgeOptions={EDGE_OPTIONS}
              >
                <Background gap={20} size={1} color="#d5dbe5" />
                <Controls showInteractive={false} fitViewOptions={FIT_VIEW} />
                {nodes.length <= MINIMAP_MAX_NODES && (
                  <MiniMap
                    pannable
                    zoomable
                    style={{ width: 150, height: 96 }}
                    nodeColor={(node) => TYPE_COLORS[node.type] ?? "#94a3b8"}
                    nodeStrokeWidth={0}
                    maskColor="rgba(241,245,249,0.7)"
                  />
                )}
                {plainEdges ? (
                  <PlainEdges nodes={sized} edges={edges} moving={drag.moving} />
                ) : null}
                {readOnly ? null : (
                  <CanvasTools items={items} selectedNodes={selectedCount(nodes)} />
                )}
                <FitOnOpen />
                <KeepGraphInView />
                {children}
              </ReactFlow>
              {reach ? (
                <ConnectPalette
                  items={reachable}
                  at={reach.at}
                  side={reach.from.type}
                  onClose={closeReach}
                  onPick={pickReached}
                />
              ) : null}
              {portPick.picking ? (
                <PortTargets
                  title={`Connect ${portPick.picking.label}`}
                  targets={portPick.picking.targets}
                  at={portPick.picking.at}
                  onPick={portPick.pick}
                  onClose={portPick.close}
                />
              ) : null}
            </div>
          </CanvasItemsContext.Provider>
        </CardDetailContext.Provider>
      </PortPickContext.Provider>
    </RefusedEndsContext.Provider>
  );
}

const labelOf = (node) => node.data.label || node.id;

/**
 * Connecting from a focused port by keyboard: `open(from, element)` lists the ports the
 * connection may end at beside the port (`picking`), `pick(target)` connects, `close(refocus)`
 * closes; either way the port gets the focus back.
 */
function usePortPick({ box, nodes, edges, portsOf, onConnect }) {
  const [picking, setPicking] = useState(null); // {label, targets, at, element}
  const open = useCallback(
    (from, element) => {
      const rect = box.current.getBoundingClientRect();
      const port = element.getBoundingClientRect();
      setPicking({
        label: element.getAttribute("aria-label") ?? from.id,
        targets: connectTargets(nodes, edges, from, portsOf, labelOf),
        at: {
          // Below the port, clear of the card it may connect to next on its right.
          x: Math.max(0, Math.min(port.left - rect.left, rect.width - PALETTE_BOX.width)),
          y: Math.max(0, Math.min(port.bottom + 40 - rect.top, rect.height - PALETTE_BOX.height)),
        },
        element,
      });
    },
    [box, nodes, edges, portsOf],
  );
  const close = useCallback(
    (refocus) => {
      if (refocus && picking?.element.isConnected) picking.element.focus();
      setPicking(null);
    },
    [picking],
  );
  const pick = useCallback(
    (target) => {
      onConnect(target.connection);
      close(true);
    },
    [onConnect, close],
  );
  return { picking, open, close, pick };
}

const selectedCount = (nodes) => nodes.reduce((count, node) => count + (node.selected ? 1 : 0), 0);

/** The edges with those ending at a stray port drawn in red (the others the same objects). */
function markStrayEdges(edges, stray) {
  if (!Object.keys(stray).length) return edges;
  return edges.map((edge) =>
    isStrayEdge(edge, stray)
      ? {
          ...edge,
          className: "pw-edge-stray",
          ariaLabel: `Invalid edge ${edge.id}: a port its node does not have`,
        }
      : edge,
  );
}

/** The ids of the nodes with problems, as a Set that changes only when they do. */
function useFlaggedNodes() {
  const overlay = useContext(OverlayContext);
  const key = useOverlayStore(overlay, (value) => Object.keys(value.problems).join("\n"));
  return useMemo(() => new Set(key ? key.split("\n") : []), [key]);
}

/**
 * Unselects the edges while they are plain: those cannot be selected, or show it, and a
 * click on the canvas or a node, which unselects React Flow's edges, would not reach them.
 */
function useUnselectedEdges(plainEdges, edges, onEdgesChange) {
  useEffect(() => {
    if (!plainEdges) return;
    const changes = edges
      .filter((edge) => edge.selected)
      .map((edge) => ({ id: edge.id, type: "select", selected: false }));
    if (changes.length) onEdgesChange(changes);
  }, [plainEdges, edges, onEdgesChange]);
}

/**
 * Shows the graph when the canvas opens with nodes, before they are first drawn: fitted, but
 * never below the zoom where card text is readable (viewport.js; the rest is a pan away). React
 * Flow's `fitView` prop fits once nodes get measured, and ours never are (useSizedNodes.js).
 * An empty pipeline is not fitted: its first node would jump away from where it was dropped.
 */
function FitOnOpen() {
  const store = useStoreApi();
  const { getNodes, getNodesBounds, setViewport } = useReactFlow();
  useEffect(() => {
    const nodes = getNodes();
    if (!nodes.length) return;
    const { width, height } = store.getState();
    setViewport(openingViewport(getNodesBounds(nodes), { width, height }));
  }, [store, getNodes, getNodesBounds, setViewport]);
  return null;
}

/**
 * Fits the graph again when the canvas changes size (the log panel opens or closes, the
 * window is resized) if it was wholly in view before: the user keeps seeing all of it, clear
 * of the minimap, at no closer a zoom than "Fit view" gives nor further out than theirs (a
 * graph zoomed out past "Fit view" to see it whole stays whole). A view zoomed into a part of
 * the graph stays as it is.
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
    const viewport = getViewport();
    if (nodes.length && isInView(getNodesBounds(nodes), viewport, before)) {
      fitView({ ...FIT_VIEW, minZoom: Math.min(FIT_VIEW.minZoom, viewport.zoom) });
    }
  }, [width, height, fitView, getNodes, getNodesBounds, getViewport]);
  return null;
}
