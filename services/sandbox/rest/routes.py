"""The REST routes: one small handler per GitHub operation, over the store.

Handlers see a parsed :class:`Call` (path relative to the API root, query as a
multi-dict, JSON body) and return a :class:`Reply`. Transport concerns (auth,
pagination headers, ETags, faults, recording) live in ``server.py``.

The handlers live by resource: :mod:`rest_repo` (repository, users),
:mod:`rest_pulls` (pull requests, reviews, review comments), :mod:`rest_issues`
(issue, comments, labels) and :mod:`rest_commits` (commits, check runs,
statuses), over :mod:`rest_routing` (call, reply, route table).
"""

from __future__ import annotations

from urllib.parse import unquote

from syncdesk.services.sandbox.rest import commits as rest_commits
from syncdesk.services.sandbox.rest import issues as rest_issues
from syncdesk.services.sandbox.rest import pulls as rest_pulls
from syncdesk.services.sandbox.rest import repo as rest_repo
from syncdesk.services.sandbox.rest.routing import (
    ROUTES,
    Call,
    Reply,
    not_found,
)

# Importing a route module registers its handlers; dispatch lives here so the table is full.
ROUTE_MODULES = (rest_repo, rest_pulls, rest_issues, rest_commits)


def dispatch(call: Call) -> Reply:
    """Find the handler for a call; 404 for unknown paths, 405-less like GitHub (404)."""
    for method, regex, handler in ROUTES:
        match = regex.match(call.path)
        if match is None or method != call.method:
            continue
        # Path parameters arrive percent-encoded (PyGithub quotes label names).
        params = {key: unquote(value) for key, value in match.groupdict().items()}
        if "owner" in params and not call.store.repo_matches(params["owner"], params["repo"]):
            return not_found()
        return handler(call, params)
    return not_found()
