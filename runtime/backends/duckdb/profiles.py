"""DuckDB's JSON profile of a query as a skeleton (runtime/backends/duckdb/shapes.py), keeping
only the rows that are exactly what each operator's relation gives.

The profile nests every physical operator in its parent, so a chain of a few hundred
projections is nested deeper than `json.loads` recurses: `parsed` reads it with a stack.
The rows an operator shows are dropped (`_trusted`) where they may fall short of its relation's:
- under a limit that stops reading (LIMIT, STREAMING_LIMIT) and reached its count;
- beside an empty join input (DuckDB may never run the other side);
- on the way up from a scan pruned by a dynamic filter, when a join or a top-n is above (the
  filter comes from one of those, and prunes only what it cannot output).
"""

from __future__ import annotations

import dataclasses
import json
import re

from runtime.backends.duckdb.shapes import Shape, filtered, flat

ROW_WISE = {"PROJECTION", "ORDER_BY", "WINDOW", "STREAMING_WINDOW", "RESULT_COLLECTOR",
            "CREATE_TABLE_AS", "BATCH_CREATE_TABLE_AS"}  # fmt: skip
WRITERS = {"COPY_TO_FILE", "BATCH_COPY_TO_FILE"}
"""At a query's root, an output file's writer: it shows one row (how many it wrote), and its
input's rows are the query's."""
AGGREGATES = {"HASH_GROUP_BY", "PERFECT_HASH_GROUP_BY", "UNGROUPED_AGGREGATE"}
JOINS = {"HASH_JOIN", "NESTED_LOOP_JOIN", "PIECEWISE_MERGE_JOIN", "BLOCKWISE_NL_JOIN"}
LIMITS = {"LIMIT", "STREAMING_LIMIT", "TOP_N"}
FILE_SCANS = {"READ_CSV", "READ_PARQUET"}
FRAME_SCANS = {"PYTHON_ARROW_SCAN", "ARROW_SCAN"}
MAX_PROFILE_CHARS = 8 * 2**20
SHOWN_FILES = 5
"""Files a profile names of a scan reading more (then `...`)."""
"""A longer profile is not read (it lists every column of every projection: a few hundred
chained derives give hundreds of megabytes); the counts then come from meaning alone."""
_TOKEN = re.compile(
    r'\s*(?:("(?:[^"\\]|\\.)*")|(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null)|([{}\[\]:,]))'
)
_KEY = object()
"""In an object being read: the next string is a key."""


def scan_name(files) -> str:
    """How a profile names a scan of `files` (`InputFile`s): their real paths, the first
    `SHOWN_FILES` of them, then `...` if there are more."""
    shown = [str(file.location) for file in files[:SHOWN_FILES]]
    return ", ".join([*shown, "..."] if len(files) > SHOWN_FILES else shown)


def skeleton(profile: str) -> Shape | None:
    """The physical plan of a query's JSON profile, with the rows it can be trusted for (None:
    not a plan read here)."""
    if len(profile) > MAX_PROFILE_CHARS:
        return None
    roots = parsed(profile).get("operator") or []
    if len(roots) != 1:
        return None
    return _trusted(_read(roots[0], {}))


def parsed(text: str):
    """The JSON value of `text`, however deeply nested."""
    open_: list[tuple] = []  # each container being read, with the key awaiting its value
    root, position = None, 0
    while (match := _TOKEN.match(text, position)) is not None:
        position = match.end()
        string, scalar, mark = match.groups()
        if mark in (",", ":"):
            continue
        if mark in ("}", "]"):
            open_.pop()
            continue
        value = {} if mark == "{" else [] if mark == "[" else json.loads(string or scalar)
        if not open_:
            root = value
        elif isinstance(open_[-1][0], list):
            open_[-1][0].append(value)
        elif open_[-1][1] is _KEY:
            open_[-1] = (open_[-1][0], value)
            continue
        else:
            open_[-1][0][open_[-1][1]] = value
            open_[-1] = (open_[-1][0], _KEY)
        if mark in ("{", "["):
            open_.append((value, _KEY))
    if text[position:].strip():
        raise ValueError(f"not JSON at character {position}")
    return root


def _read(op: dict, definitions: dict[str, Shape]) -> Shape:
    while op.get("name") in ROW_WISE | WRITERS and len(op.get("children") or []) == 1:
        op = op["children"][0]
    name, info = op.get("name"), op.get("extra_info") or {}
    kids, rows = op.get("children") or [], op.get("intermediate_rows")
    if name == "CTE" and len(kids) == 2:  # a part computed once, then read by CTE_SCANs
        definitions[str(info.get("Table Index"))] = _read(kids[0], definitions)
        return _read(kids[1], definitions)
    if name == "CTE_SCAN":
        return definitions.get(str(info.get("CTE Index")), Shape("opaque"))
    if op.get("type") == "TABLE_SCAN" and not kids:
        return _scan(info, rows)
    children = tuple(_read(kid, definitions) for kid in kids)
    if name == "FILTER" and len(kids) == 1:
        if _windowed(kids[0]):  # QUALIFY row_number() ... = 1: a distinct
            return Shape("qualify", children, rows=rows)
        return filtered(children[0], rows=rows)
    if name in AGGREGATES and len(kids) == 1:
        return Shape("aggregate", children, rows=rows)
    if name in JOINS and len(kids) == 2:
        return Shape("join", children, info.get("Join Type"), rows=rows)
    if name == "UNION":  # it shows no rows of its own: the sum of its inputs is its count
        return Shape("union", flat(children))
    if name in LIMITS and len(kids) == 1:
        count = info.get("Limit", info.get("Top"))
        key = int(count) if isinstance(count, str) and count.isdigit() else None
        return Shape("limit", children, key, rows=rows, stops=name != "TOP_N")
    return Shape("opaque", children)


def _scan(info: dict, rows: int | None) -> Shape:
    function = info.get("Function")
    if function in FILE_SCANS:
        leaf = Shape("scan", key=info.get("Filename(s)"), rows=rows)
    elif function in FRAME_SCANS:
        leaf = Shape("frame", rows=rows)
    elif "Table" in info:  # "temp".main.name
        leaf = Shape("table", key=info["Table"].rsplit(".", 1)[-1].strip('"'), rows=rows)
    else:
        return Shape("opaque")
    leaf = dataclasses.replace(leaf, dynamic="Dynamic Filters" in info)
    if "Filters" in info:  # filters pushed into the scan: it counts the rows they keep
        return filtered(dataclasses.replace(leaf, rows=None), rows=rows)
    return leaf


def _windowed(op: dict) -> bool:
    """Whether a filter reads a window's rows (through projections)."""
    while op.get("name") == "PROJECTION" and len(op.get("children") or []) == 1:
        op = op["children"][0]
    return op.get("name") == "WINDOW"


def _trusted(node: Shape, below_join: bool = False, incomplete: bool = False) -> Shape:
    """`node` with only the rows that are its relation's; `below_join`: under a join or a limit
    (which may prune a scan under it), `incomplete`: DuckDB may not have read everything."""
    rows = None if incomplete or (below_join and _pruned(node)) else node.rows
    if node.kind == "join":
        sides = [child.rows for child in node.children]
        children = tuple(
            _trusted(child, True, incomplete or 0 in sides[:index] + sides[index + 1 :])
            for index, child in enumerate(node.children)
        )
    elif node.kind == "limit":
        stopped = node.stops and (node.rows is None or node.key is None or node.rows >= node.key)
        children = tuple(_trusted(child, True, incomplete or stopped) for child in node.children)
    else:
        children = tuple(_trusted(child, below_join, incomplete) for child in node.children)
    return dataclasses.replace(node, rows=rows, children=children)


def _pruned(node: Shape) -> bool:
    return node.dynamic or any(_pruned(child) for child in node.children)
