"""The hypothesis settings and value strategies every property and fuzz test draws from.

Every property test is bounded and derandomized (CI runs the same cases every time, and no
example database is left behind); only the number of examples and the health checks that a
test's fixtures or slow steps trip differ.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import partial

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

INT64_MAX = 2**63 - 1


def bounded(max_examples: int, *, tolerate: Iterable[HealthCheck] = (), **extra) -> settings:
    """Settings for `max_examples` derandomized examples with no deadline."""
    return settings(
        max_examples=max_examples,
        derandomize=True,
        database=None,
        deadline=None,
        suppress_health_check=list(tolerate),
        **extra,
    )


# Text as documents and files hold it: valid UTF-8 (no lone surrogates) and no NUL, which no
# database stores (see tests/runtime/document/test_json_text.py).
texts = partial(st.text, st.characters(codec="utf-8", exclude_characters="\x00"))
finite_floats = st.floats(allow_nan=False, allow_infinity=False)
int64s = st.integers(-INT64_MAX, INT64_MAX)
json_scalars = st.none() | st.booleans() | st.integers() | texts(max_size=10)
# What a run parameter may hold: a JSON scalar that fits a 64-bit column.
parameter_values = st.none() | st.booleans() | int64s | finite_floats
