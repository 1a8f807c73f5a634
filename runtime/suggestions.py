""" "Did you mean …?": the closest known name to a misspelt one, for messages that name it.

One home for the rule, so that a column in a params field and a column or function in an
expression are suggested the same way.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable


def suggestion(name: str, candidates: Iterable[str]) -> str | None:
    """`did you mean 'age'?` for the candidate closest to a misspelt `name`, if one is close."""
    close = difflib.get_close_matches(name, [str(candidate) for candidate in candidates], n=1)
    return f"did you mean '{close[0]}'?" if close else None
