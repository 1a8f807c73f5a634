"""`python -m runtime`: validate, run and inspect pipelines without the web app.

Exit codes (runtime/console.py, shared with the management commands): 0 success, 1 the run
failed, 2 the document (or a command-line value) is invalid, 130 cancelled with Ctrl+C. User
errors print one clear message and no traceback; `--debug` shows the traceback too. Heavy
modules are imported by the commands that need them, so that `schema` and `--help` start fast.
"""

from __future__ import annotations

import argparse
import gc
import json
import logging
import os
import sys
import threading
import traceback
from contextlib import ExitStack
from dataclasses import replace
from pathlib import Path
from typing import NoReturn

from runtime.console import (
    EXIT_CANCELLED,
    EXIT_FAILED,
    EXIT_INVALID,
    EXIT_OK,
    add_param_option,
    cancel_on_interrupt,
    print_checks,
    print_summary,
)
from runtime.document.backend_names import BACKENDS
from runtime.errors import PipelineValidationError, PipewrightError
from runtime.io.paths import SCHEMAS
from runtime.io.schema_reads import kept_on_disk
from runtime.worker.command_client import DEFAULT_IDLE_MINUTES


class UsageError(PipewrightError):
    """A bad file or value on the command line."""


def run_as_process(argv: list[str] | None = None) -> NoReturn:
    """How `python -m runtime` and the `pipewright` script run a command here (when no command
    server runs it: runtime/worker/command_client.py): `main`, then an exit
    that skips the interpreter's teardown.

    Teardown frees the objects of every loaded module one by one: once pandas is loaded, that
    takes longer than a small pipeline's run (docs/performance.md). Nothing is lost by
    skipping it: commands close their files (outputs, event log) before they return, and the
    streams are flushed here. (Instagram's servers skip it for the same reason.) An exception
    escaping `main` is a bug and takes the ordinary way out, traceback and all.

    The garbage collector is also kept off while modules import (they make hundreds of
    thousands of objects and no garbage); `run` turns it back on for the data work, minus the
    objects of those modules (`_collect_garbage_from_here`).
    """
    gc.disable()
    code = main(argv, fresh_process=True)
    try:
        logging.shutdown()
        sys.stdout.flush()
        sys.stderr.flush()
    finally:
        os._exit(code)  # a flush failing on a closed pipe has nobody left to tell


def main(argv: list[str] | None = None, *, fresh_process: bool = False) -> int:
    """The command line, returning its exit code (tests and `manage.py` call it in-process)."""
    args = _parser().parse_args(argv)
    args.fresh_process = fresh_process
    try:
        with kept_on_disk(_schemas_folder(args)):
            return args.command(args)
    except PipelineValidationError as error:
        for problem in error.problems:
            print(str(problem), file=sys.stderr)
        return EXIT_INVALID
    except PipewrightError as error:
        if args.debug:
            traceback.print_exc()
        print(f"error: {error}", file=sys.stderr)
        return EXIT_INVALID


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m runtime", description=__doc__.splitlines()[0])
    parser.add_argument("--debug", action="store_true", help="show tracebacks of errors")
    commands = parser.add_subparsers(title="commands", required=True, metavar="COMMAND")

    validate = commands.add_parser("validate", help="check a pipeline document")
    validate.add_argument("file", type=Path)
    add_param_option(validate)
    validate.add_argument(
        "--data-root", type=Path, help="folder the files a for_each loops over are found in"
    )
    validate.set_defaults(command=validate_command)

    run = commands.add_parser("run", help="run a pipeline document")
    explain = commands.add_parser("explain", help="print the optimised plan of a document")
    test = commands.add_parser(
        "test", help="run a document's data tests (writing no output) and print their results"
    )
    for sub in (run, explain, test):
        sub.add_argument("file", type=Path)
        add_param_option(sub)
        sub.add_argument("--data-root", type=Path, help="folder that file paths are relative to")
        sub.add_argument(
            "--connections",
            type=Path,
            help="JSON file mapping connection names to URLs or {url, read_only, prefix}",
        )
        sub.add_argument(
            "--backend",
            choices=BACKENDS,
            help="where nodes run (overrides the document's config.backend)",
        )
        sub.add_argument(
            "--no-cache",
            action="store_true",
            help="neither reuse nor store results (the store is DATA_ROOT/.pipewright/cache)",
        )
        sub.add_argument(
            "--fresh", action="store_true", help="ignore stored results (still store new ones)"
        )
        sub.add_argument(
            "--no-tuning",
            action="store_true",
            help="ignore the figures of past runs (docs/performance.md); the run still "
            "records its own",
        )
        sub.add_argument("--up-to", metavar="NODE", help="run only NODE and its ancestors")
        sub.add_argument(
            "--from",
            dest="from_node",
            metavar="NODE",
            help="run NODE and everything below it, reusing stored results above it",
        )
        sub.add_argument(
            "--pin",
            action="append",
            default=[],
            type=_pin_option,
            metavar="NODE=FILE",
            help="NODE does not run: its output is the rows of the Parquet FILE, and the nodes "
            "below it read them (repeatable)",
        )
        sub.add_argument(
            "--dask",
            metavar="ADDRESS",
            help="a Dask scheduler (tcp://host:8786): chains over inputs that name several "
            "files run there, a partition per file",
        )
    run.add_argument(
        "--events",
        help="write every event to this JSON lines file ('-': standard output; the progress "
        "display and the summary then go to standard error)",
    )
    for sub in (run, explain, test):
        sub.add_argument(
            "--positions",
            type=Path,
            help="JSON file of the incremental inputs' positions, updated when the run "
            "succeeds (default: DATA_ROOT/.pipewright/positions/<file name>.json)",
        )
    run.set_defaults(command=run_command)
    explain.set_defaults(command=explain_command)
    test.set_defaults(command=test_command)

    operators = commands.add_parser("operators", help="list the operator catalog")
    operators.add_argument("--json", action="store_true", help="the full catalog as JSON")
    operators.set_defaults(command=operators_command)

    schema = commands.add_parser("schema", help="print the pipeline document's JSON Schema")
    schema.set_defaults(command=schema_command)

    compile_ = commands.add_parser(
        "compile", help="write a standalone Python script that runs the pipeline"
    )
    compile_.add_argument("file", type=Path)
    compile_.add_argument("-o", "--output", type=Path, help="the script to write (default: stdout)")
    compile_.add_argument(
        "--data-root", type=Path, help="folder holding the input files (to read their columns)"
    )
    compile_.add_argument(
        "--connections", type=Path, help="JSON file of connections (to read queries' columns)"
    )
    compile_.add_argument(
        "--backend",
        choices=BACKENDS,
        help="what the script runs on (default: the document's config.backend): DuckDB "
        "segments where the plan puts them, or pandas only",
    )
    compile_.set_defaults(command=compile_command)

    lineage = commands.add_parser("lineage", help="print where each column comes from")
    lineage.add_argument("file", type=Path)
    lineage.add_argument(
        "--column", metavar="NODE_OR_OUTPUT:COLUMN", help="only this column (out.csv:total)"
    )
    lineage.add_argument("--json", action="store_true", help="the lineage as JSON")
    lineage.add_argument("--data-root", type=Path, help="folder that file paths are relative to")
    lineage.add_argument("--connections", type=Path, help="JSON file of connections")
    lineage.add_argument(
        "--upstream", type=Path, action="append", default=[], metavar="OTHER.json",
        help="a pipeline that may write what this one reads (repeatable): --column follows "
        "the column into it",
    )  # fmt: skip
    add_param_option(lineage)
    lineage.set_defaults(command=lineage_command)

    server = commands.add_parser(
        "server", help="keep the engine loaded for the next commands (start, stop, status)"
    )
    server.add_argument("action", choices=("start", "stop", "status"))
    server.add_argument(
        "--idle-minutes", type=float, default=DEFAULT_IDLE_MINUTES,
        help=f"with start: stop after this many minutes without a command "
        f"(default {DEFAULT_IDLE_MINUTES:g})",
    )  # fmt: skip
    server.set_defaults(command=server_command)
    for sub in (validate, run, explain, test, operators, schema, compile_, lineage, server):
        sub.add_argument(
            "--debug", action="store_true", default=argparse.SUPPRESS, help=argparse.SUPPRESS
        )
    return parser


def validate_command(args) -> int:
    """Exit 0 when the document can run, else 2 with one `node.field: message` line each."""
    from runtime.checks.analysis import validate

    problems = validate(_inlined(args).document, dict(args.param))
    for problem in problems:
        print(str(problem), file=sys.stderr)
    if problems:
        return EXIT_INVALID
    print(f"{args.file}: valid")
    return EXIT_OK


def run_command(args) -> int:
    """Run the document, show progress on a terminal, print a summary table."""
    from runtime.execution.events import JsonLinesSink
    from runtime.execution.executor import execute
    from runtime.execution.progress import TerminalProgress

    if args.fresh_process:
        _collect_garbage_from_here()
    plan, data_root, connections = _prepared(args)
    positions_file = _positions_file(args)
    cancel = threading.Event()
    piped = args.events == "-"
    report = sys.stderr if piped else sys.stdout  # standard output carries only the events
    with ExitStack() as stack:
        sinks = [TerminalProgress(report)]
        if args.events:
            sinks.append(stack.enter_context(JsonLinesSink(sys.stdout if piped else args.events)))
        stack.enter_context(cancel_on_interrupt(cancel.set))
        result = execute(
            plan, sinks=sinks, cancel_event=cancel, data_root=data_root, connections=connections,
            budget=_budget(),
        )  # fmt: skip
    print_summary(plan, result, debug=args.debug, out=report)
    _keep_positions(positions_file, result)
    if result.status == "cancelled":
        return EXIT_CANCELLED
    return EXIT_OK if result.ok else EXIT_FAILED


def test_command(args) -> int:
    """Run the nodes the data tests read (output nodes left out: nothing is written), print a
    table of every check's result; exit 1 when a check or a node failed."""
    from runtime.budget import Budget
    from runtime.execution.executor import execute

    plan, data_root, connections = _prepared(args, write=False)
    cancel = threading.Event()
    with cancel_on_interrupt(cancel.set):
        result = execute(
            plan, cancel_event=cancel, data_root=data_root, connections=connections,
            budget=Budget.from_environment(default_runs=1),
        )  # fmt: skip
    if result.status == "cancelled":
        return EXIT_CANCELLED
    return EXIT_OK if print_checks(result) else EXIT_FAILED


def explain_command(args) -> int:
    """Print what the run would do: segments and their backends, what the passes changed."""
    from runtime.plan.explain import explain
    from runtime.plan.inline import describe

    plan, _, _ = _prepared(args)
    print("\n".join([explain(plan), *describe(_inlined(args))]))
    return EXIT_OK


def lineage_command(args) -> int:
    """Print each column's lineage (a tree, or JSON), and with `--column` where it goes on in
    the `--upstream` pipelines; 2 when a column is unknown or a node's lineage cannot be
    worked out."""
    from runtime.checks.lineage import column_lineage
    from runtime.checks.lineage_across import LinkedPipeline, upstream_hops
    from runtime.checks.lineage_text import lineage_text, upstream_text

    def lineage_of(pipeline: LinkedPipeline):
        parameters = dict(args.param) if pipeline.key == str(args.file) else {}
        return column_lineage(
            pipeline.document, parameters, data_root=_data_root(args), connections=connections
        )

    connections = _connections(args.connections)
    traced = LinkedPipeline(str(args.file), _inlined(args).document.name, _inlined(args).document)
    found = lineage_of(traced)
    try:
        selected = found.find(args.column) if args.column else None
    except LookupError as error:
        raise UsageError(f"--column: {error.args[0]}") from error
    across = None
    if selected is not None and args.upstream:
        upstreams = [
            LinkedPipeline(str(file), document.name, document)
            for file in args.upstream
            for document in [_inline_file(args, file, {}).document]
        ]
        across = upstream_hops(traced, found.path(selected), upstreams, lineage_of)
    if args.json:
        data = found.to_json()
        if selected is not None:
            data["selected"] = found.path(selected).to_json()
            data["upstream"] = across.to_json() if across else {"hops": [], "stops": []}
        print(json.dumps(data, indent=2))
    else:
        print(lineage_text(found, selected), end="")
        if across and (further := upstream_text(across)):
            print("\n" + further, end="")
    return EXIT_INVALID if found.problems else EXIT_OK


def _prepared(args, *, write: bool = True):
    """The optimised plan of `args.file`, its file area (with the result store unless
    `--no-cache`) and its connections; without `write`, output nodes are left out."""
    from runtime.backends.duckdb_reads import check_reads
    from runtime.io.paths import CACHE, FileArea
    from runtime.io.position_files import read_positions
    from runtime.plan import build_plan
    from runtime.plan.prepare import prepare
    from runtime.plan.run_options import RunOptions

    # Absolute: the paths of the run travel to the Dask workers, whose folder is not ours.
    data_root = _data_root(args).absolute()
    plan = build_plan(_inlined(args).document, dict(args.param), data_root=data_root)
    if not data_root.is_dir():
        raise UsageError(f"data root '{data_root}' is not a folder")
    connections = _connections(args.connections)
    area = FileArea(data_root, cache=None if args.no_cache else data_root / CACHE)
    outputs = tuple(
        node_id for node_id in plan.order if plan.nodes[node_id].operator.kind == "output"
    )
    options = RunOptions(
        fresh=args.fresh, up_to=args.up_to, from_node=args.from_node, tuning=not args.no_tuning,
        pins=dict(args.pin), left_out=() if write else outputs,
    )  # fmt: skip
    plan = prepare(
        plan, backend=args.backend, data_root=area, connections=connections, cluster=args.dask,
        options=options, positions=read_positions(_positions_file(args)), probe=check_reads,
        budget=_budget(),
    )  # fmt: skip
    return plan, area, connections


def _pin_option(text: str) -> tuple[str, str]:
    """`NODE=FILE` as (node, the file's absolute path)."""
    node, sep, file = text.partition("=")
    if not sep or not node or not file:
        raise argparse.ArgumentTypeError(f"'{text}' is not NODE=FILE")
    return node, str(Path(file).absolute())


def _budget():
    """The budget of the one run of this process."""
    from runtime.budget import Budget

    return Budget.from_environment(default_runs=1)


def _positions_file(args) -> Path:
    from runtime.io.position_files import default_positions_file

    return args.positions or default_positions_file(_data_root(args), args.file)


def _schemas_folder(args) -> Path | None:
    """Where a command that reads the data root's files keeps their schemas for the next one
    (each command is a fresh process); `--fresh` reads every file again."""
    if not hasattr(args, "data_root") or getattr(args, "fresh", False):
        return None
    return _data_root(args).absolute() / SCHEMAS


def _data_root(args) -> Path:
    """`--data-root`, else PIPEWRIGHT_DATA_ROOT, else the current folder."""
    return args.data_root or Path(os.environ.get("PIPEWRIGHT_DATA_ROOT") or ".")


def _keep_positions(path: Path, result) -> None:
    """After a run that succeeded as a whole: its incremental inputs' new positions."""
    from runtime.io.incremental import reached_positions
    from runtime.io.position_files import read_positions, write_positions

    reached = reached_positions({node_id: node.extra for node_id, node in result.nodes.items()})
    if result.ok and reached:
        write_positions(path, {**read_positions(path), **reached})


def _collect_garbage_from_here() -> None:
    """Turn the collector back on, leaving out what exists now: the modules' objects, which
    live as long as the process and would otherwise be scanned at every full collection."""
    gc.freeze()
    gc.enable()


def operators_command(args) -> int:
    """The operator catalog: a table, or everything (params JSON Schema included) as JSON."""
    from runtime.operators.registry import default_registry

    catalog = default_registry().catalog()
    if args.json:
        print(json.dumps(catalog, indent=2, sort_keys=True, ensure_ascii=False))
        return EXIT_OK
    for entry in catalog:
        inputs = ",".join(port["name"] + ("*" if port["many"] else "") for port in entry["inputs"])
        outputs = ",".join(port["name"] for port in entry["outputs"])
        if entry["outputs_from"]:  # route: one port per condition, then otherwise
            each = entry["outputs_from"]
            outputs = ",".join([f"{each['param']}[].{each['key']}", *each["after"]])
        ports = f"{inputs or '-':>12} → {outputs or '-':<14}"
        print(f"{entry['name']:<16} {entry['kind']:<8} {ports} {entry['title']}")
    return EXIT_OK


def server_command(args) -> int:
    """Start, stop or describe the command server (runtime/worker/command_server.py)."""
    from runtime.worker import command_server

    if args.action == "start":
        try:
            state = command_server.start(args.idle_minutes)
        except command_server.ServerError as error:
            raise UsageError(str(error)) from None
        again = "already running" if state.get("already") else "started"
        print(f"command server {again} (pid {state['pid']}, {state['socket']}); it stops after "
              f"{state['idle_minutes']:g} minutes without a command")  # fmt: skip
        return EXIT_OK
    state = command_server.stop() if args.action == "stop" else command_server.status()
    if state is None:
        print("no command server is running")
        return EXIT_FAILED if args.action == "status" else EXIT_OK
    if args.action == "stop":
        print(f"command server (pid {state['pid']}) stopping; {state['running']} command(s) "
              "under way finish first")  # fmt: skip
    else:
        print(f"command server running (pid {state['pid']}, {state['socket']}): "
              f"{state['commands']} command(s) run, {state['running']} under way; it stops "
              f"after {state['idle_minutes']:g} minutes without a command")  # fmt: skip
    return EXIT_OK


def schema_command(args) -> int:
    """Print the pipeline document's JSON Schema."""
    from runtime.document.spec import json_schema

    print(json.dumps(json_schema(), indent=2, sort_keys=True, ensure_ascii=False))
    return EXIT_OK


def compile_command(args) -> int:
    """Write the script (to `-o` or stdout); exit 2 when the pipeline cannot be compiled."""
    from runtime.compile import compile_script

    data_root = _data_root(args)
    if not data_root.is_dir():
        raise UsageError(f"data root '{data_root}' is not a folder")
    script = compile_script(
        _inlined(args).document,
        data_root=data_root,
        backend=args.backend,
        connections=_connections(args.connections),
    )
    if args.output is None:
        sys.stdout.write(script)
        return EXIT_OK
    try:
        args.output.write_text(script, encoding="utf-8")
    except OSError as error:
        raise UsageError(f"cannot write '{args.output}': {error.strerror}") from error
    print(f"wrote {args.output}", file=sys.stderr)
    return EXIT_OK


def _load(path: Path):
    from runtime.checks.analysis import load_checked

    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise UsageError(f"cannot read '{path}': {error.strerror}") from error
    try:
        return load_checked(text)
    except PipelineValidationError as error:
        raise PipelineValidationError(
            [replace(problem, field=problem.field or str(path)) for problem in error.problems]
        ) from error


def _inlined(args):
    """`args.file` with its sub-pipelines inlined, their files read next to it, and its loops
    over files of the data root unrolled."""
    if getattr(args, "inlined", None) is None:  # explain asks twice: the plan, then its views
        args.inlined = _inline_file(args, args.file, dict(getattr(args, "param", ())))
    return args.inlined


def _inline_file(args, file: Path, parameters: dict):
    """`file` (a document) with its sub-pipelines inlined, as `_inlined` says."""
    from runtime.plan.inline import inline
    from runtime.plan.inline_files import file_key, files_in, resolve_file

    return inline(
        _load(file), resolve_file, key=file_key(file), title=file.name, parameters=parameters,
        files=files_in(_data_root(args)),
    )  # fmt: skip


def _connections(path: Path | None) -> dict:
    """The `--connections` file: each name maps to a URL (writable, the file being the
    operator's own) or to `{"url": ..., "read_only": true|false, "prefix": ...}`."""
    if path is None:
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise UsageError(f"cannot read connections file '{path}': {error.strerror}") from error
    except json.JSONDecodeError as error:
        raise UsageError(f"connections file '{path}' is not valid JSON: {error}") from error
    if not isinstance(data, dict):
        raise UsageError(f"connections file '{path}' must map names to database URLs")
    return {name: _connection(path, name, value) for name, value in data.items()}


def _connection(path: Path, name: str, value):
    from runtime.io.sql.connection_specs import ConnectionSpec

    if isinstance(value, str):
        return value
    fields = {"url": str, "read_only": bool, "prefix": str | None}
    if (
        not isinstance(value, dict)
        or not isinstance(value.get("url"), str)
        or set(value) - set(fields)
        or not all(isinstance(value[key], kind) for key, kind in fields.items() if key in value)
    ):
        raise UsageError(
            f"connections file '{path}': '{name}' must be a database URL or "
            '{"url": "...", "read_only": true|false, "prefix": "schema." or "table_prefix"}'
        )
    return ConnectionSpec(**value)
