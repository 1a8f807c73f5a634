"""Files and databases, confined to what a run may reach.

Belongs here: paths inside a file area, file patterns, incremental positions, users' regular
expressions (RE2 only), the network addresses a user may reach, and `sql/`: named connections,
their sessions and guards. Does not belong here: operators (they use these to read and write)
or anything that knows about plans and runs.
"""
