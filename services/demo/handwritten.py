"""Hand-written source for the files the scripted conflicts revolve around.

These are deliberately unlike the template-generated modules: git's rename
detection pairs a deleted file with an added one when they are more than 50%
alike, and a deleted legacy module "renamed" into a new one would turn the
modify/delete conflicts into something else entirely.
"""

from __future__ import annotations

LEGACY_READER = '''"""Reader for the pre-1.0 ``.lidx`` index format.

Kept for datasets written before the indexed dataset rewrite.
"""

from __future__ import annotations

import os
import struct
from typing import BinaryIO, Iterator

_MAGIC = b"LIDX\\x00\\x01"
_HEADER = struct.Struct("<6sQI")
_RECORD = struct.Struct("<QQ")


class LegacyIndexReader:
    """Iterate the ``(offset, length)`` records of a legacy index file."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = os.fspath(path)
        with open(self.path, "rb") as handle:
            magic, self.count, self.version = _HEADER.unpack(handle.read(_HEADER.size))
        if magic != _MAGIC:
            raise ValueError(f"{self.path}: not a legacy index (magic {magic!r})")

    def __len__(self) -> int:
        return self.count

    def __iter__(self) -> Iterator[tuple[int, int]]:
        with open(self.path, "rb") as handle:
            handle.seek(_HEADER.size)
            yield from self._records(handle)

    def _records(self, handle: BinaryIO) -> Iterator[tuple[int, int]]:
        for _ in range(self.count):
            chunk = handle.read(_RECORD.size)
            yield _RECORD.unpack(chunk)
'''

# main: "Handle truncated records in the legacy reader"
LEGACY_READER_MAIN = LEGACY_READER.replace(
    "            chunk = handle.read(_RECORD.size)\n",
    "            chunk = handle.read(_RECORD.size)\n"
    "            if len(chunk) < _RECORD.size:\n"
    '                raise EOFError(f"{self.path}: index ends after {_} records")\n',
)

LEGACY_TRAINER = '''"""The pre-1.0 training loop, kept for configs that say ``trainer: legacy``."""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterable

import torch

StepFn = Callable[[torch.Tensor], torch.Tensor]


def train_legacy(
    model: torch.nn.Module,
    batches: Iterable[torch.Tensor],
    step_fn: StepFn,
    *,
    log_every: int = 50,
    grad_clip: float = 1.0,
) -> list[float]:
    """Run the old single-process loop and return every step's loss."""
    warnings.warn("train_legacy is deprecated", DeprecationWarning, stacklevel=2)
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4)
    losses: list[float] = []
    for step, batch in enumerate(batches):
        optimizer.zero_grad(set_to_none=True)
        loss = step_fn(batch)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), grad_clip)
        optimizer.step()
        losses.append(float(loss))
        if step % log_every == 0:
            print(f"step {step}: loss {losses[-1]:.4f}")
    return losses
'''

# dev: "Let the legacy trainer run FP8 recipes"
LEGACY_TRAINER_DEV = LEGACY_TRAINER.replace(
    "    grad_clip: float = 1.0,\n",
    "    grad_clip: float = 1.0,\n    fp8_recipe: str | None = None,\n",
).replace(
    "        loss = step_fn(batch)\n",
    '        with torch.autocast("cuda", enabled=fp8_recipe is not None):\n'
    "            loss = step_fn(batch)\n",
)

_ROUTER_HEAD = '''"""Token routing for mixture-of-experts layers."""

from __future__ import annotations

import torch
import torch.nn.functional as F
'''

_TOPK = '''

class TopKRouter(torch.nn.Module):
    """Send every token to its ``k`` highest-scoring experts."""

    def __init__(self, hidden: int, experts: int, k: int = 2) -> None:
        super().__init__()
        self.gate = torch.nn.Linear(hidden, experts, bias=False)
        self.k = k

    def forward(self, tokens: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        scores = F.softmax(self.gate(tokens), dim=-1, dtype=torch.float32)
        weights, experts = torch.topk(scores, self.k, dim=-1)
        return weights / weights.sum(dim=-1, keepdim=True), experts
'''

_EXPERT_CHOICE = '''

class ExpertChoiceRouter(torch.nn.Module):
    """Let every expert pick its ``capacity`` favourite tokens (expert-choice routing)."""

    def __init__(self, hidden: int, experts: int, capacity_factor: float = 1.25) -> None:
        super().__init__()
        self.gate = torch.nn.Linear(hidden, experts, bias=False)
        self.capacity_factor = capacity_factor

    def forward(self, tokens: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        logits = self.gate(tokens).float().transpose(0, 1)
        capacity = int(self.capacity_factor * tokens.shape[0] / logits.shape[0])
        return torch.topk(logits.softmax(dim=-1), capacity, dim=-1)
'''

_FACTORY = '''

def build_router(kind: str, hidden: int, experts: int) -> torch.nn.Module:
    """The router a config names: ``topk`` (main) or ``expert_choice`` (dev)."""
    if kind == "expert_choice":
        return ExpertChoiceRouter(hidden, experts)
    return TopKRouter(hidden, experts)
'''

ROUTER_MAIN = _ROUTER_HEAD + _TOPK
ROUTER_DEV = _ROUTER_HEAD + _EXPERT_CHOICE
ROUTER_RESOLVED = _ROUTER_HEAD + _EXPERT_CHOICE + _TOPK + _FACTORY


def load_function(name: str) -> str:
    """checkpoint.py's loader; dev renames it from ``load_checkpoint`` to ``load_state``."""
    return f'''def {name}(path: str, *, map_location: str | None = None) -> dict[str, Any]:
    """Load the newest checkpoint under ``path``; the tracker file names its iteration."""
    tracker = os.path.join(path, "latest_checkpointed_iteration.txt")
    with open(tracker) as handle:
        iteration = int(handle.read().strip())
    model_file = os.path.join(path, f"iter_{{iteration:07d}}", "model.pt")
    return torch.load(model_file, map_location=map_location, weights_only=True)'''


def load_test(name: str) -> str:
    """The test of checkpoint.py's loader."""
    return f"""def test_{name}_reads_the_tracker(tmp_path) -> None:
    (tmp_path / "latest_checkpointed_iteration.txt").write_text("12\\n")
    (tmp_path / "iter_0000012").mkdir()
    torch.save({{"step": 12}}, tmp_path / "iter_0000012" / "model.pt")
    assert checkpoint.{name}(str(tmp_path))["step"] == 12"""


def warm_start(loader: str) -> str:
    """server.py's warm start, added on main; it calls checkpoint.py's loader by name."""
    return f'''def warm_start(engine: InferenceEngine, checkpoint_dir: str) -> None:
    """Load the newest checkpoint in ``checkpoint_dir`` into ``engine`` before serving."""
    state = {loader}(checkpoint_dir, map_location="cpu")
    engine.model.load_state_dict(state["model"], strict=False)
    logger.info("warm-started from %s (step %d)", checkpoint_dir, state.get("step", -1))'''


TOP_P_GENERATE = '''def sample_top_p(logits: torch.Tensor, top_p: float = 0.9) -> torch.Tensor:
    """Sample one token per row from the smallest set whose probability exceeds ``top_p``."""
    filtered = top_p_filter(logits, top_p)
    return torch.multinomial(filtered.softmax(dim=-1), num_samples=1).squeeze(-1)'''

ADAFACTOR = '''def adafactor_factored_shape(shape: tuple[int, ...]) -> tuple[int, int] | None:
    """The two dimensions Adafactor factors its second moment over, or None for vectors."""
    if len(shape) < 2:
        return None
    ranked = sorted(range(len(shape)), key=lambda dim: shape[dim])
    return ranked[-2], ranked[-1]'''

ADAFACTOR_TEST = """def test_adafactor_factors_the_two_largest_dims() -> None:
    assert optimizer.adafactor_factored_shape((4, 512, 1024)) == (1, 2)
    assert optimizer.adafactor_factored_shape((1024,)) is None"""

LION = '''def lion_update(
    grad: torch.Tensor, momentum: torch.Tensor, beta1: float = 0.9
) -> torch.Tensor:
    """The sign update of the Lion optimizer (Chen et al., 2023)."""
    return torch.sign(beta1 * momentum + (1.0 - beta1) * grad)'''

LION_TEST = """def test_lion_update_is_a_sign() -> None:
    update = optimizer.lion_update(torch.tensor([0.5, -2.0]), torch.zeros(2))
    assert update.tolist() == [1.0, -1.0]"""

FAKE_KV_CACHE = '''class FakeKVCache:
    """A KV cache double: records evictions instead of freeing GPU blocks."""

    def __init__(self) -> None:
        self.evicted: list[int] = []

    def evict(self, request_id: int) -> None:
        self.evicted.append(request_id)'''
