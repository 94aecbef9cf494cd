"""The mail jobs: ``send_link(purpose, player_id, base_url)`` mails a verification or sign-in link;
``send_signin(hashed, base_url)`` one to the player whose verified address has that hash, if any.

A request only enqueues the job (``enqueue_link``, ``enqueue_signin``, on the ``omerta-mail``
queue): the token is made here, in the worker, so it is never written to the store in clear (a
job's arguments are), and a slow or absent SMTP server never slows a page. A sign-in by mail
asked for an address nobody has enqueues the same job as one for a player's: the request does
the same work either way, so its time tells nobody whether the address is a player's; the job
looks the address up. A retry mails a fresh link; an earlier one stays valid until it expires or is
used. ``base_url`` is the web server's public URL (``services.platform.config.public_url``): the
worker may have no ``OMERTA_BIND`` of its own.

The queue is on RQ's server (``workers.queues``), which on a Redis Cluster is not the store:
the job reads and writes the store through its context's client (``Context.store``), never
through its RQ connection.

Logs never name the address (only the player id).
"""

from __future__ import annotations

import logging

from rq import Retry

from services.identity.emails import SIGNIN, VERIFY, Emails, unsubscribe_signature
from services.identity.players import Players
from services.notify import mail, mailtexts
from workers.context import Context
from workers.queues import MAIL, Queues, job

log = logging.getLogger(__name__)

MAIL_TIMEOUT = 120  # seconds: an SMTP exchange takes well under twice OMERTA_SMTP_TIMEOUT (30)
MAIL_RETRY = Retry(max=3, interval=[10, 60, 300])
FAILURE_TTL = 7 * 24 * 3600
PATHS = {VERIFY: "/email/verify/", SIGNIN: "/signin/email/"}


def enqueue_link(queues: Queues, purpose: str, player_id: str, base_url: str) -> None:
    _enqueue(
        queues,
        "send_link",
        (purpose, player_id, base_url),
        f"a {purpose} link to player {player_id}",
    )


def enqueue_signin(queues: Queues, hashed: str, base_url: str) -> None:
    """A sign-in link to the player whose verified address has this hash
    (``services.identity.emails.address_hash``), if any: the description names no address."""
    _enqueue(queues, "send_signin", (hashed, base_url), "a sign-in link to an address")


def _enqueue(queues: Queues, name: str, args: tuple[str, ...], what: str) -> None:
    queues.queue(MAIL).enqueue_call(
        f"workers.mailer.{name}",
        args=args,
        timeout=MAIL_TIMEOUT,
        result_ttl=0,
        failure_ttl=FAILURE_TTL,
        retry=MAIL_RETRY,
        description=f"mail {what}",
    )


@job
def send_signin(context: Context, hashed: str, base_url: str) -> None:
    player_id = Emails(context.store).owner_of(hashed)
    if player_id is None:
        log.info("no sign-in mail: the address is no player's verified one")
        return
    send_link(context, SIGNIN, player_id, base_url)


@job
def send_link(context: Context, purpose: str, player_id: str, base_url: str) -> None:
    client = context.store
    emails = Emails(client)
    email = emails.get(player_id)
    player = Players(client, secret=context.secret).get(player_id)
    if email is None or player is None:
        log.info("no %s mail for player %s: no address any more", purpose, player_id)
        return
    settings = context.settings
    signature = unsubscribe_signature(context.secret.key(), player_id)
    token = emails.new_link(purpose, player_id)
    message = mailtexts.compose(
        sender=settings.mail_from,
        to=email.address,
        lang=email.lang,
        kind=purpose,
        name=player.name,
        link=f"{base_url}{PATHS[purpose]}{token}",
        unsubscribe_url=f"{base_url}/mail/unsubscribe/{player_id}/{signature}",
        unsubscribe_mailto=mailtexts.mailto(settings.mail_from, player_id, signature),
    )
    mail.deliver(message, settings)
