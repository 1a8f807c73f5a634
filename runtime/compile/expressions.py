"""Expressions as pandas code: the syntax tree of a filter condition or a mapping, written out.

The runtime parses and type-checks the expression (`runtime.expressions`); this module records
what its compiler decided for every node (type, constant value) and writes, node by node, the
pandas code that computes the same values: the same calls where they are one line (`s.str.upper()`),
and a carried copy of the runtime's function where the semantics are intricate (`compare` for
nulls in comparisons, `divide` for division by zero). Column names and texts only ever reach the
code through `repr()`; nothing of the expression's text is pasted into it.

A `${parameter}` in the expression becomes the script's option (`params["name"]`); a part that
the runtime computes once from parameters (`1 + ${vat}`) is computed once by the script too
(`folded_value`). A parameter without a default is refused: its type would be unknown.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from runtime.document.parameters import PLACEHOLDER
from runtime.expressions import compiler as runtime_compiler
from runtime.expressions import (
    conditionals,
    dates,
    decimals,
    function_builders,
    patterns,
    symbols,
    values,
)
from runtime.expressions.functions import DATE_FUNCTIONS as _DATE_FUNCTIONS
from runtime.expressions.lexer import MAX_INTEGER
from runtime.expressions.lexer import literal as expression_literal
from runtime.expressions.nodes import (
    Between,
    Binary,
    Call,
    Case,
    Column,
    In,
    IsNull,
    Like,
    Literal,
    Logical,
    Node,
    Unary,
    children,
    walk,
)
from runtime.expressions.parser import parse
from runtime.expressions.type_checks import Checker
from runtime.expressions.values import NULL, Compiled
from runtime.tables.schema import Schema

from .errors import CompileRefused
from .literals import literal

_STRING_MAPS = {"upper": "upper()", "lower": "lower()", "strip": "strip()", "len": "len()"}
_TEXT_TESTS = {
    "contains": "contains({}, regex=False)",
    "startswith": "startswith({})",
    "endswith": "endswith({})",
}
_ARITHMETIC = {"+": "{} + {}", "-": "{} - {}", "*": "{} * {}"}
DATE_FUNCTIONS = {function.name for function in _DATE_FUNCTIONS}
_HELPERS = {
    "/": symbols.divide,
    "**": symbols.power,
}


@dataclass
class ExpressionCode:
    """One expression as code over the frame `view` (positional, see `positional`)."""

    code: str
    type: str
    helpers: set = field(default_factory=set)
    """The runtime functions the code calls (the script carries them)."""


def expression_code(text: str, schema: Schema, parameters: dict[str, object]) -> ExpressionCode:
    """The pandas code computing `text` (with `${name}` placeholders) over columns `schema`."""
    substituted, parameter_spans = _substituted(text, parameters)
    root = parse(substituted)
    recorder = _Recorder(substituted, schema)
    recorder.compile_node(root)
    writer = _Writer(recorder, parameter_spans)
    top = recorder.seen[id(root)]
    code = writer.series(root, "boolean" if top.type == NULL else top.type)
    return ExpressionCode(code, top.type if top.type != NULL else "boolean", writer.helpers)


def _substituted(text: str, parameters: dict[str, object]) -> tuple[str, dict]:
    """`text` with each placeholder replaced by its default's literal; the literals' spans."""
    parts, spans, position, end = [], {}, 0, 0
    for match in PLACEHOLDER.finditer(text):
        name = match[1]
        if name not in parameters:
            raise CompileRefused(f"unknown parameter '${{{name}}}'")
        if parameters[name] is None:
            raise CompileRefused(
                f"parameter '{name}' has no default; give it one to compile an expression using it"
            )
        parts.append(text[end : match.start()])
        position += match.start() - end
        spelled = expression_literal(parameters[name])
        spans[(position, position + len(spelled))] = name
        parts.append(spelled)
        position += len(spelled)
        end = match.end()
    parts.append(text[end:])
    return "".join(parts), spans


class _Recorder(runtime_compiler.Compiler):
    """The runtime's compiler, keeping what it decided for each node of the tree."""

    def __init__(self, text: str, schema: Schema) -> None:
        super().__init__(text, schema)
        self.seen: dict[int, Compiled] = {}

    def compile_node(self, node: Node) -> Compiled:
        compiled = super().compile_node(node)
        self.seen[id(node)] = compiled
        return compiled


class _Writer:
    INDEX = "view.index"

    def __init__(self, recorder: _Recorder, parameter_spans: dict) -> None:
        self.seen = recorder.seen
        self.checker: Checker = recorder.checker
        self.parameter_spans = parameter_spans
        self.helpers: set = {values.conform}
        self.constant_arguments: list[bool] = [False]

    # -- what the runtime passes for a node ------------------------------------------------

    def parameter(self, node: Node) -> str | None:
        if isinstance(node, Literal):
            name = self.parameter_spans.get(node.span)
            if name is not None:
                return f"params[{name!r}]"
        return None

    def uses_parameter(self, node: Node) -> bool:
        return any(self.parameter(sub) for sub in walk(node))

    def scalar(self, node: Node) -> str:
        """A non-null constant, as the runtime passes it (a plain value)."""
        named = self.parameter(node)
        if named:
            return named
        if self.uses_parameter(node):  # folded by the runtime from the parameter's value
            self.helpers.add(runtime_compiler.folded_value)
            return f"folded_value(lambda view: {self.structural(node, self.seen[id(node)])})"
        return literal(self.seen[id(node)].constant)

    def argument(self, node: Node, type: str) -> str:
        """What `values()` hands an implementation: a scalar for a non-null constant (unless
        every argument is constant, as while folding), else the node's Series (a null resolved
        to `type`)."""
        compiled = self.seen[id(node)]
        if self.constant_arguments[-1]:
            return self.series(node, type)
        if compiled.is_constant and compiled.constant is not None:
            return self.scalar(node)
        return self.series(node, type)

    def series(self, node: Node, type: str) -> str:
        """The node's values as a Series, as its `run(frame)` computes them."""
        compiled = self.seen[id(node)]
        if compiled.is_constant:
            self.helpers.add(values.broadcast)
            value = self.scalar(node) if compiled.constant is not None else "None"
            kind = type if compiled.type == NULL else compiled.type
            return f"broadcast({value}, {kind!r}, {self.INDEX})"
        if isinstance(node, Column):
            return f"conform(view[{node.name!r}], {compiled.type!r})"
        return self.structural(node, compiled)

    # -- one construct at a time -----------------------------------------------------------

    def structural(self, node: Node, compiled: Compiled) -> str:
        children = _children(node)
        for child in children:  # a node that returns its argument unchanged (round(integer))
            if self.seen.get(id(child)) is compiled:
                return self.series(child, compiled.type)
        self.constant_arguments.append(all(self.seen[id(c)].is_constant for c in children))
        try:
            return self.construct(node, compiled)
        finally:
            self.constant_arguments.pop()

    def construct(self, node: Node, compiled: Compiled) -> str:
        kind = compiled.type
        if isinstance(node, Unary):
            if node.op == "not":
                return f"~{self.argument(node.operand, 'boolean')}"
            return self.conformed(f"-{self.argument(node.operand, kind)}", kind)
        if isinstance(node, Binary):
            return self.binary(node, kind)
        if isinstance(node, Logical):
            joiner = " & " if node.op == "and" else " | "
            return "(" + joiner.join(self.argument(o, "boolean") for o in node.operands) + ")"
        if isinstance(node, IsNull):
            test = "notna" if node.negated else "isna"
            return f"{self.argument(node.operand, 'string')}.{test}()"
        if isinstance(node, In):
            return self.membership(node)
        if isinstance(node, Between):
            met = self.met([node.operand, node.low, node.high])
            if met is not None and met[0] == decimals.DECIMAL:
                self.helpers.add(decimals.decimal_between)
                return f"decimal_between({node.negated}, {', '.join(met[1])})"
            shared = self.common([node.operand, node.low, node.high], "string")
            self.helpers.add(symbols.is_between)
            parts = [self.choice(n, shared) for n in (node.operand, node.low, node.high)]
            return f"is_between({shared!r}, {node.negated}, {', '.join(parts)})"
        if isinstance(node, Like):
            return self.like(node)
        if isinstance(node, Case):
            return self.case(node, kind)
        if isinstance(node, Call):
            return self.call(node, kind)
        raise CompileRefused(f"cannot compile {self.checker.describe(node)}")

    def conformed(self, code: str, kind: str) -> str:
        return f"conform({code}, {kind!r})"

    def common(self, nodes: list[Node], when_null: str) -> str:
        shared = self.checker.common_type([self.seen[id(n)] for n in nodes], "")
        return when_null if shared == NULL else shared

    def binary(self, node: Binary, kind: str) -> str:
        left_compiled, right_compiled = self.seen[id(node.left)], self.seen[id(node.right)]
        if node.op in ("+", "-") and dates.involves_dates(left_compiled, right_compiled):
            plan = dates.arithmetic_plan(self.checker, node, left_compiled, right_compiled)
            return self.date_plan(plan, kind)
        if decimals.DECIMAL in (self.seen[id(node.left)].type, self.seen[id(node.right)].type):
            return self.decimal_binary(node, kind)
        if node.op in symbols.COMPARISONS:
            shared = self.common([node.left, node.right], "string")
            left, right = self.argument(node.left, shared), self.argument(node.right, shared)
            self.helpers.add(symbols.compare)
            return f"compare({node.op!r}, {left}, {right})"
        shared = self.common([node.left, node.right], kind)
        left, right = self.argument(node.left, shared), self.argument(node.right, shared)
        return self.arithmetic(node.op, left, right, shared, kind)

    def arithmetic(self, op: str, left: str, right: str, shared: str, kind: str) -> str:
        """`left op right` of two operands' code of the `shared` type (not a comparison)."""
        if op in _ARITHMETIC:
            return self.conformed(_ARITHMETIC[op].format(left, right), kind)
        if op == "%":
            self.helpers.add(symbols.modulo)
            return self.conformed(f"modulo({shared!r}, {left}, {right})", kind)
        helper = _HELPERS[op]
        self.helpers.add(helper)
        return self.conformed(f"{helper.__name__}({left}, {right})", kind)

    # -- decimals, as decimals.py types them where they meet ---------------------------------

    def decimal_operand(self, node: Node) -> str | None:
        """What a decimal-typed implementation gets for `node` (None for a float that is not an
        exact literal): decimals as they are, integers widened, exact literals as decimals."""
        compiled = self.seen[id(node)]
        if compiled.type == decimals.DECIMAL:
            return self.argument(node, decimals.DECIMAL)
        if compiled.type == NULL or (compiled.is_constant and compiled.constant is None):
            self.helpers.add(values.broadcast)
            return f"broadcast(None, 'decimal', {self.INDEX})"
        if compiled.type == "integer" and not compiled.is_constant:
            self.helpers.add(decimals.decimal_widened)
            return f"decimal_widened({self.argument(node, 'integer')})"
        if compiled.type == "integer":
            exact = decimals.integer_decimal(node, compiled.constant)
        elif compiled.type == "float" and compiled.is_constant:
            exact = decimals.exact_value(node, self.checker.text)
            if exact is None:
                return None
        else:
            return None
        if self.uses_parameter(node):
            raise CompileRefused("a parameter meeting a decimal (its type depends on its value)")
        self.helpers.add(decimals.decimal_constant)
        text = None if exact.value is None else str(exact.value)
        return f"decimal_constant({text!r}, {exact.precision}, {exact.scale})"

    def floated(self, node: Node) -> str:
        """A decimal as floats where it meets a float, anything else as the runtime passes it."""
        if self.seen[id(node)].type != decimals.DECIMAL:
            return self.argument(node, "float")
        self.helpers.add(decimals.decimal_floats)
        return f"decimal_floats({self.argument(node, decimals.DECIMAL)})"

    def met(self, nodes: list[Node]) -> tuple[str, list[str]] | None:
        """`decimals.promoted` for `nodes`: their shared type and their code (None when no
        decimal is among them)."""
        if not any(self.seen[id(node)].type == decimals.DECIMAL for node in nodes):
            return None
        codes = [self.decimal_operand(node) for node in nodes]
        if all(code is not None for code in codes):
            return decimals.DECIMAL, codes
        return "float", [self.floated(node) for node in nodes]

    def choice(self, node: Node, kind: str) -> str:
        """An operand meeting others (coalesce(), if(), in, between): a decimal among floats is
        read as floats."""
        return self.floated(node) if kind == "float" else self.argument(node, kind)

    def decimal_binary(self, node: Binary, kind: str) -> str:
        if node.op in symbols.COMPARISONS:
            shared, (left, right) = self.met([node.left, node.right])
            helper = decimals.decimal_compare if shared == decimals.DECIMAL else symbols.compare
            self.helpers.add(helper)
            return f"{helper.__name__}({node.op!r}, {left}, {right})"
        if kind == decimals.DECIMAL:
            _, (left, right) = self.met([node.left, node.right])
            self.helpers.add(decimals.decimal_arithmetic)
            return self.conformed(f"decimal_arithmetic({node.op!r}, {left}, {right})", kind)
        left, right = self.floated(node.left), self.floated(node.right)
        return self.arithmetic(node.op, left, right, "float", kind)

    def decimal_choices(self, node: In) -> str | None:
        """`x in (...)` where a decimal is among them, as `decimals.decimal_in` (None: floats)."""
        met = self.met([node.operand, *node.items])
        if met is None or met[0] != decimals.DECIMAL:
            return None
        operand, *codes = met[1]
        constants = [self.seen[id(item)].is_constant for item in node.items]
        values_of = [self.seen[id(item)].constant for item in node.items]
        choices = [
            code
            for code, fixed, value in zip(codes, constants, values_of, strict=True)
            if fixed and value is not None
        ]
        pairs = zip(constants, values_of, strict=True)
        has_null = any(fixed and value is None for fixed, value in pairs)
        others = [code for code, fixed in zip(codes, constants, strict=True) if not fixed]
        self.helpers.add(decimals.decimal_in)
        parts = ", ".join([operand, *others])
        return f"decimal_in([{', '.join(choices)}], {has_null}, {node.negated}, {parts})"

    def membership(self, node: In) -> str:
        decimal = self.decimal_choices(node)
        if decimal is not None:
            return decimal
        shared = self.common([node.operand, *node.items], "string")
        constants = [item for item in node.items if self.seen[id(item)].is_constant]
        choices = [self.scalar(i) for i in constants if self.seen[id(i)].constant is not None]
        has_null = any(self.seen[id(item)].constant is None for item in constants)
        others = [self.choice(i, shared) for i in node.items if i not in constants]
        self.helpers.add(symbols.is_in)
        parts = [self.choice(node.operand, shared), *others]
        listed = "[" + ", ".join(choices) + "]"
        return f"is_in({shared!r}, {listed}, {has_null}, {node.negated}, {', '.join(parts)})"

    def date_plan(self, plan: dates.Plan, kind: str) -> str:
        """A date `+`/`-` or date_add(), as `dates.arithmetic_plan` decided it."""
        self.helpers.add(plan.helper)
        settings = [literal(setting) for setting in plan.settings]
        operands = [self.argument(operand.node, operand.type) for operand in plan.operands]
        return self.conformed(f"{plan.helper.__name__}({', '.join(settings + operands)})", kind)

    def date_call(self, node: Call, kind: str) -> str:
        """The date functions of `functions.DATE_FUNCTIONS`."""
        name, args = node.name, node.args
        if name == "date_add":
            value, span = self.seen[id(args[0])], self.seen[id(args[1])]
            return self.date_plan(
                dates.shift_plan(self.checker, args[1], value, *span.constant), kind
            )
        if name == "timestamp":
            source = self.seen[id(args[0])].type
            if source == "datetime":  # timestamp() returns a datetime as it is
                return self.series(args[0], source)
            helper = (
                dates.text_to_timestamp if source in ("string", NULL) else dates.date_to_timestamp
            )
            self.helpers.add(helper)
            argument = self.argument(args[0], "string" if source == NULL else source)
            return self.conformed(f"{helper.__name__}({argument})", kind)
        if name in ("date_trunc", "date_diff"):
            if self.uses_parameter(args[0]):
                raise CompileRefused(f"{name}() with a parameter as its unit")
            unit = literal(str(self.seen[id(args[0])].constant).lower())
            if name == "date_trunc":
                self.helpers.add(dates.truncated)
                return self.conformed(f"truncated({unit}, {self.argument(args[1], kind)})", kind)
            shared = self.common(list(args[1:]), "date")
            parts = ", ".join(self.argument(arg, shared) for arg in args[1:])
            self.helpers.add(dates.date_difference)
            return self.conformed(f"date_difference({unit}, {parts})", kind)
        source = self.seen[id(args[0])].type
        self.helpers.add(dates.date_part_of)
        return self.conformed(f"date_part_of({name!r}, {self.argument(args[0], source)})", kind)

    def like(self, node: Like) -> str:
        text = self.argument(node.operand, "string")
        pattern = self.setting(node.pattern)
        escape = "None" if node.escape is None else self.setting(node.escape)
        self.helpers.add(patterns.matches_like)
        flags = f"{node.insensitive}, {node.negated}"
        return self.conformed(f"matches_like({text}, {pattern}, {escape}, {flags})", "boolean")

    def case(self, node: Case, kind: str) -> str:
        operand, whens, thens, otherwise = conditionals.case_parts(node, _children(node))
        compared = [] if operand is None else [operand, *whens]
        met = self.met(compared)
        if met is not None:
            shared, (operand_code, *when_codes) = met
        else:
            shared = "boolean" if operand is None else self.common(compared, "string")
            operand_code = None if operand is None else self.argument(operand, shared)
            when_codes = [self.argument(when, shared) for when in whens]
        results = [*thens, *([otherwise] if otherwise is not None else [])]
        met = self.met(results)
        result_codes = met[1] if met else [self.argument(result, kind) for result in results]
        parts = [] if operand is None else [operand_code]
        for when, then in zip(when_codes, result_codes, strict=False):
            parts += [when, then]
        if otherwise is not None:
            parts.append(result_codes[-1])
        exact = kind == decimals.DECIMAL
        chooser = conditionals.decimal_case if exact else conditionals.choose_case
        self.helpers.add(chooser)
        flags = f"{operand is not None}, {otherwise is not None}"
        code = f"{chooser.__name__}({kind!r}, {shared!r}, {flags}, {', '.join(parts)})"
        return self.conformed(code, kind)

    def setting(self, node: Node) -> str:
        """A function's constant argument (a search text, a count)."""
        return self.scalar(node)

    def call(self, node: Call, kind: str) -> str:
        name, args = node.name, node.args
        if name in _STRING_MAPS:
            return self.conformed(
                f"{self.argument(args[0], 'string')}.str.{_STRING_MAPS[name]}", kind
            )
        if name in _TEXT_TESTS:
            text = self.argument(args[0], "string")
            test = _TEXT_TESTS[name].format(self.setting(args[1]))
            self.helpers |= {values.with_nulls, values.null_mask}
            return self.conformed(f"with_nulls({text}.str.{test}, null_mask({text}))", kind)
        if name == "replace":
            text = self.argument(args[0], "string")
            old, new = self.setting(args[1]), self.setting(args[2])
            return self.conformed(f"{text}.str.replace({old}, {new}, regex=False)", kind)
        if name == "concat":
            parts = []
            for arg in args:
                code = self.argument(arg, "string")
                is_series = not (
                    self.seen[id(arg)].is_constant and self.seen[id(arg)].constant is not None
                )
                parts.append(f'{code}.fillna("")' if is_series else code)
            return self.conformed(" + ".join(parts), kind)
        if name in ("substr", "substring"):
            if any(self.uses_parameter(arg) for arg in args[1:]):
                raise CompileRefused("substr() with a parameter as its start or length")
            first = self.seen[id(args[1])].constant
            count = None if len(args) < 3 else self.seen[id(args[2])].constant
            stop = None if count is None else min(first - 1 + count, MAX_INTEGER)
            text = self.argument(args[0], "string")
            return self.conformed(f"{text}.str.slice({first - 1}, {stop})", kind)
        if name == "abs":
            return self.conformed(f"abs({self.argument(args[0], kind)})", kind)
        if kind == decimals.DECIMAL and name in ("floor", "ceil", "round", "coalesce", "if"):
            return self.decimal_call(node, kind)
        if name in ("floor", "ceil"):
            return self.conformed(f"np.{name}({self.argument(args[0], kind)})", kind)
        if name == "round":
            if len(args) > 1 and self.uses_parameter(args[1]):
                raise CompileRefused("round() with a parameter as its digits")
            places = 0 if len(args) < 2 else self.seen[id(args[1])].constant
            self.helpers.add(function_builders.rounded)
            return self.conformed(f"rounded({places}, {self.argument(args[0], kind)})", kind)
        if name == "date":
            source = self.seen[id(args[0])].type
            from_text = source in ("string", NULL)
            helper = function_builders.text_to_date if from_text else values.to_date
            self.helpers.add(helper)
            argument = self.argument(args[0], "string" if source == NULL else source)
            return self.conformed(f"{helper.__name__}({argument})", kind)
        if name in ("year", "month", "day"):
            source = self.seen[id(args[0])].type
            return self.conformed(f"{self.argument(args[0], source)}.dt.{name}", kind)
        if name in DATE_FUNCTIONS:
            return self.date_call(node, kind)
        if name == "coalesce":
            self.helpers.add(function_builders.first_not_null)
            parts = ", ".join(self.choice(arg, kind) for arg in args)
            return self.conformed(f"first_not_null({kind!r}, {parts})", kind)
        if name == "nullif":
            if self.seen[id(args[1])].type == NULL:  # the runtime returns the value itself
                return self.series(args[0], kind)
            self.helpers.add(conditionals.null_if)
            value = self.argument(args[0], kind)
            other = self.argument(args[1], self.seen[id(args[1])].type)
            return self.conformed(f"null_if({kind!r}, {value}, {other})", kind)
        if name == "if":
            self.helpers.add(function_builders.choose)
            test = self.argument(args[0], "boolean")
            yes, no = self.choice(args[1], kind), self.choice(args[2], kind)
            return self.conformed(f"choose({kind!r}, {test}, {yes}, {no})", kind)
        raise CompileRefused(f"cannot compile a call of {name}()")

    def decimal_call(self, node: Call, kind: str) -> str:
        name, args = node.name, node.args
        if name in ("floor", "ceil"):
            self.helpers.add(decimals.decimal_whole)
            return self.conformed(f"decimal_whole({name!r}, {self.argument(args[0], kind)})", kind)
        if name == "round":
            if len(args) > 1 and self.uses_parameter(args[1]):
                raise CompileRefused("round() with a parameter as its digits")
            places = 0 if len(args) < 2 else self.seen[id(args[1])].constant
            self.helpers.add(decimals.decimal_rounded)
            code = f"decimal_rounded({places}, {self.argument(args[0], kind)})"
            return self.conformed(code, kind)
        choices = list(args[1:] if name == "if" else args)
        _, codes = self.met(choices)
        if name == "coalesce":
            self.helpers.add(decimals.decimal_first_not_null)
            return self.conformed(f"decimal_first_not_null({', '.join(codes)})", kind)
        self.helpers.add(decimals.decimal_choose)
        test = self.argument(args[0], "boolean")
        return self.conformed(f"decimal_choose({test}, {', '.join(codes)})", kind)


def _children(node: Node) -> list[Node]:
    return list(children(node))
