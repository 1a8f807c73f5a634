"""A segment's relational tree as one DuckDB query: one CTE per relation, identifiers quoted,
every value a bound `?` parameter, column types as the pandas backend gives them.

Row order is part of the meaning (runtime/relational.py). A rendered relation is either
*natural* (DuckDB's stream order, kept by `preserve_insertion_order`, is pandas' order: scans,
frames, and row-wise nodes over them), ordered by hidden columns it carries (after a sort, an
aggregate, or where a consumer needs the order), or unordered (a multiset). Hidden columns are
only computed for relations whose order something downstream needs (`_needing_order`): a sort
breaks ties by them, `limit` and `deduplicate` follow them, and an exit is returned in them.

A rendered relation's columns say whether they may hold nulls (`Column.nullable`), from what
is certain: a frame's own values, a filter rejecting nulls of a column, drop-nulls and
fill-nulls, carried through projections, casts, sorts and joins; anything else may. A join
matches null keys to each other, as pandas' merge does, only where both keys may be null
(`IS NOT DISTINCT FROM`); elsewhere it is a plain `=`, which DuckDB plans better (a hash join
whose build side's key range filters the probe side's scan).
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path

from runtime import relational as rel
from runtime.backends.duckdb import reshape
from runtime.backends.duckdb.bounds import Check
from runtime.backends.duckdb.clauses import (
    JOINS,
    LEFT,
    RIGHT,
    join_condition,
    join_order,
    join_value,
    joined_nullable,
    summary,
)
from runtime.backends.duckdb.rendered import OrderKey, Rendered
from runtime.backends.duckdb.scans import ScanSql, scan_sql, session_zone, stored_sql
from runtime.backends.duckdb.windows import window_calls
from runtime.errors import NotLowerable
from runtime.expressions.nulls import null_rejected_columns
from runtime.expressions.sql_parts import SQL_TYPES
from runtime.expressions.sql_parts import identifier as quoted
from runtime.expressions.to_sql import to_sql, to_sql_condition, to_sql_predicate
from runtime.io.file_patterns import InputFile
from runtime.io.paths import FileArea
from runtime.lazy import pa
from runtime.tables.frames import public_type
from runtime.tables.schema import Column, Schema
from runtime.tables.spilled import SpilledRows


@dataclass
class Query:
    """The CTEs of a segment, the frames and files they read, and how to select an exit."""

    ctes: list[tuple[str, str, tuple]] = field(default_factory=list)
    tables: dict[str, pa.Table] = field(default_factory=dict)
    spills: list[Path] = field(default_factory=list)
    """The files of rows that inputs spilled (runtime/tables/spilled.py), which the session
    reads."""
    scans: dict[str, tuple[InputFile, ...]] = field(default_factory=dict)
    """Each path a scan reads, as the document writes it → the files it names (for the
    session, for messages and for the profile)."""
    checks: list[Check] = field(default_factory=list)
    """The text-size bounds to check before any query runs, in pandas' order (bounds.py)."""
    numbers_streams: bool = False
    """Whether a CTE relies on a natural relation's stream order (numbers its rows, or limits
    them unsorted): the session must then keep insertion order."""
    zones: set[str] = field(default_factory=set)
    """The time zones of the datetimes the scans give."""
    markers_after_read: bool = False
    """Whether a CSV scan matches null markers on its columns, not in DuckDB's reader
    (scans.py): a marker in a column of another type then fails DuckDB's cast."""

    def zone(self) -> str:
        """The session's `TimeZone` (scans.py `session_zone`)."""
        return session_zone(self.zones)

    def files(self) -> dict[str, str]:
        """Each file read: its real path → its name as the document's path names it."""
        return {str(file.location): file.name for files in self.scans.values() for file in files}

    def exit_sql(self, rendered: Rendered, selected: list[str] | None = None) -> tuple[str, list]:
        """The query of one exit, in its order: its columns, or the `selected` expressions."""
        if selected is None:
            selected = [quoted(name) for name in rendered.schema.names]
        text = f"SELECT {', '.join(selected) or '1'} FROM {quoted(rendered.name)}"
        if rendered.order:
            text += f" ORDER BY {_order_by(rendered.order)}"
        return self._with(text)

    def reads_in_order(self, parts: Iterable[Rendered]) -> bool:
        """Whether computing `parts` (each by a query of its own) needs the session to keep
        insertion order: a CTE reads a stream in its order, or a part's rows are natural."""
        return self.numbers_streams or any(part.natural for part in parts)

    def select(self, selected: str, source: str, params: list) -> tuple[str, list]:
        """`SELECT selected FROM source` (a CTE's quoted name) with the CTEs before it."""
        sql, ctes = self._with(f"SELECT {selected} FROM {source}")
        return sql, [*ctes, *params]

    def check(self, relation: rel.Relation, field: str | None, source: str, bounds) -> None:
        """Check `bounds` of an expression of `relation` over `source` (once for each)."""
        known = {check.key for check in self.checks}
        for bound in bounds:
            check = Check(relation, field, source, bound)
            if check.key not in known:
                self.checks.append(check)

    def stored_sql(self, rendered: Rendered, table: str) -> tuple[str, list]:
        """A statement computing `rendered` into a temporary `table`, hidden columns and all
        (in its stream order, which the session keeps)."""
        sql, params = self._with(f"SELECT * FROM {quoted(rendered.name)}")
        return f"CREATE TEMP TABLE {quoted(table)} AS {sql}", params

    def stored(self, rendered: Rendered, table: str) -> None:
        """From now on `rendered` is read from `table` (see `stored_sql`)."""
        self.ctes = [
            (name, f"SELECT * FROM {quoted(table)}", ()) if name == rendered.name else cte
            for cte in self.ctes
            for name in cte[:1]
        ]

    def read_from(self, rendered: Rendered, body: str, params: tuple) -> None:
        """From now on `rendered` is read by `body` (a file it was written to)."""
        self.ctes = [
            (name, body, params) if name == rendered.name else cte
            for cte in self.ctes
            for name in cte[:1]
        ]

    def _with(self, text: str) -> tuple[str, list]:
        ctes = ",\n".join(f"{quoted(name)} AS ({body})" for name, body, _ in self.ctes)
        params = [value for _, _, values in self.ctes for value in values]
        return f"WITH {ctes}\n{text}", params


class Renderer:
    """Renders relations into one `Query`; frames for `Input`s come from `frame_table`. Its
    names end in `token` (random by default, so no column of a frame can be one of them; a
    compiled script passes its own, to read the same each time it is compiled). CSV scans
    match null markers in DuckDB's reader only with `markers_in_reader` (scans.py)."""

    def __init__(
        self,
        files: FileArea,
        frame_table: Callable[[rel.Source], pa.Table],
        token: str | None = None,
        markers_in_reader: bool = False,
    ):
        self.files = files
        self.markers_in_reader = markers_in_reader
        self.frame_table = frame_table
        self.query = Query()
        self._token = token or secrets.token_hex(4)
        self._count = 0
        self._done: dict[rel.Relation, Rendered] = {}
        self._ordered: set[rel.Relation] = set()

    def render(self, exits: Iterable[rel.Relation]) -> list[Rendered]:
        exits = list(exits)
        self._ordered = _needing_order(exits)
        return [self._render(relation) for relation in exits]

    def _name(self, kind: str) -> str:
        self._count += 1
        return f"__pw_{kind}{self._count}_{self._token}"

    def _cte(self, body: str, params: Iterable, schema: Schema, **order) -> Rendered:
        name = self._name("r")
        self.query.ctes.append((name, body, tuple(params)))
        return Rendered(name, schema, **order)

    def _render(self, relation: rel.Relation) -> Rendered:
        if relation not in self._done:
            method = getattr(self, f"_{type(relation).__name__.lower()}")
            self._done[relation] = method(relation)
        return self._done[relation]

    def _ordered_input(self, relation: rel.Relation) -> Rendered:
        """The input rendered with hidden order columns (numbering a natural order)."""
        rendered = self._render(relation)
        if rendered.order:
            return rendered
        assert rendered.natural, "an input whose order is needed is rendered with one"
        self.query.numbers_streams = True
        position = self._name("o")
        body = f"SELECT *, row_number() OVER () AS {quoted(position)} FROM {quoted(rendered.name)}"
        return self._cte(body, (), rendered.schema, order=((position, False, False),))

    def _same_order(self, rendered: Rendered, body: str, params, schema: Schema) -> Rendered:
        return self._cte(body, params, schema, order=rendered.order, natural=rendered.natural)

    def _input(self, relation: rel.Input) -> Rendered:
        name = self._name("f")
        table = self.frame_table(relation.source)
        if isinstance(table, SpilledRows):
            nulls = [(field, table.nulls[field.name]) for field in table.schema]
        else:
            self.query.tables[name] = table
            nulls = [(field, table[field.name].null_count) for field in table.schema]
        # a table of no rows may stand for rows to come (a compiled script renders so)
        schema = Schema(
            tuple(
                Column(field.name, public_type(field.type) or "string", not len(table) or count > 0)
                for field, count in nulls
            )
        )
        if isinstance(table, SpilledRows):  # DuckDB's own reader streams it (an Arrow scan not)
            self.query.spills.append(table.path)
            return self._cte(
                "SELECT * FROM read_parquet(?)", (str(table.path),), schema, natural=True
            )
        return self._cte(f"SELECT * FROM {quoted(name)}", (), schema, natural=True)

    def _scan(self, relation: rel.Scan) -> Rendered:
        scan = scan_sql(relation, self.files, self.markers_in_reader, self._numbering(relation))
        self.query.scans[relation.path] = scan.files
        self.query.zones |= scan.zones
        self.query.markers_after_read |= scan.markers_after_read
        return self._scanned(scan)

    def _stored(self, relation: rel.Stored) -> Rendered:
        scan = stored_sql(relation, self._numbering(relation))
        self.query.scans[relation.path] = scan.files
        self.query.zones |= scan.zones
        return self._scanned(scan)

    def _numbering(self, relation: rel.Scan | rel.Stored) -> str | None:
        """A name for the hidden columns numbering a scan's rows, where its order is needed."""
        return self._name("o") if relation in self._ordered else None

    def _scanned(self, scan: ScanSql) -> Rendered:
        """A scan's rows, in the files' order, numbered so by the reader where it can."""
        order = tuple((hidden, False, False) for hidden in scan.order)
        return self._cte(scan.sql, scan.params, scan.schema, order=order, natural=True)

    def _filter(self, relation: rel.Filter) -> Rendered:
        source = self._render(relation.input)
        met = [relation.condition] if relation.condition is not None else []
        kept = [to_sql_predicate(text, source.schema) for text in met]
        unless = [to_sql_condition(text, source.schema) for text in relation.unless]
        # every condition of the node, as pandas evaluates each on every row
        held = relation.fields or tuple((text, None) for text in [*relation.unless, *met])
        for text, held_in in held:
            bounds = to_sql_condition(text, source.schema).bounds
            self.query.check(relation, held_in, source.name, bounds)
        where = [f"({part.sql})" for part in kept] + [f"NOT ({part.sql})" for part in unless]
        params = tuple(param for part in [*kept, *unless] for param in part.params)
        body = f"SELECT * FROM {quoted(source.name)} WHERE {' AND '.join(where) or 'TRUE'}"
        rejected = null_rejected_columns(relation.condition) if met else frozenset()
        return self._same_order(source, body, params, _not_null(source.schema, rejected))

    def _derive(self, relation: rel.Derive) -> Rendered:
        current = self._render(relation.input)
        for mapping in relation.mappings:
            expression = to_sql(mapping.expression, current.schema)
            self.query.check(relation, mapping.field, current.name, expression.bounds)
            kind = mapping.type or expression.type
            rel.require_exact_cast(mapping.target, expression.type, kind)
            value = _converted(f"({expression.sql})", expression.type, kind)
            column = Column(mapping.target, kind)
            body, schema = _replaced(current, {mapping.target: value}, column)
            current = self._same_order(current, body, expression.params, schema)
        if relation.keep_other_columns:
            return current
        targets = list(dict.fromkeys(mapping.target for mapping in relation.mappings))
        return self._project(rel.Project(relation.input, tuple(targets)), current)

    def _project(self, relation: rel.Project, source: Rendered | None = None) -> Rendered:
        source = source or self._render(relation.input)
        renames = dict(relation.renames)
        names = list(relation.columns) or source.schema.names
        selected = [f"{quoted(n)} AS {quoted(renames.get(n, n))}" for n in names]
        columns = tuple(replace(source.schema.get(n), name=renames.get(n, n)) for n in names)
        body = f"SELECT {_listed(selected + _quoted(source.hidden))} FROM {quoted(source.name)}"
        return self._same_order(source, body, (), Schema(columns))

    def _cast(self, relation: rel.Cast) -> Rendered:
        source = self._render(relation.input)
        values, schema = {}, source.schema
        for name, kind in relation.types:
            column = source.schema.get(name)
            if column is None:  # csv_input's dtypes naming a column the file lacks
                raise NotLowerable(f"column '{name}' is not in the input")
            rel.require_exact_cast(name, column.type, kind)
            values[name] = _converted(quoted(name), column.type, kind)
            schema = _with_type(schema, name, kind)
        body = _replace_sql(source, values)
        return self._same_order(source, body, (), schema)

    def _fillnulls(self, relation: rel.FillNulls) -> Rendered:
        source = self._render(relation.input)
        values = {
            name: f"COALESCE({quoted(name)}, CAST(? AS {SQL_TYPES[source.schema.get(name).type]}))"
            for name, _ in relation.values
        }
        params = [value for _, value in relation.values]
        filled = {name for name, value in relation.values if value is not None}
        schema = _not_null(source.schema, filled)
        return self._same_order(source, _replace_sql(source, values), params, schema)

    def _dropnulls(self, relation: rel.DropNulls) -> Rendered:
        source = self._render(relation.input)
        condition = " AND ".join(f"{quoted(name)} IS NOT NULL" for name in relation.columns)
        body = f"SELECT * FROM {quoted(source.name)}" + (f" WHERE {condition}" if condition else "")
        schema = _not_null(source.schema, relation.columns)
        return self._same_order(source, body, (), schema)

    def _aggregate(self, relation: rel.Aggregate) -> Rendered:
        source = self._render(relation.input)
        keys = _quoted(relation.group_by)
        calls, wheres = list(relation.aggregations), [None] * len(relation.aggregations)
        if any(call.expression or call.where for call in calls):
            source, calls, wheres = self._summarised_values(relation, source)
        summaries = [
            summary(call, source.schema, where) for call, where in zip(calls, wheres, strict=True)
        ]
        hidden = [self._name("o") for _ in keys]
        selected = keys + [sql for sql, _ in summaries]
        selected += [f"{key} AS {quoted(name)}" for key, name in zip(keys, hidden, strict=True)]
        body = f"SELECT {_listed(selected)} FROM {quoted(source.name)}"
        if keys:
            body += f" GROUP BY {_listed(keys)}"
        columns = [source.schema.get(name) for name in relation.group_by]
        schema = Schema((*columns, *(column for _, column in summaries)))
        order = tuple((name, False, True) for name in hidden)
        return self._cte(body, (), schema, order=order, natural=not keys)

    def _summarised_values(self, relation: rel.Aggregate, source: Rendered):
        """The aggregate's input with a column for each expression summarised and each
        condition, in pandas' order; the calls reading them, and each call's condition column."""
        selected, params, columns = [], [], []
        calls, wheres = [], []
        for call in relation.aggregations:
            where = None
            if call.expression is not None:
                lowered = to_sql(call.expression, source.schema)
                self.query.check(relation, _part(call, "expression"), source.name, lowered.bounds)
                name = self._name("v")
                selected.append(f"({lowered.sql}) AS {quoted(name)}")
                params += lowered.params
                columns.append(Column(name, lowered.type))
                call = replace(call, column=name)
            if call.where is not None:
                condition = to_sql_condition(call.where, source.schema)
                self.query.check(relation, _part(call, "where"), source.name, condition.bounds)
                where = self._name("w")
                selected.append(f"({condition.sql}) AS {quoted(where)}")
                params += condition.params
                columns.append(Column(where, "boolean"))
            calls.append(call)
            wheres.append(where)
        body = f"SELECT *, {_listed(selected)} FROM {quoted(source.name)}"
        schema = Schema((*source.schema.columns, *columns))
        return self._same_order(source, body, params, schema), calls, wheres

    def _broadcast(self, relation: rel.Broadcast) -> Rendered:
        """`input` cross joined with one row: `value`'s columns' first values (nulls when it
        has no rows) beside a check that fails the query, with pandas' message, when it has
        more; the join keeps only rows where the check holds, so DuckDB cannot prune it."""
        ordered = relation in self._ordered
        source = self._ordered_input(relation.input) if ordered else self._render(relation.input)
        value = self._render(relation.value)
        check = quoted(self._name("c"))
        failed = "error(CAST(? AS VARCHAR) || count(*) || CAST(? AS VARCHAR))"
        one_row = [f"CASE WHEN count(*) > 1 THEN {failed} ELSE TRUE END AS {check}"]
        one_row += [f"first({quoted(name)}) AS {quoted(name)}" for name in relation.columns]
        selected = ['"i".*'] + [f'"v".{quoted(name)}' for name in relation.columns]
        body = (
            f'SELECT {_listed(selected)} FROM {quoted(source.name)} AS "i" CROSS JOIN '
            f'(SELECT {_listed(one_row)} FROM {quoted(value.name)}) AS "v" WHERE "v".{check}'
        )
        params = ("value gives ", f" rows; {rel.BROADCAST_NEEDS}")
        columns = [replace(value.schema.get(name), nullable=True) for name in relation.columns]
        schema = Schema((*source.schema.columns, *columns))
        return self._cte(body, params, schema, order=source.order if ordered else ())

    def _join(self, relation: rel.Join) -> Rendered:
        ordered = relation in self._ordered
        render = self._ordered_input if ordered else self._render
        left = render(relation.left)  # a semi or anti join's order is its left rows'
        right = (self._render if relation.how in ("semi", "anti") else render)(relation.right)
        selected, columns = [], []
        for column in relation.columns:
            selected.append(f"{join_value(relation.how, column)} AS {quoted(column.name)}")
            source = (right if column.side == "right" else left).schema.get(column.source)
            kind = "float" if column.as_float else source.type
            nullable = joined_nullable(relation, column, left, right)
            columns.append(Column(column.name, kind, nullable))
        order: list[OrderKey] = []
        if ordered:  # pandas' order, kept in fresh hidden columns (a self-join has one name twice)
            for value, desc, last in join_order(relation, left, right):
                name = self._name("o")
                selected.append(f"{value} AS {quoted(name)}")
                order.append((name, desc, last))
        on = [
            join_condition(left.schema.get(key), right.schema.get(other))
            for key, other in relation.keys
        ]
        params: tuple = ()
        if relation.condition is not None:  # the sides' names are distinct: no alias needed
            both = Schema((*left.schema.columns, *right.schema.columns))
            condition = to_sql_predicate(relation.condition, both)
            on.append(f"({condition.sql})")
            params = condition.params
        body = (
            f"SELECT {_listed(selected)} FROM {quoted(left.name)} AS {LEFT} "
            f"{JOINS[relation.how]} JOIN {quoted(right.name)} AS {RIGHT} ON {' AND '.join(on)}"
        )
        return self._cte(body, params, Schema(tuple(columns)), order=tuple(order))

    def _union(self, relation: rel.Union) -> Rendered:
        ordered = relation in self._ordered
        branch, position = self._name("o"), self._name("o")
        parts, types, held = [], {}, []
        for index, child in enumerate(relation.inputs):
            source = self._ordered_input(child) if ordered else self._render(child)
            selected = _quoted(source.schema.names)
            if ordered:
                selected += [
                    f"{index} AS {quoted(branch)}",
                    f"row_number() OVER (ORDER BY {_order_by(source.order)}) AS {quoted(position)}",
                ]
            parts.append(f"SELECT {_listed(selected)} FROM {quoted(source.name)}")
            for column in source.schema.columns:
                seen = types.get(column.name)
                types[column.name] = "float" if seen not in (None, column.type) else column.type
            held.append(source.schema)
        names = _quoted(relation.columns) + (_quoted([branch, position]) if ordered else [])
        body = f"SELECT {_listed(names)} FROM ({' UNION ALL BY NAME '.join(parts)})"
        schema = Schema(
            tuple(
                Column(name, types[name], any(_may_be_null(part, name) for part in held))
                for name in relation.columns
            )
        )
        order = ((branch, False, False), (position, False, False)) if ordered else ()
        return self._cte(body, (), schema, order=order)

    def _sort(self, relation: rel.Sort) -> Rendered:
        source = self._ordered_input(relation.input)
        hidden = [self._name("o") for _ in relation.keys]
        copies = [
            f"{quoted(key)} AS {quoted(name)}"
            for (key, _), name in zip(relation.keys, hidden, strict=True)
        ]
        body = f"SELECT *, {_listed(copies)} FROM {quoted(source.name)}"
        keys = tuple(
            (name, desc, relation.nulls_last)
            for name, (_, desc) in zip(hidden, relation.keys, strict=True)
        )
        return self._cte(body, (), source.schema, order=keys + source.order)

    def _distinct(self, relation: rel.Distinct) -> Rendered:
        if not relation.columns and relation not in self._ordered:
            source = self._render(relation.input)
            names = _listed(_quoted(source.schema.names))
            body = f"SELECT DISTINCT {names} FROM {quoted(source.name)}"
            return self._cte(body, (), source.schema)
        source = self._ordered_input(relation.input)
        order = source.order
        if relation.keep == "last":
            order = tuple((name, not desc, not last) for name, desc, last in order)
        partition = _listed(_quoted(relation.columns or source.schema.names))
        body = (
            f"SELECT * FROM {quoted(source.name)} QUALIFY row_number() OVER "
            f"(PARTITION BY {partition} ORDER BY {_order_by(order)}) = 1"
        )
        return self._same_order(source, body, (), source.schema)

    def _limit(self, relation: rel.Limit) -> Rendered:
        source = self._render(relation.input)
        source = source if source.natural else self._ordered_input(relation.input)
        self.query.numbers_streams |= not source.order
        ordering = f" ORDER BY {_order_by(source.order)}" if source.order else ""
        body = f"SELECT * FROM {quoted(source.name)}{ordering} LIMIT ?"
        return self._same_order(source, body, (relation.n,), source.schema)

    def _pivot(self, relation: rel.Pivot) -> Rendered:
        """Conditional aggregation by the index (reshape.py), ordered as `_aggregate` is."""
        in_order = relation.function in ("first", "last")
        source = (self._ordered_input if in_order else self._render)(relation.input)
        column, value = source.schema.get(relation.column), source.schema.get(relation.value)
        order_by = _order_by(source.order) if in_order else None
        keys = _quoted(relation.index)
        selected, params, cells = list(keys), [], []
        for each, name in zip(relation.values, relation.names, strict=True):
            sql, binds, kind = reshape.pivot_cell(relation.function, value, column, order_by)
            selected.append(f"{sql} AS {quoted(name)}")
            params += [each] * binds
            cells.append(Column(name, kind, relation.function not in ("count", "sum")))
        hidden = [self._name("o") for _ in keys]
        selected += [f"{key} AS {quoted(name)}" for key, name in zip(keys, hidden, strict=True)]
        listed = ", ".join(f"CAST(? AS {SQL_TYPES[column.type]})" for _ in relation.values)
        body = (
            f"SELECT {_listed(selected)} FROM {quoted(source.name)} "
            f"WHERE {quoted(column.name)} IN ({listed})"
        )
        params += relation.values
        if keys:
            body += f" GROUP BY {_listed(keys)}"
        columns = [source.schema.get(name) for name in relation.index]
        order = tuple((name, False, True) for name in hidden)
        schema = Schema((*columns, *cells))
        return self._cte(body, params, schema, order=order, natural=not keys)

    def _unpivot(self, relation: rel.Unpivot) -> Rendered:
        """Names and values unnested per input row (reshape.py): natural over a natural input;
        where the order is needed, the input's then the columns' positions."""
        ordered = relation in self._ordered
        source = (self._ordered_input if ordered else self._render)(relation.input)
        turned = [source.schema.get(name) for name in relation.columns]
        types = {column.name: column.type for column in turned}
        kind = "float" if len(set(types.values())) > 1 else turned[0].type
        selected = _quoted(relation.index) + reshape.unpivot_selected(relation, types, kind)
        order: tuple[OrderKey, ...] = ()
        if ordered:
            position = self._name("o")
            selected += [*_quoted(source.hidden), reshape.unpivot_position(relation, position)]
            order = (*source.order, (position, False, False))
        body = f"SELECT {_listed(selected)} FROM {quoted(source.name)}"
        columns = [source.schema.get(name) for name in relation.index]
        nullable = any(column.nullable for column in turned)
        columns += [Column(relation.name, "string", False), Column(relation.value, kind, nullable)]
        schema = Schema(tuple(columns))
        return self._cte(body, relation.columns, schema, order=order, natural=source.natural)

    def _window(self, relation: rel.Window) -> Rendered:
        """Window functions over the input in its order (ties follow it), rows in that order."""
        source = self._ordered_input(relation.input)
        selected, params, columns = window_calls(relation, source.schema, _order_by(source.order))
        body = f"SELECT {_listed(['*', *selected])} FROM {quoted(source.name)}"
        schema = Schema((*source.schema.columns, *columns))
        return self._cte(body, params, schema, order=source.order)


def _part(call: rel.AggregateCall, name: str) -> str | None:
    """The params field of part `name` of an aggregation (None when not known)."""
    return None if call.field is None else f"{call.field}.{name}"


def _needing_order(exits: list[rel.Relation]) -> set[rel.Relation]:
    """The relations whose row order a consumer needs, so they carry it."""
    ordered: set[rel.Relation] = set()
    visited: set[rel.Relation] = set()

    def visit(relation: rel.Relation, needed: bool) -> None:
        if needed:
            if relation in ordered:
                return
            ordered.add(relation)
        elif relation in visited:
            return
        visited.add(relation)
        for child in relation.children():
            visit(child, _child_needs_order(relation, needed))

    for relation in exits:
        visit(relation, False)
    return ordered


def _child_needs_order(relation: rel.Relation, needed: bool) -> bool:
    if isinstance(relation, rel.Pivot):  # first and last read the input's order
        return relation.function in ("first", "last")
    if isinstance(relation, rel.Sort | rel.Limit):
        return True
    if isinstance(relation, rel.Window):  # ties follow the input's order
        return True
    if isinstance(relation, rel.Distinct):
        return needed or bool(relation.columns)
    return needed and not isinstance(relation, rel.Aggregate)


def _order_by(order: Iterable[OrderKey]) -> str:
    return ", ".join(
        f"{quoted(name)} {'DESC' if desc else 'ASC'} NULLS {'LAST' if last else 'FIRST'}"
        for name, desc, last in order
    )


def _quoted(names: Iterable[str]) -> list[str]:
    return [quoted(name) for name in names]


def _listed(items: Iterable[str]) -> str:
    return ", ".join(items)


def _converted(value: str, source: str, target: str) -> str:
    return value if source == target else f"CAST({value} AS {SQL_TYPES[target]})"


def _replace_sql(source: Rendered, values: dict[str, str]) -> str:
    replaced = _listed(f"{value} AS {quoted(name)}" for name, value in values.items())
    return f"SELECT * REPLACE ({replaced}) FROM {quoted(source.name)}"


def _replaced(source: Rendered, values: dict[str, str], column: Column) -> tuple[str, Schema]:
    """A SELECT giving `column` its value: in place when it exists, else added."""
    if column.name in source.schema:
        schema = Schema(
            tuple(column if c.name == column.name else c for c in source.schema.columns)
        )
        return _replace_sql(source, values), schema
    value = values[column.name]
    body = f"SELECT *, {value} AS {quoted(column.name)} FROM {quoted(source.name)}"
    return body, Schema((*source.schema.columns, column))


def _with_type(schema: Schema, name: str, kind: str) -> Schema:
    return Schema(tuple(replace(c, type=kind) if c.name == name else c for c in schema.columns))


def _not_null(schema: Schema, names: Iterable[str]) -> Schema:
    """`schema` with the columns `names` known to hold no null."""
    names = set(names)
    return Schema(
        tuple(replace(c, nullable=False) if c.name in names else c for c in schema.columns)
    )


def _may_be_null(schema: Schema, name: str) -> bool:
    column = schema.get(name)
    return column is None or column.nullable
