"""Run ``git merge-tree --write-tree -z`` and turn its answer into conflicts, one per decision.

The ``-z`` output (``git help merge-tree``, features.md §5.1)::

    <tree>NUL
    <mode> <object> <stage>TAB<path>NUL        one per stage of each conflicted path
    NUL
    <N>NUL<path1>NUL...<pathN>NUL<type>NUL<message>NUL     one per message

Stage 1 is the merge base's version, 2 dev's (parent 1), 3 main's (parent 2).
The exit status says whether the merge is clean (0) or not (1); anything
else is an error. It is the only reliable signal: a directory-rename
conflict can leave no conflicted path at all.

One conflict is one decision for the maintainer, which is not always one
path: a rename/rename leaves the base's, dev's and main's names each with
one stage. Paths named together in one message are grouped into one
:class:`ConflictGroup`, filed under dev's name.
"""

from __future__ import annotations

from dataclasses import dataclass

from syncdesk.services.conflicts.models import ConflictType
from syncdesk.services.errors import GitCommandError
from syncdesk.services.git.runner import Git, first_line
from syncdesk.services.git.trees import GITLINK


@dataclass(frozen=True, slots=True)
class Stage:
    """One index stage merge-tree reported for a path."""

    path: str
    mode: str
    oid: str


@dataclass(frozen=True, slots=True)
class MergeMessage:
    """One informational message: the paths it is about, its stable type, its text (raw)."""

    paths: tuple[str, ...]
    type: str  # "CONFLICT (contents)", "CONFLICT (binary)", "Auto-merging", ...
    text: str


@dataclass(frozen=True, slots=True)
class MergeTreeOutput:
    """What merge-tree said, parsed."""

    clean: bool
    tree: str
    stages: dict[str, dict[int, Stage]]  # path -> stage number -> entry
    messages: tuple[MergeMessage, ...]


@dataclass(frozen=True, slots=True)
class ConflictGroup:
    """The paths and stages of one conflict, and its type."""

    path: str
    old_paths: tuple[str, ...]
    type: ConflictType
    base: Stage | None
    dev: Stage | None
    main: Stage | None
    messages: tuple[MergeMessage, ...]

    @property
    def binary_reported(self) -> bool:
        """merge-tree said it cannot merge the file's contents as text."""
        return any(message.type == "CONFLICT (binary)" for message in self.messages)

    @property
    def paths(self) -> tuple[str, ...]:
        """Every name of the conflict, its path first."""
        return (self.path, *self.old_paths)


def merge_tree(git: Git, dev_side: str, main_side: str, env: dict[str, str]) -> MergeTreeOutput:
    """Merge the two commits as the sync merge did, with zdiff3 markers (the base shown).

    The commits should be full SHAs: they become the markers' labels, which
    :mod:`syncdesk.services.conflicts.markers` relies on.
    """
    result = git.run(
        ["-c", "merge.conflictStyle=zdiff3", "merge-tree", "--write-tree", "-z", "--messages",
         dev_side, main_side],
        check=False,
        env=env,
    )  # fmt: skip
    if result.status not in (0, 1):
        raise GitCommandError(f"git merge-tree failed: {first_line(result.stderr)}")
    return parse_merge_tree(result.status, result.stdout)


def parse_merge_tree(status: int, stdout: bytes) -> MergeTreeOutput:
    """Parse ``merge-tree --write-tree -z`` output (paths decoded losslessly)."""
    fields = stdout.decode("utf-8", errors="surrogateescape").split("\0")
    stages: dict[str, dict[int, Stage]] = {}
    index = 1
    while index < len(fields) and fields[index]:
        info, _, path = fields[index].partition("\t")
        mode, oid, stage = info.split(" ")
        stages.setdefault(path, {})[int(stage)] = Stage(path, mode, oid)
        index += 1
    index += 1  # the empty field between the two sections
    messages: list[MergeMessage] = []
    while index < len(fields) and fields[index]:
        if not fields[index].isdigit():
            # Free text after the -z messages: git 2.39 prints its advice on
            # submodule conflicts ("Recursive merging with submodules ...") there.
            break
        count = int(fields[index])
        paths = tuple(fields[index + 1 : index + 1 + count])
        kind, text = fields[index + 1 + count], fields[index + 2 + count]
        messages.append(MergeMessage(paths, kind, text.rstrip("\n")))
        index += count + 3
    return MergeTreeOutput(status == 0, fields[0].strip(), stages, tuple(messages))


def group_conflicts(output: MergeTreeOutput) -> list[ConflictGroup]:
    """One group per conflict, in path order."""
    parent = {path: path for path in output.stages}

    def root(path: str) -> str:
        while parent[path] != path:
            parent[path] = parent[parent[path]]
            path = parent[path]
        return path

    for message in output.messages:
        conflicted = [path for path in message.paths if path in parent]
        for path in conflicted[1:]:
            parent[root(path)] = root(conflicted[0])
    members: dict[str, list[str]] = {}
    for path in sorted(output.stages):
        members.setdefault(root(path), []).append(path)
    groups = [_group(paths, output) for paths in members.values()]
    return sorted(groups, key=lambda group: group.path)


def _group(paths: list[str], output: MergeTreeOutput) -> ConflictGroup:
    def side(number: int) -> Stage | None:
        return next((output.stages[p][number] for p in paths if number in output.stages[p]), None)

    base, dev, main = side(1), side(2), side(3)
    primary = (dev or main or base or Stage(paths[0], "", "")).path
    messages = tuple(m for m in output.messages if any(p in paths for p in m.paths))
    named = [p for m in messages for p in m.paths]
    old_paths = tuple(dict.fromkeys(p for p in [*paths, *named] if p != primary))
    return ConflictGroup(
        path=primary,
        old_paths=old_paths,
        type=_type(base, dev, main, messages),
        base=base,
        dev=dev,
        main=main,
        messages=messages,
    )


_LOCATION_TYPES = ("directory rename", "file location", "file/directory", "distinct modes")


def _type(
    base: Stage | None, dev: Stage | None, main: Stage | None, messages: tuple[MergeMessage, ...]
) -> ConflictType:
    """Name the conflict by merge-tree's stable message types, then by its stages."""
    kinds = {message.type for message in messages}
    if any("rename/rename" in kind for kind in kinds):
        return "rename"
    if any(word in kind for kind in kinds for word in _LOCATION_TYPES):
        return "file-location"
    if any(stage is not None and stage.mode == GITLINK for stage in (base, dev, main)):
        return "submodule"  # a commit of another repository: chosen whole, never merged
    if dev is not None and main is not None:
        if "CONFLICT (binary)" in kinds:
            return "binary"
        return "content" if base is not None else "add/add"
    if base is not None and (dev is None) != (main is None):
        return "modify/delete"  # also rename/delete: the renamed side's stages
    return "file-location"  # one side's file alone: it landed somewhere the other side moved
