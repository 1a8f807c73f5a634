"""Working on the canvas: a connection let go on empty canvas opens a palette of the operators
it can reach and connects the one chosen; an operator dropped on an edge is put into it;
sticky notes (markdown, rendered inert) and groups (a frame that moves its nodes) are saved
in the document and come back on reload.
"""

from __future__ import annotations

import asyncio
import itertools

import pytest
from playwright.async_api import Page, expect

from tests.e2e.editor_page import (
    canvas,
    drop_operator,
    edges,
    node,
    open_editor,
    port,
    save,
    zoom_out_to_show,
)
from tests.e2e.seed_pipeline import seed

pytestmark = [
    pytest.mark.server,
    pytest.mark.asyncio(loop_scope="session"),
    pytest.mark.django_db(transaction=True),
]


def only(document: dict, *ids: str) -> dict:
    """The seed document with only the nodes `ids` and no edges."""
    return {**document, "nodes": [n for n in document["nodes"] if n["id"] in ids], "edges": []}


async def middle(locator) -> tuple[float, float]:
    box = await locator.bounding_box()
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


async def let_go_on_canvas(page: Page, node_id: str, name: str, dx: float) -> None:
    """Drag a connection from a node's port `dx` px sideways and let it go on empty canvas."""
    x, y = await middle(port(page, node_id, name))
    await page.mouse.move(x, y)
    await page.mouse.down()
    await page.mouse.move(x + dx, y + 30, steps=10)
    await page.mouse.up()


def reach_palette(page: Page):
    return page.get_by_role("dialog", name="Add a node")


def options(page: Page):
    return page.get_by_role("listbox", name="Operators").get_by_role("option")


async def offered(page: Page) -> set[str]:
    names = await options(page).evaluate_all("(all) => all.map((o) => o.dataset.connectOperator)")
    return set(names)


async def test_a_connection_let_go_from_an_output_offers_operators_with_inputs_and_connects_one(
    signed_in, api, people, screenshot
):
    page = signed_in
    pipeline_id = await api.create(only(seed(people), "csv_input_1"))
    await open_editor(page, pipeline_id, nodes=1)

    await let_go_on_canvas(page, "csv_input_1", "out", 260)
    palette = page.get_by_role("dialog", name="Add a node fed by this output")
    await expect(palette).to_be_visible()
    names = await offered(page)
    assert {"filter", "aggregate", "csv_output"} <= names
    assert "csv_input" not in names  # an input operator has no input port
    await screenshot(page, "1-palette")

    await page.get_by_role("combobox", name="Search operators to connect").fill("filter")
    await page.keyboard.press("Enter")
    await expect(palette).to_be_hidden()
    await expect(node(page, "filter_1")).to_be_visible()
    await expect(edges(page)).to_have_count(1)
    await screenshot(page, "2-connected")
    await save(page)
    saved = await api.get(pipeline_id)
    assert [(e["source"], e["target"], e["target_port"]) for e in saved["edges"]] == [
        ("csv_input_1", "filter_1", "in")
    ]

    await page.keyboard.press("Control+z")  # node and edge are one step
    await expect(page.locator("[data-node-id]")).to_have_count(1)
    await expect(edges(page)).to_have_count(0)


async def test_a_connection_let_go_from_an_input_offers_operators_with_outputs(
    signed_in, api, people
):
    page = signed_in
    pipeline_id = await api.create(only(seed(people), "csv_output_1"))
    await open_editor(page, pipeline_id, nodes=1)

    await let_go_on_canvas(page, "csv_output_1", "in", -300)
    await expect(page.get_by_role("dialog", name="Add a node feeding this input")).to_be_visible()
    names = await offered(page)
    assert {"csv_input", "filter"} <= names and "csv_output" not in names
    await page.keyboard.press("Escape")
    await expect(reach_palette(page)).to_be_hidden()
    await expect(page.locator("[data-node-id]")).to_have_count(1)

    await let_go_on_canvas(page, "csv_output_1", "in", -300)
    await page.keyboard.type("csv input")
    await expect(options(page)).to_have_count(1)
    await page.keyboard.press("ArrowDown")
    await expect(options(page).first).to_have_attribute("aria-selected", "true")
    await page.keyboard.press("Enter")
    await expect(node(page, "csv_input_1")).to_be_visible()
    await save(page)
    saved = await api.get(pipeline_id)
    assert [(e["source"], e["target"]) for e in saved["edges"]] == [("csv_input_1", "csv_output_1")]


async def edge_middle(page: Page, source: str, target: str) -> tuple[float, float]:
    """The middle of the edge between two ports level with each other, on the screen."""
    x1, y1 = await middle(port(page, source, "out"))
    x2, y2 = await middle(port(page, target, "in"))
    return (x1 + x2) / 2, (y1 + y2) / 2


async def test_an_operator_dropped_on_an_edge_is_put_into_it_in_one_undo_step(
    signed_in, api, people, screenshot
):
    page = signed_in
    document = only(seed(people), "csv_input_1", "csv_output_1")
    document["edges"] = [{"source": "csv_input_1", "target": "csv_output_1"}]
    pipeline_id = await api.create(document)
    await open_editor(page, pipeline_id, nodes=2)
    box = await canvas(page).bounding_box()

    x, y = await edge_middle(page, "csv_input_1", "csv_output_1")
    await drop_operator(page, "filter", x - box["x"], y - box["y"])
    await expect(node(page, "filter_1")).to_be_visible()
    await expect(edges(page)).to_have_count(2)
    await screenshot(page, "1-inserted")
    await save(page)
    saved = await api.get(pipeline_id)
    assert {(e["source"], e["target"]) for e in saved["edges"]} == {
        ("csv_input_1", "filter_1"), ("filter_1", "csv_output_1")
    }  # fmt: skip

    await page.keyboard.press("Control+z")
    await expect(page.locator("[data-node-id]")).to_have_count(2)
    await expect(edges(page)).to_have_count(1)


async def test_an_operator_the_edge_cannot_take_is_dropped_beside_it_with_the_reason(
    signed_in, api, people
):
    page = signed_in
    document = only(seed(people), "csv_input_1", "csv_output_1")
    document["edges"] = [{"source": "csv_input_1", "target": "csv_output_1"}]
    pipeline_id = await api.create(document)
    await open_editor(page, pipeline_id, nodes=2)
    box = await canvas(page).bounding_box()

    x, y = await edge_middle(page, "csv_input_1", "csv_output_1")
    await drop_operator(page, "csv_input", x - box["x"], y - box["y"])
    await expect(node(page, "csv_input_2")).to_be_visible()
    reason = page.get_by_text("not put into the edge: csv_input_2 has no input")
    await expect(reason).to_be_visible()
    await expect(edges(page)).to_have_count(1)


async def test_a_node_without_edges_dragged_onto_an_edge_is_put_into_it(signed_in, api, people):
    page = signed_in
    document = only(seed(people), "csv_input_1", "filter_1", "csv_output_1")
    for item in document["nodes"]:
        item["position"] = {"csv_input_1": {"x": 0, "y": 0}, "filter_1": {"x": 260, "y": 260},
                            "csv_output_1": {"x": 560, "y": 0}}[item["id"]]  # fmt: skip
    document["edges"] = [{"source": "csv_input_1", "target": "csv_output_1"}]
    pipeline_id = await api.create(document)
    await open_editor(page, pipeline_id, nodes=3)

    x, y = await edge_middle(page, "csv_input_1", "csv_output_1")
    grip = await node(page, "filter_1").bounding_box()
    await page.mouse.move(grip["x"] + grip["width"] / 2, grip["y"] + 12)
    await page.mouse.down()
    await page.mouse.move(x, y, steps=12)
    await expect(page.locator(".react-flow__edge.pw-edge-drop-target")).to_have_count(1)
    await page.mouse.up()
    await expect(edges(page)).to_have_count(2)
    await save(page)
    saved = await api.get(pipeline_id)
    assert {(e["source"], e["target"]) for e in saved["edges"]} == {
        ("csv_input_1", "filter_1"), ("filter_1", "csv_output_1")
    }  # fmt: skip

    await page.keyboard.press("Control+z")  # the move and the insertion are one step
    await expect(edges(page)).to_have_count(1)
    moved_back = await node(page, "filter_1").bounding_box()
    assert abs(moved_back["y"] - grip["y"]) < 2


async def test_a_note_written_in_markdown_is_saved_and_rendered_after_a_reload(
    signed_in, api, people, screenshot
):
    page = signed_in
    pipeline_id = await api.create(seed(people))
    await open_editor(page, pipeline_id, nodes=4)

    await page.get_by_role("button", name="Add note").click()
    text = page.get_by_role("textbox", name="Note text (markdown)")
    await expect(text).to_be_focused()
    await text.fill("# Why\nKeeps **adults** only, see [the docs](https://example.com/x).")
    await page.keyboard.press("Escape")
    note = page.locator(".pw-note")
    await expect(note.get_by_role("heading", name="Why")).to_be_visible()
    await expect(note.locator("strong")).to_have_text("adults")
    await screenshot(page, "1-note")
    await save(page)
    saved = await api.get(pipeline_id)
    assert [n["text"] for n in saved["notes"]] == [
        "# Why\nKeeps **adults** only, see [the docs](https://example.com/x)."
    ]

    await page.reload()
    await expect(page.locator("[data-node-id]")).to_have_count(4)
    link = page.locator(".pw-note").get_by_role("link", name="the docs")
    await expect(link).to_have_attribute("href", "https://example.com/x")
    await expect(link).to_have_attribute("rel", "noopener noreferrer nofollow")

    await page.locator(".pw-note").click()
    blue = page.get_by_role("button", name="Blue note")
    await blue.click()
    await expect(blue).to_have_attribute("aria-pressed", "true")
    await save(page)
    assert [n["color"] for n in (await api.get(pipeline_id))["notes"]] == ["blue"]
    await screenshot(page, "2-blue")
    await page.keyboard.press("Delete")
    await expect(page.locator(".pw-note")).to_have_count(0)
    await page.keyboard.press("Control+z")
    await expect(page.locator(".pw-note")).to_have_count(1)


async def test_a_hostile_note_renders_inert(signed_in, api, people, screenshot):
    page = signed_in
    hostile = (
        "[click me](javascript:window.__pwned=1) [again](JAVASCRIPT:window.__pwned=2)\n"
        '<img src=x onerror="window.__pwned=3"> <script>window.__pwned=4</script>\n'
        "[data](data:text/html,<b>x</b>) ![pixel](https://example.com/p.png)"
    )
    document = {**seed(people), "notes": [{"id": "evil", "text": hostile, "width": 420}]}
    pipeline_id = await api.create(document)
    dialogs = []
    page.on("dialog", lambda dialog: dialogs.append(dialog.message))
    await open_editor(page, pipeline_id, nodes=4)

    note = page.locator('[data-note-id="evil"]')
    await expect(note).to_contain_text("<img src=x onerror=")
    assert await note.locator("img, script, [onerror]").count() == 0
    assert await note.locator("a").count() == 1  # only the image's address, as a plain link
    assert await note.locator("a").get_attribute("href") == "https://example.com/p.png"
    await note.get_by_text("[click me](javascript:").click()
    await asyncio.sleep(0.3)
    assert await page.evaluate("window.__pwned") is None
    assert dialogs == []
    await screenshot(page, "1-inert")


async def test_grouped_nodes_move_with_their_frame_and_the_group_survives_a_reload(
    signed_in, api, people, screenshot
):
    page = signed_in
    pipeline_id = await api.create(seed(people))
    await open_editor(page, pipeline_id, nodes=4)

    await node(page, "csv_input_1").click()
    await node(page, "filter_1").click(modifiers=["Shift"])
    await page.keyboard.press("Control+g")
    frame = page.locator('[data-group-id="group_1"]')
    await expect(frame).to_contain_text("Group 1")
    await screenshot(page, "1-grouped")

    ids = ("csv_input_1", "filter_1", "aggregate_1", "csv_output_1")
    before = {n: await node(page, n).bounding_box() for n in ids}
    head = await frame.locator(".pw-group-head").bounding_box()
    await page.mouse.move(head["x"] + 40, head["y"] + head["height"] / 2)
    await page.mouse.down()
    await page.mouse.move(head["x"] + 40 + 30, head["y"] + head["height"] / 2 + 140, steps=10)
    await page.mouse.up()
    after = {n: await node(page, n).bounding_box() for n in before}
    moved_head = await frame.locator(".pw-group-head").bounding_box()
    shift = (moved_head["x"] - head["x"], moved_head["y"] - head["y"])
    assert shift[1] > 100  # the frame followed the pointer down...
    for moved in ("csv_input_1", "filter_1"):  # ...and its nodes with it
        delta = (after[moved]["x"] - before[moved]["x"], after[moved]["y"] - before[moved]["y"])
        assert abs(delta[0] - shift[0]) < 1 and abs(delta[1] - shift[1]) < 1
    # The nodes outside the group stay where they were, relative to each other: the view
    # itself may pan when the frame is dragged near the canvas's edge.
    assert offset_of(after, "aggregate_1", "csv_output_1") == offset_of(
        before, "aggregate_1", "csv_output_1"
    )
    await screenshot(page, "2-dragged")

    await page.get_by_role("button", name="Rename group Group 1").click()
    await page.get_by_role("textbox", name="Group name").fill("Reading")
    await page.keyboard.press("Enter")
    await save(page)
    saved = await api.get(pipeline_id)
    assert [(g["label"], sorted(g["nodes"])) for g in saved["groups"]] == [
        ("Reading", ["csv_input_1", "filter_1"])
    ]
    positions = {n["id"]: n["position"] for n in saved["nodes"]}
    assert saved["groups"][0]["position"]["x"] < positions["csv_input_1"]["x"]

    await page.reload()
    await expect(page.locator("[data-node-id]")).to_have_count(4)
    await expect(page.locator('[data-group-id="group_1"]')).to_contain_text("Reading")
    await page.get_by_role("button", name="Ungroup Reading").click()
    await expect(page.locator("[data-group-id]")).to_have_count(0)
    await expect(node(page, "csv_input_1")).to_be_visible()


async def test_zoomed_out_cards_show_their_handles_when_pointed_at_and_still_connect(
    signed_in, api, people, screenshot
):
    page = signed_in
    pipeline_id = await api.create(only(seed(people), "csv_input_1", "filter_1"))
    await open_editor(page, pipeline_id, nodes=2)
    zoom_out = page.get_by_role("button", name="Zoom Out")
    while not await page.locator(".pw-node.is-compact").count():
        await zoom_out.click()
    source, target = port(page, "csv_input_1", "out"), port(page, "filter_1", "in")
    await expect(source).to_be_hidden()  # drawn only where the pointer is
    await expect(target).to_be_hidden()

    await node(page, "filter_1").hover()
    await expect(target).to_be_visible()
    at = await middle(target)
    await node(page, "csv_input_1").hover()
    await expect(source).to_be_visible()
    await expect(target).to_be_hidden()
    await screenshot(page, "1-pointed-at")
    await source.hover()
    await page.mouse.down()
    await page.mouse.move(*at, steps=8)
    await page.mouse.up()
    await expect(edges(page)).to_have_count(1)
    await save(page)
    saved = await api.get(pipeline_id)
    assert [(e["source"], e["target"]) for e in saved["edges"]] == [("csv_input_1", "filter_1")]


def long_chain(people, filters: int) -> dict:
    """The seed's input feeding a chain of `filters` filters, laid out in rows of 20."""
    read = {**seed(people)["nodes"][0], "position": {"x": -240, "y": 0}}
    nodes = [read] + [
        {"id": f"f{index}", "operator": "filter", "params": {"condition": "age > 0"},
         "position": {"x": index % 20 * 240, "y": index // 20 * 130}}
        for index in range(filters)
    ]  # fmt: skip
    ids = [node["id"] for node in nodes]
    edges = [{"source": source, "target": target} for source, target in itertools.pairwise(ids)]
    return {**seed(people), "nodes": nodes, "edges": edges}


async def plain_paths(page: Page) -> list[list[str]]:
    """The `d` of each plain edge, per SVG that draws them."""
    return await page.locator("svg.pw-plain-edges").evaluate_all(
        "(svgs) => svgs.map((svg) => [...svg.querySelectorAll('path')]"
        ".map((path) => path.getAttribute('d')))"
    )


async def test_a_node_dragged_far_out_takes_its_plain_edges_and_leaves_the_others_drawn(
    signed_in, api, people
):
    page = signed_in
    pipeline_id = await api.create(long_chain(people, 310))  # over 300 edges: drawn plain
    await page.goto(f"/pipelines/{pipeline_id}/")
    await zoom_out_to_show(page, nodes=311)
    await expect(page.locator("svg.pw-plain-edges path")).to_have_count(310)
    [before] = await plain_paths(page)

    x, y = await middle(node(page, "f150"))
    await page.mouse.move(x, y)
    await page.mouse.down()
    await page.mouse.move(x + 40, y + 30, steps=6)
    still, moved = await plain_paths(page)  # the dragged node's two edges are drawn apart
    assert len(moved) == 2 and set(moved).isdisjoint(before)
    assert len(still) == 308 and set(still) <= set(before)  # the others as they were
    await page.mouse.up()

    [after] = await plain_paths(page)
    assert len(after) == 310
    assert set(moved) <= set(after) and len(set(after) - set(before)) == 2


def offset_of(boxes: dict, a: str, b: str) -> tuple[float, float]:
    """Where card `a` is drawn from card `b`, on the screen."""
    return (boxes[a]["x"] - boxes[b]["x"], boxes[a]["y"] - boxes[b]["y"])
