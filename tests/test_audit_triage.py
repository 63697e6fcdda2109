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
from syncdesk.services.audit.lost_lines import audit_sync
from syncdesk.services.audit.model import Audit, Classification, LostLine
from syncdesk.services.audit.names import enclosing_definition
from syncdesk.services.audit.policy import AuditPolicy
from syncdesk.services.conflicts.read import read_conflicts
from syncdesk.services.git.runner import Git
from syncdesk.services.sync.options import SyncOptions
from syncdesk.services.sync.ours import audit_scope, sync_ours
from syncdesk.services.sync.session import open_sync
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

    def audit(self, policy: AuditPolicy | None = None, *, hunks: bool = False) -> Audit:
        """The audit as the report runs it; ``hunks``: with the merge's conflicts read."""
        git = Git(self.repo.path)
        conflicts = read_conflicts(git, self.dev_base, self.slice_tip, self.head) if hunks else None
        return audit_sync(
            git, self.dev_base, self.slice_tip, self.head, policy=policy, conflicts=conflicts
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


def test_a_name_main_has_only_in_a_data_file_is_not_a_name_main_knows(tmp_path: Path) -> None:
    """Golden values name a metric as dev's code does; they do not make it main's."""
    base = {"pkg/util.py": "def one():\n    return 1\n", "pkg/use.py": "from pkg.util import one\n"}
    dev = {
        "pkg/util.py": "def one():\n    return 1\n\n\ndef scaled(x):\n    return 3 * x\n",
        "pkg/use.py": "from pkg.util import one, scaled\n\nVALUE = scaled(one())\n",
    }
    main = {
        "pkg/util.py": "def one():\n    return 1  # the unit\n",
        "golden/values.json": '{"scaled": [0.5, 0.25]}\n',
    }
    sync = build(tmp_path / "r", base, dev, main, {"pkg/util.py": main["pkg/util.py"]})
    data = AuditPolicy(data_files=("*.json",))
    assert finding(sync.audit(data), "def scaled(x):").classification is (
        Classification.STILL_REFERENCED
    )
    # Read as code, the same file is main naming it: then it is not dev's loss.
    assert finding(sync.audit(), "def scaled(x):").classification is not (
        Classification.STILL_REFERENCED
    )


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
    # No conflict here (a line between the two changes): git merged both, and
    # the result was then set to main's file, outside every hunk.
    base = {"m.py": "def run(x):\n    y = x + 1\n    z = y\n    return z\n"}
    dev = {
        "m.py": "def run(x):\n    y = x + 1\n    z = y\n    audit_log.record(x, z)\n    return z\n"
    }
    main = {"m.py": "def run(x):\n    y = x + 2\n    z = y\n    return z\n"}
    sync = build(tmp_path / "r", base, dev, main, {"m.py": main["m.py"]})
    lost = finding(sync.audit(hunks=True), "audit_log.record(x, z)")
    assert lost.classification is Classification.ACCIDENT


# A hunk: dev adds lines after y's line, main changes y's line, the head takes main's.
_RUN_BASE = "def run(x):\n    y = x + 1\n    return y\n"
_RUN_MAIN = "def run(x):\n    y = x + 2\n    return y\n"


def test_dev_lines_a_hunk_taken_as_main_dropped_are_named_as_such_and_flagged(
    tmp_path: Path,
) -> None:
    # The conflict hunk holds dev's line next to main's change; the head took
    # main's side. The line class names that decision and main's commit; the
    # verdict on dev's change is that it was lost (the guide's accident).
    base = {"m.py": _RUN_BASE}
    dev = {"m.py": "def run(x):\n    y = x + 1\n    audit_log.record(x, y)\n    return y\n"}
    main = {"m.py": _RUN_MAIN}
    sync = build(tmp_path / "r", base, dev, main, {"m.py": main["m.py"]})
    lost = finding(sync.audit(hunks=True), "audit_log.record(x, y)")
    assert lost.classification is Classification.TAKEN_AS_MAIN
    assert lost.commit == sync.slice_tip
    assert lost.evidence.startswith(
        "the resolution took main's side of conflict hunk 1, where main changed code next to it"
    )
    assert lost.is_accident
    # Read without the hunks (the workspace renumbers into other files), it is an accident.
    assert finding(sync.audit(), "audit_log.record(x, y)").is_accident


def test_a_hunk_taken_as_main_that_dropped_a_dev_function_keeps_every_line_an_accident(
    tmp_path: Path,
) -> None:
    # The same hunk, but dev also defined a helper there that main and the result
    # lack by name (a real sync lost a test file's CUDA-graph support this way):
    # the resolution dropped dev's work, so the lines around it are accidents too.
    base = {"m.py": _RUN_BASE}
    dev = {
        "m.py": "def run(x):\n    y = x + 1\n    def note(v):\n        audit_log.record(v)\n"
        "    note(y)\n    return y\n"
    }
    main = {"m.py": _RUN_MAIN}
    sync = build(tmp_path / "r", base, dev, main, {"m.py": main["m.py"]})
    audit = sync.audit(hunks=True)
    helper = finding(audit, "audit_log.record(v)")
    assert helper.detail == "dev's note, which the result no longer has"
    for text in ("def note(v):", "audit_log.record(v)", "note(y)"):
        assert finding(audit, text).classification is Classification.ACCIDENT, text
    assert finding(audit, "note(y)").evidence == (
        "conflict hunk 1 was taken as main, dropping dev's note with it"
    )
    assert audit.blocks == 1


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


def test_a_dev_edit_amid_a_block_main_removed_went_with_it(tmp_path: Path) -> None:
    # main added a deprecation block and removed it within the slice; dev holds
    # an early copy with its message reworded. The result drops the block: the
    # reworded line went with main's removal of the lines around it, but dev's
    # own line after the block (a neighbour main never had) is still an accident.
    base = "def check(args):\n    return args\n"
    block = "    if args.old is not None:\n        warn({})\n        args.new = args.old\n"
    repo = GitRepo(tmp_path / "r")
    repo.commit("base", {"m.py": base})
    repo.checkout("dev", "main")
    dev_file = (
        "def check(args):\n" + block.format('"--old is deprecated: use --new"')
        + "    audit_log.record(args)\n    return args\n"
    )  # fmt: skip
    dev_base = repo.commit("dev: its copy of the block", {"m.py": dev_file})
    repo.checkout("main")
    with_block = "def check(args):\n" + block.format('"--old is deprecated"') + "    return args\n"
    repo.commit("main: deprecate --old", {"m.py": with_block})
    removal = repo.commit("main: drop --old", {"m.py": base})
    repo.checkout("sync", dev_base)
    head = repo.merge("main", "Merge main into dev", resolve={"m.py": base})
    audit = Sync(repo, dev_base, removal, head).audit()
    assert finding(audit, "args.new = args.old").classification is Classification.REMOVED_ON_MAIN
    reworded = finding(audit, 'warn("--old is deprecated: use --new")')
    assert reworded.classification is Classification.REMOVED_ON_MAIN
    assert reworded.commit == removal
    assert reworded.evidence.endswith("(with the lines on both sides of it)")
    assert finding(audit, "audit_log.record(args)").classification is Classification.ACCIDENT


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


def test_a_policy_file_keeps_dev_statements_main_holds_in_its_own_layout(tmp_path: Path) -> None:
    # dev black-formatted two statements of the shared base and added a third; main
    # kept its compact, backslash-continued style and wrote a method whose own
    # parameters are dev's new function's, indented otherwise. The override takes
    # main's file.
    base = (
        "def check(args, names):\n"
        "    assert args.multi, \\\n"
        '        "--names requires --multi"\n'
        "    size = args.world * args.micro\n"
        "    return size\n"
    )
    dev = (
        "def check(args, names):\n"
        "    assert (\n"
        "        args.multi\n"
        '    ), "--names requires --multi"\n'
        "    size = (\n"
        "        args.world * args.micro\n"
        "    )\n"
        "    return size\n"
        "\n"
        "\n"
        "def flops(\n"
        "    tokens,\n"
        "    hidden,\n"
        "):\n"
        "    return tokens * hidden\n"
    )
    main = base + (
        "\n\nclass Attention:\n"
        "    def forward(\n        tokens,\n        hidden,\n    ):\n"
        "        return tokens * hidden\n"
    )
    sync = build(tmp_path / "r", {"train.py": base}, {"train.py": dev}, {"train.py": main},
                 {"train.py": main})  # fmt: skip
    audit = sync.audit(AuditPolicy(override_from_main=("train.py",)))
    for line in ("assert (", "args.multi", "size = (", "args.world * args.micro"):
        kept = finding(audit, line)
        assert kept.classification is Classification.REFORMATTED, line
        assert kept.judgment is not None and not kept.judgment.flagged
    # The whole statement must be there: lines equal but for their indentation to
    # those of main's method are no sign of dev's function, still the policy's loss.
    for line in ("def flops(", "tokens,", "hidden,"):
        lost = finding(audit, line)
        assert lost.classification is Classification.BY_POLICY, line
        assert lost.judgment is not None and lost.judgment.flagged


def test_a_lost_line_is_not_reformatted_into_a_copy_mains_file_already_had(
    tmp_path: Path,
) -> None:
    # dev added a call to run(); main wrote the same call in a method of its own, indented
    # deeper. The resolution took main's side of run(): dev's call is gone, and main's own
    # copy elsewhere in the file is not dev's line laid out anew.
    base = "def run(y, z):\n    return y\n\n\nclass Step:\n    pass\n"
    dev = "def run(y, z):\n    x = compute(y, z)\n    return y\n\n\nclass Step:\n    pass\n"
    main = (
        "def run(y, z):\n    return y + z\n\n\nclass Step:\n"
        "    def go(self, y, z):\n        x = compute(y, z)\n        return x\n"
    )
    sync = build(tmp_path / "r", {"m.py": base}, {"m.py": dev}, {"m.py": main}, {"m.py": main})
    lost = finding(sync.audit(), "x = compute(y, z)")
    assert lost.classification is not Classification.REFORMATTED
    assert lost.judgment is not None and lost.judgment.flagged


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
    scope = audit_scope(sync_ours(git, head, sync.head, sync.dev_base, "dev"))
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


def test_a_statement_the_result_wraps_otherwise_is_reformatted(tmp_path: Path) -> None:
    # dev's call on three lines; main joined it onto one while changing a
    # neighbour, and a string split in two is the same string.
    call = "    report(\n        'saved at %s' % when,\n        level=2,\n    )\n"
    base = {"m.py": "def save(when):\n    flush()\n"}
    dev = {"m.py": "def save(when):\n    flush()\n" + call}
    joined = "    report('saved at '\n           '%s' % when, level=2)\n"
    main = {"m.py": "def save(when):\n    flush(True)\n"}
    result = {"m.py": "def save(when):\n    flush(True)\n" + joined}
    sync = build(tmp_path / "r", base, dev, main, result)
    audit = sync.audit()
    for text in ("report(", "'saved at %s' % when,", "level=2,"):
        lost = finding(audit, text)
        assert lost.classification is Classification.REFORMATTED, text
        assert lost.evidence_line == 3


def test_a_statement_joined_over_a_seam_or_after_a_hash_is_reformatted(tmp_path: Path) -> None:
    # The cheap tests that rule a file out before its statements are read must not
    # rule these out: a string seam the key drops with its "b" prefix, and a "#"
    # inside a string before the rest of the line (not a comment). main adds a copy
    # of each statement's first line, so the second line is the only one lost.
    base = {"m.py": "def save():\n    flush()\n", "n.py": "def keep(when):\n    flush()\n"}
    dev = {
        "m.py": base["m.py"] + '    msg = (b"aa"\n           b"cc")\n',
        "n.py": base["n.py"] + '    note("#1", when,\n         level=2)\n',
    }
    main = {
        "m.py": base["m.py"] + '\n\ndef other():\n    msg = (b"aa"\n           b"xy")\n',
        "n.py": base["n.py"] + '\n\ndef other(when):\n    note("#1", when,\n         level=3)\n',
    }
    joined = {"m.py": '    msg = b"aacc"\n', "n.py": '    note("#1", when, level=2)\n'}
    result = {path: base[path] + joined[path] + main[path][len(base[path]) :] for path in base}
    audit = build(tmp_path / "r", base, dev, main, result).audit()
    assert {f.raw.strip() for f in audit.findings} == {b'b"cc")', b"level=2)"}
    for text in ('b"cc")', "level=2)"):
        lost = finding(audit, text)
        assert lost.classification is Classification.REFORMATTED, text
        assert lost.evidence_line == 3


def test_only_the_comment_changed_is_reformatted_but_a_dropped_copy_is_not(
    tmp_path: Path,
) -> None:
    base = {"t.py": "def test_a():\n    size = 4\n"}
    dev = {
        "t.py": "def test_a():\n    size = 4\n    scale = 2  # doubled\n\n\n"
        "def test_dev():\n    scale = 2  # doubled\n    check(scale)\n"
    }
    main = {"t.py": "def test_a():\n    size = 4\n    assert size\n"}
    result = {"t.py": "def test_a():\n    size = 4\n    scale = 2  # twice\n    assert size\n"}
    audit = build(tmp_path / "r", base, dev, main, result).audit()
    # dev had the statement twice, the result once: a copy is lost with dev's
    # test, so a reworded comment explains neither.
    copies = [f for f in audit.findings if f.raw.strip() == b"scale = 2  # doubled"]
    assert len(copies) == 2 and all(copy.is_accident for copy in copies)
    assert finding(audit, "check(scale)").is_accident
    # Keep one copy only, and the comment is all that changed.
    single = {"t.py": "def test_a():\n    size = 4\n    scale = 2  # doubled\n"}
    audit = build(tmp_path / "r2", base, single, main, result).audit()
    kept = finding(audit, "scale = 2  # doubled")
    assert kept.classification is Classification.REFORMATTED and kept.evidence_line == 3


def test_a_comment_in_a_function_main_rewrote_is_superseded_unless_its_code_is_lost(
    tmp_path: Path,
) -> None:
    base = {"m.py": "def load(path):\n    data = read(path)\n    return data\n"}
    dev = {
        "m.py": "def load(path):\n    # read it whole, then parse\n    data = read(path)\n"
        "    # keep the raw copy for the cache\n    cache.keep(path, data)\n    return data\n"
    }
    main = {"m.py": "def load(path):\n    data = read(path, mode='rb')\n    return parse(data)\n"}
    sync = build(tmp_path / "r", base, dev, main, {"m.py": main["m.py"]})
    audit = sync.audit()
    reworded = finding(audit, "# read it whole, then parse")
    assert reworded.classification is Classification.SUPERSEDED
    assert "load()" in reworded.evidence and sync.slice_tip[:8] in reworded.evidence
    # The other comment introduced dev's cache line, which is gone: both are accidents.
    assert finding(audit, "cache.keep(path, data)").is_accident
    assert finding(audit, "# keep the raw copy for the cache").is_accident


def test_a_term_dev_added_to_a_line_of_a_function_main_rewrote_stays_an_accident(
    tmp_path: Path,
) -> None:
    base = {"m.py": "def step(x):\n    scale = 2\n    total = x * scale\n    return total\n"}
    dev = {"m.py": "def step(x):\n    scale = 2\n    total = x * scale + bias\n    return total\n"}
    main = {"m.py": "def step(x):\n    scale = 3\n    total = x * scale\n    return total\n"}
    sync = build(tmp_path / "r", base, dev, main, {"m.py": main["m.py"]})
    assert finding(sync.audit(), "total = x * scale + bias").is_accident


def test_a_name_main_renamed_is_followed(tmp_path: Path) -> None:
    base = {"cfg.py": "class Config:\n    size: int = 1\n    pad_old: bool = False\n"}
    dev = {
        "cfg.py": "class Config:\n    size: int = 1\n    pad_old: bool = False\n"
        "    pad_variable_tokens: bool = True\n"
    }
    main = {"cfg.py": "class Config:\n    size: int = 1\n    pad_uneven_inputs: bool = False\n"}
    result = {
        "cfg.py": "class Config:\n    size: int = 1\n    pad_uneven_inputs: bool = False\n"
        "    pad_uneven_inputs_too: bool = True\n"
    }
    audit = build(tmp_path / "r", base, dev, main, result).audit()
    renamed = finding(audit, "pad_variable_tokens: bool = True")
    assert renamed.is_accident  # main never brought `pad_uneven_inputs_too`
    base2 = {"cfg.py": "class Config:\n    size: int = 1\n"}
    dev2 = {"cfg.py": "class Config:\n    size: int = 1\n    pad_variable_tokens: bool = True\n"}
    main2 = {"cfg.py": "class Config:\n    size: int = 1\n    pad_uneven_inputs: bool = False\n"}
    result2 = {"cfg.py": "class Config:\n    size: int = 1\n    pad_uneven_inputs: bool = True\n"}
    audit2 = build(tmp_path / "r2", base2, dev2, main2, result2).audit()
    followed = finding(audit2, "pad_variable_tokens: bool = True")
    assert followed.classification is Classification.SUPERSEDED
    assert "renamed pad_variable_tokens to pad_uneven_inputs" in followed.evidence


# dev's method _a2a, which main moved into a package as the function a2a.
_A2A_BODY = (
    "    if size > 1:\n        perm = permute(heads, size)\n"
    "        out = exchange(out, perm, group)\n    return out\n"
)
_LAYER = "class Layer:\n    def run(self, out):\n        return out\n"


def _a2a_moved(path: Path, dev_first: str, main_first: str) -> Audit:
    """dev added ``_a2a`` to Layer (its first body line ``dev_first``); main moved it
    into ``layer/common.py`` as ``a2a`` (``main_first`` first); the result is main's."""
    indented = _A2A_BODY.replace("    ", "        ", 1).replace("\n    ", "\n        ")
    dev = {"layer.py": f"{_LAYER}\n    def _a2a(self, out, size, group):\n{dev_first}{indented}"}
    common = f"def a2a(out, size, group):\n{main_first}{_A2A_BODY}"
    main = {"layer.py": None, "layer/common.py": common, "layer/__init__.py": ""}
    return build(path, {"layer.py": _LAYER}, dev, main, main).audit()


def test_a_function_main_moved_to_another_file_under_a_new_name_is_moved(
    tmp_path: Path,
) -> None:
    audit = _a2a_moved(
        tmp_path / "r",
        "        # swap the layout before the exchange\n",
        "    # the layout goes first\n",
    )
    moved = finding(audit, "out = exchange(out, perm, group)")
    assert moved.classification is Classification.MOVED
    assert moved.other_path == "layer/common.py" and "with a2a()" in moved.evidence
    assert finding(audit, "# swap the layout before the exchange").classification is (
        Classification.MOVED
    )


def test_a_line_main_left_out_of_a_function_it_moved_is_not_a_dropped_function(
    tmp_path: Path,
) -> None:
    # main moved _a2a into a package as a2a, without dev's check: the function is
    # not gone, so the check is not "in dev's _a2a, which the result no longer
    # has". (On a real sync three such lines sat in a hunk where main rewrote the
    # code, and became taken-as-main; here nothing else explains it.)
    audit = _a2a_moved(tmp_path / "r", "        check_layout(out, strict=True)\n", "")
    assert finding(audit, "out = exchange(out, perm, group)").classification is (
        Classification.MOVED
    )
    left_out = finding(audit, "check_layout(out, strict=True)")
    assert left_out.classification is Classification.ACCIDENT
    assert left_out.evidence == "on dev, not on main, missing from the result"


def test_base_code_dev_only_rewrapped_and_main_removed_is_removed_on_main(
    tmp_path: Path,
) -> None:
    # The base's long call; dev ran a formatter over it; main deleted the option.
    base = {"args.py": "def add(p):\n    p.add('--workers', type=int, default=4, help='n')\n"}
    wrapped = "    p.add(\n        '--workers', type=int, default=4, help='n'\n    )\n"
    dev = {"args.py": "def add(p):\n" + wrapped}
    main = {"args.py": "def add(p):\n    p.add('--lag', type=int)\n"}
    sync = build(tmp_path / "r", base, dev, main, main)
    lost = finding(sync.audit(), "'--workers', type=int, default=4, help='n'")
    assert lost.classification is Classification.REMOVED_ON_MAIN
    assert lost.commit == sync.slice_tip and "dev had only rewrapped it" in lost.evidence


def test_a_statement_main_kept_with_its_locals_renamed_is_superseded(tmp_path: Path) -> None:
    base = {"t.py": "def test_swap(a):\n    assert a\n"}
    dev = {
        "t.py": "def test_swap(a):\n    first = make(a)\n    second = run(first, mode=2)\n"
        "    assert check(second, first)\n"
    }
    main = {
        "t.py": "def test_swap(a):\n    one = make(a)\n    two = run(one, mode=2)\n"
        "    assert check(two, one)\n"
    }
    sync = build(tmp_path / "r", base, dev, main, main)
    audit = sync.audit()
    for text in ("second = run(first, mode=2)", "assert check(second, first)"):
        assert finding(audit, text).classification is Classification.SUPERSEDED, text
