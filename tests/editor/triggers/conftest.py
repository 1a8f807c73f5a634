"""The webhook trigger the webhook tests call and rotate."""

from __future__ import annotations

import pytest

from tests.editor.conftest import post_json
from tests.editor.triggers.helpers import make_pipeline


@pytest.fixture
def webhook(client, data_root) -> dict:
    """A webhook trigger mapping the body's `age` to the `min_age` parameter, as created."""
    pipeline = make_pipeline(client)
    answer = post_json(
        client,
        f"/api/pipelines/{pipeline.pk}/triggers",
        {"kind": "webhook", "name": "from CRM", "parameters": {"min_age": "age"}},
    )
    assert answer.status_code == 201, answer.content
    return answer.json()
