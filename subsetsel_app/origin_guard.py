"""A WebSocket from a page on another site is refused before Streamlit's own origin check.

Streamlit (1.67) refuses such a connection too, but first looks up the machine's internal IP (a
UDP socket towards 8.8.8.8) and external IP (HTTP to checkip.amazonaws.com), which no setting
avoids but ``server.enableCORS = false`` (every origin accepted). :class:`ForeignOriginGuard` is
an ASGI middleware for ``st.App`` (the entry ``serve.py``): it closes a WebSocket handshake whose
``Origin`` is neither the page's own (the ``Host`` it was sent to), nor a local name, nor
``browser.serverAddress``, nor in ``server.corsAllowedOrigins`` — the origins Streamlit accepts
without a look-up (and those it would accept after one). Everything else goes on to Streamlit
unchanged, its CORS and XSRF protection included.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any
from urllib.parse import urlsplit

import streamlit as st

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
ASGIApp = Callable[[Scope, Callable[[], Awaitable[Message]], Callable[[Message], Awaitable[None]]], Awaitable[None]]

#: Host names a page on this machine is served from.
LOCAL_NAMES = frozenset({"localhost", "127.0.0.1", "0.0.0.0", "::1"})  # noqa: S104 - names compared, not bound
#: The close code of a refused handshake (policy violation: the server answers 403).
POLICY_VIOLATION = 1008


def _hostname(url: str) -> str:
    try:
        return (urlsplit(url if "//" in url else f"//{url}").hostname or "").lower()
    except ValueError:
        return ""


def allowed_origin(origin: str | None, host: str, server_address: str = "",
                   cors_origins: tuple[str, ...] = ()) -> bool:
    """Whether a WebSocket with this ``Origin`` header, sent to ``host``, may reach Streamlit.

    No ``Origin`` (a client that is not a browser), the page's own origin, a local name,
    ``browser.serverAddress`` and ``server.corsAllowedOrigins`` are allowed.
    """
    if origin is None:
        return True
    try:
        netloc = urlsplit(origin).netloc
    except ValueError:
        return False
    name = _hostname(origin)
    listed = {_hostname(o.strip()) for o in cors_origins if o.strip()}
    return bool(netloc) and (netloc == host or name in LOCAL_NAMES or (bool(server_address) and name ==
                                                                       _hostname(server_address)) or name in listed)


class ForeignOriginGuard:
    """ASGI middleware: close a WebSocket handshake from another site's page (see the module docstring)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Callable[[], Awaitable[Message]],
                      send: Callable[[Message], Awaitable[None]]) -> None:
        if scope.get("type") == "websocket":
            headers = {bytes(k).decode("latin-1").lower(): bytes(v).decode("latin-1")
                       for k, v in scope.get("headers", [])}
            if not allowed_origin(headers.get("origin"), headers.get("host", ""),
                                  str(st.get_option("browser.serverAddress") or ""),
                                  tuple(st.get_option("server.corsAllowedOrigins") or ())):
                await send({"type": "websocket.close", "code": POLICY_VIOLATION})
                return
        await self.app(scope, receive, send)
