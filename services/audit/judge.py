"""The verdict on each lost line, by the dev change behind it (:mod:`.verdicts` says why).

:class:`~syncdesk.services.audit.evidence.Evidence` is everything the verdicts
read, asked of git once per audit; :func:`judge` applies the rules of
:mod:`~syncdesk.services.audit.verdicts` in their order, each rule a small
function named for it; :func:`lines_to_blame` tells the evidence which lines
need their author (the rules that read none are tried first).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from difflib import SequenceMatcher

from syncdesk.services.audit.blame import Author
from syncdesk.services.audit.evidence import Commit, Evidence, dev_region
from syncdesk.services.audit.model import AMID, Classification, LostLine
from syncdesk.services.audit.names import definition_name
from syncdesk.services.audit.regions import base_span, superseding
from syncdesk.services.audit.sources import Region
from syncdesk.services.audit.verdicts import Judgment, Verdict
from syncdesk.services.sanitize import decode

# How alike (difflib's ratio) a dev line and a base line its edit replaced must be for
# the line to be dev's edit of it (a new argument, a changed constant: 0.75-0.95 on
# such edits) rather than a line dev inserted beside it.
_EDIT_SIMILARITY = 0.6


def lines_to_blame(evidence: Evidence, findings: Sequence[LostLine]) -> dict[str, list[int]]:
    """The dev lines whose author a verdict needs: those the content rules leave and the
    rules that read no author do not explain either (blame is the costliest read)."""
    wanted: dict[str, set[int]] = {}
    for finding in findings:
        if _needs_its_change(finding) and not _explained_without_blame(evidence, finding):
            wanted.setdefault(finding.path, set()).add(finding.line)
    return {path: sorted(lines) for path, lines in wanted.items()}


def _explained_without_blame(evidence: Evidence, finding: LostLine) -> bool:
    """Whether a rule that needs no author already gives ``finding`` an innocent verdict
    (it would give the same one once blamed: only ported-by-main and the shared-history
    test read the author)."""
    if finding.classification is Classification.BY_POLICY:
        if finding.raw in evidence.changes.removals.get(finding.path, {}):
            return True
        rules: Sequence[_Rule] = _AUTHORLESS[1:]  # our commit taking its side is no repair
    else:
        rules = _AUTHORLESS
    for rule in rules:
        found = rule(evidence, finding, None)
        if found is not None:
            # Kept for the verdict itself: an unblamed line's rules would answer the same.
            evidence.explained[finding.path, finding.line] = found
            return True
    return False


def _needs_its_change(finding: LostLine) -> bool:
    """Whether the verdict on ``finding`` goes by its dev change (not a content rule's)."""
    kind, detail = finding.classification, finding.detail or ""
    if kind in (Classification.REFORMATTED, Classification.MOVED):
        return False
    if kind is Classification.SUPERSEDED and detail.startswith("renamed"):
        return False
    return kind is not Classification.REMOVED_ON_MAIN or detail in AMID


def judge(evidence: Evidence, finding: LostLine) -> Judgment:
    """The verdict on one lost line (rules in :mod:`~syncdesk.services.audit.verdicts`' order)."""

    kind, detail = finding.classification, finding.detail or ""
    if kind is Classification.BY_POLICY:
        return _by_policy(evidence, finding)
    kept = _kept_in_another_form(finding)
    if kept is not None:
        return kept
    if kind is Classification.REMOVED_ON_MAIN and detail not in AMID:
        return Judgment(
            Verdict.REWRITTEN, None, finding.commit, finding.subject, "main removed that line"
        )
    judged = _by_its_change(evidence, finding)
    referenced = kind is Classification.STILL_REFERENCED
    innocent = (Verdict.SHARED, Verdict.DELETED, Verdict.REPLACED)
    flagged = judged.verdict is Verdict.LOST or (referenced and judged.verdict not in innocent)
    return judged if flagged == judged.flagged else replace(judged, flagged=flagged)


def _by_policy(evidence: Evidence, finding: LostLine) -> Judgment:
    """A policy file's line: innocent only with the evidence any line needs; else lost."""
    removed = evidence.changes.removals.get(finding.path, {}).get(finding.raw)
    if removed is not None:
        return Judgment(Verdict.REWRITTEN, None, *removed, "main removed that line")
    # Our commit taking the policy's side of the file is the policy itself, not a repair.
    judged = _by_its_change(evidence, finding, _RULES[1:])
    if judged.verdict is not Verdict.LOST:
        return judged
    policy = finding.detail or "policy"
    reason = f"{policy} file: the policy took the other side's file, and dev's change with it"
    return Judgment(Verdict.LOST, judged.change, reason=reason, flagged=True)


def _kept_in_another_form(finding: LostLine) -> Judgment | None:
    """Rule 2: the triage found the line's content in the result (reformatted, moved, renamed)."""

    kind, detail = finding.classification, finding.detail or ""
    if kind is Classification.REFORMATTED:
        return Judgment(Verdict.KEPT, reason=f"reformatted: line {finding.evidence_line}")
    if kind is Classification.MOVED:
        where = f"{finding.other_path}:{finding.evidence_line}"
        return Judgment(Verdict.KEPT, reason=f"moved to {where}")
    if kind is Classification.SUPERSEDED and detail.startswith("renamed"):
        reason = f"main {detail} (line {finding.evidence_line})"
        return Judgment(Verdict.KEPT, None, finding.commit, finding.subject, reason)
    return None


def _by_its_change(
    evidence: Evidence, finding: LostLine, rules: Sequence[_Rule] | None = None
) -> Judgment:
    """Rules 1 and 3-7: what became of the dev commit that wrote the line."""
    author = evidence.author(finding.path, finding.line)
    change = author.sha if author is not None else None
    if author is None and (finding.path, finding.line) in evidence.explained:
        return evidence.explained[finding.path, finding.line]
    if author is not None and author.shared:
        reason = "history dev shares with main: main removed its own older code"
        return Judgment(Verdict.SHARED, reason=reason)
    for rule in _RULES if rules is None else rules:
        found = rule(evidence, finding, author)
        if found is not None:
            return found
    version = _another_version(evidence, finding, author)
    if version is not None:
        return version
    return Judgment(Verdict.LOST, change, reason=_lost_reason(finding), flagged=True)


def _replaced_by_ours(
    evidence: Evidence, finding: LostLine, author: Author | None
) -> Judgment | None:
    """Rule 3: the sync merge's result held the line; our commits on top took it out."""
    merged = evidence.merged.get(finding.path)
    if merged is None or merged[finding.raw] <= evidence.result_count(finding.path, finding.raw):
        return None
    changed = evidence.snapshot.changed[finding.path]
    if changed.after is not None and changed.after == evidence.snapshot.main_side(finding.path):
        return None  # our commit took main's whole file: taking main's side, not a repair
    sha, subject = evidence.ours.get(finding.path, (None, None))
    reason = "the sync merge kept it; our commit on top changed it"
    return Judgment(Verdict.REPLACED, _sha(author), sha, subject, reason)


def _reformat_of_base(
    evidence: Evidence, finding: LostLine, author: Author | None
) -> Judgment | None:
    """Rule 1b: dev only reformatted code the merge base had (an earlier sync's black run,
    say): the result holding main's version of that code loses no dev work."""
    if not evidence.reformats_base(finding):
        return None
    reason = (
        "dev only reformatted the merge base's code: the lines are base lines its hunk rewrapped"
    )
    return Judgment(Verdict.SHARED, _sha(author), reason=reason)


def _ported_by_main(
    evidence: Evidence, finding: LostLine, author: Author | None
) -> Judgment | None:
    """Rule 4: a commit of main carries the same change to the file (same subject, or a
    cited pull request)."""
    if author is None:
        return None
    message = evidence.messages.get(author.sha, "")
    port = evidence.ports.port_of(author.summary, message, finding.path)
    if port is None:
        return None
    # A port may carry only part of dev's change: the line itself must be in it, or the
    # port must have written its own version at the line's very place (main's version of
    # the same change, worded otherwise). A line the port left out, where it changed
    # nothing, stays lost: that part of dev's change never reached main.
    if evidence.port_holds(port.sha, finding.path, finding.raw):
        reason = f"dev's change ({author.summary}) came in with main's port"
    elif _written_there_by(evidence, finding, port.sha):
        reason = f"main's port of dev's change ({author.summary}) wrote its own version here"
    else:
        return None
    return Judgment(Verdict.PORTED, author.sha, port.sha, port.subject, reason)


def _written_there_by(evidence: Evidence, finding: LostLine, commit: str) -> bool:
    """Whether main's ``commit`` wrote its own version of ``finding`` at its place: the
    change main made there (the base lines dev changed, or the gap dev inserted into) was
    last made by ``commit``, and it holds a line like dev's (a reworded comment, another
    argument): not a port that carried other lines of dev's change and left this one out."""
    path = finding.path
    span = base_span(evidence.dev_regions.get(path, ()), finding.line)
    region = superseding(
        span, evidence.main_regions.get(path, ()), lambda main: _edits(finding.raw, main.added)
    )
    return region is not None and evidence.changes.who_changed(path, region)[0] == commit


def _removed_with_main_deletion(
    evidence: Evidence, finding: LostLine, author: Author | None
) -> Judgment | None:
    """Rule 5: main deleted the file, the definition holding the line, or the code around it."""
    path = finding.path
    deleted = evidence.deleted_by.get(path)
    if deleted is not None and path in evidence.in_base:
        return Judgment(Verdict.DELETED, _sha(author), *deleted, "main deleted the file")
    holder = _deleted_definition(evidence, finding)
    if holder is not None:
        name, commit = holder
        return Judgment(Verdict.DELETED, _sha(author), *commit, f"main deleted {name}")
    span = base_span(evidence.dev_regions.get(path, ()), finding.line)
    region = superseding(span, evidence.main_regions.get(path, ()), lambda _: False)
    if region is None or _moved_within(evidence, region):
        return None
    held_by = evidence.holders(path)[finding.line - 1]
    if held_by is not None and evidence.main_defines(held_by):
        return None  # main moved the function holding it: dev's line should have moved too
    sha, subject = evidence.changes.who_changed(path, region)
    reason = "main deleted the code around it"
    return Judgment(Verdict.DELETED, _sha(author), sha, subject, reason)


def _rewritten_by_main(
    evidence: Evidence, finding: LostLine, author: Author | None
) -> Judgment | None:
    """Rule 6: dev's line is its edit of a base line a slice commit changed too (main's
    version won). A line dev inserted, beside lines main rewrote, is no such edit."""
    region = dev_region(evidence.dev_regions.get(finding.path, ()), finding.line)
    if region is None or not region.removed:
        return None
    for main_region in evidence.main_regions.get(finding.path, ()):
        # The base lines both sides changed (main first: it is the cheap test).
        first = max(region.old_start, main_region.old_start)
        last = min(
            region.old_start + region.old_count, main_region.old_start + main_region.old_count
        )
        both = region.removed[first - region.old_start : last - region.old_start]
        if main_region.old_count and both and _edits(finding.raw, both):
            sha, subject = evidence.changes.who_changed(finding.path, main_region)
            reason = "dev edited lines main changed too"
            return Judgment(Verdict.REWRITTEN, _sha(author), sha, subject, reason)
    return None


_Rule = Callable[[Evidence, LostLine, Author | None], Judgment | None]
_RULES: tuple[_Rule, ...] = (
    _replaced_by_ours,
    _reformat_of_base,
    _ported_by_main,
    _removed_with_main_deletion,
    _rewritten_by_main,
)
# The rules that read no author (replaced by ours first, as in _RULES).
_AUTHORLESS = (
    _replaced_by_ours,
    _reformat_of_base,
    _removed_with_main_deletion,
    _rewritten_by_main,
)


def _another_version(
    evidence: Evidence, finding: LostLine, author: Author | None
) -> Judgment | None:
    """Rule 7: at the place of the line's block, main or our repair wrote lines using most of
    the names dev's block introduced: that side's own version of dev's change
    (:mod:`~syncdesk.services.audit.versions`)."""
    version = evidence.other_version(finding)
    if version is None:
        return None
    names = ", ".join(version.names[:4]) + (", …" if len(version.names) > 4 else "")
    at = ", ".join(str(line) for line in version.lines[:3])
    where = f"result line(s) {at}{', …' if len(version.lines) > 3 else ''}"
    # No names: dev's comment lines, whose code the result kept, under a comment of its own.
    using = f"using {names}" if names else "a comment of its own over the code it kept"
    if evidence.in_main(finding.path, version.lines):
        result = evidence.snapshot.lines(evidence.snapshot.changed[finding.path].after)
        sha, subject = evidence.changes.last_commit(
            finding.path, (result[line - 1] for line in version.lines), ()
        )
        reason = f"main wrote its own version at that place ({where}, {using})"
        return Judgment(Verdict.PORTED, _sha(author), sha, subject, reason)
    sha, subject = evidence.ours.get(finding.path, (None, None))
    reason = f"our repair wrote another version at that place ({where}, {using})"
    return Judgment(Verdict.REPLACED, _sha(author), sha, subject, reason)


def _deleted_definition(evidence: Evidence, finding: LostLine) -> tuple[str, Commit] | None:
    """The base definition holding the line that main deleted (and the result lacks), if any."""
    path = finding.path
    dev = evidence.dev_lines(path)
    holders = evidence.holders(path)
    at = finding.line - 1
    while 0 <= at < len(dev) and holders[at] is not None:
        name = holders[at]
        assert name is not None
        start = _definition_line(dev, holders, at, name)
        if start is None:
            return None
        from_base = _base_defined(evidence.dev_regions.get(path, ()), start + 1, name)
        if from_base and evidence.gone(path, name) and not evidence.main_defines(name):
            removed = evidence.changes.removals.get(path, {}).get(dev[start])
            return decode(name), removed or ("", "")
        at = start
    return None


def _base_defined(dev_regions: Sequence[Region], line: int, name: bytes) -> bool:
    """Whether dev's ``def``/``class`` line ``line`` of ``name`` stands for one the merge base
    had: dev left the line as it was, or its edit replaced a definition of that name."""
    region = dev_region(dev_regions, line)
    return region is None or any(definition_name(base) == name for base in region.removed)


def _definition_line(
    dev: Sequence[bytes], holders: Sequence[bytes | None], at: int, name: bytes
) -> int | None:
    """The ``def``/``class`` line of ``name`` above line index ``at``."""
    for index in range(at, -1, -1):
        if definition_name(dev[index]) == name and holders[index] != name:
            return index
    return None


def _moved_within(evidence: Evidence, region: Region) -> bool:
    """Whether main wrote most of the code ``region`` deletes again elsewhere (in this file or
    another audited one): a block main moved, not one it deleted (dev's line should have
    moved with it)."""
    code = [line.strip() for line in region.removed if line.strip()]
    if not code:
        return False
    added = evidence.main_added()
    return sum(line in added for line in code) * 2 >= len(code)


def _edits(line: bytes, base_lines: Sequence[bytes]) -> bool:
    """Whether ``line`` is dev's version of one of ``base_lines``: difflib's similarity of
    the two, indentation aside, at least :data:`_EDIT_SIMILARITY` (a new argument, a
    changed constant), not a line dev wrote beside them that shares a few names."""
    mine = line.strip()
    if not mine:
        return False
    for base in base_lines:
        # The cheap upper bounds first: most base lines are nothing like the dev line.
        matcher = SequenceMatcher(None, mine, base.strip(), autojunk=False)
        if matcher.real_quick_ratio() < _EDIT_SIMILARITY:
            continue
        if matcher.quick_ratio() >= _EDIT_SIMILARITY and matcher.ratio() >= _EDIT_SIMILARITY:
            return True
    return False


def _lost_reason(finding: LostLine) -> str:

    if finding.classification is Classification.STILL_REFERENCED:
        return f"defines {finding.detail}, which the result still uses"
    if finding.classification is Classification.TAKEN_AS_MAIN:
        hunk = (finding.detail or "a conflict hunk").split(" (", 1)[0]
        return f"{hunk} was resolved as main's side, dropping it"
    if finding.detail and finding.detail.startswith("dev's "):
        return f"in {finding.detail}"
    return "dev wrote it; main never had it; the result dropped it"


def _sha(author: Author | None) -> str | None:
    return author.sha if author is not None else None
