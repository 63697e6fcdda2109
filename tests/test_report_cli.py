"""``syncdesk report`` run as a real program: its formats, its safety, its errors."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.syncrepo import build_sync_repo

DOCS = Path(__file__).parent.parent / "docs"
BIDI = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
HOSTILE = (
    "ESC\x1b[2J OSC52\x1b]52;c;ZXZpbA==\x07 C1\x9b31m RLO\u202e [bold]x[/] [@click=app.quit]q[/]"
)


def syncdesk(*args, cwd=None):
    return run_cli("report", *args, cwd=cwd)


def run_cli(
    *args: str, cwd: Path | None = None, stdin: bytes | None = None
) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "syncdesk", *args],
        input=stdin,
        capture_output=True,
        cwd=cwd,
        env=os.environ,
        check=False,
        timeout=60,
    )


def report_json(built, *args):
    result = syncdesk(
        "--repo", str(built.path), "--slice-size", str(built.slice_size), "--format", "json", *args
    )
    assert result.returncode == 0, result.stderr.decode()
    return json.loads(result.stdout)


def test_json_states_the_facts_of_the_repository(tmp_path):
    built = build_sync_repo(tmp_path / "r", dev_moves="clean")
    data = report_json(built)
    assert {
        "schema_version",
        "slice",
        "anatomy",
        "dev_advanced",
        "protected_files",
        "stats",
    } <= set(data)
    assert data["schema_version"] == 1
    assert data["refs"]["head"] == {"name": "HEAD", "sha": built.head, "branch": "sync"}
    assert data["refs"]["dev"]["sha"] == built.repo.rev("dev")

    line = built.git("rev-list", "--first-parent", "--reverse", f"{built.dev_base}..main").split()
    the_slice = data["slice"]
    assert [c["sha"] for c in the_slice["commits"]] == line[: built.slice_size]
    assert the_slice["remaining"] == len(line) - built.slice_size
    assert the_slice["dev_base"] == built.dev_base
    assert the_slice["tip"] == line[built.slice_size - 1]
    first = the_slice["commits"][0]
    assert set(first) == {
        "index", "sha", "subject", "author_name", "author_email", "date", "pr",
        "signed_off", "signoff_matches_author", "signed", "is_merge", "signoffs",
    }  # fmt: skip
    log = built.git("log", "-1", "--format=%s%x00%an%x00%ae%x00%aI", first["sha"]).split("\0")
    assert [first["subject"], first["author_name"], first["author_email"], first["date"]] == log
    assert (first["index"], first["pr"], first["is_merge"]) == (1, 101, False)
    assert [c["pr"] for c in the_slice["commits"]][3] is None  # "Bump the version"
    assert [c["signed_off"] for c in the_slice["commits"]] == [True, True, False, True, True]
    assert [c["signed"] for c in the_slice["commits"]] == [False, False, False, False, True]

    anatomy = data["anatomy"]
    assert (anatomy["ok"], anatomy["problems"]) == (True, [])
    assert (anatomy["merge"], anatomy["repair"]) == (built.merge, built.repair)
    assert anatomy["slice_position"] == built.slice_size

    advanced = data["dev_advanced"]
    assert [c["sha"] for c in advanced["commits"]] == built.dev_new
    assert advanced["merges_cleanly"] is True
    assert set(advanced["commits"][0]) == {"sha", "subject", "author_name", "date"}

    protected = {p["path"]: p for p in data["protected_files"]}
    assert set(protected) == {
        ".github/CODEOWNERS",
        "pyproject.toml",
        "uv.lock",
        "docker/Dockerfile.ci.dev",
    }
    assert set(protected["uv.lock"]) == {"path", "identical", "at_head", "at_dev_base"}
    assert protected["pyproject.toml"]["identical"] is False
    assert protected[".github/CODEOWNERS"]["identical"] is True

    numstat = built.git("diff", "--numstat", built.dev_base, built.head, "--", "*.py").splitlines()
    python = data["stats"]["python"]
    assert python["files"] == len(numstat)
    assert python["added"] == sum(int(row.split("\t")[0]) for row in numstat)
    assert (
        python["summary"]
        == f"+{python['added']} / -{python['deleted']} across {python['files']} files"
    )
    assert "pkg/core.py" in data["stats"]["remerge_diff_files"]


def test_json_problems_carry_code_and_message(tmp_path):
    built = build_sync_repo(tmp_path / "r", extra_on_top=1)
    anatomy = report_json(built)["anatomy"]
    assert anatomy["ok"] is False
    assert [p["code"] for p in anatomy["problems"]] == ["extra-commits-on-top"]
    assert anatomy["problems"][0]["message"]
    assert anatomy["repair"] is None


def test_every_json_key_is_documented(tmp_path):
    built = build_sync_repo(tmp_path / "r", dev_moves="clean", extra_on_top=1)
    data = report_json(built)
    doc = (DOCS / "report-schema.md").read_text()

    def keys(value, prefix=""):
        if isinstance(value, dict):
            for key, item in value.items():
                yield f"{prefix}{key}"
                yield from keys(item, f"{prefix}{key}.")
        elif isinstance(value, list) and value:
            yield from keys(value[0], prefix.rstrip(".") + "[].")

    for key in keys(data):
        assert f"`{key}`" in doc, f"{key} is not documented in docs/report-schema.md"


def hostile_repo(tmp_path):
    built = build_sync_repo(
        tmp_path / "repo \x1b]0;title\x07 \u202e",
        subjects={1: f"Subject {HOSTILE} (#1)", 3: "Pipe | in the subject"},
        authors={2: (f"Name {HOSTILE}", "evil@example.com")},
        dev_moves="clean",
    )
    # A dev commit whose message is not even UTF-8: a raw C1 byte and a CSI. Written with
    # hash-object, because `git commit` would re-encode the invalid byte as Latin-1.
    dev = built.repo.rev("dev")
    raw = (
        f"tree {built.repo.rev('dev^{tree}')}\nparent {dev}\n"
        "author Ada Maintainer <ada@example.com> 1700009999 +0000\n"
        "committer Ada Maintainer <ada@example.com> 1700009999 +0000\n\n"
    ).encode() + b"dev: raw \x9b byte \x1b[2J\n"
    sha = built.repo.git("hash-object", "-t", "commit", "-w", "--stdin", input=raw)
    built.repo.git("update-ref", "refs/heads/dev", sha, dev)
    (built.path / ".syncdesk.toml").write_text(
        'keep_dev = ["pyproject.toml", "evil\\u001b[2Jname", "rlo\\u202ename"]\n'
    )
    return built


def test_text_piped_has_no_control_bytes(tmp_path):
    built = hostile_repo(tmp_path)
    result = syncdesk("--repo", str(built.path), "--slice-size", "5", "--format", "text")
    assert result.returncode == 0, result.stderr.decode()
    out = result.stdout
    assert [byte for byte in out if (byte < 0x20 and byte != 0x0A) or byte == 0x7F] == []
    text = out.decode("utf-8")  # strict: valid UTF-8 throughout
    assert re.search(f"[\x80-\x9f{BIDI}]", text) is None
    # What was there is still visible, spelled out, and markup is left as text.
    assert "Subject ESC^[[2J OSC52^[]52;c;ZXZpbA==^G C1<U+009B>31m RLO<U+202E> [bold]x[/]" in text
    assert "Name ESC^[[2J" in text
    assert "dev: raw \ufffd byte ^[[2J" in text
    assert "evil^[[2Jname" in text
    for sha in built.main_line[:5]:
        assert sha[:8] in text


def test_markdown_escapes_untrusted_text(tmp_path):
    built = hostile_repo(tmp_path)
    result = syncdesk("--repo", str(built.path), "--slice-size", "5", "--format", "markdown")
    assert result.returncode == 0, result.stderr.decode()
    text = result.stdout.decode("utf-8")
    assert re.search(f"[\x00-\x09\x0b-\x1f\x7f-\x9f{BIDI}]", text) is None
    assert "Pipe \\| in the subject" in text
    rows = [
        line
        for line in text.splitlines()
        if line.startswith("| ") and built.main_line[0][:8] in line
    ]
    assert len(rows) == 1
    assert len(re.findall(r"(?<!\\)\|", rows[0])) == 8  # 7 columns: no cell was split
    assert "\\[bold\\]x\\[/\\]" in text  # no link or markup syntax survives


def test_json_of_hostile_text_is_sanitized_and_valid(tmp_path):
    built = hostile_repo(tmp_path)
    data = report_json(built)
    subject = data["slice"]["commits"][0]["subject"]
    assert "\x1b" not in subject
    assert subject.startswith("Subject ESC^[[2J")


def expect_one_line_error(result, *fragments, status=1):
    stderr = result.stderr.decode()
    assert result.returncode == status
    assert "Traceback" not in stderr
    assert len(stderr.splitlines()) == 1, stderr
    assert stderr.startswith("syncdesk")
    for fragment in fragments:
        assert fragment in stderr
    assert result.stdout == b""


def test_error_not_a_repository(tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    expect_one_line_error(syncdesk("--repo", str(empty)), "is not a git repository")


def test_error_missing_head(tmp_path):
    built = build_sync_repo(tmp_path / "r")
    expect_one_line_error(
        syncdesk("--repo", str(built.path), "--head", "no-such-sync"), "'no-such-sync'"
    )


def test_error_missing_dev_branch(tmp_path):
    built = build_sync_repo(tmp_path / "r")
    built.git("branch", "-D", "dev")
    expect_one_line_error(syncdesk("--repo", str(built.path)), "'dev'")


def test_error_slice_size_zero(tmp_path):
    built = build_sync_repo(tmp_path / "r")
    expect_one_line_error(syncdesk("--repo", str(built.path), "--slice-size", "0"), "--slice-size")


def test_error_malformed_repository_config(tmp_path):
    built = build_sync_repo(tmp_path / "r")
    config = built.path / ".syncdesk.toml"
    config.write_text("slice_size = = 3\n")
    expect_one_line_error(syncdesk("--repo", str(built.path)), str(config))


def test_error_git_too_old(tmp_path, monkeypatch):
    from tests.test_git import old_git_on_path

    built = build_sync_repo(tmp_path / "r")
    old_git_on_path(tmp_path / "shim", monkeypatch)
    expect_one_line_error(syncdesk("--repo", str(built.path)), "2.38")


@pytest.mark.parametrize("depth", [None, "1"])
def test_clone_uses_remote_branches_and_refuses_missing_history(tmp_path, depth):
    built = build_sync_repo(tmp_path / "r")
    clone = tmp_path / "clone"
    shallow = ["--depth", depth, "--no-single-branch"] if depth else []
    subprocess.run(
        ["git", "clone", "-q", *shallow, f"file://{built.path}", str(clone)],
        check=True,
        capture_output=True,
    )
    assert (
        subprocess.run(
            ["git", "branch", "--list", "dev"], cwd=clone, capture_output=True, text=True
        ).stdout
        == ""
    )
    result = syncdesk("--repo", str(clone), "--slice-size", "5", "--format", "json")
    if depth is None:
        # dev and main exist only as origin/dev and origin/main: still a full report.
        assert result.returncode == 0, result.stderr.decode()
        assert json.loads(result.stdout)["anatomy"]["merge"] == built.merge
    else:
        expect_one_line_error(result, "shallow clone")


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (("--slice-size", "abc"), "--slice-size: invalid int value: 'abc'"),
        (("--format", "yaml"), "--format: invalid choice: 'yaml'"),
        (("--frobnicate",), "unrecognized arguments: --frobnicate"),
    ],
)
def test_usage_error_is_one_line(tmp_path, args, fragment):
    expect_one_line_error(syncdesk(*args, cwd=tmp_path), fragment, "--help", status=2)


def test_options_before_the_command_are_kept(tmp_path):
    # `syncdesk --repo X report` reads X, not the current directory.
    built = build_sync_repo(tmp_path / "r")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    result = run_cli(
        "--repo", str(built.path), "--slice-size", "3", "report", "--format", "json", cwd=elsewhere
    )  # fmt: skip
    assert result.returncode == 0, result.stderr.decode()
    data = json.loads(result.stdout)
    assert data["repo"] == str(built.path)
    assert data["config"]["slice_size"] == data["slice"]["expected"] == 3
    # Given after the command too, the later one wins.
    result = run_cli(
        "--slice-size", "3", "report", "--repo", str(built.path), "--slice-size", "4",
        "--format", "json", cwd=elsewhere,
    )  # fmt: skip
    assert json.loads(result.stdout)["config"]["slice_size"] == 4


def test_the_desk_without_a_terminal_is_one_line_not_a_hang(tmp_path):
    built = build_sync_repo(tmp_path / "r")
    result = subprocess.run(
        [sys.executable, "-m", "syncdesk", "--repo", str(built.path), "--slice-size", "5"],
        stdin=subprocess.DEVNULL, capture_output=True, check=False, timeout=60,
    )  # fmt: skip
    assert result.returncode == 1
    assert result.stdout == b""  # no escape codes drawn into the pipe
    said = "the desk needs a terminal: run syncdesk in one, or use syncdesk report for the facts"
    assert result.stderr.decode().splitlines() == [f"syncdesk: {said}"]
