"""The queue of runs is the database: a started run is a `Run` row in `queued`, and a worker
(of this process or of any other, `manage.py runworkers`) claims it by marking it `running`.

A claim takes one row inside a transaction: with a row lock that other claimers skip
(`SELECT … FOR UPDATE SKIP LOCKED`) on PostgreSQL and MariaDB, and in a write transaction on
SQLite, which takes the database's write lock when it begins (`transaction_mode`). Either
way two workers never claim one run, and a worker never waits on another's claim.

Users are taken in turn: the next run is the oldest queued run of the user with the fewest
runs going, the one whose last run started longest ago among equals, so that one user who
queues many runs delays another user's single run by one run at most. A user who has
`PIPEWRIGHT_MAX_RUNNING_PER_USER` runs going, on any worker, waits for one of them to end, so
that one user's long runs never hold every slot while others' work waits. The claim counts
them again with the user's row locked (claimers of other users' runs go on), so two workers
claiming at once cannot both take the user's last slot. A run a schedule
queued behind its pipeline's active run (`queued_behind`) waits for that run to end. Queued
runs that a process holds (`pid` set: `manage.py runpipeline` runs its own in the foreground)
are never claimed.
"""

from __future__ import annotations

import os
import socket
from collections import Counter
from collections.abc import Iterator
from datetime import UTC, datetime

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import connection, transaction
from django.db.models import Exists, Max, OuterRef
from django.utils import timezone

from editor.models import Run
from editor.runs import watch
from runtime import RunStatus

NEVER = datetime(1970, 1, 1, tzinfo=UTC)
"""When a user who never ran anything was last served: before everyone else."""
CANDIDATES = 1000
"""How many of the oldest queued runs a claim looks at to choose the next user from."""


def unclaimed() -> Run.objects:
    """Queued runs waiting for any worker (no process holds them), but not one a schedule
    queued behind a run that is still active."""
    ahead = Run.objects.filter(pk=OuterRef("queued_behind_id"), status__in=RunStatus.ACTIVE)
    return Run.objects.filter(
        ~Exists(ahead), status=RunStatus.QUEUED, cancel_requested=False, pid__isnull=True
    )


def claim_next() -> int | None:
    """Claim the next run in fair order for this process; its id, or None if none waits."""
    for run_id, user_id in _in_fair_order():
        if _claim(run_id, user_id):
            return run_id
    return None


def _in_fair_order() -> Iterator[tuple[int, int | None]]:
    """Each waiting user's oldest queued run with the user, the user to serve first first,
    leaving out users whose running slots are all taken."""
    waiting = unclaimed().order_by("created_at", "pk").values_list("pk", "started_by_id")
    oldest: dict[int | None, int] = {}
    for run_id, user_id in waiting[:CANDIDATES]:
        oldest.setdefault(user_id, run_id)
    if not oldest:
        return
    going = Counter(
        Run.objects.filter(status=RunStatus.RUNNING).values_list("started_by_id", flat=True)
    )
    last_started = dict(
        Run.objects.filter(started_by_id__in=[user for user in oldest if user is not None])
        .exclude(started_at=None)
        .values("started_by_id")
        .annotate(last=Max("started_at"))
        .values_list("started_by_id", "last")
    )
    limit = settings.PIPEWRIGHT_MAX_RUNNING_PER_USER
    users = [user for user in oldest if user is None or going[user] < limit]
    users.sort(key=lambda user: (going[user], last_started.get(user, NEVER)))
    for user in users:
        yield oldest[user], user


def _claim(run_id: int, user_id: int | None) -> bool:
    """Mark `run_id` running for this process, if it is still waiting, nobody else is
    claiming it or another run of its user at this moment, and its user has a free slot."""
    try:
        return _claim_held(run_id, user_id)
    except Exception:  # the claim did not commit: the run is not this process's
        watch.release(run_id)
        raise


def _claim_held(run_id: int, user_id: int | None) -> bool:
    skip_locked = connection.features.has_select_for_update_skip_locked
    with transaction.atomic():
        waiting = unclaimed().filter(pk=run_id)
        if skip_locked:
            waiting = waiting.select_for_update(skip_locked=True)
        if not waiting.values_list("pk", flat=True).first():
            return False
        if user_id is not None and not _free_slot(user_id, skip_locked):
            return False
        now = timezone.now()
        claimed = Run.objects.filter(pk=run_id).update(
            status=RunStatus.RUNNING,
            started_at=now,
            heartbeat_at=now,
            host=socket.gethostname(),
            pid=os.getpid(),
        )
        if claimed:  # held before anyone can see the claim: see `watch.reap_interrupted_runs`
            watch.keep(run_id)
        return bool(claimed)


def _free_slot(user_id: int, skip_locked: bool) -> bool:
    """Whether the user has fewer than `PIPEWRIGHT_MAX_RUNNING_PER_USER` runs running, on any
    worker; False while another claim or start holds the user's row (looked at again soon).
    SQLite's write transaction already keeps every other claimer out."""
    users = get_user_model().objects.filter(pk=user_id)
    locked = users.select_for_update(skip_locked=True).values_list("pk", flat=True)
    if skip_locked and locked.first() is None:
        return False
    running = Run.objects.filter(started_by_id=user_id, status=RunStatus.RUNNING).count()
    return running < settings.PIPEWRIGHT_MAX_RUNNING_PER_USER
