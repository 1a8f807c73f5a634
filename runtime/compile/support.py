"""The script's own functions: finding files under its data root and writing outputs whole.

These are not copies of runtime functions (the runtime's take a run's context): they are the
script's, written here as real code so that they are tested, and carried into every script by
`carry.py` like the runtime helpers.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import shutil
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import SimpleNamespace

import pyarrow.parquet as pq
import sqlalchemy as sa
from sqlalchemy.pool import NullPool

from runtime.backends.duckdb.scans import DUCKDB_WILDCARDS, csv_columns
from runtime.io.sql.connections import make_sqlite_transactional


class PipelineError(Exception):
    """A problem a run would report as a node's error (a missing column, a file that exists)."""


class ScriptContext:
    """Stands for a run's node context in carried runtime code: it reports progress and asks
    whether to stop (nobody watches a script, only Ctrl+C stops it), commits at once, and
    holds the few params that code reads."""

    columns: set[str] | None = None
    """The columns an input reads, as a run prunes them (None: all)."""

    def __init__(self, **params: object) -> None:
        self.params = SimpleNamespace(**params)
        self.logger = logging.getLogger("pipeline")
        self.head = None
        """A script reads its files to the end: no preview probes them."""

    def progress(self, rows: int) -> None:
        """Rows read so far: not reported."""

    def check_cancelled(self) -> None:
        """A script is never asked to stop."""

    @contextmanager
    def counting_after(self, rows: int) -> Iterator[None]:
        """Progress counting on from `rows`: not reported either."""
        yield

    def commit(self, action: Callable[[], object]) -> object:
        """Make a side effect visible: at once."""
        return action()


@contextmanager
def database(name: str, variable: str, root: Path) -> Iterator[sa.Connection]:
    """A connection to the database whose URL the environment variable `variable` holds; an
    SQLite file's relative path is under the data root, as in a run."""
    text = os.environ.get(variable)
    if not text:
        raise PipelineError(
            f"set the environment variable {variable} to the URL of the database connection "
            f"'{name}', such as postgresql://user:password@host/database or sqlite:///shop.db"
        )
    url = sa.make_url(text)
    if url.get_backend_name() == "sqlite" and not Path(url.database or "").is_absolute():
        url = url.set(database=str(data_path(root, url.database or "")))
    engine = sa.create_engine(url, poolclass=NullPool)
    if engine.dialect.name == "sqlite":
        make_sqlite_transactional(engine)
    with engine.connect() as connection:
        yield connection


def data_path(root: Path, relative: str) -> Path:
    """Where `relative` is under the data root; a path leading outside it is refused."""
    base = Path(root).resolve()
    resolved = (base / Path(relative.replace("\\", "/")).expanduser()).resolve()
    if resolved != base and base not in resolved.parents:
        raise PipelineError(f"path '{relative}' is outside the data root")
    return resolved


@contextmanager
def staged(root: Path, relative: str, mode: str) -> Iterator[tuple[Path, bool]]:
    """A temporary file beside the output `relative` and whether it starts as a copy of the
    existing file (mode append); it replaces the output in one step once written, so a
    failure never leaves half a file."""
    path = data_path(root, relative)
    if path.is_dir():
        raise PipelineError(f"'{relative}' is a folder; give the name of a file to write inside it")
    if mode == "error_if_exists" and path.exists():
        raise PipelineError(f"'{relative}' already exists and mode is error_if_exists")
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.script.{uuid.uuid4().hex[:12]}.tmp")
    appending = mode == "append" and path.exists()
    try:
        if appending:
            shutil.copyfile(path, temporary)
        yield temporary, appending
        if mode == "error_if_exists" and path.exists():
            raise PipelineError(f"'{relative}' already exists and mode is error_if_exists")
        os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)


def boolean_option(text: str) -> bool:
    """A true/false command-line value."""
    lowered = text.strip().lower()
    if lowered in ("true", "1", "yes"):
        return True
    if lowered in ("false", "0", "no"):
        return False
    raise argparse.ArgumentTypeError(f"expected true or false, got '{text}'")


def json_option(text: str) -> object:
    """A command-line value read as JSON (numbers, lists, null), else kept as text."""
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def csv_as_compiled(
    files: list, columns: dict[str, str], delimiter: str, header: bool, skip_rows: int
) -> tuple[list[str], list[str]]:
    """The real paths and the names of the CSV files a DuckDB query reads, once each is found
    to hold the columns of the types (`columns`, name → DuckDB type) the query was compiled
    for, as a run infers them (the query names them in that order, whatever the file says)."""
    options = SimpleNamespace(
        delimiter=delimiter, header=header, skip_rows=skip_rows, encoding="utf-8"
    )
    for file in files:
        found = {name: column.sql_type for name, column in csv_columns(options, file).items()}
        if list(found.items()) != list(columns.items()):
            raise PipelineError(_changed(file.name, found, columns))
    return _located(files)


def parquet_as_compiled(files: list, columns: list[list[str]]) -> tuple[list[str], list[str]]:
    """`csv_as_compiled` for Parquet files: each with the columns and types of `columns`."""
    for file in files:
        found = parquet_columns(file.location)
        if found != columns:
            raise PipelineError(_changed(file.name, dict(found), dict(columns)))
    return _located(files)


def parquet_columns(location: Path) -> list[list[str]]:
    """A Parquet file's columns as [name, Arrow type] pairs, `not null` after the type of a
    required column (the query may then compare it with `=`: a file where it is optional
    could hold nulls, so it no longer reads as compiled)."""
    schema = pq.read_schema(location)
    return [
        [field.name, str(field.type) if field.nullable else f"{field.type} not null"]
        for field in schema
    ]


def _located(files: list) -> tuple[list[str], list[str]]:
    for file in files:
        if any(character in str(file.location) for character in DUCKDB_WILDCARDS):
            raise PipelineError(
                f"'{file.name}' has wildcard characters, which DuckDB would take for a pattern"
            )
    return [str(file.location) for file in files], [file.name for file in files]


def _changed(name: str, found: dict, columns: dict) -> str:
    return (
        f"'{name}' does not hold the columns the script was compiled for (it has "
        f"{found}, the query reads {columns}): compile the pipeline again"
    )


def csv_by_duckdb(
    connection, sql: str, params: list, temporary: Path, appending: bool, delimiter, header
) -> int:
    """Run the COPY statement `sql` of an output into `temporary` (after its rows, without a
    header, when `appending`), as a run's DuckDB sink does; the rows written."""
    target = temporary.with_name(temporary.name + ".part") if appending else temporary
    try:
        values = [*params, str(target), delimiter, bool(header) and not appending]
        [(rows,)] = connection.execute(sql, values).fetchall()
        if appending:
            with open(temporary, "ab") as whole, open(target, "rb") as part:
                shutil.copyfileobj(part, whole)
    finally:
        if appending:
            target.unlink(missing_ok=True)
    return rows
