"""The notification settings page in Chromium: the grid of channels by events saved
and read back (English and Japanese, a phone, the keyboard), webhooks added and deleted, and
browser notifications on this device.

The push switch runs Chromium's own Push API: the page asks for the permission (granted to the
context), registers ``/sw.js`` and calls ``pushManager.subscribe`` with the server's VAPID key.
Chromium subscribes through its GCM client, which normally talks to Google's servers; here
Chromium's own switches (``--gcm-checkin-url``, ``--gcm-registration-url``) point it at a
local stand-in for those two HTTP calls (``gcm_server``: a check-in answer and a registration
token), so the subscription, its endpoint, keys and VAPID key are Chromium's real ones and reach
the server as the page posts them. (Push in Chromium needs a profile on disk: in the
off-the-record contexts of the other tests it refuses with "permission denied".)

What this cannot cover: a push travelling from the push service to the browser (Chromium
receives them over Google's MCS connection, which has no stand-in here). Instead DevTools'
``ServiceWorker.deliverPushMessage`` hands the service worker a push as the browser would,
and the test reads the notification it showed (``getNotifications``). A click on a shown
notification cannot be made from a test (``notificationclick`` is not covered); encryption
and delivery to a push endpoint are covered in ``tests/workers/test_push.py``.
"""

from __future__ import annotations

import json
import struct
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from services.notify import push, webhooks
from services.platform.embedded import EmbeddedServer, free_port
from tests.web.conftest import CHROMIUM, PHONE, screenshot
from tests.web.flows import sign_up, watch_errors


def _prefs(page: Page) -> dict[str, dict[str, bool]]:
    return page.request.get("/me/notifications").json()


def test_preferences_are_saved_and_read_back_with_the_keyboard_on_a_phone(
    new_context: Callable[..., BrowserContext],
) -> None:
    page = new_context(viewport=PHONE).new_page()
    errors = watch_errors(page)
    sign_up(page, "Nora")
    page.get_by_role("link", name="Notifications").click()
    page.wait_for_url("**/notifications")
    expect(page.locator("#prefs-body input[type=checkbox]")).to_have_count(12)
    email_turn = page.get_by_label("Your turn by Email")
    expect(email_turn).to_be_checked()
    email_turn.focus()
    page.keyboard.press("Space")
    expect(page.locator("#prefs-state")).to_have_text("Saved.")
    page.get_by_label("Game over by Browser").click()
    expect(page.locator("#prefs-state")).to_have_text("Saved.")
    stored = _prefs(page)
    unchanged = {"player_joined": True, "time_low": True}
    assert stored["email"] == {"your_turn": False, "game_ended": True, **unchanged}
    assert stored["push"] == {"your_turn": True, "game_ended": False, **unchanged}
    page.reload()
    expect(page.get_by_label("Your turn by Email")).not_to_be_checked()
    expect(page.get_by_label("Game over by Browser")).not_to_be_checked()
    expect(page.get_by_label("Your turn by Webhooks")).to_be_checked()
    width = page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= PHONE["width"]  # the grid fits a phone
    screenshot(page, "notifications-phone")
    assert errors == []


def test_the_page_in_japanese_saves_and_manages_webhooks(
    new_context: Callable[..., BrowserContext],
) -> None:
    page = new_context().new_page()
    errors = watch_errors(page)
    sign_up(page, "Kenji")
    page.goto("/language/ja?next=/notifications")
    expect(page.locator("h1")).to_have_text("通知")
    page.get_by_label("プレイヤーの参加をWebhookで").click()
    expect(page.locator("#prefs-state")).to_have_text("保存しました。")
    assert _prefs(page)["webhook"]["player_joined"] is False
    page.reload()
    expect(page.get_by_label("プレイヤーの参加をWebhookで")).not_to_be_checked()

    page.get_by_label("Webhook の URL").fill("https://hooks.example.org/kenji")
    page.get_by_role("button", name="追加").click()
    expect(page.locator("#hook-secret")).to_contain_text("署名用シークレット")
    expect(page.locator("#hooks li")).to_have_count(1)
    hooks = page.request.get("/me/webhooks").json()["webhooks"]
    assert [h["url"] for h in hooks] == ["https://hooks.example.org/kenji"]
    assert errors == []
    # A private address is refused, in Japanese (the browser logs the refused request: no more
    # checks of the console here; test_quiet_console.py checks that it is the only line).
    page.get_by_label("Webhook の URL").fill("http://127.0.0.1:9/x")
    page.get_by_role("button", name="追加").click()
    expect(page.locator("#toast")).to_contain_text("プライベート")
    page.get_by_role("button", name="Webhook https://hooks.example.org/kenji を削除").click()
    expect(page.locator("#hooks li")).to_have_count(0)
    expect(page.locator("#hooks-none")).to_be_visible()
    assert page.request.get("/me/webhooks").json()["webhooks"] == []


@dataclass
class GcmServer:
    """Stands in for Google's check-in and registration servers, as Chromium's GCM client calls
    them: ``registrations`` are the form fields of each registration request."""

    url: str
    registrations: list[dict[str, str]] = field(default_factory=list)


TOKEN = "omerta-test-token"


@pytest.fixture
def gcm_server() -> Iterator[GcmServer]:
    port = free_port()
    got = GcmServer(f"http://127.0.0.1:{port}")

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            if self.path == "/checkin":
                # AndroidCheckinResponse: stats_ok = true, android_id and security_token
                # (fixed64 fields 7 and 8), protobuf-encoded.
                answer = b"\x08\x01\x39" + struct.pack("<Q", 4242) + b"\x41" + struct.pack("<Q", 77)
                kind = "application/x-protobuf"
            else:
                fields = {k: v[0] for k, v in parse_qs(body.decode()).items()}
                got.registrations.append(fields)
                answer, kind = f"token={TOKEN}".encode(), "text/plain"
            self.send_response(200)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(answer)))
            self.end_headers()
            self.wfile.write(answer)

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield got
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def push_browser(
    browser: Browser, live_server: str, gcm_server: GcmServer, tmp_path: Path
) -> Iterator[BrowserContext]:
    """Chromium with a profile on disk (push needs one) and its GCM client pointed at
    ``gcm_server``; background networking stays on (the GCM client is part of it)."""
    # The package's Playwright (one per process): its Chromium, launched again with a profile.
    context = browser.browser_type.launch_persistent_context(
        str(tmp_path / "profile"),
        executable_path=CHROMIUM,
        args=[
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            f"--gcm-checkin-url={gcm_server.url}/checkin",
            f"--gcm-registration-url={gcm_server.url}/register",
            "--gcm-mcs-endpoint=https://127.0.0.1:9",  # nothing there: no MCS connection
        ],
        base_url=live_server,
        locale="en-GB",
    )
    context.set_default_timeout(20_000)
    context.grant_permissions(["notifications"], origin=live_server)
    try:
        yield context
    finally:
        context.close()


def test_a_webhooks_last_failed_delivery_is_shown_in_english_and_japanese_on_a_phone(
    new_context: Callable[..., BrowserContext], embedded_server: EmbeddedServer
) -> None:
    page = new_context(viewport=PHONE).new_page()
    errors = watch_errors(page)
    sign_up(page, "Hana")
    page.goto("/notifications")
    page.get_by_label("Webhook URL").fill("https://hooks.example.org/hana")
    page.get_by_label("Webhook URL").press("Enter")  # the keyboard adds it
    expect(page.locator("#hooks li")).to_have_count(1)
    expect(page.locator(".hook-failure")).to_have_count(0)
    me = page.request.get("/me").json()
    (hook,) = page.request.get("/me/webhooks").json()["webhooks"]
    # As the worker records it (``workers.notify.notices``): the host stopped resolving, given up.
    failure = webhooks.WebhookFailure(1_700_000_000_000, "dns", None, True)
    webhooks.Webhooks(embedded_server.client()).failed(me["id"], hook["id"], failure)
    page.reload()
    expect(page.locator(".hook-failure")).to_contain_text(
        "last delivery failed: the host name does not resolve"
    )
    expect(page.locator(".hook-failure")).to_contain_text("given up")
    assert page.evaluate("() => document.documentElement.scrollWidth") <= PHONE["width"]
    screenshot(page, "notifications-hook-failed")
    page.goto("/language/ja?next=/notifications")
    expect(page.locator(".hook-failure")).to_contain_text(
        "前回の送信は失敗しました: ホスト名を解決できません"
    )
    assert errors == []


def _browser_subscription(page: Page) -> dict[str, object] | None:
    return page.evaluate(
        """async () => {
          const reg = await navigator.serviceWorker.ready;
          const sub = await reg.pushManager.getSubscription();
          return sub && sub.toJSON();
        }"""
    )


def test_the_switch_subscribes_this_browser_and_its_worker_shows_pushes(
    push_browser: BrowserContext,
    gcm_server: GcmServer,
    live_server: str,
    embedded_server: EmbeddedServer,
) -> None:
    page = push_browser.new_page()
    errors = watch_errors(page)
    sign_up(page, "Pia")
    me = page.request.get("/me").json()
    page.goto("/notifications")
    switch = page.get_by_role("switch", name="Notifications on this device")
    expect(switch).not_to_be_checked()
    expect(page.locator("#push-state")).to_have_text("Off: this browser gets no notifications.")
    switch.focus()
    page.keyboard.press("Space")
    expect(page.locator("#push-state")).to_have_text("On: this browser gets notifications.")
    expect(switch).to_be_checked()
    expect(page.locator("#push-count")).to_have_text("Browsers of yours that get notifications: 1.")

    # Chromium subscribed with the server's VAPID key (the registration's sender), ...
    key = page.request.get("/push/key").json()["key"]
    assert [r["sender"] for r in gcm_server.registrations if r.get("X-subtype")] == [key]
    # ... and the server holds the browser's own subscription, for this player.
    browser_sub = _browser_subscription(page)
    assert browser_sub is not None
    assert str(browser_sub["endpoint"]).startswith("https://")
    assert str(browser_sub["endpoint"]).endswith(f"/fcm/send/{TOKEN}")
    client = embedded_server.client()
    (stored,) = push.Subscriptions(client).list(me["id"])
    assert stored.endpoint == browser_sub["endpoint"]
    assert {"p256dh": stored.p256dh, "auth": stored.auth} == browser_sub["keys"]
    assert stored.lang == "en"
    screenshot(page, "notifications-push-on")

    # A push handed to the service worker as the browser would (DevTools): it shows it.
    cdp = push_browser.new_cdp_session(page)
    registrations: list[dict[str, object]] = []
    cdp.on(
        "ServiceWorker.workerRegistrationUpdated",
        lambda e: registrations.extend(e["registrations"]),
    )
    cdp.send("ServiceWorker.enable")
    scope = f"{live_server}/"
    found: list[dict[str, object]] = []
    for _ in range(100):  # the events come while Playwright waits
        found = [r for r in registrations if r["scopeURL"] == scope and not r["isDeleted"]]
        if found:
            break
        page.wait_for_timeout(100)
    registration = found[0]
    shown = {
        "event": "your_turn",
        "game_id": "g-test",
        "game": "Famiglia",
        "title": "Your turn",
        "body": "Your turn in Famiglia.",
        "url": "/play/g-test",
    }
    cdp.send(
        "ServiceWorker.deliverPushMessage",
        {
            "origin": live_server,
            "registrationId": registration["registrationId"],
            "data": json.dumps(shown),
        },
    )
    notes: list[dict[str, str]] = []
    for _ in range(300):  # the worker shows it in its own time (slow on a loaded machine)
        notes = page.evaluate(
            """async () => (await (await navigator.serviceWorker.ready).getNotifications())
                 .map((n) => ({ title: n.title, body: n.body, tag: n.tag, url: n.data.url }))"""
        )
        if notes:
            break
        page.wait_for_timeout(100)
    assert notes == [
        {
            "title": "Your turn",
            "body": "Your turn in Famiglia.",
            "tag": "game-g-test",
            "url": f"{live_server}/play/g-test",
        }
    ]

    # The server dropped it (its push service said it was gone): the next visit posts the
    # browser's subscription again.
    push.Subscriptions(client).delete(me["id"], stored.id)
    page.reload()
    expect(switch).to_be_checked()
    expect(page.locator("#push-count")).to_have_text("Browsers of yours that get notifications: 1.")
    assert [s.endpoint for s in push.Subscriptions(client).list(me["id"])] == [stored.endpoint]

    # Off: the server forgets the subscription and the browser drops it.
    switch.click()
    expect(page.locator("#push-state")).to_have_text("Off: this browser gets no notifications.")
    expect(switch).not_to_be_checked()
    assert push.Subscriptions(client).list(me["id"]) == []
    assert _browser_subscription(page) is None
    client.close()
    assert errors == []
