"""Relational algebra: what operators lower to, so a columnar backend can run them.

Operators that can lower (`Operator.lower`) describe their work as a tree of these nodes over
their inputs' relations; a backend renders a segment's tree into one query. The nodes are plain
frozen data (no backend is imported here), so plans can be compared, hashed and explained.
Expressions stay as their source text: a backend compiles them against the input's columns.
An output node lowers to a `Write`, a sink: the one relation that yields no rows, only a file.
Each node means exactly what its operator's `run` does on pandas, row order included: where
pandas defines an order (a file's, a sort's, a join's), a backend must be able to reproduce it
for the nodes that depend on it (`sort` ties, `limit`, `deduplicate`).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field, fields
from typing import Literal

from runtime.document.spec import Source
from runtime.errors import NotLowerable

EXACT_CASTS = {
    ("integer", "float"),
    ("integer", "string"),
    ("boolean", "integer"),
    ("boolean", "float"),
    ("date", "string"),
}
"""Conversions a backend reproduces exactly (besides a type to itself); the others (text to
numbers or dates, floats to integers ...) follow pandas' own parsing and rounding rules."""


def require_exact_cast(column: str, source: str, target: str) -> None:
    """Raise `NotLowerable` unless converting `column` from `source` to `target` is exact."""
    if source != target and (source, target) not in EXACT_CASTS:
        raise NotLowerable(f"converting '{column}' from {source} to {target} follows pandas' rules")


@dataclass(frozen=True)
class Relation:
    """Base class of all relational nodes."""

    def children(self) -> Iterator[Relation]:
        """The relations this one reads, in order."""
        for item in fields(self):
            value = getattr(self, item.name)
            if isinstance(value, Relation):
                yield value
            elif isinstance(value, tuple):
                yield from (child for child in value if isinstance(child, Relation))


@dataclass(frozen=True)
class Input(Relation):
    """Rows that enter the segment from outside it: another node's output, as a frame."""

    source: Source


class _Options:
    """`options` as (name, value) pairs, so that relations stay hashable."""

    options: tuple[tuple[str, object], ...]

    def option(self, name: str, default: object = None) -> object:
        return dict(self.options).get(name, default)


@dataclass(frozen=True)
class Scan(_Options, Relation):
    """Files read as their input operator reads them, in the files' row order.

    `path` is as the document names it: one file, a folder or a pattern, whose files a backend
    lists and resolves in the run's file area (runtime/io/file_patterns.py); `options` are the
    reader's settings as (name, value) pairs (csv: delimiter, header, skip_rows; both:
    file_name_column); `columns` the columns to read, in that order (None: all); `read` the
    columns anything downstream reads (column pruning, None: all), the only ones a backend
    converts (a file's other columns, of whatever type, are skipped).
    """

    format: Literal["csv", "parquet"]
    path: str
    options: tuple[tuple[str, object], ...] = ()
    columns: tuple[str, ...] | None = None
    read: tuple[str, ...] | None = None


@dataclass(frozen=True)
class Stored(Scan):
    """A node's result read back from the result store: a Parquet scan of `location`, a file
    the plan chose in the store (never a path a document wrote); `path` names it in messages."""

    location: str = ""


def scans_of(relation: Relation) -> Iterator[Scan]:
    """The scans (stored results included) `relation` reads, directly or through its children."""
    if isinstance(relation, Scan):
        yield relation
    for child in relation.children():
        yield from scans_of(child)


@dataclass(frozen=True)
class Filter(Relation):
    """The rows where `condition` (expression text; None: every row) is true and none of
    `unless` is (route's ports); null counts as false."""

    input: Relation
    condition: str | None
    unless: tuple[str, ...] = ()
    fields: tuple[tuple[str, str], ...] = field(default=(), compare=False, repr=False)
    """(expression text, the params field that holds it) of every condition of the node (a
    route's other ports' too, which pandas evaluates alike): for checks and messages, not for
    meaning."""


@dataclass(frozen=True)
class Mapping:
    """One computed column of a `Derive`: `expression` (text), converted to `type` if set."""

    target: str
    expression: str
    type: str | None = None
    field: str | None = field(default=None, compare=False, repr=False)
    """The params field that holds `expression`: for messages, not for meaning."""


@dataclass(frozen=True)
class Derive(Relation):
    """Columns computed in order (a mapping sees those before it); a replaced column keeps its
    place, new ones go last; only the computed ones stay unless `keep_other_columns`."""

    input: Relation
    mappings: tuple[Mapping, ...]
    keep_other_columns: bool = True


@dataclass(frozen=True)
class Project(Relation):
    """Some columns in this order (all, in input order, when empty), some renamed."""

    input: Relation
    columns: tuple[str, ...] = ()
    renames: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Cast(Relation):
    """Columns converted to public type names, (column, type) pairs."""

    input: Relation
    types: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class FillNulls(Relation):
    """Nulls of each named column replaced by a value already in the column's type."""

    input: Relation
    values: tuple[tuple[str, object], ...]


@dataclass(frozen=True)
class DropNulls(Relation):
    """The rows with no null in any of `columns`."""

    input: Relation
    columns: tuple[str, ...]


@dataclass(frozen=True)
class AggregateCall:
    """One summary column: `function` over `column` (None: the rows, for size) or over the
    values of `expression` (text), counting only the rows where `where` (a condition's text;
    null counts as false) is true, as SQL's `FILTER (WHERE ...)`; named `name`."""

    function: str
    column: str | None
    name: str
    expression: str | None = None
    where: str | None = None
    field: str | None = field(default=None, compare=False, repr=False)
    """The params field of the aggregation (`aggregations[2]`): for messages, not meaning."""


@dataclass(frozen=True)
class Aggregate(Relation):
    """One row per distinct `group_by` combination (nulls are a group), ordered by those
    columns with nulls last; one row in all without `group_by`. Group columns then summaries."""

    input: Relation
    group_by: tuple[str, ...]
    aggregations: tuple[AggregateCall, ...]


@dataclass(frozen=True)
class Broadcast(Relation):
    """Every row of `input` with `value`'s `columns` appended: `value` gives at most one row
    (its values on every row; nulls when it has none); more rows are an error naming the
    node. Rows stay in `input`'s order."""

    input: Relation
    value: Relation
    columns: tuple[str, ...]


BROADCAST_NEEDS = "broadcast needs at most one"
"""The end of the message of a broadcast whose value gives more than one row, on every backend
(`value gives 3 rows; broadcast needs at most one`)."""


@dataclass(frozen=True)
class JoinColumn:
    """One output column of a join: `source` from the `left` or `right` side, or `key`: a key
    named alike on both sides, held once."""

    side: Literal["left", "right", "key"]
    source: str
    name: str
    as_float: bool = False


@dataclass(frozen=True)
class Join(Relation):
    """pandas' merge: keys match when equal or both null; the output columns as listed.

    `semi` keeps each left row that has a match once, `anti` each that has none (left columns
    only). With a `condition` (expression text over both sides' columns, whose names are all
    distinct: the operator renames the sides first), only the key-matched pairs where it is
    true match, as SQL's `ON keys AND condition` (inner, left, semi and anti only).

    Row order as pandas gives it: inner and left follow the left rows (then the right ones),
    semi and anti the left rows, right the right rows, outer the keys in ascending order
    (nulls last).
    """

    left: Relation
    right: Relation
    how: Literal["inner", "left", "right", "outer", "semi", "anti"]
    keys: tuple[tuple[str, str], ...]
    columns: tuple[JoinColumn, ...]
    condition: str | None = None


@dataclass(frozen=True)
class Union(Relation):
    """Inputs stacked in order, columns matched by name (`columns`, in output order; a column
    an input lacks is null there, integer with float gives float)."""

    inputs: tuple[Relation, ...]
    columns: tuple[str, ...]


@dataclass(frozen=True)
class Sort(Relation):
    """Rows ordered by (column, descending) keys, stably: ties keep their input order."""

    input: Relation
    keys: tuple[tuple[str, bool], ...]
    nulls_last: bool = True


@dataclass(frozen=True)
class Distinct(Relation):
    """One row per distinct combination of `columns` (all when empty; nulls equal), the first
    or last in input order, kept in input order."""

    input: Relation
    columns: tuple[str, ...] = ()
    keep: Literal["first", "last"] = "first"


@dataclass(frozen=True)
class Limit(Relation):
    """The first `n` rows in input order."""

    input: Relation
    n: int


SINK = "file"
"""The key of an output node's `Write` among its relations: an output has no ports."""


@dataclass(frozen=True)
class Write(_Options, Relation):
    """`input`'s rows written to the file at `path` (as the document names it) the way the
    output operator's `run` writes them: what pandas' readers and the input operators read
    back from the file is the same, dtypes included. The file appears whole or not at all,
    as `mode` says (overwrite, append: no second header, error_if_exists). `options` are the
    writer's settings (csv: delimiter, header; parquet: compression)."""

    input: Relation
    format: Literal["csv", "parquet"]
    path: str
    mode: str = "overwrite"
    options: tuple[tuple[str, object], ...] = ()


@dataclass(frozen=True)
class Pivot(Relation):
    """`pivot`: the rows whose `column` is one of `values` (in the column's type), grouped by
    `index` as `Aggregate` groups (sorted, nulls last; one row in all without `index`), with
    one column `names[i]`: `function` of `value` over the group's rows holding `values[i]`.
    first and last follow the input's row order."""

    input: Relation
    index: tuple[str, ...]
    column: str
    values: tuple[object, ...]
    value: str
    function: str
    names: tuple[str, ...]


@dataclass(frozen=True)
class Unpivot(Relation):
    """`unpivot`: for each input row in order, one row per column of `columns` in order, with
    the `index` columns, the column's name in `name` and its value in `value` (integers with
    floats: floats); nulls are kept."""

    input: Relation
    index: tuple[str, ...]
    columns: tuple[str, ...]
    name: str
    value: str


@dataclass(frozen=True)
class WindowCall:
    """One window function's column: `function` over `column` (None: none, or rows for
    count), named `name`; lag/lead's `offset` and `default` (already of the column's type);
    `frame` (rows preceding, rows following; None: unbounded) or None: the default frame,
    from the partition's start to the current row's last peer (the whole partition when the
    window has no order)."""

    function: str
    column: str | None
    name: str
    offset: int = 1
    default: object = None
    frame: tuple[int | None, int | None] | None = None


@dataclass(frozen=True)
class Window(Relation):
    """Every input row, in input order, with one column per call computed over the rows of
    its partition (rows equal on `partition_by`, nulls equal) in `order_by` order ((column,
    descending) keys, nulls last or first as a sort puts them; ties in input order, which
    row_number, lag/lead, first/last and explicit frames depend on)."""

    input: Relation
    partition_by: tuple[str, ...]
    order_by: tuple[tuple[str, bool], ...]
    calls: tuple[WindowCall, ...]
    nulls_last: bool = True
