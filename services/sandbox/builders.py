"""REST payload builders: GitHub-shaped JSON from the store, every required field filled.

Each builder fills every field GitHub's OpenAPI schema marks required (the
contract tests validate them against ``github_jsonschema_subset.json``).
API URLs (``url``, ``issue_url``, ``comments_url``...) are built on the base URL
the request came in on: PyGithub asserts that every URL it follows has the
base URL's host, port and path prefix, and builds follow-up calls from these
fields (``f"{pr.issue_url}/comments"``). ``html_url`` and blob links stay on
the web URL, which PyGithub never requests.

One module per resource: :mod:`payload_repo` (users, the repository, labels),
:mod:`payload_pulls` (pull requests, their issue, reviews and comments) and
:mod:`payload_commits` (commits, check runs, statuses), over :mod:`payload_base`
(URLs, ids, the error body, the rate-limit overview). The routes and GraphQL
resolvers reach them all here, as ``b.<builder>``.
"""

from __future__ import annotations

from services.sandbox.payload_base import (
    JSON,
    Urls,
    error,
    is_bot,
    node_id,
    rate_limit_overview,
    stable_id,
)
from services.sandbox.payload_commits import (
    check_run,
    combined_state,
    combined_status,
    commit,
    status,
)
from services.sandbox.payload_pulls import (
    issue,
    issue_comment,
    pull_labels,
    pull_request,
    review,
    review_comment,
)
from services.sandbox.payload_repo import (
    label,
    private_user,
    public_user,
    repository,
    simple_user,
)

__all__ = [
    "JSON",
    "Urls",
    "check_run",
    "combined_state",
    "combined_status",
    "commit",
    "error",
    "is_bot",
    "issue",
    "issue_comment",
    "label",
    "node_id",
    "private_user",
    "public_user",
    "pull_labels",
    "pull_request",
    "rate_limit_overview",
    "repository",
    "review",
    "review_comment",
    "simple_user",
    "stable_id",
    "status",
]
