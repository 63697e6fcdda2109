"""Configuration: defaults, the user file, the repository file, the command line."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from syncdesk.services.errors import ConfigError
from syncdesk.services.sync.config import (
    DEFAULT_KEEP_DEV,
    Config,
    load_config,
    user_config_path,
    with_overrides,
)
from syncdesk.services.sync.options import SyncOptions
from syncdesk.services.sync.session import open_sync
from tests.syncrepo import build_sync_repo


def user_file() -> Path:
    path = Path(os.environ["XDG_CONFIG_HOME"]) / "syncdesk" / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


def test_defaults_are_megatrons_values(tmp_path):
    config = load_config(tmp_path)
    assert (config.main_branch, config.dev_branch, config.remote) == ("main", "dev", "origin")
    assert config.slice_size == 100
    assert set(config.keep_dev) == {
        ".github/CODEOWNERS",
        "pyproject.toml",
        "uv.lock",
        "docker/Dockerfile.ci.dev",
    }
    # The skill's "Files to Override from Main" (DOMAIN.md, "Policies").
    assert config.override_from_main == (
        "megatron/training/training.py",
        "megatron/training/initialize.py",
        "megatron/training/utils.py",
        "megatron/training/datasets/data_samplers.py",
        "megatron/core/optimizer/layer_wise_optimizer.py",
    )
    assert "*.lock" in config.audit_data_files and "*.json" in config.audit_data_files
    assert config.sources == ()


def test_user_file_lives_in_xdg_config_home():
    assert user_config_path() == user_file()


def test_user_file_is_read(tmp_path):
    user_file().write_text('dev_branch = "develop"\nkeep_dev = ["uv.lock"]\n')
    config = load_config(tmp_path)
    assert config.dev_branch == "develop"
    assert config.keep_dev == ("uv.lock",)
    assert config.main_branch == "main"  # untouched keys keep their defaults
    assert config.sources == (str(user_file()),)


def test_repository_file_wins_over_user_file(tmp_path):
    user_file().write_text('slice_size = 50\nremote = "upstream"\n')
    repo_file = tmp_path / ".syncdesk.toml"
    repo_file.write_text('slice_size = 7\noverride_from_main = ["docs/index.md"]\n')
    config = load_config(tmp_path)
    assert config.slice_size == 7
    assert config.remote == "upstream"  # only in the user file: still applies
    assert config.override_from_main == ("docs/index.md",)
    assert config.sources == (str(user_file()), str(repo_file))


def test_command_line_wins_over_both(tmp_path):
    user_file().write_text('main_branch = "trunk"\n')
    (tmp_path / ".syncdesk.toml").write_text("slice_size = 7\n")
    config = with_overrides(
        load_config(tmp_path), slice_size=3, main_branch=None, dev_branch="next"
    )
    assert (config.slice_size, config.main_branch, config.dev_branch) == (3, "trunk", "next")


def test_open_sync_reads_the_repository_file_from_the_work_tree(tmp_path):
    built = build_sync_repo(tmp_path / "r")
    (built.path / ".syncdesk.toml").write_text("slice_size = 3\nkeep_dev = []\n")
    session = open_sync(SyncOptions(repo=built.path))
    assert session.config.slice_size == 3
    assert session.config.keep_dev == ()
    assert open_sync(SyncOptions(repo=built.path, slice_size=4)).config.slice_size == 4


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        ("slice_size = ", "Invalid value"),
        ("[unclosed\n", "Expected ']'"),
        ("slize_size = 5\n", "unknown key 'slize_size'"),
        ('slice_size = "5"\n', "slice_size must be a positive whole number"),
        ("slice_size = 0\n", "slice_size must be a positive whole number"),
        ("slice_size = true\n", "slice_size must be a positive whole number"),
        ("slice_size = 2.5\n", "slice_size must be a positive whole number"),
        ('keep_dev = "uv.lock"\n', "keep_dev must be a list of strings"),
        ("keep_dev = [1, 2]\n", "keep_dev must be a list of strings"),
        ("main_branch = 3\n", "main_branch must be a non-empty string"),
        ('dev_branch = ""\n', "dev_branch must be a non-empty string"),
        ("[branches]\nmain = 'x'\n", "unknown key 'branches'"),
    ],
)
@pytest.mark.parametrize("where", ["user", "repo"])
def test_bad_file_is_one_line_naming_the_file(tmp_path, content, problem, where):
    path = user_file() if where == "user" else tmp_path / ".syncdesk.toml"
    path.write_text(content)
    with pytest.raises(ConfigError) as caught:
        load_config(tmp_path)
    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith(f"{path}: ")
    assert problem in message


@pytest.mark.parametrize(
    "overrides",
    [{"slice_size": 0}, {"slice_size": -3}, {"main_branch": ""}],
)
def test_bad_command_line_value_is_refused(overrides):
    with pytest.raises(ConfigError, match="the command line"):
        with_overrides(Config(), **overrides)


def test_unknown_override_is_refused():
    with pytest.raises(ConfigError, match="unknown setting"):
        with_overrides(Config(), slices=3)


def test_default_keep_dev_is_the_documented_list():
    # docs/configuration.md states this list; keep them in step.
    doc = (Path(__file__).parent.parent / "docs" / "configuration.md").read_text()
    for path in DEFAULT_KEEP_DEV:
        assert f"`{path}`" in doc
