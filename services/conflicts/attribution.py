"""Which commits made each conflict: blame over both sides of every hunk, batched.

The main side of a hunk comes from the slice: ``git blame`` of the slice
tip's file, restricted to ``dev_base..slice_tip``, names the slice commit
that last wrote each line; lines older than the slice belong to a *boundary*
commit and name none. The dev side likewise: the dev base's file, restricted
to ``slice_tip..dev_base``, names dev's own commits (main's commits that dev
merged in earlier syncs are reachable from the slice tip, so they are
boundary too).

One blame process per file and side, with every hunk's range as its own
``-L`` option: on Megatron-LM, 62 ranges cost 0.11 s as one call and 4.1 s as
62 calls (DOMAIN.md). Files are blamed concurrently (blame is mostly git's
own CPU time, outside the GIL).

A side with no lines (that side deleted the region) names no commit: blame
says who last wrote lines that exist, not who removed lines; a neighbouring
line's commit would be a guess presented as a fact.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

from syncdesk.services.conflicts.models import (
    Attribution,
    BlamedCommit,
    ConflictFile,
    ConflictSet,
    FileAttribution,
    HunkAttribution,
)
from syncdesk.services.git.runner import Git, first_line
from syncdesk.services.sanitize import one_line


@dataclass(frozen=True, slots=True)
class Blame:
    """What one blame call said: each final line's commit, and the commits' details."""

    lines: dict[int, str]  # 1-based line number in the blamed file -> commit sha (not boundary)
    commits: dict[str, BlamedCommit]
    problem: str | None = None


@dataclass(frozen=True, slots=True)
class _Job:
    path: str
    revisions: str  # "<exclude>..<include>"
    ranges: tuple[tuple[int, int], ...]  # 1-based, inclusive


def attribute(git: Git, conflicts: ConflictSet, workers: int | None = None) -> Attribution:
    """Blame both sides of every hunk of every conflicted file that has hunks."""
    jobs: dict[tuple[str, str], _Job] = {}
    for conflict in conflicts.files:
        for side, job in _jobs(conflict, conflicts.dev_side, conflicts.main_side).items():
            jobs[(conflict.path, side)] = job
    workers = workers or min(4, os.cpu_count() or 1)
    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        blamed = dict(zip(jobs, pool.map(lambda job: _blame(git, job), jobs.values()), strict=True))
    files = []
    for conflict in conflicts.files:
        if not conflict.hunks:
            continue
        dev = blamed.get((conflict.path, "dev"))
        main = blamed.get((conflict.path, "main"))
        files.append(_file_attribution(conflict, dev, main))
    return Attribution(tuple(files))


def _jobs(conflict: ConflictFile, dev_side: str, main_side: str) -> dict[str, _Job]:
    jobs = {}
    dev_ranges = _ranges([(h.dev_start, len(h.dev)) for h in conflict.hunks])
    if dev_ranges and conflict.dev_path is not None:
        jobs["dev"] = _Job(conflict.dev_path, f"{main_side}..{dev_side}", dev_ranges)
    main_ranges = _ranges([(h.main_start, len(h.main)) for h in conflict.hunks])
    if main_ranges and conflict.main_path is not None:
        jobs["main"] = _Job(conflict.main_path, f"{dev_side}..{main_side}", main_ranges)
    return jobs


def _ranges(spans: Sequence[tuple[int, int]]) -> tuple[tuple[int, int], ...]:
    return tuple((start, start + size - 1) for start, size in spans if size > 0 and start > 0)


def _blame(git: Git, job: _Job) -> Blame:
    """One ``git blame --porcelain`` over every range of one file and side."""
    options = [f"-L{start},{end}" for start, end in job.ranges]
    result = git.run(["blame", "--porcelain", *options, job.revisions, "--", job.path], check=False)
    if result.status != 0:
        return Blame({}, {}, f"{one_line(job.path)}: {first_line(result.stderr)}")
    return parse_porcelain(result.stdout)


def parse_porcelain(out: bytes) -> Blame:
    """Read ``git blame --porcelain``: a header per line group, details once per commit."""
    lines: dict[int, str] = {}
    details: dict[str, dict[str, str]] = {}
    boundary: set[str] = set()
    current = ""
    for raw in out.split(b"\n"):
        if raw.startswith(b"\t") or not raw:
            continue  # the line's content, which we do not need
        text = raw.decode("utf-8", errors="replace")
        word, _, rest = text.partition(" ")
        if len(word) in (40, 64) and rest[:1].isdigit():
            current = word
            final, count = _final_lines(rest)
            for number in range(final, final + count):
                lines[number] = current
            details.setdefault(current, {})
        elif word == "boundary":
            boundary.add(current)
        else:
            details.setdefault(current, {}).setdefault(word, rest)
    commits = {sha: _commit(sha, fields) for sha, fields in details.items() if sha not in boundary}
    kept = {number: sha for number, sha in lines.items() if sha in commits}
    return Blame(kept, commits)


def _final_lines(rest: str) -> tuple[int, int]:
    """``<orig> <final> [<count>]``: the first final line number and the group's size."""
    numbers = rest.split()
    # Only the first line of a group carries the count; the others stand for one line.
    return int(numbers[1]), int(numbers[2]) if len(numbers) > 2 else 1


def _commit(sha: str, fields: dict[str, str]) -> BlamedCommit:
    return BlamedCommit(
        sha=sha,
        subject=one_line(fields.get("summary", "")),
        author_name=one_line(fields.get("author", "")),
        author_email=one_line(fields.get("author-mail", "").strip("<>")),
        date=_iso_date(fields.get("author-time", "0"), fields.get("author-tz", "+0000")),
    )


def _iso_date(epoch: str, zone: str) -> str:
    """``author-time`` and ``author-tz`` as git's ``%aI`` prints them."""
    try:
        sign = -1 if zone.startswith("-") else 1
        offset = timedelta(hours=int(zone[1:3]), minutes=int(zone[3:5])) * sign
        return datetime.fromtimestamp(int(epoch), timezone(offset)).isoformat()
    except (ValueError, IndexError):
        return ""


def _file_attribution(
    conflict: ConflictFile, dev: Blame | None, main: Blame | None
) -> FileAttribution:
    hunks = []
    for hunk in conflict.hunks:
        hunks.append(
            HunkAttribution(
                dev=_named(dev, hunk.dev_start, len(hunk.dev)),
                main=_named(main, hunk.main_start, len(hunk.main)),
            )
        )
    problems = tuple(b.problem for b in (dev, main) if b is not None and b.problem)
    return FileAttribution(conflict.path, tuple(hunks), problems)


def _named(blamed: Blame | None, start: int, size: int) -> tuple[BlamedCommit, ...]:
    """The commits of lines ``start .. start + size - 1``, in order of first appearance."""
    if blamed is None:
        return ()
    shas = dict.fromkeys(
        blamed.lines[number] for number in range(start, start + size) if number in blamed.lines
    )
    return tuple(blamed.commits[sha] for sha in shas)
