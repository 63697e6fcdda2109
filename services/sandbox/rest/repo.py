"""REST routes for the repository and its people: the repository, any user, the viewer.

``GET /rate_limit`` is answered by the server itself: it reads the request budget.
"""

from __future__ import annotations

from syncdesk.services.sandbox.payloads import repo as repo_json
from syncdesk.services.sandbox.rest.routing import Call, Reply, route


@route("GET", "{repo}")
def get_repo(call: Call, params: dict[str, str]) -> Reply:
    """``repos/get``."""
    return Reply(200, repo_json.repository(call.urls, call.store, full=True))


@route("GET", "/users/(?P<login>[^/]+)")
def get_user(call: Call, params: dict[str, str]) -> Reply:
    """``users/get-by-username``: any login exists here (its name from the scenario if listed)."""
    login = params["login"]
    known = next((u for u in call.store.scenario.users if u.login == login), None)
    name = known.name if known else None
    email = known.email if known else None
    return Reply(200, repo_json.public_user(call.urls, login, name, email))


@route("GET", "/user")
def get_viewer(call: Call, params: dict[str, str]) -> Reply:
    """``users/get-authenticated``: the scenario's viewer."""
    login = call.store.scenario.viewer
    known = next((u for u in call.store.scenario.users if u.login == login), None)
    name = known.name if known else login
    return Reply(
        200, repo_json.private_user(call.urls, login, name, known.email if known else None)
    )
