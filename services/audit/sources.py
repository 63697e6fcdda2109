"""Where the preservation audit's lines come from: four git processes in all.

- two ``diff-tree --raw`` (dev base -> head, dev base -> slice tip) name every
  blob involved, so no ``<rev>:<path>`` lookup is needed;
- one ``cat-file --batch`` reads every blob at once (the hook runs three
  ``git show`` per touched file);
- one ``log -p -U0`` over the slice, limited to the files still unexplained
  after the in-process checks, says which slice commit removed which line.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from syncdesk.services.audit.lines import raw_lines
from syncdesk.services.git.objects import read_contents
from syncdesk.services.git.runner import Git
from syncdesk.services.sanitize import decode, decode_path, one_line

GITLINK_MODE = b"160000"
# Paths per ``git log`` call: keeps the command line far below ARG_MAX.
PATHS_PER_LOG = 500
_HUNK_HEADER = re.compile(rb"^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@")


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
    _lines: dict[str, list[bytes]] = field(default_factory=dict)

    def lines(self, sha: str | None) -> list[bytes]:
        """A blob's lines (split once, then cached); none for an absent file."""
        if sha is None:
            return []
        if sha not in self._lines:
            self._lines[sha] = raw_lines(self.blobs.get(sha, b""))
        return self._lines[sha]

    def main_side(self, path: str) -> str | None:
        """The blob of a changed ``path`` at the slice tip (unlisted: main kept dev's)."""
        if path in self.on_main:
            return self.on_main[path].after
        change = self.changed.get(path)
        return change.before if change is not None else None


def read_snapshot(git: Git, dev_base: str, slice_tip: str, head: str) -> Snapshot:
    """Name and read every blob the audit of ``head`` needs, with three git processes.

    *Touched* (the hook's word) is: differs between the dev base and the head
    with renames off, and exists at the dev base (status M, T or D). A touched
    path that main left as it was on dev holds every dev line, so nothing can
    be "on dev and absent from main" there: only the others are read.

    One difference with the hook, on purpose: when a touched path is a
    directory on main or at the head, the hook's ``git show`` prints the
    tree's listing and compares those names as lines; here it has no lines.
    """
    changed = _changes(git, dev_base, head)
    on_main = _changes(git, dev_base, slice_tip)
    checked = [change for change in changed.values() if change.before is not None]
    touched = [
        Touched(change.path, change.before, on_main[change.path].after, change.after)
        for change in checked
        if change.before is not None and change.path in on_main
    ]
    wanted = [sha for t in touched for sha in (t.dev, t.main, t.result)]
    # The three sides of every changed file serve the "moved" test.
    wanted += [sha for c in changed.values() for sha in (c.before, c.after)]
    wanted += [on_main[path].after for path in changed if path in on_main]
    blobs = read_blobs(git, (sha for sha in wanted if sha is not None))
    return Snapshot(touched, len(checked), changed, on_main, blobs)


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


def slice_removals(git: Git, dev_base: str, slice_tip: str, paths: Sequence[str]) -> Removals:
    """For each of ``paths``, every line a slice commit removed, with the last commit to do so.

    One ``git log -p -U0`` over ``dev_base..slice_tip``, oldest first, per 500
    paths. Merges show no patch (git's default): main is linear in practice,
    and a side branch's own commits are in the range with their patches.

    Measured on a Megatron-LM sync (147 slice commits, 7,633 candidate lines in
    239 files): this call takes 0.19 s and answers line by line. A pickaxe
    (``log -S``) per line would take ~49 s; one ``--pickaxe-regex -S`` with an
    alternation per file ~1.3 s, and it only says that a commit changed how
    often *some* of the lines occur, so the patch would still have to be read.
    """
    removals: Removals = {}
    for start in range(0, len(paths), PATHS_PER_LOG):
        chunk = paths[start : start + PATHS_PER_LOG]
        out = git.run(
            [
                "log", "-p", "-U0", "--inter-hunk-context=0", "--no-renames",
                # The user's diff configuration must not change the patch we parse.
                "--no-ext-diff", "--no-textconv", "--no-relative", "--no-color",
                "--src-prefix=a/", "--dst-prefix=b/",
                "--topo-order", "--reverse", "--format=%x00%H%x00%s",
                f"{dev_base}..{slice_tip}", "--", *chunk,
            ],
            env={"GIT_LITERAL_PATHSPECS": "1"},  # a path is a path, never a glob
        ).stdout  # fmt: skip
        parse_removals(out, removals)
    return removals


def parse_removals(patch: bytes, removals: Removals) -> None:
    """Record the removed lines of a ``log -p`` output in ``removals``, later commits winning."""
    commit = ("", "")
    path: str | None = None
    old_left = new_left = 0  # lines still to read in the current hunk
    for line in patch.split(b"\n"):
        if old_left > 0 or new_left > 0:
            # Inside a hunk the counts say what each line is: a removed line
            # that reads "--- a/x" or "diff --git" is never taken for a header.
            kind = line[:1]
            if kind == b"-":
                old_left -= 1
                if path is not None:
                    removals.setdefault(path, {})[line[1:]] = commit
            elif kind == b"+":
                new_left -= 1
            elif kind in (b" ", b""):  # context; diff.suppressBlankEmpty empties blank ones
                old_left, new_left = old_left - 1, new_left - 1
            continue  # "\ No newline at end of file" counts for neither side
        if line.startswith(b"\0"):  # our --format: NUL sha NUL subject
            _, sha, subject = (*line.split(b"\0", 2), b"")[:3]
            commit = (sha.decode(), one_line(decode(subject)))
        elif line.startswith(b"diff --git "):
            path = None
        elif line.startswith(b"--- "):
            path = patch_path(line[4:])
        elif match := _HUNK_HEADER.match(line):
            old_left = int(match.group(1) or 1)
            new_left = int(match.group(2) or 1)


def patch_path(name: bytes) -> str | None:
    """The path of a patch's ``--- a/<path>`` header; None for ``/dev/null``."""
    # git ends the name with a TAB when it contains a space (for GNU patch),
    # and C-quotes a name holding a control character, a quote or a backslash.
    name = name.removesuffix(b"\t")
    if name.startswith(b'"') and name.endswith(b'"'):
        name = _unquote_c(name[1:-1])
    if not name.startswith(b"a/"):
        return None
    return decode_path(name[2:])


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
