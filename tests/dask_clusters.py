"""A Dask cluster as a user deploys one: `dask scheduler` and `dask worker` processes, over TLS
with certificates of a test authority; and what a test asks of a cluster it runs on."""

from __future__ import annotations

import datetime
import ipaddress
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterable
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from distributed import Client, Security

ROOT = Path(__file__).resolve().parent.parent
DASK = Path(sys.executable).with_name("dask")
START_TIMEOUT_S = 60


def tls_credentials(folder: Path) -> dict[str, Path]:
    """A certificate authority's certificate (`ca`), and a certificate and key it signed for
    127.0.0.1 (`cert`, `key`), which the scheduler, the workers and the client all present."""
    folder.mkdir(parents=True, exist_ok=True)
    now = datetime.datetime.now(datetime.UTC)
    ca_key, key = ec.generate_private_key(ec.SECP256R1()), ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "pipewright test CA")])
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])

    def certificate(subject, public_key, *, ca: bool) -> x509.Certificate:
        builder = (
            x509.CertificateBuilder()
            .subject_name(subject)
            .issuer_name(ca_name)
            .public_key(public_key)
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True)
        )
        if not ca:
            address = x509.IPAddress(ipaddress.ip_address("127.0.0.1"))
            builder = builder.add_extension(x509.SubjectAlternativeName([address]), critical=False)
        return builder.sign(ca_key, hashes.SHA256())

    files = {"ca": folder / "ca.pem", "cert": folder / "cert.pem", "key": folder / "key.pem"}
    pem = serialization.Encoding.PEM
    files["ca"].write_bytes(certificate(ca_name, ca_key.public_key(), ca=True).public_bytes(pem))
    files["cert"].write_bytes(certificate(name, key.public_key(), ca=False).public_bytes(pem))
    files["key"].write_bytes(
        key.private_bytes(pem, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    return files


def tls_config(credentials: dict[str, Path]) -> dict[str, str]:
    """Dask's configuration for a client presenting `credentials` (what a deployment sets
    through DASK_DISTRIBUTED__COMM__TLS__* variables)."""
    return {
        "distributed.comm.tls.ca-file": str(credentials["ca"]),
        "distributed.comm.tls.client.cert": str(credentials["cert"]),
        "distributed.comm.tls.client.key": str(credentials["key"]),
        "distributed.comm.require-encryption": True,
    }


class DaskProcesses:
    """A `dask scheduler` and `dask worker`s, each a process of its own, over TLS."""

    def __init__(self, folder: Path, *, workers: int, python_path: Iterable[Path] = ()):
        folder.mkdir(parents=True, exist_ok=True)
        self.credentials = files = tls_credentials(folder / "tls")
        self._tls = ["--tls-ca-file", str(files["ca"]), "--tls-cert", str(files["cert"]),
                     "--tls-key", str(files["key"])]  # fmt: skip
        scheduler_file = folder / "scheduler.json"
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(map(str, [ROOT, *python_path]))}
        self.processes = [
            self._start(
                "scheduler", "--protocol", "tls", "--host", "127.0.0.1", "--port", "0",
                "--scheduler-file", str(scheduler_file), env=env, log=folder / "scheduler.log",
            )
        ]  # fmt: skip
        self.address = self._wait_for_address(scheduler_file)
        for number in range(workers):
            self.processes.append(
                self._start(
                    "worker", self.address, "--nthreads", "2", "--no-dashboard",
                    "--name", f"worker-{number}", "--host", "127.0.0.1",
                    "--preload", "runtime.worker.dask_task",
                    env=env, log=folder / f"worker-{number}.log",
                )
            )  # fmt: skip
        self._wait_for_workers(workers)

    def _start(self, command: str, *args: str, env: dict, log: Path) -> subprocess.Popen:
        with log.open("w") as output:
            return subprocess.Popen(
                [str(DASK), command, *args, *self._tls],
                cwd=ROOT, env=env, stdout=output, stderr=subprocess.STDOUT,
            )  # fmt: skip

    def _wait_for_address(self, scheduler_file: Path) -> str:
        deadline = time.monotonic() + START_TIMEOUT_S
        while not scheduler_file.exists():
            assert self.processes[0].poll() is None, "dask scheduler ended at start"
            assert time.monotonic() < deadline, "dask scheduler did not start"
            time.sleep(0.05)
        return json.loads(scheduler_file.read_text())["address"]

    def _wait_for_workers(self, count: int) -> None:
        security = Security(
            tls_ca_file=str(self.credentials["ca"]),
            tls_client_cert=str(self.credentials["cert"]),
            tls_client_key=str(self.credentials["key"]),
            require_encryption=True,
        )
        with Client(self.address, security=security, set_as_default=False) as client:
            client.wait_for_workers(count, timeout=START_TIMEOUT_S)

    def stop(self) -> None:
        for process in reversed(self.processes):
            process.terminate()
        for process in self.processes:
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
