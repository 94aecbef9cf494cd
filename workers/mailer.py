"""The mail jobs: ``send_link(purpose, player_id, base_url)`` mails a verification or sign-in link.

A request only enqueues the job (``enqueue_link``, on the ``omerta-mail`` queue): the token is
made here, in the worker, so it is never written to the store in clear (a job's arguments
are), and a slow or absent SMTP server never slows a page. A retry mails a fresh link; an
earlier one stays valid until it expires or is used. ``base_url`` is the web server's public
URL (``services.platform.config.public_url``): the worker may have no ``OMERTA_BIND`` of its own.

The queue is on RQ's server (``workers.queues``), which on a Redis Cluster is not the store:
the job reads and writes the store through its context's client (``Context.store``), never
through its RQ connection.

Logs never name the address (only the player id).
"""

from __future__ import annotations

import logging

from rq import Retry

from services.eventstore import serversecret
from services.identity.emails import SIGNIN, VERIFY, Emails, unsubscribe_signature
from services.identity.players import Players
from services.notify import mail, mailtexts
from services.platform import config
from workers.context import Context
from workers.queues import MAIL, Queues, job

log = logging.getLogger(__name__)

MAIL_TIMEOUT = 120  # seconds: an SMTP exchange takes well under twice OMERTA_SMTP_TIMEOUT (30)
MAIL_RETRY = Retry(max=3, interval=[10, 60, 300])
FAILURE_TTL = 7 * 24 * 3600
PATHS = {VERIFY: "/email/verify/", SIGNIN: "/signin/email/"}


def enqueue_link(queues: Queues, purpose: str, player_id: str, base_url: str) -> None:
    queues.queue(MAIL).enqueue_call(
        "workers.mailer.send_link",
        args=(purpose, player_id, base_url),
        timeout=MAIL_TIMEOUT,
        result_ttl=0,
        failure_ttl=FAILURE_TTL,
        retry=MAIL_RETRY,
        description=f"mail a {purpose} link to player {player_id}",
    )


@job
def send_link(context: Context, purpose: str, player_id: str, base_url: str) -> None:
    client = context.store
    emails = Emails(client)
    email = emails.get(player_id)
    player = Players(client).get(player_id)
    if email is None or player is None:
        log.info("no %s mail for player %s: no address any more", purpose, player_id)
        return
    settings = config.settings()
    signature = unsubscribe_signature(serversecret.load(client), player_id)
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
