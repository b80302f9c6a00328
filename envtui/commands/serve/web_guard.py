"""The door of ``envtui serve``: an aiohttp middleware that applies
:mod:`envtui.commands.serve.web_access` to every request before any handler runs.

So a refused request never reaches textual-serve, and no dashboard process is started for
it. In order: the ``Host`` (DNS rebinding), the ``Origin`` (other pages; a websocket must
carry one), then the token: given in the page's query it is exchanged for the cookie and
the browser is sent to the same address without it; everything else but the static files
needs the cookie. A page asked for while every dashboard is taken is answered 503.
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
    """What a page, download or websocket gets instead of the dashboard: the page at the
    printed name, the token swapped for its cookie, 401/403 without a good one, 503 at the
    cap; None when the request may go on."""
    host = request.headers["Host"].lower()
    page = route(request) == PAGE
    if page and access.canonical and host != access.canonical:
        # the cookie is kept per host name, and the page's websocket goes to this one
        raise web.HTTPTemporaryRedirect(f"http://{access.canonical}{request.rel_url}")
    given = request.query.get("token")
    if page and given is not None:
        if not access.token_matches(given):
            return refusal(
                403,
                "Wrong token",
                "This is not the token envtui serve printed; open the URL it printed.",
            )
        return exchange(access, request)
    if not access.cookie_matches(request.cookies.get(access.cookie_name)):
        return refusal(
            401,
            "This dashboard needs its token",
            "Open the URL envtui serve printed (it ends in ?token=...); the page then "
            "keeps the token in a cookie for this browser session.",
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


def exchange(access: Access, request: web.Request) -> web.Response:
    """The token is good: the cookie, and the same page without the token in its address
    (so it is not left in the tab's address, its history entry's title or a Referer)."""
    rest = request.rel_url.with_query([(k, v) for k, v in request.query.items() if k != "token"])
    location = f"?{rest.query_string}" if rest.query_string else "."
    response = web.Response(status=303, headers={"Location": location})
    response.set_cookie(
        access.cookie_name,
        access.cookie_value(),
        httponly=True,
        samesite="Strict",
        secure=access.secure,
        path="/",
    )
    response.headers["Cache-Control"] = "no-store"
    return response


async def add_safety_headers(request: web.Request, response: web.StreamResponse) -> None:
    """An ``on_response_prepare`` hook: every answer, the dashboard's page included."""
    response.headers.update(SAFETY_HEADERS)
