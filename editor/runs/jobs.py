"""Previews, schema inference, the check before a run, the plan view's plan, the comparison
of two runs, scripts compiled and column lineage, each in a process of its own: at most
`PIPEWRIGHT_MAX_PREVIEWS` at once in this web process, each stopped past
`PIPEWRIGHT_PREVIEW_TIMEOUT` or once it grows by more than a run may.

They read data (an input's sample, a preview's rows, a database's columns), which would hold
the web server's memory and time if it read it itself. So each is a job
(`runtime.worker.jobs`) in a process forked by the server that forks runs
(`local.fork_server`): it is given the document, the parameters, the file area and only
the connections the document names, nothing through its environment, and answers once, in
JSON; one spare process, forked and warmed up after each job, serves the next
(`local.spare`).
The functions here answer as the runtime's (`preview`, `infer_schemas`, `run_problems`,
`prepare`, `explain_json`, `compare_runs`, `compile_script` and `column_lineage`) do and
raise the same errors, so that the API's answers stay the same; a job that could not answer
raises an `ActionError`:

- every process busy: the job waits in line (`_Line`), users taking turns, for up to the time
  limit, then 429 `previews_busy`; a user with `WAITING_PER_USER` jobs waiting is answered 429
  at once. `place_in_line` tells the editor where a user's next job is meanwhile.
- past the time limit: 422 `preview_timeout`; past the memory: 422 `preview_out_of_memory`;
  its process killed or exited: 422 `preview_process_died`. The process is gone by then.
- its process could not be forked: 503 `preview_unavailable`; a bug in the engine: 500
  `internal_error`, with the traceback in the server log.
"""

from __future__ import annotations

import contextlib
import logging
import signal
import sys
import threading
import time
from collections import deque
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from django.conf import settings

from editor.audit import log as audit_log
from editor.errors import ActionError
from editor.runs import local, supervision
from runtime import NodeExecutionError, Pipeline, PipelineValidationError, Problem, analyse
from runtime.budget import Budget
from runtime.document.spec import load_document, to_json_dict
from runtime.execution.preview import DEFAULT_LIMIT
from runtime.io.paths import FileArea
from runtime.io.sql.connection_specs import ConnectionSpec
from runtime.results.comparison.records import RunRecord
from runtime.worker.wire import JobOrder, named_connections
from runtime.worker.zygote import RunProcess

WAITING_PER_USER = 10
"""How many jobs one user may have waiting for a process; more are answered 429 at once
(each waiting job holds its request open)."""
_STOPPED = ("timeout", "out_of_memory")
"""The reports of a process stopped here; one that answered is not waited for (it exits at
once, and its end costs a few milliseconds that a save would wait for)."""
SLOW_INPUTS = "an input may be too large or too slow to read (a big file, a busy database)"
COMPARE_ADVICE = "compare an output with fewer rows, or by keys with fewer columns"

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class _Job:
    """A job as messages tell of it."""

    name: str
    """Its name in a `JobOrder`."""
    words: str
    """What messages call it: "the preview of node 'adults'"."""
    advice: str
    """What to do when it took too long or too much memory."""
    node: str | None = None
    refill: bool = True
    """Whether a new spare is made after it (`local.spare`)."""


def preview(
    document: Pipeline,
    node_id: str,
    limit: int = DEFAULT_LIMIT,
    *,
    port: str | None = None,
    parameters: dict[str, Any] | None = None,
    data_root: FileArea,
    connections: Mapping[str, ConnectionSpec | str],
    results: Mapping[str, Mapping[str, str]] | None = None,
) -> dict:
    """What `runtime.execution.preview.preview` answers, in its JSON form, computed in a job's
    process; `results`: a run's stored results to start from (looked up in `data_root.cache`
    only)."""
    advice = f"preview a node nearer the inputs, or run the pipeline instead; {SLOW_INPUTS}"
    job = _Job("preview", f"the preview of node '{node_id}'", advice, node_id)
    options = {"node": node_id, "limit": limit, "port": port, "results": results}
    return _answer(job, document, parameters, data_root, connections, options)


def infer_schemas(
    document: Pipeline,
    parameters: dict[str, Any] | None = None,
    *,
    data_root: FileArea,
    connections: Mapping[str, ConnectionSpec | str],
    before_run: bool = False,
) -> dict:
    """What `runtime.checks.inference.infer_schemas` answers, in its JSON form, computed in a job's
    process; `before_run`: a run follows at once, and its start, not a spare's warm-up, gets the
    CPU (the run makes the next spare when it ends)."""
    job = _Job("schemas", "working out the pipeline's columns", SLOW_INPUTS, refill=not before_run)
    return _answer(job, document, parameters, data_root, connections)


def run_problems(
    document: Pipeline,
    parameters: dict[str, Any] | None = None,
    *,
    data_root: FileArea,
    connections: Mapping[str, ConnectionSpec | str],
) -> list[Problem]:
    """What `runtime.checks.inference.run_problems` answers, computed in a job's process."""
    # A run follows at once: its start, not a spare's warm-up, gets the CPU (the run makes
    # the next spare when it ends).
    job = _Job("run_problems", "checking the pipeline before its run", SLOW_INPUTS, refill=False)
    found = _answer(job, document, parameters, data_root, connections)
    return [Problem.from_json(problem) for problem in found]


def explained_plan(
    document: Pipeline,
    parameters: dict[str, Any] | None = None,
    *,
    backend: str | None = None,
    data_root: FileArea,
    connections: Mapping[str, ConnectionSpec | str],
    pins: Mapping[str, str] | None = None,
) -> tuple[list[Problem], dict | None]:
    """What stops a run of `document` (`run_problems`), or else none and its prepared plan as
    `explain_json` gives it, with `pins` (node → Parquet file) as a run from the editor has
    them, computed in a job's process."""
    job = _Job("plan", "planning the pipeline", SLOW_INPUTS)
    options = {
        "backend": backend,
        "cluster": settings.PIPEWRIGHT_DASK_SCHEDULER,
        "pins": dict(pins or {}),
    }
    found = _answer(job, document, parameters, data_root, connections, options)
    return [Problem.from_json(problem) for problem in found["problems"]], found["plan"]


def compiled_script(
    document: Pipeline,
    *,
    backend: str | None = None,
    data_root: FileArea,
    connections: Mapping[str, ConnectionSpec | str],
) -> str:
    """What `runtime.compile.compile_script` answers, computed in a job's process (it reads
    the inputs' columns, a query's by running it); a `CompileRefused` is a 422
    `not_compilable` naming the node."""
    job = _Job("script", "compiling the pipeline to a script", SLOW_INPUTS)
    return _answer(job, document, None, data_root, connections, {"backend": backend})


def column_lineage(
    document: Pipeline,
    parameters: dict[str, Any] | None = None,
    *,
    node: str | None = None,
    column: str | None = None,
    traced: dict | None = None,
    upstreams: list[dict] = (),
    data_root: FileArea,
    connections: Mapping[str, ConnectionSpec | str],
) -> dict:
    """What `runtime.checks.lineage.column_lineage` answers, in its JSON form, computed in a
    job's process (it infers the schemas, reading the inputs' samples); with `node` and
    `column`, that column's path as `selected`, or `not_found` saying why there is none, and
    where it goes on in `upstreams` (`{"key", "name", "document"}`, from `traced`, the
    document's own key and name) as `upstream`."""
    job = _Job("lineage", "working out the columns' lineage", SLOW_INPUTS, node)
    options = {"node": node, "column": column, "traced": traced, "upstreams": list(upstreams)}
    named = {}
    for upstream in upstreams:  # their inputs' columns are read with their connections
        analysis = analyse(load_document(upstream["document"]))
        named |= named_connections(analysis, connections)
    return _answer(job, document, parameters, data_root, connections, options, named)


def compared_runs(
    a: RunRecord,
    b: RunRecord,
    *,
    keys: list[str],
    node: str | None,
    data_root: FileArea,
) -> list[dict]:
    """What `runtime.results.comparison.compare_runs` answers, computed in a job's process; a
    `ComparisonError` is a 422 `cannot_compare` naming its field."""
    job = _Job("compare", f"comparing {a.name} with {b.name}", COMPARE_ADVICE, node)
    options = {"a": a.to_json(), "b": b.to_json(), "keys": keys, "node": node}
    order = _order(job, {}, None, data_root, {}, options)
    return _run(job, order)


class _Line:
    """The jobs executing in this web process, at most PIPEWRIGHT_MAX_PREVIEWS, and those
    waiting for one of them to end: users take turns (round-robin), each user's jobs in the
    order they came, so that one user's many previews delay another's by one job at most."""

    def __init__(self):
        self._changed = threading.Condition()
        self._busy = 0
        self._waiting: dict[object, deque[object]] = {}
        """Each waiting user's tickets, oldest first; users in the order they are served."""

    def going(self) -> int:
        with self._changed:
            return self._busy

    def waiting(self) -> int:
        with self._changed:
            return sum(len(line) for line in self._waiting.values())

    def position(self, user_key) -> int | None:
        """Where the user's first waiting job is in line (1: next), or None if none waits:
        one behind the first job of each user ahead, as users take turns."""
        with self._changed:
            users = list(self._waiting)
            return users.index(user_key) + 1 if user_key in users else None

    @contextlib.contextmanager
    def taken(self, job: _Job, user_key) -> Iterator[None]:
        """Hold a slot for the block, once it is this job's turn and one is free within
        PIPEWRIGHT_PREVIEW_TIMEOUT (else 429); a user with WAITING_PER_USER jobs waiting
        already is answered 429 at once."""
        ticket = object()
        with self._changed:
            self._enter(job, user_key, ticket)
            try:
                self._wait_for_turn(job, ticket)
            except BaseException:
                self._leave(user_key, ticket, served=False)
                self._changed.notify_all()
                raise
            self._leave(user_key, ticket, served=True)
            self._busy += 1
            self._changed.notify_all()  # the next in line may find a slot free too
        try:
            yield
        finally:
            with self._changed:
                self._busy -= 1
                self._changed.notify_all()

    def _enter(self, job: _Job, user_key, ticket) -> None:
        line = self._waiting.setdefault(user_key, deque())
        if len(line) >= WAITING_PER_USER:
            raise ActionError(
                429, "previews_busy",
                f"{job.words} was not started: {len(line)} previews and checks of yours "
                "already wait for a process; wait for their answers, then try again",
                node=job.node,
            )  # fmt: skip
        line.append(ticket)

    def _wait_for_turn(self, job: _Job, ticket) -> None:
        limit = settings.PIPEWRIGHT_MAX_PREVIEWS
        wait_s = settings.PIPEWRIGHT_PREVIEW_TIMEOUT_S
        deadline = time.monotonic() + wait_s
        while not (self._busy < limit and self._next() is ticket):
            left = deadline - time.monotonic()
            if left <= 0:
                raise ActionError(
                    429, "previews_busy",
                    f"{job.words} waited {wait_s:g} s for a process: all {limit} that "
                    "PIPEWRIGHT_MAX_PREVIEWS allows were busy all along; try again later",
                    node=job.node,
                )  # fmt: skip
            self._changed.wait(left)

    def _leave(self, user_key, ticket, *, served: bool) -> None:
        """Take the ticket out of line; a user just served goes to the back of the line."""
        line = self._waiting[user_key]
        line.remove(ticket)
        if served or not line:
            del self._waiting[user_key]
            if line:
                self._waiting[user_key] = line

    def _next(self):
        """The ticket served next: the first waiting user's oldest."""
        return next(iter(self._waiting.values()))[0] if self._waiting else None


_line = _Line()


def going() -> int:
    """How many jobs are executing in this web process now."""
    return _line.going()


def place_in_line(user) -> int | None:
    """Where `user`'s next waiting job is in this web process's line (1: next), if one waits."""
    return _line.position(_user_key(user))


def _user_key(user) -> object:
    return user.pk if user is not None else None


def _answer(
    job: _Job,
    document: Pipeline,
    parameters: dict[str, Any] | None,
    data_root: FileArea,
    connections: Mapping[str, ConnectionSpec | str],
    options: dict | None = None,
    also: Mapping[str, ConnectionSpec] | None = None,
):
    """The job's answer (JSON), or its error raised; `also`: connections other documents of
    the job name."""
    # Validation reads no data: it says which connections the document names, even when
    # it is half-built and builds no plan.
    named = named_connections(analyse(document, parameters), connections) | dict(also or {})
    return _run(job, _order(job, to_json_dict(document), parameters, data_root, named, options))


def _order(job, document: dict, parameters, data_root, connections, options) -> JobOrder:
    return JobOrder(
        job=job.name,
        document=document,
        parameters=parameters or {},
        area=data_root,
        connections=connections,
        budget=Budget.from_environment(default_runs=settings.PIPEWRIGHT_MAX_RUNS),
        sys_path=list(sys.path),
        options=options or {},
    )


def _run(job: _Job, order: JobOrder):
    """The answer of `order` in a process of the pool, or its error raised."""
    with _line.taken(job, _user_key(audit_log.current_user())):
        try:
            process = local.spare.take()
        except OSError as error:
            log.exception("could not start the process of %s", job.words)
            raise ActionError(
                503, "preview_unavailable", f"{job.words} could not start its process: {error}",
                node=job.node,
            ) from error  # fmt: skip
        report = None
        try:
            report = _report(process, order)
        finally:
            process.send_signal(signal.SIGKILL)  # it answered, or must stop: nothing left to do
            if report is None or report["kind"] in _STOPPED:  # gone before the answer says so
                process.wait(supervision.EXIT_WAIT_S)
            process.close()
            if job.refill:
                local.spare.refill()
    return _outcome(report, job, process, order.budget)


def _report(process: RunProcess, order: JobOrder) -> dict:
    """The process's one message, or what stopped it (`timeout`, `out_of_memory`, `ended`)."""
    limit = order.budget.memory_bytes + supervision.HEADROOM_BYTES
    deadline = time.monotonic() + settings.PIPEWRIGHT_PREVIEW_TIMEOUT_S
    with contextlib.suppress(OSError):  # it is gone already: its socket's end says so below
        process.link.send("job", **order.to_message())
    while (left := deadline - time.monotonic()) > 0:
        try:
            message = process.link.receive(min(left, supervision.TICK_S))
        except EOFError:
            process.wait(supervision.EXIT_WAIT_S)
            return {"kind": "ended"}
        if message is not None:
            return message
        if process.growth() > limit:
            return {"kind": "out_of_memory"}
    return {"kind": "timeout"}


def _outcome(report: dict, job: _Job, process: RunProcess, budget: Budget):
    """The answer in `report`, or the error it says."""
    kind = report["kind"]
    if kind == "answer":
        return report["answer"]
    if kind == "invalid":
        raise PipelineValidationError([Problem.from_json(item) for item in report["problems"]])
    if kind == "node_failed":
        raise NodeExecutionError(report["node"], report["message"])
    if kind == "refused":
        raise ActionError(
            422, report["code"], report["message"], field=report["field"], node=report["node"]
        )
    if kind == "crashed":
        log.error("%s crashed:\n%s", job.words, report["traceback"])
        message = f"{job.words} failed: internal error; see the server log"
        raise ActionError(500, "internal_error", message, node=job.node)
    if kind == "timeout":
        message = (
            f"{job.words} took longer than the {settings.PIPEWRIGHT_PREVIEW_TIMEOUT_S:g} s "
            f"PIPEWRIGHT_PREVIEW_TIMEOUT allows and was stopped; {job.advice}"
        )
        raise ActionError(422, "preview_timeout", message, node=job.node)
    if kind == "out_of_memory":
        message = (
            f"{job.words} was stopped: it grew by more than the "
            f"{supervision.size_text(budget.memory_bytes)} that PIPEWRIGHT_RUN_MEMORY allows a "
            f"run, and {supervision.size_text(supervision.HEADROOM_BYTES)} for the engine; "
            f"{job.advice}"
        )
        raise ActionError(422, "preview_out_of_memory", message, node=job.node)
    message = f"{job.words} failed: its process {process.how_it_ended()}; try again"
    raise ActionError(422, "preview_process_died", message, node=job.node)
