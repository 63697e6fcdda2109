"""Build a world once, reuse it after: the plumbing the demo world and the large world share.

A world lives in a directory: ``repo/`` (the git repository) and
``facts.json`` (what the builder made, with its version and the spec it was
made for). Building is slow, so a world is reused when its facts were written
by the same builder version for an equal spec and its branches still point
where the facts say; otherwise it is rebuilt from scratch (the builders are
deterministic: the same SHAs).

- Concurrent builds of one directory take turns on ``.lock``
  (:func:`syncdesk.services.git.atomic.locked`: a killed holder leaves no lock).
- A build happens in a ``.build-*`` staging directory; a killed build's staging
  is removed by the next one.
- Installing removes the facts first and writes them back last
  (:func:`syncdesk.services.git.atomic.write_json`: fsynced, renamed into place),
  so at every instant a directory with facts holds the repository they describe:
  a crash can only cause a rebuild.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, ClassVar, Generic, Protocol, TypeVar

from syncdesk.services.demo.facts import DemoBuildError
from syncdesk.services.errors import GitCommandError, ServiceError, os_reason
from syncdesk.services.git.atomic import StorageError, fsync_directory, locked, write_json
from syncdesk.services.git.runner import Git

FACTS_FILE = "facts.json"
REPO_DIR = "repo"


class Facts(Protocol):
    """What a builder returns: where its repository is, and its JSON form."""

    @property
    def repo(self) -> Path: ...

    def to_json(self) -> dict[str, object]: ...


class Spec(Protocol):
    """What a builder is asked for: a dataclass that can say whether it makes sense."""

    __dataclass_fields__: ClassVar[dict[str, Any]]

    def validate(self) -> None: ...


F = TypeVar("F", bound=Facts)
S = TypeVar("S", bound=Spec)


@dataclass(frozen=True, slots=True)
class Builder(Generic[F, S]):
    """One kind of world: how it is named, built, read back and checked."""

    what: str  # "demo world", for the one line a failure prints
    version: int  # bumped when the builder's output changes: older worlds are rebuilt
    build: Callable[[Path, Path, S], F]  # (repo directory, sealed home, spec) -> facts
    decode: Callable[[dict[str, Any]], F]  # facts.json's "facts" back into facts
    moved: Callable[[F, Path], F]  # the same facts for the repository at another path
    tips: Callable[[F], dict[str, str]]  # branch -> the SHA the facts say it is at


def build_or_reuse(
    directory: Path, spec: S, builder: Builder[F, S], on_build: Callable[[], object] | None
) -> F:
    """The world ``builder`` makes for ``spec`` in ``directory``: reused, else built.

    ``on_build`` is called once a build starts (not when the world is reused),
    so a caller says "building" only when it is true. Raises
    :class:`DemoBuildError` with one line when the directory cannot be made or
    written, or git fails.
    """
    spec.validate()
    directory = directory.resolve()
    try:
        directory.mkdir(parents=True, exist_ok=True)
        with locked(directory / ".lock"):
            reused = reusable(directory, spec, builder)
            if reused is not None:
                return reused
            if on_build is not None:
                on_build()
            return _build(directory, spec, builder)
    except GitCommandError as error:
        raise DemoBuildError(error.message) from error
    except StorageError as error:
        where = f"cannot build the {builder.what} in {directory}"
        raise DemoBuildError(f"{where}: {error.message}") from None
    except OSError as error:  # a directory that cannot be made or written, a full disk
        reason = os_reason(error)
        raise DemoBuildError(f"cannot build the {builder.what} in {directory}: {reason}") from None


def reusable(directory: Path, spec: S, builder: Builder[F, S]) -> F | None:
    """The facts of the world already built in ``directory`` for ``spec``, or None."""
    try:
        saved = json.loads((directory / FACTS_FILE).read_text(encoding="utf-8"))
        if saved.get("builder_version") != builder.version or saved.get("spec") != asdict(spec):
            return None
        facts = builder.moved(builder.decode(saved["facts"]), directory / REPO_DIR)
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None
    if not (facts.repo / ".git").is_dir():
        return None
    tips = builder.tips(facts)
    try:
        git = Git(facts.repo, env=sealed_environment(directory, facts.repo))
        # (--verify takes a single revision; without it a missing ref fails the same way.)
        run = git.run(["rev-parse", *(f"refs/heads/{name}" for name in tips)], check=False)
    except ServiceError:
        return None
    if run.status != 0 or run.text.split() != list(tips.values()):
        return None
    return facts


def sealed_environment(home: Path, repo: Path) -> dict[str, str]:
    """What the builder adds to git's environment so that the machine's git setup cannot matter.

    No system, global or environment-given configuration (``core.autocrlf``,
    ``init.templateDir``, attributes files with filters...), an empty HOME,
    and the repository's index and object store named explicitly, so that
    variables inherited from a git hook (``GIT_INDEX_FILE``,
    ``GIT_OBJECT_DIRECTORY``...) cannot point git elsewhere. The runner
    itself names the git dir and work tree on every command.
    """
    git_dir = repo / ".git"
    return {
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_CONFIG_COUNT": "0",
        "GIT_CONFIG_PARAMETERS": "",
        "GIT_COMMON_DIR": str(git_dir),
        "GIT_INDEX_FILE": str(git_dir / "index"),
        "GIT_OBJECT_DIRECTORY": str(git_dir / "objects"),
        "GIT_ALTERNATE_OBJECT_DIRECTORIES": "",
        "TZ": "UTC",
    }


def _build(directory: Path, spec: S, builder: Builder[F, S]) -> F:
    """Build in a staging directory, then install the repository and its facts."""
    for orphan in directory.glob(".build-*"):  # left by a killed build
        shutil.rmtree(orphan, ignore_errors=True)
    staging = Path(tempfile.mkdtemp(prefix=".build-", dir=directory))
    try:
        facts = builder.moved(
            builder.build(staging / REPO_DIR, staging, spec), directory / REPO_DIR
        )
        # Facts go first and come back last: at every instant in between, the
        # directory holds no facts.json, so a crash can only cause a rebuild.
        (directory / FACTS_FILE).unlink(missing_ok=True)
        target = directory / REPO_DIR
        if target.exists():
            shutil.rmtree(target)
        os.replace(staging / REPO_DIR, target)  # a git repository is relocatable as is
        fsync_directory(directory)
        saved = {"builder_version": builder.version, "spec": asdict(spec), "facts": facts.to_json()}
        write_json(directory / FACTS_FILE, saved)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return facts
