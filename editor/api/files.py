"""A workspace's files: list, upload (size-limited), download and delete."""

from __future__ import annotations

from django.conf import settings
from django.http import FileResponse
from ninja import Router, Status

from editor.api.schemas.contract import answers
from editor.api.schemas.pipelines import RowsPreview
from editor.api.schemas.workspaces import FileListing, FilePaths, Uploaded
from editor.errors import ActionError
from editor.runs import jobs
from editor.workspaces import files
from editor.workspaces.file_previews import NODE, PREVIEW_ROWS, preview_document
from editor.workspaces.membership import engine_access, file_area
from editor.workspaces.permissions import Action, workspace_for

router = Router()


@router.get(
    "/{slug}/files",
    response=answers({200: FileListing}, 400, 404),
    summary="List a folder of the workspace",
)
def list_files(request, slug: str, folder: str = ""):
    """`folder` is relative to the workspace (`shared` is the folder every workspace reads)."""
    area = file_area(workspace_for(request.user, slug), request.user)
    return {"folder": folder, "items": files.list_folder(area, folder)}


@router.get(
    "/{slug}/files/paths",
    response=answers({200: FilePaths}, 404),
    summary="Every file's path",
)
def file_paths(request, slug: str):
    """Every visible file of the workspace and of `shared/`, as a pipeline's path names it
    (at most 5,000: `truncated` says when there are more), for search and completion."""
    area = file_area(workspace_for(request.user, slug), request.user)
    items, truncated = files.all_files(area)
    return {"items": items, "truncated": truncated}


@router.get(
    "/{slug}/files/preview",
    response=answers({200: RowsPreview}, 400, 404, 413, 422, 429),
    summary="The first rows of a file",
)
def preview_file(request, slug: str, path: str):
    """At most 20 rows, read by the input operator of the file's ending (CSV, JSON, Parquet,
    Excel), in a process of its own as a node's preview is."""
    workspace = workspace_for(request.user, slug)
    files.file_to_download(file_area(workspace, request.user), path)  # 404 when not a file
    document = preview_document(path)
    return jobs.preview(document, NODE, PREVIEW_ROWS, **engine_access(workspace, request.user))


DOWNLOAD = {
    "responses": {
        200: {
            "description": "The file",
            "content": {
                "application/octet-stream": {"schema": {"type": "string", "format": "binary"}}
            },
        }
    }
}
UPLOAD_BODY = {
    "requestBody": {
        "required": True,
        "content": {
            "multipart/form-data": {
                "schema": {
                    "type": "object",
                    "required": ["file"],
                    "properties": {
                        "file": {"type": "string", "format": "binary"},
                        "folder": {"type": "string", "description": "default: the top"},
                        "replace": {
                            "type": "boolean",
                            "description": "replace a file of that name (default: false, a "
                            "409 `file_exists` naming it)",
                        },
                    },
                }
            }
        },
    }
}


@router.post(
    "/{slug}/files",
    response=answers({201: Uploaded}, 400, 403, 404, 409, 413),
    openapi_extra=UPLOAD_BODY,
    summary="Upload a file",
)
def upload_file(request, slug: str):
    """Stored as `folder/<file name>`; a file of that name is replaced only with `replace=true`
    (else 409 `file_exists`). The form is read only after the permission check, so a stranger
    learns nothing from how theirs was refused."""
    refuse_oversized(request)
    area = file_area(workspace_for(request.user, slug, Action.EDIT), request.user)
    upload = request.FILES.get("file")
    if upload is None:
        message = "send the file as the form field 'file'"
        raise ActionError(400, "invalid_request", message, field="file")
    folder = request.POST.get("folder", "")
    replace = _flag(request.POST.get("replace", "false"), "replace")
    return Status(201, {"path": files.save_upload(area, folder, upload, replace=replace)})


def _flag(value: str, field: str) -> bool:
    """A form's true/false field, or a 400 naming it."""
    if value not in ("true", "false"):
        raise ActionError(400, "invalid_request", f"{field} is true or false", field=field)
    return value == "true"


@router.get(
    "/{slug}/files/content",
    response=answers({200: None}, 400, 404),
    openapi_extra=DOWNLOAD,
    summary="Download a file",
)
def download_file(request, slug: str, path: str):
    area = file_area(workspace_for(request.user, slug), request.user)
    return FileResponse(files.file_to_download(area, path).open("rb"), as_attachment=True)


@router.delete(
    "/{slug}/files",
    response=answers({204: None}, 400, 403, 404, 409),
    summary="Delete a file or empty folder",
)
def delete_file(request, slug: str, path: str):
    files.delete_path(file_area(workspace_for(request.user, slug, Action.EDIT), request.user), path)
    return Status(204, None)


def refuse_oversized(request) -> None:
    """Refuse an upload by its declared size, before the body is read any further."""
    limit = settings.PIPEWRIGHT_MAX_UPLOAD_BYTES
    declared = int(request.META.get("CONTENT_LENGTH") or 0)
    if declared > limit + 64 * 1024:  # room for the form's own fields
        raise ActionError(413, "too_large", f"the upload is larger than the {limit:,}-byte limit")
