"""Dependencies between pipelines: which pipeline reads what another writes, in a workspace.

Belongs here: the graph of a workspace's pipelines (`graph`: links detected from the files
and tables of their input and output nodes, by `runtime.checks.footprint`, joined with the
dependencies people declared), declaring and removing one (`actions`), and recording the
upstream runs a run read when it is queued (`actions.record_upstream_runs`), the pipelines a
column's lineage goes on into (`lineage`). Does not belong here: running anything when an
upstream changes (triggers), who may see what (`editor.workspaces.permissions`).
"""
