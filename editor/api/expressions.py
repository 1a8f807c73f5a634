"""`GET /api/expressions`: the expression language's functions, operators and constants, for
the editor's completion, and where its documentation page is."""

from django.urls import reverse
from ninja import Router

from editor.api.schemas.contract import answers
from editor.api.schemas.expressions import ExpressionLanguage
from runtime.expressions.language import language_json

router = Router()


@router.get("", response=answers({200: ExpressionLanguage}), summary="The expression language")
def expression_language(request):
    """Every function with its usage, result type and one-line help, from the runtime's
    registry (the same words as docs/expressions.md)."""
    return {**language_json(), "docs_url": reverse("docs-page", args=["expressions"])}
