"""The sandbox's behaviour over real HTTP: state, writes, pagination, faults, auth, the demo PR."""

from __future__ import annotations

import dataclasses
import re
import time
from collections.abc import Iterator

import httpx
import pytest
from github import Auth, Github, GithubException
from github.GithubException import BadCredentialsException

from syncdesk.services.demo.facts import DemoFacts
from syncdesk.services.git.runner import Git
from syncdesk.services.sandbox.demo.git import ORIGIN_CLASSES, OriginMap
from syncdesk.services.sandbox.demo.scenario import demo_scenario
from syncdesk.services.sandbox.scenario import Scenario
from syncdesk.services.sandbox.server import Sandbox

REPO = "/repos/lumen-ai/lumen"
PR = 4242


@pytest.fixture(scope="module")
def scenario(demo_facts: DemoFacts) -> Scenario:
    return demo_scenario(demo_facts)


@pytest.fixture
def sandbox(scenario: Scenario) -> Iterator[Sandbox]:
    with Sandbox(scenario) as running:
        yield running


def http(sandbox: Sandbox, token: str | None = "demo") -> httpx.Client:
    headers = {"Authorization": f"token {token}"} if token else {}
    return httpx.Client(base_url=sandbox.base_url, headers=headers, trust_env=False)


def pygithub(base_url: str, per_page: int = 100, token: str = "demo") -> Github:
    return Github(
        base_url=base_url,
        auth=Auth.Token(token),
        seconds_between_requests=None,
        seconds_between_writes=None,
        retry=None,
        per_page=per_page,
    )


# -- state and writes ---------------------------------------------------------------------


def test_posted_comment_shows_in_next_get_and_is_recorded(sandbox: Sandbox) -> None:
    pull = pygithub(sandbox.base_url).get_repo("lumen-ai/lumen").get_pull(PR)
    created = pull.create_issue_comment("Dispositions for F1-F10")
    assert pull.get_issue_comments().reversed[0].body == "Dispositions for F1-F10"
    (write,) = sandbox.writes
    assert write == {
        "method": "POST",
        "path": f"{REPO}/issues/{PR}/comments",
        "body": {"body": "Dispositions for F1-F10"},
        "status": 201,
        "id": created.id,
    }
    with http(sandbox) as client:
        assert client.get("/_sandbox/writes").json() == sandbox.writes


def test_review_comment_replies_and_reply_to_reply_refused(
    sandbox: Sandbox, scenario: Scenario
) -> None:
    pull = pygithub(sandbox.base_url).get_repo("lumen-ai/lumen").get_pull(PR)
    root = scenario.notes["reply_comment"]
    top = next(c for c in scenario.pulls[0].review_comments if c.id == root).in_reply_to_id
    assert top is not None
    reply = pull.create_review_comment_reply(top, "Fixed on main in #4300.")
    assert reply.in_reply_to_id == top and reply.path and reply.line
    with pytest.raises(GithubException) as refused:
        pull.create_review_comment_reply(root, "a reply to a reply")
    assert refused.value.status == 422
    assert "Replies to replies" in str(refused.value.data)
    assert any(c.id == reply.id for c in pull.get_review_comments())


def test_review_comment_missing_fields_is_422(sandbox: Sandbox) -> None:
    with http(sandbox) as client:
        answer = client.post(f"{REPO}/pulls/{PR}/comments", json={"body": "no anchor"})
    assert answer.status_code == 422
    body = answer.json()
    assert body["message"] == "Validation Failed"
    assert body["errors"][0]["code"] == "missing_field"
    assert sandbox.writes[0]["status"] == 422 and sandbox.writes[0]["id"] is None


def test_labels_add_set_remove(sandbox: Sandbox) -> None:
    pull = pygithub(sandbox.base_url).get_repo("lumen-ai/lumen").get_pull(PR)
    pull.add_to_labels("Run MBridge tests")
    assert "Run MBridge tests" in [lb.name for lb in pull.get_labels()]
    pull.remove_from_labels("Run MBridge tests")
    pull.set_labels("sync")
    assert [lb.name for lb in pull.get_labels()] == ["sync"]
    assert [w["method"] for w in sandbox.writes] == ["POST", "DELETE", "PUT"]


# -- transport --------------------------------------------------------------------------------


def test_pagination_per_page_2_is_complete_through_pygithub(
    sandbox: Sandbox, demo_facts: DemoFacts
) -> None:
    pull = pygithub(sandbox.base_url, per_page=2).get_repo("lumen-ai/lumen").get_pull(PR)
    shas = [c.sha for c in pull.get_commits()]
    assert len(shas) == 102 and shas[-1] == demo_facts.repair
    assert shas[:100] == list(demo_facts.slice)
    assert pull.get_commits().totalCount == 102
    assert 404 not in [r["status"] for r in sandbox.requests]


def test_link_header_format_and_query_order(sandbox: Sandbox) -> None:
    with http(sandbox) as client:
        first = client.get(f"{REPO}/pulls/{PR}/commits?per_page=2")
        later = client.get(f"{REPO}/pulls/{PR}/commits?page=2&per_page=2")
        same = client.get(f"{REPO}/pulls/{PR}/commits?per_page=2&page=2")
    base = f"{sandbox.base_url}{REPO}/pulls/{PR}/commits"
    assert first.headers["link"] == (
        f'<{base}?per_page=2&page=2>; rel="next", <{base}?per_page=2&page=51>; rel="last"'
    )
    assert 'rel="prev"' in later.headers["link"] and 'rel="first"' in later.headers["link"]
    assert later.json() == same.json()


def test_headers_never_duplicated_and_rate_limit_near_now(sandbox: Sandbox) -> None:
    with http(sandbox) as client:
        answer = client.get(f"{REPO}/pulls/{PR}")
    names = [name.lower() for name, _ in answer.headers.multi_items()]
    assert len(names) == len(set(names))
    assert 0 < int(answer.headers["x-ratelimit-reset"]) - time.time() < 3700
    assert answer.headers["etag"].startswith('W/"')


def test_etag_gives_304_without_body(sandbox: Sandbox) -> None:
    with http(sandbox) as client:
        etag = client.get(f"{REPO}/pulls/{PR}").headers["etag"]
        again = client.get(f"{REPO}/pulls/{PR}", headers={"If-None-Match": etag})
    assert again.status_code == 304 and again.content == b""
    pull = pygithub(sandbox.base_url).get_repo("lumen-ai/lumen").get_pull(PR)
    assert pull.update() is False  # PyGithub's conditional refresh sees the 304


def test_ghes_base_url_shape(sandbox: Sandbox) -> None:
    gh = pygithub(sandbox.ghes_url)
    pull = gh.get_repo("lumen-ai/lumen").get_pull(PR)
    assert pull.url.startswith(sandbox.ghes_url)
    pull.create_issue_comment("via /api/v3")
    assert sandbox.writes[-1]["path"] == f"{REPO}/issues/{PR}/comments"
    assert {r["base"] for r in sandbox.requests} == {"/api/v3"}


# -- faults and auth -------------------------------------------------------------------------


def test_fault_answers_then_clears(sandbox: Sandbox) -> None:
    sandbox.inject_fault("GET", r"/pulls/\d+$", 502, times=1, headers={"Retry-After": "1"})
    repo = pygithub(sandbox.base_url).get_repo("lumen-ai/lumen")
    with pytest.raises(GithubException) as failed:
        repo.get_pull(PR)
    assert failed.value.status == 502
    assert repo.get_pull(PR).number == PR


def test_applied_fault_is_an_ambiguous_write(sandbox: Sandbox) -> None:
    sandbox.inject_fault("POST", r"/issues/\d+/comments$", 502, apply=True)
    pull = pygithub(sandbox.base_url).get_repo("lumen-ai/lumen").get_pull(PR)
    with pytest.raises(GithubException):
        pull.create_issue_comment("posted once")
    (write,) = sandbox.writes
    assert write["status"] == 502 and isinstance(write["id"], int)
    assert [c.body for c in pull.get_issue_comments()].count("posted once") == 1


def test_valid_tokens_and_token_never_recorded(scenario: Scenario) -> None:
    guarded = dataclasses.replace(scenario, valid_tokens=["s3cret-token"])
    with Sandbox(guarded) as sandbox:
        with pytest.raises(BadCredentialsException):
            pygithub(sandbox.base_url, token="wrong-token").get_repo("lumen-ai/lumen")
        assert pygithub(sandbox.base_url, token="s3cret-token").get_repo("lumen-ai/lumen")
        with http(sandbox, token=None) as client:
            assert client.get(REPO).status_code == 401
            assert client.get(REPO).json()["message"] == "Bad credentials"
            dump = client.get("/_sandbox/requests").text
        assert "s3cret" not in dump and "wrong-token" not in dump
        assert [r["authenticated"] for r in sandbox.requests][:2] == [True, True]


# -- the demo scenario -----------------------------------------------------------------------


def test_demo_findings_cite_every_origin_class(scenario: Scenario, demo_facts: DemoFacts) -> None:
    findings = scenario.notes["findings"]
    assert {f["origin"] for f in findings.values()} == set(ORIGIN_CLASSES)
    origins = OriginMap(Git(demo_facts.repo), demo_facts)
    strict = next(
        r for r in scenario.pulls[0].reviews if r.id == scenario.notes["reviews"]["strict"]
    )
    for fid, finding in findings.items():
        classes = origins.lines(finding["path"])[finding["start"] - 1 : finding["end"]]
        assert set(classes) == {finding["origin"]}, fid
        if finding["where"] == "review body":
            anchor = f"{finding['path']}#L{finding['start']}-L{finding['end']}"
            assert f"blob/{demo_facts.repair}/{anchor}" in strict.body, fid
    assert re.search(r"Findings: CRITICAL: \d+, IMPORTANT: \d+", strict.body)
    assert "This is unresolved prior F6." in strict.body
    assert "prior F9" in strict.body and "That finding is closed." in strict.body


def test_demo_inline_comments_shapes(scenario: Scenario, demo_facts: DemoFacts) -> None:
    comments = scenario.pulls[0].review_comments
    assert all(
        c.body.startswith(("[CRITICAL ", "[IMPORTANT "))
        for c in comments
        if c.user != "mara-lindqvist"
    )
    outdated = next(c for c in comments if c.id == scenario.notes["outdated_comment"])
    assert (
        outdated.line is None and outdated.original_line and outdated.commit_id == demo_facts.merge
    )
    assert any(c.start_line is not None and c.line and c.start_line < c.line for c in comments)
    assert any(c.in_reply_to_id for c in comments)


def test_demo_pr_body_lists_96_of_100(scenario: Scenario, demo_facts: DemoFacts) -> None:
    body = scenario.pulls[0].body
    listed = body.split("Ordered 100 source SHAs", 1)[1].split()
    assert len(listed) == 96
    missing = scenario.notes["body_missing_shas"]
    assert [s for s in demo_facts.slice if s[:7] not in listed] == missing


def test_demo_commits_checks_and_precedent(scenario: Scenario, demo_facts: DemoFacts) -> None:
    commits = {c.sha: c for c in scenario.commits}
    pull = scenario.pulls[0]
    assert pull.commits[:100] == list(demo_facts.slice)
    assert pull.commits[100:] == [demo_facts.merge, demo_facts.repair]
    for sha in demo_facts.slice:
        assert commits[sha].verification.verified is (sha in demo_facts.signed)
    head = commits[demo_facts.repair]
    dco = next(r for r in head.check_runs if r.name == "DCO")
    assert dco.conclusion == "action_required"
    for sha in demo_facts.unsigned:
        assert f"[{sha[:7]}]" in (dco.summary or "")
    patch = next(s for s in head.statuses if s.context == "codecov/patch")
    assert patch.state == "failure"
    assert re.fullmatch(r"\d+\.\d\d% of diff hit \(target 80\.00%\)", patch.description or "")
    states = {(r.status, r.conclusion) for r in head.check_runs if r.name.startswith("CI / ")}
    assert {("in_progress", None), ("completed", "success"), ("completed", "failure")} <= states
    merged = [p for p in scenario.pulls if p.merged]
    assert sorted(p.number for p in merged) == [3990, 4101]
    for earlier in merged:
        runs = commits[earlier.head_sha].check_runs
        assert any(r.name == "DCO" and r.conclusion == "action_required" for r in runs)
    changed = set(
        Git(demo_facts.repo).lines("diff", "--name-only", demo_facts.dev_base, demo_facts.repair)
    )
    assert all(f.path in changed for f in scenario.codecov[0].files)
