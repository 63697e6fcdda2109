"""The demo world's git history as the sandbox serves it, read through the one git runner.

Commit specs carry the repository's own SHAs, identities and signature
headers (with the GitHub login each email maps to); the sync's changed files
and the line an outdated review comment is anchored to come from ``git diff``.
"""

from __future__ import annotations

from syncdesk.services.demo.facts import DemoFacts
from syncdesk.services.git.runner import Git
from syncdesk.services.sandbox.demo.git import RawCommit, changed_hunks, diff_hunk, file_lines
from syncdesk.services.sandbox.scenario import CommitSpec, GitPerson


def login_for(email: str) -> str | None:
    """The GitHub login the demo maps a commit email to (GitHub's own noreply form included)."""
    local, _, domain = email.partition("@")
    if domain == "users.noreply.github.com":
        return local.partition("+")[2] or local
    return local.replace(".", "-").replace("_", "-") or None


def _person(commit: RawCommit, which: str) -> GitPerson:
    source = commit.author if which == "author" else commit.committer
    return GitPerson(source.name, source.email, source.date, login_for(source.email))


def commit_spec(raw: RawCommit) -> CommitSpec:
    """A commit as GitHub serves it, its signature verified when it has one."""
    spec = CommitSpec(
        sha=raw.sha,
        message=raw.message.rstrip("\n"),
        author=_person(raw, "author"),
        committer=_person(raw, "committer"),
        parents=list(raw.parents),
        tree=raw.tree,
    )
    if raw.signature is not None:
        # GitHub verifies the signature; the demo's keys count as registered ones.
        spec.verification.verified = True
        spec.verification.reason = "valid"
        spec.verification.signature = raw.signature
        spec.verification.payload = raw.payload
        spec.verification.verified_at = raw.committer.date
    return spec


def outdated_anchor(git: Git, facts: DemoFacts) -> tuple[str, int, str]:
    """A line of the previous head (the merge) that the repair changed: path, line, hunk."""
    for path in git.lines("diff", "--name-only", facts.merge, facts.repair):
        for old_start, old_count, _new, _count in changed_hunks(
            git, facts.merge, facts.repair, path
        ):
            if old_count > 0:
                lines = file_lines(git, facts.merge, path)
                return path, old_start, diff_hunk(lines, old_start, old_start)
    raise LookupError("the repair commit changes no existing line")


def candidate_paths(git: Git, facts: DemoFacts) -> list[str]:
    """Files the sync changed, the repair's and the resolution's first, Python before the rest."""
    repaired = set(git.lines("diff", "--name-only", facts.merge, facts.repair))
    resolved = set(facts.evil_merge_files) | {c.path for c in facts.conflicts}
    paths = git.lines("diff", "--name-only", facts.dev_base, facts.repair)
    return sorted(
        paths,
        key=lambda p: (p not in repaired, p not in resolved, not p.endswith(".py"), p),
    )
