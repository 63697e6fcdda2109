"""The dev-feature preservation audit: dev lines the sync merge may have lost.

The reference (DOMAIN.md) is a bash pre-push hook: for every file the sync
touched it runs ``git show`` on the dev base, the slice tip and the head, and
keeps the lines that ``comm`` over the sorted outputs finds on dev, absent
from main and missing from the result. ``tests/data/preservation_hook.sh`` is
that hook, and the tests prove :func:`raw_findings` reports exactly its
findings, computed in-process from blobs read once (see
:mod:`syncdesk.services.audit.sources` for the git side, :mod:`syncdesk.services.audit.lines`
for the line logic and its exact ``sort``/``comm`` semantics). The real
Megatron-LM hook's variant (sets, code files only, skip lists) is
:mod:`syncdesk.services.audit.hook`.

*What is judged*: the sync merge and the commits on top of it that are not
dev's. When dev was merged into the sync branch afterwards, "dev" is the
newest dev commit the head holds (``services/sync/ours.audit_scope``): a line
dev itself changed later is not a line the sync lost.

The raw list is mostly noise (thousands of lines on a real Megatron-LM sync),
so :func:`audit_sync` triages it, every line into one class with its evidence,
cheapest test first; "probable accident" is what is left when every innocent
explanation failed:

1. *ignored*, and counted: trivial lines, which hold no letter or digit, and
   the lines of binary files (a NUL in the first 8000 bytes, git's test).
2. *data files* (lock files, golden-value JSON: ``audit_data_files``): summed
   up per file, not listed line by line.
3. *by policy*: the lines of keep-dev and override-from-main files (shown,
   never hidden: the policy, not the merge, decided those files), except a
   still-referenced definition (8), which stays an accident there too.
4. *removed on main*: a slice commit removed that exact line from that file
   (most lost lines, and the cheapest test: asked first).
5. *reformatted*: the Python statement holding the line is in the result
   wrapped another way, or with only its comment changed
   (:mod:`~syncdesk.services.audit.statements`); the result file holds a line
   equal to it ignoring all whitespace and quote style; a formatter joined or
   split it (:class:`~syncdesk.services.audit.lines.Reflow`).
6. *moved*: the line, ignoring indentation, trailing whitespace and quote
   style, was put into another file of the result by the merge or the repair
   (a changed file holds it more often at the head than on dev and main
   together), which also follows files main renamed or split.
7. *removed on main* again: dev had only rewrapped a statement of the merge
   base, and main removed that statement.
8. *still referenced*: the line defined a name (function, class, parameter,
   attribute, import, config key, flag) that main's code never mentions, that
   the head's code still uses (data files are not code to either test) and
   that the head's file no longer defines
   (:mod:`syncdesk.services.audit.names`): the strongest sign of an
   accident, ranked first.
9. *moved* with its function: main moved the function holding the line into
   another file, under its name or another (the function main brought there
   holds most of its lines), and the line is prose or its words are there.
10. *probable accident* at once: the line is in a dev function or class that
    main and the head both lack by name, and that main did not move into
    another file (dev's work dropped wholesale).
11. *superseded by main*: a slice commit rewrote the same code: the base
    lines dev changed, or, for a line dev inserted, main deleted the code
    around it or wrote a version of it at that place (a port, a rename, a
    reworded comment: :mod:`syncdesk.services.audit.regions`); or main
    renamed a name of the line (the result holds it with the new name, one
    main brought); or main rewrote the function holding it and the result's
    version still holds the line's words (a missing word only where main
    brought a name to stand for it), its shape with the locals renamed, or
    it is a comment or docstring (but a comment whose code is an accident is
    one too). The commit is named. Where that code is a conflict hunk the
    resolution took as main's side, the class is *taken as main*: a
    resolution decision, shown as such. Outside the hunks, a change of
    main's merely *next to* dev's line does not count: dropping a dev
    addition because main touched a neighbouring line is the classic accident.
12. *taken as main* too: a line the resolution of a conflict hunk dropped
    when main changed only code next to it, unless that hunk also dropped a
    whole dev function (then every dev line it lost is an accident). On real
    syncs these were main's re-implementations of the code (see
    :func:`_resolution_decisions`); the workspace shows the hunk side by side.
13. *probable accident*: everything else, except a line main's own history
    before the slice held and removed (its last 300 commits: a stale copy of
    main's older code an earlier sync kept), which is *removed on main*, and
    a line between two lost lines a slice commit removed or rewrote, which
    went with that change (:func:`_amid_mains_change`).
    Accidents are grouped into blocks of consecutive dev lines.
"""

from __future__ import annotations

import bisect
import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field, replace
from functools import cache, partial
from typing import TypeVar

from syncdesk.services.audit.changes import dev_changes
from syncdesk.services.audit.hook import hook_findings
from syncdesk.services.audit.judge import Evidence, EvidenceReads, judge
from syncdesk.services.audit.lines import (
    Reflow,
    has_spare_copies,
    is_binary,
    is_blank,
    is_trivial,
    loosen_all,
    lost_lines,
    place_lost,
    squeeze,
)
from syncdesk.services.audit.model import (
    BESIDE,
    DROPPING,
    Audit,
    AuditScope,
    Classification,
    DataFile,
    LargeFile,
    LostLine,
    RawFinding,
    shown_order,
)
from syncdesk.services.audit.names import (
    SimilarLines,
    defined_names,
    defines,
    definition_name,
    definitions,
    identifiers,
    imported_names,
    lines_naming,
    local_names,
    outline_and_owners,
    shape,
    words,
)
from syncdesk.services.audit.policy import AuditPolicy
from syncdesk.services.audit.regions import base_span, superseding
from syncdesk.services.audit.sources import (
    Region,
    Removals,
    SliceChanges,
    Snapshot,
    Touched,
    changed_regions,
    earlier_removals,
    read_snapshot,
    slice_changes,
)
from syncdesk.services.audit.statements import (
    Scan,
    docstring_lines,
    is_python,
    line_invariant,
    rewrap_invariant,
    scan,
    statement_keys,
)
from syncdesk.services.collector import collector_paused
from syncdesk.services.conflicts.models import ConflictSet, Hunk
from syncdesk.services.git.ahead import Ahead
from syncdesk.services.git.runner import Git
from syncdesk.services.lines import encode_text
from syncdesk.services.patterns import listed
from syncdesk.services.progress import QUIET, Steps
from syncdesk.services.sanitize import decode, visible

# What a per-function read of :func:`_once_per_function` gives.
_Read = TypeVar("_Read")


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
    line: int  # 1-based, in the dev file
    raw: bytes


@dataclass
class _Triage:
    """The audit's working state: the snapshot, and the facts read on the way."""

    git: Git
    snapshot: Snapshot
    dev: str
    dev_base: str
    slice_tip: str
    head: str
    conflicts: ConflictSet | None
    data_files: tuple[str, ...]
    findings: list[LostLine] = field(default_factory=list)
    changes: SliceChanges = field(default_factory=SliceChanges)  # of the lost lines' files
    _main_names: set[bytes] | None = None
    _defines: dict[tuple[str, str, bytes], bool] = field(default_factory=dict)
    _underscored: dict[str, bytes] = field(default_factory=dict)  # blob, dashes as "_"
    _asked: set[bytes] = field(default_factory=set)
    _used: set[bytes] = field(default_factory=set)
    _uses: list[Future[set[bytes]]] = field(default_factory=list)  # greps still running
    _outlines: dict[str, list[bytes | None]] = field(default_factory=dict)
    _owners: dict[str, list[bytes | None]] = field(default_factory=dict)
    _prose: dict[str, set[int]] = field(default_factory=dict)
    _statements: dict[str, list[tuple[int, int, bytes]]] = field(default_factory=dict)
    _scans: dict[str, Scan] = field(default_factory=dict)  # read, statements not yet
    _bodies: dict[str, dict[bytes, list[int]]] = field(default_factory=dict)
    _statement_starts: dict[str, list[int]] = field(default_factory=dict)
    _removed_statements: dict[str, dict[bytes, Region]] = field(default_factory=dict)
    function_words: dict[tuple[str, bytes], frozenset[bytes]] = field(default_factory=dict)
    function_forms: dict[tuple[str, bytes], frozenset[bytes]] = field(default_factory=dict)
    function_locals: dict[tuple[str, bytes], frozenset[bytes]] = field(default_factory=dict)
    function_shapes: dict[tuple[str, bytes], set[bytes]] = field(default_factory=dict)
    _names_in: dict[str, set[bytes]] = field(default_factory=dict)
    _definitions: dict[bytes, list[str]] | None = None
    _renamed: dict[tuple[str, bytes], list[tuple[str, bytes]]] = field(default_factory=dict)
    _new_file_forms: dict[str, set[bytes]] | None = None
    _brought: dict[str, dict[bytes, set[bytes]]] = field(default_factory=dict)
    _defined_in: dict[str, set[bytes]] = field(default_factory=dict)
    _renamings: dict[str, dict[bytes, tuple[bytes, int]]] = field(default_factory=dict)

    def look_for_uses(self, items: Iterable[_Lost], ahead: Ahead) -> None:
        """Start finding, on ``ahead``, which names the lost lines define, or the functions
        holding them, the head's tree still uses anywhere (:meth:`used` waits for it).

        One ``git grep`` for every candidate name at once (whole words, fixed
        strings): the user may be a file the sync never touched, a test.
        """
        wanted: set[bytes] = set()
        for item in items:
            wanted |= defined_names(item.raw, item.path)
            if (holder := self.holder(item)) is not None:
                wanted.add(holder)
        wanted -= self.main_names()
        wanted -= self._asked
        self._asked |= wanted
        if not wanted:
            return
        self._uses.append(ahead.ask(self._uses_of, wanted))

    def _uses_of(self, wanted: set[bytes]) -> set[bytes]:
        """Which of ``wanted`` the head's tree holds as whole words (one ``git grep``)."""
        # The names go on stdin (-f -): thousands of them would overflow a command line.
        patterns = b"".join(name + b"\n" for name in sorted(wanted))
        # Data files (golden values, lock files) are the bulk of a tree and name no code.
        skipped = [f":(exclude){pattern}" for pattern in self.data_files]
        found = self.git.run(
            ["grep", "-I", "-h", "-o", "-w", "-F", "--no-color", "-f", "-", self.head,
             "--", ".", *skipped],
            input=patterns, check=False,
        )  # fmt: skip
        return {line.rstrip() for line in found.stdout.splitlines()} & wanted

    def used(self, name: bytes) -> bool:
        """Whether the head's tree uses ``name`` (asked beforehand with :meth:`look_for_uses`)."""
        while self._uses:
            self._used |= self._uses.pop().result()
        return name in self._used

    def holder(self, item: _Lost) -> bytes | None:
        """The function or class whose body holds ``item`` in dev's file."""
        holders = self.outline(self.snapshot.changed[item.path].before)
        return holders[item.line - 1] if item.line <= len(holders) else None

    def moved_to(self, path: str, name: bytes) -> list[tuple[str, bytes]]:
        """Where main moved dev's function ``name`` of ``path``: ``[(path, name)]`` of the
        functions main brought into other files under that name (few enough to follow)
        or, failing that, under another name that holds most of its lines."""
        places = [
            (other, name)
            for other in self.defined_elsewhere(name)
            if other != path and name not in self.defined_in(self.snapshot.changed[other].before)
        ]  # dev had it there too: not main's move
        if len(places) > _MOVED_TO_AT_MOST:
            return []  # a name too common to follow (__init__, forward)
        return places or self.renamed_function(path, name)

    def defined_elsewhere(self, name: bytes) -> list[str]:
        """The changed files whose result defines function or class ``name``, sorted."""
        if self._definitions is None:
            self._definitions = {}
            for path in sorted(self.snapshot.changed):
                blob = self.snapshot.blobs.get(self.snapshot.changed[path].after or "", b"")
                if not is_python(path) or is_binary(blob):
                    continue
                for found in definitions(blob):
                    self._definitions.setdefault(found, []).append(path)
        return self._definitions.get(name, [])

    def renamed_function(self, path: str, name: bytes) -> list[tuple[str, bytes]]:
        """Where main moved dev's function ``name`` of ``path`` under another name: the
        function main brought into a file (dev's version of that file lacks it) whose
        lines hold most of its lines (:data:`_MOVED_SHARE`, by normal form), as
        ``[(path, name)]`` or none."""
        if (path, name) not in self._renamed:
            dev_sha = self.snapshot.changed[path].before
            lines = self.snapshot.lines(dev_sha)
            mine = {
                normal_form(lines[at])
                for at in self.bodies(dev_sha).get(name, [])
                if not is_trivial(lines[at])
            }
            least = max(2, _MOVED_SHARE * len(mine))
            hits: Counter[tuple[str, bytes]] = Counter()
            # Only the files whose lines hold enough of the function's lines at all are
            # outlined; its own file too (renamed in place).
            for other in [*self._new_files_holding(mine, least), path]:
                brought = self._brought_lines(other)
                for form in mine:
                    hits.update((other, owner) for owner in brought.get(form, ()))
            for place in list(hits):  # only a function main brought: dev's own is no move
                if place[1] in self.defined_in(self.snapshot.changed[place[0]].before):
                    del hits[place]
            best = max(sorted(hits), key=lambda place: hits[place], default=None)
            found = best is not None and hits[best] >= least
            self._renamed[path, name] = [best] if found and best is not None else []
        return self._renamed[path, name]

    def _new_files_holding(self, forms: set[bytes], least: float) -> list[str]:
        """The Python files new to dev (where main moves code: a module split into a
        package, say) whose result holds at least ``least`` of ``forms`` (normal-form
        lines) anywhere: the only files a function with those lines may have gone to.
        Each file's lines are read into a set once, when first asked."""
        if self._new_file_forms is None:
            self._new_file_forms = {}
            for path in sorted(self.snapshot.on_main):
                change = self.snapshot.changed.get(path)
                if change is not None and change.before is None and is_python(path):
                    self._new_file_forms[path] = set(_normal_forms(self.snapshot, change.after))
        return [path for path, held in self._new_file_forms.items() if len(forms & held) >= least]

    def _brought_lines(self, path: str) -> dict[bytes, set[bytes]]:
        """Each normal-form line of a function main brought into ``path`` (the result
        defines it, dev's version of the file does not) -> those functions. A cheap look
        at the ``def`` lines first: only a file with such functions is outlined."""
        if path not in self._brought:
            table: dict[bytes, set[bytes]] = {}
            change = self.snapshot.changed[path]
            after = self.snapshot.blobs.get(change.after or "", b"")
            brought = self.defined_in(change.after) - self.defined_in(change.before)
            if brought and is_python(path) and not is_binary(after):
                lines = self.snapshot.lines(change.after)
                bodies = self.bodies(change.after)
                for owner in sorted(brought):
                    for at in bodies.get(owner, ()):
                        if not is_trivial(lines[at]):
                            table.setdefault(normal_form(lines[at]), set()).add(owner)
            self._brought[path] = table
        return self._brought[path]

    def defined_in(self, sha: str | None) -> set[bytes]:
        """The functions and classes a blob defines, by its ``def``/``class`` lines."""
        key = sha or ""
        if key not in self._defined_in:
            self._defined_in[key] = definitions(self.snapshot.blobs.get(key, b""))
        return self._defined_in[key]

    def names_in(self, sha: str | None) -> set[bytes]:
        """The identifiers of a blob (read once per blob)."""
        key = sha or ""
        if key not in self._names_in:
            self._names_in[key] = identifiers(self.snapshot.blobs.get(key, b""))
        return self._names_in[key]

    def renamings(self, path: str) -> dict[bytes, tuple[bytes, int]]:
        """The result's lines of ``path`` with one name main brought in made a hole:
        that form -> (the name, its 1-based line). Built once per file."""
        if path not in self._renamings:
            change = self.snapshot.changed[path]
            brought = self.names_in(self.snapshot.main_side(path)) - self.names_in(change.before)
            table: dict[bytes, tuple[bytes, int]] = {}
            result = self.snapshot.lines(change.after)
            for at in lines_naming(result, brought):  # the lines that may name one, in order
                for name in sorted(identifiers(result[at]) & brought):
                    table.setdefault(_with_hole(normal_form(result[at]), name), (name, at + 1))
            self._renamings[path] = table
        return self._renamings[path]

    def result_line(self, item: _Lost, number: int) -> bytes:
        """Line ``number`` (1-based) of the result's version of ``item``'s file."""
        return self.snapshot.lines(self.snapshot.changed[item.path].after)[number - 1]

    def is_prose(self, item: _Lost) -> bool:
        """Whether ``item`` is a comment line or part of a docstring (Python files)."""
        if item.raw.lstrip().startswith(b"#"):
            return True
        if not is_python(item.path):
            return False
        sha = self.snapshot.changed[item.path].before or ""
        if sha not in self._prose:
            self._prose[sha] = docstring_lines(self.statements(sha))
        return item.line - 1 in self._prose[sha]

    def statements(self, sha: str | None) -> list[tuple[int, int, bytes]]:
        """A Python blob's :func:`statement_keys` (read once per blob)."""
        key = sha or ""
        if key not in self._statements:
            lines = self.snapshot.lines(sha)
            self._statements[key] = statement_keys(lines, self._scans.pop(key, None))
        return self._statements[key]

    def scan(self, sha: str | None) -> Scan:
        """A Python blob's code and shape (:func:`scan`), kept for :meth:`statements`."""
        key = sha or ""
        if key not in self._scans:
            self._scans[key] = scan(self.snapshot.lines(sha))
        return self._scans[key]

    def statement_key(self, sha: str | None, index: int) -> bytes | None:
        """The key of the statement holding line ``index`` (0-based) of a Python blob."""
        at = self.statement_at(sha, index)
        return None if at is None else self.statements(sha)[at][2]

    def statement_at(self, sha: str | None, index: int) -> int | None:
        """Which of a Python blob's :meth:`statements` holds line ``index`` (0-based),
        found by bisecting their first lines (kept once per blob)."""
        key = sha or ""
        if key not in self._statement_starts:
            self._statement_starts[key] = [first for first, _, _ in self.statements(sha)]
        at = bisect.bisect_right(self._statement_starts[key], index) - 1
        return at if at >= 0 and index <= self.statements(sha)[at][1] else None

    def removed_statements(self, path: str, regions: Sequence[Region]) -> dict[bytes, Region]:
        """The keys of the statements main's ``regions`` of ``path`` removed whole."""
        if path not in self._removed_statements:
            table: dict[bytes, Region] = {}
            for region in regions:
                for _, _, statement in statement_keys(region.removed):
                    table.setdefault(statement, region)
            self._removed_statements[path] = table
        return self._removed_statements[path]

    def bodies(self, sha: str | None) -> dict[bytes, list[int]]:
        """Each function or class of a blob -> the 0-based lines it owns (:meth:`owners`)."""
        key = sha or ""
        if key not in self._bodies:
            table: dict[bytes, list[int]] = {}
            for at, owner in enumerate(self.owners(sha)):
                if owner is not None:
                    table.setdefault(owner, []).append(at)
            self._bodies[key] = table
        return self._bodies[key]

    def owners(self, sha: str | None) -> list[bytes | None]:
        """:meth:`outline`, except that a ``def``/``class`` line belongs to what it defines."""
        self.outline(sha)
        return self._owners[sha or ""]

    def outline(self, sha: str | None) -> list[bytes | None]:
        """The enclosing function or class of every line of a blob (read once per blob)."""
        key = sha or ""
        if key not in self._outlines:
            self._outlines[key], self._owners[key] = outline_and_owners(self.snapshot.lines(sha))
        return self._outlines[key]

    def main_names(self) -> set[bytes]:
        """The identifiers of main's version of every changed file: names main knows.
        Data files (lock files, golden values) name no code, as for :meth:`look_for_uses`
        (on main2dev/27_05_2026 they were 5.6 of these 15.3 MB, and 105 of 229 ms)."""
        if self._main_names is None:
            # Each blob once (kept: the rename test asks for main's names file by file).
            sides = dict.fromkeys(
                self.snapshot.main_side(path)
                for path in self.snapshot.changed
                if not listed(path, self.data_files)
            )
            self._main_names = set().union(*map(self.names_in, self._text_blobs(sides)))
        return self._main_names

    def still_referenced(self, item: _Lost) -> bytes | None:
        """A name ``item`` defined that main never mentions, the result still uses, and the
        result's version of the file no longer defines (an import merged into another
        import line, say, still binds it)."""
        candidates = defined_names(item.raw, item.path) - self.main_names()
        name = next((name for name in sorted(candidates) if self.used(name)), None)
        if name is None:
            return None
        after = self.snapshot.changed[item.path].after
        if self.blob_defines(after, item.path, name):
            return None
        # An import binds a name in its own module only: uses elsewhere say nothing.
        if name in imported_names(item.raw) and name not in self.names_in(after):
            return None
        return name

    def blob_defines(self, sha: str | None, path: str, name: bytes) -> bool:
        """Whether a line of blob ``sha`` (of ``path``) defines ``name`` (once per name)."""
        blob_key = sha or ""
        key = (path, blob_key, name)
        if key not in self._defines:
            if blob_key not in self._underscored:  # (once per blob, not once per name)
                blob = self.snapshot.blobs.get(blob_key, b"")
                self._underscored[blob_key] = blob.replace(b"-", b"_")
            # One search of the whole blob in C first: most often the name is not in it.
            spelled = name in self._underscored[blob_key]
            self._defines[key] = spelled and defines(self.snapshot.lines(sha), name, path)
        return self._defines[key]

    def _text_blobs(self, shas: Iterable[str | None]) -> Iterator[str]:
        """Those of ``shas`` that are non-empty text blobs."""
        for sha in shas:
            blob = self.snapshot.blobs.get(sha, b"") if sha is not None else b""
            if sha is not None and blob and not is_binary(blob):
                yield sha


def audit_sync(
    git: Git,
    dev_base: str,
    slice_tip: str,
    head: str,
    steps: Steps = QUIET,
    *,
    scope: AuditScope | None = None,
    policy: AuditPolicy | None = None,
    conflicts: ConflictSet | None = None,
    hook: bool = False,
) -> Audit:
    """The triaged preservation audit of the sync of ``slice_tip`` into ``dev_base``.

    ``head`` is the result to check: the sync branch's head (merge and
    repair), or the merge commit itself. ``scope`` (``sync.ours.audit_scope``) says
    which dev version to judge against (default: the dev base). ``conflicts``
    (the merge's conflicts read at the head) lets lines lost in a hunk taken
    as main be named as that decision. ``hook`` also computes the real
    Megatron-LM hook's findings (:mod:`syncdesk.services.audit.hook`) when its
    refs are the ones judged here. ``steps`` is checked between the
    steps, so a cancel stops it (:class:`~syncdesk.services.errors.Cancelled`).
    """
    # The audit keeps what it builds (lines, statements, tables) to its end: the cycle
    # collector's walks over it would free nothing (services.collector). It resumes
    # once _audited has returned and its working state has been freed, so that its
    # first walk does not go over all of it either.
    with collector_paused():
        return _audited(
            git, dev_base, slice_tip, head, steps,
            scope=scope, policy=policy, conflicts=conflicts, hook=hook,
        )  # fmt: skip


def _audited(
    git: Git,
    dev_base: str,
    slice_tip: str,
    head: str,
    steps: Steps,
    *,
    scope: AuditScope | None,
    policy: AuditPolicy | None,
    conflicts: ConflictSet | None,
    hook: bool,
) -> Audit:
    """:func:`audit_sync`'s work."""
    dev = scope.dev if scope is not None else dev_base
    policy = policy or AuditPolicy()
    with Ahead(workers=3) as ahead:
        patches: list[Future[SliceChanges]] = []

        def ask_for_patches(touched: Sequence[Touched]) -> None:
            # A line a slice commit removed is main's deletion, whatever else is true
            # of it. git reads the slice's patches of every file a lost line may be
            # in (a superset: which have lost lines is known only once the blobs
            # are read and compared) while the blobs are read and the lines placed.
            paths = [t.path for t in touched if not listed(t.path, policy.data_files)]
            patches.append(ahead.ask(slice_changes, git, dev_base, slice_tip, sorted(paths)))

        snapshot = read_snapshot(git, dev, slice_tip, head, touched_known=ask_for_patches)
        steps.check()
        base = ahead.ask(_merge_base, git, dev, slice_tip)
        lost_files = _lost_by_file(snapshot)
        triage = _Triage(
            git, snapshot, dev, dev_base, slice_tip, head, conflicts, policy.data_files
        )
        pending: list[_Lost] = []
        by_policy: list[tuple[_Lost, str]] = []
        data: list[DataFile] = []
        ignored_trivial = ignored_binary = 0
        placing: list[tuple[Touched, Counter[bytes], str | None]] = []
        for touched, lost in lost_files:
            if is_binary(snapshot.blobs.get(touched.dev, b"")):
                ignored_binary += lost.total()
                continue
            real = Counter({line: count for line, count in lost.items() if not is_trivial(line)})
            ignored_trivial += lost.total() - real.total()
            if not real:
                continue
            if listed(touched.path, policy.data_files):
                data.append(DataFile(touched.path, real.total()))
                continue
            placing.append((touched, real, policy.policy(touched.path)))
        # Where dev holds more copies of a lost line than were lost, the copies git's
        # diff of dev and the head leaves unmatched are the lost ones: one diff for
        # every such file (difflib, in Python, took 0.2 s for 26 files on 13_08).
        spare = {t.path for t, real, _ in placing if has_spare_copies(snapshot.lines(t.dev), real)}
        diffs = ahead.ask(changed_regions, git, dev, head, sorted(spare)) if spare else None
        placements: dict[str, list[tuple[int, bytes]]] = {}
        for touched, real, _ in sorted(placing, key=lambda entry: entry[0].path in spare):
            # The files that need no alignment first, while git diffs the others.
            diffed = diffs.result().get(touched.path) if touched.path in spare and diffs else None
            placements[touched.path] = place_lost(
                snapshot.lines(touched.dev), snapshot.lines(touched.result), real,
                None if diffed is None else _old_lines(diffed),
            )  # fmt: skip
        for touched, _, decided in placing:
            placed = [_Lost(touched.path, n, line) for n, line in placements[touched.path]]
            if decided is None:
                pending += placed
            else:
                by_policy += ((item, decided) for item in placed)
        hooked = tuple(hook_findings(snapshot, policy)) if hook else None
        steps.check()
        # Needed next, and pure Python: computed while git may still read the patches.
        triage.main_names()
        # Most lost lines are main's deletions, and the passes after this are the costly ones.
        triage.changes = patches[0].result() if patches else SliceChanges()
        unexplained = _removed_on_main(triage, pending)
        # git looks for the uses of every name these lines define while the passes
        # below explain most of them (a superset of what will be asked: one grep).
        triage.look_for_uses([*unexplained, *(item for item, _ in by_policy)], ahead)
        # What main and dev changed since their merge base, and main's older removals
        # (300 commits of log -p: the longest read), asked for every file an accident may
        # yet be found in: a few more files than the passes below leave (47 for 42 on
        # 13_08), read while those passes run. The answer per file does not depend on
        # the others (--no-renames).
        paths = sorted({item.path for item in (*unexplained, *(item for item, _ in by_policy))})
        merge_base = base.result()
        earlier = ahead.ask(earlier_removals, git, merge_base, paths) if merge_base else None
        regions = (
            ahead.ask(changed_regions, git, merge_base, dev, paths),
            ahead.ask(changed_regions, git, merge_base, slice_tip, paths),
        ) if merge_base and paths else None  # fmt: skip
        steps.check()
        # The verdicts' reads (blame of these files over dev's own history, the slice's
        # messages, the merge's own result) run while the passes below explain lines.
        reads = (
            EvidenceReads(
                git, ahead, merge_base=merge_base, dev=dev, slice_tip=slice_tip,
                judged=scope.judged if scope is not None else (), paths=paths,
            ) if paths else None
        )  # fmt: skip
        unexplained = _rewrapped(triage, unexplained)
        unexplained = _moved_or_reformatted(triage, unexplained)
        steps.check()
        unexplained = _reflowed(triage, unexplained)
        steps.check()
        for item, decided in by_policy:
            # A policy takes the file whole; a definition it dropped that the
            # result still uses is an accident all the same (a test importing it).
            name = triage.still_referenced(item)
            if name is not None:
                detail = decode(name)
                triage.findings.append(
                    _finding(item, Classification.STILL_REFERENCED, detail=detail)
                )
            else:
                triage.findings.append(_finding(item, Classification.BY_POLICY, detail=decided))
        steps.check()
        dev_regions, main_regions = (
            (regions[0].result(), regions[1].result()) if regions is not None else ({}, {})
        )
        _explain_the_rest(triage, unexplained, earlier, dev_regions, main_regions)
        evidence = (
            reads.evidence(snapshot, triage.changes, dev_regions, main_regions, triage.findings)
            if reads is not None
            else Evidence(snapshot, triage.changes, dev_regions, main_regions)
        )
        judged = [replace(found, judgment=judge(evidence, found)) for found in triage.findings]
    findings = _with_blocks(snapshot, judged)
    changes = dev_changes(evidence, findings)
    findings.sort(key=shown_order)
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
        dev=dev,
        judged=scope.judged if scope is not None else (),
        data_files=tuple(sorted(data, key=lambda d: d.path)),
        too_large=tuple(LargeFile(path, size) for path, size in sorted(snapshot.too_large.items())),
        hook=hooked,
        changes=changes,
    )


def _old_lines(regions: Iterable[Region]) -> set[int]:
    """The old side's lines (0-based) a diff's ``-U0`` regions change: the unmatched ones."""
    return {at for r in regions for at in range(r.old_start - 1, r.old_start - 1 + r.old_count)}


def _merge_base(git: Git, dev: str, slice_tip: str) -> str:
    """The merge base of ``dev`` and ``slice_tip`` ("" when they share no history)."""
    return git.run(["merge-base", dev, slice_tip], check=False).text.strip()


def _finding(
    item: _Lost,
    kind: Classification,
    *,
    commit: str | None = None,
    subject: str | None = None,
    other_path: str | None = None,
    evidence_line: int | None = None,
    detail: str | None = None,
) -> LostLine:
    text = visible(decode(item.raw).rstrip())
    return LostLine(
        item.path, item.line, text, item.raw, kind, commit, subject, other_path, evidence_line,
        detail,
    )  # fmt: skip


def normal_form(line: bytes) -> bytes:
    """The line without indentation or trailing whitespace, one quote style for both."""
    return line.strip().replace(b"'", b'"')


def _moved_or_reformatted(triage: _Triage, pending: list[_Lost]) -> list[_Lost]:
    """Classify the lines the result holds elsewhere or reformatted; return the rest."""
    snapshot = triage.snapshot
    gained = _gained_lines(snapshot, {normal_form(item.raw) for item in pending})
    wanted: dict[str, set[bytes]] = {}
    for item in pending:
        wanted.setdefault(item.path, set()).add(_squeezed_form(item.raw))
    unexplained: list[_Lost] = []
    squeezed: dict[str, dict[bytes, list[tuple[int, bytes]]]] = {}
    for item in pending:
        form = normal_form(item.raw)
        elsewhere = [(path, n) for path, n in gained.get(form, ()) if path != item.path]
        if elsewhere:
            path, number = elsewhere[0]
            triage.findings.append(
                _finding(item, Classification.MOVED, other_path=path, evidence_line=number)
            )
            continue
        if item.path not in squeezed:
            result = snapshot.lines(snapshot.changed[item.path].after)
            squeezed[item.path] = _squeezed(result, wanted[item.path])
        variants = squeezed[item.path].get(_squeezed_form(item.raw), [])
        # Byte-equal is not "reformatted": that is the file keeping fewer copies.
        reformatted = next((n for n, line in variants if line != item.raw), None)
        if reformatted is not None:
            triage.findings.append(
                _finding(item, Classification.REFORMATTED, evidence_line=reformatted)
            )
        else:
            unexplained.append(item)
    return unexplained


def _rewrapped(triage: _Triage, items: list[_Lost]) -> list[_Lost]:
    """Classify the lines of Python statements the result holds wrapped another way."""

    def found(path: str, lost: list[_Lost]) -> dict[int, int]:
        return _rewrapped_lines(triage, path, lost) if is_python(path) else {}

    return _reformatted_by_file(triage, items, found)


def _reformatted_by_file(
    triage: _Triage, items: list[_Lost], finder: Callable[[str, list[_Lost]], dict[int, int]]
) -> list[_Lost]:
    """Classify as reformatted the lines ``finder`` places in the result (one file's lost
    lines -> their dev line: its result line); return the rest."""
    by_path: dict[str, list[_Lost]] = {}
    for item in items:
        by_path.setdefault(item.path, []).append(item)
    left: list[_Lost] = []
    for path, lost in by_path.items():
        found = finder(path, lost)
        for item in lost:
            if item.line in found:
                triage.findings.append(
                    _finding(item, Classification.REFORMATTED, evidence_line=found[item.line])
                )
            else:
                left.append(item)
    return left


def _rewrapped_lines(triage: _Triage, path: str, lost: list[_Lost]) -> dict[int, int]:
    """Lost dev lines (1-based) whose statement the result holds laid out otherwise ->
    the result line where that statement starts."""
    change = triage.snapshot.changed[path]
    # Two tests at C speed rule most files out before all their statements are read
    # (on 13_08, 13 of 44 files by the first, 12 more by the second; the whole test's
    # CPU went from 60 to 37 ms on 08_05, 118 to 80 ms on 30_07). Each is necessary: a
    # rewrapped statement's key, and each line of it, lie whole in the rewrap
    # invariant of the result's code (statements.rewrap_invariant).
    invariant = rewrap_invariant(triage.scan(change.after).code)
    if not any(not (part := line_invariant(item.raw)) or part in invariant for item in lost):
        return {}
    dev, result = triage.snapshot.lines(change.before), triage.snapshot.lines(change.after)
    statements = triage.statements(change.before)
    # The dev statements holding a lost line (found by their first lines, not by
    # walking every statement of the file), with the lost lines each holds.
    holding: dict[int, list[int]] = {}  # index in statements -> its lost lines (0-based)
    for item in lost:
        if (at := triage.statement_at(change.before, item.line - 1)) is not None:
            holding.setdefault(at, []).append(item.line - 1)
    keys = {statements[at][2] for at in holding if not is_trivial(statements[at][2])}
    if not any(rewrap_invariant(key) in invariant for key in keys):
        return {}
    in_result: dict[bytes, list[tuple[int, int]]] = {}
    for first, last, key in triage.statements(change.after):
        if key in keys:
            in_result.setdefault(key, []).append((first, last))
    on_dev = Counter(key for _, _, key in statements if key in keys)
    found: dict[int, int] = {}
    for at in sorted(holding):
        first, last, key = statements[at]
        here = sorted(holding[at])
        # The result must keep as many copies of the statement as dev had: a
        # common statement of a dropped test stays lost however it is wrapped.
        if key not in keys or len(in_result.get(key, ())) < on_dev[key]:  # trivial, or fewer
            continue
        layout = [line.strip() for line in dev[first : last + 1]]
        for start, end in in_result[key]:
            # The same lines are the same statement: that copy is not this one's rewrap.
            # (One line against one line differs in its comment only.)
            if [line.strip() for line in result[start : end + 1]] != layout:
                found.update((index + 1, start + 1) for index in here)
                break
    return found


def _squeezed_form(line: bytes) -> bytes:
    return squeeze(line).replace(b"'", b'"')


def _squeezed(result: list[bytes], wanted: set[bytes]) -> dict[bytes, list[tuple[int, bytes]]]:
    """Result lines whose whitespace-free form is wanted: ``(1-based line, line)`` per form."""
    table: dict[bytes, list[tuple[int, bytes]]] = {}
    for number, line in enumerate(result, start=1):
        key = _squeezed_form(line)
        if key in wanted:
            table.setdefault(key, []).append((number, line))
    return table


def _gained_lines(snapshot: Snapshot, wanted: set[bytes]) -> dict[bytes, list[tuple[str, int]]]:
    """For each wanted normal form, the changed files whose result holds it more often than
    their dev and slice-tip versions together: ``(path, 1-based line)``, paths sorted.

    Lines main itself put there do not count (a coincidence, or main's own
    move, which the later steps name); counting only such gains keeps a
    dropped ``import os`` from hiding behind every other file's own copy.
    """
    gained: dict[bytes, list[tuple[str, int]]] = {}
    for path in sorted(snapshot.changed):
        change = snapshot.changed[path]
        if change.after in (None, change.before, snapshot.main_side(path)):
            continue  # dev's or main's file as it was (most files): no line more often
        result = _normal_forms(snapshot, change.after)
        if wanted.isdisjoint(result):  # one pass in C
            continue
        hits = [(n, form) for n, form in enumerate(result, start=1) if form in wanted]
        on_dev = Counter(_normal_forms(snapshot, change.before))
        on_main = Counter(_normal_forms(snapshot, snapshot.main_side(path)))
        seen: Counter[bytes] = Counter()
        for number, form in hits:
            seen[form] += 1
            # The first copy neither dev nor main had (the larger of their counts, asked
            # only for the forms hit rather than a union of the two Counters).
            if seen[form] == max(on_dev[form], on_main[form]) + 1:
                gained.setdefault(form, []).append((path, number))
    return gained


def _normal_forms(snapshot: Snapshot, sha: str | None) -> list[bytes]:
    """:func:`normal_form` of every line of a blob, numbered as :func:`raw_lines` numbers
    them (the quotes are swapped in the whole blob at once: C speed, not a call a line)."""
    blob = snapshot.blobs.get(sha, b"") if sha is not None else b""
    if not blob:
        return []
    # raw_lines' count without splitting into lines: no empty line after a last newline.
    count = blob.count(b"\n") + (0 if blob.endswith(b"\n") else 1)
    return list(map(bytes.strip, blob.replace(b"'", b'"').split(b"\n", count)[:count]))


def _reflowed(triage: _Triage, items: list[_Lost]) -> list[_Lost]:
    """Classify the lines inside a statement a formatter reflowed; return the rest."""

    def found(path: str, lost: list[_Lost]) -> dict[int, int]:
        change = triage.snapshot.changed[path]
        dev, result = triage.snapshot.lines(change.before), triage.snapshot.lines(change.after)
        return _reflowed_lines(dev, result, lost)

    return _reformatted_by_file(triage, items, found)


def _reflowed_lines(dev: list[bytes], result: list[bytes], lost: list[_Lost]) -> dict[int, int]:
    """Lost dev lines (1-based) inside a statement a formatter reflowed -> its result line."""
    reflow = Reflow(result)
    loose_dev = loosen_all(dev)
    covered: dict[int, int] = {}
    for item in sorted(lost, key=lambda item: item.line):
        if item.line in covered:
            continue
        found = reflow.find(loose_dev, item.line - 1)
        if found is not None:
            last, number = found
            covered.update((line, number) for line in range(item.line, last + 2))
    return covered


def _explain_the_rest(
    triage: _Triage,
    items: list[_Lost],
    earlier: Future[Removals] | None,
    dev_regions: dict[str, list[Region]],
    main_regions: dict[str, list[Region]],
) -> None:
    """Removed on main, still referenced, taken as main, superseded by main, or an accident.

    ``earlier`` is being read: main's removals before the merge base of the judged
    dev and the slice tip (None: they share no history); the regions are what each
    side changed since that merge base, for the items' files.
    """
    if not items:
        return
    shared = earlier is not None  # dev and the slice tip have a merge base
    changes = triage.changes
    versions: dict[int, SimilarLines] = {}  # id(region) -> its added lines, indexed once
    first = len(triage.findings)
    comments: list[int] = []  # comment lines excused by their function's rewrite
    beside: list[tuple[int, Hunk]] = []  # lines a hunk taken as main dropped next to main's change
    dropping: dict[int, bytes] = {}  # id() of a hunk taken as main -> a dev definition it dropped
    authors: dict[int, tuple[str | None, str | None]] = {}  # id(region) -> its last commit

    def who(path: str, region: Region) -> tuple[str | None, str | None]:
        # Many lost lines share a region (main's rewrite of a function): its commit is
        # looked up once, not once per line over all of the region's lines.
        if id(region) not in authors:
            authors[id(region)] = changes.who_changed(path, region)
        return authors[id(region)]

    for item in items:
        name = triage.still_referenced(item)
        if name is not None:
            detail = decode(name)
            triage.findings.append(_finding(item, Classification.STILL_REFERENCED, detail=detail))
            continue
        removal = _removed_as_dev_wrapped_it(triage, item, main_regions.get(item.path, ()))
        if removal is not None:
            sha, subject = who(item.path, removal)
            triage.findings.append(
                _finding(
                    item, Classification.REMOVED_ON_MAIN, commit=sha, subject=subject,
                    detail="dev had only rewrapped it",
                )
            )  # fmt: skip
            continue
        taken = _taken_as_main(triage, item)
        hunk = None if taken is None else f"conflict hunk {taken.index + 1}"
        moved = _moved_with_its_function(triage, item)
        if moved is not None:
            carried, path, number = moved
            triage.findings.append(
                _finding(
                    item, Classification.MOVED, other_path=path, evidence_line=number,
                    detail=f"{decode(carried)}()",
                )
            )  # fmt: skip
            continue
        dropped = _in_a_dropped_definition(triage, item)
        if dropped is not None:
            # The whole function or class the line belongs to is gone, under its
            # name, from main and the result alike: dev's work dropped wholesale.
            detail = f"dev's {decode(dropped)}, which the result no longer has"
            triage.findings.append(_finding(item, Classification.ACCIDENT, detail=detail))
            if taken is not None:
                dropping.setdefault(id(taken), dropped)
            continue
        region = None
        if shared:  # a file dev left as in the base has no regions: its lines map as they are
            span = base_span(dev_regions.get(item.path, ()), item.line)
            region = superseding(
                span, main_regions.get(item.path, ()), partial(_has_a_version, versions, item.raw)
            )
        renamed = _renamed_by_main(triage, item) if region is None else None
        if renamed is not None:
            (old, new), number = renamed
            added = changes.additions.get(item.path, {}).get(triage.result_line(item, number))
            triage.findings.append(
                _finding(
                    item, Classification.SUPERSEDED,
                    commit=added[0] if added else None, subject=added[1] if added else None,
                    evidence_line=number, detail=f"renamed {decode(old)} to {decode(new)}",
                )
            )  # fmt: skip
            continue
        function = None
        if region is None:
            rewrite = _function_main_rewrote(triage, item, main_regions.get(item.path, ()))
            if rewrite is not None:
                function, region = rewrite
        if region is None:
            # main did not rewrite this code. Outside the hunks, dropping it is the
            # classic accident; inside a hunk taken as main, it is the resolution's
            # decision unless that hunk dropped a whole dev definition (decided below).
            if taken is not None:
                beside.append((len(triage.findings), taken))
            triage.findings.append(_finding(item, Classification.ACCIDENT, detail=hunk))
            continue
        sha, subject = who(item.path, region)
        kind = Classification.TAKEN_AS_MAIN if hunk else Classification.SUPERSEDED
        where = hunk or (f"{decode(function)}()" if function is not None else None)
        if function is not None and item.raw.lstrip().startswith(b"#"):
            comments.append(len(triage.findings))
        triage.findings.append(_finding(item, kind, commit=sha, subject=subject, detail=where))
    _comments_follow_their_code(triage, comments)
    _resolution_decisions(triage, beside, dropping)
    if earlier is not None:
        _stale_copies(triage, earlier.result(), first)
    _amid_mains_change(triage, first)


def _removed_on_main(triage: _Triage, items: list[_Lost]) -> list[_Lost]:
    """Classify the lines a slice commit removed (naming it); return the rest."""
    left: list[_Lost] = []
    for item in items:
        removed_by = triage.changes.removals.get(item.path, {}).get(item.raw)
        if removed_by is None:
            left.append(item)
            continue
        triage.findings.append(
            _finding(
                item, Classification.REMOVED_ON_MAIN, commit=removed_by[0], subject=removed_by[1]
            )
        )
    return left


def _removed_as_dev_wrapped_it(
    triage: _Triage, item: _Lost, main_regions: Sequence[Region]
) -> Region | None:
    """main's change that removed the statement holding ``item``, when dev had only
    rewrapped or reformatted that statement of the merge base (its key is the key of a
    statement main removed): base code main deleted, not dev's work."""
    if not main_regions or not is_python(item.path):
        return None
    key = triage.statement_key(triage.snapshot.changed[item.path].before, item.line - 1)
    if key is None or is_trivial(key):
        return None
    return triage.removed_statements(item.path, main_regions).get(key)


def _comments_follow_their_code(triage: _Triage, comments: list[int]) -> None:
    """A comment excused only because main rewrote its function is an accident after all
    when the code it introduces is one: a dev feature lost with its explanation.

    The code a comment introduces: the lines after it and its neighbouring
    comments, up to the next blank line or comment (at most
    :data:`_INTRODUCED` lines).
    """
    accidents = {(found.path, found.line) for found in triage.findings if found.is_accident}
    for at in comments:
        found = triage.findings[at]
        dev = triage.snapshot.lines(triage.snapshot.changed[found.path].before)
        code = found.line  # 0-based index of the line after the comment
        while code < len(dev) and dev[code].lstrip().startswith(b"#"):
            code += 1
        end = code
        while (
            end < min(len(dev), code + _INTRODUCED)
            and not is_blank(dev[end])
            and not dev[end].lstrip().startswith(b"#")  # the next comment's code
        ):
            end += 1
        if any((found.path, line + 1) in accidents for line in range(code, end)):
            triage.findings[at] = replace(
                found, classification=Classification.ACCIDENT, commit=None, subject=None,
                detail=None,
            )  # fmt: skip


# A function main moved is looked for in at most this many other files by its name.
_MOVED_TO_AT_MOST = 3
# A function main moved under a new name: the new one holds this share of its lines.
_MOVED_SHARE = 0.5
# The most code lines a comment is taken to introduce.
_INTRODUCED = 12
# A code line main's rewrite of its function kept: this share of its words is still there.
_KEPT_WORDS = 0.75


def _function_main_rewrote(
    triage: _Triage, item: _Lost, main_regions: Sequence[Region]
) -> tuple[bytes, Region] | None:
    """The function holding ``item`` and main's change to it, when main rewrote that function
    in the slice, the result holds main's version, and ``item`` is prose (a comment, a
    docstring) or code whose words that version still holds (renamed locals, a new argument).

    The line-by-line test (:func:`superseding`) misses a rewrite that moved
    things around inside the function; this one looks at the whole body.
    """
    # A def line belongs to its own function here: main extended the signature.
    name = definition_name(item.raw) or triage.holder(item)
    if name is None or not main_regions:
        return None
    change = triage.snapshot.changed[item.path]
    if name not in triage.bodies(change.after):
        return None  # gone from this file: :func:`_moved_with_its_function` asks elsewhere
    on_main = triage.owners(triage.snapshot.main_side(item.path))
    region = next((r for r in main_regions if _touches(r, on_main, name)), None)
    if region is None:
        return None
    if triage.is_prose(item):
        return name, region
    if normal_form(item.raw) in _function_forms(triage, change.after, name):
        return None  # a copy dev had more of: the count is what was lost
    theirs = _function_words(triage, change.after, name)
    dev_sha = change.before
    brought = _function_words(triage, triage.snapshot.main_side(item.path), name) - (
        _function_words(triage, dev_sha, name)
    )
    if _kept_words(item.raw, theirs, brought):
        return name, region
    # The same statement with the function's own names renamed (a test main
    # brought upstream with new local names).
    mine = shape(item.raw, _locals(triage, change.before, name))
    if mine is not None and mine in _shapes(triage, change.after, name):
        return name, region
    return None


def _once_per_function(
    triage: _Triage,
    table: dict[tuple[str, bytes], _Read],
    sha: str | None,
    name: bytes,
    read: Callable[[list[bytes]], _Read],
) -> _Read:
    """``read`` of the lines function ``name`` owns in a blob, kept in ``table``: many lost
    lines of one function ask the same."""
    key = (sha or "", name)
    if key not in table:
        lines = triage.snapshot.lines(sha)
        table[key] = read([lines[at] for at in triage.bodies(sha).get(name, ())])
    return table[key]


def _function_forms(triage: _Triage, sha: str | None, name: bytes) -> frozenset[bytes]:
    """The :func:`normal_form` of every line of function ``name`` in a blob."""
    return _once_per_function(
        triage, triage.function_forms, sha, name, lambda body: frozenset(map(normal_form, body))
    )


def _locals(triage: _Triage, sha: str | None, name: bytes) -> frozenset[bytes]:
    """The local names of function ``name`` in a blob; none for a class, whose names
    (fields, attributes) are what others use."""

    def read(body: list[bytes]) -> frozenset[bytes]:
        if not body or body[0].lstrip().startswith(b"class"):
            return frozenset()
        return local_names(body)

    return _once_per_function(triage, triage.function_locals, sha, name, read)


def _shapes(triage: _Triage, sha: str | None, name: bytes) -> set[bytes]:
    """The :func:`shape` of every line of function ``name`` in a blob."""
    local = _locals(triage, sha, name)
    return _once_per_function(
        triage, triage.function_shapes, sha, name,
        lambda body: {found for line in body if (found := shape(line, local)) is not None},
    )  # fmt: skip


def _function_words(triage: _Triage, sha: str | None, name: bytes) -> frozenset[bytes]:
    """The words of function ``name``'s lines in a blob."""
    return _once_per_function(
        triage, triage.function_words, sha, name,
        lambda body: frozenset().union(*map(words, body)),
    )  # fmt: skip


def _kept_words(line: bytes, theirs: frozenset[bytes], brought: frozenset[bytes]) -> bool:
    """Whether a rewrite whose words are ``theirs`` kept ``line``: most of its words are
    there, and each missing one is a name the rewrite could have renamed it to (``brought``:
    names main's version brought in). A missing name with nothing to stand for it is
    dev's addition dropped (a term dropped from a sum)."""
    mine = words(line)
    missing = mine - theirs
    if not mine or len(mine) - len(missing) < _KEPT_WORDS * len(mine):
        return False
    names_brought = {word for word in brought if not word[:1].isdigit()}
    return all(not word[:1].isdigit() for word in missing) and len(missing) <= len(names_brought)


def _moved_with_its_function(triage: _Triage, item: _Lost) -> tuple[bytes, str, int] | None:
    """``(function, path, line)`` when main moved the function holding ``item`` into another
    file (the slice brought its definition there), the result's file no longer defines it,
    and ``item`` is prose or code whose words the moved function still holds."""
    name = definition_name(item.raw) or triage.holder(item)
    if name is None:
        return None
    change = triage.snapshot.changed[item.path]
    if name in triage.defined_in(change.after):  # its "def" lines, without an outline
        return None
    for path, new_name in triage.moved_to(item.path, name):
        other = triage.snapshot.changed[path]
        kept = triage.bodies(other.after)[new_name]
        theirs = _function_words(triage, other.after, new_name)
        brought = theirs - _function_words(triage, change.before, name)
        if triage.is_prose(item) or _kept_words(item.raw, theirs, brought):
            return new_name, path, kept[0] + 1
    return None


def _renamed_by_main(triage: _Triage, item: _Lost) -> tuple[tuple[bytes, bytes], int] | None:
    """``((old, new), result line)`` when the result holds ``item`` with one name renamed
    the way main renamed it: ``old`` is gone from main's version of the file, ``new``
    is a name main brought in (dev's file never had it).

    Not for a ``def`` or ``class`` line: a definition under a new name with
    another body is main's own, not dev's renamed (its body says which).
    """
    if item.raw.lstrip().startswith((b"def ", b"async def ", b"class ")):
        return None
    on_main = triage.names_in(triage.snapshot.main_side(item.path))
    candidates = sorted(identifiers(item.raw) - on_main)
    if not candidates:
        return None
    index = triage.renamings(item.path)
    form = normal_form(item.raw)
    for old in candidates:
        found = index.get(_with_hole(form, old))
        if found is not None:
            new, number = found
            return (old, new), number
    return None


def _with_hole(form: bytes, name: bytes) -> bytes:
    """``form`` with every whole-word ``name`` replaced by a hole."""
    return _whole_word(name).sub(b"\x00", form)


@cache
def _whole_word(name: bytes) -> re.Pattern[bytes]:
    # Compiled once per name: re's own cache holds 512 patterns, and a large
    # sync asks about thousands of names, so it would compile them again and again.
    return re.compile(rb"\b" + re.escape(name) + rb"\b")


def _touches(region: Region, holders: Sequence[bytes | None], name: bytes) -> bool:
    """Whether main's ``region`` changed lines of function ``name`` (``holders``: main's file)."""
    if region.new_count == 0:  # a deletion after line new_start: look at both neighbours
        around = (region.new_start - 1, region.new_start)
        return any(0 <= at < len(holders) and holders[at] == name for at in around)
    span = range(region.new_start - 1, min(len(holders), region.new_start - 1 + region.new_count))
    return any(holders[at] == name for at in span)


def _has_a_version(versions: dict[int, SimilarLines], line: bytes, region: Region) -> bool:
    """Whether main's ``region`` added a version of ``line`` (its added lines indexed once)."""
    if id(region) not in versions:
        versions[id(region)] = SimilarLines(region.added)
    return versions[id(region)].most_similar(line) is not None


def _stale_copies(triage: _Triage, earlier: Removals, first: int) -> None:
    """Accidents that main's own history held and removed before this slice (``earlier``,
    from :func:`~syncdesk.services.audit.sources.earlier_removals`): removed on main.

    Such a line is a stale copy of main's older code that an earlier sync kept
    on dev, not dev's work.
    """
    accidents = [at for at in range(first, len(triage.findings)) if triage.findings[at].is_accident]
    for at in accidents:
        found = triage.findings[at]
        removed_by = earlier.get(found.path, {}).get(found.raw)
        if removed_by is not None:
            triage.findings[at] = replace(
                found, classification=Classification.REMOVED_ON_MAIN,
                commit=removed_by[0], subject=removed_by[1], detail=None,
            )  # fmt: skip


def _amid_mains_change(triage: _Triage, first: int) -> None:
    """A plain accident between two lost lines main removed or rewrote went with that change.

    The nearest non-trivial dev lines above and below it are both lost, and a
    slice commit removed or rewrote each: main deleted or rewrote the code on
    both sides, and dev's version of the line between differed from main's old
    one (dev had edited it), so no rule matched it alone. On real syncs these
    were a reworded message in a validation block main deleted and a call in a
    test main rewrote (4 labelled blocks, all innocent). One pass over the
    classes the other rules gave: a run of two such lines stays accidents, and
    so do a still-referenced line and the lines of a dropped dev function.
    """
    mains = (Classification.REMOVED_ON_MAIN, Classification.SUPERSEDED)
    at = {(found.path, found.line): index for index, found in enumerate(triage.findings)}
    went: list[tuple[int, LostLine]] = []
    for index in range(first, len(triage.findings)):
        found = triage.findings[index]
        if found.classification is not Classification.ACCIDENT or found.detail:
            continue
        dev = triage.snapshot.lines(triage.snapshot.changed[found.path].before)
        sides = [_nearest(dev, found.line, step) for step in (-1, 1)]
        around = [at.get((found.path, line)) for line in sides if line is not None]
        neighbours = [triage.findings[other] for other in around if other is not None]
        if len(neighbours) < 2 or any(n.classification not in mains for n in neighbours):
            continue
        later = max(neighbours, key=lambda n: triage.changes.order.get(n.commit or "", -1))
        if all(n.classification is Classification.REMOVED_ON_MAIN for n in neighbours):
            kind, detail = Classification.REMOVED_ON_MAIN, "with the lines on both sides of it"
        else:
            kind, detail = Classification.SUPERSEDED, "the code on both sides of it"
        went.append((index, replace(found, classification=kind, commit=later.commit,
                                    subject=later.subject, detail=detail)))  # fmt: skip
    for index, decided in went:  # after the pass: a line decided here is no one's neighbour
        triage.findings[index] = decided


def _nearest(dev: Sequence[bytes], line: int, step: int) -> int | None:
    """The nearest non-trivial line of ``dev`` before (``step`` -1) or after (+1) ``line``."""
    at = line + step
    while 1 <= at <= len(dev) and is_trivial(dev[at - 1]):
        at += step
    return at if 1 <= at <= len(dev) else None


def _in_a_dropped_definition(triage: _Triage, item: _Lost) -> bytes | None:
    """The dev-only function or class holding ``item`` if the result lost it by name."""
    name = triage.holder(item)
    if name is None or name in triage.main_names() or triage.used(name):
        return None
    if triage.moved_to(item.path, name):
        return None  # main moved it into another file (under its name or another): not dropped
    return name


def _resolution_decisions(
    triage: _Triage, beside: Sequence[tuple[int, Hunk]], dropping: dict[int, bytes]
) -> None:
    """Dev lines a hunk taken as main dropped next to main's change: the resolution's decision.

    On four real Megatron-LM syncs every such line in a hunk that kept dev's
    definitions was innocent (main had re-implemented, restructured or
    re-signed that code with few words in common: 24 labelled blocks), and
    every true loss among them but one (a sentence of documentation main had
    reworded its own way) sat in a hunk that also dropped whole dev
    functions. So they are *taken as main* (shown, with main's commit), except
    in a hunk that dropped a dev definition, where they stay accidents: they
    are usually that definition's callers and arguments.
    """
    commits: dict[int, tuple[str | None, str | None]] = {}  # id(hunk) -> main's commit
    for index, hunk in beside:
        finding = triage.findings[index]
        if id(hunk) in dropping:
            detail = f"conflict hunk {hunk.index + 1}{DROPPING}{decode(dropping[id(hunk)])}"
            triage.findings[index] = replace(finding, detail=detail)
            continue
        if id(hunk) not in commits:  # one look per hunk: a hunk may hold many such lines
            commits[id(hunk)] = _hunk_commit(triage.changes, finding.path, hunk)
        sha, subject = commits[id(hunk)]
        detail = f"conflict hunk {hunk.index + 1}{BESIDE}"
        triage.findings[index] = replace(
            finding, classification=Classification.TAKEN_AS_MAIN, commit=sha, subject=subject,
            detail=detail,
        )  # fmt: skip


def _hunk_commit(changes: SliceChanges, path: str, hunk: Hunk) -> tuple[str | None, str | None]:
    """The last slice commit that wrote one of main's lines of ``hunk`` or removed a base line."""
    added = [encode_text(line.removesuffix("\n")) for line in hunk.main]
    removed = [encode_text(line.removesuffix("\n")) for line in hunk.base]
    return changes.last_commit(path, added, removed)


def _taken_as_main(triage: _Triage, item: _Lost) -> Hunk | None:
    """The conflict hunk the head resolved as main whose dev side holds ``item``, if any."""
    if triage.conflicts is None or triage.dev != triage.dev_base:
        return None  # hunk lines are numbered in the dev base's file
    conflict = triage.conflicts.file(item.path)
    if conflict is None:
        return None
    for hunk in conflict.hunks:
        on_dev_side = hunk.dev_start <= item.line < hunk.dev_start + len(hunk.dev)
        if hunk.resolution == "main" and on_dev_side:
            return hunk
    return None


def _with_blocks(snapshot: Snapshot, findings: Iterable[LostLine]) -> list[LostLine]:
    """The findings, each accident marked with the first dev line of its block."""
    out: list[LostLine] = []
    accidents: dict[str, list[LostLine]] = {}
    for finding in findings:
        if finding.is_accident:
            accidents.setdefault(finding.path, []).append(finding)
        else:
            out.append(finding)
    for path, items in accidents.items():
        dev = snapshot.lines(snapshot.changed[path].before)
        items.sort(key=lambda f: f.line)
        start = items[0].line
        previous = start
        for finding in items:
            if not _only_trivial_between(dev, previous, finding.line):
                start = finding.line
            previous = finding.line
            out.append(replace(finding, block=start))
    return out


def _only_trivial_between(dev: Sequence[bytes], first: int, last: int) -> bool:
    """Whether every dev line strictly between lines ``first`` and ``last`` (1-based) is trivial."""
    return all(is_trivial(line) for line in dev[first : last - 1])
