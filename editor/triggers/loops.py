"""Refusing an upstream trigger that would start its own pipeline again: itself as upstream,
or a chain (A's success starts B, B's starts A) closed by the trigger being saved."""

from __future__ import annotations

from editor.errors import ActionError
from editor.models import Pipeline, Trigger


def refuse_loop(pipeline: Pipeline, upstream: Pipeline, replacing: Trigger | None = None) -> None:
    """Raise 400 `trigger_loop` naming the chain if a success of `upstream` starting
    `pipeline` would lead back to `upstream` through the upstream triggers saved.

    Called inside the saving transaction: it first locks every pipeline of the trigger graph
    and the two at hand, so two saves that would only together close a loop take turns and
    the second sees the first's trigger (SQLite's transactions take the write lock anyway)."""
    saved = Trigger.objects.filter(kind=Trigger.Kind.UPSTREAM, enabled=True)
    if replacing is not None:
        saved = saved.exclude(pk=replacing.pk)
    _lock_pipelines({pipeline.pk, upstream.pk, *_ends(saved)})
    edges: dict[int, set[int]] = {}  # upstream pipeline → the pipelines its success starts
    for source, target in saved.values_list("upstream_id", "pipeline_id"):
        edges.setdefault(source, set()).add(target)
    chain = _path(edges, pipeline.pk, upstream.pk)
    if chain is None:
        return
    names = dict(Pipeline.objects.filter(pk__in=chain).values_list("pk", "name"))
    words = " → ".join(f"'{names.get(pk, pk)}'" for pk in [upstream.pk, *chain])
    raise ActionError(
        400,
        "trigger_loop",
        f"this trigger would start its own pipeline again: {words}",
        field="upstream",
    )


def _ends(triggers) -> set[int]:
    """Every pipeline an upstream trigger of `triggers` starts or listens to."""
    return {pk for pair in triggers.values_list("upstream_id", "pipeline_id") for pk in pair}


def _lock_pipelines(ids: set[int]) -> None:
    """Row locks on the pipelines `ids`, taken in key order so that two savers never wait
    for each other in a circle."""
    list(Pipeline.objects.select_for_update().filter(pk__in=ids).order_by("pk").values("pk"))


def _path(edges: dict[int, set[int]], start: int, goal: int) -> list[int] | None:
    """The pipelines from `start` to `goal` along `edges` (breadth first), if `goal` is
    reached."""
    came_from: dict[int, int | None] = {start: None}
    frontier = [start]
    while frontier:
        following = []
        for node in frontier:
            if node == goal:
                path = [node]
                while came_from[path[-1]] is not None:
                    path.append(came_from[path[-1]])
                return path[::-1]
            for target in edges.get(node, ()):
                if target not in came_from:
                    came_from[target] = node
                    following.append(target)
        frontier = following
    return None
