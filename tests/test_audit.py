"""The preservation audit: the reference hook's raw findings, then the triage.

The raw findings are checked against ``tests/data/preservation_hook.sh`` (the
bash hook DOMAIN.md describes) run on the same branches: the demo world's sync
and a crafted one holding every class of finding and every awkward input
(duplicates, CRLF, no final newline, invalid UTF-8, a binary file, a quoted
path with a space, a file the result deleted).
"""

from __future__ import annotations

import os
import subprocess
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import cast

import pytest

from syncdesk.services.audit.lines import is_trivial, plan_restore
from syncdesk.services.audit.lost_lines import audit_sync, raw_findings
from syncdesk.services.audit.model import CLASS_ORDER, Audit, Classification, LostLine
from syncdesk.services.audit.policy import AuditPolicy
from syncdesk.services.audit.sources import parse_removals
from syncdesk.services.conflicts.read import read_conflicts
from syncdesk.services.demo.facts import DemoFacts
from syncdesk.services.errors import Cancelled
from syncdesk.services.git.runner import Git
from syncdesk.services.progress import Steps
from tests.conflictrepo import build_conflicts
from tests.gitrepo import GitRepo

HOOK = Path(__file__).parent / "data" / "preservation_hook.sh"
ATTENTION = "lumen/models/attention.py"
DEV_LOG_LINE = b'    logger.debug("fused_layer_spec_from_dict: %r", data)'


def run_hook(repo: Path, dev_base: str, slice_tip: str, head: str) -> Counter[tuple[str, bytes]]:
    """The hook's findings as a multiset of (path, line)."""
    out = subprocess.run(
        ["bash", str(HOOK), dev_base, slice_tip, head],
        cwd=repo,
        capture_output=True,
        check=True,
    ).stdout
    found: Counter[tuple[str, bytes]] = Counter()
    path = ""
    for line in out.split(b"\n")[:-1]:
        if line.startswith(b"\t"):
            found[(path, line[1:])] += 1
        else:
            path = line.decode()
    return found


def ours(repo: Path, dev_base: str, slice_tip: str, head: str) -> Counter[tuple[str, bytes]]:
    return Counter((f.path, f.line) for f in raw_findings(Git(repo), dev_base, slice_tip, head))


def show(repo: Path, rev: str, path: str) -> list[bytes]:
    data = subprocess.run(
        ["git", "show", f"{rev}:{path}"], cwd=repo, capture_output=True, check=True
    ).stdout
    return data.split(b"\n")[:-1] if data.endswith(b"\n") else data.split(b"\n")


def check_totals(audit: Audit) -> None:
    """Every raw finding is either ignored or triaged, and accidents come first."""
    assert audit.ignored_trivial + audit.ignored_binary + len(audit.findings) == audit.raw_count
    ranks = [CLASS_ORDER.index(f.classification) for f in audit.findings]
    assert ranks == sorted(ranks)
    assert sum(audit.counts.values()) == len(audit.findings)


# ------------------------------------------------------------------ the demo world


@pytest.fixture(scope="module")
def demo_audit(demo_facts: DemoFacts) -> Audit:
    git = Git(demo_facts.repo)
    return audit_sync(git, demo_facts.dev_base, demo_facts.slice_tip, demo_facts.sync_branch)


def test_raw_findings_equal_the_hooks_on_the_demo_world(demo_facts: DemoFacts):
    args = (demo_facts.repo, demo_facts.dev_base, demo_facts.slice_tip, demo_facts.repair)
    hook = run_hook(*args)
    assert (ATTENTION, DEV_LOG_LINE) in hook  # the dropped dev log line of the story
    assert ours(*args) == hook


def test_the_dropped_dev_log_line_is_a_probable_accident(demo_facts, demo_audit):
    check_totals(demo_audit)
    (finding,) = [f for f in demo_audit.findings if f.raw == DEV_LOG_LINE]
    assert finding.classification is Classification.ACCIDENT
    assert finding.path == ATTENTION
    dev_lines = show(demo_facts.repo, demo_facts.dev_base, ATTENTION)
    assert dev_lines[finding.line - 1] == DEV_LOG_LINE
    assert finding.text == DEV_LOG_LINE.decode().rstrip()
    assert demo_audit.findings[0].classification is Classification.ACCIDENT
    # dev's import line is not an accident: the repair's import line still binds
    # every name of it (main rewrote that line, and the repair merged the two).
    (import_line,) = [f for f in demo_audit.findings if b"min_p_filter" in f.raw]
    assert not import_line.is_accident


def test_removed_on_main_names_a_slice_commit_that_removed_the_line(demo_facts, demo_audit):
    removed = [f for f in demo_audit.findings if f.classification is Classification.REMOVED_ON_MAIN]
    assert removed
    for finding in removed:
        assert finding.commit in demo_facts.slice
        patch = subprocess.run(
            ["git", "show", "-U0", "--format=%s", finding.commit or "", "--", finding.path],
            cwd=demo_facts.repo,
            capture_output=True,
            check=True,
        ).stdout.split(b"\n")
        assert b"-" + finding.raw in patch
        assert finding.subject == patch[0].decode()


def test_restoring_the_dev_log_line_puts_it_back_in_its_function(demo_facts, demo_audit):
    dev = show(demo_facts.repo, demo_facts.dev_base, ATTENTION)
    result = show(demo_facts.repo, demo_facts.repair, ATTENTION)
    (finding,) = [f for f in demo_audit.findings if f.raw == DEV_LOG_LINE]
    plan = plan_restore(dev, result, finding.line)
    assert plan is not None
    assert plan.lines == (DEV_LOG_LINE,)
    # Right after the docstring of the function it was logging from.
    assert result[plan.insert_after - 1] == dev[finding.line - 2]
    assert result[plan.insert_after - 2].startswith(b"def fused_layer_spec_from_dict(")


# ------------------------------------------------------------------ a crafted sync


@dataclass
class Crafted:
    repo: GitRepo
    dev_base: str
    slice_tip: str
    head: str
    subjects: dict[str, str]  # slice commit subject -> sha

    @property
    def path(self) -> Path:
        return self.repo.path


WEIRD = 'docs/we"ird name é.md'

BASE: dict[str, str | bytes | None] = {
    "pkg/accident.py": "def run(x):\n    total = x + 1\n    return total\n",
    "pkg/moved.py": "import os\n\nLIMIT = 1\nSTEP = 2\n",
    "pkg/other.py": "import os\n\nOTHER = 1\n",
    "pkg/mainfile.py": "MAIN = 1\n",
    "pkg/reformat.py": "A = 1\n\n\ndef tail():\n    return A\n",
    "pkg/dupes.py": "def bump(x):\n    x += 1\n    return x\n",
    "pkg/gone.py": "KEEP = 1\nOLD = 2\n",
    "data/crlf.txt": b"alpha\r\nbeta\r\n",
    "data/nonl.txt": b"one\ntwo",
    "data/latin1.txt": b"caf\xe9\n",
    "assets/blob.bin": b"\x00\x01header\nbase\n",
    WEIRD: "# Title\n\nObsolete paragraph.\nKept paragraph.\n",
}

DEV: dict[str, str | bytes | None] = {
    # A dev log call (with its closing bracket) next to a line main changes.
    "pkg/accident.py": (
        "def run(x):\n    total = x + 1\n    log.debug(\n        'run %s', x\n    )\n"
        "    return total\n"
    ),
    # DEV_LIMIT: the resolution moves it to a new file. import sys: dropped,
    # while another file already imports it. import json: dropped, while main
    # adds the same line to another file (a coincidence, not a move).
    "pkg/moved.py": "import os\nimport sys\nimport json\n\nLIMIT = 1\nSTEP = 2\nDEV_LIMIT = 7\n",
    "pkg/other.py": "import os\nimport sys\n\nOTHER = 1\n",
    "pkg/reformat.py": (
        "A = 1\nVALUE=compute(1,2)\nresult = call(\n    first,\n    second,\n)\n\n\n"
        "def tail():\n    return A\n"
    ),
    "pkg/dupes.py": "def bump(x):\n    x += 1\n    x += 1\n    x += 1\n    return x\n",
    "data/crlf.txt": b"alpha\r\nbeta\r\ndev line\r\n",
    "data/nonl.txt": b"one\ntwo\ndev tail",
    "data/latin1.txt": b"caf\xe9\nna\xefve dev\n",
    "assets/blob.bin": b"\x00\x01header\nbase\ndev\n",
}

RUN_MAIN = "def run(x):\n    total = x + 2\n    return total\n"

SLICE: list[tuple[str, dict[str, str | bytes | None]]] = [
    ("Raise the run increment", {"pkg/accident.py": RUN_MAIN}),
    ("Add json to the main module", {"pkg/mainfile.py": "import json\nMAIN = 1\n"}),
    ("Tune the step", {"pkg/moved.py": "import os\n\nLIMIT = 1\nSTEP = 3\n"}),
    ("Rename tail", {"pkg/reformat.py": "A = 1\n\n\ndef tail_value():\n    return A\n"}),
    ("Bump once", {"pkg/dupes.py": "def bump(x):\n    x += 1\n    return x + 0\n"}),
    ("Drop the obsolete paragraph", {WEIRD: "# Title\n\nKept paragraph.\n"}),
    ("Rename OLD", {"pkg/gone.py": "KEEP = 1\nNEW = 2\n"}),
    ("Main text edits", {
        "data/crlf.txt": b"alpha\r\nBETA\r\n",
        "data/nonl.txt": b"one\nTWO",
        "data/latin1.txt": b"CAF\xe9\n",
        "assets/blob.bin": b"\x00\x01header\nmain\n",
    }),
]  # fmt: skip

RESULT: dict[str, str | bytes | None] = {
    # main's version, which drops dev's log call
    "pkg/accident.py": RUN_MAIN,
    "pkg/moved.py": "import os\n\nLIMIT = 1\nSTEP = 3\n",
    "pkg/helpers.py": "DEV_LIMIT = 7\n",  # a new file the resolution moved the line into
    "pkg/other.py": "import os\nimport sys\n\nOTHER = 1\n",
    "pkg/mainfile.py": "import json\nMAIN = 1\n",
    "pkg/reformat.py": (
        "A = 1\nVALUE = compute(1, 2)\nresult = call(first, second)\n\n\n"
        "def tail_value():\n    return A\n"
    ),
    "pkg/dupes.py": "def bump(x):\n    x += 1\n    return x + 0\n",
    "data/crlf.txt": b"alpha\r\nBETA\r\n",
    "data/nonl.txt": b"one\nTWO",
    "data/latin1.txt": b"CAF\xe9\n",
    "assets/blob.bin": b"\x00\x01header\nmain\n",
    WEIRD: "# Title\n\nKept paragraph.\n",
}


@pytest.fixture(scope="module")
def crafted(tmp_path_factory: pytest.TempPathFactory) -> Crafted:
    repo = GitRepo(tmp_path_factory.mktemp("audit") / "repo")
    base = repo.commit("Base", BASE)
    repo.checkout("dev", base)
    dev_base = repo.commit("dev: features", DEV)
    repo.checkout("main")
    subjects = {subject: repo.commit(subject, files) for subject, files in SLICE}
    slice_tip = repo.rev("HEAD")
    repo.checkout("sync", dev_base)
    # GitRepo.write takes bytes too; merge's annotation is narrower than what it passes on.
    repo.merge("main", "Merge main into dev", resolve=cast(dict[str, str | None], RESULT))
    # The result deletes a file main changed (git merged main's change in).
    repo.git("rm", "-q", "-f", "--", "pkg/gone.py")
    repo.git("commit", "-q", "--amend", "--no-edit", "--no-verify")
    return Crafted(repo, dev_base, slice_tip, repo.rev("HEAD"), subjects)


@pytest.fixture(scope="module")
def crafted_audit(crafted: Crafted) -> Audit:
    return audit_sync(Git(crafted.path), crafted.dev_base, crafted.slice_tip, crafted.head)


def by_raw(audit: Audit, raw: bytes) -> LostLine:
    (finding,) = [f for f in audit.findings if f.raw == raw]
    return finding


def test_raw_findings_equal_the_hooks_on_awkward_input(crafted: Crafted):
    args = (crafted.path, crafted.dev_base, crafted.slice_tip, crafted.head)
    hook = run_hook(*args)
    assert ours(*args) == hook
    # The awkward cases really are in the comparison.
    assert hook[("pkg/dupes.py", b"    x += 1")] == 1  # dev 3x, main 1x, result 1x: comm says 1
    assert hook[("data/crlf.txt", b"dev line\r")] == 1
    assert hook[("data/nonl.txt", b"dev tail")] == 1  # no final newline: still a line
    assert hook[("data/latin1.txt", b"na\xefve dev")] == 1
    assert hook[("assets/blob.bin", b"dev")] == 1
    assert hook[(WEIRD, b"Obsolete paragraph.")] == 1
    assert hook[("pkg/gone.py", b"OLD = 2")] == 1  # deleted by the result: still touched
    assert ("pkg/gone.py", b"KEEP = 1") not in hook  # main holds it


def test_each_class_with_its_evidence(crafted: Crafted, crafted_audit: Audit):
    audit = crafted_audit
    check_totals(audit)
    log_call = by_raw(audit, b"    log.debug(")
    assert log_call.classification is Classification.ACCIDENT
    assert (log_call.path, log_call.line) == ("pkg/accident.py", 3)
    assert by_raw(audit, b"        'run %s', x").classification is Classification.ACCIDENT

    removed = by_raw(audit, b"    total = x + 1")
    assert removed.classification is Classification.REMOVED_ON_MAIN
    assert removed.commit == crafted.subjects["Raise the run increment"]
    assert removed.subject == "Raise the run increment"
    assert removed.evidence.startswith(f"removed on main by {removed.commit[:8]}")

    moved = by_raw(audit, b"DEV_LIMIT = 7")
    assert moved.classification is Classification.MOVED
    assert (moved.other_path, moved.evidence_line) == ("pkg/helpers.py", 1)

    squeezed = by_raw(audit, b"VALUE=compute(1,2)")
    assert squeezed.classification is Classification.REFORMATTED
    assert squeezed.evidence_line == 2
    for raw in (b"result = call(", b"    first,", b"    second,"):  # joined by a formatter
        reflowed = by_raw(audit, raw)
        assert (reflowed.classification, reflowed.evidence_line) == (
            Classification.REFORMATTED,
            3,
        )


def test_a_line_other_files_hold_anyway_is_not_moved(crafted_audit: Audit):
    # pkg/other.py imports sys on dev already; main itself added import json
    # to pkg/mainfile.py. Neither says where the dropped imports went.
    for raw in (b"import sys", b"import json"):
        finding = by_raw(crafted_audit, raw)
        assert (finding.path, finding.classification) == ("pkg/moved.py", Classification.ACCIDENT)


def test_awkward_files_are_triaged(crafted: Crafted, crafted_audit: Audit):
    audit = crafted_audit
    assert audit.ignored_binary == 2  # assets/blob.bin's "base" and "dev" lines
    assert audit.ignored_trivial == 2  # the lone ")" of the log call and of the joined call
    assert not [f for f in audit.findings if f.path == "assets/blob.bin"]
    weird = by_raw(audit, b"Obsolete paragraph.")
    assert (weird.path, weird.classification) == (WEIRD, Classification.REMOVED_ON_MAIN)
    assert weird.commit == crafted.subjects["Drop the obsolete paragraph"]
    gone = by_raw(audit, b"OLD = 2")
    assert gone.commit == crafted.subjects["Rename OLD"]
    latin = by_raw(audit, b"na\xefve dev")
    assert latin.text == "na\ufffdve dev"  # shown decoded, restored from raw
    crlf = by_raw(audit, b"dev line\r")
    assert (crlf.text, crlf.classification) == ("dev line", Classification.ACCIDENT)
    dupe = by_raw(audit, b"    x += 1")
    assert dupe.classification is Classification.ACCIDENT
    assert dupe.line in (3, 4)  # the copy the result kept is the first one
    assert audit.raw_files == len({f.path for f in audit.findings} | {"assets/blob.bin"})


def test_restore_plan_on_the_crafted_accident(crafted: Crafted, crafted_audit: Audit):
    dev = show(crafted.path, crafted.dev_base, "pkg/accident.py")
    result = show(crafted.path, crafted.head, "pkg/accident.py")
    accidents = [f.line for f in crafted_audit.in_file("pkg/accident.py")
                 if f.classification is Classification.ACCIDENT]  # fmt: skip
    plan = plan_restore(dev, result, 3, accidents)
    assert plan is not None
    # The closing bracket comes back with its call, after main's version of
    # the line it followed on dev.
    assert plan.lines == (b"    log.debug(", b"        'run %s', x", b"    )")
    assert (plan.dev_start, plan.dev_end, plan.insert_after) == (3, 5, 2)
    assert plan.facing == (2, 2)
    restored = result[: plan.insert_after] + list(plan.lines) + result[plan.insert_after :]
    assert restored == [dev[0], result[1], *dev[2:5], dev[5]]


def test_cancelling_stops_the_audit(crafted: Crafted):
    with pytest.raises(Cancelled):
        audit_sync(
            Git(crafted.path),
            crafted.dev_base,
            crafted.slice_tip,
            crafted.head,
            Steps(cancelled=lambda: True),
        )


def test_a_sync_that_lost_nothing_has_no_findings(crafted: Crafted):
    audit = audit_sync(Git(crafted.path), crafted.dev_base, crafted.slice_tip, crafted.dev_base)
    assert (audit.raw_count, audit.findings, audit.files_checked) == (0, (), 0)


# ------------------------------------------------------------------ the restore helper


def test_restore_goes_after_the_nearest_line_the_result_holds():
    dev = ["def f():", "    a = 1", "    check(a)", "    return a"]
    result = ["# header", "def f():", "    a = 1", "    return a"]  # an edited buffer
    plan = plan_restore(dev, result, 3)
    assert plan is not None
    assert (plan.lines, plan.insert_after, plan.facing) == (("    check(a)",), 3, None)


def test_restore_trims_blank_edges_and_keeps_inner_blanks():
    dev = ["x = 1", "", "def new():", "", "    return 2", "", "y = 3"]
    result = ["x = 1", "y = 3"]
    plan = plan_restore(dev, result, 3, restorable=[5])
    assert plan is not None
    assert plan.lines == ("def new():", "", "    return 2")
    assert (plan.dev_start, plan.dev_end, plan.insert_after) == (3, 5, 1)


def test_restore_keeps_other_findings_out_unless_asked():
    dev = ["a", "lost one", "lost two", "b"]
    result = ["a", "b"]
    alone = plan_restore(dev, result, 2)
    both = plan_restore(dev, result, 2, restorable=[3])
    assert alone is not None
    assert both is not None
    assert alone.lines == ("lost one",)
    assert both.lines == ("lost one", "lost two")


def test_restore_finds_its_place_among_repeated_lines():
    # "return x" occurs three times: the unique lines around it anchor the place.
    dev = ["def a():", "    return x", "def b():", "    log(b)", "    return x", "def c():",
           "    return x"]  # fmt: skip
    result = ["def a():", "    return x", "def b():", "    return x", "def c():", "    return x"]
    plan = plan_restore(dev, result, 4)
    assert plan is not None
    assert plan.insert_after == 3


def test_restore_of_a_line_the_result_holds_is_none_and_bad_lines_are_refused():
    assert plan_restore([b"a", b"b"], [b"a", b"b"], 2) is None
    with pytest.raises(ValueError, match="outside"):
        plan_restore(["a"], ["a"], 2)


def test_restore_at_the_top_of_the_file():
    plan = plan_restore(["#!/bin/sh", "set -e", "run"], ["run"], 2, restorable=[1])
    assert plan is not None
    assert (plan.lines, plan.insert_after) == (("#!/bin/sh", "set -e"), 0)


# ------------------------------------------------------------------ parsing the slice's patch


def test_patch_parsing_trusts_hunk_counts_over_header_lookalikes():
    patch = b"\n".join(
        [
            b"\x00" + b"a" * 40 + b"\x00First",
            b"",
            b'diff --git "a/we\\"ird name" "b/we\\"ird name"',
            b"index 1..2 100644",
            b'--- "a/we\\"ird name"\t',
            b'+++ "b/we\\"ird name"\t',
            b"@@ -1,2 +1 @@",
            b"---- a/not a header",
            b"-diff --git x y",
            b"+new",
            b"\\ No newline at end of file",
            b"\x00" + b"b" * 40 + b"\x00Second",
            b"",
            b"diff --git a/t\\tab b/t\\tab",
            b'--- "a/t\\tab"',
            b'+++ "b/t\\tab"',
            b"@@ -3 +2,0 @@",
            b"-gone",
            b"",
        ]
    )
    removals: dict[str, dict[bytes, tuple[str, str]]] = {}
    parse_removals(patch, removals)
    assert removals == {
        'we"ird name': {
            b"--- a/not a header": ("a" * 40, "First"),
            b"diff --git x y": ("a" * 40, "First"),
        },
        "t\tab": {b"gone": ("b" * 40, "Second")},
    }


@pytest.mark.parametrize("line", ["", "   ", "\t)", "    },", '"""', "#", "//", " */", "]);"])
def test_trivial_lines_hold_no_letter_or_digit(line: str):
    assert is_trivial(line)
    assert is_trivial(line.encode())


@pytest.mark.parametrize("line", ["pass", "else:", "# noqa", "return", "x", "0,"])
def test_short_lines_with_a_word_or_number_are_reported(line: str):
    assert not is_trivial(line)


def test_a_non_utf8_path_names_the_same_file_in_the_audit_and_the_conflicts(tmp_path: Path):
    name = b"pkg/caf\xe9.py".decode("utf-8", "surrogateescape")  # Latin-1, as some repos have
    base = {name: "def run(x):\n    total = x + 1\n    return total\n"}
    dev = {name: "def run(x):\n    total = x + 1\n    log.debug('run %s', x)\n    return total\n"}
    main = {name: "def run(x):\n    total = x + 2\n    return total\n"}
    built = build_conflicts(tmp_path / "repo", base, dev, main)
    head = built.head(main)  # the resolution took main's file: dev's log call is lost
    conflict = read_conflicts(built.git, built.dev, built.main, head).file(name)
    assert conflict is not None
    audit = audit_sync(built.git, built.dev, built.main, head)
    lost = audit.in_file(conflict.path)
    assert "log.debug('run %s', x)" in [f.text.strip() for f in lost]
    assert lost[0].shown_path == "pkg/caf\ufffd.py"


CODE_HOOK = Path(__file__).parent / "data" / "code_files_hook.sh"


def run_code_hook(crafted: Crafted, skip: tuple[str, ...]) -> set[tuple[str, bytes]]:
    """Megatron-LM's variant of the hook (sets, code files, skip list) as (path, line)."""
    out = subprocess.run(
        ["bash", str(CODE_HOOK), crafted.dev_base, crafted.slice_tip, crafted.head],
        cwd=crafted.path, capture_output=True, check=True,
        env={**os.environ, "SKIP_PATHS": "\n".join(skip)},
    ).stdout  # fmt: skip
    found: set[tuple[str, bytes]] = set()
    path = ""
    for line in out.split(b"\n")[:-1]:
        if line.startswith(b"\t"):
            found.add((path, line[1:]))
        else:
            path = line.decode()
    return found


@pytest.mark.parametrize("skip", [(), ("pkg/accident.py", "pkg/dupes.py")])
def test_the_real_hooks_findings_are_reproduced_and_each_is_accounted_for(
    crafted: Crafted, skip: tuple[str, ...]
):
    policy = AuditPolicy(override_from_main=skip)
    git = Git(crafted.path)
    audit = audit_sync(
        git, crafted.dev_base, crafted.slice_tip, crafted.head, policy=policy, hook=True
    )
    assert audit.hook is not None
    expected = run_code_hook(crafted, skip)
    assert {(f.path, f.line) for f in audit.hook} == expected
    assert expected  # the comparison has lines in it
    # Sets, not multisets: dev's third "x += 1" is reported by the reference hook only.
    assert ("pkg/dupes.py", b"    x += 1") not in expected
    assert not {path for path, _ in expected} & {"data/crlf.txt", "pkg/gone.py", *skip}
    # Every hook line has the class the triage gave its line: none is unaccounted for.
    account = audit.hook_account()
    assert sum(account.values()) == len(expected)
    assert set(account) <= {str(kind) for kind in Classification} | {"data-file", "trivial"}
