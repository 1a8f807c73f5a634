"""Regular expressions from users, run only by RE2, whose time is linear in the text.

Python's `re` backtracks: `(a+)+$` against thirty `a`s and a `!` takes it about a minute, and
pandas' `str.contains`/`str.fullmatch` fall back to `re` for some patterns. So a user's pattern
is checked here by `google-re2` (which refuses what it cannot run in linear time:
backreferences and lookaround) and matched by pyarrow's RE2 kernels over a whole column.

Belongs here: checking and matching user patterns. Does not belong here: the engine's own
fixed patterns, which are not user input.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import re2

from runtime.lazy import pa, pc, pd

if TYPE_CHECKING:
    import numpy as np

SYNTAX = "RE2 syntax, see https://github.com/google/re2/wiki/Syntax"
_OPTIONS = re2.Options()
_OPTIONS.log_errors = False
_UNSUPPORTED = ("invalid perl operator", "invalid escape sequence")
"""How RE2 words its refusal of lookaround (`(?=`, `(?<!`) and backreferences (`\\1`)."""


def check_pattern(pattern: str) -> str:
    """`pattern` if RE2 can run it; else ValueError with RE2's reason in the user's words."""
    try:
        re2.compile(pattern, _OPTIONS)
    except re2.error as error:
        reason = error.args[0]
        reason = reason.decode(errors="replace") if isinstance(reason, bytes) else str(reason)
        unsupported = reason.startswith(_UNSUPPORTED)
        note = "lookaround and backreferences are not supported; " if unsupported else ""
        raise ValueError(
            f"not a valid regular expression: {reason}; {note}patterns use {SYNTAX}"
        ) from error
    return pattern


def full_matches(values: pd.Series, pattern: str) -> np.ndarray:
    """Where each text matches `pattern` from start to end, as numpy bools (null: True)."""
    return whole_matches(values, check_pattern(pattern))


def whole_matches(values: pd.Series, pattern: str) -> np.ndarray:
    """`full_matches` for a pattern already checked (RE2 runs it in linear time)."""
    text = pa.array(values.astype("str"), type=pa.large_string())
    whole = f"\\A(?:{pattern})\\z"
    try:
        matched = pc.match_substring_regex(text, whole)
    except pa.ArrowInvalid as error:  # pyarrow's RE2 may be older than google-re2
        message = f"not a valid regular expression: {error}; patterns use {SYNTAX}"
        raise ValueError(message) from error
    return pc.fill_null(matched, True).to_numpy(zero_copy_only=False)
