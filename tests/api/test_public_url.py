"""Invite links come from the configured public base URL, never from the request's Host header
(a forged Host cannot make the service hand out links to another site)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import redis

from api.app import create_app
from services.games.commands import CommandService
from services.platform.config import ConfigError, public_url, settings
from services.platform.embedded import free_port
from tests.api.helpers import Api, container_of

pytestmark = pytest.mark.server

FORGED = {"Host": "evil.example", "X-Forwarded-Host": "evil.example"}


def invite_urls(service: CommandService, client: redis.Redis, **env: str) -> list[str]:
    configured = settings(env)
    app = create_app(container_of(service, public_url=configured.public_url, bind=configured.bind))
    api = Api(app.test_client(use_cookies=False))
    ann = api.player("Ann")
    response = api.call("POST", "/games", ann, json={"game": "gangsta", "seats": 3}, headers=FORGED)
    assert response.status_code == 201, response.json
    return [invite["url"] for invite in response.json["invites"]]


def test_invites_use_the_public_url_whatever_the_host(
    service: CommandService, real_redis: redis.Redis
) -> None:
    urls = invite_urls(service, real_redis, OMERTA_PUBLIC_URL="https://omerta.example/play/")
    assert len(urls) == 2
    for url in urls:
        assert url.startswith("https://omerta.example/play/games/") and url.endswith("/join")
        assert "evil.example" not in url


def test_without_a_public_url_invites_use_the_bind_address(
    service: CommandService, real_redis: redis.Redis
) -> None:
    urls = invite_urls(service, real_redis, OMERTA_BIND="127.0.0.1:8123")
    assert urls and all(u.startswith("http://127.0.0.1:8123/games/") for u in urls)
    urls = invite_urls(service, real_redis)
    assert urls and all(u.startswith("http://127.0.0.1:8000/games/") for u in urls)


@pytest.mark.parametrize(
    "url",
    [
        "omerta.example",
        "ftp://omerta.example",
        "https://",
        "https://omerta.example/?next=x",
        "https://omerta.example/#x",
        "https://user:pw@omerta.example",
        "javascript:alert(1)",
        "https://omerta.example/a b",
    ],
)
def test_a_bad_public_url_is_a_clear_error(url: str) -> None:
    with pytest.raises(ConfigError, match="OMERTA_PUBLIC_URL"):
        public_url(settings({"OMERTA_PUBLIC_URL": url}))


@pytest.mark.parametrize(
    ("url", "base"),
    [
        ("https://omerta.example", "https://omerta.example"),
        ("https://omerta.example/", "https://omerta.example"),
        ("http://10.0.0.5:8080/omerta/", "http://10.0.0.5:8080/omerta"),
        ("HTTPS://Omerta.Example", "https://omerta.example"),
    ],
)
def test_a_good_public_url_is_kept_without_its_trailing_slash(url: str, base: str) -> None:
    assert public_url(settings({"OMERTA_PUBLIC_URL": url})) == base


def test_a_unix_socket_bind_needs_a_public_url() -> None:
    with pytest.raises(ConfigError, match="OMERTA_PUBLIC_URL"):
        public_url(settings({"OMERTA_BIND": "unix:/run/omerta.sock"}))


def test_omerta_serve_refuses_a_bad_public_url_before_starting() -> None:
    env = {**os.environ, "OMERTA_PUBLIC_URL": "ftp://omerta.example"}
    omerta = Path(sys.executable).with_name("omerta")
    done = subprocess.run(
        [str(omerta), "serve", "--bind", f"127.0.0.1:{free_port()}"],
        env=env, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 2
    assert "OMERTA_PUBLIC_URL" in done.stderr and "http or https" in done.stderr
