"""The app's own database as something that can fail: its file kept private, and what the
server does while the database cannot be reached.

Belongs here: the embedded SQLite file's mode (`file`), what an outage looks like and how a
write that must not be lost waits it out (`outage`), and the 503 answers requests and
websockets get meanwhile (`outage_responses`). Does not belong here: the rows (`editor.models`)
or what is written (the recorder and the launcher in `editor.runs` call `outage.until_written`),
and no other database: a workspace's connections are `editor.workspaces.connections`.
"""
