"""The demo's GitHub side: sync PR #4242 of lumen-ai/lumen, built from the demo world.

Every SHA, identity, signature header and cited line range comes from the demo
repository itself (read with :class:`syncdesk.services.git.runner.Git` when the scenario is
built), so what the sandbox says and what ``git`` says about the same commit
agree. What the scenario promises is in ``scenario.notes``:

- ``findings``: finding id -> ``{origin, path, start, end, commit, where}``;
  together the head-cited ranges hit every origin class (main, dev, shared,
  merge, repair, see :mod:`syncdesk.services.sandbox.demo.git`);
- ``origin_classes``: origin -> the finding ids citing it;
- ``body_missing_shas``: the 4 slice SHAs the PR body's list leaves out (it
  lists 96 of 100, as a real bot once did);
- ids of the outdated comment, the reply, the reviews; the merged sync PRs.

The parts: :mod:`demo_cast` (repository, people, PR numbers), :mod:`demo_commits`
(commit specs and anchors read from git), :mod:`demo_reviews` (findings, reviews,
inline threads) and :mod:`demo_checks` (check runs, statuses, Codecov's report).
This module assembles them into the pull requests and the scenario.
"""

from __future__ import annotations

from syncdesk.services.demo.facts import DemoFacts
from syncdesk.services.git.runner import Git
from syncdesk.services.sandbox.demo import texts as t
from syncdesk.services.sandbox.demo.cast import (
    CI_BOT,
    MAINTAINER,
    MERGED_SYNC_PRS,
    NAME,
    OWNER,
    PR_NUMBER,
    REVIEWER,
)
from syncdesk.services.sandbox.demo.checks import add_check_reports, codecov_spec
from syncdesk.services.sandbox.demo.commits import candidate_paths, commit_spec
from syncdesk.services.sandbox.demo.git import (
    OriginMap,
    RawCommit,
    pick_ranges,
    pr_commits,
    read_commits,
)
from syncdesk.services.sandbox.demo.reviews import (
    EARLIER_REVIEW_ID,
    STRICT_REVIEW_ID,
    inline_comments,
    review_findings,
    reviews,
)
from syncdesk.services.sandbox.scenario import (
    IssueCommentSpec,
    LabelSpec,
    PullSpec,
    Scenario,
    UserSpec,
)

OMITTED_FROM_BODY = (17, 43, 71, 88)  # slice indexes the PR body's SHA list leaves out


def demo_scenario(facts: DemoFacts, web_url: str = "https://github.com") -> Scenario:
    """The sandbox scenario of the demo world's sync PR (see the module docstring)."""
    git = Git(facts.repo)
    web_repo = f"{web_url}/{OWNER}/{NAME}"
    shas = pr_commits(git, facts)
    dev_history = git.lines("rev-list", "--first-parent", facts.dev_base)
    earlier_heads = [dev_history[len(dev_history) // 3], dev_history[2 * len(dev_history) // 3]]
    raw = read_commits(git, [*shas, *earlier_heads, facts.dev_base, facts.dev_tip])
    commits = {sha: commit_spec(item) for sha, item in raw.items()}
    origins = OriginMap(git, facts)
    ranges = pick_ranges(origins, candidate_paths(git, facts))
    findings = review_findings(ranges, facts.repair)
    failing = [
        raw[sha] for sha in facts.slice if sha in (*facts.unsigned, *facts.mismatched_signoff)
    ]

    coverage = codecov_spec(git, facts)
    add_check_reports(commits, facts, coverage, failing, earlier_heads, web_repo)

    sync_pull = _sync_pull(git, facts, shas, findings, web_repo)
    notes = _notes(facts, findings, sync_pull)
    return Scenario(
        owner=OWNER,
        name=NAME,
        web_url=web_url,
        default_branch="main",
        description="Lumen: a small training and inference stack (syncdesk demo).",
        viewer=MAINTAINER,
        users=[
            UserSpec(MAINTAINER, "Mara Lindqvist", "mara.lindqvist@lumen-ai.dev"),
            UserSpec(REVIEWER, "Priya Raman", None),
        ],
        labels=[
            LabelSpec("sync", "0e8a16", "main → dev sync"),
            LabelSpec("Run functional tests", "5319e7", "Runs the functional suite in CI"),
            LabelSpec("Run MBridge tests", "5319e7", "Runs the bridge suite in CI"),
            LabelSpec("needs-dco-override", "d93f0b", "A maintainer must set DCO to pass"),
        ],
        branches={
            "main": facts.main_tip,
            "dev": facts.dev_tip,
            facts.sync_branch: facts.repair,
        },
        commits=list(commits.values()),
        pulls=[sync_pull, *_merged_pulls(earlier_heads, raw)],
        codecov=[coverage],
        required_checks=["DCO", "CI / gate", "codecov/patch"],
        notes=notes,
    )


def _sync_pull(
    git: Git,
    facts: DemoFacts,
    shas: list[str],
    findings: dict[str, t.PlantedFinding],
    web_repo: str,
) -> PullSpec:
    listed = [sha for i, sha in enumerate(facts.slice) if i not in OMITTED_FROM_BODY]
    stat = git.text("diff", "--shortstat", facts.merge, facts.repair).strip()
    body = t.pr_body(
        dev_base=facts.dev_base,
        slice_tip=facts.slice_tip,
        merge=facts.merge,
        repair=facts.repair,
        listed=listed,
        repair_stat=stat,
        dev_tip=facts.dev_tip,
        conflicts=[c.path for c in facts.conflicts],
    )
    pull = PullSpec(
        number=PR_NUMBER,
        title="main → dev sync: the oldest 100 commits of dev..main",
        body=body,
        user=MAINTAINER,
        head_ref=facts.sync_branch,
        head_sha=facts.repair,
        base_ref=facts.dev_branch,
        base_sha=facts.dev_base,
        commits=shas,
        labels=["sync", "Run functional tests"],
        created_at="2025-01-05T08:00:00Z",
        updated_at="2025-01-06T10:30:00Z",
        additions=828,
        deletions=44,
        changed_files=len(git.lines("diff", "--name-only", facts.dev_base, facts.repair)),
    )
    pull.reviews = reviews(facts, findings, web_repo)
    pull.review_comments = inline_comments(git, facts, findings)
    pull.issue_comments = [
        IssueCommentSpec(
            1_260_000_001, CI_BOT, f"/ok to test {facts.merge[:7]}", "2025-01-05T08:05:00Z"
        ),
        IssueCommentSpec(1_260_000_002, REVIEWER, "/review mode=strict", "2025-01-05T11:30:00Z"),
        IssueCommentSpec(
            1_260_000_003, CI_BOT, f"/ok to test {facts.repair[:7]}", "2025-01-06T09:00:00Z"
        ),
    ]
    return pull


def _merged_pulls(heads: list[str], raw: dict[str, RawCommit]) -> list[PullSpec]:
    pulls = []
    for number, sha in zip(MERGED_SYNC_PRS, heads, strict=True):
        base = raw[sha].parents[0] if raw[sha].parents else sha
        pulls.append(
            PullSpec(
                number=number,
                title=f"main → dev sync #{number}: the oldest 100 commits of dev..main",
                body="Scheduled main → dev sync (merged).",
                user=MAINTAINER,
                head_ref=f"main2dev/{number}",
                head_sha=sha,
                base_ref="dev",
                base_sha=base,
                commits=[sha],
                labels=["sync"],
                state="closed",
                merged=True,
                merged_by=REVIEWER,
                merge_commit_sha=sha,
                created_at=f"2024-12-{10 if number == 3990 else 20}T08:00:00Z",
                updated_at=f"2024-12-{11 if number == 3990 else 21}T08:00:00Z",
                closed_at=f"2024-12-{11 if number == 3990 else 21}T08:00:00Z",
                merged_at=f"2024-12-{11 if number == 3990 else 21}T08:00:00Z",
            )
        )
    return pulls


def _notes(
    facts: DemoFacts, findings: dict[str, t.PlantedFinding], pull: PullSpec
) -> dict[str, object]:
    by_origin: dict[str, list[str]] = {}
    for finding in findings.values():
        by_origin.setdefault(finding.cited.origin, []).append(finding.id)
    return {
        "pr_number": PR_NUMBER,
        "head": facts.repair,
        "previous_head": facts.merge,
        "findings": {
            f.id: {
                "origin": f.cited.origin,
                "path": f.cited.path,
                "start": f.cited.start,
                "end": f.cited.end,
                "commit": f.commit,
                "where": "inline" if f.id in ("F1", "F2") else "review body",
            }
            for f in findings.values()
        },
        "origin_classes": by_origin,
        "prior_resolved": ["F9"],
        "outdated_comment": 1_800_000_001,
        "reply_comment": 1_800_000_004,
        "reviews": {"earlier": EARLIER_REVIEW_ID, "strict": STRICT_REVIEW_ID},
        "body_missing_shas": [facts.slice[i] for i in OMITTED_FROM_BODY],
        "merged_sync_prs": list(MERGED_SYNC_PRS),
        "dco_failing": [
            sha for sha in facts.slice if sha in (*facts.unsigned, *facts.mismatched_signoff)
        ],
    }
