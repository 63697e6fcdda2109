"""Breakage the sync merge introduced, on small repositories of our own.

Each test builds a base, a dev and a main commit on it, and a sync merge
resolved to a chosen result (as tests/test_audit_triage.py does), then asks
:func:`find_breakage` about the result's changed files, read through
:class:`GitTree`. Each shape is one a real sync showed: main's caller meeting
dev's callee, a resolution dropping a definition still used.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from syncdesk.services.audit.breakage import find_breakage
from syncdesk.services.audit.model import Breakage, BreakageKind
from syncdesk.services.audit.tree import GitTree
from syncdesk.services.git.runner import Git
from tests.test_audit_triage import build

Files = Mapping[str, str | None]


def sync_breakage(
    path: Path, base: Files, dev: Files, main: Files, result: Files, checked: list[str]
) -> list[Breakage]:
    """The breakage of ``checked`` in the sync the audit's tests build (``build``)."""
    sync = build(path, base, dev, main, result)
    git = Git(sync.repo.path)
    return find_breakage(
        checked, GitTree(git, sync.head), GitTree(git, sync.dev_base), GitTree(git, sync.slice_tip)
    )


def kinds(found: list[Breakage]) -> list[tuple[str, int, BreakageKind, str]]:
    return [(b.path, b.line, b.kind, b.name) for b in found]


def test_a_name_whose_definition_the_resolution_dropped_is_undefined(tmp_path: Path) -> None:
    base = {"pkg/__init__.py": "", "pkg/layers.py": "def dense():\n    return 1\n"}
    dev = {
        "pkg/layers.py": (
            "def dense():\n    return 1\n\n\nclass FusedDense:\n    pass\n\n\n"
            "def build():\n    return FusedDense()\n"
        )
    }
    main = {"pkg/layers.py": "def dense():\n    return 2\n"}
    # The resolution took main's file for the class and kept dev's build().
    result = {
        "pkg/layers.py": "def dense():\n    return 2\n\n\ndef build():\n    return FusedDense()\n"
    }
    found = sync_breakage(tmp_path / "r", base, dev, main, result, ["pkg/layers.py"])
    assert kinds(found) == [("pkg/layers.py", 6, BreakageKind.UNDEFINED_NAME, "FusedDense")]
    assert "FusedDense" in found[0].message


def test_an_import_of_a_name_the_module_no_longer_defines(tmp_path: Path) -> None:
    base = {"pkg/__init__.py": "", "pkg/util.py": "def one():\n    return 1\n"}
    dev = {
        "pkg/util.py": "def one():\n    return 1\n\n\ndef scaled(x):\n    return 3 * x\n",
        "pkg/use.py": "from pkg.util import one, scaled\n\nVALUE = scaled(one())\n",
        "pkg/rel.py": "from .util import scaled\n\nTWICE = scaled(2)\n",
    }
    main = {"pkg/util.py": "def one():\n    return 1  # the unit\n"}
    result = {"pkg/util.py": main["pkg/util.py"]}
    found = sync_breakage(
        tmp_path / "r", base, dev, main, result, ["pkg/rel.py", "pkg/use.py", "pkg/util.py"]
    )
    assert kinds(found) == [
        ("pkg/rel.py", 1, BreakageKind.MISSING_IMPORT, "scaled"),
        ("pkg/use.py", 1, BreakageKind.MISSING_IMPORT, "scaled"),
    ]
    assert found[0].callee == "pkg.util.scaled"


def test_an_import_of_a_module_gone_from_its_package(tmp_path: Path) -> None:
    base = {"pkg/__init__.py": "", "pkg/old.py": "X = 1\n", "app.py": "import pkg\n"}
    dev = {"app.py": "import pkg.old\n\nprint(pkg.old.X)\n"}
    main = {"pkg/old.py": None}
    found = sync_breakage(tmp_path / "r", base, dev, main, {}, ["app.py"])
    assert kinds(found) == [("app.py", 1, BreakageKind.MISSING_IMPORT, "pkg.old")]


CALLEE_DEV = """\
class Manager:
    def __init__(self, size, num_sms_api=1):
        self.size = size


def launch(size, sms):
    return size * sms
"""
CALLEE_MAIN = """\
class Manager:
    def __init__(self, size):
        self.size = size


def launch(size):
    return size
"""


def test_main_calling_devs_callee_with_an_unknown_keyword(tmp_path: Path) -> None:
    base = {"lib.py": CALLEE_MAIN, "run.py": "from lib import Manager\n\nm = Manager(1)\n"}
    dev = {
        "lib.py": CALLEE_DEV,
        "run.py": "from lib import Manager\n\nm = Manager(1, num_sms_api=2)\n",
    }
    # The resolution took main's lib.py and kept dev's caller.
    found = sync_breakage(
        tmp_path / "r",
        base,
        dev,
        {"lib.py": CALLEE_MAIN + "\n"},
        {"lib.py": CALLEE_MAIN},
        ["run.py", "lib.py"],
    )
    assert kinds(found) == [("run.py", 3, BreakageKind.UNKNOWN_KEYWORD, "num_sms_api")]
    assert found[0].callee == "lib.py:Manager"
    assert found[0].message == (
        "calls Manager(num_sms_api=...), which takes no such parameter (lib.py:2)"
    )


def test_too_many_and_missing_positional_arguments(tmp_path: Path) -> None:
    caller_dev = "from lib import launch\n\nlaunch(1, 2)\n"
    caller_main = "from lib import launch\n\nlaunch(1)\n"
    base = {"lib.py": "def launch(size):\n    return size\n", "run.py": caller_main, "job.py": ""}
    dev = {"lib.py": CALLEE_DEV, "run.py": caller_dev}
    main = {"lib.py": CALLEE_MAIN, "job.py": caller_main}
    # run.py keeps dev's call with two arguments, job.py main's with one: whichever
    # launch() the resolution keeps, one caller no longer fits.
    result = {"lib.py": CALLEE_MAIN, "run.py": caller_dev, "job.py": caller_main}
    found = sync_breakage(tmp_path / "r", base, dev, main, result, ["job.py", "lib.py", "run.py"])
    assert kinds(found) == [("run.py", 3, BreakageKind.TOO_MANY_POSITIONAL, "launch")]

    result = {"lib.py": CALLEE_DEV, "run.py": caller_dev, "job.py": caller_main}
    found = sync_breakage(tmp_path / "s", base, dev, main, result, ["job.py", "lib.py", "run.py"])
    assert kinds(found) == [("job.py", 3, BreakageKind.MISSING_ARGUMENT, "launch")]
    assert "without sms" in found[0].message


def test_a_method_call_through_self_is_checked_against_the_class_body(tmp_path: Path) -> None:
    layer_dev = (
        "class Layer:\n"
        "    def route(self, hidden, ids=None):\n        return hidden\n\n"
        "    def forward(self, hidden):\n        return self.route(hidden, ids=1)\n"
    )
    layer_main = (
        "class Layer:\n"
        "    def route(self, hidden):\n        return hidden\n\n"
        "    def forward(self, hidden):\n        return self.route(hidden)\n"
    )
    merged = layer_main.replace("self.route(hidden)", "self.route(hidden, ids=1)")
    base = {"layer.py": layer_main}
    found = sync_breakage(
        tmp_path / "r", base, {"layer.py": layer_dev}, {"layer.py": layer_main + "\n"},
        {"layer.py": merged}, ["layer.py"],
    )  # fmt: skip
    assert kinds(found) == [("layer.py", 6, BreakageKind.UNKNOWN_KEYWORD, "ids")]
    assert found[0].callee == "layer.py:Layer.route"


def test_breakage_dev_or_main_already_had_is_not_reported(tmp_path: Path) -> None:
    broken = "from lib import launch, gone\n\nlaunch(1, 2, 3)\nlaunch(bad=1)\nprint(missing)\n"
    base = {"lib.py": "def launch(size):\n    return size\n", "run.py": broken, "job.py": ""}
    dev = {"lib.py": "def launch(size):\n    return size + 1\n"}
    main = {"job.py": broken}  # main has the same breakage in another file
    result = {"lib.py": dev["lib.py"], "job.py": broken}
    found = sync_breakage(tmp_path / "r", base, dev, main, result, ["job.py", "lib.py", "run.py"])
    # run.py is broken the same way on dev; job.py the same way on main.
    assert found == []


def test_a_pre_existing_breakage_on_a_moved_line_is_not_reported(tmp_path: Path) -> None:
    broken = "from lib import launch\n\nlaunch(1, 2)\n"
    base = {"lib.py": "def launch(size):\n    return size\n", "run.py": broken}
    result = {"run.py": "from lib import launch\n\n# a comment main added\nlaunch(1, 2)\n"}
    found = sync_breakage(tmp_path / "r", base, {}, result, result, ["run.py"])
    assert found == []


def test_callees_taking_star_args_or_star_star_kwargs_are_not_flagged(tmp_path: Path) -> None:
    lib_dev = (
        "def launch(size, a, b):\n    return size\n\n\ndef spawn(size, extra):\n    return size\n"
    )
    lib_main = "def launch(size):\n    return size\n\n\ndef spawn(size):\n    return size\n"
    lib_star = (
        "def launch(size, *args):\n    return size\n\n\n"
        "def spawn(size, **options):\n    return size\n"
    )
    caller = "from lib import launch, spawn\n\nlaunch(1, 2, 3)\nspawn(1, extra=2)\n"
    base = {"lib.py": lib_main, "run.py": "from lib import launch, spawn\n"}
    dev = {"lib.py": lib_dev, "run.py": caller}
    main = {"lib.py": lib_main + "\n"}
    found = sync_breakage(
        tmp_path / "r", base, dev, main, {"lib.py": lib_star}, ["lib.py", "run.py"]
    )
    assert found == []
    # Control: the same calls against main's plain signatures are flagged.
    found = sync_breakage(tmp_path / "s", base, dev, main, {"lib.py": lib_main}, ["run.py"])
    assert kinds(found) == [
        ("run.py", 3, BreakageKind.TOO_MANY_POSITIONAL, "launch"),
        ("run.py", 4, BreakageKind.UNKNOWN_KEYWORD, "extra"),
    ]


def test_a_file_that_does_not_parse_is_skipped(tmp_path: Path) -> None:
    base = {"lib.py": "def launch(size):\n    return size\n", "run.py": ""}
    dev = {"run.py": "from lib import launch, gone\n\nlaunch(1, 2)\n"}
    result = {
        "run.py": "from lib import launch, gone\n<<<<<<< HEAD\nlaunch(1, 2)\n",
        "ok.py": "x = y\n",
    }
    found = sync_breakage(
        tmp_path / "r", base, dev, {"lib.py": base["lib.py"] + "\n"}, result, ["ok.py", "run.py"]
    )
    assert kinds(found) == [("ok.py", 1, BreakageKind.UNDEFINED_NAME, "y")]


def test_a_decorated_callee_is_skipped(tmp_path: Path) -> None:
    decorator = (
        "import functools\n\n\ndef traced(fn):\n    @functools.wraps(fn)\n"
        "    def inner(*args, **kwargs):\n        return fn(*args, **kwargs)\n\n"
        "    return inner\n\n\n"
    )
    lib_dev = (
        f"{decorator}@traced\ndef launch(size, count, extra=None):\n    return size\n\n\n"
        "def plain(size, count):\n    return size\n"
    )
    lib_main = (
        f"{decorator}@traced\ndef launch(size):\n    return size\n\n\n"
        "def plain(size):\n    return size\n"
    )
    caller = "from lib import launch, plain\n\nlaunch(1, 2, extra=3)\nplain(1, 2)\n"
    base = {"lib.py": lib_main, "run.py": "from lib import launch, plain\n"}
    found = sync_breakage(
        tmp_path / "r", base, {"lib.py": lib_dev, "run.py": caller}, {"lib.py": lib_main + "\n"},
        {"lib.py": lib_main}, ["run.py"],
    )  # fmt: skip
    # launch() goes through a decorator, whose signature is *args, **kwargs: only plain() is judged.
    assert kinds(found) == [("run.py", 4, BreakageKind.TOO_MANY_POSITIONAL, "plain")]
