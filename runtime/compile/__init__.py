"""Compile a pipeline to a standalone Python script (`python -m runtime compile`).

The script runs the pipeline with pandas (and pyarrow for files) and nothing of Pipewright:
same outputs as a run, parameters as command-line options, paths relative to `--data-root`.
What cannot be written so that it runs exactly alike (a plugin operator, an incremental
input, ...) is refused with `CompileRefused`, naming the node. docs/compile.md says more.
"""

from runtime.compile.errors import CompileRefused
from runtime.compile.script import BACKENDS, compile_script

__all__ = ["BACKENDS", "CompileRefused", "compile_script"]
