"""`manage.py runscheduler`: the scheduler as a service of its own.

Web processes started with `PIPEWRIGHT_SCHEDULER=service` fire no schedules; this process
does. Several may run (on several machines): each due time is claimed through the database
and fires once. SIGTERM or Ctrl+C stops it after the tick going, cleanly.
"""

from __future__ import annotations

import signal

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from editor.schedules.scheduler import TICK_S, Scheduler


class Command(BaseCommand):
    help = "Fire the schedules that are due, every few seconds, until stopped."

    def add_arguments(self, parser):
        parser.add_argument(
            "--tick",
            type=float,
            default=TICK_S,
            help=f"seconds between looks for due schedules (default {TICK_S})",
        )

    def handle(self, *, tick: float, **options):
        if tick <= 0:
            raise CommandError("--tick must be more than 0")
        # The runs it starts wait in the queue for the processes that execute runs (the web
        # processes' embedded pools, or `runworkers`): this one executes none.
        settings.PIPEWRIGHT_WORKERS = "service"
        scheduler = Scheduler(tick_s=tick)

        def stop(*_):
            scheduler.stop()

        signal.signal(signal.SIGTERM, stop)
        signal.signal(signal.SIGINT, stop)
        self.stdout.write(f"runscheduler: looking for due schedules every {tick:g} s")
        self.stdout.flush()
        scheduler.run()
        self.stdout.write("runscheduler: stopped")
