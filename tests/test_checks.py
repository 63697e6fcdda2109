"""The CI rollup, the "/ok to test" trigger and labels: pure cases, then the demo over real HTTP."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator

import pytest

from syncdesk.services.demo.facts import DemoFacts
from syncdesk.services.github.api import GitHubClient, GitHubError, GitHubTarget, markers_in
from syncdesk.services.github.checks import (
    STATUS_ROLLUP_QUERY,
    CheckItem,
    RollupContext,
    check_state,
    fetch_rollup,
    latest_runs,
    latest_statuses,
    post_ci_trigger,
    rollup,
    status_state,
    toggle_label,
    trigger_key,
    trigger_text,
)
from syncdesk.services.github.models import CheckRun, CommitStatus, PullRequest
from syncdesk.services.github.token import Token
from syncdesk.services.sandbox.demo.scenario import demo_scenario
from syncdesk.services.sandbox.graphql.schema import validate_query
from syncdesk.services.sandbox.scenario import CheckRunSpec, Scenario
from syncdesk.services.sandbox.server import Sandbox

PR = 4242
GATE = "CI / gate"
TOKEN = Token("demo", "the demo sandbox")


def _run(
    name: str,
    conclusion: str | None = "success",
    *,
    status: str = "completed",
    run_id: int = 1,
    started: str = "2025-01-06T10:00:00Z",
    title: str = "",
) -> CheckRun:
    return CheckRun(
        id=run_id,
        name=name,
        status=status,
        conclusion=conclusion if status == "completed" else None,
        title=title,
        summary="",
        app_slug="github-actions",
        html_url=f"https://github.com/o/r/runs/{run_id}",
        details_url="",
        started_at=started,
        completed_at="",
    )


def _status(
    context: str, state: str, *, status_id: int = 1, created: str = "2025-01-06T10:00:00Z"
) -> CommitStatus:
    return CommitStatus(status_id, context, state, f"{context} {state}", "https://ci/x", created)


def _pr(runs: tuple[CheckRun, ...] = (), statuses: tuple[CommitStatus, ...] = ()) -> PullRequest:
    return PullRequest(
        number=7,
        title="sync",
        body="",
        user="mara",
        state="open",
        merged=False,
        head_ref="main2dev/7",
        head_sha="a" * 40,
        base_ref="dev",
        base_sha="b" * 40,
        html_url="https://github.com/o/r/pull/7",
        check_runs=runs,
        statuses=statuses,
    )


def _by_name(items: tuple[CheckItem, ...]) -> dict[tuple[str, str], CheckItem]:
    return {(item.name, item.kind): item for item in items}


# -- de-duplication ------------------------------------------------------------------------


def test_a_rerun_replaces_the_earlier_run_of_the_same_name() -> None:
    failed = _run("CI / lint", "failure", run_id=5, started="2025-01-06T10:00:00Z")
    rerun = _run("CI / lint", "success", run_id=9, started="2025-01-06T11:00:00Z")
    other = _run("CI / unit", "success", run_id=6)
    result = rollup(_pr((rerun, failed, other)), gate="", required=(), exempt=())
    assert [(i.name, i.state) for i in result.items] == [
        ("CI / lint", "success"),
        ("CI / unit", "success"),
    ]
    assert result.state == "success"


def test_the_later_start_wins_over_a_higher_id_and_the_id_breaks_ties() -> None:
    later = _run("build", "failure", run_id=3, started="2025-01-06T12:00:00+00:00")
    earlier = _run("build", "success", run_id=8, started="2025-01-06T11:00:00Z")
    assert latest_runs([earlier, later]) == [later]
    tie_low = _run("build", "failure", run_id=3)
    tie_high = _run("build", "success", run_id=4)
    assert latest_runs([tie_high, tie_low]) == [tie_high]
    assert latest_runs([tie_low, tie_high]) == [tie_high]


def test_the_latest_status_per_context_counts() -> None:
    old = _status("ci/jenkins", "failure", status_id=1, created="2025-01-06T09:00:00Z")
    new = _status("ci/jenkins", "success", status_id=2, created="2025-01-06T10:00:00Z")
    assert latest_statuses([new, old]) == [new]
    result = rollup(_pr(statuses=(old, new)), gate="", required=(), exempt=())
    assert [(i.name, i.state) for i in result.items] == [("ci/jenkins", "success")]


def test_a_check_run_and_a_status_of_the_same_name_are_one_line_counted_once() -> None:
    # Codecov posts codecov/patch as both; GitHub requires both to pass.
    pr = _pr((_run("codecov/patch", "failure"),), (_status("codecov/patch", "failure"),))
    result = rollup(pr, gate="", required=(), exempt=())
    assert [(i.name, i.kind, i.kinds) for i in result.items] == [
        ("codecov/patch", "check", ("check", "status"))
    ]
    assert len(result.failing) == 1


@pytest.mark.parametrize(("run", "status", "state"), [
    ("success", "failure", "failure"),
    ("failure", "success", "failure"),
    ("success", "pending", "pending"),
    ("success", "success", "success"),
])  # fmt: skip
def test_a_check_run_and_a_status_of_one_name_show_the_worse_state(
    run: str, status: str, state: str
) -> None:
    pr = _pr((_run("codecov/patch", run),), (_status("codecov/patch", status),))
    result = rollup(pr, gate="", required=(), exempt=())
    assert [(i.name, i.state) for i in result.items] == [("codecov/patch", state)]
    assert result.state == state


# -- states --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("status", "conclusion", "state"),
    [
        ("completed", "success", "success"),
        ("completed", "failure", "failure"),
        ("completed", "timed_out", "failure"),
        ("completed", "startup_failure", "failure"),
        ("completed", "action_required", "action_required"),
        ("completed", "cancelled", "cancelled"),
        ("completed", "skipped", "skipped"),
        ("completed", "neutral", "neutral"),
        ("completed", "stale", "pending"),
        ("in_progress", None, "pending"),
        ("queued", None, "pending"),
        ("waiting", None, "pending"),
        ("COMPLETED", "ACTION_REQUIRED", "action_required"),  # GraphQL's enums
    ],
)
def test_check_run_states_map_like_gh(status: str, conclusion: str | None, state: str) -> None:
    assert check_state(status, conclusion) == state


@pytest.mark.parametrize(
    ("raw", "state"),
    [
        ("success", "success"),
        ("failure", "failure"),
        ("error", "failure"),
        ("pending", "pending"),
        ("EXPECTED", "pending"),
    ],
)
def test_commit_status_states_map_like_gh(raw: str, state: str) -> None:
    assert status_state(raw) == state


@pytest.mark.parametrize("blocking", ["action_required", "cancelled", "timed_out", "failure"])
def test_blocking_conclusions_fail_the_rollup(blocking: str) -> None:
    pr = _pr((_run("DCO", blocking, run_id=1), _run("build", "success", run_id=2)))
    result = rollup(pr, gate="", required=(), exempt=())
    assert result.state == "failure"
    assert [i.name for i in result.failing] == ["DCO"]


def test_skipped_and_neutral_pass_and_unfinished_is_pending() -> None:
    pr = _pr(
        (
            _run("a", "skipped", run_id=1),
            _run("b", "neutral", run_id=2),
            _run("c", status="queued", run_id=3),
        )
    )
    result = rollup(pr, gate="", required=(), exempt=())
    assert {i.name for i in result.passed} == {"a", "b"}
    assert [i.name for i in result.pending] == ["c"]
    assert result.state == "pending"
    assert not _by_name(result.items)["c", "check"].finished


# -- grouping ------------------------------------------------------------------------------


def test_gate_required_exempt_and_other_groups() -> None:
    pr = _pr(
        (
            _run("CI / gate", status="in_progress", run_id=1),
            _run("CI / unit-tests", "success", run_id=2),
            _run("docs / preview", "failure", run_id=3),
            _run("DCO", "success", run_id=4),
        ),
        (_status("codecov/project", "failure"),),
    )
    result = rollup(
        pr, gate=GATE, required=("CI / *", "DCO"), exempt=("docs / *", "codecov/project")
    )
    groups = {name: item.group for (name, _kind), item in _by_name(result.items).items()}
    assert groups == {
        "CI / gate": "gate",
        "CI / unit-tests": "required",
        "DCO": "required",
        "docs / preview": "exempt",
        "codecov/project": "exempt",
    }
    assert [i.group for i in result.items] == ["gate", "required", "required", "exempt", "exempt"]
    assert result.gate is not None and result.gate.name == GATE
    # The exempt failures never count: only the gate keeps the verdict pending.
    assert result.state == "pending"
    assert result.failing == ()
    assert {i.name for i in result.exempt} == {"docs / preview", "codecov/project"}


def test_the_gate_is_an_exact_name_and_required_wins_over_exempt() -> None:
    pr = _pr((_run("CI / gate-extra", "success", run_id=1), _run("lint", "failure", run_id=2)))
    result = rollup(pr, gate="CI / gate*", required=("lint",), exempt=("lint", "CI / *"))
    assert result.gate is None
    assert _by_name(result.items)["lint", "check"].group == "required"
    assert _by_name(result.items)["CI / gate-extra", "check"].group == "exempt"
    assert result.state == "failure"


def test_a_gate_that_has_not_reported_keeps_the_verdict_pending() -> None:
    result = rollup(_pr((_run("lint", "success"),)), gate=GATE, required=(), exempt=())
    assert result.gate is None
    assert result.missing == (GATE,)
    assert result.state == "pending"


def test_graphql_required_marks_make_items_required() -> None:
    contexts = [
        RollupContext("check", "DCO", "completed", "success", "", "", "", is_required=True),
        RollupContext("status", "ci/x", "", "success", "", "", "", is_required=False),
    ]
    result = rollup(_pr(), gate="", required=(), exempt=("DCO",), contexts=contexts)
    assert _by_name(result.items)["DCO", "check"].group == "required"
    assert _by_name(result.items)["ci/x", "status"].group == "other"


# -- the demo over real HTTP ---------------------------------------------------------------


@pytest.fixture
def sandbox(demo_facts: DemoFacts) -> Iterator[Sandbox]:
    with Sandbox(demo_scenario(demo_facts)) as running:
        yield running


def _target(sandbox: Sandbox) -> GitHubTarget:
    return GitHubTarget(sandbox.base_url, "https://github.com", "lumen-ai", "lumen")


def _client(sandbox: Sandbox) -> GitHubClient:
    return GitHubClient(_target(sandbox), TOKEN)


def _no_404(sandbox: Sandbox) -> None:
    missing = [r for r in sandbox.requests if r["status"] == 404]
    assert not missing, missing


def test_the_demo_rollup_gate_pending_functional_failing_overall_failure(
    sandbox: Sandbox,
) -> None:
    pr = _client(sandbox).pull_request(PR)
    result = rollup(pr, gate=GATE, required=(), exempt=("codecov/project",))
    assert result.gate is not None
    assert (result.gate.state, result.gate.finished) == ("pending", False)
    items = _by_name(result.items)
    assert items["CI / functional", "check"].state == "failure"
    assert items["DCO", "check"].state == "action_required"
    assert items["codecov/patch", "check"].state == "failure"
    assert items["codecov/patch", "check"].kinds == ("check", "status")
    assert items["codecov/project", "status"].group == "exempt"
    assert sorted(i.name for i in result.failing) == ["CI / functional", "DCO", "codecov/patch"]
    assert {i.name for i in result.passed} == {"CI / unit-tests", "CI / lint"}
    assert result.state == "failure"
    assert result.items[0] == result.gate
    _no_404(sandbox)


def test_the_rollup_query_validates_against_githubs_schema() -> None:
    assert validate_query(STATUS_ROLLUP_QUERY) == []
    typo = STATUS_ROLLUP_QUERY.replace("conclusion\n", "conclusionn\n")
    assert validate_query(typo)


def test_graphql_rollup_equals_the_rest_rollup_on_the_demo(sandbox: Sandbox) -> None:
    pr = _client(sandbox).pull_request(PR)
    contexts = fetch_rollup(_target(sandbox), TOKEN, PR, head_sha=pr.head_sha)
    assert contexts is not None
    required = {c.name for c in contexts if c.is_required}
    assert required == set(sandbox.scenario.required_checks)
    exempt = ("codecov/project",)
    through_graphql = rollup(pr, gate=GATE, required=(), exempt=exempt, contexts=contexts)
    through_rest = rollup(pr, gate=GATE, required=sorted(required), exempt=exempt)
    assert through_graphql == through_rest
    assert through_graphql.state == "failure"
    assert any(r["path"].endswith("/graphql") for r in sandbox.requests)
    _no_404(sandbox)


def test_graphql_reads_every_page_of_contexts(demo_facts: DemoFacts) -> None:
    scenario = demo_scenario(demo_facts)
    head = next(c for c in scenario.commits if c.sha == demo_facts.repair)
    head.check_runs += [
        CheckRunSpec(name=f"matrix / py{n:03d}", conclusion="success") for n in range(150)
    ]
    with Sandbox(scenario) as sandbox:
        contexts = fetch_rollup(_target(sandbox), TOKEN, PR)
        graphql_calls = [r for r in sandbox.requests if r["path"].endswith("/graphql")]
    assert contexts is not None
    names = {c.name for c in contexts}
    assert {f"matrix / py{n:03d}" for n in range(150)} <= names
    assert {"DCO", GATE, "codecov/patch", "codecov/project"} <= names
    assert len(graphql_calls) == 2


def _empty_head(facts: DemoFacts) -> Scenario:
    scenario = demo_scenario(facts)
    head = next(c for c in scenario.commits if c.sha == facts.repair)
    head.check_runs.clear()
    head.statuses.clear()
    return scenario


def test_no_checks_at_all_gives_none_and_rest_says_nothing_failed(demo_facts: DemoFacts) -> None:
    with Sandbox(_empty_head(demo_facts)) as sandbox:
        assert fetch_rollup(_target(sandbox), TOKEN, PR) is None
        pr = _client(sandbox).pull_request(PR)
    result = rollup(pr, gate=GATE, required=(), exempt=())
    assert result.items == ()
    assert result.state == "pending"  # the gate is expected
    assert rollup(pr, gate="", required=(), exempt=()).state == "success"


def test_graphql_unavailable_or_a_moved_head_gives_none(sandbox: Sandbox) -> None:
    sandbox.inject_fault("POST", "graphql", 502)
    assert fetch_rollup(_target(sandbox), TOKEN, PR) is None
    assert fetch_rollup(_target(sandbox), TOKEN, PR, head_sha="0" * 40) is None
    assert fetch_rollup(_target(sandbox), TOKEN, 999_999) is None  # GraphQL: pull is null


# -- the CI trigger ------------------------------------------------------------------------


def test_trigger_text_uses_the_full_sha_and_only_the_first_line() -> None:
    sha = "0123456789abcdef0123456789abcdef01234567"
    assert trigger_text("/ok to test {sha}", sha) == f"/ok to test {sha}"
    assert trigger_text("  /test {sha} {keep}\nsecond line", sha) == f"/test {sha} {{keep}}"
    with pytest.raises(ValueError, match="full commit"):
        trigger_text("/ok to test {sha}", sha[:7])
    with pytest.raises(ValueError, match="empty"):
        trigger_text("  ", sha)


def _comment_posts(sandbox: Sandbox) -> list[dict[str, object]]:
    return [
        w
        for w in sandbox.writes
        if w["method"] == "POST" and str(w["path"]).endswith(f"/issues/{PR}/comments")
    ]


def test_the_trigger_is_posted_once_per_head_sha(sandbox: Sandbox, demo_facts: DemoFacts) -> None:
    client = _client(sandbox)
    pr = client.pull_request(PR)
    first = post_ci_trigger(client, pr, "/ok to test {sha}")
    second = post_ci_trigger(client, pr, "/ok to test {sha}")
    assert not first.already_posted
    assert second.already_posted and second.comment_id == first.comment_id
    assert len(_comment_posts(sandbox)) == 1
    body = next(c.body for c in client.pull_request(PR).issue_comments if c.id == first.comment_id)
    lines = body.splitlines()
    assert lines[0] == f"/ok to test {demo_facts.repair}"  # the bot's line, alone
    assert trigger_key(demo_facts.repair) in markers_in(body)
    moved = dataclasses.replace(pr, head_sha=demo_facts.merge)
    assert not post_ci_trigger(client, moved, "/ok to test {sha}").already_posted
    assert len(_comment_posts(sandbox)) == 2
    _no_404(sandbox)


def test_a_trigger_github_stored_despite_a_502_is_not_sent_again(sandbox: Sandbox) -> None:
    client = _client(sandbox)
    pr = client.pull_request(PR)
    sandbox.inject_fault("POST", f"/issues/{PR}/comments$", 502, apply=True)
    first = post_ci_trigger(client, pr, "/ok to test {sha}")
    assert first.confirmed_after_error
    again = post_ci_trigger(client, pr, "/ok to test {sha}")
    assert again.already_posted and again.comment_id == first.comment_id
    assert len(_comment_posts(sandbox)) == 1


def test_a_trigger_that_failed_outright_is_reported(sandbox: Sandbox) -> None:
    client = _client(sandbox)
    pr = client.pull_request(PR)
    sandbox.inject_fault("POST", f"/issues/{PR}/comments$", 502)
    with pytest.raises(GitHubError, match="press again"):
        post_ci_trigger(client, pr, "/ok to test {sha}")
    assert [w["status"] for w in _comment_posts(sandbox)] == [502]
    assert not post_ci_trigger(client, pr, "/ok to test {sha}").already_posted
    assert [w["status"] for w in _comment_posts(sandbox)] == [502, 201]


# -- labels --------------------------------------------------------------------------------


def test_toggling_a_label_shows_on_the_next_read(sandbox: Sandbox) -> None:
    client = _client(sandbox)
    pr = client.pull_request(PR)
    assert "Run MBridge tests" not in pr.labels
    added = toggle_label(client, pr, "Run MBridge tests")
    assert added == (*pr.labels, "Run MBridge tests")
    assert client.pull_request(PR).labels == added
    assert client.labels(PR) == added
    removed = toggle_label(client, pr, "run mbridge tests")  # GitHub's names ignore case
    assert removed == pr.labels
    assert client.pull_request(PR).labels == pr.labels
    label_writes = [w for w in sandbox.writes if "/labels" in str(w["path"])]
    assert [w["method"] for w in label_writes] == ["POST", "DELETE"]
    _no_404(sandbox)


def test_a_label_with_a_slash_is_one_path_segment(sandbox: Sandbox) -> None:
    client = _client(sandbox)
    pr = client.pull_request(PR)
    assert "area/ci" in toggle_label(client, pr, "area/ci")
    assert "area/ci" not in toggle_label(client, pr, "area/ci")
    _no_404(sandbox)


def test_a_label_write_is_never_retried_and_confirmed_by_reading_back(sandbox: Sandbox) -> None:
    client = _client(sandbox)
    sandbox.inject_fault("POST", f"/issues/{PR}/labels$", 502, apply=True)
    assert "needs-dco-override" in client.add_label(PR, "needs-dco-override")
    posts = [w for w in sandbox.writes if str(w["path"]).endswith(f"/issues/{PR}/labels")]
    assert len(posts) == 1
    sandbox.inject_fault("DELETE", f"/issues/{PR}/labels/", 502)
    with pytest.raises(GitHubError, match="label was not changed"):
        client.remove_label(PR, "needs-dco-override")
    assert "needs-dco-override" in client.labels(PR)
