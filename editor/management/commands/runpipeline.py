"""`manage.py runpipeline ID|FILE [--param NAME=VALUE ...]`: a run in the foreground.

The run is started and recorded as the web app does (a `Run` with its node runs, visible in
the editor and the admin), but executes in this process, with live progress on a terminal and
the summary table of `python -m runtime`. Exit codes are the CLI's too (runtime/console.py):
0 succeeded, 1 failed, 2 invalid, 130 cancelled with Ctrl+C.
"""

from __future__ import annotations

from pathlib import Path

from editor.errors import ActionError
from editor.management.commands._arguments import (
    DocumentCommand,
    allowed,
    import_document,
    owner_or_first_superuser,
    pipeline_numbered,
    refused,
    user_named,
    workspace_named,
)
from editor.pipelines.actions import delete_pipeline
from editor.runs import launcher
from editor.runs.actions import start_run
from editor.workspaces.permissions import Action
from runtime.console import (
    EXIT_CANCELLED,
    EXIT_FAILED,
    EXIT_OK,
    add_param_option,
    cancel_on_interrupt,
    print_summary,
)
from runtime.execution.progress import TerminalProgress

EXIT_CODES = {"succeeded": EXIT_OK, "cancelled": EXIT_CANCELLED}


class Command(DocumentCommand):
    help = "Run a saved pipeline (by id) or a pipeline document file, in the foreground."

    def add_arguments(self, parser):
        parser.add_argument("target", help="a pipeline id, or a document file to import and run")
        add_param_option(parser)
        parser.add_argument(
            "--owner",
            help="who imports the file and starts the run (default: the first superuser for a "
            "file, the pipeline's owner for an id); they must be allowed to run it",
        )
        parser.add_argument(
            "--workspace",
            help="where an imported file goes (default: the owner's personal workspace)",
        )
        parser.add_argument(
            "--allow-problems",
            action="store_true",
            help="run despite the problems the editor shows: the nodes with problems and "
            "everything below them are left out (without it, such a pipeline is refused)",
        )

    def handle(self, *, target: str, param: list, owner: str | None, **options):
        workspace = options.get("workspace")
        parameters = dict(param)
        # No transaction around the start: its check reads the inputs, and would hold the
        # database (a server's SQLite) meanwhile. A file whose run is refused is deleted again.
        imported = None
        try:
            with launcher.foreground():
                if target.isdigit():
                    pipeline = pipeline_numbered(int(target))
                    user = user_named(owner) if owner else pipeline.owner
                    allowed(user, Action.RUN, pipeline)
                else:
                    user = owner_or_first_superuser(owner)
                    pipeline = import_document(Path(target), user, workspace_named(workspace, user))
                    imported = pipeline
                run = start_run(
                    pipeline, user, parameters, allow_problems=options["allow_problems"]
                )
        except ActionError as error:
            if imported is not None:
                delete_pipeline(imported)
            raise refused(error) from error
        self.stdout.write(f"run {run.pk} of pipeline {pipeline.pk} ({pipeline.name})")
        with cancel_on_interrupt(lambda: launcher.cancel(run.pk)):
            outcome = launcher.run_now(run.pk, extra_sinks=[TerminalProgress()])
        run.refresh_from_db()
        if outcome is not None:
            print_summary(*outcome, debug=options["traceback"])
        elif run.error:
            self.stderr.write(f"error: {run.error}")
        code = EXIT_CODES.get(run.status, EXIT_FAILED)
        if code != EXIT_OK:
            raise SystemExit(code)
