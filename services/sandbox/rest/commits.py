"""REST routes for commits and what reports on them: check runs and commit statuses."""

from __future__ import annotations

from typing import Any

from syncdesk.services.sandbox.payloads import base as payload
from syncdesk.services.sandbox.payloads import commits as commit_json
from syncdesk.services.sandbox.rest.routing import Call, Reply, not_found, route


@route("GET", "{repo}/commits/(?P<ref>[^/]+)")
def get_commit(call: Call, params: dict[str, str]) -> Reply:
    """``repos/get-commit``: ref = full SHA, short SHA or branch (PyGithub adds ``?page=1``)."""
    found = call.store.commit(params["ref"])
    if found is None:
        return Reply(422, payload.error(422, f"No commit found for SHA: {params['ref']}"))
    return Reply(200, commit_json.commit(call.urls, found, detailed=True))


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
    payload = [commit_json.check_run(call.urls, found, r) for r in runs]
    return Reply(200, {"total_count": len(payload), "check_runs": payload}, list_key="check_runs")


@route("GET", "{repo}/check-runs/(?P<run>\\d+)")
def get_check_run(call: Call, params: dict[str, str]) -> Reply:
    """``checks/get``."""
    found = call.store.check_run(int(params["run"]))
    if found is None:
        return not_found()
    return Reply(200, commit_json.check_run(call.urls, *found))


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
    return Reply(200, commit_json.combined_status(call.urls, call.store, found))


def _statuses(call: Call, ref: str) -> Reply:
    found = call.store.commit(ref)
    if found is None:
        return not_found()
    payload = [
        commit_json.status(call.urls, s, with_creator=True) for s in call.store.statuses(found)
    ]
    return Reply(200, payload, paginate=True)


@route("GET", "{repo}/commits/(?P<ref>[^/]+)/statuses")
def list_statuses(call: Call, params: dict[str, str]) -> Reply:
    """``repos/list-commit-statuses-for-ref``."""
    return _statuses(call, params["ref"])


@route("GET", "{repo}/statuses/(?P<ref>[^/]+)")
def list_statuses_legacy(call: Call, params: dict[str, str]) -> Reply:
    """The legacy ``/statuses/{sha}`` path ``Commit.get_statuses()`` still uses."""
    return _statuses(call, params["ref"])
