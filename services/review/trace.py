"""Findings traced onto a sync's head: each cited range's blame origin, each finding's advice.

One function, :func:`trace_findings`, for every place that traces findings: the
Findings screen and ``syncdesk report --with-pr`` (through
:func:`syncdesk.services.review.pull_request.load_findings`, for a pull
request's reviews) and ``syncdesk findings --repo`` (for any review text,
offline). It runs git only: which commits are ours is
:mod:`syncdesk.services.sync.ours`, the blame is :mod:`.origin`, the advice
:mod:`.advice`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from syncdesk.services.git.objects import read_contents
from syncdesk.services.progress import QUIET, Steps
from syncdesk.services.review.advice import evidence_line, origin_summary, suggest_disposition
from syncdesk.services.review.models import Disposition, Finding, RangeOrigin
from syncdesk.services.review.origin import classify_ranges
from syncdesk.services.review.paths import resolve_cited_paths
from syncdesk.services.sanitize import decode
from syncdesk.services.sync.ours import Ours, sync_ours
from syncdesk.services.sync.session import SyncSession

CODE_LINES_PER_RANGE = 60  # the detail view shows at most this many lines of each range


@dataclass(frozen=True, slots=True)
class FindingView:
    """One finding with its evidence and the suggested disposition."""

    finding: Finding
    origins: tuple[RangeOrigin, ...]
    suggested: Disposition
    reason: str  # why that suggestion, one line
    summary: str  # "slice 12 · repair 1"
    evidence: str  # one sentence for the reply
    code: dict[int, tuple[str, ...]] = field(default_factory=dict)  # range index -> head lines
    resolved_threads: int = 0  # of its inline threads, how many GitHub shows as resolved


@dataclass(frozen=True, slots=True)
class Traced:
    """Findings traced on ``head``: their views, which commits were ours, what to know."""

    head: str
    views: tuple[FindingView, ...]
    ours: Ours | None  # None when the head has no sync merge
    notes: tuple[str, ...] = ()


def trace_findings(
    session: SyncSession, findings: Sequence[Finding], *, steps: Steps = QUIET
) -> Traced:
    """Blame every cited range of ``findings`` on the session's head and suggest a disposition.

    Bare file names (``batcher.py line 40``) are first found in the head's
    tree. A range cited on another commit (a blob link's SHA) is mapped to the
    head's lines through a diff, as the report does. Which commits count as
    ours is :func:`~syncdesk.services.sync.ours.sync_ours` against the
    session's dev (:attr:`Traced.ours`).
    """
    git, refs = session.git, session.refs
    found = resolve_cited_paths(git, refs.head, findings)
    merge = session.merge
    ours = sync_ours(git, refs.head, merge.sha, merge.dev_base, refs.dev) if merge else None
    notes = ["the head has no sync merge: no line is the merge's or ours"] if merge is None else []
    steps("Tracing the cited lines (git blame)")
    origins = classify_ranges(
        git,
        [r for f in found for r in f.ranges],
        head=refs.head,
        merge=merge.sha if merge else None,
        dev_base=merge.dev_base if merge else refs.dev,
        slice_tip=merge.slice_tip if merge else refs.main,
        main_tip=refs.main,
        dev_tip=refs.dev,
        steps=steps,
    )
    code = _code(session, origins)
    views: list[FindingView] = []
    position = 0
    for finding in found:
        mine = tuple(origins[position : position + len(finding.ranges)])
        snippets = {i: code[position + i] for i in range(len(mine)) if position + i in code}
        position += len(finding.ranges)
        suggested, reason = suggest_disposition(finding, mine)
        summary, evidence = origin_summary(mine), evidence_line(finding, mine)
        views.append(FindingView(finding, mine, suggested, reason, summary, evidence, snippets))
    return Traced(refs.head, tuple(views), ours, tuple(notes))


def _code(session: SyncSession, origins: list[RangeOrigin]) -> dict[int, tuple[str, ...]]:
    """The head's lines of each classified range (by position), read in one git call."""
    head = session.refs.head
    paths = {o.range.path for o in origins if o.end >= o.start > 0}
    blobs = read_contents(session.git, [f"{head}:{path}" for path in paths], "blob")
    code: dict[int, tuple[str, ...]] = {}
    for index, origin in enumerate(origins):
        data = blobs.get(f"{head}:{origin.range.path}")
        if data is None or origin.end < origin.start or origin.start < 1:
            continue
        lines = decode(data).splitlines()
        stop = min(origin.end, origin.start + CODE_LINES_PER_RANGE - 1)
        code[index] = tuple(lines[origin.start - 1 : stop])
    return code
