"""What the demo world is, and what it promises about itself.

:class:`DemoFacts` is the builder's ground truth: tests (and the demo's own
self-checks) compare what syncdesk *finds* in the repository with what the
builder *put* there. It round-trips through JSON so a built world can be
reused without rebuilding it.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from syncdesk.services.errors import ServiceError

CONFLICT_TYPES = ("content", "add/add", "modify/delete")
RESOLUTIONS = ("dev", "main", "union", "custom", "deleted")


class DemoBuildError(ServiceError):
    """The demo world could not be built (or is not what the builder meant)."""

    title = "Demo world"


@dataclass(frozen=True, slots=True)
class WorldSpec:
    """The shape of a demo world. Equal specs build identical repositories (same SHAs)."""

    main_commits: int = 130  # main commits after the fork point (all of dev_base..main)
    slice_size: int = 100
    dev_commits: int = 20  # dev's own commits up to the dev base
    dev_advance: int = 4  # dev commits after the dev base
    scale: int = 1  # size knob for benchmarks: more and longer files, more hunks

    def validate(self) -> None:
        """Raise ``ValueError`` for a spec the builder cannot honour."""
        if self.slice_size < 12:
            raise ValueError("slice_size must be at least 12 (the scripted conflicts need room)")
        if self.main_commits < self.slice_size:
            raise ValueError("main_commits must be at least slice_size")
        if self.dev_commits < 1 or self.dev_advance < 0 or self.scale < 1:
            raise ValueError("dev_commits and scale must be >= 1, dev_advance >= 0")


@dataclass(frozen=True, slots=True)
class ConflictFact:
    """One conflicted path of the sync merge and how the maintainer resolved it."""

    path: str
    type: str  # "content" | "add/add" | "modify/delete"
    resolution: str  # "dev" | "main" | "union" | "custom" | "deleted"


@dataclass(frozen=True, slots=True)
class DemoFacts:
    """Everything the builder guarantees about one demo repository."""

    repo: Path
    main_branch: str
    dev_branch: str
    sync_branch: str
    main_tip: str
    dev_tip: str
    dev_base: str
    slice_tip: str
    merge: str
    repair: str
    slice: tuple[str, ...]  # full SHAs, oldest first
    remaining: int  # commits of dev_base..main after the slice
    unsigned: tuple[str, ...]  # slice SHAs with no Signed-off-by
    mismatched_signoff: tuple[str, ...]  # slice SHAs signed off by neither author nor committer
    signed: tuple[str, ...]  # slice SHAs with a gpgsig header
    prs: dict[str, int | None]  # slice SHA -> PR number from the "(#N)" suffix
    dev_advanced: tuple[str, ...]  # dev commits after the dev base, oldest first
    dev_merges_cleanly: bool
    conflicts: tuple[ConflictFact, ...]
    evil_merge_files: tuple[str, ...]  # non-conflicted files the resolution changed
    keep_dev: tuple[str, ...]
    protected_identical: dict[str, bool]  # keep-dev path -> head blob == dev base blob

    def to_json(self) -> dict[str, object]:
        """A JSON-serialisable dict (paths as strings, tuples as lists)."""
        data: dict[str, object] = {}
        for item in fields(self):
            value = getattr(self, item.name)
            if isinstance(value, Path):
                value = str(value)
            elif item.name == "conflicts":
                value = [
                    {"path": c.path, "type": c.type, "resolution": c.resolution} for c in value
                ]
            elif isinstance(value, tuple):
                value = list(value)
            elif isinstance(value, dict):
                value = dict(value)
            data[item.name] = value
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> DemoFacts:
        """The inverse of :meth:`to_json`; raises ``ValueError`` on a malformed dict."""
        try:
            values: dict[str, Any] = {
                name: tuple(_typed(sha, str) for sha in _typed(data[name], list))
                for name in _TUPLES
            }
            values |= {name: _typed(data[name], str) for name in _STRINGS}
            values["repo"] = Path(_typed(data["repo"], str))
            values["remaining"] = _typed(data["remaining"], int)
            values["dev_merges_cleanly"] = _typed(data["dev_merges_cleanly"], bool)
            values["prs"] = {
                _typed(sha, str): None if pr is None else _typed(pr, int)
                for sha, pr in _typed(data["prs"], dict).items()
            }
            values["protected_identical"] = {
                _typed(path, str): _typed(same, bool)
                for path, same in _typed(data["protected_identical"], dict).items()
            }
            values["conflicts"] = tuple(
                ConflictFact(
                    _typed(item["path"], str),
                    _typed(item["type"], str),
                    _typed(item["resolution"], str),
                )
                for item in _typed(data["conflicts"], list)
            )
        except (KeyError, TypeError) as error:
            raise ValueError(f"malformed demo facts: {error}") from None
        return cls(**values)


_TUPLES = (
    "slice",
    "unsigned",
    "mismatched_signoff",
    "signed",
    "dev_advanced",
    "evil_merge_files",
    "keep_dev",
)
_STRINGS = (
    "main_branch",
    "dev_branch",
    "sync_branch",
    "main_tip",
    "dev_tip",
    "dev_base",
    "slice_tip",
    "merge",
    "repair",
)


def _typed(value: Any, kind: type) -> Any:
    if not isinstance(value, kind):
        raise TypeError(f"expected {kind.__name__}, got {type(value).__name__}")
    return value
