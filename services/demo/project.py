"""The demo project ("lumen", a small ML library) as it stands when dev forks.

:func:`make_project` returns every file as data: generated modules (with a
test module each), hand-written files and the non-Python files. It also says
which modules each branch's everyday commits may touch: main's random edits
never touch a file dev changes, so every overlap between the branches is one
the scenario scripted on purpose and its conflicts are exactly the ones listed.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from syncdesk.services.demo import files, handwritten
from syncdesk.services.demo.pycode import (
    FUNCTION_KINDS,
    KNOBS,
    STDLIB_IMPORTS,
    UNIT_KINDS,
    Module,
    Unit,
)

PACKAGES: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "core": (
        ("config", "registry", "distributed", "timers", "utils"),
        ("config_entry", "device", "rank_map", "timer", "seed", "env_flag", "process_group"),
    ),
    "data": (
        ("loader", "blended", "indexed", "tokenizers", "samplers"),
        ("shard", "sample", "batch", "token", "document", "sequence", "prefetch"),
    ),
    "models": (
        ("attention", "embeddings", "mlp", "norms", "transformer", "rotary"),
        ("attention_mask", "embedding", "rotary_freq", "norm", "expert", "layer_spec", "head"),
    ),
    "inference": (
        ("engine", "server", "kv_cache", "scheduler", "sampling", "contexts"),
        ("request", "kv_block", "prefix", "stream", "slot", "cuda_graph", "token_budget"),
    ),
    "training": (
        ("trainer", "optimizer", "checkpoint", "schedules", "loss"),
        ("optimizer_state", "grad_bucket", "loss_scale", "lr_step", "microbatch", "param_group"),
    ),
    "experimental": (
        (),
        ("fp8_recipe", "offload", "overlap", "comm_stream", "a2a_chunk", "wgrad", "fused_block"),
    ),
}
QUALIFIERS = ("packed", "global", "fused", "local", "paged", "cached", "chunked", "dense")
_VARIANTS = ("ops", "utils", "impl", "compat", "kernels", "helpers", "fused", "legacy", "jit")
_FIRST_PARTY = {
    "core": (),
    "data": ("from lumen.core.config import LumenConfig",),
    "models": ("from lumen.core.distributed import get_tensor_parallel_rank",),
    "inference": ("from lumen.models.transformer import TransformerModel",),
    "training": ("from lumen.data.loader import DataLoaderState",),
    "experimental": ("from lumen.core.config import LumenConfig",),
}
_SUFFIXES = ("TIMEOUT_S", "BLOCK_SIZE", "MAX_RETRIES", "WINDOW", "CHUNK_TOKENS")

# Files the scenario edits on purpose (scenario.py); everyday commits keep off them.
ENGINE = "lumen/inference/engine.py"
SERVER = "lumen/inference/server.py"
ATTENTION = "lumen/models/attention.py"
LOADER = "lumen/data/loader.py"
OPTIMIZER = "lumen/training/optimizer.py"
TRAINER = "lumen/training/trainer.py"
CHECKPOINT = "lumen/training/checkpoint.py"
LEGACY_READER = "lumen/data/legacy_reader.py"
LEGACY_TRAINER = "lumen/training/legacy_trainer.py"
ROUTER = "lumen/models/moe_router.py"
SAMPLING_IMPORT = "from lumen.inference.sampling import greedy_sample"
# Modules only dev's everyday commits touch (and the scenario's dev-side rename).
DEV_ONLY = ("lumen/models/rotary.py", "lumen/core/distributed.py")


def test_path(path: str) -> str:
    """``lumen/data/loader.py`` -> ``tests/unit/data/test_loader.py``."""
    _, package, name = path.split("/")
    return f"tests/unit/{package}/test_{name}"


def module_name(path: str) -> str:
    """``lumen/data/loader.py`` -> ``loader``."""
    return path.rsplit("/", 1)[1].removesuffix(".py")


@dataclass
class Project:
    """Every file of the project at the fork point, plus who may edit what."""

    modules: dict[str, Module] = field(default_factory=dict)
    raw: dict[str, str] = field(default_factory=dict)
    main_pool: list[str] = field(default_factory=list)
    dev_pool: list[str] = field(default_factory=list)
    extra_conflicts: list[str] = field(default_factory=list)

    def files(self) -> dict[str, str]:
        """``{path: text}`` of every file."""
        rendered = {path: module.render() for path, module in self.modules.items()}
        return {**self.raw, **rendered}


class Namer:
    """Unique, plausible names for units and constants, from one seeded generator."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def unit(self, package: str, taken: set[str], kinds: tuple[str, ...] = UNIT_KINDS) -> Unit:
        """A new template unit whose name is not in ``taken`` (the names a module defines)."""
        nouns = PACKAGES[package][1]
        for attempt in range(200):
            noun = self.rng.choice(nouns)
            if attempt > 3 or self.rng.random() < 0.4:
                noun = f"{self.rng.choice(QUALIFIERS)}_{noun}"
            unit = Unit(self.rng.choice(kinds), noun, self.rng.randrange(3, 9))
            if unit.func not in taken:
                return unit
        raise RuntimeError("ran out of unit names")  # pragma: no cover - 8x7x9 names per package

    def module(
        self, package: str, name: str, units: int, kinds: tuple[str, ...] = UNIT_KINDS
    ) -> Module:
        """A generated module of ``units`` units."""
        noun = self.rng.choice(PACKAGES[package][1]).upper()
        constants = tuple(
            (f"DEFAULT_{noun}_{suffix}", KNOBS[self.rng.randrange(2, 9)])
            for suffix in self.rng.sample(_SUFFIXES, 2)
        )
        imports: tuple[str, ...] = (*STDLIB_IMPORTS, "", "import torch")
        if _FIRST_PARTY[package]:
            imports = (*imports, "", *_FIRST_PARTY[package])
        title = name.replace("_", " ")
        module = Module(f"{title.capitalize()} for ``lumen.{package}``.", imports, constants)
        taken: set[str] = set()
        for _ in range(units):
            unit = self.unit(package, taken, kinds)
            taken.add(unit.func)
            module = module.appended(unit)
        return module


def test_module(path: str, module: Module) -> Module:
    """The test module that covers ``module`` (one test per template unit)."""
    package, name = path.split("/")[1], module_name(path)
    imports = (
        "from types import SimpleNamespace",
        "",
        "import pytest",
        "import torch",
        "",
        f"from lumen.{package} import {name}",
    )
    units = tuple(unit.test(name) for unit in module.units if unit.kind != "raw")
    return Module(f"Tests for ``lumen.{package}.{name}``.", imports, (), units, preamble=())


def _variant(number: int) -> str:
    # "ops", "utils", ... then "ops2", "utils2", ... past the list's end.
    index, lap = (number - 1) % len(_VARIANTS), (number - 1) // len(_VARIANTS)
    return _VARIANTS[index] + (str(lap + 1) if lap else "")


def make_project(scale: int, rng: random.Random) -> Project:
    """The project at the fork point; ``scale`` multiplies modules and their length."""
    namer = Namer(rng)
    project = Project()
    variant_paths: list[str] = []
    for package, (names, _) in PACKAGES.items():
        project.raw[f"lumen/{package}/__init__.py"] = f'"""lumen.{package}."""\n'
        variants = [f"{name}_{_variant(v)}" for v in range(1, scale) for name in names]
        for name in (*names, *variants):
            path = f"lumen/{package}/{name}.py"
            if path == CHECKPOINT:  # dev renames a function in it (scenario.py)
                module = namer.module(package, name, rng.randrange(4, 8) * scale)
            elif path in _SCRIPTED_UNITS:
                module = namer.module(
                    package, name, _SCRIPTED_UNITS[path] * scale + 3, FUNCTION_KINDS
                )
            else:
                module = namer.module(package, name, rng.randrange(4, 8) * scale)
                pool = project.dev_pool if path in DEV_ONLY else project.main_pool
                (variant_paths if name in variants else pool).append(path)
            project.modules[path] = module
            project.modules[test_path(path)] = test_module(path, module)
    del project.raw["lumen/experimental/__init__.py"]  # dev adds the package
    _customise(project, scale)
    # At scale > 1, some variant modules conflict too (content, like most real ones);
    # the other variants join main's everyday pool.
    wanted = 3 * (scale - 1)
    picks = {len(variant_paths) * i // wanted for i in range(wanted)} if wanted else set()
    project.extra_conflicts = [path for i, path in enumerate(variant_paths) if i in picks]
    project.main_pool += [path for i, path in enumerate(variant_paths) if i not in picks]
    return project


# Scripted modules: units per conflict hunk they need (times scale, plus 3 to space them).
_SCRIPTED_UNITS = {ENGINE: 2, SERVER: 1, ATTENTION: 2, LOADER: 4, OPTIMIZER: 1, TRAINER: 2}


def _customise(project: Project, scale: int) -> None:
    engine = project.modules[ENGINE]
    project.modules[ENGINE] = Module(
        # isort order: lumen.inference sorts before the lumen.models import already there.
        engine.doc,
        (*engine.imports[:-1], SAMPLING_IMPORT, engine.imports[-1]),
        engine.constants,
        engine.units,
    )
    checkpoint = project.modules[CHECKPOINT]
    loader = Unit("raw", text=handwritten.load_function("load_checkpoint"))
    project.modules[CHECKPOINT] = Module(
        checkpoint.doc, checkpoint.imports, checkpoint.constants, (loader, *checkpoint.units)
    )
    tests = project.modules[test_path(CHECKPOINT)]
    tests = tests.appended(Unit("raw", text=handwritten.load_test("load_checkpoint")))
    project.modules[test_path(CHECKPOINT)] = tests
    project.raw[LEGACY_READER] = handwritten.LEGACY_READER
    project.raw[LEGACY_TRAINER] = handwritten.LEGACY_TRAINER
    project.raw[files.PYPROJECT] = files.pyproject("torch>=2.4.1")
    project.raw[files.UV_LOCK] = files.uv_lock(files.LOCK_VERSIONS, scale)
    project.raw[files.CODEOWNERS] = files.codeowners("@lumen-ai/inference-team")
    project.raw[files.DOCKERFILE] = files.dockerfile("24.12-py3")
    project.raw[files.ONCALL] = files.oncall_schedule(0)
    project.raw[files.COPY_PR_BOT] = files.copy_pr_bot(("kwatanabe", "hbecker"))
    project.raw["lumen/__init__.py"] = (
        '"""Lumen: scalable training and inference."""\n\n__version__ = "0.9.0"\n'
    )
    project.raw.update(files.STATIC)
