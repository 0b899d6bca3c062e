"""The claims ledger: one record per claim, a verdict, a rendered table and a JSON file per chapter."""
from __future__ import annotations

import json
import math
import os
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

VERDICTS = ("reproduced", "not reproduced", "not checked at this scale", "quoted")
MARKS = {"reproduced": "✓", "not reproduced": "✗", "not checked at this scale": "○", "quoted": "❝"}
"""Plain symbols (in DejaVu Sans), not emoji: they render in every browser and terminal."""


def fmt(value: Any, digits: int = 3) -> str:
    """Format a measured value for the ledger: numbers to `digits` significant figures.

    Sequences are formatted element-wise; strings pass through. Rounding makes re-runs print the
    same text even when the last float digits move.
    """
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "yes" if value else "no"
    if hasattr(value, "item") and getattr(value, "ndim", 1) == 0:
        value = value.item()
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value) or math.isinf(value):
            return str(value)
        if value == 0:
            return "0"
        out = f"{value:.{digits}g}"
        return out.replace("e-0", "e-").replace("e+0", "e+")
    if isinstance(value, dict):
        return ", ".join(f"{k}={fmt(v, digits)}" for k, v in value.items())
    if isinstance(value, Sequence) or hasattr(value, "tolist"):
        seq = value.tolist() if hasattr(value, "tolist") else value
        return "[" + ", ".join(fmt(v, digits) for v in seq) + "]"
    raise TypeError(f"cannot format a measured value of type {type(value).__name__}: {value!r}")


@dataclass(frozen=True)
class Claim:
    """One claim of a paper as the chapter tested it."""

    chapter: str
    id: str
    statement: str
    paper: str
    measured: str
    criterion: str
    verdict: str
    scale: str
    note: str = ""


class Ledger:
    """Collects a chapter's claims in the order they are checked.

    `check` turns a pre-registered criterion's outcome into `reproduced` / `not reproduced`;
    `not_checked` records what would check a claim; `quote` shows a paper's number for context
    (never counted as reproduced).
    """

    def __init__(self, chapter: str, scale: str, *, seed: int | None = None,
                 device: str | None = None):
        self.chapter, self.scale, self.seed, self.device = chapter, scale, seed, device
        self.claims: list[Claim] = []

    @classmethod
    def for_run(cls, run) -> "Ledger":
        return cls(run.chapter, run.scale, seed=run.seed, device=run.device_name or run.device)

    def _add(self, claim_id, statement, paper, measured, criterion, verdict, note) -> None:
        claim_id = str(claim_id)
        if any(c.id == claim_id for c in self.claims):
            raise ValueError(f"claim id {claim_id!r} is already in the ledger of {self.chapter}")
        for name, text in (("statement", statement), ("criterion", criterion)):
            if verdict != "quoted" and not str(text).strip():
                raise ValueError(f"claim {claim_id!r}: {name} must not be empty")
        claim = Claim(self.chapter, claim_id, statement, paper, fmt(measured), criterion, verdict,
                      self.scale, note)
        self.claims.append(claim)
        print(f"claim {claim_id}: {MARKS[verdict]} {verdict} (ours: {claim.measured})")

    def check(self, claim_id, statement: str, *, paper: str, measured: Any, criterion: str,
              passed: bool, note: str = "") -> None:
        """Record a checked claim. `passed` is the outcome of `criterion`, fixed before the run."""
        if not isinstance(passed, (bool, np.bool_)):
            raise TypeError(f"claim {claim_id!r}: passed must be a bool, got {passed!r}")
        verdict = "reproduced" if bool(passed) else "not reproduced"
        self._add(claim_id, statement, paper, measured, criterion, verdict, note)

    def not_checked(self, claim_id, statement: str, *, paper: str, criterion: str,
                    note: str) -> None:
        """A claim this scale cannot test; `note` says what would test it."""
        self._add(claim_id, statement, paper, "—", criterion,
                         "not checked at this scale", note)

    def quote(self, claim_id, statement: str, *, paper: str, note: str = "") -> None:
        """A paper's number shown for context, not re-derived."""
        self._add(claim_id, statement, paper, "—", "—", "quoted", note)

    def counts(self) -> dict[str, int]:
        return {v: sum(c.verdict == v for c in self.claims) for v in VERDICTS}

    def summary(self) -> str:
        n = self.counts()
        checked = n["reproduced"] + n["not reproduced"]
        return (f"{self.chapter}: {n['reproduced']}/{checked} checked claims reproduced"
                + (f", {n['not checked at this scale']} not checked at this scale"
                   if n["not checked at this scale"] else "")
                + (f", {n['quoted']} quoted" if n["quoted"] else "") + f" ({self.scale} scale)")

    def markdown(self) -> str:
        """The verdict table as Markdown; values are already rounded, so re-runs print the same."""
        def cell(text: str) -> str:
            return str(text).replace("|", "\\|").replace("\n", " ")

        rows = ["| # | claim | paper | ours | criterion (fixed before the run) | verdict |",
                "|---|---|---|---|---|---|"]
        for c in self.claims:
            verdict = f"{MARKS[c.verdict]} {c.verdict}" + (f" — {c.note}" if c.note else "")
            rows.append("| " + " | ".join(cell(x) for x in
                        (c.id, c.statement, c.paper, c.measured, c.criterion, verdict)) + " |")
        return "\n".join(rows) + f"\n\n**{self.summary()}**"

    def to_dict(self) -> dict:
        return {"chapter": self.chapter, "scale": self.scale, "seed": self.seed,
                "device": self.device, "counts": self.counts(),
                "claims": [asdict(c) for c in self.claims]}

    @staticmethod
    def output_dir() -> Path:
        """Where a run's outputs go: $REPBOOK_LEDGER_DIR (the runner's run folder) or
        `<repo>/_build/ledgers` when a chapter runs by hand. Created if missing."""
        directory = os.environ.get("REPBOOK_LEDGER_DIR")
        if directory is None:
            from .data import repo_root

            directory = repo_root() / "_build" / "ledgers"
        path = Path(directory)
        path.mkdir(parents=True, exist_ok=True)
        return path

    def save(self, directory: str | os.PathLike | None = None) -> Path:
        """Write `<chapter>.json` to `directory`, or to `output_dir()`."""
        path = Path(directory or self.output_dir()) / f"{self.chapter}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(self.to_dict(), indent=1, ensure_ascii=False) + "\n")
        return path

    def show(self):
        """Save the JSON and display the verdict table (Markdown in the book, text elsewhere)."""
        self.save()
        from IPython.display import Markdown, display

        display(Markdown(self.markdown()))
