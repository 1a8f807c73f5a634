// Graph operations on React Flow's node and edge arrays. Every function is pure: it returns
// new arrays (or a refusal) and never changes its arguments. A node's handles are named
// after its operator's ports, so an edge's sourceHandle / targetHandle are port names.

const ID_PATTERN = /^[A-Za-z_][A-Za-z0-9_-]*$/;

/** The id of the edge from one port to another (unique, since such an edge is unique). */
export function edgeId({ source, sourceHandle, target, targetHandle }) {
  return `${source}.${sourceHandle}->${target}.${targetHandle}`;
}

/** A React Flow edge for a connection. */
export function makeEdge(connection) {
  const { source, sourceHandle, target, targetHandle } = connection;
  return { id: edgeId(connection), source, sourceHandle, target, targetHandle };
}

/** `<operator>_<n>` with the smallest n >= 1 not in `taken` (a Set or an array of ids). */
export function uniqueNodeId(operator, taken) {
  const ids = taken instanceof Set ? taken : new Set(taken);
  let base = String(operator).replace(/[^A-Za-z0-9_-]/g, "_") || "node";
  if (!ID_PATTERN.test(base)) base = `n_${base}`;
  for (let n = 1; ; n += 1) {
    const id = `${base}_${n}`;
    if (!ids.has(id)) return id;
  }
}

/** A new canvas node for an operator, of React Flow node type `type`. */
export function createNode(operator, type, position, id) {
  return {
    id,
    type,
    position: { x: Math.round(position.x), y: Math.round(position.y) },
    data: { operator, label: "", params: {}, retries: null, timeout_s: null },
  };
}

/** The nodes with `node` added and made the only selected one. */
export function addNode(nodes, node) {
  return [...deselectAll(nodes), { ...node, selected: true }];
}

function deselectAll(items) {
  return items.map((item) => (item.selected ? { ...item, selected: false } : item));
}

/** The node ids on a path from `from` to `to` following edges, or null when there is none. */
export function findPath(edges, from, to) {
  return pathFinder(edges)(from, to);
}

/** `(from, to) => path | null` over `edges`, which indexes them once for many questions. */
function pathFinder(edges) {
  const outgoing = new Map();
  for (const edge of edges) {
    if (!outgoing.has(edge.source)) outgoing.set(edge.source, []);
    outgoing.get(edge.source).push(edge.target);
  }
  return (from, to) => {
    const previous = new Map([[from, null]]);
    const queue = [from];
    for (let at = 0; at < queue.length; at += 1) {
      const current = queue[at];
      if (current === to) {
        const path = [];
        for (let step = to; step !== null; step = previous.get(step)) path.unshift(step);
        return path;
      }
      for (const next of outgoing.get(current) ?? []) {
        if (!previous.has(next)) {
          previous.set(next, current);
          queue.push(next);
        }
      }
    }
    return null;
  };
}

/**
 * Why the connection may not be made, in the user's words, or null when it may.
 * `portsOf(node)` gives the node's `{inputs, outputs}` ports ({name, many, required}).
 * Each refusal is one the server makes on save (runtime/graph.py): dangling_edge,
 * unknown_port, cycle, duplicate_edge, too_many_edges.
 */
export function connectionProblem(nodes, edges, connection, portsOf) {
  return connectionRule(nodes, edges, portsOf)(connection);
}

/** `connectionProblem` for one graph and many connections: it indexes the graph once. */
export function connectionRule(nodes, edges, portsOf) {
  const byId = new Map(nodes.map((node) => [node.id, node]));
  const ids = new Set(edges.map(edgeId));
  const findBack = pathFinder(edges);
  const into = new Map();
  for (const edge of edges) {
    const key = handleKey(edge.target, "target", edge.targetHandle);
    if (!into.has(key)) into.set(key, edge);
  }
  return (connection) => {
    const { source, sourceHandle, target, targetHandle } = connection;
    const sourceNode = byId.get(source);
    const targetNode = byId.get(target);
    if (!sourceNode || !targetNode) return "both ends of a connection must be nodes on the canvas";
    const output = portsOf(sourceNode).outputs.find((port) => port.name === sourceHandle);
    if (!output) return `${source} has no output "${sourceHandle}"`;
    const input = portsOf(targetNode).inputs.find((port) => port.name === targetHandle);
    if (!input) return `${target} has no input "${targetHandle}"`;
    if (source === target) return `${source} cannot feed itself: that would make a cycle`;
    if (ids.has(edgeId(connection))) return `${source} is already connected to ${target}`;
    const back = findBack(target, source);
    if (back) {
      return `connecting ${source} to ${target} would make a cycle (${[...back, target].join(" → ")})`;
    }
    const taken = input.many ? null : into.get(handleKey(target, "target", targetHandle));
    if (taken) {
      return (
        `input "${targetHandle}" of ${target} takes one connection and already has one ` +
        `(from ${taken.source}); delete that edge first`
      );
    }
    return null;
  };
}

/** The key of a node's handle: its node, `type` ("source" or "target") and port. */
export function handleKey(nodeId, type, port) {
  return `${nodeId}\u0000${type}\u0000${port}`;
}

/**
 * While a connection is dragged from `from` (React Flow's `{nodeId, id, type}`), the handles it
 * may not end at, `Map(handleKey → why)`: those of its own side, and those `connectionProblem`
 * refuses. The handle it started from is left out.
 */
export function refusedEnds(nodes, edges, from, portsOf) {
  const rule = connectionRule(nodes, edges, portsOf);
  const fromOutput = from.type === "source";
  const refused = new Map();
  for (const node of nodes) {
    const { inputs, outputs } = portsOf(node);
    for (const port of fromOutput ? outputs : inputs) {
      if (node.id !== from.nodeId || port.name !== from.id) {
        refused.set(
          handleKey(node.id, from.type, port.name),
          fromOutput ? "an output connects to an input" : "an input connects to an output",
        );
      }
    }
    for (const port of fromOutput ? inputs : outputs) {
      const ends = fromOutput
        ? { source: from.nodeId, sourceHandle: from.id, target: node.id, targetHandle: port.name }
        : { source: node.id, sourceHandle: port.name, target: from.nodeId, targetHandle: from.id };
      const problem = rule(ends);
      if (problem)
        refused.set(handleKey(node.id, fromOutput ? "target" : "source", port.name), problem);
    }
  }
  return refused;
}

/** `{edges}` with the connection added, or `{error}` saying why it was refused. */
export function connect(nodes, edges, connection, portsOf) {
  const error = connectionProblem(nodes, edges, connection, portsOf);
  return error ? { error } : { edges: [...edges, makeEdge(connection)] };
}

/**
 * Remove the selected nodes (with their edges) and the selected edges. Given `portsOf`, a
 * removed node that sat between one edge in and one edge out (as a filter in a chain) leaves
 * its upstream connected to its downstream, as n8n does, when that connection is allowed.
 */
export function deleteSelected(nodes, edges, portsOf = null) {
  const removed = new Set(nodes.filter((node) => node.selected).map((node) => node.id));
  let keptEdges = edges.filter(
    (edge) => !edge.selected && !removed.has(edge.source) && !removed.has(edge.target),
  );
  if (!removed.size && keptEdges.length === edges.length) return { nodes, edges, changed: false };
  const keptNodes = removed.size ? nodes.filter((node) => !removed.has(node.id)) : nodes;
  if (portsOf) keptEdges = withBridges(keptNodes, keptEdges, edges, removed, portsOf);
  return { nodes: keptNodes, edges: keptEdges, changed: true };
}

/** `kept` plus, for each removed node with exactly one edge in and one out (neither selected,
 * both ends kept), the edge from its upstream to its downstream that `connectionRule` allows. */
function withBridges(nodes, kept, edges, removed, portsOf) {
  let result = kept;
  for (const id of removed) {
    const into = edges.filter((edge) => edge.target === id);
    const out = edges.filter((edge) => edge.source === id);
    if (into.length !== 1 || out.length !== 1) continue;
    const [from, to] = [into[0], out[0]];
    if (from.selected || to.selected || removed.has(from.source) || removed.has(to.target)) {
      continue;
    }
    const bridge = {
      source: from.source,
      sourceHandle: from.sourceHandle,
      target: to.target,
      targetHandle: to.targetHandle,
    };
    if (!connectionProblem(nodes, result, bridge, portsOf)) result = [...result, makeEdge(bridge)];
  }
  return result;
}

/** What Ctrl+C keeps: the selected nodes and the edges between them, or null. */
export function copySelection(nodes, edges) {
  const chosen = nodes.filter((node) => node.selected);
  if (!chosen.length) return null;
  const ids = new Set(chosen.map((node) => node.id));
  return {
    nodes: chosen.map(({ id, type, position, data }) => ({ id, type, position, data })),
    edges: edges
      .filter((edge) => ids.has(edge.source) && ids.has(edge.target))
      .map(({ source, sourceHandle, target, targetHandle }) => ({
        source,
        sourceHandle,
        target,
        targetHandle,
      })),
  };
}

/** Paste a clipboard: copies get new unique ids, move by `offset`, and become the selection. */
export function paste(nodes, edges, clipboard, offset = { x: 40, y: 40 }) {
  const taken = new Set(nodes.map((node) => node.id));
  const renamed = new Map();
  const copies = clipboard.nodes.map((node) => {
    const id = uniqueNodeId(node.data.operator, taken);
    taken.add(id);
    renamed.set(node.id, id);
    return {
      id,
      type: node.type,
      position: { x: node.position.x + offset.x, y: node.position.y + offset.y },
      data: structuredClone(node.data),
      selected: true,
    };
  });
  const copiedEdges = clipboard.edges
    .filter((edge) => renamed.has(edge.source) && renamed.has(edge.target))
    .map((edge) =>
      makeEdge({
        ...edge,
        source: renamed.get(edge.source),
        target: renamed.get(edge.target),
      }),
    );
  return {
    nodes: [...deselectAll(nodes), ...copies],
    edges: [...deselectAll(edges), ...copiedEdges],
  };
}

/** The nodes with one node's data changed by `patch`. */
export function updateNodeData(nodes, id, patch) {
  return nodes.map((node) =>
    node.id === id ? { ...node, data: { ...node.data, ...patch } } : node,
  );
}

/** The nodes moved to `positions` ({id: {x, y}}); the same array when none of them moves. */
export function applyPositions(nodes, positions) {
  let moved = false;
  const next = nodes.map((node) => {
    const to = positions[node.id];
    if (!to || (to.x === node.position.x && to.y === node.position.y)) return node;
    moved = true;
    return { ...node, position: { x: to.x, y: to.y } };
  });
  return moved ? next : nodes;
}

/**
 * React Flow's node changes as `{positions, dragging, others}`: the moves (`{id: {x, y}}`, or
 * null), whether they are those of a drag still in progress, and the other changes.
 */
export function splitPositionChanges(changes) {
  let positions = null;
  let dragging = false;
  const others = [];
  for (const change of changes) {
    if (change.type !== "position") {
      others.push(change);
    } else if (change.position) {
      positions ??= {};
      positions[change.id] = change.position;
      dragging ||= Boolean(change.dragging);
    }
  }
  return { positions, dragging, others };
}

/** React Flow's changes that select every node (Ctrl+A); none for the nodes already selected. */
export function selectAllChanges(nodes) {
  return nodes
    .filter((node) => !node.selected)
    .map((node) => ({ id: node.id, type: "select", selected: true }));
}

/**
 * The ports that stored edges name but their nodes' operators do not have (older data),
 * `{id: {inputs: [name], outputs: [name]}}`: such edges are drawn in red and can be deleted.
 * Nodes of unknown operators are left out (any port is fine until their operator is known).
 */
export function strayPorts(nodes, edges, portsOf, isKnown) {
  const byId = new Map(nodes.map((node) => [node.id, node]));
  const stray = {};
  const add = (id, side, name) => {
    const node = byId.get(id);
    if (!node || !isKnown(node) || portsOf(node)[side].some((port) => port.name === name)) return;
    const ports = (stray[id] ??= { inputs: [], outputs: [] });
    if (!ports[side].includes(name)) ports[side].push(name);
  };
  for (const edge of edges) {
    add(edge.source, "outputs", edge.sourceHandle);
    add(edge.target, "inputs", edge.targetHandle);
  }
  return stray;
}

/** Whether an edge ends at a stray port (see `strayPorts`). */
export function isStrayEdge(edge, stray) {
  return Boolean(
    stray[edge.source]?.outputs.includes(edge.sourceHandle) ||
    stray[edge.target]?.inputs.includes(edge.targetHandle),
  );
}
