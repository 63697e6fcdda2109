"""The verdict on each lost line, by the dev change behind it, on small repositories of our own.

One test per verdict of ``services/audit/verdicts.py``, each in the shape the
hand labels of real syncs found (docs/audit.md): dev's follow-up lost in a
hunk taken as main, main's port of dev's change (whole, and partial), our
repair replacing dev's line, main deleting the definition or file that held
it, both sides editing the same base line, and an override file taken whole.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from syncdesk.services.audit.lost_lines import audit_sync
from syncdesk.services.audit.model import Audit, AuditScope, LostLine
from syncdesk.services.audit.policy import AuditPolicy
from syncdesk.services.audit.verdicts import Verdict, pull_requests, subject_key
from syncdesk.services.conflicts.read import read_conflicts
from syncdesk.services.git.runner import Git
from tests.gitrepo import GitRepo
from tests.test_report_cli import run_cli

Files = Mapping[str, str | None]
Commits = Sequence[tuple[str, Files]]  # (message, files) oldest first


@dataclass
class Sync:
    repo: GitRepo
    dev_base: str
    slice_tip: str
    merge: str
    head: str

    def audit(self, policy: AuditPolicy | None = None) -> Audit:
        """The audit as the report runs it: the merge's conflicts read, ours judged."""
        git = Git(self.repo.path)
        conflicts = read_conflicts(git, self.dev_base, self.slice_tip, self.head)
        ours = () if self.head == self.merge else (self.head,)
        scope = AuditScope(self.dev_base, (*ours, self.merge))
        return audit_sync(
            git, self.dev_base, self.slice_tip, self.head,
            scope=scope, policy=policy, conflicts=conflicts,
        )  # fmt: skip


def build(
    path: Path, base: Files, dev: Commits, main: Commits, result: Files, repair: Files | None = None
) -> Sync:
    """base on main; dev's and main's commits on it; the merge resolves to ``result``;
    ``repair``: our commit on top of the merge."""
    repo = GitRepo(path)
    root = repo.commit("base", dict(base))
    repo.checkout("dev", root)
    dev_base = root
    for message, files in dev:
        dev_base = repo.commit(message, dict(files))
    repo.checkout("main")
    slice_tip = root
    for message, files in main:
        slice_tip = repo.commit(message, dict(files))
    repo.checkout("sync", dev_base)
    merge = repo.merge("main", "Merge main into dev", resolve=dict(result))
    head = repo.commit("fix: post-merge repair", dict(repair)) if repair else merge
    return Sync(repo, dev_base, slice_tip, merge, head)


def lost(audit: Audit, text: str) -> LostLine:
    (found,) = [f for f in audit.findings if f.raw.strip() == text.encode()]
    return found


_RUN_BASE = "def run(x):\n    y = x + 1\n    return y\n"
_RUN_MAIN = "def run(x):\n    y = x + 2\n    return y\n"
_RUN_DEV = "def run(x):\n    y = x + 1\n    audit_log.record(x, y)\n    return y\n"


def test_devs_follow_up_dropped_in_a_hunk_taken_as_main_is_lost_and_named(tmp_path: Path) -> None:
    # The guide's accident: main changed the line next to dev's follow-up, the
    # resolution took main's side, and dev's call went with it.
    sync = build(
        tmp_path / "r", {"m.py": _RUN_BASE},
        [("[dev] Record every run (#301)", {"m.py": _RUN_DEV})],
        [("Faster run (#302)", {"m.py": _RUN_MAIN})],
        {"m.py": _RUN_MAIN},
    )  # fmt: skip
    audit = sync.audit()
    line = lost(audit, "audit_log.record(x, y)")
    assert line.judgment is not None and line.judgment.verdict is Verdict.LOST
    assert line.is_accident and line in audit.accidents
    assert line.judgment.change == sync.dev_base
    assert "resolved as main's side" in (line.verdict_evidence or "")
    (change,) = audit.changes
    assert change.sha == sync.dev_base and change.pulls == (301,)
    assert change.subject == "[dev] Record every run (#301)"
    assert [f.line for f in change.flagged] == [3] and change.lost_count == 1


def test_a_port_of_devs_change_excuses_only_the_lines_it_carried(tmp_path: Path) -> None:
    base = {"m.py": "def run(x):\n    return x\n"}
    dev_file = "def run(x):\n    check(x)\n    trace(x)\n    return x\n"
    # main ported dev's change under its own pull request, without the trace, then
    # rewrote the check; the result is main's.
    port = "def run(x):\n    check(x)\n    return x\n"
    rewrite = "def run(x):\n    check(x, strict=True)\n    return x\n"
    sync = build(
        tmp_path / "r", base,
        [("[dev] Check the input of run (#410)", {"m.py": dev_file})],
        [("Check the input of run (#411)", {"m.py": port}), ("Stricter checks", {"m.py": rewrite})],
        {"m.py": rewrite},
    )  # fmt: skip
    audit = sync.audit()
    assert not lost(audit, "check(x)").is_accident  # main carried it, then rewrote it
    # The port's subject is dev's, but it did not carry dev's trace: that part is lost.
    dropped = lost(audit, "trace(x)")
    assert dropped.judgment is not None and dropped.judgment.verdict is Verdict.LOST
    assert dropped.is_accident


def test_mains_port_rewording_devs_lines_at_their_place_carries_them(tmp_path: Path) -> None:
    # main ported dev's change (dev's pull request cited in a list, as a port of several
    # dev pull requests does) and wrote its own wording of dev's comment at that place;
    # the port left dev's separate log line out, where it changed nothing: still lost.
    base = {"m.py": "def run(x):\n    return x\n\n\ndef stop(x):\n    return x\n"}
    dev_file = (
        "def run(x):\n    # Check the input: shapes must agree with the config\n"
        "    check(x)\n    return x\n\n\ndef stop(x):\n    log_stop(x)\n    return x\n"
    )
    port = (
        "def run(x):\n    # Check the input: shapes must agree with the model config\n"
        "    check(x)\n    return x\n\n\ndef stop(x):\n    return x\n"
    )
    sync = build(
        tmp_path / "r", base,
        [("[dev] Check and log run (#410)", {"m.py": dev_file})],
        [("Bring dev's PRs (410, 415) to main (#433)", {"m.py": port})],
        {"m.py": port},
    )  # fmt: skip
    audit = sync.audit()
    worded = lost(audit, "# Check the input: shapes must agree with the config")
    assert worded.judgment is not None and worded.judgment.verdict is Verdict.PORTED
    assert worded.judgment.subject == "Bring dev's PRs (410, 415) to main (#433)"
    assert "own version here" in (worded.verdict_evidence or "")
    assert not worded.is_accident
    left_out = lost(audit, "log_stop(x)")
    assert left_out.judgment is not None and left_out.judgment.verdict is Verdict.LOST
    assert left_out.is_accident


def test_a_line_our_repair_replaced_is_ours_and_names_the_repair(tmp_path: Path) -> None:
    base = {"m.py": "def run(x):\n    return x\n", "n.py": "N = 1\n"}
    dev_file = "def run(x):\n    legacy_hook(x)\n    return x\n"
    sync = build(
        tmp_path / "r", base,
        [("[dev] Hook run", {"m.py": dev_file})],
        [("Main's own change", {"n.py": "N = 2\n"})],
        {"m.py": dev_file, "n.py": "N = 2\n"},
        repair={"m.py": "def run(x):\n    modern_hook(x)\n    return x\n"},
    )  # fmt: skip
    line = lost(sync.audit(), "legacy_hook(x)")
    assert line.judgment is not None and line.judgment.verdict is Verdict.REPLACED
    assert line.judgment.commit == sync.head and not line.is_accident
    assert "fix: post-merge repair" in (line.verdict_evidence or "")


_STEP_BASE = "def step(batch):\n    out = model(batch)\n    return out\n"
_STEP_DEV = (
    "def step(batch):\n"
    "    cu_seqlens, max_seqlen = packed_lengths(batch)\n"
    "    out = model(batch, cu_seqlens=cu_seqlens, max_seqlen=max_seqlen)\n"
    "    return out\n"
)


def test_mains_own_version_of_devs_change_at_its_place_is_a_port(tmp_path: Path) -> None:
    # main wrote packed sequences its own way (another subject, another PR): its lines
    # at that place use dev's own names (cu_seqlens, max_seqlen). The resolution took
    # main's: dev's lines are gone, dev's work is not.
    main_file = (
        "def step(batch):\n"
        "    cu_seqlens = batch.get('cu_seqlens')\n"
        "    max_seqlen = int(batch['lengths'].max())\n"
        "    out = model(batch, cu_seqlens=cu_seqlens, max_seqlen=max_seqlen, thd=True)\n"
        "    return out\n"
    )
    sync = build(
        tmp_path / "r", {"m.py": _STEP_BASE},
        [("[dev] Packed sequences in step (#501)", {"m.py": _STEP_DEV})],
        [("THD format for the trainer (#777)", {"m.py": main_file})],
        {"m.py": main_file},
    )  # fmt: skip
    audit = sync.audit()
    line = lost(audit, "cu_seqlens, max_seqlen = packed_lengths(batch)")
    assert line.judgment is not None and line.judgment.verdict is Verdict.PORTED
    assert not line.is_accident
    assert line.judgment.subject == "THD format for the trainer (#777)"
    assert "own version" in (line.verdict_evidence or "")
    assert "max_seqlen" in (line.verdict_evidence or "")


def test_main_rewriting_the_call_without_devs_own_keyword_is_still_a_loss(tmp_path: Path) -> None:
    # The guide's num_sms accident: main rewrote the call dev had given a keyword of its
    # own; main's version at that place uses the call's old names, not dev's keyword.
    def manager(*args: str) -> str:
        return (
            "def build(cfg):\n    return Manager(\n"
            + "".join(f"        {arg},\n" for arg in args)
            + "    )\n"
        )

    base = {"m.py": manager("cfg.size")}
    dev = manager("cfg.size", "num_sms_api=cfg.num_sms_api")
    main = manager("cfg.size", "cfg.dtype")
    sync = build(
        tmp_path / "r", base,
        [("[dev] SMs for preprocessing (#601)", {"m.py": dev})],
        [("Manager takes a dtype (#602)", {"m.py": main})],
        {"m.py": main},
    )  # fmt: skip
    line = lost(sync.audit(), "num_sms_api=cfg.num_sms_api,")
    assert line.judgment is not None and line.judgment.verdict is Verdict.LOST
    assert line.is_accident


def test_our_repair_writing_devs_change_anew_at_its_place_is_ours(tmp_path: Path) -> None:
    # The merge took main's file; our repair then wrote dev's feature again, adapted:
    # dev's lines are not there as they were, but our commit put its version there.
    main_file = "def step(batch):\n    out = model(batch, fast=True)\n    return out\n"
    repaired = (
        "def step(batch):\n"
        "    cu_seqlens, max_seqlen = packed_lengths(batch, pad_to=8)\n"
        "    out = model(batch, fast=True, cu_seqlens=cu_seqlens, max_seqlen=max_seqlen)\n"
        "    return out\n"
    )
    sync = build(
        tmp_path / "r", {"m.py": _STEP_BASE},
        [("[dev] Packed sequences in step (#501)", {"m.py": _STEP_DEV})],
        [("Fast model (#778)", {"m.py": main_file})],
        {"m.py": main_file},
        repair={"m.py": repaired},
    )  # fmt: skip
    line = lost(sync.audit(), "cu_seqlens, max_seqlen = packed_lengths(batch)")
    assert line.judgment is not None and line.judgment.verdict is Verdict.REPLACED
    assert line.judgment.commit == sync.head and not line.is_accident
    assert "another version" in (line.verdict_evidence or "")


def _packing_restored_by_our_repair(path: Path, dev_comment: str, our_comment: str) -> Sync:
    """dev packs the batch under ``dev_comment``; the merge takes main's file; our repair
    puts dev's call back under ``our_comment`` (none when empty)."""
    dev_file = f"def step(batch):\n{dev_comment}    batch = pack_thd(batch)\n"
    dev_file += "    out = model(batch)\n    return out\n"
    main_file = "def step(batch):\n    out = model(batch, fast=True)\n    return out\n"
    repaired = f"def step(batch):\n{our_comment}    batch = pack_thd(batch)\n"
    repaired += "    out = model(batch, fast=True)\n    return out\n"
    return build(
        path, {"m.py": _STEP_BASE},
        [("[dev] Pack batches (#520)", {"m.py": dev_file})],
        [("Fast model (#778)", {"m.py": main_file})],
        {"m.py": main_file},
        repair={"m.py": repaired},
    )  # fmt: skip


def test_our_repair_rewriting_the_comment_of_devs_code_it_restored_is_ours(
    tmp_path: Path,
) -> None:
    # The merge took main's file; our repair put dev's call back under a shorter comment
    # of its own. Dev's longer comment is not in the result; dev's work is.
    sync = _packing_restored_by_our_repair(
        tmp_path / "r",
        "    # Pack the batch into THD form so that variable-length\n"
        "    # sequences share one kernel launch; the wrapper also\n"
        "    # broadcasts the FLOPs counters to every pipeline rank.\n",
        "    # THD packing (dev)\n",
    )
    audit = sync.audit()
    line = lost(audit, "# sequences share one kernel launch; the wrapper also")
    assert line.judgment is not None and line.judgment.verdict is Verdict.REPLACED
    assert "a comment of its own over the code it kept" in (line.verdict_evidence or "")
    assert not line.is_accident


def test_devs_comment_dropped_with_nothing_in_its_stead_is_still_lost(tmp_path: Path) -> None:
    # The same comment, but our repair put dev's call back with no comment at all: the
    # comment was dropped, not rewritten, and the maintainer is asked about it.
    sync = _packing_restored_by_our_repair(
        tmp_path / "r",
        "    # Pack the batch into THD form so that variable-length\n"
        "    # sequences share one kernel launch.\n",
        "",
    )
    line = lost(sync.audit(), "# sequences share one kernel launch.")
    assert line.judgment is not None and line.judgment.verdict is Verdict.LOST
    assert line.is_accident


def test_a_dev_line_that_only_rewrapped_base_code_is_no_dev_change(tmp_path: Path) -> None:
    # An earlier dev-side sync ran black: it joined the base's call onto one line. main
    # renamed an argument of the call; the result is main's. No dev work is lost.
    base = {"m.py": "state = load(sharded,\n             name,\n             strict=True)\n"}
    dev = "state = load(sharded, name, strict=True)\n"
    main = "state = load(sharded,\n             checkpoint_name,\n             strict=True)\n"
    sync = build(
        tmp_path / "r", base,
        [("Sync main into dev (black)", {"m.py": dev})],
        [("Verify on load (#603)", {"m.py": main})],
        {"m.py": main},
    )  # fmt: skip
    line = lost(sync.audit(), "state = load(sharded, name, strict=True)")
    assert line.judgment is not None and line.judgment.verdict is Verdict.SHARED
    assert not line.is_accident
    assert "only reformatted" in (line.verdict_evidence or "")


def test_a_dev_edit_inside_a_function_main_deleted_went_with_it(tmp_path: Path) -> None:
    base = {"m.py": "def keep():\n    return 1\n\n\ndef old(x):\n    return x\n"}
    dev_file = "def keep():\n    return 1\n\n\ndef old(x):\n    validate(x)\n    return x\n"
    main_file = "def keep():\n    return 1\n"
    sync = build(
        tmp_path / "r", base,
        [("[dev] Validate old", {"m.py": dev_file})],
        [("Remove old()", {"m.py": main_file})],
        {"m.py": main_file},
    )  # fmt: skip
    line = lost(sync.audit(), "validate(x)")
    assert line.judgment is not None and line.judgment.verdict is Verdict.DELETED
    assert line.judgment.commit == sync.slice_tip and not line.is_accident
    assert "main deleted old" in (line.verdict_evidence or "")


def test_a_function_main_moved_to_another_file_is_not_a_deletion(tmp_path: Path) -> None:
    base = {"m.py": "def keep():\n    return 1\n\n\ndef old(x):\n    return x\n"}
    dev_file = "def keep():\n    return 1\n\n\ndef old(x):\n    validate(x)\n    return x\n"
    main_files = {"m.py": "def keep():\n    return 1\n", "moved.py": "def old(x):\n    return x\n"}
    sync = build(
        tmp_path / "r", base,
        [("[dev] Validate old", {"m.py": dev_file})],
        [("Move old() to its own module", main_files)],
        main_files,
    )  # fmt: skip
    line = lost(sync.audit(), "validate(x)")
    assert line.judgment is not None and line.judgment.verdict is not Verdict.DELETED
    assert line.is_accident  # dev's edit should have moved with the function


def test_dev_edits_in_a_file_main_deleted_went_with_the_file(tmp_path: Path) -> None:
    base = {"old.py": "def gone():\n    return 1\n", "m.py": "X = 1\n"}
    dev = {"old.py": "def gone():\n    log_call()\n    return 1\n"}
    sync = build(
        tmp_path / "r", base,
        [("[dev] Log gone", dev)],
        [("Delete old.py", {"old.py": None, "m.py": "X = 2\n"})],
        {"old.py": None, "m.py": "X = 2\n"},
    )  # fmt: skip
    line = lost(sync.audit(), "log_call()")
    assert line.judgment is not None and line.judgment.verdict is Verdict.DELETED
    assert "main deleted the file" in (line.verdict_evidence or "")
    assert not line.is_accident


def test_a_base_line_both_sides_edited_is_rewritten_by_main_but_an_insertion_is_not(
    tmp_path: Path,
) -> None:
    dev_file = "def run(x):\n    y = x + 10\n    audit_log.record(x, y)\n    return y\n"
    sync = build(
        tmp_path / "r", {"m.py": _RUN_BASE},
        [("[dev] Scale run", {"m.py": dev_file})],
        [("Faster run", {"m.py": _RUN_MAIN})],
        {"m.py": _RUN_MAIN},
    )  # fmt: skip
    audit = sync.audit()
    edited = lost(audit, "y = x + 10")
    assert edited.judgment is not None and edited.judgment.verdict is Verdict.REWRITTEN
    assert edited.judgment.commit == sync.slice_tip and not edited.is_accident
    inserted = lost(audit, "audit_log.record(x, y)")
    assert inserted.judgment is not None and inserted.judgment.verdict is Verdict.LOST


def test_an_override_file_taken_whole_loses_devs_change_with_it(tmp_path: Path) -> None:
    base = {"train.py": "def step():\n    return 0\n"}
    dev_file = "def step():\n    offload_states()\n    return 0\n"
    main_file = "def step():\n    return 1\n"
    sync = build(
        tmp_path / "r", base,
        [("[dev] Offload optimizer states (#77)", {"train.py": dev_file})],
        [("Step returns one", {"train.py": main_file})],
        {"train.py": main_file},
    )  # fmt: skip
    line = lost(sync.audit(AuditPolicy(override_from_main=("train.py",))), "offload_states()")
    assert line.judgment is not None and line.judgment.verdict is Verdict.LOST
    assert line.is_accident and "override" in (line.verdict_evidence or "")


def test_subjects_compare_without_tags_and_pull_requests() -> None:
    assert subject_key("[dev] Add the widget cache (#41)") == subject_key(
        "Add the widget cache (#57)"
    )
    assert subject_key("[Dev][fix] fix") == ""  # too short to say anything
    assert pull_requests("cherry-pick of #4318, see https://x/pull/4882") == {4318, 4882}


def _report(sync: Sync, *args: str) -> dict[str, Any]:
    """``syncdesk report --format json`` on the sync branch, as a maintainer runs it."""
    done = run_cli(
        "report", "--repo", str(sync.repo.path), "--head", "sync", "--dev", "dev",
        "--main", "main", "--format", "json", *args,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr.decode()
    summary: dict[str, Any] = json.loads(done.stdout)["conflicts"]["audit_summary"]
    return summary


def test_mains_caller_meeting_devs_callee_is_breakage_without_a_loss(tmp_path: Path) -> None:
    # dev gave f a second parameter and updated its caller; main added a caller of the
    # old f next to it. The resolution kept both: no dev line is lost, the result is broken.
    base = {"lib.py": "def f(a):\n    return a\n", "use.py": "from lib import f\nX = f(1)\n"}
    dev = {
        "lib.py": "def f(a, b):\n    return a + b\n",
        "use.py": "from lib import f\nX = f(1, 2)\n",
    }
    main = {"use.py": "from lib import f\nX = f(1) + 1\n"}
    result = {"use.py": "from lib import f\nX = f(1, 2)\nY = f(3)\n"}
    sync = build(tmp_path / "r", base, [("[dev] f takes b", dev)], [("main: X", main)], result)
    summary = _report(sync, "--breakage")
    assert summary["flagged_lines"] == 0
    (broken,) = summary["breakage"]
    assert broken["path"] == "use.py" and broken["line"] == 3
    assert broken["kind"] == "missing-argument" and broken["change"] is None
    # Without --breakage the report does not look (it costs seconds on a large sync).
    assert _report(sync)["breakage"] == []


def test_a_breakage_a_lost_dev_change_explains_is_linked_to_it(tmp_path: Path) -> None:
    # dev's helper and its import went with main's side of the hunk; dev's use stayed.
    base = {"use.py": "import os\n\nX = 1\n", "helpers.py": "def one():\n    return 1\n"}
    dev = {
        "use.py": "import os\nfrom helpers import scaled\n\nX = 1\nY = scaled(2)\n",
        "helpers.py": "def one():\n    return 1\n\n\ndef scaled(x):\n    return 3 * x\n",
    }
    main = {"use.py": "import os\nimport sys\n\nX = 1\n"}
    result = {"use.py": "import os\nimport sys\n\nX = 1\nY = scaled(2)\n"}
    sync = build(tmp_path / "r", base, [("[dev] Scaled values (#12)", dev)],
                 [("main: sys", main)], result)  # fmt: skip
    summary = _report(sync, "--breakage")
    (broken,) = summary["breakage"]
    assert broken["kind"] == "undefined-name" and broken["name"] == "scaled"
    assert broken["change"] == sync.dev_base
    assert summary["changes"][0]["commit"] == sync.dev_base


def test_a_call_that_no_longer_fits_is_linked_to_the_parameter_dev_lost(tmp_path: Path) -> None:
    # The guide's num_sms accident in small: dev gave f a parameter (on its own line) and
    # a caller passing it; the resolution took main's f, so the caller passes one
    # positional too many. No flagged line spells "f": the link is the callee itself.
    base = {"lib.py": "def f(\n    a,\n):\n    return a\n"}
    caller = "\n\ndef g():\n    return f(1, 2)\n"
    dev = {"lib.py": "def f(\n    a,\n    scale,\n):\n    return a * scale\n" + caller}
    main = {"lib.py": "def f(\n    a,\n):\n    return a + 0\n"}
    result = {"lib.py": main["lib.py"] + caller}
    sync = build(tmp_path / "r", base, [("[dev] Scaled f (#88)", dev)],
                 [("main: f adds zero", main)], result)  # fmt: skip
    summary = _report(sync, "--breakage")
    (broken,) = summary["breakage"]
    assert broken["kind"] == "too-many-positional" and broken["line"] == 8  # g's call
    assert broken["change"] == sync.dev_base
