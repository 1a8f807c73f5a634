"""Two saves of the same revision at the same moment: exactly one wins, the other gets 409.

On PostgreSQL the save locks the pipeline's row (`select_for_update`), so the second save reads
the revision only once the first has committed. SQLite ignores `select_for_update`; there every
transaction starts `IMMEDIATE`, taking the write lock first, which serializes the saves too.
Run with `DATABASE_URL=postgres://...` to check the PostgreSQL side.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

import pytest
from django.db import connection, transaction

from editor.models import Pipeline
from tests.editor.conftest import client_for, put_json

pytestmark = pytest.mark.django_db(transaction=True)


def edited(body: dict, name: str) -> dict:
    """The pipeline as one editor changed it: a new name and a new condition on its filter."""
    nodes = [
        {**node, "params": {"condition": f"name == '{name}'"}} if node["id"] == "adults" else node
        for node in body["nodes"]
    ]
    return {**body, "name": name, "nodes": nodes}


def stored(pipeline_id: int, client) -> dict:
    body = client.get(f"/api/pipelines/{pipeline_id}").json()
    condition = next(node for node in body["nodes"] if node["id"] == "adults")["params"]
    return {"name": body["name"], "condition": condition["condition"]}


def in_thread(action: Callable[[], object]) -> tuple[threading.Thread, list]:
    """Start `action` on a thread of its own (its own database connection); its result, or
    the error it raised, lands in the list."""
    result: list = []

    def target() -> None:
        try:
            result.append(action())
        except Exception as error:  # shown by `answer` in the test's own thread
            result.append(error)
        finally:
            connection.close()

    thread = threading.Thread(target=target)
    thread.start()
    return thread, result


def test_two_saves_of_one_revision_at_the_same_moment_give_one_200_and_one_409(owner, pipeline_id):
    clients = [client_for(owner), client_for(owner)]
    url = f"/api/pipelines/{pipeline_id}"
    for round_number in range(5):
        body = clients[0].get(url).json()
        start = threading.Barrier(2)

        def save(index: int, body=body, start=start, name=f"round {round_number} by"):
            start.wait()
            return put_json(clients[index], url, edited(body, f"{name} {index}"))

        threads = [in_thread(lambda index=index: save(index)) for index in range(2)]
        for thread, _ in threads:
            thread.join()
        responses = [answer(result) for _, result in threads]
        assert sorted(response.status_code for response in responses) == [200, 409]
        [winner] = [
            index for index, response in enumerate(responses) if response.status_code == 200
        ]
        assert stored(pipeline_id, clients[0]) == {
            "name": f"round {round_number} by {winner}",
            "condition": f"name == 'round {round_number} by {winner}'",
        }
        assert responses[1 - winner].json()["revision"] == body["revision"] + 1


def answer(result: list):
    """The response a thread got; its error, if it raised one, fails the test."""
    [outcome] = result
    if isinstance(outcome, Exception):
        raise AssertionError(f"the save raised {outcome!r}") from outcome
    return outcome


def wait_until_blocked(second_save_began: threading.Event) -> None:
    """Until the second save waits for the first one's lock (or, on SQLite, is about to)."""
    assert second_save_began.wait(10)
    if connection.vendor != "postgresql":
        time.sleep(0.3)  # SQLite cannot say who waits; its BEGIN IMMEDIATE is under way
        return
    deadline = time.monotonic() + 10
    with connection.cursor() as cursor:
        while True:
            cursor.execute(
                "SELECT count(*) FROM pg_stat_activity "
                "WHERE datname = current_database() AND wait_event_type = 'Lock'"
            )
            if cursor.fetchone()[0]:
                return
            assert time.monotonic() < deadline, "the second save never waited for the first"
            time.sleep(0.01)


def test_a_save_that_began_while_another_was_committing_sees_its_revision_and_gets_409(
    owner, pipeline_id
):
    """The first save's transaction is held open until the second is waiting on it."""
    first_client, second_client = client_for(owner), client_for(owner)
    url = f"/api/pipelines/{pipeline_id}"
    body = first_client.get(url).json()
    first_saved, commit, second_save_began = (threading.Event() for _ in range(3))

    def first_save():
        with transaction.atomic():
            response = put_json(first_client, url, edited(body, "first"))
            first_saved.set()
            assert commit.wait(20)
        return response

    def signal_when_saving(execute, sql, params, many, context):
        if connection.vendor == "postgresql" or sql.startswith("BEGIN"):
            second_save_began.set()
        return execute(sql, params, many, context)

    def second_save():
        assert first_saved.wait(20)
        with connection.execute_wrapper(signal_when_saving):
            return put_json(second_client, url, edited(body, "second"))

    first, first_result = in_thread(first_save)
    second, second_result = in_thread(second_save)
    wait_until_blocked(second_save_began)
    commit.set()
    first.join()
    second.join()

    assert answer(first_result).status_code == 200
    assert answer(second_result).status_code == 409, answer(second_result).content
    assert stored(pipeline_id, first_client) == {"name": "first", "condition": "name == 'first'"}
    assert Pipeline.objects.get(pk=pipeline_id).revision == body["revision"] + 1
