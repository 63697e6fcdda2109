"""The status of a sync's pull request: DCO, patch coverage, the CI rollup and the description.

This joins :mod:`.dco`, :mod:`.coverage`, :mod:`.checks` and
:mod:`syncdesk.services.description.write` over one read of the pull request, and
holds the actions the Status screen offers (the DCO override request, ``/ok to test``,
a label, the repair's sign-off), each posted once.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from syncdesk.services.description.check import BodyCheck, verify_body
from syncdesk.services.description.write import generate_body
from syncdesk.services.github.api import GitHubClient, PostResult, markers_in
from syncdesk.services.github.checks import (
    Rollup,
    fetch_rollup,
    post_ci_trigger,
    rollup,
    toggle_label,
    trigger_key,
)
from syncdesk.services.github.coverage import (
    PatchCoverage,
    fetch_compare,
    ours_lines,
    patch_coverage,
)
from syncdesk.services.github.dco import (
    DcoReport,
    Precedent,
    dco_report,
    find_precedent,
    override_key,
    override_request,
    post_override_request,
    sync_branch_prefix,
)
from syncdesk.services.github.link import GitHubLink, posting_client, pull_number
from syncdesk.services.github.models import PullRequest
from syncdesk.services.progress import QUIET, Steps
from syncdesk.services.sync.models import SyncReport
from syncdesk.services.sync.ours import ours_summary
from syncdesk.services.sync.session import SyncSession, load_report

PRECEDENT_LIMIT = 3


@dataclass(frozen=True, slots=True)
class RateLimit:
    """GitHub's core budget as its last answer stated it."""

    remaining: int
    limit: int
    resets_at: str  # ISO 8601 UTC, "" when unknown


@dataclass(frozen=True, slots=True)
class StatusData:
    """Everything the Status screen shows."""

    link: GitHubLink
    pr: PullRequest
    report: SyncReport
    dco: DcoReport
    precedent: tuple[Precedent, ...]
    checks: Rollup
    checks_source: str  # "GraphQL statusCheckRollup" or "REST check runs and statuses"
    coverage: PatchCoverage
    coverage_note: str  # why Codecov's API was not used ("" when it was)
    body: BodyCheck
    rate: RateLimit | None
    notes: tuple[str, ...] = ()
    # syncdesk's own comments for this head, found by their markers: posted already.
    override_posted: PostResult | None = None
    trigger_posted: PostResult | None = None


def load_status(
    session: SyncSession,
    link: GitHubLink,
    *,
    steps: Steps = QUIET,
    pr: PullRequest | None = None,
    report: SyncReport | None = None,
) -> StatusData:
    """Read the pull request and compute its DCO, coverage, checks and description check.

    ``pr`` and ``report``, when the caller already read them (the findings read
    the same pull request), are used instead of reading them again.
    """
    client = GitHubClient(link.target, link.token)
    if pr is None:
        number = pull_number(session, link, client)
        pr = client.pull_request(number, steps=steps)
    steps.check()
    if report is None:
        steps("Reading the sync")
        report = load_report(session, steps=steps, detail=False)
    git, config = session.git, session.config
    notes: list[str] = []
    if pr.head_sha != session.refs.head:
        notes.append(
            f"the pull request's head is {pr.head_sha[:12]}, the local head "
            f"{session.refs.head[:12]}: push, or fetch, to compare like with like"
        )

    steps("Checking sign-offs")
    imported = {commit.sha for commit in report.slice.commits}
    dco = dco_report(pr, imported=imported, bots=config.dco_bots)
    precedent: list[Precedent] = []
    if dco.needs_override:
        steps.check()
        steps("Looking for merged sync pull requests with the same DCO result")
        same = dco.github.conclusion if dco.github is not None else None
        precedent = find_precedent(
            client,
            head_prefix=sync_branch_prefix(pr.head_ref),
            exclude=pr.number,
            limit=PRECEDENT_LIMIT,
            same_as=same,
        )

    steps.check()
    steps("Reading the checks")
    contexts = fetch_rollup(link.target, link.token, pr.number, head_sha=pr.head_sha)
    checks = rollup(
        pr,
        gate=config.ci_gate,
        required=config.ci_required,
        exempt=config.ci_exempt,
        contexts=contexts,
    )
    source = "GraphQL statusCheckRollup" if contexts is not None else "REST check runs and statuses"

    steps.check()
    steps("Reading patch coverage")
    compare = fetch_compare(
        link.codecov_url or config.codecov_api_url,
        link.target.owner,
        link.target.name,
        pr.number,
        os.environ.get("CODECOV_TOKEN") or None,
    )
    mine = report.anatomy.ours  # the report sorted the commits already
    ours = ours_lines(git, session.refs.head, mine) if mine is not None else None
    coverage = patch_coverage(pr, compare.payload, ours=ours)
    if (said := ours_summary(mine)) is not None:
        notes.append(f"counted as ours: {said}")

    body = verify_body(pr.body, report)
    override_posted = posted_for(client, pr, override_key(pr.head_sha))
    trigger_posted = posted_for(client, pr, trigger_key(pr.head_sha))
    return StatusData(
        link=link,
        pr=pr,
        report=report,
        dco=dco,
        precedent=tuple(precedent),
        checks=checks,
        checks_source=source,
        coverage=coverage,
        coverage_note=compare.reason,
        body=body,
        rate=_rate(client),
        notes=tuple(notes),
        override_posted=override_posted,
        trigger_posted=trigger_posted,
    )


def posted_for(client: GitHubClient, pr: PullRequest, key: str) -> PostResult | None:
    """syncdesk's comment for ``key`` on the pull request, if the token's user posted it.

    The same rule as posting once: only our own comment counts (anyone can
    paste a marker), so the viewer is asked, once, only when a marker is found.
    """
    found = [c for c in pr.issue_comments if key in markers_in(c.body)]
    if not found:
        return None
    me = client.viewer()
    mine = next((c for c in found if c.user == me), None)
    return None if mine is None else PostResult(mine.id, mine.html_url, already_posted=True)


def _rate(client: GitHubClient) -> RateLimit | None:
    remaining, limit, resets = client.rate_limit()
    if limit <= 0:
        return None
    return RateLimit(remaining, limit, resets)


def override_text(data: StatusData, maintainers: tuple[str, ...]) -> str:
    """The DCO override request, as it will be posted."""
    return override_request(data.dco, data.pr, maintainers=maintainers, precedent=data.precedent)


def post_override(session: SyncSession, data: StatusData, text: str) -> PostResult:
    """Post the override request (at most once for this head SHA, across processes)."""
    client = posting_client(data.link, session.git)
    return post_override_request(client, data.pr, text)


def post_trigger(session: SyncSession, data: StatusData, template: str) -> PostResult:
    """Post ``/ok to test <head sha>`` (at most once for this head SHA, across processes)."""
    client = posting_client(data.link, session.git)
    return post_ci_trigger(client, data.pr, template)


def toggle(data: StatusData, label: str) -> tuple[str, ...]:
    """Add or remove ``label`` on the pull request; the labels afterwards."""
    client = GitHubClient(data.link.target, data.link.token)
    return toggle_label(client, data.pr, label)


def description(data: StatusData) -> str:
    """A description in the house structure, from this sync's verified facts."""
    return generate_body(data.report)
