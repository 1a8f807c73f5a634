"""What the management commands share: users, pipelines and documents named on the command line.

A lookup that finds nothing raises `CommandError` (exit 1). A document that cannot be used
raises `PipelineValidationError`, which `DocumentCommand` prints as one `node.field: message`
line per problem before exiting 2, as `python -m runtime` does.
"""

from __future__ import annotations

from pathlib import Path

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from django.http import Http404

from editor.audit import log as audit_log
from editor.errors import ActionError
from editor.models import AuditSource, Pipeline, Workspace
from editor.pipelines.actions import import_pipeline
from editor.workspaces.membership import personal_workspace
from editor.workspaces.permissions import Action, require
from runtime import Pipeline as PipelineSpec
from runtime import PipelineValidationError, Problem, load_document
from runtime.console import EXIT_INVALID


class DocumentCommand(BaseCommand):
    """A command that exits 2 with one line per problem when a document cannot be used."""

    def execute(self, *args, **options):
        try:
            return super().execute(*args, **options)
        except PipelineValidationError as error:
            for problem in error.problems:
                self.stderr.write(str(problem))
            raise SystemExit(EXIT_INVALID) from None


def user_named(username: str):
    """The user with this username."""
    try:
        return get_user_model().objects.get_by_natural_key(username)
    except get_user_model().DoesNotExist:
        raise CommandError(f"no user named '{username}'") from None


def owner_or_first_superuser(username: str | None):
    """The user named on the command line, else the first superuser."""
    if username:
        return user_named(username)
    user = get_user_model().objects.filter(is_superuser=True).order_by("pk").first()
    if user is None:
        raise CommandError(
            "there is no superuser to own the pipeline; name a user with --owner USER "
            "(or create one with `manage.py createsuperuser`)"
        )
    return user


def allowed(user, action: Action, target) -> None:
    """A `CommandError` unless `user` may do `action` to `target` (the app's own rules)."""
    try:
        require(user, action, target)
    except Http404:
        raise CommandError(
            f"user '{user.get_username()}' is not a member of that workspace"
        ) from None
    except ActionError as error:
        raise CommandError(f"user '{user.get_username()}': {error.message}") from None


def workspace_named(slug: str | None, user) -> Workspace:
    """The workspace with this slug (default: the user's personal one), where `user` may edit."""
    if slug is None:
        return personal_workspace(user)
    try:
        workspace = Workspace.objects.get(slug=slug)
    except Workspace.DoesNotExist:
        raise CommandError(f"no workspace with the slug '{slug}'") from None
    allowed(user, Action.EDIT, workspace)
    return workspace


def pipeline_numbered(pipeline_id: int) -> Pipeline:
    """The pipeline with this id."""
    try:
        return Pipeline.objects.select_related("owner").get(pk=pipeline_id)
    except Pipeline.DoesNotExist:
        raise CommandError(f"no pipeline with id {pipeline_id}") from None


def read_document(path: Path) -> PipelineSpec:
    """The pipeline document in a file."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise CommandError(
            f"cannot read '{path}': {error.strerror}", returncode=EXIT_INVALID
        ) from error
    return load_document(text)


def import_document(path: Path, owner, workspace: Workspace) -> Pipeline:
    """A new pipeline owned by `owner` in `workspace`, from the document in a file (numbered
    '… (2)' when the workspace has a pipeline of its name)."""
    try:
        with audit_log.acting(AuditSource.IMPORT, owner):
            summary = f"imported from {path.name}"
            return import_pipeline(owner, read_document(path), workspace, summary)
    except ActionError as error:
        raise refused(error) from error


def refused(error: ActionError) -> Exception:
    """The command-line form of a refused action: its problems (exit 2), else its message."""
    problems = error.extra.get("problems")
    if problems:
        # A refusal labels each problem with its node's label, which a Problem does not carry.
        found = [{k: v for k, v in problem.items() if k != "label"} for problem in problems]
        return PipelineValidationError([Problem.from_json(problem) for problem in found])
    return CommandError(error.message)
