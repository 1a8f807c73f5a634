"""`sql_input` and `sql_output`: read a query's rows from, and write rows to, a named database.

Both name a connection (see `runtime.io.sql.connections`); the query is verbatim SQL whose values
are bound as `:name` parameters, never formatted into its text. A query always runs in a
read-only session, whatever its connection allows; only `sql_output` writes, and only through
a connection that allows writes, to a table inside the connection's prefix.

Reading (`reading`) and writing (`writing`) share no call tree; what differs between the
databases is in `dialects`.
"""

from runtime.operators.sql.reading import SqlInput, SqlInputParams, placeholders, read_query
from runtime.operators.sql.writing import SqlOutput, SqlOutputParams

__all__ = [
    "SqlInput",
    "SqlInputParams",
    "SqlOutput",
    "SqlOutputParams",
    "placeholders",
    "read_query",
]
