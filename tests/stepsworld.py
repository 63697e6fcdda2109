"""A Python file of small functions whose sync loses dev lines by accident, in and out of hunks.

Shared by the workspace's Pilot test of accidents and ``make bench``'s hunk-move measurement.
"""

from __future__ import annotations


def steps_file(side: str, blocks: int) -> str:
    """A Python file of small functions. In every other one dev changed the lines around
    the one main changed (a conflict hunk); in the others, one line main left alone."""
    out = []
    for i in range(blocks):
        conflicted = i % 2 == 1
        value, scale, total = f"batch + {i}", f"{i} * 2", "value * scale"
        if side == "dev":
            value += f" + offset_{i}"
            if conflicted:
                total += f" + bias_{i}"
        if side == "main" and conflicted:
            scale = f"{i} * 3"
        out.append(
            f"def step_{i}(batch):\n    value = {value}\n    scale = {scale}\n"
            f"    total = {total}\n    return total\n\n"
        )
    return "".join(out)
