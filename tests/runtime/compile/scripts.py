"""Compiling a document and running the script as its own process, for the compile tests."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from runtime.compile import compile_script
from runtime.spec import load_document


def compiled(
    document: dict, data_root: Path, folder: Path, connections=None, backend: str = "pandas"
) -> Path:
    """The script of `document` (files read under `data_root`) for `backend`, written in
    `folder`."""
    script = folder / "script.py"
    pipeline = load_document(document)
    text = compile_script(pipeline, data_root=data_root, connections=connections, backend=backend)
    script.write_text(text)
    return script


def run_script(
    script: Path, *args: str, cwd: Path, env: dict | None = None
) -> subprocess.CompletedProcess:
    """Run the script with this interpreter and no Pipewright on its path."""
    return subprocess.run(
        [sys.executable, "-I", str(script), *args],
        capture_output=True, text=True, cwd=cwd, env={**os.environ, **(env or {})},
    )  # fmt: skip
