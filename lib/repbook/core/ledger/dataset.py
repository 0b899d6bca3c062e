"""The claims of the whole book as a data set (claims.csv, claims.json) and the points of the
book-wide margin figure."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path

from ... import layout
from .tables import BookEntry, stability_cells

CLAIM_FIELDS = (
    "chapter",
    "claim",
    "statement",
    "paper",
    "source",
    "role",
    "ours",
    "measured",
    "criterion",
    "gate",
    "margin",
    "normalized_margin",
    "verdict",
    "note",
    "evidence",
    "regime",
    "tolerance",
    "seeds",
    "scale",
    "seed",
    "date",
    "commit",
)


def claims_dataset(
    entries: Sequence[BookEntry], *, date: str, commit: str
) -> list[dict]:
    """Every claim of every chapter's quick run, one record each (the ledgers' own values)."""
    rows = []
    for e in entries:
        if e.quick is None:
            continue
        seeds = stability_cells(e.quick, e.stability)
        for c in e.quick.claims:
            rows.append(
                {
                    "chapter": e.stem,
                    "claim": c.id,
                    "statement": c.statement,
                    "paper": c.paper,
                    "source": c.source,
                    "role": c.role,
                    "ours": c.ours(),
                    "measured": c.measured,
                    "criterion": c.criterion_text,
                    "gate": c.gate,
                    "margin": c.margin,
                    "normalized_margin": c.normalized_margin,
                    "verdict": c.verdict,
                    "note": c.note,
                    "evidence": c.evidence
                    or ("quoted" if c.verdict == "quoted" else ""),
                    "regime": c.regime,
                    "tolerance": c.tolerance,
                    "seeds": seeds[c.id],
                    "scale": c.scale,
                    "seed": e.quick.seed,
                    "date": date,
                    "commit": commit,
                }
            )
    return rows


def write_claims_dataset(
    rows: Sequence[Mapping], folder: str | os.PathLike
) -> tuple[Path, Path]:
    """claims.json (values as JSON) and claims.csv (the measured values as a JSON string)."""
    import csv

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    as_json = folder / layout.CLAIMS_JSON
    as_json.write_text(
        json.dumps(list(rows), indent=1, ensure_ascii=False, allow_nan=False) + "\n"
    )
    as_csv = folder / layout.CLAIMS_CSV
    with open(as_csv, "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=CLAIM_FIELDS)
        w.writeheader()
        for r in rows:
            w.writerow(
                {
                    **r,
                    "measured": json.dumps(r["measured"], ensure_ascii=False),
                    "tolerance": json.dumps(r.get("tolerance", {}), ensure_ascii=False),
                    "gate": json.dumps(r.get("gate", {}), ensure_ascii=False),
                }
            )
    return as_csv, as_json


def margin_points(entries: Sequence[BookEntry]) -> list[dict]:
    """(chapter, claim, normalised margin, verdict) of every checked claim that has a margin."""
    return [
        {
            "chapter": e.stem,
            "claim": c.id,
            "normalized": c.normalized_margin,
            "verdict": c.verdict,
            "load_dependent": c.load_dependent,
        }
        for e in entries
        if e.quick is not None
        for c in e.quick.claims
        if c.role == "paper" and c.checked and c.normalized_margin is not None
    ]
