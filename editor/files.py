"""A workspace's files: list, upload, download and delete, under the same path rules as runs.

Every path goes through the workspace's `FileArea`, exactly as a file operator's does: inside
the workspace's folder, or `shared/...` (read-only unless staff). Names starting with a dot
are neither listed nor accepted (they are temporary files of running outputs). An upload is
written beside its target and renamed into place, so a cut connection leaves nothing half
written.
"""

from __future__ import annotations

import os
import uuid
from datetime import UTC, datetime
from pathlib import Path

from django.conf import settings

from editor.errors import ActionError
from runtime.errors import UnsafePathError
from runtime.paths import SHARED, FileArea

CHUNK = 1 << 20


def _located(area: FileArea, path: str, *, write: bool = False) -> Path:
    try:
        return area.resolve(path or ".", write=write)
    except UnsafePathError as error:
        status = 403 if write and "read-only" in str(error) else 400
        raise ActionError(status, "unsafe_path", str(error), field="path") from None


def list_folder(area: FileArea, folder: str = "") -> list[dict]:
    """The folder's visible entries (folders first, then files, by name)."""
    location = _located(area, folder)
    if not location.is_dir():
        raise ActionError(404, "not_found", f"no folder '{folder or '.'}'", field="path")
    entries = []
    at_top = location == area.root.resolve()
    for child in location.iterdir():
        if child.name.startswith(".") or (at_top and child.name == SHARED):
            continue
        stat = child.stat()
        entries.append({
            "name": child.name,
            "path": area.display(child),
            "kind": "folder" if child.is_dir() else "file",
            "size": None if child.is_dir() else stat.st_size,
            "modified": datetime.fromtimestamp(stat.st_mtime, UTC).isoformat(),
            "read_only": area.display(child).startswith(f"{SHARED}/") and not area.shared_writable,
        })  # fmt: skip
    entries.sort(key=lambda entry: (entry["kind"] != "folder", entry["name"]))
    if at_top and area.shared is not None:
        shared = {"name": SHARED, "path": SHARED, "kind": "folder", "size": None,
                  "modified": None, "read_only": not area.shared_writable}  # fmt: skip
        entries.insert(0, shared)
    return entries


def upload_name(name: str) -> str:
    """The file name an upload is stored under, or a 400 saying why it cannot be."""
    base = Path(name.replace("\\", "/")).name
    if not base or base in (".", "..") or base.startswith(".") or "\x00" in base:
        raise ActionError(
            400, "invalid_name", "give the file a name that does not start with '.'", field="file"
        )
    return base


def save_upload(area: FileArea, folder: str, upload) -> str:
    """Store an uploaded file in `folder` (replacing one of that name); its path."""
    limit = settings.PIPEWRIGHT_MAX_UPLOAD_BYTES
    if upload.size > limit:
        raise ActionError(
            413, "too_large", f"the file is {upload.size:,} bytes; the limit is {limit:,}"
        )
    target = _located(area, f"{folder.rstrip('/')}/{upload_name(upload.name)}".lstrip("/"),
                      write=True)  # fmt: skip
    if target.is_dir():
        raise ActionError(409, "is_folder", f"'{area.display(target)}' is a folder", field="file")
    target.parent.mkdir(parents=True, exist_ok=True)
    temporary = target.with_name(f".{target.name}.upload-{uuid.uuid4().hex[:12]}.tmp")
    try:
        with temporary.open("wb") as out:
            for chunk in upload.chunks(CHUNK):
                out.write(chunk)
        os.replace(temporary, target)
    finally:
        temporary.unlink(missing_ok=True)
    return area.display(target)


def file_to_download(area: FileArea, path: str) -> Path:
    """The file at `path`, to send back."""
    location = _located(area, path)
    if location.name.startswith(".") or not location.is_file():
        raise ActionError(404, "not_found", f"no file '{path}'", field="path")
    return location


def delete_path(area: FileArea, path: str) -> None:
    """Delete a file, or an empty folder."""
    location = _located(area, path, write=True)
    if location in (area.root.resolve(), Path(area.shared or area.root).resolve()):
        raise ActionError(400, "invalid_path", "the workspace's own folder cannot be deleted")
    if location.name.startswith(".") or not location.exists():
        raise ActionError(404, "not_found", f"no file '{path}'", field="path")
    if location.is_dir():
        if any(location.iterdir()):
            raise ActionError(409, "not_empty", f"folder '{path}' is not empty", field="path")
        location.rmdir()
    else:
        location.unlink()
