"""Filing pipelines in a workspace: a folder and tags per pipeline, and the search of the home
page (by name, tag, folder, operator, or a file or connection a node's params name).

The search reads the stored rows (the pipeline's and its nodes'), not run results: what it
finds is what the pipelines say now.
"""

from __future__ import annotations

import json
import re

from django.db.models import F, Q, QuerySet, TextField
from django.db.models.functions import Cast

from editor.errors import ActionError
from editor.models import Node, Pipeline
from editor.models.pipelines import FOLDER_MAX_LENGTH, TAG_MAX_LENGTH, TAGS_MAX

_TAG = re.compile(r"^[\w][\w .+-]*$")
SORTS = ("updated", "last_run", "name")
SEARCH_MAX_LENGTH = 200
SEARCH_MAX_WORDS = 10
"""A search's bounds: each word adds two subqueries to the one query it makes."""


def clean_tags(value) -> list[str]:
    """The tags as stored: trimmed, lower case, each once, in the order given; 400 naming
    `tags` when they are not a list of short words."""
    if not isinstance(value, list) or not all(isinstance(tag, str) for tag in value):
        raise _invalid("tags", "tags must be a list of words")
    tags = list(dict.fromkeys(tag.strip().lower() for tag in value if tag.strip()))
    if len(tags) > TAGS_MAX:
        raise _invalid("tags", f"a pipeline takes at most {TAGS_MAX} tags")
    for tag in tags:
        if len(tag) > TAG_MAX_LENGTH or not _TAG.match(tag):
            raise _invalid(
                "tags",
                f"tag {tag[:TAG_MAX_LENGTH]!r}: letters, digits, spaces and . + - _ only, "
                f"at most {TAG_MAX_LENGTH} characters",
            )
    return tags


def clean_folder(value) -> str:
    """The folder as stored: a path of names joined by "/", without empty parts ("" is the
    workspace's top); 400 naming `folder` otherwise."""
    if not isinstance(value, str):
        raise _invalid("folder", "folder must be text, a path such as sales/monthly")
    parts = [part.strip() for part in value.split("/") if part.strip()]
    folder = "/".join(parts)
    if len(folder) > FOLDER_MAX_LENGTH:
        raise _invalid("folder", f"folder: at most {FOLDER_MAX_LENGTH} characters")
    if any(part in (".", "..") for part in parts):
        raise _invalid("folder", 'folder: "." and ".." are not folder names')
    return folder


def file_pipeline(pipeline: Pipeline, body: dict) -> Pipeline:
    """Sets the `folder` and `tags` the body has (either may be left out). Not a save of the
    document: the revision and the history stay as they are."""
    fields = []
    if "folder" in body:
        pipeline.folder = clean_folder(body["folder"])
        fields.append("folder")
    if "tags" in body:
        pipeline.tags = clean_tags(body["tags"])
        fields.append("tags")
    if fields:
        Pipeline.objects.filter(pk=pipeline.pk).update(
            **{field: getattr(pipeline, field) for field in fields}
        )
    return pipeline


def search(pipelines: QuerySet, text: str) -> QuerySet:
    """The pipelines each word of `text` finds in their name, description, folder, tags, or in
    a node's operator, label or params (a file's path, a connection's name); "tag:x",
    "folder:x" and "operator:x" look only there. 400 naming `q` beyond SEARCH_MAX_LENGTH
    characters or SEARCH_MAX_WORDS different words."""
    words = list(dict.fromkeys(text.split()))
    if len(text) > SEARCH_MAX_LENGTH or len(words) > SEARCH_MAX_WORDS:
        raise _invalid(
            "q",
            f"a search is at most {SEARCH_MAX_LENGTH} characters and "
            f"{SEARCH_MAX_WORDS} different words",
        )
    for word in words:
        key, _, value = word.partition(":")
        if value and key in ("tag", "folder", "operator"):
            pipelines = pipelines.filter(_scoped(key, value.lower()))
        else:
            pipelines = pipelines.filter(_anywhere(word))
    return pipelines.distinct()


def _scoped(key: str, value: str) -> Q:
    if key == "tag":
        return Q(pk__in=_ids_tagged(value))
    if key == "folder":
        return Q(folder__iexact=value) | Q(folder__istartswith=f"{value}/")
    return Q(pk__in=Node.objects.filter(operator__iexact=value).values("pipeline"))


def _ids_tagged(tag: str):
    """The ids of the pipelines with exactly this tag (tags are stored lower case, each once,
    so a tag is a quoted item of the JSON list as text)."""
    return (
        Pipeline.objects.annotate(tag_text=Cast(F("tags"), TextField()))
        .filter(_text_has("tag_text", tag, quoted=True))
        .values("pk")
    )


def _text_has(field: str, text: str, quoted: bool = False) -> Q:
    """`field` (JSON cast to text) holds `text` (a whole string when `quoted`, else any part,
    ignoring case) as JSON writes it: with non-ASCII letters escaped (SQLite stores them so)
    or not (PostgreSQL's jsonb prints them as they are)."""
    lookup = "contains" if quoted else "icontains"
    forms = {json.dumps(text), json.dumps(text, ensure_ascii=False)}
    found = Q()
    for form in forms:
        found |= Q(**{f"{field}__{lookup}": form if quoted else form[1:-1]})
    return found


def _anywhere(word: str) -> Q:
    nodes = (
        Node.objects.annotate(params_text=Cast(F("params"), TextField()))
        .filter(
            Q(operator__icontains=word) | Q(label__icontains=word) | _text_has("params_text", word)
        )
        .values("pipeline")
    )
    tagged = (
        Pipeline.objects.annotate(tag_text=Cast(F("tags"), TextField()))
        .filter(_text_has("tag_text", word))
        .values("pk")
    )
    return (
        Q(name__icontains=word)
        | Q(description__icontains=word)
        | Q(folder__icontains=word)
        | Q(pk__in=tagged)
        | Q(pk__in=nodes)
    )


def ordered(pipelines: QuerySet, sort: str) -> QuerySet:
    """`pipelines` (annotated `with_last_run`) by `sort`: "last_run" (the latest run first,
    pipelines never run last, by their last change), "name", or "updated" (the default)."""
    if sort not in SORTS:
        raise _invalid("sort", f"sort must be one of {', '.join(SORTS)}")
    if sort == "last_run":
        return pipelines.order_by(F("last_run_at").desc(nulls_last=True), "-updated_at", "-id")
    if sort == "name":
        return pipelines.order_by("name", "id")
    return pipelines


def _invalid(field: str, message: str) -> ActionError:
    return ActionError(400, "invalid_request", message, field=field)
