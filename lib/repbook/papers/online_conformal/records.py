"""Readings of the chapter's committed stability record (its claims' margins on several
seeds), from plain {seed: margin} maps: the margin range of a claim whose verdict holds on
every seed, and the claims whose margin does not move with the seed."""

from __future__ import annotations


import numpy as np


def margin_range_line(claim_id: str, entry, *, binding: str, margin: float) -> str:
    """One line on a claim's margins over the record's seeds (`entry`: the record's entry for
    the claim, with `margins` and `verdicts` by seed, or None): its verdict(s), the smallest
    and largest margin with their seeds, the median seed's, and this run's binding part and
    margin; or that the entry is missing or stale."""
    margins = getattr(entry, "margins", None)
    verdicts = getattr(entry, "verdicts", None)
    if not margins or any(m is None for m in margins.values()):
        return f"Claim {claim_id}'s entry in the stability record is missing or stale."
    m = {int(k): v for k, v in margins.items()}
    lo, hi = min(m, key=m.get), max(m, key=m.get)
    span = f"{m[lo]:+.5f} (seed {lo}) to {m[hi]:+.5f} (seed {hi})"
    words = sorted(set(verdicts.values()))
    if len(words) != 1:
        return (
            f"Stability record: claim {claim_id}'s verdicts differ between seeds, "
            f"{dict(verdicts)}; margins {span}."
        )
    return (
        f"Stability record (seeds {', '.join(map(str, sorted(m)))}): claim {claim_id} is "
        f"{words[0]} on every seed, but its margin ranges from {span}; the median seed's "
        f"is {float(np.median(list(m.values()))):+.5f}. The margin is that of the part "
        f"closest to failing, in its own units (this run: {binding}, {margin:+.5f})."
    )


def same_margin_lines(record, claims, pooled=("1d",)) -> list[str]:
    """Lines naming the `claims` (objects with an `id`, in order) whose margin is the same on
    every seed of the stability `record` (its `current(claim)` entry has `margins` by seed;
    more than one seed, none missing): those whose data and tuning do not depend on the seed,
    and those (`pooled`) that read every seed in each run. None when there is no record."""
    if record is None:
        return []
    seeds = record.seeds
    margins = {
        c.id: entry.margins for c in claims if (entry := record.current(c)) is not None
    }
    same = [
        cid
        for cid, m in margins.items()
        if len(m) > 1 and None not in m.values() and len(set(m.values())) == 1
    ]
    seeds_txt = ", ".join(str(s) for s in seeds)
    lines = []
    if fixed := [c for c in same if c not in pooled]:
        lines.append(
            f"Claim(s) {', '.join(fixed)} give the same margin on every seed of the "
            f"record ({seeds_txt}): their data and tuning do not depend on the seed, so "
            "their seed column shows one outcome repeated, not a spread."
        )
    if read_all := [c for c in same if c in pooled]:
        lines.append(
            f"Check(s) {', '.join(read_all)} give the same margin on every seed because "
            f"each run already reads every seed of the record ({seeds_txt})."
        )
    return lines
