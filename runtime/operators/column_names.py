"""The column names a node's params hold: each must exist (else a "did you mean"), and column
pruning keeps them; and which of a source's columns an input reads (`read_names`). Used by
every operator family, file and SQL outputs included; the types those columns must have are
`runtime/operators/column_params.py`'s job."""

from __future__ import annotations

from collections.abc import Iterable

from runtime.errors import ParamsError
from runtime.suggestions import suggestion


def unknown_column_message(name: str, available: Iterable[str]) -> str:
    """`unknown column 'contry'; did you mean 'country'?` (or the list of columns)."""
    available = [str(column) for column in available]
    hint = suggestion(name, available) or f"the columns are: {', '.join(available) or 'none'}"
    return f"unknown column '{name}'; {hint}"


def require_columns(field: str, names: Iterable[str], available: Iterable[str]) -> None:
    """Raise `ParamsError` at `field` for the first name not among `available`."""
    available = list(available)
    present = set(available)
    for name in names:
        if name not in present:
            raise ParamsError(field, unknown_column_message(name, available))


def needed_with(wanted: set[str] | None, names: Iterable[str]) -> set[str] | None:
    """For column pruning: the columns wanted downstream plus `names` (None stays all)."""
    return None if wanted is None else set(wanted) | set(names)


def read_names(names: list[str], wanted: set[str] | None) -> list[str]:
    """Of a file's top-level columns `names`, those to read for the columns anything
    downstream reads (`wanted`, None: all; column pruning): a nested record when one of its
    fields (`address.city`) is wanted, and the first column when none is, so that the rows
    are still counted. A file naming a column twice is read whole."""
    if wanted is None or len(set(names)) < len(names):
        return names
    kept = [
        name
        for name in names
        if name in wanted or any(column.startswith(f"{name}.") for column in wanted)
    ]
    return kept or names[:1]
