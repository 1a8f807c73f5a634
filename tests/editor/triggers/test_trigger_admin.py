"""Triggers and their events in the admin: read and deleted only, a webhook's secret never
shown (neither in clear nor encrypted)."""

from __future__ import annotations

import pytest

from editor.models import Trigger, TriggerEvent
from editor.triggers import actions
from tests.editor.triggers.helpers import make_pipeline


@pytest.mark.django_db
def test_trigger_pages_render_read_only_without_the_secret(admin_client, client, data_root, owner):
    pipeline = make_pipeline(client)
    trigger, secret = actions.create_trigger(
        pipeline, owner, actions.TriggerIn(kind="webhook", name="from CRM")
    )
    event = TriggerEvent.objects.create(trigger=trigger, key="k", description="webhook call k")
    pages = [
        "/admin/editor/trigger/",
        f"/admin/editor/trigger/{trigger.pk}/change/",
        f"/admin/editor/trigger/{trigger.pk}/delete/",
        "/admin/editor/triggerevent/",
        f"/admin/editor/triggerevent/{event.pk}/change/",
    ]
    stored = Trigger.objects.get(pk=trigger.pk).secret

    for page in pages:
        answer = admin_client.get(page)
        assert answer.status_code == 200, page
        assert secret.encode() not in answer.content, page
        assert stored.encode() not in answer.content, page
    assert admin_client.get("/admin/editor/trigger/add/").status_code == 403
    changed = admin_client.post(f"/admin/editor/trigger/{trigger.pk}/change/", {"enabled": ""})
    assert changed.status_code == 403
