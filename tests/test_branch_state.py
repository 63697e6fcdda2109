"""Around the sync: dev's new commits, the protected files, the line stats."""

from __future__ import annotations

import subprocess

from syncdesk.services.git.runner import Git
from syncdesk.services.sync.branch_state import dev_advanced, line_stats, protected_files
from tests.syncrepo import build_sync_repo


def raw_git(built, *args):
    return subprocess.run(
        ["git", *args], cwd=built.path, capture_output=True, text=True, check=False
    )


def test_dev_moved_on_cleanly(tmp_path):
    built = build_sync_repo(tmp_path / "r", dev_moves="clean")
    dev = built.repo.rev("dev")
    advanced = dev_advanced(Git(built.path), built.dev_base, dev, built.head)
    expected = built.git("rev-list", "--reverse", f"{built.dev_base}..dev").split()
    assert len(expected) == 2
    assert [c.sha for c in advanced.commits] == expected  # oldest first
    assert [c.subject for c in advanced.commits] == ["dev: new module", "dev: docs"]
    assert advanced.dev_tip == dev
    assert advanced.merges_cleanly is True
    assert raw_git(built, "merge-tree", "--write-tree", built.head, dev).returncode == 0


def test_dev_moved_on_with_a_conflict(tmp_path):
    built = build_sync_repo(tmp_path / "r", dev_moves="conflict")
    dev = built.repo.rev("dev")
    advanced = dev_advanced(Git(built.path), built.dev_base, dev, built.head)
    assert [c.sha for c in advanced.commits] == built.dev_new
    assert advanced.merges_cleanly is False
    assert raw_git(built, "merge-tree", "--write-tree", built.head, dev).returncode == 1


def test_dev_did_not_move(tmp_path):
    built = build_sync_repo(tmp_path / "r")
    advanced = dev_advanced(Git(built.path), built.dev_base, built.repo.rev("dev"), built.head)
    assert advanced.commits == ()
    assert advanced.merges_cleanly is None


def blob(built, rev, path):
    result = raw_git(built, "rev-parse", "--verify", "--quiet", f"{rev}:{path}")
    return result.stdout.strip() or None


def test_protected_files_identical_different_missing(tmp_path):
    built = build_sync_repo(tmp_path / "r")
    head = built.repo.commit("Drop the lock file", {"uv.lock": None})
    paths = (".github/CODEOWNERS", "pyproject.toml", "uv.lock", "docker/Dockerfile.ci.dev")
    found = {p.path: p for p in protected_files(Git(built.path), head, built.dev_base, paths)}
    assert list(found) == list(paths)
    for path, protected in found.items():
        assert protected.at_head == blob(built, head, path)
        assert protected.at_dev_base == blob(built, built.dev_base, path)
    # Main changed the owners too; the resolution kept dev's bytes.
    assert found[".github/CODEOWNERS"].identical
    assert found[".github/CODEOWNERS"].at_head is not None
    # Main's version bump merged in without a conflict: no longer dev's file.
    assert not found["pyproject.toml"].identical
    # Deleted on the sync branch.
    assert not found["uv.lock"].identical
    assert found["uv.lock"].at_head is None
    assert found["uv.lock"].at_dev_base is not None
    # In neither tree: nothing differs.
    assert found["docker/Dockerfile.ci.dev"].identical
    assert found["docker/Dockerfile.ci.dev"].at_dev_base is None


def test_no_protected_paths(tmp_path):
    built = build_sync_repo(tmp_path / "r")
    assert protected_files(Git(built.path), built.head, built.dev_base, ()) == ()


def test_python_stats_match_git_numstat(tmp_path):
    built = build_sync_repo(tmp_path / "r")
    stats = line_stats(Git(built.path), built.dev_base, built.head, built.merge)
    rows = [
        line.split("\t")
        for line in built.git(
            "diff", "--numstat", built.dev_base, built.head, "--", "*.py"
        ).splitlines()
    ]
    assert rows  # the fixture does change Python files
    assert all(path.endswith(".py") for _, _, path in rows)
    assert stats.python_added == sum(int(added) for added, _, _ in rows)
    assert stats.python_deleted == sum(int(deleted) for _, deleted, _ in rows)
    assert stats.python_files == len(rows)
    assert stats.python_summary == (
        f"+{stats.python_added} / -{stats.python_deleted} across {stats.python_files} files"
    )


def test_remerge_diff_lists_what_the_resolution_changed(tmp_path):
    built = build_sync_repo(tmp_path / "r")
    merged = raw_git(
        built, "merge-tree", "--write-tree", "--name-only", built.dev_base, built.slice_tip
    )
    assert merged.returncode == 1
    conflicted = set(merged.stdout.split("\n\n")[0].splitlines()[1:])
    assert conflicted == {".github/CODEOWNERS", "pkg/core.py"}
    stats = line_stats(Git(built.path), built.dev_base, built.head, built.merge)
    # The conflicted files, and the non-conflicted file the merge changed by hand ...
    assert set(stats.remerge_diff_files) == conflicted | {built.evil_file}
    # ... but not the files main changed that merged cleanly.
    brought = built.git("diff", "--name-only", built.dev_base, built.sync_merge).splitlines()
    assert "pkg/mod1.py" in brought
    assert "pkg/mod1.py" not in stats.remerge_diff_files


def test_no_merge_no_remerge_diff(tmp_path):
    built = build_sync_repo(tmp_path / "r", no_merge=True)
    stats = line_stats(Git(built.path), built.dev_base, built.head, None)
    assert stats.remerge_diff_files == ()
    assert stats.python_files == 1  # pkg/feature.py


def test_protected_directories_are_compared_whole(tmp_path):
    built = build_sync_repo(tmp_path / "r")
    # A directory, a file inside it, and a directory written with a trailing slash.
    paths = ("pkg", "pkg/core.py", ".github/", "docs/")
    found = protected_files(Git(built.path), built.head, built.dev_base, paths)
    assert [p.path for p in found] == list(paths)
    for protected in found:
        assert protected.at_head == blob(built, built.head, protected.path)
        assert protected.at_dev_base == blob(built, built.dev_base, protected.path)
    identical = {p.path: p.identical for p in found}
    assert identical == {"pkg": False, "pkg/core.py": False, ".github/": True, "docs/": True}
    assert found[0].at_head is not None


def remerge_diff_headers(repo, merge):
    """The files `git show --remerge-diff` shows, from its `diff --git a/X b/X` headers."""
    patch = repo.git("show", "--remerge-diff", "--format=", merge)
    return {line.split(" b/")[-1] for line in patch.splitlines() if line.startswith("diff --git ")}


def test_remerge_diff_list_is_what_git_shows(tmp_path):
    built = build_sync_repo(tmp_path / "r")
    stats = line_stats(Git(built.path), built.dev_base, built.head, built.merge)
    assert set(stats.remerge_diff_files) == remerge_diff_headers(built.repo, built.sync_merge)


def _modify_delete_kept_as_modified(repo):
    """main deletes legacy.py, dev modifies it; the sync keeps dev's: (dev base, merge)."""
    repo.commit("base", {"legacy.py": "def old():\n    return 1\n", "other.py": "X = 1\n"})
    repo.checkout("dev", "main")
    dev_version = "def old():\n    return 2  # dev still uses it\n"
    dev_base = repo.commit("dev: keep legacy alive", {"legacy.py": dev_version})
    repo.checkout("main")
    repo.commit("Remove legacy (#1)", {"legacy.py": None})
    slice_tip = repo.commit("Touch other (#2)", {"other.py": "X = 2\n"})
    repo.checkout("sync", dev_base)
    # Resolved as git's re-merge leaves it (dev's modified file): no content diff at all.
    return dev_base, repo.merge(slice_tip, "Sync", resolve={"legacy.py": dev_version})


def test_modify_delete_kept_as_modified_is_listed(repo):
    dev_base, merge = _modify_delete_kept_as_modified(repo)
    assert repo.git("show", "--remerge-diff", "--format=", "--name-only", merge) == ""
    assert "remerge CONFLICT (modify/delete)" in repo.git(
        "show", "--remerge-diff", "--format=", merge
    )
    stats = line_stats(Git(repo.path), dev_base, merge, merge)
    assert stats.remerge_diff_files == ("legacy.py",)
    assert set(stats.remerge_diff_files) == remerge_diff_headers(repo, merge)


def test_the_report_lists_the_same_remerge_files_merging_the_parents_once(
    repo, monkeypatch
) -> None:
    """The report lists the remerge-diff files from the one merge that reads the conflicts."""
    from pathlib import Path

    from syncdesk.services.sync.options import SyncOptions
    from syncdesk.services.sync.session import load_report, open_sync

    dev_base, merge = _modify_delete_kept_as_modified(repo)
    alone = line_stats(Git(repo.path), dev_base, merge, merge)
    session = open_sync(SyncOptions(repo=repo.path, head="sync"), user_config=Path("/nonexistent"))
    merges: list[list[str]] = []
    run = Git.run

    def recording(self, args, **kwargs):
        if "merge-tree" in args or "--remerge-diff" in args:
            merges.append(list(args))
        return run(self, args, **kwargs)

    monkeypatch.setattr(Git, "run", recording)
    report = load_report(session, detail=False)
    assert report.stats.remerge_diff_files == alone.remerge_diff_files == ("legacy.py",)
    assert len(merges) == 1  # neither a --remerge-diff nor a second merge-tree


def test_the_reports_remerge_list_is_what_git_shows_on_a_sync_with_a_repair(tmp_path):
    from pathlib import Path

    from syncdesk.services.sync.options import SyncOptions
    from syncdesk.services.sync.session import load_report, open_sync

    built = build_sync_repo(tmp_path / "r")
    options = SyncOptions(repo=built.path, head=built.head)
    report = load_report(open_sync(options, user_config=Path("/nonexistent")), detail=False)
    shown = remerge_diff_headers(built.repo, built.sync_merge)
    assert shown  # the resolution changed files: the comparison says something
    assert set(report.stats.remerge_diff_files) == shown
