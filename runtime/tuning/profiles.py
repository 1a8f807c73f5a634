"""The profile file of a pipeline: per node shape, its figures in the last successful runs.

A profile is `<store>/profiles/<plan key>.json`; its nodes are keyed by shape (what a node
does on what it reads, runtime/plan/tuned.py), so that an edit leaves the figures of the nodes
it does not change in place. It keeps the shapes of the last run's nodes and, as many again
(at least `MIN_SHAPES`), the most recently measured others: the figures an undone edit finds
back. Each shape keeps its last `KEEP_RUNS` measurements (rows, bytes, wall seconds, backend,
the seconds its operator took and the seconds and bytes its result took to store): a run that
did not measure a node (a member inside a DuckDB segment, a reused node) leaves its older
figures in place, so the choice they led to does not flip back on the next run. Each run also
adds its own summary (wall and CPU seconds, peak memory). Writes go to a temporary file
renamed into place, so two runs finishing at once leave one whole file (the last one's); a
file larger than `MAX_BYTES`, or not a profile, is ignored with a warning: tuning is advice
and never stops a run. The folder keeps at most `MAX_PROFILES` files.
"""

from __future__ import annotations

import json
import logging
import os
import uuid
from collections.abc import Collection
from pathlib import Path
from typing import Any

FORMAT = "pipewright.profile"
VERSION = 2
"""1 kept nodes by id, in a profile per set of nodes: any edit started a new one."""
KEEP_RUNS = 5
"""How many past measurements each node (and the run summary) keeps."""
MAX_BYTES = 1 << 20
"""A profile file larger than this is not read (nor written): 1 MiB holds thousands of nodes."""
STORE_FIGURES = ("store_s", "stored_bytes")
"""A node's last timed write, carried on by runs that did not store its result (runtime/
tuning/storing.py left it out): the figure that led to leaving it out stays."""
FOLDER = "profiles"
MAX_PROFILES = 1000
"""Profiles kept in a store (one per pipeline name): past this, the least recently written
go."""
MIN_SHAPES = 100
"""Shapes a profile may keep whatever the size of the last run: a small pipeline's edits."""

logger = logging.getLogger(__name__)


class UnreadableProfile(ValueError):
    """A profile file that is too large, not JSON, or not a profile."""


def profile_path(store_folder: Path, key: str) -> Path:
    """Where the profile whose key is `key` lives (runtime/plan/tuned.py `profile_key`)."""
    return Path(store_folder) / FOLDER / f"{key}.json"


def read_profile(path: Path) -> dict[str, Any] | None:
    """The profile at `path`; None when there is none yet. Raises `UnreadableProfile`."""
    try:
        with open(path, "rb") as file:
            data = file.read(MAX_BYTES + 1)
    except FileNotFoundError:
        return None
    except OSError as error:
        raise UnreadableProfile(f"cannot read {path.name}: {error.strerror}") from error
    if len(data) > MAX_BYTES:
        raise UnreadableProfile(f"{path.name} is larger than {MAX_BYTES >> 20} MiB")
    try:
        profile = json.loads(data)
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise UnreadableProfile(f"{path.name} is not JSON ({error})") from error
    if not _is_profile(profile):
        raise UnreadableProfile(f"{path.name} is not a profile of format {FORMAT} {VERSION}")
    return profile


def _is_profile(profile) -> bool:
    if not isinstance(profile, dict) or profile.get("format") != FORMAT:
        return False
    if profile.get("version") != VERSION or not isinstance(profile.get("runs"), list):
        return False
    nodes = profile.get("nodes")
    return isinstance(nodes, dict) and all(
        isinstance(figures, list)
        and all(
            isinstance(one, dict)
            and isinstance(one.get("rows"), int | float)
            and isinstance(one.get("bytes"), int | float | None)
            and isinstance(one.get("compute_s"), int | float | None)
            and isinstance(one.get("store_s"), int | float | None)
            and isinstance(one.get("stored_bytes"), int | float | None)
            for one in figures
        )
        for figures in nodes.values()
    )


def add_run(
    path: Path, run: dict[str, Any], nodes: dict[str, dict[str, Any]], current: Collection[str]
) -> None:
    """Add one successful run to the profile at `path`: its summary, and the figures of each
    node measured, by shape; `current`: the shapes of all the run's nodes (measured or not),
    whose figures stay. An unreadable profile is started anew; a write that fails is logged,
    not raised."""
    try:
        profile = read_profile(path)
    except UnreadableProfile as error:
        logger.warning("tuning: starting a new profile: %s", error)
        profile = None
    profile = profile or {"format": FORMAT, "version": VERSION, "runs": [], "nodes": {}}
    profile["runs"] = [*profile["runs"], run][-KEEP_RUNS:]
    shapes = profile["nodes"]
    for shape, figures in nodes.items():
        past = shapes.pop(shape, [])  # put back last: the most recently measured come last
        if past and "store_s" not in figures and past[-1].get("store_s") is not None:
            figures = {**figures, **{name: past[-1].get(name) for name in STORE_FIGURES}}
        shapes[shape] = [*past, figures][-KEEP_RUNS:]
    others = [shape for shape in shapes if shape not in current]
    dropped = set(others[: max(0, len(others) - max(MIN_SHAPES, len(current)))])
    profile["nodes"] = {shape: kept for shape, kept in shapes.items() if shape not in dropped}
    text = _text(profile)
    if len(text) > MAX_BYTES:  # the other shapes go first
        profile["nodes"] = {shape: kept for shape, kept in shapes.items() if shape in current}
        text = _text(profile)
    if len(text) > MAX_BYTES:
        logger.warning("tuning: the profile of this plan would pass %d bytes: not kept", MAX_BYTES)
        return
    try:
        _write_atomically(path, text)
        _forget_oldest(path.parent)
    except OSError as error:
        logger.warning("tuning: cannot write the profile %s: %s", path, error)


def _text(profile: dict[str, Any]) -> str:
    return json.dumps(profile, separators=(",", ":"))  # in order: the most recent shapes last


def _forget_oldest(folder: Path) -> None:
    """Remove the least recently written profiles past `MAX_PROFILES`."""
    found = []
    for entry in os.scandir(folder):
        if entry.name.endswith(".json") and not entry.name.startswith("."):
            try:
                found.append((entry.stat().st_mtime, entry.path))
            except FileNotFoundError:  # removed by another run meanwhile
                continue
    for _, path in sorted(found)[: max(0, len(found) - MAX_PROFILES)]:
        Path(path).unlink(missing_ok=True)


def _write_atomically(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.{uuid.uuid4().hex}.partial")
    try:
        temporary.write_text(text, encoding="utf-8")
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
