"""Third-party operators: what a user publishes to extend Pipewright with `pip install`."""

import time

from pydantic import Field

from runtime.operator import Operator, OperatorParams


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
