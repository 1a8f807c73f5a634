"""Pipewright's expression language: filters and derived fields over pandas DataFrames.

Users write small expressions such as `age > 18 and country in ('FR', 'DE')` or
`upper(name)`. This package reads them with its own tokenizer and parser (never `eval`,
`pandas.eval` or `DataFrame.query`), checks them against a `Schema`, and compiles them to
vectorised pandas operations. Its only exception is `ExpressionError`. The language itself is
documented in docs/expressions.md.

Belongs here: the grammar, type rules, null rules and the whitelist of functions.
Does not belong here: deciding which operator runs an expression, substituting `${param}`
(callers do that with `literal()`), or reading and writing data.
"""

from .compiler import compile_expression, condition_array, evaluate, filter_mask, infer_type
from .errors import ExpressionError
from .lexer import MAX_LENGTH, literal
from .nodes import Expression
from .parser import MAX_DEPTH, parse, referenced_columns

__all__ = [
    "MAX_DEPTH",
    "MAX_LENGTH",
    "Expression",
    "ExpressionError",
    "compile_expression",
    "condition_array",
    "evaluate",
    "filter_mask",
    "infer_type",
    "literal",
    "parse",
    "referenced_columns",
]
