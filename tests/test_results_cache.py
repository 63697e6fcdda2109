"""Results kept by commit (services/cache/results.py): read back, never trusted, bounded.

The sync's conflict listing, the commits behind its hunks and its audit are
stored in the user's cache (a temporary XDG_CACHE_HOME per test, conftest) the
first time a sync is read. These tests read real syncs twice and check what a
maintainer would notice: the second read gives the same report without merging
or blaming again; an entry that is damaged, copied from another key, hostile or
of another code version is never used, and says so in one line; a new commit
is never answered from an old entry; the store stays under its bound.
"""

from __future__ import annotations

import json
import os
import pickle
import subprocess
import sys
import threading
import zlib
from pathlib import Path
from typing import Any

import platformdirs
import pytest

from syncdesk.services.audit.model import Audit
from syncdesk.services.cache import results as cache_module
from syncdesk.services.cache.results import MAGIC, ResultsCache
from syncdesk.services.errors import Cancelled
from syncdesk.services.git.runner import Git, GitResult
from syncdesk.services.report.facts import to_json
from syncdesk.services.sync.options import SyncOptions
from syncdesk.services.sync.session import SyncSession, load_report, open_sync
from tests.syncrepo import SyncRepo, build_sync_repo


@pytest.fixture
def built(tmp_path: Path) -> SyncRepo:
    return build_sync_repo(tmp_path / "r")


def entries() -> list[Path]:
    directory = platformdirs.user_cache_path("syncdesk") / "results"
    return sorted(directory.glob("*.result")) if directory.exists() else []


def session_of(built: SyncRepo, *, cache: bool = True) -> SyncSession:
    return open_sync(
        SyncOptions(built.path, head="sync", slice_size=built.slice_size, results_cache=cache)
    )


def report_of(session: SyncSession) -> dict[str, object]:
    return to_json(load_report(session), session.config)


@pytest.fixture
def git_calls(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The subcommand of every git command syncdesk runs from here on (git still runs them)."""
    calls: list[str] = []
    real = Git.run

    def recording(self: Git, args: list[str], **kwargs: object) -> GitResult:
        rest = list(args)
        while rest and rest[0] == "-c":
            rest = rest[2:]
        calls.append(rest[0])
        return real(self, args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Git, "run", recording)
    return calls


def header(path: Path) -> dict[str, object]:
    data = path.read_bytes()
    end = data.index(b"\n", len(MAGIC))
    found: dict[str, object] = json.loads(data[len(MAGIC) : end])
    return found


def key_of(path: Path) -> list[str]:
    words = header(path)["key"]
    assert isinstance(words, list)
    return words


def test_a_second_read_of_the_same_sync_merges_and_blames_nothing(
    built: SyncRepo, git_calls: list[str]
) -> None:
    first = report_of(session_of(built))
    assert "merge-tree" in git_calls and "blame" in git_calls
    # Conflicts, the commits behind them, the audit: one entry each.
    assert len(entries()) == 3
    git_calls.clear()
    session = session_of(built)
    assert report_of(session) == first
    assert "merge-tree" not in git_calls and "blame" not in git_calls
    assert session.results is not None and session.results.take_notes() == []
    # And what was read back is what computing afresh gives.
    assert report_of(session_of(built, cache=False)) == first


def test_a_damaged_entry_is_said_once_computed_again_and_replaced(
    built: SyncRepo, git_calls: list[str]
) -> None:
    first = report_of(session_of(built))
    for path in entries():
        data = bytearray(path.read_bytes())
        data[-5] ^= 0xFF  # one byte of the payload
        path.write_bytes(bytes(data))
    session = session_of(built)
    assert report_of(session) == first
    assert session.results is not None
    notes = session.results.take_notes()
    assert len(notes) == 3 and all("unreadable (truncated or altered)" in n for n in notes)
    # Replaced: the next read finds every entry good, and merges nothing.
    git_calls.clear()
    again = session_of(built)
    assert report_of(again) == first
    assert again.results is not None and again.results.take_notes() == []
    assert "merge-tree" not in git_calls


def test_a_truncated_or_foreign_entry_is_never_used(built: SyncRepo) -> None:
    first = report_of(session_of(built))
    smallest, *_, largest = sorted(entries(), key=lambda path: path.stat().st_size)
    # The largest entry's name holds the smallest's file (copied from another key),
    # and the smallest is cut short, as a full disk or a kill would leave it.
    largest.write_bytes(smallest.read_bytes())
    smallest.write_bytes(smallest.read_bytes()[:40])
    session = session_of(built)
    assert report_of(session) == first
    assert session.results is not None
    notes = session.results.take_notes()
    assert sorted(n.split("(")[1].split(")")[0] for n in notes) == [
        "it was stored for other commits",
        "its header is damaged",
    ]


def test_a_hostile_entry_runs_nothing(built: SyncRepo, tmp_path: Path) -> None:
    first = report_of(session_of(built))
    marker = tmp_path / "ran"

    class Hostile:
        def __reduce__(self) -> tuple[object, tuple[str]]:
            return os.system, (f"touch {marker}",)

    # A well-formed entry for the right key, with the right size and digest: only
    # what its pickle names gives it away.
    payload = zlib.compress(pickle.dumps(Hostile(), protocol=5))
    for path in entries():
        head = {"key": key_of(path), "size": len(payload), "sha256": cache_module._sha256(payload)}
        path.write_bytes(MAGIC + json.dumps(head).encode() + b"\n" + payload)
    session = session_of(built)
    assert report_of(session) == first
    assert not marker.exists()
    assert session.results is not None
    notes = session.results.take_notes()
    assert len(notes) == 3 and all("it names posix.system" in note for note in notes)


def test_a_new_commit_is_never_answered_from_an_old_entry(built: SyncRepo) -> None:
    report_of(session_of(built))
    # A repair on top changes how a conflicted file is resolved: a new head.
    built.repo.checkout("sync")
    built.repo.commit("repair: resolve again", {"pkg/core.py": "def core():\n    return 42\n"})
    cached = report_of(session_of(built))
    assert cached == report_of(session_of(built, cache=False))
    files = cached["conflicts"]["files"]  # type: ignore[index]
    assert any(f["path"] == "pkg/core.py" for f in files)


def test_other_code_never_reads_an_entry(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cache = ResultsCache(tmp_path / "c")
    computed: list[int] = []

    def compute() -> list[int]:
        computed.append(1)
        return [1, 2]

    assert cache.kept("numbers", ["a" * 40], list, compute) == [1, 2]
    assert cache.kept("numbers", ["a" * 40], list, compute) == [1, 2]
    assert len(computed) == 1
    monkeypatch.setattr(cache_module, "code_version", lambda: "another version")
    assert cache.kept("numbers", ["a" * 40], list, compute) == [1, 2]
    assert len(computed) == 2
    # The same key asked for another type: not what it holds, computed again, said.
    assert cache.kept("numbers", ["a" * 40], dict, dict) == {}
    assert cache.take_notes() == ["the kept numbers held something else: computed again"]


def test_the_store_stays_under_its_bound_losing_what_was_read_least_recently(
    tmp_path: Path,
) -> None:
    cache = ResultsCache(tmp_path / "c", limit=2 * 1024 * 1024 + 4096)
    big = [os.urandom(1024 * 1024)]  # a megabyte zlib cannot shrink

    def store(name: str) -> Path:
        cache.kept(name, [name], list, lambda: big)
        (newest,) = [p for p in (tmp_path / "c").iterdir() if key_of(p)[1] == name]
        return newest

    first, second = store("first"), store("second")
    os.utime(first, (1000, 1000))
    os.utime(second, (2000, 2000))
    cache.kept("first", ["first"], list, lambda: [])  # a hit: read back, renewed
    assert cache.kept("first", ["first"], list, lambda: []) == big
    third = store("third")
    assert first.exists() and third.exists() and not second.exists()
    assert sum(p.stat().st_size for p in (tmp_path / "c").iterdir()) <= cache.limit


def test_a_cache_that_cannot_be_written_costs_only_speed(tmp_path: Path) -> None:
    blocked = tmp_path / "not-a-directory"
    blocked.write_text("a file where the cache's directory should be\n")
    cache = ResultsCache(blocked / "results")
    assert cache.kept("numbers", ["b" * 40], list, lambda: [3]) == [3]
    (note,) = cache.take_notes()
    assert note.startswith("the results cache was not written: could not create")


def test_the_report_says_a_damaged_entry_on_stderr_and_no_cache_keeps_nothing(
    built: SyncRepo,
) -> None:
    def report(*extra: str) -> subprocess.CompletedProcess[bytes]:
        command = [sys.executable, "-m", "syncdesk", "report", "--repo", str(built.path)]
        command += ["--head", "sync", "--slice-size", str(built.slice_size), *extra]
        return subprocess.run(command, capture_output=True, check=False, timeout=120)

    fresh = report("--no-cache", "--format", "json")
    assert fresh.returncode == 0 and entries() == []
    first = report("--format", "json")
    assert first.stdout == fresh.stdout and len(entries()) == 3
    for path in entries():
        path.write_bytes(b"not an entry\n")
    damaged = report("--format", "json")
    assert damaged.returncode == 0 and damaged.stdout == fresh.stdout
    lines = damaged.stderr.decode().splitlines()
    assert len(lines) == 3
    assert all(line.endswith("was unreadable (not an entry syncdesk wrote): computed again")
               for line in lines)  # fmt: skip


def test_two_askers_of_one_result_share_one_computation(tmp_path: Path) -> None:
    cache = ResultsCache(tmp_path / "c")
    started, release = threading.Event(), threading.Event()
    computed: list[int] = []

    def slow() -> list[int]:
        computed.append(1)
        started.set()
        release.wait(timeout=30)
        return [7]

    answers: list[list[int]] = []
    first = threading.Thread(target=lambda: answers.append(cache.kept("n", ["k"], list, slow)))
    first.start()
    assert started.wait(timeout=30)
    # A second asker while the first computes: it waits, then shares the first's value.
    second = threading.Thread(target=lambda: answers.append(cache.kept("n", ["k"], list, slow)))
    second.start()
    release.set()
    first.join(timeout=30)
    second.join(timeout=30)
    assert computed == [1]
    assert answers == [[7], [7]] and answers[0] is answers[1]


def test_a_waiting_asker_stops_when_its_work_is_cancelled(tmp_path: Path) -> None:
    cache = ResultsCache(tmp_path / "c")
    started, release = threading.Event(), threading.Event()

    def slow() -> list[int]:
        started.set()
        release.wait(timeout=30)
        return [7]

    first = threading.Thread(target=lambda: cache.kept("n", ["k"], list, slow))
    first.start()
    assert started.wait(timeout=30)

    def cancelled() -> None:
        raise Cancelled("cancelled: nothing was changed")

    try:
        with pytest.raises(Cancelled):
            cache.kept("n", ["k"], list, lambda: [0], cancelled)
    finally:
        release.set()
        first.join(timeout=30)


async def test_the_slice_screen_reads_the_audit_ahead_and_c_shows_it_without_auditing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from syncdesk.screens.slice_screen import SliceScreen
    from syncdesk.screens.workspace.screen import WorkspaceScreen
    from syncdesk.services.audit import lost_lines
    from syncdesk.services.demo.world import build_world
    from syncdesk.tui.app import SyncDeskApp
    from tests.waiting import until, until_loaded

    audits: list[str] = []
    real = lost_lines.audit_sync

    def counting(*args: Any, **kwargs: Any) -> Any:
        audits.append(threading.current_thread().name)
        return real(*args, **kwargs)

    monkeypatch.setattr(lost_lines, "audit_sync", counting)
    facts = build_world(tmp_path / "world")
    session = open_sync(SyncOptions(repo=facts.repo, head=facts.sync_branch))
    app = SyncDeskApp(session)
    async with app.run_test(size=(160, 45)) as pilot:
        await until_loaded(pilot, SliceScreen)
        # Nothing pressed: the audit is read ahead, into the cache.
        await until(pilot, lambda: len(entries()) == 2, "the audit kept beside the conflicts")
        assert len(audits) == 1
        await pilot.press("c")
        screen = await until_loaded(pilot, WorkspaceScreen)

        def audited() -> Audit | None:
            return screen.data.audit if screen.data is not None else None

        await until(pilot, lambda: audited() is not None, "the accidents shown")
        assert len(audits) == 1  # read back, not audited again
        shown = audited()
        assert shown is not None and shown.findings
