"""What users do to dependencies (declare that a pipeline reads another's output, remove it),
and what a run records of them: the upstream runs it read.

A declaration links two pipelines of one workspace; editing the downstream pipeline is the
right it needs (it says what that pipeline reads).
"""

from __future__ import annotations

from django.db import IntegrityError, transaction

from editor.audit import log as audit_log
from editor.dependencies import graph
from editor.errors import ActionError
from editor.models import DeclaredDependency, Pipeline, Run, UpstreamRun
from runtime import RunStatus

MAX_DECLARED = 100
"""Dependencies one pipeline may declare."""


def declare(downstream: Pipeline, upstream: Pipeline, by, note: str = "") -> DeclaredDependency:
    """Declare that `downstream` reads what `upstream` writes; 400 when it is itself, of
    another workspace, already declared, or one too many."""
    if upstream.pk == downstream.pk:
        raise ActionError(
            400, "invalid_dependency", "a pipeline cannot depend on itself", field="upstream"
        )
    if upstream.workspace_id != downstream.workspace_id:
        raise ActionError(
            400, "invalid_dependency", "both pipelines must be of one workspace", field="upstream"
        )
    with transaction.atomic():
        Pipeline.objects.select_for_update().filter(pk=downstream.pk).exists()
        if downstream.declared_dependencies.count() >= MAX_DECLARED:
            raise ActionError(
                400, "too_many_dependencies",
                f"a pipeline declares at most {MAX_DECLARED} dependencies",
            )  # fmt: skip
        try:
            with transaction.atomic():
                dependency = DeclaredDependency.objects.create(
                    upstream=upstream, downstream=downstream, note=note, created_by=by
                )
        except IntegrityError:
            raise ActionError(
                400, "invalid_dependency", f"'{downstream}' already declares '{upstream}'",
                field="upstream",
            ) from None  # fmt: skip
        audit_log.record(
            "dependency.declared", downstream, details={"upstream": upstream.pk}, user=by
        )
    return dependency


def remove(dependency: DeclaredDependency, by) -> None:
    """Remove a declared dependency (a detected one goes when the documents change)."""
    with transaction.atomic():
        details = {"upstream": dependency.upstream_id}
        audit_log.record("dependency.removed", dependency.downstream, details=details, user=by)
        dependency.delete()


def record_upstream_runs(run: Run) -> None:
    """Record, for each pipeline the run's pipeline reads from, its latest succeeded run now
    (none yet: recorded empty), in the caller's transaction."""
    found = graph.upstreams(run.pipeline)
    if not found:
        return
    latest = {}
    for upstream_id in found:
        previous = (
            Run.objects.latest_of(upstream_id)
            .filter(status=RunStatus.SUCCEEDED)
            .values_list("pk", "number")
            .first()
        )
        latest[upstream_id] = previous or (None, None)
    UpstreamRun.objects.bulk_create(
        UpstreamRun(
            run=run,
            upstream_id=upstream_id,
            upstream_run_id=latest[upstream_id][0],
            upstream_run_number=latest[upstream_id][1],
            via=", ".join(via)[:500],
        )
        for upstream_id, via in found.items()
    )
