"""The retries' backoff: attempts come back once due, in the order they become due."""

from __future__ import annotations

import time

from runtime.execution.attempts import Attempt
from runtime.execution.retries import Retries


def attempt(number: int = 1) -> Attempt:
    return Attempt(node=None, number=number, ctx=None, inputs={}, references={})


def test_each_retry_waits_twice_as_long_as_the_one_before():
    retries = Retries(delay_s=0.5)
    assert [retries.delay_after(attempt(number)) for number in (1, 2, 3)] == [0.5, 1.0, 2.0]


def test_attempts_come_back_in_the_order_they_become_due_not_the_order_they_failed():
    retries = Retries(delay_s=0)
    later, sooner = attempt(), attempt()
    retries.wait(later, 0.05)
    retries.wait(sooner, 0)
    retries.promote_due()
    assert (retries.due_count(), retries.backing_off) == (1, True)
    assert retries.take_due() is sooner
    time.sleep(0.06)
    retries.promote_due()
    assert retries.take_due() is later
    assert (retries.take_due(), retries.next_due_at(), retries.backing_off) == (None, None, False)


def test_stopping_drops_the_due_attempts_first_then_those_still_waiting():
    retries = Retries(delay_s=0)
    due, waiting = attempt(), attempt()
    retries.wait(due, 0)
    retries.promote_due()
    retries.wait(waiting, 60)
    assert retries.drop_all() == [due, waiting]
    assert (retries.due_count(), retries.backing_off) == (0, False)
