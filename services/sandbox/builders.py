"""REST payload builders: GitHub-shaped JSON from the store, every required field filled.

Each builder fills every field GitHub's OpenAPI schema marks required (the
contract tests validate them against ``github_jsonschema_subset.json``).
API URLs (``url``, ``issue_url``, ``comments_url``...) are built on the base URL
the request came in on: PyGithub asserts that every URL it follows has the
base URL's host, port and path prefix, and builds follow-up calls from these
fields (``f"{pr.issue_url}/comments"``). ``html_url`` and blob links stay on
the web URL, which PyGithub never requests.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

from services.sandbox.scenario import (
    EPOCH,
    CheckRunSpec,
    CommitSpec,
    GitPerson,
    IssueCommentSpec,
    LabelSpec,
    PullSpec,
    ReviewCommentSpec,
    ReviewSpec,
    StatusSpec,
)
from services.sandbox.store import Store

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


def simple_user(urls: Urls, login: str) -> JSON:
    """``simple-user``."""
    api = f"{urls.api}/users/{login}"
    return {
        "login": login,
        "id": stable_id(login),
        "node_id": node_id("U", login),
        "avatar_url": f"https://avatars.githubusercontent.com/u/{stable_id(login)}?v=4",
        "gravatar_id": "",
        "url": api,
        "html_url": f"{urls.web}/{login.removesuffix('[bot]')}",
        "followers_url": f"{api}/followers",
        "following_url": f"{api}/following{{/other_user}}",
        "gists_url": f"{api}/gists{{/gist_id}}",
        "starred_url": f"{api}/starred{{/owner}}{{/repo}}",
        "subscriptions_url": f"{api}/subscriptions",
        "organizations_url": f"{api}/orgs",
        "repos_url": f"{api}/repos",
        "events_url": f"{api}/events{{/privacy}}",
        "received_events_url": f"{api}/received_events",
        "type": "Bot" if is_bot(login) else "User",
        "site_admin": False,
    }


def public_user(urls: Urls, login: str, name: str | None, email: str | None) -> JSON:
    """``public-user`` (``GET /users/{login}``): no field beyond the schema's, it forbids extras."""
    return {
        **simple_user(urls, login),
        "name": name,
        "company": None,
        "blog": "",
        "location": None,
        "email": email,
        "hireable": None,
        "bio": None,
        "public_repos": 3,
        "public_gists": 0,
        "followers": 12,
        "following": 4,
        "created_at": "2019-03-01T10:00:00Z",
        "updated_at": EPOCH,
    }


def private_user(urls: Urls, login: str, name: str | None, email: str | None) -> JSON:
    """``private-user`` (``GET /user``)."""
    return {
        **public_user(urls, login, name, email),
        "private_gists": 0,
        "total_private_repos": 0,
        "owned_private_repos": 0,
        "disk_usage": 1024,
        "collaborators": 0,
        "two_factor_authentication": True,
    }


def repository(urls: Urls, store: Store, *, full: bool) -> JSON:
    """``repository`` (inside pull requests) or ``full-repository`` (``GET /repos/o/r``)."""
    scenario = store.scenario
    api = urls.repo_api
    data: JSON = {
        "id": stable_id(scenario.full_name),
        "node_id": node_id("R", scenario.full_name),
        "name": scenario.name,
        "full_name": scenario.full_name,
        "owner": simple_user(urls, scenario.owner),
        "private": False,
        "html_url": urls.repo_web,
        "description": scenario.description,
        "fork": False,
        "url": api,
        "archive_url": f"{api}/{{archive_format}}{{/ref}}",
        "assignees_url": f"{api}/assignees{{/user}}",
        "blobs_url": f"{api}/git/blobs{{/sha}}",
        "branches_url": f"{api}/branches{{/branch}}",
        "collaborators_url": f"{api}/collaborators{{/collaborator}}",
        "comments_url": f"{api}/comments{{/number}}",
        "commits_url": f"{api}/commits{{/sha}}",
        "compare_url": f"{api}/compare/{{base}}...{{head}}",
        "contents_url": f"{api}/contents/{{+path}}",
        "contributors_url": f"{api}/contributors",
        "deployments_url": f"{api}/deployments",
        "downloads_url": f"{api}/downloads",
        "events_url": f"{api}/events",
        "forks_url": f"{api}/forks",
        "git_commits_url": f"{api}/git/commits{{/sha}}",
        "git_refs_url": f"{api}/git/refs{{/sha}}",
        "git_tags_url": f"{api}/git/tags{{/sha}}",
        "git_url": f"git://github.com/{scenario.full_name}.git",
        "issue_comment_url": f"{api}/issues/comments{{/number}}",
        "issue_events_url": f"{api}/issues/events{{/number}}",
        "issues_url": f"{api}/issues{{/number}}",
        "keys_url": f"{api}/keys{{/key_id}}",
        "labels_url": f"{api}/labels{{/name}}",
        "languages_url": f"{api}/languages",
        "merges_url": f"{api}/merges",
        "milestones_url": f"{api}/milestones{{/number}}",
        "notifications_url": f"{api}/notifications{{?since,all,participating}}",
        "pulls_url": f"{api}/pulls{{/number}}",
        "releases_url": f"{api}/releases{{/id}}",
        "ssh_url": f"git@github.com:{scenario.full_name}.git",
        "stargazers_url": f"{api}/stargazers",
        "statuses_url": f"{api}/statuses/{{sha}}",
        "subscribers_url": f"{api}/subscribers",
        "subscription_url": f"{api}/subscription",
        "tags_url": f"{api}/tags",
        "teams_url": f"{api}/teams",
        "trees_url": f"{api}/git/trees{{/sha}}",
        "clone_url": f"{urls.repo_web}.git",
        "mirror_url": None,
        "hooks_url": f"{api}/hooks",
        "svn_url": urls.repo_web,
        "homepage": None,
        "language": "Python",
        "forks": 41,
        "forks_count": 41,
        "stargazers_count": 318,
        "watchers_count": 318,
        "watchers": 318,
        "size": 20480,
        "default_branch": scenario.default_branch,
        "open_issues": sum(1 for p in scenario.pulls if p.state == "open"),
        "open_issues_count": sum(1 for p in scenario.pulls if p.state == "open"),
        "is_template": False,
        "topics": [],
        "has_issues": True,
        "has_projects": False,
        "has_wiki": False,
        "has_pages": False,
        "has_downloads": True,
        "has_discussions": False,
        "archived": False,
        "disabled": False,
        "visibility": "public",
        "pushed_at": EPOCH,
        "created_at": "2021-05-04T12:00:00Z",
        "updated_at": EPOCH,
        "license": None,
        "allow_forking": True,
    }
    if full:
        data |= {"network_count": 41, "subscribers_count": 27}
    return data


def label(urls: Urls, spec: LabelSpec) -> JSON:
    """``label``."""
    return {
        "id": spec.id,
        "node_id": node_id("LA", spec.name),
        "url": f"{urls.repo_api}/labels/{spec.name.replace(' ', '%20')}",
        "name": spec.name,
        # The spec allows null; real GitHub often sends null. Pull request payloads'
        # inline labels type it as a plain string, so "" keeps every view valid.
        "description": spec.description or "",
        "color": spec.color,
        "default": False,
    }


def pull_labels(urls: Urls, store: Store, pull: PullSpec) -> list[JSON]:
    """The labels a pull request carries, as label objects."""
    found = (store.label(name) for name in pull.labels)
    return [label(urls, spec) for spec in found if spec is not None]


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
