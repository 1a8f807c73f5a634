"""Partitioned runs on a Dask cluster (runtime/backends/dask/partitions.py)."""
