"""Pipewright's engine: pipeline documents, validation, operators, executor and events.

Pure Python and pandas; it never imports Django or the editor, so it runs headless
(`python -m runtime run pipeline.json`) and is tested without a web server.

The folders read top-down as a run goes: a `document/` is checked (`checks/`), planned
(`plan/`, with `plan/reuse/`), executed (`execution/`, `backends/`, `cache/`) and its results
read (`results/`); `tables/`, `expressions/`, `io/` and `operators/` are the vocabulary
underneath; `compile/` turns a plan into a script and `worker/` is the process side of runs.

This module is the public surface: what the editor, plugins and docs import
(`from runtime import Operator, load_document, execute`). Names load on first use, so that
importing one engine module never imports the whole engine. Paths that moved keep working for
one release (`runtime.moved`).
"""

from __future__ import annotations

import importlib

from runtime.moved import install_old_paths

PUBLIC: dict[str, str] = {
    # documents
    "load_document": "runtime.document.spec",
    "dump_document": "runtime.document.spec",
    "Pipeline": "runtime.document.spec",
    # checks and plans
    "analyse": "runtime.checks.analysis",
    "validate": "runtime.checks.analysis",
    "infer_schemas": "runtime.checks.inference",
    "build_plan": "runtime.plan.build",
    "prepare": "runtime.plan.prepare",
    "RunOptions": "runtime.plan.run_options",
    # running
    "execute": "runtime.execution.executor",
    "NodeStatus": "runtime.execution.statuses",
    "RunStatus": "runtime.execution.statuses",
    "EVENT_TYPES": "runtime.execution.events",
    "Event": "runtime.execution.events",
    "EventSink": "runtime.execution.events",
    "ListSink": "runtime.execution.events",
    "JsonLinesSink": "runtime.execution.events",
    # operators
    "Operator": "runtime.operators.contract",
    "OperatorParams": "runtime.operators.contract",
    "Port": "runtime.operators.contract",
    "NodeContext": "runtime.operators.context",
    "Registry": "runtime.operators.registry",
    "default_registry": "runtime.operators.registry",
    "Expression": "runtime.document.fields",
    "DataPath": "runtime.document.fields",
    "VerbatimText": "runtime.document.fields",
    "Column": "runtime.tables.schema",
    "Schema": "runtime.tables.schema",
    # problems and errors
    "Problem": "runtime.errors",
    "PipewrightError": "runtime.errors",
    "PipelineValidationError": "runtime.errors",
    "OperatorError": "runtime.errors",
    "ParamsError": "runtime.errors",
    "UnsafePathError": "runtime.errors",
    "NodeExecutionError": "runtime.errors",
}
"""Public name → the module defining it."""

__all__ = sorted(PUBLIC)

install_old_paths()


def __getattr__(name: str):
    module = PUBLIC.get(name)
    if module is None:
        raise AttributeError(f"module 'runtime' has no attribute '{name}'")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *PUBLIC})
