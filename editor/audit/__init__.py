"""The audit log: who changed what, when and from where, and reading it back.

Belongs here: recording an entry inside the transaction of the change it records (`log`, with
the middleware and `acting` that say who acts and from where), the entries model signals
record for changes made by any path (`signals`), and the log as a spreadsheet-safe CSV
(`csv`). Does not belong here: deciding who may read the log (`editor.workspaces.permissions`)
or the changes themselves (each domain's actions call `log.record`).
"""
