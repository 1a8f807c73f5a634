"""Running from the browser editor: every node succeeds with its row counts and the output
is written; the exported file validates and runs with the runtime CLI.
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

from tests.e2e.boxes import inside, overlaps
from tests.e2e.conftest import ROOT
from tests.e2e.editor_page import canvas, node, open_editor
from tests.e2e.seed_pipeline import seed

pytestmark = [
    pytest.mark.server,
    pytest.mark.asyncio(loop_scope="session"),
    pytest.mark.django_db(transaction=True),
]

SPENDING = [
    {"country": "FR", "people": "2", "amount": "150"},
    {"country": "GB", "people": "1", "amount": "10"},
    {"country": "US", "people": "1", "amount": "99"},
]
ROW_COUNTS = {  # rows in → rows out, as a node shows them after the run
    "csv_input_1": "\N{EN DASH} → 6",  # no rows in
    "filter_1": "6 → 4",
    "aggregate_1": "4 → 3",
    "csv_output_1": "3 written",  # an output passes no rows on: it writes them
}
SEED_IDS = list(ROW_COUNTS)


def read_rows(path: Path) -> list[dict]:
    with path.open(newline="") as file:
        return list(csv.DictReader(file))


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
        await page.get_by_role("button", name="More").click()
        await page.get_by_role("menuitem", name="Export as JSON").click()
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
