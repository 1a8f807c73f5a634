"""Bounds on the text one evaluation may build, checked before the text is built.

`replace(name, 'a', 'aaaaaaaaaa')` makes every `a` ten bytes; nested three times, a thousand.
So each function that can grow text works out the UTF-8 size of its result from its inputs
first (integer arrays: cheap), and is refused when one value would pass `MAX_VALUE_BYTES` or
the whole column `MAX_COLUMN_BYTES`. The same holds for a constant repeated on every row.
The checks sit in the functions themselves, so every caller (schema inference, which folds
constants, previews and runs) is bound by them.

Functions that cannot grow text, or only by a small constant factor of a text that was itself
bounded, are not checked: `strip` and `substr` shrink it, `upper` and `lower` at most triple
its bytes (a few letters, such as `ΐ`, become three characters).
"""

from __future__ import annotations

from runtime.lazy import np, pa, pc, pd

MAX_VALUE_BYTES = 1 << 20
"""The most UTF-8 bytes one text value built by an expression may hold."""
MAX_COLUMN_BYTES = 256 << 20
"""The most UTF-8 bytes of text one expression may build for a whole column."""


def text_sizes(value: object, rows: int) -> np.ndarray:
    """The UTF-8 size of `value` on each of `rows` rows (a null counts 0, a scalar repeats)."""
    if isinstance(value, pd.Series):
        return _lengths(pc.binary_length(_arrow(value)))
    return np.full(rows, 0 if value is None else text_bytes(value), dtype=np.int64)


def replaced_sizes(text: object, rows: int, old: str, new: str) -> np.ndarray:
    """The UTF-8 size of each row's text once every `old` in it is `new` (at most)."""
    sizes = text_sizes(text, rows)
    growth = text_bytes(new) - text_bytes(old)
    if growth <= 0:
        return sizes
    if isinstance(text, pd.Series):
        # An empty `old` matches between characters: one more than bytes, at most.
        counts = _lengths(pc.count_substring(_arrow(text), old))
    else:
        counts = np.full(rows, text.count(old), dtype=np.int64)
    return sizes + counts * growth


def joined_sizes(*items: object) -> np.ndarray:
    """The UTF-8 size of each row's texts of `items` put end to end (one is a Series)."""
    rows = next(len(item) for item in items if isinstance(item, pd.Series))
    return sum(text_sizes(item, rows) for item in items)


def oversize(total: int, largest: int) -> str | None:
    """What is too large about a text result of `total` bytes, `largest` in one value, or None."""
    if total > MAX_COLUMN_BYTES:
        return (
            f"the result would be {size_text(total)}, "
            f"more than the {size_text(MAX_COLUMN_BYTES)} a column may hold"
        )
    if largest > MAX_VALUE_BYTES:
        return (
            f"a value of the result would be {size_text(largest)}, "
            f"more than the {size_text(MAX_VALUE_BYTES)} one value may hold"
        )
    return None


def size_text(size: int) -> str:
    """`3.2 GiB`, `256 MiB`, `12 bytes`: a size in bytes as people read it."""
    if size < 1024:
        return f"{size} bytes"
    for unit in ("KiB", "MiB", "GiB", "TiB"):
        size /= 1024
        if size < 1024 or unit == "TiB":
            break
    return f"{size:.1f} {unit}".replace(".0 ", " ")


def _arrow(series: pd.Series) -> pa.Array | pa.ChunkedArray:
    return pa.array(series.astype("str"), from_pandas=True)


def _lengths(array: pa.Array | pa.ChunkedArray) -> np.ndarray:
    return pc.fill_null(array, 0).to_numpy().astype(np.int64, copy=False)


def text_bytes(text: str) -> int:
    """The UTF-8 size of `text`."""
    return len(text.encode("utf-8", "surrogatepass"))
