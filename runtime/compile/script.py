"""From a pipeline document to the text of a standalone Python script that runs it.

The document is validated and planned as for a run (with its parameters' defaults), dead
nodes are left out as a run leaves them out, schemas are inferred from the files under the
data root, and the segments the plan puts on DuckDB are rendered (`lowering.py`). Each
remaining node, parents first, is written by its operator's emitter, each DuckDB segment as
its statements (`segment_code.py`). The script then holds: its options (the parameters,
`--data-root`), one block of statements per node or segment, and the helpers those call,
copied from the runtime (`carry.py`) and from `support.py`.

Belongs here: the order of the parts and the names of variables. Does not belong here: how an
operator becomes code (`operators/`), or an expression (`expressions.py`).
"""

from __future__ import annotations

import keyword
import re
from pathlib import Path
from typing import Any

from runtime.checks.inference import infer_schemas
from runtime.compile import support
from runtime.compile.carry import EXCEPTIONS, carried
from runtime.compile.errors import CompileRefused
from runtime.compile.literals import literal
from runtime.compile.lowering import Lowered, lowered_segments, shown
from runtime.compile.nodes import NodeCode
from runtime.compile.operators import emitter_for
from runtime.compile.segment_code import LOCALS, SegmentCode
from runtime.compile.segments import SegmentSql
from runtime.document.spec import Pipeline
from runtime.errors import PipelineValidationError
from runtime.io.paths import FileArea
from runtime.operators import BUILTIN_OPERATORS
from runtime.operators.registry import Registry, default_registry
from runtime.plan import build_plan
from runtime.plan.passes.dead_nodes import eliminate_dead_nodes
from runtime.plan.passes.projection import Columns, needed_columns

BACKENDS = ("auto", "duckdb", "pandas")
"""What a script may run on, as a run: `auto` puts segments on DuckDB when the inputs are large
enough, `duckdb` wherever a node lowers, `pandas` nowhere (pandas only, the reference)."""

_RESERVED = {
    "main", "options", "params", "root", "view", "keep", "values", "table", "schema",
    "batches", "parquet", "temporary", "appending", "size", "positions", "failed", "invalid",
    "rows", "text", "hit", "connection", "error", "argv", "datetime", "sys", "boolean_option",
    "json_option", "read_one", "context", "files", *LOCALS, *EXCEPTIONS,
}  # fmt: skip
"""Names the script's own statements use (temporaries, `main`, the options)."""
_SUPPORT = (support.data_path, support.staged, support.PipelineError)
"""What every script holds."""
_BASE_IMPORTS = {"import argparse", "from pathlib import Path"}
_LIBRARIES = {"pd": "import pandas as pd", "np": "import numpy as np"}
"""Imports the emitters' code takes for granted: the script has them when its code uses them."""


def compile_script(
    pipeline: Pipeline,
    *,
    data_root: FileArea | str | Path = ".",
    registry: Registry | None = None,
    backend: str | None = None,
    connections: dict | None = None,
) -> str:
    """The text of a script giving the same outputs as a run of `pipeline` on `backend` (by
    default the document's `config.backend`); CompileRefused when some node cannot be
    written so that it runs exactly alike. `data_root` and `connections` are where the
    inputs' columns are read while compiling."""
    backend = backend or pipeline.config.backend
    if backend not in BACKENDS:
        raise CompileRefused(f"backend: expected one of {', '.join(BACKENDS)}, not {backend!r}")
    registry = registry or default_registry()
    _refuse_uncompiled(pipeline, registry)
    area = FileArea.of(data_root)
    plan = eliminate_dead_nodes(build_plan(pipeline, registry=registry, data_root=area))
    inferred = infer_schemas(
        pipeline, registry=registry, data_root=area, connections=connections or {}
    )
    if inferred.problems:
        raise PipelineValidationError(inferred.problems)
    lowered = lowered_segments(
        pipeline, plan, backend, area=area, registry=registry, connections=connections,
        inferred=inferred,
    )  # fmt: skip
    live = [plan.nodes[node_id] for node_id in plan.order if node_id in plan.nodes]
    taken: set[str] = set()
    while True:  # again if a frame's name turned out to be a helper's or an import's
        names = _variable_names(live, _RESERVED | taken)
        blocks, helpers, imports = _blocks(pipeline, plan, lowered, names, inferred)
        used = _script_names(helpers, imports)
        if not used & {name for outputs in names.values() for name in outputs.values()}:
            break
        taken |= used
    defaults = dict(pipeline.config.parameters)
    script = _script(pipeline, defaults, blocks, helpers, imports)
    try:
        compile(script, "<script>", "exec")  # never hand out a script Python cannot read
    except (SyntaxError, RecursionError, MemoryError) as error:
        raise CompileRefused(f"the script would not be valid Python ({error})") from error
    return script


def _refuse_uncompiled(pipeline: Pipeline, registry: Registry) -> None:
    """Refuse, before reading any file, a node whose operator has no compiled form."""
    for node in pipeline.nodes:
        if node.operator not in BUILTIN_OPERATORS and node.operator in registry:
            raise CompileRefused(
                f"operator '{node.operator}' comes from a plugin; a script can only hold "
                "built-in operators",
                node.id,
            )
        if node.operator in BUILTIN_OPERATORS and emitter_for(node.operator) is None:
            raise CompileRefused(f"operator '{node.operator}' has no compiled form yet", node.id)
        if isinstance(node.params, dict) and node.params.get("incremental"):
            raise CompileRefused(
                "an incremental input keeps its position between runs, which a script does not; "
                "remove 'incremental' to compile it",
                node.id,
            )


def _blocks(pipeline, plan, lowered: Lowered, names, inferred) -> tuple[list, set, set]:
    """Each unit's block of statements (a node's, or a DuckDB segment's), the helpers they
    call and their imports."""
    defaults = dict(pipeline.config.parameters)
    raw = {node.id: node.params for node in pipeline.nodes}
    needed = _needed(plan, lowered.segments)

    def node_code(node_id: str) -> NodeCode:
        planned, schemas = plan.nodes[node_id], inferred.nodes[node_id]
        return _node_code(planned, raw[node_id], defaults, names, schemas, needed[node_id])

    blocks, helpers, imports = [], set(), set(_BASE_IMPORTS)
    for unit in _units(plan, lowered.segments):
        if isinstance(unit, SegmentSql):
            code, members = _segment_block(unit, lowered, node_code, names), unit.segment.nodes
            block = code.lines
        else:
            planned, members = plan.nodes[unit], (unit,)
            code = node_code(unit)
            try:
                emitter_for(planned.operator.name)(code)
                code.finish()
            except CompileRefused as error:
                raise error.at(planned.id) from error
            block = _block(code, planned.operator.name, planned.label)
        parents = {parent for member in members for parent in plan.predecessors[member]}
        if not pipeline.config.stop_on_error:
            block = _guarded(block, members, parents - set(members))
        blocks.append(block)
        helpers |= code.helpers
        imports |= code.imports
    for name, line in _LIBRARIES.items():
        if any(re.search(rf"\b{name}\.", text) for block in blocks for text in block):
            imports.add(line)
    return blocks, helpers, imports


def _needed(plan, segments: list[SegmentSql]) -> dict[str, Columns]:
    """The columns of each node's output that anything downstream reads, as a run prunes
    them: inputs read only those, a transform computes only those. A frame a DuckDB segment
    reads stays whole, as its SQL was rendered for all its columns, and so does a frame the
    script shows (a pipeline without outputs)."""
    entering = {
        parent
        for found in segments
        for member in found.segment.nodes
        for parent in plan.predecessors[member]
        if parent not in found.segment.nodes
    }
    return needed_columns(plan, keep_all=shown(plan) | entering)


def _units(plan, segments: list[SegmentSql]) -> list:
    """The nodes on pandas (by id) and the DuckDB segments, each after all it reads from."""
    unit_of: dict[str, object] = {node_id: node_id for node_id in plan.order}
    for found in segments:
        unit_of.update(dict.fromkeys(found.segment.nodes, found))
    members = {id(found): set(found.segment.nodes) for found in segments}
    pending = list({id(unit): unit for unit in unit_of.values()}.values())
    done: set[str] = set()
    ordered = []
    while pending:
        for unit in pending:
            inside = members.get(id(unit)) or {unit}
            parents = {parent for node in inside for parent in plan.predecessors[node]}
            if parents - inside <= done:
                break
        else:
            raise AssertionError("fusion made a segment wait for itself")
        pending.remove(unit)
        done |= inside
        ordered.append(unit)
    return ordered


def _segment_block(found: SegmentSql, lowered: Lowered, node_code, names) -> SegmentCode:
    segment = found.segment
    slots = {
        (index, position): code
        for (segment_id, index, position), code in lowered.slots.items()
        if segment_id == segment.id
    }
    frames = {(node, port): name for node, ports in names.items() for port, name in ports.items()}
    code = SegmentCode(found, slots, node_code, frames).write()
    title = f"# {segment.id} on DuckDB ({segment.reason}): " + ", ".join(
        repr(node) for node in segment.nodes
    )
    code.lines = [title, *code.lines]
    return code


def _script_names(helpers: set, imports: set[str]) -> set[str]:
    """The names the script defines besides the frames: carried helpers and imports."""
    names = carried([*helpers, *_SUPPORT]).names()
    for line in imports:
        names.add(line.split(" as ")[-1].split()[-1].split(".")[0])
    return names


def _variable_names(nodes: list, taken: set[str]) -> dict[str, dict[str, str]]:
    """A Python name for each output port's frame, from the node's id (`read sales` →
    `read_sales`; `check_valid` and `check_invalid` for a node of two outputs)."""
    names: dict[str, dict[str, str]] = {}
    taken = set(taken)
    for planned in nodes:
        ports = [port.name for port in planned.ports.outputs]
        base = re.sub(r"\W+", "_", planned.id.lower(), flags=re.ASCII).strip("_") or "node"
        if base[0].isdigit() or keyword.iskeyword(base) or base.startswith("_"):
            base = f"node_{base}"
        number, stem = 2, base
        while True:
            wanted = {p: stem if len(ports) == 1 else f"{stem}_{p}" for p in ports}
            if not (set(wanted.values()) | {stem}) & taken:
                break
            stem, number = f"{base}_{number}", number + 1
        taken |= {stem, *wanted.values()}
        names[planned.id] = wanted
    return names


def _node_code(planned, raw, defaults, names, schemas, columns: Columns) -> NodeCode:
    operator = planned.operator
    inputs: dict[str, Any] = {}
    for port in planned.ports.inputs:
        sources = planned.inputs.get(port.name, [])
        frames = [names[source][port_name] for source, port_name in sources]
        inputs[port.name] = frames if port.many else (frames[0] if frames else None)
    return NodeCode(
        id=planned.id,
        operator=operator.name,
        params=planned.params,
        raw=raw,
        parameters=defaults,
        inputs=inputs,
        schemas=schemas.inputs,
        outputs=names[planned.id],
        columns=columns,
    )


def _block(node: NodeCode, operator: str, label: str) -> list[str]:
    title = f"# {node.id!r} ({operator})"
    if label and label != node.id:
        title += f": {label!r}"
    return [title, *node.lines]


def _guarded(block: list[str], members: tuple[str, ...], parents: set[str]) -> list[str]:
    """`block` as a run without stop on error runs a node (or a segment, all its nodes):
    skipped when a parent failed, its own failure reported and recorded, the other branches
    going on."""
    title, *lines = block
    name = members[0] if len(members) == 1 else ", ".join(members)
    return [
        title,
        f"if failed.isdisjoint({sorted(parents)!r}):",
        "    try:",
        *(f"        {line}" if line else "" for line in lines),
        "    except Exception as error:",
        f"        failed.update({list(members)!r})",
        f"        print({f'node {name!r} failed:'!r}, error, file=sys.stderr)",
        "else:",
        f"    failed.update({list(members)!r})  # skipped: a node it reads from failed",
    ]


def _script(pipeline, defaults, blocks, helpers, imports) -> str:
    found = carried([*helpers, *_SUPPORT])
    imports |= found.imports
    kinds = {_option_kind(value) for value in defaults.values()}
    options = carried([getattr(support, kind) for kind in kinds if kind.endswith("_option")])
    imports |= options.imports
    description = f"Run the pipeline {pipeline.name!r}."
    body = [line for block in blocks for line in (*block, "")]
    if not pipeline.config.stop_on_error:  # each node's failure is recorded, the run goes on
        imports.add("import sys")
        body = ["failed: set[str] = set()", "", *body, "if failed:", "    raise SystemExit(1)"]
    if any("datetime." in line for line in body):
        imports.add("import datetime")
    numpy = ['    np.seterr(all="ignore")  # nulls are handled explicitly, as in a run']
    out: list[str] = [
        "#!/usr/bin/env python3",
        f"# Pipeline {pipeline.name!r}, compiled by Pipewright (`python -m runtime compile`).",
        "# Run it from the data root, or pass --data-root DIR: it reads and writes the same",
        "# relative paths as a run, with the pipeline's parameters as options (see --help).",
        "from __future__ import annotations",
        "",
        *_sorted_imports(imports),
        "",
        "",
        "def main(argv: list[str] | None = None) -> None:",
        "    params = vars(options(argv))",
        '    root = Path(params.pop("data_root"))',
        *(numpy if _LIBRARIES["np"] in imports else []),
        "",
        *("    " + line if line else "" for line in body),
        "",
        "def options(argv: list[str] | None) -> argparse.Namespace:",
        f"    parser = argparse.ArgumentParser(description={description!r})",
        "    parser.add_argument(",
        '        "--data-root", default=".", help="the folder that paths are relative to"',
        "    )",
        *_parameter_options(defaults),
        "    return parser.parse_args(argv)",
        "",
        "",
        "# Helpers: the script's own, and copies of the runtime's (Pipewright's `runtime/`).",
        "",
        *_definitions(found, options),
        "",
        'if __name__ == "__main__":',
        "    main()",
        "",
    ]
    return "\n".join(out)


def _parameter_options(defaults: dict[str, Any]) -> list[str]:
    lines = []
    for name, value in defaults.items():
        if name in ("help", "data_root"):
            raise CompileRefused(f"a parameter named '{name}' would clash with the script's option")
        lines.append(
            f"    parser.add_argument({'--' + name!r}, dest={name!r}, type={_option_kind(value)}, "
            f"default={literal(value)}, help={f'pipeline parameter (default: {value!r})'!r})"
        )
    return lines


def _option_kind(value: Any) -> str:
    """How the script reads a parameter's option: as the type of its default."""
    return {bool: "boolean_option", int: "int", float: "float", str: "str"}.get(
        type(value), "json_option"
    )


_EXCEPTION_BODIES = {
    "ParamsError": [
        "    def __init__(self, field, message, position=None):",
        '        super().__init__(f"{field}: {message}")  # worded as the runtime words it',
    ],
}
"""Exception classes taking the runtime's arguments (the others take a message)."""


def _exception_classes() -> list[str]:
    lines = []
    for name in EXCEPTIONS:
        body = _EXCEPTION_BODIES.get(name, ["    pass"])
        lines += [f"class {name}(PipelineError):", *body, "", ""]
    return lines


def _definitions(*carries) -> list[str]:
    seen: dict[str, str] = {}
    for found in carries:
        for (_, name), source in found.definitions.items():
            seen.setdefault(name, source)
    classes = [s for n, s in seen.items() if n == "PipelineError"]
    others = [s for n, s in seen.items() if n != "PipelineError"]
    lines = []
    for source in classes:
        lines += [source, "", ""]
    lines += _exception_classes()
    for source in dict.fromkeys(others):  # one statement may define several names
        lines += [source, "", ""]
    return lines


def _sorted_imports(imports: set[str]) -> list[str]:
    plain = sorted(line for line in imports if line.startswith("import "))
    froms = sorted(line for line in imports if line.startswith("from "))
    return [*plain, *froms]
