"""From a pipeline document to the text of a standalone Python script that runs it.

The document is validated and planned as for a run (with its parameters' defaults), dead
nodes are left out as a run leaves them out, schemas are inferred from the files under the
data root, and each remaining node, parents first, is written by its operator's emitter. The
script then holds: its options (the parameters, `--data-root`), one block of statements per
node, and the helpers those call, copied from the runtime (`carry.py`) and from `support.py`.

Belongs here: the order of the parts and the names of variables. Does not belong here: how an
operator becomes code (`operators/`), or an expression (`expressions.py`).
"""

from __future__ import annotations

import keyword
import re
from pathlib import Path
from typing import Any

from runtime.compile import support
from runtime.compile.carry import EXCEPTIONS, carried
from runtime.compile.errors import CompileRefused
from runtime.compile.literals import literal
from runtime.compile.nodes import NodeCode
from runtime.compile.operators import emitter_for
from runtime.errors import PipelineValidationError
from runtime.inference import infer_schemas
from runtime.operators import BUILTIN_OPERATORS
from runtime.paths import FileArea
from runtime.plan import build_plan
from runtime.plan.passes.dead_nodes import eliminate_dead_nodes
from runtime.registry import Registry, default_registry
from runtime.spec import Pipeline

BACKENDS = ("pandas", "auto")
"""What a script may run on. `auto` gives pandas too: pandas is the reference semantics, and
a script that reads files as the run does needs nothing more to give the same outputs."""

_RESERVED = {
    "main", "options", "params", "root", "view", "keep", "table", "schema", "batches",
    "parquet", "temporary", "appending", "size", "positions", "argv", "pd", "np", "pa", "pq",
    "pa_csv", "pc", "json", "os", "re", "datetime", "argparse", "Path", "shutil", "uuid",
}  # fmt: skip
_BASE_IMPORTS = {
    "import argparse",
    "import numpy as np",
    "import pandas as pd",
    "from pathlib import Path",
}


def compile_script(
    pipeline: Pipeline,
    *,
    data_root: FileArea | str | Path = ".",
    registry: Registry | None = None,
    backend: str = "pandas",
    connections: dict | None = None,
) -> str:
    """The text of a script giving the same outputs as a run of `pipeline` (CompileRefused
    when some node cannot be written so that it runs exactly alike). `data_root` and
    `connections` are where the inputs' columns are read while compiling."""
    if backend not in BACKENDS:
        raise CompileRefused(f"backend must be one of {', '.join(BACKENDS)}, not '{backend}'")
    registry = registry or default_registry()
    _refuse_uncompiled(pipeline, registry)
    area = FileArea.of(data_root)
    plan = eliminate_dead_nodes(build_plan(pipeline, registry=registry, data_root=area))
    inferred = infer_schemas(
        pipeline, registry=registry, data_root=area, connections=connections or {}
    )
    if inferred.problems:
        raise PipelineValidationError(inferred.problems)
    defaults = dict(pipeline.config.parameters)
    raw = {node.id: node.params for node in pipeline.nodes}
    names = _variable_names([node_id for node_id in plan.order if node_id in plan.nodes])
    blocks, helpers, imports = [], set(), set(_BASE_IMPORTS)
    for node_id in plan.order:
        planned = plan.nodes.get(node_id)
        if planned is None:
            continue
        node = _node_code(planned, raw[node_id], defaults, names, inferred.nodes[node_id], area)
        emitter = emitter_for(planned.operator.name)
        try:
            emitter(node)
            node.finish()
        except CompileRefused as error:
            raise error.at(node_id) from error
        block = _block(node, planned.operator.name, planned.label)
        if not pipeline.config.stop_on_error:
            block = _guarded(block, node_id, plan.predecessors[node_id])
        blocks.append(block)
        helpers |= node.helpers
        imports |= node.imports
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


def _variable_names(node_ids: list[str]) -> dict[str, str]:
    """A Python name for each node's frame, from its id (`read sales` → `read_sales`)."""
    names: dict[str, str] = {}
    taken = set(_RESERVED)
    for node_id in node_ids:
        base = re.sub(r"\W+", "_", node_id.lower(), flags=re.ASCII).strip("_") or "node"
        if base[0].isdigit() or keyword.iskeyword(base) or base.startswith("_"):
            base = f"node_{base}"
        name, number = base, 2
        while name in taken:
            name, number = f"{base}_{number}", number + 1
        taken.add(name)
        names[node_id] = name
    return names


def _node_code(planned, raw, defaults, names, schemas, area) -> NodeCode:
    operator = planned.operator
    inputs: dict[str, Any] = {}
    for port in operator.inputs:
        sources = planned.inputs.get(port.name, [])
        frames = [_port_variable(names, source, port_name) for source, port_name in sources]
        inputs[port.name] = frames if port.many else (frames[0] if frames else None)
    outputs = {
        port.name: names[planned.id] if len(operator.outputs) == 1 else
        f"{names[planned.id]}_{port.name}"
        for port in operator.outputs
    }  # fmt: skip
    return NodeCode(
        id=planned.id,
        operator=operator.name,
        params=planned.params,
        raw=raw,
        parameters=defaults,
        inputs=inputs,
        schemas=schemas.inputs,
        outputs=outputs,
        data_root=Path(area.root),
    )


def _port_variable(names: dict[str, str], node_id: str, port: str) -> str:
    return names[node_id] if port == "out" else f"{names[node_id]}_{port}"


def _block(node: NodeCode, operator: str, label: str) -> list[str]:
    title = f"# {node.id!r} ({operator})"
    if label and label != node.id:
        title += f": {label!r}"
    return [title, *node.lines]


def _guarded(block: list[str], node_id: str, parents: set[str]) -> list[str]:
    """`block` as a run without stop on error runs a node: skipped when a parent failed, its
    own failure reported and recorded, the other branches going on."""
    title, *lines = block
    return [
        title,
        f"if failed.isdisjoint({sorted(parents)!r}):",
        "    try:",
        *(f"        {line}" if line else "" for line in lines),
        "    except Exception as error:",
        f"        failed.add({node_id!r})",
        f"        print({f'node {node_id!r} failed:'!r}, error, file=sys.stderr)",
        "else:",
        f"    failed.add({node_id!r})  # skipped: a node it reads from failed",
    ]


def _script(pipeline, defaults, blocks, helpers, imports) -> str:
    found = carried([*helpers, support.data_path, support.staged, support.PipelineError])
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
        '    np.seterr(all="ignore")  # nulls are handled explicitly, as in a run',
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


def _exception_classes() -> list[str]:
    lines = []
    for name in EXCEPTIONS:
        lines += [f"class {name}(PipelineError):", "    pass", "", ""]
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
