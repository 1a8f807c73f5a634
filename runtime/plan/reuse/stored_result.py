"""A reused node as the run executes it: a read of its stored results.

The reuse pass puts one in place of a node whose results are stored and that a node which
runs reads. On pandas it reads the Parquet files; in a DuckDB segment it lowers to a scan of
them (`relational.Stored`), so nothing above it runs and the segment streams from the file.
"""

from __future__ import annotations

from pathlib import Path

from runtime.operators.contract import Operator, Port

BATCH_ROWS = 65_536
"""Rows per batch when reading only a file's head."""
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
        """Each port's rows; only the first `ctx.row_limit` when a preview asks no more."""
        return {
            port: read_stored(location, ctx.row_limit) for port, location in self.locations.items()
        }

    def lower(self, params, inputs, schemas):
        from runtime import relational

        return {
            port: relational.Stored(
                "parquet", f"the stored result of {self.node_id}", location=str(location)
            )
            for port, location in self.locations.items()
        }


def read_stored(location: Path, limit: int | None = None):
    """A stored result as a frame (its first `limit` rows), in the dtypes it was stored with
    (the engine's convention for a file another writer made)."""
    import pyarrow.parquet as pq

    from runtime.errors import OperatorError
    from runtime.tables.frames import restored, to_pandas

    try:
        table = pq.read_table(location) if limit is None else _head(location, limit)
    except OSError:
        raise OperatorError(GONE) from None
    return restored(table) if table.schema.pandas_metadata else to_pandas(table)


def _head(location: Path, limit: int):
    """The first `limit` rows of a Parquet file, reading no more row groups than they need."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    with pq.ParquetFile(location) as file:
        batches, rows = [], 0
        for batch in file.iter_batches(batch_size=min(limit, BATCH_ROWS)):
            batches.append(batch)
            rows += batch.num_rows
            if rows >= limit:
                break
        return pa.Table.from_batches(batches, schema=file.schema_arrow).slice(0, limit)


def missing_columns(store, key: str) -> list[str]:
    """The port's columns (as the record of `key` names them) that its stored file lacks: a run
    keeps only the columns something after the node reads. Empty when the record does not
    name them (stored before records did) or the file is gone."""
    held = store.columns(key)
    if held is None:
        return []
    return [name for name in store.record(key).get("columns", []) if name not in held]
