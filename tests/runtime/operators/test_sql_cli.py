"""The SQL operators through the runtime CLI: a CSV file copied into each database, and
the golden pipeline that writes an SQLite file.
"""

from __future__ import annotations

import json
import shutil

import pandas as pd
import sqlalchemy as sa

from tests.runtime.test_cli import GOLDEN, ROOT, runtime_cli


def test_the_cli_copies_a_csv_file_into_each_database(db, tmp_path):
    (db.data_root / f"{db.table}.csv").write_text("id,name\n1,Ada\n2,\n")
    (tmp_path / "connections.json").write_text(json.dumps(db.connections))
    writing = {"connection": "db", "table": db.table}
    nodes = [
        {"id": "read", "operator": "csv_input", "params": {"path": f"{db.table}.csv"}},
        {"id": "write", "operator": "sql_output", "params": writing},
    ]
    edges = [{"source": "read", "target": "write"}]
    (tmp_path / "p.json").write_text(json.dumps({"name": "t", "nodes": nodes, "edges": edges}))
    result = runtime_cli(
        "run", "p.json", "--data-root", str(db.data_root), "--connections", "connections.json",
        cwd=tmp_path,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert db.rows(f"SELECT id, name FROM {db.table} ORDER BY id") == [(1, "Ada"), (2, None)]


def test_the_golden_pipeline_also_copies_the_rows_into_the_sqlite_file(tmp_path):
    case = GOLDEN / "sql_roundtrip"
    shutil.copytree(case / "input", tmp_path, dirs_exist_ok=True)
    result = runtime_cli(
        "run", str(case / "pipeline.json"), "--data-root", str(tmp_path),
        *(case / "args").read_text().split(), cwd=ROOT,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    engine = sa.create_engine(f"sqlite:///{tmp_path / 'shop.db'}")
    with engine.connect() as connection:
        copied = connection.exec_driver_sql("SELECT id, name FROM adults ORDER BY id").all()
    engine.dispose()
    expected = pd.read_csv(tmp_path / "out" / "people.csv")
    assert [row[0] for row in copied] == expected["id"].tolist()
