"""The plan between a pipeline document and the executor, and the passes that optimise it.

Belongs here: the plan's data structures, building one from a document, the optimisation
passes (each a pure function: plan in, plan out), choosing a backend per segment, and the
text `explain` prints. Does not belong here: running anything (the executor and the
backends do), reading data, or validating documents (`runtime.checks.analysis`).
"""

from runtime.plan.build import build_plan
from runtime.plan.model import Plan, PlannedNode, Segment, Source

__all__ = ["Plan", "PlannedNode", "Segment", "Source", "build_plan"]
