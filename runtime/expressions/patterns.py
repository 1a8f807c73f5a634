"""`x like 'pattern'` and its kin (`not like`, `ilike`, `not ilike`): how they are
type-checked and computed with pandas.

A pattern is SQL's: `%` matches any run of characters (none included), `_` exactly one
character (a code point, a newline too), every other character itself; the whole text must
match. There is no escape character unless the expression names one (`escape '!'`), as in
standard SQL and DuckDB (PostgreSQL's default backslash is not one). `ilike` compares the
texts lower-cased (pyarrow's `utf8_lower`, one code point for one, as DuckDB's `lower`), the
pattern and its escape character too, before the escapes are read, as DuckDB does.

No user pattern reaches a backtracking engine: a pattern with wildcards only at its ends is a
plain text search (pyarrow's `starts_with`, `ends_with`, `match_substring`), any other is
written as a regular expression for RE2 (pyarrow's `match_substring_regex`), whose time is
linear in the text. Not `pyarrow.compute.match_like`: pyarrow 26 mis-reads an escaped
backslash at the end of a pattern (`%\\\\` matches no text ending in `\\`). The pattern must be a
constant, checked when the expression is.
"""

from __future__ import annotations

from runtime.lazy import pa, pc, pd

from .nodes import Like
from .type_checks import Checker
from .values import Compiled, constant, derive

_ANY = "..."
"""A `%` among a pattern's parts (a literal part is one character, so never this)."""


def like_word(node: Like) -> str:
    """How `node` is spelled in messages: `'like'`, `'not ilike'`..."""
    word = "ilike" if node.insensitive else "like"
    return f"'not {word}'" if node.negated else f"'{word}'"


def build_like(
    checker: Checker,
    node: Like,
    operand: Compiled,
    pattern: Compiled,
    escape: Compiled | None = None,
) -> Compiled:
    """`operand like pattern [escape char]`: null where the operand is null."""
    word = like_word(node)
    operand = checker.expect(operand, ("string",), "a string", word)
    value = _constant_text(checker, word, pattern, "pattern")
    escape_char = None if escape is None else _constant_text(checker, word, escape, "escape")
    if value is None or (escape is not None and escape_char is None):
        return constant(node, None, "boolean")
    if escape_char is not None and len(escape_char) != 1:
        raise checker.error(escape.node, f"the escape of {word} must be one character")
    try:
        like_parts(value, escape_char, node.insensitive)
    except ValueError as error:
        hint = "escape the escape character itself"
        raise checker.error(pattern.node, str(error), hint) from None

    def test(text: pd.Series) -> pd.Series:
        return matches_like(text, value, escape_char, node.insensitive, node.negated)

    return derive(node, "boolean", operand.nullable, test, operand)


def _constant_text(checker: Checker, word: str, arg: Compiled, what: str) -> str | None:
    arg = checker.expect(arg, ("string",), f"a string {what}", word)
    if not arg.is_constant:
        raise checker.error(
            arg.node,
            f"{checker.describe(arg.node)} must be a constant",
            f"{word} cannot take its {what} from a column",
        )
    return arg.constant


def like_parts(pattern: str, escape: str | None, insensitive: bool) -> list[str | None]:
    """`pattern` (SQL LIKE with `escape`, if any) as its parts: a literal character, or None
    for `_`, or `...` for `%`; lower-cased first for `ilike`. ValueError if it ends with the
    escape character."""
    if insensitive:
        pattern = pc.utf8_lower(pa.scalar(pattern, pa.string())).as_py()
        escape = escape and pc.utf8_lower(pa.scalar(escape, pa.string())).as_py()
    parts: list[str | None] = []
    escaped = False
    for char in pattern:
        if escaped or (char != escape and char not in "%_"):
            parts.append(char)
            escaped = False
        elif char == escape:
            escaped = True
        else:
            parts.append(_ANY if char == "%" else None)
    if escaped:
        raise ValueError("a pattern cannot end with its escape character")
    return parts


def matches_like(
    text: pd.Series, pattern: str, escape: str | None, insensitive: bool, negated: bool
) -> pd.Series:
    """Whether each text matches the LIKE `pattern` (not, when `negated`); null for null."""
    values = pa.array(text.astype("str"), type=pa.large_string(), from_pandas=True)
    if insensitive:
        values = pc.utf8_lower(values)
    matched = _matched(values, like_parts(pattern, escape, insensitive))
    if negated:
        matched = pc.invert(matched)
    result = pc.fill_null(matched, False).to_numpy(zero_copy_only=False)
    if matched.null_count == 0:
        return pd.Series(result, index=text.index, dtype=bool)
    nulls = matched.is_null().to_numpy(zero_copy_only=False)
    return pd.Series(pd.arrays.BooleanArray(result, nulls), index=text.index)


def _matched(values: pa.Array, parts: list[str | None]) -> pa.Array:
    """Where `values` match `parts`: a plain text search for `abc`, `abc%`, `%abc` and
    `%abc%`, else RE2 over the pattern written as a regular expression."""
    lead = trail = 0
    while lead < len(parts) and parts[lead] == _ANY:
        lead += 1
    while trail < len(parts) - lead and parts[-1 - trail] == _ANY:
        trail += 1
    middle = parts[lead : len(parts) - trail]
    if all(part is not None and part != _ANY for part in middle):
        plain = "".join(middle)
        if lead and trail:
            return pc.match_substring(values, plain)
        if lead:
            return pc.ends_with(values, plain)
        if trail:
            return pc.starts_with(values, plain)
        return pc.equal(values, pa.scalar(plain, pa.large_string()))
    return pc.match_substring_regex(values, "(?s)\\A" + "".join(map(_regex, parts)) + "\\z")


def _regex(part: str | None) -> str:
    """One part of a LIKE pattern in RE2's syntax: every literal but a letter or digit of
    ASCII written as its code point, so nothing in it is read as regex syntax."""
    if part is None:
        return "."
    if part == _ANY:
        return ".*"
    return part if part.isascii() and part.isalnum() else f"\\x{{{ord(part):x}}}"
