"""The OpenAPI contract of the expression language: its functions, operators and constants."""

from __future__ import annotations

from ninja import Schema
from pydantic import Field


class ExpressionFunction(Schema):
    name: str
    usage: str = Field(description="Its signature: `substr(text, start, length?)`.")
    returns: str = Field(description="The type of its result (number: as its argument's).")
    help: str = Field(description="What it does, in one line.")


class ExpressionOperator(Schema):
    name: str
    usage: str
    help: str


class ExpressionConstant(Schema):
    name: str
    help: str


class ExpressionLanguage(Schema):
    """What an expression may use, from the runtime's registry, and its documentation page."""

    functions: list[ExpressionFunction]
    operators: list[ExpressionOperator]
    constants: list[ExpressionConstant]
    keywords: list[str] = Field(
        description="The words the lexer reserves (and, case, like ...): completed, highlighted, "
        "and a column of that name is written in backticks."
    )
    docs_url: str
