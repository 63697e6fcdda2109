"""DCO on the sync pull request: the app's rule per commit, GitHub's verdict, the override request.

The rules are pure-function tests; everything GitHub says is read over real
HTTP from the sandbox serving the demo world's PR #4242.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import replace

import pytest
from markdown_it import MarkdownIt

from syncdesk.services.demo.facts import DemoFacts
from syncdesk.services.demo.world import build_world
from syncdesk.services.github.api import GitHubClient, GitHubTarget, markers_in
from syncdesk.services.github.dco import (
    DcoReport,
    GitHubDco,
    Precedent,
    dco_report,
    find_precedent,
    github_dco,
    override_key,
    override_request,
    post_override_request,
    sync_branch_prefix,
)
from syncdesk.services.github.models import CheckRun, CommitStatus, PrCommit, PullRequest
from syncdesk.services.github.token import Token
from syncdesk.services.sandbox.demo.scenario import demo_scenario
from syncdesk.services.sandbox.scenario import CheckRunSpec, Scenario
from syncdesk.services.sandbox.server import Sandbox

PR = 4242
AUTHOR = ("Carol Coder", "carol@corp.example")
COMMITTER = ("Ada Maintainer", "ada@example.com")
HEAD = "f" * 40


# -- pure: the DCO app's rule ------------------------------------------------------------


def _commit(
    message: str,
    *,
    sha: str = "a" * 40,
    author: tuple[str, str] = AUTHOR,
    committer: tuple[str, str] = COMMITTER,
    parents: tuple[str, ...] = ("0" * 40,),
) -> PrCommit:
    return PrCommit(
        sha=sha,
        message=message,
        author_name=author[0],
        author_email=author[1],
        committer_name=committer[0],
        committer_email=committer[1],
        author_login=None,
        parents=parents,
    )


def _pr(
    *commits: PrCommit,
    runs: tuple[CheckRun, ...] = (),
    statuses: tuple[CommitStatus, ...] = (),
) -> PullRequest:
    return PullRequest(
        number=7,
        title="sync",
        body="",
        user="mara",
        state="open",
        merged=False,
        head_ref="main2dev/7",
        head_sha=HEAD,
        base_ref="dev",
        base_sha="b" * 40,
        html_url="https://github.com/o/r/pull/7",
        commits=commits,
        check_runs=runs,
        statuses=statuses,
    )


def _run(run_id: int, conclusion: str | None, status: str = "completed") -> CheckRun:
    return CheckRun(
        id=run_id,
        name="DCO",
        status=status,
        conclusion=conclusion,
        title="DCO",
        summary=f"run {run_id}",
        app_slug="dco",
        html_url=f"https://github.com/o/r/runs/{run_id}",
        details_url="",
        started_at="",
        completed_at="",
    )


def _reason(message: str) -> str | None:
    report = dco_report(_pr(_commit(message)), imported=(), bots=())
    return report.failures[0].reason if report.failures else None


@pytest.mark.parametrize(
    ("message", "reason"),
    [
        ("Fix\n\nSigned-off-by: Carol Coder <carol@corp.example>", None),  # the author
        ("Fix\n\nSigned-off-by: Ada Maintainer <ada@example.com>", None),  # the committer
        ("Fix\n\nsigned-off-by: CAROL coder <Carol@CORP.example>", None),  # any case
        ("Fix\n\nSigned-off-by: Carol Coder <carol@corp.example>  \t", None),  # trailing space
        ("Fix\r\n\r\nSigned-off-by: Carol Coder <carol@corp.example>\r\n", None),  # CRLF
        # The name of one and the email of the other: the app accepts it.
        ("Fix\n\nSigned-off-by: Carol Coder <ada@example.com>", None),
        ("Fix the loader (#12)", "no Signed-off-by"),
        (
            "Fix\n\nSigned-off-by: Carol Coder <carol@users.noreply.github.com>",
            "signed off by Carol Coder <carol@users.noreply.github.com>: the email is "
            "neither the author's nor the committer's",
        ),
        (
            "Fix\n\nSigned-off-by: Someone Else <carol@corp.example>",
            "signed off by Someone Else <carol@corp.example>: the name is neither the "
            "author's nor the committer's",
        ),
        (
            "Fix\n\nSigned-off-by: Mallory <mallory@evil.example>",
            "signed off by Mallory <mallory@evil.example>, who is neither the author nor "
            "the committer",
        ),
        (
            "Fix\n\nSigned-off-by:Carol Coder <carol@corp.example>",  # no space: not the app's
            "a Signed-off-by line the DCO app cannot read (it wants 'Name <email>')",
        ),
        # Several trailers: one valid among them is enough ...
        (
            "Fix\n\nSigned-off-by: Bot <bot@example.com>\n"
            "Signed-off-by: Carol Coder <carol@corp.example>",
            None,
        ),
        # ... and when none is valid, all of them are named.
        (
            "Fix\n\nSigned-off-by: Bot <bot@example.com>\nSigned-off-by: Eve <eve@example.com>",
            "none of its 2 sign-offs (Bot <bot@example.com>, Eve <eve@example.com>) is the "
            "author or the committer",
        ),
    ],
)
def test_each_commit_is_judged_by_the_dco_apps_rule(message: str, reason: str | None) -> None:
    assert _reason(message) == reason


def test_merges_and_allow_listed_bots_are_skipped_and_reported() -> None:
    merge = _commit("Merge main", sha="1" * 40, parents=("2" * 40, "3" * 40))
    by_email = _commit(
        "chore: rotate", sha="4" * 40, author=("Release Bot", "41898282+GH-Actions@Bots.Example")
    )
    by_name = _commit("bump", sha="5" * 40, author=("dependabot[bot]", "x@example.com"))
    person = _commit("Fix", sha="6" * 40)
    report = dco_report(
        _pr(merge, by_email, by_name, person),
        imported=(),
        bots=("*@bots.example", "DEPENDABOT*"),
    )
    assert [f.sha for f in report.failures] == [person.sha]  # unsigned, and not a bot
    assert [(s.sha, s.reason) for s in report.skipped] == [
        (merge.sha, "merge commit"),
        (by_email.sha, "bot author (matches '*@bots.example')"),
        (by_name.sha, "bot author (matches 'DEPENDABOT*')"),
    ]
    assert report.checked == 1


def test_imported_commits_are_not_fixable_and_ours_are() -> None:
    imported = _commit("chore: rotate", sha="1" * 40, author=("Bot", "bot@example.com"))
    repair = _commit("Repair the sync", sha="2" * 40)
    report = dco_report(_pr(imported, repair), imported={imported.sha}, bots=())
    first, second = report.failures
    assert (first.imported, first.fixable) == (True, False)
    assert (second.imported, second.fixable) == (False, True)
    assert first.author == "Bot <bot@example.com>"
    assert first.committer == "Ada Maintainer <ada@example.com>"
    assert first.subject == "chore: rotate"
    assert report.imported_failures == (first,) and report.fixable_failures == (second,)


def test_githubs_verdict_is_the_latest_dco_run_and_agreement_follows_it() -> None:
    unsigned = _commit("Fix")
    rerun = (_run(10, "success"), _run(12, "action_required"), _run(11, "success"))
    report = dco_report(_pr(unsigned, runs=rerun), imported=(), bots=())
    assert report.github is not None
    assert (report.github.conclusion, report.github.html_url) == (
        "action_required",
        "https://github.com/o/r/runs/12",
    )
    assert report.github.summary == "run 12"
    assert report.agrees is True
    overridden = dco_report(_pr(unsigned, runs=(*rerun, _run(13, "success"))), imported=(), bots=())
    assert overridden.agrees is False  # "Set DCO to pass" was pressed
    signed = _commit("Fix\n\nSigned-off-by: Carol Coder <carol@corp.example>")
    assert dco_report(_pr(signed, runs=rerun), imported=(), bots=()).agrees is False
    running = dco_report(_pr(unsigned, runs=(_run(14, None, "in_progress"),)), imported=(), bots=())
    assert running.github is not None and running.github.status == "in_progress"
    assert running.agrees is None
    assert dco_report(_pr(unsigned), imported=(), bots=()).agrees is None


def test_a_dco_commit_status_is_the_fallback() -> None:
    status = CommitStatus(3, "DCO", "failure", "1 commit unsigned", "https://dco.example/7", "")
    other = CommitStatus(4, "ci", "success", "", "", "")
    found = github_dco((), (status, other))
    assert found == GitHubDco(
        "commit status", "completed", "failure", "1 commit unsigned", "https://dco.example/7"
    )
    assert found.failing is True
    pending = replace(status, id=5, state="pending")
    assert github_dco((), (status, pending)) == GitHubDco(
        "commit status", "pending", None, "1 commit unsigned", "https://dco.example/7"
    )
    assert github_dco((), (other,)) is None


def test_the_branch_prefix_of_sync_pull_requests() -> None:
    assert sync_branch_prefix("main2dev/4242") == "main2dev/"
    assert sync_branch_prefix("bot/sync/main-dev/12") == "bot/sync/main-dev/"
    assert sync_branch_prefix("main-dev-sync") == "main-dev-sync"  # one reused branch


# -- the override request (pure) ---------------------------------------------------------


def _hostile_report() -> tuple[DcoReport, PullRequest]:
    evil = _commit(
        "Ping @octocat about #1234 [click](https://evil.example) <!-- x --> | cell",
        sha="1" * 40,
        author=("@admins <img src=x>", "eve@evil.example"),
    )
    repair = _commit("Repair", sha="2" * 40)
    pr = _pr(evil, repair, runs=(_run(12, "action_required"),))
    return dco_report(pr, imported={evil.sha}, bots=()), pr


def _outside_code(markdown: str) -> str:
    """``markdown`` without its code spans: where GitHub reads mentions and references."""
    return re.sub(r"(`+)(?:(?!\1).)*?\1", "", markdown)


def test_the_request_escapes_every_untrusted_string() -> None:
    report, pr = _hostile_report()
    text = override_request(report, pr, maintainers=("@alice", "org/team"), precedent=())
    assert text.count("@alice @org/team: ") == 1
    prose = _outside_code(text)
    mentions = [m.start() for m in re.finditer("@", prose)]
    handles = {prose.index("@alice"), prose.index("@org/team")}
    assert all(prose[at + 1] == "\u200d" for at in mentions if at not in handles)
    assert "#1234" not in prose  # no cross-reference either
    # Rendered as GitHub's markdown (CommonMark and its tables): no link, image or
    # HTML comes out of the untrusted strings; they are literal text in code.
    html = MarkdownIt("commonmark").enable("table").render(text)
    assert "<img" not in html and "<!--" not in html and 'href="https://evil' not in html
    assert (
        "<code>Ping @octocat about #1234 [click](https://evil.example) &lt;!-- x --&gt; | cell"
        in html
    )
    table = [line for line in text.splitlines() if line.startswith("| 1111111 ")]
    assert len(table) == 1 and table[0].count(" | ") == 3  # the "|" in the subject is escaped


def test_the_request_shows_names_without_escapes() -> None:
    # The preview showed `&lt;` and `\\[bot\\]`: names and subjects are code, as written.
    report, pr = _hostile_report()
    text = override_request(report, pr, maintainers=(), precedent=())
    assert "`@admins <img src=x> <eve@evil.example>`" in text


def test_the_request_names_our_fixable_commits_apart_and_has_a_neutral_opening() -> None:
    report, pr = _hostile_report()
    text = override_request(report, pr, maintainers=(), precedent=())
    assert text.splitlines()[2].startswith("A maintainer with write access")
    assert "@" not in _outside_code(text).replace("@\u200d", "")
    ours = next(line for line in text.splitlines() if line.startswith("Not part of this request"))
    assert "2222222 (no Signed-off-by)" in ours
    assert "the repair commit will be rewritten with a valid sign-off" in ours
    assert "Precedent" not in text
    assert "[DCO check run](https://github.com/o/r/runs/12)" in text


def test_a_handle_that_is_not_one_is_not_a_mention() -> None:
    report, pr = _hostile_report()
    text = override_request(report, pr, maintainers=("@ok-name", "not a handle @x"), precedent=())
    assert text.splitlines()[2].startswith("@ok-name not a handle @\u200dx: ")


def test_no_request_when_no_imported_commit_fails() -> None:
    repair = _commit("Repair", sha="2" * 40)
    report = dco_report(_pr(repair), imported=(), bots=())
    assert not report.needs_override
    with pytest.raises(ValueError, match="nothing to override"):
        override_request(report, _pr(repair), maintainers=(), precedent=())


# -- over HTTP, against the sandbox's demo pull request ---------------------------------------


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> DemoFacts:
    return build_world(tmp_path_factory.mktemp("dco") / "world")


@pytest.fixture
def scenario(world: DemoFacts) -> Scenario:
    return demo_scenario(world)


@pytest.fixture
def sandbox(scenario: Scenario) -> Iterator[Sandbox]:
    with Sandbox(scenario) as running:
        yield running


def _client(sandbox: Sandbox) -> GitHubClient:
    target = GitHubTarget(sandbox.base_url, "https://github.com", "lumen-ai", "lumen")
    return GitHubClient(target, Token("demo", "the demo sandbox"))


def _no_404(sandbox: Sandbox) -> None:
    missing = [r for r in sandbox.requests if r["status"] == 404]
    assert not missing, missing


def _posts(sandbox: Sandbox) -> list[dict[str, object]]:
    return [w for w in sandbox.writes if w["method"] == "POST"]


def test_the_demo_prs_failures_are_exactly_the_promised_ones(
    world: DemoFacts, scenario: Scenario, sandbox: Sandbox
) -> None:
    pr = _client(sandbox).pull_request(PR)
    report = dco_report(pr, imported=world.slice, bots=())
    assert [f.sha for f in report.failures] == scenario.notes["dco_failing"]
    assert all(f.imported and not f.fixable for f in report.failures)
    assert {f.sha for f in report.failures if f.reason == "no Signed-off-by"} == set(world.unsigned)
    assert [s.sha for s in report.skipped] == [world.merge]
    assert report.github is not None and report.github.conclusion == "action_required"
    assert report.github.html_url.startswith("https://github.com/lumen-ai/lumen/runs/")
    for failure in report.failures:  # the app's own summary lists the same commits
        assert failure.sha[:7] in report.github.summary
    assert report.agrees is True and report.needs_override and report.complete
    _no_404(sandbox)


def test_an_allow_list_that_covers_the_failures_disagrees_with_github(
    world: DemoFacts, sandbox: Sandbox
) -> None:
    pr = _client(sandbox).pull_request(PR)
    report = dco_report(pr, imported=world.slice, bots=("*github-actions*", "priya raman"))
    assert report.failures == () and report.agrees is False
    assert report.checked + len(report.skipped) == len(pr.commits)
    bots = {s.sha for s in report.skipped if s.reason.startswith("bot author")}
    assert {*world.unsigned, *world.mismatched_signoff} <= bots


def test_an_override_on_the_head_is_read_as_githubs_pass(
    world: DemoFacts, scenario: Scenario
) -> None:
    head = next(c for c in scenario.commits if c.sha == world.repair)
    head.check_runs.append(CheckRunSpec("DCO", conclusion="success", app_slug="dco", id=8_000_001))
    with Sandbox(scenario) as sandbox:
        report = dco_report(_client(sandbox).pull_request(PR), imported=world.slice, bots=())
    assert report.github is not None and report.github.conclusion == "success"
    assert report.imported_failures and report.agrees is False and not report.needs_override


def test_precedent_is_found_through_the_api(world: DemoFacts, sandbox: Sandbox) -> None:
    client = _client(sandbox)
    prefix = sync_branch_prefix(world.sync_branch)
    found = find_precedent(client, head_prefix=prefix, exclude=PR, same_as="action_required")
    assert [(p.number, p.dco_conclusion) for p in found] == [
        (4101, "action_required"),
        (3990, "action_required"),
    ]
    assert found[0].html_url == "https://github.com/lumen-ai/lumen/pull/4101"
    assert find_precedent(client, head_prefix=prefix, exclude=PR, same_as="success") == []
    assert [p.number for p in find_precedent(client, head_prefix=prefix, exclude=4101)] == [3990]
    assert [p.number for p in find_precedent(client, head_prefix=prefix, exclude=PR, limit=1)] == [
        4101
    ]
    assert find_precedent(client, head_prefix="release/", exclude=PR) == []
    _no_404(sandbox)


def test_a_precedent_whose_dco_was_later_overridden_ended_in_success(
    scenario: Scenario,
) -> None:
    merged = next(p for p in scenario.pulls if p.number == 4101)
    head = next(c for c in scenario.commits if c.sha == merged.head_sha)
    head.check_runs.append(CheckRunSpec("DCO", conclusion="success", app_slug="dco", id=8_000_002))
    with Sandbox(scenario) as sandbox:
        client = _client(sandbox)
        failing = find_precedent(
            client, head_prefix="main2dev/", exclude=PR, same_as="action_required"
        )
        passing = find_precedent(client, head_prefix="main2dev/", exclude=PR, same_as="success")
    assert [p.number for p in failing] == [3990]
    assert [p.number for p in passing] == [4101]


def test_the_demo_request_lists_the_commits_the_check_and_the_precedent(
    world: DemoFacts, sandbox: Sandbox
) -> None:
    client = _client(sandbox)
    pr = client.pull_request(PR)
    report = dco_report(pr, imported=world.slice, bots=())
    precedent = find_precedent(
        client, head_prefix="main2dev/", exclude=PR, same_as="action_required"
    )
    text = override_request(report, pr, maintainers=("@mara-lindqvist",), precedent=precedent)
    for failure in report.failures:
        assert f"| {failure.sha[:7]} |" in text
    assert report.github is not None
    assert f"[DCO check run]({report.github.html_url})" in text
    assert "Set DCO to pass" in text
    assert "#4101 and #3990 ended with the same DCO state (`action_required`)" in text
    assert "with the SHAs they have on main" in text and "identical to main" in text
    prose = _outside_code(text)  # a code span never mentions anyone on GitHub
    raw_mentions = [m.start() for m in re.finditer("@(?!\u200d)", prose)]
    assert raw_mentions == [prose.index("@mara-lindqvist")]
    _no_404(sandbox)


def test_the_request_is_posted_once_per_head_sha(world: DemoFacts, sandbox: Sandbox) -> None:
    client = _client(sandbox)
    pr = client.pull_request(PR)
    report = dco_report(pr, imported=world.slice, bots=())
    text = override_request(report, pr, maintainers=(), precedent=())
    first = post_override_request(client, pr, text)
    again = post_override_request(client, pr, text + "\nEdited after the first press.\n")
    assert not first.already_posted and again.already_posted
    assert again.comment_id == first.comment_id
    posts = _posts(sandbox)
    assert len(posts) == 1
    body = posts[0]["body"]
    assert isinstance(body, dict)
    assert body["body"].startswith(text.rstrip())
    assert markers_in(body["body"]) == {override_key(world.repair)}
    newer = replace(pr, head_sha="e" * 40)
    assert not post_override_request(client, newer, text).already_posted
    assert len(_posts(sandbox)) == 2
    _no_404(sandbox)


def test_a_502_after_the_comment_was_stored_still_makes_one_request(
    world: DemoFacts, sandbox: Sandbox
) -> None:
    client = _client(sandbox)
    pr = client.pull_request(PR)
    report = dco_report(pr, imported=world.slice, bots=())
    precedent = [Precedent(4101, "sync", "https://github.com/lumen-ai/lumen/pull/4101", "x")]
    text = override_request(report, pr, maintainers=(), precedent=precedent)
    sandbox.inject_fault("POST", r"/issues/\d+/comments$", 502, apply=True)
    result = post_override_request(client, pr, text)
    assert result.confirmed_after_error and not result.already_posted
    assert post_override_request(client, pr, text).already_posted
    assert len(_posts(sandbox)) == 1
    _no_404(sandbox)
