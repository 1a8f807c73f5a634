"""`python -m runtime lineage`: a column's tree as text, the whole lineage as JSON."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from runtime import cli
from tests.runtime.checks.pipelines_in_a_row import doubled, in_a_row

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


def two_pipelines(tmp_path) -> tuple[Path, Path]:
    """A doubles `amount` of sales.csv into `total` and writes out.csv; B reads out.csv."""
    (tmp_path / "sales.csv").write_text("id,amount\n1,10\n")
    (tmp_path / "out.csv").write_text("id,amount,total\n1,10,20\n")
    a, b = tmp_path / "A.json", tmp_path / "B.json"
    a.write_text(json.dumps(in_a_row("A", "sales.csv", "out.csv", doubled())))
    b.write_text(json.dumps(in_a_row("B", "out.csv", "final.csv")))
    return a, b


def test_upstream_follows_the_column_into_the_pipeline_writing_its_input(tmp_path, capsys):
    a, b = two_pipelines(tmp_path)
    args = ["lineage", str(b), "--data-root", str(tmp_path), "--column", "final.csv:total"]
    assert cli.main([*args, "--upstream", str(a)]) == 0
    assert capsys.readouterr().out == (
        "write.in:total  written\n"
        "  read.out:total  read from out.csv\n"
        "  inputs: read (out.csv): total\n"
        "\n"
        "↑ read reads out.csv: comes from A > write > total\n"
        "write.in:total  written\n"
        "  double.out:total  computed: total = amount * 2\n"
        "    read.out:amount  read from sales.csv\n"
        "  inputs: read (sales.csv): amount\n"
    )


def test_upstream_hops_are_in_the_json_with_their_paths(tmp_path, capsys):
    a, b = two_pipelines(tmp_path)
    args = ["lineage", str(b), "--data-root", str(tmp_path), "--column", "write:total", "--json"]
    assert cli.main([*args, "--upstream", str(a)]) == 0
    [hop] = json.loads(capsys.readouterr().out)["upstream"]["hops"]
    assert (hop["pipeline"], hop["name"], hop["output"], hop["column"]) == (
        str(a),
        "A",
        "write",
        "total",
    )
    assert hop["path"]["nodes"] == ["write", "double", "read"]
