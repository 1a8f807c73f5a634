"""`manage.py seed_demo`: a demo user, sample data and two demo pipelines; safe to run again.

The user `demo` (password `demo`, a superuser so that the admin works) owns the pipelines in
`editor/demo/*.json`, in its personal workspace; a pipeline it already has by that name is kept
as it is, edits included. The sample data in that workspace's folder is generated from a fixed
seed, so every run writes the same bytes.
"""

from __future__ import annotations

import csv
import random
from datetime import date, timedelta
from pathlib import Path

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand
from django.db import transaction

from editor.actions import create_pipeline
from editor.management.commands._arguments import read_document
from editor.workspaces import personal_workspace, workspace_folder

DEMO_FOLDER = Path(__file__).resolve().parents[2] / "demo"
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
        with transaction.atomic():
            user = _demo_user()
            folder = workspace_folder(personal_workspace(user))
            _write_sample_data(folder)
            self.stdout.write(f"sample data in {folder}")
            for path in DEMO_DOCUMENTS:
                document = read_document(path)
                pipeline = user.pipelines.filter(name=document.name).first()
                state = "kept"
                if pipeline is None:
                    pipeline, state = create_pipeline(user, document), "created"
                self.stdout.write(f"pipeline {pipeline.pk} '{pipeline.name}' ({state})")
        self.stdout.write(f"sign in as user '{DEMO_USERNAME}' with password '{DEMO_PASSWORD}'")


def _demo_user():
    """The demo superuser, with the demo password (reset, so that the printed one is true)."""
    user, _ = get_user_model().objects.get_or_create(username=DEMO_USERNAME)
    user.is_staff = user.is_superuser = user.is_active = True
    user.set_password(DEMO_PASSWORD)
    user.save()
    return user


def _write_sample_data(folder: Path) -> None:
    """Write users.csv and countries.csv, the same bytes every time."""
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
    _write_csv(
        folder / "users.csv", ("id", "name", "age", "country", "amount", "signup_date"), users
    )
    _write_csv(folder / "countries.csv", ("country", "country_name", "region"), COUNTRIES)


def _write_csv(path: Path, header: tuple[str, ...], rows) -> None:
    with path.open("w", encoding="utf-8", newline="") as file:
        writer = csv.writer(file, lineterminator="\n")
        writer.writerow(header)
        writer.writerows(rows)
