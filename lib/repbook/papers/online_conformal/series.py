"""Claim 4's protocol: the authors' tuning protocol on real forecaster residuals, with a HAC
test of the loss differences, and the tables the chapter reads."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from repbook.core import checks

from .authors import tuned_comparison
from .data import lag1_autocorrelation, minmax_normalise
from .tracking import _check_scores
from .tuning import coverage, newey_west_test, pinball_loss


@dataclass(frozen=True)
class SeriesComparison:
    """Claim 4's protocol on one real series: `test` the test part of the (normalised) scores;
    per method, `q` its thresholds on it, `settings` what tuning chose, `loss` the mean pinball
    loss, `coverage` and `set_size` (mean threshold); `hac[b]` the one-sided HAC test of
    loss(b) − loss(LQT) > 0 per round. `scale` is (shift, divisor) of the normalisation."""

    test: np.ndarray
    q: dict
    settings: dict
    loss: dict
    coverage: dict
    set_size: dict
    hac: dict
    scale: tuple

    @property
    def baselines(self) -> list:
        return [m for m in self.q if m != "LQT"]

    @property
    def best_baseline(self) -> str:
        """The baseline with the lowest mean pinball loss on the test part."""
        return min(self.baselines, key=lambda b: self.loss[b])

    def gain(self, baseline: str | None = None) -> float:
        """1 − loss(LQT)/loss(baseline), the best baseline by default."""
        b = self.best_baseline if baseline is None else baseline
        if b not in self.baselines:
            raise ValueError(f"unknown baseline {b!r}; choose from {self.baselines}")
        return 1.0 - self.loss["LQT"] / self.loss[b]


def series_comparison(
    scores,
    *,
    val_frac: float,
    alpha: float,
    normalise: bool = True,
    hac_lags: int | None = None,
    **comparison,
) -> SeriesComparison:
    """Claim 4's protocol on one series of scores: the first `val_frac` is validation, the rest
    the test part; with `normalise`, the scores are min-max normalised by the validation part
    (`minmax_normalise`); then `tuned_comparison` (extra keywords go to it) and, against each
    baseline, a HAC test of the per-round loss differences (`newey_west_test` with `hac_lags`
    lags; None: its default rule)."""
    s = _check_scores(scores)
    checks.number("val_frac", val_frac, above=0.0, below=1.0)
    n_v = int(val_frac * s.size)
    if not 2 <= n_v <= s.size - 2:
        raise ValueError(f"val_frac={val_frac!r} leaves too few of {s.size} scores")
    if normalise:
        lo, hi = float(s[:n_v].min()), float(s[:n_v].max())
        s = minmax_normalise(s, n_v)
        scale = (lo, hi - lo)
    else:
        scale = (0.0, 1.0)
    test = s[n_v:]
    cmp = tuned_comparison(s[None, :n_v], test[None], alpha=alpha, **comparison)
    q = {k: v[0] for k, v in cmp.q.items()}
    per_round = {k: pinball_loss(test, v, alpha) for k, v in q.items()}
    return SeriesComparison(
        test=test,
        q=q,
        settings={k: v[0] for k, v in cmp.settings.items()},
        loss={k: float(v.mean()) for k, v in per_round.items()},
        coverage={k: coverage(test, v) for k, v in q.items()},
        set_size={k: float(v.mean()) for k, v in q.items()},
        hac={
            k: newey_west_test(per_round[k] - per_round["LQT"], lags=hac_lags)
            for k in q
            if k != "LQT"
        },
        scale=scale,
    )


# -- what the chapter reads from the comparisons ------------------------------------------------
def compare_series(
    series: Mapping[str, tuple],
    *,
    alpha: float,
    hac_lags: int,
    fine_lrs,
) -> tuple[dict, dict]:
    """Claim 4's two protocols on each series ({name: (scores, validation fraction)}): the
    authors' (`series_comparison` with their grids) and the lags-only sensitivity column (LQT
    with p ∈ {1, 2} and SQT, both over `fine_lrs`). Returns ({name: SeriesComparison}, the same
    for the sensitivity column)."""
    res, lags_only = {}, {}
    for name, (s, frac) in series.items():
        kw = dict(val_frac=frac, alpha=alpha, hac_lags=hac_lags)
        res[name] = series_comparison(s, **kw)
        lags_only[name] = series_comparison(
            s, **kw, lrs=fine_lrs, ps=[1, 2], sqt_lrs=fine_lrs, baselines=["SQT"]
        )
    return res, lags_only


def series_table(res: Mapping, lags_only: Mapping) -> pd.DataFrame:
    """Claim 4's table: per series and method, coverage, pinball loss, mean threshold, loss
    relative to LQT's and the HAC p-value of LQT being better; then the lags-only tracker."""
    rows = []
    for sname, r in res.items():
        for m in r.q:
            rows.append(
                {
                    "series": sname,
                    "method": m,
                    "coverage": r.coverage[m],
                    "pinball loss": r.loss[m],
                    "set size (mean q)": r.set_size[m],
                    "loss / LQT's": r.loss[m] / r.loss["LQT"],
                    "HAC p (LQT better)": r.hac[m].p_greater if m != "LQT" else np.nan,
                }
            )
        lg = lags_only[sname]
        rows.append(
            {
                "series": sname,
                "method": "LQT, lags only (sensitivity)",
                "coverage": lg.coverage["LQT"],
                "pinball loss": lg.loss["LQT"],
                "set size (mean q)": lg.set_size["LQT"],
                "loss / LQT's": lg.loss["LQT"] / r.loss["LQT"],
                "HAC p (LQT better)": np.nan,
            }
        )
    return pd.DataFrame(rows)


def default_hac_lags(T: int) -> int:
    """The default Newey–West lag rule ⌊4(T/100)^(2/9)⌋."""
    return int(np.floor(4 * (T / 100) ** (2 / 9)))


def rounded_ratio_interval(num: float, den: float, half_ulp: float) -> tuple:
    """A ratio of two numbers quoted to a rounding step: (num/den, the smallest and the largest
    ratio the unrounded numbers can have, each within ± `half_ulp`)."""
    return (
        num / den,
        (num - half_ulp) / (den + half_ulp),
        (num + half_ulp) / (den - half_ulp),
    )


@dataclass(frozen=True)
class DependenceReading:
    """Claim 4c's reading: per series, LQT's `gain` over its best baseline, the two-sided HAC
    p-value of that gain, the gain as read (0 when p ≥ 0.05), how many gains are beyond their
    noise, and Spearman's ρ between the gains as read and `rho1`, the lag-1 autocorrelation
    of the test scores."""

    gain: dict
    p_two: dict
    read: dict
    n_beyond: int
    spearman: float
    rho1: dict


def dependence_reading(res: Mapping) -> DependenceReading:
    """`DependenceReading` of the authors' protocol on each series."""
    rho1 = {k: lag1_autocorrelation(r.test) for k, r in res.items()}
    gain = {k: r.gain() for k, r in res.items()}
    p_two = {
        k: 2 * stats.norm.sf(abs(r.hac[r.best_baseline].t)) for k, r in res.items()
    }
    read = {k: (g if p_two[k] < 0.05 else 0.0) for k, g in gain.items()}
    n_beyond = sum(p < 0.05 for p in p_two.values())
    rho = float(stats.spearmanr(list(read.values()), list(rho1.values()))[0])
    return DependenceReading(gain, p_two, read, n_beyond, rho, rho1)


def default_lag_pvalues(res: Mapping, alpha: float) -> tuple[dict, dict]:
    """The HAC p-values under the default lag rule (for the record of a changed choice): per
    series the two-sided p of LQT's gain over its best baseline, and, on the first series,
    the one-sided p against each baseline."""

    def test(r, b):
        d = pinball_loss(r.test, r.q[b], alpha) - pinball_loss(
            r.test, r.q["LQT"], alpha
        )
        return newey_west_test(d)

    two = {
        k: 2 * stats.norm.sf(abs(test(r, r.best_baseline).t)) for k, r in res.items()
    }
    first = next(iter(res.values()))
    return two, {b: test(first, b).p_greater for b in first.baselines}


def series_reading(
    res: Mapping, lags_only: Mapping, reading: DependenceReading, *, alpha: float
) -> str:
    """The two lines that read claim 4: what validation chose, the gains with their
    dependence and noise, 4b's ratios on the first series (electricity), the coverage of
    LQT and of the baselines, the lags-only column's gains; then 4c's raw order of the gains
    beside that of the autocorrelations, and which gains are within their noise."""
    names = list(res)
    el = res[names[0]]
    gain, p_two, rho1 = reading.gain, reading.p_two, reading.rho1
    cov_dev = float(max(abs(r.coverage["LQT"] - (1 - alpha)) for r in res.values()))
    base_dev = max(abs(r.coverage[m] - 0.9) for r in res.values() for m in r.baselines)
    first = (
        "Under the authors' protocol on normalised scores, validation chose "
        + ", ".join(f"p = {r.settings['LQT']['p']} on {k}" for k, r in res.items())
        + ". LQT's loss gain over the best baseline is "
        + ", ".join(
            f"{100 * gain[k]:.1f} % on {k} (vs {r.best_baseline}; lag-1 autocorrelation "
            f"{rho1[k]:.2f}, two-sided HAC p = {p_two[k]:.2g})"
            for k, r in res.items()
        )
        + "; Spearman ρ of the gains as read and the autocorrelations = "
        f"{reading.spearman:.2f}. On electricity LQT's loss is "
        f"{el.loss['LQT'] / el.loss[el.best_baseline]:.3f} of {el.best_baseline}'s "
        "(4b's bar: 0.5) and its mean threshold "
        f"{el.set_size['LQT'] / el.set_size[el.best_baseline]:.3f} of it (context). "
        f"Validation-tuned LQT's coverage is within {cov_dev:.4f} of 0.9 on the three "
        f"series; the baselines' (context) within {base_dev:.4f}. Sensitivity, lags "
        "only on the wider grid: loss gain over SQT "
        + ", ".join(f"{100 * r.gain('SQT'):.1f} % on {k}" for k, r in lags_only.items())
        + "."
    )
    by_gain = sorted(gain, key=gain.get, reverse=True)
    by_rho = sorted(rho1, key=rho1.get, reverse=True)
    unresolved = [k for k in names if p_two[k] >= 0.05]
    n_beyond = reading.n_beyond
    second = (
        "4c, raw order (before reading unresolved gains as 0): gains "
        + " > ".join(f"{k} {100 * gain[k]:.1f} %" for k in by_gain)
        + "; lag-1 autocorrelations "
        + " > ".join(f"{k} {rho1[k]:.2f}" for k in by_rho)
        + (": the same order" if by_gain == by_rho else ": a different order")
        + (
            ", but only within noise: "
            + ", ".join(f"{k} (p = {p_two[k]:.2g})" for k in unresolved)
            + (" is" if len(unresolved) == 1 else " are")
            + " not resolved from 0"
            if unresolved
            else ", every gain resolved"
        )
        + f"; {n_beyond} of {len(names)} gains "
        + ("is" if n_beyond == 1 else "are")
        + " beyond noise (the gate needs 2)."
    )
    return first + "\n" + second


def same_lags_line(res: Mapping, lags_only: Mapping) -> str:
    """Whether the lags-only tracker gives the judged LQT's thresholds on each series."""
    names = list(res)
    same = [k for k in names if np.array_equal(lags_only[k].q["LQT"], res[k].q["LQT"])]
    return (
        "The lags-only sensitivity tracker (p ∈ {1, 2}, wider grid) gives the judged LQT's "
        f"thresholds on {len(same)} of {len(names)} series"
        + (f" ({', '.join(same)}): validation picked the same setting" if same else "")
        + (
            ", so it is not drawn."
            if len(same) == len(names)
            else "; it differs on "
            + ", ".join(k for k in names if k not in same)
            + " (table above)."
        )
    )


def default_lags_line(
    res: Mapping, reading: DependenceReading, *, hac_lags: int, alpha: float
) -> str:
    """For the Deviations: 4c's two-sided and 4b's one-sided p-values under the default HAC
    lag rule beside those with `hac_lags` lags."""
    p_default, p4b = default_lag_pvalues(res, alpha)
    return (
        "Claim 4c under the default HAC lags: two-sided p = "
        + ", ".join(f"{v:.2g} on {k}" for k, v in p_default.items())
        + f" ({sum(v < 0.05 for v in p_default.values())} resolved); with {hac_lags} "
        "lags: "
        + ", ".join(f"{v:.2g}" for v in reading.p_two.values())
        + f" ({reading.n_beyond} resolved). Claim 4b's one-sided p under the default "
        "lags: " + ", ".join(f"{b} {v:.2g}" for b, v in p4b.items()) + "."
    )


@dataclass(frozen=True)
class Claim4Values:
    """Claims 4a and 4b's values: LQT's coverage per series and its largest deviation from
    1 − α, the lags-only tracker's and the baselines' coverage (context); on the first series
    (electricity), LQT's loss and mean threshold over the best baseline's, the one-sided HAC
    p against each baseline and the lags-only tracker's gain over SQT."""

    lqt_cov: dict
    cov_dev: float
    lag_cov: dict
    base_cov: dict
    loss_ratio: float
    p_each: dict
    size_ratio: float
    lag_gain: float
    best: str  # the first series' best baseline
    settings: dict  # what validation chose for LQT on the first series
    test: np.ndarray  # the first series' test part


def claim4_values(res: Mapping, lags_only: Mapping, *, alpha: float) -> Claim4Values:
    """`Claim4Values` of `compare_series`'s two protocols."""
    lqt_cov = {k: r.coverage["LQT"] for k, r in res.items()}
    first = next(iter(res))
    el = res[first]
    return Claim4Values(
        lqt_cov=lqt_cov,
        cov_dev=float(max(abs(c - (1 - alpha)) for c in lqt_cov.values())),
        lag_cov={k: r.coverage["LQT"] for k, r in lags_only.items()},
        base_cov={
            f"{k}, {m}": r.coverage[m] for k, r in res.items() for m in r.baselines
        },
        loss_ratio=el.loss["LQT"] / el.loss[el.best_baseline],
        p_each={b: el.hac[b].p_greater for b in el.baselines},
        size_ratio=el.set_size["LQT"] / el.set_size[el.best_baseline],
        lag_gain=lags_only[first].gain("SQT"),
        best=el.best_baseline,
        settings=el.settings["LQT"],
        test=el.test,
    )


def lags_only_summary(lags_only: Mapping) -> dict:
    """Per series: the lags-only column's settings, its loss gain over SQT and the HAC p."""
    return {
        k: {
            "LQT": r.settings["LQT"],
            "SQT": r.settings["SQT"],
            "loss gain over SQT": round(r.gain("SQT"), 4),
            "HAC p": round(r.hac["SQT"].p_greater, 4),
        }
        for k, r in lags_only.items()
    }


def series_overview(
    series: Mapping, res: Mapping, lags_only: Mapping, reading, *, hac_lags: int
) -> str:
    """Claim 4's printed overview: the series' lengths and lag-1 autocorrelations, the table
    (`series_table`) and the HAC lags used beside the default rule's."""
    from .bounded import table_text

    sizes = {k: f"{v.size} scores" for k, (v, _) in series.items()}
    rho = {k: round(v, 3) for k, v in reading.rho1.items()}
    return (
        f"{sizes} ; lag-1 autocorrelation of the test scores: {rho}\n"
        + table_text(series_table(res, lags_only), index=False)
        + f"\nHAC lags: {hac_lags} on every series; the default rule ⌊4(T/100)^(2/9)⌋ would "
        "give "
        + ", ".join(f"{default_hac_lags(r.test.size)} on {k}" for k, r in res.items())
    )
