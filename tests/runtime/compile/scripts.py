"""Compiling a document and running the script as its own process, for the compile tests; and
the small people table several of them read."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from runtime.compile import compile_script
from runtime.document.spec import load_document


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


BLOCKED = """
import runpy, sys
class Blocker:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("runtime", "editor", "tests"):
            raise ImportError(f"the script imported {name}")
sys.meta_path.insert(0, Blocker())
sys.argv = sys.argv[1:]
runpy.run_path(sys.argv[0], run_name="__main__")
"""
"""Runs a script (argv[1]) in an interpreter where Pipewright cannot be imported: `-I` alone
does not keep it out, as it is installed in the virtualenv."""


def run_script(
    script: Path, *args: str, cwd: Path, env: dict | None = None
) -> subprocess.CompletedProcess:
    """The script as a process of its own, Pipewright's packages impossible to import."""
    return subprocess.run(
        [sys.executable, "-I", "-c", BLOCKED, str(script), *args],
        capture_output=True, text=True, cwd=cwd, env={**os.environ, **(env or {})},
    )  # fmt: skip


def write_people(folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "people.csv").write_text("name,country\nada,FR\nalan,UK\ngrace,US\nlinus,FR\n")
