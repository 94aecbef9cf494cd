"""A crowd of browsers on a web server's live-event streams (for ``tests/api/test_streams.py``
and ``tests/benchmarks/bench_streams.py``): raw sockets, opened a wave at a time (a stream is
open when its ``retry:`` line has come), all read by one thread (a selector) that notes the
highest event id each stream got and opens a stream again when the server ends it, as an
EventSource does."""

from __future__ import annotations

import queue
import re
import resource
import selectors
import socket
import threading
import time
from multiprocessing.connection import Connection

HOST = "127.0.0.1"
EVENT_ID = re.compile(rb"\nid: (\d+)\n|^id: (\d+)\n")
COUNT = re.compile(rb'"count":(\d+)')  # a player stream's inbox count (api.live.presence)


def allow_files(count: int) -> None:
    """Let this process (and the servers it starts after this) open ``count`` files."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < count:
        if hard != resource.RLIM_INFINITY and hard < count:
            raise RuntimeError(f"{count} open files needed; the hard limit is {hard}")
        resource.setrlimit(resource.RLIMIT_NOFILE, (count, hard))


class Refused(Exception):
    """The server answered a stream's request with another status than 200."""


def request(port: int, path: str, token: str = "") -> socket.socket:
    sock = socket.create_connection((HOST, port), timeout=60)
    auth = f"Authorization: Bearer {token}\r\n" if token else ""
    # Connection: close, so that the end of a stream is the end of the connection (as an
    # EventSource reads the end of the response): kept alive, it would sit idle for seconds.
    head = (
        f"GET {path} HTTP/1.1\r\nHost: {HOST}\r\nAccept: text/event-stream\r\n{auth}"
        "Connection: close\r\n\r\n"
    )
    sock.sendall(head.encode())
    return sock


def _started(sock: socket.socket) -> bytes:
    """What came until the stream's first line (``retry:``); raises ``Refused`` on a status
    other than 200."""
    data = b""
    while b"retry:" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            raise ConnectionError(f"closed before the stream began: {data[:300]!r}")
        data += chunk
        if b"\r\n\r\n" in data and not data.startswith(b"HTTP/1.1 200 "):
            raise Refused(data.split(b"\r\n", 1)[0].decode())
    return data


class Stream:
    def __init__(self, path: str, token: str = "") -> None:
        self.path = path
        self.token = token  # sent as a bearer token
        self.sock: socket.socket | None = None
        self.started = False  # its retry: line has come
        self.head = b""  # what came before that
        self.seen = 0  # the highest event id received
        self.count: int | None = None  # the last inbox count received (a player stream)
        self.tail = b""  # the end of the last read: an id line may be cut between two reads

    def note(self, data: bytes) -> None:
        data = self.tail + data
        for found in EVENT_ID.finditer(data):
            self.seen = max(self.seen, int(found.group(1) or found.group(2)))
        counts = COUNT.findall(data)
        if counts:
            self.count = int(counts[-1])
        self.tail = data[-40:]


class Crowd:
    """Streams that stay open: one thread reads them all and opens again, without waiting for
    the answer, each stream the server ends."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.streams: list[Stream] = []
        self.reopened = 0
        self.errors: list[str] = []
        self._new: queue.SimpleQueue[Stream] = queue.SimpleQueue()
        self._selector = selectors.DefaultSelector()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def open(self, paths: list[str], wave: int = 20, token: str = "") -> None:
        """Open a stream on each path, ``wave`` requests at a time (as ``token``'s player)."""
        for start in range(0, len(paths), wave):
            batch = [Stream(p, token) for p in paths[start : start + wave]]
            for stream in batch:
                stream.sock = request(self.port, stream.path, stream.token)
            for stream in batch:
                assert stream.sock is not None
                stream.note(_started(stream.sock))
                stream.started = True
                self.streams.append(stream)
                self._new.put(stream)

    def open_count(self) -> int:
        return sum(1 for s in self.streams if s.started)

    def _read(self) -> None:
        while not self._stop.is_set():
            while not self._new.empty():
                stream = self._new.get()
                assert stream.sock is not None
                stream.sock.setblocking(False)
                self._selector.register(stream.sock, selectors.EVENT_READ, stream)
            for key, _ in self._selector.select(0.05) if self._selector.get_map() else ():
                self._readable(key.data)
            if not self._selector.get_map():
                time.sleep(0.05)

    def _readable(self, stream: Stream) -> None:
        assert stream.sock is not None
        try:
            data = stream.sock.recv(65536)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if not data:
            self._reopen(stream)
            return
        if not stream.started:
            stream.head += data
            if b"\r\n\r\n" in stream.head and not stream.head.startswith(b"HTTP/1.1 200 "):
                status = stream.head.split(b"\r\n", 1)[0].decode()
                self.errors.append(f"{stream.path}: {status}")
                self._close(stream)
                return
            if b"retry:" not in stream.head:
                return
            stream.started, stream.head = True, b""
        stream.note(data)

    def _close(self, stream: Stream) -> None:
        assert stream.sock is not None
        self._selector.unregister(stream.sock)
        stream.sock.close()
        stream.sock, stream.started = None, False

    def _reopen(self, stream: Stream) -> None:
        """As an EventSource does when the server ends the stream (at once: no ``retry``)."""
        self._close(stream)
        if self._stop.is_set():
            return
        try:
            stream.sock = request(self.port, stream.path, stream.token)
        except OSError as exc:
            self.errors.append(f"{stream.path}: {exc!r}")
            return
        self.reopened += 1
        stream.sock.setblocking(False)
        self._selector.register(stream.sock, selectors.EVENT_READ, stream)

    def close(self) -> None:
        self._stop.set()
        self._thread.join(10)
        for stream in self.streams:
            if stream.sock is not None:
                stream.sock.close()
                stream.sock = None
        self._selector.close()


def crowd_process(port: int, commands: Connection) -> None:
    """A crowd in a process of its own (``multiprocessing``), so that reading thousands of
    sockets does not share a GIL with whoever measures: ``("open", paths)`` answers when they
    are open, ``("count",)`` answers (open, reopened, errors), ``("close",)`` ends it."""
    crowd = Crowd(port)
    try:
        while True:
            command = commands.recv()
            if command[0] == "open":
                allow_files(len(crowd.streams) + len(command[1]) + 1000)
                crowd.open(command[1])
                commands.send(None)
            elif command[0] == "count":
                commands.send((crowd.open_count(), crowd.reopened, list(crowd.errors)))
            else:
                return
    finally:
        crowd.close()
