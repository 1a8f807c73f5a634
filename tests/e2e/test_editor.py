"""The browser editor end to end: Debian's Chromium against a daphne process.

A user signs in, builds the seed's pipeline (CSV input → filter → aggregate → CSV output) by
dragging operators from the palette and connecting ports, fills the forms, saves, reloads,
runs it and watches every node succeed; the export runs with the runtime CLI. The editor
refuses invalid connections with a reason, undoes and redoes with the keyboard (a drag or a
run of arrow-key nudges is one step), and lets the user reload or overwrite when someone else
saved meanwhile. Every test fails on errors in the browser's console (tests/e2e/conftest.py).
"""

from __future__ import annotations

import asyncio
import csv
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from playwright.async_api import expect

from tests.e2e.editor_page import (
    canvas,
    connect,
    drag,
    drop_operator,
    edges,
    node,
    open_editor,
    save,
    save_state,
    select,
)

pytestmark = [
    pytest.mark.server,
    pytest.mark.asyncio(loop_scope="session"),
    pytest.mark.django_db(transaction=True),
]

ROOT = Path(__file__).resolve().parents[2]
PEOPLE = """id,name,age,country,amount
1,Ada,36,FR,120
2,Linus,17,FI,40
3,Grace,85,US,99
4,Alan,41,GB,10
5,Marie,66,FR,30
6,Tim,15,GB,5
"""
SPENDING = [
    {"country": "FR", "people": "2", "amount": "150"},
    {"country": "GB", "people": "1", "amount": "10"},
    {"country": "US", "people": "1", "amount": "99"},
]
ROW_COUNTS = {  # rows in → rows out, as a node shows them after the run
    "csv_input_1": "\N{EN DASH} → 6",  # no rows in
    "filter_1": "6 → 4",
    "aggregate_1": "4 → 3",
    "csv_output_1": "3 rows written",  # an output passes no rows on
}
SEED_IDS = list(ROW_COUNTS)
DROP_OFFSET = (100, 28)  # a dropped node's top left, from the drop point (half its nominal size)
CONFLICT = "409 (Conflict)"  # Chromium logs the refused save's response as a console error


def seed(folder) -> dict:
    """The seed's pipeline, as building it in the editor makes it (ids included)."""
    return {
        "format": "pipewright.pipeline",
        "version": 1,
        "name": "Adult spending by country",
        "nodes": [
            {"id": "csv_input_1", "operator": "csv_input",
             "params": {"path": folder.name("people.csv")}, "position": {"x": 0, "y": 0}},
            {"id": "filter_1", "operator": "filter",
             "params": {"condition": "age >= 18"}, "position": {"x": 260, "y": 0}},
            {"id": "aggregate_1", "operator": "aggregate", "params": {
                "group_by": ["country"],
                "aggregations": [
                    {"column": "id", "function": "count", "name": "people"},
                    {"column": "amount", "function": "sum", "name": "amount"},
                ],
            }, "position": {"x": 520, "y": 0}},
            {"id": "csv_output_1", "operator": "csv_output",
             "params": {"path": folder.name("out/spending.csv")}, "position": {"x": 780, "y": 0}},
        ],
        "edges": [
            {"source": "csv_input_1", "target": "filter_1"},
            {"source": "filter_1", "target": "aggregate_1"},
            {"source": "aggregate_1", "target": "csv_output_1"},
        ],
    }  # fmt: skip


def graph_of(document: dict) -> tuple[dict, set]:
    """`({node id: (operator, params)}, {(source, target)})`: what building a pipeline sets."""
    nodes = {item["id"]: (item["operator"], item["params"]) for item in document["nodes"]}
    return nodes, {(edge["source"], edge["target"]) for edge in document["edges"]}


def inside(box: dict, outer: dict) -> bool:
    """Whether a bounding box lies wholly within another."""
    return (
        outer["x"] <= box["x"] <= box["x"] + box["width"] <= outer["x"] + outer["width"]
        and outer["y"] <= box["y"] <= box["y"] + box["height"] <= outer["y"] + outer["height"]
    )


def overlaps(box: dict, other: dict) -> bool:
    """Whether two bounding boxes share any area."""
    return (
        box["x"] < other["x"] + other["width"]
        and other["x"] < box["x"] + box["width"]
        and box["y"] < other["y"] + other["height"]
        and other["y"] < box["y"] + box["height"]
    )


def read_rows(path: Path) -> list[dict]:
    with path.open(newline="") as file:
        return list(csv.DictReader(file))


@pytest.fixture
def people(data_folder):
    (data_folder / "people.csv").write_text(PEOPLE)
    return data_folder


async def test_signing_in_shows_the_pipelines_and_opens_one_in_the_editor(
    page, user, api, people, screenshot
):
    user.set_password("correct horse battery staple")
    await asyncio.to_thread(user.save)
    pipeline_id = await api.create(seed(people))
    await api.create({**seed(people), "name": "Another pipeline"})

    await page.goto("/")
    await expect(page).to_have_url("/accounts/login/?next=/")
    await page.locator("[name=username]").fill("ada")
    await page.locator("[name=password]").fill("correct horse battery staple")
    await screenshot(page, "1-sign-in")
    await page.get_by_role("button", name="Sign in").click()

    await expect(page.get_by_role("heading", name="Pipelines")).to_be_visible()
    await expect(page.get_by_role("link", name="Another pipeline")).to_be_visible()
    await screenshot(page, "2-home")
    await page.get_by_role("link", name="Adult spending by country").click()
    await expect(page).to_have_url(f"/pipelines/{pipeline_id}/")
    await expect(page.locator("[data-node-id]")).to_have_count(4)
    await screenshot(page, "3-editor")


async def test_a_pipeline_built_by_dragging_and_filling_forms_is_saved_and_reloads(
    signed_in, api, people, screenshot
):
    page = signed_in
    pipeline_id = await api.create({**seed(people), "nodes": [], "edges": []})
    await open_editor(page, pipeline_id, nodes=0)
    await screenshot(page, "1-empty")
    palette = page.get_by_role("complementary", name="Operators")
    assert (
        await page.locator("[data-operator]").count()
        == await palette.locator("[data-operator]").count()
        > 20
    )

    box = await canvas(page).bounding_box()
    middle_x, middle_y = box["width"] / 2, box["height"] / 2
    spots = {  # where to drop, in the canvas: input and filter, then aggregate and output
        "csv_input": (middle_x, middle_y),
        "filter": (middle_x + 280, middle_y),
        "aggregate": (middle_x - 280, middle_y + 180),
        "csv_output": (middle_x, middle_y + 180),
    }
    for operator, (x, y) in spots.items():
        await drop_operator(page, operator, x, y)
    await expect(page.locator("[data-node-id]")).to_have_count(4)
    for operator, (x, y) in spots.items():  # the view did not move (or zoom) under them
        dropped = await node(page, f"{operator}_1").bounding_box()
        assert (dropped["x"] - box["x"], dropped["y"] - box["y"]) == pytest.approx(
            (x - DROP_OFFSET[0], y - DROP_OFFSET[1]), abs=2
        ), f"{operator} did not stay where it was dropped"
    await connect(page, "csv_input_1", "filter_1")
    await connect(page, "filter_1", "aggregate_1")
    await connect(page, "aggregate_1", "csv_output_1")
    await expect(edges(page)).to_have_count(3)

    side = page.get_by_role("complementary", name="Node")
    await select(page, "csv_input_1")
    await side.get_by_role("textbox", name="Path", exact=True).fill(people.name("people.csv"))
    await select(page, "filter_1")
    await side.get_by_role("textbox", name="Condition", exact=True).fill("age >= 18")
    await select(page, "aggregate_1")
    await side.get_by_role("group", name="Group by").get_by_role("button", name="+ Add").click()
    await side.get_by_label("Group by 1").fill("country")
    aggregations = side.get_by_role("group", name="Aggregations")
    for index, (column, function, name) in enumerate(
        [("id", "count", "people"), ("amount", "sum", "amount")]
    ):
        await aggregations.get_by_role("button", name="+ Add").last.click()
        await aggregations.get_by_label("Column", exact=True).nth(index).fill(column)
        function_field = aggregations.get_by_role("combobox", name="Function", exact=True)
        await function_field.nth(index).select_option(function)
        await aggregations.get_by_label("Output column", exact=True).nth(index).fill(name)
    await select(page, "csv_output_1")
    await side.get_by_role("textbox", name="Path", exact=True).fill(people.name("out/spending.csv"))
    await screenshot(page, "2-built")
    await save(page)

    assert graph_of(await api.get(pipeline_id)) == graph_of(seed(people))
    await page.reload()
    await expect(page.locator("[data-node-id]")).to_have_count(4)
    await expect(edges(page)).to_have_count(3)
    await expect(save_state(page)).to_have_text("Saved")
    overview = page.get_by_role("complementary", name="Pipeline")
    await expect(overview).to_contain_text("No problems found.")
    await select(page, "aggregate_1")
    await expect(side.get_by_label("Group by 1")).to_have_value("country")
    await expect(side.get_by_label("Output column", exact=True).nth(1)).to_have_value("amount")
    await screenshot(page, "3-reloaded")


async def test_a_run_shows_every_node_succeed_with_its_row_counts_and_writes_the_output(
    signed_in, api, people, screenshot
):
    page = signed_in
    pipeline_id = await api.create(seed(people))
    await open_editor(page, pipeline_id, nodes=4)
    await expect(page.locator("[data-status]")).to_have_count(4)
    for node_id in SEED_IDS:
        await expect(node(page, node_id)).to_have_attribute("data-status", "idle")

    await page.get_by_role("button", name="Run", exact=True).click()
    for node_id, counts in ROW_COUNTS.items():
        await expect(node(page, node_id)).to_have_attribute("data-status", "succeeded")
        await expect(node(page, node_id)).to_contain_text(counts)
    await expect(page.get_by_role("button", name="Run", exact=True)).to_be_enabled()
    await expect(page.get_by_role("button", name="Cancel", exact=True)).to_be_disabled()
    await screenshot(page, "1-succeeded")
    shown = await canvas(page).bounding_box()
    minimap = await page.locator(".react-flow__minimap").bounding_box()
    for node_id in SEED_IDS:  # the log panel opened: the graph is fitted again into what is left
        place = await node(page, node_id).bounding_box()
        assert inside(place, shown) and not overlaps(place, minimap), f"{node_id} is hidden"

    assert read_rows(people / "out/spending.csv") == SPENDING


async def test_the_exported_file_validates_and_runs_with_the_runtime_cli(
    signed_in, api, people, tmp_path
):
    page = signed_in
    pipeline_id = await api.create(seed(people))
    await open_editor(page, pipeline_id, nodes=4)
    async with page.expect_download() as download:
        await page.get_by_role("button", name="Export", exact=True).click()
    exported = tmp_path / (await download.value).suggested_filename
    await (await download.value).save_as(exported)
    data_root = tmp_path / "data"
    shutil.copytree(people.path, data_root / people.relative)

    validated = await asyncio.to_thread(cli, "validate", str(exported))
    ran = await asyncio.to_thread(cli, "run", str(exported), "--data-root", str(data_root))

    assert exported.name == "adult-spending-by-country.json"
    assert validated.returncode == 0, validated.stderr
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert read_rows(data_root / people.relative / "out/spending.csv") == SPENDING


def cli(*arguments: str) -> subprocess.CompletedProcess:
    """`python -m runtime …` as a user runs it, in a process of its own."""
    return subprocess.run(
        [sys.executable, "-m", "runtime", *arguments],
        cwd=ROOT, capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip


@pytest.mark.parametrize(
    ("source", "target", "reason"),
    [
        (
            "filter_1",
            "csv_output_1",
            'input "in" of csv_output_1 takes one connection and already has one '
            "(from aggregate_1); delete that edge first",
        ),
        (
            "aggregate_1",
            "filter_1",
            "connecting aggregate_1 to filter_1 would make a cycle "
            "(filter_1 → aggregate_1 → filter_1)",
        ),
    ],
    ids=["second-edge-into-one-input", "cycle"],
)
async def test_an_invalid_connection_is_refused_with_its_reason(
    signed_in, api, people, screenshot, source, target, reason
):
    page = signed_in
    pipeline_id = await api.create(seed(people))
    await open_editor(page, pipeline_id, nodes=4)

    await connect(page, source, target)

    await expect(page.get_by_role("alert")).to_contain_text(f"Not connected: {reason}.")
    await screenshot(page, "refused")
    await expect(edges(page)).to_have_count(3)
    await expect(save_state(page)).to_have_text("Saved")


async def test_ctrl_z_undoes_a_drop_and_a_connection_and_ctrl_shift_z_redoes_them(
    signed_in, api, people
):
    page = signed_in
    document = seed(people)
    pipeline_id = await api.create({**document, "nodes": document["nodes"][:1], "edges": []})
    await open_editor(page, pipeline_id, nodes=1)
    box = await canvas(page).bounding_box()
    await drop_operator(page, "filter", box["width"] * 0.75, box["height"] * 0.3)
    await connect(page, "csv_input_1", "filter_1")
    await expect(edges(page)).to_have_count(1)
    nodes = page.locator("[data-node-id]")

    await page.keyboard.press("Control+z")
    await expect(edges(page)).to_have_count(0)
    await expect(nodes).to_have_count(2)
    await page.keyboard.press("Control+z")
    await expect(nodes).to_have_count(1)
    await page.keyboard.press("Control+Shift+z")
    await expect(node(page, "filter_1")).to_be_visible()
    await expect(edges(page)).to_have_count(0)
    await page.keyboard.press("Control+Shift+z")
    await expect(edges(page)).to_have_count(1)
    await expect(nodes).to_have_count(2)


async def test_a_mistyped_condition_is_reported_at_its_field_and_on_its_node(
    signed_in, api, people, screenshot
):
    page = signed_in
    pipeline_id = await api.create(seed(people))
    await open_editor(page, pipeline_id, nodes=4)
    await select(page, "filter_1")
    side = page.get_by_role("complementary", name="Node")
    condition = side.get_by_role("textbox", name="Condition", exact=True)

    await condition.fill("agee >= 18")  # checked once autosaved, without pressing anything

    problem = side.locator(".pw-field-problems")
    await expect(problem).to_contain_text("unknown column 'agee'", timeout=10_000)
    await expect(problem).to_contain_text("did you mean 'age'?")
    await expect(node(page, "filter_1").locator("[role=note]")).to_contain_text("agee")
    await screenshot(page, "problem")
    await condition.fill("age >= 18")
    await expect(problem).to_have_count(0, timeout=10_000)
    await expect(node(page, "filter_1").locator("[role=note]")).to_have_count(0)


async def test_a_dragged_node_is_saved_where_it_was_dropped_and_ctrl_z_moves_it_back(
    signed_in, api, people
):
    page = signed_in
    pipeline_id = await api.create(seed(people))
    await open_editor(page, pipeline_id, nodes=4)
    before = await node(page, "filter_1").bounding_box()

    await drag(page, "filter_1", 0, 150)

    moved = await node(page, "filter_1").bounding_box()
    assert moved["x"] == pytest.approx(before["x"], abs=1) and moved["y"] > before["y"] + 100
    await expect(save_state(page)).to_have_text("Unsaved")
    await expect(save_state(page)).to_have_text("Saved", timeout=5000)  # autosave
    saved = {item["id"]: item["position"] for item in (await api.get(pipeline_id))["nodes"]}
    assert saved["filter_1"]["x"] == 260 and saved["filter_1"]["y"] > 100
    await page.keyboard.press("Control+z")  # the whole drag is one undo step
    await expect(save_state(page)).to_have_text("Unsaved")
    back = await node(page, "filter_1").bounding_box()
    assert (back["x"], back["y"]) == pytest.approx((before["x"], before["y"]), abs=1)


async def test_arrow_keys_nudge_the_selected_node_as_one_undo_step(signed_in, api, people):
    page = signed_in
    pipeline_id = await api.create(seed(people))
    await open_editor(page, pipeline_id, nodes=4)
    before = await node(page, "aggregate_1").bounding_box()
    await select(page, "aggregate_1")

    for _ in range(4):
        await page.keyboard.press("ArrowDown")

    await expect(save_state(page)).to_have_text("Unsaved")
    nudged = await node(page, "aggregate_1").bounding_box()
    assert nudged["y"] > before["y"] + 5
    await page.keyboard.press("Control+z")
    await page.wait_for_function(  # back where it was after one undo
        """([id, top]) => Math.abs(
            document.querySelector(`[data-node-id="${id}"]`).getBoundingClientRect().top - top
        ) < 1""",
        arg=["aggregate_1", before["y"]],
    )


async def change_elsewhere(api, pipeline_id: int, name: str) -> None:
    """Someone else renames the pipeline through the API."""
    current = await api.get(pipeline_id)
    await api.call("PUT", f"/api/pipelines/{pipeline_id}", {**current, "name": name})


async def save_over(page, name: str):
    """Rename the pipeline in the editor and save: a conflict, since someone saved meanwhile."""
    await page.get_by_label("Pipeline name").fill(name)
    await page.get_by_role("button", name="Save", exact=True).click()
    dialog = page.get_by_role("dialog", name="Someone else saved this pipeline")
    await expect(dialog).to_contain_text(
        "Someone else saved changes to this pipeline while you were editing it"
    )
    return dialog


@pytest.mark.console_allows(CONFLICT)
async def test_after_a_conflicting_save_reload_shows_the_other_version(
    signed_in, api, people, screenshot
):
    page = signed_in
    pipeline_id = await api.create(seed(people))
    await open_editor(page, pipeline_id, nodes=4)
    await change_elsewhere(api, pipeline_id, "Renamed elsewhere")

    dialog = await save_over(page, "Renamed here")
    await screenshot(page, "conflict")
    await dialog.get_by_role("button", name="Reload theirs").click()

    await expect(dialog).to_be_hidden()
    await expect(page.get_by_label("Pipeline name")).to_have_value("Renamed elsewhere")
    await expect(save_state(page)).to_have_text("Saved")
    assert (await api.get(pipeline_id))["name"] == "Renamed elsewhere"
    await page.keyboard.press("Control+z")  # the user's own version is one undo away
    await expect(page.get_by_label("Pipeline name")).to_have_value("Renamed here")


@pytest.mark.console_allows(CONFLICT)
async def test_after_a_conflicting_save_overwrite_keeps_this_version(signed_in, api, people):
    page = signed_in
    pipeline_id = await api.create(seed(people))
    await open_editor(page, pipeline_id, nodes=4)
    await change_elsewhere(api, pipeline_id, "Renamed elsewhere")

    dialog = await save_over(page, "Renamed here")
    await dialog.get_by_role("button", name="Overwrite with mine").click()

    await expect(dialog).to_be_hidden()
    await expect(save_state(page)).to_have_text("Saved")
    saved = await api.get(pipeline_id)
    assert saved["name"] == "Renamed here" and saved["revision"] == 3
    assert graph_of(saved) == graph_of(seed(people))
