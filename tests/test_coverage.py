"""Patch coverage: Codecov's texts, its API over real HTTP, the fallbacks, our own lines."""

from __future__ import annotations

import dataclasses
import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from hypothesis import given
from hypothesis import strategies as st

from syncdesk.services.demo.facts import DemoFacts
from syncdesk.services.git.runner import Git
from syncdesk.services.github.api import GitHubClient, GitHubTarget
from syncdesk.services.github.coverage import (
    PatchText,
    compare_url,
    fetch_compare,
    ours_lines,
    parse_added_lines,
    parse_patch_text,
    patch_coverage,
)
from syncdesk.services.github.models import CommitStatus, PullRequest
from syncdesk.services.github.token import Token
from syncdesk.services.review.models import CitedRange, Origin
from syncdesk.services.review.origin import classify_ranges
from syncdesk.services.sandbox.demo.scenario import demo_scenario
from syncdesk.services.sandbox.server import Sandbox
from syncdesk.services.sync.ours import sync_ours
from tests.gitrepo import GitRepo

PR = 4242

# -- the codecov/patch texts ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("70.14% of diff hit (target 80.00%)", PatchText("hit", 70.14, 80.0)),
        ("100% of diff hit (target 80%)", PatchText("hit", 100.0, 80.0)),
        ("  66.666667 %  of diff hit ( target 75.5 % ) ", PatchText("hit", 66.666667, 75.5)),
        ("0.00% of diff hit (target 80.00%)", PatchText("hit", 0.0, 80.0)),
        (
            "79.50% of diff hit (within 1.00% threshold of 80.00%)",
            PatchText("within", 79.5, 80.0, 1.0),
        ),
        (
            "79% of diff hit (within 5% threshold of 82.25%)",
            PatchText("within", 79.0, 82.25, 5.0),
        ),
        ("No report found to compare against", PatchText("no-report")),
        ("no report found to compare against.", PatchText("no-report")),
        (
            "Coverage not affected when comparing 33f7603...a1b2c3d",
            PatchText("not-affected", base="33f7603", head="a1b2c3d"),
        ),
        (
            "Coverage not affected when comparing 33F7603 ... A1B2C3D",
            PatchText("not-affected", base="33f7603", head="a1b2c3d"),
        ),
    ],
)
def test_each_codecov_patch_text_is_read(text: str, expected: PatchText) -> None:
    assert parse_patch_text(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "",
        "DCO",
        "80.90% (-0.30%) compared to 33f7603",  # codecov/project, not patch
        "70.14% of diff hit",
        "abc% of diff hit (target 80%)",
        "70.14% of diff hit (target 80.00%) and more",
        "Note: 70.14% of diff hit (target 80.00%)",
        "-5% of diff hit (target 80%)",
        "Coverage not affected when comparing main...dev",
        "No report found",
    ],
)
def test_anything_else_is_not_a_patch_text(text: str) -> None:
    assert parse_patch_text(text) is None


_percent = st.decimals(min_value=0, max_value=100, places=2, allow_nan=False)
_space = st.sampled_from(["", " ", "  "])


@given(coverage=_percent, target=_percent, gap=_space)
def test_hit_round_trips_codecovs_format(coverage: object, target: object, gap: str) -> None:
    text = f"{coverage}%{gap} of diff hit ({gap}target {target}%{gap})"
    assert parse_patch_text(text) == PatchText("hit", float(str(coverage)), float(str(target)))


@given(coverage=_percent, threshold=_percent, target=_percent)
def test_within_round_trips_codecovs_format(
    coverage: object, threshold: object, target: object
) -> None:
    text = f"{coverage}% of diff hit (within {threshold}% threshold of {target}%)"
    parsed = parse_patch_text(text)
    assert parsed == PatchText(
        "within", float(str(coverage)), float(str(target)), float(str(threshold))
    )


@given(st.text(max_size=60))
def test_arbitrary_text_never_raises(text: str) -> None:
    parsed = parse_patch_text(text)
    assert parsed is None or parsed.kind in ("hit", "within", "no-report", "not-affected")


# -- Codecov's API over real HTTP ----------------------------------------------------------


@pytest.fixture
def sandbox(demo_facts: DemoFacts) -> Iterator[Sandbox]:
    with Sandbox(demo_scenario(demo_facts)) as running:
        yield running


def _read_pr(sandbox: Sandbox) -> PullRequest:
    target = GitHubTarget(sandbox.base_url, "https://github.com", "lumen-ai", "lumen")
    return GitHubClient(target, Token("demo", "the demo sandbox")).pull_request(PR)


def _no_404(sandbox: Sandbox) -> None:
    missing = [r for r in sandbox.requests if r["status"] == 404]
    assert not missing, missing


def test_compare_url_accepts_the_host_or_the_api_root() -> None:
    expected = "https://api.codecov.io/api/v2/github/lumen-ai/repos/lumen/compare/"
    assert compare_url("https://api.codecov.io", "lumen-ai", "lumen") == expected
    assert compare_url("https://api.codecov.io/api/v2/", "lumen-ai", "lumen") == expected


def test_the_comparison_is_fetched_with_a_bearer_token_only_when_given(
    sandbox: Sandbox, demo_facts: DemoFacts
) -> None:
    with_token = fetch_compare(sandbox.codecov_url, "lumen-ai", "lumen", PR, "s3cret-token")
    without = fetch_compare(sandbox.base_url, "lumen-ai", "lumen", PR, None)
    assert with_token.reason == "" and without.reason == ""
    assert with_token.payload is not None and with_token.payload == without.payload
    assert with_token.payload["head_commit"] == demo_facts.repair
    calls = [r for r in sandbox.requests if r["path"].startswith("/api/v2/github/")]
    assert [(r["query"], r["authenticated"]) for r in calls] == [
        (f"pullid={PR}", True),
        (f"pullid={PR}", False),
    ]
    _no_404(sandbox)


def test_an_unknown_pull_request_is_a_reason_not_an_exception(sandbox: Sandbox) -> None:
    result = fetch_compare(sandbox.codecov_url, "lumen-ai", "lumen", 1, "s3cret-token")
    assert result.payload is None
    assert "404" in result.reason and "#1" in result.reason
    assert "s3cret" not in result.reason


class _Canned(BaseHTTPRequestHandler):
    status = 503
    body = b'{"detail": "Service unavailable"}'

    def do_GET(self) -> None:
        self.send_response(self.status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(self.body)))
        self.end_headers()
        self.wfile.write(self.body)

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def canned() -> Iterator[tuple[str, type[_Canned]]]:
    handler = type("Handler", (_Canned,), {})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05})
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", handler
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


@pytest.mark.parametrize(
    ("status", "body", "said"),
    [
        (503, b'{"detail": "Service unavailable"}', "answered 503: Service unavailable"),
        (500, b"<html>oops</html>", "answered 500"),
        (401, b'{"detail": "Invalid token."}', "refused the request (401)"),
        (200, b"<html>not json</html>", "other than JSON"),
        (200, b"[1, 2]", "unexpected shape"),
    ],
)
def test_server_errors_are_reasons(
    canned: tuple[str, type[_Canned]], status: int, body: bytes, said: str
) -> None:
    url, handler = canned
    handler.status, handler.body = status, body
    result = fetch_compare(url, "o", "r", 5, "s3cret-token")
    assert result.payload is None
    assert said in result.reason
    assert "s3cret" not in result.reason


def test_a_timeout_and_a_closed_port_are_reasons() -> None:
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(1)  # accepts the connection, never answers
    # Bound but never listening: connections are refused, and while it stays
    # bound no other process (another test worker's server) can take the port.
    closed = socket.socket()
    closed.bind(("127.0.0.1", 0))
    closed_port = closed.getsockname()[1]
    try:
        silent_url = f"http://127.0.0.1:{silent.getsockname()[1]}"
        slow = fetch_compare(silent_url, "o", "r", 5, None, timeout=0.3)
        gone = fetch_compare(f"http://127.0.0.1:{closed_port}", "o", "r", 5, None, timeout=2)
    finally:
        silent.close()
        closed.close()
    assert slow.payload is None and "did not answer" in slow.reason
    assert gone.payload is None and "could not reach Codecov" in gone.reason


# -- patch coverage on the demo -------------------------------------------------------------


def _scenario_misses(sandbox: Sandbox) -> dict[str, tuple[int, ...]]:
    files = sandbox.scenario.codecov[0].files
    missed = {f.path: tuple(n.number for n in f.lines if n.coverage == 1) for f in files}
    return {path: lines for path, lines in missed.items() if lines}


def test_compare_based_coverage_on_the_demo(sandbox: Sandbox) -> None:
    pr = _read_pr(sandbox)
    compare = fetch_compare(sandbox.codecov_url, "lumen-ai", "lumen", PR, None).payload
    spec = sandbox.scenario.codecov[0]
    result = patch_coverage(pr, compare)
    assert (result.coverage, result.coverage_source) == (spec.patch_coverage, "compare")
    assert (result.target, result.target_source) == (spec.target, "status")
    assert result.kind == "hit" and result.below_target is True
    assert {f.path: f.lines for f in result.uncovered} == _scenario_misses(sandbox)
    assert result.uncovered_count == sum(map(len, _scenario_misses(sandbox).values()))
    assert result.ours_uncovered == ()  # no lines of ours were given
    _no_404(sandbox)


def test_without_a_comparison_the_status_then_the_check_run_is_read(sandbox: Sandbox) -> None:
    pr = _read_pr(sandbox)
    spec = sandbox.scenario.codecov[0]
    from_status = patch_coverage(pr, None)
    assert (from_status.coverage, from_status.target) == (spec.patch_coverage, spec.target)
    assert (from_status.coverage_source, from_status.target_source) == ("status", "status")
    assert from_status.below_target is True and from_status.uncovered == ()
    only_run = dataclasses.replace(pr, statuses=())
    from_run = patch_coverage(only_run, None)
    assert (from_run.coverage, from_run.target) == (spec.patch_coverage, spec.target)
    assert (from_run.coverage_source, from_run.target_source) == ("check-run", "check-run")
    nothing = patch_coverage(dataclasses.replace(pr, statuses=(), check_runs=()), None)
    assert (nothing.coverage, nothing.target, nothing.below_target) == (None, None, None)
    assert (nothing.coverage_source, nothing.text) == ("none", "")


def test_a_comparison_of_another_head_is_not_used(sandbox: Sandbox, demo_facts: DemoFacts) -> None:
    pr = _read_pr(sandbox)
    compare = fetch_compare(sandbox.codecov_url, "lumen-ai", "lumen", PR, None).payload
    assert compare is not None
    stale = {**compare, "head_commit": demo_facts.merge}
    result = patch_coverage(pr, stale)
    assert result.stale_compare
    assert result.coverage_source == "status" and result.uncovered == ()


def _pr() -> PullRequest:
    """A pull request whose head has one codecov/patch status, with no text yet."""
    status = CommitStatus(1, "codecov/patch", "failure", "", "https://codecov", "")
    return PullRequest(
        7, "t", "", "u", "open", False, "h", "a" * 40, "dev", "b" * 40, "", statuses=(status,)
    )


def test_threshold_and_not_affected_verdicts() -> None:
    def pr_with(text: str) -> PullRequest:
        status = _pr().statuses[0]
        return dataclasses.replace(_pr(), statuses=(dataclasses.replace(status, description=text),))

    within = patch_coverage(pr_with("79.50% of diff hit (within 1.00% threshold of 80.00%)"), None)
    assert (within.threshold, within.below_target) == (1.0, False)
    under = patch_coverage(pr_with("78.00% of diff hit (within 1.00% threshold of 80.00%)"), None)
    assert under.below_target is True
    same = patch_coverage(pr_with("Coverage not affected when comparing 1234567...89abcde"), None)
    assert (same.kind, same.below_target, same.coverage) == ("not-affected", False, None)
    none = patch_coverage(pr_with("No report found to compare against"), None)
    assert (none.kind, none.below_target) == ("no-report", None)


def test_partial_lines_and_untrusted_shapes() -> None:
    compare = {
        "head_commit": "a" * 40,
        "totals": {"patch": {"coverage": "70"}},  # not a number: ignored
        "files": [
            {
                "name": {"base": "old.py", "head": "new.py"},
                "lines": [
                    {"number": {"head": 3}, "coverage": {"head": 2}, "added": True},
                    {"number": {"head": 4}, "coverage": {"head": 1}, "added": False},  # context
                    {"number": {"head": None}, "coverage": {"head": 1}, "added": True},
                    {"number": {"head": 5}, "coverage": {"head": 0}, "added": True},
                    {"number": {"head": 6}, "coverage": {"head": 1}, "is_diff": True},
                    "junk",
                ],
            },
            {"name": None, "lines": [{"number": {"head": 1}, "coverage": {"head": 1}}]},
            "junk",
        ],
    }
    result = patch_coverage(_pr(), compare, ours={"new.py": {3, 99}})
    assert [(f.path, f.lines, f.partial) for f in result.uncovered] == [("new.py", (3, 6), (3,))]
    assert result.ours_uncovered == (("new.py", 3),)
    assert result.coverage is None and result.coverage_source == "none"


# -- the lines we wrote ---------------------------------------------------------------------


def test_ours_uncovered_on_the_demo_are_lines_the_merge_or_the_repair_wrote(
    sandbox: Sandbox, demo_facts: DemoFacts
) -> None:
    git = Git(demo_facts.repo)
    mine = sync_ours(
        git, demo_facts.repair, demo_facts.merge, demo_facts.dev_base, demo_facts.dev_tip
    )
    ours = ours_lines(git, demo_facts.repair, mine)
    pr = _read_pr(sandbox)
    compare = fetch_compare(sandbox.codecov_url, "lumen-ai", "lumen", PR, None).payload
    result = patch_coverage(pr, compare, ours=ours)
    assert result.ours_uncovered
    ranges = [CitedRange(path, line, line) for path, line in result.ours_uncovered]
    origins = classify_ranges(
        git,
        ranges,
        head=demo_facts.repair,
        merge=demo_facts.merge,
        dev_base=demo_facts.dev_base,
        slice_tip=demo_facts.slice_tip,
        main_tip=demo_facts.main_tip,
        dev_tip=demo_facts.dev_tip,
    )
    for origin in origins:
        assert {run.origin for run in origin.runs} <= {Origin.MERGE, Origin.REPAIR}, origin
    # Some uncovered lines came with the slice or dev: they are not ours.
    everything = {(f.path, n) for f in result.uncovered for n in f.lines}
    assert set(result.ours_uncovered) < everything
    _no_404(sandbox)


def test_ours_lines_are_those_added_relative_to_both_parents(repo: GitRepo) -> None:
    odd = 'dir with space/caf\u00e9 "q".py'
    base = {"a.py": "1\n2\n3\n", "gone.py": "x\n", odd: "keep\n"}
    repo.commit("base", base)
    repo.checkout("side", "main")
    repo.commit("main side", {"a.py": "1\nmain\n3\n"})
    repo.checkout("main")
    repo.commit("dev side", {"a.py": "1\ndev\n3\n"})
    merge = repo.merge(
        "side",
        "merge",
        resolve={"a.py": "1\ndev\nmain\n++ resolved\n3\n", "gone.py": None},
    )
    head = repo.commit("repair", {odd: "keep\n++ b/fake.py\nmine\n", "new.py": "n1\nn2\n"})
    git = Git(repo.path)
    dev = repo.rev(f"{merge}^1")  # dev was never merged in: the dev base is dev's tip
    ours = ours_lines(git, head, sync_ours(git, head, merge, dev, dev))
    assert ours == {"a.py": {4}, odd: {2, 3}, "new.py": {1, 2}}


def test_the_patch_parser_counts_hunk_lines_instead_of_trusting_prefixes() -> None:
    patch = [
        b"diff --git a/x.py b/x.py",
        b"--- a/x.py",
        b"+++ b/x.py",
        b"@@ -1,0 +2,3 @@",
        b"+++ b/not-a-file.py",
        b"+@@ -1 +9,9 @@",
        b"+plain",
        b"@@ -7 +10 @@",
        b"-old",
        b"+new",
        b"\\ No newline at end of file",
        b"@@ -20,2 +21,0 @@",
        b"-a",
        b"-b",
        b"diff --git a/gone.py b/gone.py",
        b"--- a/gone.py",
        b"+++ /dev/null",
        b"@@ -1 +0,0 @@",
        b"-x",
        b'+++ "b/tab\\there \\303\\251.py"',
        b"@@ -0,0 +1 @@",
        b"+t",
    ]
    assert parse_added_lines(patch) == {"x.py": {2, 3, 4, 10}, "tab\there \u00e9.py": {1}}
