"""Build trees with plumbing in a temporary index; never the user's index, work tree or HEAD.

A tree is the head's tree plus edits: ``git read-tree <tree>`` into a
temporary ``GIT_INDEX_FILE``, ``git update-index --index-info`` with the new
entries (mode ``0`` removes one), ``git write-tree``. Neither command looks at
the work tree: ``read-tree`` without ``-u`` only fills the index, and
``--index-info`` takes modes and blob ids as given.

The temporary index lives in ``<common git dir>/syncdesk/tmp/`` under a name
:func:`syncdesk.services.git.atomic.temp_name` makes (``.index.syncdesk-tmp-<pid>-<hex>``),
so that a writer killed mid-way leaves a file :func:`clean_scratch` recognises
and removes at the next start, with the ``.lock`` git may have left beside it.

Objects are written durably: ``core.fsync=loose-object,reference`` makes git
fsync each new object before a ref can point at it (git's default does not),
so a power cut cannot leave the branch naming a tree that was never on disk.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path

from syncdesk.services.errors import ServiceError
from syncdesk.services.git.atomic import clean_orphans, make_directory, temp_name
from syncdesk.services.git.runner import Git
from syncdesk.services.git.storage import storage_dir

SCRATCH_DIRECTORY = "tmp"
ZERO_OID = "0" * 40
FILE_MODES = frozenset({"100644", "100755", "120000"})
GITLINK = "160000"  # a tree entry naming a commit of another repository: a submodule

# A temporary index must be a plain, whole index: a split index would leave
# sharedindex files in the git dir, and sparse settings could drop entries.
_PLAIN_INDEX = (
    "-c", "core.splitIndex=false",
    "-c", "index.sparse=false",
    "-c", "core.sparseCheckout=false",
)  # fmt: skip


def durable_env() -> dict[str, str]:
    """Environment making git fsync new objects and refs (``core.fsync``), for any command.

    Given as environment so that it also reaches commands run through other
    services (``merge-tree``); appended to any ``GIT_CONFIG_COUNT`` settings
    the user's environment already carries, never replacing them.
    """
    try:
        count = int(os.environ.get("GIT_CONFIG_COUNT") or 0)
    except ValueError:
        count = 0  # git refuses such an environment itself, with its own message
    return {
        "GIT_CONFIG_COUNT": str(count + 1),
        f"GIT_CONFIG_KEY_{count}": "core.fsync",
        f"GIT_CONFIG_VALUE_{count}": "loose-object,reference",
    }


@dataclass(frozen=True, slots=True)
class Entry:
    """One file of a tree: its mode and object id."""

    mode: str
    oid: str


def scratch_dir(git: Git) -> Path:
    """Where temporary index files go (created on demand)."""
    return storage_dir(git) / SCRATCH_DIRECTORY


def clean_scratch(git: Git) -> list[Path]:
    """Remove what killed writers left in :func:`scratch_dir`; return what was removed.

    Only syncdesk's own temporary files whose process is gone (and git's
    ``.lock`` files beside them) are touched.
    """
    return clean_orphans(scratch_dir(git))


@contextmanager
def temp_index(git: Git, env: Mapping[str, str] | None = None) -> Iterator[dict[str, str]]:
    """``env`` plus a ``GIT_INDEX_FILE`` naming a fresh temporary index, removed afterwards."""
    directory = scratch_dir(git)
    make_directory(directory)
    index = directory / temp_name("index")
    try:
        yield {**durable_env(), **(env or {}), "GIT_INDEX_FILE": str(index)}
    finally:
        for leftover in (index, index.with_name(index.name + ".lock")):
            with suppress(OSError):
                leftover.unlink(missing_ok=True)


def build_tree(
    git: Git,
    base: str,
    edits: Mapping[str, Entry | None],
    env: Mapping[str, str] | None = None,
) -> str:
    """The tree ``base`` (any tree-ish) with ``edits`` applied: an entry sets, None removes.

    ``env`` selects another object store (a scratch one); by default the tree
    and the objects it names are written to the repository's own.
    """
    if not edits:
        return tree_of(git, base, env)
    for path in edits:
        check_path(path)
    # Removals first: a file replaced by a directory (or the reverse) must go
    # before its successor is added, or update-index refuses the pair.
    ordered = sorted(edits.items(), key=lambda item: (item[1] is not None, item[0]))
    records = b"".join(
        (f"0 {ZERO_OID}" if entry is None else f"{entry.mode} {entry.oid}").encode()
        + b"\t"
        + path.encode("utf-8", "surrogateescape")
        + b"\0"
        for path, entry in ordered
    )
    with temp_index(git, env) as index_env:
        git.run([*_PLAIN_INDEX, "read-tree", tree_of(git, base, env)], env=index_env)
        git.run([*_PLAIN_INDEX, "update-index", "-z", "--index-info"], input=records, env=index_env)
        return git.run([*_PLAIN_INDEX, "write-tree"], env=index_env).text.strip()


def tree_of(git: Git, treeish: str, env: Mapping[str, str] | None = None) -> str:
    """The full id of the tree ``treeish`` names."""
    args = ["rev-parse", "--verify", "--end-of-options", f"{treeish}^{{tree}}"]
    return git.run(args, env=dict(env or {})).text.strip()


def entries_at(git: Git, tree: str, paths: Iterable[str]) -> dict[str, Entry | None]:
    """The entry of each of ``paths`` in ``tree`` (None: no such file), with one ``ls-tree``."""
    wanted = list(dict.fromkeys(paths))
    found: dict[str, Entry | None] = dict.fromkeys(wanted)
    if not wanted:
        return found
    # Literal pathspecs: a path holding '*' or '[' is a name, not a pattern.
    out = git.run(
        ["ls-tree", "-r", "-z", "--full-tree", tree, "--", *wanted],
        env={"GIT_LITERAL_PATHSPECS": "1"},
    ).stdout
    for record in out.split(b"\0"):
        if not record:
            continue
        info, _, raw_path = record.partition(b"\t")
        mode, _kind, oid = info.decode().split(" ")
        path = raw_path.decode("utf-8", "surrogateescape")
        if path in found:
            found[path] = Entry(mode, oid)
    return found


def changed_paths(
    git: Git, old: str, new: str, env: Mapping[str, str] | None = None
) -> dict[str, tuple[Entry | None, Entry | None]]:
    """Every file that differs between trees ``old`` and ``new``: (old entry, new entry)."""
    out = git.run(["diff-tree", "-r", "-z", "--no-renames", old, new], env=dict(env or {})).stdout
    fields = out.split(b"\0")
    changed: dict[str, tuple[Entry | None, Entry | None]] = {}
    for index in range(0, len(fields) - 1, 2):
        header = fields[index].decode().lstrip(":").split(" ")
        if len(header) < 5:
            continue
        path = fields[index + 1].decode("utf-8", "surrogateescape")
        before = None if header[2] == ZERO_OID else Entry(header[0], header[2])
        after = None if header[3] == ZERO_OID else Entry(header[1], header[3])
        changed[path] = (before, after)
    return changed


def check_path(path: str) -> None:
    """Refuse a path git would refuse, or that leaves the repository."""
    parts = path.split("/")
    if (
        not path
        or "\0" in path
        or path.startswith("/")
        or any(part in ("", ".", "..") for part in parts)
        or any(part.lower() == ".git" for part in parts)
    ):
        raise ServiceError(f"not a path inside the repository: {path!r}")
