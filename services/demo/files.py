"""The demo project's non-Python files: packaging, lock file, ownership, CI.

Each file is rendered from a few parameters (a torch version, an image tag,
an owner list) so that main and dev can each change the same line in their
own way: that is what makes the keep-dev files conflict like real ones.
"""

from __future__ import annotations

import hashlib
import json

PYPROJECT = "pyproject.toml"
UV_LOCK = "uv.lock"
CODEOWNERS = ".github/CODEOWNERS"
DOCKERFILE = "docker/Dockerfile.ci.dev"
ONCALL = ".github/oncall_schedule.json"
COPY_PR_BOT = ".github/copy-pr-bot.yaml"
RUN_TESTS = "scripts/run_unit_tests.sh"

# (name, version, dependencies, has compiled wheels)
_LOCKED: tuple[tuple[str, str, tuple[str, ...], bool], ...] = (
    ("aiohttp", "3.10.11", ("aiosignal", "attrs", "frozenlist", "multidict", "yarl"), True),
    ("aiosignal", "1.3.1", ("frozenlist",), False),
    ("attrs", "24.2.0", (), False),
    ("certifi", "2024.8.30", (), False),
    ("charset-normalizer", "3.4.0", (), True),
    ("einops", "0.8.0", (), False),
    ("filelock", "3.16.1", (), False),
    ("frozenlist", "1.5.0", (), True),
    ("fsspec", "2024.10.0", (), False),
    ("huggingface-hub", "0.26.2", ("filelock", "fsspec", "packaging", "pyyaml", "tqdm"), False),
    ("idna", "3.10", (), False),
    ("jinja2", "3.1.4", ("markupsafe",), False),
    ("markupsafe", "3.0.2", (), True),
    ("mpmath", "1.3.0", (), False),
    ("multidict", "6.1.0", (), True),
    ("networkx", "3.4.2", (), False),
    ("numpy", "2.1.2", (), True),
    ("packaging", "24.2", (), False),
    ("pyyaml", "6.0.2", (), True),
    ("regex", "2024.11.6", (), True),
    ("safetensors", "0.4.5", (), True),
    ("sympy", "1.13.1", ("mpmath",), False),
    ("tokenizers", "0.20.3", ("huggingface-hub",), True),
    ("torch", "2.4.1", ("filelock", "fsspec", "jinja2", "networkx", "sympy"), True),
    ("tqdm", "4.67.0", (), False),
    ("transformers", "4.46.2", ("huggingface-hub", "numpy", "regex", "tokenizers"), False),
    ("typing-extensions", "4.12.2", (), False),
    ("yarl", "1.17.1", ("idna", "multidict"), True),
)
# Wheel tags, most common first: scale 1 locks three per compiled package, a
# larger scale more (up to 28), the way real lock files grow with platforms.
_PLATFORMS = tuple(
    f"cp{python}-cp{python}-{platform}"
    for platform in (
        "manylinux_2_17_x86_64.manylinux2014_x86_64",
        "manylinux_2_17_aarch64.manylinux2014_aarch64",
        "macosx_11_0_arm64",
        "win_amd64",
        "musllinux_1_2_x86_64",
        "musllinux_1_2_aarch64",
        "macosx_10_9_x86_64",
    )
    for python in ("311", "312", "310", "313")
)
LOCK_VERSIONS: dict[str, str] = {name: version for name, version, _, _ in _LOCKED}


def _artifact(name: str, version: str, filename: str) -> str:
    digest = hashlib.sha256(f"{name}=={version}/{filename}".encode()).hexdigest()
    size = int(digest[:6], 16) * (40 if name == "torch" else 3) + 4096
    path = f"{digest[:2]}/{digest[2:4]}/{digest[4:60]}"
    url = f"https://files.pythonhosted.org/packages/{path}/{filename}"
    return f'url = "{url}", hash = "sha256:{digest}", size = {size}'


def uv_lock(versions: dict[str, str], scale: int = 1) -> str:
    """A uv.lock for the locked set with these ``versions`` (a few hundred lines at scale 1)."""
    blocks = ['version = 1\nrequires-python = ">=3.10"']
    for name, _, deps, binary in _LOCKED:
        version = versions[name]
        stem = f"{name.replace('-', '_')}-{version}"
        lines = [
            "[[package]]",
            f'name = "{name}"',
            f'version = "{version}"',
            'source = { registry = "https://pypi.org/simple" }',
        ]
        if deps:
            lines += ["dependencies = [", *(f'    {{ name = "{dep}" }},' for dep in deps), "]"]
        lines.append(f"sdist = {{ {_artifact(name, version, stem + '.tar.gz')} }}")
        count = min(len(_PLATFORMS), 3 * scale) if binary else 1
        tags = _PLATFORMS[:count] if binary else ("py3-none-any",)
        lines.append("wheels = [")
        lines += [f"    {{ {_artifact(name, version, f'{stem}-{tag}.whl')} }}," for tag in tags]
        lines.append("]")
        blocks.append("\n".join(lines))
    own = ("einops", "numpy", "packaging", "pyyaml", "safetensors", "torch", "tqdm")
    blocks.append(
        '[[package]]\nname = "lumen"\nsource = { editable = "." }\ndependencies = [\n'
        + "".join(f'    {{ name = "{dep}" }},\n' for dep in own)
        + "]"
    )
    return "\n\n".join(blocks) + "\n"


def pyproject(torch_requirement: str) -> str:
    """pyproject.toml; ``torch_requirement`` is the line both branches like to change."""
    return f"""[build-system]
requires = ["setuptools>=75", "wheel"]
build-backend = "setuptools.build_meta"

[project]
name = "lumen"
dynamic = ["version"]
description = "Lumen: scalable training and inference for transformer models"
readme = "README.md"
requires-python = ">=3.10"
license = {{ text = "Apache-2.0" }}
authors = [{{ name = "Lumen AI", email = "lumen-dev@lumen-ai.dev" }}]
dependencies = [
    "{torch_requirement}",
    "numpy>=1.26,<3",
    "packaging>=24.1",
    "pyyaml>=6.0",
    "safetensors>=0.4.5",
    "einops>=0.8",
    "tqdm>=4.66",
]

[project.optional-dependencies]
inference = ["aiohttp>=3.10", "transformers>=4.46"]
dev = ["pytest>=8.3", "pytest-mock>=3.14", "ruff>=0.7", "mypy>=1.13"]

[tool.setuptools.dynamic]
version = {{ attr = "lumen.__version__" }}

[tool.ruff]
line-length = 100
target-version = "py310"

[tool.pytest.ini_options]
testpaths = ["tests/unit"]
markers = ["gpu: needs a CUDA device", "slow: longer than a minute"]
"""


def codeowners(inference_owners: str) -> str:
    """.github/CODEOWNERS; the inference line is the contested one."""
    return f"""# Lumen code owners. A change to this file needs a maintainer's review.
* @lumen-ai/maintainers

/lumen/core/ @lumen-ai/core-team
/lumen/data/ @lumen-ai/data-team
/lumen/models/ @lumen-ai/models-team
/lumen/inference/ {inference_owners}
/lumen/training/ @lumen-ai/training-team
/tests/ @lumen-ai/maintainers

/docker/ @lumen-ai/ci-team
/.github/ @lumen-ai/ci-team
/pyproject.toml @lumen-ai/ci-team
/uv.lock @lumen-ai/ci-team
"""


def dockerfile(image_tag: str) -> str:
    """docker/Dockerfile.ci.dev built on the NGC PyTorch image ``image_tag``."""
    return f"""# syntax=docker/dockerfile:1.7
ARG FROM_IMAGE_NAME=nvcr.io/nvidia/pytorch:{image_tag}
FROM ${{FROM_IMAGE_NAME}} AS main

ENV DEBIAN_FRONTEND=noninteractive
RUN apt-get update && \\
    apt-get install -y --no-install-recommends gettext python3-venv && \\
    rm -rf /var/lib/apt/lists/*

COPY --from=ghcr.io/astral-sh/uv:0.5.11 /uv /usr/local/bin/uv
ENV UV_PROJECT_ENVIRONMENT=/opt/venv UV_LINK_MODE=copy
WORKDIR /workspace/lumen

COPY pyproject.toml uv.lock ./
RUN --mount=type=cache,target=/root/.cache/uv \\
    uv sync --frozen --no-install-project --extra dev --extra inference

COPY . .
RUN uv pip install --no-deps -e .
"""


ONCALL_PEOPLE = ("kwatanabe", "hbecker", "oadeyemi", "wzhang", "lmoreau", "smarchetti")


def oncall_schedule(rotation: int) -> str:
    """The on-call schedule the bot rotates every week."""
    people = ONCALL_PEOPLE[rotation % 6 :] + ONCALL_PEOPLE[: rotation % 6]
    weeks = [
        {"week": 1 + rotation + i, "primary": p, "secondary": people[(i + 1) % 6]}
        for i, p in enumerate(people)
    ]
    return json.dumps({"team": "lumen-core", "weeks": weeks}, indent=2) + "\n"


def copy_pr_bot(trusted: tuple[str, ...]) -> str:
    """.github/copy-pr-bot.yaml: who may trigger CI on forks."""
    users = "".join(f"  - {user}\n" for user in trusted)
    return (
        f"enabled: true\nauto_sync_draft: false\nauto_sync_ready: true\ntrustees_override:\n{users}"
    )


STATIC: dict[str, str] = {
    "README.md": """# Lumen

Lumen trains and serves transformer models at scale: tensor, pipeline and
data parallelism, mixed precision, and a batched inference engine.

## Install

```bash
uv sync --extra dev
```

## Layout

- `lumen/core`: configuration, process groups, timers
- `lumen/data`: indexed datasets, blending, tokenizers
- `lumen/models`: attention, MLP, embeddings, transformer blocks
- `lumen/inference`: the engine, KV cache and the HTTP server
- `lumen/training`: the training loop, optimizers and checkpoints

## Branches

`main` holds released work; `dev` holds experimental features. `main` is
merged into `dev` twice a week by the sync bot, and a maintainer lands it.

## Tests

```bash
scripts/run_unit_tests.sh
```
""",
    ".gitignore": "__pycache__/\n*.egg-info/\n.venv/\nbuild/\ndist/\n.pytest_cache/\n",
    RUN_TESTS: """#!/usr/bin/env bash
# Run the unit tests the way CI does.
set -euo pipefail
cd "$(dirname "$0")/.."
exec uv run --frozen pytest -q -m "not gpu" "${@:-tests/unit}"
""",
    ".github/workflows/ci.yml": """name: CI
on:
  pull_request:
  push:
    branches: [main, dev]

jobs:
  unit-tests:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - uses: astral-sh/setup-uv@v3
      - run: uv sync --frozen --extra dev
      - run: scripts/run_unit_tests.sh
""",
    "docs/index.md": "# Lumen documentation\n\nStart with the README, then `parallelism.md`.\n",
    "tests/conftest.py": '''"""Shared fixtures for the unit tests."""

import pytest
import torch


@pytest.fixture(autouse=True)
def _seed() -> None:
    torch.manual_seed(1234)
''',
}
