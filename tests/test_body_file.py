"""``syncdesk report --body-file``: a PR description checked against the real slice, offline.

A real repository whose slice has 12 commits and a description listing 8 of
them while claiming 12: the 4 left out are named, and so is the claim. The
same lines as the online check (the Status screen on the pull request's own
body, over the sandbox), in every format. Bad files are one line, no traceback.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from syncdesk.services.demo.facts import DemoFacts
from syncdesk.services.description.check import body_check_json
from syncdesk.services.github.status import load_status
from syncdesk.services.sandbox.server import Sandbox
from tests.prworld import sandbox_link
from tests.syncrepo import SyncRepo, build_sync_repo
from tests.test_report_cli import expect_one_line_error, run_cli
from tests.worlds import demo_session

SLICE = 12
LEFT_OUT = (1, 4, 8, 11)  # slice positions (0-based) the description does not list; 11 is the tip


def report(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    return run_cli("report", *args, stdin=stdin)


@pytest.fixture
def built(tmp_path: Path) -> SyncRepo:
    return build_sync_repo(tmp_path / "r", main_count=SLICE + 3, slice_size=SLICE)


def described(built: SyncRepo, tmp_path: Path) -> Path:
    """A description in the seed's layout: claims all 12, lists the other 8 (short SHAs)."""
    listed = [sha[:7] for i, sha in enumerate(built.main_line[:SLICE]) if i not in LEFT_OUT]
    body = tmp_path / "description.md"
    body.write_text(
        f"Background\n\nThis sync merges the oldest {SLICE} commits of dev..main.\n\n"
        f"Ordered {SLICE} source SHAs\n\n" + " ".join(listed) + "\n"
    )
    return body


def args(built: SyncRepo, body: Path, fmt: str) -> tuple[str, ...]:
    return ("--repo", str(built.path), "--slice-size", str(SLICE), "--format", fmt,
            "--body-file", str(body))  # fmt: skip


def test_the_left_out_shas_and_the_claim_are_named(built: SyncRepo, tmp_path: Path) -> None:
    result = report(*args(built, described(built, tmp_path), "json"))
    assert result.returncode == 0, result.stderr.decode()
    check = json.loads(result.stdout)["pr_body_check"]
    missing = [built.main_line[i] for i in LEFT_OUT]
    assert check["missing"] == missing
    assert check["listed"] == SLICE - len(LEFT_OUT)
    assert (check["ok"], check["extra"]) == (False, [])
    assert check["problems"] == [
        f"lists 8 SHAs, the slice has 12: missing {', '.join(sha[:7] for sha in missing)}",
        "claims 12 commits but lists 8",
    ]


def test_text_and_markdown_say_the_same_lines(built: SyncRepo, tmp_path: Path) -> None:
    body = described(built, tmp_path)
    problems = json.loads(report(*args(built, body, "json")).stdout)["pr_body_check"]["problems"]
    text = report(*args(built, body, "text"))
    markdown = report(*args(built, body, "markdown"))
    assert text.returncode == markdown.returncode == 0
    text_lines = text.stdout.decode().splitlines()
    assert f"PR description (checked offline: {body})" in text_lines
    assert text_lines[-len(problems) :] == [f"✗ {problem}" for problem in problems]
    markdown_lines = markdown.stdout.decode().splitlines()
    assert "### PR description" in markdown_lines
    assert markdown_lines[-len(problems) :] == [f"- ✗ {problem}" for problem in problems]


def test_a_description_that_lists_the_slice_passes(built: SyncRepo, tmp_path: Path) -> None:
    body = tmp_path / "ok.md"
    shas = built.main_line[:SLICE]
    body.write_text(f"Ordered {SLICE} source SHAs\n\n" + "\n".join(shas) + "\n")
    result = report(*args(built, body, "text"))
    assert result.returncode == 0, result.stderr.decode()
    assert result.stdout.decode().splitlines()[-1] == f"✓ lists the {SLICE} slice commits in order"


def test_standard_input_is_read_with_a_dash(built: SyncRepo, tmp_path: Path) -> None:
    body = described(built, tmp_path).read_bytes()
    result = report(*args(built, Path("-"), "json"), stdin=body)
    assert result.returncode == 0, result.stderr.decode()
    assert len(json.loads(result.stdout)["pr_body_check"]["missing"]) == len(LEFT_OUT)


def test_offline_says_what_the_online_check_says(
    pr_world: DemoFacts, pr_sandbox: Sandbox, tmp_path: Path
) -> None:
    # Online: the Status screen's check of the pull request's own body, read over HTTP.
    online = load_status(demo_session(pr_world), sandbox_link(pr_sandbox)).body
    body = tmp_path / "pr-body.md"
    body.write_text(pr_sandbox.scenario.pulls[0].body)
    offline = report("--repo", str(pr_world.repo), "--head", pr_world.sync_branch,
                     "--format", "json", "--body-file", str(body))  # fmt: skip
    assert offline.returncode == 0, offline.stderr.decode()
    assert json.loads(offline.stdout)["pr_body_check"] == body_check_json(online)
    assert len(online.missing) == 4 and "claims 100 commits but lists 96" in online.problems


@pytest.mark.parametrize(
    ("content", "fragment"),
    [
        (None, "cannot read"),
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "is binary (it holds NUL bytes)"),
        (b"Ordered 3 source SHAs\n\xff\xfe abc\n", "is not UTF-8 text"),
    ],
    ids=["missing", "binary", "not UTF-8"],
)
def test_a_file_that_is_no_description_is_one_line(
    built: SyncRepo, tmp_path: Path, content: bytes | None, fragment: str
) -> None:
    body = tmp_path / "body\x1b[2J.md"
    if content is not None:
        body.write_bytes(content)
    result = report(*args(built, body, "text"))
    expect_one_line_error(result, fragment, "body^[[2J.md")
    assert "\x1b" not in result.stderr.decode()


def test_a_directory_fails_before_any_git_work(tmp_path: Path) -> None:
    not_a_repo = tmp_path / "plain"
    not_a_repo.mkdir()
    result = report("--repo", str(not_a_repo), "--body-file", str(tmp_path))
    expect_one_line_error(result, f"cannot read {tmp_path}: Is a directory")


def test_it_is_offline_only(built: SyncRepo, tmp_path: Path) -> None:
    body = described(built, tmp_path)
    both = report("--repo", str(built.path), "--with-pr", "--body-file", str(body))
    expect_one_line_error(both, "not allowed with argument", status=2)
    before = run_cli("--pr", "7", "report", "--body-file", str(body), cwd=built.path)
    expect_one_line_error(before, "leave out --pr")
