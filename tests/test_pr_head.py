"""The pull request found from where the maintainer stands, over real HTTP to the sandbox.

A checked-out sync branch (``HEAD`` symbolic, no ``--head``) finds its pull
request; a remote-tracking head finds it by the branch it mirrors on the
remote (by the remote's fetch refspec, not by cutting the remote's name off);
a detached ``HEAD``, a commit or a tag say in one line that ``--pr N`` is
needed. The demo world's sync PR #4242 has ``main2dev/demo`` as its head.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path
from urllib.parse import parse_qs

import pytest

from syncdesk.screens.findings_screen import FindingsScreen
from syncdesk.screens.slice_screen import SliceScreen
from syncdesk.services.demo.facts import DemoFacts
from syncdesk.services.git.runner import Git
from syncdesk.services.github.head import NoHeadBranchError, head_branch
from syncdesk.services.review.pull_request import load_findings
from syncdesk.services.sandbox.connect import token_line, user_config_lines
from syncdesk.services.sandbox.server import Sandbox
from syncdesk.services.sync.options import SyncOptions
from syncdesk.services.sync.session import SyncSession, open_sync
from syncdesk.tui.app import SyncDeskApp
from tests.gitrepo import GitRepo
from tests.prworld import PR_NUMBER, sandbox_link
from tests.test_report_cli import run_cli
from tests.test_sandbox_command import write_user_config
from tests.waiting import until_loaded

SYNC_BRANCH = "main2dev/demo"  # the demo world's, and its pull request's head
RENAMING_REFSPECS = (
    "+refs/heads/main:refs/remotes/origin/main",
    "+refs/heads/dev:refs/remotes/origin/dev",
    # The remote's main2dev/* land as origin/sync/*: only the refspec knows the way back.
    "+refs/heads/main2dev/*:refs/remotes/origin/sync/*",
)


def session_at(repo: Path, head: str | None = None) -> SyncSession:
    return open_sync(SyncOptions(repo=repo, head=head), user_config=Path("/nonexistent"))


def found_number(session: SyncSession, sandbox: Sandbox) -> int:
    """The pull request ``load_findings`` reads when given no number."""
    data = load_findings(session, sandbox_link(sandbox, number=None))
    assert data.views, "the pull request's findings were read"
    return data.pr.number


def pulls_searched(sandbox: Sandbox) -> set[str]:
    """The ``head=`` filters of the pull request searches the sandbox answered."""
    searches = [parse_qs(r["query"]) for r in sandbox.requests if r["path"].endswith("/pulls")]
    return {head for query in searches for head in query.get("head", [])}


def fetched_clone(world: DemoFacts, path: Path, refspecs: tuple[str, ...] = ()) -> GitRepo:
    """A repository whose only copy of the world is its remote ``origin``'s refs."""
    clone = GitRepo(path)
    clone.git("remote", "add", "origin", str(world.repo))
    if refspecs:
        clone.git("config", "--unset-all", "remote.origin.fetch")
        for refspec in refspecs:
            clone.git("config", "--add", "remote.origin.fetch", refspec)
    clone.git("fetch", "-q", "origin")
    return clone


def test_a_checked_out_sync_branch_finds_its_pull_request(
    pr_world: DemoFacts, pr_sandbox: Sandbox
) -> None:
    assert git_in(pr_world.repo, "symbolic-ref", "HEAD") == f"refs/heads/{SYNC_BRANCH}"
    session = session_at(pr_world.repo)  # no --head
    assert (session.refs.head_name, session.refs.branch) == ("HEAD", SYNC_BRANCH)
    assert found_number(session, pr_sandbox) == PR_NUMBER
    assert pulls_searched(pr_sandbox) == {f"lumen-ai:{SYNC_BRANCH}"}


@pytest.mark.parametrize(
    ("refspecs", "head"),
    [
        ((), f"origin/{SYNC_BRANCH}"),  # git's default refspec
        ((), f"refs/remotes/origin/{SYNC_BRANCH}"),
        ((), SYNC_BRANCH),  # no local branch: the session reads the remote-tracking ref
        (RENAMING_REFSPECS, "origin/sync/demo"),
    ],
    ids=["remote/branch", "full remote-tracking ref", "bare name, no local branch", "renamed"],
)
def test_a_remote_tracking_head_finds_the_remotes_branch(
    pr_world: DemoFacts, pr_sandbox: Sandbox, tmp_path: Path, refspecs: tuple[str, ...], head: str
) -> None:
    clone = fetched_clone(pr_world, tmp_path / "clone", refspecs)
    session = session_at(clone.path, head)
    assert session.refs.head == pr_world.repair
    assert head_branch(session.git, head, "origin") == SYNC_BRANCH
    assert found_number(session, pr_sandbox) == PR_NUMBER
    assert pulls_searched(pr_sandbox) == {f"lumen-ai:{SYNC_BRANCH}"}


def test_a_checked_out_branch_of_a_clone_finds_its_pull_request(
    pr_world: DemoFacts, pr_sandbox: Sandbox, tmp_path: Path
) -> None:
    clone = fetched_clone(pr_world, tmp_path / "clone")
    clone.git("checkout", "-q", "-b", SYNC_BRANCH, "--track", f"origin/{SYNC_BRANCH}")
    assert found_number(session_at(clone.path), pr_sandbox) == PR_NUMBER


def detach(repo: Path) -> None:
    git_in(repo, "checkout", "-q", "--detach")


def commit_of_head(repo: Path) -> str:
    return git_in(repo, "rev-parse", "HEAD")


def tag_of_head(repo: Path) -> str:
    git_in(repo, "tag", "v1.0")
    return "v1.0"


@pytest.mark.parametrize(
    ("make_head", "fragment"),
    [
        (detach, "HEAD is detached"),
        (commit_of_head, "is not a branch"),
        (tag_of_head, "v1.0 is a tag, not a branch"),
    ],
    ids=["detached HEAD", "a commit", "a tag"],
)
def test_a_head_that_is_no_branch_asks_for_the_number(
    pr_world: DemoFacts,
    pr_sandbox: Sandbox,
    make_head: Callable[[Path], str | None],
    fragment: str,
) -> None:
    session = session_at(pr_world.repo, make_head(pr_world.repo))
    with pytest.raises(NoHeadBranchError) as raised:
        load_findings(session, sandbox_link(pr_sandbox, number=None))
    message = raised.value.message
    assert fragment in message and "--pr N" in message and "\n" not in message
    assert pulls_searched(pr_sandbox) == set()  # nothing was looked up under a wrong name
    # Named by its number, the same head reads the pull request.
    assert load_findings(session, sandbox_link(pr_sandbox)).pr.number == PR_NUMBER


def test_the_cli_on_a_detached_head_says_pr_n_in_one_line(
    pr_world: DemoFacts, pr_sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_user_config(user_config_lines(pr_sandbox))
    detach(pr_world.repo)
    detached = _report(pr_world.repo, pr_sandbox, monkeypatch, "--with-pr")
    stderr = detached.stderr.decode()
    assert detached.returncode == 1 and detached.stdout == b""
    assert stderr.splitlines() == [
        "syncdesk: HEAD is detached, so no branch names the pull request: "
        "pass --pr N with the pull request's number"
    ]
    named = _report(pr_world.repo, pr_sandbox, monkeypatch, "--pr", str(PR_NUMBER), "--format=json")
    assert named.returncode == 0, named.stderr.decode()
    assert json.loads(named.stdout)["pull_request"]["number"] == PR_NUMBER


async def test_the_findings_screen_reads_the_checked_out_branchs_pull_request(
    pr_world: DemoFacts, pr_sandbox: Sandbox
) -> None:
    number, shown = await _findings_screen(pr_world, pr_sandbox)
    assert number == PR_NUMBER, shown


async def test_on_a_detached_head_the_findings_screen_asks_for_the_number(
    pr_world: DemoFacts, pr_sandbox: Sandbox
) -> None:
    detach(pr_world.repo)
    number, shown = await _findings_screen(pr_world, pr_sandbox)
    assert number is None
    assert shown.startswith("HEAD is detached") and "--pr N" in shown


def test_refspecs_and_remote_names_map_remote_tracking_refs(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "r")
    tip = repo.commit("one")
    for ref in ("refs/remotes/my.fork/team/x", "refs/remotes/gone/y", "refs/remotes/up/pr/7"):
        repo.git("update-ref", ref, tip)
    repo.git("remote", "add", "my.fork", "https://example.invalid/a/b.git")
    repo.git("config", "--unset-all", "remote.my.fork.fetch")  # no refspec: its name is cut off
    repo.git("remote", "add", "up", "https://example.invalid/c/d.git")
    repo.git("config", "--replace-all", "remote.up.fetch", "+refs/pull/*/head:refs/remotes/up/pr/*")
    repo.git("config", "--add", "remote.up.fetch", "^refs/heads/secret")
    git = Git(repo.path)
    assert head_branch(git, "my.fork/team/x", "origin") == "team/x"
    assert head_branch(git, "gone/y", "origin") == "y"  # a remote no longer configured
    with pytest.raises(NoHeadBranchError, match="mirrors no branch of its remote"):
        head_branch(git, "up/pr/7", "origin")  # a pull request's ref, not a branch
    with pytest.raises(NoHeadBranchError, match="is not a branch"):
        head_branch(git, "no-such-name", "origin")


def test_a_hostile_head_name_stays_one_visible_line(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "r")
    repo.commit("one")
    with pytest.raises(NoHeadBranchError) as raised:
        head_branch(Git(repo.path), "x\x1b[2J\nmore", "origin")
    assert "\x1b" not in raised.value.message and "\n" not in raised.value.message
    assert "x^[[2J^Jmore" in raised.value.message


# -- helpers ---------------------------------------------------------------------------------


async def _findings_screen(world: DemoFacts, sandbox: Sandbox) -> tuple[int | None, str]:
    """The app opened with no --head and no number: the Findings screen's pull request and line."""
    app = SyncDeskApp(session_at(world.repo), github=lambda: sandbox_link(sandbox, number=None))
    async with app.run_test(size=(160, 45)) as pilot:
        await until_loaded(pilot, SliceScreen)
        await pilot.press("f")
        screen = await until_loaded(pilot, FindingsScreen)
        shown = str(screen.query_one("#findings-loading Label").render())
        return (screen.data.pr.number if screen.data is not None else None), shown


def git_in(path: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=path, capture_output=True, text=True, check=True)
    return done.stdout.strip()


def _report(
    repo: Path, sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch, *args: str
) -> subprocess.CompletedProcess[bytes]:
    name, _, token = token_line(sandbox).partition("=")
    monkeypatch.setenv(name, token)  # the token goes by environment, never argv
    return run_cli("report", *args, cwd=repo)
