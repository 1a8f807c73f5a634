"""The run inside a sub-pipeline node, as an analyst watches it: "Run inside" on the node's
card opens the inner pipeline read-only under a banner naming the run, the outer pipeline and
the node; its nodes show the run's statuses and rows live, the Data tab their stored rows; the
same from a past run picked in the History; and back to the outer pipeline."""

from __future__ import annotations

import pytest
from playwright.async_api import expect

from tests.e2e.editor_page import RUN_BUTTON, node, open_editor
from tests.e2e.test_editor_subpipelines import report as subpipelines_report

INSIDE = "Run inside \u203a"  # the card's button

pytestmark = [
    pytest.mark.server,
    pytest.mark.asyncio(loop_scope="session"),
    pytest.mark.django_db(transaction=True),
]


def clean_orders() -> dict:
    """Keeps the orders above `min`, then waits a moment (so that a run can be watched)."""
    place = lambda x: {"x": x, "y": 0}  # noqa: E731
    return {
        "name": "Clean orders",
        "config": {"parameters": {"min": 10}},
        "nodes": [
            {"id": "orders", "operator": "pipeline_input", "params": {"name": "orders"},
             "position": place(0)},
            {"id": "big", "operator": "filter", "params": {"condition": "amount > ${min}"},
             "label": "Big orders", "position": place(260)},
            {"id": "wait", "operator": "pause", "params": {"seconds": 3}, "position": place(520)},
            {"id": "kept", "operator": "pipeline_output", "params": {"name": "kept"},
             "position": place(780)},
        ],
        "edges": [{"source": "orders", "target": "big"}, {"source": "big", "target": "wait"},
                  {"source": "wait", "target": "kept"}],
    }  # fmt: skip


def report(folder, inner_id: int) -> dict:
    """The sub-pipelines e2e test's report, with a node `clean` between its two."""
    document = subpipelines_report(folder)
    clean = {"id": "clean", "operator": "subpipeline", "label": "Clean",
             "params": {"pipeline": inner_id, "inputs": ["orders"], "outputs": ["kept"]},
             "position": {"x": 300, "y": 0}}  # fmt: skip
    document["nodes"].insert(1, clean)
    document["edges"] = [
        {"source": "read", "target": "clean", "target_port": "orders"},
        {"source": "clean", "source_port": "kept", "target": "write"},
    ]
    return document


async def test_the_run_inside_a_sub_pipeline_node_shows_its_nodes_live_and_from_history(
    signed_in, api, data_folder, screenshot
):
    page = signed_in
    inner_id = await api.create(clean_orders())
    pipeline_id = await api.create(report(data_folder, inner_id))
    await open_editor(page, pipeline_id, nodes=3)

    await page.get_by_role("button", name=RUN_BUTTON).click()
    clean = node(page, "clean")
    await expect(clean).to_have_attribute("data-status", "running")
    await screenshot(page, "0-outer-running")
    await clean.get_by_role("button", name=INSIDE).click()

    banner = page.get_by_role("status", name="Run inside")
    await expect(banner).to_contain_text("Run #1 of Order report, node Clean")
    await expect(banner).to_contain_text("'Clean orders' @ revision 1")
    await expect(node(page, "read")).to_have_count(0)  # the inner pipeline, not the outer
    await expect(node(page, "big")).to_have_attribute("data-status", "succeeded")
    await expect(node(page, "big")).to_contain_text("3 → 2")
    await expect(node(page, "wait")).to_have_attribute("data-status", "running")
    await expect(node(page, "orders")).to_have_attribute("data-status", "idle")
    await screenshot(page, "1-inside-live")
    # Live: the run's events reach the inner nodes.
    await expect(node(page, "wait")).to_have_attribute("data-status", "succeeded", timeout=15_000)
    await expect(banner).to_contain_text("succeeded")
    await expect(page.get_by_role("complementary", name="Operators")).to_have_count(0)

    await page.get_by_role("tab", name="Data").click()
    await page.locator("#pw-data-node").select_option("big")
    rows = page.get_by_role("region", name="Data of big").locator("tbody tr")
    await expect(rows).to_have_count(2)
    await screenshot(page, "2-inside-data")

    await banner.get_by_role("button", name="Back to Order report").click()
    await expect(node(page, "read")).to_be_visible()
    await expect(clean).to_contain_text("2/2 nodes")

    await page.get_by_role("button", name="History").click()
    await page.get_by_role("menuitem", name="#1").click()
    past_run = page.get_by_role("status").filter(has_text="Run #1")
    await expect(past_run).to_contain_text("read only")
    await clean.get_by_role("button", name=INSIDE).click()
    await expect(banner).to_contain_text("Run #1 of Order report, node Clean")
    await expect(node(page, "wait")).to_have_attribute("data-status", "succeeded")
    await expect(node(page, "big")).to_contain_text("3 → 2")
    await screenshot(page, "3-inside-past")
    await banner.get_by_role("button", name="Back to Order report").click()
    await expect(past_run).to_contain_text("read only")  # the past run it was opened from
    assert (data_folder / "out.csv").read_text() == "amount\n20\n30\n"


async def test_the_run_inside_a_loop_shows_the_iteration_picked(
    signed_in, api, data_folder, screenshot
):
    page = signed_in
    (data_folder.path / "blue.csv").write_text("name,age\nAda,36\nLinus,17\n")
    (data_folder.path / "red.csv").write_text("name,age\nGrace,85\n")
    inner = await api.create({
        "name": "Read one team",
        "config": {"parameters": {"path": "none.csv"}},
        "nodes": [
            {"id": "read", "operator": "csv_input", "params": {"path": "${path}"},
             "position": {"x": 0, "y": 0}},
            {"id": "adults", "operator": "filter", "params": {"condition": "age >= 18"},
             "position": {"x": 300, "y": 0}},
            {"id": "rows", "operator": "pipeline_output", "params": {"name": "rows"},
             "position": {"x": 600, "y": 0}},
        ],
        "edges": [{"source": "read", "target": "adults"}, {"source": "adults", "target": "rows"}],
    })  # fmt: skip
    loop = {"pipeline": inner, "pattern": data_folder.name("*.csv"), "parameter": "path",
            "max_iterations": 10, "outputs": ["rows"]}  # fmt: skip
    pipeline_id = await api.create({
        "name": "All teams",
        "nodes": [
            {"id": "each", "operator": "for_each", "label": "Each team", "params": loop,
             "position": {"x": 0, "y": 0}},
            {"id": "write", "operator": "csv_output", "position": {"x": 500, "y": 0},
             "params": {"path": data_folder.name("out/all.csv")}},
        ],
        "edges": [{"source": "each", "source_port": "rows", "target": "write"}],
    })  # fmt: skip
    await open_editor(page, pipeline_id, nodes=2)
    await page.get_by_role("button", name=RUN_BUTTON).click()
    await expect(node(page, "each")).to_contain_text("2/2 runs")

    await node(page, "each").get_by_role("button", name=INSIDE).click()
    banner = page.get_by_role("status", name="Run inside")
    await expect(banner).to_contain_text("Run #1 of All teams, node Each team")
    iteration = banner.get_by_role("combobox", name="Iteration")
    await expect(iteration).to_have_value("0")
    await expect(node(page, "adults")).to_contain_text("2 → 1")  # blue.csv: Ada and Linus

    await expect(iteration.get_by_role("option")).to_have_text(
        ["1 of 2 · blue.csv", "2 of 2 · red.csv"]
    )

    await iteration.select_option(label="2 of 2 · red.csv")
    await expect(node(page, "adults")).to_contain_text("1 → 1")  # red.csv: Grace
    await expect(node(page, "adults")).to_have_attribute("data-status", "succeeded")
    await screenshot(page, "iteration-2")
