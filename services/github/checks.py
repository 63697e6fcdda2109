"""The CI rollup of a sync's head, the "/ok to test" trigger, and the PR's labels.

Check runs (the Checks API) and commit statuses (the older Statuses API) of
the head become one list of :class:`CheckItem`, bucketed the way ``gh pr
checks`` does it (``pkg/cmd/pr/checks/aggregate.go``):

- reruns are additive on GitHub, so the same name can appear many times: the
  latest run per name wins (by ``started_at``, then id), and the latest status
  per context (by ``created_at``, then id);
- ``action_required``, ``error``, ``timed_out``, ``startup_failure`` and
  ``cancelled`` block a merge, so they count as failing (``cancelled`` keeps
  its own state for display); ``skipped`` and ``neutral`` count as passed;
  everything unfinished (queued, in_progress, waiting, requested, pending,
  expected, stale) is pending.

A check run and a commit status of the same name (Codecov posts
``codecov/patch`` as both) are one item in the worse of their states: GitHub
requires both to pass, and counting them apart made one failure two.

The items are grouped by the configuration: the *gate* (the one check whose
name is exactly ``ci_gate``), *required* (a ``ci_required`` pattern matches,
or GitHub says the check is required), *exempt* (a ``ci_exempt`` pattern;
these never count) and everything else. The verdict is over everything but
the exempt items. A configured gate that has not reported yet makes the
verdict pending (GitHub shows it as "Expected").

With GraphQL (:func:`fetch_rollup`), ``statusCheckRollup`` gives both kinds in
one list plus ``isRequired``; without it (an old Enterprise server, a token
without GraphQL access) the REST lists of :class:`PullRequest` give the same
rollup, only without GitHub's own required marks.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from fnmatch import fnmatchcase
from typing import Any, Literal, TypeVar

from syncdesk.services.github.api import (
    GitHubClient,
    GitHubError,
    GitHubTarget,
    PostResult,
    graphql,
)
from syncdesk.services.github.models import CheckRun, CommitStatus, PullRequest
from syncdesk.services.github.token import Token

T = TypeVar("T")

Kind = Literal["check", "status"]
State = Literal[
    "success", "failure", "pending", "skipped", "neutral", "cancelled", "action_required"
]
Group = Literal["gate", "required", "exempt", "other"]
Verdict = Literal["success", "failure", "pending"]

GROUP_ORDER: tuple[Group, ...] = ("gate", "required", "other", "exempt")
FAILING_STATES: frozenset[str] = frozenset({"failure", "cancelled", "action_required"})
PASSING_STATES: frozenset[str] = frozenset({"success", "skipped", "neutral"})
MAX_ROLLUP_PAGES = 10  # 100 contexts a page; beyond 1,000 the rest is not read

_STATE_OF: dict[str, State] = {
    "success": "success",
    "failure": "failure",
    "error": "failure",
    "timed_out": "failure",
    "startup_failure": "failure",
    "cancelled": "cancelled",
    "action_required": "action_required",
    "skipped": "skipped",
    "neutral": "neutral",
}
_EARLIEST = datetime.min.replace(tzinfo=UTC)
_HEX_SHA = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")


@dataclass(frozen=True, slots=True)
class RollupContext:
    """One context of a commit's ``statusCheckRollup`` (GraphQL), as plain values.

    ``status`` and ``conclusion`` are lower-cased like REST's: a check run has
    ``status`` (queued, in_progress, completed...) and a ``conclusion`` once
    completed; a status context has ``status == ""`` and its state in
    ``conclusion`` (success, failure, error, pending, expected).
    """

    kind: Kind
    name: str
    status: str
    conclusion: str | None
    url: str
    description: str
    started_at: str  # a check run's startedAt, a status's createdAt (ISO 8601, "" unknown)
    is_required: bool = False
    id: int = 0  # databaseId (check runs); 0 when GitHub sent none


@dataclass(frozen=True, slots=True)
class CheckItem:
    """One check of the head, after de-duplication: what the rollup shows per line."""

    name: str
    kind: Kind
    state: State
    group: Group
    finished: bool
    url: str
    description: str  # a check run's output title, a status's description
    # A check run and a commit status share this name (Codecov posts both): GitHub
    # requires both to pass, so they are one line, in the worse of their two states.
    kinds: tuple[Kind, ...] = ()

    @property
    def failing(self) -> bool:
        """The check blocks a merge (failure, cancelled, action required)."""
        return self.state in FAILING_STATES

    @property
    def pending(self) -> bool:
        """The check has not finished (or has not reported yet)."""
        return self.state == "pending"


@dataclass(frozen=True, slots=True)
class Rollup:
    """The head's checks, grouped, with the verdict over every non-exempt check.

    ``pending``, ``failing`` and ``passed`` hold the counted items only (exempt
    ones never count); ``missing`` names a configured gate that has not
    reported, which keeps the verdict pending.
    """

    items: tuple[CheckItem, ...]
    gate: CheckItem | None
    pending: tuple[CheckItem, ...]
    failing: tuple[CheckItem, ...]
    passed: tuple[CheckItem, ...]
    state: Verdict
    missing: tuple[str, ...] = ()

    @property
    def exempt(self) -> tuple[CheckItem, ...]:
        """The items that do not count."""
        return tuple(item for item in self.items if item.group == "exempt")


# -- de-duplication and states ---------------------------------------------------------


def _moment(value: str) -> datetime:
    """An ISO 8601 time (``Z`` or an offset); unknown or bad times sort first."""
    if not value:
        return _EARLIEST
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        return _EARLIEST
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def _newest(
    items: Iterable[T], key: Callable[[T], Hashable], when: Callable[[T], tuple[datetime, int]]
) -> list[T]:
    """One item per ``key``: the one latest by ``when`` (a time, then an id)."""
    newest: dict[Hashable, T] = {}
    for item in items:
        kept = newest.get(key(item))
        if kept is None or when(item) > when(kept):
            newest[key(item)] = item
    return list(newest.values())


def latest_runs(runs: Iterable[CheckRun]) -> list[CheckRun]:
    """One check run per name: the latest (by ``started_at``, then id), as GitHub shows it."""
    return _newest(runs, lambda r: r.name, lambda r: (_moment(r.started_at), r.id))


def latest_statuses(statuses: Iterable[CommitStatus]) -> list[CommitStatus]:
    """One status per context: the latest (by ``created_at``, then id)."""
    return _newest(statuses, lambda s: s.context, lambda s: (_moment(s.created_at), s.id))


def _latest_contexts(contexts: Iterable[RollupContext]) -> list[RollupContext]:
    return _newest(contexts, lambda c: (c.kind, c.name), lambda c: (_moment(c.started_at), c.id))


def check_state(status: str, conclusion: str | None) -> State:
    """A check run's state: its conclusion once completed, else pending (gh's buckets)."""
    if status.lower() != "completed" or not conclusion:
        return "pending"
    return _STATE_OF.get(conclusion.lower(), "pending")


def status_state(state: str) -> State:
    """A commit status's state: error is a failure; pending and expected are pending."""
    return _STATE_OF.get(state.lower(), "pending")


def _from_run(run: CheckRun) -> RollupContext:
    return RollupContext(
        kind="check",
        name=run.name,
        status=run.status.lower(),
        conclusion=run.conclusion.lower() if run.conclusion else None,
        url=run.details_url or run.html_url,
        description=run.title,
        started_at=run.started_at,
        id=run.id,
    )


def _from_status(status: CommitStatus) -> RollupContext:
    return RollupContext(
        kind="status",
        name=status.context,
        status="",
        conclusion=status.state.lower(),
        url=status.target_url,
        description=status.description,
        started_at=status.created_at,
        id=status.id,
    )


# -- the rollup --------------------------------------------------------------------------


def _group(
    context: RollupContext, gate: str, required: Sequence[str], exempt: Sequence[str]
) -> Group:
    if gate and context.name == gate:
        return "gate"
    if context.is_required or any(fnmatchcase(context.name, p) for p in required):
        return "required"
    if any(fnmatchcase(context.name, p) for p in exempt):
        return "exempt"
    return "other"


def _item(context: RollupContext, group: Group) -> CheckItem:
    if context.kind == "check":
        state = check_state(context.status, context.conclusion)
        finished = context.status == "completed"
    else:
        state = status_state(context.conclusion or "")
        finished = state != "pending"
    return CheckItem(
        name=context.name,
        kind=context.kind,
        state=state,
        group=group,
        finished=finished,
        url=context.url,
        description=context.description,
    )


def _severity(item: CheckItem) -> int:
    return 2 if item.failing else 1 if item.pending else 0


def _one_per_name(items: Iterable[CheckItem]) -> list[CheckItem]:
    """One item per name: a check run and a status of one name become the worse of the two.

    GitHub lists both and requires both ("if a check and a commit status have
    the same name, both must pass"); listing both counted one failure twice.
    On equal states the check run speaks (its title is the richer text).
    """
    named: dict[str, CheckItem] = {}
    for item in items:
        kept = named.get(item.name)
        if kept is None:
            named[item.name] = item
            continue
        worse = item if _severity(item) > _severity(kept) else kept
        if _severity(item) == _severity(kept) and item.kind == "check":
            worse = item
        named[item.name] = replace(worse, kinds=tuple(sorted({kept.kind, item.kind})))
    return list(named.values())


def rollup(
    pr: PullRequest,
    *,
    gate: str,
    required: Sequence[str],
    exempt: Sequence[str],
    contexts: Sequence[RollupContext] | None = None,
) -> Rollup:
    """The head's checks de-duplicated, grouped and judged (see the module docstring).

    ``contexts`` (from :func:`fetch_rollup`) replaces the REST lists of ``pr``
    when given. Items come gate first, then required, other and exempt, each
    by name (a check run before a status of the same name).
    """
    if contexts is None:
        runs = [_from_run(run) for run in latest_runs(pr.check_runs)]
        statuses = [_from_status(status) for status in latest_statuses(pr.statuses)]
        chosen = runs + statuses
    else:
        chosen = _latest_contexts(contexts)
    items = sorted(
        _one_per_name(_item(c, _group(c, gate, required, exempt)) for c in chosen),
        key=lambda i: (GROUP_ORDER.index(i.group), i.name, i.kind),
    )
    gate_item = next((i for i in items if i.group == "gate" and i.kind == "check"), None)
    gate_item = gate_item or next((i for i in items if i.group == "gate"), None)
    counted = [i for i in items if i.group != "exempt"]
    failing = tuple(i for i in counted if i.failing)
    pending = tuple(i for i in counted if i.pending)
    passed = tuple(i for i in counted if i.state in PASSING_STATES)
    missing = (gate,) if gate and gate_item is None else ()
    state: Verdict = "failure" if failing else "pending" if pending or missing else "success"
    return Rollup(tuple(items), gate_item, pending, failing, passed, state, missing)


# -- GraphQL -------------------------------------------------------------------------------

# ``PullRequest.statusCheckRollup`` is the rollup of the head ref's commit: the
# same object as ``commits(last: 1) { nodes { commit { statusCheckRollup } } }``
# (what gh queries), reachable without the commit connection, which the
# sandbox's schema subset does not define. ``headRefOid`` says which commit it is.
STATUS_ROLLUP_QUERY = """
query SyncdeskStatusRollup($owner: String!, $name: String!, $number: Int!, $cursor: String) {
  repository(owner: $owner, name: $name) {
    pullRequest(number: $number) {
      headRefOid
      statusCheckRollup {
        state
        contexts(first: 100, after: $cursor) {
          pageInfo { hasNextPage endCursor }
          nodes {
            __typename
            ... on CheckRun {
              databaseId
              name
              status
              conclusion
              title
              detailsUrl
              startedAt
              completedAt
              isRequired(pullRequestNumber: $number)
            }
            ... on StatusContext {
              context
              state
              description
              targetUrl
              createdAt
              isRequired(pullRequestNumber: $number)
            }
          }
        }
      }
    }
  }
}
"""


def _text(node: dict[str, Any], key: str) -> str:
    value = node.get(key)
    return value if isinstance(value, str) else ""


def _context(node: Any) -> RollupContext | None:
    """A rollup node as a :class:`RollupContext` (None: not a check or a status)."""
    if not isinstance(node, dict):
        return None
    required = node.get("isRequired") is True
    if node.get("__typename") == "CheckRun":
        conclusion = node.get("conclusion")
        database_id = node.get("databaseId")
        return RollupContext(
            kind="check",
            name=_text(node, "name"),
            status=_text(node, "status").lower(),
            conclusion=conclusion.lower() if isinstance(conclusion, str) else None,
            url=_text(node, "detailsUrl"),
            description=_text(node, "title"),
            started_at=_text(node, "startedAt"),
            is_required=required,
            id=database_id if isinstance(database_id, int) else 0,
        )
    if node.get("__typename") == "StatusContext":
        return RollupContext(
            kind="status",
            name=_text(node, "context"),
            status="",
            conclusion=_text(node, "state").lower(),
            url=_text(node, "targetUrl"),
            description=_text(node, "description"),
            started_at=_text(node, "createdAt"),
            is_required=required,
        )
    return None


def _rollup_page(data: dict[str, Any]) -> tuple[str, dict[str, Any] | None]:
    """``(headRefOid, statusCheckRollup)`` of one answer (the rollup None when absent)."""
    repository = data.get("repository")
    pull = repository.get("pullRequest") if isinstance(repository, dict) else None
    if not isinstance(pull, dict):
        raise GitHubError("GraphQL: the pull request was not found")
    found = pull.get("statusCheckRollup")
    head = pull.get("headRefOid")
    return (head if isinstance(head, str) else ""), (found if isinstance(found, dict) else None)


def fetch_rollup(
    target: GitHubTarget, token: Token, number: int, *, head_sha: str | None = None
) -> list[RollupContext] | None:
    """The head's ``statusCheckRollup`` contexts through GraphQL, every page.

    None when the rollup is null (GitHub's answer for a commit with no checks
    at all), when GraphQL is unavailable or answers with errors, or when the
    head moved away from ``head_sha``: the caller then uses the REST lists.
    """
    contexts: list[RollupContext] = []
    cursor: str | None = None
    for _page in range(MAX_ROLLUP_PAGES):
        variables = {"owner": target.owner, "name": target.name, "number": number}
        try:
            data = graphql(target, token, STATUS_ROLLUP_QUERY, {**variables, "cursor": cursor})
            head, found = _rollup_page(data)
        except GitHubError:
            return None
        if found is None or (head_sha is not None and head and head != head_sha):
            return None
        connection = found.get("contexts")
        if not isinstance(connection, dict):
            return None
        nodes = connection.get("nodes")
        for node in nodes if isinstance(nodes, list) else []:
            context = _context(node)
            if context is not None:
                contexts.append(context)
        page = connection.get("pageInfo")
        page = page if isinstance(page, dict) else {}
        cursor = page.get("endCursor") if page.get("hasNextPage") else None
        if not isinstance(cursor, str):
            break
    return contexts


# -- the CI trigger ------------------------------------------------------------------------


def trigger_text(template: str, head_sha: str) -> str:
    """The trigger comment for ``head_sha``: ``ci_trigger`` with ``{sha}`` replaced.

    Only ``{sha}`` is replaced (the template may hold other braces), and only
    the first line of the template is used: CI bots read the first line.
    """
    if not _HEX_SHA.fullmatch(head_sha):
        raise ValueError(f"not a full commit id: {head_sha!r}")
    first_line = template.strip().splitlines()[0] if template.strip() else ""
    if not first_line:
        raise ValueError("the CI trigger template is empty")
    return first_line.replace("{sha}", head_sha).strip()


def trigger_key(head_sha: str) -> str:
    """The marker key of the trigger posted for ``head_sha``."""
    return f"ci-trigger:{head_sha}"


def post_ci_trigger(client: GitHubClient, pr: PullRequest, template: str) -> PostResult:
    """Post the CI trigger for the PR's head, at most once per head SHA.

    The comment's first line is the trigger alone; syncdesk's hidden marker
    (which makes a second press find the first post) follows on its own line.
    """
    text = trigger_text(template, pr.head_sha)
    return client.post_comment(pr.number, text, trigger_key(pr.head_sha))


# -- labels ------------------------------------------------------------------------------


def toggle_label(client: GitHubClient, pr: PullRequest, name: str) -> tuple[str, ...]:
    """Add ``name`` to the PR's labels, or remove it if there; the labels afterwards.

    The current labels are read first (``pr.labels`` may be stale, and GitHub
    answers 404 to removing a label that is gone); names compare without case,
    as GitHub's do.
    """
    current = client.labels(pr.number)
    if any(label.casefold() == name.casefold() for label in current):
        return client.remove_label(pr.number, name)
    return client.add_label(pr.number, name)
