"""The operations that sign a player in on a device: sign-in link and code, devices, passkeys,
email."""

from __future__ import annotations

from typing import Any

from api.openapi.route import Route, path_param
from api.routes import mail, passkeys
from api.schemas.players import (
    DeviceList,
    SignedIn,
    SignedOut,
    SignIn,
    SignInLink,
    SignInState,
    SignOut,
)

PASSKEY_ID = path_param("passkey_id", about="a passkey's id from GET /me/passkeys")
WEBAUTHN_OPTIONS = dict[str, Any]  # the library's options as JSON, for navigator.credentials
LINK_TOKEN = path_param("token", about="the token of the mailed link")
FORM_TOO = (
    "Takes an empty body, JSON, or a form (`application/x-www-form-urlencoded`: the link's "
    "page posts one, and then the answer is a 303 to the next page)."
)
IDENTITY_ROUTES: tuple[Route, ...] = (
    Route(
        "post",
        "/signin",
        "Sign in on this device with the sign-in link or the recovery code",
        (200, SignedIn),
        body=SignIn,
        codes=("bad_signin", "rate_limited", "store_unavailable"),
        tag="devices",
        description="Send `link` (the sign-in link's part after `#`) or `code` (the recovery "
        "code). The answer holds a new device token for the same player (once; the server "
        "keeps its hash) and sets it as the pages' cookie. Attempts are rate-limited per "
        "address and per link or code: 429 `rate_limited`.",
    ),
    Route(
        "get",
        "/me/signin",
        "When the caller's sign-in link and recovery code were made (null: none)",
        (200, SignInState),
        auth="required",
        codes=("store_unavailable",),
        tag="devices",
    ),
    Route(
        "post",
        "/me/signin",
        "Make a new sign-in link and recovery code (the old ones stop working)",
        (201, SignInLink),
        auth="required",
        codes=("store_unavailable",),
        tag="devices",
        description="Both are shown only in this answer (the server keeps their hashes), the "
        "link as text and as a QR code (SVG).",
    ),
    Route(
        "delete",
        "/me/signin",
        "Revoke the sign-in link and recovery code",
        (204, None),
        auth="required",
        codes=("store_unavailable",),
        tag="devices",
    ),
    Route(
        "get",
        "/me/devices",
        "The caller's signed-in devices, last used first",
        (200, DeviceList),
        auth="required",
        codes=("store_unavailable",),
        tag="devices",
        description="The token POST /players returned is the first device. Last use is "
        "updated at most once a minute.",
    ),
    Route(
        "delete",
        "/me/devices/{device_id}",
        "Sign out one device (its token stops working)",
        (204, None),
        auth="required",
        params=(path_param("device_id", about="a device's id from GET /me/devices"),),
        codes=("store_unavailable", "unknown_device"),
        tag="devices",
    ),
    Route(
        "post",
        "/me/devices/signout",
        "Sign out every other device, or every device",
        (200, SignedOut),
        body=SignOut,
        auth="required",
        codes=("store_unavailable",),
        tag="devices",
    ),
    Route(
        "post",
        "/me/passkeys/options",
        "Options for registering a passkey (navigator.credentials.create), with a challenge",
        (200, WEBAUTHN_OPTIONS),
        auth="required",
        codes=("passkeys_unavailable", "store_unavailable"),
        tag="devices",
        description="`PublicKeyCredentialCreationOptionsJSON`: bytes as base64url. The "
        "challenge is kept by the server for 5 minutes and answers once. A discoverable "
        "credential (its user handle is the player's id) with user verification; the "
        "caller's own passkeys are excluded. 409 `passkeys_unavailable` when the public URL "
        "is an IP address (a loopback one is `localhost`).",
    ),
    Route(
        "post",
        "/me/passkeys",
        "Register a passkey: the browser's answer to the options",
        (201, passkeys.PasskeyOut),
        body=passkeys.NewPasskey,
        auth="required",
        codes=(
            "bad_passkey",
            "passkey_challenge",
            "passkey_exists",
            "passkeys_unavailable",
            "store_unavailable",
            "too_many_passkeys",
        ),
        tag="devices",
        description="`credential` is `PublicKeyCredential.toJSON()` of the answer. 400 "
        "`passkey_challenge`: not the answer to a live registration challenge of the caller's; "
        "400 `bad_passkey`: it does not verify (origin, relying party, user verification).",
    ),
    Route(
        "get",
        "/me/passkeys",
        "The caller's passkeys, newest first",
        (200, passkeys.PasskeyList),
        auth="required",
        codes=("store_unavailable",),
        tag="devices",
    ),
    Route(
        "put",
        "/me/passkeys/{passkey_id}",
        "Rename a passkey",
        (200, passkeys.PasskeyOut),
        body=passkeys.PasskeyLabel,
        auth="required",
        params=(PASSKEY_ID,),
        codes=("store_unavailable", "unknown_passkey"),
        tag="devices",
    ),
    Route(
        "delete",
        "/me/passkeys/{passkey_id}",
        "Delete a passkey (it signs nobody in any more)",
        (204, None),
        auth="required",
        params=(PASSKEY_ID,),
        codes=("store_unavailable", "unknown_passkey"),
        tag="devices",
    ),
    Route(
        "post",
        "/signin/passkey/options",
        "Options for signing in with a passkey (navigator.credentials.get), with a challenge",
        (200, WEBAUTHN_OPTIONS),
        codes=("passkeys_unavailable", "rate_limited", "store_unavailable"),
        tag="devices",
        description="`PublicKeyCredentialRequestOptionsJSON`, naming no credential: the "
        "browser offers the passkeys it has for this site. Rate-limited per address.",
    ),
    Route(
        "post",
        "/signin/passkey",
        "Sign in on this device with a passkey: the browser's answer to the options",
        (200, SignedIn),
        body=passkeys.PasskeySignIn,
        codes=(
            "bad_passkey",
            "passkey_challenge",
            "passkeys_unavailable",
            "rate_limited",
            "store_unavailable",
            "unknown_credential",
        ),
        tag="devices",
        description="A new device token for the passkey's player, as `POST /signin` gives "
        "(and the pages' cookie). 401 `unknown_credential`: the passkey is nobody's here. "
        "Rate-limited per address: 429 `rate_limited`.",
    ),
    Route(
        "post",
        "/me/email",
        "Set the caller's email address; a verification link is mailed to it (24 hours)",
        (202, mail.EmailOut),
        body=mail.NewEmail,
        auth="required",
        codes=("bad_email", "rate_limited", "store_unavailable"),
        tag="players",
    ),
    Route(
        "get",
        "/me/email",
        "The caller's email address and its state",
        (200, mail.EmailOut),
        auth="required",
        codes=("store_unavailable",),
        tag="players",
        description="No address yet is a state like any other: `address` null, neither "
        "verified nor unsubscribed.",
    ),
    Route(
        "put",
        "/me/email/subscription",
        "Turn the caller's notification mails off or back on (`subscribed`)",
        (200, mail.EmailOut),
        body=mail.Subscription,
        auth="required",
        codes=("no_email", "store_unavailable"),
        tag="players",
        description="The one-click unsubscribe of the mails turns them off too; the mails go "
        "only to a verified address.",
    ),
    Route(
        "post",
        "/email/verify/{token}",
        "Verify the address with the mailed link's token (once)",
        (200, mail.Verified),
        params=(LINK_TOKEN,),
        codes=("bad_link", "store_unavailable"),
        tag="players",
        description="Takes no body.",
    ),
    Route(
        "post",
        "/signin/email",
        "Mail a one-time sign-in link (15 minutes) to a verified address",
        (202, mail.MailSent),
        body=mail.SignInByMail,
        codes=("bad_email", "rate_limited", "store_unavailable"),
        tag="players",
        description="The answer is the same whether or not the address is a player's; what "
        "is no address at all is refused (400 `bad_email`).",
    ),
    Route(
        "post",
        "/signin/email/{token}",
        "Sign in with the mailed link's token (once): sets the cookie, returns a token",
        (200, SignedIn),
        params=(LINK_TOKEN,),
        codes=("bad_link", "store_unavailable"),
        tag="players",
        description=FORM_TOO,
        form=True,
    ),
    Route(
        "post",
        "/mail/unsubscribe/{player_id}/{signature}",
        "One-click unsubscribe from notification mails (RFC 8058)",
        (200, mail.Unsubscribed),
        params=(
            path_param("player_id", about="the player"),
            path_param("signature", about="the link's signature"),
        ),
        codes=("bad_link", "store_unavailable"),
        tag="players",
        description="Mail clients post the form `List-Unsubscribe=One-Click` (answered "
        "200); any other form is the page's own button (answered 303). " + FORM_TOO + " The "
        "signed link is all the right it needs: it is taken from any site.",
        form=True,
        any_origin=True,
    ),
)
