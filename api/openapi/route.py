"""One operation of the API, as the OpenAPI document describes it, and its parameters."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

JSON = "application/json"
FORM = "application/x-www-form-urlencoded"


@dataclass(frozen=True)
class Route:
    method: str
    path: str
    summary: str
    ok: tuple[int, Any]  # status and response type (None: no JSON body)
    body: Any = None
    auth: str = "none"  # "none", "required", or "optional" (without: a spectator)
    params: tuple[dict[str, Any], ...] = ()
    # The refusals the operation's own code raises (api.http.problems.API_CODES); those every
    # operation of its kind shares are added (api.openapi.refusals.codes_of).
    codes: tuple[str, ...] = ()
    rules: bool = False  # the games' rules decide: 422 with the rules' own codes
    # Also takes a form (a mailed link's page posts one) and answers it with a 303.
    form: bool = False
    any_origin: bool = False  # a write whose origin is not checked (no 403 cross_origin)
    tag: str = "games"
    media: str = JSON
    description: str = ""


def path_param(name: str, kind: str = "string", about: str = "") -> dict[str, Any]:
    """A path parameter; an integer one is a whole number >= 0, as the router's int converter
    takes (anything else: 404 not_found, no operation of the API)."""
    schema: dict[str, Any] = {"type": kind}
    if kind == "integer":
        schema["minimum"] = 0
    return {"name": name, "in": "path", "required": True, "schema": schema, "description": about}


def routed_by_type(route: Route) -> bool:
    """Whether the router itself refuses some paths of ``route`` (404 not_found): those with
    an integer parameter that is not a whole number."""
    return any(p["in"] == "path" and p["schema"]["type"] == "integer" for p in route.params)


def query(name: str, about: str, low: int = 0, high: int | None = None) -> dict[str, Any]:
    """An optional whole-number query parameter from ``low`` (to ``high``)."""
    schema: dict[str, Any] = {"type": "integer", "minimum": low}
    if high is not None:
        schema["maximum"] = high
    return {"name": name, "in": "query", "required": False, "schema": schema, "description": about}
