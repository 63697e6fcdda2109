"""Payloads for commits and what reports on them: commits, check runs, commit statuses."""

from __future__ import annotations

from syncdesk.services.sandbox.payloads.base import JSON, Urls, node_id, stable_id
from syncdesk.services.sandbox.payloads.repo import repository, simple_user
from syncdesk.services.sandbox.scenario import CheckRunSpec, CommitSpec, GitPerson, StatusSpec
from syncdesk.services.sandbox.store import Store


def _git_user(person: GitPerson) -> JSON:
    return {"name": person.name, "email": person.email, "date": person.date}


def _verification(commit: CommitSpec) -> JSON:
    v = commit.verification
    return {
        "verified": v.verified,
        "reason": v.reason,
        "signature": v.signature,
        "payload": v.payload,
        "verified_at": v.verified_at,
    }


def commit(urls: Urls, spec: CommitSpec, *, detailed: bool) -> JSON:
    """``commit`` (list items of ``/pulls/{n}/commits``; ``detailed`` adds stats and files)."""
    api = f"{urls.repo_api}/commits/{spec.sha}"
    data: JSON = {
        "url": api,
        "sha": spec.sha,
        "node_id": node_id("C", spec.sha),
        "html_url": f"{urls.repo_web}/commit/{spec.sha}",
        "comments_url": f"{api}/comments",
        "commit": {
            "url": f"{urls.repo_api}/git/commits/{spec.sha}",
            "author": _git_user(spec.author),
            "committer": _git_user(spec.committer),
            "message": spec.message,
            "tree": {"sha": spec.tree, "url": f"{urls.repo_api}/git/trees/{spec.tree}"},
            "comment_count": 0,
            "verification": _verification(spec),
        },
        "author": simple_user(urls, spec.author.login) if spec.author.login else None,
        "committer": simple_user(urls, spec.committer.login) if spec.committer.login else None,
        "parents": [
            {
                "sha": parent,
                "url": f"{urls.repo_api}/commits/{parent}",
                "html_url": f"{urls.repo_web}/commit/{parent}",
            }
            for parent in spec.parents
        ],
    }
    if detailed:
        # Completing a Commit (commit.stats) reads these; the demo keeps no per-file diff.
        data["stats"] = {"additions": 0, "deletions": 0, "total": 0}
        data["files"] = []
    return data


def _app(urls: Urls, slug: str, name: str) -> JSON:
    return {
        "id": stable_id(f"app:{slug}", 900_000),
        "slug": slug,
        "node_id": node_id("A", slug),
        "owner": simple_user(urls, slug),
        "name": name,
        "description": None,
        "external_url": f"{urls.web}/apps/{slug}",
        "html_url": f"{urls.web}/apps/{slug}",
        "created_at": "2018-07-30T09:30:17Z",
        "updated_at": "2024-04-10T20:30:00Z",
        "permissions": {"checks": "write", "metadata": "read", "pull_requests": "read"},
        "events": ["pull_request"],
    }


def check_run(urls: Urls, commit_spec: CommitSpec, spec: CheckRunSpec) -> JSON:
    """``check-run``."""
    api = f"{urls.repo_api}/check-runs/{spec.id}"
    return {
        "id": spec.id,
        "node_id": node_id("CR", spec.id),
        "head_sha": commit_spec.sha,
        "external_id": "",
        "url": api,
        "html_url": f"{urls.repo_web}/runs/{spec.id}",
        "details_url": spec.details_url or f"{urls.repo_web}/runs/{spec.id}",
        "status": spec.status,
        "conclusion": spec.conclusion if spec.status == "completed" else None,
        "started_at": spec.started_at,
        "completed_at": spec.completed_at if spec.status == "completed" else None,
        "output": {
            "title": spec.title,
            "summary": spec.summary,
            "text": spec.text,
            "annotations_count": 0,
            "annotations_url": f"{api}/annotations",
        },
        "name": spec.name,
        "check_suite": {"id": stable_id(f"suite:{spec.app_slug}:{commit_spec.sha}")},
        "app": _app(urls, spec.app_slug, spec.app_name),
        "pull_requests": [],
    }


def status(urls: Urls, spec: StatusSpec, *, with_creator: bool) -> JSON:
    """``status`` (``with_creator``) or ``simple-commit-status`` (inside the combined status)."""
    data: JSON = {
        "url": f"{urls.repo_api}/statuses/{spec.id}",
        "avatar_url": f"https://avatars.githubusercontent.com/u/{stable_id(spec.creator)}?v=4",
        "id": spec.id,
        "node_id": node_id("SC", spec.id),
        "state": spec.state,
        "description": spec.description,
        "target_url": spec.target_url,
        "context": spec.context,
        "created_at": spec.created_at,
        "updated_at": spec.created_at,
    }
    if with_creator:
        data["creator"] = simple_user(urls, spec.creator)
    else:
        data["required"] = False
    return data


def combined_state(states: list[str]) -> str:
    """GitHub's combined state: failure if any error/failure; pending if none or any pending."""
    if any(s in ("error", "failure") for s in states):
        return "failure"
    if not states or any(s == "pending" for s in states):
        return "pending"
    return "success"


def combined_status(urls: Urls, store: Store, spec: CommitSpec) -> JSON:
    """``combined-commit-status``: the latest status per context."""
    latest: dict[str, StatusSpec] = {}
    for item in store.statuses(spec):
        latest.setdefault(item.context, item)
    statuses = list(latest.values())
    minimal = repository(urls, store, full=False)
    return {
        "state": combined_state([s.state for s in statuses]),
        "statuses": [status(urls, s, with_creator=False) for s in statuses],
        "sha": spec.sha,
        "total_count": len(statuses),
        "repository": minimal,
        "commit_url": f"{urls.repo_api}/commits/{spec.sha}",
        "url": f"{urls.repo_api}/commits/{spec.sha}/status",
    }
