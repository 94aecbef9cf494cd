"""Identity that follows the player: the sign-in link and recovery code, signing in
on another device with either, and the player's devices (``services.identity.devices``)."""

from __future__ import annotations

import io

import qrcode
import qrcode.image.svg
from flask import Blueprint, Response, current_app

from api.context import COOKIE, caller, deps, device_label, session
from api.http.jsonio import body, reply
from api.routes.players import with_cookie
from api.schemas.players import (
    DeviceList,
    DeviceOut,
    SignedIn,
    SignedOut,
    SignIn,
    SignInLink,
    SignInState,
    SignOut,
)
from services.identity.devices import BadSignIn, UnknownDevice

bp = Blueprint("devices", __name__)


@bp.post("/signin")
def signin() -> Response:
    """A new device session for the player of the link or code (never a new player)."""
    sent = body(SignIn)
    d = deps()
    player = d.players.get(d.players.devices.player_of(sent.link, sent.code))
    if player is None:  # the secret outlived its player: the refusal of a wrong one
        raise BadSignIn("that sign-in link or recovery code signs nobody in")
    device, token = d.players.devices.add(player.id, device_label(), d.players.clock())
    return with_cookie(reply(SignedIn(player.id, player.name, token, device)), token)


@bp.get("/me/signin")
def signin_state() -> Response:
    player = caller()
    return reply(SignInState(deps().players.devices.signin_made(player.id)))


@bp.post("/me/signin")
def make_signin() -> Response:
    """A new sign-in link and recovery code: the old ones stop working."""
    player = caller()
    d = deps()
    made = d.players.devices.make_signin(player.id, d.players.clock())
    link = f"{current_app.config['OMERTA_PUBLIC_URL']}/signin#{made.secret}"
    return reply(SignInLink(link, made.code, made.created, qr_svg(link)), 201)


@bp.delete("/me/signin")
def revoke_signin() -> Response:
    deps().players.devices.revoke_signin(caller().id)
    return Response(status=204)


@bp.get("/me/devices")
def devices() -> Response:
    player, current = session()
    listed = deps().players.devices.listing(player.id)
    out = [DeviceOut(d.id, d.label, d.created, d.used, d.id == current) for d in listed]
    return reply(DeviceList(out))


@bp.delete("/me/devices/<device_id>")
def sign_out_one(device_id: str) -> Response:
    player, current = session()
    if not _sign_out(player.id, [device_id]):
        raise UnknownDevice("you have no device with that id", params={"device": device_id})
    response = Response(status=204)
    if device_id == current:
        response.delete_cookie(COOKIE, path="/")
    return response


@bp.post("/me/devices/signout")
def sign_out_many() -> Response:
    """Sign out every other device, or every device (this one too)."""
    which = body(SignOut).devices
    player, current = session()
    # Every device is recorded by now: the first one at its first use (``session``).
    ids = deps().players.devices.device_ids(player.id)
    if which == "others":
        ids = [i for i in ids if i != current]
    response = reply(SignedOut(_sign_out(player.id, ids)))
    if which == "all":
        response.delete_cookie(COOKIE, path="/")
    return response


def _sign_out(player_id: str, device_ids: list[str]) -> int:
    players = deps().players
    gone = players.devices.revoke(player_id, device_ids)
    players.forget(gone)
    return len(gone)


def qr_svg(text: str) -> str:
    """``text`` as a QR code: an SVG element of paths (no script, no style: CSP allows it)."""
    image = qrcode.make(text, image_factory=qrcode.image.svg.SvgPathImage, border=4)
    out = io.BytesIO()
    image.save(out)
    svg = out.getvalue().decode()
    return svg[svg.index("<svg") :]
