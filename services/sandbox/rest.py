"""The REST routes: one small handler per GitHub operation, over the store.

Handlers see a parsed :class:`Call` (path relative to the API root, query as a
multi-dict, JSON body) and return a :class:`Reply`. Transport concerns (auth,
pagination headers, ETags, faults, recording) live in ``server.py``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote

from services.sandbox import builders as b
from services.sandbox.scenario import PullSpec, ReviewCommentSpec, ReviewSpec
from services.sandbox.store import Store, now_iso

JSON = dict[str, Any]


@dataclass(frozen=True, slots=True)
class Call:
    """One API request, parsed."""

    method: str
    path: str  # relative to the API root, e.g. /repos/o/r/pulls/1
    query: dict[str, list[str]]
    body: Any
    urls: b.Urls
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
    return Reply(404, b.error(404, "Not Found"))


def invalid(resource: str, field_name: str, code: str, message: str | None = None) -> Reply:
    """GitHub's 422 ``Validation Failed`` with one error item."""
    item: JSON = {"resource": resource, "code": code, "field": field_name}
    if message:
        item["message"] = message
    return Reply(422, b.error(422, "Validation Failed", [item]))


_REPO = r"/repos/(?P<owner>[^/]+)/(?P<repo>[^/]+)"
_ROUTES: list[tuple[str, re.Pattern[str], Handler]] = []


def route(method: str, pattern: str) -> Callable[[Handler], Handler]:
    """Register a handler for ``method`` and a path pattern (``{repo}`` = /repos/o/r)."""

    def register(handler: Handler) -> Handler:
        regex = re.compile("^" + pattern.replace("{repo}", _REPO) + "/?$")
        _ROUTES.append((method, regex, handler))
        return handler

    return register


def dispatch(call: Call) -> Reply:
    """Find the handler for a call; 404 for unknown paths, 405-less like GitHub (404)."""
    for method, regex, handler in _ROUTES:
        match = regex.match(call.path)
        if match is None or method != call.method:
            continue
        # Path parameters arrive percent-encoded (PyGithub quotes label names).
        params = {key: unquote(value) for key, value in match.groupdict().items()}
        if "owner" in params and not call.store.repo_matches(params["owner"], params["repo"]):
            return not_found()
        return handler(call, params)
    return not_found()


def _pull(call: Call, params: dict[str, str], key: str = "number") -> PullSpec | None:
    return call.store.pull(int(params[key]))


# -- repository, users, rate limit --------------------------------------------------------


@route("GET", "{repo}")
def get_repo(call: Call, params: dict[str, str]) -> Reply:
    """``repos/get``."""
    return Reply(200, b.repository(call.urls, call.store, full=True))


@route("GET", "/users/(?P<login>[^/]+)")
def get_user(call: Call, params: dict[str, str]) -> Reply:
    """``users/get-by-username``: any login exists here (its name from the scenario if listed)."""
    login = params["login"]
    known = next((u for u in call.store.scenario.users if u.login == login), None)
    name = known.name if known else None
    email = known.email if known else None
    return Reply(200, b.public_user(call.urls, login, name, email))


@route("GET", "/user")
def get_viewer(call: Call, params: dict[str, str]) -> Reply:
    """``users/get-authenticated``: the scenario's viewer."""
    login = call.store.scenario.viewer
    known = next((u for u in call.store.scenario.users if u.login == login), None)
    name = known.name if known else login
    return Reply(200, b.private_user(call.urls, login, name, known.email if known else None))


# -- pull requests --------------------------------------------------------------------------


@route("GET", "{repo}/pulls")
def list_pulls(call: Call, params: dict[str, str]) -> Reply:
    """``pulls/list`` with ``state``, ``head=owner:branch`` and ``base`` filters."""
    state = call.arg("state", "open") or "open"
    if state not in ("open", "closed", "all"):
        return invalid("PullRequest", "state", "invalid")
    pulls = call.store.pulls(state, call.arg("head"), call.arg("base"))
    payload = [b.pull_request(call.urls, call.store, p, full=False) for p in pulls]
    return Reply(200, payload, paginate=True)


@route("GET", "{repo}/pulls/(?P<number>\\d+)")
def get_pull(call: Call, params: dict[str, str]) -> Reply:
    """``pulls/get``."""
    pull = _pull(call, params)
    if pull is None:
        return not_found()
    return Reply(200, b.pull_request(call.urls, call.store, pull, full=True))


@route("GET", "{repo}/pulls/(?P<number>\\d+)/commits")
def list_pull_commits(call: Call, params: dict[str, str]) -> Reply:
    """``pulls/list-commits``: oldest first, like GitHub."""
    pull = _pull(call, params)
    if pull is None:
        return not_found()
    found = (call.store.commit(sha) for sha in pull.commits)
    payload = [b.commit(call.urls, c, detailed=False) for c in found if c is not None]
    return Reply(200, payload, paginate=True)


@route("GET", "{repo}/pulls/(?P<number>\\d+)/reviews")
def list_reviews(call: Call, params: dict[str, str]) -> Reply:
    """``pulls/list-reviews``: in submission order."""
    pull = _pull(call, params)
    if pull is None:
        return not_found()
    return Reply(200, [b.review(call.urls, pull, r) for r in pull.reviews], paginate=True)


def _review(pull: PullSpec, review_id: str) -> ReviewSpec | None:
    return next((r for r in pull.reviews if r.id == int(review_id)), None)


@route("GET", "{repo}/pulls/(?P<number>\\d+)/reviews/(?P<review>\\d+)")
def get_review(call: Call, params: dict[str, str]) -> Reply:
    """``pulls/get-review``."""
    pull = _pull(call, params)
    found = _review(pull, params["review"]) if pull else None
    if pull is None or found is None:
        return not_found()
    return Reply(200, b.review(call.urls, pull, found))


@route("GET", "{repo}/pulls/(?P<number>\\d+)/reviews/(?P<review>\\d+)/comments")
def list_review_comments_of_review(call: Call, params: dict[str, str]) -> Reply:
    """``pulls/list-comments-for-review`` (the legacy ``review-comment`` shape)."""
    pull = _pull(call, params)
    found = _review(pull, params["review"]) if pull else None
    if pull is None or found is None:
        return not_found()
    comments = [c for c in pull.review_comments if c.review_id == found.id]
    payload = [b.review_comment(call.urls, pull, c, legacy=True) for c in comments]
    return Reply(200, payload, paginate=True)


@route("GET", "{repo}/pulls/(?P<number>\\d+)/comments")
def list_review_comments(call: Call, params: dict[str, str]) -> Reply:
    """``pulls/list-review-comments`` (``sort=created|updated``, ``direction``, ``since``)."""
    pull = _pull(call, params)
    if pull is None:
        return not_found()
    comments = list(pull.review_comments)
    since = call.arg("since")
    if since:
        comments = [c for c in comments if (c.updated_at or c.created_at) >= since]
    key = call.arg("sort", "created")
    comments.sort(key=lambda c: (c.updated_at or c.created_at) if key == "updated" else c.id)
    if call.arg("direction") == "desc":
        comments.reverse()
    payload = [b.review_comment(call.urls, pull, c, legacy=False) for c in comments]
    return Reply(200, payload, paginate=True)


@route("GET", "{repo}/pulls/comments/(?P<cid>\\d+)")
def get_review_comment(call: Call, params: dict[str, str]) -> Reply:
    """``pulls/get-review-comment``."""
    found = call.store.review_comment(int(params["cid"]))
    if found is None:
        return not_found()
    return Reply(200, b.review_comment(call.urls, found.pull, found.item, legacy=False))


def _body_text(call: Call) -> str | None:
    body = call.body.get("body") if isinstance(call.body, dict) else None
    return body if isinstance(body, str) and body != "" else None


def _reply_to(call: Call, pull: PullSpec, parent_id: int, text: str) -> Reply:
    """A reply in a thread. Replies to replies are refused.

    GitHub's docs for both reply forms: the id "must be the ID of a top-level
    review comment, not a reply to that comment. Replies to replies are not
    supported." Clients must send the thread's root id (``in_reply_to_id`` of
    any reply names it).
    """
    parent = next((c for c in pull.review_comments if c.id == parent_id), None)
    if parent is None:
        return not_found()
    if parent.in_reply_to_id is not None:
        return invalid(
            "PullRequestReviewComment",
            "in_reply_to",
            "invalid",
            "Replies to replies are not supported; reply to the thread's top-level comment "
            f"({parent.in_reply_to_id}).",
        )
    created = ReviewCommentSpec(
        id=call.store.new_id(),
        user=call.store.scenario.viewer,
        body=text,
        path=parent.path,
        commit_id=parent.commit_id,
        original_commit_id=parent.original_commit_id,
        line=parent.line,
        original_line=parent.original_line,
        start_line=parent.start_line,
        original_start_line=parent.original_start_line,
        side=parent.side,
        start_side=parent.start_side,
        review_id=_single_comment_review(call, pull, parent.commit_id),
        in_reply_to_id=parent.id,
        diff_hunk=parent.diff_hunk,
        subject_type=parent.subject_type,
        created_at=now_iso(),
    )
    call.store.add_review_comment(pull, created)
    payload = b.review_comment(call.urls, pull, created, legacy=False)
    return Reply(201, payload, created_id=created.id, headers={"Location": payload["url"]})


def _single_comment_review(call: Call, pull: PullSpec, commit_id: str) -> int:
    """GitHub wraps a comment posted outside a review in its own COMMENTED review."""
    with call.store.lock:
        review = ReviewSpec(
            call.store.new_id(), call.store.scenario.viewer, "", commit_id, "COMMENTED", now_iso()
        )
        pull.reviews.append(review)
        return review.id


@route("POST", "{repo}/pulls/(?P<number>\\d+)/comments/(?P<cid>\\d+)/replies")
def create_reply(call: Call, params: dict[str, str]) -> Reply:
    """``pulls/create-reply-for-review-comment``: inherits path, lines and commit."""
    pull = _pull(call, params)
    if pull is None:
        return not_found()
    text = _body_text(call)
    if text is None:
        return invalid("PullRequestReviewComment", "body", "missing_field")
    return _reply_to(call, pull, int(params["cid"]), text)


@route("POST", "{repo}/pulls/(?P<number>\\d+)/comments")
def create_review_comment(call: Call, params: dict[str, str]) -> Reply:
    """``pulls/create-review-comment``: a new thread, or a reply via ``in_reply_to``."""
    pull = _pull(call, params)
    if pull is None:
        return not_found()
    body = call.body if isinstance(call.body, dict) else {}
    text = _body_text(call)
    if text is None:
        return invalid("PullRequestReviewComment", "body", "missing_field")
    if isinstance(body.get("in_reply_to"), int):
        # With in_reply_to, GitHub ignores every parameter except body.
        return _reply_to(call, pull, body["in_reply_to"], text)
    is_file = body.get("subject_type") == "file"
    for name in ("commit_id", "path", *(() if is_file else ("line",))):
        if name not in body:
            return invalid("PullRequestReviewComment", name, "missing_field")
    if body["commit_id"] not in pull.commits:
        return invalid("PullRequestReviewComment", "commit_id", "invalid")
    line = body.get("line")
    start = body.get("start_line")
    if not is_file and not isinstance(line, int):
        return invalid("PullRequestReviewComment", "line", "invalid")
    if start is not None and (not isinstance(start, int) or not isinstance(line, int)):
        return invalid("PullRequestReviewComment", "start_line", "invalid")
    if isinstance(start, int) and isinstance(line, int) and start >= line:
        return invalid(
            "PullRequestReviewComment", "start_line", "invalid", "start_line must precede line"
        )
    side = str(body.get("side", "RIGHT"))
    created = ReviewCommentSpec(
        id=call.store.new_id(),
        user=call.store.scenario.viewer,
        body=text,
        path=str(body["path"]),
        commit_id=str(body["commit_id"]),
        original_commit_id=str(body["commit_id"]),
        line=line if isinstance(line, int) else None,
        original_line=line if isinstance(line, int) else 1,
        start_line=start,
        original_start_line=start,
        side=side,
        start_side=str(body.get("start_side", side)) if start is not None else None,
        review_id=_single_comment_review(call, pull, str(body["commit_id"])),
        diff_hunk=_hunk(line if isinstance(line, int) else 1),
        subject_type="file" if is_file else "line",
        created_at=now_iso(),
    )
    call.store.add_review_comment(pull, created)
    payload = b.review_comment(call.urls, pull, created, legacy=False)
    return Reply(201, payload, created_id=created.id, headers={"Location": payload["url"]})


def _hunk(line: int) -> str:
    return f"@@ -{line},1 +{line},1 @@\n {line}"


# -- issues, comments, labels ---------------------------------------------------------------


@route("GET", "{repo}/issues/(?P<number>\\d+)")
def get_issue(call: Call, params: dict[str, str]) -> Reply:
    """``issues/get`` (every issue here is a pull request)."""
    pull = _pull(call, params)
    return not_found() if pull is None else Reply(200, b.issue(call.urls, call.store, pull))


@route("GET", "{repo}/issues/(?P<number>\\d+)/comments")
def list_issue_comments(call: Call, params: dict[str, str]) -> Reply:
    """``issues/list-comments``: oldest first, ``since`` filter."""
    pull = _pull(call, params)
    if pull is None:
        return not_found()
    since = call.arg("since")
    comments = [c for c in pull.issue_comments if not since or c.created_at >= since]
    payload = [b.issue_comment(call.urls, pull, c) for c in comments]
    return Reply(200, payload, paginate=True)


@route("POST", "{repo}/issues/(?P<number>\\d+)/comments")
def create_issue_comment(call: Call, params: dict[str, str]) -> Reply:
    """``issues/create-comment``."""
    pull = _pull(call, params)
    if pull is None:
        return not_found()
    text = _body_text(call)
    if text is None:
        return invalid("IssueComment", "body", "missing_field")
    created = call.store.add_issue_comment(pull, call.store.scenario.viewer, text)
    payload = b.issue_comment(call.urls, pull, created)
    return Reply(201, payload, created_id=created.id, headers={"Location": payload["url"]})


@route("GET", "{repo}/issues/comments/(?P<cid>\\d+)")
def get_issue_comment(call: Call, params: dict[str, str]) -> Reply:
    """``issues/get-comment``."""
    found = call.store.issue_comment(int(params["cid"]))
    if found is None:
        return not_found()
    return Reply(200, b.issue_comment(call.urls, found.pull, found.item))


@route("PATCH", "{repo}/issues/comments/(?P<cid>\\d+)")
def update_issue_comment(call: Call, params: dict[str, str]) -> Reply:
    """``issues/update-comment``."""
    found = call.store.issue_comment(int(params["cid"]))
    if found is None:
        return not_found()
    text = _body_text(call)
    if text is None:
        return invalid("IssueComment", "body", "missing_field")
    call.store.edit_issue_comment(found.item, text)
    return Reply(200, b.issue_comment(call.urls, found.pull, found.item), created_id=found.item.id)


def _label_names(body: Any) -> list[str] | None:
    """Label names from ``["a"]``, ``{"labels": ["a"]}`` or ``[{"name": "a"}]`` bodies."""
    items = body.get("labels") if isinstance(body, dict) else body
    if not isinstance(items, list):
        return None
    names: list[str] = []
    for item in items:
        name = item.get("name") if isinstance(item, dict) else item
        if not isinstance(name, str) or not name:
            return None
        names.append(name)
    return names


def _labels_reply(call: Call, pull: PullSpec) -> Reply:
    return Reply(200, b.pull_labels(call.urls, call.store, pull))


@route("GET", "{repo}/issues/(?P<number>\\d+)/labels")
def list_issue_labels(call: Call, params: dict[str, str]) -> Reply:
    """``issues/list-labels-on-issue``."""
    pull = _pull(call, params)
    if pull is None:
        return not_found()
    return Reply(200, b.pull_labels(call.urls, call.store, pull), paginate=True)


@route("POST", "{repo}/issues/(?P<number>\\d+)/labels")
def add_issue_labels(call: Call, params: dict[str, str]) -> Reply:
    """``issues/add-labels`` (PyGithub sends a bare JSON array of names)."""
    pull = _pull(call, params)
    names = _label_names(call.body)
    if pull is None:
        return not_found()
    if names is None:
        return invalid("Label", "labels", "invalid")
    call.store.add_labels(pull, names)
    return _labels_reply(call, pull)


@route("PUT", "{repo}/issues/(?P<number>\\d+)/labels")
def set_issue_labels(call: Call, params: dict[str, str]) -> Reply:
    """``issues/set-labels``."""
    pull = _pull(call, params)
    names = _label_names(call.body)
    if pull is None:
        return not_found()
    if names is None:
        return invalid("Label", "labels", "invalid")
    call.store.set_labels(pull, names)
    return _labels_reply(call, pull)


@route("DELETE", "{repo}/issues/(?P<number>\\d+)/labels")
def clear_issue_labels(call: Call, params: dict[str, str]) -> Reply:
    """``issues/remove-all-labels``: 204, no body."""
    pull = _pull(call, params)
    if pull is None:
        return not_found()
    call.store.set_labels(pull, [])
    return Reply(204, None)


@route("DELETE", "{repo}/issues/(?P<number>\\d+)/labels/(?P<name>[^/]+)")
def remove_issue_label(call: Call, params: dict[str, str]) -> Reply:
    """``issues/remove-label``: the remaining labels, or 404 "Label does not exist"."""
    pull = _pull(call, params)
    if pull is None:
        return not_found()
    if not call.store.remove_label(pull, params["name"]):
        return Reply(404, b.error(404, "Label does not exist"))
    return _labels_reply(call, pull)


@route("GET", "{repo}/labels")
def list_repo_labels(call: Call, params: dict[str, str]) -> Reply:
    """``issues/list-labels-for-repo``."""
    payload = [b.label(call.urls, spec) for spec in call.store.scenario.labels]
    return Reply(200, payload, paginate=True)


# -- commits, checks, statuses ----------------------------------------------------------------


@route("GET", "{repo}/commits/(?P<ref>[^/]+)")
def get_commit(call: Call, params: dict[str, str]) -> Reply:
    """``repos/get-commit``: ref = full SHA, short SHA or branch (PyGithub adds ``?page=1``)."""
    found = call.store.commit(params["ref"])
    if found is None:
        return Reply(422, b.error(422, f"No commit found for SHA: {params['ref']}"))
    return Reply(200, b.commit(call.urls, found, detailed=True))


@route("GET", "{repo}/commits/(?P<ref>[^/]+)/check-runs")
def list_check_runs(call: Call, params: dict[str, str]) -> Reply:
    """``checks/list-for-ref``: ``check_name``, ``status`` and ``filter=latest|all``."""
    found = call.store.commit(params["ref"])
    if found is None:
        return not_found()
    runs = sorted(found.check_runs, key=lambda r: r.id, reverse=True)
    if call.arg("filter", "latest") == "latest":
        latest: dict[str, Any] = {}
        for run in runs:
            latest.setdefault(run.name, run)
        runs = list(latest.values())
    name = call.arg("check_name")
    wanted_status = call.arg("status")
    runs = [r for r in runs if (not name or r.name == name)]
    runs = [r for r in runs if (not wanted_status or r.status == wanted_status)]
    payload = [b.check_run(call.urls, found, r) for r in runs]
    return Reply(200, {"total_count": len(payload), "check_runs": payload}, list_key="check_runs")


@route("GET", "{repo}/check-runs/(?P<run>\\d+)")
def get_check_run(call: Call, params: dict[str, str]) -> Reply:
    """``checks/get``."""
    found = call.store.check_run(int(params["run"]))
    if found is None:
        return not_found()
    return Reply(200, b.check_run(call.urls, *found))


@route("GET", "{repo}/check-runs/(?P<run>\\d+)/annotations")
def list_annotations(call: Call, params: dict[str, str]) -> Reply:
    """``checks/list-annotations``: the demo's runs carry none."""
    if call.store.check_run(int(params["run"])) is None:
        return not_found()
    return Reply(200, [], paginate=True)


@route("GET", "{repo}/commits/(?P<ref>[^/]+)/status")
def get_combined_status(call: Call, params: dict[str, str]) -> Reply:
    """``repos/get-combined-status-for-ref`` (check runs do not count, as on GitHub)."""
    found = call.store.commit(params["ref"])
    if found is None:
        return not_found()
    return Reply(200, b.combined_status(call.urls, call.store, found))


def _statuses(call: Call, ref: str) -> Reply:
    found = call.store.commit(ref)
    if found is None:
        return not_found()
    payload = [b.status(call.urls, s, with_creator=True) for s in call.store.statuses(found)]
    return Reply(200, payload, paginate=True)


@route("GET", "{repo}/commits/(?P<ref>[^/]+)/statuses")
def list_statuses(call: Call, params: dict[str, str]) -> Reply:
    """``repos/list-commit-statuses-for-ref``."""
    return _statuses(call, params["ref"])


@route("GET", "{repo}/statuses/(?P<ref>[^/]+)")
def list_statuses_legacy(call: Call, params: dict[str, str]) -> Reply:
    """The legacy ``/statuses/{sha}`` path ``Commit.get_statuses()`` still uses."""
    return _statuses(call, params["ref"])
