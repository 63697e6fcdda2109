"""REST plumbing shared by the route modules: a parsed call, its reply, the route table.

Handlers see a parsed :class:`Call` (path relative to the API root, query as a
multi-dict, JSON body) and return a :class:`Reply`. ``@route`` adds a handler to
:data:`ROUTES`; :func:`syncdesk.services.sandbox.rest.routes.dispatch` (which imports every route
module, so the table is full) picks one per call.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from syncdesk.services.sandbox.payloads import base as payload
from syncdesk.services.sandbox.scenario import PullSpec
from syncdesk.services.sandbox.store import Store

JSON = dict[str, Any]


@dataclass(frozen=True, slots=True)
class Call:
    """One API request, parsed."""

    method: str
    path: str  # relative to the API root, e.g. /repos/o/r/pulls/1
    query: dict[str, list[str]]
    body: Any
    urls: payload.Urls
    store: Store

    def arg(self, name: str, default: str | None = None) -> str | None:
        """The first value of a query parameter."""
        values = self.query.get(name)
        return values[0] if values else default


@dataclass(slots=True)
class Reply:
    """What a handler answers; ``paginate`` lists are cut into pages by the server."""

    status: int
    payload: Any
    paginate: bool = False
    list_key: str | None = None  # paginate payload[list_key] inside {"total_count", key}
    created_id: int | None = None
    headers: dict[str, str] = field(default_factory=dict)


Handler = Callable[[Call, dict[str, str]], Reply]


def not_found() -> Reply:
    """GitHub's 404 (PyGithub maps "Not Found" to ``UnknownObjectException``)."""
    return Reply(404, payload.error(404, "Not Found"))


def invalid(resource: str, field_name: str, code: str, message: str | None = None) -> Reply:
    """GitHub's 422 ``Validation Failed`` with one error item."""
    item: JSON = {"resource": resource, "code": code, "field": field_name}
    if message:
        item["message"] = message
    return Reply(422, payload.error(422, "Validation Failed", [item]))


_REPO = r"/repos/(?P<owner>[^/]+)/(?P<repo>[^/]+)"
ROUTES: list[tuple[str, re.Pattern[str], Handler]] = []


def route(method: str, pattern: str) -> Callable[[Handler], Handler]:
    """Register a handler for ``method`` and a path pattern (``{repo}`` = /repos/o/r).

    Patterns are anchored and no two of one method match the same path, so the
    order the route modules register in does not change which handler answers.
    """

    def register(handler: Handler) -> Handler:
        regex = re.compile("^" + pattern.replace("{repo}", _REPO) + "/?$")
        ROUTES.append((method, regex, handler))
        return handler

    return register


def pull_of(call: Call, params: dict[str, str], key: str = "number") -> PullSpec | None:
    """The pull request a path names (``None``: 404)."""
    return call.store.pull(int(params[key]))


def body_text(call: Call) -> str | None:
    """The request's non-empty ``body`` text (``None``: missing, GitHub's 422)."""
    body = call.body.get("body") if isinstance(call.body, dict) else None
    return body if isinstance(body, str) and body != "" else None
