"""The layer contracts: services import no UI, widgets no screens, the product no demo or
sandbox, screens no git; and each services folder only the folders below it.

The contracts themselves are in pyproject.toml (``[tool.importlinter]``); import-linter
reads every static import, including those inside functions. The second test
imports every services module for real, which also catches an import made at run time.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_every_layer_contract_is_kept(tmp_path):
    lint = Path(sys.executable).with_name("lint-imports")
    result = subprocess.run(
        [str(lint), "--no-cache", str(ROOT / "pyproject.toml")],
        cwd=ROOT, capture_output=True, text=True, check=False, timeout=300,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    assert "6 kept, 0 broken" in result.stdout  # every contract was checked, none skipped


PROGRAM = textwrap.dedent(
    """
    import importlib, pkgutil, sys
    import syncdesk.services as services
    names = [m.name for m in pkgutil.walk_packages(services.__path__, "syncdesk.services.")]
    for name in names:
        importlib.import_module(name)
    print(len(names))
    # Not rich: httpx loads it for its own command line once click is installed
    # (import-linter brings click). That syncdesk's own modules never import rich
    # is the "services-no-ui" contract above.
    ui = ("textual", "syncdesk.tui", "syncdesk.screens")
    leaked = sorted(m for m in sys.modules if m.startswith(ui))
    print(" ".join(leaked))
    """
)


def test_importing_every_service_module_loads_no_ui():
    result = subprocess.run(
        [sys.executable, "-c", PROGRAM], capture_output=True, text=True, check=False, timeout=60
    )
    assert result.returncode == 0, result.stderr
    count, leaked = [*result.stdout.split("\n"), ""][:2]
    assert int(count) >= 80  # the walk really found the modules, in every folder
    assert leaked == ""


def test_every_module_is_inside_a_package_the_contracts_see():
    # import-linter (grimp) walks packages: a folder without __init__.py is a
    # namespace its contracts never enter, so its modules were checked by nothing.
    outside = []
    for path in ROOT.rglob("*.py"):
        parts = path.relative_to(ROOT).parts
        if parts[0] not in ("services", "screens", "tui"):
            continue  # tests, benchmarks and the virtualenv are not the product
        folder = path.parent
        while folder != ROOT:
            if not (folder / "__init__.py").exists():
                outside.append(str(path.relative_to(ROOT)))
                break
            folder = folder.parent
    assert outside == []
