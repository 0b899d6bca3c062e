"""The chapter's plan on the real curves: which families enter which claim (`Families`), the
list of independent fits a scale runs (`plan_tasks`), running them heaviest first
(`run_plan`, returning `PlanResults`), and the tables, gains and intervals the chapter reads
from them. No printing, plotting or file writing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from repbook.core import checks
from repbook.core.stats import t_quantile

from .real import (
    BORROWED_FROM,
    LOG2_FAMILIES,
    NOT_NATS,
    PPL_FAMILIES,
    consecutive_gains,
    family_gains,
    grouped_gains,
    models_by_size,
    official_group,
    removed_share,
    run_tasks,
    target_gains,
)

CUT_COUNTS = ("all", "each")
"""Claim 3's model counts: "all" fits all models below the target, "each" every k ≥ 2."""


@dataclass(frozen=True)
class Families:
    """The families of a curve table (official metric, `as_official`) and the claims each can
    enter. `models[f]`: f's models, smallest first (the last is the target); `lowest[f]`: the
    lowest metric of f's target (the official `at_least_loss = 10` filter skips a target above
    10)."""

    names: tuple[str, ...]
    models: Mapping[str, list[str]]
    lowest: Mapping[str, float]

    @property
    def below(self) -> dict[str, int]:
        """The number of models below each family's target."""
        return {f: len(self.models[f]) - 1 for f in self.names}

    @property
    def windows4(self) -> list[str]:
        """Claim 1: families with two windows of 4 sizes below the target."""
        return [f for f in self.names if self.below[f] >= 5]

    @property
    def windows3(self) -> list[str]:
        """Claim 1b: families with two windows of 3 sizes."""
        return [f for f in self.names if self.below[f] >= 4]

    @property
    def checkpointed(self) -> list[str]:
        """Claims 3 and 2f: Chinchilla's points are separate IsoFLOP runs, not checkpoints."""
        return [f for f in self.names if f != "chinchilla"]

    @property
    def one_model(self) -> list[str]:
        """Claim 5: every family the official one-model run fits, less the datablations GPT-2
        runs the fixed (A, α) were fitted on."""
        return [f for f in self.names if not f.startswith(BORROWED_FROM)]

    @property
    def nats(self) -> list[str]:
        """Claim 5's families whose shipped metric is a loss in nats."""
        return [f for f in self.one_model if f not in NOT_NATS]


def families(curves: pd.DataFrame) -> Families:
    """The `Families` of a curve table on the official metric."""
    names = tuple(sorted(curves.family.unique()))
    models = {f: models_by_size(curves, f) for f in names}
    lowest = {f: float(curves[curves.model == models[f][-1]].loss.min()) for f in names}
    return Families(names, models, lowest)


def plan_tasks(
    fams: Families,
    *,
    window_fractions: Sequence[float],
    cut_fractions: Sequence[float],
    cut_counts: str,
    one_model_fractions: Sequence[float],
    huber: bool,
) -> list[tuple[str, str, dict]]:
    """The independent fits of a scale, as (protocol, family, keyword arguments) for
    `run_tasks`: claim 1's windows of 4 and 3 sizes, claim 2's minimal cut, claim 3's fits
    with and without the 10¹⁰-token cut (`cut_counts`: all models below the target, or each
    k ≥ 2), claim 5's one-model fits, and 2f's final-only pairs; with `huber`, our objective's
    windows of 4 and cut pairs too."""
    checks.one_of("cut_counts", cut_counts, CUT_COUNTS)
    below = fams.below

    def counts(f):
        return [below[f]] if cut_counts == "all" else range(2, below[f] + 1)

    wf, cf, of = window_fractions, cut_fractions, one_model_fractions
    return (
        [("window_errors", f, dict(size=4, fractions=wf)) for f in fams.windows4]
        + [("window_errors", f, dict(size=3, fractions=wf)) for f in fams.windows3]
        + [("window_errors", f, dict(size=4, fractions=wf, objective="huber"))
           for f in fams.windows4 if huber]
        + [("minimal_cut_pair", f, {}) for f in fams.names]
        + [("protocol_pair", f, dict(baseline=dict(min_tokens=0), method={},
                                     fractions=cf, counts=counts(f)))
           for f in fams.checkpointed]
        + [("protocol_pair", f, dict(baseline=dict(min_tokens=0, objective="huber"),
                                     method=dict(objective="huber"), fractions=cf,
                                     counts=counts(f)))
           for f in fams.checkpointed if huber]
        + [("one_model_errors", f, dict(fractions=of)) for f in fams.one_model]
        + [("protocol_pair", f, dict(baseline=dict(final_only=True, test_fraction=1.0),
                                     method=dict(test_fraction=1.0),
                                     counts=range(3, below[f] + 1)))
           for f in fams.checkpointed if below[f] >= 3]
    )  # fmt: skip


@dataclass(frozen=True)
class PlanResults:
    """The tasks of a plan and their result tables, in the plan's order."""

    tasks: tuple
    frames: tuple

    def _matching(self, keep) -> list[pd.DataFrame]:
        return [r for t, r in zip(self.tasks, self.frames) if keep(t)]

    def collect(self, protocol: str, **match) -> pd.DataFrame:
        """The non-empty results of `protocol` whose keyword arguments equal `match` (a
        missing argument reads as None), stacked; an empty table when there are none."""
        out = self._matching(
            lambda t: (
                t[0] == protocol and all(t[2].get(k) == v for k, v in match.items())
            )
        )
        out = [o for o in out if len(o)]
        return pd.concat(out, ignore_index=True) if out else pd.DataFrame()

    def cut_pairs(self, objective: str | None = None) -> pd.DataFrame:
        """Claim 3's pairs (no cut vs the 10¹⁰-token cut) fitted with `objective` (None: the
        official one), stacked."""
        return pd.concat(
            self._matching(
                lambda t: (
                    t[0] == "protocol_pair"
                    and t[2]["baseline"].get("min_tokens") == 0
                    and t[2]["method"].get("objective") == objective
                )
            ),
            ignore_index=True,
        )

    def family_gains(self, objective: str | None = None) -> pd.Series:
        """Claim 1's gain per family (windows of 4) fitted with `objective` (None: the
        official one)."""
        windows = self.collect("window_errors", size=4, objective=objective)
        return family_gains(consecutive_gains(windows))

    def final_only_pairs(self) -> pd.DataFrame:
        """2f's pairs (final losses only vs every checkpoint), stacked."""
        return pd.concat(
            self._matching(
                lambda t: t[0] == "protocol_pair" and t[2]["baseline"].get("final_only")
            ),
            ignore_index=True,
        )


def run_plan(
    curves: pd.DataFrame, tasks, fams: Families, *, n_jobs: int = 1
) -> PlanResults:
    """Run the tasks (`run_tasks`), the families with the most models first so that the
    slowest fits start early in the worker pool; the results come back in the plan's order
    (the fits are deterministic, so neither the order nor `n_jobs` changes them)."""
    tasks, below = list(tasks), fams.below
    order = sorted(range(len(tasks)), key=lambda i: -below[tasks[i][1]])
    done = run_tasks(curves, [tasks[i] for i in order], n_jobs=n_jobs)
    frames: list = [None] * len(tasks)
    for i, frame in zip(order, done):
        frames[i] = frame
    return PlanResults(tuple(tasks), tuple(frames))


def nats_errors(
    shipped: pd.DataFrame,
    official: pd.DataFrame,
    families: Sequence[str],
    *,
    fractions: Sequence[float],
    n_jobs: int = 1,
) -> pd.DataFrame:
    """Claim 5's one-model table on losses in nats: the families whose official metric is not
    the shipped ln-perplexity (OPT, T5-Pile) refitted on the `shipped` curves, the others
    taken from `official` (a `one_model_errors` table; the same fits), in `families`' order."""
    refit = [f for f in families if f in PPL_FAMILIES + LOG2_FAMILIES]
    tasks = [("one_model_errors", f, dict(fractions=fractions)) for f in refit]
    nats = dict(zip(refit, run_tasks(shipped, tasks, n_jobs=n_jobs)))
    return pd.concat(
        [nats.get(f, official[official.family == f]) for f in families],
        ignore_index=True,
    )


def one_model_sensitivity(res: pd.DataFrame, res_nats: pd.DataFrame) -> dict:
    """Claim 5's pairs read three other ways (no criterion): against the free five-parameter
    fit, on losses in nats only, and as relative gains of the no-size comparator."""
    return {
        "against the free fit": target_gains(res, "free"),
        "nats only": target_gains(res_nats, "no_size"),
        "relative gain": target_gains(res, "no_size", relative=True),
    }


def sensitivity_lines(res: pd.DataFrame, res_nats: pd.DataFrame) -> list[str]:
    """One printed line per reading of `one_model_sensitivity`: mean, 95 % t interval and
    sign count, then the per-target gains (points of ARE; the relative gain as a fraction of
    the comparator's ARE)."""
    lines = []
    for name, g in one_model_sensitivity(res, res_nats).items():
        relative = name == "relative gain"
        unit = "fraction of the comparator's ARE" if relative else "points"
        x = 1.0 if relative else 100.0
        lines.append(
            f"{name}: {interval_text(g.to_numpy(), x)} ({unit}); {gains_text(g, x)}"
        )
    return lines


ONE_MODEL_COLUMNS = {
    "no_size": "no size term (%)",
    "fixed": "datablations (A, α) (%)",
    "free": "free fit (%)",
}
"""Claim 5's columns as the chapter prints them."""


def one_model_means(res: pd.DataFrame) -> pd.DataFrame:
    """Claim 5's table: per target family, the mean ARE of each one-model fit."""
    return res.groupby("family", sort=False)[["no_size", "fixed", "free"]].mean()


def borrowed_table(res: pd.DataFrame) -> pd.DataFrame:
    """A `borrowed_errors` table summarised per target: median ARE of borrowing and of the
    other law as is, and the target's own law, in % (2 decimals)."""
    med = res.groupby("target", sort=False)[["borrowed", "as_is", "own"]].median()
    return (
        (100 * med)
        .round(2)
        .rename(
            columns={
                "borrowed": "borrowed (median %)",
                "as_is": "other as is (median %)",
                "own": "own law (%)",
            }
        )
    )


def minimal_cut_table(res: pd.DataFrame) -> pd.DataFrame:
    """Claim 2's table: per (family, k), both AREs in % and the late-cut fit's points and
    sizes."""
    tab = res.set_index(["family", "k"])
    both = (100 * tab[["baseline", "method"]]).round(2)
    return pd.concat(
        [both, tab[["baseline_points", "baseline_models"]]], axis=1
    ).rename(
        columns={
            "baseline": "from 99 % (%)",
            "method": "from 10 % (%)",
            "baseline_points": "late-cut points",
            "baseline_models": "late-cut sizes",
        }
    )


def left_out_groups(
    res: pd.DataFrame, gains: pd.Series, families: Sequence[str]
) -> tuple[list[str], list[str]]:
    """Claim 2's official groups that do not enter: those with no pair at all (no checkpoint
    in the window's last 1 %, or a fit failed), and those paired but without a late-cut fit
    that passes the gate (not in `gains`)."""
    paired = {official_group(f) for f in res.family}
    no_pair = sorted({official_group(f) for f in families} - paired)
    return no_pair, sorted(paired - set(gains.index))


def gains_text(gains: pd.Series, scale: float = 100.0) -> str:
    """Labelled gains times `scale` (points of ARE by default): "OPT -0.27, gpt3 +1.17"."""
    return ", ".join(f"{k} {scale * v:+.2f}" for k, v in gains.items())


def cut_gains(
    res: pd.DataFrame, *, min_share: float = 0.05
) -> tuple[pd.Series, pd.Index, pd.Series]:
    """Claim 3's reading of a table of (no cut, cut) pairs: the share of fitted points the cut
    removes per official group, the groups where it removes at least `min_share`, and the
    grouped gains (ARE without the cut − with it) of those groups."""
    checks.probability("min_share", min_share)
    share = removed_share(res)
    bites = share[share >= min_share].index
    gains = grouped_gains(res)
    return share, bites, gains[gains.index.isin(bites)]


def record_gain_lines(claims) -> list[str]:
    """For the recorded claims of a full-scale record (objects with `id` and `measured`), one
    line per claim with gains: "  claim 1 at full scale, points of ARE: OPT -4.57, ..."."""
    return [
        f"  claim {c.id} at full scale, points of ARE: {gains}"
        for c in claims
        if (gains := record_gains(c.measured))
    ]


def gain_lines(label: str, gains: pd.Series) -> str:
    """Two printed lines: the labelled gains in points of ARE, then their sign count."""
    return (
        f"{label} (points of ARE): {gains_text(gains)}\nsign count: {sign_count(gains)}"
    )


def record_gains(measured: Mapping) -> str:
    """The labelled gains of a recorded claim's measured values (those named "... gain ..."
    that are {label: value} maps) in points of ARE, "; " between values; "" when none."""
    return "; ".join(
        gains_text(pd.Series(x, dtype=float))
        for name, x in measured.items()
        if "gain" in name and isinstance(x, Mapping) and x
    )


def sign_count(gains) -> str:
    """The sign count, a diagnostic beside each paired gain: how many pairs are positive."""
    values = list(gains.values()) if isinstance(gains, dict) else gains
    g = np.asarray(values, float)
    return f"{int((g > 0).sum())} of {len(g)} pairs positive"


def interval_text(gains, scale: float = 100.0) -> str:
    """The mean of paired gains and its 95 % t interval (Student's t on n − 1 degrees of
    freedom, at least 2), times `scale` (points of ARE by default), with the sign count."""
    g = np.asarray(gains, dtype=float)
    if len(g) < 2:
        return f"{scale * g.mean():+.2f} (n = {len(g)}: no interval)"
    half = t_quantile(max(len(g), 3)) * g.std(ddof=1) / np.sqrt(len(g))
    lo, hi = scale * (g.mean() - half), scale * (g.mean() + half)
    return (
        f"{scale * g.mean():+.2f}, 95 % t interval [{lo:+.2f}, {hi:+.2f}] over "
        f"{len(g)}; {sign_count(g)}"
    )
