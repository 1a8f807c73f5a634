"""The benchmark's contestants compute the same ETL, and scale.py refuses what cannot fit."""

from __future__ import annotations

import subprocess

import pytest

from bench import scale, seed_etl

ROWS = 5000


@pytest.fixture
def folder(tmp_path, monkeypatch):
    """The seed data at ROWS rows, generated in chunks smaller than the file."""
    monkeypatch.setattr(seed_etl, "DATA", tmp_path)
    monkeypatch.setattr(seed_etl, "CHUNK_ROWS", 1234)
    return seed_etl.generate(ROWS)


def test_generated_users_have_every_row_once_with_a_plain_header(folder):
    lines = (folder / "users.csv").read_text().splitlines()
    assert lines[0] == "id,name,email,age,country,amount,signup"
    ids = [int(line.split(",")[0]) for line in lines[1:]]
    assert ids == list(range(1, ROWS + 1))


def test_every_contestant_writes_the_naive_scripts_output(folder):
    naive = seed_etl.script(folder, "naive", "naive")
    entrants = [
        naive,
        seed_etl.pipewright(folder, "pandas", None),
        seed_etl.script(folder, "duckdb", "duckdb", "100MB"),
        seed_etl.script(folder, "polars", "polars"),
    ]
    for entrant in entrants:
        subprocess.run(entrant.command, cwd=seed_etl.ROOT, check=True, capture_output=True)
    for entrant in entrants[1:]:
        seed_etl.same_output(entrant.output, naive.output)


def test_a_different_output_is_not_the_same(folder):
    naive = seed_etl.script(folder, "naive", "naive")
    subprocess.run(naive.command, cwd=seed_etl.ROOT, check=True)
    changed = folder / "changed.csv"
    changed.write_text(naive.output.read_text().replace("Country FR", "Country XX"))
    with pytest.raises(AssertionError):
        seed_etl.same_output(changed, naive.output)


def test_a_runtime_without_backends_runs_pandas_and_cannot_run_auto(folder):
    assert seed_etl.pipewright(folder, "auto", None).command is None
    assert "--backend" not in seed_etl.pipewright(folder, "pandas", None).command


def test_the_backend_goes_to_the_option_or_the_documents_config(folder):
    assert seed_etl.pipewright(folder, "auto", "option").command[-2:] == ["--backend", "auto"]
    configured = seed_etl.pipewright(folder, "auto", "config")
    assert '"backend": "auto"' in (folder / "pipeline-auto.json").read_text()
    assert "--backend" not in configured.command


def test_scale_refuses_rows_that_the_disk_cannot_hold(tmp_path, monkeypatch):
    monkeypatch.setattr(seed_etl, "DATA", tmp_path)
    with pytest.raises(SystemExit, match="not enough disk for 1,000,000,000,000 rows"):
        scale.check_disk(10**12)


def test_the_store_on_line_stores_each_run_cold_and_the_others_never_touch_the_store(folder):
    stored = seed_etl.pipewright(folder, "auto", "option", store=True)
    plain = seed_etl.pipewright(folder, "auto", "option")
    assert "--fresh" in stored.command and "--no-cache" not in stored.command
    assert "--no-cache" in plain.command
    assert stored.output != plain.output and stored.label == "pipewright auto, store on"
