"""The planner's side of tuning from past runs: which profile a plan has, and the choices
read from it once fusion has made the segments.

A plan's profile is keyed by its fingerprint: the document's nodes as the run resolves them
(operator, params, wiring), so that any edit starts a new profile and the backend or the
run's options (which change how it runs, not what its nodes make) do not. A setting in the
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


def fingerprint(plan: Plan) -> str:
    """The key of `plan`'s profile: its nodes' operators, params and inputs."""
    nodes = [
        [node_id, node.operator.name, node.params.model_dump(mode="json"), node.inputs]
        for node_id, node in sorted(plan.nodes.items())
    ]
    text = json.dumps(nodes, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()


def past_figures(
    plan: Plan, store_folder: Path | None, *, tuning: bool
) -> tuple[Plan, dict[str, NodeFigures] | None]:
    """`plan` with where its run adds its figures, and the figures of its past runs (None:
    not tuned, `plan.tuned` says why)."""
    if store_folder is None:
        return plan, None
    path = profile_path(store_folder, fingerprint(plan))
    plan = dataclasses.replace(plan, profile=path)
    if not tuning:
        return _said(plan, Choice("not tuned", "tuning is off for this run (--no-tuning)")), None
    try:
        profile = read_profile(path)
    except UnreadableProfile as error:
        logger.warning("tuning: past runs ignored: %s", error)
        return _said(plan, Choice("past runs ignored", str(error))), None
    if profile is None:
        return _said(plan, Choice("not tuned", "no successful run of this plan yet")), None
    return plan, node_figures(profile)


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
