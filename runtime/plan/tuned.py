"""The planner's side of tuning from past runs: which profile a plan has, which figures in
it are its nodes', and the choices read from them once fusion has made the segments.

A plan's profile is the pipeline's (keyed by its name); in it, each node's figures are kept
under its shape: its operator and params as the run resolves them, and the shapes of the nodes
it reads. An edit changes the shapes of the edited node and of those below it, so their
figures start anew while every node above keeps its own; the backend and the run's options
(which change how it runs, not what its nodes make) change no shape. A setting in the
document (or on the command line) always wins over a figure; `RunOptions.tuning` off (the
command line's `--no-tuning`) reads no profile at all, though the run still adds to it.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import logging
import os
from pathlib import Path

from runtime.budget import Budget
from runtime.plan.model import Plan
from runtime.tuning.choices import Choice, concurrency, segment_limits
from runtime.tuning.figures import NodeFigures, node_figures
from runtime.tuning.profiles import UnreadableProfile, profile_path, read_profile

logger = logging.getLogger(__name__)


def profile_key(plan: Plan) -> str:
    """The key of `plan`'s profile: the pipeline's name (a renamed pipeline starts anew)."""
    return hashlib.sha256(json.dumps(["profile", plan.name]).encode()).hexdigest()


def node_shapes(plan: Plan) -> dict[str, str]:
    """Each node's shape, the key of its figures in the profile: a digest of its operator,
    params and the shapes it reads, port by port (not its id, nor the data's identity: new
    rows in the same files are the same work)."""
    shapes: dict[str, str] = {}
    for node_id in plan.order:
        node = plan.nodes[node_id]
        inputs = {
            port: [[shapes[source], source_port] for source, source_port in sources]
            for port, sources in node.inputs.items()
        }
        parts = [node.operator.name, node.params.model_dump(mode="json"), inputs]
        text = json.dumps(parts, sort_keys=True, separators=(",", ":"), default=str)
        shapes[node_id] = hashlib.sha256(text.encode()).hexdigest()[:32]
    return shapes


def past_figures(
    plan: Plan, store_folder: Path | None, *, tuning: bool
) -> tuple[Plan, dict[str, NodeFigures] | None]:
    """`plan` with where its run adds its figures, and the figures of its past runs (None:
    not tuned, `plan.tuned` says why)."""
    if store_folder is None:
        return plan, None
    path = profile_path(store_folder, profile_key(plan))
    shapes = node_shapes(plan)
    plan = dataclasses.replace(plan, profile=path, shapes=shapes)
    if not tuning:
        return _said(plan, Choice("not tuned", "tuning is off for this run (--no-tuning)")), None
    try:
        profile = read_profile(path)
    except UnreadableProfile as error:
        logger.warning("tuning: past runs ignored: %s", error)
        return _said(plan, Choice("past runs ignored", str(error))), None
    measured = node_figures(profile, shapes) if profile is not None else {}
    if not measured:
        return _said(plan, Choice("not tuned", "no successful run of this plan yet")), None
    return plan, measured


def tune(
    plan: Plan, measured: dict[str, NodeFigures] | None, budget: Budget | None, backend: str
) -> Plan:
    """`plan` (segmented) with DuckDB's limits per segment and `max_concurrency` read from
    `measured`, within `budget` (None: what the settings give a run), each choice said with
    its figure; settings in the document win."""
    if measured is None:
        return plan
    budget = budget or Budget.from_environment()
    choices = list(plan.tuned)
    if backend != "auto":
        choices.append(Choice(f"backend {backend}", "set in the document or chosen for this run"))
    segments = []
    for segment in plan.segments:
        if segment.backend != "duckdb":
            segments.append(segment)
            continue
        limits, why = segment_limits(segment.nodes, measured, budget)
        choices += [Choice(f"{segment.id} {what}", because) for what, because in why]
        segments.append(
            dataclasses.replace(segment, threads=limits.threads, memory_bytes=limits.memory_bytes)
        )
    chosen = None
    if plan.config.max_concurrency is not None:
        choices.append(
            Choice(f"max_concurrency {plan.config.max_concurrency}", "set in the document")
        )
    elif (found := concurrency(measured, budget, os.cpu_count() or 1)) is not None:
        chosen, why = found
        choices.append(Choice(f"max_concurrency {chosen}", why))
    return dataclasses.replace(plan, segments=segments, tuned=choices, concurrency=chosen)


def _said(plan: Plan, choice: Choice) -> Plan:
    return dataclasses.replace(plan, tuned=[*plan.tuned, choice])
