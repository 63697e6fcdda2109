"""Build (or reuse) the demo world: a repository shaped like a real main -> dev sync.

The pipeline: make the project (project.py), script the conflicts
(scenario.py), plan every commit (history.py), compute every object in
Python (objects.py), then hand them to git in one pack and check that git
agrees: SHAs, the merge's conflicts, the evil merges, dev's clean merge.
A dozen git processes in all, run by the product's own runner
(:class:`~syncdesk.services.git.runner.Git`) and read with its parsers, in an
environment sealed from the machine's git configuration
(:func:`~syncdesk.services.demo.built.sealed_environment`).

The repository is built in a temporary directory beside the target and
renamed into place; ``facts.json`` is written last, atomically. A world is
reused only when ``facts.json`` names this builder version and spec and the
branches still point where it says, so an interrupted build is never reused.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from syncdesk.services.conflicts.merge_tree import group_conflicts, merge_tree
from syncdesk.services.demo import files
from syncdesk.services.demo.built import Builder, build_or_reuse, sealed_environment
from syncdesk.services.demo.facts import DemoBuildError, DemoFacts, WorldSpec
from syncdesk.services.demo.history import (
    HOUR,
    MAINTAINER,
    CommitPlan,
    Planner,
    merge_message,
    repair_message,
)
from syncdesk.services.demo.objects import ObjectStore, ssh_signature
from syncdesk.services.demo.project import make_project
from syncdesk.services.demo.scenario import Script, build_scenario, merged_files
from syncdesk.services.git.objects import read_objects, scratch_objects
from syncdesk.services.git.runner import Git, init_repository
from syncdesk.services.git.trees import changed_paths
from syncdesk.services.sync.config import DEFAULT_KEEP_DEV
from syncdesk.services.sync.dco import app_signoffs, signoff_matches
from syncdesk.services.sync.models import Person

BUILDER_VERSION = 1
DEMO_SYNC_BRANCH = "main2dev/demo"
MAIN_BRANCH = "main"
DEV_BRANCH = "dev"
EXECUTABLE = frozenset({files.RUN_TESTS})
_PR = re.compile(r"\(#(\d+)\)$")

DEFAULT_SPEC = WorldSpec()  # frozen: safe to share as a default argument

Files = dict[str, str]


def build_world(
    directory: Path,
    spec: WorldSpec = DEFAULT_SPEC,
    *,
    on_build: Callable[[], object] | None = None,
) -> DemoFacts:
    """Build the demo repository in ``directory/"repo"``, or reuse it, and return its facts.

    How a world is reused, installed and locked is :mod:`syncdesk.services.demo.built`.
    ``on_build`` is called once a build starts (not when the world is reused),
    so a caller says "building" only when it is true.
    """
    return build_or_reuse(directory, spec, BUILDER, on_build)


class _Chain:
    """Writes planned commits one after another, tracking the snapshot."""

    def __init__(self, store: ObjectStore, files: Files) -> None:
        self.store, self.files = store, dict(files)

    def write(self, plan: CommitPlan, parents: tuple[str, ...]) -> str:
        for path, text in plan.changes.items():
            if text is None:
                del self.files[path]
            else:
                self.files[path] = text
        tree = self.store.tree(self.files, EXECUTABLE)
        signature = None
        if plan.signed:
            payload = f"{tree} {parents} {plan.message}".encode()
            signature = ssh_signature(payload, plan.committer.email)
        return self.store.commit(
            tree, parents, plan.author, plan.committer, plan.message, gpgsig=signature
        )

    def run(self, plans: list[CommitPlan], parent: str | None) -> list[str]:
        shas = []
        for plan in plans:
            parent = self.write(plan, (parent,) if parent else ())
            shas.append(parent)
        return shas


def _build(repo: Path, home: Path, spec: WorldSpec) -> DemoFacts:
    project = make_project(spec.scale, random.Random(7919 * spec.scale))
    story = build_scenario(project, spec.scale)
    history = Planner(project, story, spec).plan()
    store = ObjectStore()
    main = _Chain(store, {})
    prefork = main.run(history.prefork, None)
    fork = dict(main.files)
    main_shas = main.run(history.main[: spec.slice_size], prefork[-1])
    slice_files = dict(main.files)
    main_shas += main.run(history.main[spec.slice_size :], main_shas[-1])
    dev = _Chain(store, fork)
    dev_shas = dev.run(history.dev, prefork[-1])
    dev_base, dev_base_files = dev_shas[-1], dict(dev.files)
    advanced = dev.run(history.advance, dev_base)
    slice_tip = main_shas[spec.slice_size - 1]

    sync = _Chain(store, merged_files(fork, dev_base_files, slice_files, story.merged))
    _check_resolutions(story, sync.files, dev_base_files, slice_files)
    who = MAINTAINER.at(history.merge_time)
    paths = [fact.path for fact in story.conflicts]
    message = merge_message(spec.slice_size, main_shas[0], slice_tip, dev_base, paths)
    merge = sync.write(CommitPlan(who, who, message, {}), (dev_base, slice_tip))
    fixer = MAINTAINER.at(history.merge_time + 5 * HOUR)
    repair_plan = CommitPlan(
        fixer, fixer, repair_message(DEMO_SYNC_BRANCH, story.repair), story.repair.changes
    )
    repair = sync.write(repair_plan, (merge,))

    tips = {
        MAIN_BRANCH: main_shas[-1],
        DEV_BRANCH: advanced[-1] if advanced else dev_base,
        DEMO_SYNC_BRANCH: repair,
    }
    git = _write_repository(repo, home, store, tips)
    clean = _verify(git, story, dev_base, slice_tip, merge, tips[DEV_BRANCH])
    slice_shas = main_shas[: spec.slice_size]
    plans = dict(zip(main_shas, history.main, strict=True))
    return DemoFacts(
        repo=repo,
        main_branch=MAIN_BRANCH,
        dev_branch=DEV_BRANCH,
        sync_branch=DEMO_SYNC_BRANCH,
        main_tip=main_shas[-1],
        dev_tip=tips[DEV_BRANCH],
        dev_base=dev_base,
        slice_tip=slice_tip,
        merge=merge,
        repair=repair,
        slice=tuple(slice_shas),
        remaining=spec.main_commits - spec.slice_size,
        unsigned=tuple(sha for sha in slice_shas if not app_signoffs(plans[sha].message)),
        mismatched_signoff=tuple(sha for sha in slice_shas if _mismatched(plans[sha])),
        signed=tuple(sha for sha in slice_shas if plans[sha].signed),
        prs={sha: _pr(plans[sha]) for sha in slice_shas},
        dev_advanced=tuple(advanced),
        dev_merges_cleanly=clean,
        conflicts=tuple(story.conflicts),
        evil_merge_files=tuple(sorted(story.evil)),
        keep_dev=DEFAULT_KEEP_DEV,
        protected_identical={
            path: sync.files.get(path) == dev_base_files.get(path) for path in DEFAULT_KEEP_DEV
        },
    )


BUILDER: Builder[DemoFacts, WorldSpec] = Builder(
    what="demo world",
    version=BUILDER_VERSION,
    build=_build,
    decode=DemoFacts.from_json,
    moved=lambda facts, repo: replace(facts, repo=repo),
    tips=lambda f: {f.main_branch: f.main_tip, f.dev_branch: f.dev_tip, f.sync_branch: f.repair},
)


def _check_resolutions(story: Script, merged: Files, ours: Files, theirs: Files) -> None:
    """Each conflict's resolution label must describe the merged file (tests re-check in git)."""
    for fact in story.conflicts:
        result, dev, main = merged.get(fact.path), ours.get(fact.path), theirs.get(fact.path)
        holds = {
            "dev": result == dev is not None,
            "main": result == main is not None,
            "deleted": result is None,
        }.get(fact.resolution, result not in (None, dev, main))
        if not holds:
            raise DemoBuildError(f"{fact.path} is not resolved as {fact.resolution!r}")


def _mismatched(plan: CommitPlan) -> bool:
    values = app_signoffs(plan.message)
    author = Person(plan.author.name, plan.author.email)
    committer = Person(plan.committer.name, plan.committer.email)
    return bool(values) and not signoff_matches(values, author, committer)


def _pr(plan: CommitPlan) -> int | None:
    match = _PR.search(plan.message.split("\n", 1)[0])
    return int(match.group(1)) if match else None


def _write_repository(repo: Path, home: Path, store: ObjectStore, tips: dict[str, str]) -> Git:
    git = init_repository(repo, MAIN_BRANCH, env=sealed_environment(home, repo))
    # One pack, one process; --strict makes git fsck every object on the way in.
    git.run(["index-pack", "--stdin", "--strict"], input=store.pack())
    # git re-hashed everything; every SHA we computed must name what we meant.
    for sha, found in read_objects(git, (), infos=list(store.objects)).items():
        kind, body = store.objects[sha]
        if found is None or (found.type, found.size) != (kind, len(body)):
            raise DemoBuildError(f"git disagrees about object {sha}: {found}")
    updates = "".join(f"create refs/heads/{name} {sha}\n" for name, sha in tips.items())
    git.run(["update-ref", "-m", "demo world", "--stdin"], input=updates.encode())
    git.run(["symbolic-ref", "HEAD", f"refs/heads/{DEMO_SYNC_BRANCH}"])
    # The repository is brand new and ours: populate index and work tree from HEAD.
    git.run(["read-tree", "-u", "--reset", "HEAD"])
    git.run(["config", "user.name", MAINTAINER.name])
    git.run(["config", "user.email", MAINTAINER.email])
    return git


def _verify(
    git: Git, story: Script, dev_base: str, slice_tip: str, merge: str, dev_tip: str
) -> bool:
    """Check the scripted story against git itself; return whether dev's tip merges cleanly."""
    with scratch_objects(git) as env:
        found = merge_tree(git, dev_base, slice_tip, env)
        conflicts = {group.path: group.type for group in group_conflicts(found)}
        expected = {fact.path: fact.type for fact in story.conflicts}
        if conflicts != expected:
            raise DemoBuildError(f"merge-tree conflicts {conflicts} != scripted {expected}")
        changed = set(changed_paths(git, found.tree, f"{merge}^{{tree}}", env))
        if changed - set(expected) != set(story.evil):
            raise DemoBuildError(f"evil merge files {sorted(changed - set(expected))} != scripted")
        return merge_tree(git, f"refs/heads/{DEMO_SYNC_BRANCH}", dev_tip, env).clean
