"""The demo's GitHub side: sync PR #4242 of lumen-ai/lumen, built from the demo world.

Every SHA, identity, signature header and cited line range comes from the demo
repository itself (read with :class:`services.git.Git` when the scenario is
built), so what the sandbox says and what ``git`` says about the same commit
agree. What the scenario promises is in ``scenario.notes``:

- ``findings``: finding id -> ``{origin, path, start, end, commit, where}``;
  together the head-cited ranges hit every origin class (main, dev, shared,
  merge, repair, see :mod:`services.sandbox.demo_git`);
- ``origin_classes``: origin -> the finding ids citing it;
- ``body_missing_shas``: the 4 slice SHAs the PR body's list leaves out (it
  lists 96 of 100, as a real bot once did);
- ids of the outdated comment, the reply, the reviews; the merged sync PRs.
"""

from __future__ import annotations

from services.demo import DemoFacts
from services.git import Git
from services.sandbox import demo_texts as t
from services.sandbox.codecov import patch_status_text
from services.sandbox.demo_git import (
    LineRange,
    OriginMap,
    RawCommit,
    changed_hunks,
    diff_hunk,
    file_lines,
    pick_ranges,
    pr_commits,
    read_commits,
)
from services.sandbox.scenario import (
    CheckRunSpec,
    CodecovFile,
    CodecovLine,
    CodecovSpec,
    CommitSpec,
    GitPerson,
    IssueCommentSpec,
    LabelSpec,
    PullSpec,
    ReviewCommentSpec,
    ReviewSpec,
    Scenario,
    StatusSpec,
    UserSpec,
)

OWNER, NAME = "lumen-ai", "lumen"
PR_NUMBER = 4242
MERGED_SYNC_PRS = (4101, 3990)
MAINTAINER = "mara-lindqvist"  # the viewer: owns the sync branch, wrote merge and repair
REVIEW_BOT = "lumen-review-bot"
CI_BOT = "lumen-ci-bot"
REVIEWER = "priya-raman"
OMITTED_FROM_BODY = (17, 43, 71, 88)  # slice indexes the PR body's SHA list leaves out
EARLIER_REVIEW_ID, STRICT_REVIEW_ID, REPLY_REVIEW_ID = 1_510_000_101, 1_510_000_202, 1_510_000_303
CI_CHECKS = (
    ("CI / gate", "in_progress", None),
    ("CI / unit-tests", "completed", "success"),
    ("CI / lint", "completed", "success"),
    ("CI / functional", "completed", "failure"),
)


def login_for(email: str) -> str | None:
    """The GitHub login the demo maps a commit email to (GitHub's own noreply form included)."""
    local, _, domain = email.partition("@")
    if domain == "users.noreply.github.com":
        return local.partition("+")[2] or local
    return local.replace(".", "-").replace("_", "-") or None


def _person(commit: RawCommit, which: str) -> GitPerson:
    source = commit.author if which == "author" else commit.committer
    return GitPerson(source.name, source.email, source.date, login_for(source.email))


def _commit_spec(raw: RawCommit) -> CommitSpec:
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


def _dco_run(web_repo: str, number: int, head_ref: str, failing: list[RawCommit]) -> CheckRunSpec:
    return CheckRunSpec(
        name="DCO",
        conclusion="action_required",
        title="DCO",
        summary=t.dco_summary(web_repo, number, head_ref, failing),
        app_slug="dco",
        app_name="DCO",
        completed_at="2025-01-06T09:01:10Z",
    )


def _ci_runs(conclusions: tuple[tuple[str, str, str | None], ...]) -> list[CheckRunSpec]:
    return [
        CheckRunSpec(
            name=name,
            status=status,
            conclusion=conclusion,
            title=None if conclusion is None else f"{name}: {conclusion}",
            summary=f"Workflow job {name} {conclusion or 'is running'}.",
            completed_at=None if conclusion is None else "2025-01-06T10:12:00Z",
        )
        for name, status, conclusion in conclusions
    ]


def _findings(origins: dict[str, LineRange], head: str) -> dict[str, t.Finding]:
    """The findings the reviews raise on the head, one or more per origin class."""

    def make(fid: str, severity: str, area: str, title: str, failure: str, key: str) -> t.Finding:
        return t.Finding(fid, severity, area, title, failure, origins[key], head)

    return {
        "F1": make(
            "F1",
            "CRITICAL",
            "Correctness",
            "Guard the imported fast path",
            "the main commit that added this code assumes an argument dev never passes, so the "
            "first call from dev's scheduler takes the wrong branch.",
            "main",
        ),
        "F2": make(
            "F2",
            "CRITICAL",
            "Correctness",
            "The hand resolution drops a side",
            "the merge resolution wrote lines that neither parent has; the union keeps dev's "
            "guard but loses main's fallback, so an empty input is no longer handled.",
            "merge",
        ),
        "F6": make(
            "F6",
            "IMPORTANT",
            "Compatibility",
            "Preserve dev's keyword order",
            "these dev lines were changed after the fork; a caller from main still passes the "
            "old positional order and now binds a flag to the wrong parameter.",
            "dev",
        ),
        "F7": make(
            "F7",
            "IMPORTANT",
            "Correctness",
            "Shared helper ignores the new mode",
            "this helper predates the fork and is identical on both branches, yet the slice now "
            "calls it with a mode it does not know, and it silently falls back.",
            "shared",
        ),
        "F8": make(
            "F8",
            "IMPORTANT",
            "Testing",
            "The repair's double hides a failure",
            "the test double the repair adds always succeeds, so the engine test can no longer "
            "see the error path main's version exercised.",
            "repair",
        ),
        "F10": make(
            "F10",
            "CRITICAL",
            "Correctness",
            "Imported code skips validation",
            "the imported code trusts its input here; dev's callers pass unchecked values that "
            "main's callers always validated first.",
            "main",
        ),
    }


def _outdated_anchor(git: Git, facts: DemoFacts) -> tuple[str, int, str]:
    """A line of the previous head (the merge) that the repair changed: path, line, hunk."""
    for path in git.lines("diff", "--name-only", facts.merge, facts.repair):
        for old_start, old_count, _new, _count in changed_hunks(
            git, facts.merge, facts.repair, path
        ):
            if old_count > 0:
                lines = file_lines(git, facts.merge, path)
                return path, old_start, diff_hunk(lines, old_start, old_start)
    raise LookupError("the repair commit changes no existing line")


def _candidate_paths(git: Git, facts: DemoFacts) -> list[str]:
    """Files the sync changed, the repair's and the resolution's first, Python before the rest."""
    repaired = set(git.lines("diff", "--name-only", facts.merge, facts.repair))
    resolved = set(facts.evil_merge_files) | {c.path for c in facts.conflicts}
    paths = git.lines("diff", "--name-only", facts.dev_base, facts.repair)
    return sorted(
        paths,
        key=lambda p: (p not in repaired, p not in resolved, not p.endswith(".py"), p),
    )


def demo_scenario(facts: DemoFacts, web_url: str = "https://github.com") -> Scenario:
    """The sandbox scenario of the demo world's sync PR (see the module docstring)."""
    git = Git(facts.repo)
    web_repo = f"{web_url}/{OWNER}/{NAME}"
    shas = pr_commits(git, facts)
    dev_history = git.lines("rev-list", "--first-parent", facts.dev_base)
    earlier_heads = [dev_history[len(dev_history) // 3], dev_history[2 * len(dev_history) // 3]]
    raw = read_commits(git, [*shas, *earlier_heads, facts.dev_base, facts.dev_tip])
    commits = {sha: _commit_spec(item) for sha, item in raw.items()}
    origins = OriginMap(git, facts)
    ranges = pick_ranges(origins, _candidate_paths(git, facts))
    findings = _findings(ranges, facts.repair)
    failing = [
        raw[sha] for sha in facts.slice if sha in (*facts.unsigned, *facts.mismatched_signoff)
    ]

    head = commits[facts.repair]
    coverage = _codecov(git, facts)
    patch_text = patch_status_text(coverage)
    head.check_runs += [
        _dco_run(web_repo, PR_NUMBER, facts.sync_branch, failing),
        CheckRunSpec(
            name="codecov/patch",
            conclusion="failure",
            title=patch_text,
            summary=f"[View this Pull Request on Codecov](https://app.codecov.io/gh/{OWNER}/"
            f"{NAME}/pull/{PR_NUMBER}?dropdown=coverage)\n\n{patch_text}",
            app_slug="codecov",
            app_name="Codecov",
            completed_at="2025-01-06T10:20:00Z",
        ),
        *_ci_runs(CI_CHECKS),
    ]
    head.statuses += [
        StatusSpec(
            "codecov/patch",
            "failure",
            patch_text,
            f"https://app.codecov.io/gh/{OWNER}/{NAME}/pull/{PR_NUMBER}",
            created_at="2025-01-06T10:20:00Z",
        ),
        StatusSpec(
            "codecov/project",
            "success",
            f"{coverage.head_coverage:.2f}% (-0.30%) compared to {facts.dev_base[:7]}",
            f"https://app.codecov.io/gh/{OWNER}/{NAME}/pull/{PR_NUMBER}",
            created_at="2025-01-06T10:20:00Z",
        ),
    ]
    previous = commits[facts.merge]
    previous.check_runs += [
        _dco_run(web_repo, PR_NUMBER, facts.sync_branch, failing),
        *_ci_runs(tuple((n, "completed", "success") for n, _s, _c in CI_CHECKS)),
    ]
    for number, sha in zip(MERGED_SYNC_PRS, earlier_heads, strict=True):
        commits[sha].check_runs += [
            _dco_run(web_repo, number, f"main2dev/{number}", failing[:2]),
            *_ci_runs((("CI / gate", "completed", "success"),)),
        ]

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
    git: Git, facts: DemoFacts, shas: list[str], findings: dict[str, t.Finding], web_repo: str
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
    resolved = t.Finding(
        "F9",
        "CRITICAL",
        "Correctness",
        "Restore the dropped import",
        "the resolution dropped an import main's code calls.",
        findings["F8"].cited,
        facts.repair,
    )
    carried = [findings[k] for k in ("F6", "F7", "F8", "F10")]
    earlier = [findings[k] for k in ("F1", "F2", "F6", "F7", "F10")]
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
    pull.reviews = [
        ReviewSpec(
            EARLIER_REVIEW_ID,
            REVIEW_BOT,
            t.earlier_review_body(web_repo, earlier),
            facts.merge,
            "COMMENTED",
            "2025-01-05T12:00:00Z",
        ),
        ReviewSpec(
            STRICT_REVIEW_ID,
            REVIEW_BOT,
            t.strict_review_body(
                web_repo, carried, ["F1", "F2"], resolved, EARLIER_REVIEW_ID, frozenset({"F8"})
            ),
            facts.repair,
            "COMMENTED",
            "2025-01-06T11:00:00Z",
        ),
        # GitHub wraps a reply posted outside a review in its own, empty, review.
        ReviewSpec(
            REPLY_REVIEW_ID, MAINTAINER, "", facts.repair, "COMMENTED", "2025-01-06T12:00:00Z"
        ),
    ]
    pull.review_comments = _inline_comments(git, facts, findings)
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


def _inline_comments(
    git: Git, facts: DemoFacts, findings: dict[str, t.Finding]
) -> list[ReviewCommentSpec]:
    single, multi = findings["F1"].cited, findings["F2"].cited
    single_lines = file_lines(git, facts.repair, single.path)
    multi_lines = file_lines(git, facts.repair, multi.path)
    start = multi.start if multi.end > multi.start else max(1, multi.start - 1)
    path, old_line, old_hunk = _outdated_anchor(git, facts)
    outdated = t.Finding(
        "F3",
        "CRITICAL",
        "Correctness",
        "The resolution drops a name main calls",
        "the merged file no longer imports a helper that main's code calls.",
        LineRange(path, old_line, old_line, "merge"),
        facts.merge,
    )
    return [
        ReviewCommentSpec(
            1_800_000_001,
            REVIEW_BOT,
            t.inline_body(outdated),
            path,
            facts.merge,
            facts.merge,
            line=None,
            original_line=old_line,
            review_id=EARLIER_REVIEW_ID,
            diff_hunk=old_hunk,
            created_at="2025-01-05T12:00:00Z",
        ),
        ReviewCommentSpec(
            1_800_000_002,
            REVIEW_BOT,
            t.inline_body(findings["F1"]),
            single.path,
            facts.repair,
            facts.repair,
            line=single.start,
            original_line=single.start,
            review_id=STRICT_REVIEW_ID,
            diff_hunk=diff_hunk(single_lines, single.start, single.start),
            created_at="2025-01-06T11:00:00Z",
        ),
        ReviewCommentSpec(
            1_800_000_003,
            REVIEW_BOT,
            t.inline_body(findings["F2"]),
            multi.path,
            facts.repair,
            facts.repair,
            line=multi.end,
            original_line=multi.end,
            start_line=start,
            original_start_line=start,
            start_side="RIGHT",
            review_id=STRICT_REVIEW_ID,
            diff_hunk=diff_hunk(multi_lines, start, multi.end),
            created_at="2025-01-06T11:00:00Z",
        ),
        ReviewCommentSpec(
            1_800_000_004,
            MAINTAINER,
            "These lines arrive unchanged from main, so the fix belongs on main; it will reach "
            "dev with a later slice. Tracking it there.",
            single.path,
            facts.repair,
            facts.repair,
            line=single.start,
            original_line=single.start,
            review_id=REPLY_REVIEW_ID,
            in_reply_to_id=1_800_000_002,
            diff_hunk=diff_hunk(single_lines, single.start, single.start),
            created_at="2025-01-06T12:00:00Z",
        ),
    ]


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


def _codecov(git: Git, facts: DemoFacts) -> CodecovSpec:
    """Patch coverage under target, with uncovered lines in the files the merge and repair wrote."""
    added = 0
    for line in git.lines("diff", "--numstat", facts.dev_base, facts.repair, "--", "*.py"):
        count = line.split("\t")[0]
        added += int(count) if count.isdigit() else 0
    hits = round(added * 0.7014)
    spec = CodecovSpec(
        pullid=PR_NUMBER,
        base_commit=facts.dev_base,
        head_commit=facts.repair,
        patch_hits=hits,
        patch_misses=added - hits,
        patch_partials=0,
        title="main → dev sync: the oldest 100 commits of dev..main",
        author=MAINTAINER,
        ci_passed=False,
    )
    touched = sorted(
        set(git.lines("diff", "--name-only", facts.merge, facts.repair, "--", "*.py"))
        | {p for p in facts.evil_merge_files if p.endswith(".py")}
    )
    for path in touched:
        lines = file_lines(git, facts.repair, path)
        numbers = [
            n
            for _o, _oc, start, count in changed_hunks(git, facts.dev_base, facts.repair, path)
            for n in range(start, start + count)
        ][:12]
        spec.files.append(
            CodecovFile(
                path,
                [
                    CodecovLine(n, lines[n - 1], 1 if i % 3 == 0 else 0)
                    for i, n in enumerate(numbers)
                ],
            )
        )
    return spec


def _notes(facts: DemoFacts, findings: dict[str, t.Finding], pull: PullSpec) -> dict[str, object]:
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
