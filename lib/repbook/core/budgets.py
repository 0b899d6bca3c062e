"""Each chapter's quick-scale time budget, as data (`layout.BUDGETS`): 90 s on 2 CPU cores, or
150 s for a chapter its issue names training-heavy. A chapter prints its own with its run time;
the scoreboard flags a run over its budget."""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from .. import layout


@dataclass(frozen=True)
class Budget:
    seconds: float
    why: str


FALLBACK = {
    "default": {"seconds": 90, "why": "the book's quick scale (no budget table)"}
}
"""The budget of a book without a table (the design's 90 s)."""


@lru_cache(maxsize=8)
def _table(path: Path) -> dict:
    if not path.exists():
        return FALLBACK
    try:
        data = json.loads(path.read_text())
        default = data["default"]
        Budget(float(default["seconds"]), str(default["why"]))
        for stem, b in data.get("chapters", {}).items():
            Budget(float(b["seconds"]), str(b["why"]))
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ValueError(f"{path} is not a budget table: {exc}") from None
    return data


def budget_of(root: Path, stem: str) -> Budget:
    """The quick-scale budget of chapter `stem` (its own entry, else the default)."""
    data = _table(Path(root) / layout.BUDGETS)
    b = data.get("chapters", {}).get(stem, data["default"])
    return Budget(float(b["seconds"]), str(b["why"]))


def budgeted_chapters(root: Path) -> list[str]:
    """The chapters with a budget of their own."""
    return sorted(_table(Path(root) / layout.BUDGETS).get("chapters", {}))
