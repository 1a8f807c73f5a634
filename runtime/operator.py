"""The plugin contract's old import path: installed plugins import `runtime.operator`.

The contract lives in `runtime/operators/contract.py`; this module only keeps that path working.
"""

from runtime.operators.contract import (
    KINDS,
    InputFrames,
    InputRelations,
    InputSchemas,
    Kind,
    Operator,
    OperatorParams,
    Port,
)

__all__ = [
    "KINDS",
    "InputFrames",
    "InputRelations",
    "InputSchemas",
    "Kind",
    "Operator",
    "OperatorParams",
    "Port",
]
