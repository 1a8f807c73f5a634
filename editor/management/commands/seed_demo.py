"""`manage.py seed_demo`: a demo user, sample data and two demo pipelines; safe to run again.

The user `demo` (password `demo`, a superuser so that the admin works) owns the pipelines in
`editor/management/demo/*.json`, in its personal workspace; a pipeline it already has by that
name is kept as it is, edits included. The user is created only when absent: an existing
`demo` keeps its password and rights, so running the seed again never reopens an account
someone closed. The password is set directly (the validators guard forms, not this seed), and
the command refuses to run in production (`PIPEWRIGHT_PRODUCTION=1`), where a known password
is a way in. The sample data in the workspace's folder is generated from a fixed seed and
written only where no file of its name is: `scripts/start` runs this every time, and a
`users.csv` the user uploaded or edited is theirs (the demo pipelines read whatever file has
that name).
"""

from __future__ import annotations

import csv
import random
from datetime import date, timedelta
from pathlib import Path

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from editor.management.commands._arguments import read_document
from editor.pipelines.actions import create_pipeline
from editor.workspaces.membership import personal_workspace, workspace_folder

DEMO_FOLDER = Path(__file__).resolve().parents[1] / "demo"
DEMO_DOCUMENTS = [DEMO_FOLDER / "seed_etl.json", DEMO_FOLDER / "customers_join_and_branch.json"]
DEMO_USERNAME = DEMO_PASSWORD = "demo"
USERS = 3000
COUNTRIES = [
    ("BE", "Belgium", "Western Europe"),
    ("DE", "Germany", "Central Europe"),
    ("ES", "Spain", "Southern Europe"),
    ("FR", "France", "Western Europe"),
    ("IT", "Italy", "Southern Europe"),
    ("NL", "Netherlands", "Western Europe"),
    ("PL", "Poland", "Central Europe"),
    ("PT", "Portugal", "Southern Europe"),
]
FIRST_NAMES = ["Ada", "Alan", "Barbara", "Donald", "Edsger", "Frances", "Grace", "John"]
FIRST_NAMES += ["Katherine", "Ken", "Linus", "Margaret", "Niklaus", "Radia", "Tim", "Yukihiro"]
LAST_NAMES = ["Allen", "Berners-Lee", "Dijkstra", "Hamilton", "Hopper", "Johnson", "Knuth"]
LAST_NAMES += ["Liskov", "Lovelace", "Matsumoto", "Perlman", "Ritchie", "Torvalds", "Turing"]


class Command(BaseCommand):
    help = "Create the demo user, sample data and demo pipelines (running it again adds nothing)."

    def handle(self, **options):
        if settings.PRODUCTION:
            raise CommandError(
                "seed_demo creates a user with a known password: it does not run with "
                "PIPEWRIGHT_PRODUCTION=1"
            )
        with transaction.atomic():
            user, created = _demo_user()
            folder = workspace_folder(personal_workspace(user))
            for name in write_sample_data(folder):
                self.stdout.write(f"kept {name}: a file of that name is there already")
            self.stdout.write(f"sample data in {folder}")
            for path in DEMO_DOCUMENTS:
                document = read_document(path)
                pipeline = user.pipelines.filter(name=document.name).first()
                state = "kept"
                if pipeline is None:
                    pipeline, state = create_pipeline(user, document), "created"
                self.stdout.write(f"pipeline {pipeline.pk} '{pipeline.name}' ({state})")
        if created:
            self.stdout.write(f"sign in as user '{DEMO_USERNAME}' with password '{DEMO_PASSWORD}'")
        else:
            self.stdout.write(f"user '{DEMO_USERNAME}' already exists: password and rights kept")


def _demo_user():
    """`(user, created)`: the demo superuser, created with the demo password only if absent."""
    users = get_user_model().objects
    if user := users.filter(username=DEMO_USERNAME).first():
        return user, False
    user = users.model(username=DEMO_USERNAME, is_staff=True, is_superuser=True)
    user.set_password(DEMO_PASSWORD)
    user.save()
    return user, True


def write_sample_data(folder: Path) -> list[str]:
    """Write users.csv and countries.csv, the same bytes every time, unless there already; the
    names of those kept."""
    folder.mkdir(parents=True, exist_ok=True)
    rng = random.Random(2024)
    first_day = date(2021, 1, 1)
    users = [
        (
            number,
            f"{rng.choice(FIRST_NAMES)} {rng.choice(LAST_NAMES)}",
            rng.randint(14, 85),
            rng.choice(COUNTRIES)[0],
            f"{rng.uniform(5, 1000):.2f}",
            (first_day + timedelta(days=rng.randrange(4 * 365))).isoformat(),
        )
        for number in range(1, USERS + 1)
    ]
    written = [
        _write_csv(
            folder / "users.csv", ("id", "name", "age", "country", "amount", "signup_date"), users
        ),
        _write_csv(folder / "countries.csv", ("country", "country_name", "region"), COUNTRIES),
    ]
    return [name for name, was_written in written if not was_written]


def _write_csv(path: Path, header: tuple[str, ...], rows) -> tuple[str, bool]:
    """`(name, written)`: the file is created only if absent ("x"), never written over."""
    try:
        file = path.open("x", encoding="utf-8", newline="")
    except FileExistsError:
        return path.name, False
    with file:
        writer = csv.writer(file, lineterminator="\n")
        writer.writerow(header)
        writer.writerows(rows)
    return path.name, True
