"""Printing benchmark results as aligned text tables (shared by every benchmark)."""

from __future__ import annotations


def print_table(headers: list[str], rows: list[list]) -> None:
    """Left-align the first column, right-align the others; floats keep their given text."""
    cells = [headers] + [[_text(value) for value in row] for row in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(headers))]
    for index, row in enumerate(cells):
        line = [row[0].ljust(widths[0])] + [
            c.rjust(w) for c, w in zip(row[1:], widths[1:], strict=True)
        ]
        print("  ".join(line).rstrip())
        if index == 0:
            print("  ".join("-" * width for width in widths))


def ratio(value: float, reference: float | None) -> str:
    """`value` as a multiple of `reference` ("0.56x"), or "n/a" without a reference."""
    if not reference:
        return "n/a"
    return f"{value / reference:.2f}x"


def _text(value) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:.4f}" if value < 10 else f"{value:.1f}"
    return str(value)
