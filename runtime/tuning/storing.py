"""What the result store keeps, chosen from past runs' figures: a pure function.

Each result a run stores costs a Parquet write, paid on every run whose nodes run; it pays
back only when a later run reads it instead of computing the node again. Where the profile
shows that computing a node from the stored results above it took less time than writing
its own result, that write is left out: a later run that needs the node recomputes it from
its parents' stored results. The cost of recomputing adds up along nodes left out one under
another, so a chain of cheap nodes is left out only while the whole of it stays cheaper than
one write. Nodes edited in past runs are kept whatever their figures: there, the next edit
is likely and reading the stored result is what the store is for.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from runtime.tuning.choices import Choice
from runtime.tuning.figures import NodeFigures, size_text

STORE_MIN_S = 0.01
"""A write quicker than this is kept: below it, timings are noise and the store costs
nothing worth saving."""


def not_kept(
    order: Iterable[str],
    parents: Mapping[str, Iterable[str]],
    measured: Mapping[str, NodeFigures],
    *,
    candidates: set[str],
    edited: set[str],
) -> tuple[dict[str, Choice], list[Choice]]:
    """The `candidates` (in `order`, parents first) whose results are not stored, each with
    the figures it came from; and the choices to keep an edited node that would otherwise
    not be kept."""
    recompute: dict[str, float] = {}
    """For each node left out: the seconds to compute it from the stored results above."""
    skipped, kept = {}, []
    for node_id in order:
        figures = measured.get(node_id)
        if node_id not in candidates or figures is None or figures.store_s is None:
            continue
        own = figures.seconds if figures.compute_s is None else figures.compute_s
        cost = own + sum(recompute.get(parent, 0.0) for parent in parents[node_id])
        if figures.store_s < STORE_MIN_S or cost >= figures.store_s:
            continue
        said = _figures_text(cost, figures)
        if node_id in edited:
            kept.append(Choice(f"result of {node_id} kept", f"edited in an earlier run, {said}"))
            continue
        recompute[node_id] = cost
        skipped[node_id] = Choice(f"result of {node_id} not kept", said)
    return skipped, kept


def _figures_text(cost: float, figures: NodeFigures) -> str:
    """`re-computing it took 0.02 s, storing it (3.1 MiB) took 0.40 s in the last 5 runs`."""
    runs = "the last run" if figures.runs == 1 else f"the last {figures.runs} runs (median)"
    return (
        f"re-computing it from stored results took {cost:.2f} s, storing it "
        f"({size_text(figures.stored_bytes or 0)}) took {figures.store_s:.2f} s in {runs}"
    )
