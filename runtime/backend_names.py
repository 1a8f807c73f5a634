"""The backends a pipeline may ask for (`config.backend`, `--backend`); light to import."""

from typing import Literal

Backend = Literal["auto", "duckdb", "pandas"]
BACKENDS: tuple[str, ...] = ("auto", "duckdb", "pandas")
"""`auto`: the planner chooses per segment; `duckdb`: every node that can lower does;
`pandas`: nothing lowers (pandas is the reference semantics)."""
