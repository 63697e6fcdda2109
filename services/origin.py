"""The blame origin of the line ranges a review cites, and the disposition it suggests.

Before answering a finding, the maintainer needs to know where its cited
lines come from: a main commit of the slice (fix it on main, it reaches dev
in a later slice), dev's own code, older code both branches share, the sync
merge's conflict resolution, or the repair commit on top of it (ours, fix it
here). :func:`classify_ranges` answers that for many ranges at once with a
small, fixed number of git processes:

- one ``cat-file --batch-check`` resolves the refs and every cited commit,
  and finds each cited file's blob at the head, the dev base and the main
  tip (for "file identical to main", and whether the file is there at all);
- one ``diff -U0`` per (cited commit, path) when a citation names an older
  commit than the head: the cited lines are mapped to the head through it;
- one ``blame --porcelain`` per file (and side), with every range of that
  file as its own ``-L`` option: on Megatron-LM, 62 ranges cost 0.11 s as one
  call and 4.1 s as 62 calls (DOMAIN.md);
- two ``rev-list`` calls classify every blamed commit by set membership.

A range that cannot be blamed (the file is not at the head, the lines are
past its end) gets a ``note`` and no runs, never an exception; when nothing
was blamed for it, its ``start`` and ``end`` are 0.
"""

from __future__ import annotations

import posixpath
import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from services.attribution import Blame, parse_porcelain
from services.conflict_models import BlamedCommit
from services.errors import Cancelled, GitCommandError, MissingRefError
from services.finding_models import (
    CitedRange,
    Disposition,
    Finding,
    Origin,
    OriginRun,
    RangeOrigin,
)
from services.git import Git, first_line
from services.sanitize import one_line

# Pathspecs are literal: a cited path with ``*`` or ``:(glob)`` in it is a file name.
_LITERAL = {"GIT_LITERAL_PATHSPECS": "1"}
# What a name may look like before it goes to ``cat-file --batch-check`` as
# ``<name>^{commit}``: a SHA or a ref, never a control character, and no
# leading ``:`` (``:path`` reads the index, ``:/text`` searches messages).
_NAME = re.compile(r"[^\s:\x00-\x1f\x7f][^\s\x00-\x1f\x7f]{0,199}")
_HUNK = re.compile(rb"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
_ORDER = (Origin.SLICE, Origin.DEV, Origin.SHARED, Origin.MERGE, Origin.REPAIR)

Hunk = tuple[int, int, int, int]  # old start, old count, new start, new count (``@@`` header)


@dataclass(slots=True)
class _Plan:
    """Where one cited range is blamed: ``rev``'s lines ``start..end`` (0, 0: nowhere)."""

    range: CitedRange
    rev: str
    start: int = 0
    end: int = 0
    notes: list[str] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class _Trees:
    """The cited files' blob ids at the head, the dev base and the main tip."""

    head: dict[str, str]
    dev_base: dict[str, str]
    main: dict[str, str]

    def at(self, rev: str, head: str) -> dict[str, str]:
        return self.head if rev == head else self.dev_base

    def identical(self, path: str) -> str:
        """ "main", "dev", "both" or "": which side's file the head's equals."""
        blob = self.head.get(path)
        if blob is None:
            return ""
        on_main, on_dev = blob == self.main.get(path), blob == self.dev_base.get(path)
        return "both" if on_main and on_dev else "main" if on_main else "dev" if on_dev else ""


@dataclass(frozen=True, slots=True)
class _Classes:
    """Which blamed commit belongs to which class (commits in none are unclassified)."""

    slice: frozenset[str]  # dev_base..slice_tip
    dev: frozenset[str]  # slice_tip..dev_base
    above: frozenset[str]  # head --not dev_base slice_tip: the merge, the repair, strays
    repair: frozenset[str]  # merge..head
    merge: str | None

    def of(self, commit: str) -> Origin | None:
        if commit == self.merge:
            return Origin.MERGE
        if commit in self.repair:
            return Origin.REPAIR
        if commit in self.above:
            return None  # reachable from the head only, and not on top of the merge
        if commit in self.slice:
            return Origin.SLICE
        if commit in self.dev:
            return Origin.DEV
        return Origin.SHARED  # reachable from the head, not above it, in neither side alone


def classify_ranges(
    git: Git,
    ranges: Sequence[CitedRange],
    *,
    head: str,
    merge: str | None,
    dev_base: str,
    slice_tip: str,
    main_tip: str,
    cancelled: Callable[[], bool] | None = None,
) -> list[RangeOrigin]:
    """Blame every cited range at the head and classify each line by where it comes from.

    Returns one :class:`RangeOrigin` per range, in input order. Lines are
    REPAIR (a commit of ``merge..head``), MERGE (the merge itself), SLICE
    (``dev_base..slice_tip``), DEV (``slice_tip..dev_base``) or SHARED
    (reachable from both); without a ``merge`` there is no MERGE or REPAIR.
    A range on the ``LEFT`` side (the pull request's base) is blamed at the
    dev base. ``cancelled`` is polled before each git call that depends on
    the input's size; :class:`~services.errors.Cancelled` is raised when it
    turns true. Raises :class:`~services.errors.MissingRefError` when one of
    the given refs names no commit.
    """

    # A review can cite anything: a NUL byte (a "%00" in a link) can be no git
    # path or ref, and would cut git's -z input short; such a range is noted.
    usable = [r for r in ranges if "\0" not in r.path and "\0" not in (r.commit or "")]
    if len(usable) < len(ranges):
        done = iter(
            classify_ranges(
                git, usable, head=head, merge=merge, dev_base=dev_base,
                slice_tip=slice_tip, main_tip=main_tip, cancelled=cancelled,
            )
        )  # fmt: skip
        return [
            next(done)
            if "\0" not in r.path and "\0" not in (r.commit or "")
            else RangeOrigin(r, 0, 0, {}, (), "", "the cited path or commit is not a name git has")
            for r in ranges
        ]

    def step() -> None:
        if cancelled is not None and cancelled():
            raise Cancelled("classifying the cited lines was cancelled")

    if not ranges:
        return []
    named = [head, dev_base, slice_tip, main_tip] + ([merge] if merge else [])
    paths = list(dict.fromkeys(r.path for r in ranges))
    cited = [r.commit for r in ranges if r.commit]
    resolved, blobs = _lookup(git, [*named, *cited], (head, dev_base, main_tip), paths)
    for name in named:
        if resolved.get(name) is None:
            raise MissingRefError(f"{one_line(name)} names no commit in this repository")
    head_sha, base_sha = str(resolved[head]), str(resolved[dev_base])
    merge_sha = resolved[merge] if merge else None
    trees = _Trees(*blobs)
    step()
    plans = [_plan(r, resolved, head_sha, base_sha, trees) for r in ranges]
    _map_to_head(git, plans, resolved, head_sha, step)
    blamed = _blame_all(git, plans, trees, head_sha, step)
    commits = {sha for blame, _ in blamed.values() for sha in blame.commits}
    classes = _classes(git, head_sha, merge_sha, base_sha, str(resolved[slice_tip]), commits)
    return [
        _range_origin(plan, blamed.get((plan.rev, plan.range.path)), classes, trees)
        for plan in plans
    ]


def _lookup(
    git: Git, names: Iterable[str], revs: Sequence[str], paths: Sequence[str]
) -> tuple[dict[str, str | None], list[dict[str, str]]]:
    """The commits ``names`` name, and each path's blob at each of ``revs``: one ``cat-file``.

    Returns ``{name: full SHA or None}`` and, per rev, ``{path: blob id}`` for
    the paths that are files there. ``<name>^{commit}`` peels a tag and refuses
    a tree or blob; ``<rev>:<path>`` is the path's entry in the rev's tree.
    """
    commits = [name for name in dict.fromkeys(names) if _NAME.fullmatch(name)]
    queries = [f"{name}^{{commit}}" for name in commits]
    queries += [f"{rev}:{path}" for rev in revs for path in paths]
    # -z: queries end with NUL, so a path may hold a newline. Answers are lines:
    # "<oid> <type> <size>", or "<query> missing" (or "ambiguous"), which may
    # itself span lines; it is recognised by starting with the query we sent.
    encoded = [query.encode("utf-8", "surrogateescape") for query in queries]
    out = git.run(["cat-file", "--batch-check", "-z"], input=b"\0".join(encoded) + b"\0").stdout
    answers: list[tuple[str, str] | None] = []
    position = 0
    for query in encoded:
        failed = out.startswith(query + b" ", position)
        if failed:
            position += len(query) + 1
        end = out.find(b"\n", position)
        end = len(out) if end < 0 else end
        oid, _, kind = out[position:end].decode("utf-8", "replace").partition(" ")
        answers.append(None if failed else (oid, kind.partition(" ")[0]))
        position = end + 1
    resolved: dict[str, str | None] = dict.fromkeys(names)
    for name, answer in zip(commits, answers, strict=False):
        resolved[name] = answer[0] if answer and answer[1] == "commit" else None
    blobs: list[dict[str, str]] = []
    for index in range(len(revs)):
        found = answers[len(commits) + index * len(paths) :][: len(paths)]
        blobs.append(
            {path: a[0] for path, a in zip(paths, found, strict=True) if a and a[1] == "blob"}
        )
    return resolved, blobs


def _plan(
    cited: CitedRange,
    resolved: dict[str, str | None],
    head: str,
    dev_base: str,
    trees: _Trees,
) -> _Plan:
    """Where ``cited`` is blamed, before any mapping from an older commit."""
    start, end = sorted((max(1, cited.start), max(1, cited.end)))
    if cited.side.upper() == "LEFT":
        plan = _Plan(cited, dev_base, start, end)
        plan.notes.append(f"cites the base side: blamed at the dev base {dev_base[:8]}")
        if cited.path not in trees.dev_base:
            plan.notes.append("the file is not at the dev base")
            plan.start = plan.end = 0
        return plan
    plan = _Plan(cited, head, start, end)
    if cited.commit and resolved.get(cited.commit) is None:
        plan.notes.append(
            f"commit {one_line(cited.commit)[:40]} is not in this repository; taken as the head"
        )
    if cited.path not in trees.head:
        plan.notes.append("the file is not at the head")
        plan.start = plan.end = 0
    return plan


def _map_to_head(
    git: Git,
    plans: list[_Plan],
    resolved: dict[str, str | None],
    head: str,
    step: Callable[[], None],
) -> None:
    """Move each range cited on an older commit to the head's lines, one diff per (commit, path)."""
    diffs: dict[tuple[str, str], list[Hunk] | None] = {}
    for plan in plans:
        commit = resolved.get(plan.range.commit) if plan.range.commit else None
        if plan.rev != head or not plan.start or commit is None or commit == head:
            continue
        key = (commit, plan.range.path)
        if key not in diffs:
            step()
            diffs[key] = _hunks(git, commit, head, plan.range.path)
        hunks = diffs[key]
        short = commit[:8]
        if hunks is None:
            plan.notes.append(f"the file is not at {short}; the lines are taken as the head's")
            continue
        start, end, changed = map_range(hunks, plan.start, plan.end)
        if changed:
            plan.notes.append(
                f"lines changed since {short}: blamed lines {start}-{end} around them"
            )
        elif (start, end) != (plan.start, plan.end):
            plan.notes.append(f"lines {plan.start}-{plan.end} at {short} are {start}-{end} here")
        plan.start, plan.end = start, end


def _hunks(git: Git, old: str, new: str, path: str) -> list[Hunk] | None:
    """The ``-U0`` hunks of ``path`` from ``old`` to ``new``; None if ``old`` has no such file."""
    # --text: a "binary" file still has lines; --inter-hunk-context=0 and
    # --no-textconv/--no-ext-diff: the user's config must not fuse hunks or
    # rewrite the content; --no-renames: the path is the same at both ends.
    out = git.run(
        ["diff", "-U0", "--inter-hunk-context=0", "--text", "--no-textconv", "--no-ext-diff",
         "--no-renames", old, new, "--", path],
        env=_LITERAL,
    ).stdout  # fmt: skip
    hunks: list[Hunk] = []
    for line in out.split(b"\n"):
        if line.startswith(b"new file mode") and not hunks:
            return None  # the extended header, before any hunk: the path is absent at ``old``
        match = _HUNK.match(line)
        if match:
            a, b, c, d = match.groups()
            hunks.append((int(a), int(b or 1), int(c), int(d or 1)))
    return hunks


def map_range(hunks: Sequence[Hunk], start: int, end: int) -> tuple[int, int, bool]:
    """Map old lines ``start..end`` through ``-U0`` hunks: ``(new start, new end, changed)``.

    In a ``-U0`` header ``@@ -a,b +c,d @@`` a count of 0 means "after line
    a" (or c): ``-a,0`` inserts after old line a, ``+c,0`` deletes so that new
    line c is the last before the gap. Unchanged lines shift by the sizes of
    the hunks above them. When lines of the range were rewritten (or lines
    were inserted inside it), the result is the neighbourhood that replaced
    them: from the first new line of the hunk that took ``start`` to the last
    of the hunk that took ``end``.
    """
    new_start, start_changed = _map_line(hunks, start, first=True)
    new_end, end_changed = _map_line(hunks, end, first=False)
    # Inside the range: a hunk that rewrote some of its lines, or inserted between two of them.
    changed = any(
        (b and a <= end and start < a + b) or (not b and start <= a < end) for a, b, _, _ in hunks
    )
    if new_end < new_start:  # the whole range was deleted: blame the lines around the gap
        new_start, new_end = max(1, new_end), new_end + 1
    return new_start, new_end, changed or start_changed or end_changed


def _map_line(hunks: Sequence[Hunk], line: int, *, first: bool) -> tuple[int, bool]:
    """Old ``line`` at the new side, and whether a hunk rewrote it (then: its hunk's edge)."""
    offset = 0
    for a, b, c, d in hunks:
        if b and a <= line < a + b:  # rewritten (d > 0) or deleted (d == 0) by this hunk
            if d:
                return (c if first else c + d - 1), True
            return (c + 1 if first else c), True
        if (b and a + b - 1 < line) or (not b and a < line):  # wholly above the line
            offset += d - b
    return line + offset, False


def _blame_all(
    git: Git,
    plans: Sequence[_Plan],
    trees: _Trees,
    head: str,
    step: Callable[[], None],
) -> dict[tuple[str, str], tuple[Blame, int | None]]:
    """One ``git blame --porcelain`` per (revision, path) with all of its ranges."""
    wanted: dict[tuple[str, str], list[tuple[int, int]]] = {}
    for plan in plans:
        if plan.start:
            wanted.setdefault((plan.rev, plan.range.path), []).append((plan.start, plan.end))
    blamed = {}
    for (rev, path), spans in wanted.items():
        step()
        blob = trees.at(rev, head)[path]
        blamed[(rev, path)] = _blame(git, rev, path, merge_spans(spans), blob)
    return blamed


def merge_spans(spans: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    """Sorted 1-based inclusive spans with overlapping and touching ones joined."""
    joined: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if joined and start <= joined[-1][1] + 1:
            joined[-1] = (joined[-1][0], max(joined[-1][1], end))
        else:
            joined.append((start, end))
    return joined


def _blame(
    git: Git, rev: str, path: str, spans: list[tuple[int, int]], blob: str
) -> tuple[Blame, int | None]:
    """Blame ``spans`` of ``path`` at ``rev``, and the file's length when a span passed its end.

    git clips an ``-L`` range that runs past the end of the file (so the
    last line it reports is the file's last), but refuses the whole call
    when a range *starts* past it: only then is the blob read to count its
    lines, and the call repeated without those ranges.
    """
    blame = _run_blame(git, rev, path, spans)
    if blame is None:
        length = _line_count(git.run(["cat-file", "blob", blob]).stdout)
        kept = [(start, min(end, length)) for start, end in spans if start <= length]
        blame = _run_blame(git, rev, path, kept) if kept else Blame({}, {})
        if blame is None:
            raise GitCommandError(f"git blame of {one_line(path)} at {rev[:8]} failed")
        return blame, length
    if any(end not in blame.lines for _, end in spans):
        return blame, max(blame.lines, default=0)
    return blame, None


def _run_blame(git: Git, rev: str, path: str, spans: list[tuple[int, int]]) -> Blame | None:
    """``git blame --porcelain`` of ``spans``; None when a span starts past the end."""
    # The porcelain output: for each group of lines, a header "<sha> <orig line>
    # <final line> [<count>]"; the first group of a commit adds "author",
    # "summary", ... and maybe "previous <sha> <path>" or "boundary"; every
    # group has a "filename" line, then each line's content after a TAB.
    # --root keeps a root commit from being reported as a "boundary" (which
    # parse_porcelain drops); an empty --ignore-revs-file clears the user's
    # blame.ignoreRevsFile, which would credit a line to an older commit.
    options = [f"-L{start},{end}" for start, end in spans]
    result = git.run(
        ["blame", "--porcelain", "--root", "--ignore-revs-file=", *options, rev, "--", path],
        check=False,
    )
    if result.status != 0:
        if "has only" in result.stderr:  # "fatal: file <path> has only <n> lines" (LC_ALL=C)
            return None
        raise GitCommandError(f"git blame of {one_line(path)} failed: {first_line(result.stderr)}")
    return parse_porcelain(result.stdout)


def _line_count(data: bytes) -> int:
    """The number of lines git blame sees: a last line without a newline counts too."""
    return data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)


def _classes(
    git: Git, head: str, merge: str | None, dev_base: str, slice_tip: str, commits: set[str]
) -> _Classes:
    """Classify by membership, with two ``rev-list`` calls whatever the number of commits."""
    if not commits:
        return _Classes(frozenset(), frozenset(), frozenset(), frozenset(), merge)
    # The symmetric difference, each commit marked by its side: "<" reachable
    # from dev_base only, ">" from slice_tip only.
    sides = git.lines("rev-list", "--left-right", f"{dev_base}...{slice_tip}", "--")
    dev = frozenset(line[1:] for line in sides if line.startswith("<"))
    slice_ = frozenset(line[1:] for line in sides if line.startswith(">"))
    # What only the head has (the merge, the repair), with parents, to tell
    # merge..head (reachable from the head but not from the merge) apart.
    graph = {
        line.split()[0]: line.split()[1:]
        for line in git.lines("rev-list", "--parents", head, "--not", dev_base, slice_tip, "--")
    }
    below_merge: set[str] = set()
    todo = [merge] if merge in graph else []
    while todo:
        sha = todo.pop()
        if sha not in below_merge:
            below_merge.add(sha)
            todo.extend(parent for parent in graph.get(sha, ()) if parent in graph)
    # A merge the head does not have above both sides makes merge..head unknown
    # here: nothing is called a repair, and what is above stays unclassified.
    repair = frozenset(graph) - below_merge if merge in graph else frozenset()
    return _Classes(slice_, dev, frozenset(graph), repair, merge if merge in graph else None)


def _range_origin(
    plan: _Plan, blamed: tuple[Blame, int | None] | None, classes: _Classes, trees: _Trees
) -> RangeOrigin:
    """The runs and counts of one planned range, from its file's blame."""
    identical = trees.identical(plan.range.path)
    notes = list(plan.notes)
    start, end = plan.start, plan.end
    if blamed is not None and start:
        blame, length = blamed
        if length is not None and end > length:
            notes.append(
                f"lines {max(start, length + 1)}-{end} are past the end of the file "
                f"({length} lines)"
            )
            end = length
        if start <= end:
            runs, counts, strays, unblamed = _runs(blame, classes, start, end)
            if strays:
                notes.append(f"{strays} lines come from commits on neither side: not classified")
            if unblamed:
                notes.append(f"{unblamed} lines could not be blamed")
            return RangeOrigin(plan.range, start, end, counts, runs, identical, "; ".join(notes))
    return RangeOrigin(plan.range, 0, 0, {}, (), identical, "; ".join(notes))


def _runs(
    blame: Blame, classes: _Classes, start: int, end: int
) -> tuple[tuple[OriginRun, ...], dict[Origin, int], int, int]:
    """Consecutive lines with the same commit, the lines per class, and the lines left out."""
    runs: list[OriginRun] = []
    counts: Counter[Origin] = Counter()
    strays = unblamed = 0
    for number in range(start, end + 1):
        sha = blame.lines.get(number)
        if sha is None:
            unblamed += 1
            continue
        origin = classes.of(sha)
        if origin is None:
            strays += 1
            continue
        counts[origin] += 1
        previous = runs[-1] if runs else None
        if previous and previous.commit == sha and previous.end == number - 1:
            runs[-1] = OriginRun(previous.start, number, origin, sha, previous.subject,
                                 previous.author)  # fmt: skip
        else:
            commit: BlamedCommit = blame.commits[sha]
            runs.append(OriginRun(number, number, origin, sha, commit.subject, commit.author_name))
    return tuple(runs), {o: counts[o] for o in _ORDER if counts[o]}, strays, unblamed


def _total(origins: Sequence[RangeOrigin]) -> Counter[Origin]:
    total: Counter[Origin] = Counter()
    for origin in origins:
        total.update(origin.counts)
    return total


def _first_run(origins: Sequence[RangeOrigin], kind: Origin) -> OriginRun | None:
    return next((run for o in origins for run in o.runs if run.origin is kind), None)


def _all_identical_to_main(origins: Sequence[RangeOrigin]) -> bool:
    return bool(origins) and all(o.file_identical_to in ("main", "both") for o in origins)


def suggest_disposition(
    finding: Finding, origins: Sequence[RangeOrigin]
) -> tuple[Disposition, str]:
    """The disposition the cited lines' origins suggest, and a one-line reason.

    ``origins`` are the finding's ranges as :func:`classify_ranges` returned
    them. Lines of ours (the merge's resolution, the repair) are fixed here;
    lines the slice brought are fixed on main, dev's own on dev; older lines
    shared by both are fixed on main only when the file is main's exactly.
    """
    if finding.status == "closed":
        return Disposition.CLOSED, "the review says this finding is closed"
    if not origins:
        return Disposition.UNDECIDED, "no cited lines"
    total = _total(origins)
    for kind, words in ((Origin.REPAIR, "the repair commit"), (Origin.MERGE, "the merge")):
        run = _first_run(origins, kind)
        if run is not None:
            return Disposition.FIX_HERE, f"{_lines(total[kind])} from {words} {run.commit[:8]}"
    slice_run = _first_run(origins, Origin.SLICE)
    if slice_run is not None:
        return Disposition.FIX_ON_MAIN, (
            f"{_lines(total[Origin.SLICE])} from main {_commit_words(slice_run)}"
        )
    if _all_identical_to_main(origins):
        return Disposition.FIX_ON_MAIN, "every cited file is identical to main"
    dev_run = _first_run(origins, Origin.DEV)
    if dev_run is not None:
        return Disposition.FIX_ON_DEV, (
            f"{_lines(total[Origin.DEV])} from dev {_commit_words(dev_run)}"
        )
    if total[Origin.SHARED]:
        return Disposition.UNDECIDED, (
            "the cited lines are older than both branches and the file differs from main"
        )
    notes = [o.note for o in origins if o.note]
    return Disposition.UNDECIDED, notes[0] if notes else "no cited line could be classified"


def origin_summary(origins: Sequence[RangeOrigin]) -> str:
    """Lines per class for a list column: ``"slice 12 · merge 3 · repair 1"``."""
    total = _total(origins)
    parts = [f"{kind.value} {total[kind]}" for kind in _ORDER if total[kind]]
    return " · ".join(parts) if parts else "no lines"


def evidence_line(finding: Finding, origins: Sequence[RangeOrigin]) -> str:
    """One sentence of evidence for the reply's dispositions table, from facts only.

    For example: ``F2: streaming.py is identical to main; the cited lines come
    from main ad3ecd9 (Fix the stream (#1234))``.
    """
    clauses = []
    for path, same in dict.fromkeys((o.range.path, o.file_identical_to) for o in origins):
        if same:
            side = "main and dev" if same == "both" else same
            clauses.append(f"{one_line(posixpath.basename(path))} is identical to {side}")
    sources = [_source_words(origins, kind) for kind in _ORDER]
    named = [words for words in sources if words]
    if named:
        clauses.append("the cited lines come from " + " and ".join(named))
    elif not origins:
        clauses.append("no cited lines")
    clauses.extend(
        dict.fromkeys(
            f"{one_line(posixpath.basename(o.range.path))}: {o.note}" for o in origins if o.note
        )
    )
    return f"{one_line(finding.id)}: " + "; ".join(clauses or ["no line could be classified"])


_SIDE_WORDS = {
    Origin.SLICE: "main",
    Origin.DEV: "dev",
    Origin.SHARED: "code older than both branches,",
    Origin.MERGE: "the merge's conflict resolution",
    Origin.REPAIR: "the repair commit",
}


def _source_words(origins: Sequence[RangeOrigin], kind: Origin) -> str:
    """``main ad3ecd9 (subject)`` for the commits of one class (at most two named)."""
    runs = {run.commit: run for o in origins for run in o.runs if run.origin is kind}
    if not runs:
        return ""
    shown = [_commit_words(run) for run in list(runs.values())[:2]]
    more = f" and {len(runs) - 2} more" if len(runs) > 2 else ""
    return f"{_SIDE_WORDS[kind]} {', '.join(shown)}{more}"


def _lines(count: int) -> str:
    return f"{count} cited line" if count == 1 else f"{count} cited lines"


def _commit_words(run: OriginRun) -> str:
    subject = run.subject if len(run.subject) <= 60 else run.subject[:59] + "…"
    return f"{run.commit[:7]} ({subject})" if subject else run.commit[:7]
