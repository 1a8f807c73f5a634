"""The first rows of a workspace file, read as a pipeline's input would read it.

The file picker shows them beside the chosen file: a one-node pipeline of the input operator
its name's ending belongs to, previewed in a job's process like a node's preview (same file
area, same readers, same time and memory bounds), at most `PREVIEW_ROWS` rows.
"""

from __future__ import annotations

from editor.errors import ActionError
from runtime.document.spec import Pipeline, load_document
from runtime.operators.csv_files import CSV_ENDINGS
from runtime.operators.excel_files import EXCEL_ENDINGS
from runtime.operators.json_files import JSON_ENDINGS
from runtime.operators.parquet_files import PARQUET_ENDINGS

PREVIEW_ROWS = 20
NODE = "file"
_READERS = {
    **dict.fromkeys(CSV_ENDINGS, "csv_input"),
    **dict.fromkeys(JSON_ENDINGS, "json_input"),
    **dict.fromkeys(PARQUET_ENDINGS, "parquet_input"),
    **dict.fromkeys(EXCEL_ENDINGS, "excel_input"),
}


def reader_of(path: str) -> str:
    """The input operator that reads `path`, or a 400 naming the endings it could have."""
    ending = path[path.rfind(".") :].lower() if "." in path.rsplit("/", 1)[-1] else ""
    operator = _READERS.get(ending)
    if operator is None:
        endings = ", ".join(sorted(_READERS))
        raise ActionError(
            400, "not_previewable", f"only files ending in {endings} are previewed", field="path"
        )
    return operator


def preview_document(path: str) -> Pipeline:
    """A pipeline of one input node reading `path` (one file, never a pattern)."""
    if any(character in path for character in "*?["):
        raise ActionError(400, "invalid_path", "preview one file, not a pattern", field="path")
    node = {"id": NODE, "operator": reader_of(path), "params": {"path": path}}
    return load_document({"name": "file preview", "nodes": [node], "edges": []})
