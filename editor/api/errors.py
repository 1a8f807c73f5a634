"""API errors as JSON `{code, message, node, field}`: bad input is a 4xx, never a 500."""

from __future__ import annotations

from django.core.exceptions import RequestDataTooBig
from django.db import InterfaceError, OperationalError
from django.http import Http404
from ninja.errors import AuthenticationError, HttpError, ValidationError

from editor.database.outage_responses import unavailable
from editor.errors import ActionError, error_json, problems_error
from runtime import NodeExecutionError, PipelineValidationError
from runtime.document.problems import validation_problems

REQUEST_PARTS = ("body", "query", "path", "payload")
"""Where django-ninja says a bad value was; not part of the field's name."""


def install_error_handlers(api) -> None:
    """Map each error kind to its status and code."""

    def answer(request, status: int, body: dict):
        return api.create_response(request, body, status=status)

    @api.exception_handler(ActionError)
    def action_error(request, error: ActionError):
        return answer(request, error.status, error.to_json())

    @api.exception_handler(PipelineValidationError)
    def invalid_document(request, error: PipelineValidationError):
        refused = problems_error(
            400, "invalid_document", "the document is not valid", error.problems
        )
        return answer(request, 400, refused.to_json())

    @api.exception_handler(NodeExecutionError)
    def node_failed(request, error: NodeExecutionError):
        return answer(request, 422, error_json("node_failed", str(error), node=error.node_id))

    @api.exception_handler(ValidationError)
    def invalid_request(request, error: ValidationError):
        located = [
            {**item, "loc": tuple(part for part in item["loc"] if part not in REQUEST_PARTS)}
            for item in error.errors
        ]
        refused = problems_error(
            422, "invalid_request", "the request is not valid", validation_problems(located)
        )
        return answer(request, 422, refused.to_json())

    @api.exception_handler(AuthenticationError)
    def unauthenticated(request, error):
        return answer(
            request, 401, error_json("unauthenticated", "sign in, or send a bearer token")
        )

    @api.exception_handler(Http404)
    def not_found(request, error):
        return answer(request, 404, error_json("not_found", str(error) or "not found"))

    @api.exception_handler(HttpError)
    def http_error(request, error: HttpError):
        code = "csrf_failed" if error.status_code == 403 else "http_error"
        return answer(request, error.status_code, error_json(code, str(error)))

    @api.exception_handler(OperationalError)
    @api.exception_handler(InterfaceError)
    def database_away(request, error):
        return unavailable(request)

    @api.exception_handler(RequestDataTooBig)
    def too_big(request, error):
        return answer(request, 413, error_json("too_large", "the request body is too large"))
