"""Two readings a real review needs: a blob link on a branch whose name has slashes, and a
severity written as an image's alternative text (a badge)."""

from __future__ import annotations

from pathlib import Path

from syncdesk.services.git.runner import Git
from syncdesk.services.review.parse import parse_text
from syncdesk.services.review.paths import resolve_cited_paths
from syncdesk.services.review.severity import level_of
from tests.gitrepo import GitRepo


def _repo(path: Path) -> GitRepo:
    repo = GitRepo(path)
    sha = repo.commit("base", {"train_rl.py": "".join(f"x{i} = {i}\n" for i in range(60))})
    repo.branch("main2dev/13_08_2026", sha)
    repo.git("tag", "main2dev", sha)  # a shorter ref (a tag) that is a prefix of the link's
    return repo


def test_a_blob_link_on_a_branch_with_slashes_cites_the_file_on_that_branch(
    tmp_path: Path,
) -> None:
    repo = _repo(tmp_path / "r")
    url = "https://github.com/o/r/blob/main2dev/13_08_2026/train_rl.py#L25-L28"
    (finding,) = parse_text(f"F1 — The reward is read twice\n\nSee {url}.")
    (resolved,) = resolve_cited_paths(Git(repo.path), "HEAD", [finding])
    (cited,) = resolved.ranges
    assert (cited.path, cited.start, cited.end) == ("train_rl.py", 25, 28)
    assert cited.commit == "main2dev/13_08_2026"  # the longest ref that matches


def test_a_link_whose_ref_the_repository_lacks_is_kept_as_written(tmp_path: Path) -> None:
    repo = _repo(tmp_path / "r")
    url = "https://github.com/o/r/blob/feature/x/train_rl.py#L3"
    (finding,) = parse_text(f"F1 — Reads twice\n\nSee {url}.")
    (cited,) = resolve_cited_paths(Git(repo.path), "HEAD", [finding])[0].ranges
    assert (cited.commit, cited.path) == ("feature", "x/train_rl.py")


def test_a_badge_images_alternative_text_is_the_severity() -> None:
    text = (
        "| ID | Priority | Title |\n|---|---|---|\n"
        '| R1 | <img alt="P2" src="https://img.example/p2.svg"> | Bound the queue |\n'
    )
    (finding,) = parse_text(text)
    assert finding.id == "R1" and finding.severity == "P2"
    assert level_of(finding.severity) == "medium"


def test_a_review_systems_link_to_a_line_cites_that_line_of_that_file() -> None:
    url = "https://review.example.dev/c/kestrel/+/4242/3/kestrel/serving/retry.py@31"
    (finding,) = parse_text(f"F2 — The loop never stops\n\nSee {url} for the loop.")
    (cited,) = finding.ranges
    assert (cited.path, cited.start, cited.end) == ("kestrel/serving/retry.py", 31, 31)
