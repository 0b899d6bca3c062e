"""The per-kind readings of claims 3 and 4 (``per_kind``: the median draw of the one-weight kinds,
the worst draw of the others), claim 3's measured values and note, which recipe of the scan is
judged (``judged_recipe``), and claim 4a's and our check 4b's inputs, measured values and note.
No function here prints, plots or writes files.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .basins import JudgedCopies
from .protocol import barrier_kept


def per_kind(
    df: pd.DataFrame, col: str, worst: Callable, *, one_weight: Sequence[str]
) -> dict[str, float]:
    """A value per kind over its draws: the median for the one-weight kinds (which weight is
    a random draw), the worst draw for the others (every draw must hold)."""
    return {
        k: float(d[col].median() if k in one_weight else worst(d[col]))
        for k, d in df.groupby("kind", sort=False)
    }


def claim3_measured(
    at_0: pd.DataFrame,
    at_half: Mapping[str, float],
    *,
    column: str,
    independent: float,
    noise: float,
    one_weight: Sequence[str],
) -> dict:
    """Claim 3's measured values: the barrier at t = 0 per kind (``per_kind`` of ``column``
    over the draws of ``at_0``, the worst draw of the Gaussian kinds), the independent-init
    barrier, the barriers at T/2 of the small perturbations, the training-noise barrier."""
    return {
        "barrier at t = 0": per_kind(at_0, column, min, one_weight=one_weight),
        "independent-init barrier": independent,
        "barrier at t = T/2, σ ≤ 1e-2": dict(at_half),
        "training-noise barrier": noise,
    }


def kept_by_alignment(
    df: pd.DataFrame, *, floor: float, one_weight: Sequence[str]
) -> tuple[dict[str, float], dict[str, int]]:
    """Aligned / unaligned barrier per kind on the draws with a barrier ≥ ``floor`` (median
    for the one-weight kinds, the worst draw for the others; NaN when none is read), and how
    many draws were read per kind."""
    vals, n_read = {}, {}
    for k, d in df.groupby("kind", sort=False):
        r, n = barrier_kept(d.barrier, d.barrier_aligned, floor=floor)
        n_read[k] = n
        vals[k] = float(np.median(r) if k in one_weight else r.min()) if n else math.nan
    return vals, n_read


@dataclass(frozen=True)
class Judged:
    """Which row of the scan table is judged (0: the chapter's recipe; i ≥ 1: the scan's
    i-th; None: no recipe meets the gate), its name, and the share the gate reads (the judged
    recipe's, or the largest when none is judged)."""

    index: int | None
    name: str | None
    gate_value: float


def judged_recipe(table: pd.DataFrame) -> Judged:
    """The first recipe of ``scan_table`` that meets the gate."""
    meets = [i for i, ok in enumerate(table["meets gate"]) if ok]
    judged = meets[0] if meets else None
    name = table.index[judged] if judged is not None else None
    shares = table["share"]
    value = float(shares.iloc[judged] if judged is not None else shares.max())
    return Judged(judged, name, value)


def claim3_note(judged: str | None, gate_value: float) -> str:
    """Claim 3's note: no recipe meets the gate, or which one is judged and its share."""
    if judged is None:
        return (
            "no recipe tried leaves a training-noise barrier of 10 % of the "
            "independent-init barrier, so no barrier is predicted (the scan is shown)"
        )
    return (
        f"judged at {judged}: training-noise barrier "
        f"{gate_value:.1%} of the independent-init barrier"
    )


@dataclass(frozen=True)
class Claim4aInputs:
    """What claim 4a reads: the perturbed pairs at t = 0 (of the judged recipe, or of the
    grid), the barrier kept by alignment per kind and how many draws were read, the identity
    matchings among them, the L² kept by alignment of the independent pairs, and the line
    that says so."""

    pairs: pd.DataFrame
    kept: dict[str, float]
    read: dict[str, int]
    n_identity: int
    kept_indep: list | np.ndarray
    line: str


def claim4a_inputs(
    align: pd.DataFrame,
    judged: JudgedCopies | None,
    judged_at_0: pd.DataFrame | None,
    judged_name: str | None,
    *,
    kinds: Sequence[str],
    indep_label: str,
    floor: float,
    one_weight: Sequence[str],
) -> Claim4aInputs:
    """Claim 4a's inputs at the judged recipe (``judged`` and its pairs at t = 0) or, when
    none is judged, on the grid's pairs at t = 0 (``align``'s rows of ``kinds``)."""
    src = judged_at_0 if judged is not None else align[align.kind.isin(kinds)]
    kept, read = kept_by_alignment(src, floor=floor, one_weight=one_weight)
    n_ident = int(src.identity.sum())
    kept_indep = align[align.kind == indep_label]["kept by alignment"].to_numpy()
    if judged is not None:
        kept_indep = [judged.independent["l2_aligned"] / judged.independent["l2"]]
    counts = {k: f"{n} of {int((src.kind == k).sum())}" for k, n in read.items()}
    line = (
        f"4a at {judged_name or 'no judged recipe'}: weight matching returned the identity "
        f"for {n_ident} of {len(src)} perturbed pairs at t = 0; barrier ratio read on "
        + ", ".join(f"{k}: {v}" for k, v in counts.items())
        + " draws (barrier ≥ 0.01 nats)"
    )
    return Claim4aInputs(src, kept, read, n_ident, kept_indep, line)


KEPT_4A = "aligned / unaligned barrier at t = 0 (barrier ≥ 0.01)"
INDEP_4A = "aligned / unaligned L², independent pairs"
NONID_4A = "non-identity matchings (perturbed pairs, judged recipe)"
CLAIM_4A_KEYS = (KEPT_4A, INDEP_4A, NONID_4A)
"""The values claim 4a's criterion and gate read (in ``claim4a_measured``)."""


def claim4a_measured(c4: Claim4aInputs, *, gate_key: str, gate_value: float) -> dict:
    """Claim 4a's measured values: the barrier kept per kind (``KEPT_4A``), the draws read,
    the independent pairs' L² kept (``INDEP_4A``), the gate of claim 3 (``gate_key``), and
    the identity and non-identity matchings (``NONID_4A``)."""
    n_ident = c4.n_identity
    return {
        KEPT_4A: c4.kept,
        "draws read (barrier ≥ 0.01)": c4.read,
        INDEP_4A: c4.kept_indep,
        gate_key: gate_value,
        "identity matchings (perturbed pairs, judged recipe)": n_ident,
        NONID_4A: len(c4.pairs) - n_ident,
    }


def claim4a_note(judged: str | None, c4: Claim4aInputs) -> str:
    """Claim 4a's note: no judged recipe (no barrier to survive alignment), copies already
    aligned (every matching the identity: the claim cannot be tested), or the judged recipe
    and how many draws were read."""
    n_pairs = len(c4.pairs)
    if judged is None:
        return (
            "no barrier to survive alignment: no recipe tried meets the gate of claim 3"
        )
    if c4.n_identity == n_pairs:
        return (
            f"the copies are already aligned: at {judged} weight matching returns "
            f"the identity for all {n_pairs} perturbed pairs, so alignment is a no-op "
            "and the claim cannot be tested"
        )
    return f"judged at {judged}; {sum(c4.read.values())} draws read"


def claim4b_measured(
    align: pd.DataFrame, *, kinds: Sequence[str], one_weight: Sequence[str]
) -> dict:
    """Our check 4b's measured values on the perturbed pairs at t = 0 (``align``'s rows of
    ``kinds``): the angular-CKA ratio minus the aligned-L² ratio per kind (``per_kind``,
    the worst draw of the Gaussian kinds) and both ratios of the median draw."""
    pert = align[align.kind.isin(kinds)]
    gap, cka, l2 = "CKA ratio − L² ratio", "angular CKA / noise", "aligned L² / noise"
    median = pert.groupby("kind", sort=False)[[cka, l2]].median()
    return {
        gap: per_kind(pert, gap, max, one_weight=one_weight),
        "angular-CKA ratio (median draw)": median[cka].to_dict(),
        "aligned-L² ratio (median draw)": median[l2].to_dict(),
    }
