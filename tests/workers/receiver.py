"""A local webhook receiver for the tests: an HTTP server in a thread on a free port that
records every call (delivery id, headers, body, time) and answers as the test scripts it:
``answers`` is consumed one per call (a status, or ``HOLD``: keep the request until ``release``
is set, then answer 200); once empty, every call gets 200."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from services.platform.embedded import free_port

HOLD = 0


@dataclass
class Call:
    delivery: str
    headers: dict[str, str]
    body: bytes
    at: float


@dataclass
class Receiver:
    url: str
    answers: list[int] = field(default_factory=list)
    calls: list[Call] = field(default_factory=list)
    held: threading.Event = field(default_factory=threading.Event)  # a call is being held
    release: threading.Event = field(default_factory=threading.Event)

    def deliveries(self) -> set[str]:
        return {c.delivery for c in self.calls}


@contextmanager
def receiver() -> Iterator[Receiver]:
    port = free_port()
    got = Receiver(f"http://127.0.0.1:{port}/hook")
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            with lock:
                got.calls.append(
                    Call(
                        self.headers.get("X-Omerta-Delivery", ""),
                        dict(self.headers),
                        body,
                        time.monotonic(),
                    )
                )
                answer = got.answers.pop(0) if got.answers else 200
            if answer == HOLD:
                got.held.set()
                got.release.wait(60)
                answer = 200
            try:
                self.send_response(answer)
                self.send_header("Content-Length", "0")
                self.end_headers()
            except OSError:  # the caller is gone (a killed worker)
                pass

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield got
    finally:
        got.release.set()
        server.shutdown()
        server.server_close()
