"""syncdesk's GitHub client and the findings pipeline, over real HTTP against the sandbox."""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest

from syncdesk.services.demo.facts import DemoFacts
from syncdesk.services.demo.world import build_world
from syncdesk.services.github.api import (
    GitHubClient,
    GitHubError,
    GitHubTarget,
    content_key,
    marker,
    markers_in,
    post_lock_file,
)
from syncdesk.services.github.link import GitHubLink
from syncdesk.services.github.pending import PendingPosts
from syncdesk.services.github.token import Token
from syncdesk.services.review.dispositions import Decision, decide
from syncdesk.services.review.models import Disposition, Origin
from syncdesk.services.review.pull_request import (
    FindingsData,
    load_findings,
    post_reply,
    reply_text,
)
from syncdesk.services.sandbox.demo.scenario import demo_scenario
from syncdesk.services.sandbox.server import Sandbox
from syncdesk.services.sync.options import SyncOptions
from syncdesk.services.sync.session import SyncSession, open_sync

PR = 4242


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> DemoFacts:
    return build_world(tmp_path_factory.mktemp("gh") / "world")


@pytest.fixture
def sandbox(world: DemoFacts) -> Iterator[Sandbox]:
    with Sandbox(demo_scenario(world)) as running:
        yield running


def _link(sandbox: Sandbox, number: int | None = PR) -> GitHubLink:
    target = GitHubTarget(sandbox.base_url, "https://github.com", "lumen-ai", "lumen")
    return GitHubLink(target, Token("demo", "the demo sandbox"), number)


def _session(world: DemoFacts) -> SyncSession:
    options = SyncOptions(repo=world.repo, head=world.sync_branch)
    return open_sync(options, user_config=Path("/nonexistent"))


def _no_404(sandbox: Sandbox) -> None:
    missing = [r for r in sandbox.requests if r["status"] == 404]
    assert not missing, missing


def test_the_whole_pull_request_is_read_and_nothing_is_missing(
    world: DemoFacts, sandbox: Sandbox
) -> None:
    link = _link(sandbox)
    pr = GitHubClient(link.target, link.token).pull_request(PR)
    assert pr.head_sha == world.repair
    assert [c.sha for c in pr.commits] == [*world.slice, world.merge, world.repair]
    signed = {c.sha for c in pr.commits if c.verified}
    assert signed == set(world.signed)
    assert pr.reviews and pr.review_comments and pr.issue_comments
    assert any(c.outdated for c in pr.review_comments)
    assert any(c.in_reply_to_id for c in pr.review_comments)
    assert any(c.start_line for c in pr.review_comments)
    names = {run.name: run.conclusion for run in pr.check_runs}
    assert names["DCO"] == "action_required"
    assert any(s.context == "codecov/patch" for s in pr.statuses)
    assert pr.partial == ()
    _no_404(sandbox)


def test_the_pull_request_is_found_by_its_head_branch(world: DemoFacts, sandbox: Sandbox) -> None:
    link = _link(sandbox, None)
    client = GitHubClient(link.target, link.token)
    assert client.find_pull(world.sync_branch) == PR
    assert client.find_pull("no/such-branch") is None
    _no_404(sandbox)


def test_findings_are_traced_to_every_origin_class(world: DemoFacts, sandbox: Sandbox) -> None:
    data = load_findings(_session(world), _link(sandbox))
    promised = demo_scenario(world).notes["findings"]
    assert isinstance(promised, dict)
    views = {v.finding.id: v for v in data.views}
    assert set(promised) <= set(views)
    seen = {origin for v in data.views for o in v.origins for origin, n in o.counts.items() if n}
    assert seen == set(Origin)
    assert views["F9"].suggested is Disposition.CLOSED
    assert views["F8"].suggested is Disposition.FIX_HERE  # cites the repair commit's lines
    assert any(v.code for v in data.views)  # the cited code is there to show
    _no_404(sandbox)


def _decided(world: DemoFacts, sandbox: Sandbox) -> tuple[SyncSession, FindingsData]:
    session = _session(world)
    data = load_findings(session, _link(sandbox))
    decision = Decision(Disposition.FIX_ON_MAIN, "lands on main")
    book = decide(session.git, "lumen-ai/lumen", data.pr.number, "F1", decision)
    data = replace(data, book=book)
    return session, data


def test_the_reply_is_posted_once_even_when_pressed_twice(
    world: DemoFacts, sandbox: Sandbox
) -> None:
    session, data = _decided(world, sandbox)
    first = post_reply(session, data, threads=False)
    second = post_reply(session, data, threads=False)
    posts = [w for w in sandbox.writes if w["method"] == "POST" and w["path"].endswith("/comments")]
    assert len(posts) == 1
    assert not first[0].already_posted and second[0].already_posted
    body = posts[0]["body"]["body"]
    assert body.startswith(reply_text(data).rstrip())
    assert "| F1" in body and "Fix on main" in body and "lands on main" in body
    key = content_key("dispositions", data.pr.head_sha, reply_text(data))
    assert markers_in(body) == {key}
    _no_404(sandbox)


def test_an_ambiguous_502_is_settled_by_reading_back_not_by_posting_again(
    world: DemoFacts, sandbox: Sandbox
) -> None:
    session, data = _decided(world, sandbox)
    sandbox.inject_fault("POST", r"/issues/\d+/comments$", 502, apply=True)
    result = post_reply(session, data, threads=False)[0]
    assert result.confirmed_after_error
    posts = [w for w in sandbox.writes if w["method"] == "POST"]
    assert len(posts) == 1


def test_a_502_that_stored_nothing_is_one_line_and_a_second_press_posts_once(
    world: DemoFacts, sandbox: Sandbox
) -> None:
    session, data = _decided(world, sandbox)
    sandbox.inject_fault("POST", r"/issues/\d+/comments$", 502)
    with pytest.raises(GitHubError, match=r"502.*not posted"):
        post_reply(session, data, threads=False)
    assert not [w for w in sandbox.writes if w["method"] == "POST" and w["status"] < 300]
    post_reply(session, data, threads=False)
    post_reply(session, data, threads=False)
    stored = [w for w in sandbox.writes if w["method"] == "POST" and w["status"] < 300]
    assert len(stored) == 1


def test_thread_replies_go_to_each_threads_first_comment_once(
    world: DemoFacts, sandbox: Sandbox
) -> None:
    session, data = _decided(world, sandbox)
    post_reply(session, data, threads=True)
    post_reply(session, data, threads=True)
    replies = [w for w in sandbox.writes if "/replies" in w["path"]]
    threads = {c for v in data.views for c in v.finding.comment_ids}
    assert threads and len(replies) == len(threads)
    top_level = {c.id for c in data.pr.review_comments if c.in_reply_to_id is None}
    assert threads <= top_level
    _no_404(sandbox)


def test_a_refused_token_is_one_line_naming_its_source(world: DemoFacts) -> None:
    scenario = demo_scenario(world)
    scenario.valid_tokens = ["the-right-one"]
    with Sandbox(scenario) as running:
        link = _link(running)
        with pytest.raises(GitHubError) as caught:
            GitHubClient(link.target, link.token).pull_request(PR)
    assert "the demo sandbox" in caught.value.message
    assert "demo" not in caught.value.message.replace("the demo sandbox", "")


def test_the_review_threads_query_is_valid_github_graphql_and_reads_the_threads(
    world: DemoFacts, sandbox: Sandbox
) -> None:
    from syncdesk.services.github.api import REVIEW_THREADS_QUERY, review_threads
    from syncdesk.services.sandbox.graphql.schema import validate_query

    assert validate_query(REVIEW_THREADS_QUERY) == []
    link = _link(sandbox)
    threads = review_threads(link.target, link.token, PR)
    pr = GitHubClient(link.target, link.token).pull_request(PR)
    roots = {c.id for c in pr.review_comments if c.in_reply_to_id is None}
    assert set(threads) == roots
    outdated = {c.id for c in pr.review_comments if c.in_reply_to_id is None and c.outdated}
    assert {t.root_comment_id for t in threads.values() if t.outdated} == outdated
    graphql_calls = [r for r in sandbox.requests if r["path"].endswith("graphql")]
    assert graphql_calls and all(r["status"] == 200 for r in graphql_calls)


def test_a_marker_pasted_by_someone_else_does_not_silence_syncdesk(world: DemoFacts) -> None:
    from syncdesk.services.github.checks import post_ci_trigger, trigger_key
    from syncdesk.services.sandbox.scenario import IssueCommentSpec

    scenario = demo_scenario(world)
    pull = next(p for p in scenario.pulls if p.number == PR)
    pasted = f"nope\n\n{marker(trigger_key(world.repair))}\n"
    pull.issue_comments.append(IssueCommentSpec(1_900_000_001, "mallory", pasted))
    with Sandbox(scenario) as running:
        link = _link(running)
        client = GitHubClient(link.target, link.token)
        pr = client.pull_request(PR)
        first = post_ci_trigger(client, pr, "/ok to test {sha}")
        again = post_ci_trigger(client, pr, "/ok to test {sha}")
        posts = [w for w in running.writes if w["method"] == "POST"]
    assert not first.already_posted and again.already_posted
    assert len(posts) == 1


def test_two_presses_at_once_post_once(world: DemoFacts, sandbox: Sandbox) -> None:
    from concurrent.futures import ThreadPoolExecutor

    link = _link(sandbox)
    client = GitHubClient(link.target, link.token)
    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(lambda _: client.post_comment(PR, "hello", "k:1"), range(4)))
    posts = [w for w in sandbox.writes if w["method"] == "POST"]
    assert len(posts) == 1
    assert sum(not r.already_posted for r in results) == 1


def test_two_processes_posting_at_once_post_once(world: DemoFacts, sandbox: Sandbox) -> None:
    # Two syncdesks on one repository (two terminals) press the same post at the
    # same moment, over and over: each post must reach GitHub exactly once.
    import os
    import subprocess
    import sys

    trials = int(os.environ.get("SYNCDESK_RACE_RUNS", "100"))
    root = Path(__file__).resolve().parent.parent
    command = [sys.executable, "-m", "tests.postracer", str(world.repo), sandbox.base_url, str(PR)]
    pipe = subprocess.PIPE
    racers = [
        subprocess.Popen(command, cwd=root, stdin=pipe, stdout=pipe, text=True) for _ in range(2)
    ]
    try:
        for racer in racers:
            assert racer.stdout is not None and racer.stdout.readline() == "ready\n"
        for trial in range(trials):
            key = f"race:{trial}"
            for racer in racers:  # both are told before either answers
                assert racer.stdin is not None
                racer.stdin.write(f"{key}\n")
                racer.stdin.flush()
            answers = sorted(racer.stdout.readline().strip() for racer in racers if racer.stdout)
            posts = [
                w for w in sandbox.writes
                if w["method"] == "POST" and marker(key) in str(w["body"].get("body", ""))
            ]  # fmt: skip
            assert (len(posts), answers) == (1, ["found", "posted"]), f"trial {trial}"
    finally:
        for racer in racers:
            racer.kill()
            racer.wait()


def test_a_5xx_while_reading_the_comments_back_is_retried_not_taken_for_not_posted(
    world: DemoFacts, sandbox: Sandbox
) -> None:
    session, data = _decided(world, sandbox)
    sandbox.inject_fault("GET", r"/issues/\d+/comments$", 502)  # the read before the post
    sandbox.inject_fault("POST", r"/issues/\d+/comments$", 502, apply=True)  # stored, then 502
    result = post_reply(session, data, threads=False)[0]
    assert result.confirmed_after_error
    posts = [w for w in sandbox.writes if w["method"] == "POST"]
    assert len(posts) == 1


@pytest.mark.parametrize(
    ("elsewhere", "named"),
    [("http://127.0.0.2:{port}", "host 127.0.0.2"), ("http://127.0.0.1:9", "port 9")],
)
def test_pagination_pointed_at_another_host_is_one_line_naming_it(
    world: DemoFacts, sandbox: Sandbox, elsewhere: str, named: str
) -> None:
    # A Link header is the server's to write: its next page may name any host or
    # port. PyGithub refuses to follow it with a bare AssertionError.
    link = _link(sandbox)
    page = httpx.get(
        f"{sandbox.base_url}/repos/lumen-ai/lumen/pulls/{PR}/commits",
        headers={"Authorization": "token demo"},
    ).json()
    foreign = elsewhere.format(port=urlsplit(sandbox.base_url).port)
    next_page = f"{foreign}/repos/lumen-ai/lumen/pulls/{PR}/commits?page=2"
    sandbox.inject_fault(
        "GET", rf"/pulls/{PR}/commits$", 200,
        headers={"Link": f'<{next_page}>; rel="next"'}, body=page,
    )  # fmt: skip
    with pytest.raises(GitHubError) as caught:
        GitHubClient(link.target, link.token).pull_request(PR)
    message = str(caught.value)
    assert f"pointed its next page at another host or port ({named})" in message
    assert "\n" not in message
    asked = [r for r in sandbox.requests if r["path"].endswith(f"/pulls/{PR}/commits")]
    assert len(asked) == 2  # the test's own read, and the client's first page: no second


def test_a_finding_whose_threads_github_shows_resolved_is_closed(world: DemoFacts) -> None:
    scenario = demo_scenario(world)
    with Sandbox(scenario) as running:
        before = load_findings(_session(world), _link(running))
    inline = [v.finding for v in before.views if v.finding.comment_ids and not v.finding.status]
    assert inline, "the demo has inline findings with no status of their own"
    target = inline[0]
    pull = next(p for p in scenario.pulls if p.number == PR)
    pull.resolved_threads = list(target.comment_ids)
    with Sandbox(scenario) as running:
        after = {v.finding.id: v for v in load_findings(_session(world), _link(running)).views}
    assert after[target.id].finding.status == "closed"
    assert after[target.id].resolved_threads == len(target.comment_ids)
    assert after[target.id].suggested is Disposition.CLOSED
    assert all(after[f.id].finding.status == f.status for f in inline[1:])


def test_a_post_with_no_answer_is_unknown_and_a_retry_looks_and_waits_before_posting(
    world: DemoFacts, sandbox: Sandbox, tmp_path: Path
) -> None:
    # The server stores the POST 3 s in; the client gives up at 1 s. Said "not
    # posted", a retry used to post a second comment with the same marker.
    link = _link(sandbox)
    client = GitHubClient(
        link.target, link.token, post_locks=tmp_path / "locks", timeout=1,
        pending=PendingPosts(settle=30),
    )  # fmt: skip
    sandbox.inject_fault("POST", r"/issues/\d+/comments$", 0, delay=3)
    with pytest.raises(GitHubError, match="whether the comment was stored is unknown"):
        client.post_comment(PR, "the DCO override request", "dco-override:x")
    with pytest.raises(GitHubError, match=r"does not show it yet.*Nothing was sent"):
        client.post_comment(PR, "the DCO override request", "dco-override:x")
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and not [
        w for w in sandbox.writes if w["method"] == "POST" and w["status"] < 300
    ]:
        time.sleep(0.1)
    again = client.post_comment(PR, "the DCO override request", "dco-override:x")
    assert again.already_posted  # found, not posted twice
    stored = [w for w in sandbox.writes if w["method"] == "POST" and w["status"] < 300]
    assert len(stored) == 1


def test_after_the_settle_time_a_post_that_never_arrived_is_sent(
    world: DemoFacts, sandbox: Sandbox, tmp_path: Path
) -> None:
    link = _link(sandbox)
    pending = PendingPosts(settle=0.5)
    client = GitHubClient(link.target, link.token, post_locks=tmp_path / "locks", pending=pending)
    locks = tmp_path / "locks"
    locks.mkdir()
    record = post_lock_file(locks, link.target, (PR, "k:lost"))
    pending.mark(record)  # an earlier attempt whose request never reached GitHub
    with pytest.raises(GitHubError, match="press again in"):
        client.post_comment(PR, "hello", "k:lost")
    time.sleep(0.6)
    result = client.post_comment(PR, "hello", "k:lost")
    assert not result.already_posted
    assert pending.wait_left(record) == 0
