"""Where the preservation audit's lines come from: four git processes in all.

- two ``diff-tree --raw`` (dev base -> head, dev base -> slice tip) name every
  blob involved, so no ``<rev>:<path>`` lookup is needed;
- one ``cat-file --batch`` reads every blob at once (the hook runs three
  ``git show`` per touched file);
- one ``log -p -U0`` over the slice, limited to the files still unexplained
  after the in-process checks, says which slice commit removed or added which
  line;
- two ``diff -U0`` (merge base -> dev, merge base -> slice tip) of those same
  files say which regions each side changed, so that a dev line lost where
  main rewrote the code around it is told apart from one lost where main
  changed nothing.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field

from syncdesk.services.audit.lines import raw_lines
from syncdesk.services.git.objects import read_contents, read_objects, withheld
from syncdesk.services.git.runner import Git
from syncdesk.services.sanitize import decode, decode_path, one_line

GITLINK_MODE = b"160000"
# Paths per ``git log`` call: keeps the command line far below ARG_MAX.
PATHS_PER_LOG = 500
_HUNK_HEADER = re.compile(rb"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


@dataclass(frozen=True, slots=True)
class Change:
    """One path of ``diff-tree --raw``: its blob before and after (None: absent or a gitlink)."""

    path: str
    before: str | None
    after: str | None


@dataclass(frozen=True, slots=True)
class Touched:
    """A touched file main changed too: its blob at the dev base, slice tip and head."""

    path: str
    dev: str
    main: str | None
    result: str | None


@dataclass
class Snapshot:
    """Every blob the audit needs, read once, and what changed where."""

    touched: list[Touched]  # touched files that main changed as well
    files_checked: int  # every touched file (the hook's loop)
    changed: dict[str, Change]  # dev base -> head
    on_main: dict[str, Change]  # dev base -> slice tip
    blobs: dict[str, bytes]
    # Files left out for a version over the large-file limit: path -> largest size.
    too_large: dict[str, int] = field(default_factory=dict)
    _lines: dict[str, list[bytes]] = field(default_factory=dict)
    # One object per distinct line over every blob: dev's, main's and the result's versions
    # of a file share most lines, so each is held once (~20 MB less on a Megatron sync) and
    # the set differences compare equal lines by identity.
    _canon: dict[bytes, bytes] = field(default_factory=dict)

    def lines(self, sha: str | None) -> list[bytes]:
        """A blob's lines (split once, then cached); none for an absent file."""
        if sha is None:
            return []
        if sha not in self._lines:
            split = raw_lines(self.blobs.get(sha, b""))
            # map() with the bound method runs the loop in C: no Python frame a line.
            self._lines[sha] = list(map(self._canon.setdefault, split, split))
        return self._lines[sha]

    def main_side(self, path: str) -> str | None:
        """The blob of a changed ``path`` at the slice tip (unlisted: main kept dev's)."""
        if path in self.on_main:
            return self.on_main[path].after
        change = self.changed.get(path)
        return change.before if change is not None else None


def read_snapshot(
    git: Git,
    dev_base: str,
    slice_tip: str,
    head: str,
    touched_known: Callable[[Sequence[Touched]], object] | None = None,
) -> Snapshot:
    """Name and read every blob the audit of ``head`` needs, with three git processes.

    ``touched_known`` is called with the touched files as soon as they are
    named, before their blobs are read: a caller can start the reads that
    need only their paths.

    *Touched* (the hook's word) is: differs between the dev base and the head
    with renames off, and exists at the dev base (status M, T or D). A touched
    path that main left as it was on dev holds every dev line, so nothing can
    be "on dev and absent from main" there: only the others are read.

    Two differences with the hook, on purpose: when a touched path is a
    directory on main or at the head, the hook's ``git show`` prints the
    tree's listing and compares those names as lines; here it has no lines.
    And a file with a version over the large-file limit
    (:attr:`Git.large_file_limit`) is left out, named in ``too_large``: its
    lines would take tens of times its size in memory.
    """
    changed = _changes(git, dev_base, head)
    on_main = _changes(git, dev_base, slice_tip)
    files_checked = sum(1 for change in changed.values() if change.before is not None)
    # Set apart before anything is read: the blobs read below are all within the limit.
    too_large = _too_large(git, changed, on_main)
    for path in too_large:
        changed.pop(path, None)
        on_main.pop(path, None)
    checked = [change for change in changed.values() if change.before is not None]
    touched = [
        Touched(change.path, change.before, on_main[change.path].after, change.after)
        for change in checked
        if change.before is not None and change.path in on_main
    ]
    if touched_known is not None:
        touched_known(touched)
    wanted = [sha for t in touched for sha in (t.dev, t.main, t.result)]
    # The three sides of every changed file serve the "moved" test.
    wanted += [sha for c in changed.values() for sha in (c.before, c.after)]
    wanted += [on_main[path].after for path in changed if path in on_main]
    blobs = read_blobs(git, (sha for sha in wanted if sha is not None))
    return Snapshot(touched, files_checked, changed, on_main, blobs, too_large)


def _too_large(git: Git, *changes: dict[str, Change]) -> dict[str, int]:
    """The paths with a version over the large-file limit, and the largest one's size.

    One ``cat-file`` asks every changed blob's size (``info``, not its
    content): a huge blob is never read.
    """
    limit = git.large_file_limit
    shas = {sha for one in changes for c in one.values() for sha in (c.before, c.after) if sha}
    sizes = read_objects(git, (), sorted(shas))
    found: dict[str, int] = {}
    for one in changes:
        for path, change in one.items():
            for sha in (change.before, change.after):
                blob = sizes.get(sha) if sha else None
                if blob is not None and withheld(blob, limit):
                    found[path] = max(found.get(path, 0), blob.size)
    return found


def _changes(git: Git, old: str, new: str) -> dict[str, Change]:
    """Every path whose entry differs between two commits, renames off."""
    # -z: paths come unquoted. --no-renames: a rename is a delete and an add,
    # which is what the hook's per-path ``git show`` sees too.
    out = git.run(["diff-tree", "-r", "-z", "--raw", "--no-renames", old, new, "--"]).stdout
    fields = out.split(b"\0")
    changes: dict[str, Change] = {}
    for meta, raw_path in zip(fields[0::2], fields[1::2], strict=False):
        # ":100644 100644 <old sha> <new sha> M"
        old_mode, new_mode, old_sha, new_sha, _status = meta.lstrip(b":").split(b" ")
        path = decode_path(raw_path)
        changes[path] = Change(path, _blob(old_mode, old_sha), _blob(new_mode, new_sha))
    return changes


def _blob(mode: bytes, sha: bytes) -> str | None:
    # An all-zero id means absent on that side; a gitlink names a commit of
    # another repository, which has no lines (the hook's ``git show`` of one
    # prints nothing).
    if mode == GITLINK_MODE or not sha.strip(b"0"):
        return None
    return sha.decode()


def read_blobs(git: Git, shas: Iterable[str]) -> dict[str, bytes]:
    """The contents of blobs, read with one ``cat-file`` process (as stored, unfiltered)."""
    return read_contents(git, shas, "blob")


Removals = dict[str, dict[bytes, tuple[str, str]]]  # path -> removed line -> (sha, subject)
_NO_COMMIT = ("", "")


@dataclass(frozen=True, slots=True)
class Region:
    """One hunk of a ``-U0`` patch: ``old_count`` lines from ``old_start`` became ``added``.

    As in git's hunk header, a count of 0 puts the start on the line *before*
    the empty side (an insertion after line ``old_start``).
    """

    old_start: int
    old_count: int
    new_start: int
    new_count: int
    removed: tuple[bytes, ...]
    added: tuple[bytes, ...]


@dataclass
class SliceChanges:
    """What the slice commits did to some files, line by line, the later commit winning."""

    removals: Removals = field(default_factory=dict)  # path -> line -> (sha, subject)
    additions: Removals = field(default_factory=dict)  # path -> line -> (sha, subject)
    order: dict[str, int] = field(default_factory=dict)  # sha -> position, oldest first

    def last_commit(
        self, path: str, added: Iterable[bytes], removed: Iterable[bytes]
    ) -> tuple[str | None, str | None]:
        """The last slice commit that added one of ``added`` or removed one of ``removed``
        in ``path`` ((None, None): none did)."""
        found = [
            *(self.additions.get(path, {}).get(line) for line in added),
            *(self.removals.get(path, {}).get(line) for line in removed),
        ]
        known = [commit for commit in found if commit is not None]
        if not known:
            return None, None
        return max(known, key=lambda commit: self.order.get(commit[0], -1))

    def who_changed(self, path: str, region: Region) -> tuple[str | None, str | None]:
        """The last slice commit that added or removed one of ``region``'s lines."""
        return self.last_commit(path, region.added, region.removed)


def slice_changes(git: Git, dev_base: str, slice_tip: str, paths: Sequence[str]) -> SliceChanges:
    """For each of ``paths``, every line a slice commit removed or added, with its last commit.

    One ``git log -p -U0`` over ``dev_base..slice_tip``, oldest first, per 500
    paths. Merges show no patch (git's default): main is linear in practice,
    and a side branch's own commits are in the range with their patches.

    Measured on a Megatron-LM sync (147 slice commits, 7,633 candidate lines in
    239 files): this call takes 0.19 s and answers line by line. A pickaxe
    (``log -S``) per line would take ~49 s; one ``--pickaxe-regex -S`` with an
    alternation per file ~1.3 s, and it only says that a commit changed how
    often *some* of the lines occur, so the patch would still have to be read.
    """
    found = SliceChanges()
    history = ["log", "--topo-order", "--reverse", _COMMIT_FORMAT, f"{dev_base}..{slice_tip}"]
    for commit, path, region in _patches(git, history, paths):
        found.order.setdefault(commit[0], len(found.order))
        for line in region.removed:
            found.removals.setdefault(path, {})[line] = commit
        for line in region.added:
            found.additions.setdefault(path, {})[line] = commit
    return found


# How far back main's history is searched for lines it removed before the slice.
EARLIER_COMMITS = 300


def earlier_removals(git: Git, merge_base: str, paths: Sequence[str]) -> Removals:
    """Lines main removed from ``paths`` in its last 300 commits up to ``merge_base``.

    The merge base of dev and the slice tip is the last main commit dev holds.
    A dev line that is not there but that main's own history held and removed
    earlier is a stale copy of main's older code, not something dev wrote.
    """
    found: Removals = {}
    history = [
        "log", f"--max-count={EARLIER_COMMITS}", "--first-parent", "--topo-order", "--reverse",
        _COMMIT_FORMAT, merge_base,
    ]  # fmt: skip
    for commit, path, region in _patches(git, history, paths):
        for line in region.removed:
            found.setdefault(path, {})[line] = commit
    return found


def changed_regions(git: Git, old: str, new: str, paths: Sequence[str]) -> dict[str, list[Region]]:
    """The ``-U0`` hunks of each of ``paths`` between commits ``old`` and ``new``, in order."""
    regions: dict[str, list[Region]] = {}
    for _, path, region in _patches(git, ["diff", old, new], paths):
        regions.setdefault(path, []).append(region)
    return regions


# A patch that parses the same whatever the user's diff configuration says.
_PLAIN_PATCH = (
    "-p", "-U0", "--inter-hunk-context=0", "--no-renames", "--no-ext-diff", "--no-textconv",
    "--no-relative", "--no-color", "--src-prefix=a/", "--dst-prefix=b/",
)  # fmt: skip
# What walk_patch reads as a commit's header: NUL sha NUL subject.
_COMMIT_FORMAT = "--format=%x00%H%x00%s"


def _patches(
    git: Git, command: Sequence[str], paths: Sequence[str]
) -> Iterator[tuple[tuple[str, str], str, Region]]:
    """The hunks of ``git <command>`` (a ``log`` or a ``diff``) for ``paths``, 500 paths a call.

    ``command`` is the subcommand and its revisions; the plain ``-U0`` patch
    options are added after the subcommand, and each path is taken literally.
    """
    for start in range(0, len(paths), PATHS_PER_LOG):
        chunk = paths[start : start + PATHS_PER_LOG]
        out = git.run(
            [command[0], *_PLAIN_PATCH, *command[1:], "--", *chunk],
            env={"GIT_LITERAL_PATHSPECS": "1"},  # a path is a path, never a glob
        ).stdout
        yield from walk_patch(out)


def parse_removals(patch: bytes, removals: Removals) -> None:
    """Record the removed lines of a ``log -p`` output in ``removals``, later commits winning."""
    for commit, path, region in walk_patch(patch):
        for line in region.removed:
            removals.setdefault(path, {})[line] = commit


def walk_patch(patch: bytes) -> Iterator[tuple[tuple[str, str], str, Region]]:
    """Each hunk of a ``-U0`` patch (``log -p`` or ``diff``): its commit, path and region.

    The commit is ``(sha, subject)`` from our ``--format`` line (empty for a
    plain diff). The path is the old side's, or the new side's for an added file.
    """
    commit = _NO_COMMIT
    path: str | None = None
    header: re.Match[bytes] | None = None
    removed: list[bytes] = []
    added: list[bytes] = []
    old_left = new_left = 0  # lines still to read in the current hunk
    for line in patch.split(b"\n"):
        if old_left > 0 or new_left > 0:
            # Inside a hunk the counts say what each line is: a removed line
            # that reads "--- a/x" or "diff --git" is never taken for a header.
            kind = line[:1]
            if kind == b"-":
                old_left -= 1
                removed.append(line[1:])
            elif kind == b"+":
                new_left -= 1
                added.append(line[1:])
            elif kind in (b" ", b""):  # context; diff.suppressBlankEmpty empties blank ones
                old_left, new_left = old_left - 1, new_left - 1
            if old_left <= 0 and new_left <= 0 and header is not None and path is not None:
                yield commit, path, _region(header, removed, added)
            continue  # "\ No newline at end of file" counts for neither side
        if line.startswith(b"\0"):  # our --format: NUL sha NUL subject
            _, sha, subject = (*line.split(b"\0", 2), b"")[:3]
            commit = (sha.decode(), one_line(decode(subject)))
        elif line.startswith(b"diff --git "):
            path = None
        elif line.startswith(b"--- "):
            path = patch_path(line[4:])
        elif line.startswith(b"+++ ") and path is None:
            path = patch_path(line[4:], side=b"b/")
        elif match := _HUNK_HEADER.match(line):
            header, removed, added = match, [], []
            old_left, new_left = _count(match.group(2)), _count(match.group(4))


def _count(field: bytes | None) -> int:
    """A hunk header's line count: absent means 1."""
    return 1 if field is None else int(field)


def _region(header: re.Match[bytes], removed: list[bytes], added: list[bytes]) -> Region:
    return Region(
        old_start=int(header.group(1)),
        old_count=_count(header.group(2)),
        new_start=int(header.group(3)),
        new_count=_count(header.group(4)),
        removed=tuple(removed),
        added=tuple(added),
    )


def patch_path(name: bytes, side: bytes = b"a/") -> str | None:
    """The path of a patch's ``--- a/<path>`` (or ``+++ b/``) header; None for ``/dev/null``."""
    # git ends the name with a TAB when it contains a space (for GNU patch),
    # and C-quotes a name holding a control character, a quote or a backslash.
    name = name.removesuffix(b"\t")
    if name.startswith(b'"') and name.endswith(b'"'):
        name = _unquote_c(name[1:-1])
    if not name.startswith(side):
        return None
    return decode_path(name[len(side) :])


_C_ESCAPES = {b"a": 7, b"b": 8, b"t": 9, b"n": 10, b"v": 11, b"f": 12, b"r": 13}


def _unquote_c(quoted: bytes) -> bytes:
    """Undo git's quote_c_style: ``\\t``-style, ``\\"``, ``\\\\`` and octal ``\\ooo`` escapes."""
    out = bytearray()
    index = 0
    while index < len(quoted):
        char = quoted[index : index + 1]
        index += 1
        if char != b"\\":
            out += char
            continue
        escaped = quoted[index : index + 1]
        if escaped in _C_ESCAPES:
            out.append(_C_ESCAPES[escaped])
            index += 1
        elif escaped.isdigit():
            out.append(int(quoted[index : index + 3], 8))
            index += 3
        else:  # \" and \\
            out += escaped
            index += 1
    return bytes(out)
