"""The files a lowered node would have DuckDB read, checked while planning.

A file whose column DuckDB cannot read as the pandas input operators do (a type the scan
refuses: runtime/backends/duckdb/scans.py) makes the node that reads it run on pandas. Found
here, from the files' footers and first blocks, fusion leaves only that node out of the
segment and `explain` says which column and why, instead of the whole segment falling back
to pandas when the run starts. Lives outside the duckdb package, which loads duckdb: a plan
that lowers nothing never calls it.
"""

from __future__ import annotations

from runtime.errors import OperatorError
from runtime.io.paths import FileArea
from runtime.relational import Relation, Stored, scans_of


def check_reads(relation: Relation, area: FileArea) -> None:
    """Raise `NotLowerable` (naming the column and why) unless DuckDB reads every file of
    `relation`'s scans as pandas does. A file that is missing or unreadable is the run's to
    report, in the reading node's words: it passes here."""
    from runtime.backends.duckdb.scans import scan_sql, session_zone, stored_sql

    zones: set[str] = set()
    for scan in scans_of(relation):
        try:
            found = stored_sql(scan) if isinstance(scan, Stored) else scan_sql(scan, area)
        except OperatorError:
            continue
        zones |= found.zones
    session_zone(zones)  # a file of two zones: one session cannot give both
