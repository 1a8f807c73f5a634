"""The audit log as CSV, safe to open in a spreadsheet.

A cell that begins with `=`, `+`, `-`, `@`, a tab or a carriage return is read as a formula
by spreadsheet programs (OWASP's "CSV injection"): such cells are written with a leading
`'`, which shows the text as it is.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterable, Iterator

from django.http import StreamingHttpResponse

from editor.models import AuditEntry

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
COLUMNS = (
    "time", "username", "user_id", "source", "action", "object_type", "object_id",
    "object_name", "workspace_slug", "workspace_id", "revision", "details",
)  # fmt: skip


def cell(value) -> str:
    """A value as a CSV cell that no spreadsheet evaluates."""
    if value is None:
        return ""
    if isinstance(value, dict):
        text = json.dumps(value, sort_keys=True, ensure_ascii=False)
    elif hasattr(value, "isoformat"):
        text = value.isoformat()
    else:
        text = str(value)
    return f"'{text}" if text.startswith(FORMULA_STARTS) else text


class _Echo:
    def write(self, value: str) -> str:
        return value


def rows(entries: Iterable[AuditEntry]) -> Iterator[str]:
    """The header line, then one line per entry."""
    writer = csv.writer(_Echo())
    yield writer.writerow(COLUMNS)
    for entry in entries:
        yield writer.writerow([cell(getattr(entry, column)) for column in COLUMNS])


def csv_download(entries: Iterable[AuditEntry], filename: str) -> StreamingHttpResponse:
    """A streamed CSV attachment of `entries`."""
    response = StreamingHttpResponse(rows(entries), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response
