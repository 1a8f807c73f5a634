"""The CLI with file sub-pipelines: each file is read next to the one that uses it, and run,
explain, validate and lineage see the pipeline inlined."""

from __future__ import annotations

import json

from tests.runtime.plan.test_inline import clean_orders, using
from tests.runtime.test_cli import ROOT, runtime_cli


def test_run_inlines_a_sub_pipeline_file_found_next_to_the_outer_file(tmp_path):
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "clean.json").write_text(json.dumps(clean_orders()))
    (tmp_path / "outer.json").write_text(
        json.dumps(using("lib/clean.json", parameters={"min": "${threshold}"}))
    )
    (tmp_path / "in.csv").write_text("amount\n5\n20\n30\n")
    result = runtime_cli("run", "outer.json", "--data-root", ".", "--param", "threshold=25",
                         cwd=tmp_path)  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "out.csv").read_text() == "amount\n30\n"
    assert "clean__big" in result.stdout
    explained = runtime_cli("explain", str(tmp_path / "outer.json"), "--data-root", str(tmp_path),
                            "--backend", "duckdb", "--no-cache", cwd=ROOT)  # fmt: skip
    assert "clean__big = Filter(read, condition='amount > 15')" in explained.stdout
    assert "sub-pipeline clean ('lib/clean.json'): clean__big" in explained.stdout
    traced = runtime_cli("lineage", "outer.json", "--data-root", ".", cwd=tmp_path)
    assert "clean__big.out:amount  passed" in traced.stdout, traced.stderr


def test_validate_names_the_chain_of_a_file_cycle(tmp_path):
    outer = using("outer.json")
    outer["nodes"] += clean_orders()["nodes"][::2]
    (tmp_path / "outer.json").write_text(json.dumps(outer))
    result = runtime_cli("validate", "outer.json", cwd=tmp_path)
    assert result.returncode == 2
    assert "cycle: outer.json → outer.json" in result.stderr
