"""What the command line and the management commands share, so both behave alike.

`python -m runtime` (runtime/cli.py) and `manage.py runpipeline` and the other management
commands (editor/management/commands) exit with the same codes, take pipeline parameters with
the same `--param NAME=VALUE` option, cancel a run on the first Ctrl+C and print the same
summary table after it. Belongs here: those shared pieces, light to import (a command's
`--help` must start fast). Does not belong here: the commands themselves (cli.py, and the
editor's for the web app's data).
"""

from __future__ import annotations

import argparse
import signal
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import IO, Any

EXIT_OK, EXIT_FAILED, EXIT_INVALID, EXIT_CANCELLED = 0, 1, 2, 130
"""Success, the run failed, the document (or a command-line value) is invalid, cancelled."""


def add_param_option(parser: argparse.ArgumentParser) -> None:
    """The repeatable `--param NAME=VALUE` option (`python -m runtime` and `manage.py runpipeline`):
    `dict(args.param)` are the run's values; a malformed one is a usage error (exit 2)."""
    parser.add_argument(
        "--param",
        action="append",
        type=_parameter,
        default=[],
        metavar="NAME=VALUE",
        help="a pipeline parameter (VALUE parses as JSON, else stays a string); repeatable",
    )


def _parameter(text: str) -> tuple[str, Any]:
    from runtime.document.parameters import parse_cli_pair

    try:
        return parse_cli_pair(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from error


@contextmanager
def cancel_on_interrupt(cancel: Callable[[], object]) -> Iterator[None]:
    """While active, the first Ctrl+C calls `cancel` (the run ends cancelled); a second aborts."""
    interrupted = False

    def handle(*_):
        nonlocal interrupted
        if interrupted:
            raise KeyboardInterrupt
        interrupted = True
        print("\ncancelling… (Ctrl+C again to abort)", file=sys.stderr)
        cancel()

    previous = signal.signal(signal.SIGINT, handle)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def print_summary(plan, result, *, debug: bool, out: IO[str] | None = None) -> None:
    """Print a table of every node's status, rows, seconds and the backend it ran on (to
    `out`, standard output by default), then why each node that ran on pandas rather than
    DuckDB did so, then the errors on stderr."""
    out = out or sys.stdout
    rows = [("node", "status", "rows in", "rows out", "seconds", "on")]
    order = [node_id for node_id in _document_order(plan) if node_id in result.nodes]
    order += [node_id for node_id in result.nodes if node_id not in order]  # left out
    for node_id in order:
        node = result.nodes[node_id]
        rows_in = sum(node.rows_in.values()) if node.rows_in else None
        rows.append(
            (
                node_id,
                "reused" if node.extra.get("cached") else node.status,
                "" if rows_in is None else f"{rows_in:,}",
                "" if node.rows_out is None else f"{node.rows_out:,}",
                "" if node.duration_s is None else f"{node.duration_s:.3f}",
                _backend(node),
            )
        )
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for index, row in enumerate(rows):
        cells = [row[0].ljust(widths[0]), row[1].ljust(widths[1])]
        cells += [cell.rjust(width) for cell, width in zip(row[2:5], widths[2:5], strict=True)]
        cells.append(row[5])
        print("  ".join(cells).rstrip(), file=out)
        if index == 0:
            print("  ".join("-" * width for width in widths), file=out)
    fallbacks = [(node_id, result.nodes[node_id].extra.get("fallback")) for node_id in order]
    for node_id, why in fallbacks:
        if why is not None:
            print(f"{node_id} ran on pandas, not DuckDB: {why}", file=out)
    print(f"\nrun {result.status} in {result.duration_s:.3f} s", file=out)
    for node_id in order:
        node = result.nodes[node_id]
        if node.error:
            print(f"{node_id}: {node.status}: {node.error}", file=sys.stderr)
            if debug and node.traceback:
                print(node.traceback, file=sys.stderr)


def _backend(node) -> str:
    """Where a node ran: its segment's backend, pandas for a node run on its own, nothing
    for one that did not run (left out, reused)."""
    if node.extra.get("cached") or node.started is None:
        return ""
    return node.extra.get("backend", "pandas")


def _document_order(plan) -> list[str]:
    """The plan's nodes parents first, with those the result store stood for."""
    return plan.cache.order if plan.cache is not None else plan.order


def print_checks(result, out: IO[str] | None = None) -> bool:
    """Print a table of every data test's result (node, check, columns, severity, status,
    failing rows, message) and every node that failed; whether all held."""
    out = out or sys.stdout
    rows = [("node", "check", "columns", "severity", "status", "failing", "message")]
    for node_id, node in result.nodes.items():
        for check in node.extra.get("checks", ()):
            failing = check["failing"]
            rows.append(
                (
                    node_id, check["check"], ",".join(check["columns"]), check["severity"],
                    check["status"], "" if failing is None else f"{failing:,}", check["message"],
                )
            )  # fmt: skip
    if len(rows) == 1:
        print("no data tests ran: give nodes an `expect` list (docs/data-tests.md)", file=out)
    else:
        widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]) - 1)]
        for index, row in enumerate(rows):
            cells = [cell.ljust(width) for cell, width in zip(row, widths, strict=False)]
            print("  ".join([*cells, row[-1]]).rstrip(), file=out)
            if index == 0:
                print("  ".join("-" * width for width in widths), file=out)
    statuses = [check[4] for check in rows[1:]]
    broken = [(node_id, node) for node_id, node in result.nodes.items() if node.status == "failed"]
    for node_id, node in broken:
        if not node.extra.get("checks"):
            print(f"{node_id}: failed: {node.error}", file=sys.stderr)
    summary = {status: statuses.count(status) for status in ("passed", "warned", "failed")}
    print(
        f"\n{summary['passed']} passed, {summary['warned']} warned, {summary['failed']} failed",
        file=out,
    )
    return not broken and summary["failed"] == 0
