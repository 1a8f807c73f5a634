"""The fork server the worker tests start runs and jobs from. It is started from a process
whose environment holds the web server's secrets, so that test_process_isolation.py can show
that none of them reaches a run's or a job's process."""

from __future__ import annotations

import pytest

from runtime.worker.zygote import ForkServer

SECRETS = {
    "PIPEWRIGHT_SECRET_KEY": "secret-key-7f3a",
    "DATABASE_URL": "postgresql://app:db-pass-91c2@db/pipewright",
    "PIPEWRIGHT_ENCRYPTION_KEY": "encryption-key-5d6e",
    "REDIS_URL": "redis://:redis-pass-0b4c@cache:6379/0",
    "DJANGO_SETTINGS_MODULE": "pipewright.settings",
}


@pytest.fixture(scope="module")
def server_with_secrets():
    """A fork server started from a process whose environment holds the web server's secrets."""
    with pytest.MonkeyPatch.context() as patch:
        for name, value in SECRETS.items():
            patch.setenv(name, value)
        server = ForkServer()
        server.start()
    yield server
    server.stop()
