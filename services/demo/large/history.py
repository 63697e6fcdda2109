"""The large world's history, planned in Python: every commit of every branch, and their files.

The generated modules are split into pools that never overlap: the conflict
pool (both branches tune the same knob lines), main's everyday pool, dev's,
and the pool of dev's commits after the dev base (which the sync branch later
merges). So every overlap between main and dev is one scripted here, and the
sync merge's conflicts are exactly the scripted ones (checked against
``git merge-tree`` after the build).

The sync branch: the merge (parent 1 the dev base, parent 2 the slice tip)
holding the hand resolutions, a repair commit, a merge of dev's fourth newer
commit into the branch, and a fix on top of that.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass, field

from syncdesk.services.demo import files as small_files
from syncdesk.services.demo.history import (
    BOT,
    DEV_AUTHORS,
    HOUR,
    MAIN_AUTHORS,
    MAINTAINER,
    NOREPLY_PRIYA,
    Identity,
)
from syncdesk.services.demo.large import content as c
from syncdesk.services.demo.large.spec import (
    ARGUMENTS_FILE,
    DEV_BRANCH,
    GOLDEN_FILE,
    HOOKS_FILE,
    LOCK_FILE,
    MAIN_BRANCH,
    SYNC_BRANCH,
    LargeSpec,
)
from syncdesk.services.demo.large.stream import PlannedCommit
from syncdesk.services.demo.scenario import Changes, Edit, merged_files

BASE_TIME = 1_735_689_600  # 2025-01-01 00:00 UTC
MAIN_STEP = 90 * 60  # a main commit every hour and a half, on average
ADD_ADD = ("lumen/moe/token_dispatcher_v2.py", "lumen/experimental/fp8_autocast.py")
CONFTEST = "tests/unit/conftest.py"
DOUBLE = '''"""Shared test doubles for the unit tests."""

from __future__ import annotations


class FakeClock:
    """A monotonic clock that only moves when a test says so."""

    def __init__(self, start: float = 0.0) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        """Move the clock forward."""
        self.now += seconds
'''
ADVANCE_MERGED = 4  # dev commits after the dev base that the sync branch merges

Files = dict[str, str]


@dataclass
class Story:
    """The scripted edits of both branches and the merge that reconciles them."""

    main: list[Edit] = field(default_factory=list)
    dev: list[Edit] = field(default_factory=list)
    resolved: Changes = field(default_factory=dict)  # path -> the merge's text (None: deleted)
    conflicts: dict[str, str] = field(default_factory=dict)  # path -> conflict type
    evil: list[str] = field(default_factory=list)
    repair: Changes = field(default_factory=dict)
    lost_dev_lines: int = 0


@dataclass
class Plan:
    """Every planned commit, in an order git can import, and what the builder needs to know."""

    commits: list[PlannedCommit] = field(default_factory=list)
    snapshots: dict[str, Files] = field(default_factory=dict)  # by key, for the named commits
    slice: list[str] = field(default_factory=list)  # keys, oldest first
    backlog: list[str] = field(default_factory=list)
    advance: list[str] = field(default_factory=list)
    dev_base: str = ""
    story: Story = field(default_factory=Story)
    executable: frozenset[str] = frozenset({small_files.RUN_TESTS})


def _spread(count: int, slots: list[int]) -> dict[int, list[int]]:
    placed: dict[int, list[int]] = {}
    for number in range(count):
        placed.setdefault(slots[(2 * number + 1) * len(slots) // (2 * count)], []).append(number)
    return placed


def _combine(edits: list[Edit]) -> Edit:
    changes: Changes = {}
    for edit in edits:
        changes |= edit.changes
    extra = "".join(f"\n* {edit.subject}" for edit in edits[1:])
    return Edit(edits[0].subject, edits[0].body + ("\n" + extra if extra else ""), changes)


class LargePlanner:
    """Plans the large world for one spec (all choices from one seeded generator)."""

    def __init__(self, spec: LargeSpec) -> None:
        self.spec = spec
        self.rng = random.Random(40_001 + round(spec.scale * 1000))
        paths = c.module_paths(spec.modules_per_package)
        order = sorted(paths)
        self.rng.shuffle(order)
        count = spec.generic_conflicts
        self.conflict_pool = sorted(order[:count])
        self.modify_delete = order[count : count + 2]
        self.evil_pool = sorted(order[count + 2 : count + 6])
        self.advance_pool = order[count + 6 : count + 6 + 2 * spec.dev_advance]
        rest = order[count + 6 + 2 * spec.dev_advance :]
        dev_size = max(12, len(rest) * 3 // 20)
        self.dev_pool, self.main_pool = rest[:dev_size], rest[dev_size:]
        if len(self.main_pool) < 20:
            raise ValueError("too few modules for this spec: raise scale")
        self.base = {path: c.ModuleState.initial(path, i) for i, path in enumerate(paths)}
        self.lock_packages = c.lock_packages(spec.lock_lines)
        self.steps = c.golden_steps(spec.golden_lines)
        self.largest_hunk = min(spec.largest_hunk, self.steps - 10)
        self.prs = 5_200
        self.main_cursor = 0

    # -- the project at the fork point ---------------------------------------------------------

    def fork_files(self) -> Files:
        """Every file when dev forks from main."""
        spec = self.spec
        out: Files = {}
        for path, module in self.base.items():
            out[path] = module.render()
            out[c.test_path(path)] = c.test_module(path)
        for package in c.PACKAGES:
            out[f"lumen/{package}/__init__.py"] = f'"""lumen.{package}."""\n'
        for number in range(spec.sized(100, 10)):
            package = c.PACKAGES[number % len(c.PACKAGES)]
            out[f"configs/recipes/{package}_{number:03d}.yaml"] = c.recipe(package, number)
        for number in range(spec.sized(40, 4)):
            package = c.PACKAGES[number % len(c.PACKAGES)]
            out[f"docs/{package}/notes_{number:02d}.md"] = c.doc_page(package, number)
        out.update(small_files.STATIC)
        out["lumen/__init__.py"] = (
            '"""Lumen: training and inference at scale."""\n\n__version__ = "1.2.0"\n'
        )
        out[small_files.PYPROJECT] = small_files.pyproject("torch>=2.4.1")
        out[small_files.CODEOWNERS] = small_files.codeowners("@lumen-ai/inference-team")
        out[small_files.DOCKERFILE] = small_files.dockerfile("24.12-py3")
        out[small_files.ONCALL] = small_files.oncall_schedule(0)
        out[LOCK_FILE] = c.lock_file(self.lock_packages, {})
        out[GOLDEN_FILE] = c.golden_values(self.steps, {})
        out[ARGUMENTS_FILE] = c.ArgumentsState.initial(spec.argument_groups).render()
        return out

    # -- the scripted story ----------------------------------------------------------------------

    def story(self) -> Story:
        """The scripted edits on both branches and the merge's resolutions."""
        story = Story()
        self._dependencies(story)
        self._golden(story)
        self._arguments(story)
        self._generic(story)
        self._odd_conflicts(story)
        self._evil(story)
        return story

    def _dependencies(self, story: Story) -> None:
        names = [package.name for package in self.lock_packages]
        main_sets = [set(names[k::7]) for k in (0, 3)] + [set(names[5::11])]
        dev_sets = [set(names[0::5]), set(names[2::13])]
        main_versions: dict[str, str] = {}
        for number, chosen in enumerate(main_sets):
            main_versions |= {name: f"1.{number + 1}.0" for name in chosen}
            changes: Changes = {LOCK_FILE: c.lock_file(self.lock_packages, main_versions)}
            if number == 0:
                changes[small_files.PYPROJECT] = small_files.pyproject("torch>=2.5.1")
            story.main.append(
                Edit(
                    (
                        "Bump torch to 2.5.1 and refresh uv.lock",
                        "Refresh uv.lock for the CUDA 12.8 wheels",
                        "Bump the nvidia runtime wheels",
                    )[number],
                    "Regenerated with `uv lock --upgrade-package`; no source change.",
                    changes,
                )
            )
        dev_versions: dict[str, str] = {}
        for number, chosen in enumerate(dev_sets):
            dev_versions |= {name: f"2.0.{number}.dev0" for name in chosen}
            changes = {LOCK_FILE: c.lock_file(self.lock_packages, dev_versions)}
            if number == 0:
                changes[small_files.PYPROJECT] = small_files.pyproject("torch>=2.6.0")
            story.dev.append(
                Edit(
                    ("[dev] Build against torch 2.6", "[dev] Lock the FP8 kernel wheels")[number],
                    "dev tracks the newer toolchain ahead of main.",
                    changes,
                )
            )
        story.main.append(
            Edit(
                "Route inference reviews to the serving on-call",
                "Adds kwatanabe while the serving team is short-staffed.",
                {
                    small_files.CODEOWNERS: small_files.codeowners(
                        "@lumen-ai/inference-team @kwatanabe"
                    )
                },
            )
        )
        dev_owners = small_files.codeowners("@lumen-ai/inference-team @lumen-ai/dev-reviewers")
        story.dev.append(
            Edit(
                "[dev] Ask dev reviewers for inference changes",
                "Experimental inference features need a second pair of eyes.",
                {small_files.CODEOWNERS: dev_owners},
            )
        )
        story.main.append(
            Edit(
                "Update the CI image to PyTorch 25.01",
                "The 25.01 image ships CUDA 12.8.",
                {small_files.DOCKERFILE: small_files.dockerfile("25.01-py3")},
            )
        )
        # Keep-dev: the dependency files stay dev's; the CI image too (an evil change).
        story.resolved[LOCK_FILE] = c.lock_file(self.lock_packages, dev_versions)
        story.resolved[small_files.PYPROJECT] = small_files.pyproject("torch>=2.6.0")
        story.resolved[small_files.CODEOWNERS] = dev_owners
        story.resolved[small_files.DOCKERFILE] = small_files.dockerfile("24.12-py3")
        for path in (LOCK_FILE, small_files.PYPROJECT, small_files.CODEOWNERS):
            story.conflicts[path] = "content"
        story.evil.append(small_files.DOCKERFILE)

    def _golden(self, story: Story) -> None:
        steps, big = self.steps, self.largest_hunk
        small = [(steps * (k + 1) // 10, 5 + 4 * k) for k in range(8)]
        main: dict[tuple[int, int], float] = {(0, step): 0.0125 for step in range(1, big + 1)}
        dev: dict[tuple[int, int], float] = {(0, step): -0.0071 for step in range(1, big + 1)}
        for start, length in small:
            main |= {(4, s): 0.031 for s in range(start, start + length)}
            dev |= {(4, s): -0.017 for s in range(start, start + length)}
        main_only = {(1, s): 0.002 for s in range(steps // 3, steps // 3 + 40)}
        dev_only = {(2, s): -0.004 for s in range(steps // 2, steps // 2 + 40)}
        story.main.append(
            Edit(
                "Regenerate the MoE golden values after the router fix",
                "The router fix moves the loss curve slightly; values from the nightly run.",
                {GOLDEN_FILE: c.golden_values(steps, main | main_only)},
            )
        )
        story.dev.append(
            Edit(
                "[dev] Regenerate golden values with FP8 routing",
                "FP8 routing shifts the loss and the memory figures.",
                {GOLDEN_FILE: c.golden_values(steps, dev | dev_only)},
            )
        )
        story.resolved[GOLDEN_FILE] = c.golden_values(steps, dev_only | main | main_only)
        story.conflicts[GOLDEN_FILE] = "content"

    def _arguments(self, story: Story) -> None:
        groups = self.spec.argument_groups
        base = c.ArgumentsState.initial(groups)
        both = [i for i in range(groups) if i % 3 != 2]  # main and dev change the size default
        dev_only = [i for i in range(groups) if i % 6 == 2]  # dev adds its block, main nothing
        kept = {i for i in both if i % 6 == 1}  # hunks the resolution took from dev
        halves = (both[: len(both) // 2], both[len(both) // 2 :])

        def sizes(delta: int, chosen: set[int]) -> tuple[int, ...]:
            return tuple(s + delta if i in chosen else s for i, s in enumerate(base.sizes))

        main_first = c.ArgumentsState(sizes(1, set(halves[0])), imports=(c.MAIN_IMPORT,))
        main_all = c.ArgumentsState(sizes(1, set(both)), imports=(c.MAIN_IMPORT,))
        story.main.append(
            Edit(
                "Raise the default buffer sizes of the first argument groups",
                "Measured on 256 GPUs; the launcher now checks sys.argv early.",
                {ARGUMENTS_FILE: main_first.render()},
            )
        )
        story.main.append(
            Edit(
                "Raise the default buffer sizes of the remaining argument groups",
                "Second half of the sweep.",
                {ARGUMENTS_FILE: main_all.render()},
            )
        )
        dev_first = c.ArgumentsState(
            sizes(2, set(halves[0])), frozenset(halves[0]), imports=(c.DEV_IMPORT,)
        )
        dev_all = c.ArgumentsState(
            sizes(2, set(both)), frozenset(both) | frozenset(dev_only), imports=(c.DEV_IMPORT,)
        )
        story.dev.append(
            Edit(
                "[dev] Register FP8 dev hooks in the first argument groups",
                "Each group can opt into an experimental hook.",
                {ARGUMENTS_FILE: dev_first.render(), HOOKS_FILE: c.DEV_HOOKS},
            )
        )
        story.dev.append(
            Edit(
                "[dev] Register FP8 dev hooks in every argument group",
                "Larger buffers for FP8 too.",
                {ARGUMENTS_FILE: dev_all.render()},
            )
        )
        resolved_sizes = tuple(
            s + (2 if i in kept else 1) if i in both else s for i, s in enumerate(base.sizes)
        )
        resolved = c.ArgumentsState(resolved_sizes, frozenset(kept), imports=(c.MAIN_IMPORT,))
        story.resolved[ARGUMENTS_FILE] = resolved.render()
        story.conflicts[ARGUMENTS_FILE] = "content"
        dropped = (set(both) - kept) | set(dev_only)
        story.lost_dev_lines = 3 * len(dropped)
        # The repair puts back dev's import, which the kept hunks need.
        repaired = c.ArgumentsState(
            resolved_sizes, frozenset(kept), imports=(c.MAIN_IMPORT, c.DEV_IMPORT)
        )
        story.repair[ARGUMENTS_FILE] = repaired.render()

    def _generic(self, story: Story) -> None:
        for number, path in enumerate(self.conflict_pool):
            base = self.base[path]
            main = base.with_knob(1, base.knobs[1] + 1).with_knob(4, base.knobs[4] + 1)
            dev = base.with_knob(1, base.knobs[1] + 2).with_knob(4, base.knobs[4] + 2)
            name = path.rsplit("/", 1)[1].removesuffix(".py")
            package = path.split("/")[1]
            story.main.append(
                Edit(
                    f"Tune {package}.{name} defaults", "Measured on 64 GPUs.", {path: main.render()}
                )
            )
            story.dev.append(
                Edit(
                    f"[dev] Tune {package}.{name} for FP8",
                    "FP8 wants other sizes.",
                    {path: dev.render()},
                )
            )
            kind = number % 4
            chosen = (
                main,
                dev,
                main.with_knob(4, base.knobs[4] + 2),
                base.with_knob(1, base.knobs[1] + 3).with_knob(4, base.knobs[4] + 3),
            )[kind]
            story.resolved[path] = chosen.render()
            story.conflicts[path] = "content"
            if number in (2, 6):  # the repair fixes two hand resolutions
                story.repair[path] = chosen.with_knob(1, base.knobs[1] + 2).render()
        story.repair[CONFTEST] = DOUBLE

    def _odd_conflicts(self, story: Story) -> None:
        gone, kept = self.modify_delete
        base = self.base[gone]
        story.main.append(
            Edit(
                "Lower the legacy limits",
                "Old limits overflowed.",
                {gone: base.with_knob(2, base.knobs[2] + 1).render()},
            )
        )
        story.dev.append(
            Edit(
                "[dev] Drop a legacy module",
                "Nothing on dev uses it.",
                {gone: None, c.test_path(gone): None},
            )
        )
        story.resolved[gone] = None
        story.conflicts[gone] = "modify/delete"
        other = self.base[kept]
        dev_kept = other.with_knob(3, other.knobs[3] + 2).render()
        story.main.append(
            Edit(
                "Remove a deprecated module",
                "Deprecated since 1.0.",
                {kept: None, c.test_path(kept): None},
            )
        )
        story.dev.append(
            Edit("[dev] Keep the deprecated module for FP8 runs", "Still used.", {kept: dev_kept})
        )
        story.resolved[kept] = dev_kept
        story.conflicts[kept] = "modify/delete"
        for number, path in enumerate(ADD_ADD):
            title = path.rsplit("/", 1)[1].removesuffix(".py")
            experts = 8 << number
            main = c.dispatcher_module(title, experts, 1.25, drop=True)
            dev = c.dispatcher_module(title, 2 * experts, 2.0, drop=False)
            story.main.append(Edit(f"Add {title}", "A first version.", {path: main}))
            story.dev.append(Edit(f"[dev] Add {title}", "dev's version.", {path: dev}))
            resolved = c.dispatcher_module(title, 2 * experts, 1.25, drop=False)
            story.resolved[path] = resolved
            story.conflicts[path] = "add/add"

    def _evil(self, story: Story) -> None:
        for path in self.evil_pool:
            base = self.base[path]
            main = base.with_knob(0, base.knobs[0] + 1)
            story.main.append(
                Edit(
                    f"Shorten the {path.split('/')[1]} windows",
                    "Reacts faster.",
                    {path: main.render()},
                )
            )
            # The resolution follows dev's schedule, which main's value breaks.
            story.resolved[path] = base.with_knob(0, base.knobs[0] + 5).render()
            story.evil.append(path)

    # -- everyday commits ------------------------------------------------------------------------

    def everyday(
        self, states: dict[str, c.ModuleState], pool: list[str], slot: int, dev: bool
    ) -> Edit:
        """Edit module ``slot`` of ``pool`` (cycling): tune a knob, or add a helper."""
        path = pool[slot % len(pool)]
        module = states.get(path, self.base[path])
        name = f"{path.split('/')[1]}.{path.rsplit('/', 1)[1].removesuffix('.py')}"
        if self.rng.random() < 0.75:
            unit = self.rng.randrange(len(module.knobs))
            module = module.with_knob(unit, module.knobs[unit] + self.rng.choice((1, 2, 3)))
            value = c.KNOBS[module.knobs[unit] % len(c.KNOBS)]
            subject = f"Tune the {value} default in {name}"
        else:
            module = module.with_helper(self.rng.randrange(2, 9))
            subject = f"Add a budget helper to {name}"
        states[path] = module
        prefix = "[dev] " if dev else ""
        return Edit(
            prefix + subject, "Found while profiling the nightly run.", {path: module.render()}
        )

    # -- the whole plan --------------------------------------------------------------------------

    def plan(self) -> Plan:
        """Every commit, oldest first (parents always before children)."""
        plan = Plan(story=self.story())
        fork = self.fork_files()
        fork_key = self._prefork(plan, fork)
        fork_time = BASE_TIME + 4 * 24 * HOUR
        main_tip_time = self._main(plan, fork, fork_key, fork_time)
        dev_files = self._dev(plan, fork, fork_key, fork_time, main_tip_time)
        merge_time = main_tip_time + 3 * HOUR
        merged = merged_files(fork, dev_files, plan.snapshots["slice_tip"], plan.story.resolved)
        message = _merge_message(self.spec.slice_size, plan.story)
        parents = (plan.dev_base, plan.slice[-1])
        plan.commits.append(_ours("merge", message, merge_time, parents, _diff(dev_files, merged)))
        story_repair = {path: text for path, text in plan.story.repair.items() if text is not None}
        repaired = {**merged, **story_repair}
        changes = _diff(merged, repaired)
        plan.commits.append(
            _ours("repair", _REPAIR_MESSAGE, merge_time + 5 * HOUR, ("merge",), changes)
        )
        plan.snapshots |= {"merge": merged, "repair": repaired}
        self._advance(plan, dev_files, merge_time)
        return plan

    def _prefork(self, plan: Plan, fork: Files) -> str:
        """The three commits before dev forks; returns the fork point's key."""
        groups: list[tuple[str, Changes]] = [
            ("Initial import of the lumen package", {}),
            ("Add the unit and functional tests", {}),
            ("Add CI, recipes, docs and the lock file", {}),
        ]
        for path, text in sorted(fork.items()):
            index = 0 if path.startswith("lumen/") else 1 if path.startswith("tests/") else 2
            groups[index][1][path] = text
        parent: tuple[str, ...] = ()
        for day, (subject, changes) in enumerate(groups):
            key = f"prefork-{day}"
            who = MAINTAINER.at(BASE_TIME + (day + 1) * 24 * HOUR)
            message = f"{subject}\n\nFirst cut.\n\n{MAINTAINER.signoff}\n"
            ref = f"refs/heads/{MAIN_BRANCH}"
            plan.commits.append(PlannedCommit(key, ref, who, who, message, parent, changes))
            parent = (key,)
        return parent[0]

    def _main(self, plan: Plan, fork: Files, fork_key: str, time: int) -> int:
        """main's backlog, the scripted edits inside the slice; returns the tip's time."""
        spec = self.spec
        bots = {7, spec.slice_size // 2 - 1, spec.slice_size - 4, spec.slice_size + 50}
        free = [i for i in range(spec.slice_size) if i not in bots]
        scripted = _spread(len(plan.story.main), free)
        states: dict[str, c.ModuleState] = {}
        files = dict(fork)
        parent = (fork_key,)
        for index in range(spec.main_commits):
            time += MAIN_STEP // 2 + self.rng.randrange(MAIN_STEP)
            key = f"main-{index}"
            if index in bots:  # the on-call bot: no pull request, no sign-off
                oncall: Changes = {small_files.ONCALL: small_files.oncall_schedule(index)}
                edit = Edit("chore: rotate oncall schedule", "Rotates the on-call.", oncall)
                commit = self._commit(key, MAIN_BRANCH, edit, time, (BOT,), parent, bot=True)
            else:
                edits = [plan.story.main[n] for n in scripted.get(index, [])]
                for _ in range(3 if index < spec.slice_size else 2):
                    edits.append(self.everyday(states, self.main_pool, self.main_cursor, False))
                    self.main_cursor += 1
                author = NOREPLY_PRIYA if index == spec.slice_size // 3 else None
                edit = _combine(edits)
                commit = self._commit(
                    key, MAIN_BRANCH, edit, time, MAIN_AUTHORS, parent, author=author
                )
            plan.commits.append(commit)
            plan.backlog.append(key)
            _apply(files, commit.changes)
            parent = (key,)
            if index == spec.slice_size - 1:
                plan.snapshots["slice_tip"] = dict(files)
        plan.slice = plan.backlog[: spec.slice_size]
        return time

    def _dev(self, plan: Plan, fork: Files, fork_key: str, start: int, end: int) -> Files:
        """dev's own commits up to the dev base; returns the dev base's files."""
        count = self.spec.dev_commits
        scripted = _spread(len(plan.story.dev), list(range(count)))
        states: dict[str, c.ModuleState] = {}
        files = dict(fork)
        parent = (fork_key,)
        for index in range(count):
            time = start + (index + 1) * (end - start) // (count + 1) + self.rng.randrange(HOUR)
            edits = [plan.story.dev[n] for n in scripted.get(index, [])]
            edits.append(self.everyday(states, self.dev_pool, index, True))
            key = f"dev-{index}"
            commit = self._commit(key, DEV_BRANCH, _combine(edits), time, DEV_AUTHORS, parent)
            plan.commits.append(commit)
            _apply(files, commit.changes)
            parent = (key,)
        plan.dev_base = parent[0]
        plan.snapshots["dev_base"] = dict(files)
        return files

    def _advance(self, plan: Plan, dev_files: Files, merge_time: int) -> None:
        """dev moves on; the maintainer merges its fourth commit into the sync branch, fixes it."""
        files = dict(dev_files)
        parent = (plan.dev_base,)
        states: dict[str, c.ModuleState] = {}
        for index in range(self.spec.dev_advance):
            time = merge_time + (6 + 2 * index + (6 if index >= ADVANCE_MERGED else 0)) * HOUR
            edits = [
                self.everyday(states, self.advance_pool, slot, True)
                for slot in (2 * index, 2 * index + 1)
            ]
            key = f"advance-{index}"
            commit = self._commit(key, DEV_BRANCH, _combine(edits), time, DEV_AUTHORS, parent)
            plan.commits.append(commit)
            plan.advance.append(key)
            _apply(files, commit.changes)
            parent = (key,)
            if index != ADVANCE_MERGED - 1:
                continue
            repaired = plan.snapshots["repair"]
            merged = merged_files(dev_files, repaired, files, {})
            message = f"Merge branch '{DEV_BRANCH}' into {SYNC_BRANCH}\n\n{MAINTAINER.signoff}\n"
            changes = _diff(repaired, merged)
            plan.commits.append(
                _ours("dev_merge", message, time + 2 * HOUR, ("repair", key), changes)
            )
            fixed = self.advance_pool[0]
            fix: Changes = {fixed: states[fixed].with_helper(7).render()}
            message = (
                "Fix the helpers the dev merge brought in\n\n"
                f"{fixed} needs a budget helper for the merged dev hooks.\n\n"
                f"{MAINTAINER.signoff}\n"
            )
            plan.commits.append(_ours("head", message, time + 3 * HOUR, ("dev_merge",), fix))
            head = {**merged, fixed: states[fixed].with_helper(7).render()}
            plan.snapshots |= {"dev_merge": merged, "head": head}

    def _commit(
        self,
        key: str,
        branch: str,
        edit: Edit,
        time: int,
        people: tuple[Identity, ...],
        parent: tuple[str, ...],
        *,
        author: Identity | None = None,
        bot: bool = False,
    ) -> PlannedCommit:
        """A human's squash-merged pull request (signed off), or a bot's push (neither)."""
        person = author or self.rng.choice(people)
        signer = MAIN_AUTHORS[4] if person is NOREPLY_PRIYA else person
        opened = time - self.rng.randrange(2 * HOUR, 48 * HOUR)
        title = edit.subject
        if not bot:
            self.prs += self.rng.randrange(1, 4)
            title = f"{title} (#{self.prs})"
        parts = [title, edit.body] + ([] if bot else [signer.signoff])
        message = "\n\n".join(part for part in parts if part) + "\n"
        return PlannedCommit(
            key,
            f"refs/heads/{branch}",
            person.at(opened),
            person.at(time),
            message,
            parent,
            edit.changes,
        )


_REPAIR_MESSAGE = (
    f"Repair {SYNC_BRANCH}: restore the dev hooks import, fix two resolutions\n\n"
    f"- {ARGUMENTS_FILE}: the merge dropped dev's dev_hooks import, which the\n"
    "  kept dev hunks call.\n"
    "- two hand-resolved modules: take dev's chunk size, as the FP8 path needs.\n"
    f"- {CONFTEST}: add the FakeClock double main's tests expect.\n\n"
    f"{MAINTAINER.signoff}\n"
)


def _ours(
    key: str, message: str, time: int, parents: tuple[str, ...], changes: Changes
) -> PlannedCommit:
    """A commit of the maintainer's on the sync branch."""
    who = MAINTAINER.at(time)
    return PlannedCommit(key, f"refs/heads/{SYNC_BRANCH}", who, who, message, parents, changes)


def _merge_message(size: int, story: Story) -> str:
    listed = "".join(f"\t{path}\n" for path in sorted(story.conflicts))
    return (
        f"Merge main into dev: the oldest {size} commits of dev..main\n\n"
        f"Conflicts resolved by hand:\n{listed}\n{MAINTAINER.signoff}\n"
    )


def _apply(files: Files, changes: Mapping[str, str | None]) -> None:
    for path, text in changes.items():
        if text is None:
            files.pop(path, None)
        else:
            files[path] = text


def _diff(old: Files, new: Files) -> Changes:
    changes: Changes = {path: None for path in old if path not in new}
    changes |= {path: text for path, text in new.items() if old.get(path) != text}
    return changes
