"""Tuning from past runs: a run's figures kept per plan, and the planner's choices read from
them, each said in `explain` with its figure; a setting in the document always wins."""

from __future__ import annotations

import json
import logging
import os

import pytest

from runtime.budget import Budget
from runtime.cli import main
from runtime.document.spec import load_document
from runtime.execution.executor import execute
from runtime.io.paths import CACHE, FileArea
from runtime.plan import build_plan, fusion
from runtime.plan.explain import explain, explain_json
from runtime.plan.prepare import prepare
from runtime.plan.run_options import RunOptions
from runtime.plan.tuned import node_shapes, past_figures, profile_key
from runtime.tuning import choices, profiles
from runtime.tuning.figures import NodeFigures, node_figures
from runtime.tuning.profiles import FORMAT, MAX_BYTES, VERSION, profile_path, read_profile

BUDGET = Budget(memory_bytes=8 << 30, threads=4)


def document(**config) -> dict:
    return {
        "format": "pipewright.pipeline",
        "version": 2,
        "name": "tuned",
        "config": config,
        "nodes": [
            {"id": "read", "operator": "csv_input", "params": {"path": "in.csv"}},
            {"id": "keep", "operator": "filter", "params": {"condition": "v >= 0"}},
            {"id": "write", "operator": "csv_output", "params": {"path": "out/out.csv"}},
        ],
        "edges": [{"source": "read", "target": "keep"}, {"source": "keep", "target": "write"}],
    }


@pytest.fixture
def root(tmp_path):
    (tmp_path / "in.csv").write_text("k,v\n" + "".join(f"{i % 7},{i}\n" for i in range(100)))
    return tmp_path


def store_of(root) -> FileArea:
    return FileArea(root, cache=root / CACHE)


def planned(root, doc: dict, options: RunOptions | None = None, **kwargs):
    return prepare(
        build_plan(load_document(doc)), data_root=store_of(root), options=options or RunOptions(),
        budget=BUDGET, **kwargs,
    )  # fmt: skip


def write_profile(root, doc: dict, rows: int, bytes_: int, runs: int = 3) -> None:
    """A profile whose every node made `rows` rows and `bytes_` bytes in `runs` runs."""
    figures = {"rows": rows, "bytes": bytes_, "seconds": 1.0, "backend": "pandas"}
    plan = build_plan(load_document(doc))
    path = profile_path(root / CACHE, profile_key(plan))
    path.parent.mkdir(parents=True, exist_ok=True)
    nodes = {shape: [figures] * runs for shape in node_shapes(plan).values()}
    path.write_text(json.dumps({"format": FORMAT, "version": VERSION, "runs": [], "nodes": nodes}))


def measurements(plan, node_id: str) -> list[dict]:
    """The figures the profile of `plan` keeps of `node_id` as the plan has it."""
    return read_profile(plan.profile)["nodes"][plan.shapes[node_id]]


def test_a_successful_run_adds_its_figures_to_the_plan_profile(root):
    doc = document()
    plan = planned(root, doc)
    assert execute(plan, data_root=store_of(root), budget=BUDGET).ok
    assert measurements(plan, "read")[0]["rows"] == 100
    assert measurements(plan, "keep")[0]["backend"] == "pandas"
    [run] = read_profile(plan.profile)["runs"]
    assert run["cpu_s"] >= 0 and run["peak_bytes"] > 0
    assert plan.profile == profile_path(root / CACHE, profile_key(build_plan(load_document(doc))))


def test_a_failed_run_adds_nothing_to_the_profile(root):
    plan = planned(root, document())
    (root / "in.csv").unlink()  # the read fails when the run starts it
    assert not execute(plan, data_root=store_of(root), budget=BUDGET).ok
    assert not plan.profile.exists()


def test_a_profile_keeps_only_the_last_runs_of_each_node(root):
    doc = document()
    for _ in range(7):
        plan = planned(root, doc, options=RunOptions(fresh=True))
        assert execute(plan, data_root=store_of(root)).ok
    plan = planned(root, doc)
    assert len(read_profile(plan.profile)["runs"]) == 5 and len(measurements(plan, "read")) == 5


def edited(doc: dict, condition: str) -> dict:
    """`doc` with its filter's condition changed, as a user edits it."""
    doc = json.loads(json.dumps(doc))
    doc["nodes"][1]["params"]["condition"] = condition
    return doc


def test_an_edit_keeps_the_figures_above_it_and_starts_anew_below_it(root):
    assert execute(planned(root, document()), data_root=store_of(root)).ok
    changed = edited(document(), "v >= 50")
    _, measured = past_figures(build_plan(load_document(changed)), root / CACHE, tuning=True)
    assert set(measured) == {"read"}  # the filter and the output below it make other rows now
    plan = planned(root, changed)
    assert execute(plan, data_root=store_of(root)).ok
    assert [one["rows"] for one in measurements(plan, "keep")] == [50]


def test_undoing_an_edit_finds_the_figures_from_before_it_back(root):
    assert execute(planned(root, document()), data_root=store_of(root)).ok
    assert execute(planned(root, edited(document(), "v >= 50")), data_root=store_of(root)).ok
    plan = planned(root, document())
    assert [one["rows"] for one in measurements(plan, "keep")] == [100]


def test_a_profile_keeps_the_shapes_of_the_last_run_and_as_many_others(tmp_path, monkeypatch):
    monkeypatch.setattr(profiles, "MIN_SHAPES", 2)
    path = profiles.profile_path(tmp_path, "p" * 64)
    for edit in range(4):  # node b edited each time, node a never
        shapes = ["a", f"b{edit}"]
        nodes = {shape: {"rows": 1, "bytes": 8} for shape in shapes}
        profiles.add_run(path, {"wall_s": 1.0}, nodes, shapes)
    assert list(read_profile(path)["nodes"]) == ["b1", "b2", "a", "b3"]
    profiles.add_run(path, {"wall_s": 1.0}, {}, {"b0", "a"})  # a run that reused both
    assert list(read_profile(path)["nodes"]) == ["b2", "a", "b3"]


def test_a_profile_too_large_with_other_shapes_keeps_only_the_last_runs(tmp_path, monkeypatch):
    path = profiles.profile_path(tmp_path, "p" * 64)
    profiles.add_run(path, {"wall_s": 1.0}, {"old": {"rows": 1, "bytes": 8}}, {"old"})
    monkeypatch.setattr(profiles, "MAX_BYTES", len(path.read_text()) + 25)  # a run more fits
    profiles.add_run(path, {"wall_s": 1.0}, {"new": {"rows": 1, "bytes": 8}}, {"new"})
    assert list(read_profile(path)["nodes"]) == ["new"]


def test_large_past_runs_put_a_segment_on_duckdb_though_its_file_is_small(root):
    write_profile(root, document(), rows=2_000_000, bytes_=64 << 20)
    plan = planned(root, document())
    [segment] = plan.segments
    assert segment.backend == "duckdb" and segment.nodes == ("read", "keep", "write")
    assert segment.reason.startswith("tuned: the last 3 runs made 2,000,000 rows")


def test_small_past_runs_put_a_segment_on_pandas_though_the_fixed_rule_says_duckdb(
    root, monkeypatch
):
    monkeypatch.setattr(fusion, "AUTO_MIN_BYTES", 0)  # the fixed rule: any file is large
    assert planned(root, document()).segments != []  # no profile yet: the fixed rule
    write_profile(root, document(), rows=100, bytes_=1600)
    plan = planned(root, document())
    assert plan.segments == []
    assert explain_json(plan)["pandas"] == ["read", "keep", "write"]


def test_explain_names_the_figure_each_choice_came_from(root):
    write_profile(root, document(), rows=2_000_000, bytes_=64 << 20)
    lines = explain(planned(root, document())).splitlines()
    section = lines[lines.index("tuning from past runs:") + 1 :]
    assert section[0] == (
        "  segment:1 (read, keep, write) on duckdb: the last 3 runs made 2,000,000 rows / "
        "64.0 MiB at node read (median)"
    )
    assert section[1].startswith("  segment:1 memory limit 512.0 MiB: the last 3 runs made")
    assert section[2].startswith("  max_concurrency ")
    described = explain_json(planned(root, document()))["tuning"][0]
    assert described["choice"] == "segment:1 (read, keep, write) on duckdb"


def test_the_document_backend_and_concurrency_win_over_past_figures(root):
    doc = document(backend="pandas", max_concurrency=3)
    write_profile(root, doc, rows=2_000_000, bytes_=64 << 20)
    plan = planned(root, doc)
    assert plan.segments == [] and plan.concurrency is None
    said = [choice.text() for choice in plan.tuned]
    assert "backend pandas: set in the document or chosen for this run" in said
    assert "max_concurrency 3: set in the document" in said


def test_no_tuning_reads_no_profile(root, capsys):
    write_profile(root, document(), rows=2_000_000, bytes_=64 << 20)
    (root / "p.json").write_text(json.dumps(document()))
    assert main(["explain", str(root / "p.json"), "--data-root", str(root), "--no-tuning"]) == 0
    said = capsys.readouterr().out
    assert "not tuned: tuning is off for this run (--no-tuning)" in said
    assert "on pandas: read, keep, write" in said  # the fixed rule: a small file


@pytest.mark.parametrize(
    "content",
    [b"{not json", json.dumps({"format": "other"}).encode(), b" " * (MAX_BYTES + 1)],
    ids=["corrupt", "not-a-profile", "oversized"],
)
def test_an_unreadable_profile_is_ignored_with_a_warning_and_replaced(root, caplog, content):
    path = planned(root, document()).profile
    path.parent.mkdir(parents=True)
    path.write_bytes(content)
    with caplog.at_level(logging.WARNING):
        plan = planned(root, document())
    assert "tuning: past runs ignored" in caplog.text
    assert plan.tuned[0].what == "past runs ignored"
    assert execute(plan, data_root=store_of(root), budget=BUDGET).ok
    assert measurements(plan, "read")[0]["rows"] == 100


def figures(node: str, rows: int, bytes_: int) -> NodeFigures:
    return NodeFigures(node, rows=rows, bytes=bytes_, seconds=0.1, runs=2, backend="pandas")


def test_a_segment_is_judged_by_its_largest_member():
    measured = {"a": figures("a", 10, 100), "b": figures("b", 5_000_000, 10)}
    assert choices.segment_backend(["a", "b"], measured)[0] == "duckdb"
    assert choices.segment_backend(["a"], measured)[0] == "pandas"
    assert choices.segment_backend(["c"], measured) is None


def test_a_small_duckdb_segment_runs_on_one_thread():
    limits, why = choices.segment_limits(["a"], {"a": figures("a", 50_000, 1 << 20)}, BUDGET)
    assert limits.threads == 1 and limits.memory_bytes == 256 << 20
    assert [what for what, _ in why] == ["1 thread", "memory limit 256.0 MiB"]


def test_concurrency_fits_the_largest_frame_into_the_run_budget():
    measured = {"a": figures("a", 10, 3 << 30)}
    chosen, why = choices.concurrency(measured, BUDGET, cores=8)
    assert chosen == 1 and why.endswith("the run's 8.0 GiB holds 1 at once")


def test_a_budget_within_limits_takes_the_lower_of_each():
    assert BUDGET.within(1, 1 << 30) == Budget(memory_bytes=1 << 30, threads=1)
    assert BUDGET.within() == BUDGET


def test_a_segment_reading_a_large_file_stays_on_duckdb_whatever_it_made():
    """Inside a DuckDB segment a scan's frame is never made: its bytes read as none."""
    measured = {"a": figures("a", 10, 0)}
    chosen, why = choices.segment_backend(["a"], measured, files_bytes=40 << 20)
    assert chosen == "duckdb" and why.startswith("its files hold 40.0 MiB")


def test_a_run_inside_duckdb_keeps_the_bytes_pandas_measured():
    """A DuckDB member has rows but no frame: its null bytes leave the measured ones."""
    profile = {
        "nodes": {
            "shape of pairs": [
                {"rows": 3_000_000, "bytes": 80 << 20, "backend": "pandas"},
                {"rows": 3_000_000, "bytes": None, "backend": "duckdb"},
                {"rows": 3_000_000, "bytes": None, "backend": "duckdb"},
            ]
        }
    }
    [found] = node_figures(profile, {"pairs": "shape of pairs"}).values()
    assert (found.rows, found.bytes, found.runs, found.backend) == (
        3_000_000, 80 << 20, 3, "duckdb",
    )  # fmt: skip


def test_a_store_keeps_at_most_its_number_of_profiles(tmp_path, monkeypatch):
    monkeypatch.setattr(profiles, "MAX_PROFILES", 3)
    for index in range(5):
        path = profiles.profile_path(tmp_path, f"{index:064x}")
        profiles.add_run(path, {"wall_s": 1.0}, {"a": {"rows": 1, "bytes": 8}}, {"a"})
        os.utime(path, (index, index))  # written one after another
    kept = sorted(path.name[-6:] for path in (tmp_path / profiles.FOLDER).iterdir())
    assert kept == ["2.json", "3.json", "4.json"]


def test_small_past_runs_of_small_files_leave_every_node_on_pandas_and_say_why(root):
    write_profile(root, document(), rows=100, bytes_=1600)
    plan = planned(root, document())
    assert plan.segments == []
    assert "backend auto: the inputs are small (494 bytes), pandas runs all" in plan.notes
    assert plan.tuned[0].text() == (
        "every node on pandas: the last 3 runs made 100 rows / 1.6 KiB at node read (median): "
        "small enough for pandas, which starts sooner"
    )


def partitioned_document() -> dict:
    return {
        "format": "pipewright.pipeline",
        "version": 2,
        "name": "parts",
        "nodes": [
            {"id": "read", "operator": "csv_input", "params": {"path": "parts/*.csv"}},
            {"id": "keep", "operator": "filter", "params": {"condition": "v >= 0"}},
            {"id": "sums", "operator": "aggregate", "params": {
                "group_by": ["k"], "aggregations": [{"column": "v", "function": "sum"}]}},
            {"id": "write", "operator": "csv_output", "params": {"path": "out/sums.csv"}},
        ],
        "edges": [
            {"source": "read", "target": "keep"},
            {"source": "keep", "target": "sums"},
            {"source": "sums", "target": "write"},
        ],
    }  # fmt: skip


@pytest.mark.parametrize(
    ("rows", "partitioned"), [(50, False), (5_000_000, True)], ids=["few-rows", "many-rows"]
)
def test_past_figures_decide_whether_files_go_to_the_dask_cluster(root, rows, partitioned):
    """Planning for a cluster names its address only: nothing is sent while planning."""
    (root / "parts").mkdir()
    for name in ("a", "b"):
        (root / "parts" / f"{name}.csv").write_text("k,v\n1,2\n")
    doc = partitioned_document()
    write_profile(root, doc, rows=rows, bytes_=rows * 16)
    plan = planned(root, doc, cluster="tcp://127.0.0.1:1")
    assert any(segment.backend == "dask" for segment in plan.segments) is partitioned
    [choice] = [one for one in plan.tuned if one.what.startswith("read's 2 files")]
    assert choice.what.endswith("a partition per file" if partitioned else "not partitioned")
    assert choice.because.startswith(f"the last 3 runs made {rows:,} rows")


def test_a_segment_with_an_unmeasured_member_is_never_judged_small_nor_limited():
    """An unmeasured node may be the one a join multiplies: only a large figure is trusted."""
    measured = {"a": figures("a", 10, 100)}
    assert choices.segment_backend(["a", "b"], measured) is None
    assert choices.segment_limits(["a", "b"], measured, BUDGET) == (choices.SegmentLimits(), [])


def test_a_segment_whose_frames_duckdb_never_made_gets_no_memory_limit():
    unsized = NodeFigures("j", rows=50_000, bytes=0, seconds=0.1, runs=2, backend="duckdb",
                          sized=False)  # fmt: skip
    limits, why = choices.segment_limits(["j"], {"j": unsized}, BUDGET)
    assert limits == choices.SegmentLimits(threads=1) and [what for what, _ in why] == ["1 thread"]
