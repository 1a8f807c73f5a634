"""A workspace's files: list, upload, download and delete, under the same path rules as runs.

Every path goes through the workspace's `FileArea`, exactly as a file operator's does: inside
the workspace's folder, or `shared/...` (read-only unless staff). Names starting with a dot
are neither listed nor accepted (they are temporary files of running outputs). An upload is
written beside its target and renamed into place, so a cut connection leaves nothing half
written. An upload never replaces a file of its name unless asked to (`replace`), as deleting
one is confirmed first: the check and the move are one step (a hard link, which fails when the
name is taken), so two uploads of one name cannot both win.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

from django.conf import settings

from editor.errors import ActionError
from runtime import UnsafePathError
from runtime.io.paths import MAX_PATH_LENGTH, SHARED, FileArea

CHUNK = 1 << 20


def _located(area: FileArea, path: str, *, write: bool = False) -> Path:
    if "\x00" in path or len(path) > MAX_PATH_LENGTH:
        raise ActionError(400, "invalid_path", "not a usable path", field="path")
    try:
        return area.resolve(path or ".", write=write)
    except OSError as error:  # a name the file system cannot take (too long, say)
        reason = (error.strerror or "not a usable path").lower()
        raise ActionError(400, "invalid_path", f"'{path}': {reason}", field="path") from None
    except UnsafePathError as error:
        status = 403 if write and "read-only" in str(error) else 400
        raise ActionError(status, "unsafe_path", str(error), field="path") from None


@contextmanager
def _file_errors(path: str) -> Iterator[None]:
    """What the file system refuses (a name too long, a full disk, ...) as a 4xx naming it."""
    try:
        yield
    except OSError as error:
        reason = error.strerror or type(error).__name__
        raise ActionError(409, "file_error", f"'{path}': {reason.lower()}", field="path") from None


def list_folder(area: FileArea, folder: str = "") -> list[dict]:
    """The folder's visible entries (folders first, then files, by name)."""
    location = _located(area, folder)
    if not location.is_dir():
        raise ActionError(404, "not_found", f"no folder '{folder or '.'}'", field="path")
    at_top = location == area.root.resolve()
    children = [
        child
        for child in location.iterdir()
        if not child.name.startswith(".") and not (at_top and child.name == SHARED)
    ]
    entries = [e for child in children if (e := _entry(area, folder, child)) is not None]
    entries.sort(key=lambda entry: (entry["kind"] != "folder", entry["name"]))
    if at_top and area.shared is not None:
        shared = _described(SHARED, SHARED, "folder", None, None, not area.shared_writable)
        entries.insert(0, shared)
    return entries


def _entry(area: FileArea, folder: str, child: Path) -> dict | None:
    """A listing's line for `child` of `folder`; None for what cannot be opened from here (a
    dangling link, or one that leads out of the area)."""
    path = f"{folder.strip('/')}/{child.name}".lstrip("/")
    try:
        area.resolve(path)
        stat = child.stat()
    except (OSError, UnsafePathError):
        return None
    folder = child.is_dir()
    modified = datetime.fromtimestamp(stat.st_mtime, UTC).isoformat()
    read_only = path.startswith(f"{SHARED}/") and not area.shared_writable
    kind = "folder" if folder else "file"
    return _described(child.name, path, kind, None if folder else stat.st_size, modified, read_only)


def _described(name, path, kind, size, modified, read_only) -> dict:
    return {
        "name": name,
        "path": path,
        "kind": kind,
        "size": size,
        "modified": modified,
        "read_only": read_only,
    }


MAX_LISTED_FILES = 5_000
"""Files `all_files` names at most (the picker's search and completion; a folder view lists
the rest)."""
MAX_WALKED_FOLDERS = 20_000
"""Folders `all_files` reads at most: many folders without a visible file name none."""


def all_files(area: FileArea) -> tuple[list[str], bool]:
    """Every visible file of the area as a path names it (the workspace's, then `shared/...`),
    sorted, and whether the list stopped at `MAX_LISTED_FILES` (or `MAX_WALKED_FOLDERS`)."""
    found: list[str] = []
    walked = 0
    tops = [(Path(area.root), "")]
    if area.shared is not None:
        tops.append((Path(area.shared), f"{SHARED}/"))
    for top, prefix in tops:
        if not top.is_dir():
            continue
        for folder, folders, names in os.walk(top):
            walked += 1
            if walked > MAX_WALKED_FOLDERS:
                return found, True
            relative = Path(folder).relative_to(top).as_posix()
            at_top = relative == "."
            folders[:] = sorted(
                name
                for name in folders
                if not name.startswith(".") and not (at_top and prefix == "" and name == SHARED)
            )
            base = prefix if at_top else f"{prefix}{relative}/"
            for name in sorted(names):
                if name.startswith("."):
                    continue
                if len(found) >= MAX_LISTED_FILES:
                    return found, True
                path = f"{base}{name}"
                if os.path.islink(os.path.join(folder, name)) and not _reachable(area, path):
                    continue
                found.append(path)
    return found, False


def _reachable(area: FileArea, path: str) -> bool:
    """Whether a link's path stays in the area (one leading out is not offered)."""
    try:
        return area.resolve(path).is_file()
    except (OSError, UnsafePathError):
        return False


def upload_name(name: str) -> str:
    """The file name an upload is stored under, or a 400 saying why it cannot be."""
    base = Path(name.replace("\\", "/")).name
    if not base or base in (".", "..") or base.startswith(".") or "\x00" in base:
        raise ActionError(
            400, "invalid_name", "give the file a name that does not start with '.'", field="file"
        )
    return base


def save_upload(area: FileArea, folder: str, upload, *, replace: bool = False) -> str:
    """Store an uploaded file in `folder`; its path. A file of that name is replaced only with
    `replace`, else the upload is a 409 `file_exists` naming it."""
    limit = settings.PIPEWRIGHT_MAX_UPLOAD_BYTES
    if upload.size > limit:
        raise ActionError(
            413, "too_large", f"the file is {upload.size:,} bytes; the limit is {limit:,}"
        )
    name = upload_name(upload.name)
    target = _located(area, f"{folder.rstrip('/')}/{name}".lstrip("/"), write=True)
    shown = area.display(target)
    with _file_errors(shown):
        if target.is_dir():
            raise ActionError(409, "is_folder", f"'{shown}' is a folder", field="file")
        if not replace and target.exists():
            raise _exists(shown)
        target.parent.mkdir(parents=True, exist_ok=True)
        temporary = target.with_name(f".{target.name[:200]}.upload-{uuid.uuid4().hex[:12]}.tmp")
        try:
            with temporary.open("wb") as out:
                for chunk in upload.chunks(CHUNK):
                    out.write(chunk)
            if replace:
                os.replace(temporary, target)
            else:
                os.link(temporary, target)  # refused if the name was taken meanwhile
        except FileExistsError:
            raise _exists(shown) from None
        finally:
            temporary.unlink(missing_ok=True)
    return shown


def _exists(shown: str) -> ActionError:
    message = f"'{shown}' exists already; upload it with replace=true to replace it"
    return ActionError(409, "file_exists", message, field="file")


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
    with _file_errors(path):
        if location.is_dir():
            if any(location.iterdir()):
                raise ActionError(409, "not_empty", f"folder '{path}' is not empty", field="path")
            location.rmdir()
        else:
            location.unlink()
