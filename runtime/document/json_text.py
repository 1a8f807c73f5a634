"""Reading JSON text from outside: bounded nesting, finite numbers, text every database stores.

`json.loads` alone accepts `NaN` and `Infinity` (which no JSON column stores), recurses until
Python's stack runs out on `[[[[…`, and passes on NUL characters and lone surrogates, which
PostgreSQL refuses to store and UTF-8 cannot encode. `loads` refuses each of them with a
message that names the place; `check` does the same for a value already parsed. What the
value means is for the caller to validate.
"""

from __future__ import annotations

import json
import re

MAX_DEPTH = 64
"""Arrays and objects nested deeper than this are refused (a document needs about ten)."""

_UNSTORABLE = re.compile(r"[\x00\ud800-\udfff]")


class JsonTextError(ValueError):
    """Text that is not JSON Pipewright accepts: the `reason`, and the dotted `field` if known.

    The message reads after "the body is" or "the file is": "not valid JSON: …",
    "nested deeper than 64 levels", "refused: …".
    """

    def __init__(self, message: str, field: str | None = None):
        super().__init__(f"{message} (at {field})" if field else message)
        self.reason = message
        self.field = field


def loads(text: str | bytes, max_depth: int = MAX_DEPTH):
    """The JSON value in `text`, or `JsonTextError` saying what is wrong and where."""
    try:
        value = json.loads(text, parse_constant=_refuse_constant, parse_float=_finite_float)
    except RecursionError as error:
        raise JsonTextError(f"nested deeper than {max_depth} levels") from error
    except json.JSONDecodeError as error:
        raise JsonTextError(
            f"not valid JSON: {error.msg} at line {error.lineno} column {error.colno}"
        ) from error
    except UnicodeDecodeError as error:
        raise JsonTextError(f"not UTF-8 text ({error.reason})") from error
    except JsonTextError:
        raise
    except ValueError as error:  # an integer of more than 4,300 digits
        raise JsonTextError(f"not valid JSON: {str(error).split(';')[0]}") from error
    check(value, max_depth)
    return value


def check(value, max_depth: int = MAX_DEPTH) -> None:
    """Refuse nesting deeper than `max_depth` and text no database stores, naming the place."""
    _check(value, (), max_depth)


def _refuse_constant(name: str):
    raise JsonTextError(f"not valid JSON: {name} is not a JSON number; send a number or null")


def _finite_float(text: str) -> float:
    number = float(text)
    if number in (float("inf"), float("-inf")):
        raise JsonTextError(f"not valid JSON: the number {text[:40]} is too large")
    return number


def _check(value, path: tuple, max_depth: int) -> None:
    if isinstance(value, str):
        if _UNSTORABLE.search(value):
            raise JsonTextError(
                "refused: text may not hold the NUL character or a lone surrogate "
                "(\\u0000, \\ud800…), which no database stores",
                _dotted(path),
            )
        return
    if not isinstance(value, dict | list):
        return
    if len(path) >= max_depth:
        raise JsonTextError(f"nested deeper than {max_depth} levels", _dotted(path))
    items = value.items() if isinstance(value, dict) else enumerate(value)
    for key, item in items:
        if isinstance(key, str):
            _check(key, path, max_depth)
        _check(item, (*path, key), max_depth)


def _dotted(path: tuple) -> str | None:
    return ".".join(str(part) for part in path) or None
