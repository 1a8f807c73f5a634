"""What a join's `condition` and its semi and anti kinds mean, on pandas and as relations.

A condition reads the joined row, its columns named as the inner join names them, and is
evaluated on the pairs whose keys match (null keys matching each other, as in every join):
only the pairs where it is true match, as in SQL's `ON keys AND condition`. An inner join keeps
those pairs; a left join also keeps, once and with nulls on the right, each left row none of
whose pairs match; a semi join keeps each left row with at least one, an anti join each with
none, in the left rows' order. On pandas a semi or anti join merges only what it needs (the
keys, the columns the condition reads and a left row number, the right keys once each without
a condition), so that its memory is that of the matching pairs, never of both tables' columns.

On DuckDB the sides are renamed to the joined row's names first (a right key named like its
left key gets a name of its own), so that the condition's columns name one column each in the
`ON` clause.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from runtime import relational
from runtime.errors import NotLowerable, ParamsError
from runtime.expressions import ExpressionError, condition_array, infer_type, referenced_columns
from runtime.expressions.to_sql import to_sql_condition
from runtime.lazy import np, pd
from runtime.operators.column_names import needed_with
from runtime.tables.schema import Schema, a_type

if TYPE_CHECKING:
    from runtime.operators.combine import JoinParams, JoinPlan

FILTERING = ("semi", "anti")
"""The joins that give left rows only (each at most once), never a right column."""


def check(condition: str, joined: Schema) -> None:
    """Raise a `ParamsError` at `condition` unless it is a condition over the joined row."""
    try:
        result_type, _ = infer_type(condition, joined)
    except ExpressionError as error:
        raise ParamsError("condition", str(error), error.position) from error
    if result_type != "boolean":
        raise ParamsError("condition", f"must be true or false, but it gives {a_type(result_type)}")


def input_columns(params: JoinParams, wanted: set[str] | None) -> dict[str, set[str] | None]:
    """The columns each side must give for `wanted` output columns and the condition.

    Which columns clash (and so get the suffixes) depends on both sides' columns: a name read
    downstream or by the condition is asked of both sides, with and without each suffix, so
    that a clash that gave it its name is still there (a name a side lacks costs nothing)."""
    read = referenced_columns(params.condition) if params.condition else frozenset()
    if params.how in FILTERING:
        origins = _origins(read, params.suffixes)
        return {
            "left": needed_with(wanted, [*params.left_on, *origins]),
            "right": {*params.right_on, *origins},
        }
    if wanted is None:
        return {"left": None, "right": None}
    origins = _origins({*wanted, *read}, params.suffixes)
    return {"left": {*params.left_on, *origins}, "right": {*params.right_on, *origins}}


def _origins(names: Iterable[str], suffixes: list[str]) -> set[str]:
    """`names` and, for those ending in a suffix, the names without it."""
    found = set(names)
    for name in names:
        for suffix in suffixes:
            if suffix and name.endswith(suffix) and len(name) > len(suffix):
                found.add(name[: -len(suffix)])
    return found


def pair_layout(
    params: JoinParams, plan: JoinPlan, left_names: Iterable[str], right_names: Iterable[str]
) -> dict:
    """The arguments of `key_pairs` for a semi or anti join (a compiled script writes them
    out): which left and right columns the pairs hold, under which names."""
    by_name = {column.name: (side, source) for side, source, column in plan.sources}
    read = sorted(referenced_columns(params.condition)) if params.condition else []
    taken = {*read, *left_names, *right_names}
    keys = [_fresh(f"__pw_key{number}", taken) for number in range(len(params.left_on))]
    mine = dict(zip(keys, params.left_on, strict=True))
    theirs = dict(zip(keys, params.right_on, strict=True))
    widened = []
    for name in read:
        side, source = by_name[name]
        (theirs if side == "right" else mine)[name] = source
        if side == "key" and source in plan.widened_keys:
            widened.append(name)
    return {
        "mine": mine,
        "theirs": theirs,
        "keys": keys,
        "position": _fresh("__pw_left_row", taken),
        "widened": widened,
        "distinct": params.condition is None,
    }


def key_pairs(left, right, mine, theirs, keys, position, widened, distinct):
    """The key-matched pairs of left and right rows: the left row's number (`position`) and
    the columns named in `mine` (pairs' name → left column; floats for `widened`) and
    `theirs`. With `distinct`, each left row pairs with each distinct right key once."""
    left_part = pd.DataFrame(
        {
            position: np.arange(len(left)),
            **{
                name: (left[source].astype("float64") if name in widened else left[source]).array
                for name, source in mine.items()
            },
        }
    )
    right_part = pd.DataFrame({name: right[source].array for name, source in theirs.items()})
    if distinct:
        right_part = right_part.drop_duplicates()  # a left row's matches: one each at most
    return left_part.merge(right_part, on=keys, how="inner")


def rows_with(count: int, positions, matched: bool):
    """The positions of the rows, of `count`, that are among `positions` (or are not)."""
    found = np.zeros(count, dtype=bool)
    found[positions] = True
    return np.flatnonzero(found if matched else ~found)


def matched_left_rows(
    params: JoinParams, plan: JoinPlan, left: pd.DataFrame, right: pd.DataFrame
) -> np.ndarray:
    """The positions of the left rows a semi (or anti) join keeps."""
    layout = pair_layout(params, plan, left.columns, right.columns)
    pairs = key_pairs(left, right, **layout)
    positions = pairs[layout["position"]].to_numpy()
    if params.condition is not None:
        positions = positions[condition_array(params.condition, pairs)]
    return rows_with(len(left), positions, params.how == "semi")


def join_rows(params: JoinParams, plan: JoinPlan, left_names, right_names) -> tuple[str, str]:
    """The names of the left and right row numbers a conditional join's merge carries."""
    taken = {*left_names, *right_names, *(column.name for column in plan.columns)}
    return _fresh("__pw_left_row", taken), _fresh("__pw_right_row", taken)


def conditional_join(
    params: JoinParams, plan: JoinPlan, left: pd.DataFrame, right: pd.DataFrame
) -> pd.DataFrame:
    """An inner or left join whose key-matched pairs match only where the condition holds."""
    names = [column.name for column in plan.columns]
    position, other = join_rows(params, plan, left.columns, right.columns)
    joined = left.assign(**{position: np.arange(len(left))}).merge(
        right.assign(**{other: np.arange(len(right))}),
        how=params.how,
        left_on=params.left_on,
        right_on=params.right_on,
        suffixes=tuple(params.suffixes),
    )
    if plan.widened_keys:
        joined = joined.assign(**{key: joined[key].astype("float64") for key in plan.widened_keys})
    kept = condition_array(params.condition, joined)
    if params.how == "inner":
        return joined.take(np.flatnonzero(kept))[names].reset_index(drop=True)
    right_names = [column.name for side, _, column in plan.sources if side == "right"]
    return kept_left_rows(joined, kept, position, other, len(left), right_names)[names]


def kept_left_rows(joined, kept, position, other, count, right_names):
    """Of a left join's rows (`joined`, carrying the left and right row numbers `position` and
    `other`), the pairs `kept`, the unpaired left rows, and for each left row of `count` none of
    whose pairs was kept its first row, with nulls in the right columns `right_names`."""
    rows = joined[position].to_numpy()
    paired = joined[other].notna().to_numpy()
    kept = kept & paired
    any_kept = np.zeros(count, dtype=bool)
    any_kept[rows[kept]] = True
    first = np.ones(len(rows), dtype=bool)  # a left row's pairs follow each other
    first[1:] = rows[1:] != rows[:-1]
    lost = paired & first & ~any_kept[rows]
    chosen = np.flatnonzero(kept | ~paired | lost)
    result = joined.take(chosen).reset_index(drop=True)
    lost = lost[chosen]
    if lost.any():
        result = result.assign(**{name: result[name].mask(lost) for name in right_names})
    return result


def lowered(
    params: JoinParams,
    plan: JoinPlan,
    inputs: dict[str, relational.Relation],
    keys: tuple[tuple[str, str], ...],
) -> relational.Join:
    """The join as a relation over both sides renamed to the joined row's names."""
    if plan.widened_keys:
        raise NotLowerable(
            f"a condition beside the key '{plan.widened_keys[0]}', integer on one side and "
            "float on the other, runs on pandas"
        )
    joined = Schema(tuple(column for _, _, column in plan.sources))
    if to_sql_condition(params.condition, joined).bounds:  # NotLowerable if DuckDB differs
        raise NotLowerable("a join condition that builds text runs on pandas")
    taken = set(joined.names)
    renamed = {"left": {}, "right": {}}
    for side, source, column in plan.sources:
        if side == "key":
            renamed["left"][source] = column.name
            renamed["right"][source] = _fresh(f"__pw_right_{source}", taken)
            taken.add(renamed["right"][source])
        else:
            renamed[side][source] = column.name
    sides = {
        side: relational.Project(inputs[side], (), tuple(renamed[side].items()))
        if any(old != new for old, new in renamed[side].items())
        else inputs[side]
        for side in ("left", "right")
    }
    pairs = tuple((renamed["left"][key], renamed["right"][other]) for key, other in keys)
    if params.how in FILTERING:
        columns = tuple(
            relational.JoinColumn("left", renamed["left"][column.name], column.name)
            for column in plan.columns
        )
    else:
        columns = tuple(
            relational.JoinColumn("right" if side == "right" else "left", column.name, column.name)
            for side, _, column in plan.sources
        )
    return relational.Join(
        sides["left"], sides["right"], params.how, pairs, columns, params.condition
    )


def _fresh(name: str, taken: set[str]) -> str:
    """`name`, with underscores added until it is none of `taken`."""
    while name in taken:
        name += "_"
    return name
