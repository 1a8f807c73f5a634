"""Third-party operators: what a user publishes to extend Pipewright with `pip install`."""

import time

import pandas as pd
from pydantic import Field

from runtime import Column, Operator, OperatorParams, Schema


class ReverseRows(Operator):
    name = "reverse_rows"
    kind = "process"
    title = "Reverse rows"
    description = "The rows in reverse order."
    Params = OperatorParams

    def output_schema(self, ctx, inputs):
        return {"out": inputs["in"]}

    def run(self, ctx, inputs):
        return {"out": inputs["in"].iloc[::-1]}


class PauseParams(OperatorParams):
    seconds: float = Field(1.0, ge=0, title="Seconds", description="How long to wait.")


class Pause(Operator):
    name = "pause"
    kind = "process"
    title = "Pause"
    description = "Wait a while, then pass the rows on (slow pipelines for demos and tests)."
    Params = PauseParams
    deterministic = False  # the wait is the point: two pauses are never computed as one

    def output_schema(self, ctx, inputs):
        return {"out": inputs["in"]}

    def run(self, ctx, inputs):
        deadline = time.monotonic() + ctx.params.seconds
        while time.monotonic() < deadline:
            ctx.check_cancelled()
            time.sleep(0.01)
        ctx.logger.info(f"paused {ctx.params.seconds} s")
        return {"out": inputs["in"]}


class JournalParams(OperatorParams):
    journal: str = Field(
        "journal.txt", min_length=1, title="Journal", description="File to note calls in."
    )
    sleep_s: float = Field(0.0, ge=0, title="Sleep (s)", description="How long each run takes.")
    heed_stop: bool = Field(
        True, title="Stop when asked", description="Off: a run sleeps to its end even if stopped."
    )
    fail_times: int = Field(0, ge=0, title="Fail", description="Attempts that fail first.")


class Journal(Operator):
    """An operator with a lifecycle: `open` acquires a resource (here a file kept open for
    appending) once per node, every attempt uses it, `close` releases it once."""

    name = "journal"
    summary = "{journal}"
    kind = "process"
    title = "Journal"
    description = "Pass the rows on, noting open, each attempt and close in a journal file."
    Params = JournalParams
    deterministic = False

    def open(self, ctx):
        path = ctx.resolve_path(ctx.params.journal, write=True)
        ctx.resources["journal"] = path.open("a", encoding="utf-8", buffering=1)
        ctx.resources["attempts"] = 0
        self._note(ctx, "open")

    def close(self, ctx):
        self._note(ctx, "close")
        ctx.resources.pop("journal").close()

    def output_schema(self, ctx, inputs):
        return {"out": inputs["in"]}

    def run(self, ctx, inputs):
        ctx.resources["attempts"] += 1
        attempt = ctx.resources["attempts"]
        self._note(ctx, f"run {attempt}")
        deadline = time.monotonic() + ctx.params.sleep_s
        while time.monotonic() < deadline:
            if ctx.params.heed_stop:
                ctx.check_cancelled()
            time.sleep(0.01)
        self._note(ctx, f"ran {attempt}")
        if attempt <= ctx.params.fail_times:
            raise RuntimeError(f"attempt {attempt} fails on purpose")
        return {"out": inputs["in"]}

    @staticmethod
    def _note(ctx, line: str) -> None:
        ctx.resources["journal"].write(f"{ctx.node_id} {line}\n")


class SlowSourceParams(OperatorParams):
    seconds: float = Field(1.0, ge=0, title="Seconds", description="How long the source takes.")


class SlowSource(Operator):
    """An input whose source answers slowly, as a busy remote database or API does: its columns
    take `seconds` to learn too, so the check before a run (which asks every input for its
    columns) waits that long."""

    name = "slow_source"
    kind = "input"
    title = "Slow source"
    description = "Three numbers, given after a wait (slow checks and runs for tests)."
    inputs = ()
    Params = SlowSourceParams
    deterministic = False

    def output_schema(self, ctx, inputs):
        time.sleep(ctx.params.seconds)
        return {"out": Schema.of(Column("n", "integer", nullable=False))}

    def run(self, ctx, inputs):
        time.sleep(ctx.params.seconds)
        return {"out": pd.DataFrame({"n": [1, 2, 3]})}
