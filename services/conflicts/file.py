"""Build one :class:`ConflictFile` from merge-tree's group and the objects read for it.

In two steps, because the head's versions to read depend on the markers: a
file that one side renamed carries the other side's name only in the
markers' labels (``>>>>>>> <sha>:old/name.py``), and the head may have kept
that name. :func:`draft` reads the stages and the result and parses the
markers; :func:`finish` pairs the draft with the head's versions.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from syncdesk.services.conflicts.hunks import SideFiles, SideHunk, side_hunks
from syncdesk.services.conflicts.markers import ParsedFile, StageLines, parse_markers
from syncdesk.services.conflicts.merge_tree import ConflictGroup, Stage
from syncdesk.services.conflicts.models import (
    Common,
    ConflictFile,
    Hunk,
    Resolution,
    Segment,
    file_key,
)
from syncdesk.services.conflicts.resolution import (
    HeadHunk,
    hunks_reading,
    read_head,
    whole_file_reading,
)
from syncdesk.services.git.objects import GitObject, withheld
from syncdesk.services.git.trees import GITLINK
from syncdesk.services.lines import decode_text, split_lines
from syncdesk.services.sanitize import one_line

Objects = dict[str, GitObject | None]
_BINARY_PROBE = 8000  # git's buffer_is_binary(): a NUL in the first 8000 bytes
_SIDES = ("base", "dev", "main")


@dataclass(frozen=True, slots=True)
class Draft:
    """A conflict with its stages and merge-tree's result read, the head not yet."""

    group: ConflictGroup
    texts: dict[str, list[str] | None]  # "base"/"dev"/"main" -> the stage file's lines
    result: GitObject | None
    parsed: ParsedFile | None  # None: whole-file only
    binary: bool
    decodable: bool
    paths: tuple[str, ...]  # every name the file had: its path first (the head may keep any)
    too_large: int  # the largest version's size when one is over the limit (0: none is)

    def side_path(self, side: str) -> str | None:
        """Where a side's commit holds the file (the markers' label names it when renamed)."""
        stage: Stage | None = getattr(self.group, side)
        if stage is None:
            return None
        labelled = getattr(self.parsed, f"{side}_path") if self.parsed else None
        return labelled if labelled is not None else stage.path


def result_name(tree: str, group: ConflictGroup) -> str | None:
    """The object name of merge-tree's version of a file that can hold markers."""
    return f"{tree}:{group.path}" if group.type in ("content", "add/add") else None


def stages(group: ConflictGroup) -> list[Stage]:
    """The group's stages that exist (base, dev, main order)."""
    return [stage for stage in (group.base, group.dev, group.main) if stage is not None]


def _blob(objects: Objects, name: str | None, *, gitlink: bool = False) -> GitObject | None:
    """The named blob (with ``gitlink``: or submodule commit id, see read.py's head entries)."""
    found = objects.get(name) if name is not None else None
    kinds = ("blob", "commit") if gitlink else ("blob",)
    return found if found is not None and found.type in kinds else None


def _is_binary(found: GitObject | None) -> bool:
    return (
        found is not None and found.content is not None and b"\0" in found.content[:_BINARY_PROBE]
    )


def _too_large(blobs: Iterable[GitObject | None], limit: int | None) -> int:
    """The size of the largest of ``blobs`` read without content for being over ``limit``."""
    return max((b.size for b in blobs if b is not None and withheld(b, limit)), default=0)


def draft(
    group: ConflictGroup,
    objects: Objects,
    tree: str,
    dev: str,
    main: str,
    limit: int | None = None,
) -> Draft:
    """Read the stage files and merge-tree's result, and parse the markers.

    A file with a version over ``limit`` bytes was read without contents: it
    has no lines and no markers, so it is resolved whole, like a binary one.
    """
    found: dict[str, GitObject | None] = {}
    for side in _SIDES:
        stage: Stage | None = getattr(group, side)
        found[side] = _blob(objects, stage.oid) if stage is not None else None
    result = _blob(objects, result_name(tree, group))
    too_large = _too_large((*found.values(), result), limit)
    binary = (
        group.type == "binary"
        or group.binary_reported
        or any(stage.mode == GITLINK for stage in stages(group))
        or any(_is_binary(o) for o in (*found.values(), result))
    )
    texts: dict[str, list[str] | None] = {}
    decodable = not binary
    for side, blob in found.items():
        texts[side] = None
        if blob is not None and blob.content is not None and not binary:
            text, ok = decode_text(blob.content)
            texts[side], decodable = split_lines(text), decodable and ok
    parsed = None
    if not binary and result is not None and result.content is not None:
        text, ok = decode_text(result.content)
        decodable = decodable and ok
        known = StageLines(
            dev=texts["dev"] or (), base=texts["base"] or (), main=texts["main"] or ()
        )
        parsed = parse_markers(text, dev, main, known)
        if not parsed.hunks:  # no markers (a merge=binary attribute, a symlink): whole file
            parsed = None
    labelled = (parsed.dev_path, parsed.main_path, parsed.base_path) if parsed else ()
    paths = tuple(dict.fromkeys([*group.paths, *(p for p in labelled if p is not None)]))
    return Draft(group, texts, result, parsed, binary, decodable, paths, too_large)


def head_names(draft: Draft, head: str) -> list[str]:
    """The head's versions to read: every name the file had."""
    return [f"{head}:{path}" for path in draft.paths]


def finish(
    draft: Draft,
    objects: Objects,
    head: str | None,
    limit: int | None = None,
    canon: dict[str, str] | None = None,
) -> ConflictFile:
    """Pair the draft with the head's version and classify the resolution.

    With ``canon`` (one dict for every file of a read), equal lines of the
    file's versions are kept as one object: the result, the head and the
    sides hold mostly the same lines (a third of the memory on a real sync).
    """
    group = draft.group
    gitlink = group.type == "submodule"
    at_head = {
        path: _blob(objects, f"{head}:{path}", gitlink=gitlink) if head else None
        for path in draft.paths
    }
    head_path = next((path for path, blob in at_head.items() if blob is not None), None)
    head_blob = at_head[head_path] if head_path is not None else None
    binary = draft.binary or _is_binary(head_blob)
    too_large = max(draft.too_large, _too_large([head_blob], limit))
    decodable = draft.decodable and not binary
    head_lines = None
    if head_blob is not None and head_blob.content is not None and not binary:
        text, ok = decode_text(head_blob.content)
        head_lines, decodable = split_lines(text), decodable and ok
    segments = None
    if draft.parsed is not None and not too_large:
        absent: Resolution = (
            "unresolved" if head is None else "deleted" if not head_blob else "custom"
        )
        segments = _segments(draft, head_lines, absent)
    whole = whole_file_reading(
        group, head, {path: blob.oid if blob else None for path, blob in at_head.items()}
    )
    if whole is None and segments is not None:
        resolution = hunks_reading(segments, "".join(head_lines) if head_lines else None)
    else:
        resolution = whole or "custom"
    if canon is not None:
        segments = _shared_segments(segments, canon)
        head_lines = _shared(head_lines, canon) if head_lines is not None else None
    hunk_keys = [segment.key for segment in segments or () if isinstance(segment, Hunk)]
    dev_blob, main_blob = (stage.oid if stage else None for stage in (group.dev, group.main))
    return ConflictFile(
        path=group.path,
        old_paths=draft.paths[1:],
        type=group.type,
        base_path=draft.side_path("base"),
        dev_path=draft.side_path("dev"),
        main_path=draft.side_path("main"),
        base_blob=group.base.oid if group.base else None,
        dev_blob=dev_blob,
        main_blob=main_blob,
        result_blob=draft.result.oid if draft.result else None,
        head_path=head_path,
        head_blob=head_blob.oid if head_blob else None,
        mode=(group.dev or group.main or group.base or Stage("", "100644", "")).mode,
        binary=binary,
        decodable=decodable,
        messages=tuple(one_line(m.text) for m in group.messages if m.type != "Auto-merging"),
        segments=segments,
        head_lines=tuple(head_lines) if head_lines is not None else None,
        resolution=resolution,
        file_key=file_key(group.type, hunk_keys, dev_blob, main_blob),
        too_large=too_large,
    )


def _shared(lines: Sequence[str], canon: dict[str, str]) -> list[str]:
    shared = canon.setdefault
    return [shared(line, line) for line in lines]


def _shared_segments(
    segments: tuple[Segment, ...] | None, canon: dict[str, str]
) -> tuple[Segment, ...] | None:
    if segments is None:
        return None
    found: list[Segment] = []
    for segment in segments:
        if isinstance(segment, Common):
            found.append(Common(tuple(_shared(segment.lines, canon))))
            continue
        found.append(
            replace(
                segment,
                dev=tuple(_shared(segment.dev, canon)),
                base=tuple(_shared(segment.base, canon)),
                main=tuple(_shared(segment.main, canon)),
                conflict=tuple(_shared(segment.conflict, canon)),
                head=None if segment.head is None else tuple(_shared(segment.head, canon)),
            )
        )
    return tuple(found)


def _segments(
    draft: Draft, head_lines: list[str] | None, absent: Resolution
) -> tuple[Segment, ...]:
    parsed, texts = draft.parsed, draft.texts
    assert parsed is not None
    sides = side_hunks(parsed, SideFiles(texts["dev"], texts["base"], texts["main"]))
    if head_lines is not None:
        readings = _as_the_side_file(read_head(parsed, sides, head_lines), sides, head_lines, texts)
    else:  # no head yet, deleted at the head, or binary there
        readings = [HeadHunk(None, None, absent, False) for _ in sides]
    segments: list[Segment] = []
    for index, (side, reading) in enumerate(zip(sides, readings, strict=True)):
        if parsed.commons[index]:
            segments.append(Common(parsed.commons[index]))
        segments.append(_hunk(index, side, reading))
    if parsed.commons[-1]:
        segments.append(Common(parsed.commons[-1]))
    return tuple(segments)


def _as_the_side_file(
    readings: list[HeadHunk],
    sides: Sequence[SideHunk],
    head: Sequence[str],
    texts: dict[str, list[str] | None],
) -> list[HeadHunk]:
    """A head that is exactly dev's (or main's) file holds that side's lines in every hunk.

    The alignment reads such a hunk as custom when main moved a common line
    across it (an import from above the hunk to below): the line anchors on the
    wrong side and the hole slides off the side's lines. Such a hunk is read
    as the side, where the side's lines are (with its context changed, which
    it was).
    """
    for name in ("dev", "main"):
        if texts[name] != head:
            continue
        fixed = []
        for reading, side in zip(readings, sides, strict=True):
            lines, start = (
                (side.dev, side.dev_start) if name == "dev" else (side.main, side.main_start)
            )
            held = tuple(head[start - 1 : start - 1 + len(lines)]) == lines if start > 0 else False
            if reading.resolution == "custom" and lines and held:
                reading = HeadHunk(lines, start, name, True)
            fixed.append(reading)
        return fixed
    return readings


def _hunk(index: int, side: SideHunk, reading: HeadHunk) -> Hunk:
    return Hunk(
        index=index,
        dev=side.dev,
        base=side.base,
        main=side.main,
        dev_start=side.dev_start,
        base_start=side.base_start,
        main_start=side.main_start,
        conflict=side.conflict,
        key=side.key,
        head=reading.lines,
        head_start=reading.start,
        resolution=reading.resolution,
        context_changed=reading.context_changed,
    )
