"""Is the new repair's patch the previous one's? ``git patch-id --stable``, whole and per file.

``git patch-id`` hashes a diff with whitespace and line numbers ignored, so
the same change re-applied on a moved base has the same id (that is how a
rebuilt sync shows "its patch is identical to the previous repair"). When the
ids differ, the same comparison per file names the files whose change
differs: each file's part of the diff is fed to one ``patch-id`` run as a
patch of its own, behind a made-up ``commit <n>`` line that numbers it.
"""

from __future__ import annotations

from dataclasses import dataclass

from syncdesk.services.git.runner import Git
from syncdesk.services.sanitize import visible

_DIFF = ["diff-tree", "-p", "-r", "--no-renames", "--full-index", "--binary",
         "--no-ext-diff", "--no-textconv", "--no-color"]  # fmt: skip
_LISTED = 6  # files named in a note before "and N more"


@dataclass(frozen=True, slots=True)
class PatchComparison:
    """The verdict and its one-line account."""

    same: bool | None  # None: there was no previous patch to compare with
    note: str


def compare_patches(
    git: Git, previous: tuple[str, str] | None, new: tuple[str, str]
) -> PatchComparison:
    """Compare the diff ``previous = (base, head)`` with ``new``; both are commits or trees."""
    new_files = _per_file(git, *new)
    if previous is None:
        what = f"{len(new_files)} file(s)" if new_files else "no change"
        return PatchComparison(None, f"no previous repair to compare with; the repair holds {what}")
    old_files = _per_file(git, *previous)
    if not old_files and not new_files:
        return PatchComparison(True, "patch identical to the previous repair (both empty)")
    if old_files == new_files:
        return PatchComparison(True, "patch identical to the previous repair")
    every = old_files.keys() | new_files.keys()
    differing = sorted(p for p in every if old_files.get(p) != new_files.get(p))
    named = ", ".join(visible(path) for path in differing[:_LISTED])
    more = f" and {len(differing) - _LISTED} more" if len(differing) > _LISTED else ""
    return PatchComparison(
        False, f"patch differs from the previous repair in {len(differing)} file(s): {named}{more}"
    )


def _per_file(git: Git, base: str, head: str) -> dict[str, str]:
    """Each changed file's patch id (or, for a change with no lines, its header)."""
    diff = git.run([*_DIFF, base, head]).stdout
    names = [
        name.decode("utf-8", "surrogateescape")
        for name in git.run(
            ["diff-tree", "-r", "-z", "--no-renames", "--name-only", base, head]
        ).stdout.split(b"\0")
        if name
    ]
    chunks = _split(diff)
    if len(chunks) != len(names):  # never expected: fall back to the chunks' own text
        names = [f"#{n}" for n in range(len(chunks))]
    numbered = b"".join(b"commit %040x\n" % (n + 1) + chunk for n, chunk in enumerate(chunks))
    ids: dict[int, str] = {}
    if numbered:
        for line in git.run(["patch-id", "--stable"], input=numbered).text.splitlines():
            pid, _, number = line.partition(" ")
            ids[int(number, 16) - 1] = pid
    return {name: ids.get(n) or _header(chunks[n]) for n, name in enumerate(names)}


def _split(diff: bytes) -> list[bytes]:
    """The diff cut into one chunk per file (each starts with ``diff --git``)."""
    starts = [0] if diff.startswith(b"diff --git ") else []
    position = diff.find(b"\ndiff --git ")
    while position != -1:
        starts.append(position + 1)
        position = diff.find(b"\ndiff --git ", position + 1)
    ends = [*starts[1:], len(diff)] if starts else []
    return [diff[start:end] for start, end in zip(starts, ends, strict=True)]


def _header(chunk: bytes) -> str:
    # A mode change or an empty file has no lines for patch-id: its header
    # (without the blob ids of the "index" line) says what the change is.
    kept = [line for line in chunk.splitlines() if not line.startswith(b"index ")]
    return b"\n".join(kept).decode("utf-8", "replace")
