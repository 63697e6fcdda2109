"""The demo world builder: what it promises (DemoFacts) is what raw git says.

Every check here asks real git, never the builder's own data structures.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pytest

from syncdesk.services.conflicts.merge_tree import group_conflicts, parse_merge_tree
from syncdesk.services.demo.facts import ConflictFact, DemoBuildError, DemoFacts, WorldSpec
from syncdesk.services.demo.world import BUILDER_VERSION, DEMO_SYNC_BRANCH, build_world
from syncdesk.services.errors import ServiceError
from syncdesk.services.sync.config import DEFAULT_KEEP_DEV

BOT = "github-actions[bot]"


def git(repo: Path, *args: str, ok: tuple[int, ...] = (0,)) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(
        ["git", "-C", str(repo), *args],
        capture_output=True,
        text=True,
        env=os.environ.copy(),
        check=False,
    )
    assert result.returncode in ok, f"git {' '.join(args)}: {result.stderr}"
    return result


def out(repo: Path, *args: str) -> str:
    return git(repo, *args).stdout.strip()


def blob(repo: Path, rev: str, path: str) -> str | None:
    result = git(repo, "rev-parse", "--verify", "--quiet", f"{rev}:{path}", ok=(0, 1, 128))
    return result.stdout.strip() if result.returncode == 0 else None


def merge_tree(repo: Path, ours: str, theirs: str) -> tuple[int, dict[str, str], str]:
    """(exit status, {path: conflict type}, tree) from ``git merge-tree --write-tree -z``."""
    result = git(repo, "merge-tree", "--write-tree", "-z", ours, theirs, ok=(0, 1))
    found = parse_merge_tree(result.returncode, result.stdout.encode())
    return result.returncode, {c.path: c.type for c in group_conflicts(found)}, found.tree


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> DemoFacts:
    return build_world(tmp_path_factory.mktemp("demo") / "world")


# -- determinism and reuse ---------------------------------------------------------------


def test_two_builds_in_different_directories_have_the_same_shas(world: DemoFacts, tmp_path):
    other = build_world(tmp_path / "elsewhere")
    assert other.repo != world.repo
    assert {**other.to_json(), "repo": ""} == {**world.to_json(), "repo": ""}
    refs = "--format=%(refname) %(objectname)"
    assert out(other.repo, "for-each-ref", refs) == out(world.repo, "for-each-ref", refs)


def test_a_built_world_is_reused_untouched(tmp_path):
    first = build_world(tmp_path)
    marker = first.repo / ".git" / "marker"
    marker.write_text("still here")
    inode = first.repo.stat().st_ino
    facts_mtime = (tmp_path / "facts.json").stat().st_mtime_ns

    again = build_world(tmp_path)

    assert again == first
    assert marker.read_text() == "still here"
    assert first.repo.stat().st_ino == inode
    assert (tmp_path / "facts.json").stat().st_mtime_ns == facts_mtime


def test_a_moved_branch_makes_the_world_rebuild(tmp_path):
    first = build_world(tmp_path)
    (first.repo / ".git" / "marker").write_text("old world")
    git(first.repo, "update-ref", "refs/heads/dev", first.dev_base)

    again = build_world(tmp_path)

    assert again == first
    assert not (first.repo / ".git" / "marker").exists()
    assert out(first.repo, "rev-parse", "refs/heads/dev") == first.dev_tip


def test_a_different_spec_or_version_or_missing_facts_rebuilds(tmp_path):
    small = WorldSpec(main_commits=30, slice_size=20, dev_commits=6, dev_advance=1)
    first = build_world(tmp_path, small)
    other = build_world(tmp_path, WorldSpec(main_commits=31, slice_size=20, dev_commits=6))
    assert other.remaining == 11
    assert other.slice_tip == first.slice_tip
    assert other.main_tip != first.main_tip

    data = json.loads((tmp_path / "facts.json").read_text())
    assert data["builder_version"] == BUILDER_VERSION
    data["builder_version"] = BUILDER_VERSION - 1
    (tmp_path / "facts.json").write_text(json.dumps(data))
    (other.repo / ".git" / "marker").write_text("x")
    assert build_world(tmp_path, small) == first
    assert not (first.repo / ".git" / "marker").exists()

    # An interrupted build leaves a staging directory and no facts: never reused.
    (tmp_path / "facts.json").unlink()
    (tmp_path / ".build-orphan" / "repo").mkdir(parents=True)
    assert build_world(tmp_path, small) == first
    assert not (tmp_path / ".build-orphan").exists()


def test_the_machines_git_setup_cannot_change_the_world(
    world: DemoFacts, tmp_path, monkeypatch: pytest.MonkeyPatch
):
    # What a git hook or a hostile shell leaves in the environment: config that
    # would rewrite line endings and hooks, and an index and object store elsewhere.
    elsewhere = tmp_path / "elsewhere"
    (elsewhere / "objects").mkdir(parents=True)
    monkeypatch.setenv("GIT_CONFIG_PARAMETERS", "'core.autocrlf'='true'")
    monkeypatch.setenv("GIT_CONFIG_COUNT", "1")
    monkeypatch.setenv("GIT_CONFIG_KEY_0", "core.eol")
    monkeypatch.setenv("GIT_CONFIG_VALUE_0", "crlf")
    monkeypatch.setenv("GIT_INDEX_FILE", str(elsewhere / "index"))
    monkeypatch.setenv("GIT_OBJECT_DIRECTORY", str(elsewhere / "objects"))
    facts = build_world(tmp_path / "sealed")
    assert {**facts.to_json(), "repo": ""} == {**world.to_json(), "repo": ""}
    assert [path.name for path in elsewhere.rglob("*")] == ["objects"]
    for name in ("GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT", "GIT_INDEX_FILE"):
        monkeypatch.delenv(name)
    monkeypatch.delenv("GIT_OBJECT_DIRECTORY")
    assert out(facts.repo, "status", "--porcelain", "--untracked-files=all") == ""
    assert b"\r" not in (facts.repo / "pyproject.toml").read_bytes()


def test_a_failing_git_is_a_demo_build_error(tmp_path, monkeypatch: pytest.MonkeyPatch):
    fake = tmp_path / "bin" / "git"
    fake.parent.mkdir()
    fake.write_text("#!/bin/sh\necho 'fatal: no git today' >&2\nexit 128\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", str(fake.parent))
    with pytest.raises(DemoBuildError, match="no git today") as raised:
        build_world(tmp_path / "world")
    assert isinstance(raised.value, ServiceError)
    assert raised.value.title == "Demo world"


def test_facts_round_trip_through_json(world: DemoFacts):
    data = json.loads(json.dumps(world.to_json()))
    assert DemoFacts.from_json(data) == world
    with pytest.raises(ValueError, match="malformed"):
        DemoFacts.from_json({**data, "slice": "not a list"})


def test_impossible_specs_are_refused(tmp_path):
    with pytest.raises(ValueError, match="main_commits"):
        build_world(tmp_path, WorldSpec(main_commits=50, slice_size=60))
    with pytest.raises(ValueError, match="slice_size"):
        build_world(tmp_path, WorldSpec(slice_size=5))


# -- the shape of the sync -----------------------------------------------------------------


def test_the_slice_is_the_oldest_commits_of_dev_base_to_main(world: DemoFacts):
    pending = out(
        world.repo,
        "rev-list",
        "--first-parent",
        "--reverse",
        f"{world.dev_base}..{world.main_branch}",
    ).split()
    assert len(pending) == 130
    assert tuple(pending[:100]) == world.slice
    assert world.remaining == len(pending) - 100 == 30
    assert world.slice_tip == world.slice[-1]
    assert out(world.repo, "rev-list", "--merges", f"{world.dev_base}..main") == ""


def test_the_sync_branch_is_slice_merge_and_repair(world: DemoFacts):
    repo = world.repo
    assert out(repo, "symbolic-ref", "HEAD") == f"refs/heads/{DEMO_SYNC_BRANCH}"
    assert out(repo, "rev-parse", DEMO_SYNC_BRANCH) == world.repair
    assert out(repo, "rev-list", "--count", f"{world.dev_base}..{DEMO_SYNC_BRANCH}") == "102"
    assert out(repo, "rev-parse", f"{world.repair}^@").split() == [world.merge]
    assert out(repo, "rev-parse", f"{world.merge}^@").split() == [world.dev_base, world.slice_tip]
    assert out(repo, "rev-list", "--reverse", f"{world.dev_base}..{world.merge}^2").split() == list(
        world.slice
    )
    assert out(repo, "log", "-1", "--format=%s", world.repair).startswith(
        f"Repair {DEMO_SYNC_BRANCH}: restore dropped import"
    )
    repaired = out(repo, "diff", "--name-only", world.merge, world.repair).split()
    assert len(repaired) == 2
    assert all(path.endswith(".py") for path in repaired)
    trailers = "--format=%(trailers:key=Signed-off-by,valueonly)"
    for sha in (world.merge, world.repair):
        assert (
            out(repo, "log", "-1", trailers, sha) == "Mara Lindqvist <mara.lindqvist@lumen-ai.dev>"
        )


def test_merge_tree_reports_exactly_the_listed_conflicts(world: DemoFacts):
    status, conflicts, _ = merge_tree(world.repo, world.dev_base, world.slice_tip)
    assert status == 1
    assert conflicts == {fact.path: fact.type for fact in world.conflicts}
    assert len(world.conflicts) >= 8
    assert {fact.type for fact in world.conflicts} == {"content", "add/add", "modify/delete"}
    resolutions = {fact.resolution for fact in world.conflicts}
    assert resolutions == {"dev", "main", "union", "custom", "deleted"}
    for path in (".github/CODEOWNERS", "pyproject.toml", "uv.lock"):
        assert ConflictFact(path, "content", "dev") in world.conflicts


def test_each_resolution_is_what_its_name_says(world: DemoFacts):
    repo = world.repo
    for fact in world.conflicts:
        merged = blob(repo, world.merge, fact.path)
        ours, theirs = blob(repo, world.dev_base, fact.path), blob(repo, world.slice_tip, fact.path)
        if fact.resolution == "dev":
            assert merged == ours is not None, fact
        elif fact.resolution == "main":
            assert merged == theirs is not None, fact
        elif fact.resolution == "deleted":
            assert merged is None, fact
            assert blob(repo, "HEAD", fact.path) is None, fact
        else:
            assert merged not in (None, ours, theirs), fact
        if fact.resolution == "union":
            text = out(repo, "cat-file", "blob", merged or "")
            for side in (ours, theirs):
                lines = [line for line in out(repo, "cat-file", "blob", side or "").splitlines()]
                assert all(line in text.splitlines() for line in lines), fact


def test_the_merge_is_evil_in_clean_files_too(world: DemoFacts):
    _, conflicts, auto_tree = merge_tree(world.repo, world.dev_base, world.slice_tip)
    changed = out(
        world.repo, "diff-tree", "-r", "--name-only", auto_tree, f"{world.merge}^{{tree}}"
    )
    evil = set(changed.split()) - set(conflicts)
    assert evil == set(world.evil_merge_files)
    assert len(evil) >= 1
    assert "docker/Dockerfile.ci.dev" in evil


def test_keep_dev_files_are_identical_to_dev_at_the_head(world: DemoFacts):
    assert world.keep_dev == DEFAULT_KEEP_DEV
    for path in world.keep_dev:
        same = blob(world.repo, "HEAD", path) == blob(world.repo, world.dev_base, path)
        assert world.protected_identical[path] is same is True


def test_dev_moved_on_and_merges_cleanly_into_the_head(world: DemoFacts):
    advanced = out(world.repo, "rev-list", "--reverse", f"{world.dev_base}..{world.dev_branch}")
    assert tuple(advanced.split()) == world.dev_advanced
    assert len(world.dev_advanced) == 4
    assert world.dev_tip == world.dev_advanced[-1]
    assert all(
        s.startswith("[dev] ")
        for s in out(
            world.repo, "log", "--format=%s", f"{world.dev_base}..{world.dev_tip}"
        ).splitlines()
    )
    status, conflicts, _ = merge_tree(world.repo, DEMO_SYNC_BRANCH, world.dev_tip)
    assert status == 0
    assert conflicts == {}
    assert world.dev_merges_cleanly


# -- DCO, signatures, pull requests, authors ---------------------------------------------------


def _slice_log(world: DemoFacts) -> dict[str, list[str]]:
    fmt = "%H%x1f%an%x1f%ae%x1f%ce%x1f%s%x1f%(trailers:key=Signed-off-by,valueonly,separator=%x1d)"
    lines = out(world.repo, "log", f"--format={fmt}", f"{world.dev_base}..{world.slice_tip}")
    return {line.split("\x1f")[0]: line.split("\x1f")[1:] for line in lines.splitlines()}


def test_bot_commits_have_no_signoff_and_one_signoff_is_mismatched(world: DemoFacts):
    log = _slice_log(world)
    unsigned = {sha for sha, (_, _, _, _, signoffs) in log.items() if not signoffs}
    assert unsigned == set(world.unsigned)
    assert len(unsigned) >= 3
    assert all(log[sha][0] == BOT for sha in unsigned)
    assert {log[sha][3] for sha in unsigned} == {
        "chore: rotate oncall schedule",
        "Update copy-pr-bot.yaml",
    }
    mismatched = set()
    for sha, (name, email, committer_email, _, signoffs) in log.items():
        emails = re.findall(r"<([^>]*)>", signoffs)
        if emails and email not in emails and committer_email not in emails:
            mismatched.add(sha)
        elif emails:
            assert signoffs == f"{name} <{email}>"
    assert mismatched == set(world.mismatched_signoff)
    assert len(mismatched) == 1
    (sha,) = mismatched
    assert log[sha][1].endswith("@users.noreply.github.com")
    assert log[sha][4].endswith("@lumen-ai.dev>")
    assert len({name for name, *_ in log.values() if name != BOT}) >= 4


def test_two_slice_commits_carry_an_ssh_signature_header(world: DemoFacts):
    signed = set()
    for sha in world.slice:
        raw = out(world.repo, "cat-file", "commit", sha)
        if "\ngpgsig " in raw.split("\n\n", 1)[0]:
            signed.add(sha)
            assert "gpgsig -----BEGIN SSH SIGNATURE-----" in raw
            assert " -----END SSH SIGNATURE-----" in raw
    assert signed == set(world.signed)
    assert len(signed) == 2


def test_pr_numbers_come_from_the_subjects(world: DemoFacts):
    subjects = {sha: fields[3] for sha, fields in _slice_log(world).items()}
    assert set(world.prs) == set(world.slice)
    for sha, pr in world.prs.items():
        match = re.search(r"\(#(\d+)\)$", subjects[sha])
        assert pr == (int(match.group(1)) if match else None)
    numbered = [pr for pr in world.prs.values() if pr is not None]
    assert len(numbered) >= 90
    assert len(numbered) < len(world.prs)
    assert len(set(numbered)) == len(numbered)


def test_main_commits_touch_one_to_three_files(world: DemoFacts):
    for sha in world.slice:
        touched = out(world.repo, "diff-tree", "--no-commit-id", "-r", "--name-only", sha).split()
        assert 1 <= len(touched) <= 3, sha


# -- the repository itself -----------------------------------------------------------------------


def test_the_repository_is_sound_clean_and_modest(tmp_path):
    facts = build_world(tmp_path)
    fsck = git(facts.repo, "fsck", "--strict", "--full")
    assert fsck.stdout == ""
    assert fsck.stderr == ""
    assert out(facts.repo, "status", "--porcelain", "--untracked-files=all") == ""
    files = out(facts.repo, "ls-files").splitlines()
    assert 50 <= len(files) <= 400
    assert {
        "pyproject.toml",
        "uv.lock",
        ".github/CODEOWNERS",
        "docker/Dockerfile.ci.dev",
        "README.md",
    } <= set(files)
    assert 200 <= len((facts.repo / "uv.lock").read_text().splitlines()) <= 1000
    packages = {path.split("/")[1] for path in files if path.startswith("lumen/")}
    assert {"core", "data", "models", "inference", "training"} <= packages


def test_scale_grows_files_and_conflicts(world: DemoFacts, tmp_path):
    spec = WorldSpec(main_commits=40, slice_size=30, dev_commits=8, dev_advance=1, scale=2)
    bigger = build_world(tmp_path, spec)
    assert len(bigger.slice) == 30
    assert bigger.remaining == 10
    assert len(bigger.conflicts) > len(world.conflicts)
    status, conflicts, _ = merge_tree(bigger.repo, bigger.dev_base, bigger.slice_tip)
    assert status == 1
    assert conflicts == {fact.path: fact.type for fact in bigger.conflicts}
    size = len(out(bigger.repo, "ls-files").splitlines())
    assert size > len(out(world.repo, "ls-files").splitlines())
    assert bigger.dev_merges_cleanly
    assert len(bigger.unsigned) >= 3


@pytest.mark.parametrize("where", ["/proc/nope", "/dev/null/demo"])
def test_a_demo_directory_that_cannot_be_made_is_one_line(where, capsys):
    from syncdesk.tui.cli.run import main

    assert main(["demo", "--dir", where, "--no-open"]) == 1
    err = capsys.readouterr().err.splitlines()
    assert err[-1].startswith(f"syncdesk: cannot build the demo world in {where}: ")
    assert "internal error" not in err[-1]
