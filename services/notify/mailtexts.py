"""The mails' texts (English and Japanese, ``mailtexts.json``) and the message every mail is built
as.

Every mail carries the headers of RFC 2369 and RFC 8058: ``List-Unsubscribe`` with a ``mailto:``
and the signed one-click HTTPS (or HTTP, as the public URL is) link, both plain ASCII (a mail
client finds no URL in an encoded word), and ``List-Unsubscribe-Post: List-Unsubscribe=One-Click``,
so a mail client can offer "unsubscribe" and do it with one POST. Unsubscribing stops notification
mails; a link the player asked for (verification, sign-in) is still sent.
"""

from __future__ import annotations

import json
from email import policy
from email.message import EmailMessage
from email.utils import formatdate, make_msgid, parseaddr
from functools import cache
from importlib.resources import files
from urllib.parse import quote, urlsplit, urlunsplit

LANGUAGES = ("en", "ja")
# Header lines up to RFC 5322's hard limit: at the default 78 a long URL of List-Unsubscribe,
# which cannot be folded, would be sent as an encoded word, which mail clients do not decode
# there (RFC 2369 wants the bare <URL>s).
POLICY = policy.SMTP.clone(max_line_length=998)


@cache
def texts() -> dict[str, dict[str, str]]:
    """The catalogue ``mailtexts.json``: each language the same keys."""
    raw = files(__package__).joinpath("mailtexts.json").read_text(encoding="utf-8")
    table: dict[str, dict[str, str]] = json.loads(raw)
    if any(set(table[lang]) != set(table["en"]) for lang in LANGUAGES):
        raise ValueError("mailtexts.json: keys not in every language")
    return table


def text(lang: str, key: str, **params: str) -> str:
    table = texts()[lang if lang in LANGUAGES else "en"]
    return table[key].format(**params)


def compose(
    *,
    sender: str,
    to: str,
    lang: str,
    kind: str,
    name: str,
    link: str,
    unsubscribe_url: str,
    unsubscribe_mailto: str,
) -> EmailMessage:
    """The mail of ``kind`` (``verify``, ``signin``) in ``lang``, with the unsubscribe headers."""
    return message(
        sender=sender,
        to=to,
        lang=lang,
        subject=text(lang, f"{kind}.subject"),
        body=text(lang, f"{kind}.body", name=name, link=link),
        unsubscribe_url=unsubscribe_url,
        unsubscribe_mailto=unsubscribe_mailto,
    )


def message(
    *,
    sender: str,
    to: str,
    lang: str,
    subject: str,
    body: str,
    unsubscribe_url: str,
    unsubscribe_mailto: str,
    message_id: str | None = None,
) -> EmailMessage:
    """A mail of ``subject`` and ``body`` (``lang``'s footer added), with the unsubscribe
    headers; ``message_id``: the same for every try of one sending (mail clients may dedupe)."""
    domain = sender.rpartition("@")[2] or "localhost"
    built = EmailMessage(policy=POLICY)
    built["From"] = sender
    built["To"] = to
    built["Subject"] = subject
    built["Date"] = formatdate(localtime=False)
    built["Message-ID"] = f"<{message_id}@{domain}>" if message_id else make_msgid(domain=domain)
    built["Auto-Submitted"] = "auto-generated"  # RFC 3834: no auto-replies to it
    built["List-Unsubscribe"] = f"<{unsubscribe_mailto}>, <{ascii_url(unsubscribe_url)}>"
    built["List-Unsubscribe-Post"] = "List-Unsubscribe=One-Click"
    built.set_content(
        body + text(lang, "footer", unsubscribe=unsubscribe_url), cte="quoted-printable"
    )
    built["Content-Language"] = lang  # after set_content, which drops every Content-* header
    return built


def mailto(sender: str, player_id: str, signature: str) -> str:
    """The ``mailto:`` of ``List-Unsubscribe``: a mail to the sender's address (without its
    display name) naming the signed link; ASCII."""
    address = quote(parseaddr(sender)[1], safe="@")
    return f"mailto:{address}?subject={quote(f'unsubscribe {player_id} {signature}')}"


def ascii_url(url: str) -> str:
    """``url`` in ASCII (its host in IDNA, the rest percent-encoded): a header's bare URL
    (RFC 2369), which any other character would turn into an RFC 2047 encoded word."""
    parts = urlsplit(url)
    host = (parts.hostname or "").encode("idna").decode("ascii")
    netloc = host if parts.port is None else f"{host}:{parts.port}"
    path = quote(parts.path, safe="/%")
    return urlunsplit((parts.scheme, netloc, path, quote(parts.query, safe="=&%"), ""))
