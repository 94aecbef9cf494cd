"""A request's id: the client's ``X-Request-Id`` when sane, else a new one, echoed in the answer
and carried in the meta of the jobs the request enqueues (``services.platform.logs``); and the
web app's ``/metrics`` refused without its token (``api.http.metrics``)."""

from __future__ import annotations

import re

import msgspec
import pytest
from flask.testing import FlaskClient

from api.app import create_app
from bootstrap import Container, bootstrap
from services.platform import config
from workers.queues import PROJECTIONS

pytestmark = pytest.mark.server


def client_of(container: Container) -> FlaskClient:
    return create_app(container).test_client(use_cookies=False)


def test_a_sane_request_id_is_kept_and_carried_into_the_jobs(container: Container) -> None:
    client = client_of(container)
    made = client.post("/players", json={"name": "Ann"}, headers={"X-Request-Id": "edge-1.a:b"})
    assert made.status_code == 201 and made.headers["X-Request-Id"] == "edge-1.a:b"
    auth = {"Authorization": f"Bearer {made.json['token']}", "X-Request-Id": "game-7"}
    created = client.post("/games", json={"game": "famiglia", "seats": 2}, headers=auth)
    assert created.status_code == 201
    jobs = container.queues.queue(PROJECTIONS).get_jobs()
    assert [job.meta.get("request_id") for job in jobs] == ["game-7"]  # the creation's wake


@pytest.mark.parametrize("given", ["", "has spaces", "x" * 65, "<script>", "ünï"])
def test_an_insane_request_id_is_replaced(container: Container, given: str) -> None:
    answer = client_of(container).get("/healthz", headers={"X-Request-Id": given})
    assert re.fullmatch(r"[0-9a-f]{32}", answer.headers["X-Request-Id"])


def test_metrics_are_404_without_a_token_configured(container: Container) -> None:
    assert container.settings.metrics_token is None
    answer = client_of(container).get("/metrics", headers={"Authorization": "Bearer anything"})
    assert (answer.status_code, answer.json["code"]) == (404, "not_found")


def test_metrics_answer_only_their_token(container: Container) -> None:
    settings = msgspec.structs.replace(container.settings, metrics_token="s3cret-token")
    client = client_of(bootstrap(settings, store=container.store))
    assert client.get("/metrics").json["code"] == "missing_token"
    wrong = client.get("/metrics", headers={"Authorization": "Bearer s3cret-tokem"})
    assert (wrong.status_code, wrong.json["code"]) == (401, "bad_token")
    right = client.get("/metrics", headers={"Authorization": "Bearer s3cret-token"})
    assert right.status_code == 200
    assert b"omerta_commands_accepted_total 0.0" in right.data
    assert b"omerta_store_up 1.0" in right.data


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("OMERTA_LOG_FORMAT", "xml"),
        ("OMERTA_WORKER_METRICS_PORT", "0"),
        ("OMERTA_WORKER_METRICS_PORT", "http"),
    ],
)
def test_bad_settings_name_their_variable(name: str, value: str) -> None:
    with pytest.raises(config.ConfigError, match=name):
        config.settings({name: value})
