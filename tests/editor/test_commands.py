"""Management commands: run, export, import, tokens and the demo seed, with their exit codes."""

from __future__ import annotations

import csv
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection

from editor.management.commands.seed_demo import DEMO_DOCUMENTS
from editor.models import ApiToken, NodeRun, Pipeline, Run
from editor.pipelines.actions import create_pipeline
from editor.pipelines.documents import to_document
from editor.workspaces.tokens import user_for_token
from runtime.checks.analysis import validate
from runtime.document.spec import dump_document, load_document
from tests.editor.conftest import SEED, client_for, make_user
from tests.servers import database_url

pytestmark = pytest.mark.django_db(transaction=True)  # runs record from their own thread

CYCLIC = {**SEED, "edges": [*SEED["edges"], {"source": "adults", "target": "read"}]}


@pytest.fixture
def seeded(owner):
    return create_pipeline(owner, load_document(SEED))


@pytest.fixture
def superuser(db):
    return make_user("root", is_superuser=True, is_staff=True)


def write_json(path, document) -> str:
    path.write_text(json.dumps(document))
    return str(path)


def broken_people(workspace: Path) -> Path:
    """`workspace` with a people.csv whose last row breaks every read: the check before a run
    reads only the first rows, so the run starts and fails at `read`."""
    workspace.mkdir(parents=True, exist_ok=True)
    rows = "".join(f"{index},Ada,36\n" for index in range(200_000))
    (workspace / "people.csv").write_text(f"id,name,age\n{rows}1,2,3,4\n")
    return workspace


def manage(*args: str, data_root) -> subprocess.CompletedProcess:
    """`manage.py` in a new process, on the test database, for real exit codes and streams."""
    env = {
        **os.environ,
        "DATABASE_URL": database_url(connection.settings_dict),
        "PIPEWRIGHT_DATA_ROOT": str(data_root.parent),  # the server's root, not the workspace
    }
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=settings.BASE_DIR,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


# runpipeline


def test_runpipeline_runs_a_saved_pipeline_and_records_the_run(seeded, data_root, capsys):
    call_command("runpipeline", str(seeded.pk), "--param", "min_age=30")
    assert (data_root / "out" / "adults.csv").read_text() == "id,name,age\n1,Ada,36\n3,Grace,85\n"
    run = Run.objects.get()
    assert run.status == "succeeded" and run.error == ""
    assert run.parameters == {"min_age": 30} and run.started_by == seeded.owner
    assert dict(run.node_runs.values_list("node_id", "status")) == dict.fromkeys(
        ["read", "adults", "write"], "succeeded"
    )
    assert run.node_runs.get(node_id="adults").metrics["rows_out"] == 2
    out = capsys.readouterr().out
    assert out.startswith(f"run {run.pk} of pipeline {seeded.pk} (Adults)\n")
    assert "run succeeded in" in out and "adults  succeeded" in out


def test_runpipeline_imports_a_file_for_the_first_superuser_and_runs_it(
    superuser, data_root, tmp_path
):
    own_folder = data_root.parent / "root"  # the superuser's personal workspace
    own_folder.mkdir()
    shutil.copy(data_root / "people.csv", own_folder)
    call_command("runpipeline", write_json(tmp_path / "adults.json", SEED))
    pipeline = Pipeline.objects.get()
    assert pipeline.owner == superuser and pipeline.name == "Adults"
    assert pipeline.workspace.slug == "root"
    run = pipeline.runs.get()
    assert run.status == "succeeded" and run.started_by == superuser
    assert (own_folder / "out" / "adults.csv").exists()
    assert not (data_root / "out").exists()


def test_runpipeline_imports_a_file_for_the_named_owner(owner, data_root, tmp_path):
    call_command("runpipeline", write_json(tmp_path / "adults.json", SEED), "--owner", "owner")
    assert Pipeline.objects.get().owner == owner


def test_a_failed_run_exits_1_and_names_the_node(seeded, settings, tmp_path, capsys):
    settings.PIPEWRIGHT_DATA_ROOT = broken_people(tmp_path / "owner").parent
    with pytest.raises(SystemExit) as exit_:
        call_command("runpipeline", str(seeded.pk))
    assert exit_.value.code == 1
    run = Run.objects.get()
    assert run.status == "failed" and run.error.startswith("read: cannot read 'people.csv'")
    assert "read: failed: cannot read 'people.csv'" in capsys.readouterr().err


def test_a_pipeline_that_cannot_run_exits_2_with_its_problems_and_no_run(seeded, capsys):
    with pytest.raises(SystemExit) as exit_:
        call_command("runpipeline", str(seeded.pk), "--param", "nope=1")
    assert exit_.value.code == 2
    assert capsys.readouterr().err.startswith("parameters.nope: unknown parameter 'nope'")
    assert not Run.objects.exists()


def test_an_invalid_file_exits_2_and_leaves_no_pipeline_behind(superuser, tmp_path, capsys):
    loose = {**SEED, "nodes": [*SEED["nodes"], {"id": "loose", "operator": "filter"}]}
    with pytest.raises(SystemExit) as exit_:
        call_command("runpipeline", write_json(tmp_path / "loose.json", loose))
    assert exit_.value.code == 2
    assert capsys.readouterr().err.splitlines() == [
        "loose: Condition: required",
        "loose.inputs.in: input port 'in' is not connected; connect an edge to it",
    ]
    assert not Pipeline.objects.exists()


@pytest.mark.parametrize(
    ("target", "extra", "message"),
    [
        ("999", [], "no pipeline with id 999"),
        ("missing.json", [], "cannot read 'missing.json'"),
        ("missing.json", ["--owner", "nobody"], "no user named 'nobody'"),
        ("1", ["--param", "min_age"], "--param expects NAME=VALUE, got 'min_age'"),
    ],
    ids=["unknown id", "missing file", "unknown owner", "bad param"],
)
def test_runpipeline_refuses_what_it_cannot_find(superuser, target, extra, message):
    with pytest.raises(CommandError, match=message):
        call_command("runpipeline", target, *extra)


def test_a_file_without_an_owner_needs_a_superuser(owner, tmp_path):
    with pytest.raises(CommandError, match="there is no superuser to own the pipeline"):
        call_command("runpipeline", write_json(tmp_path / "adults.json", SEED))


def test_runpipeline_exit_codes_are_the_runtime_clis(seeded, superuser, data_root, tmp_path):
    succeeded = manage("runpipeline", str(seeded.pk), data_root=data_root)
    assert succeeded.returncode == 0, succeeded.stderr
    assert "run succeeded" in succeeded.stdout
    invalid = manage(
        "runpipeline", write_json(tmp_path / "cyclic.json", CYCLIC), data_root=data_root
    )
    assert invalid.returncode == 2
    # read (an input) has no input port either, which is reported first
    assert "\nread: these nodes form a cycle: read → adults → read" in invalid.stderr
    failed = manage(
        "runpipeline", str(seeded.pk), data_root=broken_people(tmp_path / "b" / "owner")
    )
    assert failed.returncode == 1


# exportpipeline and importpipeline


def test_exportpipeline_writes_the_document_to_stdout(seeded, capsys):
    call_command("exportpipeline", str(seeded.pk))
    assert capsys.readouterr().out == dump_document(to_document(seeded))


def test_exportpipeline_writes_the_document_to_a_file(seeded, tmp_path):
    call_command("exportpipeline", str(seeded.pk), "-o", str(tmp_path / "adults.json"))
    assert (tmp_path / "adults.json").read_text() == dump_document(to_document(seeded))


def test_exportpipeline_of_an_unknown_id_fails(db):
    with pytest.raises(CommandError, match="no pipeline with id 999"):
        call_command("exportpipeline", "999")


def test_importpipeline_prints_the_new_pipelines_id(owner, superuser, tmp_path, capsys):
    path = write_json(tmp_path / "adults.json", SEED)
    call_command("importpipeline", path, "--owner", "owner")
    call_command("importpipeline", path)
    first, second = (int(line) for line in capsys.readouterr().out.splitlines())
    assert Pipeline.objects.get(pk=first).owner == owner
    assert Pipeline.objects.get(pk=second).owner == superuser
    assert dump_document(to_document(Pipeline.objects.get(pk=first))) == dump_document(
        load_document(SEED)
    )


@pytest.mark.parametrize(
    ("text", "error"),
    [
        (
            "{not json",
            "pipeline: not valid JSON: Expecting property name enclosed in double quotes",
        ),
        (
            json.dumps(CYCLIC),
            "read.inputs.in: there is no input port 'in'; its input ports are: none\n"
            "read: these nodes form a cycle: read → adults → read",
        ),
    ],
    ids=["malformed json", "cycle"],
)
def test_importpipeline_of_a_bad_document_prints_its_problems_and_exits_2(
    superuser, tmp_path, capsys, text, error
):
    (tmp_path / "bad.json").write_text(text)
    with pytest.raises(SystemExit) as exit_:
        call_command("importpipeline", str(tmp_path / "bad.json"))
    assert exit_.value.code == 2
    assert capsys.readouterr().err.startswith(error)
    assert not Pipeline.objects.exists()


def test_importpipeline_for_an_unknown_owner_fails(tmp_path):
    with pytest.raises(CommandError, match="no user named 'nobody'"):
        call_command("importpipeline", write_json(tmp_path / "a.json", SEED), "--owner", "nobody")


# createtoken


def test_createtoken_prints_only_a_token_that_signs_in_as_the_user(owner, capsys):
    call_command("createtoken", "owner", "--name", "nightly CI")
    out = capsys.readouterr().out
    assert out.count("\n") == 1 and out.startswith("pw_")
    assert user_for_token(out.strip()) == owner
    assert ApiToken.objects.get().name == "nightly CI"


def test_createtoken_for_an_unknown_user_exits_1_with_a_message(data_root):
    result = manage("createtoken", "nobody", data_root=data_root)
    assert result.returncode == 1
    assert result.stdout == ""
    assert "no user named 'nobody'" in result.stderr
    assert not ApiToken.objects.exists()


# seed_demo


def test_seed_demo_twice_creates_the_user_data_and_pipelines_once(settings, tmp_path, capsys):
    settings.PIPEWRIGHT_DATA_ROOT = tmp_path
    call_command("seed_demo")
    users = (tmp_path / "demo" / "users.csv").read_bytes()
    call_command("seed_demo")
    assert (tmp_path / "demo" / "users.csv").read_bytes() == users
    demo = get_user_model().objects.get(username="demo")
    assert demo.is_superuser and demo.is_staff and demo.check_password("demo")
    assert sorted(demo.pipelines.values_list("name", flat=True)) == [
        "Customers: join and branch",
        "Seed ETL",
    ]
    assert get_user_model().objects.count() == 1
    assert "sign in as user 'demo' with password 'demo'" in capsys.readouterr().out
    with (tmp_path / "demo" / "users.csv").open() as file:
        rows = list(csv.DictReader(file))
    assert len(rows) == 3000
    assert list(rows[0]) == ["id", "name", "age", "country", "amount", "signup_date"]


def test_seed_demo_run_again_keeps_the_users_own_files_of_the_demos_names(
    settings, tmp_path, capsys
):
    """`scripts/start` seeds the demo each time it starts: a users.csv the demo user uploaded
    over the sample (as the Files page does) is still theirs after the next start."""
    settings.PIPEWRIGHT_DATA_ROOT = tmp_path
    call_command("seed_demo")
    demo = client_for(get_user_model().objects.get(username="demo"))
    mine = SimpleUploadedFile("users.csv", b"id,name\n1,Mine\n", content_type="text/csv")
    uploaded = demo.post("/api/workspaces/demo/files", {"file": mine, "replace": "true"})
    assert uploaded.status_code == 201, uploaded.content
    capsys.readouterr()
    call_command("seed_demo")
    assert (tmp_path / "demo" / "users.csv").read_bytes() == b"id,name\n1,Mine\n"
    assert "kept users.csv: a file of that name is there already" in capsys.readouterr().out
    assert (tmp_path / "demo" / "countries.csv").read_text().startswith("country,")


def test_seed_demo_never_resets_the_password_or_rights_of_an_existing_demo_user(
    settings, tmp_path, capsys
):
    """Whoever closed the demo account (new password, rights taken) keeps it closed."""
    settings.PIPEWRIGHT_DATA_ROOT = tmp_path
    make_user("demo", is_active=False)  # password "pw-secret-123", no rights
    call_command("seed_demo")
    demo = get_user_model().objects.get(username="demo")
    assert not (demo.is_superuser or demo.is_staff or demo.is_active)
    assert demo.check_password("pw-secret-123") and not demo.check_password("demo")
    output = capsys.readouterr().out
    assert "user 'demo' already exists: password and rights kept" in output
    assert "password 'demo'" not in output


def test_seed_demo_refuses_to_run_in_production(settings, tmp_path):
    settings.PIPEWRIGHT_DATA_ROOT = tmp_path
    settings.PRODUCTION = True
    with pytest.raises(CommandError, match="does not run with PIPEWRIGHT_PRODUCTION=1"):
        call_command("seed_demo")
    assert not get_user_model().objects.exists()
    assert not (tmp_path / "demo").exists()


@pytest.mark.parametrize("path", DEMO_DOCUMENTS, ids=lambda path: path.stem)
def test_a_demo_document_is_valid(path):
    assert validate(load_document(path.read_text())) == []


def test_both_demo_pipelines_run_successfully(settings, tmp_path):
    settings.PIPEWRIGHT_DATA_ROOT = tmp_path
    call_command("seed_demo")
    for pipeline in Pipeline.objects.order_by("pk"):
        call_command("runpipeline", str(pipeline.pk))
    assert set(Run.objects.values_list("status", flat=True)) == {"succeeded"}
    assert not NodeRun.objects.exclude(status="succeeded").exists()
    with (tmp_path / "demo" / "out" / "revenue_by_country.csv").open() as file:
        revenue = list(csv.DictReader(file))
    assert len(revenue) == 8 and revenue[0]["country_name"] == "Belgium"
    assert list(revenue[0]) == [
        "country",
        "users",
        "amount_eur",
        "mean_age",
        "country_name",
        "region",
    ]
    assert (tmp_path / "demo" / "out" / "customers_fr.csv").exists()
    assert len((tmp_path / "demo" / "out" / "contacts.jsonl").read_text().splitlines()) == 3000
