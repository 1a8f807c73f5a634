"""The pipeline and run lists: what they show, and how they are searched and filtered."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from editor.models import Pipeline, Run
from editor.pipelines import actions
from runtime.document.spec import load_document
from tests.editor.conftest import SEED

pytestmark = pytest.mark.django_db


def test_the_pipeline_list_shows_node_count_and_a_badge_for_the_last_run(
    admin_client, pipeline, run
):
    response = admin_client.get("/admin/editor/pipeline/")
    listed = response.context["cl"].result_list
    assert [(item.name, item.node_count, item.last_run_status) for item in listed] == [
        ("Adults", 3, "failed")
    ]
    assert b'<td class="field-node_count">3</td>' in response.content
    assert b'<span class="pw-badge pw-badge-failed">failed</span>' in response.content


@pytest.mark.parametrize(
    ("query", "found"),
    [
        ("q=grown", ["Adults"]),
        ("q=other", ["Other's"]),
        ("q=Other%27s", ["Other's"]),
        ("q=nothing-like-it", []),
        ("owner__id__exact={other}", ["Other's"]),
    ],
    ids=["description", "owner username", "name", "no match", "owner filter"],
)
def test_pipelines_can_be_searched_and_filtered(admin_client, pipeline, other, query, found):
    actions.create_pipeline(other, load_document({**SEED, "name": "Other's"}))
    response = admin_client.get(f"/admin/editor/pipeline/?{query.format(other=other.pk)}")
    assert [item.name for item in response.context["cl"].result_list] == found


def test_pipelines_can_be_filtered_by_when_they_were_updated(admin_client, pipeline, other):
    old = actions.create_pipeline(other, load_document({**SEED, "name": "Old"}))
    Pipeline.objects.filter(pk=old.pk).update(updated_at=timezone.now() - timedelta(days=400))
    changelist = admin_client.get("/admin/editor/pipeline/").context["cl"]
    updated = next(spec for spec in changelist.filter_specs if spec.title == "updated at")
    links = {choice["display"]: choice["query_string"] for choice in updated.choices(changelist)}
    for period, found in (("Today", ["Adults"]), ("Any date", ["Adults", "Old"])):
        response = admin_client.get(f"/admin/editor/pipeline/{links[period]}")
        assert [item.name for item in response.context["cl"].result_list] == found


def test_runs_can_be_filtered_by_status_and_pipeline(admin_client, run, pipeline, owner):
    second = actions.duplicate_pipeline(pipeline, owner)
    Run.objects.create(pipeline=second, document=run.document, status="succeeded")

    def listed(query: str) -> list[tuple[str, str]]:
        response = admin_client.get(f"/admin/editor/run/?{query}")
        return [(item.pipeline.name, item.status) for item in response.context["cl"].result_list]

    assert listed("status__exact=failed") == [("Adults", "failed")]
    assert listed(f"pipeline__id__exact={second.pk}") == [("Adults (copy)", "succeeded")]
    today = timezone.now()
    assert len(listed(f"created_at__year={today.year}&created_at__month={today.month}")) == 2


def test_the_run_list_shows_each_runs_number_in_its_pipeline(admin_client, run, pipeline):
    Run.objects.create(pipeline=pipeline, document=run.document, status="succeeded")
    response = admin_client.get("/admin/editor/run/?o=2")
    assert [item.number for item in response.context["cl"].result_list] == [1, 2]
    assert b'<td class="field-run_number">#2</td>' in response.content
