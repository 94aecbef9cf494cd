"""``POST /signin/email``: the time of the answer for a player's verified address beside the time
for an address nobody has. The two must not tell the addresses apart (they were 64 ms against
13 ms when only a known address enqueued a mail job): both enqueue the same job, which looks
the address up.

One set-up: an embedded server, ``omerta serve`` (gunicorn) on a free port, no worker (the jobs
wait in their queue: only the request is timed). One keep-alive connection asks ``REQUESTS``
times for each address, alternately (so a drift of the machine's load falls on both alike),
after ``WARM_UP`` unmeasured requests of each. Figures: the median and p90 of each, side by
side, and their difference.
"""

from __future__ import annotations

import http.client
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

from services.identity.emails import VERIFY, Emails
from services.identity.players import Players
from services.platform.embedded import EmbeddedServer, free_port
from tests.benchmarks.common import stop_all, wait_ready

REQUESTS = 300
WARM_UP = 30
KNOWN = "ann@example.org"
UNKNOWN = "nobody@example.org"


def _ask(conn: http.client.HTTPConnection, address: str) -> float:
    body = json.dumps({"address": address}).encode()
    began = time.perf_counter()
    conn.request("POST", "/signin/email", body=body, headers={"Content-Type": "application/json"})
    response = conn.getresponse()
    response.read()
    took = time.perf_counter() - began
    assert response.status == 202, response.status
    return took


def _figures(times: list[float]) -> tuple[float, float]:
    cuts = statistics.quantiles(times, n=10)
    return 1000 * statistics.median(times), 1000 * cuts[8]


def run() -> None:
    with tempfile.TemporaryDirectory() as tmp, EmbeddedServer(tmp) as store:
        client = store.client()
        player, _ = Players(client).create("Ann")
        emails = Emails(client)
        emails.set_address(player.id, KNOWN, "en")
        assert emails.redeem(VERIFY, emails.new_link(VERIFY, player.id)) is not None
        port = free_port()
        env = {**os.environ, "REDIS_URL": store.url, "OMERTA_RATE_LIMITS": "off"}
        web = subprocess.Popen(
            [sys.executable, "-m", "api", "serve", "--bind", f"127.0.0.1:{port}", "--workers", "1"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env=env,
        )
        try:
            wait_ready(port, web)
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            for _ in range(WARM_UP):
                _ask(conn, KNOWN), _ask(conn, UNKNOWN)
            times: dict[str, list[float]] = {KNOWN: [], UNKNOWN: []}
            for _ in range(REQUESTS):
                for address in (KNOWN, UNKNOWN):
                    times[address].append(_ask(conn, address))
            conn.close()
        finally:
            stop_all([web])
            client.close()
    (known, known_p90), (unknown, unknown_p90) = _figures(times[KNOWN]), _figures(times[UNKNOWN])
    print(f"  {REQUESTS} requests each, alternately, one keep-alive connection")
    print(f"  {'':22}{'median':>10}{'p90':>10}")
    print(f"  {'a player address':22}{known:8.2f} ms{known_p90:7.2f} ms")
    print(f"  {'an unknown address':22}{unknown:8.2f} ms{unknown_p90:7.2f} ms")
    print(f"  difference of the medians: {known - unknown:+.2f} ms")
