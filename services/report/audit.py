"""The preservation audit in the report: what was judged, each class counted, accidents by block."""

from __future__ import annotations

from typing import Any

from syncdesk.services.audit.model import (
    CLASS_ORDER,
    Audit,
    DevChange,
    LinkedBreakage,
    LostLine,
)
from syncdesk.services.sanitize import one_line


def judged_line(audit: Audit) -> str:
    """Which commits the audit judged, and against which dev, in one line."""
    merge_and_ours = audit.judged
    if not merge_and_ours:
        judged = f"the result {audit.head[:8]}"
    else:
        on_top = len(merge_and_ours) - 1
        judged = f"merge {merge_and_ours[-1][:8]}" + (
            f" + {on_top} commit(s) of ours on top" if on_top else ""
        )
    dev = audit.dev or audit.dev_base
    against = (
        f"dev base {dev[:8]}"
        if dev == audit.dev_base
        else f"dev {dev[:8]} (the newest dev commit merged in; dev's own commits not judged)"
    )
    return f"judged {judged}, against {against} and slice tip {audit.slice_tip[:8]}"


def class_counts(audit: Audit) -> str:
    """Every class with its count, accidents first, and how many blocks the accidents make."""
    counts = audit.counts
    parts = [f"{kind} {counts[kind]}" for kind in CLASS_ORDER if counts[kind]]
    return (", ".join(parts) or "nothing lost") + f"; {audit.blocks} accident block(s)"


def accident_blocks(audit: Audit) -> list[list[LostLine]]:
    """The accidents grouped by block (consecutive dev lines of one file), in order."""
    blocks: dict[tuple[str, int], list[LostLine]] = {}
    for finding in audit.accidents:
        blocks.setdefault((finding.path, finding.block or finding.line), []).append(finding)
    return list(blocks.values())


def block_line(block: list[LostLine]) -> str:
    """One block: where, how many lines, its first line, and why it counts."""
    first, last = block[0], block[-1]
    where = f"{first.shown_path}:{first.line}" + (
        f"-{last.line}" if last.line != first.line else ""
    )
    size = f" ({len(block)} lines)" if len(block) > 1 else ""
    return f"{where}{size}  {first.text.strip()[:80]}  [{first.evidence}]"


def change_line(change: DevChange) -> str:
    """One dev change: its commit, subject, and what the result lost of it."""
    files = len(change.files)
    lost = f"lost {change.lost_count} line(s) in {files} file(s), {len(change.flagged)} flagged"
    return f"{change.sha[:8]} {one_line(change.subject)}: {lost}"


def flagged_by_change(audit: Audit) -> list[tuple[DevChange | None, list[list[LostLine]]]]:
    """The flagged blocks under the dev change that wrote them (None: no dev change known),
    the changes in the audit's rank order."""
    blocks = accident_blocks(audit)
    owner = {id(line): change for change in audit.changes for line in change.flagged}
    grouped: dict[int, list[list[LostLine]]] = {}
    for block in blocks:
        # A block's lines may come from several dev commits: each goes under its own.
        for line in block:
            key = id(owner[id(line)]) if id(line) in owner else 0
            runs = grouped.setdefault(key, [])
            if runs and runs[-1][-1].path == line.path and runs[-1][-1].block == line.block:
                runs[-1].append(line)
            else:
                runs.append([line])
    ranked: list[tuple[DevChange | None, list[list[LostLine]]]] = [
        (change, grouped[id(change)]) for change in audit.changes if id(change) in grouped
    ]
    if 0 in grouped:
        ranked.append((None, grouped[0]))
    return ranked


def breakage_line(link: LinkedBreakage) -> str:
    """One breakage: where, what, and the lost dev change that explains it."""
    broken = link.breakage
    where = f"{one_line(broken.path)}:{broken.line}"
    why = (
        f"  [lost with {link.change.sha[:8]} {one_line(link.change.subject)}]"
        if link.change
        else ""
    )
    return f"{where}  {one_line(broken.message)}{why}"


def hook_line(audit: Audit) -> str:
    """The real pre-push hook's count, and the class the triage gave each of its lines."""
    hook = audit.hook or ()
    files = len({finding.path for finding in hook})
    spread = ", ".join(f"{kind} {count}" for kind, count in audit.hook_account().items())
    return f"the pre-push hook reports {len(hook)} lines in {files} files: {spread or 'none'}"


def byte_size(size: int) -> str:
    """A size in bytes as people read it: ``58.9 MB`` (decimal units, as ``ls -h --si``)."""
    if size < 1000:
        return f"{size} bytes"
    value = size / 1000
    for unit in ("kB", "MB"):
        if value < 1000:
            return f"{value:.1f} {unit}"
        value /= 1000
    return f"{value:.1f} GB"


def audit_text(audit: Audit | None) -> list[str]:
    """The audit's lines for the plain-text report."""
    if audit is None:
        return ["Audit        no sync merge to audit"]
    raw = f"{audit.raw_count} raw lines in {audit.raw_files} files"
    ignored = f"{audit.ignored_trivial} trivial and {audit.ignored_binary} binary ignored"
    data = sum(d.lines for d in audit.data_files)
    large = [
        f"  too large  {one_line(f.path)}: {byte_size(f.size)}, not read" for f in audit.too_large
    ]
    lines = [
        f"Audit        {judged_line(audit)}",
        f"  {raw}; {ignored}; {len(audit.data_files)} data file(s) with {data} lines",
        f"  {class_counts(audit)}",
        *([f"  {hook_line(audit)}"] if audit.hook is not None else []),
        *(f"  data  {one_line(d.path)}: {d.lines} lines" for d in audit.data_files),
        *large,
    ]
    lines += (f"  broken  {breakage_line(link)}" for link in audit.breakage)
    for change, blocks in flagged_by_change(audit):
        head = change_line(change) if change is not None else "no dev commit known (policy files)"
        lines.append(f"  lost  {head}")
        lines += (f"    {block_line(block)}" for block in blocks)
    return lines


def audit_summary_json(audit: Audit | None) -> dict[str, Any] | None:
    """What the audit judged and how its findings divide, for the JSON report."""
    if audit is None:
        return None
    counts = audit.counts
    return {
        "dev": audit.dev or audit.dev_base,
        "judged": list(audit.judged),
        "raw_lines": audit.raw_count,
        "raw_files": audit.raw_files,
        "ignored_trivial": audit.ignored_trivial,
        "ignored_binary": audit.ignored_binary,
        "counts": {str(kind): counts[kind] for kind in CLASS_ORDER},
        "accident_blocks": audit.blocks,
        "flagged_lines": len(audit.accidents),
        "verdicts": {str(kind): count for kind, count in audit.verdict_counts.items()},
        "changes": [change_json(change) for change in audit.changes],
        "breakage": [
            {
                "path": one_line(link.breakage.path),
                "line": link.breakage.line,
                "kind": str(link.breakage.kind),
                "name": one_line(link.breakage.name),
                "callee": one_line(link.breakage.callee) if link.breakage.callee else None,
                "message": one_line(link.breakage.message),
                "change": link.change.sha if link.change else None,
            }
            for link in audit.breakage
        ],
        "data_files": [{"path": one_line(d.path), "lines": d.lines} for d in audit.data_files],
        "too_large": [{"path": one_line(f.path), "bytes": f.size} for f in audit.too_large],
        "hook": None
        if audit.hook is None
        else {
            "lines": len(audit.hook),
            "files": len({finding.path for finding in audit.hook}),
            "by_class": audit.hook_account(),
        },
    }


def change_json(change: DevChange) -> dict[str, Any]:
    """One dev change for the JSON report."""
    return {
        "commit": change.sha,
        "subject": one_line(change.subject),
        "pulls": list(change.pulls),
        "lost_lines": change.lost_count,
        "flagged_lines": len(change.flagged),
        "verdicts": {str(kind): count for kind, count in change.verdicts().items()},
        "files": [
            {
                "path": one_line(part.path),
                "lost": [line.line for line in part.lost],
                "flagged": [line.line for line in part.flagged],
            }
            for part in change.files
        ],
    }
