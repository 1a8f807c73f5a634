"""The backends a pipeline may ask for (`config.backend`, `--backend`); light to import."""

from typing import Literal, get_args

Backend = Literal["auto", "duckdb", "pandas"]
BACKENDS: tuple[str, ...] = get_args(Backend)
"""`auto`: the planner chooses per segment; `duckdb`: every node that can lower does;
`pandas`: nothing lowers (pandas is the reference semantics)."""
