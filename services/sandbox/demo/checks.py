"""The demo PR's checks: DCO and CI check runs, Codecov's check run, statuses and report.

The head fails DCO (the slice's unsigned and mis-signed commits), one CI job
and Codecov's patch target; the previous head and the merged sync PRs' heads
carry the runs they had.
"""

from __future__ import annotations

from syncdesk.services.demo.facts import DemoFacts
from syncdesk.services.git.runner import Git
from syncdesk.services.sandbox.codecov import patch_status_text
from syncdesk.services.sandbox.demo import texts as t
from syncdesk.services.sandbox.demo.cast import MAINTAINER, MERGED_SYNC_PRS, NAME, OWNER, PR_NUMBER
from syncdesk.services.sandbox.demo.git import RawCommit, changed_hunks, file_lines
from syncdesk.services.sandbox.scenario import (
    CheckRunSpec,
    CodecovFile,
    CodecovLine,
    CodecovSpec,
    CommitSpec,
    StatusSpec,
)

CI_CHECKS = (
    ("CI / gate", "in_progress", None),
    ("CI / unit-tests", "completed", "success"),
    ("CI / lint", "completed", "success"),
    ("CI / functional", "completed", "failure"),
)


def dco_run(web_repo: str, number: int, head_ref: str, failing: list[RawCommit]) -> CheckRunSpec:
    """The DCO app's run: action required, naming the commits that fail the sign-off check."""
    return CheckRunSpec(
        name="DCO",
        conclusion="action_required",
        title="DCO",
        summary=t.dco_summary(web_repo, number, head_ref, failing),
        app_slug="dco",
        app_name="DCO",
        completed_at="2025-01-06T09:01:10Z",
    )


def ci_runs(conclusions: tuple[tuple[str, str, str | None], ...]) -> list[CheckRunSpec]:
    """One workflow job run per ``(name, status, conclusion)``; ``None``: still running."""
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


def add_check_reports(
    commits: dict[str, CommitSpec],
    facts: DemoFacts,
    coverage: CodecovSpec,
    failing: list[RawCommit],
    earlier_heads: list[str],
    web_repo: str,
) -> None:
    """Attach check runs and statuses: the head's, the previous head's, the merged PRs' heads'."""
    head = commits[facts.repair]
    patch_text = patch_status_text(coverage)
    head.check_runs += [
        dco_run(web_repo, PR_NUMBER, facts.sync_branch, failing),
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
        *ci_runs(CI_CHECKS),
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
        dco_run(web_repo, PR_NUMBER, facts.sync_branch, failing),
        *ci_runs(tuple((n, "completed", "success") for n, _s, _c in CI_CHECKS)),
    ]
    for number, sha in zip(MERGED_SYNC_PRS, earlier_heads, strict=True):
        commits[sha].check_runs += [
            dco_run(web_repo, number, f"main2dev/{number}", failing[:2]),
            *ci_runs((("CI / gate", "completed", "success"),)),
        ]


def codecov_spec(git: Git, facts: DemoFacts) -> CodecovSpec:
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
