"""`manage.py exportpipeline ID [-o FILE]`: a pipeline's document, as the API exports it."""

from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from editor.management.commands._arguments import pipeline_numbered
from editor.pipelines.documents import to_document
from runtime import dump_document


class Command(BaseCommand):
    help = "Write a pipeline's JSON document to stdout or a file."

    def add_arguments(self, parser):
        parser.add_argument("pipeline_id", type=int, help="the pipeline's id")
        parser.add_argument("-o", "--output", type=Path, help="write to this file, not stdout")

    def handle(self, *, pipeline_id: int, output: Path | None, **options):
        text = dump_document(to_document(pipeline_numbered(pipeline_id)))
        if output is None:
            self.stdout.write(text, ending="")
            return
        try:
            output.write_text(text, encoding="utf-8")
        except OSError as error:
            raise CommandError(f"cannot write '{output}': {error.strerror}") from error
        self.stderr.write(f"wrote pipeline {pipeline_id} to {output}")
