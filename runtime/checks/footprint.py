"""What a pipeline reads and writes outside itself: the files and tables of its input and
output nodes, read from their params, so that pipelines depending on each other can be found.

A file is a path relative to the data root (a glob for an input that reads many); a
`${parameter}` in it stands for any text. A table is `connection:table` (lower case); a query's
tables are those after FROM and JOIN, found by sqlparse's tokens (a view or a function call
hides what it reads: a declared dependency says it instead). Params are read raw from the
document, before parameters are filled in, so one footprint covers every run.
"""

from __future__ import annotations

import fnmatch
import functools
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

import sqlparse
from sqlparse.exceptions import SQLParseError
from sqlparse.sql import Identifier, IdentifierList, Parenthesis
from sqlparse.tokens import CTE, Keyword

from runtime.document.parameters import PLACEHOLDER
from runtime.operators.registry import Registry

MAX_QUERY_CHARS = 20_000
"""A longer query is not parsed for its tables (bounded work for any document)."""


@dataclass(frozen=True)
class Footprint:
    """A pipeline's outside reads and writes: files (data-root paths or globs) and tables."""

    reads_files: frozenset[str] = field(default_factory=frozenset)
    writes_files: frozenset[str] = field(default_factory=frozenset)
    reads_tables: frozenset[str] = field(default_factory=frozenset)
    writes_tables: frozenset[str] = field(default_factory=frozenset)


@dataclass(frozen=True)
class Link:
    """`reader` reads what `writer` writes, through `via` (a path or `connection:table`)."""

    writer: object
    reader: object
    via: str
    kind: str  # "file" or "table"


def footprint(document: dict, registry: Registry) -> Footprint:
    """The footprint of a pipeline document (its JSON form); unknown operators add nothing."""
    found = {
        "reads_files": set(),
        "writes_files": set(),
        "reads_tables": set(),
        "writes_tables": set(),
    }
    for node in document.get("nodes", []):
        operator = registry.get(node.get("operator", ""))
        params = node.get("params") or {}
        if (
            operator is None
            or operator.kind not in ("input", "output")
            or not isinstance(params, dict)
        ):
            continue
        side = "reads" if operator.kind == "input" else "writes"
        formats = _field_formats(operator.Params)
        found[f"{side}_files"] |= {
            _path(value)
            for name, value in params.items()
            if formats.get(name) == "path" and isinstance(value, str) and value.strip()
        }
        connection = next(
            (value for name, value in params.items() if formats.get(name) == "connection"), None
        )
        if isinstance(connection, str) and connection:
            found[f"{side}_tables"] |= {
                f"{connection}:{table}".lower() for table in _tables(params)
            }
    return Footprint(**{name: frozenset(values) for name, values in found.items()})


def _field_formats(model) -> dict[str, str]:
    """Each field's `format` (its JSON Schema's: "path", "connection", …) by field name."""
    return {
        name: (info.json_schema_extra or {}).get("format")
        for name, info in model.model_fields.items()
        if isinstance(info.json_schema_extra, dict)
    }


def _path(value: str) -> str:
    """The path as a glob: `${name}` placeholders become `*`, separators forward slashes."""
    return PLACEHOLDER.sub("*", value.strip().replace("\\", "/")).lstrip("./")


def _tables(params: dict) -> set[str]:
    """The table a node writes (`table`), or those its query reads (`query`)."""
    table = params.get("table")
    if isinstance(table, str) and table.strip():
        return {_unquoted(table.strip())}
    query = params.get("query")
    if isinstance(query, str) and len(query) <= MAX_QUERY_CHARS:
        return set(query_tables(query))
    return set()


@functools.lru_cache(maxsize=1024)
def query_tables(query: str) -> tuple[str, ...]:
    """The tables named after FROM or JOIN in `query`, subqueries included; none for a query
    sqlparse refuses (past its 10,000 tokens, say): a declared dependency says what it reads.
    Cached: every graph and every run's start reads the workspace's queries again."""
    try:
        found = []
        for statement in sqlparse.parse(query):
            named = set(_common_table_names(statement.tokens))
            found += [table for table in _after_from(statement.tokens) if table not in named]
        return tuple(found)
    except (SQLParseError, RecursionError):
        return ()


def _common_table_names(tokens: list) -> Iterator[str]:
    """The names a WITH clause gives its subqueries (they are no tables)."""
    after_with = False
    for token in tokens:
        if token.ttype is CTE:
            after_with = True
        elif after_with and isinstance(token, (Identifier, IdentifierList)):
            names = token.get_identifiers() if isinstance(token, IdentifierList) else [token]
            yield from (_unquoted(name.get_real_name() or "") for name in names)
            return


def _after_from(tokens: Iterable) -> Iterator[str]:
    expecting = False
    for token in tokens:
        if token.is_whitespace or token.ttype in sqlparse.tokens.Comment:
            continue
        if isinstance(token, Parenthesis) or (
            token.is_group and not isinstance(token, (Identifier, IdentifierList))
        ):
            yield from _after_from(token.tokens)
            expecting = False
            continue
        if token.ttype is Keyword and (
            token.normalized == "FROM" or token.normalized.endswith("JOIN")
        ):
            expecting = True
            continue
        if not expecting and isinstance(token, (Identifier, IdentifierList)):
            for inner in token.get_sublists():  # a WITH clause's or a column's subquery
                yield from _after_from([inner])
            continue
        if expecting:
            names = token.get_identifiers() if isinstance(token, IdentifierList) else [token]
            for name in names:
                if isinstance(name, Identifier):
                    inner = [t for t in name.tokens if isinstance(t, Parenthesis)]
                    if inner:  # a subquery with an alias
                        yield from _after_from(inner[0].tokens)
                        continue
                    real = name.get_real_name()
                    if real:
                        parent = name.get_parent_name()
                        yield _unquoted(f"{parent}.{real}" if parent else real)
            expecting = False


def _unquoted(name: str) -> str:
    return ".".join(part.strip('"`[]') for part in name.split(".")).lower()


def links(footprints: dict[object, Footprint]) -> list[Link]:
    """Each (writer, reader, path or table) where one pipeline reads what another writes; a
    pipeline reading its own output is no link. Paths match when one, read as a glob, matches
    the other (an approximation: `*` also crosses folders)."""
    found = []
    for writer, written in footprints.items():
        for reader, read in footprints.items():
            if reader == writer:
                continue
            for path in sorted(written.writes_files):
                for pattern in sorted(read.reads_files):
                    if _overlap(path, pattern):
                        found.append(Link(writer, reader, pattern, "file"))
                        break
            for table in sorted(written.writes_tables):
                if any(_same_table(table, other) for other in read.reads_tables):
                    found.append(Link(writer, reader, table, "table"))
    return found


def _overlap(written: str, read: str) -> bool:
    return fnmatch.fnmatchcase(written, read) or fnmatch.fnmatchcase(read, written)


def _same_table(written: str, read: str) -> bool:
    """`conn:sales.orders` and `conn:orders` are the same table (the schema left implicit)."""
    if written == read:
        return True
    (w_conn, _, w_name), (r_conn, _, r_name) = written.partition(":"), read.partition(":")
    if w_conn != r_conn:
        return False
    w_parts, r_parts = w_name.split("."), r_name.split(".")
    return (len(w_parts) == 1 or len(r_parts) == 1) and w_parts[-1] == r_parts[-1]
