"""The editor's persistent state, one module a domain; import models from here.

- `workspaces`: workspaces, members and their roles, connections, API tokens.
- `pipelines`: pipelines stored as rows of nodes and edges, and the revisions history keeps.
- `runs`: runs with the snapshot of the document that ran, node runs, log lines, and the
  positions incremental inputs reached.
- `pins`: rows that stand for a node's output in editor runs.
- `backfills`: a schedule's past intervals run one by one; `dependencies`: pipelines that
  read what others write (declared), and the upstream runs a run read.
- `schedules`, `triggers`, `audit`, `notifications`: what fires runs, what records changes,
  and who is told when a run ends.

Only Django models, their query sets and choices belong here, with the few lines of logic
that keep a row true (a run's number, an audit entry's immutability, a secret's encryption).
What a change means (validation, permissions, side effects) lives in the domain's actions.
"""

from editor.models.audit import AppendOnly, AuditEntry, AuditSource
from editor.models.backfills import Backfill, BackfillInterval
from editor.models.dependencies import DeclaredDependency, UpstreamRun
from editor.models.notifications import Notification
from editor.models.pins import Pin
from editor.models.pipelines import Edge, Node, Pipeline, PipelineRevision
from editor.models.runs import InputPosition, NodeRun, Run, RunLog, latest_statuses
from editor.models.schedules import Schedule
from editor.models.triggers import Trigger, TriggerEvent
from editor.models.workspaces import ApiToken, Connection, Membership, Role, Workspace

__all__ = [
    "ApiToken",
    "AppendOnly",
    "AuditEntry",
    "AuditSource",
    "Backfill",
    "BackfillInterval",
    "Connection",
    "DeclaredDependency",
    "Edge",
    "InputPosition",
    "Membership",
    "Node",
    "NodeRun",
    "Notification",
    "Pin",
    "Pipeline",
    "PipelineRevision",
    "Role",
    "Run",
    "RunLog",
    "Schedule",
    "Trigger",
    "TriggerEvent",
    "UpstreamRun",
    "Workspace",
    "latest_statuses",
]
