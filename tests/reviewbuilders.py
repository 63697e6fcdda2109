"""Reviews and inline review comments as GitHub gives them, for the findings tests."""

from __future__ import annotations

from syncdesk.services.github.models import ReviewComment


def inline_comment(
    comment_id: int,
    body: str,
    *,
    commit: str,
    original_commit: str | None = None,
    path: str = "kestrel/serving/batcher.py",
    line: int | None = 30,
    start_line: int | None = None,
    original_line: int | None = None,
    original_start_line: int | None = None,
    review_id: int | None = 880022,
    in_reply_to_id: int | None = None,
    side: str | None = "RIGHT",
    created_at: str = "2026-03-02T10:00:00Z",
) -> ReviewComment:
    """A top-level inline comment (or, with ``in_reply_to_id``, a reply) on ``path``."""
    return ReviewComment(
        id=comment_id,
        review_id=review_id,
        user="reviewer",
        body=body,
        path=path,
        line=line,
        start_line=start_line,
        side=side,
        start_side=side,
        commit_id=commit,
        original_commit_id=original_commit or commit,
        original_line=original_line,
        original_start_line=original_start_line,
        in_reply_to_id=in_reply_to_id,
        diff_hunk="@@ -1,3 +1,3 @@",
        created_at=created_at,
    )
