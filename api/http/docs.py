"""The human-readable API page: plain HTML rendered from the OpenAPI document (no scripts, no
CDN), with the error codes."""

from __future__ import annotations

from html import escape
from typing import Any

from api.http.problems import API_CODES, MEDIA_TYPE
from api.openapi.refusals import RULE_STATUS, rule_codes

# Long paths and names break where they must (break-word leaves the table's columns alone); the
# table of codes scrolls within a phone's width rather than widening the page.
STYLE = """
body { font-family: system-ui, sans-serif; max-width: 60rem; margin: 2rem auto; padding: 0 1rem;
       line-height: 1.45; color: #222; overflow-wrap: break-word; }
code, pre { font-family: ui-monospace, monospace; background: #f4f4f4; padding: 0 .2em; }
.scroll { overflow-x: auto; }
.op { border-top: 1px solid #ddd; padding: .6rem 0; }
.method { display: inline-block; min-width: 4rem; font-weight: bold; text-transform: uppercase; }
table { border-collapse: collapse; } td, th { border: 1px solid #ddd; padding: .2rem .5rem; }
"""


def _ref_name(schema: dict[str, Any]) -> str:
    if "$ref" in schema:
        return schema["$ref"].rsplit("/", 1)[-1]
    if schema.get("type") == "array" and "items" in schema:
        return f"list of {_ref_name(schema['items'])}"
    return ""


def _problem_codes(response: dict[str, Any]) -> list[str]:
    """The codes a problem response lists (api.openapi._problem_response); [] for others."""
    schema = response.get("content", {}).get(MEDIA_TYPE, {}).get("schema", {})
    return [
        c
        for part in schema.get("allOf", [])
        for c in part.get("properties", {}).get("code", {}).get("enum", [])
    ]


def _operation(path: str, method: str, op: dict[str, Any]) -> str:
    parts = [
        f'<div class="op" id="{escape(op["operationId"])}">',
        f'<span class="method">{escape(method)}</span> <code>{escape(path)}</code>',
        f" — {escape(op['summary'])}",
    ]
    if op.get("description"):
        parts.append(f"<p>{escape(op['description'])}</p>")
    auth = op.get("security")
    if auth is not None:
        needed = "optional (without: a spectator)" if {} in auth else "required"
        parts.append(f"<div>Token: {needed}</div>")
    for param in op.get("parameters", []):
        parts.append(
            f"<div>{escape(param['in'])} <code>{escape(param['name'])}</code>: "
            f"{escape(param.get('description', ''))}</div>"
        )
    body = op.get("requestBody", {}).get("content", {}).get("application/json")
    if body and _ref_name(body["schema"]):
        parts.append(f"<div>Body: <code>{escape(_ref_name(body['schema']))}</code></div>")
    answers = []
    for status, response in op["responses"].items():
        content = response.get("content", {})
        codes = _problem_codes(response)
        if codes:
            links = ", ".join(f'<a href="#problem-{escape(c)}">{escape(c)}</a>' for c in codes)
            answers.append(f"{escape(status)} {links}")
            continue
        shown = [_ref_name(c.get("schema", {})) or media for media, c in content.items()]
        answers.append(
            f"{escape(status)} <code>{escape(', '.join(shown))}</code>" if shown else escape(status)
        )
    parts.append(f"<div>Answers: {'; '.join(answers)}</div></div>")
    return "".join(parts)


def render(document: dict[str, Any]) -> str:
    info = document["info"]
    ops = [
        _operation(path, method, op)
        for path, methods in document["paths"].items()
        for method, op in methods.items()
    ]
    entries = {**API_CODES, **{c: (RULE_STATUS, m) for c, m in rule_codes().items()}}
    calls = [
        _operation(f"(the webhook's URL: {name})", method, op)
        for name, methods in document.get("webhooks", {}).items()
        for method, op in methods.items()
    ]
    codes = "".join(
        f'<tr id="problem-{escape(code)}"><td><code>{escape(code)}</code></td>'
        f"<td>{status}</td><td>{escape(meaning)}</td></tr>"
        for code, (status, meaning) in sorted(entries.items(), key=lambda c: (c[1][0], c[0]))
    )
    return (
        "<!doctype html><html lang=en><meta charset=utf-8>"
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{escape(info['title'])} API</title><style>{STYLE}</style>"
        '<link rel="icon" href="/web/static/icon.svg" type="image/svg+xml">'
        f"<h1>{escape(info['title'])} API</h1><p>{escape(info['description'])}</p>"
        '<p>Machine-readable: <a href="/openapi.json">/openapi.json</a> (OpenAPI 3.1).</p>'
        f"<h2>Operations</h2>{''.join(ops)}"
        f"<h2>Webhooks</h2>{''.join(calls)}"
        "<h2>Error codes</h2><p>Every error is <code>application/problem+json</code> with "
        "<code>type</code>, <code>title</code>, <code>status</code>, <code>detail</code>, "
        "<code>code</code> and <code>params</code> (the values the detail names; "
        "<code>case</code> tells apart the messages of one code). <code>detail</code> is "
        "English, or Japanese with <code>Accept-Language: ja</code>. A refused command appends "
        "nothing. A move the rules refuse (422) carries the rule's own code (e.g. "
        "<code>not_your_turn</code>; its meaning here is the English text of its first "
        "message). Each operation lists the codes it answers with.</p>"
        '<div class="scroll"><table><tr><th>code</th><th>status</th><th>meaning</th></tr>'
        f"{codes}</table></div></html>"
    )
