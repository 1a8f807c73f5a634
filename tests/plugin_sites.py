"""Operators written by a test and installed as a plugin would be: a module and its entry points
in a folder of their own, which a run finds through its module path."""

from __future__ import annotations

from pathlib import Path

from runtime.operators.registry import ENTRY_POINT_GROUP


def operator_site(folder: Path, module: str, source: str, operators: dict[str, str]) -> Path:
    """`folder` holding `module` (its `source`) as an installed distribution whose entry points
    publish `operators` (operator name → class name in the module)."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{module}.py").write_text(source)
    info = folder / f"{module}-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {module}\nVersion: 0.1\n")
    points = "".join(f"{name} = {module}:{cls}\n" for name, cls in operators.items())
    (info / "entry_points.txt").write_text(f"[{ENTRY_POINT_GROUP}]\n{points}")
    return folder
