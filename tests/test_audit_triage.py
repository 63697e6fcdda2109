"""The audit's triage on small repositories of our own, one shape per case found on real syncs.

Each case reproduces a shape the hand labels of real Megatron-LM syncs found
(docs/audit.md): a lost definition the result still uses, a port of dev's
change that main carries, a whole dev test dropped in main's rewrite of the
file around it, a stale copy of main's older code, data files, policy files,
and dev merged into the sync branch afterwards.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from syncdesk.screens.slice_screen import SliceScreen
from syncdesk.services.audit.lost_lines import (
    Audit,
    Classification,
    LostLine,
    audit_scope,
    audit_sync,
)
from syncdesk.services.audit.names import enclosing_definition
from syncdesk.services.audit.policy import AuditPolicy
from syncdesk.services.git.runner import Git
from syncdesk.services.sync.session import SyncOptions, open_sync
from syncdesk.tui.app import SyncDeskApp
from tests.gitrepo import GitRepo
from tests.waiting import until_loaded, until_toast

Files = Mapping[str, str | None]


@dataclass
class Sync:
    repo: GitRepo
    dev_base: str
    slice_tip: str
    head: str

    def audit(self, policy: AuditPolicy | None = None) -> Audit:
        return audit_sync(
            Git(self.repo.path), self.dev_base, self.slice_tip, self.head, policy=policy
        )


def build(path: Path, base: Files, dev: Files, main: Files, result: Files) -> Sync:
    """base on main; dev and main each commit on it; the sync merge resolves to ``result``."""
    repo = GitRepo(path)
    root = repo.commit("base", dict(base))
    repo.checkout("dev", root)
    dev_base = repo.commit("dev: its work", dict(dev))
    repo.checkout("main")
    slice_tip = repo.commit("main: its work", dict(main))
    repo.checkout("sync", dev_base)
    head = repo.merge("main", "Merge main into dev", resolve=dict(result))
    return Sync(repo, dev_base, slice_tip, head)


def finding(audit: Audit, text: str) -> LostLine:
    (found,) = [f for f in audit.findings if f.raw.strip() == text.encode()]
    return found


def test_a_lost_definition_the_result_still_calls_is_ranked_first(tmp_path: Path) -> None:
    base = {"pkg/util.py": "def one():\n    return 1\n", "pkg/use.py": "from pkg.util import one\n"}
    dev = {
        "pkg/util.py": "def one():\n    return 1\n\n\ndef scaled(x):\n    return 3 * x\n",
        "pkg/use.py": "from pkg.util import one, scaled\n\nVALUE = scaled(one())\n",
    }
    main = {"pkg/util.py": "def one():\n    return 1  # the unit\n"}
    # The resolution took main's util.py: dev's scaled() is gone, its caller is not.
    sync = build(tmp_path / "r", base, dev, main, {"pkg/util.py": main["pkg/util.py"]})
    audit = sync.audit()
    lost = finding(audit, "def scaled(x):")
    assert lost.classification is Classification.STILL_REFERENCED
    assert lost.detail == "scaled" and "still uses" in lost.evidence
    assert audit.findings[0] == lost


def test_a_port_of_devs_change_that_main_carries_is_superseded(tmp_path: Path) -> None:
    base = {"m.py": "def run(a, b):\n    start = 0\n    return start\n"}
    dev = {"m.py": "def run(a, b):\n    start = 0\n    total = combine(a, b)\n    return start\n"}
    main = {
        "m.py": "def run(a, b):\n    start = 0\n    total = combine(a, b, strict=True)\n"
        "    return start\n"
    }
    sync = build(tmp_path / "r", base, dev, main, {"m.py": main["m.py"]})
    lost = finding(sync.audit(), "total = combine(a, b)")
    assert lost.classification is Classification.SUPERSEDED
    assert lost.commit == sync.slice_tip and "main rewrote this code" in lost.evidence


def test_dev_lines_dropped_next_to_an_unrelated_change_of_mains_are_accidents(
    tmp_path: Path,
) -> None:
    base = {"m.py": "def run(x):\n    y = x + 1\n    return y\n"}
    dev = {"m.py": "def run(x):\n    y = x + 1\n    audit_log.record(x, y)\n    return y\n"}
    main = {"m.py": "def run(x):\n    y = x + 2\n    return y\n"}
    sync = build(tmp_path / "r", base, dev, main, {"m.py": main["m.py"]})
    lost = finding(sync.audit(), "audit_log.record(x, y)")
    assert lost.classification is Classification.ACCIDENT


def test_a_whole_dev_test_dropped_in_mains_rewrite_around_it_is_an_accident(
    tmp_path: Path,
) -> None:
    # main rewrote the file's tests; its new test reads much like dev's new one,
    # but dev's test, by its name, is gone from main and the result alike.
    base = {"t.py": "def test_a():\n    assert run(1) == 2\n\n\ndef test_b():\n    assert run(2)\n"}
    dev_test = "def test_dev_mode():\n    out = run(3, mode='dev')\n    assert out == 6\n"
    main_test = "def test_fast_mode():\n    out = run(3, mode='fast')\n    assert out == 6\n"
    dev = {"t.py": base["t.py"] + "\n\n" + dev_test}
    main = {"t.py": "def test_a():\n    assert run(1) == 2\n\n\n" + main_test}
    sync = build(tmp_path / "r", base, dev, main, {"t.py": main["t.py"]})
    lost = finding(sync.audit(), "out = run(3, mode='dev')")
    assert lost.classification is Classification.ACCIDENT
    assert lost.detail == "dev's test_dev_mode, which the result no longer has"


def test_a_stale_copy_of_mains_older_code_is_removed_on_main(tmp_path: Path) -> None:
    # main removed OLD before the last sync; that sync kept it on dev. This sync's
    # result drops it: main's own removal, not dev's work lost.
    repo = GitRepo(tmp_path / "r")
    repo.commit("base", {"m.py": "KEEP = 1\nOLD = legacy_value()\nEND = 2\n"})
    repo.checkout("dev", "main")
    repo.commit("dev: its work", {"d.py": "DEV = 1\n"})
    repo.checkout("main")
    removal = repo.commit("main: drop OLD", {"m.py": "KEEP = 1\nEND = 2\n"})
    repo.checkout("dev")
    dev_base = repo.merge("main", "Sync main into dev", resolve={"m.py": None})
    repo.write({"m.py": "KEEP = 1\nOLD = legacy_value()\nEND = 2\n"})  # the old sync kept it
    repo.git("commit", "-q", "--amend", "--no-edit", "--no-verify")
    dev_base = repo.rev("HEAD")
    repo.checkout("main")
    slice_tip = repo.commit("main: tune END", {"m.py": "KEEP = 1\nEND = 3\n"})
    repo.checkout("sync", dev_base)
    head = repo.merge("main", "Merge main into dev", resolve={"m.py": "KEEP = 1\nEND = 3\n"})
    audit = Sync(repo, dev_base, slice_tip, head).audit()
    lost = finding(audit, "OLD = legacy_value()")
    assert lost.classification is Classification.REMOVED_ON_MAIN
    assert lost.commit == removal


def test_data_files_are_counted_and_policy_files_shown_as_policy(tmp_path: Path) -> None:
    base = {"golden.json": '{\n  "a": 1\n}\n', "conf/train.py": "def step():\n    return 1\n"}
    dev = {
        "golden.json": '{\n  "a": 1,\n  "dev": 2\n}\n',
        "conf/train.py": "def step():\n    warm_up()\n    return 1\n",
    }
    main = {"golden.json": '{\n  "a": 5\n}\n', "conf/train.py": "def step():\n    return 2\n"}
    sync = build(tmp_path / "r", base, dev, main, main)
    policy = AuditPolicy(override_from_main=("conf/train.py",), data_files=("*.json",))
    audit = sync.audit(policy)
    assert [(d.path, d.lines) for d in audit.data_files] == [("golden.json", 2)]
    assert not [f for f in audit.findings if f.path == "golden.json"]
    lost = finding(audit, "warm_up()")
    assert lost.classification is Classification.BY_POLICY
    assert lost.evidence == "override-from-main file: the policy decides it"


def test_dev_merged_on_top_is_not_judged(tmp_path: Path) -> None:
    gap = "".join(f"K{n} = {n}\n" for n in range(5))  # keeps A's and B's changes apart
    base = {"m.py": f"A = 1\n{gap}B = 2\n"}
    sync = build(
        tmp_path / "r",
        base,
        {"m.py": f"A = 1\n{gap}B = dev_value()\n"},
        {"m.py": f"A = 10\n{gap}B = 2\n"},
        {"m.py": f"A = 10\n{gap}B = dev_value()\n"},
    )
    repo = sync.repo
    # dev moves on (replacing its own line), and is merged into the sync branch.
    repo.checkout("dev")
    later = repo.commit("dev: a better value", {"m.py": f"A = 1\n{gap}B = dev_value(fast=True)\n"})
    repo.checkout("sync")
    head = repo.merge("dev", "Merge dev into the sync branch")
    git = Git(repo.path)
    scope = audit_scope(git, sync.dev_base, sync.slice_tip, head, "dev")
    assert scope.dev == later
    assert scope.judged[-1] == sync.head and later not in scope.judged
    audit = audit_sync(git, sync.dev_base, sync.slice_tip, head, scope=scope)
    # main's own change of A is named as such; dev's own replacement of B is not a loss.
    assert [(f.raw, f.classification) for f in audit.findings] == [
        (b"A = 1", Classification.REMOVED_ON_MAIN)
    ]
    unscoped = audit_sync(git, sync.dev_base, sync.slice_tip, head)
    assert b"B = dev_value()" in [f.raw for f in unscoped.findings]  # what it used to say


async def test_the_workspace_says_what_the_audit_judged_when_dev_was_merged_on_top(
    tmp_path: Path,
) -> None:
    gap = "".join(f"K{n} = {n}\n" for n in range(5))
    sync = build(
        tmp_path / "r",
        {"m.py": f"A = 1\n{gap}B = 2\n"},
        {"m.py": f"A = 1\n{gap}B = dev_value()\n"},
        {"m.py": f"A = 10\n{gap}B = 2\n"},
        {"m.py": f"A = 10\n{gap}B = dev_value()\n"},
    )
    sync.repo.checkout("dev")
    later = sync.repo.commit("dev: more", {"m.py": f"A = 1\n{gap}B = dev_value(fast=True)\n"})
    sync.repo.checkout("sync")
    sync.repo.merge("dev", "Merge dev into the sync branch")
    options = SyncOptions(repo=sync.repo.path, head="sync", slice_size=1)
    app = SyncDeskApp(open_sync(options, user_config=Path("/nonexistent")))
    async with app.run_test(size=(160, 45), notifications=True) as pilot:
        await until_loaded(pilot, SliceScreen)
        await pilot.press("c")
        said = await until_toast(pilot, "Audit: judged merge")
        assert f"against dev {later[:8]}" in said and "dev's own commits not judged" in said


def test_a_line_belongs_to_the_function_whose_signature_spans_lines() -> None:
    dev = [
        b"def test_dev_mode(",
        b"    tmp_path,",
        b"):",
        b"    out = run(3)",
        b"",
        b"    # then the check",
        b"    assert out == 6",
        b"VALUE = 1",
    ]
    assert enclosing_definition(dev, 6) == b"test_dev_mode"
    assert enclosing_definition(dev, 3) == b"test_dev_mode"
    assert enclosing_definition(dev, 7) is None
