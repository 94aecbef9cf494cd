"""The live-event streams a web process serves at once: at most ``OMERTA_WEB_STREAMS``, fewer
than its connections (``OMERTA_WEB_CONNECTIONS``, ``services.platform.config``), so that the
streams of open pages never take the connections that requests need: with every connection held
by a stream, the API stopped answering and no page could open.

One stream more is 503 ``streams_full`` with ``Retry-After`` (seconds until the process's oldest
stream ends, within ``stream_seconds``; one ends every few milliseconds on a full process): the
pages' ``EventSource`` error handlers start a new stream a few seconds later, which the load
balancer may give to another process. Game and player streams count together (a page holds one
of each). Unlike the cap per client (``api.http.limits``), this one holds with the rate limits
off: it is the process's capacity, not a limit on a client. A refusal's connection is closed
once it is sent (``_hang_up``).
"""

from __future__ import annotations

import contextlib
import functools
import socket
from collections.abc import Callable

from flask import Flask, Response, request

from api.http.limits import STREAM_ENDPOINTS, OpenStreams, one_of_most
from api.http.problems import problem_response

EVERYONE = "process"  # one count for every client of the process


def install(app: Flask, most: int) -> None:
    """Cap the app's live-event streams at ``most`` open at once: over any other wrapping of
    theirs, so that a refused stream counts nowhere else."""
    streams = OpenStreams(most)
    refusal = functools.partial(_full, most)
    for endpoint in STREAM_ENDPOINTS:
        view = app.view_functions[endpoint]
        app.view_functions[endpoint] = one_of_most(view, streams, lambda: EVERYONE, refusal)


def _full(most: int, retry: int) -> Response:
    response = problem_response(
        503,
        "streams_full",
        f"the server holds the most live-event streams it serves at once ({most}): try again in "
        f"{retry} seconds",
        params={"most": most, "retry_after": retry},
    )
    response.call_on_close(_hang_up())
    return response


def _hang_up() -> Callable[[], None]:
    """What closes this request's connection once its answer is sent. gunicorn keeps a
    connection open for the next request (keep-alive, seconds) and drops an app's
    ``Connection: close``: the connections of a crowd of refused pages would sit in the ones
    kept for requests. Shut, the connection ends as gunicorn reads on (nothing, outside
    gunicorn)."""
    sock = request.environ.get("gunicorn.socket")

    def hang_up() -> None:
        if sock is not None:
            with contextlib.suppress(OSError):  # the client left first
                sock.shutdown(socket.SHUT_RDWR)

    return hang_up
