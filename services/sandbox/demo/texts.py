"""The demo sync PR's prose: its description, two reviews, inline findings, the DCO summary.

Written for the demo (original text in the shape real sync PRs use): a
"Findings: CRITICAL: n, IMPORTANT: m" line, numbered findings ``F6 — Title``
each opening with ``[IMPORTANT Compatibility] Failure: ...``, blob links to the
exact head lines they cite, "This is unresolved prior F6." for carried-over
findings and a closing paragraph for a prior finding that is now resolved.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from syncdesk.services.sandbox.demo.git import LineRange, RawCommit

_SIGNOFF = re.compile(r"^Signed-off-by: (.*) <(.*)>\s*$", re.IGNORECASE | re.MULTILINE)


@dataclass(frozen=True, slots=True)
class PlantedFinding:
    """One review finding and the head lines it cites."""

    id: str
    severity: str  # CRITICAL | IMPORTANT
    area: str  # Correctness | Compatibility | ...
    title: str
    failure: str
    cited: LineRange
    commit: str  # the SHA the blob link names


def blob_link(web_repo: str, commit: str, cited: LineRange) -> str:
    """``https://github.com/o/r/blob/<sha>/<path>#L<a>-L<b>`` (``#L<a>`` for one line)."""
    anchor = f"#L{cited.start}" if cited.start == cited.end else f"#L{cited.start}-L{cited.end}"
    return f"{web_repo}/blob/{commit}/{cited.path}{anchor}"


def pr_body(
    *,
    dev_base: str,
    slice_tip: str,
    merge: str,
    repair: str,
    listed: list[str],
    repair_stat: str,
    dev_tip: str,
    conflicts: list[str],
) -> str:
    """The sync PR's description; its SHA list is ``listed`` (short SHAs, in order)."""
    rows = " ".join(sha[:7] for sha in listed)
    conflict_list = ", ".join(conflicts) if conflicts else "none"
    return f"""Background

Scheduled main → dev sync. This branch brings the oldest 100 commits of dev..main into dev, \
{listed[0][:8]}..{slice_tip[:8]}.

• dev base: {dev_base}
• slice tip on main: {slice_tip}
• dev has moved on to {dev_tip[:8]} since the base was taken; a trial merge of that tip into \
this head is clean, so the branch was left on its base.

What changed

• The 100 main commits, untouched and in their original order.
• Merge commit {merge} joining {dev_base[:8]} (dev) and {slice_tip[:8]} (main).
• One squashed repair commit, {repair}: {repair_stat}. It puts back an import the \
resolution lost and adds the test double the engine tests from main rely on.

Details

• Hand-resolved conflicts: {conflict_list}.
• Keep-dev files (.github/CODEOWNERS, pyproject.toml, uv.lock, docker/Dockerfile.ci.dev) match \
the dev base byte for byte.
• Signatures: the merge and the repair are signed off; two imported bot commits carry SSH \
signatures.
• DCO: imported commits keep their original authors, so a maintainer override is expected.

Tested

• tests/unit: passed on {repair[:8]}.
• Functional runs are left to the labelled CI job.
• CI on this head: pending.

Ordered 100 source SHAs

{rows}
"""


def finding_block(web_repo: str, finding: PlantedFinding, carried: bool) -> str:
    """One numbered finding of a review body."""
    link = blob_link(web_repo, finding.commit, finding.cited)
    prior = f" This is unresolved prior {finding.id}." if carried else ""
    return (
        f"{finding.id} — {finding.title}\n\n"
        f"[{finding.severity} {finding.area}] Failure: {finding.failure} "
        f"See {link}.{prior}\n\n"
        "Correction: keep the behaviour the dev base had at this point and add a regression "
        "test that pins it; the exact patch is left to the owner of the code.\n"
    )


def strict_review_body(
    web_repo: str,
    findings: list[PlantedFinding],
    inline_ids: list[str],
    resolved: PlantedFinding,
    earlier: int,
    new_ids: frozenset[str] = frozenset(),
) -> str:
    """The latest "Strict review" summary, in the long numbered style."""
    critical = sum(1 for f in findings if f.severity == "CRITICAL")
    important = sum(1 for f in findings if f.severity == "IMPORTANT")
    blocks = "\n".join(finding_block(web_repo, f, carried=f.id not in new_ids) for f in findings)
    resolved_link = blob_link(web_repo, resolved.commit, resolved.cited)
    return f"""Strict review — incomplete

Findings: CRITICAL: {critical}, IMPORTANT: {important}, SUGGESTION: 0. Overall risk: moderate. \
The inline comments carry {", ".join(inline_ids)}; the rest follow here. Every finding \
not marked new was raised in review {earlier} and is still present on this head.

Verified fix: prior F9's dropped import is resolved. The repair commit restores it \
({resolved_link}) and the engine tests exercise the restored path. That finding is closed.

Why the review is incomplete

Only the files the merge and the repair touched were read in full; the imported main commits \
were sampled. No tests were executed here; the acceptance checks below are proposals.

{blocks}
Note: this review is posted as a comment; it does not approve or block the pull request.
"""


def earlier_review_body(web_repo: str, findings: list[PlantedFinding]) -> str:
    """The first review, on the previous head (the merge commit)."""
    critical = sum(1 for f in findings if f.severity == "CRITICAL")
    important = len(findings) - critical
    blocks = "\n".join(finding_block(web_repo, f, carried=False) for f in findings)
    return f"""Strict review

Findings: CRITICAL: {critical}, IMPORTANT: {important}, SUGGESTION: 0. Overall risk: significant. \
This pass covers the merge resolution and the files it changed.

{blocks}"""


def inline_body(finding: PlantedFinding) -> str:
    """An inline comment: ``[CRITICAL Correctness] F1 — Title`` then the failure."""
    return (
        f"[{finding.severity} {finding.area}] {finding.id} — {finding.title}\n\n"
        f"Failure: {finding.failure}\n\n"
        "Preservation and acceptance — proposed: a unit test that reaches these lines with the "
        "inputs above and asserts the dev base's result."
    )


def dco_summary(web_repo: str, number: int, head_ref: str, failing: list[RawCommit]) -> str:
    """The DCO app's ``action_required`` summary listing every commit that fails its rule."""
    count = len(failing)
    opening = (
        "There is one commit incorrectly signed off.  This means that the author of this "
        "commit failed to include a Signed-off-by line in the commit message.\n\n"
        if count == 1
        else f"There are {count} commits incorrectly signed off.  This means that the author(s) "
        "of these commits failed to include a Signed-off-by line in their commit message.\n\n"
    )
    advice = (
        "To avoid having PRs blocked in the future, always include `Signed-off-by: Author Name "
        "<authoremail@example.com>` in *every* commit message. You can also do this "
        "automatically by using the -s flag (i.e., `git commit -s`).\n\n"
        "Here is how to fix the problem so that this code can be merged.\n\n---\n\n"
        f"### Rebase the branch\n\n```bash\ngit rebase HEAD~{count} --signoff\n"
        f"git push --force-with-lease origin {head_ref}\n```\n\n"
    )
    rows = [
        f"Commit sha: [{c.sha[:7]}]({web_repo}/pull/{number}/commits/{c.sha}), "
        f"Author: {c.author.name}, Committer: {c.committer.name}; {_dco_reason(c)}"
        for c in failing
    ]
    return opening + advice + "\n".join(rows)


def _dco_reason(commit: RawCommit) -> str:
    found = _SIGNOFF.findall(commit.message)
    if not found:
        return "The sign-off is missing."
    name, email = found[-1]
    return f'Expected "{commit.author.name} <{commit.author.email}>", but got "{name} <{email}>".'
