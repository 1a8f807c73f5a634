"""The contract every operator implements, built-in or third-party.

An operator is one class: a name, a kind, a title and description, its ports, a pydantic
`Params` model (whose JSON Schema drives the editor's form), `output_schema` (the columns it
will produce, computed without data) and `run` (the work, over pandas DataFrames). Operators
hold no state: one instance serves every node that uses it, from several threads at once.
Plugins import it from `runtime` (`from runtime import Operator`); docs/operators.md says how
one is published.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar, Literal, TypeVar

from pydantic import BaseModel, ConfigDict

from runtime.errors import NotLowerable
from runtime.lazy import pd

if TYPE_CHECKING:
    from runtime.io.paths import FileArea
    from runtime.operators.context import NodeContext
    from runtime.relational import Relation
    from runtime.tables.schema import Schema

T = TypeVar("T")
Kind = Literal["input", "process", "output"]
KINDS: tuple[str, ...] = ("input", "process", "output")

InputFrames = dict[str, "pd.DataFrame | list[pd.DataFrame] | None"]
InputSchemas = dict[str, "Schema | list[Schema] | None"]
InputRelations = dict[str, "Relation | list[Relation] | None"]


@dataclass(frozen=True, slots=True)
class Port:
    """A named input or output. `many` input ports accept several edges (e.g. union)."""

    name: str
    many: bool = False
    required: bool = True
    description: str = ""

    def to_json(self) -> dict:
        return {
            "name": self.name,
            "many": self.many,
            "required": self.required,
            "description": self.description,
        }


@dataclass(frozen=True, slots=True)
class Ports:
    """A node's input and output ports, as `Operator.ports` works them out from its params."""

    inputs: tuple[Port, ...]
    outputs: tuple[Port, ...]

    def input(self, name: str) -> Port | None:
        return next((port for port in self.inputs if port.name == name), None)

    def output(self, name: str) -> Port | None:
        return next((port for port in self.outputs if port.name == name), None)


@dataclass(frozen=True, slots=True)
class OutputsFrom:
    """Output ports named by a list param: one per item (its `key` field), then `after`.

    Declared rather than computed so that the editor, which has no Python, draws the same
    handles as the user edits the list, before anything is saved (route's conditions)."""

    param: str
    key: str = "name"
    after: tuple[str, ...] = ()

    def names(self, params: OperatorParams) -> list[str]:
        return [getattr(item, self.key) for item in getattr(params, self.param)] + [*self.after]

    def to_json(self) -> dict:
        return {"param": self.param, "key": self.key, "after": list(self.after)}


class OperatorParams(BaseModel):
    """Base for `Params` models: unknown fields are mistakes, not silently ignored."""

    model_config = ConfigDict(extra="forbid")


class Operator:
    """Subclass this, set the class attributes, and implement `output_schema` and `run`.

    `run` receives one DataFrame per single input port (a list for a `many` port, `None` for
    an optional port with no edge) and returns one DataFrame per output port. Inputs may be
    shared with other nodes: never modify them in place.
    """

    name: ClassVar[str]
    kind: ClassVar[Kind]
    title: ClassVar[str]
    description: ClassVar[str] = ""
    summary: ClassVar[str] = ""
    """What a node of this operator does, in one line its card shows: a template of its params
    (`"{path}"`, `"by {group_by}"`) that the editor fills as the user types. `{name}` is a param
    (a list joins its items with commas, a mapping reads `key → value`), `{name.part}` a part of
    each item; a `[...]` section is left out while a param in it is empty."""
    keywords: ClassVar[tuple[str, ...]] = ()
    """Other words users search the palette with for this operator, beside its title, name and
    description: the names other tools and SQL give it ("crosstab", "melt", "exists"), so that
    an analyst coming from them finds it by the word they know."""
    inputs: ClassVar[tuple[Port, ...]] = (Port("in"),)
    outputs: ClassVar[tuple[Port, ...]] = (Port("out"),)
    """The declared ports; a node's real ones are `ports(params)`, which every reader asks."""
    outputs_from: ClassVar[OutputsFrom | None] = None
    """Set when the output ports follow the params (route: one per condition): `outputs` are
    then the ports a node has whatever its params (route's `otherwise`)."""
    Params: ClassVar[type[OperatorParams]] = OperatorParams
    row_limit_safe: ClassVar[bool] = False
    """True when the first n output rows depend only on the first n input rows (row-wise
    maps such as select or transform), so a preview may read only the head of its inputs.
    On an input operator: reading only n rows gives exactly the first n rows of a full read,
    values and types alike (a file that stores its types), so a limit may reach it."""
    partitionable: ClassVar[bool] = False
    """True when the output over a table is the concatenation of the outputs over any split
    of its rows (filter, transform, select): a cluster may run it on each file of an input
    that names several files, in parallel."""
    deterministic: ClassVar[bool] = True
    """False when two runs over the same inputs may give different rows (random draws, a
    query on a database that changes): such nodes are never merged with identical ones."""
    breaks_pipeline: ClassVar[bool] = False
    """True when the operator must see all its input before its first output row (aggregate,
    join, sort, deduplicate): with the result store on, its input is kept (after the last
    filter of the row-wise chain computing it), so that editing it, or a node of that chain
    below that filter, re-runs from there and not from the pipeline's inputs."""
    version: ClassVar[int] = 1
    """Raise it when a change to `run` or `lower` changes what a node computes: results the
    older version stored are then not reused (it is part of every result's key)."""
    never_reused_because: ClassVar[str] = "its rows may differ from one run to the next"
    """What `explain` says of a node whose `reuse_for_s` is None."""

    def spills(self, params) -> bool:
        """Whether a node of these params honours `NodeContext.spill_path`: its `run` then
        reads its source (or a spilled input) batch by batch into that file instead of
        building a frame, where only DuckDB segments and nodes that `reads_batches` read its
        rows (runtime/execution/streams.py). Nodes that read batches and have outputs do."""
        return self.kind == "process" and self.reads_batches(params)

    def reads_batches(self, params) -> bool:
        """Whether a node of these params, handed its input as rows spilled to a file
        (`SpilledRows`), reads them a batch at a time rather than as one frame: a row-wise
        operator (`partitionable`, run batch by batch: runtime/operators/batches.py), or one
        whose `run` reads them itself (an output appending batch by batch). Only then may its
        input spill into a file for it (runtime/execution/streams.py)."""
        return self.partitionable and self.kind == "process" and len(self.inputs) == 1

    def ports(self, params: OperatorParams | None) -> Ports:
        """A node's ports given its validated params: the declared `inputs` and `outputs`, or
        with `outputs_from` one output per item of that list param (None: params not valid
        yet, the declared ports). Override it for ports the editor need not draw before a
        save (it draws the declared ones and any an edge names)."""
        if self.outputs_from is None or params is None:
            return Ports(self.inputs, self.outputs)
        names = self.outputs_from.names(params)
        return Ports(self.inputs, tuple(Port(name) for name in names))

    def reuse_for_s(self, params: OperatorParams) -> float | None:
        """How long a stored result of a node stays good, in seconds: `math.inf` (the default
        of deterministic operators), a freshness the node sets, or None: never reused."""
        return math.inf if self.deterministic else None

    def cache_identity(self, params: OperatorParams, files: FileArea, connections) -> object:
        """What the node reads from outside the pipeline, as JSON data for its result's key
        (files' sizes and times, a query and its database); None when it cannot say, and then
        its result is never reused. The default: nothing for nodes that read only their
        inputs, None for inputs."""
        return None if self.kind == "input" else ()

    def open(self, ctx: NodeContext) -> None:
        """Before a node's first attempt: acquire what every attempt shares (a connection, a
        client) and keep it in `ctx.resources`, never on the operator. Optional."""

    def close(self, ctx: NodeContext) -> None:
        """After a node's last attempt, whatever its end (success, failure, timeout, cancel),
        once that attempt's work has really ended, in the process that opened: release what
        `open` put in `ctx.resources`. Optional."""

    def output_schema(self, ctx: NodeContext, inputs: InputSchemas) -> dict[str, Schema]:
        """The schema of each output port, given the input schemas (no data is read)."""
        raise NotImplementedError

    def run(self, ctx: NodeContext, inputs: InputFrames) -> dict[str, pd.DataFrame]:
        """Do the work; return a DataFrame for every output port."""
        raise NotImplementedError

    def views(self, params: OperatorParams, inputs: InputSchemas) -> dict[str, Schema]:
        """Rows an expression param reads that are no input port's, by name, for the editor's
        completion (`ExpressionOver(name)`): a join's condition reads the joined row. Given
        the input schemas and params that may not fit them yet (a view is offered while the
        user puts them right); None of them when it cannot be worked out. Default: none."""
        return {}

    def input_columns(
        self, params: OperatorParams, output_columns: dict[str, set[str] | None]
    ) -> dict[str, set[str] | None]:
        """The input columns needed to produce `output_columns` (None: all of them).

        Column pruning asks this, from the outputs back to the inputs, so that inputs never
        read a column that cannot reach an output. The safe default needs every column.
        """
        return dict.fromkeys((port.name for port in self.ports(params).inputs), None)

    def pruned(self, params: OperatorParams, wanted: set[str] | None) -> OperatorParams:
        """`params` less the work whose results nothing downstream reads (`wanted`: the
        columns of the `out` port that are read; None: all). The planner lowers the pruned
        params, so a node can run on DuckDB when only an unread part of it could not."""
        return params

    def lower(
        self, params: OperatorParams, inputs: InputRelations, schemas: InputSchemas
    ) -> dict[str, Relation]:
        """This node as relational algebra over its inputs, one relation per output port, so a
        columnar backend can run it fused with its neighbours.

        Raise `runtime.errors.NotLowerable` with the reason when the result could
        differ in any way from `run`'s (the pandas result is the reference); the node then runs
        on pandas. The default: operators run on pandas only.
        """
        raise NotLowerable(f"'{self.title}' runs on pandas only")

    def arranged(
        self, params: OperatorParams | None, found: Mapping[str, list[T]]
    ) -> dict[str, T | list[T] | None]:
        """Values found for each input port (frames, schemas, relations), shaped as `run`
        takes them: a list for a `many` port, else its one value, or None with no edge."""
        arranged: dict[str, T | list[T] | None] = {}
        for port in self.ports(params).inputs:
            values = list(found.get(port.name, ()))
            arranged[port.name] = values if port.many else (values[0] if values else None)
        return arranged

    def describe(self) -> dict:
        """The catalog entry: what the palette and the node form are built from."""
        return {
            "name": self.name,
            "kind": self.kind,
            "title": self.title,
            "description": self.description,
            "summary": self.summary,
            "keywords": list(self.keywords),
            "inputs": [port.to_json() for port in self.inputs],
            "outputs": [port.to_json() for port in self.outputs],
            "outputs_from": self.outputs_from and self.outputs_from.to_json(),
            "params_schema": self.Params.model_json_schema(),
        }
