"""Graph pictures draw every user string as text: no HTML label, no link, no escString, and
the SVG is served as an inert image."""

from __future__ import annotations

import xml.etree.ElementTree as ElementTree

import pytest

from editor.models import Edge, Pipeline
from editor.pipelines.graph_image import layout, render
from runtime.document.spec import load_document
from tests.editor.conftest import SEED, post_json

pytestmark = pytest.mark.django_db

LINK_LABEL = "<<TABLE HREF='javascript:alert(1)'><TR><TD>x</TD></TR></TABLE>>"
"""A Graphviz HTML label: drawn as such, it makes `<a xlink:href="javascript:...">`."""
SVG = "{http://www.w3.org/2000/svg}"


def assert_inert(svg: bytes) -> list[str]:
    """`svg` parses, has no link and no attribute naming a URL; returns the texts it draws.

    The attack's text may appear, escaped, inside `<text>`: that is where it belongs.
    """
    root = ElementTree.fromstring(svg)
    assert list(root.iter(f"{SVG}a")) == []
    for element in root.iter():
        for name, value in element.attrib.items():
            assert not name.lower().endswith("href"), (element.tag, name, value)
            assert "javascript:" not in value.lower(), (element.tag, name, value)
    return [element.text or "" for element in root.iter(f"{SVG}text")]


def attack_document(**edge):
    return load_document(
        {
            "name": "attack",
            "nodes": [
                {"id": "a", "operator": "csv_input", "label": LINK_LABEL},
                {"id": "b", "operator": LINK_LABEL, "label": r"x\N\G\L\E"},
            ],
            "edges": [{"source": "a", "target": "b", **edge}],
        }
    )


@pytest.mark.parametrize("end", ["source_port", "target_port"])
def test_a_port_written_as_an_html_label_is_drawn_as_text_not_a_link(end):
    texts = assert_inert(render(attack_document(**{end: LINK_LABEL})))
    assert LINK_LABEL in texts


def test_labels_and_operator_names_are_drawn_literally():
    texts = assert_inert(render(attack_document()))
    assert LINK_LABEL in texts
    assert f"{LINK_LABEL} · idle" in texts
    assert r"x\N\G\L\E" in texts  # not the node's name, graph's name, or object's label


def test_control_characters_in_a_label_do_not_break_the_picture():
    document = load_document(
        {"name": "x", "nodes": [{"id": "a", "operator": "csv_input", "label": 'a\x1b"b\x07c'}]}
    )
    assert 'a "b c' in assert_inert(render(document))


def test_layout_still_places_nodes_by_their_ids():
    positions = layout(attack_document())
    assert set(positions) == {"a", "b"}
    assert positions["a"]["x"] < positions["b"]["x"]


def test_the_api_refuses_to_save_an_edge_naming_an_undeclared_port(client):
    edges = [{"source": "read", "target": "adults", "source_port": LINK_LABEL}]
    response = post_json(client, "/api/pipelines", {**SEED, "edges": edges})
    assert response.status_code == 400, response.content
    problem = response.json()["problems"][0]
    assert problem["code"] == "unknown_port" and problem["node"] == "read"
    assert "its output ports are: out" in problem["message"]
    assert not Pipeline.objects.filter(name=SEED["name"]).exists()


def test_the_svg_of_a_stored_attack_is_inert_and_served_with_a_restrictive_policy(client):
    """An unknown operator is allowed in a half-built graph, so its name reaches the picture;
    an edge stored before ports were checked does too."""
    nodes = [*SEED["nodes"], {"id": "evil", "operator": LINK_LABEL, "label": LINK_LABEL}]
    created = post_json(client, "/api/pipelines", {**SEED, "nodes": nodes})
    assert created.status_code == 201, created.content
    pipeline = Pipeline.objects.get(pk=created.json()["id"])
    Edge.objects.create(
        pipeline=pipeline,
        source=pipeline.nodes.get(node_id="write"),
        source_port=LINK_LABEL,
        target=pipeline.nodes.get(node_id="evil"),
    )
    response = client.get(f"/api/pipelines/{pipeline.pk}/graph.svg")
    assert response.status_code == 200
    assert response["Content-Type"] == "image/svg+xml"
    assert response["Content-Security-Policy"] == (
        "default-src 'none'; style-src 'unsafe-inline'; sandbox"
    )
    assert response["X-Content-Type-Options"] == "nosniff"
    texts = assert_inert(response.content)
    assert LINK_LABEL in texts and f"{LINK_LABEL} · idle" in texts
