"""`manage.py createtoken USER [--name NAME]`: a new API token, printed once and never again."""

from __future__ import annotations

from django.core.management.base import BaseCommand

from editor.management.commands._arguments import user_named
from editor.workspaces.tokens import create_token


class Command(BaseCommand):
    help = "Create an API token for a user and print only the token."

    def add_arguments(self, parser):
        parser.add_argument("username", help="the user the token signs in as")
        parser.add_argument("--name", default="", help="what the token is for, e.g. 'nightly CI'")

    def handle(self, *, username: str, name: str, **options):
        self.stdout.write(create_token(user_named(username), name))
