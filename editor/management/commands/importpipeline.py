"""`manage.py importpipeline FILE [--owner USER]`: a new pipeline from a document; prints its id."""

from __future__ import annotations

from pathlib import Path

from editor.management.commands._arguments import (
    DocumentCommand,
    import_document,
    owner_or_first_superuser,
)


class Command(DocumentCommand):
    help = "Create a pipeline from a JSON document file and print its id."

    def add_arguments(self, parser):
        parser.add_argument("file", type=Path, help="a pipeline document (JSON)")
        parser.add_argument("--owner", help="the user who owns it (default: the first superuser)")

    def handle(self, *, file: Path, owner: str | None, **options):
        pipeline = import_document(file, owner_or_first_superuser(owner))
        self.stdout.write(str(pipeline.pk))
