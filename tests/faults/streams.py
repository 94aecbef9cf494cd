"""A live stream (server-sent events) read by a thread, as a page's ``EventSource`` reads it:
what came (the events' ids, the ``retry`` hints, in order) and how it ended (cleanly: the
server closed the response; cut: the connection broke)."""

from __future__ import annotations

import http.client
import threading
import time


class Stream(threading.Thread):
    def __init__(self, port: int, path: str, token: str, last_event_id: str | None = None) -> None:
        super().__init__(daemon=True)
        self.port, self.path = port, path
        self.headers = {"Authorization": f"Bearer {token}", "Accept": "text/event-stream"}
        if last_event_id is not None:
            self.headers["Last-Event-ID"] = last_event_id
        self.fields: list[tuple[str, str]] = []  # ("id" | "retry", value), in order
        self.ended: str | None = None  # "clean", or "cut: <why>"
        self.ended_at = 0.0
        self.opened = threading.Event()

    @property
    def ids(self) -> list[str]:
        return [value for name, value in self.fields if name == "id"]

    def run(self) -> None:
        # Longer than the idle keep-alive comment's interval (15 s).
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        try:
            conn.request("GET", self.path, headers=self.headers)
            response = conn.getresponse()
            if response.status != 200:
                self.ended = f"refused: {response.status} {response.read()!r}"
                return
            self.opened.set()
            while line := response.readline():
                name, _, value = line.decode().rstrip("\n").partition(": ")
                if name in ("id", "retry"):
                    self.fields.append((name, value))
            self.ended = "clean"
        except (OSError, http.client.HTTPException) as exc:
            self.ended = f"cut: {exc!r}"
        finally:
            self.ended_at = time.monotonic()
            conn.close()
