"""Each data test kind on frames: what offends, the count, the sample, and the bounds that keep
untrusted checks cheap (RE2 for patterns, hashing for uniqueness)."""

from __future__ import annotations

from datetime import UTC, datetime

import numpy as np
import pandas as pd
import pytest
from pydantic import TypeAdapter, ValidationError

from runtime.document.expectations import Check
from runtime.execution.data_tests import ChecksFailed, raise_on_failure, run_checks
from runtime.io.paths import FileArea

CHECK = TypeAdapter(Check)
NOW = datetime(2026, 12, 4, 12, tzinfo=UTC)
ORDERS = pd.DataFrame(
    {
        "id": [1, 2, 2, 4],
        "customer": [10, 11, 12, 99],
        "amount": [5.5, 7.0, -1.0, None],
        "status": ["paid", "paid", "weird", None],
        "day": pd.to_datetime(["2026-12-01", "2026-12-03", None, "2026-12-02"]),
    }
)
CUSTOMERS = pd.DataFrame({"id": [10, 11, 12]})


def check(tmp_path, frame=ORDERS, **fields) -> dict:
    frames = {("orders", "out"): frame, ("customers", "out"): CUSTOMERS}
    (result,) = run_checks(
        "orders",
        [CHECK.validate_python(fields)],
        lambda node, port: frames.get((node, port)),
        FileArea(tmp_path),
        NOW,
    )
    return result


def test_not_null_counts_the_missing_values_and_samples_their_rows(tmp_path):
    found = check(tmp_path, check="not_null", column="amount")
    assert (found["status"], found["failing"], found["rows"]) == ("failed", 1, 4)
    assert found["sample"]["columns"] == ["amount", "id", "customer", "status", "day"]
    assert found["sample"]["rows"] == [[None, 4, 99, None, "2026-12-02T00:00:00"]]
    assert found["message"] == "not_null on amount failed: 1 of 4 rows are null"


def test_unique_over_several_columns_flags_every_row_of_a_repeated_key(tmp_path):
    assert check(tmp_path, check="unique", columns=["id"])["failing"] == 2
    assert check(tmp_path, check="unique", columns=["id", "customer"])["status"] == "passed"


def test_unique_on_a_million_rows_is_one_vectorised_pass(tmp_path):
    frame = pd.DataFrame({"key": np.arange(1_000_000), "other": np.zeros(1_000_000)})
    frame.loc[999_999, "key"] = 0
    found = check(tmp_path, frame, check="unique", columns=["key"])
    assert found["failing"] == 2
    assert len(found["sample"]["rows"]) == 2


def test_in_set_passes_missing_values_and_names_the_others(tmp_path):
    found = check(tmp_path, check="in_set", column="status", values=["paid"])
    assert found["failing"] == 1
    assert found["sample"]["rows"][0][0] == "weird"


def test_in_range_includes_its_ends_and_reads_dates_as_dates(tmp_path):
    assert check(tmp_path, check="in_range", column="amount", min=-1, max=7)["status"] == "passed"
    assert check(tmp_path, check="in_range", column="amount", min=0)["failing"] == 1
    found = check(tmp_path, check="in_range", column="day", max="2026-12-02")
    assert found["failing"] == 1


def test_matches_tests_whole_values_with_re2(tmp_path):
    found = check(tmp_path, check="matches", column="status", pattern="pa.d")
    assert found["failing"] == 1
    assert check(tmp_path, check="matches", column="status", pattern="[a-z]+")["failing"] == 0


def test_a_pattern_catastrophic_for_backtracking_runs_in_linear_time(tmp_path):
    """`(a+)+$` on thirty a's and a '!' takes Python's `re` about a minute; RE2 answers at
    once, and a pattern RE2 cannot bound (a backreference) is refused at load."""
    frame = pd.DataFrame({"text": ["a" * 30 + "!"] * 1000})
    found = check(tmp_path, frame, check="matches", column="text", pattern="(a+)+$")
    assert found["failing"] == 1000
    with pytest.raises(ValidationError, match="backreferences are not supported"):
        CHECK.validate_python({"check": "matches", "column": "text", "pattern": r"(a)\1"})


def test_row_count_bounds_the_rows_of_the_port(tmp_path):
    found = check(tmp_path, check="row_count", min=1, max=3)
    assert found["status"] == "failed"
    assert found["failing"] is None
    assert found["message"] == "row_count failed: 4 rows, expected at least 1 and at most 3"


def test_references_finds_values_missing_from_the_other_nodes_column(tmp_path):
    found = check(tmp_path, check="references", column="customer", node="customers", to_column="id")
    assert found["failing"] == 1
    assert found["sample"]["rows"][0][0] == 99


def test_fresh_compares_the_latest_time_with_now(tmp_path):
    assert check(tmp_path, check="fresh", column="day", max_age=2, unit="days")["status"] == (
        "passed"
    )
    found = check(tmp_path, check="fresh", column="day", max_age=12, unit="hours")
    assert found["status"] == "failed"
    assert "older than 12 hours" in found["message"]


def test_golden_compares_rows_in_any_order_and_names_the_differences(tmp_path):
    frame = pd.DataFrame({"id": [2, 1], "name": ["b", "a"]})
    (tmp_path / "golden.csv").write_text("id,name\n1,a\n2,b\n")
    assert check(tmp_path, frame, check="golden", path="golden.csv")["status"] == "passed"
    (tmp_path / "golden.csv").write_text("id,name\n1,a\n2,c\n")
    found = check(tmp_path, frame, check="golden", path="golden.csv")
    assert found["status"] == "failed"
    assert found["sample"]["rows"] == [[2, "b"]]
    assert "2 rows differ" in found["message"]  # b here, c there


def test_golden_refuses_a_file_outside_the_workspace(tmp_path):
    found = check(tmp_path, check="golden", path="../../etc/passwd")
    assert found["status"] == "failed"
    assert found["message"].startswith("golden failed: could not run:")


def test_a_warn_check_warns_and_a_fail_check_raises_with_node_check_column_and_sample(tmp_path):
    warned = check(tmp_path, check="not_null", column="amount", severity="warn")
    assert warned["status"] == "warned"
    raise_on_failure("orders", [warned])  # a warning does not fail the node
    failed = check(tmp_path, check="not_null", column="amount")
    with pytest.raises(ChecksFailed, match=r"node 'orders': not_null on amount failed: 1 of 4 "
                       r'rows are null, e.g. \[\{"amount": null\}\]'):  # fmt: skip
        raise_on_failure("orders", [failed])


def test_a_column_the_port_lacks_fails_the_check_naming_it(tmp_path):
    found = check(tmp_path, check="not_null", column="nope")
    assert found["status"] == "failed"
    assert "port 'out' has no column 'nope'" in found["message"]
