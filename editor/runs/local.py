"""Runs in processes of this machine, the default: each run in a process of its own, forked by
the pre-started server (`runtime.worker.zygote`), or the spare forked and warmed up after the
last run or job when it is ready.

A process is where supervision (`editor.runs.supervision`) can do all it does: the process's memory
is measured, a cancelled run's process is terminated (SIGTERM, and SIGKILL after
`TERM_WAIT_S`), a run past a limit killed at once, and a process that dies on its own (a crash,
the kernel's OOM killer, SIGKILL) says what ended it. A run has one process: when it dies, the
run ends.
"""

from __future__ import annotations

import logging

from editor.runs.spare import SpareProcess
from editor.runs.supervision import Ending, Supervision, Supervisor
from runtime import RunStatus
from runtime.worker.zygote import ForkServer

log = logging.getLogger(__name__)
fork_server = ForkServer()
"""This web process's server of run processes, shared by all its runs."""
spare = SpareProcess(fork_server.fork)
"""The process the next run or job takes, forked and warmed up after the last one."""


class LocalSupervisor(Supervisor):
    """Runs in processes of this machine: the process is the run's `RunHandle`."""

    def execute(self, supervision: Supervision) -> Ending:
        """Have a process execute the run, then make the next spare; a process that cannot be
        started fails the run."""
        try:
            process = spare.take()
        except OSError as error:
            log.exception("could not start the process of run %s", supervision.order.run_id)
            return Ending(RunStatus.FAILED, f"could not start the run's process: {error}")
        try:
            supervision.run(process)
        finally:
            process.close()
            spare.refill()
        return supervision.ending(process)
