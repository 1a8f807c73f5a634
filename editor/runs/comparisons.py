"""Comparing two runs the user may see: their records, with the result files still kept, go
to a job's process (`jobs.compared_runs`), where DuckDB reads those files and nothing
else; this process reads no data.

A run's stored results are in its own workspace's store (`file_area(...).cache`), so two runs
of pipelines in two workspaces each bring theirs. A key the store no longer holds (evicted,
or the cache was off) is left out of the record, and the comparison says "data not kept".
"""

from __future__ import annotations

from editor.models import Run
from editor.runs import jobs
from editor.workspaces.membership import file_area
from runtime.cache.store import ResultStore
from runtime.results.comparison.records import RunRecord


def compare(user, a: Run, b: Run, keys: list[str], node: str | None) -> list[dict]:
    """The nodes of the two runs side by side (`runtime.results.comparison.nodes.compare_runs`)."""
    records = [run_record(run, _name(run, other), user) for run, other in ((a, b), (b, a))]
    return jobs.compared_runs(
        *records, keys=keys, node=node, data_root=file_area(a.pipeline.workspace, user)
    )


def run_record(run: Run, name: str, user) -> RunRecord:
    """What the comparison needs of `run`: its document, node records and kept results."""
    nodes = {
        node.node_id: {"status": node.status, "metrics": node.metrics, "error": node.error}
        for node in run.node_runs.all()
    }
    record = RunRecord(name, run.document, nodes, {})
    folder = file_area(run.pipeline.workspace, user).cache
    if folder is None:
        return record
    store = ResultStore(folder)
    kept = {}
    for key in record.result_keys():
        try:
            path = store.path_of(key)
        except ValueError:  # not a key the store wrote (a record edited by hand)
            continue
        if path is not None:
            kept[key] = path
    return RunRecord(name, run.document, nodes, kept)


def _name(run: Run, other: Run) -> str:
    """ "run #3", or "run #3 of 'Sales'" beside a run of another pipeline."""
    if run.pipeline_id == other.pipeline_id:
        return f"run #{run.number}"
    return f"run #{run.number} of '{run.pipeline.name}'"
