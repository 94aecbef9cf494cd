"""A software WebAuthn authenticator for the API tests (the browser tests use Chromium's virtual
authenticator): it answers the service's options as a platform authenticator does, with
discoverable ES256 credentials, attestation "none", user presence and verification, and a
signature counter. ``origin`` is the page the browser would say it ran on."""

from __future__ import annotations

import hashlib
import json
import secrets
import struct
from base64 import urlsafe_b64decode, urlsafe_b64encode
from dataclasses import dataclass
from typing import Any

import cbor2
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec

UP, UV, AT = 0x01, 0x04, 0x40  # authenticator data flags: present, verified, attested data


def b64url(raw: bytes) -> str:
    return urlsafe_b64encode(raw).rstrip(b"=").decode()


def unb64url(text: str) -> bytes:
    return urlsafe_b64decode(text + "=" * (-len(text) % 4))


@dataclass
class Credential:
    id: bytes
    key: ec.EllipticCurvePrivateKey
    rp_id: str
    user_handle: bytes
    count: int = 0


class Authenticator:
    def __init__(self) -> None:
        self.credentials: list[Credential] = []

    def create(self, options: dict[str, Any], origin: str) -> dict[str, Any]:
        """``navigator.credentials.create()``'s answer, as ``PublicKeyCredential.toJSON()``."""
        rp_id = options["rp"]["id"]
        credential = Credential(
            secrets.token_bytes(16), ec.generate_private_key(ec.SECP256R1()), rp_id,
            unb64url(options["user"]["id"]),
        )  # fmt: skip
        self.credentials.append(credential)
        numbers = credential.key.public_key().public_numbers()
        cose = {1: 2, 3: -7, -1: 1, -2: numbers.x.to_bytes(32, "big"),
                -3: numbers.y.to_bytes(32, "big")}  # fmt: skip
        attested = bytes(16) + struct.pack(">H", len(credential.id)) + credential.id
        data = self._data(rp_id, UP | UV | AT, credential.count) + attested + cbor2.dumps(cose)
        client = _client("webauthn.create", options["challenge"], origin)
        attestation = cbor2.dumps({"fmt": "none", "attStmt": {}, "authData": data})
        return {
            "id": b64url(credential.id),
            "rawId": b64url(credential.id),
            "type": "public-key",
            "response": {
                "clientDataJSON": b64url(client),
                "attestationObject": b64url(attestation),
                "transports": ["internal"],
            },
            "clientExtensionResults": {},
            "authenticatorAttachment": "platform",
        }

    def get(
        self, options: dict[str, Any], origin: str, credential: Credential | None = None
    ) -> dict[str, Any]:
        """``navigator.credentials.get()``'s answer with ``credential`` (default: the last one
        made for the options' relying party)."""
        if credential is None:
            credential = [c for c in self.credentials if c.rp_id == options["rpId"]][-1]
        credential.count += 1
        data = self._data(credential.rp_id, UP | UV, credential.count)
        client = _client("webauthn.get", options["challenge"], origin)
        signature = credential.key.sign(
            data + hashlib.sha256(client).digest(), ec.ECDSA(hashes.SHA256())
        )
        return {
            "id": b64url(credential.id),
            "rawId": b64url(credential.id),
            "type": "public-key",
            "response": {
                "clientDataJSON": b64url(client),
                "authenticatorData": b64url(data),
                "signature": b64url(signature),
                "userHandle": b64url(credential.user_handle),
            },
            "clientExtensionResults": {},
            "authenticatorAttachment": "platform",
        }

    @staticmethod
    def _data(rp_id: str, flags: int, count: int) -> bytes:
        return hashlib.sha256(rp_id.encode()).digest() + bytes([flags]) + struct.pack(">I", count)


def _client(kind: str, challenge: str, origin: str) -> bytes:
    return json.dumps(
        {"type": kind, "challenge": challenge, "origin": origin, "crossOrigin": False}
    ).encode()
