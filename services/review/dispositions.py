"""The maintainer's dispositions of review findings, kept per pull request, by finding id.

One file per pull request, ``<common git dir>/syncdesk/findings/<owner>-<name>-<n>.json``:
a finding keeps its disposition and note across review rounds as long as the
reviewer keeps its id ("unresolved prior F7" is still F7). Every decision is
written at once, atomically and durably (:func:`syncdesk.services.git.atomic.write_json`),
as a read-modify-write of that one id under an ``flock``, so two syncdesk
windows on one pull request never drop each other's decisions. The file also
remembers the replies posted, by their idempotency key.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from syncdesk.services.git.atomic import (
    FormatError,
    clean_orphans,
    locked,
    make_directory,
    read_document,
    write_json,
)
from syncdesk.services.git.runner import Git
from syncdesk.services.git.storage import storage_dir
from syncdesk.services.review.models import Disposition

SCHEMA = 1
DIRECTORY = "findings"


@dataclass(frozen=True, slots=True)
class Decision:
    """What the maintainer decided for one finding."""

    disposition: Disposition | None  # None: only a note; the suggestion still stands
    note: str = ""
    decided_at: str = ""

    @property
    def decided(self) -> bool:
        """Whether the maintainer chose a disposition (not only wrote a note)."""
        return self.disposition is not None


@dataclass(frozen=True, slots=True)
class Posted:
    """A reply syncdesk posted: its key (see :func:`syncdesk.services.github.api.content_key`)."""

    key: str
    comment_id: int
    html_url: str
    posted_at: str


@dataclass(frozen=True, slots=True)
class Book:
    """Every decision and posted reply of one pull request."""

    repo: str  # owner/name
    number: int
    decisions: dict[str, Decision] = field(default_factory=dict)
    posted: tuple[Posted, ...] = ()
    note: str = ""  # what loading had to repair (a corrupt file moved aside)


def book_path(git: Git, repo: str, number: int) -> Path:
    """The file of ``repo``'s pull request ``number``."""
    safe = re.sub(r"[^A-Za-z0-9._-]", "-", repo.replace("/", "-"))
    return storage_dir(git) / DIRECTORY / f"{safe}-{number}.json"


def load_book(git: Git, repo: str, number: int) -> Book:
    """The decisions saved for the pull request (none yet: an empty book)."""
    path = book_path(git, repo, number)
    clean_orphans(path.parent)
    document = read_document(path, _decode, "findings file")
    book = document.value or Book(repo, number)
    return Book(repo, number, book.decisions, book.posted, document.note or "")


def decide(git: Git, repo: str, number: int, finding_id: str, decision: Decision) -> Book:
    """Save ``decision`` for ``finding_id`` now; the book as saved is returned."""
    stamped = Decision(decision.disposition, decision.note, decision.decided_at or now())

    def change(book: Book) -> Book:
        return Book(repo, number, {**book.decisions, finding_id: stamped}, book.posted)

    return _update(git, repo, number, change)


def record_post(git: Git, repo: str, number: int, posted: Posted) -> Book:
    """Remember a posted reply (kept once per key)."""

    def change(book: Book) -> Book:
        kept = tuple(p for p in book.posted if p.key != posted.key)
        return Book(repo, number, book.decisions, (*kept, posted))

    return _update(git, repo, number, change)


def _update(git: Git, repo: str, number: int, change: Any) -> Book:
    path = book_path(git, repo, number)
    make_directory(path.parent)
    with locked(path.with_name(path.name + ".lock")):
        document = read_document(path, _decode, "findings file")
        updated: Book = change(document.value or Book(repo, number))
        write_json(path, _encode(updated))
    return updated


def now() -> str:
    """The time a decision or a post is stamped with (UTC, ISO 8601)."""
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _encode(book: Book) -> dict[str, Any]:
    return {
        "schema": SCHEMA,
        "repo": book.repo,
        "number": book.number,
        "decisions": {
            key: {
                "disposition": d.disposition.value if d.disposition is not None else None,
                "note": d.note,
                "decided_at": d.decided_at,
            }
            for key, d in sorted(book.decisions.items())
        },
        "posted": [
            {"key": p.key, "comment_id": p.comment_id, "html_url": p.html_url, "at": p.posted_at}
            for p in book.posted
        ],
    }


def _decode(raw: Any) -> Book:
    try:
        if not isinstance(raw, dict) or raw.get("schema") != SCHEMA:
            raise FormatError("not a findings file of this syncdesk")
        decisions = {
            str(key): Decision(
                None if value["disposition"] is None else Disposition(value["disposition"]),
                str(value["note"]),
                str(value["decided_at"]),
            )
            for key, value in raw["decisions"].items()
        }
        posted = tuple(
            Posted(str(p["key"]), int(p["comment_id"]), str(p["html_url"]), str(p["at"]))
            for p in raw["posted"]
        )
        return Book(str(raw["repo"]), int(raw["number"]), decisions, posted)
    except (KeyError, TypeError, ValueError, AttributeError) as error:
        raise FormatError(f"wrong shape: {error}") from None
