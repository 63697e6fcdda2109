"""The dev-feature preservation audit: dev lines the sync merge may have lost.

The reference (DOMAIN.md) is a bash pre-push hook: for every file the sync
touched it runs ``git show`` on the dev base, the slice tip and the head, and
keeps the lines that ``comm`` over the sorted outputs finds on dev, absent
from main and missing from the result. ``tests/data/preservation_hook.sh`` is
that hook, and the tests prove :func:`raw_findings` reports exactly its
findings, computed in-process from blobs read once (see
:mod:`syncdesk.services.audit.sources` for the git side, :mod:`syncdesk.services.audit.lines`
for the line logic and its exact ``sort``/``comm`` semantics).

The raw list is mostly noise (thousands of lines on a real Megatron-LM sync),
so :func:`audit_sync` triages it, cheapest test first:

1. *ignored*, and counted: trivial lines, which hold no letter or digit
   (blank lines, lone brackets and punctuation, bare comment markers such as
   ``#``, ``//``, ``*/``, ``\"\"\"``): their loss comes with the loss of a real line
   next to them, which is reported, and :func:`plan_restore` brings them back
   with it. Also the lines of binary files (a NUL in the first 8000 bytes of
   the dev version, git's own test).
2. *moved*: the exact line was put into another file of the result by the
   merge or the repair: a changed file holds it more often at the head than
   both on dev and on main. Lines main itself put there do not count: they
   are a coincidence, or main's own move, which step 4 names. Counting only
   such gains keeps a dropped ``import os`` from hiding behind every other
   file's own copy.
3. *reformatted*: the result file holds a line equal to it ignoring all
   whitespace (``diff -w``; CRLF versus LF included), or a formatter joined
   or split the statement it belongs to (:class:`~syncdesk.services.audit.lines.Reflow`).
4. *removed on main*: a slice commit removed that exact line from that file;
   the finding names the last one (:func:`~syncdesk.services.audit.sources.slice_removals`).
5. *probable accident*: everything else. Shown first.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from enum import StrEnum

from syncdesk.services.audit.lines import (
    Reflow,
    is_binary,
    is_trivial,
    loosen,
    lost_lines,
    place_lost,
    squeeze,
)
from syncdesk.services.audit.sources import Snapshot, Touched, read_snapshot, slice_removals
from syncdesk.services.git.runner import Git
from syncdesk.services.progress import QUIET, Steps
from syncdesk.services.sanitize import decode, one_line, visible


class Classification(StrEnum):
    """What a dev line missing from the result most likely is."""

    ACCIDENT = "probable-accident"
    MOVED = "moved"
    REFORMATTED = "reformatted"
    REMOVED_ON_MAIN = "removed-on-main"


# The order findings are shown in: the ones that need a human first.
CLASS_ORDER = (
    Classification.ACCIDENT,
    Classification.MOVED,
    Classification.REFORMATTED,
    Classification.REMOVED_ON_MAIN,
)


@dataclass(frozen=True, slots=True)
class RawFinding:
    """One line of the reference hook's output: a dev line the result lacks."""

    path: str
    line: bytes  # without its newline, exactly as in the blob


@dataclass(frozen=True, slots=True)
class LostLine:
    """One triaged dev line that is missing from the result.

    ``path`` is the path as git names it (decoded as UTF-8): the key to find
    the file again; show :attr:`shown_path`. ``text`` is for display (controls
    made visible, trailing whitespace dropped); ``raw`` is the exact line, for
    restoring it.
    """

    path: str
    line: int  # 1-based, in the dev base's version of the file
    text: str
    raw: bytes
    classification: Classification
    commit: str | None = None  # removed-on-main: the slice commit that removed it
    subject: str | None = None  # ...and its subject, sanitized
    other_path: str | None = None  # moved: the file of the result that gained it
    evidence_line: int | None = None  # moved: line in other_path; reformatted: in the result

    @property
    def shown_path(self) -> str:
        """The path, safe to show."""
        return one_line(self.path)

    @property
    def evidence(self) -> str:
        """Why the finding has its classification, in one line safe to show."""
        if self.classification is Classification.REMOVED_ON_MAIN:
            return f"removed on main by {(self.commit or '')[:8]} {self.subject or ''}".rstrip()
        if self.classification is Classification.MOVED:
            return f"moved to {one_line(self.other_path or '')}:{self.evidence_line}"
        if self.classification is Classification.REFORMATTED:
            return f"reformatted: line {self.evidence_line} of the result"
        return "on dev, not on main, missing from the result"


@dataclass(frozen=True, slots=True)
class Audit:
    """The triaged preservation audit of one sync."""

    dev_base: str
    slice_tip: str
    head: str
    files_checked: int  # touched files: the hook's loop
    raw_count: int  # the hook's finding lines
    raw_files: int  # files with at least one raw finding
    ignored_trivial: int  # raw findings with no letter or digit
    ignored_binary: int  # raw findings in binary files
    findings: tuple[LostLine, ...]  # accidents first, then by class, path and line

    @property
    def counts(self) -> dict[Classification, int]:
        """How many findings of each class, in display order."""
        found = Counter(finding.classification for finding in self.findings)
        return {kind: found[kind] for kind in CLASS_ORDER}

    @property
    def accidents(self) -> tuple[LostLine, ...]:
        """The probable accidents: the findings a maintainer must look at."""
        return tuple(f for f in self.findings if f.classification is Classification.ACCIDENT)

    def in_file(self, path: str) -> tuple[LostLine, ...]:
        """The findings of one file, in line order."""
        return tuple(sorted((f for f in self.findings if f.path == path), key=lambda f: f.line))


def raw_findings(git: Git, dev_base: str, slice_tip: str, head: str) -> list[RawFinding]:
    """The reference hook's findings, computed in-process: touched files, then sorted lines."""
    snapshot = read_snapshot(git, dev_base, slice_tip, head)
    return [
        RawFinding(touched.path, line)
        for touched, lost in _lost_by_file(snapshot)
        for line in sorted(lost.elements())
    ]


def _lost_by_file(snapshot: Snapshot) -> list[tuple[Touched, Counter[bytes]]]:
    found = []
    for touched in snapshot.touched:
        lost = lost_lines(
            snapshot.lines(touched.dev),
            snapshot.lines(touched.main),
            snapshot.lines(touched.result),
        )
        if lost:
            found.append((touched, lost))
    return found


@dataclass(frozen=True, slots=True)
class _Lost:
    """A non-trivial raw finding placed on its dev line, not yet classified."""

    path: str
    line: int  # 1-based, in the dev base's file
    raw: bytes


def audit_sync(
    git: Git,
    dev_base: str,
    slice_tip: str,
    head: str,
    steps: Steps = QUIET,
) -> Audit:
    """The triaged preservation audit of the sync of ``slice_tip`` into ``dev_base``.

    ``head`` is the result to check: the sync branch's head (merge and
    repair), or the merge commit itself. ``steps`` is checked between the
    steps, so a cancel stops it (:class:`~syncdesk.services.errors.Cancelled`).
    """

    snapshot = read_snapshot(git, dev_base, slice_tip, head)
    steps.check()
    lost_files = _lost_by_file(snapshot)
    pending: list[_Lost] = []
    ignored_trivial = ignored_binary = 0
    for touched, lost in lost_files:
        if is_binary(snapshot.blobs.get(touched.dev, b"")):
            ignored_binary += lost.total()
            continue
        real = Counter({line: count for line, count in lost.items() if not is_trivial(line)})
        ignored_trivial += lost.total() - real.total()
        dev, result = snapshot.lines(touched.dev), snapshot.lines(touched.result)
        pending += (_Lost(touched.path, n, line) for n, line in place_lost(dev, result, real))
    steps.check()
    findings, unexplained = _moved_or_reformatted(snapshot, pending)
    steps.check()
    findings += _reflowed_or_removed(git, snapshot, unexplained, (dev_base, slice_tip))
    findings.sort(key=lambda f: (CLASS_ORDER.index(f.classification), f.path, f.line))
    return Audit(
        dev_base=dev_base,
        slice_tip=slice_tip,
        head=head,
        files_checked=snapshot.files_checked,
        raw_count=sum(lost.total() for _, lost in lost_files),
        raw_files=len(lost_files),
        ignored_trivial=ignored_trivial,
        ignored_binary=ignored_binary,
        findings=tuple(findings),
    )


def _finding(
    item: _Lost,
    kind: Classification,
    *,
    commit: str | None = None,
    subject: str | None = None,
    other_path: str | None = None,
    evidence_line: int | None = None,
) -> LostLine:
    text = visible(decode(item.raw).rstrip())
    return LostLine(
        item.path, item.line, text, item.raw, kind, commit, subject, other_path, evidence_line
    )


def _moved_or_reformatted(
    snapshot: Snapshot, pending: list[_Lost]
) -> tuple[list[LostLine], list[_Lost]]:
    """Classify the lines the result holds elsewhere or reformatted; return the rest."""
    gained = _gained_lines(snapshot, {item.raw for item in pending})
    wanted: dict[str, set[bytes]] = {}
    for item in pending:
        wanted.setdefault(item.path, set()).add(squeeze(item.raw))
    findings: list[LostLine] = []
    unexplained: list[_Lost] = []
    squeezed: dict[str, dict[bytes, list[tuple[int, bytes]]]] = {}
    for item in pending:
        elsewhere = [(path, n) for path, n in gained.get(item.raw, ()) if path != item.path]
        if elsewhere:
            path, number = elsewhere[0]
            findings.append(
                _finding(item, Classification.MOVED, other_path=path, evidence_line=number)
            )
            continue
        if item.path not in squeezed:
            result = snapshot.lines(snapshot.changed[item.path].after)
            squeezed[item.path] = _squeezed(result, wanted[item.path])
        variants = squeezed[item.path].get(squeeze(item.raw), [])
        # Byte-equal is not "reformatted": that is the file keeping fewer copies.
        reformatted = next((n for n, line in variants if line != item.raw), None)
        if reformatted is not None:
            findings.append(_finding(item, Classification.REFORMATTED, evidence_line=reformatted))
        else:
            unexplained.append(item)
    return findings, unexplained


def _squeezed(result: list[bytes], wanted: set[bytes]) -> dict[bytes, list[tuple[int, bytes]]]:
    """Result lines whose whitespace-free form is wanted: ``(1-based line, line)`` per form."""
    table: dict[bytes, list[tuple[int, bytes]]] = {}
    for number, line in enumerate(result, start=1):
        key = squeeze(line)
        if key in wanted:
            table.setdefault(key, []).append((number, line))
    return table


def _gained_lines(snapshot: Snapshot, wanted: set[bytes]) -> dict[bytes, list[tuple[str, int]]]:
    """For each wanted line, the changed files whose result holds it more often than both
    their dev-base and slice-tip versions: ``(path, 1-based line)``, paths sorted."""
    gained: dict[bytes, list[tuple[str, int]]] = {}
    for path in sorted(snapshot.changed):
        result = snapshot.lines(snapshot.changed[path].after)
        hits = [(n, line) for n, line in enumerate(result, start=1) if line in wanted]
        if not hits:
            continue
        before = Counter(line for line in snapshot.lines(snapshot.changed[path].before))
        before |= Counter(line for line in snapshot.lines(snapshot.main_side(path)))
        seen: Counter[bytes] = Counter()
        for number, line in hits:
            seen[line] += 1
            if seen[line] == before[line] + 1:  # the first copy neither dev nor main had
                gained.setdefault(line, []).append((path, number))
    return gained


def _reflowed_or_removed(
    git: Git, snapshot: Snapshot, items: list[_Lost], the_slice: tuple[str, str]
) -> list[LostLine]:
    """Classify the rest: reflowed by a formatter, removed by a slice commit, or an accident."""
    findings: list[LostLine] = []
    by_path: dict[str, list[_Lost]] = {}
    for item in items:
        by_path.setdefault(item.path, []).append(item)
    left: list[_Lost] = []
    for path, lost in by_path.items():
        change = snapshot.changed[path]
        reflowed = _reflowed(snapshot.lines(change.before), snapshot.lines(change.after), lost)
        for item in lost:
            if item.line in reflowed:
                evidence = reflowed[item.line]
                findings.append(_finding(item, Classification.REFORMATTED, evidence_line=evidence))
            else:
                left.append(item)
    paths = sorted({item.path for item in left})
    removals = slice_removals(git, *the_slice, paths) if paths else {}
    for item in left:
        removed_by = removals.get(item.path, {}).get(item.raw)
        if removed_by is None:
            findings.append(_finding(item, Classification.ACCIDENT))
        else:
            findings.append(
                _finding(
                    item,
                    Classification.REMOVED_ON_MAIN,
                    commit=removed_by[0],
                    subject=removed_by[1],
                )
            )
    return findings


def _reflowed(dev: list[bytes], result: list[bytes], lost: list[_Lost]) -> dict[int, int]:
    """Lost dev lines (1-based) inside a statement a formatter reflowed -> its result line."""
    reflow = Reflow(result)
    loose_dev = [loosen(line) for line in dev]
    covered: dict[int, int] = {}
    for item in sorted(lost, key=lambda item: item.line):
        if item.line in covered:
            continue
        found = reflow.find(loose_dev, item.line - 1)
        if found is not None:
            last, number = found
            covered.update((line, number) for line in range(item.line, last + 2))
    return covered
