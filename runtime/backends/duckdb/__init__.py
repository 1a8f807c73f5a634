"""The DuckDB backend: a segment's relations run as one query in a locked-down session.

Imported only when a segment runs on DuckDB (a pandas-only run never loads duckdb).
"""

from runtime.backends.duckdb.segment import SegmentError, SegmentResult, run_segment

__all__ = ["SegmentError", "SegmentResult", "run_segment"]
