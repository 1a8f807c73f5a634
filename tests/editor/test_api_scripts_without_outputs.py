"""`GET /api/pipelines/{id}/script` of a pipeline with no output node: a run of it runs every
node to show its results, and so does the script, on DuckDB as on pandas (it answered 500, a
`KeyError` in the DuckDB segment's code)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.editor.conftest import SEED, post_json

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("backend", ["duckdb", "pandas"])
def test_a_pipeline_without_an_output_downloads_a_script_that_runs(client, data_root, backend):
    document = {
        **SEED,
        "nodes": [item for item in SEED["nodes"] if item["operator"] != "csv_output"],
        "edges": [edge for edge in SEED["edges"] if edge["target"] != "write"],
    }
    pipeline_id = post_json(client, "/api/pipelines", document).json()["id"]

    response = client.get(f"/api/pipelines/{pipeline_id}/script?backend={backend}")

    assert response.status_code == 200, response.content[:500]
    script = data_root / "adults.py"
    script.write_bytes(response.content)
    ran = subprocess.run(
        [sys.executable, "-I", str(script)], capture_output=True, text=True, cwd=data_root
    )
    assert ran.returncode == 0, ran.stderr
