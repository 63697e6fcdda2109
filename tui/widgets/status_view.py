"""The Status screen's sections as rich text: DCO, coverage, CI, labels, the description."""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text

from syncdesk.services.description.check import check_lines
from syncdesk.services.github.api import PostResult
from syncdesk.services.github.checks import CheckItem
from syncdesk.services.github.dco import DcoSkipped
from syncdesk.services.github.status import StatusData
from syncdesk.services.sanitize import one_line
from syncdesk.tui.text import counted

GOOD, BAD, WAIT = "green", "bold red", "yellow"
STATE_MARKS = {
    "success": ("✓", GOOD),
    "skipped": ("–", "dim"),
    "neutral": ("–", "dim"),
    "pending": ("…", WAIT),
    "failure": ("✗", BAD),
    "cancelled": ("✗", BAD),
    "action_required": ("!", BAD),
}


def _title(text: Text, title: str) -> None:
    text.append(f"\n{title}\n", "bold underline")


def render_status(data: StatusData, *, hints: bool = True) -> Text:
    """Every section, one after the other (``hints``: the keys that act on them)."""
    text = Text()
    pr = data.pr
    text.append(f"#{pr.number} {one_line(pr.title)}\n", "bold")
    text.append(f"head {pr.head_sha[:12]} · base {one_line(pr.base_ref)} · ")
    text.append(f"{len(pr.commits)} commits · labels: ")
    text.append(", ".join(one_line(label) for label in pr.labels) or "none")
    text.append("\n")
    for note in data.notes:
        text.append(f"note: {one_line(note)}\n", WAIT)
    _dco(text, data, hints)
    _coverage(text, data)
    _checks(text, data, hints)
    _body(text, data, hints)
    return text


def _dco(text: Text, data: StatusData, hints: bool) -> None:
    dco = data.dco
    _title(text, "DCO")
    github = dco.github
    if github is None:
        text.append("GitHub: no DCO check on the head\n", "dim")
    else:
        state = github.conclusion or github.status
        style = BAD if github.failing else GOOD if github.failing is False else WAIT
        text.append("GitHub: ")
        text.append(one_line(state or ""), style)
        text.append(f" ({one_line(github.source)})")
        if dco.agrees is False:
            text.append("  differs from syncdesk's reading of the app's rule", WAIT)
        text.append("\n")
    text.append(f"Checked {dco.checked} commits{_skipped_words(dco.skipped)}; ")
    if not dco.failures:
        text.append("every one signed off\n", GOOD)
        return
    text.append(f"{len(dco.failures)} fail\n", BAD)
    for failure in dco.failures:
        kind = "imported" if failure.imported else "ours: re-sign the repair"
        if hints and not failure.imported:
            kind += " (W)"
        text.append(f"  {failure.sha[:10]} ", "bold")
        text.append(f"{one_line(failure.subject)[:60]} — {one_line(failure.reason)}")
        text.append(f"  [{kind}]\n", "dim" if failure.imported else WAIT)
    if dco.needs_override:
        drafts = hints and data.override_posted is None
        ask = ": o drafts the override request" if drafts else ": an override is needed"
        text.append("Imported commits keep their SHAs" + ask, WAIT)
        if data.precedent:
            numbers = ", ".join(f"#{p.number}" for p in data.precedent)
            text.append(f" (precedent: {numbers})", WAIT)
        text.append("\n")
    _posted_line(text, "The override request", data.override_posted)


def _posted_line(text: Text, what: str, posted: PostResult | None) -> None:
    """``✓ <what> is posted for this head: <link>``, when syncdesk's comment is there."""
    if posted is None:
        return
    text.append(f"✓ {what} is posted for this head", GOOD)
    text.append(f" (comment {posted.comment_id})")
    if posted.html_url:
        text.append(": ")
        text.append(one_line(posted.html_url), "underline")
    text.append("\n")


def _coverage(text: Text, data: StatusData) -> None:
    coverage = data.coverage
    _title(text, "Patch coverage")
    if coverage.coverage is None:
        text.append("unknown", WAIT)
        reason = coverage.text or data.coverage_note or "no codecov/patch result on the head"
        text.append(f": {one_line(reason)}\n")
        return
    style = BAD if coverage.below_target else GOOD
    text.append(f"{coverage.coverage:.2f}%", style)
    if coverage.target is not None:
        text.append(f" of the diff hit, target {coverage.target:.2f}%")
    text.append(f"  (from {coverage.coverage_source})\n", "dim")
    for item in coverage.uncovered:
        lines = ", ".join(str(n) for n in item.lines[:12])
        more = f" and {len(item.lines) - 12} more" if len(item.lines) > 12 else ""
        text.append(f"  {one_line(item.path)}: {lines}{more}\n")
    if coverage.ours_uncovered:
        text.append(
            f"{len(coverage.ours_uncovered)} uncovered line(s) were written by the merge "
            "resolution or the repair:\n",
            WAIT,
        )
        for path, line in coverage.ours_uncovered[:20]:
            text.append(f"  {one_line(path)}:{line}\n")
    if data.coverage_note:
        text.append(f"Codecov's API: {one_line(data.coverage_note)}\n", "dim")


def _check_line(text: Text, item: CheckItem) -> None:
    mark, style = STATE_MARKS.get(item.state, ("?", WAIT))
    text.append(f"  {mark} ", style)
    text.append(f"{one_line(item.name):<32} ", "bold" if item.group == "gate" else "")
    text.append(f"{one_line(item.state):<16}", style)
    text.append(f"{one_line(item.group):<9}", "dim")
    text.append(one_line(item.description)[:60], "dim")
    if item.kinds:  # one line for both: GitHub requires both to pass
        text.append(f"  ({' and '.join(item.kinds)}, both must pass)", "dim")
    text.append("\n")


def _checks(text: Text, data: StatusData, hints: bool) -> None:
    checks = data.checks
    _title(text, "CI")
    style = BAD if checks.state == "failure" else GOOD if checks.state == "success" else WAIT
    text.append("Verdict: ")
    text.append(checks.state, style)
    text.append(
        f"  ({len(checks.failing)} failing, {len(checks.pending)} pending, "
        f"{len(checks.passed)} passed; from {data.checks_source})\n"
    )
    for name in checks.missing:
        text.append(f"  … {one_line(name)} has not reported yet (the gate)\n", WAIT)
    for item in checks.items:
        _check_line(text, item)
    _posted_line(text, "The CI trigger", data.trigger_posted)
    if hints:
        trigger = "" if data.trigger_posted else "t posts the CI trigger for this head; "
        text.append(f"{trigger}+ adds or removes a label\n", "dim")


def _body(text: Text, data: StatusData, hints: bool) -> None:
    _title(text, "PR description")
    for good, line in check_lines(data.body):
        text.append(f"{'✓' if good else '✗'} {one_line(line)}\n", GOOD if good else BAD)
    if hints:
        text.append("v shows a description generated from the verified facts\n", "dim")
    if data.rate is not None:
        rate = data.rate
        text.append(f"\nGitHub rate limit: {rate.remaining}/{rate.limit}", "dim")
        if rate.resets_at:
            text.append(f", resets {rate.resets_at}", "dim")
        text.append("\n")


def _skipped_words(skipped: Sequence[DcoSkipped]) -> str:
    """What the DCO app's rule skipped, by what it is: ", skipped 1 merge and 2 allow-listed bots".

    Only what was skipped is named: "(merges, bots)" beside bot commits listed as
    failing read as if those bots were exempt, which the app's allow-list decides.
    """
    merges = sum(1 for item in skipped if item.reason == "merge commit")
    bots = len(skipped) - merges
    parts = [counted(merges, "merge")] if merges else []
    if bots:
        parts.append(counted(bots, "allow-listed bot commit"))
    return f", skipped {' and '.join(parts)}" if parts else ""
