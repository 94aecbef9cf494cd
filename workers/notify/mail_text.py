"""The words of a notification mail (``workers.notify.mail``): what it says of its notices, in the
player's language (``services/notify/mailtexts.json``), with the unsubscribe headers of every mail.

One notice: its event's subject and text. Several (a digest, or notices of one change): the
digest's, listing each once (the turn however often it came round, each joiner, the end).
A mail names the game, the other players and the game's page; nothing of the game's
state: a turn is said to be theirs, never what they hold.
"""

from __future__ import annotations

from email.message import EmailMessage

from services.eventstore.serversecret import ServerSecret
from services.identity.emails import Email, unsubscribe_signature
from services.identity.players import Players
from services.notify import mailtexts
from services.notify import notifications as nt
from services.platform import config
from services.platform.config import Settings, Store
from services.readside.readmodels import Summary


def compose(
    client: Store,
    player: str,
    email: Email,
    summary: Summary,
    news: list[nt.Notice],
    mail_id: str,
    settings: Settings,
    secret: ServerSecret,
) -> EmailMessage:
    """The mail of ``news`` to ``player``: ``mail_id`` makes its ``Message-ID``; its sender and
    links are the settings' (``OMERTA_MAIL_FROM``, the public URL); its unsubscribe link is
    signed with ``secret``."""
    lang = email.lang
    people = Players(client, secret=secret)
    names = people.names(s.player for s in summary.seats if s.player)
    owners = {s.seat: s.player for s in summary.seats if s.player}

    def person(player_id: str | None) -> str:
        name = names.get(player_id or "", "?")
        return mailtexts.text(lang, "notice.person", name=name)

    others = mailtexts.text(lang, "notice.and").join(
        person(s.player) if s.kind == "player" else mailtexts.text(lang, "notice.ai")
        for s in summary.seats
        if s.kind in ("player", "ai") and s.player != player
    )
    me = people.get(player)
    base = config.public_url(settings)
    signature = unsubscribe_signature(secret.key(), player)
    params = {
        "name": me.name if me is not None else "",
        "game": mailtexts.text(lang, f"notice.game.{summary.game}"),
        "others": others,
        "link": f"{base}/play/{summary.game_id}",
    }
    lines = _lines(news)
    if len(lines) == 1:
        ((event, seat),) = lines
        joiner = person(owners.get(seat)) if event == nt.Event.PLAYER_JOINED else ""
        subject = mailtexts.text(lang, f"{event}.subject", joiner=joiner, **params)
        body = mailtexts.text(lang, f"{event}.body", joiner=joiner, **params)
    else:
        subject = mailtexts.text(lang, "digest.subject", **params)
        listed = "".join(
            mailtexts.text(lang, f"digest.{event}", joiner=person(owners.get(seat)))
            for event, seat in lines
        )
        body = mailtexts.text(lang, "digest.body", lines=listed, **params)
    return mailtexts.message(
        sender=settings.mail_from,
        to=email.address,
        lang=lang,
        subject=subject,
        body=body,
        unsubscribe_url=f"{base}/mail/unsubscribe/{player}/{signature}",
        unsubscribe_mailto=mailtexts.mailto(settings.mail_from, player, signature),
        message_id=f"notice.{mail_id}",
    )


ORDER = (nt.Event.TIME_LOW, nt.Event.YOUR_TURN, nt.Event.PLAYER_JOINED, nt.Event.GAME_ENDED)


def _lines(news: list[nt.Notice]) -> list[tuple[str, int]]:
    """What the mail says, once each, in ``ORDER``: (event, the joiner's seat or -1)."""
    said: dict[tuple[str, int], None] = {}
    for notice in sorted(news, key=lambda n: (ORDER.index(nt.Event(n.event)), n.version)):
        seat = notice.seat if notice.event == nt.Event.PLAYER_JOINED else -1
        said[(notice.event, seat)] = None
    return list(said)
