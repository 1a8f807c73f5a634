"""Export as Python: the editor's button downloads the compiled script, which writes the
same rows as a run."""

from __future__ import annotations

import asyncio
import csv
import os
import shutil
import sqlite3
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
        await page.get_by_role("button", name="More").click()
        await page.get_by_role("menuitem", name="Export as Python").click()
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


async def test_export_as_python_of_a_query_on_the_workspaces_connection_reads_its_variable(
    signed_in, api, data_folder, tmp_path
):
    """As a new user does it: a connection of the workspace, a pipeline reading a query on it,
    Export as Python. The script names PIPEWRIGHT_CONN_WAREHOUSE and runs with it set (the
    button answered "no connection named 'warehouse'")."""
    page = signed_in
    database = data_folder / "warehouse.db"
    with sqlite3.connect(database) as connection:
        connection.execute("create table people (name text, age integer)")
        connection.executemany("insert into people values (?, ?)", [("Ada", 36), ("Bo", 12)])
    workspace = (await api.call("GET", "/api/workspaces"))["items"][0]["slug"]
    await api.call(
        "PUT",
        f"/api/workspaces/{workspace}/connections/warehouse",
        {"url": f"sqlite:///{data_folder.name('warehouse.db')}"},
    )
    query = {"connection": "warehouse", "query": "select name from people where age > 18"}
    output = {"path": data_folder.name("adults.csv")}
    pipeline_id = await api.create({
        "format": "pipewright.pipeline", "version": 2, "name": "warehouse adults",
        "nodes": [
            {"id": "query", "operator": "sql_input", "params": query},
            {"id": "write", "operator": "csv_output", "params": output},
        ],
        "edges": [{"source": "query", "target": "write"}],
    })  # fmt: skip
    await open_editor(page, pipeline_id, nodes=2)
    async with page.expect_download() as download:
        await page.get_by_role("button", name="More").click()
        await page.get_by_role("menuitem", name="Export as Python").click()
    script = tmp_path / (await download.value).suggested_filename
    await (await download.value).save_as(script)
    assert "PIPEWRIGHT_CONN_WAREHOUSE" in script.read_text()
    assert "warehouse.db" not in script.read_text()

    data_root = tmp_path / "data"
    (data_root / data_folder.relative).mkdir(parents=True)
    shutil.copy(database, data_root / data_folder.relative / "warehouse.db")
    variable = {"PIPEWRIGHT_CONN_WAREHOUSE": f"sqlite:///{data_folder.name('warehouse.db')}"}
    ran = await asyncio.to_thread(
        subprocess.run,
        [sys.executable, "-I", str(script), "--data-root", str(data_root)],
        capture_output=True, text=True, timeout=60, check=False, env={**os.environ, **variable},
    )  # fmt: skip
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert read_rows(data_root / data_folder.relative / "adults.csv") == [{"name": "Ada"}]
