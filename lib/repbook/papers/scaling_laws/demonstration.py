"""The chapter's controlled demonstration on teacher–student families (`synthetic`): the
summary of the fitting protocols over the fitted sizes, the seed spread of final losses,
several small seeds against one larger one at about equal compute, and one model plus a
borrowed (A, α). Our Huber fit throughout; no printing, plotting or file writing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from repbook.core import checks
from repbook.core.stats import spearman_rho

from .synthetic import (
    TeacherStudent,
    are,
    compute_cost,
    final_loss,
    fit_curves,
    select,
    teacher_student_family,
)


@dataclass(frozen=True)
class ProtocolSummary:
    """A `protocol_errors` table read for the checks: `median` ARE per largest fitted size m
    (rows) and protocol (columns); Spearman's ρ between m and the median ARE of every
    checkpoint; over the (m, seed) fits, how often every checkpoint beats final losses alone
    (`wins`, with a one-sided sign test's p) and how often dropping the first 10 % beats every
    checkpoint (`wins_after_10`); `medians`: each protocol's median over all fits."""

    median: pd.DataFrame
    rho: float
    pairs: int
    wins: int
    sign_p: float
    wins_after_10: int
    medians: pd.Series

    @property
    def sizes(self) -> np.ndarray:
        """The largest fitted sizes m, smallest first."""
        return self.median.index.to_numpy()

    @property
    def median_all(self) -> np.ndarray:
        """The median ARE of every checkpoint, per m."""
        return self.median["all checkpoints"].to_numpy()


def summarise_protocols(res: pd.DataFrame) -> ProtocolSummary:
    """Read a `protocol_errors` table with the protocols "all checkpoints", "final only" and
    "after 10 %" (see `ProtocolSummary`)."""
    from scipy import stats

    med = res.groupby(["protocol", "m"]).are.median().unstack(0)
    wide = res.pivot_table(index=["m", "seed"], columns="protocol", values="are")
    wins = int((wide["all checkpoints"] < wide["final only"]).sum())
    p = float(stats.binomtest(wins, len(wide), 0.5, alternative="greater").pvalue)
    return ProtocolSummary(
        median=med,
        rho=spearman_rho(med.index.to_numpy(), med["all checkpoints"].to_numpy()),
        pairs=len(wide),
        wins=wins,
        sign_p=p,
        wins_after_10=int((wide["after 10 %"] < wide["all checkpoints"]).sum()),
        medians=wide.median(),
    )


def seed_cv(curves: pd.DataFrame) -> pd.Series:
    """Per size N: the coefficient of variation over seeds of the final loss (sd with ddof 1
    over the mean)."""
    finals = curves[curves.frac == 1.0]
    return finals.groupby("N").loss.agg(lambda x: x.std(ddof=1) / x.mean())


@dataclass(frozen=True)
class SeveralSmall:
    """Claim 6's mechanism, per seed s: ARE of one seed of the sizes up to `big` (`one_big`)
    and of seeds s and s + 1 of the sizes up to `small` (`two_small`), predicting the mean
    final loss of the target over all seeds; `cost_ratio`: their training compute, two small
    over one big."""

    one_big: np.ndarray
    two_small: np.ndarray
    cost_ratio: float

    @property
    def gains(self) -> np.ndarray:
        """Paired gains of the two small seeds, ARE(one big) − ARE(two small)."""
        return self.one_big - self.two_small


def several_small(
    curves: pd.DataFrame,
    *,
    target_N: int,
    D_target: float,
    big: int = 256,
    small: int = 128,
    fit_kwargs: dict | None = None,
) -> SeveralSmall:
    """Fit one seed of the models up to `big` and two consecutive seeds (cyclically) of those
    up to `small`, for every seed of `curves`, and score both on the mean final loss of
    `target_N` over the seeds (at `D_target` samples)."""
    checks.integer("big", big, at_least=1)
    checks.integer("small", small, at_least=1)
    kw = dict(fit_kwargs or {})
    seeds = [int(s) for s in sorted(curves.seed.unique())]
    if len(seeds) < 2:
        raise ValueError(f"curves must hold at least 2 seeds, got {len(seeds)}")
    n = len(seeds)
    finals = curves[curves.frac == 1.0]
    actual = float(finals[finals.N == target_N].loss.mean())

    def score(max_N, use):
        law = fit_curves(select(curves, max_N=max_N, seeds=use), **kw)
        return are(law.predict(target_N, D_target), actual)

    one_big = np.array([score(big, [s]) for s in seeds])
    two_small = np.array(
        [score(small, [s, seeds[(i + 1) % n]]) for i, s in enumerate(seeds)]
    )
    cost_big = compute_cost(select(curves, max_N=big, seeds=seeds[:1]))
    cost_small = compute_cost(select(curves, max_N=small, seeds=seeds[:2]))
    return SeveralSmall(one_big, two_small, cost_small / cost_big)


def borrowing_errors(
    source: pd.DataFrame,
    target: pd.DataFrame,
    *,
    target_N: int,
    D_target: float,
    seeds: Sequence[int] | None = None,
    sizes: Sequence[int] = (64, 128, 256),
    source_max_N: int = 256,
    fit_kwargs: dict | None = None,
) -> pd.DataFrame:
    """Claim 5's mechanism, per seed s: the law of the `source` family (models up to
    `source_max_N`, seed s) as is, and one model of the `target` family (each size n in
    `sizes`, seed s) fitted with the source's (A, α), both scored on the target family's
    final loss of `target_N` (seed s); `seeds`: every seed of `target` unless given. One row
    per (n, seed): `borrowed`, `as_is`."""
    kw = dict(fit_kwargs or {})
    if seeds is None:
        seeds = [int(s) for s in sorted(target.seed.unique())]
    rows = []
    for s in seeds:
        law = fit_curves(select(source, max_N=source_max_N, seeds=[s]), **kw)
        actual = final_loss(target, target_N, s)
        for n in sizes:
            one = target[(target.N == n) & (target.seed == s)]
            borrowed = fit_curves(one, fixed={"A": law.A, "alpha": law.alpha}, **kw)
            rows.append(
                dict(
                    n=n,
                    seed=s,
                    borrowed=are(borrowed.predict(target_N, D_target), actual),
                    as_is=are(law.predict(target_N, D_target), actual),
                )
            )
    return pd.DataFrame(rows)


def demo_families(
    sizes: Sequence[int],
    seeds: int,
    seeds_other: int,
    *,
    seed: int = 0,
    spectra: tuple[float, float] = (1.3, 1.5),
    **train,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The demonstration's two teacher–student families: A (feature spectrum k^−1.3, `seeds`
    seeds, generator offset 1000·seed) and B (k^−1.5, `seeds_other` seeds, offset
    1000·seed + 200), every size in `sizes`; `train` goes to `teacher_student_family`
    (steps, batch, lr, n_checkpoints)."""
    checks.integer("seed", seed, at_least=0)
    fam_a = teacher_student_family(
        TeacherStudent(spectrum=spectra[0]), sizes, range(seeds), family="A",
        seed_offset=1000 * seed, **train,
    )  # fmt: skip
    fam_b = teacher_student_family(
        TeacherStudent(spectrum=spectra[1]), sizes, range(seeds_other), family="B",
        seed_offset=1000 * seed + 200, **train,
    )  # fmt: skip
    return fam_a, fam_b
