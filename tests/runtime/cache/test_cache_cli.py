"""The CLI's result store: on by default under the data root, `--no-cache`, `--fresh`,
`--up-to`, `--from` on run and explain, and two runs of one pipeline at once."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.runtime.cache.runs import seed_document, write_data
from tests.runtime.test_cli import ROOT, runtime_cli


@pytest.fixture
def pipeline(tmp_path):
    write_data(tmp_path)
    path = tmp_path / "seed.json"
    path.write_text(json.dumps(seed_document()))
    return path


def statuses(result: subprocess.CompletedProcess) -> dict[str, str]:
    """Each node's status in the run's summary table."""
    assert result.returncode == 0, result.stderr
    lines = result.stdout.split("\n\n")[0].splitlines()[2:]
    return {line.split()[0]: line.split()[1] for line in lines}


def cli_run(pipeline, *options) -> dict[str, str]:
    root = pipeline.parent
    return statuses(runtime_cli("run", str(pipeline), "--data-root", str(root), *options, cwd=ROOT))


def test_a_second_run_reuses_everything_and_no_cache_runs_everything(pipeline):
    assert set(cli_run(pipeline).values()) == {"succeeded"}
    assert (pipeline.parent / ".pipewright" / "cache").is_dir()
    assert set(cli_run(pipeline).values()) == {"reused"}
    assert set(cli_run(pipeline, "--no-cache").values()) == {"succeeded"}
    assert set(cli_run(pipeline, "--fresh").values()) == {"succeeded"}


def test_up_to_and_from_choose_what_runs(pipeline):
    ran = cli_run(pipeline, "--up-to", "enrich")
    assert ran == {
        "users": "succeeded",
        "countries": "skipped",
        "adults": "succeeded",
        "enrich": "succeeded",
        "by_country": "skipped",
        "named": "skipped",
        "write": "skipped",
    }
    ran = cli_run(pipeline, "--from", "by_country")
    assert {node for node, status in ran.items() if status == "succeeded"} == {
        "by_country",
        "countries",
        "named",
        "write",
    }


def test_a_run_option_naming_no_node_exits_2_with_the_option_named(pipeline):
    result = runtime_cli(
        "run", str(pipeline), "--data-root", str(pipeline.parent), "--from", "nope", cwd=ROOT
    )
    assert result.returncode == 2
    assert result.stderr.strip() == "error: --from: the pipeline has no node 'nope'"


def test_explain_says_why_each_node_runs_or_not(pipeline):
    cli_run(pipeline)
    document = json.loads(pipeline.read_text())
    document["nodes"][3]["params"]["aggregations"][2]["function"] = "max"
    pipeline.write_text(json.dumps(document))
    shown = runtime_cli("explain", str(pipeline), "--data-root", str(pipeline.parent), cwd=ROOT)
    assert shown.returncode == 0, shown.stderr
    store = shown.stdout.split("result store:\n")[1].splitlines()
    assert "  enrich: reused from the cache" in store
    assert "  by_country: its settings changed" in store
    assert "  named: an input changed (by_country)" in store
    fresh = runtime_cli(
        "explain", str(pipeline), "--data-root", str(pipeline.parent), "--fresh", cwd=ROOT
    )
    assert "  users: a fresh run ignores stored results" in fresh.stdout


def test_two_runs_of_one_pipeline_at_once_both_succeed_and_agree(pipeline):
    command = ["run", str(pipeline), "--data-root", str(pipeline.parent)]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    runs = [
        subprocess.Popen(
            [sys.executable, "-m", "runtime", *command],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(2)
    ]
    for process in runs:
        _, err = process.communicate(timeout=120)
        assert process.returncode == 0, err
    assert set(cli_run(pipeline).values()) == {"reused"}
    leftovers = list((pipeline.parent / ".pipewright" / "cache" / "tmp").iterdir())
    assert leftovers == []
