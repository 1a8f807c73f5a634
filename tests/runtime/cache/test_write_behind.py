"""Result-store writes behind the run: in order, bounded, and all done when the run ends."""

from __future__ import annotations

import threading

from runtime.cache.write_behind import WriteBehind


def test_writes_run_in_the_order_given_and_finish_waits_for_every_one():
    done = []
    writes = WriteBehind()
    for number in range(50):
        writes.submit(lambda number=number: done.append(number), size=1)
    writes.finish()
    assert done == list(range(50))


def test_a_write_waits_while_the_queued_frames_hold_too_much():
    release = threading.Event()
    writes = WriteBehind(pending_bytes=10)
    writes.submit(release.wait, size=8)
    second = threading.Thread(target=writes.submit, args=(lambda: None, 8))
    second.start()
    second.join(0.3)
    assert second.is_alive(), "8 + 8 bytes were queued past a limit of 10"
    release.set()
    second.join(5)
    assert not second.is_alive()
    writes.finish()


def test_one_write_larger_than_the_limit_still_goes():
    done = []
    writes = WriteBehind(pending_bytes=10)
    writes.submit(lambda: done.append("big"), size=1_000)
    writes.finish()
    assert done == ["big"]


def test_a_write_that_fails_is_logged_and_the_next_one_still_runs(caplog):
    done = []
    writes = WriteBehind()
    writes.submit(lambda: 1 / 0)
    writes.submit(lambda: done.append("after"))
    writes.finish()
    assert done == ["after"]
    assert "a write to the result store failed" in caplog.text
