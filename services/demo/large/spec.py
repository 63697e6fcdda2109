"""What the large world is made of (:class:`LargeSpec`) and what it promises (:class:`LargeFacts`).

The spec's ``scale`` shrinks every file-size figure (files, lock lines, golden
lines, the big Python file, the largest hunk) and keeps the shape: 400 main
commits, a slice of 100, 89 conflicted files, the repair, the merge of dev on
top and the review's 64 cited ranges over 16 files. Tests build a world at
``scale=0.1`` in a second or two; benchmarks use ``scale=1``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

# Where the scripted big files live.
LOCK_FILE = "uv.lock"
GOLDEN_FILE = "tests/functional/golden_values/gpt_moe_tp4_pp2_golden_values.json"
ARGUMENTS_FILE = "lumen/training/arguments.py"
HOOKS_FILE = "lumen/experimental/dev_hooks.py"

MAIN_BRANCH = "main"
DEV_BRANCH = "dev"
SYNC_BRANCH = "main2dev/large"
OWNER, NAME = "lumen-ai", "lumen"
PR_NUMBER = 5150


@dataclass(frozen=True, slots=True)
class LargeSpec:
    """The shape of a large world. Equal specs build identical repositories (same SHAs)."""

    scale: float = 1.0  # 1.0: 3,000 files, a 10,000-line lock, 25,000 golden lines...
    main_commits: int = 400  # dev_base..main
    slice_size: int = 100
    dev_commits: int = 60  # fork..dev base
    dev_advance: int = 6  # after the dev base; the first 4 are merged into the sync branch
    generic_conflicts: int = 80  # conflicted modules besides the scripted files

    def validate(self) -> None:
        """Raise ``ValueError`` for a spec the builder cannot honour."""
        if not 0.05 <= self.scale <= 4:
            raise ValueError("scale must be between 0.05 and 4")
        if self.slice_size < 20 or self.main_commits < self.slice_size + 10:
            raise ValueError("slice_size must be >= 20 and main_commits >= slice_size + 10")
        if self.dev_commits < 10 or self.dev_advance < 6 or self.generic_conflicts < 1:
            raise ValueError("dev_commits >= 10, dev_advance >= 6, generic_conflicts >= 1")

    def sized(self, full: int, least: int) -> int:
        """``full`` (the figure at scale 1) scaled, never below ``least``."""
        return max(least, math.floor(full * self.scale + 0.5))

    @property
    def modules_per_package(self) -> int:
        """Generated modules in each of the 20 packages (each has a test module too)."""
        return self.sized(72, 8)

    @property
    def lock_lines(self) -> int:
        """How long ``uv.lock`` is, at least."""
        return self.sized(10_000, 1_000)

    @property
    def golden_lines(self) -> int:
        """How long the golden-values JSON is, at least."""
        return self.sized(25_000, 2_500)

    @property
    def largest_hunk(self) -> int:
        """Lines of each side of the golden file's one big conflict hunk."""
        return self.sized(2_000, 200)

    @property
    def argument_groups(self) -> int:
        """Functions of the big Python file (about 21 lines each)."""
        return self.sized(140, 15)


@dataclass(frozen=True, slots=True)
class CitedSpan:
    """Lines ``start..end`` of ``path`` at the head, cited by review finding ``finding``."""

    finding: str
    path: str
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class LargeFacts:
    """Everything the builder guarantees about one large world (and what its sandbox serves)."""

    repo: Path
    scale: float
    main_branch: str
    dev_branch: str
    sync_branch: str
    main_tip: str
    dev_tip: str
    dev_base: str
    slice_tip: str
    merge: str  # the sync merge: parent 1 the dev base, parent 2 the slice tip
    repair: str  # the one repair commit on the merge
    dev_merge: str  # the merge of dev into the sync branch, on the repair
    head: str  # the fix on top of the dev merge: the sync branch's tip
    dev_merged: str  # the dev commit the dev merge brought in (its parent 2)
    slice: tuple[str, ...]  # full SHAs, oldest first
    backlog: int  # commits of dev_base..main (first-parent)
    dev_brought: tuple[str, ...]  # dev commits the dev merge brought, oldest first
    dev_advanced: tuple[str, ...]  # dev commits the head does not hold, oldest first
    conflicts: tuple[str, ...]  # conflicted paths of the sync merge, sorted
    conflict_types: dict[str, str]  # path -> content | add/add | modify/delete
    evil_merge_files: tuple[str, ...]  # non-conflicted files the resolution changed
    files: int  # files in the head's tree
    merge_changed_files: int  # files the sync merge changed against the dev base
    lock_file: str
    lock_lines: int
    golden_file: str
    golden_lines: int
    largest_hunk: int  # lines of each side of the golden file's big hunk
    arguments_file: str
    arguments_lines: int
    lost_dev_lines: int  # dev lines of arguments_file the resolution dropped
    cited: tuple[CitedSpan, ...]  # the review's cited ranges, at the head
    owner: str
    name: str
    pr_number: int

    @property
    def slice_size(self) -> int:
        """How many main commits the sync imported."""
        return len(self.slice)

    @property
    def cited_files(self) -> tuple[str, ...]:
        """The files the review cites, in citation order."""
        return tuple(dict.fromkeys(span.path for span in self.cited))

    def to_json(self) -> dict[str, object]:
        """A JSON-serialisable dict (paths as strings, tuples as lists)."""
        data: dict[str, object] = {}
        for item in fields(self):
            value = getattr(self, item.name)
            if isinstance(value, Path):
                value = str(value)
            elif item.name == "cited":
                value = [[s.finding, s.path, s.start, s.end] for s in value]
            elif isinstance(value, tuple):
                value = list(value)
            elif isinstance(value, dict):
                value = dict(value)
            data[item.name] = value
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> LargeFacts:
        """The inverse of :meth:`to_json`; raises ``ValueError`` on a malformed dict."""
        try:
            values: dict[str, Any] = {}
            for item in fields(cls):
                raw = data[item.name]
                if item.name == "repo":
                    values[item.name] = Path(_typed(raw, str))
                elif item.name == "scale":
                    values[item.name] = float(_typed(raw, (int, float)))
                elif item.name == "cited":
                    values[item.name] = tuple(
                        CitedSpan(_typed(f, str), _typed(p, str), _typed(a, int), _typed(b, int))
                        for f, p, a, b in _typed(raw, list)
                    )
                elif item.name == "conflict_types":
                    values[item.name] = {
                        _typed(k, str): _typed(v, str) for k, v in _typed(raw, dict).items()
                    }
                elif item.name in _TUPLES:
                    values[item.name] = tuple(_typed(sha, str) for sha in _typed(raw, list))
                elif item.name in _INTS:
                    values[item.name] = _typed(raw, int)
                else:
                    values[item.name] = _typed(raw, str)
        except (KeyError, TypeError, ValueError) as error:
            raise ValueError(f"malformed large world facts: {error}") from None
        return cls(**values)


_TUPLES = frozenset({"slice", "dev_brought", "dev_advanced", "conflicts", "evil_merge_files"})
_INTS = frozenset(
    {
        "backlog",
        "files",
        "merge_changed_files",
        "lock_lines",
        "golden_lines",
        "largest_hunk",
        "arguments_lines",
        "lost_dev_lines",
        "pr_number",
    }
)


def _typed(value: Any, kind: type | tuple[type, ...]) -> Any:
    if not isinstance(value, kind) or isinstance(value, bool):
        raise TypeError(f"unexpected {type(value).__name__}")
    return value
