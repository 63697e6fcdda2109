"""Patch coverage of a sync's head: Codecov's comparison, its ``codecov/patch`` text, our lines.

Three sources, best first (each :class:`PatchCoverage` says which one it used):

1. Codecov's API v2 comparison (``compare/?pullid=N``): ``totals.patch.coverage``
   and, per file, the added lines with their head coverage (0 hit, 1 miss,
   2 partial). Codecov reports no target there.
2. The ``codecov/patch`` commit status's ``description``.
3. The ``codecov/patch`` check run's ``output.title`` (the same text, when
   Codecov posts checks instead of statuses).

The texts (Codecov's worker, ``notifiers/mixins/status.py``) are
``"70.14% of diff hit (target 80.00%)"``, ``"... (within 1.00% threshold of
80.00%)"``, ``"No report found to compare against"`` and ``"Coverage not
affected when comparing abc1234...def5678"``; :func:`parse_patch_text` reads them.

The uncovered lines that matter most in a sync are the ones *we* wrote: the
merge's hand resolution, the repair commit, a merge of dev's own resolution
(what counts as ours is :mod:`syncdesk.services.sync.ours`). :func:`ours_lines`
finds them (head lines added relative to both the slice tip and the newest dev
the head holds), and :attr:`PatchCoverage.ours_uncovered` intersects them with
Codecov's misses.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal
from urllib.parse import quote, urlsplit

import httpx

from syncdesk.services.git.runner import Git
from syncdesk.services.github.checks import latest_runs, latest_statuses
from syncdesk.services.github.models import PullRequest
from syncdesk.services.sanitize import one_line
from syncdesk.services.sync.ours import Ours

PatchKind = Literal["hit", "within", "no-report", "not-affected"]
Source = Literal["compare", "status", "check-run", "none"]

PATCH_CONTEXT = "codecov/patch"
TIMEOUT_SECONDS = 15.0
MISS, PARTIAL = 1, 2  # Codecov's line coverage: 0 hit, 1 miss, 2 partial

_NUMBER = r"(\d+(?:\.\d*)?|\.\d+)"
_HIT = re.compile(
    rf"{_NUMBER}\s*%\s*of\s+diff\s+hit\s*\(\s*target\s+{_NUMBER}\s*%\s*\)", re.IGNORECASE
)
_WITHIN = re.compile(
    rf"{_NUMBER}\s*%\s*of\s+diff\s+hit\s*\(\s*within\s+{_NUMBER}\s*%\s*threshold\s+of\s+"
    rf"{_NUMBER}\s*%\s*\)",
    re.IGNORECASE,
)
_NO_REPORT = re.compile(r"no\s+report\s+found\s+to\s+compare\s+against\.?", re.IGNORECASE)
_NOT_AFFECTED = re.compile(
    r"coverage\s+not\s+affected\s+when\s+comparing\s+([0-9a-f]{4,64})\s*\.\.\.\s*([0-9a-f]{4,64})",
    re.IGNORECASE,
)
_HUNK = re.compile(rb"^@@ -\d+(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
_C_ESCAPES = {
    ord("a"): 7,
    ord("b"): 8,
    ord("t"): 9,
    ord("n"): 10,
    ord("v"): 11,
    ord("f"): 12,
    ord("r"): 13,
    ord('"'): 34,
    ord("\\"): 92,
}


# -- the codecov/patch text ------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PatchText:
    """What a ``codecov/patch`` text says.

    ``coverage``/``target``/``threshold`` are percentages (None when the form
    has none); ``base``/``head`` are the short SHAs of the not-affected form.
    """

    kind: PatchKind
    coverage: float | None = None
    target: float | None = None
    threshold: float | None = None
    base: str = ""
    head: str = ""


def parse_patch_text(text: str) -> PatchText | None:
    """Read one of Codecov's four ``codecov/patch`` texts; None for anything else.

    Tolerant of extra spaces, case and any number of decimals; the whole text
    must be one form (a longer sentence that merely contains one is not).
    """
    clean = " ".join(text.split())
    if match := _WITHIN.fullmatch(clean):
        coverage, threshold, target = (float(g) for g in match.groups())
        return PatchText("within", coverage, target, threshold)
    if match := _HIT.fullmatch(clean):
        coverage, target = (float(g) for g in match.groups())
        return PatchText("hit", coverage, target)
    if _NO_REPORT.fullmatch(clean):
        return PatchText("no-report")
    if match := _NOT_AFFECTED.fullmatch(clean):
        return PatchText("not-affected", base=match[1].lower(), head=match[2].lower())
    return None


# -- Codecov's API -----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CompareResult:
    """A comparison fetched from Codecov, or why there is none (``payload`` None)."""

    payload: dict[str, Any] | None
    reason: str = ""


def compare_url(codecov_url: str, owner: str, name: str) -> str:
    """The comparison endpoint; ``codecov_url`` may be the host or already end in ``/api/v2``."""
    root = codecov_url.rstrip("/")
    if not root.endswith("/api/v2"):
        root += "/api/v2"
    return f"{root}/github/{quote(owner, safe='')}/repos/{quote(name, safe='')}/compare/"


def fetch_compare(
    codecov_url: str,
    owner: str,
    name: str,
    pullid: int,
    token: str | None,
    *,
    timeout: float = TIMEOUT_SECONDS,
) -> CompareResult:
    """Codecov's comparison of pull request ``pullid`` (``GET .../compare/?pullid=N``).

    The caller passes the token from ``CODECOV_TOKEN`` (public repositories
    need none); it goes only into the ``Authorization`` header and never into
    a reason. Every failure (unreachable, a timeout, 4xx, 5xx, not JSON) comes
    back as a result with ``payload=None`` and a one-line reason, never raised.
    """
    url = compare_url(codecov_url, owner, name)
    host = urlsplit(url).netloc
    headers = {"Accept": "application/json", "User-Agent": "syncdesk"}
    if token:
        headers["Authorization"] = f"bearer {token}"
    try:
        response = httpx.get(url, params={"pullid": pullid}, headers=headers, timeout=timeout)
    except httpx.TimeoutException:
        return CompareResult(None, f"Codecov ({host}) did not answer in {timeout:g} s")
    except httpx.HTTPError as error:
        return CompareResult(None, f"could not reach Codecov ({host}): {type(error).__name__}")
    if response.status_code != 200:
        return CompareResult(None, _refusal(response, host, pullid, bool(token)))
    try:
        payload = response.json()
    except ValueError:
        return CompareResult(None, f"Codecov ({host}) answered with something other than JSON")
    if not isinstance(payload, dict):
        return CompareResult(None, f"Codecov ({host}) answered with an unexpected shape")
    return CompareResult(payload)


def _refusal(response: httpx.Response, host: str, pullid: int, had_token: bool) -> str:
    code = response.status_code
    if code == 404:
        return f"Codecov has no comparison for pull request #{pullid} yet (404)"
    if code in (401, 403):
        hint = "" if had_token else "; set CODECOV_TOKEN for a private repository"
        return f"Codecov ({host}) refused the request ({code}){hint}"
    try:
        body = response.json()
    except ValueError:
        body = None
    detail = body.get("detail") if isinstance(body, dict) else None
    said = f": {detail}" if isinstance(detail, str) and detail else ""
    return one_line(f"Codecov ({host}) answered {code}{said}")[:200]


# -- patch coverage -----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class UncoveredFile:
    """A file with added lines Codecov saw missed or partly covered (head line numbers)."""

    path: str
    lines: tuple[int, ...]  # missed and partial, ascending
    partial: tuple[int, ...] = ()  # the partly covered ones among them


@dataclass(frozen=True, slots=True)
class PatchCoverage:
    """The head's patch coverage, where each number came from, and the lines left uncovered.

    ``below_target`` is Codecov's verdict: coverage under ``target`` minus
    ``threshold`` (False when the patch does not affect coverage, None when
    a number is unknown). ``stale_compare`` says Codecov's comparison was for
    another head, so it was not used.
    """

    coverage: float | None
    target: float | None
    threshold: float | None
    coverage_source: Source
    target_source: Source
    kind: PatchKind | None  # the form of the codecov/patch text, when one was read
    text: str  # that text ("" none)
    below_target: bool | None
    uncovered: tuple[UncoveredFile, ...]
    ours_uncovered: tuple[tuple[str, int], ...]
    stale_compare: bool = False

    @property
    def uncovered_count(self) -> int:
        """Added lines left missed or partial, over every file."""
        return sum(len(item.lines) for item in self.uncovered)


def _patch_texts(pr: PullRequest) -> list[tuple[Source, str]]:
    """The codecov/patch texts of the head: the status's first, then the check run's."""
    texts: list[tuple[Source, str]] = []
    for status in latest_statuses(pr.statuses):
        if status.context == PATCH_CONTEXT:
            texts.append(("status", status.description))
    for run in latest_runs(pr.check_runs):
        if run.name == PATCH_CONTEXT:
            texts.append(("check-run", run.title))
    return texts


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


def _compare_coverage(compare: Mapping[str, Any]) -> float | None:
    patch = _dict(_dict(compare.get("totals")).get("patch"))
    return _number(patch.get("coverage"))


def uncovered_files(compare: Mapping[str, Any]) -> tuple[UncoveredFile, ...]:
    """Files with added lines whose head coverage is a miss or a partial, by path."""
    found: list[UncoveredFile] = []
    files = compare.get("files")
    for entry in files if isinstance(files, list) else []:
        names = _dict(_dict(entry).get("name"))
        path = names.get("head") or names.get("base")
        if not isinstance(path, str) or not path:
            continue
        missed: set[int] = set()
        partial: set[int] = set()
        lines = _dict(entry).get("lines")
        for line in lines if isinstance(lines, list) else []:
            line = _dict(line)
            added = line.get("added") if "added" in line else line.get("is_diff")
            number = _dict(line.get("number")).get("head")
            coverage = _dict(line.get("coverage")).get("head")
            if added is not True or not isinstance(number, int) or isinstance(number, bool):
                continue
            if coverage in (MISS, PARTIAL) and not isinstance(coverage, bool):
                missed.add(number)
                if coverage == PARTIAL:
                    partial.add(number)
        if missed:
            found.append(UncoveredFile(path, tuple(sorted(missed)), tuple(sorted(partial))))
    return tuple(sorted(found, key=lambda item: item.path))


def _fresh(pr: PullRequest, compare: Mapping[str, Any]) -> bool:
    """The comparison is of the PR's head (or does not say which head it is of)."""
    head = compare.get("head_commit")
    return not isinstance(head, str) or not head or head == pr.head_sha


def _below(text: PatchText | None, coverage: float | None, target: float | None) -> bool | None:
    if text is not None and text.kind == "not-affected":
        return False
    if coverage is None or target is None:
        return None
    threshold = text.threshold if text is not None and text.threshold is not None else 0.0
    return coverage < target - threshold


def patch_coverage(
    pr: PullRequest,
    compare: Mapping[str, Any] | None,
    *,
    ours: Mapping[str, set[int]] | None = None,
) -> PatchCoverage:
    """The head's patch coverage, from the comparison, else the status, else the check run.

    ``ours`` maps a path to the head lines we wrote (the merge resolution,
    our commits on top: :func:`ours_lines`); each uncovered line among them is
    listed in ``ours_uncovered``. A comparison of another head is not used.
    """
    stale = compare is not None and not _fresh(pr, compare)
    usable = compare if compare is not None and not stale else None
    parsed: tuple[Source, str, PatchText] | None = None
    for source, text in _patch_texts(pr):
        reading = parse_patch_text(text)
        if reading is not None:
            parsed = (source, text, reading)
            break
    coverage = _compare_coverage(usable) if usable is not None else None
    coverage_source: Source = "compare" if coverage is not None else "none"
    if coverage is None and parsed is not None and parsed[2].coverage is not None:
        coverage, coverage_source = parsed[2].coverage, parsed[0]
    target = parsed[2].target if parsed is not None else None
    target_source: Source = parsed[0] if parsed is not None and target is not None else "none"
    uncovered = uncovered_files(usable) if usable is not None else ()
    mine = ours or {}
    ours_uncovered = tuple(
        (item.path, line)
        for item in uncovered
        for line in item.lines
        if line in mine.get(item.path, ())
    )
    return PatchCoverage(
        coverage=coverage,
        target=target,
        threshold=parsed[2].threshold if parsed is not None else None,
        coverage_source=coverage_source,
        target_source=target_source,
        kind=parsed[2].kind if parsed is not None else None,
        text=parsed[1] if parsed is not None else "",
        below_target=_below(parsed[2] if parsed is not None else None, coverage, target),
        uncovered=uncovered,
        ours_uncovered=ours_uncovered,
        stale_compare=stale,
    )


# -- the lines we wrote ------------------------------------------------------------------


def ours_lines(git: Git, head: str, ours: Ours) -> dict[str, set[int]]:
    """Head line numbers, per path, that we wrote: the merge's resolution and our commits.

    A line added relative to *both* sides came from neither: the sync merge's
    hand resolution (or an evil merge), a repair commit, or a merge of dev's
    own resolution wrote it. The sides are the slice tip (the merge's second
    parent) and :attr:`Ours.dev`, the newest dev commit the head holds: a line
    a dev pull request wrote, brought in by a merge of dev, is dev's and not
    counted. Two ``git diff -U0`` runs, one per side, all paths.
    """
    per_side = [_added_lines(git, side, head) for side in (ours.dev, f"{ours.merge}^2")]
    first, second = per_side
    written: dict[str, set[int]] = {}
    for path, lines in first.items():
        both = lines & second.get(path, set())
        if both:
            written[path] = both
    return written


def _added_lines(git: Git, old: str, new: str) -> dict[str, set[int]]:
    """The lines of ``new`` a ``diff -U0`` from ``old`` marks added, per path."""
    result = git.run(
        [
            "diff",
            "--no-color",
            "--no-ext-diff",
            "--no-textconv",
            "--no-renames",
            "--src-prefix=a/",
            "--dst-prefix=b/",
            "-U0",
            old,
            new,
            "--",
        ]
    )
    return parse_added_lines(result.stdout.split(b"\n"))


def parse_added_lines(lines: Iterable[bytes]) -> dict[str, set[int]]:
    """Added line numbers per new path from a ``-U0`` patch (``b/`` destination prefix).

    The parser counts each hunk's lines from its header, so an added line that
    itself starts with ``++`` is never mistaken for a ``+++`` file header.
    """
    added: dict[str, set[int]] = {}
    path: str | None = None
    old_left = new_left = 0
    for line in lines:
        if old_left > 0 or new_left > 0:
            if line.startswith(b"-"):
                old_left -= 1
            elif line.startswith(b"+"):
                new_left -= 1
            elif line.startswith(b" "):
                old_left, new_left = old_left - 1, new_left - 1
            continue
        if line.startswith(b"+++ "):
            path = _patch_path(line[4:])
        elif line.startswith(b"@@ ") and (match := _HUNK.match(line)) is not None:
            old_left = int(match[1]) if match[1] is not None else 1
            start = int(match[2])
            new_left = int(match[3]) if match[3] is not None else 1
            if path is not None and new_left > 0:
                added.setdefault(path, set()).update(range(start, start + new_left))
    return added


def _patch_path(raw: bytes) -> str | None:
    """The path of a ``+++`` header: ``/dev/null`` is None; C quotes and ``b/`` undone."""
    if raw.endswith(b"\t"):  # git appends a tab to names with spaces (for GNU patch)
        raw = raw[:-1]
    if raw == b"/dev/null":
        return None
    if raw.startswith(b'"') and raw.endswith(b'"') and len(raw) >= 2:
        raw = _c_unquote(raw[1:-1])
    if not raw.startswith(b"b/"):
        return None
    return raw[2:].decode("utf-8", "surrogateescape")


def _c_unquote(body: bytes) -> bytes:
    """Undo git's C-style quoting (``\\t``, ``\\"``, ``\\\\``, octal ``\\303\\251``)."""
    out = bytearray()
    index = 0
    while index < len(body):
        byte = body[index]
        if byte != ord("\\") or index + 1 >= len(body):
            out.append(byte)
            index += 1
            continue
        escape = body[index + 1]
        octal = body[index + 1 : index + 4]
        if len(octal) == 3 and all(ord("0") <= b <= ord("7") for b in octal):
            out.append(int(octal, 8) & 0xFF)
            index += 4
        else:
            out.append(_C_ESCAPES.get(escape, escape))
            index += 2
    return bytes(out)
