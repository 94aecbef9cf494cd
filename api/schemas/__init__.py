"""The API's request and response bodies, one module per resource: msgspec types that both
validate requests and generate the OpenAPI document (``api.openapi``), so the two cannot drift
apart.

Fields typed ``Any`` hold one game's own types (a view, a command, an event); the OpenAPI
document describes them as ``anyOf`` the games' schemas (``api.openapi.GAME_FIELDS``).
"""
