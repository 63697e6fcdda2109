"""Finding the maintainer's GitHub token the way the gh CLI does, and never showing it.

gh's order (cli/cli ``internal/config``, go-gh ``pkg/auth``): for github.com,
``GH_TOKEN``, then ``GITHUB_TOKEN``, then ``oauth_token`` in gh's
``hosts.yml``, then gh's keyring (``gh auth token``, which reads it); for an
Enterprise host, ``GH_ENTERPRISE_TOKEN`` then ``GITHUB_ENTERPRISE_TOKEN``
first. The user is shown where the token came from, never the token: it is
kept in a :class:`Token` whose ``repr`` and ``str`` hide it, is passed to
clients in memory only, and never reaches a command line or a log.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

import yaml

from syncdesk.services.errors import ServiceError


@dataclass(frozen=True, slots=True)
class Token:
    """A GitHub token and where it was found; ``repr`` never shows the value."""

    value: str = field(repr=False)
    source: str  # "GH_TOKEN", "gh's hosts.yml", "gh's keyring", ...

    def __str__(self) -> str:
        return f"a token from {self.source}"


class NoTokenError(ServiceError):
    """No token anywhere gh would look."""


def host_of(api_url: str) -> str:
    """The host gh files tokens under: ``github.com`` for ``api.github.com``."""
    host = (urlsplit(api_url).hostname or "").lower()
    return "github.com" if host in ("api.github.com", "github.com") else host


def token_variables(api_url: str) -> tuple[str, str]:
    """The environment variables gh (and syncdesk) read a token for ``api_url``'s host from.

    ``GH_TOKEN`` and ``GITHUB_TOKEN`` are github.com's only: any other host (an
    Enterprise server, the sandbox on 127.0.0.1) reads ``GH_ENTERPRISE_TOKEN``
    and ``GITHUB_ENTERPRISE_TOKEN``, so a github.com token is never sent there.
    """
    if host_of(api_url) == "github.com":
        return ("GH_TOKEN", "GITHUB_TOKEN")
    return ("GH_ENTERPRISE_TOKEN", "GITHUB_ENTERPRISE_TOKEN")


def find_token(
    api_url: str,
    *,
    environ: Mapping[str, str] | None = None,
    use_gh: bool = True,
) -> Token:
    """The token for the host of ``api_url``, found in gh's order.

    ``environ`` defaults to the process environment (tests pass their own).
    ``use_gh`` runs ``gh auth token`` as the last resort (gh reads its
    keyring); the token comes back on gh's stdout, never on a command line.
    Raises :class:`NoTokenError` naming every place that was looked at.
    """
    env = os.environ if environ is None else environ
    host = host_of(api_url)
    names = token_variables(api_url)
    for name in names:
        value = env.get(name, "").strip()
        if value:
            return Token(value, name)
    hosts = _hosts_file(env)
    value = _from_hosts_file(hosts, host)
    if value:
        return Token(value, f"gh's {hosts}")
    if use_gh:
        value = _from_gh(host, env)
        if value:
            return Token(value, "gh's keyring (gh auth token)")
    raise NoTokenError(
        f"no GitHub token for {host}: set {names[0]}, or run `gh auth login --hostname {host}`"
    )


def _hosts_file(env: Mapping[str, str]) -> Path:
    if env.get("GH_CONFIG_DIR"):
        return Path(env["GH_CONFIG_DIR"]) / "hosts.yml"
    if env.get("XDG_CONFIG_HOME"):
        return Path(env["XDG_CONFIG_HOME"]) / "gh" / "hosts.yml"
    return Path(env.get("HOME", str(Path.home()))) / ".config" / "gh" / "hosts.yml"


def _from_hosts_file(path: Path, host: str) -> str:
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return ""  # unreadable or malformed: gh would not use it either
    entry = data.get(host) if isinstance(data, dict) else None
    if not isinstance(entry, dict):
        return ""
    token = entry.get("oauth_token")
    if isinstance(token, str) and token.strip():
        return token.strip()
    # gh 2.40+ keeps one block per account under `users`, the active one named by `user`.
    users, user = entry.get("users"), entry.get("user")
    if isinstance(users, dict) and isinstance(users.get(user), dict):
        token = users[user].get("oauth_token")
        if isinstance(token, str) and token.strip():
            return token.strip()
    return ""


def _from_gh(host: str, env: Mapping[str, str]) -> str:
    gh = shutil.which("gh", path=env.get("PATH"))
    if gh is None:
        return ""
    try:
        result = subprocess.run(
            [gh, "auth", "token", "--hostname", host],
            capture_output=True,
            text=True,
            timeout=10,
            env=dict(env),
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return result.stdout.strip() if result.returncode == 0 else ""
