"""What a new user meets first: the version, the demo's messages, the install, the docs' links."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from importlib import metadata
from pathlib import Path
from typing import Any

import pytest

from syncdesk.tui.cli.run import main

ROOT = Path(__file__).resolve().parent.parent


def test_version_prints_the_installed_version(capsys: Any) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["--version"])
    assert exited.value.code == 0
    assert capsys.readouterr().out == f"syncdesk {metadata.version('syncdesk')}\n"


def test_version_through_the_installed_command() -> None:
    found = subprocess.run(
        [sys.executable, "-m", "syncdesk", "--version"], capture_output=True, text=True, check=True
    )
    assert found.stdout.startswith("syncdesk ") and found.stderr == ""


def test_the_demo_says_building_only_when_it_builds(tmp_path: Path, capsys: Any) -> None:
    where = tmp_path / "demo"
    assert main(["demo", "--dir", str(where), "--no-open"]) == 0
    first = capsys.readouterr()
    assert first.err == f"Building the demo world in {where} ...\n"
    assert first.out == f"{where / 'repo'}\n"
    assert main(["demo", "--dir", str(where), "--no-open"]) == 0
    again = capsys.readouterr()
    assert again.err == ""  # reused: nothing is being built
    assert again.out == first.out


def test_the_license_is_an_spdx_string_so_setuptools_does_not_warn() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert project["project"]["license"] == "Apache-2.0"
    # The string form needs setuptools 77 (older ones reject it, newer warn about a table).
    assert project["build-system"]["requires"] == ["setuptools>=77"]


def test_the_readme_says_how_its_commands_work_after_make() -> None:
    readme = (ROOT / "README.md").read_text()
    using = readme[readme.index("## Using it") :]
    assert ". .venv/bin/activate" in using[:600] and ".venv/bin/syncdesk" in using[:600]
    assert "syncdesk --version" in using[:600]


def _references(text: str) -> set[str]:
    links = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text)
    named = re.findall(r"`([A-Za-z0-9_./-]+\.md)`", text)
    return {link for link in links + named if "://" not in link}


@pytest.mark.parametrize(
    "page", ["README.md", *sorted(p.name for p in (ROOT / "docs").glob("*.md"))]
)
def test_every_document_a_page_points_at_is_in_the_repository(page: str) -> None:
    path = ROOT / page if page == "README.md" else ROOT / "docs" / page
    missing = [
        ref
        for ref in sorted(_references(path.read_text()))
        if not (path.parent / ref).exists() and not (ROOT / ref).exists()
    ]
    assert missing == [], f"{page} points at files this repository does not have"


def test_the_readme_shows_every_screen_the_snapshots_draw() -> None:
    readme = (ROOT / "README.md").read_text()
    shown = set(
        re.findall(r"!\[[^\]]*\]\(tests/__snapshots__/test_snapshots/([\w.]+\.svg)\)", readme)
    )
    drawn = {p.name for p in (ROOT / "tests/__snapshots__/test_snapshots").glob("*.svg")}
    wide = {name for name in drawn if "_at_80x24" not in name}
    assert wide <= shown, f"screens the README does not show: {sorted(wide - shown)}"
    assert shown <= drawn
