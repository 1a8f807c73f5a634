"""Every admin page renders for a superuser and for no one else, runs are read-only, and
the badges are coloured as the graph picture.
"""

from __future__ import annotations

import json
import re

import pytest
from django.conf import settings
from django.utils.html import escape
from pytest_django.asserts import assertInHTML

from editor.admin.runs import ADMIN_CSS
from editor.models import InputPosition, Run
from editor.pipelines.graph_image import STATUS_COLOURS
from tests.editor.admin.conftest import SECRET

pytestmark = pytest.mark.django_db


PAGES = [
    "/admin/",
    "/admin/editor/",
    "/admin/editor/pipeline/",
    "/admin/editor/pipeline/add/",
    "/admin/editor/pipeline/{pipeline}/change/",
    "/admin/editor/pipeline/{pipeline}/delete/",
    "/admin/editor/pipeline/{pipeline}/history/",
    "/admin/editor/run/",
    "/admin/editor/run/{run}/change/",
    "/admin/editor/connection/",
    "/admin/editor/connection/add/",
    "/admin/editor/connection/{connection}/change/",
    "/admin/editor/connection/{connection}/delete/",
    "/admin/editor/connection/{connection}/history/",
    "/admin/editor/apitoken/",
    "/admin/editor/apitoken/add/",
    "/admin/editor/apitoken/{token}/change/",
    "/admin/editor/inputposition/",
    "/admin/editor/inputposition/{position}/change/",
    "/admin/editor/inputposition/{position}/delete/",
]


@pytest.mark.parametrize("page", PAGES)
def test_every_admin_page_renders_for_a_superuser(
    admin_client, page, pipeline, run, connection, token
):
    position = InputPosition.objects.create(
        pipeline=pipeline, node_id="read", position={"column": "id", "value": 3}, run=run,
        run_number=run.number,
    )  # fmt: skip
    url = page.format(
        pipeline=pipeline.pk, run=run.pk, connection=connection.pk, token=token.pk,
        position=position.pk,
    )  # fmt: skip
    response = admin_client.get(url)
    assert response.status_code == 200, url
    assert SECRET.encode() not in response.content
    assert token.key_hash.encode() not in response.content


def test_a_run_is_read_only_and_shows_its_node_runs_and_snapshot(admin_client, run):
    url = f"/admin/editor/run/{run.pk}/change/"
    response = admin_client.get(url)
    page = response.content.decode()
    assert "View run" in page and 'name="_save"' not in page
    assert escape(json.dumps(run.document, indent=2, sort_keys=True)) in page
    assert "2.50 s" in page and "0.25 s" in page and "disk full" in page
    assertInHTML('<td class="field-rows_in"><p>3</p></td>', page)
    assert admin_client.post(url, {"status": "succeeded"}).status_code == 403
    assert admin_client.get("/admin/editor/run/add/").status_code == 403
    assert admin_client.get("/admin/editor/inputposition/add/").status_code == 403
    assert Run.objects.get(pk=run.pk).status == "failed"


@pytest.mark.parametrize("url", ["/admin/", "/admin/editor/pipeline/", "/admin/editor/run/"])
def test_a_user_who_is_not_staff_is_sent_to_the_admin_login(client, url):
    response = client.get(url)
    assert response.status_code == 302
    assert response["Location"].startswith("/admin/login/?next=")


def test_the_admin_badges_are_coloured_as_the_graph_picture():
    """The admin's stylesheet spells the picture's colours (no inline style under the CSP)."""
    css = (settings.BASE_DIR / "static" / ADMIN_CSS).read_text()
    rules = dict(re.findall(r"\.pw-badge-([a-z_]+) \{ background: (#[0-9a-f]{6}); \}", css))
    assert rules == STATUS_COLOURS


def test_a_pipeline_page_shows_params_as_a_table_and_a_picture_that_scales(admin_client, pipeline):
    page = admin_client.get(f"/admin/editor/pipeline/{pipeline.pk}/change/").content.decode()
    assertInHTML(
        '<table class="pw-params"><tr><th>condition</th><td>age &gt;= ${min_age}</td></tr></table>',
        page,
    )
    assertInHTML('<table class="pw-params"><tr><th>path</th><td>people.csv</td></tr></table>', page)
    assert ">Full size</a>" in page
    svg = admin_client.get(f"/api/pipelines/{pipeline.pk}/graph.svg").content.decode()
    assert re.search(r"<svg[^>]* viewBox=", svg)  # scaled to its column by the stylesheet
    css = (settings.BASE_DIR / "static" / ADMIN_CSS).read_text()
    picture_rule = re.search(r"\.pw-graph-picture img \{([^}]*)\}", css).group(1)
    assert "max-width: 100%" in picture_rule and "height: auto" in picture_rule
