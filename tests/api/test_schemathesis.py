"""schemathesis against /openapi.json: generated requests (valid and invalid) against every
operation, as a player with a seat in a running game; no answer is a server error, and the
answers conform to the document."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
import redis
import schemathesis
from flask import Flask
from hypothesis import HealthCheck, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    negative_data_rejection,
    response_schema_conformance,
    status_code_conformance,
)

from api.app import create_app
from services.commands import CommandService
from services.players import Players
from tests.api.helpers import Api

pytestmark = pytest.mark.server


@pytest.fixture
def quick_app(service: CommandService, real_redis: redis.Redis) -> Flask:
    return create_app(service, Players(real_redis), stream_seconds=0)


@dataclass(frozen=True)
class Seated:
    token: str
    game_id: str


@pytest.fixture
def seated(quick_app: Flask) -> Seated:
    api = Api(quick_app.test_client(use_cookies=False))
    me, other = api.player("Ann"), api.player("Bob")
    created = api.new_game(me, game="famiglia", seats=2)
    api.join(other, created["game_id"], created["invites"][0]["code"])
    return Seated(me.token, created["game_id"])


def operations(app: Flask) -> list[schemathesis.APIOperation]:
    schema = schemathesis.openapi.from_wsgi("/openapi.json", app)
    return [result.ok() for result in schema.get_all_operations()]


# Not "positive data accepted": what the games allow (seats, options, moves) depends on the game
# and its state, beyond what a schema can say; those refusals are 4xx problems like the others.
POSITIVE_CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
]
NEGATIVE_CHECKS = [not_a_server_error, negative_data_rejection, content_type_conformance]


def exercise(
    operation: schemathesis.APIOperation,
    mode: schemathesis.GenerationMode,
    path_parameters: dict[str, str] | None,
    headers: dict[str, str],
) -> bool:
    """Run generated cases; False when the mode has no case to make (nothing to break)."""
    positive = mode is schemathesis.GenerationMode.POSITIVE
    checks = POSITIVE_CHECKS if positive else NEGATIVE_CHECKS

    @given(case=operation.as_strategy(mode, path_parameters=path_parameters))
    @settings(max_examples=8, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))  # fmt: skip
    def check(case: schemathesis.Case) -> None:
        response = case.call(headers=headers)
        case.validate_response(response, checks=checks)

    try:
        check()
    except Unsatisfiable:
        if positive:
            raise
        return False
    return True


def test_no_server_errors_and_answers_match_the_document(quick_app: Flask, seated: Seated) -> None:
    """Positive cases follow the document (answers validated against it too); negative ones
    break it (wrong types, missing fields). schemathesis' own pytest plugin does not run under
    pytest 9, so its strategies are driven here."""
    headers = {"Authorization": f"Bearer {seated.token}"}
    runs = []
    for operation in operations(quick_app):
        in_game = {"game_id": seated.game_id} if "{game_id}" in operation.path else None
        for mode in schemathesis.GenerationMode:
            for path_parameters in (in_game, None) if in_game else (None,):
                runs.append(exercise(operation, mode, path_parameters, headers))
    assert len(runs) > 40 and sum(runs) > 30
