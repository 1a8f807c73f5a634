"""Workspaces: who is in one and with which role, who may do what there, and what a workspace
holds besides pipelines — its database connections, its files and its members' API tokens.

Belongs here: making workspaces and members and where a workspace's folder is (`membership`),
the one place that turns roles into answers (`permissions`), connection URLs and what the
runtime is given of them (`connections`), the files API's operations (`files`), and API
tokens (`tokens`). Does not belong here: the rows themselves (`editor.models`), pipelines and
their runs (`editor.pipelines`, `editor.runs`), or how the engine confines a path to a
workspace (the runtime's `FileArea`).
"""
