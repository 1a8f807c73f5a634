"""What bench/editor.py does in the editor page, and how it times it on the page's clock.

`RECORDER` is injected before the page's own script: it records websocket messages as they
arrive, long tasks, pointer downs and clicks on "Run", and requestAnimationFrame deltas when
asked. The functions below read it back, one per phase (open, drag, run).
"""

from __future__ import annotations

import asyncio
import json
import time
from contextlib import asynccontextmanager
from datetime import datetime
from pathlib import Path

from playwright.async_api import Browser, Page

from tests.live_client import open_socket
from tests.servers import DaphneServer

FINAL = ("succeeded", "failed", "skipped", "cancelled", "timed_out", "interrupted")
FINAL_SELECTOR = ",".join(f'[data-status="{status}"]' for status in FINAL)
TRACE_CATEGORIES = ["devtools.timeline", "disabled-by-default-devtools.timeline", "v8", "blink"]
WAIT_MS = 120_000

RECORDER = """
(() => {
  const bench = (window.__bench = { messages: [], longTasks: [] });
  const Native = window.WebSocket;
  window.WebSocket = class extends Native {
    constructor(...args) {
      super(...args);
      this.addEventListener("message", (message) => {
        bench.messages.push([performance.now(), message.data]);
      });
    }
  };
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      bench.longTasks.push([entry.startTime, entry.duration]);
    }
  }).observe({ type: "longtask" });
  document.addEventListener("pointerdown", () => {
    bench.pointerDownAt = performance.now();
  }, true);
  document.addEventListener("click", (event) => {
    if (event.target.closest?.("button")?.textContent.trim() === "Run") {
      bench.runClickAt = performance.now();
    }
  }, true);
  bench.startFrames = () => {
    const deltas = [];
    let last = null;
    let on = true;
    const tick = (time) => {
      if (last !== null) deltas.push(time - last);
      last = time;
      if (on) requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
    bench.stopFrames = () => { on = false; return deltas; };
  };
})();
"""


@asynccontextmanager
async def tracing(browser: Browser, page: Page, folder: Path | None, name: str):
    """A Chrome trace of the block in `folder`/`name`.json (nothing when `folder` is None)."""
    if folder is None:
        yield
        return
    await browser.start_tracing(page=page, categories=TRACE_CATEGORIES)
    try:
        yield
    finally:
        (folder / f"{name}.json").write_bytes(await browser.stop_tracing())


async def page_now(page: Page, condition: str, arg=None) -> float:
    """`performance.now()` at the first animation frame where `condition(arg)` holds."""
    handle = await page.wait_for_function(
        f"(arg) => ({condition})(arg) && performance.now()", arg=arg, polling="raf",
        timeout=WAIT_MS,
    )  # fmt: skip
    return await handle.json_value()


async def open_editor(page: Page, pipeline_id: int, clicked: str) -> dict:
    """Load the editor; when the node `clicked` (one the opening view shows) is rendered, click
    it and wait until it is selected."""
    await page.goto(f"/pipelines/{pipeline_id}/", wait_until="commit")
    rendered = await page_now(
        page, '(id) => document.querySelector(`[data-node-id="${id}"]`) !== null', clicked
    )
    shown = await page.locator("[data-node-id]").count()
    await page.locator(f'[data-node-id="{clicked}"]').click()
    selected = await page_now(
        page,
        "(id) => document.querySelector('aside[aria-label=\"Node\"]')?.textContent.includes(id)",
        clicked,
    )
    pointer = await page.evaluate("window.__bench.pointerDownAt")
    tasks = await page.evaluate("window.__bench.longTasks")
    busy = max((start + length for start, length in tasks if start < pointer), default=0.0)
    return {"rendered": rendered, "shown": shown, "busy": busy, "select": selected - pointer,
            "interactive": selected}  # fmt: skip


async def show_every_node(page: Page, total: int) -> int:
    """Zoom out with the mouse wheel at the canvas's left edge (left of the graph, which the
    editor opens on its top left corner; a wheel over a note scrolls the note) until all
    `total` nodes are rendered: the editor opens at a readable zoom and renders only what the
    view shows, and this is the worst case for a drag and a run. The wheel turns."""
    box = await page.locator(".react-flow__pane").bounding_box()
    await page.mouse.move(box["x"] + 10, box["y"] + box["height"] / 2)
    for turns in range(1, 40):
        await page.mouse.wheel(0, 300)
        await page.wait_for_timeout(300)  # zoom and render settle
        if await page.locator("[data-node-id]").count() >= total:
            return turns
    raise AssertionError(f"zoomed out as far as the canvas goes and not all {total} nodes show")


async def idle_frames(page: Page) -> list[float]:
    """rAF deltas over half a second of doing nothing (the page's frame rate baseline)."""
    await page.evaluate("window.__bench.startFrames()")
    await asyncio.sleep(0.5)
    return await page.evaluate("window.__bench.stopFrames()")


async def drag_frames(page: Page, node_id: str, distance: int = 300, moves: int = 120) -> dict:
    """rAF deltas while a node is dragged `distance` px right by a mouse moving at 60 Hz.

    The moves go straight to Chromium's input pipeline (CDP), one every 1/60 s without
    waiting for the page to handle the previous one, as a real mouse sends them: a busy page
    gets them coalesced, and shows it in its frame times.
    """
    box = await page.locator(f'[data-node-id="{node_id}"]').bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    cdp = await page.context.new_cdp_session(page)

    def mouse(kind: str, at_x: float, buttons: int) -> asyncio.Future:
        return asyncio.ensure_future(cdp.send("Input.dispatchMouseEvent", {
            "type": kind, "x": at_x, "y": y, "button": "left", "buttons": buttons,
            "clickCount": 1,
        }))  # fmt: skip

    await mouse("mouseMoved", x, 0)
    await page.evaluate("window.__bench.startFrames()")
    await mouse("mousePressed", x, 1)
    sent = []
    for step in range(1, moves + 1):
        sent.append(mouse("mouseMoved", x + distance * step / moves, 1))
        await asyncio.sleep(1 / 60)
    await asyncio.gather(*sent)
    await mouse("mouseReleased", x + distance, 0)
    moved = await page.locator(f'[data-node-id="{node_id}"]').bounding_box()
    frames = await page.evaluate("window.__bench.stopFrames()")
    await cdp.detach()
    return {"frames": frames, "moved_px": moved["x"] - box["x"]}


async def hear_run(server: DaphneServer, pipeline_id: int, cookie: str, heard: list) -> None:
    """`(epoch ms, seq)` of each event a plain websocket client gets, until the run's end.

    This client is idle, unlike the page: the gap between when it and the page get an event
    is time the event waited for the page's busy main thread.
    """
    async with open_socket(server, pipeline_id, cookie) as socket:
        while True:
            text = await socket.recv()
            stamp = time.time() * 1e3
            for item in json.loads(text).get("events", []):
                heard.append((stamp, item["seq"]))
                if item["event"]["type"] == "run_finished":
                    return


async def stream_run(page: Page, total: int, listen) -> dict:
    """Click Run; times on the page's clock until every node shows a final status.

    `listen(heard)` follows the run as a plain websocket client, into the list `heard`.
    """
    await (
        page.get_by_role("toolbar", name="Pipeline")
        .get_by_text("Saved", exact=True)
        .wait_for(timeout=WAIT_MS)
    )  # the drag is saved (autosave), so that Run starts the run at once
    heard: list[tuple[float, int]] = []
    listener = asyncio.create_task(listen(heard))
    await asyncio.sleep(0.2)  # connected, past the snapshot
    await page.evaluate("window.__bench.messages = []; window.__bench.startFrames()")
    await page.get_by_role("button", name="Run", exact=True).click()
    shown = await page_now(
        page, f"(n) => document.querySelectorAll({json.dumps(FINAL_SELECTOR)}).length >= n", total
    )
    frames = await page.evaluate("window.__bench.stopFrames()")
    # The run ends after its nodes do (its results are stored behind them): wait for its end.
    await page_now(page, "() => __bench.messages.some(([, text]) => text.includes('run_finished'))")
    recorded = await page.evaluate("""() => ({
        origin: performance.timeOrigin,
        click: __bench.runClickAt,
        messages: __bench.messages,
        answered: performance.getEntriesByType("resource")
            .filter((entry) => /\\/runs$/.test(entry.name)).map((entry) => entry.responseEnd),
    })""")
    await asyncio.wait_for(listener, WAIT_MS / 1e3)
    sent = {seq: stamp for stamp, seq in heard}
    statuses, duration_s, frames_heard, finished = [], None, 0, None
    for arrived, text in recorded["messages"]:
        message = json.loads(text)
        if message["type"] != "events":
            continue  # the snapshot, heartbeats
        frames_heard += 1
        for item in message["events"]:
            event = item["event"]
            if event["type"] == "node_status":
                emitted = datetime.fromisoformat(event["time"]).timestamp() * 1e3
                wired, handled = sent[item["seq"]], recorded["origin"] + arrived
                statuses.append((arrived, event["status"], wired - emitted, handled - wired))
            elif event["type"] == "run_finished":
                duration_s, finished = event["duration_s"], arrived
    click = recorded["click"]
    return {
        "total_ms": shown - click,
        "answered_ms": recorded["answered"][-1] - click,
        "first_status_ms": statuses[0][0] - click,
        "finished_ms": finished - click,
        "to_browser_ms": (statuses[0][2], statuses[-1][2]),
        "to_page_ms": (statuses[0][3], statuses[-1][3]),
        "display_lag_ms": shown - max(item[0] for item in statuses if item[1] in FINAL),
        "server_ms": duration_s * 1e3,
        "status_events": len(statuses),
        "frames": frames_heard,
        "frame_times": frames,
    }  # fmt: skip
