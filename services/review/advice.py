"""What the origins of a finding's cited lines suggest, in words for the maintainer.

:func:`suggest_disposition` proposes where a finding is fixed (here, on main,
on dev) from the classes of its lines; :func:`origin_summary` counts the lines
per class for a list column; :func:`evidence_line` states the facts behind it
for the reply's dispositions table. All of it reads the
:class:`~syncdesk.services.review.models.RangeOrigin` values that
:func:`syncdesk.services.review.origin.classify_ranges` returns, and runs no git.
"""

from __future__ import annotations

import posixpath
from collections import Counter
from collections.abc import Sequence

from syncdesk.services.review.models import Disposition, Finding, Origin, OriginRun, RangeOrigin
from syncdesk.services.sanitize import one_line

# The order the classes are counted and named in.
ORDER = (Origin.SLICE, Origin.DEV, Origin.SHARED, Origin.MERGE, Origin.REPAIR)


def _total(origins: Sequence[RangeOrigin]) -> Counter[Origin]:
    total: Counter[Origin] = Counter()
    for origin in origins:
        total.update(origin.counts)
    return total


def _first_run(origins: Sequence[RangeOrigin], kind: Origin) -> OriginRun | None:
    return next((run for o in origins for run in o.runs if run.origin is kind), None)


def _all_identical_to_main(origins: Sequence[RangeOrigin]) -> bool:
    return bool(origins) and all(o.file_identical_to in ("main", "both") for o in origins)


def suggest_disposition(
    finding: Finding, origins: Sequence[RangeOrigin]
) -> tuple[Disposition, str]:
    """The disposition the cited lines' origins suggest, and a one-line reason.

    ``origins`` are the finding's ranges as :func:`.origin.classify_ranges`
    returned them. Lines of ours (the merge's resolution, the repair, a merge
    of dev's own resolution: ``docs/ours.md``) are fixed here; lines the slice
    brought are fixed on main, dev's own (a dev pull request a merge of dev
    brought included) on dev; older lines shared by both are fixed on main
    only when the file is main's exactly.
    """
    if finding.status in ("closed", "superseded"):
        return Disposition.CLOSED, f"the review says this finding is {finding.status}"
    if not origins:
        return Disposition.UNDECIDED, "no cited lines"
    total = _total(origins)
    for kind in (Origin.REPAIR, Origin.MERGE):
        run = _first_run(origins, kind)
        if run is not None:
            return Disposition.FIX_HERE, f"{_lines(total[kind])} from {_ours_words(run)}"
    slice_run = _first_run(origins, Origin.SLICE)
    if slice_run is not None:
        return Disposition.FIX_ON_MAIN, (
            f"{_lines(total[Origin.SLICE])} from main {_commit_words(slice_run)}"
        )
    if _all_identical_to_main(origins):
        return Disposition.FIX_ON_MAIN, "every cited file is identical to main"
    dev_run = _first_run(origins, Origin.DEV)
    if dev_run is not None:
        return Disposition.FIX_ON_DEV, (
            f"{_lines(total[Origin.DEV])} from dev {_commit_words(dev_run)}"
        )
    if total[Origin.SHARED]:
        return Disposition.UNDECIDED, (
            "the cited lines are older than both branches and the file differs from main"
        )
    notes = [o.note for o in origins if o.note]
    return Disposition.UNDECIDED, notes[0] if notes else "no cited line could be classified"


def origin_summary(origins: Sequence[RangeOrigin]) -> str:
    """Lines per class for a list column: ``"slice 12 · merge 3 · repair 1"``."""
    total = _total(origins)
    parts = [f"{kind.value} {total[kind]}" for kind in ORDER if total[kind]]
    return " · ".join(parts) if parts else "no lines"


def evidence_line(finding: Finding, origins: Sequence[RangeOrigin]) -> str:
    """One sentence of evidence for the reply's dispositions table, from facts only.

    For example: ``F2: streaming.py is identical to main; the cited lines come
    from main ad3ecd9 (Fix the stream (#1234))``.
    """
    clauses = []
    for path, same in dict.fromkeys((o.range.path, o.file_identical_to) for o in origins):
        if same:
            side = "main and dev" if same == "both" else same
            clauses.append(f"{one_line(posixpath.basename(path))} is identical to {side}")
    sources = [_source_words(origins, kind) for kind in ORDER]
    named = [words for words in sources if words]
    if named:
        clauses.append("the cited lines come from " + " and ".join(named))
    elif not origins:
        clauses.append("no cited lines")
    clauses.extend(
        dict.fromkeys(
            f"{one_line(posixpath.basename(o.range.path))}: {o.note}" for o in origins if o.note
        )
    )
    return f"{one_line(finding.id)}: " + "; ".join(clauses or ["no line could be classified"])


_SIDE_WORDS = {
    Origin.SLICE: "main",
    Origin.DEV: "dev",
    Origin.SHARED: "code older than both branches,",
    Origin.MERGE: "the merge's conflict resolution",
}


def _source_words(origins: Sequence[RangeOrigin], kind: Origin) -> str:
    """``main ad3ecd9 (subject)`` for the commits of one class (at most two named).

    Our commits are named by their role: the repair commit(s), and our merges
    of dev, whose own resolution wrote the lines.
    """
    runs = list({run.commit: run for o in origins for run in o.runs if run.origin is kind}.values())
    if kind is not Origin.REPAIR:
        return _named(_SIDE_WORDS[kind], runs)
    repairs = _named("the repair commit", [run for run in runs if not run.by_merge])
    merges = _named("our merge of dev", [run for run in runs if run.by_merge])
    merges += " (its own resolution)" if merges else ""
    return " and ".join(words for words in (repairs, merges) if words)


def _named(words: str, runs: Sequence[OriginRun]) -> str:
    if not runs:
        return ""
    shown = [_commit_words(run) for run in runs[:2]]
    more = f" and {len(runs) - 2} more" if len(runs) > 2 else ""
    return f"{words} {', '.join(shown)}{more}"


def _ours_words(run: OriginRun) -> str:
    """``the repair commit 1a2b3c4d``, ``our merge of dev 5e6f7a8b (its own resolution)``."""
    if run.origin is Origin.MERGE:
        return f"the merge {run.commit[:8]}"
    if run.by_merge:
        return f"our merge of dev {run.commit[:8]} (its own resolution)"
    return f"the repair commit {run.commit[:8]}"


def _lines(count: int) -> str:
    return f"{count} cited line" if count == 1 else f"{count} cited lines"


def _commit_words(run: OriginRun) -> str:
    subject = run.subject if len(run.subject) <= 60 else run.subject[:59] + "…"
    return f"{run.commit[:7]} ({subject})" if subject else run.commit[:7]
