"""The Dask clusters the tests of runs on Dask start their runs on: a `LocalCluster` of two
worker processes (for each module that asks for it), and one without workers."""

from __future__ import annotations

import pytest
from distributed import LocalCluster

from editor.runs import dask_cluster
from runtime.operators.registry import default_registry


@pytest.fixture(scope="module")
def cluster(plugin_site):
    """Two worker processes with their nannies (a killed worker is started again), which find
    the demo plugin's operators: they are spawned with this process's module path."""
    with pytest.MonkeyPatch.context() as patch:
        patch.syspath_prepend(str(plugin_site))
        default_registry.cache_clear()  # this process finds them too
        with LocalCluster(
            n_workers=2, threads_per_worker=2, processes=True, dashboard_address=":0"
        ) as local:
            yield local
            dask_cluster.cluster_clients.close()
    default_registry.cache_clear()


@pytest.fixture
def on_the_cluster(cluster, settings):
    """Runs started through the API execute on `cluster`."""
    settings.PIPEWRIGHT_DASK_SCHEDULER = cluster.scheduler_address
    return cluster


@pytest.fixture
def no_worker(settings):
    """A scheduler without workers, which runs started through the API go to."""
    with LocalCluster(n_workers=0, processes=True, dashboard_address=":0") as empty:
        settings.PIPEWRIGHT_DASK_SCHEDULER = empty.scheduler_address
        yield empty
        dask_cluster.cluster_clients.close()
