"""A loop's iterations on a Dask cluster: the keys, in order, cut into contiguous batches, each
batch a task that runs the loop's body once per key on a worker (the same `Iterations.run` the
run's process uses), their outputs gathered back in key order.

Each task carries its keys' rows; the workers read and write files themselves, so, as for
partitioned segments, they must see the data root at the run's path (docs/deploy.md).
"""

from __future__ import annotations

import math

from runtime.backends.dask.partitions import cluster_client, gathered
from runtime.operators.context import NodeContext

MOST_TASKS = 32
"""At most this many tasks per loop: a batch of keys each (one key each for fewer keys)."""


def batches(keys: list, most: int = MOST_TASKS) -> list[list[tuple[int, tuple, object]]]:
    """`keys` (`(key, rows)` in key order) as contiguous batches of `(number, key, rows)`,
    numbered from 1: at most `most` batches, all of one size but the last."""
    size = math.ceil(len(keys) / most) if keys else 1
    numbered = [(number, key, rows) for number, (key, rows) in enumerate(keys, start=1)]
    return [numbered[start : start + size] for start in range(0, len(numbered), size)]


def run_on_cluster(work, keys: list, address: str, ctx: NodeContext) -> tuple[list[dict], int]:
    """Each iteration's outputs in key order, run as tasks on the cluster at `address`, and how
    many tasks it took; progress as each batch ends."""
    cut = batches(keys)
    futures = []

    def report(_: int) -> None:
        count = sum(len(batch) for batch, future in zip(cut, futures, strict=True) if future.done())
        ctx.progress(share=count / len(keys), iterations=(count, len(keys)))

    with cluster_client(address) as client:
        futures += [client.submit(work.run_batch, batch, pure=False) for batch in cut]
        found = gathered(client, futures, ctx, on_done=report)
    return [outputs for batch in found for outputs in batch], len(cut)
