"""`for_each` over groups in the editor: a run sums each country's orders with the inner
pipeline and stacks the results with the key; validate names a group column the rows lack at
the node's field; a run with more groups than the bound fails the node saying both; the plan
says what the loop iterates over."""

from __future__ import annotations

import pytest

from tests.editor.conftest import post_json, wait_for_run
from tests.editor.test_api_subpipelines import create
from tests.loop_documents import ORDERS, SUM_BIG, by_country, many_countries

pytestmark = pytest.mark.django_db


def grouping(reference: int, rows: str = "orders.csv", **params) -> dict:
    return by_country(reference, rows=rows, out="out/totals.csv", **params)


@pytest.fixture
def orders(data_root):
    (data_root / "orders.csv").write_text(ORDERS)
    return data_root


@pytest.mark.django_db(transaction=True)
def test_a_run_sums_each_countrys_orders_and_stacks_them_with_the_country(owner, client, orders):
    using = create(owner, grouping(create(owner, SUM_BIG).pk))

    response = post_json(client, f"/api/pipelines/{using.pk}/runs", {})

    assert response.status_code == 202, response.content
    run = wait_for_run(response.json()["id"])
    assert run.status == "succeeded", run.error
    assert (orders / "out" / "totals.csv").read_text() == (
        "seen,total,country\nDE,55,DE\nFR,40,FR\n"
    )  # IT's only order (2) is not above min: its iteration gives no row
    shown = client.get(f"/api/runs/{run.pk}").json()["nodes"]["each"]["metrics"]
    assert (shown["iterations"], shown["rows_out"]) == (3, 2)


@pytest.mark.django_db(transaction=True)
def test_more_groups_than_the_bound_fails_the_node_saying_both(owner, client, data_root):
    (data_root / "many.csv").write_text(many_countries(1001))
    using = create(owner, grouping(create(owner, SUM_BIG).pk, rows="many.csv"))

    run = wait_for_run(post_json(client, f"/api/pipelines/{using.pk}/runs", {}).json()["id"])

    assert run.status == "failed"
    error = client.get(f"/api/runs/{run.pk}").json()["nodes"]["each"]["error"]
    assert "makes 1,001 groups of country, more than the 1,000 iterations" in error
    assert not (data_root / "out" / "totals.csv").exists()


def test_validate_names_a_group_column_the_rows_lack(owner, client, orders):
    using = create(owner, grouping(create(owner, SUM_BIG).pk, group_by=["contry"]))

    body = client.post(f"/api/pipelines/{using.pk}/validate").json()

    [problem] = body["problems"]
    assert (problem["node"], problem["field"]) == ("each", "params.group_by")
    assert problem["message"] == "Group by: unknown column 'contry'; did you mean 'country'?"


def test_a_loop_without_its_chunk_size_is_refused_at_the_field(owner, client, orders):
    looping = grouping(create(owner, SUM_BIG).pk, over="chunks", parameter="country")
    using = create(owner, looping)

    response = post_json(client, f"/api/pipelines/{using.pk}/runs", {})

    assert response.status_code == 422, response.content
    [problem] = response.json()["problems"]
    assert (problem["node"], problem["field"]) == ("each", "params.chunk_rows")


def test_the_plan_says_what_the_loop_iterates_over(owner, client, orders):
    using = create(owner, grouping(create(owner, SUM_BIG).pk))

    text = client.get(f"/api/pipelines/{using.pk}/plan").json()["text"]

    assert "for_each each ('Sum big') over the groups of country" in text
