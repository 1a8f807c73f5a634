"""Export as Python: the editor's button downloads the compiled script, which writes the
same rows as a run."""

from __future__ import annotations

import asyncio
import csv
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.e2e.editor_page import open_editor
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


def read_rows(path: Path) -> list[dict]:
    with path.open(newline="") as file:
        return list(csv.DictReader(file))


async def test_export_as_python_downloads_a_script_that_writes_the_runs_rows(
    signed_in, api, people, tmp_path
):
    page = signed_in
    pipeline_id = await api.create(seed(people))
    await open_editor(page, pipeline_id, nodes=4)
    async with page.expect_download() as download:
        await page.get_by_role("button", name="Export as Python").click()
    script = tmp_path / (await download.value).suggested_filename
    await (await download.value).save_as(script)
    data_root = tmp_path / "data"
    shutil.copytree(people.path, data_root / people.relative)

    ran = await asyncio.to_thread(
        subprocess.run,
        [sys.executable, "-I", str(script), "--data-root", str(data_root)],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip

    assert script.name == "adult_spending_by_country.py"
    assert script.read_text().startswith("#!/usr/bin/env python3")
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert read_rows(data_root / people.relative / "out/spending.csv") == SPENDING
