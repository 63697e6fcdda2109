"""The workspace's decisions on real conflicts of the demo world (no UI)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from syncdesk.services.conflicts.models import ConflictSet
from syncdesk.services.conflicts.read import read_conflicts
from syncdesk.services.decisions.models import Action, FileStatus, SyncKey, new_state, set_status
from syncdesk.services.demo.facts import DemoFacts
from syncdesk.services.demo.world import build_world
from syncdesk.services.git.runner import Git
from syncdesk.services.lines import encode_text
from syncdesk.services.sync.config import Config
from syncdesk.services.sync.policies import KEEP_DEV, OVERRIDE_FROM_MAIN, policy_for
from syncdesk.services.workspace.layout import (
    approve_file,
    blob_id,
    decide_file,
    decide_hunk,
    file_status,
    hunk_holding_dev_line,
    hunk_results,
    layout,
    restored,
    whole_file_action,
)
from tests.conflictrepo import build_conflicts


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> tuple[DemoFacts, ConflictSet]:
    facts = build_world(tmp_path_factory.mktemp("world"))
    git = Git(facts.repo)
    return facts, read_conflicts(git, facts.dev_base, facts.slice_tip, facts.sync_branch)


def _state(facts: DemoFacts):
    return new_state(SyncKey(facts.dev_base, facts.slice_tip))


def _texts(decided):
    return {b: tuple(d.decode().splitlines(keepends=True)) for b, d in decided.blobs.items()}


def test_policies_match_paths_directories_and_globs() -> None:
    config = Config(keep_dev=("uv.lock", "docker/"), override_from_main=("tests/golden/*.json",))
    assert policy_for("uv.lock", config) == KEEP_DEV
    assert policy_for("docker/Dockerfile.ci.dev", config) == KEEP_DEV
    assert policy_for("tests/golden/loss.json", config) == OVERRIDE_FROM_MAIN
    assert policy_for("lumen/uv.lock", config) is None


def test_undecided_hunks_show_the_head_and_decisions_replace_them(world) -> None:
    _, conflicts = world
    conflict = next(f for f in conflicts.files if len(f.hunks) == 2)
    state = _state(world[0])
    assert hunk_results(conflict, state.decisions(conflict.path), {}) == [
        h.head for h in conflict.hunks
    ]
    decided = decide_hunk(state, conflict, 1, Action.UNION_MAIN_FIRST)
    texts = {
        blob: tuple(data.decode().splitlines(keepends=True)) for blob, data in decided.blobs.items()
    }
    results = hunk_results(conflict, decided.state.decisions(conflict.path), texts)
    assert results == [conflict.hunks[0].head, conflict.hunks[1].union_main_first]


def test_a_choice_made_for_another_conflict_is_never_applied(world) -> None:
    _, conflicts = world
    conflict = next(f for f in conflicts.files if f.hunks)
    decided = decide_hunk(_state(world[0]), conflict, 0, Action.DEV)
    changed = replace(conflict.hunks[0], key="0" * 40)  # the sync was rebuilt: another hunk
    other = replace(
        conflict,
        segments=tuple(changed if s is conflict.hunks[0] else s for s in conflict.segments or ()),
    )
    texts = {blob: ("x\n",) for blob in decided.blobs}
    assert (
        hunk_results(other, decided.state.decisions(conflict.path), texts)[0]
        == conflict.hunks[0].head
    )


def test_keep_dev_policy_shows_dev_until_the_maintainer_decides(world) -> None:
    _, conflicts = world
    conflict = conflicts.file("uv.lock")
    assert conflict is not None
    state = _state(world[0])
    decisions = state.decisions(conflict.path)
    assert hunk_results(conflict, decisions, {}, KEEP_DEV) == [h.dev for h in conflict.hunks]
    assert file_status(state, conflict, KEEP_DEV) is FileStatus.RESOLVED
    decided = decide_hunk(state, conflict, 0, Action.MAIN)
    decisions = decided.state.decisions(conflict.path)
    overridden = hunk_results(conflict, decisions, _texts(decided), KEEP_DEV)
    assert overridden[0] == conflict.hunks[0].main


def test_whole_file_choice_and_approval_status(world) -> None:
    _, conflicts = world
    conflict = next(f for f in conflicts.files if f.type == "modify/delete")
    state = _state(world[0])
    decided = decide_file(state, conflict, Action.DELETED, None)
    assert decided.state.decisions(conflict.path).whole_file is not None
    assert file_status(decided.state, conflict) is FileStatus.RESOLVED
    approved = set_status(decided.state, conflict.path, FileStatus.APPROVED)
    assert file_status(approved, conflict) is FileStatus.APPROVED


def test_blob_ids_are_gits(tmp_path: Path) -> None:
    import subprocess

    data = encode_text("line\r\nno final newline \udcff")
    written = (
        subprocess.run(
            ["git", "hash-object", "--stdin"], input=data, capture_output=True, check=True
        )
        .stdout.decode()
        .strip()
    )
    assert blob_id(data) == written


def test_the_result_is_the_heads_file_with_decided_hunks_spliced_in(world) -> None:
    facts, conflicts = world
    conflict = next(
        f
        for f in conflicts.files
        if f.hunks and f.head_lines and all(h.head_start for h in f.hunks)
    )
    state = _state(facts)
    undecided = layout(conflict, state.decisions(conflict.path), {})
    assert undecided.lines == conflict.head_lines
    decided = decide_hunk(state, conflict, 0, Action.DEV)
    spliced = layout(conflict, decided.state.decisions(conflict.path), _texts(decided))
    assert spliced.results[0] == conflict.hunks[0].dev
    head = conflict.hunks[0]
    assert head.head is not None
    assert head.head_start is not None
    start = head.head_start - 1
    # Everything of the head's file outside the hunk is kept, byte for byte.
    assert spliced.lines[:start] == conflict.head_lines[:start]
    tail = len(conflict.head_lines) - (start + len(head.head))
    assert (
        spliced.lines[len(spliced.lines) - tail :] == conflict.head_lines[start + len(head.head) :]
    )


def test_restoring_a_lost_dev_line_into_its_hunk(world) -> None:
    _, conflicts = world
    conflict = next(f for f in conflicts.files if f.hunks and f.hunks[0].resolution == "main")
    hunk = conflict.hunks[0]
    lost = next(
        (i for i, line in enumerate(hunk.dev) if line.strip() and line not in hunk.main), None
    )
    assert lost is not None
    line = hunk.dev_start + lost
    assert hunk_holding_dev_line(conflict, line) == hunk
    back = restored(hunk, hunk.main, line)
    assert back is not None
    assert hunk.dev[lost] in back
    assert restored(hunk, back, line) is None  # nothing left to restore


def test_approving_a_policy_file_keeps_the_side_the_policy_showed(world) -> None:
    facts, conflicts = world
    conflict = conflicts.file("lumen/models/attention.py")  # the head took main's side
    assert conflict is not None and conflict.dev_blob != conflict.head_blob
    state = _state(facts)
    approved = approve_file(state, conflict, KEEP_DEV)
    assert approved is not None
    decisions = approved.state.decisions(conflict.path)
    assert decisions.status is FileStatus.APPROVED
    # Still dev's file after approving (not the head's): what was on screen is what is kept.
    assert whole_file_action(decisions, KEEP_DEV) is Action.DEV
    assert decisions.whole_file is not None and decisions.whole_file.blob == conflict.dev_blob
    # Without a policy, approving keeps the head's resolution as it is.
    plain = approve_file(state, conflict, None)
    assert plain is not None
    assert plain.state.decisions(conflict.path).whole_file is None


def test_a_file_with_markers_left_cannot_be_approved(tmp_path: Path) -> None:
    built = build_conflicts(
        tmp_path / "repo",
        {"f.txt": "a\nb\nc\n"},
        {"f.txt": "a\nDEV\nc\n"},
        {"f.txt": "a\nMAIN\nc\n"},
    )
    markers = "a\n<<<<<<< dev\nDEV\n=======\nMAIN\n>>>>>>> main\nc\n"
    head = built.head({"f.txt": markers})
    conflict = read_conflicts(built.git, built.dev, built.main, head).file("f.txt")
    assert conflict is not None and conflict.resolution == "unresolved"
    state = new_state(SyncKey(built.dev, built.main))
    assert approve_file(state, conflict, None) is None
    decided = decide_hunk(state, conflict, 0, Action.MAIN)
    approved = approve_file(decided.state, conflict, None)
    assert approved is not None
    assert approved.state.decisions("f.txt").status is FileStatus.APPROVED
