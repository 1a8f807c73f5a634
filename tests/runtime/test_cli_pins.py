"""`--pin NODE=FILE` on `run` and `explain`: the node's output is the file's rows."""

from __future__ import annotations

import json

import pandas as pd

from runtime import cli
from tests.runtime.cache.runs import seed_document, write_data


def test_run_with_a_pin_writes_what_the_pinned_rows_give(tmp_path, capsys):
    write_data(tmp_path)
    pipeline = tmp_path / "seed.json"
    pipeline.write_text(json.dumps(seed_document()))
    pd.DataFrame(
        {"id": [1], "name": ["ADA"], "age": [40], "country": ["ES"], "amount_eur": [2.5]}
    ).to_parquet(tmp_path / "sample.parquet")
    pin = f"--pin=enrich={tmp_path / 'sample.parquet'}"
    assert cli.main(["explain", str(pipeline), "--data-root", str(tmp_path), pin]) == 0
    assert "pinned: enrich (its output is the rows of sample.parquet)" in capsys.readouterr().out
    assert cli.main(["run", str(pipeline), "--data-root", str(tmp_path), pin]) == 0
    written = pd.read_csv(tmp_path / "out" / "pipewright.csv")
    assert written[["country", "amount_eur"]].to_dict("records") == [
        {"country": "ES", "amount_eur": 2.5}
    ]


def test_a_pin_of_an_unknown_node_exits_2_naming_it(tmp_path, capsys):
    write_data(tmp_path)
    pipeline = tmp_path / "seed.json"
    pipeline.write_text(json.dumps(seed_document()))
    (tmp_path / "x.parquet").write_bytes(b"")
    code = cli.main(["run", str(pipeline), "--data-root", str(tmp_path), "--pin", "nope=x.parquet"])
    assert code == 2
    assert "the pipeline has no node 'nope'" in capsys.readouterr().err
