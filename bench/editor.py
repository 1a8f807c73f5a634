"""The browser editor with a 1,000-node pipeline: opening, dragging, and a run streaming live.

    python bench/editor.py [--chains 10] [--length 100] [--notes 10] [--grouped 50]
                           [--loads 3] [--trace DIR]

A daphne process (tests/servers.py) over a fresh SQLite database serves a pipeline of one CSV
input feeding `chains` chains of `length` `filter` nodes, laid out in a grid, with `notes`
sticky notes of markdown above the grid and a group of `grouped` nodes that holds the dragged
one (its frame follows the drag). Headless Chromium (the browser tests' launcher) opens the
editor with a script injected before the page's own, which records on the page's clock:
websocket messages as they arrive, long tasks, pointer downs and clicks on "Run", and
requestAnimationFrame deltas when asked.

- open: the editor opens at a readable zoom on the graph's top left corner, rendering only
  the nodes in view. Navigation start → a node there in the DOM; → the end of the last long
  task before the click; → that node, clicked at once, shown in the side panel
  (interactive). The median of `--loads` page loads, each in a fresh context.
- Then the canvas is zoomed out (the mouse wheel) until every node is rendered, the worst
  case for the page, for the two phases that follow.
- drag: a node dragged 300 px by a mouse moving at 60 Hz: frame times (rAF deltas).
- run: "Run" clicked → every node's `data-status` final (polled every frame), split into
  the answer to `POST …/runs`, the first status frame's arrival, the server's own run
  duration and the lag from the last status frame's arrival to its display; and → the run's
  end, which comes once its results are stored, after its nodes'.

`--trace DIR` also records a Chrome trace of each phase (open.json, drag.json, run.json; load
them in Chrome DevTools' Performance panel or ui.perfetto.dev). Tracing slows the page:
figures taken with it are not comparable to those without.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from playwright.async_api import async_playwright  # noqa: E402

from bench.editor_page import (  # noqa: E402
    RECORDER,
    drag_frames,
    hear_run,
    idle_frames,
    open_editor,
    show_every_node,
    stream_run,
    tracing,
)
from bench.live import setup_database  # noqa: E402
from bench.table import print_table  # noqa: E402
from tests.e2e.browser import (  # noqa: E402
    VIEWPORT,
    ConsoleErrors,
    launch_chromium,
    sign_in_with_session,
)
from tests.servers import INPUT_CSV, DaphneServer, start_servers, write_input  # noqa: E402

TARGET_INTERACTIVE_MS = 1500
TARGET_DRAG_P95_MS = 33
TARGET_STREAM_MS = 1200
GRID_COLUMNS = 40
CELL = (240, 130)  # px from one node to the next in the grid (room for the run's metrics)


def grid_pipeline(chains: int, length: int, notes: int = 0, grouped: int = 0) -> dict:
    """A CSV input feeding `chains` chains of `length` filters, in rows of GRID_COLUMNS, with
    `notes` notes above them and a group of `grouped` filters from the dragged node's row."""
    nodes = [{"id": "read", "operator": "csv_input", "params": {"path": INPUT_CSV},
              "position": {"x": -CELL[0], "y": 0}}]  # fmt: skip
    edges = []
    for index in range(chains * length):
        row, column = divmod(index, GRID_COLUMNS)
        node_id = grid_node(length, row, column)
        nodes.append({
            "id": node_id, "operator": "filter", "params": {"condition": "id > 0"},
            "position": {"x": column * CELL[0], "y": row * CELL[1]},
        })  # fmt: skip
        chain, step = divmod(index, length)
        edges.append({"source": f"c{chain}_{step - 1}" if step else "read", "target": node_id})
    first = dragged_row(chains * length) * GRID_COLUMNS
    group = [node["id"] for node in nodes[1 + first : 1 + first + grouped]]
    return {"format": "pipewright.pipeline", "version": 2, "name": "1,000 filters",
            "nodes": nodes, "edges": edges,
            "notes": [{"id": f"note_{index}", "text": NOTE, "width": 2 * CELL[0],
                       "position": {"x": index * 3 * CELL[0], "y": -2 * CELL[1]}}
                      for index in range(notes)],
            "groups": [{"id": "group_1", "label": "Grouped filters", "nodes": group}]
            if group else []}  # fmt: skip


NOTE = "## Why\nKeeps rows with **id > 0**; see [the docs](https://example.com/filters)."


def dragged_row(filters: int) -> int:
    """The grid row of the node that is dragged: the middle one, so that the drag stays on
    screen."""
    return ((filters - 1) // GRID_COLUMNS) // 2


def grid_node(length: int, row: int, column: int) -> str:
    """The id of the filter at a place of the grid."""
    chain, step = divmod(row * GRID_COLUMNS + column, length)
    return f"c{chain}_{step}"


async def measure(server: DaphneServer, pipeline_id: int, cookie: str, args) -> dict:
    """Open the editor `loads` times, then drag a node and run the pipeline in the last one."""
    total = 1 + args.chains * args.length
    dragged = grid_node(args.length, dragged_row(total - 1), GRID_COLUMNS // 4)
    clicked = grid_node(args.length, 0, 1)  # near the top left corner, where the editor opens
    async with async_playwright() as playwright:
        browser = await launch_chromium(playwright)
        try:
            loads = []
            for load in range(args.loads):
                context = await browser.new_context(base_url=server.url, viewport=VIEWPORT)
                await sign_in_with_session(context, server.url, cookie.removeprefix("sessionid="))
                page = await context.new_page()
                errors = ConsoleErrors(page)
                await page.add_init_script(RECORDER)
                last = load == args.loads - 1
                async with tracing(browser, page, args.trace if last else None, "open"):
                    loads.append(await open_editor(page, pipeline_id, clicked))
                if not last:
                    await context.close()
            presses = await show_every_node(page, total)
            rendered = await page.locator("[data-node-id]").count()
            idle = await idle_frames(page)
            async with tracing(browser, page, args.trace, "drag"):
                drag = await drag_frames(page, dragged)
            async with tracing(browser, page, args.trace, "run"):
                run = await stream_run(
                    page, total, lambda heard: hear_run(server, pipeline_id, cookie, heard)
                )
            await context.close()
        finally:
            await browser.close()
    return {"loads": loads, "presses": presses, "rendered": rendered, "idle": idle,
            "drag": drag, "run": run, "errors": errors.unexpected(), "total": total}  # fmt: skip


def percentile(values: list[float], cut: int) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[cut - 1]


def report(result: dict, args) -> None:
    """The figures with their targets, as a table."""
    open_ms = {
        key: statistics.median(load[key] for load in result["loads"])
        for key in ("rendered", "shown", "busy", "select", "interactive")
    }
    drag, run = result["drag"]["frames"], result["run"]

    def ms(value: float) -> str:
        return f"{value:.1f} ms" if value < 100 else f"{value:.0f} ms"

    def row(measure: str, value: float, target: float | None = None) -> list:
        if target is None:
            return [measure, ms(value), "", ""]
        return [measure, ms(value), f"≤ {target} ms", "yes" if value <= target else "NO"]

    rows = [
        row("idle: frame time p50 (baseline)", percentile(result["idle"], 50)),
        row("open: navigation → the clicked node in the DOM", open_ms["rendered"]),
        ["open: nodes rendered in the opening view", f"{open_ms['shown']:.0f}", "", ""],
        row("open: navigation → last long task ends", open_ms["busy"]),
        row("open: click → node shown selected", open_ms["select"]),
        row("open: navigation → node shown selected", open_ms["interactive"],
            TARGET_INTERACTIVE_MS),
        row("drag: frame time p50", percentile(drag, 50)),
        row("drag: frame time p95", percentile(drag, 95), TARGET_DRAG_P95_MS),
        row("drag: longest frame", max(drag)),
        ["drag: frames / node moved", f"{len(drag)} / {result['drag']['moved_px']:.0f} px", "",
         ""],
        row("run: Run clicked → every node final", run["total_ms"], TARGET_STREAM_MS),
        row("run: Run clicked → POST …/runs answered", run["answered_ms"]),
        row("run: Run clicked → first status frame", run["first_status_ms"]),
        row("run: Run clicked → run_finished received", run["finished_ms"]),
        row("run: server's run duration", run["server_ms"]),
        ["run: status event emitted → sent (first / last)",
         " / ".join(ms(value) for value in run["to_browser_ms"]), "", ""],
        ["run: status event sent → handled by the page (first / last)",
         " / ".join(ms(value) for value in run["to_page_ms"]), "", ""],
        row("run: last status frame → shown", run["display_lag_ms"]),
        ["run: status events / websocket frames", f"{run['status_events']} / {run['frames']}",
         "", ""],
        row("run: frame time p50", percentile(run["frame_times"], 50)),
        row("run: frame time p95", percentile(run["frame_times"], 95)),
        row("run: longest frame", max(run["frame_times"])),
    ]  # fmt: skip
    print(
        f"{result['total']} nodes (csv_input + {args.chains} chains of {args.length} filters), "
        f"{args.notes} notes, a group of {args.grouped}; drag and run zoomed out "
        f"({result['presses']} wheel turns) until all {result['rendered']} render; "
        f"headless Chromium {VIEWPORT['width']}x"
        f"{VIEWPORT['height']}; open: median of {args.loads} loads"
        + ("; TRACED (slower)" if args.trace else "")
    )
    print_table(["measure", "figure", "target", "met"], rows)
    if result["errors"]:
        print("browser errors:", *result["errors"], sep="\n  ")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chains", type=int, default=10)
    parser.add_argument("--length", type=int, default=100)
    parser.add_argument("--notes", type=int, default=10)
    parser.add_argument("--grouped", type=int, default=50)
    parser.add_argument("--loads", type=int, default=3)
    parser.add_argument("--trace", type=Path, help="write Chrome traces of each phase here")
    args = parser.parse_args()
    if args.trace:
        args.trace.mkdir(parents=True, exist_ok=True)

    with tempfile.TemporaryDirectory(prefix="pipewright-editor-bench-") as tmp:
        folder = Path(tmp)
        database, token, cookie = setup_database(folder)
        server = DaphneServer(
            database=database, data_root=write_input(folder / "data"),
            log_path=folder / "daphne.log",
        )  # fmt: skip
        start_servers([server])
        try:
            document = grid_pipeline(args.chains, args.length, args.notes, args.grouped)
            status, body = server.request("POST", "/api/pipelines", document, token)
            assert status == 201, body
            result = asyncio.run(measure(server, body["id"], cookie, args))
        finally:
            server.stop()
    report(result, args)


if __name__ == "__main__":
    main()
