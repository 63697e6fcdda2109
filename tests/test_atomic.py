"""Crash-safe files: whole or not at all; corrupt files moved aside; orphans of kills removed."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from syncdesk.services.git.atomic import (
    TEMP_MARK,
    CorruptFileError,
    FormatError,
    NewerFormatError,
    StorageError,
    clean_orphans,
    locked,
    make_directory,
    quarantine,
    read_document,
    read_json,
    temp_name,
    write_atomic,
    write_json,
)
from tests.killharness import kill_random, kill_runs, run_and_kill
from tests.killwriter import document_at


def temp_files(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir() if TEMP_MARK in p.name)


def dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_write_atomic_replaces_the_file_and_leaves_no_temporary(tmp_path):
    target = tmp_path / "state.json"
    write_atomic(target, b"first")
    write_atomic(target, b"second, longer")
    assert target.read_bytes() == b"second, longer"
    assert temp_files(tmp_path) == []


def test_a_failed_write_raises_a_clear_error_and_removes_its_temporary(tmp_path):
    target = tmp_path / "state.json"
    target.mkdir()  # os.replace cannot put a file over a directory
    with pytest.raises(StorageError, match=r"could not save .*state\.json"):
        write_atomic(target, b"data")
    assert temp_files(tmp_path) == []


def test_writing_into_a_missing_directory_is_a_storage_error(tmp_path):
    with pytest.raises(StorageError, match="could not save"):
        write_atomic(tmp_path / "absent" / "state.json", b"data")


def test_make_directory_creates_every_missing_parent(tmp_path):
    make_directory(tmp_path / "a" / "b" / "c")
    assert (tmp_path / "a" / "b" / "c").is_dir()
    make_directory(tmp_path / "a" / "b" / "c")  # already there: fine


def test_json_round_trip_keeps_any_string(tmp_path):
    value = {"path": "dir/naïve\nname\udcff.py", "n": [1, None, True], "nested": {"x": ""}}
    write_json(tmp_path / "doc.json", value)
    assert read_json(tmp_path / "doc.json") == value
    assert read_json(tmp_path / "missing.json") is None


@pytest.mark.parametrize(
    "content",
    [b"", b'{"step": 3, "lin', b"\xff\xfe not utf-8", b"not json at all"],
    ids=["empty", "truncated", "invalid-utf8", "garbage"],
)
def test_a_corrupt_file_is_reported_with_its_name(tmp_path, content):
    path = tmp_path / "doc.json"
    path.write_bytes(content)
    with pytest.raises(CorruptFileError, match=r"doc\.json is not valid JSON"):
        read_json(path)


def decode_step(raw):
    if not isinstance(raw, dict) or not isinstance(raw.get("step"), int):
        raise FormatError("no step")
    if raw["step"] > 100:
        raise NewerFormatError("written by a newer syncdesk")
    return raw["step"]


def test_read_document_moves_a_corrupt_file_aside_and_keeps_its_bytes(tmp_path):
    path = tmp_path / "doc.json"
    path.write_bytes(b'{"step": 3, "lin')
    document = read_document(path, decode_step, "document")
    assert document.value is None
    assert document.moved_aside is not None
    assert document.moved_aside.name.startswith("doc.json.corrupt-")
    assert document.moved_aside.read_bytes() == b'{"step": 3, "lin'
    assert not path.exists()
    assert document.note is not None
    assert "is not valid JSON" in document.note
    assert document.moved_aside.name in document.note


def test_read_document_moves_aside_a_file_of_the_wrong_shape(tmp_path):
    path = tmp_path / "doc.json"
    path.write_text('{"other": 1}')
    document = read_document(path, decode_step, "document")
    assert document.value is None
    assert document.note is not None
    assert "is not a valid document (no step)" in document.note


def test_read_document_refuses_a_newer_file_and_leaves_it_alone(tmp_path):
    path = tmp_path / "doc.json"
    path.write_text('{"step": 101}')
    with pytest.raises(NewerFormatError):
        read_document(path, decode_step, "document")
    assert path.read_text() == '{"step": 101}'
    assert sorted(p.name for p in tmp_path.iterdir()) == ["doc.json"]


def test_read_document_of_a_good_and_of_a_missing_file(tmp_path):
    path = tmp_path / "doc.json"
    assert read_document(path, decode_step, "document").value is None
    path.write_text('{"step": 7}')
    document = read_document(path, decode_step, "document")
    assert (document.value, document.moved_aside, document.note) == (7, None, None)


def test_quarantine_never_overwrites_an_earlier_corrupt_copy(tmp_path):
    path = tmp_path / "doc.json"
    moved = []
    for content in ("one", "two", "three"):
        path.write_text(content)
        moved.append(quarantine(path))
    assert sorted(m.read_text() for m in moved) == ["one", "three", "two"]


def test_clean_orphans_removes_only_dead_writers_temporaries(tmp_path):
    dead = tmp_path / f".state.json{TEMP_MARK}{dead_pid()}-0123456789abcdef"
    live = tmp_path / temp_name("state.json")  # this process: a live writer
    old_live = tmp_path / f".other.json{TEMP_MARK}{os.getpid()}-fedcba9876543210"
    unrelated = ["state.json", ".state.json.tmp", f".x{TEMP_MARK}12-nothex", "notes.txt"]
    for path in (dead, live, old_live, *(tmp_path / name for name in unrelated)):
        path.write_text("x")
    two_hours_ago = time.time() - 7200
    os.utime(old_live, (two_hours_ago, two_hours_ago))  # its pid was reused since

    removed = clean_orphans(tmp_path)

    assert sorted(removed) == sorted([dead, old_live])
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([live.name, *unrelated])


def test_clean_orphans_of_a_missing_directory(tmp_path):
    assert clean_orphans(tmp_path / "absent") == []


@pytest.mark.skipif(shutil.which("flock") is None, reason="needs util-linux flock")
def test_locked_excludes_another_process(tmp_path):
    lock = tmp_path / "store.lock"

    def other_process_gets_it() -> bool:
        result = subprocess.run(["flock", "--nonblock", str(lock), "true"], check=False)
        return result.returncode == 0

    with locked(lock):
        assert not other_process_gets_it()
    assert other_process_gets_it()


def test_kill_nine_never_leaves_a_partial_file(tmp_path):
    """Random SIGKILLs of a writer saving growing files (reliability.md E7, R1)."""
    path = tmp_path / "doc.json"
    rng, seed = kill_random()
    orphans = 0
    for run in range(kill_runs(60)):
        killed = run_and_kill("atomic", path, rng.uniform(0, 0.04))
        where = f"seed {seed}, run {run}"
        on_disk = json.loads(path.read_bytes()) if path.exists() else None  # parses, whole
        allowed: list[object] = [document_at(killed.last_ack), document_at(killed.last_ack + 1)]
        if killed.last_ack == 0:
            allowed.append(None)
        assert on_disk in allowed, f"{where}: found step {on_disk and on_disk['step']}"
        orphans += len(clean_orphans(tmp_path))
        assert temp_files(tmp_path) == [], where
    # Nearly every kill lands inside a write: the cleanup was really exercised.
    assert orphans > 0


def test_the_harness_catches_a_naive_writer(tmp_path):
    """The control: ``open('w')`` and chunked writes leave a broken file, and the check sees it."""
    path = tmp_path / "doc.json"
    rng, seed = kill_random()
    failures = 0
    for _ in range(20):
        killed = run_and_kill("naive", path, rng.uniform(0, 0.04))
        try:
            on_disk = json.loads(path.read_bytes())
        except ValueError:
            failures += 1
            path.write_text(json.dumps(document_at(killed.last_ack)))  # let the next run resume
            continue
        failures += on_disk not in (document_at(killed.last_ack), document_at(killed.last_ack + 1))
    assert failures > 0, f"seed {seed}: the harness could not see a naive writer's damage"
