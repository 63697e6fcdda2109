"""Build (or reuse) the large world: plan in Python, one ``git fast-import``, then check with git.

The pipeline: :class:`~syncdesk.services.demo.large.history.LargePlanner`
plans every commit and file; :class:`~syncdesk.services.demo.large.stream.FastImportStream`
hands them to git in one process (git builds the trees and the pack); then
``git merge-tree`` must find exactly the scripted conflicts between the sync
merge's parents, the merge must differ from merge-tree's result only in the
conflicted files and the scripted evil ones, the merge of dev on top must be
what git itself makes of it, and dev's tip must merge into the head cleanly.

Like the small demo (:mod:`syncdesk.services.demo.world`): built in a
temporary directory beside the target and renamed into place, ``facts.json``
written last, reused only when it names this builder version and spec and the
branches still point where it says; git runs in the small demo's sealed
environment (:func:`~syncdesk.services.demo.built.sealed_environment`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from syncdesk.services.conflicts.merge_tree import group_conflicts, merge_tree
from syncdesk.services.demo.built import Builder, build_or_reuse, sealed_environment
from syncdesk.services.demo.built import reusable as reused_world
from syncdesk.services.demo.facts import DemoBuildError
from syncdesk.services.demo.history import MAINTAINER
from syncdesk.services.demo.large.history import ADVANCE_MERGED, CONFTEST, LargePlanner, Plan
from syncdesk.services.demo.large.spec import (
    ARGUMENTS_FILE,
    DEV_BRANCH,
    GOLDEN_FILE,
    HOOKS_FILE,
    LOCK_FILE,
    MAIN_BRANCH,
    NAME,
    OWNER,
    PR_NUMBER,
    SYNC_BRANCH,
    CitedSpan,
    LargeFacts,
    LargeSpec,
)
from syncdesk.services.demo.large.stream import FastImportStream
from syncdesk.services.git.objects import scratch_objects
from syncdesk.services.git.runner import Git, init_repository
from syncdesk.services.git.trees import changed_paths

BUILDER_VERSION = 1
DEFAULT_SPEC = LargeSpec()  # frozen: safe as a default argument
RANGES_PER_FILE = 4


def build_large_world(
    directory: Path,
    spec: LargeSpec = DEFAULT_SPEC,
    *,
    on_build: Callable[[], object] | None = None,
) -> LargeFacts:
    """Build the large world in ``directory/"repo"``, or reuse it, and return its facts.

    How a world is reused, installed and locked is :mod:`syncdesk.services.demo.built`.
    ``on_build`` is called once a build starts (not when the world is reused).
    """
    return build_or_reuse(directory, spec, BUILDER, on_build)


def reusable(directory: Path, spec: LargeSpec = DEFAULT_SPEC) -> LargeFacts | None:
    """The facts of the world already built in ``directory`` for ``spec``, or None."""
    return reused_world(directory.resolve(), spec, BUILDER)


def _build(repo: Path, home: Path, spec: LargeSpec) -> LargeFacts:
    planner = LargePlanner(spec)
    plan = planner.plan()
    git = init_repository(repo, MAIN_BRANCH, env=sealed_environment(home, repo))
    stream = FastImportStream(plan.executable)
    stream.add_all(plan.commits)
    shas = stream.run(git, home / "marks")
    git.run(["symbolic-ref", "HEAD", f"refs/heads/{SYNC_BRANCH}"])
    # The repository is brand new and ours: populate index and work tree from HEAD.
    git.run(["read-tree", "-u", "--reset", "HEAD"])
    git.run(["config", "user.name", MAINTAINER.name])
    git.run(["config", "user.email", MAINTAINER.email])
    _verify(git, plan, shas)
    snapshots = plan.snapshots
    head = snapshots["head"]
    brought = plan.advance[:ADVANCE_MERGED]
    return LargeFacts(
        repo=repo,
        scale=spec.scale,
        main_branch=MAIN_BRANCH,
        dev_branch=DEV_BRANCH,
        sync_branch=SYNC_BRANCH,
        main_tip=shas[plan.backlog[-1]],
        dev_tip=shas[plan.advance[-1]],
        dev_base=shas[plan.dev_base],
        slice_tip=shas[plan.slice[-1]],
        merge=shas["merge"],
        repair=shas["repair"],
        dev_merge=shas["dev_merge"],
        head=shas["head"],
        dev_merged=shas[brought[-1]],
        slice=tuple(shas[key] for key in plan.slice),
        backlog=len(plan.backlog),
        dev_brought=tuple(shas[key] for key in brought),
        dev_advanced=tuple(shas[key] for key in plan.advance[len(brought) :]),
        conflicts=tuple(sorted(plan.story.conflicts)),
        conflict_types=dict(sorted(plan.story.conflicts.items())),
        evil_merge_files=tuple(sorted(plan.story.evil)),
        files=len(head),
        merge_changed_files=sum(
            1
            for path in set(snapshots["dev_base"]) | set(snapshots["merge"])
            if snapshots["dev_base"].get(path) != snapshots["merge"].get(path)
        ),
        lock_file=LOCK_FILE,
        lock_lines=head[LOCK_FILE].count("\n"),
        golden_file=GOLDEN_FILE,
        golden_lines=head[GOLDEN_FILE].count("\n"),
        largest_hunk=planner.largest_hunk,
        arguments_file=ARGUMENTS_FILE,
        arguments_lines=head[ARGUMENTS_FILE].count("\n"),
        lost_dev_lines=plan.story.lost_dev_lines,
        cited=citations(plan, planner),
        owner=OWNER,
        name=NAME,
        pr_number=PR_NUMBER,
    )


BUILDER: Builder[LargeFacts, LargeSpec] = Builder(
    what="large world",
    version=BUILDER_VERSION,
    build=_build,
    decode=LargeFacts.from_json,
    moved=lambda facts, repo: replace(facts, repo=repo),
    tips=lambda f: {f.main_branch: f.main_tip, f.dev_branch: f.dev_tip, f.sync_branch: f.head},
)


def _verify(git: Git, plan: Plan, shas: dict[str, str]) -> None:
    """Check the scripted story against git itself (see the module docstring)."""
    story = plan.story
    dev_base, slice_tip = shas[plan.dev_base], shas[plan.slice[-1]]
    with scratch_objects(git) as env:
        found = merge_tree(git, dev_base, slice_tip, env)
        conflicts = {group.path: group.type for group in group_conflicts(found)}
        if conflicts != story.conflicts:
            raise DemoBuildError(f"merge-tree conflicts {conflicts} != scripted {story.conflicts}")
        changed = set(changed_paths(git, found.tree, f"{shas['merge']}^{{tree}}", env))
        if changed - set(conflicts) != set(story.evil):
            raise DemoBuildError(f"evil merge files {sorted(changed - set(conflicts))} != scripted")
        dev_merge = merge_tree(git, shas["repair"], shas[plan.advance[ADVANCE_MERGED - 1]], env)
        wanted = git.text("rev-parse", f"{shas['dev_merge']}^{{tree}}").strip()
        if not dev_merge.clean or dev_merge.tree != wanted:
            raise DemoBuildError("the merge of dev on top is not what git makes of it")
        if not merge_tree(git, shas["head"], shas[plan.advance[-1]], env).clean:
            raise DemoBuildError("dev's tip does not merge cleanly into the head")


def citations(plan: Plan, planner: LargePlanner) -> tuple[CitedSpan, ...]:
    """The review's cited ranges: four in each of 16 files the sync changed, at the head.

    Where a reviewer looks: the first and the last line that differ from the dev
    base, the first that differs from the slice tip, and the middle of the file.
    """
    paths = [
        ARGUMENTS_FILE,
        *planner.conflict_pool[:7],
        CONFTEST,
        *planner.evil_pool[:2],
        planner.advance_pool[0],
        planner.advance_pool[2],
        *planner.main_pool[:2],
        HOOKS_FILE,
    ]
    head = plan.snapshots["head"]
    dev_base, slice_tip = plan.snapshots["dev_base"], plan.snapshots["slice_tip"]
    spans: list[CitedSpan] = []
    for number, path in enumerate(paths, start=1):
        lines = head[path].split("\n")[:-1]
        before, main = dev_base.get(path, "").split("\n"), slice_tip.get(path, "").split("\n")
        count = len(lines)
        starts: list[int] = []
        for start in (
            _first_change(lines, before),
            _first_change(lines, main),
            count + 1 - _first_change(lines[::-1], before[-2::-1]),
            count // 2,
        ):
            start = max(1, min(count, start))
            while start in starts and start < count:
                start += 1
            starts.append(start)
        for k, start in enumerate(starts):
            end = min(count, start + 2 + (number + 3 * k) % 7)
            spans.append(CitedSpan(f"F{number}", path, start, end))
    return tuple(spans)


def _first_change(lines: list[str], other: list[str]) -> int:
    """The 1-based number of the first of ``lines`` that ``other`` does not have there."""
    for index, line in enumerate(lines):
        if index >= len(other) or other[index] != line:
            return index + 1
    return 1
