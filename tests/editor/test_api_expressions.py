"""`GET /api/expressions` and the language's documentation page: one registry, the runtime's,
behind the API, the editor's completion and docs/expressions.md."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.test import Client

from runtime.expressions.functions import FUNCTIONS
from runtime.expressions.language import with_function_table
from runtime.expressions.lexer import KEYWORDS

pytestmark = pytest.mark.django_db

DOCS = Path(__file__).resolve().parents[2] / "docs" / "expressions.md"


def test_the_language_lists_every_function_with_usage_result_and_help(client):
    response = client.get("/api/expressions")
    assert response.status_code == 200, response.content
    body = response.json()
    assert [function["name"] for function in body["functions"]] == list(FUNCTIONS)
    substr = next(function for function in body["functions"] if function["name"] == "substr")
    assert substr["usage"] == "substr(text, start, length?)"
    assert substr["returns"] == "string" and substr["help"]
    assert {"and", "between", "is null"} <= {operator["name"] for operator in body["operators"]}
    assert body["docs_url"] == "/docs/expressions/"
    assert body["keywords"] == sorted(KEYWORDS)  # the lexer's: the editor backticks columns so


def test_the_language_needs_a_signed_in_user():
    assert Client().get("/api/expressions").status_code == 401


def test_the_docs_function_table_is_the_registrys():
    """Fails when a function's help changed without `python -m runtime.expressions.language`."""
    page = DOCS.read_text(encoding="utf-8")
    assert with_function_table(page) == page


def test_the_docs_page_renders_the_language_page_for_a_signed_in_user(client):
    response = client.get("/docs/expressions/")
    assert response.status_code == 200
    html = response.content.decode()
    assert "<h1>Expressions</h1>" in html
    assert "<code>substr(text, start, length?)</code>" in html


def test_the_docs_page_sends_others_to_sign_in():
    response = Client().get("/docs/expressions/")
    assert response.status_code == 302 and response.url.startswith("/accounts/login/")


def test_an_unknown_docs_page_is_not_found(client):
    assert client.get("/docs/security/").status_code == 404
    assert client.get("/docs/..%2Fpyproject/").status_code == 404
