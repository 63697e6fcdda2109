"""The workspace's info lines above the panes: the file, the hunk, what was decided and offered."""

from __future__ import annotations

from collections.abc import Sequence

from rich.filesize import decimal
from textual.content import Content

from syncdesk.services.audit.model import Classification, LostLine
from syncdesk.services.conflicts.models import ConflictFile
from syncdesk.services.decisions.models import Action, SyncState
from syncdesk.services.workspace.accidents import hunk_index_of
from syncdesk.services.workspace.layout import file_status, whole_file_action
from syncdesk.services.workspace.load import WorkspaceData
from syncdesk.services.workspace.whole_file import absent_sides

ACTION_LABELS = {
    Action.DEV: "dev",
    Action.MAIN: "main",
    Action.UNION: "union (dev, then main)",
    Action.UNION_MAIN_FIRST: "union (main, then dev)",
    Action.BASE: "base",
    Action.EDITED: "edited by hand",
    Action.DELETED: "deleted",
}

# Content.assemble takes plain strings, (text, style) pairs and Content: no
# string is parsed as markup, so a path, a dev line or a suggestion cannot
# inject styles or actions. Styles such as "$accent" name theme variables,
# resolved when the widget showing the Content renders.
Part = str | tuple[str, str] | Content


def hunk_info(
    conflict: ConflictFile,
    state: SyncState,
    policy: str | None,
    data: WorkspaceData,
    accidents: Sequence[LostLine],
    pending: str | None = None,
) -> Content:
    """The lines about ``conflict`` and its current hunk; ``accidents`` those it still lacks.

    ``pending`` says why the file's decisions shown are not on disk yet
    ("saving…", or why the save failed): a decision is shown as made only once
    it is durable.
    """
    parts = _file_line(conflict, state, policy)
    if pending is not None:
        parts.append((f" · {pending}", "bold $warning"))
    if conflict.whole_file_only:
        return Content.assemble(*parts, *_whole_file_lines(conflict, data))
    index = state.cursor.hunk
    hunk = conflict.hunks[index]
    choice = state.decisions(conflict.path).hunk(index)
    parts.append(f"\nhunk {index + 1}/{len(conflict.hunks)} · head resolved it as ")
    parts.append((hunk.resolution, "bold"))
    if choice is not None and choice.key == hunk.key:
        parts.append(" · you ")
        parts.append((_you_did(choice.action), "bold $success"))
    if accidents:
        parts.extend(_accident_line(conflict, index, accidents))
    if choice is None and hunk.resolution == "main":
        parts.extend(_decision_line(conflict, index, data))
    for suggestion in data.suggestions.get(hunk.key, [])[:1]:
        parts.append(("\n↺ ", "bold $accent"))
        parts.append(f"suggested: {suggestion.describe()} (press S to take it)")
    return Content.assemble(*parts)


def _you_did(action: Action) -> str:
    """What the maintainer did to a hunk, after "you": "took main", "edited it by hand"."""
    if action is Action.EDITED:
        return "edited it by hand"
    if action is Action.DELETED:
        return "deleted it"
    return f"took {ACTION_LABELS[action]}"


def _file_line(conflict: ConflictFile, state: SyncState, policy: str | None) -> list[Part]:
    decisions = state.decisions(conflict.path)
    status = file_status(state, conflict, policy)
    parts: list[Part] = [
        (conflict.display_path, "bold"), f"  {conflict.type} · {status} · head: ",
        (conflict.resolution, "bold"),
    ]  # fmt: skip
    if decisions.whole_file is not None:
        parts.append(f" · you: whole file {ACTION_LABELS[decisions.whole_file.action]}")
    elif whole_file_action(decisions, policy) is not None:
        parts.append((f" · policy {policy}: whole file (any decision overrides)", "$accent"))
    return parts


def _whole_file_lines(conflict: ConflictFile, data: WorkspaceData) -> list[Part]:
    parts: list[Part] = []
    learned = data.file_suggestions.get(conflict.file_key)
    if learned is not None:
        parts.append(("\n↺ ", "bold $accent"))
        parts.append(f"suggested: {learned.describe()} (press S to take it)")
    if conflict.type == "submodule":
        parts.append("\nA submodule: ")
        for side, commit in (("dev", conflict.dev_blob), ("main", conflict.main_blob)):
            parts.append(f"{side} names {commit[:12]}" if commit else f"{side} removed it")
            parts.append(", " if side == "dev" else "")
        head = conflict.head_blob[:12] if conflict.head_blob else "none"
        parts.append(f", the head {head}. D takes dev's commit, M takes main's.")
    else:
        parts.append("\nWhole-file choice only (")
        if conflict.too_large:
            # Never read: its lines would take tens of times its size in memory.
            parts.append(
                f"{decimal(conflict.too_large)}, over the large_file_limit setting: "
                "compared by blob id, not shown"
            )
        elif conflict.binary or not conflict.decodable:
            parts.append("binary" if conflict.binary else "not UTF-8: nothing to show")
        else:
            parts.append("no hunks: each side's whole file is shown below")
        parts.append("): D takes dev's file, M takes main's.")
    parts.extend(_deleted_line(conflict))
    for message in conflict.messages:
        parts.append(f"\n{message}")
    return parts


def _deleted_line(conflict: ConflictFile) -> list[Part]:
    """Which side deleted the file and which changed it, and what the panes show of that."""
    absent = absent_sides(conflict)
    gone = [side for side in absent if side != "base"]
    if conflict.type == "submodule" or len(gone) != 1 or "base" in absent:
        return []
    kept = "main" if gone[0] == "dev" else "dev"
    parts: list[Part] = ["\n", (f"{gone[0]} deleted this file", "bold"), f", {kept} changed it"]
    if not conflict.binary and conflict.decodable:
        parts.append(f": {kept}'s version is in its pane, {gone[0]}'s pane is empty")
    return parts


def _decision_line(conflict: ConflictFile, index: int, data: WorkspaceData) -> list[Part]:
    """The dev lines the head's resolution of this hunk left out by taking main's side
    (the audit's *taken as main*): a decision to review here, not an alarm."""
    findings = data.audit.in_file(conflict.path) if data.audit is not None else ()
    left = [
        finding
        for finding in findings
        if finding.classification is Classification.TAKEN_AS_MAIN
        and hunk_index_of(conflict, finding.line) == index
    ]
    if not left:
        return []
    first = left[0]
    return [
        ("\n◆ ", "bold $accent"),
        f"{len(left)} dev line(s) left out by taking main's side · line {first.line}: ",
        (first.text.strip()[:60], "bold"),
        f" ({first.evidence}) · d takes dev's side",
    ]


def _accident_line(conflict: ConflictFile, index: int, accidents: Sequence[LostLine]) -> list[Part]:
    here = [f for f in accidents if hunk_index_of(conflict, f.line) == index]
    parts: list[Part] = [
        (f"\n⚠ {len(accidents)} probable accident(s) in this file", "$warning"),
        f" ({len(here)} in this hunk): dev lines missing from the result",
    ]
    if here:
        parts.append(f" · line {here[0].line}: ")
        parts.append((here[0].text.strip()[:60], "bold"))
        parts.append(f" ({here[0].evidence}) · R restores it")
    else:
        parts.append(" · x goes to the next one")
    parts.append(" · A lists the lost dev changes")
    return parts
