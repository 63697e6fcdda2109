"""REST routes for a pull request's issue side: the issue, its comments, its labels."""

from __future__ import annotations

from typing import Any

from syncdesk.services.sandbox.payloads import base as payload
from syncdesk.services.sandbox.payloads import pulls as pull_json
from syncdesk.services.sandbox.payloads import repo as repo_json
from syncdesk.services.sandbox.rest.routing import (
    Call,
    Reply,
    body_text,
    invalid,
    not_found,
    pull_of,
    route,
)
from syncdesk.services.sandbox.scenario import PullSpec


@route("GET", "{repo}/issues/(?P<number>\\d+)")
def get_issue(call: Call, params: dict[str, str]) -> Reply:
    """``issues/get`` (every issue here is a pull request)."""
    pull = pull_of(call, params)
    return not_found() if pull is None else Reply(200, pull_json.issue(call.urls, call.store, pull))


@route("GET", "{repo}/issues/(?P<number>\\d+)/comments")
def list_issue_comments(call: Call, params: dict[str, str]) -> Reply:
    """``issues/list-comments``: oldest first, ``since`` filter."""
    pull = pull_of(call, params)
    if pull is None:
        return not_found()
    since = call.arg("since")
    comments = [c for c in pull.issue_comments if not since or c.created_at >= since]
    payload = [pull_json.issue_comment(call.urls, pull, c) for c in comments]
    return Reply(200, payload, paginate=True)


@route("POST", "{repo}/issues/(?P<number>\\d+)/comments")
def create_issue_comment(call: Call, params: dict[str, str]) -> Reply:
    """``issues/create-comment``."""
    pull = pull_of(call, params)
    if pull is None:
        return not_found()
    text = body_text(call)
    if text is None:
        return invalid("IssueComment", "body", "missing_field")
    created = call.store.add_issue_comment(pull, call.store.scenario.viewer, text)
    payload = pull_json.issue_comment(call.urls, pull, created)
    return Reply(201, payload, created_id=created.id, headers={"Location": payload["url"]})


@route("GET", "{repo}/issues/comments/(?P<cid>\\d+)")
def get_issue_comment(call: Call, params: dict[str, str]) -> Reply:
    """``issues/get-comment``."""
    found = call.store.issue_comment(int(params["cid"]))
    if found is None:
        return not_found()
    return Reply(200, pull_json.issue_comment(call.urls, found.pull, found.item))


@route("PATCH", "{repo}/issues/comments/(?P<cid>\\d+)")
def update_issue_comment(call: Call, params: dict[str, str]) -> Reply:
    """``issues/update-comment``."""
    found = call.store.issue_comment(int(params["cid"]))
    if found is None:
        return not_found()
    text = body_text(call)
    if text is None:
        return invalid("IssueComment", "body", "missing_field")
    call.store.edit_issue_comment(found.item, text)
    return Reply(
        200, pull_json.issue_comment(call.urls, found.pull, found.item), created_id=found.item.id
    )


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
    return Reply(200, pull_json.pull_labels(call.urls, call.store, pull))


@route("GET", "{repo}/issues/(?P<number>\\d+)/labels")
def list_issue_labels(call: Call, params: dict[str, str]) -> Reply:
    """``issues/list-labels-on-issue``."""
    pull = pull_of(call, params)
    if pull is None:
        return not_found()
    return Reply(200, pull_json.pull_labels(call.urls, call.store, pull), paginate=True)


@route("POST", "{repo}/issues/(?P<number>\\d+)/labels")
def add_issue_labels(call: Call, params: dict[str, str]) -> Reply:
    """``issues/add-labels`` (PyGithub sends a bare JSON array of names)."""
    pull = pull_of(call, params)
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
    pull = pull_of(call, params)
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
    pull = pull_of(call, params)
    if pull is None:
        return not_found()
    call.store.set_labels(pull, [])
    return Reply(204, None)


@route("DELETE", "{repo}/issues/(?P<number>\\d+)/labels/(?P<name>[^/]+)")
def remove_issue_label(call: Call, params: dict[str, str]) -> Reply:
    """``issues/remove-label``: the remaining labels, or 404 "Label does not exist"."""
    pull = pull_of(call, params)
    if pull is None:
        return not_found()
    if not call.store.remove_label(pull, params["name"]):
        return Reply(404, payload.error(404, "Label does not exist"))
    return _labels_reply(call, pull)


@route("GET", "{repo}/labels")
def list_repo_labels(call: Call, params: dict[str, str]) -> Reply:
    """``issues/list-labels-for-repo``."""
    payload = [repo_json.label(call.urls, spec) for spec in call.store.scenario.labels]
    return Reply(200, payload, paginate=True)
