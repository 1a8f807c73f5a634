"""A terminal progress display, as an event sink.

While a run is live it shows a line per running node (status, rows so far and the share done
as a percentage when they are known, seconds) and an overall bar of finished nodes, redrawn in
place at most ten times a second. It stays silent when its stream is not a terminal, so logs
and pipes get only the final summary.
"""

from __future__ import annotations

import shutil
import sys
import time
from typing import IO

from runtime.execution.events import Event
from runtime.execution.statuses import NodeStatus

REDRAW_INTERVAL_S = 0.1
BAR_WIDTH = 30


class TerminalProgress:
    """Event sink drawing live progress on a terminal."""

    def __init__(self, stream: IO[str] | None = None, *, force: bool = False):
        self.stream = stream or sys.stdout
        self.enabled = force or self.stream.isatty()
        self.total = 0
        self.finished = 0
        self.active: dict[str, dict] = {}
        self._drawn_lines = 0
        self._last_draw = 0.0

    def __call__(self, event: Event) -> None:
        if not self.enabled:
            return
        kind = event["type"]
        if kind == "run_started":
            self.total = len(event["nodes"])
        elif kind == "node_status":
            self._on_status(event)
        elif kind == "node_progress" and event["node"] in self.active:
            entry = self.active[event["node"]]
            entry["rows"] = event.get("rows", entry["rows"])
            entry["share"] = event.get("share", entry["share"])
        if kind == "run_finished":
            self._clear()
        elif time.monotonic() - self._last_draw >= REDRAW_INTERVAL_S:
            self._draw()

    def _on_status(self, event: Event) -> None:
        node, status = event["node"], event["status"]
        if status in NodeStatus.FINAL:
            self.finished += 1
            self.active.pop(node, None)
        elif status in (NodeStatus.RUNNING, NodeStatus.RETRYING):
            fresh = {"rows": None, "share": None, "since": time.monotonic()}
            entry = self.active.setdefault(node, fresh)
            entry["status"] = status

    def _lines(self) -> list[str]:
        width = shutil.get_terminal_size((80, 20)).columns
        lines = []
        for node, entry in list(self.active.items())[: max(1, 20 - 2)]:
            seconds = time.monotonic() - entry["since"]
            rows = _so_far(entry)
            lines.append(
                f"  {_spinner(seconds)} {node:<24} {entry['status']:<9} {rows:>16} {seconds:6.1f}s"[
                    :width
                ]
            )
        done = self.finished / self.total if self.total else 0.0
        filled = round(done * BAR_WIDTH)
        bar = "█" * filled + "░" * (BAR_WIDTH - filled)
        lines.append(f"  {bar} {self.finished}/{self.total} nodes"[:width])
        return lines

    def _draw(self) -> None:
        self._clear()
        lines = self._lines()
        self.stream.write("\n".join(lines) + "\n")
        self.stream.flush()
        self._drawn_lines = len(lines)
        self._last_draw = time.monotonic()

    def _clear(self) -> None:
        if self._drawn_lines:
            self.stream.write(f"\x1b[{self._drawn_lines}F\x1b[J")
            self.stream.flush()
            self._drawn_lines = 0


def _so_far(entry: dict) -> str:
    """What a running node has done: "12,345 rows", "42 %" or both."""
    parts = [] if entry["rows"] is None else [f"{entry['rows']:,} rows"]
    if entry["share"] is not None:
        parts.append(f"{int(entry['share'] * 100)} %")
    return " · ".join(parts)


def _spinner(seconds: float) -> str:
    frames = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
    return frames[int(seconds * 10) % len(frames)]
