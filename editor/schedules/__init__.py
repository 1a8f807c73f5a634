"""Schedules: pipelines started by the clock, each due time exactly once, with their owner's
rights.

Belongs here: what users do to schedules (`actions`: create, update, delete, pause), when a
cron expression fires in a time zone (`cron_times`), and the loop that claims due schedules
and starts their runs (`scheduler`). Does not belong here: starting a run (the scheduler
calls `editor.runs`' start, as a user's click does), or who may own or change a schedule
(`editor.workspaces.permissions`).
"""
