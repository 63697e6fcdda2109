"""Payloads for people and the repository: users (simple, public, private), repository, labels."""

from __future__ import annotations

from syncdesk.services.sandbox.payloads.base import JSON, Urls, is_bot, node_id, stable_id
from syncdesk.services.sandbox.scenario import EPOCH, LabelSpec
from syncdesk.services.sandbox.store import Store


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
