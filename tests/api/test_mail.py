"""Mail: an address verified by a mailed link, sign-in by a one-time mailed link,
one-click unsubscribe, the maildir fallback and its operator page. Mail goes through a real
SMTP server (aiosmtpd) the tests start on a free port; the mail jobs run in an RQ worker in
this process (``tests.burst.BurstWorker``), as ``omerta worker`` runs them."""

from __future__ import annotations

import base64
import logging
import os
import re
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec
import pytest
import redis
from flask import Flask
from rq import Queue
from rq.job import Job

from api.app import create_app
from api.web import register as register_pages
from bootstrap import bootstrap
from services.games.commands import CommandService
from services.identity.emails import email_key, link_key
from services.platform import config
from services.platform.embedded import HOST
from services.platform.ratelimits import RateLimits
from tests.api.helpers import Api, Who, container_of
from tests.burst import BurstWorker
from tests.smtp import Inbox, link_in, smtp_server
from workers.queues import MAIL, bound

pytestmark = pytest.mark.server

ADDRESS = "ann.secret@example.org"
SENDER = "omerta@example.net"  # the mails' From with an SMTP server
FORM = "application/x-www-form-urlencoded"


@pytest.fixture
def smtp() -> Iterator[Inbox]:
    with smtp_server() as inbox:
        yield inbox


def site_of(service: CommandService, **settings: Any) -> Flask:
    """The API and the pages, with ``settings`` over the suite's."""
    app = create_app(container_of(service, **settings))
    register_pages(app)
    return app


@pytest.fixture
def site(service: CommandService, real_redis: redis.Redis) -> Flask:
    return site_of(service)


@pytest.fixture
def web(site: Flask) -> Iterator[Api]:
    with site.test_client(use_cookies=False) as client:
        yield Api(client)


def run_mail_jobs(client: redis.Redis, smtp: Inbox | None = None, **settings: Any) -> None:
    """The mail jobs, run as a worker on ``client``'s server runs them: sending to ``smtp``
    (none: to the maildir), with ``settings`` over the suite's."""
    mailing = {"smtp_url": None} if smtp is None else {"smtp_url": smtp.url, "mail_from": SENDER}
    configured = msgspec.structs.replace(config.settings(os.environ), **{**mailing, **settings})
    context = bootstrap(configured, store=client).context
    queue = context.queues.queue(MAIL)
    BurstWorker([queue], connection=client, job_class=bound(context)).work(burst=True)
    assert queue.failed_job_registry.count == 0


def add_verified(web: Api, smtp: Inbox, real_redis: redis.Redis) -> Who:
    ann = web.player("Ann")
    assert web.call("POST", "/me/email", ann, json={"address": ADDRESS}).status_code == 202
    run_mail_jobs(real_redis, smtp)
    page = web.call("GET", link_in(smtp.mails[-1], "/email/verify/"))
    assert page.status_code == 200
    return ann


def test_verification_mail_arrives_with_its_headers_and_its_link_verifies(
    web: Api, smtp: Inbox, real_redis: redis.Redis
) -> None:
    ann = web.player("Ann")
    added = web.call("POST", "/me/email", ann, json={"address": ADDRESS})
    assert added.status_code == 202
    assert added.json == {"address": ADDRESS, "verified": False, "unsubscribed": False}
    assert smtp.mails == []  # sent by the job, never in the request
    run_mail_jobs(real_redis, smtp)
    [mail] = smtp.mails
    assert smtp.recipients == [[ADDRESS]]
    assert mail["To"] == ADDRESS and mail["From"] == "omerta@example.net"
    assert mail["Subject"] == "Omerta: confirm your email address"
    assert mail["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    mailto, https = re.fullmatch(
        r"<(mailto:[^>]+)>, <(http[^>]+)>", mail["List-Unsubscribe"]
    ).groups()  # type: ignore[union-attr]
    assert mailto.startswith("mailto:omerta@example.net?subject=")
    assert f"/mail/unsubscribe/{ann.id}/" in https
    assert b"\r\nList-Unsubscribe: <mailto:" in smtp.raw[0]  # bare URLs, no encoded word
    path = link_in(mail, "/email/verify/")
    token = path.rsplit("/", 1)[1]
    assert token.encode() not in b"".join(  # kept only as a hash
        k + (real_redis.dump(k) or b"") for k in real_redis.keys("*")
    )
    page = web.call("GET", path)
    assert page.status_code == 200 and "Email address confirmed" in page.text
    assert web.ok("GET", "/me/email", ann)["verified"] is True
    again = web.call("POST", path)  # single use
    assert again.status_code == 410 and again.json["code"] == "bad_link"


def test_no_address_yet_is_a_state_not_an_error(web: Api) -> None:
    """The email page asks every new player: "none yet" is an answer (200), not a 404."""
    ann = web.player("Ann")
    none = {"address": None, "verified": False, "unsubscribed": False}
    assert web.ok("GET", "/me/email", ann) == none
    # Turning mails off needs an address: that stays a refusal.
    off = web.call("PUT", "/me/email/subscription", ann, json={"subscribed": False})
    assert off.status_code == 404 and off.json["code"] == "no_email"
    assert web.call("GET", "/me/email").status_code == 401


def test_a_link_mailed_before_the_address_changed_verifies_nothing(
    web: Api, smtp: Inbox, real_redis: redis.Redis
) -> None:
    ann = web.player("Ann")
    web.call("POST", "/me/email", ann, json={"address": ADDRESS})
    run_mail_jobs(real_redis, smtp)
    web.call("POST", "/me/email", ann, json={"address": "other@example.org"})
    assert web.call("POST", link_in(smtp.mails[0], "/email/verify/")).status_code == 410
    assert web.ok("GET", "/me/email", ann)["verified"] is False


def test_mails_are_in_the_players_language(web: Api, smtp: Inbox, real_redis: redis.Redis) -> None:
    ann = web.player("Ann")
    headers = {"Accept-Language": "ja"}
    web.call("POST", "/me/email", ann, json={"address": ADDRESS}, headers=headers)
    run_mail_jobs(real_redis, smtp)
    [mail] = smtp.mails
    assert mail["Subject"] == "Omerta: メールアドレスの確認"
    assert mail["Content-Language"] == "ja"
    assert "24 時間以内" in mail.get_body(("plain",)).get_content()  # type: ignore[union-attr]


def test_the_sign_in_link_signs_in_once_and_expires(
    web: Api, smtp: Inbox, real_redis: redis.Redis
) -> None:
    ann = add_verified(web, smtp, real_redis)
    asked = web.call("POST", "/signin/email", json={"address": ADDRESS.upper()})
    assert asked.status_code == 202
    run_mail_jobs(real_redis, smtp)
    mail = smtp.mails[-1]
    assert mail["Subject"] == "Omerta: your sign-in link"
    path = link_in(mail, "/signin/email/")
    page = web.call("GET", path)  # a mail scanner's fetch uses nothing up
    assert page.status_code == 200 and f'action="{path}"' in page.text
    signed = web.call("POST", path, data=b"", headers={"Content-Type": FORM})
    assert signed.status_code == 303
    cookie = signed.headers["Set-Cookie"]
    assert cookie.startswith("omerta_token=") and "HttpOnly" in cookie
    session = cookie.split(";", 1)[0].split("=", 1)[1]
    me = web.ok("GET", "/me", Who(ann.id, ann.name, session))
    assert me["id"] == ann.id
    assert web.call("POST", path).status_code == 410  # used
    for method, sent in (("GET", {}), ("POST", {"data": b"", "headers": {"Content-Type": FORM}})):
        used = web.call(method, path, **sent)  # the page, and its button once more
        assert used.status_code == 410 and used.mimetype == "text/html", (method, used.text)
        assert "This link does not work" in used.text and "<form" not in used.text

    web.call("POST", "/signin/email", json={"address": ADDRESS})
    run_mail_jobs(real_redis, smtp)
    late = link_in(smtp.mails[-1], "/signin/email/")
    [stored] = real_redis.keys(link_key("*"))
    assert 0 < real_redis.ttl(stored) <= 15 * 60
    real_redis.pexpire(stored, 1)
    time.sleep(0.05)
    assert web.call("POST", late).status_code == 410


def test_the_sign_in_link_over_the_api_returns_a_token(
    web: Api, smtp: Inbox, real_redis: redis.Redis
) -> None:
    ann = add_verified(web, smtp, real_redis)
    web.call("POST", "/signin/email", json={"address": ADDRESS})
    run_mail_jobs(real_redis, smtp)
    signed = web.ok("POST", link_in(smtp.mails[-1], "/signin/email/"))
    assert signed["id"] == ann.id
    assert web.ok("GET", "/me", Who(ann.id, ann.name, signed["token"]))["id"] == ann.id


def test_no_sign_in_mail_for_an_unverified_or_unknown_address_and_the_same_answer(
    web: Api, smtp: Inbox, real_redis: redis.Redis
) -> None:
    ann = web.player("Ann")
    web.call("POST", "/me/email", ann, json={"address": ADDRESS})
    run_mail_jobs(real_redis, smtp)
    unverified = web.call("POST", "/signin/email", json={"address": ADDRESS})
    unknown = web.call("POST", "/signin/email", json={"address": "nobody@example.org"})
    run_mail_jobs(real_redis, smtp)
    assert len(smtp.mails) == 1  # the verification mail only
    assert (unverified.status_code, unverified.data) == (unknown.status_code, unknown.data)
    assert unknown.status_code == 202


def _commands(client: redis.Redis) -> Counter[str]:
    """The store's commands since its last ``CONFIG RESETSTAT``, by name."""
    stats = client.info("commandstats")
    return Counter({name.removeprefix("cmdstat_"): int(v["calls"]) for name, v in stats.items()})


def test_a_sign_in_mail_asked_for_a_known_or_an_unknown_address_is_the_same_work(
    web: Api, smtp: Inbox, real_redis: redis.Redis
) -> None:
    """How long the answer takes tells nothing (it told: 64 ms against 13): a player's
    verified address and an address nobody has take one path, the same store commands, the
    same job (naming the address by its hash), the same answer; the job mails the player
    alone."""
    add_verified(web, smtp, real_redis)
    queue = Queue(MAIL, connection=real_redis)

    def ask(address: str) -> tuple[object, ...]:
        real_redis.config_resetstat()
        answer = web.call("POST", "/signin/email", json={"address": address})
        used = _commands(real_redis)
        jobs = [Job.fetch(j, connection=real_redis) for j in queue.get_job_ids()]
        queue.empty()
        headers = sorted((k, v) for k, v in answer.headers if k != "X-Request-Id")
        shape = [(j.func_name, len(j.args), j.description) for j in jobs]
        return answer.status_code, answer.data, headers, used, shape

    known, unknown = ask(ADDRESS), ask("nobody@example.org")
    assert known == unknown
    assert known[0] == 202 and known[4], known
    mailed = len(smtp.mails)
    for address in (ADDRESS, "nobody@example.org"):
        web.call("POST", "/signin/email", json={"address": address})
    run_mail_jobs(real_redis, smtp)
    assert [m["To"] for m in smtp.mails[mailed:]] == [ADDRESS]
    assert link_in(smtp.mails[-1], "/signin/email/")


def test_one_click_unsubscribe(web: Api, smtp: Inbox, real_redis: redis.Redis) -> None:
    ann = add_verified(web, smtp, real_redis)
    url = re.search(r"<(http[^>]+)>", smtp.mails[0]["List-Unsubscribe"]).group(1)  # type: ignore[union-attr]
    path = url.split("//", 1)[1].split("/", 1)[1]
    forged = f"/mail/unsubscribe/{ann.id}/{'A' * 43}"
    one_click = b"List-Unsubscribe=One-Click"
    refused = web.call("POST", forged, data=one_click, headers={"Content-Type": FORM})
    assert refused.status_code == 410
    assert web.ok("GET", "/me/email", ann)["unsubscribed"] is False
    # RFC 8058: the mail provider posts the form, from its own servers (no Origin, no cookie).
    done = web.call("POST", f"/{path}", data=one_click, headers={"Content-Type": FORM})
    assert done.status_code == 200 and done.json == {"unsubscribed": True}
    # Or from a webmail's page, another site: the signed URL is the right, no cookie is used.
    headers = {"Content-Type": FORM, "Sec-Fetch-Site": "cross-site"}
    done = web.call("POST", f"/{path}", data=one_click, headers=headers)
    assert done.status_code == 200 and done.json == {"unsubscribed": True}
    assert web.ok("GET", "/me/email", ann)["unsubscribed"] is True
    assert web.call("GET", f"/{path}").status_code == 200  # the page with its button
    assert web.call("GET", forged).status_code == 410
    assert web.call("POST", f"/mail/unsubscribe/{ann.id}/%C3%A9t%C3%A9").status_code == 410


def test_another_sites_form_cannot_redeem_a_link(
    web: Api, smtp: Inbox, real_redis: redis.Redis
) -> None:
    add_verified(web, smtp, real_redis)
    web.call("POST", "/signin/email", json={"address": ADDRESS})
    run_mail_jobs(real_redis, smtp)
    path = link_in(smtp.mails[-1], "/signin/email/")
    headers = {"Content-Type": FORM, "Sec-Fetch-Site": "cross-site"}
    assert web.call("POST", path, data=b"", headers=headers).json["code"] == "cross_origin"
    assert web.call("POST", path, data=b"", headers={"Content-Type": FORM}).status_code == 303


def test_without_smtp_mail_goes_to_the_maildir_and_the_operator_page_lists_it(
    service: CommandService,
    real_redis: redis.Redis,
    tmp_path: Path,
) -> None:
    def pages(**settings: Any) -> Api:
        return Api(site_of(service, var=tmp_path, **settings).test_client(use_cookies=False))

    web = pages(smtp_url=None)
    ann = web.player("Ann")
    assert "<p>No mail yet.</p>" in web.call("GET", "/operator/mail").text
    web.call("POST", "/me/email", ann, json={"address": ADDRESS})
    run_mail_jobs(real_redis, var=tmp_path)
    web.call("POST", "/me/email", ann, json={"address": "second@example.org"})
    run_mail_jobs(real_redis, var=tmp_path)
    assert len(list((tmp_path / "mail" / "new").iterdir())) == 2
    page = web.call("GET", "/operator/mail")
    assert page.status_code == 200
    text = page.text
    assert text.index("second@example.org") < text.index(ADDRESS)  # newest first
    assert text.count("Omerta: confirm your email address") == 2
    assert "/email/verify/" in text  # the body, as text

    smtp = f"smtp://{HOST}:1"
    web = pages(smtp_url=smtp)
    assert web.call("GET", "/operator/mail").status_code == 404  # a real deployment
    web = pages(smtp_url=smtp, operator_token="op-secret")
    assert web.call("GET", "/operator/mail").status_code == 401
    basic = base64.b64encode(b"operator:op-secret").decode()
    allowed = web.call("GET", "/operator/mail", headers={"Authorization": f"Basic {basic}"})
    assert allowed.status_code == 200 and ADDRESS in allowed.text
    wrong = base64.b64encode(b"operator:guess").decode()
    assert (
        web.call("GET", "/operator/mail", headers={"Authorization": f"Basic {wrong}"}).status_code
        == 401
    )


def test_the_address_is_in_no_answer_but_the_owners_and_in_no_log(
    web: Api, smtp: Inbox, real_redis: redis.Redis, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    ann = add_verified(web, smtp, real_redis)
    bad = web.call("POST", "/me/email", ann, json={"address": "no at sign"})
    assert bad.status_code == 400 and bad.json["code"] == "bad_email"
    assert "no at sign" not in bad.text
    long = "x" * 300 + "@example.org"
    assert long not in web.call("POST", "/me/email", ann, json={"address": long}).text
    web.call("POST", "/signin/email", json={"address": ADDRESS})
    web.call("POST", "/signin/email", json={"address": 7})
    run_mail_jobs(real_redis, smtp)
    owners = {("POST", "/me/email"), ("GET", "/me/email")}
    for method, path, response in web.seen:
        if (method, path) not in owners:
            assert ADDRESS not in response.get_data(as_text=True), (method, path)
    ours = [r for r in caplog.records if not r.name.startswith("mail.log")]  # aiosmtpd's own
    assert ours and all(ADDRESS not in r.getMessage() for r in ours)
    assert ADDRESS.encode() in real_redis.hget(email_key(ann.id), "address")  # type: ignore[operator]


def _limited(service: CommandService, real_redis: redis.Redis, **rules: str) -> Api:
    app = create_app(container_of(service, rate_limits=RateLimits(**rules)))
    return Api(app.test_client(use_cookies=False))


def test_sign_in_mails_are_limited_per_address(
    service: CommandService, real_redis: redis.Redis
) -> None:
    api = _limited(service, real_redis, signin_mailbox="2 per hour")
    codes = [
        api.call("POST", "/signin/email", json={"address": a}).status_code
        for a in (ADDRESS, ADDRESS.upper(), ADDRESS, "b@example.org")
    ]
    assert codes == [202, 202, 429, 202]
    assert all(ADDRESS not in r.get_data(as_text=True) for _, _, r in api.seen)


def test_sign_in_mails_are_limited_per_client(
    service: CommandService, real_redis: redis.Redis
) -> None:
    api = _limited(service, real_redis, signin_mails="2 per hour")
    codes = [
        api.call("POST", "/signin/email", json={"address": f"{n}@example.org"}).status_code
        for n in range(3)
    ]
    assert codes == [202, 202, 429]


def test_adding_addresses_is_limited_per_player(
    service: CommandService, real_redis: redis.Redis
) -> None:
    api = _limited(service, real_redis, email_adds="1 per hour")
    ann = api.player("Ann")
    codes = [
        api.call("POST", "/me/email", ann, json={"address": ADDRESS}).status_code for _ in range(2)
    ]
    assert codes == [202, 429]


def test_a_sign_in_mail_for_no_address_is_refused(api: Api) -> None:
    """The document says an address (format email): what is none is a 400, for a known or an
    unknown player alike (it reveals nothing)."""
    refused = api.call("POST", "/signin/email", json={"address": "useratexample.com"})
    assert (refused.status_code, refused.json["code"]) == (400, "bad_email")


def test_list_unsubscribe_is_plain_ascii_whatever_the_sender_and_host(
    web: Api, site: Flask, smtp: Inbox, real_redis: redis.Redis
) -> None:
    """RFC 2369 and RFC 8058 want bare <URL>s: a sender with a display name (not ASCII) and a
    public host that is not ASCII must give no encoded word, and a mailto of the address
    alone."""
    site.config["OMERTA_PUBLIC_URL"] = "http://omértà.example"
    ann = web.player("Ann")
    assert web.call("POST", "/me/email", ann, json={"address": ADDRESS}).status_code == 202
    run_mail_jobs(real_redis, smtp, mail_from="Omerta Café <omerta@example.net>")
    [raw] = smtp.raw
    [header] = [line for line in raw.split(b"\r\n") if line.startswith(b"List-Unsubscribe:")]
    found = re.fullmatch(rb"List-Unsubscribe: <(mailto:[!-~]+)>, <(http://[!-~]+)>", header)
    assert found, header
    mailto, url = (part.decode() for part in found.groups())
    assert mailto.startswith("mailto:omerta@example.net?subject=unsubscribe%20")
    assert url.startswith(f"http://xn--omrt-3na5c.example/mail/unsubscribe/{ann.id}/")


def test_a_link_s_button_posted_to_the_api_alone_is_a_problem_not_a_failure(api: Api) -> None:
    """The API without its web pages (as an API client's app is built, and as schemathesis
    found it) has no page to show for a sign-in link that does not work: the form's post gets
    the API's 410, not a 500 for a missing template."""
    sent = api.call("POST", "/signin/email/no-such-link", data=b"", headers={"Content-Type": FORM})
    assert sent.status_code == 410 and sent.mimetype == "application/problem+json", sent.text
