"""Who may see what: a user sees and runs only their own pipelines; staff see all."""

from __future__ import annotations

from django.db.models import QuerySet
from django.http import Http404

from editor.models import Pipeline, Run


def visible_pipelines(user) -> QuerySet[Pipeline]:
    """The pipelines `user` may see, edit and run."""
    pipelines = Pipeline.objects.select_related("owner")
    return pipelines if user.is_staff else pipelines.filter(owner=user)


def visible_runs(user) -> QuerySet[Run]:
    """The runs of the pipelines `user` may see."""
    runs = Run.objects.select_related("pipeline", "started_by")
    return runs if user.is_staff else runs.filter(pipeline__owner=user)


def pipeline_for(user, pipeline_id: int) -> Pipeline:
    """The pipeline, or 404 for anyone who may not see it (its existence is not revealed)."""
    try:
        return visible_pipelines(user).get(pk=pipeline_id)
    except Pipeline.DoesNotExist:
        raise Http404("no such pipeline") from None


def run_for(user, run_id: int) -> Run:
    """The run, or 404 for anyone who may not see its pipeline."""
    try:
        return visible_runs(user).get(pk=run_id)
    except Run.DoesNotExist:
        raise Http404("no such run") from None
