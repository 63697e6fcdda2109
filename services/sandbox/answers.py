"""What the server writes back around a route's reply: GitHub's pages, and injected faults.

A list reply is cut into the requested page with GitHub's ``Link`` header
(exact ``<url>; rel="next"`` form, absolute URLs on the request's base, other
query parameters kept); a fault answers in place of the route, with GitHub's
error body unless the fault brings its own.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from http import HTTPStatus
from typing import Any
from urllib.parse import urlencode

from syncdesk.services.sandbox.payloads import base as payload
from syncdesk.services.sandbox.rest.routing import Reply
from syncdesk.services.sandbox.scenario import FaultSpec


@dataclass(frozen=True, slots=True)
class Answer:
    """A response about to be written: status, JSON body (None: empty), extra headers."""

    status: int
    body: Any
    headers: dict[str, str]


class LiveFault:
    """A live fault: a :class:`FaultSpec` with its compiled pattern and remaining count."""

    def __init__(self, spec: FaultSpec) -> None:
        self.spec = spec
        self.pattern = re.compile(spec.path)
        self.remaining = spec.times

    def matches(self, method: str, path: str) -> bool:
        """Whether this fault still fires and names the request's method and path."""
        return (
            self.remaining > 0
            and self.spec.method.upper() in (method, "*")
            and self.pattern.search(path) is not None
        )


def fault_answer(fault: FaultSpec) -> Answer:
    """The fault's answer: its status, headers and body (GitHub's error body by default)."""
    body = fault.body
    if body is None:
        phrase = (
            HTTPStatus(fault.status).phrase if fault.status in HTTPStatus._value2member_map_ else ""
        )
        body = payload.error(fault.status, phrase or "Error")
    return Answer(fault.status, body, dict(fault.headers or {}))


def paginate(reply: Reply, urls: payload.Urls, rel: str, query: dict[str, list[str]]) -> Answer:
    """Cut a list reply into the requested page and add GitHub's ``Link`` header."""
    headers = dict(reply.headers)
    if not (reply.paginate or reply.list_key) or reply.status != 200:
        return Answer(reply.status, reply.payload, headers)
    items = reply.payload[reply.list_key] if reply.list_key else reply.payload
    per_page = min(100, max(1, _int(query, "per_page", 30)))
    page = max(1, _int(query, "page", 1))
    last = max(1, -(-len(items) // per_page))
    window = items[(page - 1) * per_page : page * per_page]
    if reply.list_key:
        payload: Any = {**reply.payload, reply.list_key: window}
    else:
        payload = window
    others = {k: v[0] for k, v in sorted(query.items()) if k not in ("page", "per_page")}

    def link(number: int, rel_name: str) -> str:
        params = urlencode({**others, "per_page": per_page, "page": number})
        return f'<{urls.api}{rel}?{params}>; rel="{rel_name}"'

    links = []
    if page > 1:
        links += [link(page - 1, "prev")]
    if page < last:
        links += [link(page + 1, "next"), link(last, "last")]
    if page > 1:
        links += [link(1, "first")]
    if links:
        headers["Link"] = ", ".join(links)
    return Answer(200, payload, headers)


def _int(query: dict[str, list[str]], name: str, default: int) -> int:
    try:
        return int(query[name][0])
    except (KeyError, ValueError, IndexError):
        return default
