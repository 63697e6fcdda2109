"""Dispositions kept by finding id, crash-safely; the reply they make."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from syncdesk.services.git.runner import Git
from syncdesk.services.github.models import Review
from syncdesk.services.review.dispositions import (
    Decision,
    Posted,
    book_path,
    decide,
    load_book,
    record_post,
)
from syncdesk.services.review.models import Disposition, Finding
from syncdesk.services.review.reply import ReplyRow, compose_reply, thread_reply
from syncdesk.services.sanitize import markdown_cell
from tests.gitrepo import GitRepo

REPO = "lumen-ai/lumen"


def _git(repo: GitRepo) -> Git:
    repo.commit("root", {"README.md": "hi\n"})
    return Git(repo.path)


def test_a_decision_is_on_disk_when_decide_returns_and_survives_a_new_process(
    repo: GitRepo,
) -> None:
    git = _git(repo)
    decide(git, REPO, 7, "F3", Decision(Disposition.FIX_ON_MAIN, "lands with #812"))
    root = Path(__file__).resolve().parent.parent
    script = (
        "import sys; from syncdesk.services.git.runner import Git;"
        "from syncdesk.services.review.dispositions import load_book;"
        f"b = load_book(Git(sys.argv[1]), {REPO!r}, 7);"
        "d = b.decisions['F3']; print(d.disposition.value, d.note)"
    )
    out = subprocess.run(
        [sys.executable, "-c", script, str(repo.path)], cwd=root, capture_output=True, text=True
    )
    assert out.stdout.strip() == "fix-on-main lands with #812", out.stderr
    assert not list(repo.path.glob("*.json"))  # nothing in the work tree


def test_two_windows_keep_each_others_decisions_and_later_rounds_keep_ids(repo: GitRepo) -> None:
    git = _git(repo)
    decide(git, REPO, 7, "F1", Decision(Disposition.FIX_HERE))
    decide(git, REPO, 7, "F2", Decision(Disposition.CLOSED, "fixed in the repair"))
    decide(git, REPO, 7, "F1", Decision(Disposition.FIX_ON_MAIN, "changed my mind"))
    book = load_book(git, REPO, 7)
    assert {k: d.disposition for k, d in book.decisions.items()} == {
        "F1": Disposition.FIX_ON_MAIN,
        "F2": Disposition.CLOSED,
    }
    assert load_book(git, REPO, 8).decisions == {}  # another pull request


def test_a_corrupt_file_is_moved_aside_and_reported(repo: GitRepo) -> None:
    git = _git(repo)
    decide(git, REPO, 7, "F1", Decision(Disposition.FIX_HERE))
    path = book_path(git, REPO, 7)
    path.write_text("{not json")
    book = load_book(git, REPO, 7)
    assert book.decisions == {}
    assert "moved aside" in book.note
    assert list(path.parent.glob("*.corrupt-*"))


def test_posts_are_remembered_once_per_key(repo: GitRepo) -> None:
    git = _git(repo)
    record_post(git, REPO, 7, Posted("k1", 11, "https://github.com/x#1", "t"))
    record_post(git, REPO, 7, Posted("k1", 11, "https://github.com/x#1", "t"))
    assert [p.comment_id for p in load_book(git, REPO, 7).posted] == [11]


def test_the_reply_is_a_table_that_review_text_cannot_break() -> None:
    hostile = Finding("F4", "CRITICAL", "Correctness", "a | b <!-- hide --> @maintainer\nnext", "")
    rows = [
        ReplyRow(
            Finding("F1", "CRITICAL", "", "Cache key", ""),
            "identical to main",
            Disposition.FIX_ON_MAIN,
        ),
        ReplyRow(hostile, "lines from the repair commit", Disposition.FIX_HERE, "will fix"),
    ]
    review = Review(5, "bot", "COMMENTED", "F1 ...", "abcdef1234", "2026-01-01T00:00:00Z")
    text = compose_reply("0123456789abcdef", rows, [review])
    table = [line for line in text.splitlines() if line.startswith(("| F1", "| F4"))]
    assert len(table) == 2
    assert all(line.count(" | ") == 2 for line in table)  # three cells, whatever the text
    assert "<!--" not in text and "@maintainer" not in text
    assert "Fix on main" in table[0] and "Fix here (repair commit)" in table[1]
    assert "- F4: will fix" in text
    assert "5 (abcdef1)" in text
    assert markdown_cell("a\x1b[31mb") == "a [31mb"
    assert thread_reply(rows[1]).startswith("Fix here (repair commit). lines from the repair")


def test_the_reply_says_how_to_read_the_labels_the_desk_gave() -> None:
    rows = [
        ReplyRow(
            Finding("R01", "P1", "", "Close drops the batch", ""), "main", Disposition.FIX_ON_MAIN
        ),
        ReplyRow(Finding("R9-2", "", "", "Bound the queue", ""), "dev", Disposition.FIX_HERE),
        ReplyRow(Finding("C77", "", "", "Typo", ""), "dev", Disposition.FIX_HERE),
    ]
    text = compose_reply("0123456789abcdef", rows, [])
    assert "R<review>-<n> is the n-th finding of that review's text" in text
    assert "C<comment> is an inline comment" in text
    assert "T<n>" not in text  # no such label here
    only_reviewers = compose_reply("0123456789abcdef", rows[:1], [])
    assert "labelled here" not in only_reviewers  # every id is the reviewer's own
