"""What the demo scenario reads from the demo repository, through the one git runner.

Commit objects (message, identities, signature header) for the REST payloads,
and the *origin* of head lines for the review's cited ranges. A line's origin
class comes from ``git blame`` on the head:

- ``main``: introduced by a slice commit (imported from main);
- ``dev``: changed on dev after the fork point, up to the dev base;
- ``shared``: unchanged since before dev and main forked;
- ``merge``: written by the merge commit's own resolution (in neither parent);
- ``repair``: introduced by the repair commit.

git attributes a line that differs from every parent of a merge to the merge
itself, so blame gives the ``merge`` class directly.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC

from syncdesk.services.demo.facts import DemoFacts
from syncdesk.services.git.commit import parse_commit_object, parse_ident
from syncdesk.services.git.objects import read_objects
from syncdesk.services.git.runner import Git

ORIGIN_CLASSES = ("main", "dev", "shared", "merge", "repair")
_BLAME_HEADER = re.compile(r"^([0-9a-f]{40}) \d+ (\d+)")
_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


@dataclass(frozen=True, slots=True)
class Ident:
    """A git identity line, its date in ISO 8601 UTC."""

    name: str
    email: str
    date: str


@dataclass(frozen=True, slots=True)
class RawCommit:
    """A commit object's fields, as GitHub's REST payloads need them."""

    sha: str
    tree: str
    parents: tuple[str, ...]
    author: Ident
    committer: Ident
    message: str
    signature: str | None  # the gpgsig header (SSH or PGP armour), if any
    payload: str  # the object without its signature header (what was signed)


@dataclass(frozen=True, slots=True)
class LineRange:
    """Lines ``start..end`` (1-based, inclusive) of ``path`` at the head, all of one origin."""

    path: str
    start: int
    end: int
    origin: str


def _ident(value: str) -> Ident:
    """An identity header as GitHub's payloads give it: its date in ISO 8601 UTC."""
    parsed = parse_ident(value)
    if parsed is None:
        return Ident(value, "", "2025-01-06T09:00:00Z")
    when = parsed.when.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    return Ident(parsed.name, parsed.email, when)


def _parse_commit(sha: str, raw: bytes) -> RawCommit:
    """A commit object as the REST payloads need it (the one commit parser, then ISO dates)."""
    parsed = parse_commit_object(raw, errors="replace")
    return RawCommit(
        sha=sha,
        tree=parsed.tree,
        parents=parsed.parents,
        author=_ident(parsed.author),
        committer=_ident(parsed.committer),
        message=parsed.message,
        signature=parsed.signature,
        payload=parsed.payload,
    )


def read_commits(git: Git, shas: list[str]) -> dict[str, RawCommit]:
    """Every named commit object (by full SHA), read with one ``cat-file`` process."""
    return {
        item.oid: _parse_commit(item.oid, item.content)
        for item in read_objects(git, shas).values()
        if item is not None and item.type == "commit" and item.content is not None
    }


def pr_commits(git: Git, facts: DemoFacts) -> list[str]:
    """The sync PR's commits, oldest first: the slice, the merge, the repair."""
    return git.lines("rev-list", "--reverse", "--topo-order", f"{facts.dev_base}..{facts.repair}")


class OriginMap:
    """Classifies the head's lines by origin (see the module docstring)."""

    def __init__(self, git: Git, facts: DemoFacts) -> None:
        self.git = git
        self.facts = facts
        fork = git.text("merge-base", facts.dev_base, facts.slice_tip).strip()
        self.dev_only = set(git.lines("rev-list", f"{fork}..{facts.dev_base}"))
        self.slice = set(facts.slice)

    def origin(self, sha: str) -> str:
        """The origin class of the commit blame names for a line."""
        if sha == self.facts.repair:
            return "repair"
        if sha == self.facts.merge:
            return "merge"
        if sha in self.slice:
            return "main"
        if sha in self.dev_only:
            return "dev"
        return "shared"

    def lines(self, path: str) -> list[str]:
        """The origin class of every line of ``path`` at the head, in order."""
        out = self.git.text("blame", "--porcelain", self.facts.repair, "--", path)
        by_line: dict[int, str] = {}
        for line in out.splitlines():
            match = _BLAME_HEADER.match(line)
            if match is not None:
                by_line[int(match[2])] = self.origin(match[1])
        return [by_line[n] for n in sorted(by_line)]

    def runs(self, path: str) -> list[LineRange]:
        """Maximal runs of consecutive head lines with one origin."""
        classes = self.lines(path)
        found: list[LineRange] = []
        start = 1
        for index in range(1, len(classes) + 1):
            if index == len(classes) or classes[index] != classes[start - 1]:
                found.append(LineRange(path, start, index, classes[start - 1]))
                start = index + 1
        return found


def pick_ranges(origins: OriginMap, paths: list[str], longest: int = 6) -> dict[str, LineRange]:
    """One cited range per origin class, from the first path (in order) that has a run of it.

    Runs of at least two lines are preferred; a range is cut to ``longest``
    lines. Raises ``LookupError`` if some class occurs nowhere in ``paths``.
    """
    chosen: dict[str, LineRange] = {}
    fallback: dict[str, LineRange] = {}
    for path in paths:
        for run in origins.runs(path):
            end = min(run.end, run.start + longest - 1)
            cut = LineRange(run.path, run.start, end, run.origin)
            if run.end > run.start:
                chosen.setdefault(run.origin, cut)
            else:
                fallback.setdefault(run.origin, cut)
        if len(chosen) == len(ORIGIN_CLASSES):
            break
    result = {origin: chosen.get(origin) or fallback.get(origin) for origin in ORIGIN_CLASSES}
    missing = [origin for origin, found in result.items() if found is None]
    if missing:
        raise LookupError(f"no head lines of origin {', '.join(missing)} in {paths}")
    return {origin: found for origin, found in result.items() if found is not None}


def changed_hunks(git: Git, old: str, new: str, path: str) -> list[tuple[int, int, int, int]]:
    """``(old_start, old_count, new_start, new_count)`` of each ``diff -U0`` hunk."""
    out = git.text("diff", "-U0", "--no-color", old, new, "--", path)
    hunks = []
    for line in out.splitlines():
        match = _HUNK.match(line)
        if match is not None:
            hunks.append(
                (
                    int(match[1]),
                    int(match[2] or 1),
                    int(match[3]),
                    int(match[4] or 1),
                )
            )
    return hunks


def file_lines(git: Git, rev: str, path: str) -> list[str]:
    """The lines of ``path`` at ``rev``."""
    return git.text("show", f"{rev}:{path}").splitlines()


def diff_hunk(lines: list[str], start: int, end: int) -> str:
    """A diff hunk ending at line ``end`` (GitHub's ``diff_hunk`` for a comment), added lines."""
    first = max(1, start - 2)
    body = [f" {lines[n - 1]}" for n in range(first, start)]
    body += [f"+{lines[n - 1]}" for n in range(start, end + 1) if n <= len(lines)]
    return f"@@ -{first},{start - first} +{first},{end - first + 1} @@\n" + "\n".join(body)
