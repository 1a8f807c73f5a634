"""A job in a process of its own: a preview, schema inference, the check before a run, a plan,
the comparison of two runs, a script compiled, column lineage.

These read data (an input's sample, a preview's rows, a database's columns), so the web server
has them done in a process forked like a run's, never in its own. Given its `JobOrder` (the
first message on its socket), the process does the job and answers once, in JSON: `answer`
with the job's JSON form, or the error the job raised (`invalid`, `node_failed`, `refused`:
those a caller tells its user; `crashed`: a bug). Its supervisor keeps its time and memory
limits and ends it once answered. A spare (`standby`) warms up first (`warm_up`), says
`ready`, then waits for its one run or job.
"""

from __future__ import annotations

import tempfile
import traceback
from collections.abc import Callable
from pathlib import Path

from runtime.backends.duckdb_reads import check_reads
from runtime.checks.inference import infer_schemas, run_problems
from runtime.checks.lineage import column_lineage
from runtime.checks.lineage_across import Across, LinkedPipeline, upstream_hops
from runtime.compile import CompileRefused, compile_script
from runtime.document.spec import load_document
from runtime.errors import ComparisonError, NodeExecutionError, PipelineValidationError
from runtime.execution.preview import preview
from runtime.plan import build_plan
from runtime.plan.explain import explain_json
from runtime.plan.prepare import prepare
from runtime.plan.run_options import RunOptions
from runtime.worker import process_flags
from runtime.worker.child import EXIT_CRASHED, EXIT_OK, find_modules_as_the_supervisor
from runtime.worker.wire import JobOrder, Link
from runtime.worker.zygote import WARM_UP


def _preview(order: JobOrder) -> dict:
    shown = preview(
        load_document(order.document), order.options["node"], order.options["limit"],
        port=order.options.get("port"), parameters=order.parameters, data_root=order.area,
        connections=order.connections, budget=order.budget, results=order.options.get("results"),
    )  # fmt: skip
    return shown.to_json()


def _schemas(order: JobOrder) -> dict:
    inferred = infer_schemas(
        load_document(order.document), order.parameters, data_root=order.area,
        connections=order.connections,
    )  # fmt: skip
    return inferred.to_json()


def _run_problems(order: JobOrder) -> list[dict]:
    found = run_problems(
        load_document(order.document), order.parameters, data_root=order.area,
        connections=order.connections,
    )  # fmt: skip
    return [problem.to_json() for problem in found]


def _plan(order: JobOrder) -> dict:
    """The plan view's: what stops a run of the document, or else its prepared plan explained
    (`backend` overriding the document's)."""
    found = _run_problems(order)
    if found:
        return {"problems": found, "plan": None}
    plan = build_plan(load_document(order.document), order.parameters, data_root=order.area)
    # A run's options: the plan says what the run would reuse from the store, and why.
    prepared = prepare(
        plan, backend=order.options.get("backend"), data_root=order.area,
        connections=order.connections, cluster=order.options.get("cluster"), probe=check_reads,
        options=RunOptions(pins=order.options.get("pins") or {}),
    )  # fmt: skip
    return {"problems": [], "plan": explain_json(prepared)}


def _script(order: JobOrder) -> str:
    """The document compiled to a standalone script (`runtime.compile`), reading its inputs'
    columns, queries' included, with the connections the document names."""
    return compile_script(
        load_document(order.document), data_root=order.area, backend=order.options.get("backend"),
        connections=order.connections,
    )  # fmt: skip


def _compare(order: JobOrder) -> list[dict]:
    """Two runs node by node (`runtime.results.comparison`): the records in the options,
    spilling into the area's scratch folder."""
    from runtime.results.comparison.nodes import compare_runs  # DuckDB loads for this job only
    from runtime.results.comparison.records import RunRecord

    options = order.options
    return compare_runs(
        RunRecord.from_json(options["a"]), RunRecord.from_json(options["b"]),
        keys=options["keys"], node=options["node"], spill_dir=order.area.scratch_folder,
        budget=order.budget,
    )  # fmt: skip


def _lineage(order: JobOrder) -> dict:
    """Every column's lineage; with a `node` and `column`, that column's path too (`selected`),
    or why there is none (`not_found`)."""
    found = column_lineage(
        load_document(order.document), order.parameters, data_root=order.area,
        connections=order.connections,
    )  # fmt: skip
    answer = found.to_json()
    node, column = order.options.get("node"), order.options.get("column")
    if node and column:
        try:
            path = found.path(found.locate(node, column))
        except LookupError as error:
            answer["not_found"] = error.args[0]
            return answer
        answer["selected"] = path.to_json()
        answer["upstream"] = _upstream(order, path).to_json()
    return answer


def _upstream(order: JobOrder, path) -> Across:
    """Where the selected column goes on in the order's `upstreams` (`lineage_across`)."""
    upstreams = [
        LinkedPipeline(each["key"], each["name"], load_document(each["document"]))
        for each in order.options.get("upstreams") or ()
    ]
    named = order.options.get("traced") or {"key": None, "name": "this pipeline"}
    traced = LinkedPipeline(named["key"], named["name"], load_document(order.document))
    return upstream_hops(
        traced, path, upstreams,
        lambda each: column_lineage(
            each.document, data_root=order.area, connections=order.connections
        ),
    )  # fmt: skip


JOBS: dict[str, Callable[[JobOrder], object]] = {
    "preview": _preview,
    "schemas": _schemas,
    "run_problems": _run_problems,
    "plan": _plan,
    "compare": _compare,
    "script": _script,
    "lineage": _lineage,
}
"""Each job by its name in a `JobOrder`, returning its answer's JSON form."""


def serve(link: Link, message: dict) -> int:
    """The job process's life once its `job` message came: the job, one answer; the exit code."""
    order = JobOrder.from_message(message)
    process_flags.name_process(f"pw-{order.job}")
    find_modules_as_the_supervisor(order.sys_path)
    try:
        answer = JOBS[order.job](order)
    except PipelineValidationError as error:
        link.send("invalid", problems=[problem.to_json() for problem in error.problems])
    except NodeExecutionError as error:
        link.send("node_failed", node=error.node_id, message=error.message)
    except ComparisonError as error:
        link.send(
            "refused", code="cannot_compare", message=str(error), field=error.field,
            node=error.node,
        )  # fmt: skip
    except CompileRefused as error:
        link.send(
            "refused", code="not_compilable", message=error.message, field=None, node=error.node
        )
    except Exception:
        link.send("crashed", traceback=traceback.format_exc())
        return EXIT_CRASHED
    else:
        link.send("answer", answer=answer)
    return EXIT_OK


def warm_up() -> None:
    """A spare process's warm-up, before it serves the run or job that comes: every page of
    the engine a forked process touches first is copied then (some 1,600 for a schema
    inference), so it infers and previews a small pipeline before anybody waits for it."""
    process_flags.name_process("pw-standby")
    with tempfile.TemporaryDirectory(prefix="pipewright-standby-") as folder:
        Path(folder, "in.csv").write_text("id,name\n1,Ada\n")
        document = load_document(WARM_UP)
        infer_schemas(document, data_root=folder)
        preview(document, "keep", data_root=folder)
