"""Triggers: pipelines started by events (a file in the workspace folder appearing or
changing, another pipeline's run succeeding, a signed webhook), each event exactly once, with
their owner's rights.

Belongs here: what users do to triggers (`actions`), which event fields fill which run
parameters (`parameters`), refusing a chain of upstream triggers that starts itself (`loops`),
reading the files a glob matches (`files`), recording events with the storm bound (`events`),
the scheduler's watch step that sees files and upstream runs and starts the waiting events'
runs (`watch`), and checking a webhook's signature (`hooks`). Does not belong here: starting a
run (`editor.runs.actions`), or who may change a trigger (`editor.workspaces.permissions`).
"""
