"""A third-party operator: what a user publishes to extend Pipewright with `pip install`."""

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
