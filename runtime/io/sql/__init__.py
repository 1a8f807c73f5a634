"""Named database connections: their specs, engines, read-only sessions and destination rules.

Belongs here: turning a connection's spec into an engine the database itself confines, and
refusing destinations a user may not reach. Does not belong here: the SQL operators' reading
and writing (`runtime.operators.sql`).
"""
