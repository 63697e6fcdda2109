"""State and config files that are not what they seem: read defensively, each said in one line.

The adversarial pass found a state (or carry-over) file as a symlink to
``/dev/zero`` growing the desk to 2.2 GB, a FIFO hanging the desk and
``repair --preview``, a dangling ``.lock`` symlink making syncdesk create the file
it points to outside the repository, and deep or non-UTF-8 TOML read as
"internal error: RecursionError / UnicodeDecodeError" without naming the file.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from syncdesk.screens.slice_screen import SliceScreen
from syncdesk.services.decisions.models import SyncKey
from syncdesk.services.decisions.store import load_state, state_path
from syncdesk.services.errors import ConfigError
from syncdesk.services.git.atomic import StorageError, locked
from syncdesk.services.git.runner import Git
from syncdesk.services.sync.config import MAX_LIST_ENTRIES, load_config
from syncdesk.services.sync.options import SyncOptions
from syncdesk.services.sync.session import open_sync
from syncdesk.tui.app import SyncDeskApp
from tests.syncrepo import SyncRepo, build_sync_repo
from tests.waiting import until_loaded, until_toast


def _key(sync: SyncRepo) -> SyncKey:
    return SyncKey(sync.dev_base, sync.parent2)


@pytest.mark.parametrize("kind", ["symlink to /dev/zero", "fifo", "directory", "huge"])
def test_a_state_that_is_no_regular_file_is_set_aside_with_a_note(
    tmp_path: Path, kind: str
) -> None:
    sync = build_sync_repo(tmp_path / "r")
    git = Git(sync.path)
    path = state_path(git, _key(sync))
    path.parent.mkdir(parents=True, exist_ok=True)
    if kind == "symlink to /dev/zero":
        path.symlink_to("/dev/zero")
    elif kind == "fifo":
        os.mkfifo(path)
    elif kind == "directory":
        path.mkdir()
    else:
        with path.open("wb") as handle:  # sparse: 65 MB on paper, nothing on disk
            handle.truncate(65 * 1024 * 1024)
    loaded = load_state(git, _key(sync), head=sync.head)  # returns: no hang, no 2 GB
    assert not loaded.resumed
    assert loaded.moved_aside is not None and loaded.notes
    assert "moved aside" in loaded.notes[0]
    assert not path.exists() or path.is_file()


def test_a_dangling_lock_symlink_is_refused_not_followed(tmp_path: Path) -> None:
    target = tmp_path / "outside" / "created-by-syncdesk"
    target.parent.mkdir()
    lock = tmp_path / "state.json.lock"
    lock.symlink_to(target)
    with pytest.raises(StorageError, match="could not open"), locked(lock):
        pass
    assert not target.exists()


@pytest.mark.parametrize(
    ("content", "said"),
    [
        (b"slice_size = 5\n\xff\xfe\n", "not UTF-8 text"),
        (b"x = " + b"[" * 100_000 + b"]" * 100_000 + b"\n", "nested too deeply"),
        (
            (
                "keep_dev = [" + ", ".join(f'"p{n}"' for n in range(MAX_LIST_ENTRIES + 1)) + "]\n"
            ).encode(),
            f"keep_dev has {MAX_LIST_ENTRIES + 1} entries",
        ),
    ],
)
def test_a_config_that_is_no_configuration_is_one_line_naming_the_file(
    tmp_path: Path, content: bytes, said: str
) -> None:
    (tmp_path / ".syncdesk.toml").write_bytes(content)
    with pytest.raises(ConfigError) as raised:
        load_config(tmp_path, tmp_path / "no-user-file.toml")
    assert str(tmp_path / ".syncdesk.toml") in raised.value.message
    assert said in raised.value.message


def test_a_fifo_in_the_configs_place_is_said_not_waited_on(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / ".syncdesk.toml")
    with pytest.raises(ConfigError, match="is not a regular file"):
        load_config(tmp_path, tmp_path / "no-user-file.toml")


async def test_the_slice_screen_says_a_state_was_set_aside(tmp_path: Path) -> None:
    sync = build_sync_repo(tmp_path / "r")
    git = Git(sync.path)
    path = state_path(git, _key(sync))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("{ not json")
    session = open_sync(SyncOptions(repo=sync.path, head="sync", slice_size=5))
    async with SyncDeskApp(session).run_test(size=(150, 45), notifications=True) as pilot:
        await until_loaded(pilot, SliceScreen)
        await until_toast(pilot, "moved aside")
