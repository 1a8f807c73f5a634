"""Refuse a query that reads or writes the database server's files or runs a program there.

A read-only session stops writes to tables, but not a server's file functions: MariaDB's
`SELECT … INTO OUTFILE` wrote a file inside a read-only transaction, and PostgreSQL's
`pg_read_binary_file` reads any file its server may. The real boundary is the database
account (docs/security.md says which privileges a reading account should lack); this check
is the second line, for `sql_input`, whose sessions are always read-only.

The query is tokenized by sqlparse's lexer, so quoting and comments neither hide a refused name nor
make one up: a name inside a string literal is data, a name in a comment is nothing — except
MySQL's executable comments (`/*! … */`), whose text the server runs, which are read too.
Refused: `INTO OUTFILE`/`INTO DUMPFILE`, `LOAD DATA`/`LOAD XML`, statements that run code or
text of their own (`DO`, `CALL`, `COPY`, `PREPARE`, `EXECUTE`, `HANDLER`, `INSTALL`), and calls
of the file, large-object, program and query-text functions below, however qualified or quoted.
"""

from __future__ import annotations

from itertools import pairwise

from sqlparse import lexer
from sqlparse import tokens as T

from runtime.errors import ParamsError

REFUSED_STATEMENTS = frozenset(
    {"do", "call", "copy", "prepare", "execute", "handler", "install", "uninstall", "load"}
)
REFUSED_FUNCTIONS = frozenset(
    {"load_file", "pg_read_file", "pg_read_binary_file", "pg_ls_dir", "pg_stat_file",
     "pg_file_write", "pg_file_rename", "pg_file_unlink", "pg_logdir_ls", "loread", "lowrite",
     "query_to_xml", "query_to_xmlschema", "query_to_xml_and_xmlschema", "cursor_to_xml",
     "table_to_xml", "sys_exec", "sys_eval"}
)  # fmt: skip
REFUSED_PREFIXES = ("lo_", "pg_ls_", "pg_read_", "pg_file_", "dblink")
"""Families: PostgreSQL's large objects (`lo_import`, `lo_export`, `lo_get`…), directory
listings (`pg_ls_waldir`…), file reads, adminpack's writes, and dblink (SQL on any server)."""
_INTO_FILE = frozenset({"outfile", "dumpfile"})


def refuse_file_access(query: str) -> None:
    """Nothing if `query` touches no server file or program, else a ParamsError naming what."""
    words = list(_words(lexer.tokenize(query)))
    starts = [0] + [at + 1 for at, (word, _) in enumerate(words) if word == ";"]
    for start in starts:
        if start < len(words) and words[start][0] in REFUSED_STATEMENTS:
            _refuse(words[start][0].upper())
    for (word, kind), following in pairwise(words):
        if word == "into" and following[0] in _INTO_FILE:
            _refuse(f"INTO {following[0].upper()}")
        if kind is T.Name and following[0] == "(" and _refused_function(word):
            _refuse(f"{word}()")


def _words(tokens):
    """(lowercased word, kind) of every token that is code: names unquoted and unqualified,
    string literals and comments left out, MySQL's executable comments read as code. The
    lexer alone: grouping into statements is several times slower."""
    for kind, value in tokens:
        if kind in T.Whitespace or kind in T.Newline or kind in T.Literal.String.Single:
            continue
        if kind in T.Comment:
            if value.startswith("/*!"):
                yield from _words(lexer.tokenize(value[3:-2].lstrip("0123456789")))
            continue
        if kind in T.Literal.String.Symbol or kind in T.Name or kind in T.Keyword:
            yield value.strip('"`[]').lower(), T.Name
        else:
            yield value.lower(), kind


def _refused_function(name: str) -> bool:
    return name in REFUSED_FUNCTIONS or name.startswith(REFUSED_PREFIXES)


def _refuse(what: str) -> None:
    raise ParamsError(
        "query",
        f"refused: {what} reads or writes the database server's files or runs code there; "
        "a query may only read tables",
    )
