"""A reused node as the run executes it: a read of its stored results.

The reuse pass puts one in place of a node whose results are stored and that a node which
runs reads. On pandas it reads the Parquet files; in a DuckDB segment it lowers to a scan of
them (`relational.Stored`), so nothing above it runs and the segment streams from the file.
"""

from __future__ import annotations

from pathlib import Path

from runtime.contract import Operator, Port

GONE = "its stored result was removed meanwhile (the store keeps a bounded size); run again"


class StoredResult(Operator):
    """Reads the stored results of one node: one Parquet file per output port."""

    name = "stored_result"
    kind = "input"
    inputs = ()

    def __init__(self, original: Operator, node_id: str, locations: dict[str, Path]):
        self.original = original
        """The node's own operator (what reports and `explain` name)."""
        self.title = original.title
        self.outputs = tuple(Port(port) for port in locations)
        self.node_id = node_id
        self.locations = locations

    @property
    def stored_bytes(self) -> int:
        """The bytes of the stored files (what `auto` weighs, as it does an input's files)."""
        total = 0
        for location in self.locations.values():
            try:
                total += location.stat().st_size
            except OSError:
                continue
        return total

    def output_schema(self, ctx, inputs):
        import pyarrow.parquet as pq

        from runtime.operators.file_common import arrow_schema

        return {
            port: arrow_schema(pq.read_schema(location))
            for port, location in self.locations.items()
        }

    def run(self, ctx, inputs):
        return {port: read_stored(location) for port, location in self.locations.items()}

    def lower(self, params, inputs, schemas):
        from runtime.plan import relational

        return {
            port: relational.Stored(
                "parquet", f"the stored result of {self.node_id}", location=str(location)
            )
            for port, location in self.locations.items()
        }


def read_stored(location: Path):
    """A stored result as a frame, in the dtypes it was stored with (the engine's convention
    for a file another writer made)."""
    import pyarrow.parquet as pq

    from runtime.errors import OperatorError
    from runtime.frames import to_pandas

    try:
        table = pq.read_table(location)
    except OSError:
        raise OperatorError(GONE) from None
    return table.to_pandas() if table.schema.pandas_metadata else to_pandas(table)
