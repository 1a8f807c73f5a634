"""The models and the migrations agree, and `editor.models` exports every model of its modules:
a model changed, or moved between those modules, without its migration or its import would
make the next `makemigrations` write one, or leave Django's app registry without it."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import pytest
from django.core.management import call_command
from django.db.models import Model

from editor import models


@pytest.mark.django_db
def test_models_need_no_new_migration():
    call_command("makemigrations", "editor", check=True, dry_run=True, verbosity=0)


def test_the_package_exports_every_model_of_its_modules():
    defined = {
        name
        for info in pkgutil.iter_modules(models.__path__, f"{models.__name__}.")
        for name, value in inspect.getmembers(importlib.import_module(info.name), inspect.isclass)
        if issubclass(value, Model) and value.__module__ == info.name
    }
    assert defined
    assert defined <= set(models.__all__)
