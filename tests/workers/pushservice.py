"""A local push service for the tests, and the browser end of a subscription.

``Browser`` makes what a browser makes when it subscribes (RFC 8291): a P-256 key pair and a
16-byte auth secret; ``subscription(endpoint)`` is its ``PushSubscription.toJSON()``, and
``decrypt`` opens a push (aes128gcm) with its own private key, as the browser would.

``push_service()`` is an HTTP server in a thread on a free port that records every push
(path, headers in lower case, body, time) and answers as the test scripts it: ``answers`` is
consumed one per push (a status); once empty, every push gets 201 (RFC 8030's "created").

``vapid_claims(authorization, public_key)`` checks the ``Authorization: vapid t=<JWT>,k=<key>``
header (RFC 8292): ``k`` is the server's public key and the JWT is signed (ES256) with its
private key; the JWT's claims, to check further.
"""

from __future__ import annotations

import base64
import json
import os
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import http_ece
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature

from services.platform.embedded import free_port


def b64url(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def unb64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class Browser:
    def __init__(self) -> None:
        self.private_key = ec.generate_private_key(ec.SECP256R1())
        self.auth = os.urandom(16)

    def subscription(self, endpoint: str) -> dict[str, Any]:
        point = self.private_key.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
        )
        return {
            "endpoint": endpoint,
            "expirationTime": None,
            "keys": {"p256dh": b64url(point), "auth": b64url(self.auth)},
        }

    def decrypt(self, body: bytes) -> Any:
        plain = http_ece.decrypt(
            body, private_key=self.private_key, auth_secret=self.auth, version="aes128gcm"
        )
        return json.loads(plain)


def vapid_claims(authorization: str, public_key: str) -> dict[str, Any]:
    """The JWT's claims, once ``authorization`` is shown signed by ``public_key`` (raises)."""
    scheme, _, params = authorization.partition(" ")
    assert scheme == "vapid", authorization
    fields = dict(part.split("=", 1) for part in params.split(","))
    assert fields["k"] == public_key
    header, claims, signature = fields["t"].split(".")
    raw = unb64url(signature)
    assert len(raw) == 64  # JWS ES256: r and s, 32 bytes each
    der = encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big"))
    key = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), unb64url(public_key))
    key.verify(der, f"{header}.{claims}".encode(), ec.ECDSA(hashes.SHA256()))  # raises if not
    assert json.loads(unb64url(header)) == {"typ": "JWT", "alg": "ES256"}
    return json.loads(unb64url(claims))


@dataclass
class Push:
    path: str
    headers: dict[str, str]
    body: bytes
    at: float


@dataclass
class PushService:
    base: str
    answers: list[int] = field(default_factory=list)
    pushes: list[Push] = field(default_factory=list)

    def endpoint(self, name: str) -> str:
        return f"{self.base}/push/{name}"

    def to(self, name: str) -> list[Push]:
        return [p for p in self.pushes if p.path == f"/push/{name}"]


@contextmanager
def push_service() -> Iterator[PushService]:
    port = free_port()
    got = PushService(f"http://127.0.0.1:{port}")
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            with lock:
                headers = {k.lower(): v for k, v in self.headers.items()}
                got.pushes.append(Push(self.path, headers, body, time.monotonic()))
                answer = got.answers.pop(0) if got.answers else 201
            try:
                self.send_response(answer)
                self.send_header("Content-Length", "0")
                self.end_headers()
            except OSError:
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
        server.shutdown()
        server.server_close()
