"""The large world's GitHub side: its sync pull request, a long review, checks and coverage.

The review (one "Strict review" body from the review bot) has one numbered
finding per cited file, each linking its four ranges at the head: 64 blob
links over 16 files, the size of a real sync review. Every SHA, identity and
cited line comes from the large world itself (:class:`LargeFacts`, and the
repository read through :class:`~syncdesk.services.git.runner.Git`), so what the
sandbox says and what git says agree. ``scenario.notes`` says what it promises.
"""

from __future__ import annotations

from syncdesk.services.demo.large.spec import CitedSpan, LargeFacts
from syncdesk.services.git.runner import Git
from syncdesk.services.sandbox.codecov import patch_status_text
from syncdesk.services.sandbox.demo.cast import CI_BOT, MAINTAINER, REVIEW_BOT, REVIEWER
from syncdesk.services.sandbox.demo.checks import CI_CHECKS, ci_runs, dco_run
from syncdesk.services.sandbox.demo.commits import commit_spec
from syncdesk.services.sandbox.demo.git import RawCommit, read_commits
from syncdesk.services.sandbox.scenario import (
    CheckRunSpec,
    CodecovSpec,
    IssueCommentSpec,
    LabelSpec,
    PullSpec,
    ReviewSpec,
    Scenario,
    StatusSpec,
    UserSpec,
)
from syncdesk.services.sync.dco import app_signoffs, signoff_matches
from syncdesk.services.sync.models import Person

REVIEW_ID = 1_520_000_101
_SEVERITIES = ("CRITICAL", "IMPORTANT", "IMPORTANT", "SUGGESTION")
_AREAS = ("Correctness", "Compatibility", "Testing", "Performance")
_TITLES = (
    "the resolution keeps a default neither side tested",
    "dev's path loses its guard",
    "no test covers the merged lines",
    "the merged default slows the step",
    "main's change is only half applied",
)


def large_scenario(facts: LargeFacts, web_url: str = "https://github.com") -> Scenario:
    """The sandbox scenario of the large world's sync pull request (see the module docstring)."""
    git = Git(facts.repo)
    web_repo = f"{web_url}/{facts.owner}/{facts.name}"
    shas = git.lines("rev-list", "--reverse", "--topo-order", f"{facts.dev_tip}..{facts.head}")
    raw = read_commits(git, [*shas, facts.dev_base, facts.dev_tip])
    commits = {sha: commit_spec(item) for sha, item in raw.items()}
    failing = [raw[sha] for sha in facts.slice if _fails_dco(raw[sha])]
    coverage = _coverage(git, facts)
    patch_text = patch_status_text(coverage)
    head = commits[facts.head]
    head.check_runs += [
        dco_run(web_repo, facts.pr_number, facts.sync_branch, failing),
        CheckRunSpec(
            name="codecov/patch",
            conclusion="failure",
            title=patch_text,
            summary=patch_text,
            app_slug="codecov",
            app_name="Codecov",
            completed_at="2025-02-02T10:20:00Z",
        ),
        *ci_runs(CI_CHECKS),
    ]
    head.statuses.append(
        StatusSpec(
            "codecov/patch",
            "failure",
            patch_text,
            f"https://app.codecov.io/gh/{facts.owner}/{facts.name}/pull/{facts.pr_number}",
            created_at="2025-02-02T10:20:00Z",
        )
    )
    pull = PullSpec(
        number=facts.pr_number,
        title=f"main → dev sync: the oldest {facts.slice_size} of {facts.backlog} commits",
        body=_body(facts),
        user=MAINTAINER,
        head_ref=facts.sync_branch,
        head_sha=facts.head,
        base_ref=facts.dev_branch,
        base_sha=facts.dev_tip,
        commits=shas,
        labels=["sync"],
        created_at="2025-02-01T08:00:00Z",
        updated_at="2025-02-02T11:00:00Z",
        changed_files=len(git.lines("diff", "--name-only", facts.dev_tip, facts.head)),
    )
    pull.reviews = [
        ReviewSpec(
            REVIEW_ID,
            REVIEW_BOT,
            review_body(web_repo, facts),
            facts.head,
            "COMMENTED",
            "2025-02-02T11:00:00Z",
        )
    ]
    pull.issue_comments = [
        IssueCommentSpec(
            1_270_000_001, CI_BOT, f"/ok to test {facts.merge[:7]}", "2025-02-01T08:05:00Z"
        )
    ]
    return Scenario(
        owner=facts.owner,
        name=facts.name,
        web_url=web_url,
        default_branch=facts.main_branch,
        description="Lumen at scale: the large syncdesk demo.",
        viewer=MAINTAINER,
        users=[
            UserSpec(MAINTAINER, "Mara Lindqvist", "mara.lindqvist@lumen-ai.dev"),
            UserSpec(REVIEWER, "Priya Raman", None),
        ],
        labels=[LabelSpec("sync", "0e8a16", "main → dev sync")],
        branches={
            facts.main_branch: facts.main_tip,
            facts.dev_branch: facts.dev_tip,
            facts.sync_branch: facts.head,
        },
        commits=list(commits.values()),
        pulls=[pull],
        codecov=[coverage],
        required_checks=["DCO", "CI / gate", "codecov/patch"],
        notes={
            "pr_number": facts.pr_number,
            "head": facts.head,
            "cited_ranges": len(facts.cited),
            "cited_files": list(facts.cited_files),
            "dco_failing": [commit.sha for commit in failing],
        },
    )


def review_body(web_repo: str, facts: LargeFacts) -> str:
    """The review's text: one numbered finding per cited file, its ranges as blob links."""
    by_finding: dict[str, list[CitedSpan]] = {}
    for span in facts.cited:
        by_finding.setdefault(span.finding, []).append(span)
    blocks = []
    for number, (finding, spans) in enumerate(by_finding.items()):
        links = [_link(web_repo, facts.head, span) for span in spans]
        path = spans[0].path
        name = path.rsplit("/", 1)[-1]
        blocks.append(
            f"{finding} — {name}: {_TITLES[number % len(_TITLES)]}\n\n"
            f"[{_SEVERITIES[number % 4]} {_AREAS[number % 4]}] Failure: these lines of {path} "
            "changed in this sync and nothing shows they behave as on dev: "
            f"{', '.join(links[:-1])} and {links[-1]}.\n\n"
            "Correction: say where each range comes from, and fix what the merge wrote here.\n"
        )
    counts = {s: sum(1 for n in range(len(blocks)) if _SEVERITIES[n % 4] == s) for s in _SEVERITIES}
    return (
        "Strict review — incomplete\n\n"
        f"Findings: CRITICAL: {counts['CRITICAL']}, IMPORTANT: {counts['IMPORTANT']}, "
        f"SUGGESTION: {counts['SUGGESTION']}. Overall risk: significant. This pass read the "
        f"{len(blocks)} files below in full.\n\n" + "\n".join(blocks)
    )


def _link(web_repo: str, commit: str, span: CitedSpan) -> str:
    anchor = f"#L{span.start}" if span.start == span.end else f"#L{span.start}-L{span.end}"
    return f"{web_repo}/blob/{commit}/{span.path}{anchor}"


def _body(facts: LargeFacts) -> str:
    rows = "\n".join(facts.slice)
    return (
        f"Scheduled main → dev sync of the oldest {facts.slice_size} commits of dev..main "
        f"({facts.backlog} in all).\n\n"
        f"• dev base: {facts.dev_base}\n• slice tip on main: {facts.slice_tip}\n"
        f"• merge: {facts.merge}\n• repair: {facts.repair}\n"
        f"• dev was merged in on top ({facts.dev_merge}), then fixed ({facts.head}).\n\n"
        f"Hand-resolved conflicts: {len(facts.conflicts)} files.\n\n"
        f"Ordered {facts.slice_size} source SHAs\n\n{rows}\n"
    )


def _fails_dco(commit: RawCommit) -> bool:
    author = Person(commit.author.name, commit.author.email)
    committer = Person(commit.committer.name, commit.committer.email)
    return not signoff_matches(app_signoffs(commit.message), author, committer)


def _coverage(git: Git, facts: LargeFacts) -> CodecovSpec:
    added = 0
    for line in git.lines("diff", "--numstat", facts.dev_base, facts.head, "--", "*.py"):
        count = line.split("\t")[0]
        added += int(count) if count.isdigit() else 0
    hits = round(added * 0.7412)
    return CodecovSpec(
        pullid=facts.pr_number,
        base_commit=facts.dev_base,
        head_commit=facts.head,
        patch_hits=hits,
        patch_misses=added - hits,
        patch_partials=0,
        title=f"main → dev sync: the oldest {facts.slice_size} of {facts.backlog} commits",
        author=MAINTAINER,
        ci_passed=False,
    )
