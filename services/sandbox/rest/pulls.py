"""REST routes for pull requests, their commits and reviews, and review comments and replies."""

from __future__ import annotations

from syncdesk.services.sandbox.payloads import commits as commit_json
from syncdesk.services.sandbox.payloads import pulls as pull_json
from syncdesk.services.sandbox.rest.routing import (
    Call,
    Reply,
    body_text,
    invalid,
    not_found,
    pull_of,
    route,
)
from syncdesk.services.sandbox.scenario import PullSpec, ReviewCommentSpec, ReviewSpec
from syncdesk.services.sandbox.store import now_iso


@route("GET", "{repo}/pulls")
def list_pulls(call: Call, params: dict[str, str]) -> Reply:
    """``pulls/list`` with ``state``, ``head=owner:branch`` and ``base`` filters."""
    state = call.arg("state", "open") or "open"
    if state not in ("open", "closed", "all"):
        return invalid("PullRequest", "state", "invalid")
    pulls = call.store.pulls(state, call.arg("head"), call.arg("base"))
    payload = [pull_json.pull_request(call.urls, call.store, p, full=False) for p in pulls]
    return Reply(200, payload, paginate=True)


@route("GET", "{repo}/pulls/(?P<number>\\d+)")
def get_pull(call: Call, params: dict[str, str]) -> Reply:
    """``pulls/get``."""
    pull = pull_of(call, params)
    if pull is None:
        return not_found()
    return Reply(200, pull_json.pull_request(call.urls, call.store, pull, full=True))


@route("GET", "{repo}/pulls/(?P<number>\\d+)/commits")
def list_pull_commits(call: Call, params: dict[str, str]) -> Reply:
    """``pulls/list-commits``: oldest first, like GitHub."""
    pull = pull_of(call, params)
    if pull is None:
        return not_found()
    found = (call.store.commit(sha) for sha in pull.commits)
    payload = [commit_json.commit(call.urls, c, detailed=False) for c in found if c is not None]
    return Reply(200, payload, paginate=True)


@route("GET", "{repo}/pulls/(?P<number>\\d+)/reviews")
def list_reviews(call: Call, params: dict[str, str]) -> Reply:
    """``pulls/list-reviews``: in submission order."""
    pull = pull_of(call, params)
    if pull is None:
        return not_found()
    return Reply(200, [pull_json.review(call.urls, pull, r) for r in pull.reviews], paginate=True)


def _review(pull: PullSpec, review_id: str) -> ReviewSpec | None:
    return next((r for r in pull.reviews if r.id == int(review_id)), None)


@route("GET", "{repo}/pulls/(?P<number>\\d+)/reviews/(?P<review>\\d+)")
def get_review(call: Call, params: dict[str, str]) -> Reply:
    """``pulls/get-review``."""
    pull = pull_of(call, params)
    found = _review(pull, params["review"]) if pull else None
    if pull is None or found is None:
        return not_found()
    return Reply(200, pull_json.review(call.urls, pull, found))


@route("GET", "{repo}/pulls/(?P<number>\\d+)/reviews/(?P<review>\\d+)/comments")
def list_review_comments_of_review(call: Call, params: dict[str, str]) -> Reply:
    """``pulls/list-comments-for-review`` (the legacy ``review-comment`` shape)."""
    pull = pull_of(call, params)
    found = _review(pull, params["review"]) if pull else None
    if pull is None or found is None:
        return not_found()
    comments = [c for c in pull.review_comments if c.review_id == found.id]
    payload = [pull_json.review_comment(call.urls, pull, c, legacy=True) for c in comments]
    return Reply(200, payload, paginate=True)


@route("GET", "{repo}/pulls/(?P<number>\\d+)/comments")
def list_review_comments(call: Call, params: dict[str, str]) -> Reply:
    """``pulls/list-review-comments`` (``sort=created|updated``, ``direction``, ``since``)."""
    pull = pull_of(call, params)
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
    payload = [pull_json.review_comment(call.urls, pull, c, legacy=False) for c in comments]
    return Reply(200, payload, paginate=True)


@route("GET", "{repo}/pulls/comments/(?P<cid>\\d+)")
def get_review_comment(call: Call, params: dict[str, str]) -> Reply:
    """``pulls/get-review-comment``."""
    found = call.store.review_comment(int(params["cid"]))
    if found is None:
        return not_found()
    return Reply(200, pull_json.review_comment(call.urls, found.pull, found.item, legacy=False))


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
    payload = pull_json.review_comment(call.urls, pull, created, legacy=False)
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
    pull = pull_of(call, params)
    if pull is None:
        return not_found()
    text = body_text(call)
    if text is None:
        return invalid("PullRequestReviewComment", "body", "missing_field")
    return _reply_to(call, pull, int(params["cid"]), text)


@route("POST", "{repo}/pulls/(?P<number>\\d+)/comments")
def create_review_comment(call: Call, params: dict[str, str]) -> Reply:
    """``pulls/create-review-comment``: a new thread, or a reply via ``in_reply_to``."""
    pull = pull_of(call, params)
    if pull is None:
        return not_found()
    body = call.body if isinstance(call.body, dict) else {}
    text = body_text(call)
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
    payload = pull_json.review_comment(call.urls, pull, created, legacy=False)
    return Reply(201, payload, created_id=created.id, headers={"Location": payload["url"]})


def _hunk(line: int) -> str:
    return f"@@ -{line},1 +{line},1 @@\n {line}"
