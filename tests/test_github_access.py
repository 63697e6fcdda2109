"""Token discovery in gh's order, the GitHub target, and what a repository may not configure."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from syncdesk.services.errors import ConfigError
from syncdesk.services.git.runner import Git
from syncdesk.services.github.api import content_key, graphql_url, marker, markers_in, target_for
from syncdesk.services.github.token import NoTokenError, find_token, host_of
from syncdesk.services.sync.config import Config, load_config
from tests.gitrepo import GitRepo


def test_env_tokens_come_first_in_ghs_order(tmp_path: Path) -> None:
    env = {"GH_TOKEN": "t1", "GITHUB_TOKEN": "t2", "GH_CONFIG_DIR": str(tmp_path)}
    assert find_token("https://api.github.com", environ=env, use_gh=False).source == "GH_TOKEN"
    del env["GH_TOKEN"]
    token = find_token("https://api.github.com", environ=env, use_gh=False)
    assert (token.value, token.source) == ("t2", "GITHUB_TOKEN")


def test_enterprise_hosts_use_their_own_variables(tmp_path: Path) -> None:
    env = {"GH_TOKEN": "public", "GH_ENTERPRISE_TOKEN": "corp", "GH_CONFIG_DIR": str(tmp_path)}
    token = find_token("https://ghe.example.com/api/v3", environ=env, use_gh=False)
    assert (token.value, token.source) == ("corp", "GH_ENTERPRISE_TOKEN")
    assert host_of("https://ghe.example.com/api/v3") == "ghe.example.com"


def test_hosts_yml_both_layouts(tmp_path: Path) -> None:
    hosts = tmp_path / "hosts.yml"
    hosts.write_text("github.com:\n    user: ada\n    oauth_token: gho_old\n")
    env = {"GH_CONFIG_DIR": str(tmp_path)}
    assert find_token("https://api.github.com", environ=env, use_gh=False).value == "gho_old"
    hosts.write_text(
        "github.com:\n    user: ada\n    users:\n        ada:\n            oauth_token: gho_new\n"
    )
    token = find_token("https://api.github.com", environ=env, use_gh=False)
    assert token.value == "gho_new"
    assert "hosts.yml" in token.source


def test_gh_auth_token_is_the_last_resort_and_its_stdout_is_the_token(tmp_path: Path) -> None:
    fake_bin = tmp_path / "bin"
    fake_bin.mkdir()
    gh = fake_bin / "gh"
    gh.write_text('#!/bin/sh\n[ "$1 $2" = "auth token" ] && echo gho_from_keyring\n')
    gh.chmod(gh.stat().st_mode | stat.S_IEXEC)
    env = {"GH_CONFIG_DIR": str(tmp_path / "none"), "PATH": f"{fake_bin}:{os.environ['PATH']}"}
    token = find_token("https://api.github.com", environ=env)
    assert (token.value, token.source) == ("gho_from_keyring", "gh's keyring (gh auth token)")


def test_no_token_is_one_clear_line_and_a_token_never_shows(tmp_path: Path) -> None:
    with pytest.raises(NoTokenError, match="gh auth login"):
        find_token("https://api.github.com", environ={"GH_CONFIG_DIR": str(tmp_path)}, use_gh=False)
    token = find_token("https://api.github.com", environ={"GH_TOKEN": "s3cret"}, use_gh=False)
    assert "s3cret" not in repr(token)
    assert "s3cret" not in str(token)


def test_malformed_hosts_yml_is_ignored(tmp_path: Path) -> None:
    (tmp_path / "hosts.yml").write_text("github.com: [unclosed\n")
    with pytest.raises(NoTokenError):
        find_token("https://api.github.com", environ={"GH_CONFIG_DIR": str(tmp_path)}, use_gh=False)


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("git@github.com:lumen-ai/lumen.git", ("lumen-ai", "lumen")),
        ("https://github.com/lumen-ai/lumen", ("lumen-ai", "lumen")),
        ("https://x-access-token@ghe.example.com/org/repo.git", ("org", "repo")),
        ("ssh://git@ghe.example.com:2222/org/repo.git", ("org", "repo")),
    ],
)
def test_the_repository_comes_from_the_remote(
    repo: GitRepo, url: str, expected: tuple[str, str]
) -> None:
    repo.git("remote", "add", "origin", url)
    target = target_for(Git(repo.path), Config())
    assert (target.owner, target.name) == expected
    assert target.api_url == "https://api.github.com"


def test_github_repo_setting_wins_and_a_missing_remote_is_one_line(repo: GitRepo) -> None:
    config = Config(github_repo="acme/widgets")
    assert target_for(Git(repo.path), config).full_name == "acme/widgets"
    with pytest.raises(Exception, match="github_repo"):
        target_for(Git(repo.path), Config())


def test_a_repository_file_cannot_say_where_the_token_goes(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    (work / ".syncdesk.toml").write_text('github_api_url = "https://evil.example"\n')
    with pytest.raises(ConfigError, match="user file"):
        load_config(work, tmp_path / "no-user-file.toml")
    # Nor which repository syncdesk reads and posts to with that token.
    (work / ".syncdesk.toml").write_text('github_repo = "someone/else"\n')
    with pytest.raises(ConfigError, match="github_repo may only be set in your user file"):
        load_config(work, tmp_path / "no-user-file.toml")
    user = tmp_path / "user.toml"
    user.write_text('github_api_url = "https://ghe.example.com/api/v3"\ngithub_repo = "org/repo"\n')
    (work / ".syncdesk.toml").write_text('ci_gate = "CI / gate"\n')
    config = load_config(work, user)
    assert (config.github_api_url, config.github_repo, config.ci_gate) == (
        "https://ghe.example.com/api/v3",
        "org/repo",
        "CI / gate",
    )


def test_graphql_url_follows_pygithubs_rule() -> None:
    assert graphql_url("https://api.github.com") == "https://api.github.com/graphql"
    assert graphql_url("https://ghe.example.com/api/v3") == "https://ghe.example.com/api/graphql"


def test_markers_identify_a_post_and_survive_hostile_keys() -> None:
    key = content_key("dispositions", "a" * 40, "| F1 | x |")
    assert markers_in(f"text\n\n{marker(key)}\n") == {key}
    assert content_key("dispositions", "a" * 40, "other") != key
    assert "-->" not in marker("x --> <script>")[len("<!-- ") : -len(" -->")]


def test_the_no_token_line_names_the_variable_that_host_reads(tmp_path: Path) -> None:
    env = {"XDG_CONFIG_HOME": str(tmp_path), "GH_TOKEN": "ignored-for-enterprise"}
    with pytest.raises(NoTokenError) as enterprise:
        find_token("https://ghe.example.com/api/v3", environ=env, use_gh=False)
    assert "set GH_ENTERPRISE_TOKEN," in enterprise.value.message
    assert "GH_TOKEN" not in enterprise.value.message  # it is ignored there
    with pytest.raises(NoTokenError) as public:
        find_token(
            "https://api.github.com", environ={"XDG_CONFIG_HOME": str(tmp_path)}, use_gh=False
        )
    assert "set GH_TOKEN," in public.value.message
