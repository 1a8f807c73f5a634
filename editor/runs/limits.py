"""How many runs one user may have queued or running at once.

The launcher takes users in turn; this limit (`PIPEWRIGHT_MAX_RUNS_PER_USER`) keeps one user
from filling the queue and the database with runs in the first place.
"""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth import get_user_model

from editor.errors import ActionError
from editor.models import Run
from runtime import RunStatus


def refuse_too_many_runs(user) -> None:
    """Raise 429 `too_many_runs` if `user` has the allowed number of runs queued or running.

    Call it inside the transaction that creates the run: it locks the user's row, so that two
    runs started at the same moment are counted one after the other.
    """
    if user is None:
        return
    get_user_model().objects.select_for_update().filter(pk=user.pk).exists()
    limit = settings.PIPEWRIGHT_MAX_RUNS_PER_USER
    active = Run.objects.filter(started_by=user, status__in=RunStatus.ACTIVE).count()
    if active >= limit:
        raise ActionError(
            429,
            "too_many_runs",
            f"you already have {active} runs queued or running, the most allowed at once is "
            f"{limit}; wait for one to finish, or cancel one, then start this run again",
            limit=limit,
        )
