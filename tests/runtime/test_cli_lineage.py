"""`python -m runtime lineage`: a column's tree as text, the whole lineage as JSON."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from runtime import cli

DEMO = Path(__file__).resolve().parents[2] / "docs" / "examples" / "demo"


def demo(tmp_path) -> Path:
    (tmp_path / "demo").mkdir()
    shutil.copy(DEMO / "users.csv", tmp_path / "demo" / "users.csv")
    return DEMO / "pipeline.json"


def test_a_column_of_an_output_prints_its_tree_conditions_and_inputs(tmp_path, capsys):
    file = demo(tmp_path)
    args = ["lineage", str(file), "--data-root", str(tmp_path), "--column", "adults.csv:age"]
    assert cli.main(args) == 0
    assert capsys.readouterr().out == (
        "write.in:age  written\n"
        "  adults.out:age  passed\n"
        "    users.out:age  read from demo/users.csv\n"
        "  rows at adults: kept rows where age > 18 (reads users.age)\n"
        "  inputs: users (demo/users.csv): age\n"
    )


def test_json_holds_every_node_and_the_selected_path(tmp_path, capsys):
    file = demo(tmp_path)
    args = ["lineage", str(file), "--data-root", str(tmp_path), "--json", "--column", "write:age"]
    assert cli.main(args) == 0
    data = json.loads(capsys.readouterr().out)
    assert set(data["nodes"]) == {"users", "adults", "write"}
    assert data["nodes"]["write"]["reached_by"] == [
        {
            "node": "users",
            "source": "demo/users.csv",
            "columns": ["age", "amount", "country", "id", "name"],
        }
    ]
    assert data["selected"]["nodes"] == ["write", "adults", "users"]


def test_an_unknown_column_exits_2_naming_the_columns_there_are(tmp_path, capsys):
    file = demo(tmp_path)
    args = ["lineage", str(file), "--data-root", str(tmp_path), "--column", "write:nope"]
    assert cli.main(args) == 2
    assert "'write' has no column 'nope'; it has: age, amount" in capsys.readouterr().err
