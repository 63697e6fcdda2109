"""The demo PR's review side: the findings, the bot's two reviews, and the inline threads.

Findings cite head lines of every origin class (see :mod:`syncdesk.services.sandbox.demo.git`);
their prose is in :mod:`syncdesk.services.sandbox.demo.texts`.
"""

from __future__ import annotations

from syncdesk.services.demo.facts import DemoFacts
from syncdesk.services.git.runner import Git
from syncdesk.services.sandbox.demo import texts as t
from syncdesk.services.sandbox.demo.cast import MAINTAINER, REVIEW_BOT
from syncdesk.services.sandbox.demo.commits import outdated_anchor
from syncdesk.services.sandbox.demo.git import LineRange, diff_hunk, file_lines
from syncdesk.services.sandbox.scenario import ReviewCommentSpec, ReviewSpec

EARLIER_REVIEW_ID, STRICT_REVIEW_ID, REPLY_REVIEW_ID = 1_510_000_101, 1_510_000_202, 1_510_000_303


def review_findings(origins: dict[str, LineRange], head: str) -> dict[str, t.PlantedFinding]:
    """The findings the reviews raise on the head, one or more per origin class."""

    def make(
        fid: str, severity: str, area: str, title: str, failure: str, key: str
    ) -> t.PlantedFinding:
        return t.PlantedFinding(fid, severity, area, title, failure, origins[key], head)

    return {
        "F1": make(
            "F1",
            "CRITICAL",
            "Correctness",
            "Guard the imported fast path",
            "the main commit that added this code assumes an argument dev never passes, so the "
            "first call from dev's scheduler takes the wrong branch.",
            "main",
        ),
        "F2": make(
            "F2",
            "CRITICAL",
            "Correctness",
            "The hand resolution drops a side",
            "the merge resolution wrote lines that neither parent has; the union keeps dev's "
            "guard but loses main's fallback, so an empty input is no longer handled.",
            "merge",
        ),
        "F6": make(
            "F6",
            "IMPORTANT",
            "Compatibility",
            "Preserve dev's keyword order",
            "these dev lines were changed after the fork; a caller from main still passes the "
            "old positional order and now binds a flag to the wrong parameter.",
            "dev",
        ),
        "F7": make(
            "F7",
            "IMPORTANT",
            "Correctness",
            "Shared helper ignores the new mode",
            "this helper predates the fork and is identical on both branches, yet the slice now "
            "calls it with a mode it does not know, and it silently falls back.",
            "shared",
        ),
        "F8": make(
            "F8",
            "IMPORTANT",
            "Testing",
            "The repair's double hides a failure",
            "the test double the repair adds always succeeds, so the engine test can no longer "
            "see the error path main's version exercised.",
            "repair",
        ),
        "F10": make(
            "F10",
            "CRITICAL",
            "Correctness",
            "Imported code skips validation",
            "the imported code trusts its input here; dev's callers pass unchecked values that "
            "main's callers always validated first.",
            "main",
        ),
    }


def reviews(
    facts: DemoFacts, findings: dict[str, t.PlantedFinding], web_repo: str
) -> list[ReviewSpec]:
    """The bot's earlier and strict reviews and the maintainer's reply's own review."""
    resolved = t.PlantedFinding(
        "F9",
        "CRITICAL",
        "Correctness",
        "Restore the dropped import",
        "the resolution dropped an import main's code calls.",
        findings["F8"].cited,
        facts.repair,
    )
    carried = [findings[k] for k in ("F6", "F7", "F8", "F10")]
    earlier = [findings[k] for k in ("F1", "F2", "F6", "F7", "F10")]
    return [
        ReviewSpec(
            EARLIER_REVIEW_ID,
            REVIEW_BOT,
            t.earlier_review_body(web_repo, earlier),
            facts.merge,
            "COMMENTED",
            "2025-01-05T12:00:00Z",
        ),
        ReviewSpec(
            STRICT_REVIEW_ID,
            REVIEW_BOT,
            t.strict_review_body(
                web_repo, carried, ["F1", "F2"], resolved, EARLIER_REVIEW_ID, frozenset({"F8"})
            ),
            facts.repair,
            "COMMENTED",
            "2025-01-06T11:00:00Z",
        ),
        # GitHub wraps a reply posted outside a review in its own, empty, review.
        ReviewSpec(
            REPLY_REVIEW_ID, MAINTAINER, "", facts.repair, "COMMENTED", "2025-01-06T12:00:00Z"
        ),
    ]


def inline_comments(
    git: Git, facts: DemoFacts, findings: dict[str, t.PlantedFinding]
) -> list[ReviewCommentSpec]:
    """The inline threads: an outdated one, F1 on one line, F2 on a range, and a reply."""
    single, multi = findings["F1"].cited, findings["F2"].cited
    single_lines = file_lines(git, facts.repair, single.path)
    multi_lines = file_lines(git, facts.repair, multi.path)
    start = multi.start if multi.end > multi.start else max(1, multi.start - 1)
    path, old_line, old_hunk = outdated_anchor(git, facts)
    outdated = t.PlantedFinding(
        "F3",
        "CRITICAL",
        "Correctness",
        "The resolution drops a name main calls",
        "the merged file no longer imports a helper that main's code calls.",
        LineRange(path, old_line, old_line, "merge"),
        facts.merge,
    )
    return [
        ReviewCommentSpec(
            1_800_000_001,
            REVIEW_BOT,
            t.inline_body(outdated),
            path,
            facts.merge,
            facts.merge,
            line=None,
            original_line=old_line,
            review_id=EARLIER_REVIEW_ID,
            diff_hunk=old_hunk,
            created_at="2025-01-05T12:00:00Z",
        ),
        ReviewCommentSpec(
            1_800_000_002,
            REVIEW_BOT,
            t.inline_body(findings["F1"]),
            single.path,
            facts.repair,
            facts.repair,
            line=single.start,
            original_line=single.start,
            review_id=STRICT_REVIEW_ID,
            diff_hunk=diff_hunk(single_lines, single.start, single.start),
            created_at="2025-01-06T11:00:00Z",
        ),
        ReviewCommentSpec(
            1_800_000_003,
            REVIEW_BOT,
            t.inline_body(findings["F2"]),
            multi.path,
            facts.repair,
            facts.repair,
            line=multi.end,
            original_line=multi.end,
            start_line=start,
            original_start_line=start,
            start_side="RIGHT",
            review_id=STRICT_REVIEW_ID,
            diff_hunk=diff_hunk(multi_lines, start, multi.end),
            created_at="2025-01-06T11:00:00Z",
        ),
        ReviewCommentSpec(
            1_800_000_004,
            MAINTAINER,
            "These lines arrive unchanged from main, so the fix belongs on main; it will reach "
            "dev with a later slice. Tracking it there.",
            single.path,
            facts.repair,
            facts.repair,
            line=single.start,
            original_line=single.start,
            review_id=REPLY_REVIEW_ID,
            in_reply_to_id=1_800_000_002,
            diff_hunk=diff_hunk(single_lines, single.start, single.start),
            created_at="2025-01-06T12:00:00Z",
        ),
    ]
