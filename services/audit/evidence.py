"""What the verdicts read, asked of git once per audit (:mod:`.judge` applies the rules).

:class:`EvidenceReads` starts the reads on the audit's threads as soon as the
paths are known (which files the merge base holds, main's deletions, the
sync merge's own result, our commits); :meth:`EvidenceReads.evidence` waits
for them, blames only the lines the rules that read no author leave, and
searches main's history for ports only where a dev change's lines are left.
:class:`Evidence` answers the rules' questions, each asked of git at most once.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import TypeVar

from syncdesk.services.audit.blame import Author, blame_file
from syncdesk.services.audit.lines import raw_lines
from syncdesk.services.audit.model import LostLine
from syncdesk.services.audit.names import defines, outline
from syncdesk.services.audit.sources import Region, SliceChanges, Snapshot, read_blobs
from syncdesk.services.audit.verdicts import Judgment, MainCommit, Ports, pull_requests
from syncdesk.services.audit.versions import OtherVersion, Places, names_of
from syncdesk.services.git.ahead import Ahead
from syncdesk.services.git.runner import Git
from syncdesk.services.git.trees import entries_at
from syncdesk.services.sanitize import decode

Commit = tuple[str, str]  # (sha, subject)
_T = TypeVar("_T")
# How many characters, whitespace aside, a run of lines must hold to be told a reformat:
# a short run of base text ("num_layers,", ")") is in any file, wherever dev put it.
_REFORMAT_LEAST = 24
_WHITESPACE = re.compile(rb"\s+")
# Which dev lines a verdict needs the author of (the judge's rules decide).
ToBlame = Callable[["Evidence", Sequence[LostLine]], dict[str, list[int]]]


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
    merge_base: str = ""
    # The runs of consecutive lost dev lines (blank lines between them aside), each line's
    # run by (path, line): a block is judged as one where its lines say one thing.
    blocks: dict[tuple[str, int], list[LostLine]] = field(default_factory=dict)
    _places: dict[str, Places] = field(default_factory=dict)
    _base_lines: dict[str, list[bytes]] = field(default_factory=dict)
    _base_names: dict[str, frozenset[bytes]] = field(default_factory=dict)
    _base_squeezed: dict[str, bytes] = field(default_factory=dict)
    _versions: dict[tuple[str, int], OtherVersion | None] = field(default_factory=dict)

    def other_version(self, finding: LostLine) -> OtherVersion | None:
        """Another side's version of ``finding``'s block at its place in the result (asked
        once per block): :mod:`~syncdesk.services.audit.versions`."""
        block = self.blocks.get((finding.path, finding.line)) or [finding]
        path, first = finding.path, block[0].line
        if (path, first) not in self._versions:
            lines = [line.raw for line in block]
            last = max(line.line for line in block)
            start = min(line.line for line in block)
            after = self.snapshot.changed[path].after
            if after is None:
                self._versions[path, first] = None
                return None
            if path not in self._places:
                self._places[path] = Places(self.dev_lines(path), self.snapshot.lines(after))
            found = self._places[path].other_version(
                start, last, lines, self.base_names(path), python=path.endswith(".py")
            )
            self._versions[path, first] = found
        return self._versions[path, first]

    def base_lines(self, path: str) -> list[bytes]:
        """The merge base's ``path`` (empty when it had no such file), read once."""
        if path not in self._base_lines:
            done = (
                self.git.run(["cat-file", "blob", f"{self.merge_base}:{path}"], check=False)
                if self.git is not None and self.merge_base and path in self.in_base
                else None
            )
            self._base_lines[path] = (
                raw_lines(done.stdout) if done is not None and done.status == 0 else []
            )
        return self._base_lines[path]

    def base_names(self, path: str) -> frozenset[bytes]:
        """The names the merge base's ``path`` uses."""
        if path not in self._base_names:
            self._base_names[path] = names_of(self.base_lines(path))
        return self._base_names[path]

    def reformats_base(self, finding: LostLine) -> bool:
        """Whether ``finding``'s run of lost lines is all the merge base's text, whitespace
        aside (black joining or splitting statements, isort reordering imports): dev's
        reformat, not dev's work.

        Every line of the run must be base text: a run holding one line of dev's own
        (a new condition around a base loop, a new call) is dev's work, base lines and
        all. A run shorter than :data:`_REFORMAT_LEAST` characters says nothing (a lone
        ``num_layers,`` is in any file)."""
        run = self.blocks.get((finding.path, finding.line)) or [finding]
        texts = [_squeezed(line.raw) for line in run]
        if sum(len(text) for text in texts) < _REFORMAT_LEAST:
            return False
        base = self._base_squeezed.get(finding.path)
        if base is None:
            base = self._base_squeezed[finding.path] = _squeezed(
                b"".join(self.base_lines(finding.path))
            )
        return all(text in base for text in texts if text)

    def in_main(self, path: str, lines: Sequence[int]) -> bool:
        """Whether most of the result's ``lines`` (1-based) of ``path`` are main's too."""
        after = self.snapshot.changed[path].after
        result = self.snapshot.lines(after)
        main = set(self.snapshot.lines(self.snapshot.main_side(path)))
        return sum(result[line - 1] in main for line in lines) * 2 > len(lines)

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
        findings: Sequence[LostLine], to_blame: ToBlame,
    ) -> Evidence:  # fmt: skip
        """The answers, once every read is done: blame is asked only for the lines whose
        verdict needs their author, one ``-L`` call per file, on the audit's threads (a
        whole-file blame of every audited file cost 24 s of git on a real sync)."""
        evidence = Evidence(snapshot, changes, dev_regions, main_regions)
        evidence.git, evidence.slice_tip = self._git, self._slice_tip
        evidence.merge_base = self._range[0]
        evidence.blocks = _runs(snapshot, findings)
        # Before the rules run to find what to blame: they read these.
        evidence.in_base = _answer(self._in_base, frozenset())
        evidence.deleted_by = self._deleted.result()
        evidence.merged = _answer(self._merged, {})
        evidence.ours = _answer(self._ours, {})
        merge_base, dev = self._range
        wanted = to_blame(evidence, findings)
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


def dev_region(regions: Sequence[Region], line: int) -> Region | None:
    """The region of dev's diff from the merge base that wrote dev's line ``line``."""
    for region in regions:
        if region.new_count and region.new_start <= line < region.new_start + region.new_count:
            return region
    return None


def _answer(future: Future[_T] | None, default: _T) -> _T:
    return default if future is None else future.result()


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


def _runs(
    snapshot: Snapshot, findings: Sequence[LostLine]
) -> dict[tuple[str, int], list[LostLine]]:
    """Each lost line's run of consecutive lost dev lines in its file (only blank dev lines
    between them), by (path, line); every line of a run maps to the same list."""
    by_path: dict[str, list[LostLine]] = {}
    for finding in findings:
        by_path.setdefault(finding.path, []).append(finding)
    runs: dict[tuple[str, int], list[LostLine]] = {}
    for path, lost in by_path.items():
        change = snapshot.changed.get(path)
        dev = snapshot.lines(change.before) if change is not None else []
        run: list[LostLine] = []
        for finding in sorted(lost, key=lambda f: f.line):
            between = dev[run[-1].line : finding.line - 1] if run else []
            if run and (finding.line <= run[-1].line or any(line.strip() for line in between)):
                run = []
            run.append(finding)
            runs[path, finding.line] = run
    return runs


def _squeezed(text: bytes) -> bytes:
    """``text`` with all its whitespace taken out."""
    return _WHITESPACE.sub(b"", text)
