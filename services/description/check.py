"""The checker of a sync PR's description: where it disagrees with the verified facts.

:func:`verify_body` reads any description (hand-written, a bot's, an older one
of ours), finds its list of source SHAs (after a heading, or else its longest
run of SHA lines) and compares it, the counts it claims and the dev base, tips,
merge and repair it names with a :class:`SyncReport`. :func:`check_lines` is
the result in words and :func:`body_check_json` in the report's JSON shape.

Bodies are untrusted text and can be large: parsing never raises and uses only
bounded regular expressions, so a 1 MB body is checked in well under a second.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from syncdesk.services.description.shas import (
    HEADING,
    find_list,
    is_sha,
    normal_lines,
    split_tokens,
)
from syncdesk.services.sanitize import markdown_cell
from syncdesk.services.sync.models import SliceCommit, SyncReport

SHOWN = 7  # how a SHA is abbreviated in problem lines, as in the seed PR's list
_SHOWN_MAX = 10  # SHAs named in one problem line before "and N more"

_HEX = re.compile(r"(?<![0-9A-Za-z_])([0-9a-fA-F]{7,40})(?![0-9A-Za-z_])")
_CLAIMS = re.compile(
    r"\b([0-9]{1,7})\s+(?:(?:original|source|slice|main)\s+){1,3}(?:commits|shas)\b"
    r"|\boldest\s+([0-9]{1,7})\s+(?:main\s+)?commits\b"
    r"|\bslice\s+of\s+([0-9]{1,7})\b",
    re.IGNORECASE,
)
# A label, then a few filler words or marks, then the SHA it names.
_LABEL = re.compile(
    r"\b(?:(previous|earlier|old|former|prior|last)\s+)?"
    r"(?:((?:merge|dev)[ _-])?base|(?:(slice|main|dev|head)[ _-])?tip|merge(?:[ _-]commit)?"
    r"|repair(?:[ _-]commit)?)\b",
    re.IGNORECASE,
)
_FILLER_THEN_SHA = re.compile(
    r"(?:[^\S\n]*(?:on main|is|was|at|sha|commit|[:=,(`*\[])){0,6}?[^\S\n]*`?"
    r"([0-9a-fA-F]{7,40})(?![0-9A-Za-z_])",
    re.IGNORECASE,
)
_PARENT = re.compile(
    r"(?<![0-9A-Za-z_])([0-9a-fA-F]{7,40})`?[^\S\n]{0,3}\((dev|main)\)", re.IGNORECASE
)
_RANGE = re.compile(
    r"(?<![0-9A-Za-z_])([0-9a-fA-F]{7,40})\.\.\.?([0-9a-fA-F]{7,40})(?![0-9A-Za-z_])"
)


@dataclass(frozen=True, slots=True)
class BodyCheck:
    """What :func:`verify_body` found: the SHA list as read, and each disagreement."""

    ok: bool
    problems: tuple[str, ...]  # one line each
    listed: tuple[str, ...]  # the SHAs of the body's list, as written (lower case), in order
    missing: tuple[str, ...]  # full SHAs of slice commits the list leaves out, in slice order
    extra: tuple[str, ...]  # listed SHAs that are unknown or ambiguous in the slice
    out_of_order: tuple[str, ...]  # full SHAs listed at a position another commit should hold
    claimed_count: int | None  # the count the list's heading (or else the text) claims


class _Slice:
    """The slice's SHAs, looked up by prefix."""

    def __init__(self, commits: Sequence[SliceCommit]) -> None:
        self.shas = [c.sha.lower() for c in commits]
        self.position = {sha: i for i, sha in enumerate(self.shas)}
        self.by_prefix: dict[str, list[str]] = {}
        for sha in self.shas:
            self.by_prefix.setdefault(sha[:SHOWN], []).append(sha)

    def resolve(self, token: str) -> list[str]:
        """Every slice SHA ``token`` abbreviates (none, one, or several when ambiguous)."""
        return [sha for sha in self.by_prefix.get(token[:SHOWN], ()) if sha.startswith(token)]


def verify_body(body: str, report: SyncReport) -> BodyCheck:
    """Compare a PR description with the report: its SHA list, counts and named commits.

    The list is read after a heading such as "Ordered 100 source SHAs" or
    "Source commits", or else is the body's longest run of SHA lines; SHAs may
    be short or full, separated by spaces, newlines, commas, bullets or table
    cells, in backticks or as commit links. Short SHAs are resolved against
    the slice by prefix. Never raises, whatever the text.
    """
    lines = normal_lines(_masked(body, report))
    listed, span, heading_count = find_list(lines)
    the_slice = _Slice(report.slice.commits)
    resolved, extra, problems = _resolve_all(listed, the_slice)
    known = set(resolved)
    missing = [sha for sha in the_slice.shas if sha not in known]
    out_of_order, first = _order(resolved, the_slice)
    size = len(the_slice.shas)
    if missing:
        problems.insert(
            0, f"lists {len(listed)} SHAs, the slice has {size}: missing {_few(missing)}"
        )
    elif len(listed) != size and not extra:
        problems.insert(0, f"lists {len(listed)} SHAs, the slice has {size}")
    if first is not None:
        problems.append(f"SHAs out of order from position {first}: {_few(out_of_order)}")
    prose = [line for number, line in enumerate(lines) if number not in span]
    claims = _claims(prose)
    if heading_count is not None:
        claims.insert(0, heading_count)
    problems += _claim_problems(claims, size, len(listed))
    problems += _named_problems(prose, report)
    return BodyCheck(
        ok=not problems,
        problems=tuple(problems),
        listed=tuple(listed),
        missing=tuple(missing),
        extra=tuple(extra),
        out_of_order=tuple(out_of_order),
        claimed_count=next(iter(claims), None),
    )


def _resolve_all(
    listed: Sequence[str], the_slice: _Slice
) -> tuple[list[str], list[str], list[str]]:
    """Known full SHAs (first listing only), unknown or ambiguous tokens, and problem lines."""
    resolved: list[str] = []
    seen: dict[str, int] = {}
    unknown: list[str] = []
    ambiguous: list[str] = []
    for token in listed:
        matches = the_slice.resolve(token)
        if len(matches) > 1:
            ambiguous.append(token)
        elif not matches:
            unknown.append(token)
        elif seen.setdefault(matches[0], 0) == 0:
            resolved.append(matches[0])
            seen[matches[0]] = 1
        else:
            seen[matches[0]] += 1
    problems = []
    if unknown:
        problems.append(f"lists {len(unknown)} SHAs that are not in the slice: {_few(unknown)}")
    if ambiguous:
        problems.append(f"lists {len(ambiguous)} ambiguous short SHAs: {_few(ambiguous)}")
    repeated = [sha for sha, count in seen.items() if count > 1]
    if repeated:
        problems.append(f"lists {len(repeated)} SHAs more than once: {_few(repeated)}")
    return resolved, [*unknown, *ambiguous], problems


def _order(resolved: Sequence[str], the_slice: _Slice) -> tuple[list[str], int | None]:
    """The listed SHAs not where slice order puts them, and the first such 1-based position."""
    expected = sorted(resolved, key=the_slice.position.__getitem__)
    wrong = [i for i, (got, want) in enumerate(zip(resolved, expected, strict=True)) if got != want]
    return [resolved[i] for i in wrong], (wrong[0] + 1 if wrong else None)


def _few(shas: Sequence[str]) -> str:
    shown = ", ".join(sha[:SHOWN] for sha in shas[:_SHOWN_MAX])
    more = len(shas) - _SHOWN_MAX
    return shown + (f" and {more} more" if more > 0 else "")


def _claims(lines: Iterable[str]) -> list[int]:
    """Every commit count the text claims for the slice, in order of appearance."""
    found = []
    for line in lines:
        for match in _CLAIMS.finditer(line):
            found.append(int(next(g for g in match.groups() if g is not None)))
    return found


def _claim_problems(claims: Sequence[int], size: int, listed: int) -> list[str]:
    problems = []
    for claim in dict.fromkeys(claims):
        if claim != size:
            problems.append(f"claims {claim} commits, the slice has {size}")
        if claim != listed:
            problems.append(f"claims {claim} commits but lists {listed}")
    return problems


def _masked(body: str, report: SyncReport) -> str:
    """The body with text quoted from the repository blanked (subjects, names, messages).

    A dev commit titled "Revert merge 1234567" or "Keep the oldest 3 commits",
    quoted in the body, is not the body's own claim about this sync.
    """
    quoted = {c.subject for c in report.slice.commits}
    quoted |= {c.author_name for c in report.slice.commits}
    quoted |= {c.subject for c in report.dev_advanced.commits}
    quoted |= {p.message for p in report.anatomy.problems} | set(report.warnings)
    readable = [q for q in quoted if _HEX.search(q) or _CLAIMS.search(q) or HEADING.search(q)]
    # Longest first: a name that contains a subject is blanked whole.
    for text in sorted(
        {form for q in readable for form in (q, markdown_cell(q))}, key=len, reverse=True
    ):
        if text.strip() and not all(is_sha(t) for t in split_tokens(text)) and text in body:
            body = body.replace(text, " ")
    return body


def _named_problems(lines: Iterable[str], report: SyncReport) -> list[str]:
    """Problems with the dev base, tips, merge and repair SHAs the text names."""
    problems: list[str] = []
    for line in lines:
        for what, token in _named(line):
            problem = _check_named(what, token.lower(), report)
            if problem and problem not in problems:
                problems.append(problem)
    return problems


def _named(line: str) -> Iterator[tuple[str, str]]:
    """(what, sha) for each SHA the line names after a label, as a parent, or in a range."""
    for label in _LABEL.finditer(line):
        if label[1] or (label[2] or "").lower().startswith("merge"):
            continue  # an earlier commit, or a merge base: not a fact of this report
        sha = _FILLER_THEN_SHA.match(line, label.end())
        if sha is not None:
            yield _label_kind(label[0].lower(), label[3]), sha[1]
    for parent in _PARENT.finditer(line):
        yield ("dev base" if parent[2].lower() == "dev" else "slice tip"), parent[1]
    for span in _RANGE.finditer(line):
        yield "range start", span[1]
        yield "slice tip", span[2]


def _label_kind(label: str, tip_of: str | None) -> str:
    if label.endswith("base"):
        return "dev base"
    if label.startswith("merge"):
        return "merge"
    if label.startswith("repair"):
        return "repair"
    return {"slice": "slice tip", "main": "main tip", "dev": "dev tip", "head": "head"}.get(
        (tip_of or "").lower(), "tip"
    )


def _check_named(what: str, token: str, report: SyncReport) -> str | None:
    the_slice, anatomy = report.slice, report.anatomy
    commits = [c.sha for c in the_slice.commits]
    if what == "range start":
        inside = [i for i, sha in enumerate(commits) if sha.startswith(token)]
        if inside and inside[0] != 0:
            return (
                f"names a range from {token[:SHOWN]}, which is commit {inside[0] + 1} of the slice"
            )
        return None
    if what == "tip":  # a bare "tip": the slice's or main's
        tips = [t for t in (the_slice.tip, the_slice.main_tip) if t]
        if any(t.startswith(token) for t in tips):
            return None
        return f"names tip {token[:SHOWN]}, the slice tip is {_short(the_slice.tip)}"
    truth_of = {
        "dev base": the_slice.dev_base,
        "slice tip": the_slice.tip,
        "main tip": the_slice.main_tip,
        "dev tip": report.dev_advanced.dev_tip,
        "head": report.refs.head,
        "merge": anatomy.merge,
        "repair": anatomy.repair,
    }
    truth = truth_of[what]
    if truth is None:
        return f"names {what} {token[:SHOWN]}, the branch has none"
    if truth.lower().startswith(token):
        return None
    return f"names {what} {token[:SHOWN]}, the {what} is {_short(truth)}"


def _short(sha: str | None) -> str:
    return sha[:SHOWN] if sha else "none"


def check_lines(check: BodyCheck) -> list[tuple[bool, str]]:
    """What the check says, one ``(good, line)`` each: the verdict if it passed, else each problem.

    The Status screen and ``report`` (online or ``--body-file``) show these same lines.
    """
    if check.ok:
        return [(True, f"lists the {len(check.listed)} slice commits in order")]
    return [(False, problem) for problem in check.problems]


def body_check_json(check: BodyCheck) -> dict[str, Any]:
    """The check in the report's JSON shape: ok, problems, how many listed, missing, extra."""
    return {
        "ok": check.ok,
        "problems": list(check.problems),
        "listed": len(check.listed),
        "missing": list(check.missing),
        "extra": list(check.extra),
    }
