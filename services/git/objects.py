"""Read many objects with one git process, and merge without leaving objects behind.

``git cat-file --batch-command`` (git 2.36) answers ``contents <object>`` with
the object and ``info <object>`` with its id, type and size only, in one
process for any number of objects: 150 conflicted files cost one process,
not 600. Object names are sent one per line, so a ``<tree>:<path>`` name whose
path holds a newline cannot be asked for: it reads as missing.

:func:`scratch_objects` gives an environment in which git writes new objects
(``merge-tree --write-tree`` writes every merged blob and tree) to a temporary
directory, with the repository's own object store as an alternate: git reads
everything, and the repository is left exactly as it was.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

from syncdesk.services.errors import GitCommandError
from syncdesk.services.git.runner import Git, alternate_entry


@dataclass(frozen=True, slots=True)
class GitObject:
    """An object git found: its id, type, size, and content when asked for."""

    oid: str
    type: str
    size: int
    content: bytes | None


@contextmanager
def scratch_objects(git: Git) -> Iterator[dict[str, str]]:
    """An environment (for ``Git.run(env=...)``) writing new objects to a throwaway store."""
    objects = git.object_store()
    with tempfile.TemporaryDirectory(prefix="syncdesk-objects-") as scratch:
        yield {
            "GIT_OBJECT_DIRECTORY": scratch,
            "GIT_ALTERNATE_OBJECT_DIRECTORIES": alternate_entry(objects),
        }


def read_objects(
    git: Git,
    contents: Sequence[str],
    infos: Sequence[str] = (),
    env: dict[str, str] | None = None,
    *,
    limit: int | None = None,
) -> dict[str, GitObject | None]:
    """Each named object (``contents`` with its bytes, ``infos`` without); None if missing.

    Names are anything ``git rev-parse`` takes (an object id, ``<commit>:<path>``).
    With ``limit``, an object larger than ``limit`` bytes comes without its
    content (see :func:`withheld`): its size is asked first, with one more
    ``cat-file`` process, so a huge blob is never read into memory.
    """
    if limit is not None and contents:
        sizes = read_objects(git, (), contents, env)
        oversized = {name for name, found in sizes.items() if found and found.size > limit}
        contents = [name for name in contents if name not in oversized]
        infos = [*infos, *oversized]
    requests = [("contents", name) for name in dict.fromkeys(contents)]
    requests += [("info", name) for name in dict.fromkeys(infos) if name not in contents]
    # cat-file reads one name a line: a path holding a newline is looked up in its
    # tree first (ls-tree -z) and asked for by object id.
    by_id = _ids_of_newline_paths(git, [name for _, name in requests if "\n" in name], env)
    answers: dict[str, GitObject | None] = {
        name: None for _, name in requests if ("\n" in name and name not in by_id) or not name
    }
    asked = [(command, name) for command, name in requests if name not in answers]
    if not asked:
        return answers
    stdin = "".join(f"{command} {by_id.get(name, name)}\n" for command, name in asked).encode(
        "utf-8", errors="surrogateescape"
    )
    out = git.run(["cat-file", "--batch-command"], input=stdin, env=env).stdout
    offset = 0
    for command, name in asked:
        newline = out.index(b"\n", offset)
        header = out[offset:newline].split(b" ")
        offset = newline + 1
        if len(header) != 3 or header[-1] in (b"missing", b"ambiguous"):
            answers[name] = None
            continue
        oid, kind, size = header[0].decode(), header[1].decode(), int(header[2])
        content = None
        if command == "contents":
            content = out[offset : offset + size]
            if out[offset + size : offset + size + 1] != b"\n":
                raise GitCommandError("git cat-file --batch-command: output out of step")
            offset += size + 1
        answers[name] = GitObject(oid, kind, size, content)
    return answers


def _ids_of_newline_paths(
    git: Git, names: Sequence[str], env: dict[str, str] | None
) -> dict[str, str]:
    """The object id of each ``<rev>:<path>`` name whose path holds a newline, if it exists."""
    found: dict[str, str] = {}
    for name in names:
        rev, colon, path = name.partition(":")
        if not colon or "\n" in rev:
            continue
        listed = git.run(
            ["--literal-pathspecs", "ls-tree", "-z", "--full-tree", rev, "--", path],
            check=False, env=env,
        ).stdout  # fmt: skip
        for entry in listed.split(b"\0"):
            meta, tab, listed_path = entry.partition(b"\t")
            if tab and listed_path == path.encode("utf-8", "surrogateescape"):
                found[name] = meta.split(b" ")[2].decode()
    return found


def withheld(found: GitObject | None, limit: int | None) -> bool:
    """Whether ``found`` came without its content because it is over ``limit`` bytes."""
    return found is not None and limit is not None and found.size > limit


def read_contents(
    git: Git, names: Iterable[str], kind: str | None = None, *, limit: int | None = None
) -> dict[str, bytes]:
    """The content of each named object that exists (of type ``kind`` if given), by name.

    Objects are printed as stored: no textconv, no smudge filter, the bytes
    ``git show <rev>:<path>`` prints for a blob. With ``limit``, an object
    over ``limit`` bytes is left out, as a missing one is: ask for sizes
    first (:func:`read_objects` with ``infos``) where the difference matters.
    """
    found = read_objects(git, list(dict.fromkeys(names)), limit=limit)
    return {
        name: item.content
        for name, item in found.items()
        if item is not None and item.content is not None and (kind is None or item.type == kind)
    }
