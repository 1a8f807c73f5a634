"""Linux's per-process settings a run's process takes (through `prctl`; elsewhere, none).

`die_with_parent` has the kernel kill the process when its parent ends, even while it is
stuck in native code that never looks at its socket; `name_process` names it as `ps` and
`top` show it (`pw-run-42`), so an operator can tell which run a busy process executes.
"""

from __future__ import annotations

import ctypes
import signal
import sys

_PR_SET_NAME = 15
_PR_SET_PDEATHSIG = 1
_NAME_BYTES = 15
"""The kernel keeps a process name of at most 15 bytes."""


def _prctl(option: int, value: int | bytes) -> None:
    if not sys.platform.startswith("linux"):
        return
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(option, value, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), f"prctl({option}) failed")


def die_with_parent() -> None:
    """SIGKILL this process when the process that forked it ends."""
    _prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)


def name_process(name: str) -> None:
    """The name `ps -o comm` and `top` show for this process."""
    _prctl(_PR_SET_NAME, name.encode()[:_NAME_BYTES])
