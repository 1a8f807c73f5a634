"""Emitter of `validate`: each rule's failing rows and reasons as pandas code, the bounds and
allowed values converted to the column's type while compiling, as the rule converts them."""

from __future__ import annotations

from runtime.compile.literals import literal
from runtime.compile.nodes import NodeCode
from runtime.compile.operators import emits
from runtime.io.regex import whole_matches
from runtime.operators import validate as operator


def _column(frame: str, name: str) -> str:
    return f"{frame}[{name!r}]"


def _never(frame: str) -> str:
    return f"np.zeros(len({frame}), bool)"


def _above(rule, bounds, frame: str) -> str:
    high = bounds[1]
    if high is None:
        return _never(frame)
    return f"where_true({_column(frame, rule.column)} > {literal(high)})"


def _failed(node: NodeCode, rule, field: str, frame: str) -> str:
    schema = node.schemas["in"]
    column = None if isinstance(rule, operator.UniqueRule) else _column(frame, rule.column)
    if isinstance(rule, operator.NotNullRule):
        return f"{column}.isna().to_numpy()"
    if isinstance(rule, operator.RangeRule):
        bounds = rule.converted_bounds(field, schema)
        below = (
            _never(frame) if bounds[0] is None else f"where_true({column} < {literal(bounds[0])})"
        )
        return f"{below} | {_above(rule, bounds, frame)}"
    if isinstance(rule, operator.RegexRule):
        node.carry(whole_matches)
        return f"~whole_matches({column}, {rule.pattern!r})"
    if isinstance(rule, operator.AllowedValuesRule):
        allowed = literal(rule.converted_values(field, schema))
        return (
            f"~{column}.isin({allowed}).to_numpy(dtype=bool, na_value=False) "
            f"& {column}.notna().to_numpy()"
        )
    names = literal(rule.names)
    return (
        f"{frame}.duplicated({names}, keep=False).to_numpy() "
        f"& {frame}[{names}].notna().all(axis=1).to_numpy()"
    )


def _reasons(node: NodeCode, rule, field: str, rows: str) -> str:
    if isinstance(rule, operator.NotNullRule):
        return f'pd.Series({f"{rule.column}: is missing"!r}, index={rows}.index, dtype="str")'
    if isinstance(rule, operator.UniqueRule):
        values = " + ', ' + ".join(f"value_texts({_column(rows, name)})" for name in rule.names)
        return f"{', '.join(rule.names) + ': '!r} + {values} + ' appears more than once'"
    values = f"{rule.column + ': '!r} + value_texts({_column(rows, rule.column)})"
    if isinstance(rule, operator.RangeRule):
        above = _above(rule, rule.converted_bounds(field, node.schemas["in"]), rows)
        high = f" is above the maximum {operator.shown_value(rule.max)}"
        low = f" is below the minimum {operator.shown_value(rule.min)}"
        return f"({values} + {high!r}).where({above}, {values} + {low!r})"
    if isinstance(rule, operator.RegexRule):
        return f"{values} + {' does not match ' + rule.pattern!r}"
    shown = [operator.shown_value(value) for value in rule.values[: operator.LISTED_VALUES]]
    more = ", …" if len(rule.values) > operator.LISTED_VALUES else ""
    return f"{values} + {' is not one of ' + ', '.join(shown) + more!r}"


@emits("validate")
def validate(node: NodeCode) -> None:
    frame, params = node.inputs["in"], node.params
    operator.check_rules(params, node.schemas["in"])
    node.carry(operator.where_true, operator.value_texts)
    node.imports.add("import numpy as np")
    fields = [f"rules[{index}]" for index in range(len(params.rules))]
    node.line("failed = [")
    for rule, field in zip(params.rules, fields, strict=True):
        node.line(f"    {_failed(node, rule, field, frame)},  # {field}: {rule.rule}")
    node.line("]")
    node.line("invalid = np.logical_or.reduce(failed)")
    node.line(f"rows = {frame}[invalid]")
    node.line('text = pd.Series("", index=rows.index, dtype="str")')
    for index, (rule, field) in enumerate(zip(params.rules, fields, strict=True)):
        node.line(f"hit = failed[{index}][invalid]")
        node.line("if hit.any():")
        reasons = _reasons(node, rule, field, "rows")
        node.line(f"    text = text + ({reasons} + {operator.SEPARATOR!r}).where(hit, '')")
    node.line(f"{node.outputs['valid']} = {frame}[~invalid]")
    reason = f"text.str.slice(stop={-len(operator.SEPARATOR)})"
    node.line(f"{node.outputs['invalid']} = rows.assign(**{{{operator.REASON!r}: {reason}}})")
