"""The sync PR's description: written from verified facts, and checked against them.

A sync PR's body ends with the ordered list of the slice's source SHAs, and
reviewers trust it: the real PR this product was designed from claimed 100
commits and listed 96. :func:`generate_body` writes a description whose every
number and SHA comes from a :class:`SyncReport`; :func:`verify_body` reads any
description (hand-written, a bot's, an older one of ours) and says where it
disagrees with the report: the SHA list (missing, unknown, out of order), the
counts it claims, and the dev base, tips, merge and repair it names.

Bodies are untrusted text and can be large: parsing never raises and uses only
bounded regular expressions, so a 1 MB body is checked in well under a second.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from services.conflict_models import ConflictSet
from services.models import SliceCommit, SyncReport
from services.reply import cell

_SHOWN = 7  # how a SHA is abbreviated in problem lines, as in the seed PR's list
_SHOWN_MAX = 10  # SHAs named in one problem line before "and N more"

_HEX = re.compile(r"(?<![0-9A-Za-z_])([0-9a-fA-F]{7,40})(?![0-9A-Za-z_])")
_FULL_HEX = re.compile(r"[0-9a-fA-F]{7,40}")
# A commit link (``/commit/<sha>``, or a PR's ``/commits/<sha>``) stands for its SHA.
_COMMIT_URL = re.compile(
    r"https?://[^\s()<>\[\]]{0,300}?/commits?/([0-9a-fA-F]{7,40})(?![0-9A-Za-z])[^\s()<>\[\]]{0,300}"
)
_MD_LINK = re.compile(r"\[[^\]\n]{0,300}\]\(\s*([0-9a-fA-F]{7,40})\s*\)")
_HTML_TAG = re.compile(r"<[^<>\n]{0,300}>")
_FENCE = re.compile(r"\s*(?:```|~~~)[^\n]{0,40}")
_TABLE_RULE = re.compile(r"[\s|:\-]*")
_BULLET = re.compile(r"\s*(?:[-*+•·◦▪‣]|[0-9]{1,4}[.)])\s+")
_SEPARATORS = re.compile(r"[\s,;:`'\"()\[\]{}|•·◦▪‣*>_~]+")
_HEADING = re.compile(
    r"\bordered\s+(?:([0-9]{1,7})\s+)?(?:source\s+)?(?:shas?|commits?)\b"
    r"|\bsource\s+(?:shas|commits)\b",
    re.IGNORECASE,
)
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

_RESOLVED_AS = {
    "custom": "hand-edited",
    "main": "main's version",
    "dev": "dev's version",
    "union": "a union of both sides",
    "base": "the base version",
    "deleted": "deleted",
    "unresolved": "still unresolved",
}


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


# --- writing ---------------------------------------------------------------------------------


def generate_body(
    report: SyncReport, *, conflicts_note: str = "", tested: Sequence[str] = ()
) -> str:
    """A sync PR description in the seed PR's structure, from the report's facts only.

    Sections with nothing verified behind them are left out rather than filled
    in; "Tested" lists only ``tested`` (what the caller ran). ``conflicts_note``
    is the maintainer's own words on how the conflicts were resolved. Every
    piece of text that came from a repository or a caller is made inert
    markdown (no mention, no HTML).
    """
    sections = [
        ("Background", _background(report)),
        ("What changed", _what_changed(report)),
        ("Details", _details(report, conflicts_note)),
        ("Tested", [f"• {cell(item)}" for item in tested if item.strip()] or _NOT_TESTED),
    ]
    parts = [f"{title}\n\n" + "\n".join(lines) for title, lines in sections if lines]
    commits = report.slice.commits
    if commits:
        parts.append(f"Ordered {len(commits)} source SHAs\n\n" + " ".join(_short_names(commits)))
    return "\n\n".join(parts) + "\n"


_NOT_TESTED = ["Nothing has been run on this head yet."]


def _short_names(commits: Sequence[SliceCommit]) -> list[str]:
    """Each SHA abbreviated to 7 characters, or more where 7 would be ambiguous in the slice."""
    names = []
    for commit in commits:
        length = _SHOWN
        while length < len(commit.sha) and any(
            other.sha != commit.sha and other.sha.startswith(commit.sha[:length])
            for other in commits
        ):
            length += 1
        names.append(commit.sha[:length])
    return names


def _background(report: SyncReport) -> list[str]:
    the_slice, advanced = report.slice, report.dev_advanced
    count = len(the_slice.commits)
    if not count:
        return [f"Main → dev sync. Dev already has every commit of main ({the_slice.main_tip})."]
    whole = " (the whole backlog)" if count < the_slice.size and not the_slice.remaining else ""
    lines = [
        f"Main → dev sync. This branch brings the oldest {count} commits of dev..main into "
        f"dev{whole}.",
        "",
        f"• dev base: {the_slice.dev_base}",
        f"• slice tip on main: {the_slice.tip}",
        f"• main tip: {the_slice.main_tip}, with {the_slice.remaining} more commits of "
        "dev..main left for later syncs.",
    ]
    if advanced.commits:
        verdict = {
            True: "it merges into this head with no conflict",
            False: "it conflicts with this head, so the sync needs a rebuild",
            None: "",
        }[advanced.merges_cleanly]
        lines.append(
            f"• dev has moved on by {len(advanced.commits)} commits since the dev base"
            + (f"; {verdict}." if verdict else ".")
        )
        # The dash keeps a subject such as "(dev)" from reading as this SHA's label.
        lines += [f"  • {c.sha[:8]} — {cell(c.subject)}" for c in advanced.commits]
    else:
        lines.append("• dev has not moved since the dev base.")
    return lines


def _what_changed(report: SyncReport) -> list[str]:
    anatomy, the_slice = report.anatomy, report.slice
    if anatomy.merge is None:
        return []
    lines = []
    if anatomy.ok:
        ahead = len(the_slice.commits) + 1 + len(anatomy.on_top)
        lines += [
            f"The branch is {ahead} commits ahead of the dev base:",
            "",
            f"• {len(the_slice.commits)} original main commits, unchanged and in slice order.",
        ]
    else:
        lines += ["The branch's shape has problems:", ""]
        lines += [f"• {problem.code}: {cell(problem.message)}" for problem in anatomy.problems]
    parents = ""
    tip = the_slice.tip
    if tip is not None and anatomy.dev_base == the_slice.dev_base and anatomy.slice_tip == tip:
        parents = f", with parents {the_slice.dev_base[:8]} (dev) and {tip[:8]} (main)"
    lines.append(f"• 1 merge commit, {anatomy.merge}{parents}.")
    if anatomy.repair is not None:
        lines.append(f"• 1 squashed repair commit, {anatomy.repair}.")
    elif anatomy.ok:
        lines.append("• No repair commit.")
    stats = report.stats
    lines.append(f"• Python from the dev base to the head: {stats.python_summary}.")
    return lines


def _details(report: SyncReport, conflicts_note: str) -> list[str]:
    lines = [*_conflict_lines(report.conflicts, conflicts_note)]
    if report.protected_files:
        same = [cell(p.path) for p in report.protected_files if p.identical]
        differ = [cell(p.path) for p in report.protected_files if not p.identical]
        if same:
            lines.append(f"• Keep-dev files {', '.join(same)}: identical to the dev base.")
        if differ:
            lines.append(f"• Keep-dev files {', '.join(differ)}: DIFFER from the dev base.")
    if report.anatomy.merge is not None:
        count = len(report.stats.remerge_diff_files)
        merge = report.anatomy.merge[:8]
        lines.append(f"• Remerge-diff: git show --remerge-diff {merge} shows {count} files.")
    lines += _dco_lines(report.slice.commits)
    lines += [f"• Warning: {cell(warning)}" for warning in report.warnings]
    return lines


def _conflict_lines(conflicts: ConflictSet | None, note: str) -> list[str]:
    lines = []
    if conflicts is not None and conflicts.files:
        counts: dict[str, int] = {}
        for conflict in conflicts.files:
            counts[conflict.resolution] = counts.get(conflict.resolution, 0) + 1
        spread = ", ".join(
            f"{count} {_RESOLVED_AS.get(name, name)}" for name, count in sorted(counts.items())
        )
        lines.append(
            f"• Conflicts: {len(conflicts.files)} files, {conflicts.hunk_count} hunks; "
            f"as resolved at the head: {spread}."
        )
    elif conflicts is not None and conflicts.clean:
        lines.append("• Conflicts: none, the merge is clean.")
    if note.strip():
        lines.append(f"• Conflict resolution: {cell(note)}")
    return lines


def _dco_lines(commits: Sequence[SliceCommit]) -> list[str]:
    if not commits:
        return []
    unsigned = [c for c in commits if not c.signed_off]
    mismatched = [c for c in commits if c.signed_off and not c.signoff_matches_author]
    signed = sum(1 for c in commits if c.signed)
    lines = [
        f"• Signatures: {signed} of {len(commits)} imported commits carry a signature header "
        "(read from the commit object, not verified here)."
    ]
    if not unsigned and not mismatched:
        return [*lines, "• DCO: every imported commit is signed off by its author."]
    lines.append(
        f"• DCO: {_count(len(unsigned), 'imported commit has', 'imported commits have')} "
        f"no sign-off and {_count(len(mismatched), 'is', 'are')} signed off by someone other "
        "than the author. They keep their original SHAs, so the DCO check needs a maintainer "
        "override."
    )
    lines += [f"  • no sign-off: {c.sha[:8]} by {cell(c.author_name)}" for c in unsigned]
    lines += [f"  • other sign-off: {c.sha[:8]} by {cell(c.author_name)}" for c in mismatched]
    return lines


def _count(number: int, one: str, many: str) -> str:
    return f"{number} {one if number == 1 else many}"


# --- reading the SHA list ----------------------------------------------------------------------


def _normal_lines(body: str) -> list[str]:
    """The body's lines with commit links replaced by their SHA and HTML tags blanked."""
    text = _COMMIT_URL.sub(r"\1", body)
    text = _MD_LINK.sub(r"\1", text)
    return _HTML_TAG.sub(" ", text).splitlines()


def _is_sha(token: str) -> bool:
    return _FULL_HEX.fullmatch(token) is not None


def _tokens(text: str) -> list[str]:
    return [t.strip(".").lower() for t in _SEPARATORS.split(text) if t.strip(".")]


def _line_shas(line: str) -> list[str] | None:
    """The SHAs a list line holds; [] for a blank line; None for a line of prose."""
    if _FENCE.fullmatch(line) or _TABLE_RULE.fullmatch(line):
        return []
    if line.lstrip().startswith("|"):
        cells = [c.strip(" `*").lower() for c in line.strip().strip("|").split("|")]
        return next(([c] for c in cells if _is_sha(c)), None)
    bullet = _BULLET.match(line)
    tokens = _tokens(line[bullet.end() :] if bullet else line)
    if not tokens:
        return []
    if all(_is_sha(t) for t in tokens):
        return tokens
    return [tokens[0]] if _is_sha(tokens[0]) else None  # "<sha> subject", git log --oneline


def _section(lines: Sequence[str], start: int, rest: str) -> tuple[list[str], int]:
    """The SHAs listed under a heading on line ``start``, and the line after the list."""
    found = [t for t in _tokens(rest) if _is_sha(t)]
    prose_before = 0
    index = start + 1
    while index < len(lines):
        if _HEADING.search(lines[index]):
            break
        shas = _line_shas(lines[index])
        if shas is None:
            prose_before += 1
            if found or prose_before > 3:
                break
        else:
            found += shas
        index += 1
    return found, index


def _find_list(lines: Sequence[str]) -> tuple[list[str], range, int | None]:
    """The body's SHA list, the lines it spans, and the count its heading claims."""
    best: tuple[list[str], range, int | None] = ([], range(0), None)
    for number, line in enumerate(lines):
        heading = _HEADING.search(line)
        if heading is None:
            continue
        shas, end = _section(lines, number, line[heading.end() :])
        if shas and len(shas) >= len(best[0]):
            best = (shas, range(number, end), int(heading[1]) if heading[1] else None)
    if best[0]:
        return best
    return (*_largest_run(lines), None)


def _largest_run(lines: Sequence[str]) -> tuple[list[str], range]:
    """With no heading: the longest run of list lines (blank lines do not end a run)."""
    best: tuple[list[str], range] = ([], range(0))
    run: list[str] = []
    start = 0
    for number, line in enumerate([*lines, "."]):
        shas = _line_shas(line) if number < len(lines) else None
        if shas is None:
            if len(run) > len(best[0]):
                best = (run, range(start, number))
            run, start = [], number + 1
        else:
            run += shas
    return best


# --- checking ----------------------------------------------------------------------------------


class _Slice:
    """The slice's SHAs, looked up by prefix."""

    def __init__(self, commits: Sequence[SliceCommit]) -> None:
        self.shas = [c.sha.lower() for c in commits]
        self.position = {sha: i for i, sha in enumerate(self.shas)}
        self.by_prefix: dict[str, list[str]] = {}
        for sha in self.shas:
            self.by_prefix.setdefault(sha[:_SHOWN], []).append(sha)

    def resolve(self, token: str) -> list[str]:
        """Every slice SHA ``token`` abbreviates (none, one, or several when ambiguous)."""
        return [sha for sha in self.by_prefix.get(token[:_SHOWN], ()) if sha.startswith(token)]


def verify_body(body: str, report: SyncReport) -> BodyCheck:
    """Compare a PR description with the report: its SHA list, counts and named commits.

    The list is read after a heading such as "Ordered 100 source SHAs" or
    "Source commits", or else is the body's longest run of SHA lines; SHAs may
    be short or full, separated by spaces, newlines, commas, bullets or table
    cells, in backticks or as commit links. Short SHAs are resolved against
    the slice by prefix. Never raises, whatever the text.
    """
    lines = _normal_lines(_masked(body, report))
    listed, span, heading_count = _find_list(lines)
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
    shown = ", ".join(sha[:_SHOWN] for sha in shas[:_SHOWN_MAX])
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
    readable = [q for q in quoted if _HEX.search(q) or _CLAIMS.search(q) or _HEADING.search(q)]
    # Longest first: a name that contains a subject is blanked whole.
    for text in sorted({form for q in readable for form in (q, cell(q))}, key=len, reverse=True):
        if text.strip() and not all(_is_sha(t) for t in _tokens(text)) and text in body:
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
                f"names a range from {token[:_SHOWN]}, which is commit {inside[0] + 1} of the slice"
            )
        return None
    if what == "tip":  # a bare "tip": the slice's or main's
        tips = [t for t in (the_slice.tip, the_slice.main_tip) if t]
        if any(t.startswith(token) for t in tips):
            return None
        return f"names tip {token[:_SHOWN]}, the slice tip is {_short(the_slice.tip)}"
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
        return f"names {what} {token[:_SHOWN]}, the branch has none"
    if truth.lower().startswith(token):
        return None
    return f"names {what} {token[:_SHOWN]}, the {what} is {_short(truth)}"


def _short(sha: str | None) -> str:
    return sha[:_SHOWN] if sha else "none"


def body_check_json(check: BodyCheck) -> dict[str, Any]:
    """The check in the report's JSON shape: ok, problems, how many listed, missing, extra."""
    return {
        "ok": check.ok,
        "problems": list(check.problems),
        "listed": len(check.listed),
        "missing": list(check.missing),
        "extra": list(check.extra),
    }
