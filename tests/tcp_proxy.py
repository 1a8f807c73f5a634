"""A TCP proxy a test can cut and restore: a database outage as the processes behind it see one.

`TcpProxy(host, port)` listens on a free port of 127.0.0.1 and forwards every connection to
`host:port`. `cut()` closes every connection it carries and stops listening, so clients see
their connections drop and new ones refused, as when the database server restarts or its
network goes away; `restore()` listens again on the same port. Real sockets, one thread per
direction of each connection.
"""

from __future__ import annotations

import contextlib
import socket
import threading

from tests.servers import free_port


class TcpProxy:
    """Forwards `127.0.0.1:self.port` to `target`, until `cut`."""

    def __init__(self, host: str, port: int):
        self.target = (host, port)
        self.port = free_port()
        self._lock = threading.Lock()
        self._listener: socket.socket | None = None
        self._open: set[socket.socket] = set()
        self.restore()

    def restore(self) -> None:
        """Listen again (and forward what comes)."""
        listener = socket.create_server(("127.0.0.1", self.port))
        with self._lock:
            self._listener = listener
        threading.Thread(target=self._accept, args=(listener,), daemon=True).start()

    def cut(self) -> None:
        """Drop every connection and refuse new ones."""
        with self._lock:
            listener, self._listener = self._listener, None
            carried, self._open = self._open, set()
        for sock in [listener, *carried]:
            if sock is not None:
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)  # wakes the thread blocked on it
                sock.close()

    close = cut

    def _accept(self, listener: socket.socket) -> None:
        while True:
            try:
                client, _ = listener.accept()
            except OSError:  # cut
                return
            try:
                upstream = socket.create_connection(self.target)
            except OSError:
                client.close()
                continue
            with self._lock:
                if self._listener is not listener:  # cut meanwhile
                    client.close()
                    upstream.close()
                    return
                self._open.update((client, upstream))
            for source, sink in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(source, sink), daemon=True).start()

    def _pump(self, source: socket.socket, sink: socket.socket) -> None:
        try:
            while data := source.recv(65536):
                sink.sendall(data)
        except OSError:
            pass
        finally:  # one direction ended: so does the other, and each closes its source
            for sock in (source, sink):
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)
            with self._lock:
                self._open.discard(source)
            source.close()
