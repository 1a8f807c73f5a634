"""What the backends' tests share: a real Dask cluster."""

from __future__ import annotations

import pytest
from distributed import LocalCluster


@pytest.fixture(scope="module")
def cluster():
    """A `LocalCluster` of two worker processes, one thread each: its scheduler's address."""
    with LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as local:
        yield local.scheduler_address
