"""syncdesk's configuration: defaults, a user file, a repository file.

Later sources win: built-in defaults, then the user file
(``$XDG_CONFIG_HOME/syncdesk/config.toml``, via platformdirs), then
``.syncdesk.toml`` at the top of the repository's work tree, then the command
line. The keys are documented in ``docs/configuration.md``. The files are
data only: no key names a command to run (a repository's config must never
make syncdesk execute anything).
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any

import platformdirs

from syncdesk.services.errors import ConfigError
from syncdesk.services.git.atomic import StorageError, read_regular
from syncdesk.services.git.runner import LARGE_FILE_LIMIT

REPO_CONFIG_NAME = ".syncdesk.toml"

# Megatron-LM's values (docs/configuration.md lists them).
DEFAULT_KEEP_DEV = (
    ".github/CODEOWNERS",
    "pyproject.toml",
    "uv.lock",
    "docker/Dockerfile.ci.dev",
)
# Files whose dev-only arguments or APIs main removed: main's version is taken.
DEFAULT_OVERRIDE_FROM_MAIN = (
    "megatron/training/training.py",
    "megatron/training/initialize.py",
    "megatron/training/utils.py",
    "megatron/training/datasets/data_samplers.py",
    "megatron/core/optimizer/layer_wise_optimizer.py",
)
# Files the audit counts per file instead of line by line: lock files, golden values.
DEFAULT_AUDIT_DATA_FILES = ("*.lock", "*.json", "*.jsonl", "*.csv", "*.tsv", "*.svg")
# A file larger than this (any side of it) is compared by blob id, never read
# line by line (see services.git.runner.LARGE_FILE_LIMIT).
DEFAULT_LARGE_FILE_LIMIT = LARGE_FILE_LIMIT


@dataclass(frozen=True, slots=True)
class Config:
    """The settings a sync is read with."""

    main_branch: str = "main"
    dev_branch: str = "dev"
    slice_size: int = 100
    remote: str = "origin"
    keep_dev: tuple[str, ...] = DEFAULT_KEEP_DEV
    override_from_main: tuple[str, ...] = DEFAULT_OVERRIDE_FROM_MAIN
    audit_data_files: tuple[str, ...] = DEFAULT_AUDIT_DATA_FILES
    large_file_limit: int = DEFAULT_LARGE_FILE_LIMIT  # bytes
    # The pull request side. github_repo "" means: from the remote's URL.
    github_repo: str = ""
    github_api_url: str = "https://api.github.com"
    github_web_url: str = "https://github.com"
    codecov_api_url: str = "https://api.codecov.io"
    # Status: DCO, CI and coverage.
    dco_bots: tuple[str, ...] = ()  # author emails/names (fnmatch) exempt from sign-off
    dco_maintainers: tuple[str, ...] = ()  # GitHub handles the override request is addressed to
    ci_gate: str = ""  # the check whose state gates the merge ("" none)
    ci_required: tuple[str, ...] = ()  # fnmatch patterns of required checks
    ci_exempt: tuple[str, ...] = ()  # fnmatch patterns of checks that do not count
    ci_trigger: str = "/ok to test {sha}"  # the comment that starts CI on a head
    sources: tuple[str, ...] = ()  # the files that were read, for the user to see


_STRING_KEYS = {
    "main_branch",
    "dev_branch",
    "remote",
    "github_api_url",
    "github_web_url",
    "codecov_api_url",
    "ci_trigger",
}
_OPTIONAL_STRING_KEYS = {"github_repo", "ci_gate"}
_LIST_KEYS = {
    "keep_dev",
    "override_from_main",
    "audit_data_files",
    "dco_bots",
    "dco_maintainers",
    "ci_required",
    "ci_exempt",
}
_INT_KEYS = {"slice_size", "large_file_limit"}
KNOWN_KEYS = frozenset(_STRING_KEYS | _OPTIONAL_STRING_KEYS | _LIST_KEYS | _INT_KEYS)
# Where the token is sent, which repository syncdesk posts to, and where a push
# goes: a cloned repository's own file must never choose that (a change merged
# from main could send the maintainer's token elsewhere, or a push to a path or
# URL of its choosing, answered by the user's credential helper), so only the
# user file and the command line set these.
USER_ONLY_KEYS = frozenset(
    {"github_repo", "github_api_url", "github_web_url", "codecov_api_url", "remote"}
)


def user_config_path() -> Path:
    """Where the user-level file lives (honours ``XDG_CONFIG_HOME``)."""
    return platformdirs.user_config_path("syncdesk") / "config.toml"


def load_config(work_tree: Path | None, user_file: Path | None = None) -> Config:
    """Read the user file and the repository file over the defaults.

    A missing file is fine; a malformed one raises :class:`ConfigError` naming
    the file and the problem.
    """
    config = Config()
    user = user_file or user_config_path()
    # exists-or-is-a-link, not is_file: a FIFO or a device in a config's place is
    # said (by _read), not silently skipped.
    if user.exists() or user.is_symlink():
        config = _apply(config, user, _read(user))
    repo = _repo_file(work_tree)
    if repo is not None and (repo.exists() or repo.is_symlink()):
        data = _read(repo)
        refused = sorted(set(data) & USER_ONLY_KEYS)
        if refused:
            raise ConfigError(
                f"{repo}: {refused[0]} may only be set in your user file "
                f"({user_config_path()}): it says where your token or your push goes"
            )
        config = _apply(config, repo, data)
    return config


def with_overrides(config: Config, **overrides: Any) -> Config:
    """``config`` with command-line values (those not None) on top."""
    values = {key: value for key, value in overrides.items() if value is not None}
    unknown = set(values) - KNOWN_KEYS
    if unknown:
        raise ConfigError(f"unknown setting {sorted(unknown)[0]}")
    return _validated(replace(config, **values), "the command line")


def _repo_file(work_tree: Path | None) -> Path | None:
    return work_tree / REPO_CONFIG_NAME if work_tree is not None else None


# A configuration is a few lines: what is larger, deeper or longer is not one.
MAX_CONFIG_BYTES = 1024 * 1024
MAX_LIST_ENTRIES = 10_000


def _read(path: Path) -> dict[str, Any]:
    """The TOML in ``path`` ({} when absent), every failure one line naming the file.

    Read as a regular file of at most a megabyte (a FIFO would hang the desk; a
    symlink to one is refused too, one to a regular file is followed, as
    dotfile managers link them); invalid UTF-8 and nesting too deep for the
    parser are named with the file, not "internal error".
    """
    try:
        data = read_regular(path, MAX_CONFIG_BYTES, follow=True)
    except StorageError as error:
        raise ConfigError(error.message) from None
    if data is None:
        return {}
    try:
        return tomllib.loads(data.decode("utf-8"))
    except UnicodeDecodeError as error:
        raise ConfigError(f"{path}: not UTF-8 text (byte {error.start})") from None
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{path}: {error}") from None
    except RecursionError:
        raise ConfigError(f"{path}: nested too deeply to be a configuration") from None


def _apply(config: Config, path: Path, data: dict[str, Any]) -> Config:
    unknown = set(data) - KNOWN_KEYS
    if unknown:
        raise ConfigError(f"{path}: unknown key {sorted(unknown)[0]!r}")
    values: dict[str, Any] = {}
    for key, value in data.items():
        if key in _LIST_KEYS:
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise ConfigError(f"{path}: {key} must be a list of strings")
            if len(value) > MAX_LIST_ENTRIES:
                # Every path of a sync is matched against each entry: 200,000 of them
                # ran a report past 400 s.
                raise ConfigError(
                    f"{path}: {key} has {len(value)} entries; at most {MAX_LIST_ENTRIES}"
                )
            values[key] = tuple(value)
        else:
            values[key] = value
    updated = replace(config, **values, sources=(*config.sources, str(path)))
    return _validated(updated, str(path))


def _validated(config: Config, where: str) -> Config:
    for item in fields(config):
        value = getattr(config, item.name)
        if item.name in _STRING_KEYS and (not isinstance(value, str) or not value):
            raise ConfigError(f"{where}: {item.name} must be a non-empty string")
        if item.name in _OPTIONAL_STRING_KEYS and not isinstance(value, str):
            raise ConfigError(f"{where}: {item.name} must be a string")
        if item.name in _INT_KEYS and (
            isinstance(value, bool) or not isinstance(value, int) or value < 1
        ):
            raise ConfigError(f"{where}: {item.name} must be a positive whole number")
    return config
