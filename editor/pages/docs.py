"""Pages of the user documentation (docs/*.md) served to signed-in users, so the editor can
link to them: the expression language's page, say. The Markdown is the repository's own; raw
HTML in it is not passed through."""

from __future__ import annotations

import functools

from django.conf import settings
from django.http import Http404
from markdown_it import MarkdownIt

PAGES = {
    "expressions": "Expressions",
    "schedules": "Schedules",
    "pins": "Pins",
    "triggers": "Triggers",
    "dependencies": "Dependencies and backfills",
    "notifications": "Notifications and the audit log",
    "lineage": "Column lineage",
    "data-tests": "Data tests",
    "subpipelines": "Sub-pipelines",
}
"""The pages served, by name (docs/<name>.md), with their titles."""


@functools.cache
def rendered(name: str) -> str:
    """The HTML of docs/<name>.md (read once per process: the docs ship with the code)."""
    if name not in PAGES:
        raise Http404("no such page")
    source = (settings.BASE_DIR / "docs" / f"{name}.md").read_text(encoding="utf-8")
    return MarkdownIt("commonmark", {"html": False}).enable("table").render(source)
