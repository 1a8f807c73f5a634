"""`manage.py backfill PIPELINE --schedule ID --start DATE --end DATE`: start a backfill.

Each interval of the schedule's cron between the start and the end becomes a run with the
interval's start and end as parameters; the scheduler (embedded in the web processes, or
`manage.py runscheduler`) starts them, at most `--concurrency` at once. This command creates
the backfill and prints its id and number of intervals; the editor and the API show progress.
"""

from __future__ import annotations

from datetime import datetime

from django.core.management.base import BaseCommand, CommandError

from editor.backfills import actions
from editor.errors import ActionError
from editor.management.commands._arguments import allowed, pipeline_numbered, user_named
from editor.models import Schedule
from editor.workspaces.permissions import Action


def _moment(text: str) -> datetime:
    try:
        return datetime.fromisoformat(text)
    except ValueError:
        raise CommandError(f"'{text}' is not a date (YYYY-MM-DD) or an ISO date and time") from None


class Command(BaseCommand):
    help = "Run a schedule's intervals between two dates, each as a run of the pipeline."

    def add_arguments(self, parser):
        parser.add_argument("pipeline", type=int, help="the pipeline's id")
        parser.add_argument("--schedule", type=int, required=True, help="the schedule's id")
        parser.add_argument("--start", type=_moment, required=True, help="first date (inclusive)")
        parser.add_argument("--end", type=_moment, required=True, help="last date (inclusive)")
        parser.add_argument("--start-parameter", default="interval_start")
        parser.add_argument("--end-parameter", default="interval_end")
        parser.add_argument("--format", choices=["datetime", "date"], default="datetime")
        parser.add_argument("--concurrency", type=int, default=1)
        parser.add_argument(
            "--owner", help="whose rights the runs use (default: the schedule's owner)"
        )

    def handle(self, *, pipeline: int, schedule: int, **options):
        found = pipeline_numbered(pipeline)
        try:
            chosen = Schedule.objects.get(pk=schedule, pipeline=found)
        except Schedule.DoesNotExist:
            raise CommandError(f"pipeline {pipeline} has no schedule {schedule}") from None
        owner = user_named(options["owner"]) if options["owner"] else chosen.owner
        allowed(owner, Action.RUN, found)
        try:
            fields = actions.BackfillIn(
                start=options["start"],
                end=options["end"],
                start_parameter=options["start_parameter"],
                end_parameter=options["end_parameter"],
                value_format=options["format"],
                concurrency=options["concurrency"],
            )
            backfill = actions.create_backfill(chosen, owner, fields)
        except ActionError as error:
            raise CommandError(error.message) from None
        except ValueError as error:  # pydantic's
            raise CommandError(str(error)) from None
        total = actions.progress(backfill)["total"]
        start = actions.in_schedule_zone(backfill, backfill.start)
        end = actions.in_schedule_zone(backfill, backfill.end)
        self.stdout.write(
            f"backfill {backfill.pk} of pipeline {found.pk} ({found.name}): {total} intervals "
            f"from {start:%Y-%m-%d %H:%M} to {end:%Y-%m-%d %H:%M} {chosen.timezone}, "
            f"{backfill.concurrency} at once"
        )
