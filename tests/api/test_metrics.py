"""Every process's metrics, scraped from real processes: the web server (``omerta serve``,
gunicorn in multiprocess mode, ``/metrics`` behind ``OMERTA_METRICS_TOKEN``), a projection
worker and an AI worker (``omerta worker --metrics-port``), while a person plays a game against
a search level; the figures move with the traffic. ``deploy/``'s alert rules and dashboard use
only names these processes export. With JSON logs, a request's id is in the log lines of the
jobs its command enqueued, in the worker's process."""

from __future__ import annotations

import http.client
import json
import os
import re
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import pytest
import yaml

from services.platform.embedded import EmbeddedServer, free_port
from tests.api import omerta_run
from tests.api.served import call, serve
from tests.scrapes import Scrape, get, scrape

pytestmark = pytest.mark.server

TOKEN = "metrics-token-for-the-test"
DEPLOY = Path(__file__).parents[2] / "deploy"
REQUEST_ID = "req-metrics-test-1"


def wait_for(condition: Callable[[], bool], what: str, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.1)


@dataclass
class Service:
    web: int
    workers: dict[str, int]  # name -> metrics port
    worker_log: Path
    first: dict[str, Scrape]  # each process's scrape as soon as it answered


def start_worker(env: dict[str, str], queues: str, port: int, log: IO[bytes]) -> Any:
    command = ["worker", "--queues", queues, "--metrics-port", str(port), "--interval", "1"]
    return subprocess.Popen(
        [sys.executable, "-m", "api", *command], env=env, stdout=log, stderr=subprocess.STDOUT
    )


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    """A store of its own, the web server (two processes: their figures are added up), a
    projection worker and an AI worker (each with its metrics port), JSON logs at DEBUG (every
    job's lines)."""
    root = tmp_path_factory.mktemp("metrics")
    with EmbeddedServer(root / "valkey") as store:
        env = {
            **os.environ,
            "REDIS_URL": store.url,
            "OMERTA_VAR": str(root / "var"),
            "OMERTA_METRICS_TOKEN": TOKEN,
            "OMERTA_LOG_FORMAT": "json",
            "OMERTA_LOG_LEVEL": "DEBUG",
        }
        ports = {"worker": free_port(), "ai-worker": free_port()}
        log_path = root / "workers.log"
        with log_path.open("wb") as log, serve(env, workers=2) as web:
            workers = [
                start_worker(env, "projections,clocks,notify,mail", ports["worker"], log),
                start_worker(env, "ai", ports["ai-worker"], log),
            ]
            try:
                for port in ports.values():
                    wait_for(lambda p=port: _answers(p), "a worker's metrics")  # type: ignore[misc]
                first = {"web": scrape(web, TOKEN)}
                first |= {name: scrape(port) for name, port in ports.items()}
                yield Service(web, ports, log_path, first)
            finally:
                for proc in workers:
                    proc.terminate()
                for proc in workers:
                    proc.wait(60)


def _answers(port: int) -> bool:
    try:
        return get(port, "/metrics")[0] == 200
    except OSError:
        return False


def play(web: int, done: Callable[[], bool]) -> None:
    """A person's game against the medium level: the person moves (at least three times) until
    ``done`` (the AI answered, ...), then sends a move at a stale version (refused:
    ``conflict``)."""
    status, me = call(web, "POST", "/players", {"name": "Metrics"})
    assert status == 201
    token = me["token"]
    spec = {"game": "famiglia", "seats": 2, "ai": {"1": "medium"}}
    status, game = call(web, "POST", "/games", spec, token)
    assert status == 201, game
    path = f"/games/{game['game_id']}"
    moves, deadline = 0, time.monotonic() + 120
    while moves < 3 or not done():
        assert time.monotonic() < deadline, f"not done after {moves} moves (the AI, the jobs)"
        legal = call(web, "GET", f"{path}/legal", token=token)[1]
        if not legal["commands"]:  # the AI's turn
            time.sleep(0.1)
            continue
        move = {"command": legal["commands"][0], "expected_version": legal["version"]}
        status, accepted = _post(web, f"{path}/commands", move, token, REQUEST_ID)
        assert status == 200, accepted
        moves += 1
    # The last move again, at the version it was sent at, now stale (the person's last legal
    # commands may be none: the loop can end on the AI's turn).
    status, refused = call(web, "POST", f"{path}/commands", move, token)
    assert (status, refused["code"]) == (409, "conflict")


def ai_moves(port: int) -> float:
    return scrape(port).value("omerta_ai_move_seconds_count", level="medium")


def _post(web: int, path: str, body: Any, token: str, request_id: str) -> tuple[int, Any]:
    conn = http.client.HTTPConnection("127.0.0.1", web, timeout=30)
    headers = {
        "Content-Type": "application/json",
        "Authorization": f"Bearer {token}",
        "X-Request-Id": request_id,
    }
    try:
        conn.request("POST", path, json.dumps(body), headers)
        response = conn.getresponse()
        assert response.headers["X-Request-Id"] == request_id
        return response.status, json.loads(response.read())
    finally:
        conn.close()


@pytest.fixture(scope="module")
def traffic(service: Service) -> tuple[dict[str, Scrape], dict[str, Scrape]]:
    """Every process's scrape before and after a game's traffic."""
    before = every_scrape(service)
    # Until a job enqueued by one of the person's moves has logged: a move whose shard already
    # has a wake job pending enqueues none (a loaded run once saw every move's wake coalesced).
    play(
        service.web,
        lambda: ai_moves(service.workers["ai-worker"]) >= 1 and bool(tagged(service.worker_log)),
    )
    # A job's own figures (its AI move) are counted before RQ's bookkeeping of its end, and the
    # projections run after the command: the after-scrape waits until both are counted.
    jobs = "omerta_jobs_done_total"
    after: dict[str, Scrape] = {}

    def counted() -> bool:
        after.update(every_scrape(service))
        return all(
            after[name].value(jobs, queue=queue) > before[name].value(jobs, queue=queue)
            for name, queue in (("ai-worker", "omerta-ai"), ("worker", "omerta-projections"))
        )

    wait_for(counted, "the traffic's jobs counted")
    return before, after


def every_scrape(service: Service) -> dict[str, Scrape]:
    return {"web": scrape(service.web, TOKEN)} | {
        name: scrape(port) for name, port in service.workers.items()
    }


def test_metrics_need_the_token(service: Service) -> None:
    assert get(service.web, "/metrics")[0] == 401
    status, body = get(service.web, "/metrics", "not-the-token")
    assert (status, json.loads(body)["code"]) == (401, "bad_token")
    assert get(service.web, "/metrics", TOKEN)[0] == 200


def test_the_figures_move_with_the_traffic(
    traffic: tuple[dict[str, Scrape], dict[str, Scrape]],
) -> None:
    before, after = traffic
    web0, web = before["web"], after["web"]
    assert (
        web.value("omerta_commands_accepted_total")
        >= web0.value("omerta_commands_accepted_total") + 3
    )
    refused = "omerta_commands_refused_total"
    assert web.value(refused, code="conflict") == web0.value(refused, code="conflict") + 1
    assert (
        web.value("omerta_command_seconds_count") >= web0.value("omerta_command_seconds_count") + 4
    )
    assert web.value("omerta_append_seconds_count") > web0.value("omerta_append_seconds_count")
    # The store's figures, read at the scrape.
    assert web.value("omerta_store_up") == 1
    assert web.has("omerta_queue_jobs", queue="omerta-projections")
    assert web.has("omerta_projection_lag_seconds", shard="00")
    assert web.value("omerta_workers_alive") >= 1
    assert web.value("omerta_ai_worker_alive") == 1
    ai0, ai = before["ai-worker"], after["ai-worker"]
    assert ai.value("omerta_ai_move_seconds_count", level="medium") >= 1
    assert ai.value("omerta_ai_search_iterations_count", level="medium") >= 1
    assert ai.value("omerta_ai_search_iterations_sum", level="medium") > 0
    assert (
        ai.value("omerta_commands_accepted_total")
        >= ai0.value("omerta_commands_accepted_total") + 1
    )
    jobs = "omerta_jobs_done_total"
    assert ai.value(jobs, queue="omerta-ai") >= ai0.value(jobs, queue="omerta-ai") + 1
    worker0, worker = before["worker"], after["worker"]
    done = worker.value(jobs, queue="omerta-projections")
    assert done >= worker0.value(jobs, queue="omerta-projections") + 1


# What each fresh process exports at 0 before its first event (a dashboard's panel reads 0, not
# "No data"): the counters whose label values are known, for each of them.
AT_ZERO = {
    "web": [
        ("omerta_http_unavailable_total", "code", "store_unavailable"),
        ("omerta_http_unavailable_total", "code", "store_degraded"),
        ("omerta_store_errors_total", "process", "web"),
        ("omerta_commands_refused_total", "code", "conflict"),
        ("omerta_commands_refused_total", "code", "seat_taken_over"),
    ],
    "worker": [
        *(
            (f"omerta_jobs_{outcome}_total", "queue", f"omerta-{queue}")
            for outcome in ("done", "failed", "retried")
            for queue in ("projections", "clocks", "notify", "mail")
        ),
        *(
            (f"omerta_notices_{outcome}_total", "channel", channel)
            for outcome in ("sent", "failed")
            for channel in ("webhook", "push", "email")
        ),
        ("omerta_store_errors_total", "process", "worker"),
    ],
    "ai-worker": [
        *((f"omerta_jobs_{o}_total", "queue", "omerta-ai") for o in ("done", "failed", "retried")),
        ("omerta_store_errors_total", "process", "worker"),
        ("omerta_commands_refused_total", "code", "conflict"),
    ],
}


def test_known_counters_start_at_zero(service: Service) -> None:
    for process, samples in AT_ZERO.items():
        first = service.first[process]
        missing = [
            sample for sample in samples if not first.has(sample[0], **{sample[1]: sample[2]})
        ]
        assert missing == [], process
        assert {first.value(name, **{label: value}) for name, label, value in samples} == {0}


def test_open_streams_are_counted(service: Service) -> None:
    status, me = call(service.web, "POST", "/players", {"name": "Watcher"})
    assert status == 201
    status, game = call(
        service.web, "POST", "/games", {"game": "famiglia", "seats": 2}, me["token"]
    )
    assert status == 201
    conn = http.client.HTTPConnection("127.0.0.1", service.web, timeout=30)
    try:
        conn.request("GET", f"/games/{game['game_id']}/events")
        response = conn.getresponse()
        assert response.readline().startswith(b"retry:")
        wait_for(
            lambda: scrape(service.web, TOKEN).value("omerta_live_streams", kind="game") >= 1,
            "the open stream counted",
        )
    finally:
        conn.close()
    wait_for(
        lambda: scrape(service.web, TOKEN).value("omerta_live_streams", kind="game") == 0,
        "the closed stream no longer counted",
    )


NAME = re.compile(r"\bomerta_[a-z_]+\b")


def names_in(expressions: list[str]) -> set[str]:
    return {name for expr in expressions for name in NAME.findall(expr)}


def test_alert_rules_and_dashboard_use_exported_names(
    traffic: tuple[dict[str, Scrape], dict[str, Scrape]],
) -> None:
    exported = set().union(*(s.exported for s in traffic[1].values()))
    rules = yaml.safe_load((DEPLOY / "prometheus" / "alerts.yml").read_text())
    alerts = [rule for group in rules["groups"] for rule in group["rules"]]
    for rule in alerts:
        assert {"alert", "expr", "labels", "annotations"} <= rule.keys(), rule
    wanted = {"ProjectionLag", "Unavailable503", "NoAiWorker", "MasterWithoutReplica",
              "JobsFailing", "NoticesFailing"}  # fmt: skip
    assert wanted <= {rule["alert"] for rule in alerts}
    used = names_in([rule["expr"] for rule in alerts])
    dashboard = json.loads((DEPLOY / "grafana" / "omerta.json").read_text())
    targets = [t["expr"] for panel in dashboard["panels"] for t in panel.get("targets", [])]
    assert targets
    used |= names_in(targets)
    assert used and used <= exported, used - exported
    scrape_config = yaml.safe_load((DEPLOY / "prometheus" / "prometheus.yml").read_text())
    assert scrape_config["rule_files"] == ["alerts.yml"]


def tagged(worker_log: Path) -> list[dict[str, Any]]:
    """The workers' JSON log lines that carry the request id of the person's moves."""
    found = []
    for line in worker_log.read_text().splitlines():
        if line.startswith("{"):
            entry = json.loads(line)
            if entry.get("request_id") == REQUEST_ID:
                found.append(entry)
    return found


def test_a_request_id_follows_the_command_into_its_jobs(
    service: Service, traffic: tuple[dict[str, Scrape], dict[str, Scrape]]
) -> None:
    wait_for(lambda: bool(tagged(service.worker_log)), "a worker's log line with the request's id")
    assert all(
        {"time", "level", "name", "message"} <= entry.keys() for entry in tagged(service.worker_log)
    )


def two_free_ports() -> int:
    """A free port whose next one is free too (``omerta run`` numbers its workers' ports)."""
    while True:
        first = free_port()
        with socket.socket() as probe:
            try:
                probe.bind(("127.0.0.1", first + 1))
            except OSError:
                continue
        return first


def test_omerta_run_gives_every_worker_its_port(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = two_free_ports()
    monkeypatch.setenv("OMERTA_WORKER_METRICS_PORT", str(first))
    monkeypatch.setenv("OMERTA_METRICS_TOKEN", TOKEN)
    web = free_port()
    with (tmp_path / "run.log").open("ab") as log:
        proc = omerta_run.start(tmp_path, web, log)
        try:
            wait_for(lambda: _answers(first) and _answers(first + 1), "the workers' metrics")
            play(web, lambda: ai_moves(first + 1) >= 1)
            # the AI worker (first + 1) made the AI move; the worker (first) the projections
            moved = "omerta_ai_move_seconds_count"
            assert scrape(first).value(moved, level="medium") == 0
            done = "omerta_jobs_done_total"
            wait_for(
                lambda: scrape(first).value(done, queue="omerta-projections") >= 1,
                "a projection on the worker's port",
            )
            assert scrape(web, TOKEN).value("omerta_commands_accepted_total") >= 3
        finally:
            assert omerta_run.ctrl_c(proc) == 0
