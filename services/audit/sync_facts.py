"""What the triage knows about one sync's files: each fact read once, shared by every rule.

The rules of the triage (:mod:`~syncdesk.services.audit.lost_lines` lists them)
ask the same questions of the same blobs again and again: which function holds
this line, which statement, what a file defines, which names main knows, where
main moved a function. Asked per lost line, the answers would be computed
thousands of times on a real sync (one function main rewrote holds hundreds of
lost lines). :class:`SyncFacts` computes each one on first use and keeps it to the
end of the audit:

- per blob (keyed by its sha, "" for a missing side): its statements and their
  first lines, its scan, its outline and owners, the bodies of its functions, its
  docstring lines, its identifiers, its definitions;
- per function of a blob: its lines' normal forms, words, locals and shapes;
- per file: the statements main's changes removed whole, the lines with a name
  main brought in, the lines of the functions main brought in;
- per sync: the names main knows, the definitions of every changed file's result,
  the Python files new to dev, and which names the head's tree still uses (one
  ``git grep``, run ahead on the audit's threads);
- per region of main's changes: the slice commit behind it, its added lines indexed.

It holds facts, never classes: the rules' decisions are in
:class:`~syncdesk.services.audit.classified.Classified`.
"""

from __future__ import annotations

import bisect
import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field
from functools import cache
from typing import TypeVar

from syncdesk.services.audit.classified import PlacedLine
from syncdesk.services.audit.lines import is_binary, is_trivial
from syncdesk.services.audit.names import (
    SimilarLines,
    defined_names,
    defines,
    definitions,
    identifiers,
    lines_naming,
    local_names,
    outline_and_owners,
    shape,
    words,
)
from syncdesk.services.audit.sources import Region, SliceChanges, Snapshot
from syncdesk.services.audit.statements import (
    Scan,
    docstring_lines,
    is_python,
    scan,
    statement_keys,
)
from syncdesk.services.conflicts.models import ConflictSet
from syncdesk.services.git.ahead import Ahead
from syncdesk.services.git.runner import Git
from syncdesk.services.patterns import listed

# What a per-function read of :meth:`SyncFacts._once_per_function` gives.
_Read = TypeVar("_Read")

# A function main moved is looked for in at most this many other files by its name.
_MOVED_TO_AT_MOST = 3
# A function main moved under a new name: the new one holds this share of its lines.
_MOVED_SHARE = 0.5


@dataclass
class SyncFacts:
    """The facts of one sync's files the triage's rules read, each computed once."""

    git: Git
    snapshot: Snapshot
    dev: str
    dev_base: str
    slice_tip: str
    head: str
    conflicts: ConflictSet | None
    data_files: tuple[str, ...]
    changes: SliceChanges = field(default_factory=SliceChanges)  # of the lost lines' files
    # Per blob (sha, "" for a missing side): read on first use.
    _scans: dict[str, Scan] = field(default_factory=dict)  # read, statements not yet
    _statements: dict[str, list[tuple[int, int, bytes]]] = field(default_factory=dict)
    _statement_starts: dict[str, list[int]] = field(default_factory=dict)
    _outlines: dict[str, list[bytes | None]] = field(default_factory=dict)
    _owners: dict[str, list[bytes | None]] = field(default_factory=dict)
    _bodies: dict[str, dict[bytes, list[int]]] = field(default_factory=dict)
    _prose: dict[str, set[int]] = field(default_factory=dict)
    _names_in: dict[str, set[bytes]] = field(default_factory=dict)
    _defined_in: dict[str, set[bytes]] = field(default_factory=dict)
    _underscored: dict[str, bytes] = field(default_factory=dict)  # blob, dashes as "_"
    _defines: dict[tuple[str, str, bytes], bool] = field(default_factory=dict)
    # Per function of a blob: (sha, name) -> a read of the lines it owns.
    _function_words: dict[tuple[str, bytes], frozenset[bytes]] = field(default_factory=dict)
    _function_forms: dict[tuple[str, bytes], frozenset[bytes]] = field(default_factory=dict)
    _function_locals: dict[tuple[str, bytes], frozenset[bytes]] = field(default_factory=dict)
    _function_shapes: dict[tuple[str, bytes], set[bytes]] = field(default_factory=dict)
    # Per file (path).
    _removed_statements: dict[str, dict[bytes, Region]] = field(default_factory=dict)
    _renamings: dict[str, dict[bytes, tuple[bytes, int]]] = field(default_factory=dict)
    _brought: dict[str, dict[bytes, set[bytes]]] = field(default_factory=dict)
    _renamed: dict[tuple[str, bytes], list[tuple[str, bytes]]] = field(default_factory=dict)
    # Per sync.
    _main_names: set[bytes] | None = None
    _definitions: dict[bytes, list[str]] | None = None
    _new_file_forms: dict[str, set[bytes]] | None = None
    _asked: set[bytes] = field(default_factory=set)
    _used: set[bytes] = field(default_factory=set)
    _uses: list[Future[set[bytes]]] = field(default_factory=list)  # greps still running
    # Per region of main's changes: id(region) -> its commit, its added lines indexed.
    _authors: dict[int, tuple[str | None, str | None]] = field(default_factory=dict)
    _versions: dict[int, SimilarLines] = field(default_factory=dict)

    def look_for_uses(self, items: Iterable[PlacedLine], ahead: Ahead) -> None:
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

    def holder(self, item: PlacedLine) -> bytes | None:
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
                    self._new_file_forms[path] = set(normal_forms(self.snapshot, change.after))
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
                    table.setdefault(with_hole(normal_form(result[at]), name), (name, at + 1))
            self._renamings[path] = table
        return self._renamings[path]

    def result_line(self, item: PlacedLine, number: int) -> bytes:
        """Line ``number`` (1-based) of the result's version of ``item``'s file."""
        return self.snapshot.lines(self.snapshot.changed[item.path].after)[number - 1]

    def is_prose(self, item: PlacedLine) -> bool:
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

    def commit_of(self, path: str, region: Region) -> tuple[str | None, str | None]:
        """The last slice commit that wrote main's ``region`` of ``path`` (sha, subject)."""
        # Many lost lines share a region (main's rewrite of a function): its commit is
        # looked up once, not once per line over all of the region's lines.
        if id(region) not in self._authors:
            self._authors[id(region)] = self.changes.who_changed(path, region)
        return self._authors[id(region)]

    def has_a_version(self, line: bytes, region: Region) -> bool:
        """Whether main's ``region`` added a version of ``line`` (its added lines indexed once)."""
        if id(region) not in self._versions:
            self._versions[id(region)] = SimilarLines(region.added)
        return self._versions[id(region)].most_similar(line) is not None

    def function_forms(self, sha: str | None, name: bytes) -> frozenset[bytes]:
        """The :func:`normal_form` of every line of function ``name`` in a blob."""
        return self._once_per_function(
            self._function_forms, sha, name, lambda body: frozenset(map(normal_form, body))
        )

    def function_locals(self, sha: str | None, name: bytes) -> frozenset[bytes]:
        """The local names of function ``name`` in a blob; none for a class, whose names
        (fields, attributes) are what others use."""

        def read(body: list[bytes]) -> frozenset[bytes]:
            if not body or body[0].lstrip().startswith(b"class"):
                return frozenset()
            return local_names(body)

        return self._once_per_function(self._function_locals, sha, name, read)

    def function_shapes(self, sha: str | None, name: bytes) -> set[bytes]:
        """The :func:`shape` of every line of function ``name`` in a blob."""
        local = self.function_locals(sha, name)
        return self._once_per_function(
            self._function_shapes, sha, name,
            lambda body: {found for line in body if (found := shape(line, local)) is not None},
        )  # fmt: skip

    def function_words(self, sha: str | None, name: bytes) -> frozenset[bytes]:
        """The words of function ``name``'s lines in a blob."""
        return self._once_per_function(
            self._function_words, sha, name, lambda body: frozenset().union(*map(words, body))
        )

    def _once_per_function(
        self,
        table: dict[tuple[str, bytes], _Read],
        sha: str | None,
        name: bytes,
        read: Callable[[list[bytes]], _Read],
    ) -> _Read:
        """``read`` of the lines function ``name`` owns in a blob, kept in ``table``: many
        lost lines of one function ask the same."""
        key = (sha or "", name)
        if key not in table:
            lines = self.snapshot.lines(sha)
            table[key] = read([lines[at] for at in self.bodies(sha).get(name, ())])
        return table[key]


def normal_form(line: bytes) -> bytes:
    """The line without indentation or trailing whitespace, one quote style for both."""
    return line.strip().replace(b"'", b'"')


def normal_forms(snapshot: Snapshot, sha: str | None) -> list[bytes]:
    """:func:`normal_form` of every line of a blob, numbered as :func:`raw_lines` numbers
    them (the quotes are swapped in the whole blob at once: C speed, not a call a line)."""
    blob = snapshot.blobs.get(sha, b"") if sha is not None else b""
    if not blob:
        return []
    # raw_lines' count without splitting into lines: no empty line after a last newline.
    count = blob.count(b"\n") + (0 if blob.endswith(b"\n") else 1)
    return list(map(bytes.strip, blob.replace(b"'", b'"').split(b"\n", count)[:count]))


def with_hole(form: bytes, name: bytes) -> bytes:
    """``form`` with every whole-word ``name`` replaced by a hole."""
    return _whole_word(name).sub(b"\x00", form)


@cache
def _whole_word(name: bytes) -> re.Pattern[bytes]:
    # Compiled once per name: re's own cache holds 512 patterns, and a large
    # sync asks about thousands of names, so it would compile them again and again.
    return re.compile(rb"\b" + re.escape(name) + rb"\b")
