"""The large world's files, rendered from small states so an edit is a one-line diff.

- generated modules (:class:`ModuleState`): a header and units (functions,
  config classes), each with one *knob* line; setting a unit's knob to
  different values on two branches is certain to conflict on that line;
- the lock file (:func:`lock_file`): ``uv.lock``'s shape, thousands of
  artifact lines sharing the long ``{ url = "https://files.pythonhosted.org/``
  prefix; a bumped package changes its version line and every artifact line;
- the golden values (:func:`golden_values`): one value a line, so two
  branches that regenerate the same steps differ on every line of the block;
- the big Python file (:class:`ArgumentsState`): argument groups, in which dev
  adds three lines after a default both branches change.

Everything is plain text from fixed tables and seeded choices: no randomness here.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Mapping
from dataclasses import dataclass, replace

KNOBS = (2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384)

PACKAGES = (
    "core",
    "data",
    "models",
    "inference",
    "training",
    "experimental",
    "parallel",
    "optim",
    "kernels",
    "tokenizers",
    "checkpointing",
    "datasets",
    "export",
    "quantization",
    "fusions",
    "transformer",
    "moe",
    "pipeline",
    "distributed",
    "utils",
)
_STEMS = (
    "attention",
    "buffer",
    "bucket",
    "router",
    "sampler",
    "schedule",
    "shard",
    "stream",
    "layout",
    "memory",
    "offload",
    "overlap",
    "prefetch",
    "recompute",
    "rotary",
    "scaling",
    "spec",
    "timers",
)
_VARIANTS = ("ops", "utils", "impl", "compat", "kernels", "helpers", "fused", "legacy")
_WORDS = (
    "batch",
    "token",
    "block",
    "expert",
    "layer",
    "step",
    "grad",
    "slot",
    "chunk",
    "window",
    "queue",
    "page",
)

_HEADER = '''"""{title} for ``lumen.{package}``."""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar

T = TypeVar("T")
'''

# Unit templates; the knob is on exactly one line of each.
_UNITS = (
    '''def {noun}_mean(values: Sequence[float], *, window: int | None = None) -> float:
    """The mean of the last ``window`` {words} values."""
    window = window or {knob}
    recent = list(values)[-window:]
    if not recent:
        return 0.0
    return math.fsum(recent) / len(recent)''',
    '''def shard_{noun}s(items: Sequence[T], world_size: int, rank: int) -> list[T]:
    """The {words} items that rank ``rank`` owns."""
    per_rank = max(1, math.ceil(len(items) / world_size))
    cap = {knob}
    chunk = list(items[rank * per_rank : (rank + 1) * per_rank])
    return chunk[:cap]''',
    '''@dataclass(frozen=True)
class {Noun}Config:
    """Settings of the {words}."""

    size: int = {knob}
    dropout: float = 0.1
    enabled: bool = True''',
    '''def wait_for_{noun}(ready: Callable[[], bool], timeout_s: float | None = None) -> bool:
    """Poll ``ready`` until the {words} is ready or the timeout has passed."""
    deadline = time.monotonic() + (timeout_s or {knob}.0)
    while time.monotonic() < deadline:
        if ready():
            return True
        time.sleep(0.05)
    return False''',
)
_HELPER = '''def {noun}_budget(total: int, parts: int = {knob}) -> list[int]:
    """Split ``total`` {words} units into ``parts`` near-equal shares."""
    share, left = divmod(total, parts)
    return [share + (1 if index < left else 0) for index in range(parts)]'''
UNITS_PER_MODULE = 7


def module_paths(modules_per_package: int) -> list[str]:
    """Every generated module's path, package by package."""
    names = [f"{stem}_{variant}" for variant in _VARIANTS for stem in _STEMS]
    return [
        f"lumen/{package}/{name}.py" for package in PACKAGES for name in names[:modules_per_package]
    ]


def test_path(path: str) -> str:
    """``lumen/data/x.py`` -> ``tests/unit/data/test_x.py``."""
    _, package, name = path.split("/")
    return f"tests/unit/{package}/test_{name}"


def _noun(path: str, index: int) -> str:
    name = path.rsplit("/", 1)[1].removesuffix(".py")
    return f"{name}_{_WORDS[index % len(_WORDS)]}"


@dataclass(frozen=True, slots=True)
class ModuleState:
    """A generated module: its path, one knob (an index into KNOBS) per unit, added helpers."""

    path: str
    knobs: tuple[int, ...]
    helpers: tuple[int, ...] = ()  # knob indexes of the helpers appended so far

    @classmethod
    def initial(cls, path: str, seed: int) -> ModuleState:
        """The module as it stands at the fork point."""
        return cls(path, tuple(2 + (seed + 5 * i) % 7 for i in range(UNITS_PER_MODULE)))

    def with_knob(self, unit: int, knob: int) -> ModuleState:
        """This module with unit ``unit``'s knob set to ``knob``."""
        knobs = list(self.knobs)
        knobs[unit] = knob
        return replace(self, knobs=tuple(knobs))

    def with_helper(self, knob: int) -> ModuleState:
        """This module with one more helper function at its end."""
        return replace(self, helpers=(*self.helpers, knob))

    def render(self) -> str:
        """The file's text."""
        package = self.path.split("/")[1]
        title = self.path.rsplit("/", 1)[1].removesuffix(".py").replace("_", " ").capitalize()
        parts = [_HEADER.format(title=title, package=package).rstrip("\n")]
        for index, knob in enumerate(self.knobs):
            parts.append(_unit(_UNITS[index % len(_UNITS)], _noun(self.path, index), knob))
        for number, knob in enumerate(self.helpers):
            parts.append(_unit(_HELPER, f"{_noun(self.path, number)}_{number}", knob))
        return "\n\n\n".join(parts) + "\n"


def _unit(template: str, noun: str, knob: int) -> str:
    return template.format(
        noun=noun,
        Noun="".join(part.title() for part in noun.split("_")),
        words=noun.replace("_", " "),
        knob=KNOBS[knob % len(KNOBS)],
    )


def test_module(path: str) -> str:
    """The unit tests of a generated module (they never change)."""
    package, name = path.split("/")[1], path.rsplit("/", 1)[1].removesuffix(".py")
    tests = [
        f"def test_{_noun(path, index)}_is_defined() -> None:\n"
        f"    assert hasattr({name}, {_defined(path, index)!r})"
        for index in range(UNITS_PER_MODULE)
    ]
    head = f'"""Tests for ``lumen.{package}.{name}``."""\n\nfrom lumen.{package} import {name}'
    return head + "\n\n\n" + "\n\n\n".join(tests) + "\n"


def _defined(path: str, index: int) -> str:
    noun = _noun(path, index)
    kind = index % len(_UNITS)
    if kind == 2:
        return "".join(part.title() for part in noun.split("_")) + "Config"
    return (f"{noun}_mean", f"shard_{noun}s", "", f"wait_for_{noun}")[kind]


def recipe(package: str, number: int) -> str:
    """A training recipe (YAML)."""
    layers = 12 + 4 * (number % 9)
    return (
        f"# {package} recipe {number}: generated from the scaling sweep.\n"
        f"model:\n  name: lumen-{package}-{number}\n  num_layers: {layers}\n"
        f"  hidden_size: {512 * (1 + number % 8)}\n  num_attention_heads: {8 * (1 + number % 4)}\n"
        f"  ffn_hidden_size: {2048 * (1 + number % 8)}\n"
        f"training:\n  micro_batch_size: {1 + number % 4}\n"
        f"  global_batch_size: {256 * (1 + number % 4)}\n"
        f"  lr: {3e-4 / (1 + number % 5):.6f}\n  train_iters: {1000 * (5 + number % 20)}\n"
        f"parallel:\n  tensor: {1 << (number % 4)}\n  pipeline: {1 + number % 3}\n"
    )


def doc_page(package: str, number: int) -> str:
    """A documentation page."""
    return (
        f"# lumen.{package}: notes {number}\n\n"
        f"How the {package} package behaves at scale, part {number}.\n\n"
        "## Settings\n\n"
        f"- `{package}_window`: how many steps are averaged ({8 * (number + 1)} by default).\n"
        f"- `{package}_cap`: the largest chunk a rank takes.\n\n"
        "## Measured\n\n"
        f"On 64 GPUs the {package} path adds {number % 7 + 1}% to the step time.\n"
    )


# -- uv.lock ------------------------------------------------------------------------------

_PLATFORMS = tuple(
    f"cp{python}-cp{python}-{platform}"
    for platform in (
        "manylinux_2_17_x86_64.manylinux2014_x86_64",
        "manylinux_2_17_aarch64.manylinux2014_aarch64",
        "manylinux_2_28_x86_64",
        "macosx_11_0_arm64",
        "win_amd64",
        "musllinux_1_2_x86_64",
        "musllinux_1_2_aarch64",
        "macosx_10_9_x86_64",
    )
    for python in ("310", "311", "312", "313")
)
_LOCK_PARTS = (
    ("nvidia", "cuda", "cublas", "cudnn", "nccl", "cusparse", "nvjitlink", "cufft"),
    ("runtime", "kernels", "ops", "bindings", "core", "extras", "tools", "ext"),
    ("cu12", "cu11", "py3", "lib", "plugin", "utils"),
)


@dataclass(frozen=True, slots=True)
class LockedPackage:
    """One ``[[package]]`` of the lock file."""

    name: str
    wheels: int  # 0: a pure-Python package (one py3-none-any wheel)
    deps: tuple[str, ...]


def lock_packages(lines: int) -> list[LockedPackage]:
    """Enough packages for a lock file of at least ``lines`` lines (deterministic)."""
    packages: list[LockedPackage] = []
    total, number = 2, 0
    while total < lines:
        a, b, c = (
            _LOCK_PARTS[k][(number // (1, 8, 64)[k]) % len(_LOCK_PARTS[k])] for k in range(3)
        )
        name = f"{a}-{b}-{c}" if number < 384 else f"{a}-{b}-{c}-{number // 384}"
        wheels = (0, 3, 8, 16, 24, 32)[(number * 7) % 6]
        deps = tuple(p.name for p in packages[-1 - number % 3 : -1]) if number % 4 else ()
        packages.append(LockedPackage(name, wheels, deps))
        total += 8 + len(deps) + max(1, wheels)
        number += 1
    return packages


def _artifact(name: str, version: str, filename: str) -> str:
    digest = hashlib.sha256(f"{name}=={version}/{filename}".encode()).hexdigest()
    size = int(digest[:6], 16) * 9 + 4096
    url = f"https://files.pythonhosted.org/packages/{digest[:2]}/{digest[2:4]}/{digest[4:60]}"
    return f'{{ url = "{url}/{filename}", hash = "sha256:{digest}", size = {size} }}'


def lock_file(packages: list[LockedPackage], versions: Mapping[str, str]) -> str:
    """``uv.lock`` for ``packages`` at ``versions`` (name -> version; missing: 1.0.0)."""
    blocks = ['version = 1\nrequires-python = ">=3.10"']
    for package in packages:
        name, version = package.name, versions.get(package.name, "1.0.0")
        stem = f"{name.replace('-', '_')}-{version}"
        lines = [
            "[[package]]",
            f'name = "{name}"',
            f'version = "{version}"',
            'source = { registry = "https://pypi.org/simple" }',
        ]
        if package.deps:
            lines += ["dependencies = [", *(f'    {{ name = "{d}" }},' for d in package.deps), "]"]
        lines.append(f"sdist = {_artifact(name, version, stem + '.tar.gz')}")
        tags = _PLATFORMS[: package.wheels] if package.wheels else ("py3-none-any",)
        lines.append("wheels = [")
        lines += [f"    {_artifact(name, version, f'{stem}-{tag}.whl')}," for tag in tags]
        lines.append("]")
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks) + "\n"


# -- golden values -------------------------------------------------------------------------

METRICS = (
    "lm loss",
    "num-zeros",
    "mem-allocated-bytes",
    "mem-max-allocated-bytes",
    "iteration-time",
)


def golden_steps(lines: int) -> int:
    """Steps per metric for a golden file of at least ``lines`` lines."""
    return math.ceil((lines - 2) / len(METRICS)) - 7


def golden_value(metric: int, step: int, shift: float) -> str:
    """One value, as the file prints it."""
    if metric in (2, 3):
        return str(int(41_000_000_000 + 1_000_000 * metric + 7919 * step + shift * 1e6))
    curve = 10.9 * math.exp(-step / 900) + 1.7 + 0.013 * math.sin(step * 0.37 + metric)
    return f"{curve * (1 + metric) + shift:.5f}"


def golden_values(steps: int, shifts: Mapping[tuple[int, int], float]) -> str:
    """The golden-values JSON; ``shifts`` moves values at ``(metric, step)`` (a regeneration)."""
    out = ["{"]
    for metric, name in enumerate(METRICS):
        out += [
            f'  "{name}": {{',
            '    "start_step": 1,',
            f'    "end_step": {steps},',
            '    "step_interval": 1,',
            '    "values": {',
        ]
        out += [
            f'      "{step}": {golden_value(metric, step, shifts.get((metric, step), 0.0))}'
            + ("," if step < steps else "")
            for step in range(1, steps + 1)
        ]
        out += ["    }", "  }" + ("," if metric < len(METRICS) - 1 else "")]
    out.append("}")
    return "\n".join(out) + "\n"


# -- the big Python file ---------------------------------------------------------------------

_GROUP_A = (
    "attention",
    "moe",
    "optimizer",
    "checkpoint",
    "data",
    "inference",
    "pipeline",
    "tensor",
    "fp8",
    "logging",
    "memory",
    "rerun",
)
_GROUP_B = (
    "core",
    "overlap",
    "recompute",
    "offload",
    "kernels",
    "router",
    "cache",
    "comm",
    "io",
    "sched",
    "sync",
    "profile",
)
MAIN_IMPORT = "import sys"
DEV_IMPORT = (
    "from lumen.experimental.dev_hooks import DEV_LOG, dev_feature_enabled, register_dev_hook"
)


def group_name(index: int) -> str:
    """The name of argument group ``index`` (unique up to 144 groups, numbered after that)."""
    a, b = _GROUP_A[index % len(_GROUP_A)], _GROUP_B[(index // len(_GROUP_A)) % len(_GROUP_B)]
    lap = index // (len(_GROUP_A) * len(_GROUP_B))
    return f"{a}_{b}" + (f"_{lap + 1}" if lap else "")


def dev_block(index: int) -> list[str]:
    """The three lines dev adds after group ``index``'s size default."""
    group = group_name(index)
    flag = group.replace("_", "-")
    return [
        f'    if dev_feature_enabled("{group}_fp8_{index}"):',
        f'        register_dev_hook(parser, "{flag}", stage={index % 9 + 1})',
        f'        DEV_LOG.info("dev hook %s ready, stage %d", "{flag}.{index}", {index % 9 + 1})',
    ]


@dataclass(frozen=True, slots=True)
class ArgumentsState:
    """The big Python file: one size default per group, dev's blocks, the import lines."""

    sizes: tuple[int, ...]  # a KNOBS index per group
    blocks: frozenset[int] = frozenset()  # groups holding dev's three lines
    imports: tuple[str, ...] = ()  # lines after ``import os``

    @classmethod
    def initial(cls, groups: int) -> ArgumentsState:
        """The file at the fork point."""
        return cls(tuple(3 + i % 8 for i in range(groups)))

    def render(self) -> str:
        """The file's text."""
        out = [
            '"""Command-line arguments of lumen\'s training and inference entry points.',
            "",
            "Each group of options has its own ``_add_<group>_args`` function; ``parse_args``",
            "calls them in the order of ``_GROUPS``.",
            '"""',
            "",
            "from __future__ import annotations",
            "",
            "import argparse",
            "import os",
            *self.imports,
            "",
            '_ENV_PREFIX = "LUMEN_"',
            "",
            "",
            "def parse_args(argv: list[str] | None = None) -> argparse.Namespace:",
            '    """Parse the command line (``argv``, default ``sys.argv``)."""',
            '    parser = argparse.ArgumentParser(description="Lumen", allow_abbrev=False)',
            "    for add in _GROUPS:",
            "        parser = add(parser)",
            "    return parser.parse_args(argv)",
        ]
        for index, size in enumerate(self.sizes):
            out += ["", "", *self._group(index, KNOBS[size % len(KNOBS)])]
        out += ["", "", "_GROUPS = ("]
        out += [f"    _add_{group_name(i)}_args," for i in range(len(self.sizes))]
        out.append(")")
        return "\n".join(out) + "\n"

    def _group(self, index: int, size: int) -> list[str]:
        group = group_name(index)
        flag, words, upper = group.replace("_", "-"), group.replace("_", " "), group.upper()
        add = "    group.add_argument"
        lines = [
            f"def _add_{group}_args(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:",
            f'    """Arguments of the {words} group."""',
            f'    group = parser.add_argument_group(title="{words}")',
            f'{add}("--{flag}-size", type=int, default={size}, help="Buffer size.")',
        ]
        if index in self.blocks:
            lines += dev_block(index)
        lines += [
            f'{add}("--{flag}-interval", type=int, default=100, help="Steps.")',
            f'{add}("--{flag}-dropout", type=float, default=0.1, help="Dropout.")',
            f'{add}("--{flag}-warmup", type=int, default=0, help="Warm-up steps.")',
            "    group.add_argument(",
            f'        "--{flag}-dtype",',
            '        choices=["fp32", "bf16", "fp16"],',
            '        default="bf16",',
            f'        help="Data type of the {words} path.",',
            "    )",
            f'{add}("--use-{flag}", action="store_true", help="Turn it on.")',
            f'{add}("--{flag}-seed", type=int, default={1234 + index}, help="Seed.")',
            f'    if os.environ.get(_ENV_PREFIX + "{upper}_STRICT"):',
            f"        group.set_defaults({group}_strict=True)",
            "    return parser",
        ]
        return lines


def dispatcher_module(title: str, experts: int, capacity: float, drop: bool) -> str:
    """A hand-shaped module both branches add under one name (an add/add conflict)."""
    name = "".join(part.title() for part in title.split("_"))
    return f'''"""{title.replace("_", " ").capitalize()}: routes tokens to their experts."""

from __future__ import annotations

import torch


class {name}:
    """Splits a batch of tokens by expert, each expert taking at most its capacity."""

    def __init__(self, num_experts: int = {experts}, capacity: float = {capacity}) -> None:
        self.num_experts = num_experts
        self.capacity = capacity
        self.drop_overflow = {drop}

    def dispatch(self, tokens: torch.Tensor, routing: torch.Tensor) -> list[torch.Tensor]:
        """The tokens of each expert, in expert order."""
        order = torch.argsort(routing, stable=True)
        counts = torch.bincount(routing, minlength=self.num_experts)
        return list(torch.split(tokens[order], counts.tolist()))
'''


DEV_HOOKS = '''"""Experimental hooks that dev's argument groups register (dev only)."""

from __future__ import annotations

import logging
import os
from collections.abc import Callable

DEV_LOG = logging.getLogger("lumen.dev")
_HOOKS: dict[str, list[Callable[[], None]]] = {}


def dev_feature_enabled(name: str) -> bool:
    """Whether the experimental feature ``name`` is on (``LUMEN_DEV_<NAME>=1``)."""
    return os.environ.get("LUMEN_DEV_" + name.upper(), "") == "1"


def register_dev_hook(parser: object, flag: str, stage: int) -> None:
    """Remember that ``flag``'s group asked for a dev hook at ``stage``."""
    _HOOKS.setdefault(flag, []).append(lambda: DEV_LOG.debug("%s at %d", flag, stage))
    DEV_LOG.debug("registered %s for %r", flag, parser)
'''
