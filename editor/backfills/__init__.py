"""Backfills: a schedule's intervals over a past date range, each a run with the interval's
start and end as parameters, at most `concurrency` at once.

Belongs here: what users do to backfills (`actions`: create, cancel, retry, the progress and
the calendar) and how one moves on (`advance`: claim the next intervals through the database,
start their runs, record how the finished ones ended), which the scheduler's tick calls.
Does not belong here: when a cron expression fires (`editor.schedules.cron_times`), starting
or cancelling a run (`editor.runs.actions`), who may do what (`editor.workspaces.permissions`).
"""
