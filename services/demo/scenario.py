"""The scripted part of the story: the edits that make the sync merge hard.

main's and dev's everyday commits never touch the same file (project.py), so
the only overlaps are the ones written here, each with a known outcome:

- content conflicts: both branches change the *same line* (a knob, an import,
  a dependency pin, an owner list), so git is certain to conflict;
- unions: both branches append at the same place (end of file);
- modify/delete both ways, and add/add of one new module;
- a clean both-sided file (different units change: git auto-merges it);
- evil merges: files only main changed, which the resolution changes again
  (the keep-dev Dockerfile, and a call to a function dev renamed).

For every path both sides changed, ``merged`` says what the merge commit's
tree holds; the builder checks all of it against ``git merge-tree``.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from syncdesk.services.demo import files, handwritten
from syncdesk.services.demo.facts import ConflictFact, DemoBuildError
from syncdesk.services.demo.project import (
    ATTENTION,
    CHECKPOINT,
    ENGINE,
    LEGACY_READER,
    LEGACY_TRAINER,
    LOADER,
    OPTIMIZER,
    ROUTER,
    SAMPLING_IMPORT,
    SERVER,
    TRAINER,
    Project,
    test_path,
)
from syncdesk.services.demo.pycode import Module, Unit

Changes = dict[str, str | None]


@dataclass(frozen=True, slots=True)
class Edit:
    """One scripted change: a commit's subject (no PR suffix), body and files."""

    subject: str
    body: str
    changes: Changes


def merged_files(
    base: dict[str, str], ours: dict[str, str], theirs: dict[str, str], resolved: Changes
) -> dict[str, str]:
    """A scripted merge's snapshot: one-sided changes taken, ``resolved`` applied on top.

    A path both sides changed differently must be in ``resolved``: the script
    says how its conflict is resolved (None: deleted).
    """
    result: dict[str, str] = {}
    for path in sorted(set(base) | set(ours) | set(theirs)):
        if path in resolved:
            value = resolved[path]
        else:
            old, mine, other = base.get(path), ours.get(path), theirs.get(path)
            if mine in (old, other):
                value = other
            elif other == old:
                value = mine
            else:
                raise DemoBuildError(f"{path} changed on both branches with no scripted resolution")
        if value is not None:
            result[path] = value
    return result


@dataclass
class Script:
    """The scripted edits of both branches, and the merge that reconciles them."""

    main: list[Edit] = field(default_factory=list)
    dev: list[Edit] = field(default_factory=list)
    merged: Changes = field(default_factory=dict)
    conflicts: list[ConflictFact] = field(default_factory=list)
    evil: list[str] = field(default_factory=list)
    repair: Edit = Edit("", "", {})

    def on_main(self, subject: str, body: str, changes: Changes) -> None:
        """Add a scripted main edit (it lands inside the slice)."""
        self.main.append(Edit(subject, body, changes))

    def on_dev(self, subject: str, body: str, changes: Changes) -> None:
        """Add a scripted dev edit (it lands before the dev base)."""
        self.dev.append(Edit(subject, body, changes))

    def conflict(self, path: str, kind: str, resolution: str, content: str | None) -> None:
        """Record a conflicted path and the merge's resolution of it."""
        self.conflicts.append(ConflictFact(path, kind, resolution))
        self.merged[path] = content


def _tune(module: Module, indexes: range, delta: int) -> Module:
    for index in indexes:
        module = module.with_knob(index, module.units[index].knob + delta)
    return module


def build_scenario(project: Project, scale: int) -> Script:
    """Every scripted edit and resolution for a project built at ``scale``."""
    story = Script()
    _dependencies(story, scale)
    _modify_delete_and_add_add(story)
    _python_conflicts(story, project, scale)
    _evil_and_clean(story, project, scale)
    for number, path in enumerate(project.extra_conflicts):
        base = project.modules[path]
        main, dev = (
            base.with_knob(0, base.units[0].knob + 1),
            base.with_knob(0, base.units[0].knob + 2),
        )
        name = path.rsplit("/", 1)[1]
        story.on_main(f"Tune {name} defaults", "Measured on 64 GPUs.", {path: main.render()})
        story.on_dev(
            f"[dev] Tune {name} for FP8", "FP8 wants smaller chunks.", {path: dev.render()}
        )
        kind = ("main", "dev", "custom")[number % 3]
        chosen = {"main": main, "dev": dev, "custom": base.with_knob(0, base.units[0].knob + 4)}
        story.conflict(path, "content", kind, chosen[kind].render())
    story.conflicts.sort(key=lambda fact: fact.path)
    return story


def _dependencies(story: Script, scale: int) -> None:
    main_lock = {**files.LOCK_VERSIONS, "torch": "2.5.1"}
    dev_lock = {**files.LOCK_VERSIONS, "torch": "2.6.0"}
    story.on_main(
        "Bump torch to 2.5.1",
        "2.5.1 fixes the NCCL watchdog hang we hit on long checkpoint saves.\n"
        "Regenerated uv.lock with `uv lock --upgrade-package torch`.",
        {
            files.PYPROJECT: files.pyproject("torch>=2.5.1"),
            files.UV_LOCK: files.uv_lock(main_lock, scale),
        },
    )
    story.on_dev(
        "[dev] Build against torch 2.6",
        "The FP8 attention kernels need torch 2.6; dev tracks it ahead of main.",
        {
            files.PYPROJECT: files.pyproject("torch>=2.6.0"),
            files.UV_LOCK: files.uv_lock(dev_lock, scale),
        },
    )
    story.on_main(
        "Route inference reviews to the serving on-call",
        "Adds kwatanabe as a required reviewer while the serving team is short-staffed.",
        {files.CODEOWNERS: files.codeowners("@lumen-ai/inference-team @kwatanabe")},
    )
    story.on_dev(
        "[dev] Ask dev reviewers for inference changes",
        "Experimental inference features need a second pair of eyes from dev-reviewers.",
        {files.CODEOWNERS: files.codeowners("@lumen-ai/inference-team @lumen-ai/dev-reviewers")},
    )
    story.on_main(
        "Update the CI image to PyTorch 25.01",
        "The 25.01 NGC image ships CUDA 12.8 and cuDNN 9.7.",
        {files.DOCKERFILE: files.dockerfile("25.01-py3")},
    )
    story.on_main(
        "Bump numpy to 2.1.3",
        "Picks up the float16 sum fix.",
        {files.UV_LOCK: files.uv_lock({**main_lock, "numpy": "2.1.3"}, scale)},
    )
    # Keep-dev policy: the dependency files stay byte-identical to dev's.
    story.conflict(files.PYPROJECT, "content", "dev", files.pyproject("torch>=2.6.0"))
    story.conflict(files.UV_LOCK, "content", "dev", files.uv_lock(dev_lock, scale))
    story.conflict(
        files.CODEOWNERS,
        "content",
        "dev",
        files.codeowners("@lumen-ai/inference-team @lumen-ai/dev-reviewers"),
    )
    # main changed the CI image and dev did not: git would take main's. The
    # policy keeps dev's, which makes this an "evil" change to a clean file.
    story.merged[files.DOCKERFILE] = files.dockerfile("24.12-py3")
    story.evil.append(files.DOCKERFILE)


def _modify_delete_and_add_add(story: Script) -> None:
    story.on_main(
        "Handle truncated records in the legacy reader",
        "A truncated .lidx file used to fail with struct.error; say what is wrong instead.",
        {LEGACY_READER: handwritten.LEGACY_READER_MAIN},
    )
    story.on_dev(
        "[dev] Drop the legacy index reader",
        "No dev dataset uses the pre-1.0 format any more.",
        {LEGACY_READER: None},
    )
    story.conflict(LEGACY_READER, "modify/delete", "deleted", None)
    story.on_main(
        "Remove the legacy trainer",
        "Deprecated since 0.7; no config in the repo uses it.",
        {LEGACY_TRAINER: None},
    )
    story.on_dev(
        "[dev] Let the legacy trainer run FP8 recipes",
        "The FP8 bring-up scripts still drive the legacy loop.",
        {LEGACY_TRAINER: handwritten.LEGACY_TRAINER_DEV},
    )
    story.conflict(LEGACY_TRAINER, "modify/delete", "dev", handwritten.LEGACY_TRAINER_DEV)
    story.on_main(
        "Add a top-k MoE router",
        "The first piece of MoE support on main.",
        {ROUTER: handwritten.ROUTER_MAIN},
    )
    story.on_dev(
        "[dev] Add expert-choice routing",
        "Expert-choice routing balances load without aux loss.",
        {ROUTER: handwritten.ROUTER_DEV},
    )
    story.conflict(ROUTER, "add/add", "custom", handwritten.ROUTER_RESOLVED)


def _python_conflicts(story: Script, project: Project, scale: int) -> None:
    hunks = range(1, 2 * scale, 2)  # every other unit: one unchanged unit between hunks
    attention = project.modules[ATTENTION]
    last = len(attention.units) - 1
    main_attention = _tune(attention, hunks, 1)
    story.on_main(
        "Raise the default attention chunk sizes",
        "Larger chunks cut kernel launches by 30%.",
        {ATTENTION: main_attention.render()},
    )
    dev_attention = _tune(attention, hunks, 2)
    story.on_dev(
        "[dev] Tune attention chunking for FP8",
        "FP8 tiles want different chunk sizes.",
        {ATTENTION: dev_attention.render()},
    )
    story.on_dev(
        "[dev] Log attention inputs for FP8 debugging",
        "Temporary, while the FP8 path settles.",
        {ATTENTION: dev_attention.with_feature(last, "log").render()},
    )
    # "main": main's blob wholesale, which also drops dev's log line (the
    # preservation audit should flag that).
    story.conflict(ATTENTION, "content", "main", main_attention.render())

    engine = project.modules[ENGINE]
    with_top_p = SAMPLING_IMPORT + ", top_p_filter"
    with_min_p = SAMPLING_IMPORT + ", min_p_filter"
    main_engine = engine.with_import(SAMPLING_IMPORT, with_top_p).appended(
        Unit("raw", text=handwritten.TOP_P_GENERATE)
    )
    story.on_main(
        "Add top-p sampling to the inference engine",
        "sample_top_p keeps the smallest token set whose probability exceeds top_p.",
        {ENGINE: main_engine.render()},
    )
    main_engine = _tune(main_engine, hunks, 1)
    story.on_main(
        "Raise the engine's default batch limits",
        "Measured on H100: no latency regression.",
        {ENGINE: main_engine.render()},
    )
    dev_engine = _tune(engine.with_import(SAMPLING_IMPORT, with_min_p), hunks, 2)
    story.on_dev(
        "[dev] Add min-p sampling to the engine",
        "Wires min_p_filter into the engine.",
        {ENGINE: dev_engine.render()},
    )
    # Custom: dev's import line (which drops main's top_p_filter, used by
    # sample_top_p: the repair commit restores it) and main's knobs.
    resolved_engine = main_engine.with_import(with_top_p, with_min_p)
    story.conflict(ENGINE, "content", "custom", resolved_engine.render())
    repaired = resolved_engine.with_import(with_min_p, with_min_p + ", top_p_filter")
    engine_tests = project.modules[test_path(ENGINE)]
    story.repair = Edit(
        "restore dropped import of top_p_filter",
        "- lumen/inference/engine.py: the merge kept dev's sampling import and\n"
        "  dropped main's top_p_filter, which sample_top_p calls.\n"
        "- tests/unit/inference/test_engine.py: add the FakeKVCache double the\n"
        "  engine tests from main expect.",
        {
            ENGINE: repaired.render(),
            test_path(ENGINE): engine_tests.appended(
                Unit("raw", text=handwritten.FAKE_KV_CACHE)
            ).render(),
        },
    )

    loader = project.modules[LOADER]
    loader_hunks = range(1, 4 * scale, 2)
    guarded = len(loader.units) - 2
    main_loader = _tune(loader, loader_hunks, 1)
    story.on_main(
        "Fix prefetch depth in the data loader",
        "The old depth starved 8-GPU nodes.",
        {LOADER: main_loader.render()},
    )
    main_loader = main_loader.with_feature(guarded, "guard")
    story.on_main(
        "Validate loader inputs before prefetching",
        "Fail early instead of deep in a worker.",
        {LOADER: main_loader.render()},
    )
    dev_loader = _tune(loader, loader_hunks, 2)
    story.on_dev(
        "[dev] Deepen loader prefetch for packed sequences",
        "Packed sequences need more depth.",
        {LOADER: dev_loader.render()},
    )
    resolved_loader = main_loader
    for number, index in enumerate(loader_hunks):  # hunk by hunk: dev, main, hand-written
        resolved_loader = resolved_loader.with_knob(
            index, loader.units[index].knob + (2, 1, 4)[number % 3]
        )
    story.conflict(LOADER, "content", "custom", resolved_loader.render())

    main_changes: Changes = {}
    dev_changes: Changes = {}
    for path, main_unit, dev_unit in (
        (OPTIMIZER, handwritten.ADAFACTOR, handwritten.LION),
        (test_path(OPTIMIZER), handwritten.ADAFACTOR_TEST, handwritten.LION_TEST),
    ):
        base = project.modules[path]
        main_changes[path] = base.appended(Unit("raw", text=main_unit)).render()
        dev_changes[path] = base.appended(Unit("raw", text=dev_unit)).render()
        # Both appended at the end of the file: git conflicts; the union keeps
        # both, dev's (ours) first, as git's union merge driver would.
        both = base.appended(Unit("raw", text=dev_unit), Unit("raw", text=main_unit))
        story.conflict(path, "content", "union", both.render())
    story.on_main(
        "Add Adafactor's factored second-moment shape",
        "Adafactor factors the second moment over the two largest dimensions.",
        main_changes,
    )
    story.on_dev(
        "[dev] Add the Lion optimizer update",
        "Lion needs only the sign of the update.",
        dev_changes,
    )


def _evil_and_clean(story: Script, project: Project, scale: int) -> None:
    checkpoint, tests = project.modules[CHECKPOINT], project.modules[test_path(CHECKPOINT)]
    renamed = checkpoint.with_unit(0, Unit("raw", text=handwritten.load_function("load_state")))
    renamed_tests = tests.with_unit(
        len(tests.units) - 1, Unit("raw", text=handwritten.load_test("load_state"))
    )
    story.on_dev(
        "[dev] Rename load_checkpoint to load_state",
        "It loads more than model weights now (optimizer and RNG state too).",
        {CHECKPOINT: renamed.render(), test_path(CHECKPOINT): renamed_tests.render()},
    )
    server = project.modules[SERVER]

    def warm(loader: str) -> Module:
        imports = (*server.imports, f"from lumen.training.checkpoint import {loader}")
        return replace(server, imports=imports).appended(
            Unit("raw", text=handwritten.warm_start(loader))
        )

    story.on_main(
        "Warm-start the inference server from a checkpoint",
        "Servers restarted by the autoscaler now come up with the newest weights.",
        {SERVER: warm("load_checkpoint").render()},
    )
    # git merges server.py cleanly (only main touched it), but main's new code
    # calls a function dev renamed: the resolution follows the rename.
    story.merged[SERVER] = warm("load_state").render()
    story.evil.append(SERVER)

    trainer = project.modules[TRAINER]
    main_trainer = trainer.with_knob(1, trainer.units[1].knob - 1)
    logged = 2 * scale + 1
    story.on_main(
        "Shorten the trainer's default window",
        "Smaller windows react faster.",
        {TRAINER: main_trainer.render()},
    )
    story.on_dev(
        "[dev] Log gradient-bucket timing in the trainer",
        "Helps tune the overlap settings.",
        {TRAINER: trainer.with_feature(logged, "log").render()},
    )
    story.merged[TRAINER] = main_trainer.with_feature(logged, "log").render()
