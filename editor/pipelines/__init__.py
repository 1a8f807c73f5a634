"""Pipelines as users edit them: what they do to one, how its rows map to a document, its
history, and what leaves the server of it (exports, pictures).

Belongs here: creating, saving, deleting and duplicating a pipeline (`actions`), the one
mapping between a pipeline's rows and the runtime's document (`documents`), its versions
(`revisions`), export downloads (`exports`), Graphviz pictures and layouts
(`graph_image`), and the rows pinned to stand for a node's output (`pins`). Does not belong
here: running a pipeline (`editor.runs`), its schedules
(`editor.schedules`), who may see or change it (`editor.workspaces.permissions`), or checking
what a document means (the runtime).
"""
