"""Column lineage as a text tree, for `python -m runtime lineage` (JSON is `Lineage.to_json`).

Each column a tree has shown once is not expanded again ("shown above"), so the text grows
with the number of columns, never with the number of paths through a diamond-shaped graph.
"""

from __future__ import annotations

from runtime.checks.lineage import Lineage
from runtime.checks.lineage_across import Across
from runtime.checks.lineage_rules import Ref


def lineage_text(lineage: Lineage, selected: Ref | None = None) -> str:
    """The tree of `selected`, else of every column of the pipeline's outputs (its last nodes
    when it writes nothing), each with the conditions its rows depend on and its inputs."""
    if selected is not None:
        roots = [selected]
    else:
        ends = [n for n, node in lineage.nodes.items() if node.kind == "output"] or _last(lineage)
        roots = [
            (n, port, c) for n in ends for port, cs in lineage.nodes[n].ports.items() for c in cs
        ]
    shown: set[Ref] = set()
    lines: list[str] = []
    for root in roots:
        lines += _column(lineage, root, shown)
    for problem in lineage.problems:
        lines.append(f"problem: {problem}")
    return "\n".join(lines).rstrip() + "\n"


def upstream_text(across: Across) -> str:
    """Where a column goes on in the pipelines upstream: for each hop, the input that read
    the file or table, the pipeline and output that wrote it, and that column's tree there;
    then where following stopped (a cycle, the depth)."""
    lines: list[str] = []
    for hop in across.hops:
        lines.append(
            f"{'  ' * (hop.depth - 1)}↑ {hop.input} reads {hop.via}: "
            f"comes from {hop.name} > {hop.output} > {hop.column}"
        )
        lines += _column(hop.lineage, (hop.output, "in", hop.column), set())
    lines += [f"stopped: {stop}" for stop in across.stops]
    return "\n".join(lines).rstrip() + "\n" if lines else ""


def _column(lineage: Lineage, root: Ref, shown: set[Ref]) -> list[str]:
    """A column's tree, the conditions its rows depend on and its inputs, then a blank line."""
    lines = _tree(lineage, root, shown)
    path = lineage.path(root)
    for at, condition in path.conditions:
        node, _, column = condition.ref
        lines.append(f"  rows at {at}: {condition.why} (reads {node}.{column})")
    lines.append("  inputs: " + (_inputs(lineage, path.origins) or "none (made from no column)"))
    lines.append("")
    return lines


def _last(lineage: Lineage) -> list[str]:
    read = {
        ref[0]
        for node in lineage.nodes.values()
        for p in node.ports.values()
        for d in p.values()
        for ref in d.inputs
    }
    return [node_id for node_id in lineage.nodes if node_id not in read]


def _tree(lineage: Lineage, root: Ref, shown: set[Ref]) -> list[str]:
    lines = []
    stack = [(root, "")]
    while stack:
        ref, indent = stack.pop()
        node = lineage.nodes.get(ref[0])
        derivation = node and node.ports.get(ref[1], {}).get(ref[2])
        name = f"{indent}{ref[0]}.{ref[1]}:{ref[2]}"
        if derivation is None:
            lines.append(f"{name}  (lineage unknown)")
            continue
        if ref in shown:
            lines.append(f"{name}  (shown above)")
            continue
        shown.add(ref)
        how = derivation.how
        if node.kind == "input" and node.source:
            how = f"read from {node.source}"
        if derivation.expressions:
            how += ": " + "; ".join(derivation.expressions)
        lines.append(f"{name}  {how}")
        stack += [(upstream, indent + "  ") for upstream in reversed(derivation.inputs)]
    return lines


def _inputs(lineage: Lineage, origins: list[tuple[str, str]]) -> str:
    by_node: dict[str, list[str]] = {}
    for node, column in origins:
        by_node.setdefault(node, []).append(column)
    return "; ".join(
        f"{node} ({lineage.nodes[node].source or lineage.nodes[node].operator}): {', '.join(cols)}"
        for node, cols in by_node.items()
    )
