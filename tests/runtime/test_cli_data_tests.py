"""`python -m runtime test`: a document's data tests run without writing outputs, as a table."""

from __future__ import annotations

import json

from runtime import cli


def write_pipeline(root, severity: str) -> str:
    (root / "orders.csv").write_text("id,status\n1,paid\n2,paid\n2,open\n")
    document = {
        "name": "orders",
        "config": {"parameters": {"allowed": "paid"}},
        "nodes": [
            {"id": "orders", "operator": "csv_input", "params": {"path": "orders.csv"},
             "expect": [{"check": "unique", "columns": ["id"], "severity": severity},
                        {"check": "row_count", "min": 1}]},
            {"id": "write", "operator": "csv_output", "params": {"path": "out.csv"}},
        ],
        "edges": [{"source": "orders", "target": "write"}],
    }  # fmt: skip
    path = root / "orders.json"
    path.write_text(json.dumps(document))
    return str(path)


def test_a_failed_check_prints_its_row_and_exits_1_writing_nothing(tmp_path, capsys):
    path = write_pipeline(tmp_path, "fail")
    assert cli.main(["test", path, "--data-root", str(tmp_path), "--param", "allowed=x"]) == 1
    out = capsys.readouterr().out
    assert "orders  unique     id       fail      failed  2" in out
    assert "orders  row_count           fail      passed" in out
    assert "1 passed, 0 warned, 1 failed" in out
    assert not (tmp_path / "out.csv").exists()


def test_warnings_only_exit_0(tmp_path, capsys):
    path = write_pipeline(tmp_path, "warn")
    assert cli.main(["test", path, "--data-root", str(tmp_path)]) == 0
    assert "1 passed, 1 warned, 0 failed" in capsys.readouterr().out


def test_a_pipeline_without_checks_says_so(tmp_path, capsys):
    (tmp_path / "a.csv").write_text("x\n1\n")
    path = tmp_path / "p.json"
    path.write_text(json.dumps({"name": "p", "nodes": [
        {"id": "a", "operator": "csv_input", "params": {"path": "a.csv"}}]}))  # fmt: skip
    assert cli.main(["test", str(path), "--data-root", str(tmp_path)]) == 0
    assert "no data tests ran" in capsys.readouterr().out
