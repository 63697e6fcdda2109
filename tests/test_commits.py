"""Reading commits in bulk and in detail (the commit view), against raw git."""

from __future__ import annotations

import subprocess

from syncdesk.services.git.commit import parse_commit_object, parse_ident
from syncdesk.services.git.runner import Git
from syncdesk.services.sync.commits import (
    commit_details,
    is_signed,
    log_commits,
    raw_commits,
    signed_shas,
)
from tests.syncrepo import build_sync_repo


def test_log_commits_keeps_the_order_asked_for(tmp_path):
    built = build_sync_repo(tmp_path / "r")
    asked = [built.main_line[3], built.main_line[0], built.dev_base]
    logged = log_commits(Git(built.path), asked)
    assert [c.sha for c in logged] == asked
    assert log_commits(Git(built.path), []) == []


def test_commit_details_of_an_ordinary_commit(repo):
    repo.commit("Initial", {"a.py": "a = 1\n", "b.py": "b = 1\n"})
    sha = repo.commit(
        "Change a\n\nLonger body.\n\nSigned-off-by: Alice Main <alice@corp.example>\n",
        {"a.py": "a = 2\nc = 3\n", "b.py": None, "logo.png": b"\x89PNG\r\n\x1a\n\x00\x00"},
        author=("Alice Main", "alice@corp.example"),
    )
    details = commit_details(Git(repo.path), sha)
    assert details.sha == sha
    assert details.parents == (repo.rev("HEAD~1"),)
    assert (details.author.name, details.author.email) == ("Alice Main", "alice@corp.example")
    assert (details.committer.name, details.committer.email) == (
        "Ada Maintainer",
        "ada@example.com",
    )
    assert details.author_date == repo.git("log", "-1", "--format=%aI", sha)
    assert details.committer_date == repo.git("log", "-1", "--format=%cI", sha)
    assert details.message == repo.git("log", "-1", "--format=%B", sha)
    assert not details.signed
    files = {f.path: (f.path, f.added, f.deleted) for f in details.files}
    assert sorted(files.values()) == sorted(numstat_of(repo, sha))
    assert files["logo.png"] == ("logo.png", None, None)  # binary
    assert (details.added, details.deleted) == (
        sum(a for _, a, _ in numstat_of(repo, sha) if a is not None),
        sum(d for _, _, d in numstat_of(repo, sha) if d is not None),
    )


def numstat_of(repo, sha):
    rows = repo.git(
        "diff-tree", "-r", "--numstat", "--no-renames", "--no-commit-id", sha
    ).splitlines()
    return [
        (path, None if added == "-" else int(added), None if deleted == "-" else int(deleted))
        for added, deleted, path in (row.split("\t") for row in rows)
    ]


def test_dates_keep_their_offset(repo):
    repo.commit("first")
    repo.git(
        "commit", "-q", "--allow-empty", "-m", "odd offset",
        env={"GIT_AUTHOR_DATE": "@1700000000 -0130", "GIT_COMMITTER_DATE": "@1700003600 +0545"},
    )  # fmt: skip
    details = commit_details(Git(repo.path), repo.rev("HEAD"))
    assert (
        details.author_date == repo.git("log", "-1", "--format=%aI") == "2023-11-14T20:43:20-01:30"
    )
    assert details.committer_date == repo.git("log", "-1", "--format=%cI")


def test_commit_details_of_a_root_commit_and_a_merge(tmp_path):
    built = build_sync_repo(tmp_path / "r")
    git = Git(built.path)
    root = commit_details(git, built.root)
    assert root.parents == ()
    assert {f.path for f in root.files} == set(
        built.git("ls-tree", "-r", "--name-only", built.root).splitlines()
    )
    merge = commit_details(git, built.sync_merge)
    assert merge.parents == (built.dev_base, built.slice_tip)
    # A merge's files are what it brought into the branch: the diff against parent 1.
    expected = built.git(
        "diff", "--name-only", "--no-renames", built.dev_base, built.sync_merge
    ).splitlines()
    assert sorted(f.path for f in merge.files) == sorted(expected)


def test_signature_header_is_read_not_verified(tmp_path):
    built = build_sync_repo(tmp_path / "r")
    git = Git(built.path)
    signed = {sha for sha in built.main_line if "\ngpgsig " in built.git("cat-file", "commit", sha)}
    assert len(signed) == 1
    assert signed_shas(git, built.main_line) == signed
    sha = next(iter(signed))
    assert commit_details(git, sha).signed
    # The message does not include the signature.
    assert "SSH SIGNATURE" not in commit_details(git, sha).message


def test_raw_commits_are_byte_exact(tmp_path):
    built = build_sync_repo(tmp_path / "r")
    raws = raw_commits(Git(built.path), built.main_line)
    assert list(raws) == built.main_line
    for sha, raw in raws.items():
        assert raw.decode() == built.git("cat-file", "commit", sha) + "\n"


def test_hostile_message_is_made_visible(repo):
    sha = repo.commit(
        "Title \x1b]8;;http://evil\x07link\x1b]8;;\x07\n\nBody \u202e with\ttab\n",
        author=("Mal\x1b[2Jlory", "mal@example.com"),
    )
    details = commit_details(Git(repo.path), sha)
    assert details.message == "Title ^[]8;;http://evil^Glink^[]8;;^G\n\nBody <U+202E> with\ttab"
    assert details.author.name == "Mal^[[2Jlory"


def test_a_latin1_commit_reads_the_same_in_the_table_and_in_the_commit_view(repo):
    repo.commit("Initial", {"a.py": "a = 1\n"})
    tree = repo.git("rev-parse", "HEAD^{tree}").strip()
    made = subprocess.run(
        ["git", "-c", "i18n.commitEncoding=ISO-8859-1", "commit-tree", tree, "-p", "HEAD"],
        input=b"Caf\xe9 au lait\n\nCr\xe8me br\xfbl\xe9e.\n", cwd=repo.path,
        capture_output=True, check=True,
    )  # fmt: skip
    sha = made.stdout.decode().strip()
    git = Git(repo.path)
    assert log_commits(git, [sha])[0].subject == "Café au lait"  # git log re-encodes
    assert commit_details(git, sha).message == "Café au lait\n\nCrème brûlée."


def test_one_parser_reads_a_signed_commit_as_git_does(tmp_path):
    built = build_sync_repo(tmp_path / "r")
    git = Git(built.path)
    raws = raw_commits(git, built.main_line)
    (sha,) = [sha for sha in built.main_line if is_signed(raws[sha])]
    parsed = parse_commit_object(raws[sha])
    assert parsed.tree == built.git("log", "-1", "--format=%T", sha)
    assert parsed.parents == tuple(built.git("log", "-1", "--format=%P", sha).split())
    assert parsed.message == built.git("log", "-1", "--format=%B", sha) + "\n"
    assert parsed.signature is not None
    lines = parsed.signature.split("\n")
    assert lines[0] == "-----BEGIN SSH SIGNATURE-----"
    assert lines[-1] == "-----END SSH SIGNATURE-----"
    # The payload is the object without the signature header: what was signed.
    assert "SSH SIGNATURE" not in parsed.payload
    assert parsed.payload.startswith(f"tree {parsed.tree}\n")
    assert parsed.payload.endswith("\n\n" + parsed.message)
    author = parse_ident(parsed.author)
    assert author is not None
    assert author.when.isoformat() == built.git("log", "-1", "--format=%aI", sha)
