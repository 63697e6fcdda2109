"""The slice: the oldest N commits of dev_base..main, described for the DCO and the reviewer."""

from __future__ import annotations

import subprocess

import pytest

from syncdesk.services.git.runner import Git
from syncdesk.services.sync.slice import main_line, pr_number, read_slice
from tests.syncrepo import build_sync_repo
from tests.test_git import write_script


def slice_of(built, size):
    git = Git(built.path)
    main = built.repo.rev("main")
    return read_slice(git, built.dev_base, main, size, main_line(git, built.dev_base, main))


def first_parent_line(built):
    return built.git("rev-list", "--first-parent", "--reverse", f"{built.dev_base}..main").split()


def test_oldest_n_in_first_parent_order_with_a_merge_on_main(tmp_path):
    built = build_sync_repo(tmp_path / "r", main_merge_at=3)
    the_slice = slice_of(built, 5)
    expected = first_parent_line(built)
    assert [c.sha for c in the_slice.commits] == expected[:5]
    assert [c.index for c in the_slice.commits] == [1, 2, 3, 4, 5]
    assert the_slice.tip == expected[4]
    assert the_slice.remaining == len(expected) - 5
    # The side branch merged into main is not counted in the slice ...
    all_commits = built.git("rev-list", f"{built.dev_base}..main").split()
    assert set(built.side_commits) <= set(all_commits)
    assert not set(built.side_commits) & {c.sha for c in the_slice.commits}
    # ... and the merge that brought it is reported as one.
    for commit in the_slice.commits:
        parents = built.git("rev-list", "--parents", "-n1", commit.sha).split()[1:]
        assert commit.is_merge == (len(parents) > 1)
    assert [c.is_merge for c in the_slice.commits].count(True) == 1


def test_a_slice_larger_than_the_backlog_takes_all_of_it(tmp_path):
    built = build_sync_repo(tmp_path / "r")
    the_slice = slice_of(built, 100)
    assert [c.sha for c in the_slice.commits] == first_parent_line(built)
    assert the_slice.remaining == 0
    assert the_slice.size == 100


def test_nothing_to_slice_when_dev_already_has_main(tmp_path):
    built = build_sync_repo(tmp_path / "r")
    git = Git(built.path)
    main = built.repo.rev("main")
    the_slice = read_slice(git, main, main, 5, main_line(git, main, main))
    assert the_slice.commits == ()
    assert the_slice.tip is None
    assert the_slice.remaining == 0


def test_commit_fields_are_what_git_log_says(tmp_path):
    built = build_sync_repo(tmp_path / "r")
    for commit in slice_of(built, 5).commits:
        subject, name, email, date = built.git(
            "log", "-1", "--format=%s%x00%an%x00%ae%x00%aI", commit.sha
        ).split("\0")
        assert (commit.subject, commit.author_name, commit.author_email, commit.date) == (
            subject,
            name,
            email,
            date,
        )


def test_pr_number_comes_from_the_subject_suffix(tmp_path):
    built = build_sync_repo(tmp_path / "r")
    commits = slice_of(built, 5).commits
    by_subject = {c.subject: c.pr for c in commits}
    assert by_subject["Add module one (#101)"] == 101
    assert by_subject["Bump the version"] is None


@pytest.mark.parametrize(
    ("subject", "pr"),
    [
        ("Fix the parser (#1234)", 1234),
        ("Fix the parser (#1234)  ", 1234),
        ("Revert #12 (#1300)", 1300),
        ("Fix (#12) in the middle", None),
        ("Fix #12", None),
        ("Fix (12)", None),
        ("Fix (#)", None),
    ],
)
def test_pr_number(subject, pr):
    assert pr_number(subject) == pr


def test_signoffs_follow_the_dco_apps_rule(tmp_path):
    built = build_sync_repo(tmp_path / "r")
    commits = {c.subject: c for c in slice_of(built, 5).commits}
    cases = {
        "Add module one (#101)": (True, True, "✓"),  # signed off by the author
        "Change the core answer (#102)": (True, True, "✓"),  # by the committer
        "Update code owners (#103)": (False, False, "✗"),  # a bot, no sign-off
        "Bump the version": (True, False, "≠"),  # noreply email vs corporate author
        "Add module five (#105)": (True, True, "✓"),  # case differs only
    }
    for subject, (signed_off, matches, mark) in cases.items():
        commit = commits[subject]
        assert (commit.signed_off, commit.signoff_matches_author, commit.signoff_mark) == (
            signed_off,
            matches,
            mark,
        ), subject
    trailer = built.git(
        "log",
        "-1",
        "--format=%(trailers:key=Signed-off-by,valueonly)",
        commits["Bump the version"].sha,
    )
    assert commits["Bump the version"].signoffs == (trailer,)


def test_signed_comes_from_the_signature_header_and_gpg_never_runs(tmp_path):
    built = build_sync_repo(tmp_path / "r")
    fired = tmp_path / "fired"
    # It drains its stdin (the signed payload), so git never dies of SIGPIPE.
    canary = write_script(tmp_path / "canary", f'echo "$0 $*" >> {fired}\ncat >/dev/null\nexit 1\n')
    allowed = tmp_path / "allowed_signers"
    allowed.write_text("")
    for key in ("gpg.program", "gpg.ssh.program", "gpg.x509.program"):
        built.git("config", key, str(canary))
    built.git("config", "gpg.ssh.allowedSignersFile", str(allowed))
    built.git("config", "log.showSignature", "true")

    commits = slice_of(built, 5).commits

    with_header = {c.sha for c in commits if "\ngpgsig " in built.git("cat-file", "commit", c.sha)}
    assert len(with_header) == 1
    assert {c.sha for c in commits if c.signed} == with_header
    assert not fired.exists()
    # Verifying the signature, as %G? would, runs the configured program.
    verify = ["git", "log", "-1", "--format=%G?", next(iter(with_header))]
    subprocess.run(
        verify, cwd=built.path, capture_output=True, stdin=subprocess.DEVNULL, check=False
    )
    assert fired.exists()


def test_hostile_subject_and_author_are_sanitized(tmp_path):
    built = build_sync_repo(
        tmp_path / "r",
        subjects={1: "Evil \x1b]52;c;ZXZpbA==\x07 \u202eesrever (#7)"},
        authors={6: ("Mal\x1b[31mory", "mal@example.com")},
    )
    commits = slice_of(built, 8).commits
    assert commits[0].subject == "Evil ^[]52;c;ZXZpbA==^G <U+202E>esrever (#7)"
    assert commits[0].pr == 7
    assert commits[5].author_name == "Mal^[[31mory"
