"""Players and their devices: creating a player, signing in and out, sign-in links."""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

from api.schemas.common import In, Name


class NewPlayer(In, frozen=True):
    """Create a player. When the request's cookie already names a player, ``replace`` must
    be true to make a new one in its place (the old identity lived only in that cookie)."""

    name: Name
    replace: bool = False


class PlayerOut(msgspec.Struct, frozen=True):
    id: str
    name: str
    created: int


class PlayerCreated(msgspec.Struct, frozen=True):
    """The token is shown only here: the server keeps only its hash."""

    id: str
    name: str
    token: str


class SignIn(In, frozen=True):
    """Sign in on this device with the player's sign-in link (the part after ``#``) or their
    recovery code (any case, dashes and spaces ignored)."""

    link: Annotated[str, msgspec.Meta(min_length=1, max_length=200)] | None = None
    code: Annotated[str, msgspec.Meta(min_length=1, max_length=40)] | None = None


class SignedIn(msgspec.Struct, frozen=True):
    """The new device's token is shown only here: the server keeps only its hash."""

    id: str
    name: str
    token: str
    device: str


class SignInLink(msgspec.Struct, frozen=True):
    """The sign-in link and recovery code, shown only here (the server keeps their hashes);
    ``qr`` is the link as a QR code (SVG)."""

    link: str
    code: str
    created: int
    qr: str


class SignInState(msgspec.Struct, frozen=True):
    """When the player's sign-in link and code were made; null when there are none."""

    created: int | None


class DeviceOut(msgspec.Struct, frozen=True):
    id: str
    label: str
    created: int
    used: int  # ms of the last use (updated at most once a minute)
    current: bool  # the device that asks


class DeviceList(msgspec.Struct, frozen=True):
    devices: list[DeviceOut]


class SignOut(In, frozen=True):
    """Sign out every device but the one that asks (``others``), or every one (``all``)."""

    devices: Literal["others", "all"]


class SignedOut(msgspec.Struct, frozen=True):
    signed_out: int
