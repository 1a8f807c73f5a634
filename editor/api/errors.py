"""API errors as JSON `{code, message, node, field}`: bad input is a 4xx, never a 500."""

from __future__ import annotations

from django.core.exceptions import RequestDataTooBig
from django.http import Http404
from ninja.errors import AuthenticationError, HttpError, ValidationError

from editor.errors import ActionError, problems_error
from runtime.errors import NodeExecutionError, PipelineValidationError


def error_body(code: str, message: str, node=None, field=None, **extra) -> dict:
    return {"code": code, "message": message, "node": node, "field": field, **extra}


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
        return answer(request, 422, error_body("node_failed", str(error), node=error.node_id))

    @api.exception_handler(ValidationError)
    def invalid_request(request, error: ValidationError):
        first = error.errors[0] if error.errors else {}
        location = [
            str(part)
            for part in first.get("loc", ())
            if part not in ("body", "query", "path", "payload")
        ]
        field = ".".join(location) or None
        message = (
            f"{field}: {first.get('msg')}" if field else str(first.get("msg", "invalid request"))
        )
        return answer(
            request, 422, error_body("invalid_request", message, field=field, errors=error.errors)
        )

    @api.exception_handler(AuthenticationError)
    def unauthenticated(request, error):
        return answer(
            request, 401, error_body("unauthenticated", "sign in, or send a bearer token")
        )

    @api.exception_handler(Http404)
    def not_found(request, error):
        return answer(request, 404, error_body("not_found", str(error) or "not found"))

    @api.exception_handler(HttpError)
    def http_error(request, error: HttpError):
        code = "csrf_failed" if error.status_code == 403 else "http_error"
        return answer(request, error.status_code, error_body(code, str(error)))

    @api.exception_handler(RequestDataTooBig)
    def too_big(request, error):
        return answer(request, 413, error_body("too_large", "the request body is too large"))
