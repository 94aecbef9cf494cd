"""Passkeys (``services.identity.passkeys``): a signed-in player registers one; a new
device
signs in with one alone (discoverable credentials: no name asked for), which makes a device
session as ``POST /signin`` does.

Each ceremony is two requests: the options (with a challenge the server keeps) for the
browser's ``navigator.credentials``, then its answer to verify. Answers are checked against
the public URL's relying party and origin only (``services.identity.passkeys.relying_party``), never
against what the request says its host is.
"""

from __future__ import annotations

from typing import Annotated, Any

import msgspec
from flask import Blueprint, Response, current_app
from webauthn import (
    generate_authentication_options,
    generate_registration_options,
    verify_authentication_response,
    verify_registration_response,
)
from webauthn.helpers import (
    base64url_to_bytes,
    bytes_to_base64url,
    options_to_json_dict,
    parse_authentication_credential_json,
    parse_client_data_json,
    parse_registration_credential_json,
)
from webauthn.helpers.exceptions import WebAuthnException
from webauthn.helpers.structs import (
    AuthenticationCredential,
    AuthenticatorSelectionCriteria,
    PublicKeyCredentialDescriptor,
    RegistrationCredential,
    ResidentKeyRequirement,
    UserVerificationRequirement,
)

from api.context import caller, deps, device_label
from api.http.jsonio import body, reply
from api.http.problems import ApiError
from api.routes.players import with_cookie
from api.schemas.players import SignedIn
from services.identity.passkeys import (
    CHALLENGE_SECONDS,
    MAX_LABEL,
    PasskeyOut,
    Passkeys,
    RelyingParty,
    relying_party,
)

bp = Blueprint("passkeys", __name__)

RP_NAME = "Omerta"
# What a hostile body may make the library's parsers raise besides its own errors.
UNPARSABLE = (WebAuthnException, ValueError, TypeError, KeyError, AttributeError)
Label = Annotated[str, msgspec.Meta(max_length=MAX_LABEL)]


class NewPasskey(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """The browser's answer to the registration options (``PublicKeyCredential.toJSON()``)
    and a label (default: the device's, from its User-Agent)."""

    credential: dict[str, Any]
    label: Label | None = None


class PasskeySignIn(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """The browser's answer to the sign-in options (``PublicKeyCredential.toJSON()``)."""

    credential: dict[str, Any]


class PasskeyLabel(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    label: Label


class PasskeyList(msgspec.Struct, frozen=True):
    passkeys: list[PasskeyOut]


def _passkeys() -> Passkeys:
    return Passkeys(deps().store)


def _rp() -> RelyingParty:
    rp = relying_party(current_app.config["OMERTA_PUBLIC_URL"])
    if rp is None:
        raise ApiError(
            409,
            "passkeys_unavailable",
            "passkeys need the service at a host name (OMERTA_PUBLIC_URL), not an IP address",
        )
    return rp


def _refused(exc: Exception) -> ApiError:
    return ApiError(
        400, "bad_passkey", f"the passkey's answer does not hold: {exc}", reason=str(exc)
    )


def _challenge_of(credential: RegistrationCredential | AuthenticationCredential) -> bytes:
    try:
        return parse_client_data_json(credential.response.client_data_json).challenge
    except UNPARSABLE as exc:
        raise _refused(exc) from None


@bp.post("/me/passkeys/options")
def registration_options() -> Response:
    """Options for ``navigator.credentials.create()``: a discoverable credential whose user
    handle is the player's id; the player's own passkeys are excluded (one per authenticator)."""
    player = caller()
    rp = _rp()
    passkeys = _passkeys()
    options = generate_registration_options(
        rp_id=rp.id,
        rp_name=RP_NAME,
        user_id=player.id.encode(),
        user_name=player.name,
        user_display_name=player.name,
        challenge=passkeys.challenge("register", player.id),
        timeout=CHALLENGE_SECONDS * 1000,
        authenticator_selection=AuthenticatorSelectionCriteria(
            resident_key=ResidentKeyRequirement.REQUIRED,
            user_verification=UserVerificationRequirement.REQUIRED,
        ),
        exclude_credentials=[
            PublicKeyCredentialDescriptor(id=base64url_to_bytes(c)) for c in passkeys.ids(player.id)
        ],
    )
    return reply(options_to_json_dict(options))


@bp.post("/me/passkeys")
def register() -> Response:
    player = caller()
    sent = body(NewPasskey)
    rp = _rp()
    try:
        credential = parse_registration_credential_json(sent.credential)
    except UNPARSABLE as exc:
        raise _refused(exc) from None
    passkeys = _passkeys()
    challenge = passkeys.take_challenge(_challenge_of(credential), "register", player.id)
    try:
        verified = verify_registration_response(
            credential=credential,
            expected_challenge=challenge,
            expected_rp_id=rp.id,
            expected_origin=rp.origin,
            require_user_verification=True,
        )
    except UNPARSABLE as exc:
        raise _refused(exc) from None
    added = passkeys.add(
        player.id,
        bytes_to_base64url(verified.credential_id),
        verified.credential_public_key,
        verified.sign_count,
        sent.label if sent.label is not None else device_label(),
        deps().players.clock(),
    )
    return reply(added, 201)


@bp.get("/me/passkeys")
def listing() -> Response:
    return reply(PasskeyList(_passkeys().listing(caller().id)))


@bp.put("/me/passkeys/<passkey_id>")
def rename(passkey_id: str) -> Response:
    player = caller()
    return reply(_passkeys().rename(player.id, passkey_id, body(PasskeyLabel).label))


@bp.delete("/me/passkeys/<passkey_id>")
def delete(passkey_id: str) -> Response:
    _passkeys().delete(caller().id, passkey_id)
    return Response(status=204)


@bp.post("/signin/passkey/options")
def signin_options() -> Response:
    """Options for ``navigator.credentials.get()`` naming no credentials: the browser offers
    every passkey it has for this site."""
    rp = _rp()
    options = generate_authentication_options(
        rp_id=rp.id,
        challenge=_passkeys().challenge("signin"),
        timeout=CHALLENGE_SECONDS * 1000,
        user_verification=UserVerificationRequirement.REQUIRED,
    )
    return reply(options_to_json_dict(options))


@bp.post("/signin/passkey")
def signin() -> Response:
    """A new device session for the passkey's player (never a new player)."""
    sent = body(PasskeySignIn)
    rp = _rp()
    try:
        credential = parse_authentication_credential_json(sent.credential)
    except UNPARSABLE as exc:
        raise _refused(exc) from None
    passkeys = _passkeys()
    challenge = passkeys.take_challenge(_challenge_of(credential), "signin")
    credential_id = bytes_to_base64url(credential.raw_id)
    found = passkeys.find(credential_id)
    handle = credential.response.user_handle
    d = deps()
    player = d.players.get(found[0]) if found else None
    # The user handle is the player's id (set at registration): it must be this passkey's.
    if found is None or player is None or (handle and handle != player.id.encode()):
        raise ApiError(
            401,
            "unknown_credential",
            "that passkey signs nobody in here (deleted, or not this service's)",
        )
    try:
        verified = verify_authentication_response(
            credential=credential,
            expected_challenge=challenge,
            expected_rp_id=rp.id,
            expected_origin=rp.origin,
            credential_public_key=base64url_to_bytes(found[1].public_key),
            credential_current_sign_count=found[1].sign_count,
            require_user_verification=True,
        )
    except UNPARSABLE as exc:
        raise _refused(exc) from None
    now = d.players.clock()
    passkeys.used(player.id, credential_id, verified.new_sign_count, now)
    device, token = d.players.devices.add(player.id, device_label(), now)
    return with_cookie(reply(SignedIn(player.id, player.name, token, device)), token)
