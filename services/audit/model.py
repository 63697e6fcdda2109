"""The audit's model: what a lost dev line is, its class, and the audit of one sync.

Every judgment of the audit (:mod:`~syncdesk.services.audit.lost_lines` for the
line triage and the modules of its rules, :mod:`~syncdesk.services.audit.judge`
for the verdict on the dev change behind a line) writes into these; the report, the
workspace and the screens read them.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from enum import StrEnum

from syncdesk.services.audit.hook import HookFinding
from syncdesk.services.audit.verdicts import Judgment, Verdict
from syncdesk.services.sanitize import one_line


class Classification(StrEnum):
    """What a dev line missing from the result most likely is."""

    STILL_REFERENCED = "still-referenced"
    ACCIDENT = "probable-accident"
    TAKEN_AS_MAIN = "taken-as-main"
    SUPERSEDED = "superseded-by-main"
    MOVED = "moved"
    REFORMATTED = "reformatted"
    REMOVED_ON_MAIN = "removed-on-main"
    BY_POLICY = "by-policy"


# The order findings are shown in: the ones that need a human first.
CLASS_ORDER = tuple(Classification)
# Each class's place in that order (a dict: tuple.index compares enum members one by
# one, 60 ms for the sort of a real sync's 10,000 findings).
_RANK = {kind: at for at, kind in enumerate(CLASS_ORDER)}
# The classes a maintainer must look at: no innocent explanation was found.
ACCIDENTS = frozenset({Classification.STILL_REFERENCED, Classification.ACCIDENT})
# A taken-as-main detail's suffix when main changed only code next to the line.
BESIDE = " (beside main's change)"
# An accident's detail: "conflict hunk N" + this + the dev function the hunk dropped.
DROPPING = ", dropping dev's "
# The details of a line the triage placed amid main's change (superseded.amid_mains_change:
# an accident between two lost lines main removed, or rewrote). The verdicts judge it
# again (judge.py): that was a guess from its neighbours, not evidence about the line.
AMID_REMOVED = "with the lines on both sides of it"
AMID_REWRITTEN = "the code on both sides of it"
AMID = (AMID_REMOVED, AMID_REWRITTEN)


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
    restoring it. ``block`` is the first dev line of the accident's block
    (consecutive lost lines, only trivial lines between them).
    """

    path: str
    line: int  # 1-based, in the judged dev version of the file
    text: str
    raw: bytes
    classification: Classification
    commit: str | None = None  # removed on / superseded by main: the slice commit
    subject: str | None = None  # ...and its subject, sanitized
    other_path: str | None = None  # moved: the file of the result that gained it
    evidence_line: int | None = None  # moved: line in other_path; reformatted: in the result
    detail: str | None = None  # still referenced: the name; taken as main: the hunk; policy
    block: int | None = None  # accidents: the first dev line of its block
    # What became of the dev change behind the line (services/audit/verdicts.py).
    judgment: Judgment | None = None

    @property
    def shown_path(self) -> str:
        """The path, safe to show."""
        return one_line(self.path)

    @property
    def is_accident(self) -> bool:
        """No innocent explanation was found: a maintainer must look at it (flagged).

        Once judged, the verdict on the line's dev change decides; until then
        (inside the triage's own passes) the line's class does.
        """
        if self.judgment is not None:
            return self.judgment.flagged
        return self.classification in ACCIDENTS

    @property
    def evidence(self) -> str:
        """Why the finding has its classification, in one line safe to show."""
        kind, commit = self.classification, f"{(self.commit or '')[:8]} {self.subject or ''}"
        if kind is Classification.REMOVED_ON_MAIN and self.detail:
            return f"removed on main by {commit} ({one_line(self.detail)})".replace("  (", " (")
        if kind is Classification.REMOVED_ON_MAIN:
            return f"removed on main by {commit}".rstrip()
        if kind is Classification.SUPERSEDED and self.detail and self.detail.startswith("renamed"):
            line = f"line {self.evidence_line} of the result"
            return f"main {one_line(self.detail)} ({line}): {commit}".rstrip(": ")
        if kind is Classification.SUPERSEDED and self.detail:
            return f"main rewrote {one_line(self.detail)}: {commit}".rstrip(": ")
        if kind is Classification.SUPERSEDED:
            return f"main rewrote this code: {commit}".rstrip()
        if kind is Classification.MOVED:
            where = f"{one_line(self.other_path or '')}:{self.evidence_line}"
            if self.detail:  # main moved the function holding it
                return f"moved with {one_line(self.detail)} to {where}"
            return f"moved to {where}"
        if kind is Classification.REFORMATTED:
            return f"reformatted: line {self.evidence_line} of the result"
        if kind is Classification.STILL_REFERENCED:
            return f"defines {one_line(self.detail or '')}, which the result still uses"
        if kind is Classification.TAKEN_AS_MAIN and (self.detail or "").endswith(BESIDE):
            hunk = one_line((self.detail or "").removesuffix(BESIDE))
            where = f"the resolution took main's side of {hunk}, where main changed code next to it"
            return f"{where}: {commit}".rstrip(": ")
        if kind is Classification.TAKEN_AS_MAIN:
            return f"the resolution took main's rewrite in {self.detail}: {commit}".rstrip(": ")
        if kind is Classification.BY_POLICY:
            return f"{self.detail} file: the policy decides it"
        if self.detail and self.detail.startswith("dev's "):
            return f"in {self.detail}"
        if self.detail and DROPPING in self.detail:  # an accident inside a hunk taken as main
            hunk, dropped = self.detail.split(DROPPING, 1)
            return f"{hunk} was taken as main, dropping dev's {one_line(dropped)} with it"
        return "on dev, not on main, missing from the result"

    @property
    def verdict_evidence(self) -> str | None:
        """What became of the line's dev change and why, in one line safe to show."""
        judged = self.judgment
        if judged is None:
            return None
        by = f"{(judged.commit or '')[:8]} {judged.subject or ''}".strip()
        said = f"{judged.verdict}: {judged.reason}" + (f" ({by})" if by else "")
        return one_line(said)


@dataclass(frozen=True, slots=True)
class ChangeInFile:
    """What one dev change kept and lost in one file."""

    path: str
    lost: tuple[LostLine, ...]  # its lost lines there, in line order

    @property
    def flagged(self) -> tuple[LostLine, ...]:
        """The lost lines the maintainer is asked to look at."""
        return tuple(line for line in self.lost if line.is_accident)


@dataclass(frozen=True, slots=True)
class DevChange:
    """A dev commit the result lost lines of: the unit a maintainer thinks in.

    ``subject`` is untrusted (sanitize it to show); ``pulls`` are the pull
    requests its message cites, so "dev PR #4318's class is gone" can be said.
    """

    sha: str
    subject: str
    pulls: tuple[int, ...]
    files: tuple[ChangeInFile, ...]

    @property
    def flagged(self) -> tuple[LostLine, ...]:
        """Its lost lines the maintainer is asked to look at, file by file."""
        return tuple(line for part in self.files for line in part.flagged)

    @property
    def lost_count(self) -> int:
        """How many of its lines the result lost, in every file."""
        return sum(len(part.lost) for part in self.files)

    def verdicts(self) -> dict[Verdict, int]:
        """How many of its lost lines got each verdict."""
        found = Counter(line.judgment.verdict for part in self.files for line in part.lost
                        if line.judgment is not None)  # fmt: skip
        return dict(found.most_common())


class BreakageKind(StrEnum):
    """What is broken."""

    UNDEFINED_NAME = "undefined-name"
    MISSING_IMPORT = "missing-import"
    UNKNOWN_KEYWORD = "unknown-keyword"
    TOO_MANY_POSITIONAL = "too-many-positional"
    MISSING_ARGUMENT = "missing-argument"


@dataclass(frozen=True, slots=True)
class Breakage:
    """One broken use in the result that neither dev nor main had."""

    path: str  # the result's file holding the broken use
    line: int  # 1-based, in the result's file
    kind: BreakageKind
    name: str  # the undefined name, the imported name, the keyword, or the callee
    callee: str | None  # where the callee or definition should be: "path:qualname" or "module.name"
    message: str  # one line for a maintainer


@dataclass(frozen=True, slots=True)
class LinkedBreakage:
    """A breakage of the result and the lost dev change that explains it (None: none does:
    main's caller meeting dev's callee, say)."""

    breakage: Breakage
    change: DevChange | None


@dataclass(frozen=True, slots=True)
class DataFile:
    """A data file's lost dev lines, counted, not listed (a lock file, golden values)."""

    path: str
    lines: int


@dataclass(frozen=True, slots=True)
class LargeFile:
    """A file not audited for a version over the large-file limit, with that version's size."""

    path: str
    size: int  # bytes


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
    dev: str = ""  # the dev version judged against ("" : the dev base)
    judged: tuple[str, ...] = ()  # the commits judged: the merge and ours on top
    data_files: tuple[DataFile, ...] = ()
    too_large: tuple[LargeFile, ...] = ()  # not read, never silently: listed in every view
    # The real Megatron-LM hook's findings for the same refs (None: its refs differ).
    hook: tuple[HookFinding, ...] | None = None
    # The dev changes the result lost lines of, flagged ones first (services/audit/changes.py).
    changes: tuple[DevChange, ...] = ()
    # Uses the result makes that neither dev nor main had broken, each with the lost dev
    # change that explains it when one does (services/audit/broken.py).
    breakage: tuple[LinkedBreakage, ...] = ()
    breakage_checked: bool = False  # whether breakage was looked for (it is asked for)
    # The findings by path, built on the first in_file (the workspace asks on every
    # hunk move). Not an __init__ field: dataclasses.replace starts a fresh one.
    _by_path: dict[str, tuple[LostLine, ...]] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )

    @property
    def counts(self) -> dict[Classification, int]:
        """How many findings of each class, in display order."""
        found = Counter(finding.classification for finding in self.findings)
        return {kind: found[kind] for kind in CLASS_ORDER}

    @property
    def verdict_counts(self) -> dict[Verdict, int]:
        """How many findings got each verdict (the judged ones), most first."""
        found = Counter(f.judgment.verdict for f in self.findings if f.judgment is not None)
        return dict(found.most_common())

    @property
    def accidents(self) -> tuple[LostLine, ...]:
        """The findings a maintainer must look at: still referenced, then probable accidents."""
        return tuple(f for f in self.findings if f.is_accident)

    @property
    def blocks(self) -> int:
        """How many blocks of consecutive dev lines the accidents make."""
        return len({(f.path, f.block) for f in self.accidents})

    def in_file(self, path: str) -> tuple[LostLine, ...]:
        """The findings of one file, in line order."""
        if not self._by_path and self.findings:
            grouped: dict[str, list[LostLine]] = {}
            for finding in self.findings:
                grouped.setdefault(finding.path, []).append(finding)
            for where, found in grouped.items():
                self._by_path[where] = tuple(sorted(found, key=lambda f: f.line))
        return self._by_path.get(path, ())

    def hook_account(self) -> dict[str, int]:
        """How many of the real hook's lines got each triage class (empty: no hook run).

        Every hook line is one of the audit's raw findings (the hook's sets are
        a subset of the reference multisets): it has the class its line got,
        or ``data-file``, or ``trivial`` (an underscore and no letter or digit:
        the hook keeps it, the audit ignores it).
        """
        classes: dict[tuple[str, bytes], str] = {}
        for finding in self.findings:
            classes.setdefault((finding.path, finding.raw), str(finding.classification))
        data = {data_file.path for data_file in self.data_files}
        counts: Counter[str] = Counter()
        for item in self.hook or ():
            known = classes.get((item.path, item.line))
            if known is None:
                known = "data-file" if item.path in data else "trivial"
            counts[known] += 1
        return dict(sorted(counts.items()))


@dataclass(frozen=True, slots=True)
class AuditScope:
    """What the audit judges: the dev version lines are lost from, and the commits judged."""

    dev: str  # the newest dev commit the head holds (the dev base unless dev was merged on top)
    judged: tuple[str, ...]  # the sync merge and the commits on top of it that are not dev's


def shown_order(finding: LostLine) -> tuple[bool, int, str, int, int]:
    """The key findings are listed by: flagged first, class (:data:`CLASS_ORDER`), path,
    block, line."""
    rank = _RANK[finding.classification]
    return (not finding.is_accident, rank, finding.path, finding.block or 0, finding.line)
