"""`manage.py importpipeline FILE [--owner USER] [--workspace SLUG]`: a new pipeline from a
document; prints its id."""

from __future__ import annotations

from pathlib import Path

from editor.management.commands._arguments import (
    DocumentCommand,
    import_document,
    owner_or_first_superuser,
    workspace_named,
)


class Command(DocumentCommand):
    help = "Create a pipeline from a JSON document file and print its id."

    def add_arguments(self, parser):
        parser.add_argument("file", type=Path, help="a pipeline document (JSON)")
        parser.add_argument("--owner", help="the user who owns it (default: the first superuser)")
        parser.add_argument(
            "--workspace", help="the workspace's slug (default: the owner's personal workspace)"
        )

    def handle(self, *, file: Path, owner: str | None, workspace: str | None, **options):
        user = owner_or_first_superuser(owner)
        pipeline = import_document(file, user, workspace_named(workspace, user))
        self.stdout.write(str(pipeline.pk))
