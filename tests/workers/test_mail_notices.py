"""Notification mails end to end: the API in this process, a real ``omerta worker``
process, a real SMTP server (aiosmtpd). An opponent's move mails the player whose turn it is
exactly once, calls their webhook once and pushes to their browser once; the projection run
again sends nothing more; moves within the digest period make one mail at once and one digest
at the period's end, and a digest whose turn was played meanwhile is not sent; the one-click
unsubscribe, posted as a mail provider posts it, stops the mails (and the email page's switch
turns them back on); a player who chose Japanese gets the Japanese text; a worker killed in the
middle of the SMTP exchange ends with one mail. The mail says whose turn it is, and nothing of
the game's cards.

The tables, moves and worker are those of ``test_webhooks``."""

from __future__ import annotations

import asyncio
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from email.message import EmailMessage
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import msgspec
import pytest
import redis
from rq.registry import StartedJobRegistry

from api import web
from api.app import create_app
from bootstrap import Container
from services.identity.emails import VERIFY, Emails
from services.notify import notifications as nt
from services.readside import readmodels as rm
from services.readside.readmodels import ReadModels
from tests.api.helpers import Api, Who
from tests.smtp import Inbox, link_in, smtp_server
from tests.workers.helpers import start_worker, wait
from tests.workers.pushservice import push_service
from tests.workers.receiver import receiver
from tests.workers.test_push import _subscribe
from tests.workers.test_webhooks import Table, _move, _register, _table, api, worker, worker_env
from tests.workers.test_webhooks import _quiet as quiet
from workers import queues as wq
from workers.notify import mail as notify_mail
from workers.notify import mail_text as notify_mail_text

pytestmark = pytest.mark.server

PUBLIC = "http://omerta.test"
SENDER = "omerta@omerta.test"
FORM = "application/x-www-form-urlencoded"
__all__ = ["api", "worker", "worker_env"]  # fixtures of test_webhooks, used here by name


class HoldingInbox(Inbox):
    """An inbox that can hold the first RCPT for one address (the worker is mid-send) until
    ``release`` is set."""

    def __init__(self) -> None:
        super().__init__()
        self.hold_for: str | None = None
        self.held = threading.Event()
        self.release = threading.Event()

    async def handle_RCPT(
        self, server: Any, session: Any, envelope: Any, address: str, rcpt_options: list[str]
    ) -> str:
        if address == self.hold_for:
            self.hold_for = None
            self.held.set()
            await asyncio.get_running_loop().run_in_executor(None, self.release.wait, 60)
        envelope.rcpt_tos.append(address)
        return "250 OK"


@pytest.fixture
def smtp() -> Iterator[HoldingInbox]:
    inbox = HoldingInbox()
    with smtp_server(inbox):
        yield inbox
    inbox.release.set()


@pytest.fixture
def period() -> int:
    """The digest period (seconds); a test parametrizes it to wait for its digest."""
    return 3600


@pytest.fixture
def hooks_env(monkeypatch: pytest.MonkeyPatch, smtp: Inbox, period: int, tmp_path: Path) -> None:
    """Set before the worker starts: it inherits them (``test_webhooks``' fixtures use this
    one, by name, in this module)."""
    monkeypatch.setenv("OMERTA_VAR", str(tmp_path / "var"))  # the VAPID key of API and worker
    monkeypatch.setenv("OMERTA_PUSH_ALLOW_PRIVATE", "1")
    monkeypatch.setenv("OMERTA_WEBHOOKS_ALLOW_PRIVATE", "1")
    monkeypatch.setenv("OMERTA_WEBHOOK_BACKOFF", "1,3,1,1,1")
    monkeypatch.setenv("OMERTA_WEBHOOK_TIMEOUT", "5")
    monkeypatch.setenv("OMERTA_SMTP_URL", smtp.url)
    monkeypatch.setenv("OMERTA_SMTP_TIMEOUT", "3")  # a killed sender's claim lasts 19 s
    monkeypatch.setenv("OMERTA_MAIL_FROM", SENDER)
    monkeypatch.setenv("OMERTA_PUBLIC_URL", PUBLIC)
    monkeypatch.setenv("OMERTA_MAIL_DIGEST_SECONDS", str(period))


def _address(who: Who) -> str:
    return f"{who.name.lower()}.{who.id[:8]}@example.org"


def _verify(api: Api, smtp: Inbox, who: Who, lang: str = "en") -> None:
    """``who`` adds an address (in a browser of ``lang``) and opens the mailed link."""
    address = _address(who)
    headers = {"Accept-Language": lang}
    api.call("POST", "/me/email", who, json={"address": address}, headers=headers)
    wait(lambda: len(smtp.to(address)) == 1, 30, "the verification mail")
    assert api.call("POST", link_in(smtp.to(address)[0], "/email/verify/")).status_code == 200


def _notices(smtp: Inbox, who: Who) -> list[EmailMessage]:
    return [m for m in smtp.to(_address(who)) if m["Message-ID"].startswith("<notice.")]


def _quiet(
    container: Container, client: redis.Redis, abandoned: frozenset[str] = frozenset()
) -> None:
    """``test_webhooks._quiet``, and no job failed: a job that crashed would pass for one that
    sent nothing."""
    failed = quiet(container, client, abandoned, timeout=90)
    assert not failed, failed


def _text(mail: EmailMessage) -> str:
    body = mail.get_body(("plain",))
    assert body is not None
    return body.get_content().replace("\r\n", "\n")  # SMTP's line ends


def _unsubscribe_url(mail: EmailMessage) -> str:
    mailto, https = (h.strip(" <>") for h in mail["List-Unsubscribe"].split(","))
    assert mailto.startswith(f"mailto:{SENDER}?subject=unsubscribe")
    assert mail["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    return https


def _other(table: Table, who: Who) -> Who:
    return next(p for p in table.players.values() if p.id != who.id)


def _both_verified(
    container: Container, api: Api, smtp: Inbox, table: Table, client: redis.Redis
) -> None:
    for who in table.players.values():
        _verify(api, smtp, who)
    _quiet(container, client)


def test_a_move_mails_the_next_player_once_and_a_second_projection_mails_nothing(
    container: Container,
    api: Api,
    read_models: ReadModels,
    workers_redis: redis.Redis,
    worker: list,
    smtp: Inbox,
) -> None:
    table = _table(api, read_models)
    _both_verified(container, api, smtp, table, workers_redis)
    with receiver() as hooks, push_service() as pushes:
        browsers = {}
        for who in table.players.values():
            _register(api, who, hooks.url)
            browsers[who.id] = _subscribe(api, who, pushes)
        before = workers_redis.hgetall(rm.game_key(table.game_id))
        waiting, _ = _move(container, api, read_models, table)
        wait(lambda: len(_notices(smtp, waiting)) == 1, 30, "the mail")
        _quiet(container, workers_redis)
        assert len(hooks.calls) == 1  # the webhook channel too, once
        (pushed,) = pushes.pushes  # and the browser's, once, to the player whose turn it is
        assert pushed in pushes.to(waiting.id)
        assert browsers[waiting.id].decrypt(pushed.body)["event"] == "your_turn"
        assert _notices(smtp, _other(table, waiting)) == []
        (mail,) = _notices(smtp, waiting)
        unsubscribe = _unsubscribe_url(mail)
        assert unsubscribe.startswith(f"{PUBLIC}/mail/unsubscribe/{waiting.id}/")
        other = _other(table, waiting).name
        assert mail["Subject"] == f"Omerta: your turn in Famiglia with {other}"
        assert mail["From"] == SENDER and mail["Content-Language"] == "en"
        # The whole text: whose turn, the game, its page; nothing of the cards.
        assert _text(mail) == (
            f"Hello {waiting.name},\n\nit is your turn in your game of Famiglia with {other}.\n\n"
            f"Play: {PUBLIC}/play/{table.game_id}\n"
            f"\n--\nNo more mails from Omerta: {unsubscribe}\n"
        )
        site = create_app(container)
        web.register(site)
        assert site.test_client().get(f"/play/{table.game_id}").status_code == 200

        # The projection runs again from the read model as it was before the move: the same
        # notice, mailed already.
        key = rm.game_key(table.game_id)
        workers_redis.delete(key)
        workers_redis.hset(key, mapping=before)
        container.projector.project(table.game_id)
        _quiet(container, workers_redis)
        assert len(_notices(smtp, waiting)) == 1 and len(hooks.calls) == 1
        assert len(pushes.pushes) == 1
        assert nt.was_sent(workers_redis, hooks.calls[0].delivery)


@pytest.mark.parametrize("period", [15])
def test_moves_within_the_period_make_one_mail_now_and_one_digest_at_its_end(
    container: Container,
    api: Api,
    read_models: ReadModels,
    workers_redis: redis.Redis,
    worker: list,
    smtp: Inbox,
) -> None:
    table = _table(api, read_models)
    _both_verified(container, api, smtp, table, workers_redis)
    began = time.monotonic()  # before bob's period begins
    bob, _ = _move(container, api, read_models, table)  # the first to be told it is their turn
    ann = _other(table, bob)
    wait(lambda: len(_notices(smtp, bob)) == 1, 30, "the first mail")
    _move(container, api, read_models, table)  # ann's turn: her own first mail, at once
    # (before she moves: a turn already played is not mailed)
    wait(lambda: len(_notices(smtp, ann)) == 1, 30, "ann's mail")
    _move(container, api, read_models, table)  # bob's again, within his period: for the digest
    wait(lambda: len(_notices(smtp, bob)) == 2, 60, "the digest")
    # RQ's scheduler counts whole seconds: the digest came at the period's end, not before.
    assert time.monotonic() - began >= 15 - 1
    digest = _notices(smtp, bob)[1]
    assert digest["Subject"] == f"Omerta: your turn in Famiglia with {ann.name}"
    assert f"{PUBLIC}/play/{table.game_id}" in _text(digest)
    _quiet(container, workers_redis)
    assert len(_notices(smtp, ann)) == 1

    # The digest opened bob's next period. A turn of his in it that he plays before it ends
    # is stale at its end: no mail. (Three moves within the period, on a loaded machine too.)
    _move(container, api, read_models, table)  # bob moves: ann's turn
    _move(container, api, read_models, table)  # ann moves: bob's, collected
    _move(container, api, read_models, table)  # bob plays it before the digest
    _quiet(container, workers_redis)
    assert len(_notices(smtp, bob)) == 2


@pytest.mark.parametrize("period", [2])
def test_the_one_click_unsubscribe_stops_the_mails_and_the_email_page_turns_them_back_on(
    container: Container,
    api: Api,
    read_models: ReadModels,
    workers_redis: redis.Redis,
    worker: list,
    smtp: Inbox,
) -> None:
    table = _table(api, read_models)
    _both_verified(container, api, smtp, table, workers_redis)
    bob, _ = _move(container, api, read_models, table)
    ann = _other(table, bob)
    wait(lambda: len(_notices(smtp, bob)) == 1, 30, "the mail")
    # As a mail provider posts it (RFC 8058): the URL of List-Unsubscribe, this form body.
    url = _unsubscribe_url(_notices(smtp, bob)[0])
    posted = api.call(
        "POST",
        urlsplit(url).path,
        data=b"List-Unsubscribe=One-Click",
        headers={"Content-Type": FORM},
    )
    assert posted.status_code == 200
    assert api.ok("GET", "/me/email", bob)["unsubscribed"] is True
    _move(container, api, read_models, table)  # ann's turn: the mails do go out, to her
    wait(lambda: len(_notices(smtp, ann)) == 1, 30, "ann's mail")
    _move(container, api, read_models, table)  # bob's: at once or digested, never mailed to him
    _quiet(container, workers_redis)
    assert len(_notices(smtp, bob)) == 1

    on = api.ok("PUT", "/me/email/subscription", bob, json={"subscribed": True})
    assert on["unsubscribed"] is False
    for _ in range(2):
        _move(container, api, read_models, table)
    wait(lambda: len(_notices(smtp, bob)) == 2, 30, "the mail after subscribing again")


def test_a_player_who_chose_japanese_gets_the_japanese_text(
    container: Container,
    api: Api,
    read_models: ReadModels,
    workers_redis: redis.Redis,
    worker: list,
    smtp: Inbox,
) -> None:
    table = _table(api, read_models)
    for who in table.players.values():
        _verify(api, smtp, who, lang="ja")
    _quiet(container, workers_redis)
    waiting, _ = _move(container, api, read_models, table)
    wait(lambda: len(_notices(smtp, waiting)) == 1, 30, "the mail")
    (mail,) = _notices(smtp, waiting)
    other = _other(table, waiting).name
    assert mail["Subject"] == f"Omerta: {other} さんとのファミリア、あなたの番です"
    assert mail["Content-Language"] == "ja"
    text = _text(mail)
    assert text.startswith(f"{waiting.name} さん\n\n{other} さんとのファミリアで、あなたの番")
    assert f"{PUBLIC}/play/{table.game_id}" in text and "Omerta からのメールを停止" in text


def test_a_worker_killed_mid_send_ends_with_one_mail(
    container: Container,
    api: Api,
    read_models: ReadModels,
    workers_redis: redis.Redis,
    worker: list[subprocess.Popen[bytes]],
    redis_url: str,
    tmp_path: Path,
    smtp: HoldingInbox,
) -> None:
    table = _table(api, read_models)
    _both_verified(container, api, smtp, table, workers_redis)
    summary = read_models.summary(table.game_id)
    assert summary is not None
    (mover,) = summary.to_act
    waiting = table.players[1 - mover]
    smtp.hold_for = _address(waiting)
    _move(container, api, read_models, table)
    assert smtp.held.wait(30), "the mail never came"
    worker[0].send_signal(signal.SIGKILL)  # while the server holds the RCPT
    worker[0].wait(10)
    smtp.release.set()
    abandoned = frozenset(StartedJobRegistry(queue=container.queues.queue(wq.NOTIFY)).get_job_ids())
    assert _notices(smtp, waiting) == []
    worker.append(start_worker(redis_url, tmp_path / "worker.log"))
    wait(lambda: len(_notices(smtp, waiting)) == 1, 90, "the mail, sent again")
    _quiet(container, workers_redis, abandoned)
    assert len(_notices(smtp, waiting)) == 1


def test_a_player_taking_a_seat_is_mailed_to_the_tables_creator(
    container: Container,
    api: Api,
    read_models: ReadModels,
    workers_redis: redis.Redis,
    worker: list,
    smtp: Inbox,
) -> None:
    ann, bob = api.player("Ann"), api.player("Bob")
    _verify(api, smtp, ann)
    created = api.new_game(ann, game="famiglia", seats=2, seat=0)
    while _to_act(container, created["game_id"]) != {1}:  # Bob's turn first: one notice
        created = api.new_game(ann, game="famiglia", seats=2, seat=0)
    # As a person joins: after the game was first projected (a seat taken before that is
    # announced too: tests/workers/test_notify_jobs.py).
    wait(lambda: read_models.summary(created["game_id"]) is not None, 30, "the projection")
    api.join(bob, created["game_id"], created["invites"][0]["code"])
    wait(lambda: len(_notices(smtp, ann)) == 1, 30, "the mail")
    _quiet(container, workers_redis)
    (mail,) = _notices(smtp, ann)
    assert mail["Subject"] == "Omerta: Bob joined your game of Famiglia"
    assert _text(mail).startswith(
        "Hello Ann,\n\nBob took a seat at your game of Famiglia.\n\n"
        f"The game: {PUBLIC}/play/{created['game_id']}\n"
    )


def _to_act(container: Container, game_id: str) -> set[int]:
    game, state, _, _ = container.commands.load(game_id)
    return set(game.to_act(state))


def test_the_texts_of_an_ended_game_and_of_several_notices_in_both_languages(
    api: Api, container: Container, workers_redis: redis.Redis, hooks_env: None
) -> None:
    """The texts from a summary as the projection writes it: a player's turn in a finished
    game is no news, its end is (and the mail says nothing of the result); several notices
    make one mail that lists them, a turn that came round twice once."""
    ann, bob = api.player("Ann"), api.player("Bob")
    emails = Emails(workers_redis)
    for who, lang in ((ann, "en"), (bob, "ja")):
        emails.set_address(who.id, _address(who), lang)
    seats = [
        rm.SeatSummary(0, "player", ann.id),
        rm.SeatSummary(1, "ai", level=1),
        rm.SeatSummary(2, "player", bob.id),
    ]
    summary = rm.Summary(
        game_id="g1",
        game="gangsta",
        version=9,
        head="00",
        created=0,
        updated=0,
        options={},
        seats=seats,
        public=False,
        status="finished",
        to_act=[],
        due={},
        result=None,
    )
    ended = [nt.Notice(ann.id, "game_ended", "g1", "gangsta", 9, 0)]
    turn = nt.Notice(ann.id, "your_turn", "g1", "gangsta", 8, 0)
    assert not notify_mail.live(turn, summary) and notify_mail.live(ended[0], summary)
    # A read model behind the notice (its projection is still writing) cannot tell: news.
    assert notify_mail.live(nt.Notice(ann.id, "your_turn", "g1", "gangsta", 10, 0), summary)
    email = emails.get(ann.id)
    assert email is not None
    mail = notify_mail_text.compose(
        workers_redis, ann.id, email, summary, ended, "x1", container.settings, container.secret
    )
    assert mail["Subject"] == "Omerta: your game of Gangsta! with the AI, Bob has ended"
    assert _text(mail).startswith(
        "Hello Ann,\n\nyour game of Gangsta! with the AI, Bob has ended.\n\n"
        f"The result: {PUBLIC}/play/g1\n"
    )
    assert mail["Message-ID"] == f"<notice.x1@{SENDER.partition('@')[2]}>"
    email = emails.get(bob.id)
    assert email is not None
    ended = [nt.Notice(bob.id, "game_ended", "g1", "gangsta", 9, 2)]
    mail = notify_mail_text.compose(
        workers_redis, bob.id, email, summary, ended, "x2", container.settings, container.secret
    )
    assert mail["Subject"] == "Omerta: Ann さん、AIとのギャングスタ!が終了しました"

    running = msgspec.structs.replace(summary, status="running", due={2: 5})
    news = [
        nt.Notice(bob.id, "your_turn", "g1", "gangsta", 4, 2),
        nt.Notice(bob.id, "player_joined", "g1", "gangsta", 3, 0),
        nt.Notice(bob.id, "your_turn", "g1", "gangsta", 7, 2),
    ]
    mail = notify_mail_text.compose(
        workers_redis, bob.id, email, running, news, "x3", container.settings, container.secret
    )
    assert mail["Subject"] == "Omerta: Ann さん、AIとのギャングスタ!のお知らせ"
    assert _text(mail).startswith(
        "Bob さん\n\nAnn さん、AIとのギャングスタ!について: \n\n"
        "* あなたの番です。\n* Ann さんが席に着きました。\n\n"
        f"ゲーム: {PUBLIC}/play/g1\n"
    )


def test_a_fan_out_tried_again_after_its_mail_job_was_lost_mails_once(
    container: Container,
    api: Api,
    read_models: ReadModels,
    workers_redis: redis.Redis,
    smtp: Inbox,
    drain: Callable[[], None],
) -> None:
    """A fan-out that died between routing a notice and enqueueing its mail: the route record
    says where the notice went, so the fan-out's next try enqueues that mail again; once it is
    sent, a further try enqueues nothing."""
    ann, bob = api.player("Ann"), api.player("Bob")
    created = api.new_game(ann, game="famiglia", seats=2)
    seat = api.join(bob, created["game_id"], created["invites"][0]["code"])
    drain()  # the projections, and the join's notices: no address yet, no mail
    emails = Emails(workers_redis)
    emails.set_address(ann.id, _address(ann), "en")
    assert emails.redeem(VERIFY, emails.new_link(VERIFY, ann.id)) is not None
    version = read_models.version(created["game_id"])
    notice = nt.Notice(ann.id, "player_joined", created["game_id"], "famiglia", version, seat)
    assert notify_mail.route(workers_redis, container.queues, container.settings, [notice]) == 1
    container.queues.queue(wq.NOTIFY).empty()  # the job lost: the fan-out died before its enqueue
    assert notify_mail.route(workers_redis, container.queues, container.settings, [notice]) == 1
    drain()
    assert len(_notices(smtp, ann)) == 1
    assert nt.was_sent(workers_redis, notify_mail.notice_id(notice))
    assert notify_mail.route(workers_redis, container.queues, container.settings, [notice]) == 0
    drain()
    assert len(_notices(smtp, ann)) == 1
