"""Exported pipeline documents as downloads, for the API and the admin alike.

The file name of an export and how a browser is told to save it are decided here only.
"""

from __future__ import annotations

import io
import zipfile
from collections.abc import Iterable

from django.http import HttpResponse
from django.utils.text import slugify

from editor.models import Pipeline
from editor.pipelines.documents import to_document
from runtime import dump_document


def export_name(pipeline: Pipeline) -> str:
    """The file name of a pipeline's exported document."""
    return f"{slugify(pipeline.name) or 'pipeline'}.json"


def script_name(pipeline: Pipeline) -> str:
    """The file name of a pipeline compiled to a Python script."""
    return f"{slugify(pipeline.name).replace('-', '_') or 'pipeline'}.py"


def download(content: str | bytes, filename: str, content_type="application/json"):
    """A response the browser saves as `filename`."""
    response = HttpResponse(content, content_type=content_type)
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


def export_download(pipeline: Pipeline) -> HttpResponse:
    """The pipeline's document exactly as the runtime CLI accepts it, as a file."""
    return download(dump_document(to_document(pipeline)), export_name(pipeline))


def exports_zip(pipelines: Iterable[Pipeline]) -> HttpResponse:
    """A zip of the pipelines' documents, each named `<id>-<export name>`."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for pipeline in pipelines:
            archive.writestr(
                f"{pipeline.pk}-{export_name(pipeline)}", dump_document(to_document(pipeline))
            )
    return download(buffer.getvalue(), "pipelines.zip", "application/zip")
