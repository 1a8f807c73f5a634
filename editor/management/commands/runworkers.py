"""`manage.py runworkers [--max-runs N]`: the worker pool as a service of its own.

Web processes started with `PIPEWRIGHT_WORKERS=service` execute no runs: they queue them
(`Run` rows in `queued`), and every `runworkers` process, on this machine or another, claims
them from the database and executes each in a process of its own, exactly as the embedded
pool does. Live events reach the editors through the channel layer, so the web processes and
the workers must share one Redis (`REDIS_URL`).

The first SIGTERM or Ctrl+C stops claiming and waits for the runs going to end; a second
stops them and exits once they have: a run that had committed nothing is queued again (its log
says so), one that had ends `cancelled`, saying it was stopped by a shutdown (outputs whole).
"""

from __future__ import annotations

import signal
import threading

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from editor.runs import launcher
from editor.runs.local import fork_server
from editor.runs.stale_outputs import start_removing
from editor.runs.watch import start_reaping
from editor.runs.worker_pool import WorkerPool

REDIS_LAYER = "channels_redis.pubsub.RedisPubSubChannelLayer"


class Command(BaseCommand):
    help = "Claim queued runs from the database and execute them, until stopped."

    def add_arguments(self, parser):
        parser.add_argument(
            "--max-runs",
            type=int,
            default=settings.PIPEWRIGHT_MAX_RUNS,
            help="runs executing at once (default: PIPEWRIGHT_MAX_RUNS)",
        )
        parser.add_argument(
            "--poll",
            type=float,
            default=0.25,
            help="seconds between looks at the queue when it is empty (default 0.25)",
        )

    def handle(self, *, max_runs: int, poll: float, **options):
        if settings.CHANNEL_LAYERS["default"]["BACKEND"] != REDIS_LAYER:
            raise CommandError(
                "runworkers needs REDIS_URL: without a shared channel layer the editors "
                "would see none of its runs' live events"
            )
        if max_runs < 1 or poll <= 0:
            raise CommandError("--max-runs must be at least 1 and --poll more than 0")
        fork_server.start()
        start_reaping()
        start_removing()
        pool = WorkerPool(max_runs, launcher.execute, poll_s=poll)
        stopping = threading.Event()

        def stop(*_):
            if stopping.is_set():
                self.stderr.write(
                    "stopping the runs going: those that committed nothing are queued again"
                )
                launcher.stop_for_shutdown()
                return
            stopping.set()
            pool.stop_claiming()
            self.stderr.write(
                f"stopping: waiting for {pool.executing()} runs to end (again to cancel them)"
            )

        signal.signal(signal.SIGTERM, stop)
        signal.signal(signal.SIGINT, stop)
        self.stdout.write(f"runworkers: up to {max_runs} runs at once", ending="\n")
        self.stdout.flush()
        pool.wake()
        while not (stopping.is_set() and pool.wait(timeout=0.2)):
            stopping.wait(0.5)
        fork_server.stop()
