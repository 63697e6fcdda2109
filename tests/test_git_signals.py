"""A git killed by a signal, or that could not be handed its input, is named in one line.

Under a file-size limit (``ulimit -f``) git is killed by SIGXFSZ and says
nothing; the line read "git merge-tree failed: no message".
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

from tests.gitrepo import GitRepo

PROGRAM = textwrap.dedent(
    """
    import resource, sys
    from pathlib import Path
    from syncdesk.services.errors import ServiceError
    from syncdesk.services.git.runner import Git
    git = Git(Path(sys.argv[1]))
    resource.setrlimit(resource.RLIMIT_FSIZE, (512, 512))
    try:
        git.run(["hash-object", "-w", "--", sys.argv[2]])
    except ServiceError as error:
        print(error.message)
    try:
        git.run(["hash-object", "-w", "--stdin"], input=bytes(4096))
    except ServiceError as error:
        print(error.message)
    """
)


def test_a_file_size_limit_is_named_not_no_message(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "r")
    repo.commit("root", {"a.py": "a\n"})
    big = tmp_path / "big.bin"
    big.write_bytes(os.urandom(64 * 1024))  # incompressible: its object is over the limit
    done = subprocess.run(
        [sys.executable, "-c", PROGRAM, str(repo.path), str(big)],
        capture_output=True, text=True, check=False, timeout=60,
    )  # fmt: skip
    lines = done.stdout.splitlines()
    limit = "(a file-size limit: see ulimit -f)"
    assert lines == [
        f"git hash-object failed: fatal: git was killed by SIGXFSZ {limit}",
        f"git hash-object could not run: File too large {limit}",
    ], done.stdout + done.stderr
