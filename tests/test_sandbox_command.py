"""``syncdesk sandbox`` as a real program: another terminal's syncdesk uses it as it would GitHub.

The sandbox runs as a subprocess; its first stdout lines are read as a user
would copy them: the TOML into the user config file, the token into the
environment of the next command, the repository's path to clone from. Then
``syncdesk report --with-pr`` runs in a clone with the sync branch checked out
(``HEAD`` symbolic, no ``--head``) and must find the pull request and its
findings. Every wait is for a line or an exit, with a deadline only against a hang.
"""

from __future__ import annotations

import json
import os
import queue
import re
import signal
import subprocess
import sys
import threading
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import IO

import pytest

from syncdesk.services.sandbox.connect import TEST_TOKEN
from syncdesk.services.sync.config import KNOWN_KEYS, USER_ONLY_KEYS, load_config
from tests.prworld import PR_NUMBER
from tests.test_report_cli import run_cli
from tests.waiting import DEADLINE

TOKEN_LINE = re.compile(r"^([A-Z_]+)=(.*)$")


class Lines:
    """A subprocess's stdout, line by line, read in a thread so that a wait can end."""

    def __init__(self, stream: IO[bytes]) -> None:
        self._lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._pump, args=(stream,), daemon=True).start()

    def _pump(self, stream: IO[bytes]) -> None:
        for raw in stream:
            self._lines.put(raw.decode("utf-8", "replace").rstrip("\n"))
        self._lines.put(None)

    def next(self, what: str) -> str:
        try:
            line = self._lines.get(timeout=DEADLINE)
        except queue.Empty:
            raise AssertionError(f"waited {DEADLINE:.0f} s for {what}") from None
        assert line is not None, f"the sandbox's output ended before {what}"
        return line

    def rest(self) -> list[str]:
        """Every line after the process ended."""
        found = []
        while (line := self._lines.get(timeout=DEADLINE)) is not None:
            found.append(line)
        return found


class Started:
    """A running ``syncdesk sandbox`` and what it printed first."""

    def __init__(self, process: subprocess.Popen[bytes], stderr: Path) -> None:
        self.process, self.stderr = process, stderr
        self.lines = Lines(process.stdout)  # type: ignore[arg-type]
        self.toml: list[str] = []
        while not TOKEN_LINE.match(line := self.lines.next("the token line")):
            self.toml.append(line)
        match = TOKEN_LINE.match(line)
        assert match is not None
        self.token_variable, self.token = match[1], match[2]
        self.repo = Path(self.lines.next("the repository's path"))

    def stop(self, signum: int) -> int:
        self.process.send_signal(signum)
        return self.process.wait(timeout=DEADLINE)


@pytest.fixture
def sandbox_process(tmp_path: Path) -> Iterator[Started]:
    stderr = tmp_path / "sandbox.stderr"
    with stderr.open("wb") as errors:
        process = subprocess.Popen(
            [sys.executable, "-m", "syncdesk", "sandbox", "--dir", str(tmp_path / "tmp")],
            stdout=subprocess.PIPE,
            stderr=errors,
            env=os.environ,
        )
    try:
        yield Started(process, stderr)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(timeout=DEADLINE)
        assert process.stdout is not None
        process.stdout.close()


def write_user_config(lines: list[str]) -> Path:
    """Where syncdesk reads the user file (the hermetic XDG_CONFIG_HOME), with ``lines``."""
    config = Path(os.environ["XDG_CONFIG_HOME"]) / "syncdesk" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text("\n".join(lines) + "\n")
    return config


def test_report_with_pr_from_a_checkout_against_the_sandbox(
    sandbox_process: Started, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    started = sandbox_process
    settings = tomllib.loads("\n".join(started.toml))
    assert set(settings) <= KNOWN_KEYS & USER_ONLY_KEYS
    assert settings["github_repo"] == "lumen-ai/lumen"
    assert re.fullmatch(r"http://127\.0\.0\.1:\d+", settings["github_api_url"])
    # The sandbox's own token, in the variable syncdesk reads for a host that is not github.com.
    assert (started.token_variable, started.token) == ("GH_ENTERPRISE_TOKEN", TEST_TOKEN)
    assert (started.repo / ".git").is_dir()

    config = write_user_config(started.toml)
    assert load_config(None, config).github_api_url == settings["github_api_url"]
    checkout = tmp_path / "checkout"
    subprocess.run(["git", "clone", "-q", str(started.repo), str(checkout)], check=True)
    head = subprocess.run(
        ["git", "symbolic-ref", "HEAD"], cwd=checkout, capture_output=True, text=True, check=True
    )
    assert head.stdout.strip() == "refs/heads/main2dev/demo"  # the sync branch, checked out

    monkeypatch.setenv(started.token_variable, started.token)  # by environment, never argv
    # No --repo, no --head: where the maintainer stands.
    report = run_cli("report", "--with-pr", "--format", "json", cwd=checkout)
    assert report.returncode == 0, report.stderr.decode()
    data = json.loads(report.stdout)
    assert data["pull_request"]["number"] == PR_NUMBER
    assert data["pull_request"]["repo"] == "lumen-ai/lumen"
    assert data["refs"]["head"]["name"] == "HEAD"
    ids = {finding["id"] for finding in data["findings"]}
    assert {"F1", "F2", "F3"} <= ids
    assert data["pr_body_check"]["listed"] == 96 and len(data["pr_body_check"]["missing"]) == 4

    assert started.stop(signal.SIGINT) in (0, 130)  # Ctrl-C
    assert started.lines.rest() == []
    stderr = started.stderr.read_text()
    assert "Traceback" not in stderr and "syncdesk sandbox: stopped" in stderr


def test_sigterm_stops_the_sandbox_cleanly(sandbox_process: Started) -> None:
    assert sandbox_process.stop(signal.SIGTERM) == 0
    stderr = sandbox_process.stderr.read_text()
    assert "Traceback" not in stderr
    assert stderr.splitlines()[-1] == "syncdesk sandbox: stopped"
