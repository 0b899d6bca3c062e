"""What each claim reads from the streams' measurements: the depth trend of the final D
(claim 1, `depth_trend`), the width comparison (claim 2, `width_effect`), the growth
with Δt (claim 3, `growth`), the saturation on the long stream (claims 3b and 3c,
`saturation`) and the agreement of D with probe forgetting (claim 4, `surrogate`). Each
returns a small frozen dataclass of tables and numbers; nothing here prints, plots or
writes files.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from repbook.core import checks

from .curves import (
    early_slope,
    layer_slopes,
    partial_r,
    pearson,
    plateau_drift,
    saturation_time,
    spearman,
    still_rising,
    trend_slope,
)


def final_rows(rows: pd.DataFrame, n_tasks: int) -> pd.DataFrame:
    """The rows of task 0 after the last task (t = 0, Δt = n_tasks − 1)."""
    n_tasks = checks.integer("n_tasks", n_tasks, at_least=2)
    return rows[(rows.t == 0) & (rows.dt == n_tasks - 1)]


# --------------------------------------------------------------------------------------
# claim 1: depth
@dataclass(frozen=True)
class DepthTrend:
    """Task 0's final shift by layer: `final` (its rows), `by_layer` (mean over seeds of
    D, Dn, R, sigma by (width, k)) and Spearman's ρ of the layer index with the mean D,
    D/‖R‖ and ‖R‖, by width ("W=32": ρ)."""

    final: pd.DataFrame
    by_layer: pd.DataFrame
    rho_D: dict
    rho_Dn: dict
    rho_R: dict


def depth_trend(
    rows: pd.DataFrame, *, n_tasks: int, widths: Sequence[int], layers: Sequence[int]
) -> DepthTrend:
    final = final_rows(rows, n_tasks)
    by_layer = final.groupby(["width", "k"])[["D", "Dn", "R", "sigma"]].mean()

    def rho(col):
        return {f"W={w}": spearman(layers, by_layer.loc[w][col]) for w in widths}

    return DepthTrend(final, by_layer, rho("D"), rho("Dn"), rho("R"))


# --------------------------------------------------------------------------------------
# claim 2: width
@dataclass(frozen=True)
class WidthEffect:
    """The final D/‖R‖ (mean over layers) by width: `mean_Dn` (mean over seeds),
    `per_seed` (rep × width), the narrowest and widest widths `lo`, `hi`, the seeds with
    narrow > wide, the per-seed `gain` (narrow − wide); the sensitivities: `sigma_Rn`
    (unaligned σ/‖R‖ by width), `held_gain` (the same gain on the held-out D/‖R‖), and
    `deflate` (√(1 − W/n) of the in-sample fit at lo and hi, n = `n_fit`)."""

    mean_Dn: pd.Series
    per_seed: pd.DataFrame
    lo: int
    hi: int
    seeds_ok: int
    gain: np.ndarray
    sigma_Rn: pd.Series
    held_gain: np.ndarray
    n_fit: int
    deflate: dict


def width_effect(
    final: pd.DataFrame, *, widths: Sequence[int], n_fit: int
) -> WidthEffect:
    mean_Dn = final.groupby("width").Dn.mean()
    per_seed = final.groupby(["width", "rep"]).Dn.mean().unstack("width")
    lo, hi = widths[0], widths[-1]
    seeds_ok = int((per_seed[lo] > per_seed[hi]).sum())
    gain = (per_seed[lo] - per_seed[hi]).to_numpy()
    sigma_Rn = (final.sigma / final.R).groupby(final.width).mean()
    held_seed = (
        (final.D_held / final.R)
        .groupby([final.width, final.rep])
        .mean()
        .unstack("width")
    )
    held_gain = (held_seed[lo] - held_seed[hi]).to_numpy()
    deflate = {w: np.sqrt(1 - w / n_fit) for w in (lo, hi)}
    return WidthEffect(
        mean_Dn, per_seed, lo, hi, seeds_ok, gain, sigma_Rn, held_gain, n_fit, deflate
    )


# --------------------------------------------------------------------------------------
# claim 3: growth with Δt
@dataclass(frozen=True)
class Growth:
    """Task 0's D/‖R‖ (mean over layers) over Δt = 1..horizon: `curve` (mean over seeds,
    by width), `per_seed_curve` (by (width, rep, dt)), the seeds' least-squares
    `slopes` by width, `rising` (layers whose seed-mean D ends above where it started,
    by "W=…"), `ratio_held` (held-out / in-sample final D by width: median, min, max)
    and `by_dt` (mean Dn, sigma, R of task 0 by (width, k, dt), every Δt: the figure)."""

    horizon: int
    curve: dict
    per_seed_curve: pd.Series
    slopes: dict
    rising: dict
    ratio_held: pd.DataFrame
    by_dt: pd.DataFrame


def growth(
    rows: pd.DataFrame,
    final: pd.DataFrame,
    *,
    horizon: int,
    widths: Sequence[int],
    layers: Sequence[int],
    seeds: int,
) -> Growth:
    H = checks.integer("horizon", horizon, at_least=2)
    first = rows[(rows.t == 0) & (rows.dt <= H)]
    curve = {w: first[first.width == w].groupby("dt").Dn.mean() for w in widths}
    by_dt = first.groupby(["width", "k", "dt"]).D.mean()
    rising = {
        f"W={w}": int(sum(by_dt[w, k, H] > by_dt[w, k, 1] for k in layers))
        for w in widths
    }
    per_seed_curve = first.groupby(["width", "rep", "dt"]).Dn.mean()
    slopes = {
        w: [trend_slope(per_seed_curve[w, r].to_numpy()) for r in range(seeds)]
        for w in widths
    }
    ratio_held = (
        (final.D_held / final.D).groupby(final.width).agg(["median", "min", "max"])
    )
    t0 = rows[rows.t == 0].groupby(["width", "k", "dt"])[["Dn", "sigma", "R"]].mean()
    return Growth(H, curve, per_seed_curve, slopes, rising, ratio_held, t0)


# --------------------------------------------------------------------------------------
# claims 3b and 3c: saturation on the long stream
@dataclass(frozen=True)
class Saturation:
    """Task 0's D on the long stream (`long_stream`'s drift), read for saturation.

    `long_D`, `long_R`: seed means by width ((depth × Δt) and (depth,)); `own_acc`: each
    task's own head right after its training (mean over tasks and seeds, by "W=…");
    `plateau`: the mean over layers of the seed-mean curve's `plateau_drift`, by width;
    `levelled`: the widths whose drift is at most `bound`; `tau_seed[(w, r)]`: each
    layer's interpolated saturation time; `tau`: their seed mean; `rho_tau`: Spearman ρ
    of k with `tau`; `depth_gain`: each seed's −(slope of τ_k on k); `rising_tau`:
    `still_rising` of each τ; `tau_gain`: per seed, τ (mean over k) at the widest minus
    at the narrowest width; `dts`: Δt = 1..n−1; `m_tail`: the plateau's points;
    `level_by_R`: the plateau's D/‖R‖ by layer; `early`: each seed's `early_slope` of
    D/‖R‖ (mean over layers), by width; `rho_tau_seed`: Spearman ρ of k with each
    seed's τ_k ("W=… seed r")."""

    widths: list
    layers: list
    seeds: int
    n_tasks: int
    bound: float
    long_D: dict
    long_R: dict
    own_acc: dict
    plateau: dict
    levelled: list
    tau_seed: dict
    tau: dict
    rho_tau: dict
    depth_gain: dict
    rising_tau: dict
    tau_gain: np.ndarray
    dts: np.ndarray
    m_tail: int
    level_by_R: dict
    early: dict
    rho_tau_seed: dict

    @property
    def lo(self) -> int:
        return self.widths[0]

    @property
    def hi(self) -> int:
        return self.widths[-1]


def saturation(
    drift: dict,
    *,
    widths: Sequence[int],
    layers: Sequence[int],
    seeds: int,
    n_tasks: int,
    bound: float,
) -> Saturation:
    LW, NS, LT = list(widths), seeds, n_tasks
    layers = list(layers)
    long_D = {w: np.mean([drift[w, r]["D"] for r in range(NS)], 0) for w in LW}
    long_R = {w: np.mean([drift[w, r]["R"] for r in range(NS)], 0) for w in LW}
    own_acc = {
        f"W={w}": float(np.mean([drift[w, r]["own_acc"] for r in range(NS)]))
        for w in LW
    }
    plateau = {
        w: float(np.mean([plateau_drift(long_D[w][k - 1]) for k in layers])) for w in LW
    }
    levelled = [w for w in LW if plateau[w] <= bound]
    tau_seed = {
        (w, r): np.array(
            [saturation_time(drift[w, r]["D"][k - 1], interpolate=True) for k in layers]
        )
        for w in LW
        for r in range(NS)
    }
    tau = {w: np.mean([tau_seed[w, r] for r in range(NS)], 0) for w in LW}
    rho_tau = {w: spearman(layers, tau[w]) for w in LW}
    # 3b's paired quantity: each seed's −(slope of τ_k on k), positive when τ falls
    depth_gain = {
        w: -layer_slopes(np.stack([tau_seed[w, r] for r in range(NS)])) for w in LW
    }
    rising_tau = {key: still_rising(v, LT - 1) for key, v in tau_seed.items()}
    lo, hi = LW[0], LW[-1]
    tau_gain = np.array(
        [tau_seed[hi, r].mean() - tau_seed[lo, r].mean() for r in range(NS)]
    )
    dts = np.arange(1.0, LT)
    m_tail = max(1, int(round(len(dts) / 3)))  # the plateau's points
    level_by_R = {w: long_D[w][:, -m_tail:].mean(1) / long_R[w] for w in LW}
    early = {
        w: np.array(
            [
                early_slope((drift[w, r]["D"] / drift[w, r]["R"][:, None]).mean(0))
                for r in range(NS)
            ]
        )
        for w in LW
    }
    return Saturation(
        LW,
        layers,
        NS,
        LT,
        bound,
        long_D,
        long_R,
        own_acc,
        plateau,
        levelled,
        tau_seed,
        tau,
        rho_tau,
        depth_gain,
        rising_tau,
        tau_gain,
        dts,
        m_tail,
        level_by_R,
        early,
        {
            f"W={w} seed {r}": spearman(layers, tau_seed[w, r])
            for w in LW
            for r in range(NS)
        },
    )


# --------------------------------------------------------------------------------------
# claim 4: D against probe forgetting
@dataclass(frozen=True)
class Surrogate:
    """D against probe forgetting over the (t, Δt, k) points (seed means), by width
    ("W=…"): `points` (the seed-mean table), `by_width` (width → its points), Pearson r
    of D with ΔP of the noisy probe (`r_noisy`, judged) and of the clean probe
    (`r_clean`), of D/‖R‖ with the noisy ΔP (`r_norm`), the mean within-layer r
    (`r_within`), the partial r given Δt (`r_partial`), each seed's r (`r_seed`, by
    width), the noisy probe's accuracy at snapshot t (`before`) and the mean |ΔP| of
    both probes (`moves`)."""

    points: pd.DataFrame
    by_width: dict
    r_noisy: dict
    r_clean: dict
    r_norm: dict
    r_within: dict
    r_partial: dict
    r_seed: dict
    before: dict
    moves: dict


def surrogate(rows: pd.DataFrame, *, widths: Sequence[int]) -> Surrogate:
    pts = rows.groupby(["width", "t", "dt", "k"])[["D", "Dn", "dPn", "dP2"]].mean()
    pts = pts.reset_index()
    by_w = dict(list(pts.groupby("width")))
    r_noisy = {f"W={w}": pearson(g.D, g.dPn) for w, g in by_w.items()}
    r_clean = {f"W={w}": pearson(g.D, g.dP2) for w, g in by_w.items()}
    r_norm = {f"W={w}": pearson(g.Dn, g.dPn) for w, g in by_w.items()}
    r_within = {
        f"W={w}": float(np.mean([pearson(gk.D, gk.dPn) for _, gk in g.groupby("k")]))
        for w, g in by_w.items()
    }
    before = {
        f"W={w}": float(
            rows[rows.width == w].groupby(["rep", "t", "k"]).Pn_before.first().mean()
        )
        for w in widths
    }
    r_seed = {
        w: [
            pearson(g_.D, g_.dPn)
            for _, g_ in rows[rows.width == w].groupby("rep")[["D", "dPn"]]
        ]
        for w in widths
    }
    r_partial = {f"W={w}": partial_r(g.D, g.dPn, g.dt) for w, g in by_w.items()}
    moves = {"clean": pts.dP2.abs().mean(), "noisy": pts.dPn.abs().mean()}
    return Surrogate(
        pts, by_w, r_noisy, r_clean, r_norm, r_within, r_partial, r_seed, before, moves
    )
