"""The legend: every symbol a screen shows, and what it means.

One table for the legend key (``L``, on every screen that shows symbols) and
for the README's symbols table, which is this table row for row
(``tests/test_keys.py`` reads it). A screen names its part with its
``LEGEND`` class attribute.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Symbol:
    """Marks shown in one place of a screen, and what each means (``/`` between them)."""

    screen: str  # the LEGEND of the screen that shows it
    where: str
    marks: tuple[str, ...]
    means: str


SYMBOLS: tuple[Symbol, ...] = (
    Symbol(
        "slice",
        "Slice table, DCO",
        ("✓", "≠", "✗"),
        "signed off by the author or committer (what the DCO app accepts) / signed off by "
        "someone else / no sign-off",
    ),
    Symbol(
        "slice",
        "Slice table, Signed",
        ("✓",),
        "the commit carries a signature (never verified here)",
    ),
    Symbol(
        "slice",
        "Slice summary",
        ("✓", "✗"),
        "healthy / a problem (anatomy, a protected file not byte-identical)",
    ),
    Symbol(
        "commit",
        "commit view, files",
        ("+12", "-3", "binary"),
        "lines the commit added / deleted in the file / a binary file (no line count)",
    ),
    Symbol(
        "workspace",
        "workspace file list",
        ("●", "◐", "✓"),
        "a hunk without a resolution / every hunk resolved (the head's recorded resolution "
        "counts), not yet approved / approved",
    ),
    Symbol(
        "workspace",
        "workspace file list",
        ("K", "M"),
        "a keep-dev / override-from-main file: that side is shown by default",
    ),
    Symbol(
        "workspace",
        "workspace file list",
        ("↺",),
        "a carried-over suggestion exists for the file or one of its hunks",
    ),
    Symbol(
        "workspace",
        "workspace file list",
        ("⚠",),
        "the file's result still lacks dev lines the audit flagged (A lists the lost dev changes)",
    ),
    Symbol(
        "workspace",
        "workspace file list",
        ("…", "!"),
        "a decision in the file is not on disk yet / its save failed (the line above the panes "
        "says why); without a mark, every decision shown is saved",
    ),
    Symbol(
        "workspace",
        "workspace, above the panes",
        ("↺",),
        "the suggestion for this hunk or file, and where it was learned (S takes it)",
    ),
    Symbol(
        "workspace",
        "workspace, above the panes",
        ("⚠",),
        "probable accidents: dev lines the result lost (x goes to the next, R restores)",
    ),
    Symbol(
        "workspace",
        "workspace, above the panes",
        ("◆",),
        "dev lines this hunk's result left out by taking main's side (d takes dev's side)",
    ),
    Symbol(
        "workspace",
        "workspace panes",
        ("╱",),
        "no line on this side here: another side is longer, or this side has no file",
    ),
    Symbol(
        "findings",
        "Findings, Origin",
        ("slice 12 · repair 1",),
        "how many cited lines each class of commit wrote (slice, dev, shared, merge, repair: "
        "[docs/ours.md](docs/ours.md))",
    ),
    Symbol(
        "findings",
        "Findings, Disposition",
        ("(Fix on dev)",),
        "dim, in parentheses: only syncdesk's suggestion; plain: the maintainer's decision",
    ),
    Symbol(
        "status",
        "Status, checks",
        ("✓", "…", "✗", "!", "–"),
        "success / pending / failed or cancelled / action required / skipped or neutral",
    ),
    Symbol(
        "status",
        "Status, PR description",
        ("✓", "✗"),
        "a check of the description against the slice that holds / that fails",
    ),
    Symbol(
        "preview",
        "Repair preview",
        ("✗", "⚠"),
        "a changed Python file does not compile (written only after its own yes) / look "
        "first (a keep-dev file changes, two adjacent definitions of one name)",
    ),
    Symbol(
        "reply",
        "Reply preview",
        ("◀ only suggested",),
        "the row's disposition is only syncdesk's suggestion (the mark is not posted)",
    ),
)


def symbols_of(screen: str) -> tuple[Symbol, ...]:
    """The symbols the screen whose ``LEGEND`` is ``screen`` shows (none for "")."""
    return tuple(symbol for symbol in SYMBOLS if screen and symbol.screen == screen)
