"""The slice: the oldest N commits of ``dev_base..main`` that a sync imports."""

from __future__ import annotations

import re

from syncdesk.services.git.runner import Git
from syncdesk.services.sync.commits import log_commits, signed_shas
from syncdesk.services.sync.dco import signoff_matches
from syncdesk.services.sync.models import Slice, SliceCommit

_PR_SUFFIX = re.compile(r"\(#(\d+)\)\s*$")


def main_line(git: Git, dev_base: str, main: str) -> list[str]:
    """Every commit of ``dev_base..main`` on main's first-parent line, oldest first.

    First-parent order is what the bot slices by: main is linear in practice,
    but a merge on main must not drag its side branch into the count.
    """
    return list(reversed(git.lines("rev-list", "--first-parent", f"{dev_base}..{main}", "--")))


def pr_number(subject: str) -> int | None:
    """The pull request number of a squash-merged subject's ``(#1234)`` suffix."""
    match = _PR_SUFFIX.search(subject)
    return int(match.group(1)) if match else None


def imported_size(slice_tip: str | None, line: list[str]) -> int | None:
    """How many commits of ``line`` a merge whose parent 2 is ``slice_tip`` imported.

    None when there is no merge or its parent 2 is not on the line (the anatomy
    says so): then the configured size picks the slice.
    """
    if slice_tip is None or slice_tip not in line:
        return None
    return line.index(slice_tip) + 1


def read_slice(
    git: Git, dev_base: str, main: str, size: int, line: list[str], *, expected: int = 0
) -> Slice:
    """The oldest ``size`` commits of ``line`` (``main_line(dev_base, main)``), fully described.

    ``expected`` is the configured size when ``size`` is what a merge imported.
    """
    shas = line[:size]
    signed = signed_shas(git, shas)
    commits = []
    for index, logged in enumerate(log_commits(git, shas), start=1):
        commits.append(
            SliceCommit(
                index=index,
                sha=logged.sha,
                subject=logged.subject,
                author_name=logged.author.name,
                author_email=logged.author.email,
                date=logged.author_date,
                committer_name=logged.committer.name,
                committer_email=logged.committer.email,
                pr=pr_number(logged.subject),
                signoffs=logged.signoffs,
                signed_off=bool(logged.signoffs),
                signoff_matches_author=signoff_matches(
                    logged.dco_signoffs, logged.author, logged.committer
                ),
                signed=logged.sha in signed,
                is_merge=len(logged.parents) > 1,
            )
        )
    return Slice(
        dev_base=dev_base,
        main_tip=main,
        size=size,
        commits=tuple(commits),
        remaining=max(0, len(line) - size),
        expected=expected or size,
        imported=bool(expected),
    )
