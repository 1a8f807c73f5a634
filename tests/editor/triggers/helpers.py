"""Helpers for the triggers' tests: a pipeline whose input file is a parameter, and a trigger
made as the API makes it."""

from __future__ import annotations

import copy

from django.test import Client

from editor.models import Pipeline, Trigger
from editor.triggers import actions
from tests.editor.conftest import SEED, post_json

SOURCED = copy.deepcopy(SEED)
SOURCED["config"]["parameters"] = {"min_age": 18, "source": "people.csv"}
SOURCED["nodes"][0]["params"]["path"] = "${source}"


def make_pipeline(client: Client, name: str = "Adults", **parameters) -> Pipeline:
    """The seed pipeline reading the file its `source` parameter names (and declaring
    `parameters` besides)."""
    document = copy.deepcopy(SOURCED)
    document["config"]["parameters"].update(parameters)
    response = post_json(client, "/api/pipelines", {**document, "name": name})
    assert response.status_code == 201, response.content
    return Pipeline.objects.get(pk=response.json()["id"])


def make_trigger(pipeline: Pipeline, owner, **fields) -> Trigger:
    """A trigger of `pipeline` as `editor.triggers.actions` creates it."""
    trigger, _secret = actions.create_trigger(pipeline, owner, actions.TriggerIn(**fields))
    return trigger
