"""The door of ``envtui serve``: an aiohttp middleware that applies
:mod:`envtui.commands.serve.web_access` to every request before any handler runs.

So a refused request never reaches textual-serve, and no dashboard process is started for
it. In order: the ``Host`` (DNS rebinding), the ``Origin`` (other pages; a websocket must
carry one), then the token, which a dashboard's websocket must offer as a subprotocol
(:func:`~envtui.commands.serve.web_access.Access.offered_token`): the page, the static files
and the downloads (each at a random key only a tab's websocket is told) need none. A page
asked for while every dashboard is taken is answered 503.
Refusals are short pages that say what to do, and name nothing the request sent.
"""

from __future__ import annotations

import html
from collections.abc import Callable

from aiohttp import web
from aiohttp.typedefs import Handler, Middleware

from envtui.commands.serve.web_access import Access

PAGE, SOCKET, STATIC = "index", "websocket", "static"
"""The names of the routes (web_server.DashboardServer.make_app), which textual-serve's
page also looks up: the guard asks which route a request matched, not how its path reads,
so an encoded path cannot look static to the guard and be something else to the router."""
RETRY_SECONDS = 5
"""How soon a page refused at the session cap asks again (it starts nothing meanwhile)."""
SAFETY_HEADERS = {
    "X-Frame-Options": "DENY",  # no other page may frame the dashboard and steer clicks
    "Content-Security-Policy": "frame-ancestors 'none'",
    "Referrer-Policy": "no-referrer",
    "X-Content-Type-Options": "nosniff",
}


def refusal(status: int, title: str, text: str, *, retry: bool = False) -> web.Response:
    """A short page that says why, and what to do."""
    refresh = f'<meta http-equiv="refresh" content="{RETRY_SECONDS}">' if retry else ""
    body = (
        f"<!doctype html><html><head><meta charset=utf-8><title>{html.escape(title)}</title>"
        f"{refresh}</head><body><h1>{html.escape(title)}</h1><p>{html.escape(text)}</p>"
        "</body></html>\n"
    )
    response = web.Response(status=status, text=body, content_type="text/html")
    response.headers["Cache-Control"] = "no-store"
    if status == 401:
        response.headers["WWW-Authenticate"] = 'Token realm="envtui serve"'
    if retry:
        response.headers["Retry-After"] = str(RETRY_SECONDS)
    return response


def is_upgrade(request: web.Request) -> bool:
    return request.headers.get("Upgrade", "").lower() == "websocket" or route(request) == SOCKET


def route(request: web.Request) -> str | None:
    """The name of the route the request matched (None: no route, a 404 or 405 to come)."""
    resource = request.match_info.route.resource
    return resource.name if resource is not None else None


def guard(access: Access, full: Callable[[], bool]) -> Middleware:
    """The middleware for ``access``; ``full()`` says whether every dashboard is taken."""

    @web.middleware
    async def check(request: web.Request, handler: Handler) -> web.StreamResponse:
        refused = address_refusal(access, request)
        if refused is not None:
            return refused
        if route(request) == STATIC:  # textual-serve's scripts, styles and fonts
            return await handler(request)
        answer = token_answer(access, request, full)
        return answer if answer is not None else await handler(request)

    return check


def address_refusal(access: Access, request: web.Request) -> web.Response | None:
    """403 for a request to a name that is not this server's (DNS rebinding), or from a
    page of another origin (a websocket must say its origin); None when both are ours."""
    if not access.host_allowed(request.headers.get("Host")):
        return refusal(
            403,
            "Not this server's address",
            "envtui serve answers only at its own address; open the URL it printed.",
        )
    origin = request.headers.get("Origin")
    if (origin is not None or is_upgrade(request)) and not access.origin_allowed(origin):
        return refusal(
            403,
            "Another page may not use this dashboard",
            "envtui serve accepts connections only from its own page.",
        )
    return None


def token_answer(
    access: Access, request: web.Request, full: Callable[[], bool]
) -> web.StreamResponse | None:
    """What a request gets instead of going on: the page at the printed name, 503 at the
    cap; a websocket without the token 401, with another 403. None when it may go on.

    The page holds no data (its script takes the token from the address's fragment) and
    a download's address is a random key sent only over a tab's websocket, so only the
    websocket needs the token; no cookie grants anything.
    """
    host = request.headers["Host"].lower()
    page = route(request) == PAGE
    if page and access.canonical and host != access.canonical:
        # the token is kept per origin, and the page's websocket goes to this one
        raise web.HTTPTemporaryRedirect(f"http://{access.canonical}{request.rel_url}")
    if route(request) == SOCKET:
        offered = access.offered_token(request.headers.get("Sec-WebSocket-Protocol"))
        if offered is None:
            return refusal(
                401,
                "This dashboard needs its token",
                "Open the URL envtui serve printed (it ends in #token=...); the page "
                "keeps the token for this tab.",
            )
        if not offered:
            return refusal(
                403,
                "Wrong token",
                "This is not the token envtui serve printed; open the URL it printed.",
            )
    if page and full():
        return refusal(
            503,
            "Every dashboard is taken",
            "envtui serve runs at most --max-sessions dashboards at once; close a tab "
            f"or wait: this page tries again every {RETRY_SECONDS} s.",
            retry=True,
        )
    return None


async def add_safety_headers(request: web.Request, response: web.StreamResponse) -> None:
    """An ``on_response_prepare`` hook: every answer, the dashboard's page included."""
    response.headers.update(SAFETY_HEADERS)
