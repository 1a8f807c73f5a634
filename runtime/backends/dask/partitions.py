"""A partitioned segment run on a Dask cluster through dask.dataframe: one partition per file.

Each partition reads one of the input's files with the input's own operator, runs the chain's
row-wise operators on it, and computes the aggregate's partial result (`SplitAggregate`); the
run's process concatenates the partial results and combines them with the aggregate operator.
Every step is the pandas operator a run on one machine uses, so the result is the same (a
mean within float rounding). The rows each member read and produced are counted per
partition, in the same computation (dask computes the shared steps once).

The workers read the files themselves: they must see the data root at the same path as the
run's process (a shared file system), which `docs/deploy.md` says.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from runtime.backends.dask.method_pickling import standard_method_pickling
from runtime.errors import NodeCancelled, OperatorError
from runtime.io.paths import FileArea
from runtime.lazy import pd
from runtime.operators.context import NodeContext
from runtime.plan.decompose import SplitAggregate
from runtime.plan.model import PlannedNode

CONNECT_TIMEOUT_S = 10
"""How long the run's process tries to reach the scheduler before the segment fails."""
WAIT_S = 0.1
"""How often the cancel signal is looked at while the cluster computes."""


@dataclass(frozen=True)
class Partitioned:
    """What the workers are sent: the members (input, row-wise chain, aggregate), the files,
    where the files are, and the run's id. Nothing secret: file inputs name no connection."""

    nodes: tuple[PlannedNode, ...]
    files: tuple[str, ...]
    area: FileArea
    run_id: str
    columns: set[str] | None = None
    """Of the input's columns, those the chain reads (None: all)."""

    def read(self, name: str, row_limit: int | None = None) -> pd.DataFrame:
        """One partition: the input's rows from one file (the columns the chain reads)."""
        reader = self.nodes[0]
        params = reader.params.model_copy(update={"path": name})
        ctx = NodeContext(
            reader.id, params, data_root=self.area, run_id=self.run_id, row_limit=row_limit,
            columns=self.columns,
        )  # fmt: skip
        return reader.operator.run(ctx, {})["out"]

    def step(self, frame: pd.DataFrame, position: int) -> pd.DataFrame:
        """One row-wise member (at `position` in `nodes`) over one partition."""
        node = self.nodes[position]
        ctx = NodeContext(node.id, node.params, data_root=self.area, run_id=self.run_id)
        return node.operator.run(ctx, {"in": frame})["out"]

    def aggregate(self, frame: pd.DataFrame, params) -> pd.DataFrame:
        node = self.nodes[-1]
        ctx = NodeContext(node.id, params, data_root=self.area, run_id=self.run_id)
        return node.operator.run(ctx, {"in": frame})["out"]


def run_partitioned(work: Partitioned, address: str, ctx: NodeContext) -> tuple[pd.DataFrame, dict]:
    """The aggregate's result, and each member's rows in and out."""
    import dask
    import dask.dataframe as dd

    split = SplitAggregate(work.nodes[-1].params)
    partial = split.partial()
    empty = work.read(work.files[0], row_limit=0)
    metas, stages = [empty], []
    with dask.config.set({"dataframe.convert-string": False}):
        frame = dd.from_map(
            _checked_read(work, empty), list(work.files), meta=empty, enforce_metadata=False
        )
        stages.append(frame)
        for position in range(1, len(work.nodes) - 1):
            metas.append(work.step(metas[-1], position))
            frame = frame.map_partitions(
                work.step, position, meta=metas[-1], enforce_metadata=False
            )
            stages.append(frame)
        partial_meta = work.aggregate(metas[-1], partial)
        partials = frame.map_partitions(
            work.aggregate, partial, meta=partial_meta, enforce_metadata=False
        )
        length = pd.Series([], dtype="int64")
        counts = [
            stage.map_partitions(_length, meta=length, enforce_metadata=False).sum()
            for stage in stages
        ]
        with cluster_client(address) as client:
            futures = client.compute([partials, *counts])
            found = gathered(client, futures, ctx)
    partial_frames, rows = found[0], [int(count) for count in found[1:]]
    combined = work.aggregate(partial_frames, split.combining())
    result = split.finished(combined)
    return result, _figures(work.nodes, rows, len(result))


def _checked_read(work: Partitioned, first: pd.DataFrame):
    """Read a partition, refusing a file whose columns or types differ from the first's (the
    run on one machine refuses it the same way)."""
    expected = _columns(first)

    def read(name: str) -> pd.DataFrame:
        frame = work.read(name)
        if _columns(frame) != expected:
            raise OperatorError(
                f"'{name}' has other columns or types than '{work.files[0]}': "
                f"{_columns(frame)} against {expected}"
            )
        return frame

    return read


def _columns(frame: pd.DataFrame) -> str:
    return ", ".join(f"{name} {dtype}" for name, dtype in frame.dtypes.items())


def _length(frame: pd.DataFrame) -> pd.Series:
    return pd.Series([len(frame)], dtype="int64")


def use_worker_client(client) -> None:
    """On a Dask worker: partitions go through the worker's own `client` (`dask_task` gives it
    when a run with partitions starts there). It carries the worker's TLS configuration
    (`--tls-*`), which a client opened here would lack; and Dask's `get_client()` finds no
    worker in a node's thread, which is not the task's."""
    global _worker_client
    _worker_client = client


_worker_client = None


@contextmanager
def cluster_client(address: str) -> Iterator:
    """The worker's client (the run was sent to this cluster, so its scheduler is `address`);
    elsewhere (the command line) a client of this segment's own, configured by Dask's
    configuration. A run that is a task leaves its thread to the partitions meanwhile."""
    from distributed import Client

    standard_method_pickling()
    if _worker_client is not None:
        yield _worker_client
        return
    try:
        client = Client(address, timeout=CONNECT_TIMEOUT_S, set_as_default=False)
    except (OSError, TimeoutError) as error:
        raise OperatorError(f"cannot reach the Dask scheduler at {address}: {error}") from error
    except (TypeError, ValueError) as error:  # e.g. tls:// without Dask's TLS configuration
        raise OperatorError(
            f"cannot connect to the Dask scheduler at {address}: {error}; a tls:// scheduler "
            "needs Dask's TLS configuration (DASK_DISTRIBUTED__COMM__TLS__CA_FILE, "
            "…__CLIENT__CERT, …__CLIENT__KEY; docs/deploy.md)"
        ) from error
    try:
        yield client
    finally:
        client.close()


def gathered(client, futures: list, ctx: NodeContext, on_done=None) -> list:
    """The futures' results, cancelling them when the node is stopped; `on_done(futures done)`
    is told each time more have ended."""
    told = 0
    while True:
        done = sum(future.done() for future in futures)
        if on_done is not None and done > told:
            told = done
            on_done(done)
        if done == len(futures):
            return client.gather(futures)
        if ctx.cancelled:
            client.cancel(futures)
            raise NodeCancelled(f"node '{ctx.node_id}' was stopped")
        time.sleep(WAIT_S)


def _figures(nodes: tuple[PlannedNode, ...], rows: list[int], result_rows: int) -> dict:
    """Rows in and out of each member: each stage's count is its node's output and the next
    node's input."""
    figures = {}
    for position, node in enumerate(nodes):
        rows_out = rows[position] if position < len(rows) else result_rows
        rows_in = {} if position == 0 else {"in": rows[position - 1]}
        figures[node.id] = {"rows_in": rows_in, "rows_out": rows_out}
    return figures
