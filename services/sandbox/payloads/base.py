"""What every REST payload builder shares: the request's URLs, stable ids, resource-less bodies.

API URLs are built on the base URL the request came in on (see :mod:`builders`
for why); ids are derived from names so every run of a scenario serves the
same ones. The error body and the rate-limit overview belong to no resource.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

JSON = dict[str, Any]


@dataclass(frozen=True, slots=True)
class Urls:
    """Where things live for one request: the API base it used and the web base."""

    api: str  # http://127.0.0.1:P or http://127.0.0.1:P/api/v3 (no trailing slash)
    web: str  # https://github.com
    owner: str
    name: str

    @property
    def repo_api(self) -> str:
        """``{api}/repos/{owner}/{name}``."""
        return f"{self.api}/repos/{self.owner}/{self.name}"

    @property
    def repo_web(self) -> str:
        """``{web}/{owner}/{name}``."""
        return f"{self.web}/{self.owner}/{self.name}"


def stable_id(text: str, modulo: int = 90_000_000) -> int:
    """A deterministic positive id for a name (user ids, node ids)."""
    return int(hashlib.sha256(text.encode()).hexdigest()[:12], 16) % modulo + 1_000


def node_id(kind: str, key: object) -> str:
    """An opaque GraphQL-style node id."""
    return f"{kind}_{hashlib.sha256(f'{kind}:{key}'.encode()).hexdigest()[:20]}"


def is_bot(login: str) -> bool:
    """Whether a login is an app's bot account (GitHub's ``[bot]`` suffix)."""
    return login.endswith("[bot]")


def rate_limit_overview(used: int, limit: int, reset: int) -> JSON:
    """``rate-limit-overview`` (``GET /rate_limit``)."""
    core = {"limit": limit, "used": used, "remaining": max(0, limit - used), "reset": reset}
    idle = {"limit": limit, "used": 0, "remaining": limit, "reset": reset}
    return {
        "resources": {"core": core, "search": dict(idle), "graphql": dict(idle)},
        "rate": core,
    }


def error(status_code: int, message: str, errors: list[JSON] | None = None) -> JSON:
    """GitHub's error body (``basic-error`` / ``validation-error``)."""
    body: JSON = {
        "message": message,
        "documentation_url": "https://docs.github.com/rest",
        "status": str(status_code),
    }
    if errors is not None:
        body["errors"] = errors
    return body
