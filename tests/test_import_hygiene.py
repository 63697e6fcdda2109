"""services/ decides and imports no UI: importing all of it loads neither textual nor rich."""

from __future__ import annotations

import subprocess
import sys
import textwrap

PROGRAM = textwrap.dedent(
    """
    import importlib, pkgutil, sys
    import services
    names = [m.name for m in pkgutil.walk_packages(services.__path__, "services.")]
    for name in names:
        importlib.import_module(name)
    print(len(names))
    leaked = sorted(
        m for m in sys.modules
        if m.split(".")[0] in ("textual", "rich", "tui", "screens")
    )
    print(" ".join(leaked))
    """
)


def test_importing_every_service_module_loads_no_ui():
    result = subprocess.run(
        [sys.executable, "-c", PROGRAM], capture_output=True, text=True, check=False, timeout=60
    )
    assert result.returncode == 0, result.stderr
    count, leaked = [*result.stdout.split("\n"), ""][:2]
    assert int(count) >= 12  # the walk really found the modules
    assert leaked == ""
