"""What the 3-way view shows for a text file that can only be resolved whole (modify/delete).

git reports such a conflict without markers, so it has no hunks, and the view
had nothing to draw: three empty panes, main's version invisible until the
maintainer had already chosen. Here the whole file is one display-only hunk:
each side's file as it is (nothing where that side deleted it: see
:func:`absent_sides`), the base's, and the result as it stands now (the
maintainer's whole-file choice, else the policy's side, else the head's
file). Nothing here is saved or written: the hunk exists only
to be drawn, so its key is empty and no decision can name it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

from syncdesk.services.conflicts.models import ConflictFile, Hunk
from syncdesk.services.decisions.models import Action, Decisions
from syncdesk.services.workspace.layout import whole_file_action


def shown_blobs(conflict: ConflictFile) -> set[str]:
    """The blobs :func:`whole_file_view` needs read for ``conflict`` (none if it shows nothing)."""
    if not _drawable(conflict):
        return set()
    sides = (conflict.dev_blob, conflict.main_blob, conflict.head_blob, conflict.base_blob)
    return {blob for blob in sides if blob}


def absent_sides(conflict: ConflictFile) -> tuple[str, ...]:
    """The sides (``dev``, ``base``, ``main``) with no version of the file.

    The side that deleted a modify/delete file; add/add's base, which never had one.
    """
    sides = (("dev", conflict.dev_blob), ("base", conflict.base_blob), ("main", conflict.main_blob))
    return tuple(side for side, blob in sides if blob is None)


def whole_file_view(
    conflict: ConflictFile,
    decisions: Decisions,
    texts: Mapping[str, Sequence[str]],
    policy: str | None = None,
) -> tuple[ConflictFile, list[tuple[str, ...]]] | None:
    """``conflict`` as one hunk of whole files, and the result's lines, for the view.

    None when the file is not a text file resolved whole, or a text it needs
    was not read (see :func:`shown_blobs`).
    """
    if not _drawable(conflict):
        return None
    dev, main = _lines(conflict.dev_blob, texts), _lines(conflict.main_blob, texts)
    result = _result(conflict, decisions, texts, policy)
    if dev is None or main is None or result is None:
        return None
    base = _lines(conflict.base_blob, texts) or ()  # shown on demand: not read, not shown
    hunk = Hunk(
        index=0,
        dev=dev,
        base=base,
        main=main,
        dev_start=1,
        base_start=1 if base else 0,
        main_start=1,
        conflict=(),
        key="",  # drawn only: never a decision's key
        head=result,
        head_start=1,
        resolution=conflict.resolution,
        context_changed=False,
    )
    return replace(conflict, segments=(hunk,)), [result]


def _drawable(conflict: ConflictFile) -> bool:
    return (
        conflict.segments is None
        and not conflict.binary
        and conflict.decodable
        and conflict.type != "submodule"
        and not conflict.too_large  # never read whole: see ConflictFile.too_large
    )


def _lines(blob: str | None, texts: Mapping[str, Sequence[str]]) -> tuple[str, ...] | None:
    """A side's lines: () where it has no file, None where its text was not read."""
    if blob is None:
        return ()
    found = texts.get(blob)
    return None if found is None else tuple(found)


def _result(
    conflict: ConflictFile,
    decisions: Decisions,
    texts: Mapping[str, Sequence[str]],
    policy: str | None,
) -> tuple[str, ...] | None:
    whole = decisions.whole_file
    if whole is not None:
        return () if whole.action is Action.DELETED else _lines(whole.blob, texts)
    side = whole_file_action(decisions, policy)
    if side is Action.DEV:
        return _lines(conflict.dev_blob, texts)
    if side is Action.MAIN:
        return _lines(conflict.main_blob, texts)
    return _lines(conflict.head_blob, texts)
