"""GraphQL resolvers over the store: the repository, commits and their checks, pull requests.

Resolvers are plain dicts: graphql-core's default resolver reads a key and,
when the value is callable, calls it with ``(info, **arguments)``; unions and
interfaces resolve from a ``"__typename"`` key. Relay connections page by
position (a cursor is an index).
"""

from __future__ import annotations

from typing import Any

from syncdesk.services.sandbox.payloads import base as payload
from syncdesk.services.sandbox.payloads import repo as repo_json
from syncdesk.services.sandbox.scenario import (
    CheckRunSpec,
    CommitSpec,
    PullSpec,
    ReviewCommentSpec,
    StatusSpec,
)
from syncdesk.services.sandbox.store import Store

JSON = dict[str, Any]


def _connection(items: list[Any], first: int | None, after: str | None) -> JSON:
    """A Relay connection over ``items``; cursors are positions."""
    start = int(after) if after and after.isdigit() else 0
    end = len(items) if first is None else min(len(items), start + max(0, first))
    window = items[start:end]
    return {
        "nodes": window,
        "edges": [{"cursor": str(start + i + 1), "node": n} for i, n in enumerate(window)],
        "totalCount": len(items),
        "pageInfo": {
            "hasNextPage": end < len(items),
            "hasPreviousPage": start > 0,
            "startCursor": str(start + 1) if window else None,
            "endCursor": str(end) if window else None,
        },
    }


def _paged(items: list[Any]) -> Any:
    def resolve(_info: Any, first: int | None = None, after: str | None = None, **_: Any) -> JSON:
        return _connection(items, first, after)

    return resolve


_FAILING = {"failure", "timed_out", "action_required", "cancelled", "startup_failure", "error"}


class Root:
    """Resolver dicts for one request (web URLs come from the scenario)."""

    def __init__(self, store: Store, urls: payload.Urls) -> None:
        self.store = store
        self.urls = urls

    def value(self) -> JSON:
        """The root value: the ``Query`` fields."""
        return {"repository": self.repository, "viewer": self.actor(self.store.scenario.viewer)}

    def repository(self, _info: Any, owner: str, name: str, **_: Any) -> JSON | None:
        if not self.store.repo_matches(owner, name):
            return None
        scenario = self.store.scenario
        return {
            "__typename": "Repository",
            "id": payload.node_id("R", scenario.full_name),
            "name": scenario.name,
            "nameWithOwner": scenario.full_name,
            "url": self.urls.repo_web,
            "pullRequest": lambda _i, number: self._pull(number),
            "object": self._object,
            "ref": lambda _i, qualifiedName: self._ref(qualifiedName),
        }

    def actor(self, login: str) -> JSON:
        user = repo_json.simple_user(self.urls, login)
        return {
            "__typename": "Bot" if payload.is_bot(login) else "User",
            "id": user["node_id"],
            "databaseId": user["id"],
            "login": login,
            "name": login,
            "email": "",
            "avatarUrl": lambda _i, size=None: user["avatar_url"],
            "resourcePath": f"/{login}",
            "url": user["html_url"],
        }

    def _object(self, _info: Any, expression: str | None = None, oid: str | None = None) -> Any:
        found = self.store.commit(oid or expression or "")
        return self.commit(found) if found else None

    def _ref(self, qualified: str) -> JSON | None:
        name = qualified.removeprefix("refs/heads/")
        found = self.store.commit(name) if name in self.store.scenario.branches else None
        if found is None:
            return None
        return {
            "__typename": "Ref",
            "id": payload.node_id("REF", name),
            "name": name,
            "prefix": "refs/heads/",
            "target": self.commit(found),
        }

    def commit(self, spec: CommitSpec) -> JSON:
        headline, _, rest = spec.message.partition("\n")
        return {
            "__typename": "Commit",
            "id": payload.node_id("C", spec.sha),
            "oid": spec.sha,
            "abbreviatedOid": spec.sha[:7],
            "message": spec.message,
            "messageHeadline": headline,
            "messageBody": rest.strip("\n"),
            "authoredDate": spec.author.date,
            "committedDate": spec.committer.date,
            "url": f"{self.urls.repo_web}/commit/{spec.sha}",
            "author": self._git_actor(spec.author.name, spec.author.email, spec.author.login),
            "committer": self._git_actor(
                spec.committer.name, spec.committer.email, spec.committer.login
            ),
            "signature": self._signature(spec),
            "statusCheckRollup": self._rollup(spec),
            "blame": lambda _i, path: {"ranges": []},
        }

    def _git_actor(self, name: str, email: str, login: str | None) -> JSON:
        return {
            "name": name,
            "email": email,
            "user": self.actor(login) if login and not payload.is_bot(login) else None,
            "avatarUrl": lambda _i, size=None: "https://avatars.githubusercontent.com/u/0",
        }

    def _signature(self, spec: CommitSpec) -> JSON | None:
        v = spec.verification
        if v.reason == "unsigned":
            return None
        ssh = (v.signature or "").startswith("-----BEGIN SSH")
        return {
            "__typename": "SshSignature" if ssh else "GpgSignature",
            "email": spec.committer.email,
            "isValid": v.verified,
            "payload": v.payload or "",
            "signature": v.signature or "",
            "state": "VALID" if v.verified else v.reason.upper(),
            "wasSignedByGitHub": False,
            "signer": self.actor(spec.committer.login) if spec.committer.login else None,
            "keyFingerprint": "SHA256:sandbox",
            "keyId": "sandbox",
        }

    def _rollup(self, spec: CommitSpec) -> JSON | None:
        runs: dict[str, CheckRunSpec] = {}
        for run in sorted(spec.check_runs, key=lambda r: r.id, reverse=True):
            runs.setdefault(run.name, run)
        statuses: dict[str, StatusSpec] = {}
        for status in self.store.statuses(spec):
            statuses.setdefault(status.context, status)
        if not runs and not statuses:
            return None  # GitHub: statusCheckRollup is null when a commit has no checks
        states = [r.conclusion or "pending" for r in runs.values()]
        states += [s.state for s in statuses.values()]
        state = (
            "FAILURE"
            if any(s in _FAILING for s in states)
            else "PENDING"
            if "pending" in states
            else "SUCCESS"
        )
        required = set(self.store.scenario.required_checks)
        nodes = [self._check_run(spec, r, required) for r in runs.values()]
        nodes += [self._status(s, required) for s in statuses.values()]
        return {
            "__typename": "StatusCheckRollup",
            "id": payload.node_id("SCR", spec.sha),
            "state": state,
            "contexts": lambda _i, first=None, after=None, **_: {
                **_connection(nodes, first, after),
                "checkRunCount": len(runs),
                "statusContextCount": len(statuses),
            },
        }

    def _check_run(self, commit: CommitSpec, run: CheckRunSpec, required: set[str]) -> JSON:
        html = f"{self.urls.repo_web}/runs/{run.id}"
        return {
            "__typename": "CheckRun",
            "id": payload.node_id("CR", run.id),
            "databaseId": run.id,
            "name": run.name,
            "status": run.status.upper(),
            "conclusion": run.conclusion.upper() if run.conclusion else None,
            "title": run.title,
            "summary": run.summary,
            "text": run.text,
            "detailsUrl": run.details_url or html,
            "startedAt": run.started_at,
            "completedAt": run.completed_at,
            "permalink": html,
            "url": html,
            "isRequired": lambda _i, **_: run.name in required,
            "checkSuite": {
                "id": payload.node_id("CS", f"{run.app_slug}:{commit.sha}"),
                "app": {"slug": run.app_slug, "name": run.app_name, "id": run.app_slug},
                "workflowRun": None,
            },
        }

    def _status(self, status: StatusSpec, required: set[str]) -> JSON:
        return {
            "__typename": "StatusContext",
            "id": payload.node_id("SC", status.id),
            "context": status.context,
            "state": status.state.upper(),
            "description": status.description,
            "targetUrl": status.target_url,
            "createdAt": status.created_at,
            "creator": self.actor(status.creator),
            "avatarUrl": lambda _i, size=40: "https://avatars.githubusercontent.com/u/0",
            "isRequired": lambda _i, **_: status.context in required,
        }

    def _pull(self, number: int) -> JSON | None:
        pull = self.store.pull(number)
        if pull is None:
            return None
        head = self.store.commit(pull.head_sha)
        return {
            "__typename": "PullRequest",
            "id": payload.node_id("PR", number),
            "databaseId": payload.stable_id(f"pull:{number}"),
            "number": number,
            "title": pull.title,
            "body": pull.body,
            "url": f"{self.urls.repo_web}/pull/{number}",
            "state": "MERGED" if pull.merged else pull.state.upper(),
            "merged": pull.merged,
            "isDraft": False,
            "headRefName": pull.head_ref,
            "headRefOid": pull.head_sha,
            "baseRefName": pull.base_ref,
            "baseRefOid": pull.base_sha,
            "author": self.actor(pull.user),
            "statusCheckRollup": self._rollup(head) if head else None,
            "reviewThreads": _paged(self._threads(pull)),
        }

    def _threads(self, pull: PullSpec) -> list[JSON]:
        roots = [c for c in pull.review_comments if c.in_reply_to_id is None]
        threads = []
        for root in roots:
            members = [c for c in pull.review_comments if self.store.thread_root(pull, c) is root]
            comments = [self._comment(pull, c) for c in sorted(members, key=lambda c: c.id)]
            threads.append(
                {
                    "__typename": "PullRequestReviewThread",
                    "id": payload.node_id("PRRT", root.id),
                    "isResolved": root.id in pull.resolved_threads,
                    "isOutdated": root.line is None,
                    "isCollapsed": root.id in pull.resolved_threads,
                    "path": root.path,
                    "line": root.line,
                    "startLine": root.start_line,
                    "originalLine": root.original_line,
                    "originalStartLine": root.original_start_line,
                    "diffSide": root.side,
                    "startDiffSide": root.start_side,
                    "subjectType": root.subject_type.upper(),
                    "viewerCanReply": True,
                    "viewerCanResolve": root.id not in pull.resolved_threads,
                    "viewerCanUnresolve": root.id in pull.resolved_threads,
                    "comments": _paged(comments),
                }
            )
        return threads

    def _comment(self, pull: PullSpec, comment: ReviewCommentSpec) -> JSON:
        parent = self.store.review_comment(comment.in_reply_to_id or -1)
        review = next((r for r in pull.reviews if r.id == comment.review_id), None)
        commit = self.store.commit(comment.commit_id)
        original = self.store.commit(comment.original_commit_id)
        return {
            "__typename": "PullRequestReviewComment",
            "id": payload.node_id("PRRC", comment.id),
            "databaseId": comment.id,
            "body": comment.body,
            "bodyText": comment.body,
            "path": comment.path,
            "line": comment.line,
            "startLine": comment.start_line,
            "originalLine": comment.original_line,
            "originalStartLine": comment.original_start_line,
            "diffHunk": comment.diff_hunk,
            "outdated": comment.line is None,
            "createdAt": comment.created_at,
            "updatedAt": comment.updated_at or comment.created_at,
            "url": f"{self.urls.repo_web}/pull/{pull.number}#discussion_r{comment.id}",
            "author": self.actor(comment.user),
            "authorAssociation": "CONTRIBUTOR" if payload.is_bot(comment.user) else "MEMBER",
            "state": "SUBMITTED",
            "subjectType": comment.subject_type.upper(),
            "replyTo": self._comment(parent.pull, parent.item) if parent else None,
            "commit": self.commit(commit) if commit else None,
            "originalCommit": self.commit(original) if original else None,
            "pullRequestReview": None
            if review is None
            else {
                "__typename": "PullRequestReview",
                "id": payload.node_id("PRR", review.id),
                "databaseId": review.id,
                "author": self.actor(review.user),
                "body": review.body,
                "state": review.state,
                "submittedAt": review.submitted_at,
            },
        }
