"""The thread that passes on cancels asked in other processes: it sets the signal of each run
it holds whose cancel was asked, and a database outage is logged once, not every look."""

from __future__ import annotations

import logging

import pytest
from django.db import connection

from editor.models import Run
from editor.pipelines import actions
from editor.runs import launcher
from editor.runs.supervision import StopSignal
from runtime.document.spec import load_document
from tests.editor.conftest import SEED

pytestmark = pytest.mark.django_db(transaction=True)


def rename_table(old: str, new: str) -> None:
    with connection.cursor() as cursor:
        cursor.execute(f"ALTER TABLE {old} RENAME TO {new}")


def test_an_outage_is_logged_once_and_the_cancel_passes_on_once_it_ends(owner, caplog):
    pipeline = actions.create_pipeline(owner, load_document(SEED))
    run = Run.objects.create(
        pipeline=pipeline, document=SEED, status="running", cancel_requested=True
    )
    signal = StopSignal()
    caplog.set_level(logging.INFO, logger="editor.runs.launcher")
    rename_table("editor_run", "editor_run_away")  # the table is away: every look fails
    try:
        failing = False
        for _ in range(4):
            failing = launcher.pass_on_cancels({run.pk: signal}, failing)
        assert failing and not signal.is_set()
    finally:
        rename_table("editor_run_away", "editor_run")

    assert launcher.pass_on_cancels({run.pk: signal}, failing) is False
    assert signal.is_set()
    logged = [(record.levelname, record.getMessage()) for record in caplog.records]
    assert logged == [
        ("WARNING", "could not read the runs' cancel requests"),
        ("INFO", "reading the runs' cancel requests again"),
    ]
