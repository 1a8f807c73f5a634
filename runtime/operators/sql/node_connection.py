"""One database connection per SQL node, opened before its first attempt and closed after its
last (`Operator.open` / `close`, runtime/operators/lifecycle.py), kept in `ctx.resources`.

Every attempt of the node uses it, starting with a rollback, so that a failed attempt's
transaction never reaches the retry. A context made outside a run (the schema view, a
preview's job) has no opened connection: it connects for the one use, as before.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack, contextmanager

from sqlalchemy.engine import Connection

from runtime.io.sql.connections import connect
from runtime.operators.context import NodeContext

_KEY = "sql_connection"


def open_connection(ctx: NodeContext, name: str, *, write_to: str | None = None) -> None:
    """Connect for the node's attempts; a server that cannot be reached fails the attempt."""
    stack = ExitStack()
    try:
        connection = stack.enter_context(connect(ctx, name, write_to=write_to))
    except BaseException:
        stack.close()
        raise
    ctx.resources[_KEY] = (stack, connection)


def close_connection(ctx: NodeContext) -> None:
    """Close what `open_connection` opened (nothing if it did not)."""
    opened = ctx.resources.pop(_KEY, None)
    if opened is not None:
        opened[0].close()


@contextmanager
def node_connection(
    ctx: NodeContext, name: str, *, write_to: str | None = None
) -> Iterator[Connection]:
    """The node's opened connection, or one for this use only."""
    opened = ctx.resources.get(_KEY)
    if opened is None:
        with connect(ctx, name, write_to=write_to) as connection:
            yield connection
        return
    connection = opened[1]
    if connection.in_transaction():
        connection.rollback()
    yield connection
