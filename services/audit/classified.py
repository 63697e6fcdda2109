"""The triage's working record: a lost line placed on its dev line, and the findings so far.

Every rule of the triage (the numbered list in
:mod:`~syncdesk.services.audit.lost_lines`) takes :class:`PlacedLine` items it may
explain and writes what it decides into one :class:`Classified`. A later rule may
decide again about a line an earlier one classified (a comment whose code is an
accident, a stale copy of main's older code): :meth:`Classified.reclassify` says so
where it happens, instead of overwriting a list entry by its index.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace

from syncdesk.services.audit.model import Classification, LostLine
from syncdesk.services.sanitize import decode, visible


@dataclass(frozen=True, slots=True)
class PlacedLine:
    """A non-trivial raw finding placed on its dev line, not yet classified."""

    path: str
    line: int  # 1-based, in the dev file
    raw: bytes


def finding(
    item: PlacedLine,
    kind: Classification,
    *,
    commit: str | None = None,
    subject: str | None = None,
    other_path: str | None = None,
    evidence_line: int | None = None,
    detail: str | None = None,
) -> LostLine:
    """``item`` classified as ``kind``, with that class's evidence."""
    text = visible(decode(item.raw).rstrip())
    return LostLine(
        item.path, item.line, text, item.raw, kind, commit, subject, other_path, evidence_line,
        detail,
    )  # fmt: skip


class Classified:
    """The findings so far, in the order the rules classified them, each by its place.

    A place (path, dev line) holds one lost line: the placement gives every lost
    copy its own dev line, and every file is judged once.
    """

    def __init__(self) -> None:
        self._found: dict[tuple[str, int], LostLine] = {}

    def add(self, found: LostLine) -> LostLine:
        """Record ``found``, a line no rule classified yet; return it."""
        place = (found.path, found.line)
        if place in self._found:
            raise ValueError(f"{found.path}:{found.line} is classified already")
        self._found[place] = found
        return found

    def reclassify(
        self,
        found: LostLine,
        kind: Classification,
        *,
        commit: str | None = None,
        subject: str | None = None,
        detail: str | None = None,
    ) -> None:
        """Decide again about the line of ``found``: now ``kind``, with this evidence (its
        line numbers, the other file and the line shown there, are kept)."""
        place = (found.path, found.line)
        self._found[place] = replace(
            self._found[place], classification=kind, commit=commit, subject=subject, detail=detail
        )

    def at(self, path: str, line: int) -> LostLine | None:
        """The finding of dev line ``line`` (1-based) of ``path``, if that line was lost."""
        return self._found.get((path, line))

    def since(self, count: int) -> list[LostLine]:
        """The findings classified after the first ``count`` (:func:`len` at that time)."""
        return list(self._found.values())[count:]

    def __len__(self) -> int:
        return len(self._found)

    def __iter__(self) -> Iterator[LostLine]:
        return iter(self._found.values())
