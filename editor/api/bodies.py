"""Reading request bodies: pipeline documents (validated by the runtime) and small objects."""

from __future__ import annotations

from django.http.multipartparser import MultiPartParserError
from pydantic import ValidationError as PydanticValidationError

from editor.api.representations import READ_ONLY_FIELDS
from editor.errors import ActionError, problems_error
from runtime import Pipeline as PipelineSpec
from runtime.checks.analysis import load_checked
from runtime.document import json_text
from runtime.document.problems import validation_problems


def json_object(request) -> dict:
    """The body as a JSON object, or a 400 saying what is wrong with it.

    Bounded before anything is built from it: Django refuses a body over
    `DATA_UPLOAD_MAX_MEMORY_SIZE` (413 `too_large`), `json_text` deep nesting, `NaN` and
    text no database stores (400 `invalid_json`).
    """
    if _empty(request):
        return {}
    try:
        body = json_text.loads(request.body)
    except json_text.JsonTextError as error:
        raise ActionError(400, "invalid_json", f"the body is {error}", field=error.field) from error
    if not isinstance(body, dict):
        raise ActionError(400, "invalid_json", "the body must be a JSON object")
    return body


def _empty(request) -> bool:
    """No body, or an empty form (what a bare POST from a browser or test client sends)."""
    if not request.body.strip():
        return True
    is_form = request.content_type in ("multipart/form-data", "application/x-www-form-urlencoded")
    try:
        return is_form and not request.POST and not request.FILES
    except MultiPartParserError:  # not a form after all: read as JSON, and refused as such
        return False


SAVE_FIELDS = ("revision", "base")
"""What a save's body carries besides the document: the revision it started from, and that
revision's document (to merge a stale save with)."""


def read_document(request) -> tuple[PipelineSpec, dict]:
    """The pipeline document in the body (read-only fields dropped) and the raw body; a
    refusal names every problem of the document, its graph's included."""
    body = json_object(request)
    return document_of(body), body


def document_of(body: dict) -> PipelineSpec:
    """The document in `body` without read-only and save fields; a refusal names every
    problem."""
    fields = {
        key: value for key, value in body.items() if key not in (*READ_ONLY_FIELDS, *SAVE_FIELDS)
    }
    return load_checked(fields)


def parse_body(model, body: dict):
    """`body` validated by a pydantic model, or a 422 naming every bad field.

    Parsed by hand, after the permission check, so that nobody learns anything about a
    pipeline they may not see from how their request was malformed.
    """
    try:
        return model.model_validate(body)
    except PydanticValidationError as error:
        problems = validation_problems(error.errors(), model)
        raise problems_error(
            422, "invalid_request", "the request is not valid", problems
        ) from error
