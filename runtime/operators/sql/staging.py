"""The staging tables of `sql_output` on MySQL and MariaDB: named after their run, and dropped
by whoever finds the run ended without dropping them.

There DDL commits at once, so a table to create or replace is filled under a staging name and
renamed into place at commit (`writing._write_by_swap`), and the node drops what is left when
it fails. A run whose process is killed meanwhile cannot: the staging table would stay
forever. Its name carries the run's id (`<table>__pw_<run>_<random>`, `…_old` for the table
swapped out), so the process that ends or reaps the run drops exactly that run's tables, as it
deletes the run's temporary files.
"""

from __future__ import annotations

import logging
import re
import uuid
from typing import TYPE_CHECKING

import sqlalchemy as sa
from sqlalchemy.exc import SQLAlchemyError

from runtime.errors import OperatorError, ParamsError
from runtime.io.paths import FileArea
from runtime.io.sql.connection_specs import Connections, as_spec
from runtime.io.sql.connections import connect
from runtime.operators.context import NodeContext
from runtime.operators.sql.dialects import SWAP_DIALECTS

if TYPE_CHECKING:
    from runtime.plan.model import Plan

MARK = "__pw_"
OLD = "_old"
NAME_LIMIT = 64
"""MySQL's longest table name."""
_RUN_CHARACTERS = 16
_RANDOM_CHARACTERS = 8

log = logging.getLogger(__name__)


def staging_name(table: str, run_id: str | int) -> str:
    """A fresh staging name for `table` in run `run_id`, with room for `OLD` after it."""
    run = _run_part(run_id)
    room = NAME_LIMIT - len(OLD) - len(MARK) - len(run) - 1 - _RANDOM_CHARACTERS
    return f"{table[:room]}{MARK}{run}_{uuid.uuid4().hex[:_RANDOM_CHARACTERS]}"


def _run_part(run_id: str | int) -> str:
    return re.sub(r"[^0-9A-Za-z]", "", str(run_id))[:_RUN_CHARACTERS]


def _of_run(run_id: str | int) -> re.Pattern:
    random = f"[0-9a-f]{{{_RANDOM_CHARACTERS}}}"
    return re.compile(rf".*{re.escape(MARK + _run_part(run_id))}_{random}(?:{OLD})?")


def drop_staging_tables(
    plan: Plan, run_id: str | int, *, data_root: FileArea, connections: Connections
) -> list[str]:
    """Drop the staging tables run `run_id` left where its `sql_output` nodes write on MySQL or
    MariaDB (through the same checked, writable connection a run uses); their names. A database
    that cannot be reached is logged and left: nothing else is touched."""
    dropped: list[str] = []
    seen: set[tuple[str, str | None]] = set()
    for node in plan.nodes.values():
        if node.operator.name != "sql_output":
            continue
        name, table = node.params.connection, node.params.table
        schema = table.rpartition(".")[0] or None
        spec = connections.get(name)
        if (name, schema) in seen or spec is None or not _swaps(as_spec(spec).url):
            continue
        seen.add((name, schema))
        ctx = NodeContext(
            node.id, node.params, data_root=data_root, connections=connections, run_id=run_id
        )
        try:
            dropped += _drop_in(ctx, name, table, schema, _of_run(run_id))
        except (OperatorError, ParamsError, SQLAlchemyError) as error:
            log.warning("could not drop run %s's staging tables on '%s': %s", run_id, name, error)
    return dropped


def _swaps(url: str) -> bool:
    try:
        return sa.make_url(url).get_backend_name() in SWAP_DIALECTS
    except (sa.exc.ArgumentError, ValueError):
        return False


def _drop_in(ctx: NodeContext, name: str, table: str, schema: str | None, run) -> list[str]:
    with connect(ctx, name, write_to=table) as connection:
        names = [
            each
            for each in sa.inspect(connection).get_table_names(schema=schema)
            if run.fullmatch(each)
        ]
        for each in names:
            sa.Table(each, sa.MetaData(), schema=schema).drop(connection, checkfirst=True)
        connection.commit()
    return names
