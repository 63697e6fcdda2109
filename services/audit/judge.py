"""The verdict on each lost line, by the dev change behind it (:mod:`.verdicts` says why).

:class:`Evidence` is everything the verdicts read, asked of git once per
audit (blame of the lines the authorless rules leave, main's history of those
files for ports, the sync merge's own result); :func:`judge` applies the rules of
:mod:`~syncdesk.services.audit.verdicts` in their order, each rule a small
function named for it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field, replace
from difflib import SequenceMatcher
from typing import TypeVar

from syncdesk.services.audit.blame import Author, blame_file
from syncdesk.services.audit.lines import raw_lines
from syncdesk.services.audit.model import AMID, Classification, LostLine
from syncdesk.services.audit.names import defines, definition_name, outline
from syncdesk.services.audit.regions import base_span, superseding
from syncdesk.services.audit.sources import Region, SliceChanges, Snapshot, read_blobs
from syncdesk.services.audit.verdicts import (
    Judgment,
    MainCommit,
    Ports,
    Verdict,
    pull_requests,
)
from syncdesk.services.git.ahead import Ahead
from syncdesk.services.git.runner import Git
from syncdesk.services.git.trees import entries_at
from syncdesk.services.sanitize import decode

# How alike (difflib's ratio) a dev line and a base line its edit replaced must be for
# the line to be dev's edit of it (a new argument, a changed constant: 0.75-0.95 on
# such edits) rather than a line dev inserted beside it.
_EDIT_SIMILARITY = 0.6

Commit = tuple[str, str]  # (sha, subject)
_T = TypeVar("_T")


@dataclass
class Evidence:
    """What the verdicts read, asked of git once per audit."""

    snapshot: Snapshot
    changes: SliceChanges  # the slice's line changes per file
    dev_regions: dict[str, list[Region]]  # merge base -> dev, per file
    main_regions: dict[str, list[Region]]  # merge base -> slice tip, per file
    blames: dict[str, list[Author | None]] = field(default_factory=dict)
    messages: dict[str, str] = field(default_factory=dict)  # dev commit -> its message
    ports: Ports = field(default_factory=lambda: Ports([]))
    in_base: frozenset[str] = frozenset()  # paths the merge base holds
    deleted_by: dict[str, Commit] = field(default_factory=dict)  # path -> slice commit
    merged: dict[str, Counter[bytes]] = field(default_factory=dict)  # the merge's own result
    ours: dict[str, Commit] = field(default_factory=dict)  # path -> our first commit changing it
    git: Git | None = None  # for the few versions asked of main's ports, file by file
    slice_tip: str = ""
    _main_defines: dict[bytes, bool] = field(default_factory=dict)
    _holders: dict[str, list[bytes | None]] = field(default_factory=dict)
    _main_added: frozenset[bytes] | None = None
    _gone: dict[tuple[str, bytes], bool] = field(default_factory=dict)
    # Verdicts found before blame by the rules that read no author: (path, line) -> verdict.
    explained: dict[tuple[str, int], Judgment] = field(default_factory=dict)
    _result_counts: dict[str, Counter[bytes]] = field(default_factory=dict)
    _ported: dict[tuple[str, str], frozenset[bytes]] = field(default_factory=dict)

    def gone(self, path: str, name: bytes) -> bool:
        """Whether neither main's nor the result's ``path`` defines ``name`` (asked once)."""
        if (path, name) not in self._gone:
            main = self.snapshot.lines(self.snapshot.main_side(path))
            result = self.snapshot.lines(self.snapshot.changed[path].after)
            self._gone[path, name] = not defines(main, name, path) and not defines(
                result, name, path
            )
        return self._gone[path, name]

    def main_added(self) -> frozenset[bytes]:
        """Every line a slice commit wrote in the audited files, stripped (built once): a
        block main deleted here may be one it moved, to this file or another."""
        if self._main_added is None:
            self._main_added = frozenset(
                line.strip() for by_line in self.changes.additions.values() for line in by_line
            )
        return self._main_added

    def holders(self, path: str) -> list[bytes | None]:
        """For each dev line of ``path``, the function or class holding it (read once)."""
        if path not in self._holders:
            self._holders[path] = outline(self.dev_lines(path))
        return self._holders[path]

    def main_defines(self, name: bytes) -> bool:
        """Whether a Python file main changed defines ``name`` (main moved it, not deleted
        it): a move lands in a file main changed, so only those are searched."""
        if name not in self._main_defines:
            changed = sorted(
                path for path, change in self.snapshot.on_main.items()
                if change.after is not None and path.endswith(".py")
            )  # fmt: skip
            pattern = rf"^\s*(async\s+)?(def|class)\s+{decode(name)}\b"
            done = (
                self.git.run(
                    ["grep", "-q", "-E", pattern, self.slice_tip, "--", *changed], check=False
                )
                if self.git is not None and self.slice_tip and changed
                else None
            )
            self._main_defines[name] = done is not None and done.status == 0
        return self._main_defines[name]

    def port_holds(self, commit: str, path: str, line: bytes) -> bool:
        """Whether main's ``commit`` left ``line`` (ignoring its indentation) in ``path``."""
        if (commit, path) not in self._ported:
            done = (
                self.git.run(["cat-file", "blob", f"{commit}:{path}"], check=False)
                if self.git is not None
                else None
            )
            held = raw_lines(done.stdout) if done is not None and done.status == 0 else []
            self._ported[commit, path] = frozenset(held_line.strip() for held_line in held)
        return line.strip() in self._ported[commit, path]

    def author(self, path: str, line: int) -> Author | None:
        """The commit that wrote dev's line ``line`` (1-based) of ``path``, if blame said."""
        authors = self.blames.get(path, [])
        return authors[line - 1] if 0 < line <= len(authors) else None

    def dev_lines(self, path: str) -> list[bytes]:
        """The judged dev version's lines of ``path``."""
        return self.snapshot.lines(self.snapshot.changed[path].before)

    def result_count(self, path: str, line: bytes) -> int:
        """How many copies of ``line`` the result's ``path`` holds (counted once per file)."""
        if path not in self._result_counts:
            self._result_counts[path] = Counter(
                self.snapshot.lines(self.snapshot.changed[path].after)
            )
        return self._result_counts[path][line]


class EvidenceReads:
    """The git reads behind :class:`Evidence`, started early on the audit's threads."""

    def __init__(
        self, git: Git, ahead: Ahead, *, merge_base: str, dev: str, slice_tip: str,
        judged: Sequence[str], paths: Sequence[str],
    ) -> None:  # fmt: skip
        self._ahead, self._range = ahead, (merge_base, dev)
        since = merge_base or dev
        self._in_base = ahead.ask(_present, git, merge_base, paths) if merge_base else None
        self._deleted = ahead.ask(_deletions, git, since, slice_tip, paths)
        # judged: ours newest first, the sync merge last (``Ours.judged``).
        merge, has_ours = (judged[-1], len(judged) > 1) if judged else ("", False)
        self._merged = ahead.ask(_merged_lines, git, merge, paths) if has_ours else None
        self._ours = ahead.ask(_ours_changing, git, merge, judged[0]) if has_ours else None
        self._git, self._slice_tip = git, slice_tip

    def evidence(
        self, snapshot: Snapshot, changes: SliceChanges,
        dev_regions: dict[str, list[Region]], main_regions: dict[str, list[Region]],
        findings: Sequence[LostLine],
    ) -> Evidence:  # fmt: skip
        """The answers, once every read is done: blame is asked only for the lines whose
        verdict needs their author, one ``-L`` call per file, on the audit's threads (a
        whole-file blame of every audited file cost 24 s of git on a real sync)."""
        evidence = Evidence(snapshot, changes, dev_regions, main_regions)
        evidence.git, evidence.slice_tip = self._git, self._slice_tip
        # Before the rules run to find what to blame: they read these.
        evidence.in_base = _answer(self._in_base, frozenset())
        evidence.deleted_by = self._deleted.result()
        evidence.merged = _answer(self._merged, {})
        evidence.ours = _answer(self._ours, {})
        merge_base, dev = self._range
        wanted = _lines_to_blame(evidence, findings)
        asked = {
            path: self._ahead.ask(blame_file, self._git, merge_base, dev, path, lines)
            for path, lines in wanted.items()
        }
        blames = {path: future.result() for path, future in asked.items()}
        shas = {a.sha for authors in blames.values() for a in authors if a and not a.shared}
        # main's history is searched for ports only where a dev change's lines are left.
        ported = sorted(
            path for path, authors in blames.items() if any(a and not a.shared for a in authors)
        )
        history = (
            self._ahead.ask(_main_commits, self._git, self._slice_tip, ported) if ported else None
        )
        evidence.blames = blames
        evidence.messages = _messages(self._git, sorted(shas))
        evidence.ports = Ports(_answer(history, []))
        return evidence


def _lines_to_blame(evidence: Evidence, findings: Sequence[LostLine]) -> dict[str, list[int]]:
    """The dev lines whose author a verdict needs: those the content rules leave and the
    rules that read no author do not explain either (blame is the costliest read)."""
    wanted: dict[str, set[int]] = {}
    for finding in findings:
        if _needs_its_change(finding) and not _explained_without_blame(evidence, finding):
            wanted.setdefault(finding.path, set()).add(finding.line)
    return {path: sorted(lines) for path, lines in wanted.items()}


def _explained_without_blame(evidence: Evidence, finding: LostLine) -> bool:
    """Whether a rule that needs no author already gives ``finding`` an innocent verdict
    (it would give the same one once blamed: only ported-by-main and the shared-history
    test read the author)."""
    if finding.classification is Classification.BY_POLICY:
        if finding.raw in evidence.changes.removals.get(finding.path, {}):
            return True
        rules: Sequence[_Rule] = _AUTHORLESS[1:]  # our commit taking its side is no repair
    else:
        rules = _AUTHORLESS
    for rule in rules:
        found = rule(evidence, finding, None)
        if found is not None:
            # Kept for the verdict itself: an unblamed line's rules would answer the same.
            evidence.explained[finding.path, finding.line] = found
            return True
    return False


def _needs_its_change(finding: LostLine) -> bool:
    """Whether the verdict on ``finding`` goes by its dev change (not a content rule's)."""
    kind, detail = finding.classification, finding.detail or ""
    if kind in (Classification.REFORMATTED, Classification.MOVED):
        return False
    if kind is Classification.SUPERSEDED and detail.startswith("renamed"):
        return False
    return kind is not Classification.REMOVED_ON_MAIN or detail in AMID


def _answer(future: Future[_T] | None, default: _T) -> _T:
    return default if future is None else future.result()


def judge(evidence: Evidence, finding: LostLine) -> Judgment:
    """The verdict on one lost line (rules in :mod:`~syncdesk.services.audit.verdicts`' order)."""

    kind, detail = finding.classification, finding.detail or ""
    if kind is Classification.BY_POLICY:
        return _by_policy(evidence, finding)
    kept = _kept_in_another_form(finding)
    if kept is not None:
        return kept
    if kind is Classification.REMOVED_ON_MAIN and detail not in AMID:
        return Judgment(
            Verdict.REWRITTEN, None, finding.commit, finding.subject, "main removed that line"
        )
    judged = _by_its_change(evidence, finding)
    referenced = kind is Classification.STILL_REFERENCED
    innocent = (Verdict.SHARED, Verdict.DELETED, Verdict.REPLACED)
    flagged = judged.verdict is Verdict.LOST or (referenced and judged.verdict not in innocent)
    return judged if flagged == judged.flagged else replace(judged, flagged=flagged)


def _by_policy(evidence: Evidence, finding: LostLine) -> Judgment:
    """A policy file's line: innocent only with the evidence any line needs; else lost."""
    removed = evidence.changes.removals.get(finding.path, {}).get(finding.raw)
    if removed is not None:
        return Judgment(Verdict.REWRITTEN, None, *removed, "main removed that line")
    # Our commit taking the policy's side of the file is the policy itself, not a repair.
    judged = _by_its_change(evidence, finding, _RULES[1:])
    if judged.verdict is not Verdict.LOST:
        return judged
    policy = finding.detail or "policy"
    reason = f"{policy} file: the policy took the other side's file, and dev's change with it"
    return Judgment(Verdict.LOST, judged.change, reason=reason, flagged=True)


def _kept_in_another_form(finding: LostLine) -> Judgment | None:
    """Rule 2: the triage found the line's content in the result (reformatted, moved, renamed)."""

    kind, detail = finding.classification, finding.detail or ""
    if kind is Classification.REFORMATTED:
        return Judgment(Verdict.KEPT, reason=f"reformatted: line {finding.evidence_line}")
    if kind is Classification.MOVED:
        where = f"{finding.other_path}:{finding.evidence_line}"
        return Judgment(Verdict.KEPT, reason=f"moved to {where}")
    if kind is Classification.SUPERSEDED and detail.startswith("renamed"):
        reason = f"main {detail} (line {finding.evidence_line})"
        return Judgment(Verdict.KEPT, None, finding.commit, finding.subject, reason)
    return None


def _by_its_change(
    evidence: Evidence, finding: LostLine, rules: Sequence[_Rule] | None = None
) -> Judgment:
    """Rules 1 and 3-7: what became of the dev commit that wrote the line."""
    author = evidence.author(finding.path, finding.line)
    change = author.sha if author is not None else None
    if author is None and (finding.path, finding.line) in evidence.explained:
        return evidence.explained[finding.path, finding.line]
    if author is not None and author.shared:
        reason = "history dev shares with main: main removed its own older code"
        return Judgment(Verdict.SHARED, reason=reason)
    for rule in _RULES if rules is None else rules:
        found = rule(evidence, finding, author)
        if found is not None:
            return found
    return Judgment(Verdict.LOST, change, reason=_lost_reason(finding), flagged=True)


def _replaced_by_ours(
    evidence: Evidence, finding: LostLine, author: Author | None
) -> Judgment | None:
    """Rule 3: the sync merge's result held the line; our commits on top took it out."""
    merged = evidence.merged.get(finding.path)
    if merged is None or merged[finding.raw] <= evidence.result_count(finding.path, finding.raw):
        return None
    changed = evidence.snapshot.changed[finding.path]
    if changed.after is not None and changed.after == evidence.snapshot.main_side(finding.path):
        return None  # our commit took main's whole file: taking main's side, not a repair
    sha, subject = evidence.ours.get(finding.path, (None, None))
    reason = "the sync merge kept it; our commit on top changed it"
    return Judgment(Verdict.REPLACED, _sha(author), sha, subject, reason)


def _ported_by_main(
    evidence: Evidence, finding: LostLine, author: Author | None
) -> Judgment | None:
    """Rule 4: a commit of main carries the same change to the file (same subject, or a
    cited pull request)."""
    if author is None:
        return None
    message = evidence.messages.get(author.sha, "")
    port = evidence.ports.port_of(author.summary, message, finding.path)
    # A port may carry only part of dev's change: the line itself must be in it.
    if port is None or not evidence.port_holds(port.sha, finding.path, finding.raw):
        return None
    reason = f"dev's change ({author.summary}) came in with main's port"
    return Judgment(Verdict.PORTED, author.sha, port.sha, port.subject, reason)


def _removed_with_main_deletion(
    evidence: Evidence, finding: LostLine, author: Author | None
) -> Judgment | None:
    """Rule 5: main deleted the file, the definition holding the line, or the code around it."""
    path = finding.path
    deleted = evidence.deleted_by.get(path)
    if deleted is not None and path in evidence.in_base:
        return Judgment(Verdict.DELETED, _sha(author), *deleted, "main deleted the file")
    holder = _deleted_definition(evidence, finding)
    if holder is not None:
        name, commit = holder
        return Judgment(Verdict.DELETED, _sha(author), *commit, f"main deleted {name}")
    span = base_span(evidence.dev_regions.get(path, ()), finding.line)
    region = superseding(span, evidence.main_regions.get(path, ()), lambda _: False)
    if region is None or _moved_within(evidence, region):
        return None
    held_by = evidence.holders(path)[finding.line - 1]
    if held_by is not None and evidence.main_defines(held_by):
        return None  # main moved the function holding it: dev's line should have moved too
    sha, subject = evidence.changes.who_changed(path, region)
    reason = "main deleted the code around it"
    return Judgment(Verdict.DELETED, _sha(author), sha, subject, reason)


def _rewritten_by_main(
    evidence: Evidence, finding: LostLine, author: Author | None
) -> Judgment | None:
    """Rule 6: dev's line is its edit of a base line a slice commit changed too (main's
    version won). A line dev inserted, beside lines main rewrote, is no such edit."""
    region = _dev_region(evidence.dev_regions.get(finding.path, ()), finding.line)
    if region is None or not region.removed:
        return None
    for main_region in evidence.main_regions.get(finding.path, ()):
        # The base lines both sides changed (main first: it is the cheap test).
        first = max(region.old_start, main_region.old_start)
        last = min(
            region.old_start + region.old_count, main_region.old_start + main_region.old_count
        )
        both = region.removed[first - region.old_start : last - region.old_start]
        if main_region.old_count and both and _edits(finding.raw, both):
            sha, subject = evidence.changes.who_changed(finding.path, main_region)
            reason = "dev edited lines main changed too"
            return Judgment(Verdict.REWRITTEN, _sha(author), sha, subject, reason)
    return None


_Rule = Callable[[Evidence, LostLine, Author | None], Judgment | None]
_RULES: tuple[_Rule, ...] = (
    _replaced_by_ours,
    _ported_by_main,
    _removed_with_main_deletion,
    _rewritten_by_main,
)
# The rules that read no author (replaced by ours first, as in _RULES).
_AUTHORLESS = (_replaced_by_ours, _removed_with_main_deletion, _rewritten_by_main)


def _deleted_definition(evidence: Evidence, finding: LostLine) -> tuple[str, Commit] | None:
    """The base definition holding the line that main deleted (and the result lacks), if any."""
    path = finding.path
    dev = evidence.dev_lines(path)
    holders = evidence.holders(path)
    at = finding.line - 1
    while 0 <= at < len(dev) and holders[at] is not None:
        name = holders[at]
        assert name is not None
        start = _definition_line(dev, holders, at, name)
        if start is None:
            return None
        from_base = _base_defined(evidence.dev_regions.get(path, ()), start + 1, name)
        if from_base and evidence.gone(path, name) and not evidence.main_defines(name):
            removed = evidence.changes.removals.get(path, {}).get(dev[start])
            return decode(name), removed or ("", "")
        at = start
    return None


def _base_defined(dev_regions: Sequence[Region], line: int, name: bytes) -> bool:
    """Whether dev's ``def``/``class`` line ``line`` of ``name`` stands for one the merge base
    had: dev left the line as it was, or its edit replaced a definition of that name."""
    region = _dev_region(dev_regions, line)
    return region is None or any(definition_name(base) == name for base in region.removed)


def _definition_line(
    dev: Sequence[bytes], holders: Sequence[bytes | None], at: int, name: bytes
) -> int | None:
    """The ``def``/``class`` line of ``name`` above line index ``at``."""
    for index in range(at, -1, -1):
        if definition_name(dev[index]) == name and holders[index] != name:
            return index
    return None


def _moved_within(evidence: Evidence, region: Region) -> bool:
    """Whether main wrote most of the code ``region`` deletes again elsewhere (in this file or
    another audited one): a block main moved, not one it deleted (dev's line should have
    moved with it)."""
    code = [line.strip() for line in region.removed if line.strip()]
    if not code:
        return False
    added = evidence.main_added()
    return sum(line in added for line in code) * 2 >= len(code)


def _dev_region(regions: Sequence[Region], line: int) -> Region | None:
    """The region of dev's diff from the merge base that wrote dev's line ``line``."""
    for region in regions:
        if region.new_count and region.new_start <= line < region.new_start + region.new_count:
            return region
    return None


def _edits(line: bytes, base_lines: Sequence[bytes]) -> bool:
    """Whether ``line`` is dev's version of one of ``base_lines``: difflib's similarity of
    the two, indentation aside, at least :data:`_EDIT_SIMILARITY` (a new argument, a
    changed constant), not a line dev wrote beside them that shares a few names."""
    mine = line.strip()
    if not mine:
        return False
    for base in base_lines:
        # The cheap upper bounds first: most base lines are nothing like the dev line.
        matcher = SequenceMatcher(None, mine, base.strip(), autojunk=False)
        if matcher.real_quick_ratio() < _EDIT_SIMILARITY:
            continue
        if matcher.quick_ratio() >= _EDIT_SIMILARITY and matcher.ratio() >= _EDIT_SIMILARITY:
            return True
    return False


def _lost_reason(finding: LostLine) -> str:

    if finding.classification is Classification.STILL_REFERENCED:
        return f"defines {finding.detail}, which the result still uses"
    if finding.classification is Classification.TAKEN_AS_MAIN:
        hunk = (finding.detail or "a conflict hunk").split(" (", 1)[0]
        return f"{hunk} was resolved as main's side, dropping it"
    if finding.detail and finding.detail.startswith("dev's "):
        return f"in {finding.detail}"
    return "dev wrote it; main never had it; the result dropped it"


def _sha(author: Author | None) -> str | None:
    return author.sha if author is not None else None


# -- the git reads ------------------------------------------------------------------------


# How many commits of main's history (touching the audited files) are searched for ports.
MAIN_HISTORY = 3000


def _main_commits(git: Git, slice_tip: str, paths: Sequence[str]) -> list[MainCommit]:
    """main's latest commits that changed ``paths``, with the pull requests their messages
    cite and which of ``paths`` each changed (one pathspec-limited ``log``, ~0.15 s)."""
    history = ["log", "--first-parent", f"-n{MAIN_HISTORY}", "--name-only", "-z"]
    done = git.run(
        [*history, "--format=%x1e%H%x1f%s%x1f%B%x1f", slice_tip, "--", *paths], check=False
    )
    commits: list[MainCommit] = []
    for record in done.stdout.split(b"\x1e"):
        fields = record.split(b"\x1f")
        if len(fields) != 4:
            continue
        sha, subject, message = (decode(part) for part in fields[:3])
        changed = frozenset(decode(name.strip(b"\n")) for name in fields[3].split(b"\x00"))
        commits.append(MainCommit(sha, subject, pull_requests(message), changed - {""}))
    return commits


def _messages(git: Git, shas: Sequence[str]) -> dict[str, str]:
    """The full messages of dev commits (their pull request numbers may be in the body)."""
    if not shas:
        return {}
    done = git.run(["log", "--no-walk=unsorted", "--format=%H%x00%B%x1e", *shas], check=False)
    found: dict[str, str] = {}
    for record in done.stdout.split(b"\x1e"):
        sha, _, message = record.strip(b"\n").partition(b"\x00")
        if sha:
            found[decode(sha)] = decode(message)
    return found


def _present(git: Git, commit: str, paths: Sequence[str]) -> frozenset[str]:
    """Which of ``paths`` ``commit`` holds."""
    return frozenset(path for path, entry in entries_at(git, commit, paths).items() if entry)


def _deletions(git: Git, since: str, slice_tip: str, paths: Sequence[str]) -> dict[str, Commit]:
    """The slice commit that deleted each of ``paths`` (the later one wins)."""
    if not paths:
        return {}
    history = ["log", "--reverse", "--no-renames", "--diff-filter=D", "--name-only", "-z"]
    done = git.run(
        [*history, "--format=%x1e%H%x00%s", f"{since}..{slice_tip}", "--", *paths], check=False
    )
    return _changed_paths(done.stdout, latest=True)


def _merged_lines(git: Git, merge: str, paths: Sequence[str]) -> dict[str, Counter[bytes]]:
    """The lines of each of ``paths`` in the sync merge's own result."""
    blobs = {path: entry.oid for path, entry in entries_at(git, merge, paths).items() if entry}
    contents = read_blobs(git, sorted(set(blobs.values())))
    return {path: Counter(raw_lines(contents.get(oid, b""))) for path, oid in blobs.items()}


def _ours_changing(git: Git, merge: str, head: str) -> dict[str, Commit]:
    """For each path our commits above the merge changed, the first of them that did."""
    history = ["log", "--reverse", "--first-parent", "--no-merges", "--name-only", "-z"]
    done = git.run([*history, "--format=%x1e%H%x00%s", f"{merge}..{head}"], check=False)
    return _changed_paths(done.stdout, latest=False)


def _changed_paths(log: bytes, *, latest: bool) -> dict[str, Commit]:
    """path -> (sha, subject) from a ``--format=%x1e%H%x00%s --name-only -z`` log."""
    found: dict[str, Commit] = {}
    for record in log.split(b"\x1e"):
        fields = record.split(b"\x00")
        if len(fields) < 2:
            continue
        sha, subject = decode(fields[0].strip(b"\n")), decode(fields[1])
        for name in fields[2:]:  # with -z the paths follow the format, each NUL-ended
            path = decode(name.strip(b"\n"))
            if path and (latest or path not in found):
                found[path] = (sha, subject)
    return found
