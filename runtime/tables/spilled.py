"""Rows an input wrote batch by batch to a Parquet file, handed on instead of a frame.

An input that does not lower to DuckDB (JSON Lines, a SQL query) builds a whole pandas frame,
which a DuckDB segment below it then reads: the run holds the input at least twice. When the
executor knows that only DuckDB segments read the input's rows (runtime/execution/streams.py),
it gives the node a file to spill into (`NodeContext.spill_path`); the operator writes each
batch it reads there, in the Arrow types a frame of those rows gives DuckDB, and hands on a
`SpilledRows`. The segment scans the file with DuckDB's Parquet reader, a row group at a
time, so the run's memory stays flat in the input's size (an Arrow dataset registered with
DuckDB is not: its scan held 250 MB at 1M rows and 340 MB at 4M, DuckDB's reader 176 MB at
both). Anything else that gets one reads the frame (`frame`):
the rows and dtypes the operator would have given.

Belongs here: the file and its writer. Does not belong here: who may spill (the executor) or
how an operator reads its batches.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from runtime.lazy import pa, pd
from runtime.tables.frames import to_pandas

ROW_GROUP_ROWS = 65_536
"""Rows of a row group of the spill file: what a scan of it holds at a time."""
SPILL_FROM_BYTES = 64 * 2**20
"""Inputs smaller than this (a JSON Lines file; a query's rows fetched so far) are handed on as
a frame: spilling costs each batch a round trip through pandas and Parquet (+35 % CPU for 4M
JSON Lines rows, twice the CPU of a streamed `validate`), worth it only where the memory it
saves is more than a small input's."""


@dataclass
class SpilledRows:
    """A node's output rows in a Parquet file (see the module's docstring)."""

    path: Path
    schema: pa.Schema
    rows: int = 0
    nulls: dict[str, int] = field(default_factory=dict)
    """Missing values by column (a frame entering DuckDB says which columns may hold them)."""
    batches: int = 0
    """Batches written (each a read of the operator's source)."""

    def __len__(self) -> int:
        return self.rows

    @property
    def nbytes(self) -> int:
        return self.path.stat().st_size

    def tables(self, columns: list[str] | None = None) -> Iterator[pa.Table]:
        """The rows a row group at a time, as Arrow; `columns`: only those (None: all). Read
        group by group: a scan of the file (`iter_batches`) held more the longer the file
        (182 MB over 10M rows, 125 MB over 2M; 106 MB for both, group by group)."""
        import pyarrow.parquet as pq

        file = pq.ParquetFile(self.path)
        for group in range(file.num_row_groups):
            yield file.read_row_group(group, columns=columns)

    def frames(self, columns: list[str] | None = None) -> Iterator[pd.DataFrame]:
        """The rows a row group at a time, each as a frame indexed where its rows stand in
        `frame` (their concatenation is `frame`); rows of none give one empty frame.
        `columns`: only those (None: all)."""
        start = 0
        for table in self.tables(columns):
            frame = to_pandas(table)
            frame.index = pd.RangeIndex(start, start + len(frame))
            start += len(frame)
            yield frame
        if start == 0:
            yield self.empty() if columns is None else self.empty()[columns]

    def empty(self) -> pd.DataFrame:
        """A frame of no rows in the columns and dtypes of `frame`."""
        return to_pandas(self.schema.empty_table())

    def columns(self, names: list[str]) -> pd.DataFrame:
        """Only the columns `names` of `frame`, read alone from the file."""
        import pyarrow.parquet as pq

        return to_pandas(pq.read_table(self.path, columns=names, schema=self.schema))

    def frame(self) -> pd.DataFrame:
        """The rows as the frame the operator would have returned."""
        import pyarrow.parquet as pq

        return to_pandas(pq.read_table(self.path))


class SpillWriter:
    """Writes batches of a node's rows to `path`: each as a frame of them would hold them
    (`frame_arrow`), so that the file reads as the frame the batches make."""

    def __init__(self, path: Path):
        self.path = Path(path)
        self._writer = None
        self.spilled: SpilledRows | None = None

    def write(self, batch: pa.Table) -> None:
        """Write the rows of an Arrow batch as the frame they make holds them."""
        self.write_frame(to_pandas(batch))

    def write_frame(self, frame: pd.DataFrame) -> None:
        import pyarrow.parquet as pq

        table = frame_arrow(frame)
        if self._writer is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._writer = pq.ParquetWriter(self.path, table.schema, compression="snappy")
            self.spilled = SpilledRows(self.path, table.schema)
            self.spilled.nulls = dict.fromkeys(table.column_names, 0)
        self._writer.write_table(table.cast(self.spilled.schema), ROW_GROUP_ROWS)
        self.spilled.rows += table.num_rows
        self.spilled.batches += 1
        for name, column in zip(table.column_names, table.columns, strict=True):
            self.spilled.nulls[name] += column.null_count

    def close(self) -> SpilledRows:
        """The rows written (the caller writes at least one batch, maybe of no rows)."""
        if self._writer is None:
            raise ValueError("no batch was written")
        self._writer.close()
        return self.spilled

    def discard(self) -> None:
        """Give up: close and remove the file (the operator builds its frame instead)."""
        if self._writer is not None:
            self._writer.close()
        self.path.unlink(missing_ok=True)


def frame_arrow(frame: pd.DataFrame) -> pa.Table:
    """A frame's rows as Arrow, as a DuckDB segment reads a frame (NaN is null)."""
    return pa.Table.from_pandas(frame, preserve_index=False)


def port_file(spill_path: Path, port: str) -> Path:
    """The spill file of a node's output `port`: `spill_path` for `out`, beside it for others."""
    if port == "out":
        return spill_path
    return spill_path.with_name(f"{spill_path.stem}.{port}{spill_path.suffix}")


def spill_outputs(
    spill_path: Path, outputs: Iterable[dict[str, pd.DataFrame]]
) -> dict[str, SpilledRows]:
    """A node's outputs over one batch after another, each port's written to its spill file
    (`port_file`); every file goes if one batch fails."""
    writers: dict[str, SpillWriter] = {}
    try:
        for batch in outputs:
            for port, frame in batch.items():
                if port not in writers:
                    writers[port] = SpillWriter(port_file(spill_path, port))
                writers[port].write_frame(frame)
        return {port: writer.close() for port, writer in writers.items()}
    except BaseException:
        for writer in writers.values():
            writer.discard()
        raise


def as_frame(rows) -> pd.DataFrame:
    """A node's output as a frame, whether it was spilled or not."""
    return rows.frame() if isinstance(rows, SpilledRows) else rows
