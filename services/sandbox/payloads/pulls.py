"""Payloads for a pull request and its conversation: the pull, its issue, reviews, comments."""

from __future__ import annotations

from syncdesk.services.sandbox.payloads.base import JSON, Urls, is_bot, node_id, stable_id
from syncdesk.services.sandbox.payloads.repo import label, repository, simple_user
from syncdesk.services.sandbox.scenario import (
    IssueCommentSpec,
    PullSpec,
    ReviewCommentSpec,
    ReviewSpec,
)
from syncdesk.services.sandbox.store import Store


def pull_labels(urls: Urls, store: Store, pull: PullSpec) -> list[JSON]:
    """The labels a pull request carries, as label objects."""
    found = (store.label(name) for name in pull.labels)
    return [label(urls, spec) for spec in found if spec is not None]


def _pull_links(urls: Urls, number: int, head_sha: str) -> JSON:
    api = f"{urls.repo_api}/pulls/{number}"
    return {
        "self": {"href": api},
        "html": {"href": f"{urls.repo_web}/pull/{number}"},
        "issue": {"href": f"{urls.repo_api}/issues/{number}"},
        "comments": {"href": f"{urls.repo_api}/issues/{number}/comments"},
        "review_comments": {"href": f"{api}/comments"},
        "review_comment": {"href": f"{urls.repo_api}/pulls/comments{{/number}}"},
        "commits": {"href": f"{api}/commits"},
        "statuses": {"href": f"{urls.repo_api}/statuses/{head_sha}"},
    }


def _branch(urls: Urls, store: Store, ref: str, sha: str) -> JSON:
    owner = store.scenario.owner
    return {
        "label": f"{owner}:{ref}",
        "ref": ref,
        "sha": sha,
        "user": simple_user(urls, owner),
        "repo": repository(urls, store, full=False),
    }


def pull_request(urls: Urls, store: Store, spec: PullSpec, *, full: bool) -> JSON:
    """``pull-request`` (``full``) or ``pull-request-simple`` (list items)."""
    api = f"{urls.repo_api}/pulls/{spec.number}"
    issue_api = f"{urls.repo_api}/issues/{spec.number}"
    data: JSON = {
        "url": api,
        "id": stable_id(f"pull:{spec.number}"),
        "node_id": node_id("PR", spec.number),
        "html_url": f"{urls.repo_web}/pull/{spec.number}",
        "diff_url": f"{urls.repo_web}/pull/{spec.number}.diff",
        "patch_url": f"{urls.repo_web}/pull/{spec.number}.patch",
        "issue_url": issue_api,
        "commits_url": f"{api}/commits",
        "review_comments_url": f"{api}/comments",
        "review_comment_url": f"{urls.repo_api}/pulls/comments{{/number}}",
        "comments_url": f"{issue_api}/comments",
        "statuses_url": f"{urls.repo_api}/statuses/{spec.head_sha}",
        "number": spec.number,
        "state": spec.state,
        "locked": False,
        "title": spec.title,
        "user": simple_user(urls, spec.user),
        "body": spec.body,
        "labels": pull_labels(urls, store, spec),
        "milestone": None,
        "active_lock_reason": None,
        "created_at": spec.created_at,
        "updated_at": spec.updated_at,
        "closed_at": spec.closed_at,
        "merged_at": spec.merged_at,
        "merge_commit_sha": spec.merge_commit_sha,
        "assignee": None,
        "assignees": [],
        "requested_reviewers": [],
        "requested_teams": [],
        "head": _branch(urls, store, spec.head_ref, spec.head_sha),
        "base": _branch(urls, store, spec.base_ref, spec.base_sha),
        "_links": _pull_links(urls, spec.number, spec.head_sha),
        "author_association": "CONTRIBUTOR" if is_bot(spec.user) else "MEMBER",
        "auto_merge": None,
        "draft": False,
    }
    if full:
        data |= {
            "merged": spec.merged,
            "mergeable": None if spec.state == "closed" else True,
            "rebaseable": False,
            "mergeable_state": "unknown" if spec.state == "closed" else "blocked",
            "merged_by": simple_user(urls, spec.merged_by) if spec.merged_by else None,
            "comments": len(spec.issue_comments),
            "review_comments": len(spec.review_comments),
            "maintainer_can_modify": False,
            "commits": len(spec.commits),
            "additions": spec.additions,
            "deletions": spec.deletions,
            "changed_files": spec.changed_files,
        }
    return data


def issue(urls: Urls, store: Store, spec: PullSpec) -> JSON:
    """``issue`` for a pull request (``GET /issues/{n}`` works on pull requests too)."""
    api = f"{urls.repo_api}/issues/{spec.number}"
    return {
        "id": stable_id(f"issue:{spec.number}"),
        "node_id": node_id("I", spec.number),
        "url": api,
        "repository_url": urls.repo_api,
        "labels_url": f"{api}/labels{{/name}}",
        "comments_url": f"{api}/comments",
        "events_url": f"{api}/events",
        "html_url": f"{urls.repo_web}/pull/{spec.number}",
        "number": spec.number,
        "state": spec.state,
        "title": spec.title,
        "body": spec.body,
        "user": simple_user(urls, spec.user),
        "labels": pull_labels(urls, store, spec),
        "assignee": None,
        "assignees": [],
        "milestone": None,
        "locked": False,
        "active_lock_reason": None,
        "comments": len(spec.issue_comments),
        "pull_request": {
            "url": f"{urls.repo_api}/pulls/{spec.number}",
            "html_url": f"{urls.repo_web}/pull/{spec.number}",
            "diff_url": f"{urls.repo_web}/pull/{spec.number}.diff",
            "patch_url": f"{urls.repo_web}/pull/{spec.number}.patch",
            "merged_at": spec.merged_at,
        },
        "closed_at": spec.closed_at,
        "created_at": spec.created_at,
        "updated_at": spec.updated_at,
        "author_association": "MEMBER",
    }


def review(urls: Urls, pull: PullSpec, spec: ReviewSpec) -> JSON:
    """``pull-request-review``."""
    pull_api = f"{urls.repo_api}/pulls/{pull.number}"
    html = f"{urls.repo_web}/pull/{pull.number}#pullrequestreview-{spec.id}"
    return {
        "id": spec.id,
        "node_id": node_id("PRR", spec.id),
        "user": simple_user(urls, spec.user),
        "body": spec.body,
        "state": spec.state,
        "html_url": html,
        "pull_request_url": pull_api,
        "_links": {"html": {"href": html}, "pull_request": {"href": pull_api}},
        "submitted_at": spec.submitted_at,
        "commit_id": spec.commit_id,
        "author_association": "CONTRIBUTOR" if is_bot(spec.user) else "MEMBER",
    }


def review_comment(urls: Urls, pull: PullSpec, spec: ReviewCommentSpec, *, legacy: bool) -> JSON:
    """``pull-request-review-comment``, or with ``legacy`` the ``review-comment`` shape.

    An outdated comment has ``line: null`` and ``position: null`` (what GitHub
    sends), with ``original_line`` still set. ``in_reply_to_id`` is absent on
    a thread's top-level comment, as on GitHub.
    """
    pull_api = f"{urls.repo_api}/pulls/{pull.number}"
    api = f"{urls.repo_api}/pulls/comments/{spec.id}"
    html = f"{urls.repo_web}/pull/{pull.number}#discussion_r{spec.id}"
    data: JSON = {
        "url": api,
        "pull_request_review_id": spec.review_id,
        "id": spec.id,
        "node_id": node_id("PRRC", spec.id),
        "diff_hunk": spec.diff_hunk,
        "path": spec.path,
        "position": None if spec.line is None else _position(spec.diff_hunk),
        "original_position": _position(spec.diff_hunk),
        "commit_id": spec.commit_id,
        "original_commit_id": spec.original_commit_id,
        "user": simple_user(urls, spec.user),
        "body": spec.body,
        "created_at": spec.created_at,
        "updated_at": spec.updated_at or spec.created_at,
        "html_url": html,
        "pull_request_url": pull_api,
        "author_association": "CONTRIBUTOR" if is_bot(spec.user) else "MEMBER",
        "_links": {
            "self": {"href": api},
            "html": {"href": html},
            "pull_request": {"href": pull_api},
        },
        "start_line": spec.start_line,
        "original_start_line": spec.original_start_line,
        "start_side": spec.start_side,
        "line": spec.line,
        "original_line": spec.original_line,
        "side": spec.side,
        "subject_type": spec.subject_type,
    }
    if spec.in_reply_to_id is not None:
        data["in_reply_to_id"] = spec.in_reply_to_id
    if not legacy:
        data["reactions"] = _reactions(api)
    return data


def _position(diff_hunk: str) -> int:
    """The deprecated diff position: lines below the hunk header, the last one commented."""
    return max(1, len(diff_hunk.splitlines()) - 1)


def _reactions(api: str) -> JSON:
    keys = ("+1", "-1", "laugh", "confused", "heart", "hooray", "eyes", "rocket")
    return {"url": f"{api}/reactions", "total_count": 0, **dict.fromkeys(keys, 0)}


def issue_comment(urls: Urls, pull: PullSpec, spec: IssueCommentSpec) -> JSON:
    """``issue-comment``."""
    api = f"{urls.repo_api}/issues/comments/{spec.id}"
    return {
        "id": spec.id,
        "node_id": node_id("IC", spec.id),
        "url": api,
        "html_url": f"{urls.repo_web}/pull/{pull.number}#issuecomment-{spec.id}",
        "body": spec.body,
        "user": simple_user(urls, spec.user),
        "created_at": spec.created_at,
        "updated_at": spec.updated_at or spec.created_at,
        "issue_url": f"{urls.repo_api}/issues/{pull.number}",
        "author_association": "CONTRIBUTOR" if is_bot(spec.user) else "MEMBER",
        "reactions": _reactions(api),
    }
