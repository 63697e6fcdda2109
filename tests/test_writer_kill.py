"""kill -9 during repair writes: the branch is always at its old or its new value, never lost.

A writer subprocess (``tests/killrepair.py``) writes repair after repair and
is SIGKILLed at random moments (``SYNCDESK_KILL_RUNS``, 40 by default; ``make
crash`` runs 1,000), then once at each named phase of a write. After every
kill: the branch holds the last acknowledged write or the one after it, as
one repair on the merge; the last backup says where syncdesk left it;
``git fsck`` is clean; the user's checkout is untouched; and the next start
removes what the killed writer left.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from syncdesk.services.git.refs import list_backups
from syncdesk.services.git.runner import Git
from syncdesk.services.git.trees import clean_scratch, scratch_dir
from syncdesk.services.write.models import FileChange
from tests.killharness import kill_random, kill_runs, run_and_kill, run_until_death
from tests.killrepair import PHASES, STEP_FILE, step_content, step_of
from tests.syncrepo import SyncRepo, build_sync_repo
from tests.writing import branch_at, fsck_ok, make_dirty, raw_git, snapshot, write_files

MODULE = "tests.killrepair"


def step_at(path: Path, head: str) -> int:
    listed = raw_git(path, "ls-tree", head, STEP_FILE)
    return step_of(raw_git(path, "show", f"{head}:{STEP_FILE}") if listed else None)


def check_branch(sync: SyncRepo, git: Git, allowed: tuple[int, ...], where: str) -> int:
    """The branch is one whole write: one of ``allowed`` steps, as the last backup says."""
    head = branch_at(sync.path)
    step = step_at(sync.path, head)
    assert step in allowed, f"{where}: the branch holds step {step}, not one of {allowed}"
    assert raw_git(sync.path, "rev-parse", f"{head}^@").decode().split() == [sync.merge], where
    backups = list_backups(git, "sync")
    assert (backups[-1].after if backups else sync.head) == head, where
    assert fsck_ok(sync.path), where
    return step


def leftovers(git: Git) -> list[Path]:
    directory = scratch_dir(git)
    return sorted(directory.iterdir()) if directory.exists() else []


def test_kill_nine_during_writes_never_leaves_a_branch_between_two_values(tmp_path):
    sync = build_sync_repo(tmp_path / "r")
    make_dirty(sync, "main")
    checkout = snapshot(sync.path)
    git = Git(sync.path)
    rng, seed = kill_random()
    acks = mid_write = 0
    for run in range(kill_runs(40)):
        # A write takes a good part of the delay, or more on a loaded machine: the
        # first run (and a random share of the others) kills only after an ack,
        # so acknowledged writes are checked however slow the writes are.
        acks_first = 1 if run == 0 else rng.randrange(2)
        delay = rng.uniform(0.0, 0.15)
        killed = run_and_kill("repair", sync.path, delay, module=MODULE, acks_first=acks_first)
        where = f"seed {seed}, run {run}"
        step = check_branch(sync, git, (killed.last_ack, killed.last_ack + 1), where)
        acks += killed.acks
        mid_write += step == killed.last_ack + 1 or bool(leftovers(git))
    assert acks > 0, f"seed {seed}: the writer never finished a write"
    # Some kills landed inside a write (a moved branch not yet acked, a temporary index).
    assert mid_write > 0, f"seed {seed}: no kill landed inside a write"
    assert snapshot(sync.path) == checkout, f"seed {seed}: the checkout changed"
    clean_scratch(git)  # what the next start does
    assert leftovers(git) == [], f"seed {seed}"


@pytest.mark.parametrize("phase", sorted(PHASES))
def test_kill_nine_at_each_phase_of_a_write(tmp_path, phase):
    sync = build_sync_repo(tmp_path / "r")
    git = Git(sync.path)
    killed = run_until_death("repair", sync.path, phase, module=MODULE)
    assert (killed.ready, killed.last_ack) == (0, 2)
    landed = PHASES[phase][2]
    assert check_branch(sync, git, (3 if landed else 2,), phase) == (3 if landed else 2)
    if phase == "temp-index":
        assert [p.name.startswith(".index.syncdesk-tmp-") for p in leftovers(git)] == [True]
    # The next start cleans up and writes on.
    result = write_files(git, [FileChange(STEP_FILE, step_content(4))])
    assert (result.anatomy_ok, result.tree_verified) == (True, True)
    assert leftovers(git) == []
