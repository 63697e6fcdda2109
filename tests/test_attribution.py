"""Attribution: the commits named for each side of a hunk are the ones that wrote those lines.

The repository is built commit by commit, so the test knows which commit
wrote which line; blame runs once per file and side with all the ranges.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

import pytest

from syncdesk.services.conflicts.attribution import attribute, parse_porcelain
from syncdesk.services.conflicts.models import FileAttribution
from syncdesk.services.conflicts.read import read_conflicts
from syncdesk.services.git.runner import Git, GitResult
from tests.conflictrepo import numbered, replace_lines
from tests.gitrepo import GitRepo

F = numbered(30)
G = numbered(20, "g")
HOSTILE = "Tune \x1b]52;c;ZXZpbA==\x07 the loader"


@dataclass
class Built:
    repo: GitRepo
    commits: dict[str, str]  # name -> sha

    @property
    def git(self) -> Git:
        return Git(self.repo.path)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Built:
    repo = GitRepo(tmp_path_factory.mktemp("blame") / "r")
    shas = {"root": repo.commit("Base", {"f.txt": F, "g.txt": G})}
    f, g = F, G
    repo.checkout("dev", shas["root"])
    f = replace_lines(f, {5: "five on dev\n"})
    g = replace_lines(g, {10: "g ten on dev\n"})
    shas["D1"] = repo.commit(HOSTILE, {"f.txt": f, "g.txt": g}, author=("Dee", "dee@dev.example"))
    f = replace_lines(f, {6: "six on dev\n"})
    shas["D2"] = repo.commit("dev: six", {"f.txt": f})
    f = replace_lines(f, {20: "twenty on dev\n", 25: None, 26: None})
    shas["D3"] = repo.commit("dev: twenty, drop 25-26", {"f.txt": f})
    f, g = F, G
    repo.checkout("main")
    f = replace_lines(f, {5: "five on main\n", 6: "six on main\n"})
    g = replace_lines(g, {10: "g ten on main\n"})
    shas["M1"] = repo.commit("main: five and six", {"f.txt": f, "g.txt": g})
    f = replace_lines(f, {20: "twenty on main\n"})
    shas["M2"] = repo.commit("main: twenty", {"f.txt": f})
    f = replace_lines(f, {20: "twenty on main, again\n", 25: "twenty-five on main\n"})
    shas["M3"] = repo.commit("main: twenty again, 25", {"f.txt": f})
    shas["M4"] = repo.commit("main: unrelated", {"h.txt": "h\n"})
    return Built(repo, shas)


def _attribution(built: Built) -> dict[str, FileAttribution]:
    conflicts = read_conflicts(built.git, "dev", "main", None)
    return {item.path: item for item in attribute(built.git, conflicts).files}


def _shas(commits: tuple[object, ...]) -> list[str]:
    return [getattr(commit, "sha") for commit in commits]  # noqa: B009


def test_each_side_names_the_commits_that_wrote_its_lines(built: Built) -> None:
    by_path = _attribution(built)
    c = built.commits
    f_hunks = by_path["f.txt"].hunks
    assert [(_shas(h.dev), _shas(h.main)) for h in f_hunks] == [
        ([c["D1"], c["D2"]], [c["M1"]]),  # lines 5-6: two dev commits, in line order
        ([c["D3"]], [c["M3"]]),  # line 20: the last main commit to write it
        # dev deleted 25-26: a deletion names no commit; main's 26 is older than the sync
        ([], [c["M3"]]),
    ]
    (g_hunk,) = by_path["g.txt"].hunks
    assert (_shas(g_hunk.dev), _shas(g_hunk.main)) == ([c["D1"]], [c["M1"]])
    assert by_path["f.txt"].problems == ()


def test_lines_older_than_the_sync_name_no_commit(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "r")
    root = repo.commit("Base", {"f.txt": F})
    repo.checkout("dev", root)
    repo.commit("dev", {"f.txt": replace_lines(F, {5: "five on dev\n"})})
    repo.checkout("main")
    # main's side of the hunk is line 5 changed plus line 4, untouched since the base.
    repo.commit("main", {"f.txt": replace_lines(F, {5: "five on main\n"})})
    git = Git(repo.path)
    conflicts = read_conflicts(git, "dev", "main", None)
    (item,) = attribute(git, conflicts).files
    (hunk,) = item.hunks
    assert _shas(hunk.main) == [repo.rev("main")]
    assert root not in _shas(hunk.dev) + _shas(hunk.main)


def test_commit_details_come_from_the_commit_and_are_sanitized(built: Built) -> None:
    by_path = _attribution(built)
    first = by_path["g.txt"].hunks[0].dev[0]
    assert first.sha == built.commits["D1"]
    assert first.subject == "Tune ^[]52;c;ZXZpbA==^G the loader"
    assert (first.author_name, first.author_email) == ("Dee", "dee@dev.example")
    assert first.date == built.repo.git("log", "-1", "--format=%aI", built.commits["D1"])


def test_one_blame_per_file_and_side_with_every_range(
    built: Built, monkeypatch: pytest.MonkeyPatch
) -> None:
    conflicts = read_conflicts(built.git, "dev", "main", None)
    calls: list[list[str]] = []
    real = Git.run

    def recording(self: Git, args: list[str], **kwargs: object) -> GitResult:
        calls.append(list(args))
        return real(self, args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Git, "run", recording)
    attribute(built.git, conflicts)
    blames = sorted((args[-1], tuple(a for a in args if a.startswith("-L"))) for args in calls)
    assert [args[0] for args in calls] == ["blame"] * 4
    c = built.commits
    assert blames == [
        ("f.txt", ("-L5,6", "-L20,20")),  # dev side (its 25-26 are gone)
        # main side: dev's deletion of 25-26 makes both main lines part of the conflict
        ("f.txt", ("-L5,6", "-L20,20", "-L25,26")),
        ("g.txt", ("-L10,10",)),
        ("g.txt", ("-L10,10",)),
    ]
    ranges = {args[-3] for args in calls}
    assert ranges == {f"{c['M4']}..{built.repo.rev('dev')}", f"{c['D3']}..{c['M4']}"}


def test_a_failing_blame_is_reported_and_names_no_commit(built: Built) -> None:
    conflicts = read_conflicts(built.git, "dev", "main", None)
    broken = replace(conflicts.files[0], dev_path="no/such/file.txt")
    item = attribute(built.git, replace(conflicts, files=(broken,))).files[0]
    assert len(item.problems) == 1
    assert "no/such/file.txt" in item.problems[0]
    assert all(hunk.dev == () for hunk in item.hunks)
    assert any(hunk.main for hunk in item.hunks)  # the other side still answered


def test_porcelain_groups_and_boundaries() -> None:
    sha_a, sha_b = "a" * 40, "b" * 40
    out = (
        f"{sha_a} 1 7 2\nauthor A\nauthor-mail <a@x>\nauthor-time 0\nauthor-tz +0100\n"
        f"summary first\nfilename f\n\tline 7\n{sha_a} 2 8\n\tline 8\n"
        f"{sha_b} 9 9 1\nauthor B\nsummary old\nboundary\nfilename f\n\tline 9\n"
    ).encode()
    blamed = parse_porcelain(out)
    assert blamed.lines == {7: sha_a, 8: sha_a}  # the boundary commit's line names none
    assert blamed.commits[sha_a].date == "1970-01-01T01:00:00+01:00"
