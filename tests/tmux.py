"""A private tmux server running the real program: keys sent, the screen read (end-to-end tests)."""

from __future__ import annotations

import os
import shlex
import subprocess
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest


class Tmux:
    """One private tmux server (its own socket) running one command."""

    def __init__(self, home: Path) -> None:
        self.socket = f"syncdesk-test-{uuid.uuid4().hex[:8]}"
        self.home = home

    def tmux(self, *args: str) -> str:
        result = subprocess.run(
            ["tmux", "-L", self.socket, *args], capture_output=True, text=True, check=False
        )
        return result.stdout

    def start(self, command: list[str], cwd: Path, size: tuple[int, int] = (150, 45)) -> None:
        env = " ".join(
            f"{name}={shlex.quote(value)}"
            for name, value in os.environ.items()
            if name.startswith(("GIT_", "XDG_")) or name in ("HOME", "PATH", "TZ", "LANG", "EDITOR")
        )
        # env -i: nothing else leaks in (pytest's COLUMNS=80 would fix the app's width).
        shell = f"cd {shlex.quote(str(cwd))} && env -i {env} TERM=xterm-256color " + " ".join(
            shlex.quote(part) for part in command
        )
        # remain-on-exit keeps the pane after the program ends, so we can see it
        # quit; set-clipboard on makes tmux obey OSC 52, so a leak would show.
        config = self.home / "tmux.conf"
        width, height = size
        config.write_text(
            "set -g remain-on-exit on\nset -g set-clipboard on\n"
            f"set -g default-size {width}x{height}\n"
        )
        subprocess.run(
            ["tmux", "-L", self.socket, "-f", str(config), "new-session", "-d", "-x", str(width),
             "-y", str(height), "sh", "-c", shell],
            check=True,
        )  # fmt: skip

    def screen(self) -> str:
        return self.tmux("capture-pane", "-p")

    def wait_for(
        self, predicate: Callable[[str], bool], what: str, timeout: float = 60, every: float = 0.2
    ) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            text = self.screen()
            if predicate(text):
                return text
            time.sleep(every)
        size = self.tmux("display-message", "-p", "#{window_width}x#{window_height}").strip()
        raise AssertionError(f"timed out waiting for {what} ({size}); screen:\n{self.screen()}")

    def keys(self, *keys: str) -> None:
        self.tmux("send-keys", *keys)

    def pane_dead(self) -> bool:
        return self.tmux("display-message", "-p", "#{pane_dead}").strip() == "1"

    def kill(self) -> None:
        self.tmux("kill-server")


@pytest.fixture
def tmux(hermetic: Path) -> Iterator[Tmux]:
    session = Tmux(hermetic)
    yield session
    session.kill()
