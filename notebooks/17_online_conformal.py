# ---
# jupyter:
#   jupytext:
#     formats: py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 17 · Online conformal prediction via online optimization
#
# Felipe Areces, Christopher Mohri, Tatsunori Hashimoto, John Duchi — *Online Conformal Prediction
# via Online Optimization*, ICML 2025 (PMLR 267) · package: `conformalopt` on PyPI (source
# `chrismohrii/conformalopt`) · experiments: `chrismohrii/conformalopt-experiments`.
#
# A forecaster makes an error $s_t$ (a *score*, e.g. $|y_t-\hat y_t|$) at each time step. Online
# conformal prediction announces a threshold $q_t$ *before* $s_t$ arrives and promises that, in the
# long run, only a fraction $\alpha$ of the rounds have $s_t>q_t$ (the set $\{s\le q_t\}$ "misses").
# The paper treats the choice of $q_t$ as online optimisation of the pinball loss over a *linear*
# model of the past scores, and proves guarantees for both adversarial and random data.
#
# ```{admonition} Claims we test
# 1. **Adversarial guarantee.** On any bounded score sequence the fraction of missed rounds tends to
#    $\alpha$ (the abstract's words), judged as the limit itself, to the research brief's
#    coverage tolerance, on streams where no constant threshold reaches $\alpha$. It confirms a
#    theorem: the parameter stays bounded. The rate form $C/(\eta T)$ is a diagnostic of ours.
# 2. **Stochastic guarantee.** When the conditional $(1-\alpha)$-quantile of the score is linear in
#    the past scores, the coverage *conditional on the past* tends to $1-\alpha$ at every round,
#    not only on average (the abstract's words). That the parameter converges to the true
#    coefficients is the research brief's reading, checked as a diagnostic of ours.
# 3. **The gain grows with dependence.** The advantage of linear tracking over existing methods grows
#    with how strongly the scores depend on their past, even when the competitors are tuned on the
#    test data (3a, a controlled demonstration on autoregressions; the real-data test is 4c).
#    Beside it, a derivation of ours (3b, not counted in the paper's tally): on
#    an AR(1) series the reduction against the best *constant* threshold is $1-\sqrt{1-\varphi^2}$.
# 4. **Real series.** On real forecasting residuals linear tracking keeps its coverage (4a) and,
#    on electricity demand, has a much lower quantile loss than the baselines (4b; judged on
#    electricity only, set sizes shown as context); its gain follows the dependence of the
#    series (4c). The paper's experiments span 15+ data sets; the authors' repository has
#    electricity demand and stock prices among them.
# 5. **Pre-registered test** (ERCOT electricity demand, Texas): over 10 % smaller sets, over 30 %
#    lower quantile and absolute losses, 78 of 78 pre-registered hypotheses significant.
# 6. **Implementation** (ours, not the paper's): our linear tracker gives the same thresholds as the
#    authors' package `conformalopt`.
# ```
#
# Claims 1–3 are checked on streams we can control exactly (bounded adversarial sequences and Gaussian
# autoregressions, where the conditional coverage has a closed form); claim 4 uses three real series
# that ship offline inside `pmdarima`; claim 5 is quoted; check 6 runs the authors' package side by
# side.

# %% tags=["parameters"]
scale = "quick"  # "quick" (≤ 90 s on 2 CPU cores) or "full" (the paper's lengths)
seed = 0

# %%
import dataclasses
import time

import numpy as np
import pandas as pd
import matplotlib.pyplot as plt
from scipy import stats

from repbook.core import (
    Ledger,
    setup,
    use_style,
    color_for,
    reference_line,
    register_colors,
    all_of,
    at_least,
    at_most,
    paired_gain,
)
from repbook.core.ledger import unstable_sentence
from repbook.papers import online_conformal as O

SIZES = {
    "quick": dict(
        adv_T=1_000_000,
        checkpoints=[10_000, 100_000, 1_000_000],
        ar2_T=200_000,
        ar2_seeds=5,
        ar1_T=50_000,
        ar1_seeds=5,
        peer_T=100_000,
        peer_short=20_000,
    ),
    "full": dict(
        adv_T=1_000_000,
        checkpoints=[10_000, 100_000, 1_000_000],
        ar2_T=1_000_000,
        ar2_seeds=10,
        ar1_T=1_000_000,
        ar1_seeds=10,
        peer_T=1_000_000,
        peer_short=100_000,
    ),
}
run = setup(scale=scale, seed=seed, sizes=SIZES)
ledger = Ledger.for_run(
    run,
    regime=(
        "synthetic bounded and AR streams; three real series shipped with pmdarima; CPU"
    ),
)
use_style()
register_colors(
    {
        "LQT": "ours",
        "LQT(2)": "ours",
        "LQT(2), decaying": "ours",
        "SQT": "baseline",
        "SQT, decaying": "baseline",
        "LQT(1)": "alt3",
        "LQT(2), fixed η": "alt3",
        "ACI": "alt",
        "conformal PI": "alt2",
        "conformalopt": "peer",
        "LQT, lags only": "alt3",
    }
)

ALPHA = 0.1  # target miscoverage, as in the authors' experiments
BASELINES = list(O.BASELINES)  # SQT, ACI, conformal PI; grids: O.AUTHORS_LR_GRID, ...
timings = {}  # seconds per section, for the full-scale estimate at the end

# %% [markdown]
# ## The method
#
# Linear quantile tracking, LQT($p$), predicts the threshold from the last $p$ scores and a constant
# $b$ (the *bias*):
#
# $$q_t=\theta_t^\top\phi_t,\qquad \phi_t=(s_{t-p},\dots,s_{t-1},\,b),$$
#
# and after seeing $s_t$ takes one gradient step on the pinball loss
# $\rho_{1-\alpha}(s_t-\theta^\top\phi_t)$, whose gradient is $-(\mathrm{err}_t-\alpha)\phi_t$ with
# $\mathrm{err}_t=\mathbf 1\{s_t>q_t\}$:
#
# $$\theta_{t+1}=\theta_t+\eta_t\,(\mathrm{err}_t-\alpha)\,\phi_t,\qquad \eta_t=\eta\ \text{(fixed)}
# \ \text{or}\ \eta\,t^{-0.6}\ \text{(decaying)}.$$
#
# Scalar quantile tracking (SQT) is the case $p=0$, $b=1$: the threshold goes up by $\eta(1-\alpha)$
# after a miss and down by $\eta\alpha$ after a hit. One fact drives the adversarial guarantee
# (we derived it; it is exact for fixed steps): the bias coordinate of $\theta$ moves by $\eta b$
# times $(\mathrm{err}_t-\alpha)$, so it *counts* the coverage error,
#
# $$\theta^{(b)}_{T+1}-\theta^{(b)}_1=\eta\,b\sum_{t}(\mathrm{err}_t-\alpha)
# \quad\Longrightarrow\quad \Big|\tfrac1T\textstyle\sum_t\mathrm{err}_t-\alpha\Big|
# =\frac{|\theta^{(b)}_{T+1}-\theta^{(b)}_1|}{\eta\,b\,T},$$
#
# and miscoverage tends to $\alpha$ at rate $C/(\eta T)$ as long as $\theta$ stays bounded. By hand,
# on a short stream, the whole algorithm is five lines; the tested library version agrees with it.

# %%
rng = run.child_rng(0)
s_demo, p, b, eta = rng.random(500), 2, 1.0, 0.05
theta = np.full(p + 1, 1 / p)  # conformalopt's starting point (1/p)·1
q_hand = np.zeros(s_demo.size)  # no features before p scores: q = 0, no update
for t in range(p, s_demo.size):
    phi = np.r_[s_demo[t - p : t], b]
    q_hand[t] = theta @ phi
    theta = theta + eta * ((s_demo[t] > q_hand[t]) - ALPHA) * phi
lib_run = O.lqt(s_demo, alpha=ALPHA, p=p, lr=eta, bias=b)
E_demo = np.sum((s_demo > lib_run.q)[p:] - ALPHA)
print(f"max |q by hand − q lib| = {np.abs(q_hand - lib_run.q).max():.1e}")
print(
    f"bias coordinate moved {lib_run.theta[-1] - 1 / p:+.6f}; η·b·Σ(err − α) = "
    f"{eta * b * E_demo:+.6f}"
)

# %% [markdown]
# ## Claim 1 · Coverage on arbitrary bounded streams
#
# Three streams in $[0,B]$, $B=1$, each $T$ rounds long: **regime switches** (the law of the scores
# jumps at random times between uniform laws on $[0,0.2]$, $[0.4,0.6]$, $[0.8,1]$ and a coin flip on
# $\{0,1\}$), a deterministic **sawtooth** (a ramp from 0 to 1 over 1,000 rounds, repeated), and an
# **adversary** that sees $q_t$ before choosing $s_t$ and makes the tracker miss whenever it can
# ($s_t=B$ when $q_t<B$, else $s_t=0$). Each stream is fed to SQT, LQT(1) and LQT(2) with a fixed step
# $\eta=0.05$ and $b=1$. The abstract's claim is the limit itself: the fraction of missed rounds
# tends to $\alpha$ as $T$ grows. We judge it on those words, at $T=10^6$ rounds, with checkpoints
# at $10^4$, $10^5$ and $10^6$.
#
# A limit is only a test where coverage is not free, and these two streams are built so that it
# is not: **no constant threshold reaches $\alpha$ on them**. The regime switches spend about a
# quarter of their rounds on the two-point law $\{0,B\}$, which puts a mass of about $1/8>\alpha$
# on $B$: a constant threshold below $B$ misses at least that share of the rounds, one at $B$ or
# above misses none. The adversary answers a constant threshold below $B$ with $B$ (a miss every
# round) and any other with 0 (none). The comparator shown beside the trackers is the
# **split-conformal threshold** of the first $10^4$ rounds (its
# $\lceil(1-\alpha)(n+1)\rceil$-th smallest score), then held fixed; against the adversary it
# announces 0 while it calibrates, and the adversary answers the fixed threshold afterwards. On
# these streams it tends to be the full set, a threshold at $B$ (the line under the figure says
# whether it is on this seed), and so misses $\alpha$ by all of $\alpha$. The sawtooth repeats one
# ramp, so a threshold calibrated on whole periods is right on it by construction: it is shown,
# not judged.
#
# **Gate (fixed before the run): a property of the stream design, not a regime check.** On the
# regime switches and on the adversary, the fixed split-conformal threshold misses $\alpha$ by at
# least 0.02 over the rounds after its calibration. The streams are built to meet it; it guards
# the design (a stream on which a fixed threshold covers would test nothing), not the run. Beside
# it, as context, the best constant threshold in hindsight, over every constant.
#
# **Criterion (changed after issue 36's third verdict audit, see Deviations).** On the regime switches
# and the adversary, for SQT, LQT(1) and LQT(2): $|\text{miscoverage}-\alpha|\le
# 3\sqrt{\alpha(1-\alpha)/T}$ after $T=10^6$ rounds, the research brief's coverage tolerance
# ("$|\text{empirical}-\text{target}|\le3\sqrt{\alpha(1-\alpha)/T}+\text{slack}$", with slack 0:
# the brief states none for this check). What this confirms is a theorem. By the identity above,
# $|\text{miscoverage}-\alpha|=|\theta^{(b)}_{T+1}-\theta^{(b)}_1|/(\eta bT)$: the miscoverage
# tends to $\alpha$ exactly when the parameter stays bounded, which the paper proves for bounded
# scores. A run can only show that $\theta$ stayed bounded on these streams: the bar fails if a
# tracker's bias coordinate moved by at least $3\sqrt{\alpha(1-\alpha)/T}\,\eta bT$ (printed
# below), for example if LQT(2) drifted on the regime switches, where the lagged scores are
# nearly constant within a regime and the features nearly collinear.
#
# Two checks of ours sit beside it. Write $E_t=\sum_{i\le t}(\mathrm{err}_i-\alpha)$ and
# $C_t=\eta\max_{i\le t}|E_i|$, the smallest constant with
# $|\text{miscoverage}_i-\alpha|\le C_t/(\eta i)$ at every $i\le t$. For SQT the threshold never
# leaves $[-\alpha\eta,\,B+(1-\alpha)\eta]$, so $C_t\le B+\eta$ [derived]: a theorem, which only a
# bug can fail, recorded as a sanity check. And the rate form $C/(\eta T)$ needs $C_t$ to level
# off: our diagnostic asks that $C$ at most doubles from $10^4$ to $10^5$ rounds (the rule this
# chapter used to judge claim 1 by) and from $10^5$ to $10^6$, for every tracker and stream and on
# every seed of the stability record; the bias coordinate $\theta^{(b)}$ and $\lVert\theta\rVert$
# show where $C_t$ comes from.

# %%
t_section = time.perf_counter()
T_adv, ETA, B = run["adv_T"], 0.05, 1.0
cps = run["checkpoints"]
first, last = cps[0], cps[-1]
N_CAL = first  # the comparator calibrates on the first checkpoint's rounds
JUDGED1 = ["regime switches", "adversary"]
trackers = {"SQT": 0, "LQT(1)": 1, "LQT(2)": 2}
theta_marks = np.unique(np.geomspace(10, T_adv - 1, 60).astype(int))
runs1 = O.bounded_stream_runs(
    T_adv,
    run.child_rng(1),
    alpha=ALPHA,
    lr=ETA,
    ps=list(trackers.values()),
    bound=B,
    n_cal=N_CAL,
    path_at=theta_marks,
)
BAR1 = 3 * np.sqrt(
    ALPHA * (1 - ALPHA) / last
)  # the brief's tolerance at T = 10⁶, slack 0
adv_answer = O.miss_when_possible(B)  # B to any threshold below B, else 0
best_const = {  # context: the best constant threshold in hindsight, over every constant
    "regime switches": O.best_constant_gap(runs1["regime switches", 0].scores, ALPHA),
    "adversary": min(abs(float(adv_answer(0, q) > q) - ALPHA) for q in (0.0, B)),
}
adv_rows = []
for sname in O.BOUNDED_STREAMS:
    for tname, p in trackers.items():
        tr = runs1[sname, p]
        row = {"stream": sname, "method": tname}
        for T in cps:
            row[f"|miscov − α| @{T:,}"] = abs(tr.miscoverage(T) - ALPHA)
        for T in cps:
            row[f"C @{T:,}"] = tr.C[T - 1]
        row[f"‖θ‖ @{last:,}"] = float(np.linalg.norm(tr.theta[-1]))
        adv_rows.append(row)
    sp = runs1[sname, "split"]
    adv_rows.append(
        {
            "stream": sname,
            "method": f"split conformal ({N_CAL:,})",
            f"|miscov − α| @{last:,}": abs(sp.miscoverage(sp.E.size) - ALPHA),
        }
    )
adv = pd.DataFrame(adv_rows)
with pd.option_context("display.float_format", "{:.4g}".format, "display.width", 150):
    print(adv.to_string(index=False, na_rep="—"))

# %% [markdown]
# Only the regime-switch stream depends on the seed (the sawtooth and the adversary are
# deterministic). So that the diagnostic reads every seed, the regime-switch runs are repeated on
# every seed of the chapter's stability record (the committed record of the chapter run on
# several seeds), each with the generator its chapter run used.

# %%
record = ledger.stability()
record_seeds = (
    sorted({int(x) for x in record.seeds} | {run.seed}) if record else [run.seed]
)
per_seed = {}  # seed -> {tracker: CoverageTrace} on the regime switches
for sd in record_seeds:
    rr = (
        runs1
        if sd == run.seed
        else O.bounded_stream_runs(
            T_adv,
            dataclasses.replace(run, seed=sd).child_rng(1),
            alpha=ALPHA,
            lr=ETA,
            ps=list(trackers.values()),
            bound=B,
            streams=["regime switches"],
            path_at=theta_marks,
        )
    )
    per_seed[sd] = {t: rr["regime switches", p] for t, p in trackers.items()}
seed_table = pd.DataFrame(
    {
        sd: {
            **{
                f"{t}: C({b:,})/C({a:,})": tr.growth(a, b)
                for t, tr in d.items()
                for a, b in zip(cps, cps[1:])
            },
            **{
                f"{t}: |miscov − α| @{last:,}": abs(tr.miscoverage(last) - ALPHA)
                for t, tr in d.items()
            },
        }
        for sd, d in per_seed.items()
    }
).T.rename_axis("seed")
with pd.option_context("display.float_format", "{:.4g}".format, "display.width", 150):
    print("regime switches, every seed of the record:\n" + seed_table.T.to_string())
timings["claim 1"] = time.perf_counter() - t_section

# %% tags=["hide-input"]
fig, axes = plt.subplots(1, 4, figsize=(16, 4.0))
grid_t = np.unique(np.geomspace(100, T_adv, 300).astype(int))
for ax, sname in zip(axes[:2], JUDGED1):
    for tname, p in trackers.items():
        E = runs1[sname, p].E
        ax.plot(
            grid_t,
            np.abs(E[grid_t - 1]) / grid_t + 1e-7,
            color=color_for(tname),
            lw=1.2,
            label=tname,
        )
    sp = runs1[sname, "split"]
    tt = grid_t[grid_t <= sp.E.size]
    ax.plot(
        tt + N_CAL,
        np.abs(sp.E[tt - 1]) / tt + 1e-7,
        color=color_for("muted"),
        lw=1.2,
        ls="--",
        label=f"fixed split-conformal threshold ({N_CAL:,} rounds)",
    )
    ax.axhline(
        BAR1,
        color=color_for("reference"),
        ls=":",
        lw=1.2,
        label=f"bar at {last:,} rounds, 3√(α(1−α)/T) = {BAR1:.4f}",
    )
    for T in cps:
        ax.axvline(T, color=color_for("muted"), lw=0.6)
    ax.set(
        xscale="log",
        yscale="log",
        xlabel="rounds t",
        title=f"{sname}"
        + (f" (seed {run.seed})" if sname == "regime switches" else ""),
    )
axes[0].set_ylabel("|miscoverage after t rounds − α|")
axes[0].legend(fontsize=7, loc="lower left")
ax = axes[2]
for sd, d in per_seed.items():
    for tname, tr in d.items():
        ax.plot(
            grid_t,
            tr.C[grid_t - 1],
            color=color_for(tname),
            lw=0.9,
            alpha=0.8,
            label=tname if sd == record_seeds[0] else None,
        )
ax.axhline(B + ETA, color=color_for("reference"), ls="--", lw=1.0, label="B + η (SQT)")
ax.set(
    xscale="log",
    xlabel="rounds t",
    ylabel=r"$C_t=\eta\,\max_{i\leq t}|E_i|$",
    title=f"C_t on the regime switches, seeds {record_seeds[0]}–{record_seeds[-1]}",
)
ax.legend(fontsize=7)
ax = axes[3]
for sname, ls in zip(JUDGED1, ["-", "--"]):
    for tname in ["LQT(1)", "LQT(2)"]:
        tr = runs1[sname, trackers[tname]]
        ax.plot(
            tr.marks + 1,
            np.linalg.norm(tr.theta, axis=1),
            color=color_for(tname),
            ls=ls,
            label=f"‖θ‖ {tname}, {sname}",
        )
        ax.plot(
            tr.marks + 1,
            tr.theta[:, -1],
            color=color_for(tname),
            ls=ls,
            lw=0.8,
            alpha=0.5,
        )
ax.set(
    xscale="log",
    xlabel="rounds t",
    ylabel="‖θ_t‖ (thick), bias coordinate (thin)",
    title=f"LQT's parameter (seed {run.seed})",
)
ax.legend(fontsize=7)
fig.suptitle(
    "Claim 1: |miscoverage − α| of the "
    "trackers and of a fixed split-conformal threshold; "
    "C_t and θ as diagnostics",
    fontsize=12,
    fontweight="bold",
)
plt.show()

# %%
dev_at = {
    T: {
        f"{s}, {t}": abs(runs1[s, p].miscoverage(T) - ALPHA)
        for s in JUDGED1
        for t, p in trackers.items()
    }
    for T in cps
}
split_dev = {
    s: abs(runs1[s, "split"].miscoverage(runs1[s, "split"].E.size) - ALPHA)
    for s in JUDGED1
}
split_q = {s: float(runs1[s, "split"].q[0]) for s in JUDGED1}
GATE1 = "stream design: fixed split-conformal |miscov − α|"
ledger.check(
    1,
    "miscoverage → α on bounded streams (regime switches, adversary)",
    paper="abstract: over time, the target fraction of sets covers (adversarial data)",
    source="abstract",
    measured={
        f"|miscov − α| at {last:,}": dev_at[last],
        f"|miscov − α| at {first:,}": dev_at[first],
        GATE1: split_dev,
        "split-conformal threshold": split_q,
        "best constant in hindsight: |miscov − α| (context)": best_const,
    },
    show=[f"|miscov − α| at {last:,}", GATE1],
    gate=at_least(GATE1, 0.02),
    criterion=at_most(f"|miscov − α| at {last:,}", float(BAR1)),
    note=f"the bar {BAR1:.4f} = 3√(α(1−α)/T) at T = {last:,} is the research brief's "
    "coverage tolerance (slack 0); the gate is met by the streams' design (no "
    "constant threshold reaches α), not a regime check; the comparator is ours",
)
sqt_C = {f"{s} @{T:,}": runs1[s, 0].C[T - 1] for s in O.BOUNDED_STREAMS for T in cps}
ledger.sanity(
    "1s",
    "SQT's running constant C_t ≤ B + η",
    why="sanity: holds by construction — SQT's threshold stays in "
    "[−αη, B + (1−α)η] on any stream in [0, B] (derived), so only a bug can fail it",
    measured={"SQT: C at each checkpoint": sqt_C},
    criterion=at_most("SQT: C at each checkpoint", B + ETA),
)
growth_a = {
    f"seed {sd}, {t}": tr.growth(cps[0], cps[1])
    for sd, d in per_seed.items()
    for t, tr in d.items()
}
growth_b = {
    f"seed {sd}, {t}": tr.growth(cps[1], cps[2])
    for sd, d in per_seed.items()
    for t, tr in d.items()
}
for s in ["sawtooth", "adversary"]:
    for t, p in trackers.items():
        growth_a[f"{s}, {t}"] = runs1[s, p].growth(cps[0], cps[1])
        growth_b[f"{s}, {t}"] = runs1[s, p].growth(cps[1], cps[2])
ledger.ours(
    "1d",
    "the running constant C_t levels off by 10⁶ rounds (every seed)",
    why="diagnostic of ours: the rate form C/(ηT) needs a C that stops growing; the "
    "factor 2 is ours (it decided claim 1 before issue 36's audit)",
    measured={
        f"C({cps[1]:,}) / C({cps[0]:,})": growth_a,
        f"C({cps[2]:,}) / C({cps[1]:,})": growth_b,
        f"max ‖θ‖ at {last:,}, regime switches": max(
            float(np.linalg.norm(tr.theta[-1]))
            for d in per_seed.values()
            for tr in d.values()
        ),
    },
    show=[f"C({cps[1]:,}) / C({cps[0]:,})", f"C({cps[2]:,}) / C({cps[1]:,})"],
    criterion=all_of(
        at_most(f"C({cps[1]:,}) / C({cps[0]:,})", 2),
        at_most(f"C({cps[2]:,}) / C({cps[1]:,})", 2),
    ),
)

# %% tags=["hide-input"]
c1 = next(c for c in ledger.claims if c.id == "1")
worst1 = max(dev_at[last], key=dev_at[last].get)
fails_d = sorted({k for g in (growth_a, growth_b) for k, v in g.items() if v > 2})
bias_move = {  # |θ^(b)_{T+1} − θ^(b)_1| = η·b·|E_T| (the identity above)
    f"{s}, {t}": ETA * 1.0 * abs(runs1[s, p].E[last - 1])
    for s in JUDGED1
    for t, p in trackers.items()
}
worst_move = max(bias_move, key=bias_move.get)
full_set = [s for s in JUDGED1 if split_q[s] >= B]
print(
    f"Claim 1 ({c1.verdict}): after {last:,} "
    "rounds the largest |miscoverage − α| of the "
    f"trackers is {dev_at[last][worst1]:.2e} ({worst1}), against the bar "
    f"{BAR1:.4f}. By the identity, the largest move of a bias coordinate is "
    f"{bias_move[worst_move]:.3f} ({worst_move}); the bar fails only at a move of "
    f"{BAR1 * ETA * 1.0 * last:.0f}: "
    + (
        "θ stayed bounded, the theorem's condition. "
        if bias_move[worst_move] < BAR1 * ETA * last
        else "a bias coordinate drifted beyond it. "
    )
    + "Gate (stream design): the fixed split-conformal threshold misses α by "
    + ", ".join(
        f"{split_dev[k]:.3f} on the {k} (threshold {split_q[k]:.3f})" for k in JUDGED1
    )
    + (
        f"; it is the full set (threshold B) on the {' and the '.join(full_set)}"
        if full_set
        else ""
    )
    + "; the best constant in hindsight misses α by "
    + ", ".join(f"{v:.3f} on the {k}" for k, v in best_const.items())
    + ". Diagnostic 1d: C more than doubles between checkpoints for "
    + (", ".join(fails_d) if fails_d else "no tracker, stream or seed")
    + "."
)

# %% [markdown]
# The two left panels are what the claim is about: each tracker's miscoverage error on the
# judged streams, beside the fixed threshold's; the line above, generated from the runs, reads
# them. The third panel is the constant $C_t$ on every seed of the record (a long run in a new
# regime can move the parameter and push $C_t$ up late); the diagnostic's line names the runs
# where it more than doubled between checkpoints. The right panel shows $\lVert\theta_t\rVert$
# and the bias coordinate of LQT, which counts the coverage error (see the method above).
#
# ## Claim 2 · Per-round conditional coverage when the quantile is linear
#
# The set-up of the authors' synthetic experiment: $y_t=0.3\,y_{t-1}-0.3\,y_{t-2}+\varepsilon_t$ with
# $\varepsilon_t\sim N(0,1)$, and the *signed* $y_t$ as score. Its conditional $0.9$-quantile is
# $\mu_t+z_{0.9}$ with $\mu_t=0.3y_{t-1}-0.3y_{t-2}$, which LQT(2) with $b=1$ represents exactly with
# $\theta^*=(-0.3,\,0.3,\,z_{0.9})$, $z_{0.9}=1.2816$ (features oldest first). The coverage conditional
# on the past is computable exactly: $P(s_t\le q_t\mid\text{past})=\Phi(q_t-\mu_t)$. We run LQT(2)
# with decaying steps $\eta_t=t^{-0.6}$, LQT(2) with a fixed $\eta=0.01$, and SQT with the same
# decaying steps (which can only learn the *marginal* quantile), on `ar2_seeds` independent streams.
#
# **Criterion (fixed before the run).** (a) The mean over the second half of the rounds of
# $|P(s_t\le q_t\mid\text{past})-0.9|$, averaged over seeds, is below 0.01 for decaying LQT and
# below a third of SQT's (the research brief's bounds, from its prototype). (b) The abstract's
# "tends to": per seed, decaying LQT's gap over rounds $[T/10,T/5]$ minus its gap over
# $[T/2,T]$, a paired drop, is positive beyond its noise: mean $-\,t_{0.975,n-1}\cdot$SE $>0$
# over the $n$ seeds. It fails if the gap stalls at a level (as fixed steps make it) or grows.
#
# **Our diagnostic.** $\|\theta_T-\theta^*\|<0.05$ for decaying LQT on every seed (the brief's
# reading of the guarantee), and every method's marginal coverage in $0.9\pm0.005$ (claim 1's
# territory, nearly an identity for fixed steps); both bounds from the brief's prototype.

# %%
t_section = time.perf_counter()
T2, n_seeds = run["ar2_T"], run["ar2_seeds"]
coef = [0.3, -0.3]
z90 = stats.norm.ppf(1 - ALPHA)
theta_star = np.array([-0.3, 0.3, z90])
Y = np.stack([O.ar_series(coef, T2, run.child_rng(200 + k)) for k in range(n_seeds)])
marks = np.unique(np.geomspace(10, T2 - 1, 120).astype(int))
runs2 = {
    "LQT(2), decaying": O.lqt(
        Y, alpha=ALPHA, p=2, lr=1.0, schedule="decaying", path_at=marks
    ),
    "LQT(2), fixed η": O.lqt(Y, alpha=ALPHA, p=2, lr=0.01, path_at=marks),
    "SQT, decaying": O.sqt(Y, alpha=ALPHA, lr=1.0, schedule="decaying"),
}
half = slice(T2 // 2, T2)
early = slice(T2 // 10, T2 // 5)
summary2, cond_cov = [], {}
for name, r in runs2.items():
    cc = np.stack(
        [O.ar_conditional_coverage(Y[k], r.q[k], coef) for k in range(n_seeds)]
    )
    cond_cov[name] = cc
    summary2.append(
        {
            "method": name,
            "final ‖θ − θ*‖ (max over seeds)": (
                np.linalg.norm(r.theta - theta_star, axis=1).max()
                if r.theta.shape[1] == 3
                else np.nan
            ),
            "conditional gap (mean)": np.mean(np.abs(cc[:, half] - (1 - ALPHA))),
            "marginal coverage min": min(
                O.coverage(Y[k], r.q[k]) for k in range(n_seeds)
            ),
            "marginal coverage max": max(
                O.coverage(Y[k], r.q[k]) for k in range(n_seeds)
            ),
        }
    )
summary2 = pd.DataFrame(summary2).set_index("method")
print(summary2.round(4).to_string())
print(
    "final θ of decaying LQT, seed 0:",
    np.round(runs2["LQT(2), decaying"].theta[0], 4),
    "; θ* =",
    np.round(theta_star, 4),
)

# %% tags=["hide-input"]
fig, axes = plt.subplots(1, 3, figsize=(14, 3.8))
ax = axes[0]
for name in ["LQT(2), decaying", "LQT(2), fixed η"]:
    errs = np.linalg.norm(runs2[name].path - theta_star, axis=2)  # seeds × marks
    ax.plot(marks + 1, np.median(errs, axis=0), color=color_for(name), label=name)
    ax.fill_between(
        marks + 1, errs.min(0), errs.max(0), color=color_for(name), alpha=0.2
    )
ax.set(
    xscale="log",
    yscale="log",
    xlabel="round t",
    ylabel=r"$\|\theta_t-\theta^*\|$",
    title="diagnostic: ‖θ_t − θ*‖ (median, min–max band)",
)
ax.legend()
ax = axes[1]
window = np.arange(T2 - 200, T2)
for name in ["SQT, decaying", "LQT(2), decaying"]:
    ax.plot(window, cond_cov[name][0, window], color=color_for(name), lw=1, label=name)
reference_line(ax, 1 - ALPHA, "target 0.9")
ax.set(
    xlabel="round t (last 200, seed 0)",
    ylabel="P(s ≤ q | past)",
    title="Coverage at each round, given the past",
)
ax.legend(fontsize=8, loc="lower left")
ax = axes[2]
w = 2000
for name in runs2:
    gap = np.abs(cond_cov[name][:, 2:] - (1 - ALPHA)).mean(axis=0)  # mean over seeds
    roll = np.convolve(gap, np.ones(w) / w, mode="valid")
    t_axis = np.arange(roll.size) + w + 2
    sel = np.unique(np.geomspace(1, roll.size, 300).astype(int)) - 1
    ax.plot(t_axis[sel], roll[sel], color=color_for(name), label=name)
ax.set(
    xscale="log",
    yscale="log",
    xlabel="round t",
    ylabel=f"rolling mean over {w:,} rounds",
    title="|P(s ≤ q | past) − 0.9|",
)
ax.legend(fontsize=8)
plt.show()

# %%
dec, sqt_name = "LQT(2), decaying", "SQT, decaying"
theta_err = np.linalg.norm(runs2[dec].theta - theta_star, axis=1)
gap_lqt, gap_sqt = (
    summary2.loc[dec, "conditional gap (mean)"],
    summary2.loc[sqt_name, "conditional gap (mean)"],
)
cov_dev = max(
    abs(summary2["marginal coverage min"] - 0.9).max(),
    abs(summary2["marginal coverage max"] - 0.9).max(),
)
gap_cc = np.abs(cond_cov[dec] - (1 - ALPHA))
gap_drop = gap_cc[:, early].mean(axis=1) - gap_cc[:, half].mean(axis=1)  # per seed
T975_2 = float(stats.t.ppf(0.975, n_seeds - 1))
ledger.check(
    2,
    "P(cover | past) → 1 − α when the quantile is linear (AR(2))",
    paper="abstract: P(cover | past) converges to the target when the conditional "
    "quantile is linear in past data",
    source="abstract",
    measured={
        "conditional gap, LQT": gap_lqt,
        "conditional gap, SQT": gap_sqt,
        "gap drop [T/10, T/5] → [T/2, T], LQT, per seed": gap_drop,
    },
    criterion=all_of(
        at_most("conditional gap, LQT", 0.01, strict=True),
        at_most(
            "conditional gap, LQT", "conditional gap, SQT", factor=1 / 3, strict=True
        ),
        paired_gain("gap drop [T/10, T/5] → [T/2, T], LQT, per seed", k="t"),
    ),
    note="the bounds 0.01 and a third of SQT's are the research brief's (its "
    f"prototype); the drop is read with t_0.975,{n_seeds - 1} = {T975_2:.2f}",
)
ledger.ours(
    "2d",
    "θ_T → θ* and marginal coverage 0.9 ± 0.005 (AR(2))",
    why="diagnostic of ours: θ_t → θ* is the research brief's reading, not the "
    "abstract's; marginal coverage is claim 1's territory; bounds from the brief's "
    "prototype",
    measured={"‖θ_T − θ*‖ per seed": theta_err, "max |coverage − 0.9|": cov_dev},
    criterion=all_of(
        at_most("‖θ_T − θ*‖ per seed", 0.05, strict=True),
        at_most("max |coverage − 0.9|", 0.005),
    ),
)

# %% tags=["hide-input"]
fix = "LQT(2), fixed η"
print(
    f"Over the second half of the rounds, the coverage given the past is off by "
    f"{gap_sqt:.3f} on average for SQT, {gap_lqt:.4f} for decaying LQT and "
    f"{summary2.loc[fix, 'conditional gap (mean)']:.4f} for fixed-step LQT; marginal "
    f"coverage is within {cov_dev:.4f} of 0.9 for all three. Decaying LQT's gap drops "
    f"from rounds [T/10, T/5] to [T/2, T] by {gap_drop.mean():.4f} on average "
    f"(per seed {', '.join(f'{x:.4f}' for x in gap_drop)}; "
    f"t-interval half-width {T975_2 * gap_drop.std(ddof=1) / np.sqrt(n_seeds):.4f})."
)
c2 = next(c for c in ledger.claims if c.id == "2")
st2 = record.current(c2) if record is not None else None
if st2 is not None and all(m is not None for m in st2.margins.values()):
    m2 = {int(k): v for k, v in st2.margins.items()}
    lo2, hi2 = min(m2, key=m2.get), max(m2, key=m2.get)
    print(
        f"Stability record (seeds {', '.join(map(str, sorted(m2)))}): claim 2 is "
        + ", ".join(sorted(set(st2.verdicts.values())))
        + f" on every seed, but its margin ranges from {m2[lo2]:+.5f} (seed {lo2}) to "
        f"{m2[hi2]:+.5f} (seed {hi2}); the median seed's is "
        f"{float(np.median(list(m2.values()))):+.5f}. The margin is that of the part "
        f"closest to failing, in its own units (this run: {c2.binding}, "
        f"{c2.margin:+.5f})."
        if len(set(st2.verdicts.values())) == 1
        else f"Stability record: claim 2's verdicts differ between seeds, "
        f"{st2.verdicts}; margins {m2[lo2]:+.5f} (seed {lo2}) to {m2[hi2]:+.5f} "
        f"(seed {hi2})."
    )
else:
    print("Claim 2's entry in the stability record is missing or stale.")
timings["claim 2"] = time.perf_counter() - t_section

# %% [markdown]
# SQT's coverage is right on average, but at a given round it swings with the last two values of
# the series (middle panel): one scalar cannot follow a quantile that moves with the past. A
# tracker that learns the moving quantile has a per-round error that keeps shrinking (right panel)
# when its steps decay, and stalls at a level set by its step size when they are fixed; the line
# above gives the mean gaps.
#
# ## Claim 3 · The gain grows with the dependence
#
# The abstract's claim is qualitative: the improvement of the paper's methods over the baselines
# grows with the dependence in the data, even when the baselines are tuned on the test set. We
# test it on AR(1) series $y_t=\varphi y_{t-1}+\varepsilon_t$ with signed scores $s_t=y_t$, for
# $\varphi\in\{0,0.3,0.6,0.9\}$, with the authors' protocol: LQT (fixed steps) is tuned on the
# first 25 % of each series over their grid of learning rates, biases and $p\in\{0,1,2\}$, then
# run from scratch on the remaining 75 %; the baselines — SQT, ACI and conformal PI — are tuned
# *on that test part itself* (lowest pinball loss among the settings whose coverage is within
# 0.01 of 0.9). Everything is measured on the test part. The gain is LQT's reduction of the mean
# pinball (quantile) loss, $1-\bar\rho_{\text{LQT}}/\bar\rho_{\text{baseline}}$, the authors'
# first metric: unlike the mean threshold it charges a method for the coverage it gives up. The
# reduction of the mean threshold (the set size) is shown as context. There are `ar1_seeds`
# seeds; on each seed one sequence of innovations $\varepsilon_t$ drives all four values of
# $\varphi$, so that the gains at two values of $\varphi$ are paired on the seed.
#
# This is a controlled demonstration: LQT(1) represents the conditional quantile of an AR(1)
# exactly ($\varphi y_{t-1}+z_{0.9}$), so the set-up leans towards the claim; what can fail is
# whether a baseline tuned on the test part catches up. The test on real data is 4c.
#
# **Criterion 3a (the paper's claim).** Against each of the three baselines and for each step
# $\varphi_j\to\varphi_{j+1}$, the per-seed increase of the pinball-loss gain, paired on the seed,
# is positive beyond its noise: mean $-\,t_{0.975,n-1}\cdot$SE $>0$ over the $n$ seeds (within
# the noise when the interval spans 0). It fails if the gain stops growing (for example a
# test-tuned adaptive baseline catching up at strong dependence).
#
# **Our derivation, 3b (not the paper's claim).** The best *constant* threshold is the marginal
# quantile $z_{0.9}/\sqrt{1-\varphi^2}$, while the conditional quantile $\varphi y_{t-1}+z_{0.9}$
# averages $z_{0.9}$. A method that learns the conditional quantile therefore has a mean threshold
# smaller than the best constant's by $1-\sqrt{1-\varphi^2}$: 0, 4.6, 20.0 and 56.4 % for the four
# values of $\varphi$ [derived]. Criterion: LQT's reduction against the oracle best constant
# threshold (the empirical 0.9-quantile of each test part, the best constant in hindsight),
# averaged over seeds, lies within 5 percentage points of $1-\sqrt{1-\varphi^2}$ at every
# $\varphi$, and at $\varphi=0$ the mean reduction against SQT is below 1 % in absolute value.

# %%
t_section = time.perf_counter()
PHIS = [0.0, 0.3, 0.6, 0.9]
T1, n1 = run["ar1_T"], run["ar1_seeds"]
sweep = O.ar1_dependence_sweep(
    PHIS, T=T1, rngs=[run.child_rng(300 + k) for k in range(n1)], alpha=ALPHA
)
by_phi = [f"φ={phi}" for phi in PHIS]
red = {b: sweep.reduction(b) for b in BASELINES}  # seeds × φ, set size
red_loss = {b: sweep.reduction(b, "pinball") for b in BASELINES}
red_oracle = sweep.reduction("oracle constant")
analytic = O.ar1_set_size_reduction(PHIS)
T975_3 = float(stats.t.ppf(0.975, n1 - 1))
steps = {  # the criterion's paired steps: pinball-loss gain
    b: {
        f"{by_phi[j]}→{PHIS[j + 1]} vs {b}": d
        for j, d in enumerate(O.paired_steps(red_loss[b]).T)
    }
    for b in BASELINES
}


mean_table = lambda tables: pd.DataFrame(  # noqa: E731
    {k: v.mean(axis=0) for k, v in tables.items()}, index=PHIS
)
print(f"(tuning and runs: {time.perf_counter() - t_section:.1f} s)")
print(
    "coverage on the test part, mean over seeds (min–max):\n"
    + pd.DataFrame(
        {
            m: [
                f"{c.mean():.4f} ({c.min():.4f}–{c.max():.4f})"
                for c in sweep.coverage[m].T
            ]
            for m in sweep.coverage
        },
        index=PHIS,
    ).to_string()
)
print(
    "\nLQT's reduction of the pinball loss (the criterion's gain), mean over seeds:\n"
    + mean_table(red_loss).round(4).to_string()
)
print(
    "\nLQT's reduction of the mean threshold (set size; context), mean over seeds:\n"
    + mean_table(red).round(4).to_string()
)
print(
    f"\npaired per-seed increase of the pinball-loss gain, mean ± t_0.975,{n1 - 1}·SE "
    f"(t = {T975_3:.2f}):\n"
    + pd.DataFrame(
        {
            b: [
                f"{d.mean():+.4f} ± {T975_3 * d.std(ddof=1) / np.sqrt(d.size):.4f}"
                for d in st_.values()
            ]
            for b, st_ in steps.items()
        },
        index=[f"{a} → {c}" for a, c in zip(PHIS, PHIS[1:])],
    ).to_string()
)
print(
    "\n3b: reduction against the oracle best constant threshold:\n"
    + pd.DataFrame(
        {
            "per seed": [np.round(r, 3).tolist() for r in red_oracle.T],
            "mean": red_oracle.mean(axis=0).round(4),
            "analytic 1 − √(1 − φ²)": analytic.round(4),
        },
        index=PHIS,
    ).to_string()
)
print(
    "\nLQT settings chosen on validation, seed 0:",
    sweep.settings["LQT"][0],
    "\nSQT step sizes chosen on the test part, seed 0:",
    [c["lr"] for c in sweep.settings["SQT"][0]],
)
timings["claim 3"] = time.perf_counter() - t_section

# %% tags=["hide-input"]
fig, axes = plt.subplots(1, 2, figsize=(12, 4.0))
ax = axes[0]
for j, b in enumerate(BASELINES):
    x = np.array(PHIS) + 0.012 * (j - 1)
    for row in red_loss[b]:
        ax.scatter(x, 100 * row, color=color_for(b), s=10, alpha=0.6)
    ax.plot(
        x,
        100 * red_loss[b].mean(axis=0),
        color=color_for(b),
        marker="o",
        label=f"vs {b}",
    )
    ax.plot(x, 100 * red[b].mean(axis=0), color=color_for(b), ls=":", lw=1, alpha=0.8)
ax.plot([], [], color=color_for("muted"), ls=":", label="set-size reduction (context)")
ax.axhline(0, color=color_for("muted"), lw=0.8)
ax.set(
    xlabel=r"AR(1) coefficient $\varphi$",
    ylabel="pinball-loss reduction by LQT (%)",
    title="3a: loss gain over test-tuned baselines (seeds as points)",
)
ax.legend(fontsize=8)
ax = axes[1]
fine = np.linspace(0, 0.92, 100)
ref = 100 * O.ar1_set_size_reduction(fine)
ax.plot(fine, ref, color=color_for("reference"), ls="--", lw=1.2, label="1 − √(1 − φ²)")
ax.fill_between(fine, ref - 5, ref + 5, color=color_for("reference"), alpha=0.12)
for row in red_oracle:
    ax.scatter(PHIS, 100 * row, color=color_for("LQT"), s=10, alpha=0.6)
ax.plot(
    PHIS,
    100 * red_oracle.mean(axis=0),
    color=color_for("LQT"),
    marker="o",
    label="LQT vs the oracle constant",
)
ax.set(
    xlabel=r"AR(1) coefficient $\varphi$",
    ylabel="reduction against the oracle constant (%)",
    title="3b (ours): reduction against the best constant, ± 5 points",
)
ax.legend(fontsize=8)
plt.show()

# %%
ledger.check(
    "3a",
    "the gain over test-tuned baselines grows with dependence (AR(1))",
    paper="abstract: the improvement over baselines grows with the data's dependence, "
    "even when baselines are tuned on the test set",
    source="abstract",
    measured={
        **{
            f"mean loss reduction vs {b}": dict(zip(by_phi, red_loss[b].mean(axis=0)))
            for b in BASELINES
        },
        **{
            f"mean set-size reduction vs {b} (context)": dict(
                zip(by_phi, red[b].mean(axis=0))
            )
            for b in BASELINES
        },
        **{name: d for st_ in steps.values() for name, d in st_.items()},
    },
    show=[f"mean loss reduction vs {b}" for b in BASELINES],
    criterion=all_of(
        *[paired_gain(name, k="t") for st_ in steps.values() for name in st_]
    ),
    note="gain = LQT's reduction of the mean "
    "pinball loss; each step φ_j → φ_j+1 paired "
    f"on the seed (the same innovations), read with t_0.975,{n1 - 1} = {T975_3:.2f}; "
    "a controlled demonstration (LQT(1) represents the AR(1) conditional quantile)",
)
dev_oracle = np.abs(red_oracle.mean(axis=0) - analytic)
ledger.ours(
    "3b",
    "reduction vs the best constant threshold = 1 − √(1 − φ²) (AR(1))",
    why="our derivation: the conditional quantile against the best constant "
    "threshold; the paper states no such number",
    measured={
        "mean reduction vs oracle constant": dict(zip(by_phi, red_oracle.mean(axis=0))),
        "analytic": dict(zip(by_phi, analytic)),
        "max |mean reduction − analytic|": dev_oracle.max(),
        "|mean reduction vs SQT| at φ=0": abs(red["SQT"][:, 0].mean()),
    },
    criterion=all_of(
        at_most("max |mean reduction − analytic|", 0.05),
        at_most("|mean reduction vs SQT| at φ=0", 0.01, strict=True),
    ),
)

# %% tags=["hide-input"]
means = {b: red_loss[b].mean(axis=0) for b in BASELINES}
print(
    "Mean pinball-loss reduction at φ = "
    + ", ".join(str(p) for p in PHIS)
    + ": "
    + "; ".join(
        f"vs {b} " + ", ".join(f"{100 * x:.1f} %" for x in m) for b, m in means.items()
    )
    + "."
)
worst_step = min(
    (
        (name, d.mean() - T975_3 * d.std(ddof=1) / np.sqrt(d.size))
        for st_ in steps.values()
        for name, d in st_.items()
    ),
    key=lambda kv: kv[1],
)
c3a = next(c for c in ledger.claims if c.id == "3a")
print(
    f"3a's margin in the table, {c3a.margin:+.4f}, is that of the step the ledger "
    f"binds on, {c3a.binding}: the step nearest its bar relative to its own noise "
    "((mean − t·SE)/(t·SE)). The smallest mean − t·SE of the nine paired steps "
    f"is {worst_step[1]:+.4f}, at {worst_step[0]}"
    + (", the same step." if worst_step[0] in c3a.binding else ".")
)
j_worst = int(dev_oracle.argmax())
lqt0 = [sweep.settings["LQT"][k][0] for k in range(n1)]  # φ = 0, per seed
sqt0 = [sweep.settings["SQT"][k][0] for k in range(n1)]
same0 = [  # LQT(0) with b = 1 and SQT's step: the same thresholds, step for step
    k
    for k in range(n1)
    if lqt0[k]["p"] == 0 and lqt0[k]["bias"] == 1.0 and lqt0[k]["lr"] == sqt0[k]["lr"]
]
zero0 = [k for k in range(n1) if red["SQT"][k, 0] == 0.0]
print(
    f"3b at φ = 0: the reduction against SQT is exactly 0 on {len(zero0)} of {n1} "
    "seeds; "
    f"on {len(same0)} of {n1} seeds validation-tuned LQT picked p = 0 with bias 1 and "
    "SQT's step size, so its thresholds are SQT's"
    + (
        " — an identity there, not a measurement: 3b's second part, and 3a's first "
        "step against SQT, start from a gain of 0 by construction on those seeds."
        if same0
        else "."
    )
)
print(
    f"3b: against the oracle constant the mean reduction is furthest from "
    f"1 − √(1 − φ²) at φ = {PHIS[j_worst]} "
    f"({100 * red_oracle.mean(axis=0)[j_worst]:.1f} % "
    f"against {100 * analytic[j_worst]:.1f} %); the SQT step sizes chosen on the test "
    f"part on seed 0 are {[c['lr'] for c in sweep.settings['SQT'][0]]}; SQT "
    "is adaptive, and its mean threshold against the best constant's is "
    + ", ".join(
        f"φ = {p}: SQT {sq:.3f}, oracle constant {oc:.3f}"
        for p, sq, oc in zip(
            PHIS, sweep.set_size["SQT"].mean(axis=0), sweep.oracle_constant.mean(axis=0)
        )
    )
    + " (means over seeds)."
)

# %% [markdown]
# The left panel is claim 3a: each point is one seed's loss reduction, the solid line its mean
# (the dotted line the set-size reduction, as context), and the criterion reads the paired rise
# of each seed's loss reduction from one $\varphi$ to the next. The
# right panel is our derivation 3b: the analytic reduction compares the conditional quantile with
# the best *constant* threshold, so it is the right yardstick only against a constant; a baseline
# tuned on the test set is adaptive and captures part of the dependence itself (the last printed
# line compares SQT's mean threshold with the oracle constant's), which is why the gain over the
# baselines can stay below the analytic curve at strong dependence without contradicting the
# paper.
#
# ## Claim 4 · Real series that ship offline
#
# The paper's real data (stock and climate residual files, Elec2, ERCOT) live in the authors'
# experiments repository, which cannot be fetched at run time. Three series that ship inside
# `pmdarima` stand in, each with a deliberately simple forecaster:
#
# - **Electricity**: half-hourly demand of England and Wales (`load_taylor`, 12 weeks in 2000, MW),
#   forecast by the mean of the 24 half-hours that started one day earlier — the same one-day-delayed
#   moving average the authors use for Elec2. Score $|y_t-\hat y_t|$; 25 % validation.
# - **MSFT**: daily closing price (`load_msft`), forecast by the previous close. Score
#   $|y_t-y_{t-1}|$, the last 3,000 trading days; 33 % validation (the authors' split for stocks).
# - **Sunspots**: monthly sunspot numbers (`load_sunspots`, 2,820 months), forecast by the previous
#   month. Score $|y_t-y_{t-1}|$; 25 % validation.
#
# The authors' electricity data are min-max normalised, and their learning-rate grid
# ($10^{-5}$–$10^{5}$) and biases suit scores of order one. So every series' scores are min-max
# normalised by its validation part (one shift and one scale, known before the test part), and the
# authors' protocol runs as is: LQT (fixed steps) tuned on validation over their grid of learning
# rates, biases and $p\in\{0,1,2\}$, then run from scratch on the test part; SQT, ACI and conformal
# PI tuned on the test part itself. The paired test compares per-round pinball losses,
# $d_t=\rho(s_t-q^{\text{baseline}}_t)-\rho(s_t-q^{\text{LQT}}_t)$, with a one-sided $t$-test whose
# standard error is Newey–West (Bartlett kernel), since $d_t$ is autocorrelated, with 48 lags on
# every series: one day of the electricity series' half-hours, so that its daily cycle lies inside
# the window, and the same lag on the other two (the default rule $\lfloor4(T/100)^{2/9}\rfloor$
# gives fewer on all three, printed below). As a sensitivity column (not judged),
# LQT restricted to lagged scores ($p\in\{1,2\}$) over a wider learning-rate grid
# ($10^{-9}$–$10^{5}$) against SQT on the same grid — the set-up this chapter judged before.
#
# **Criteria** ((a) fixed before the run; (b)'s HAC lags and (c)'s gate changed after issue
# 36's third verdict audit, see Deviations).
# (a) On every series the test coverage of the validation-tuned LQT lies in $0.9\pm0.02$ (the
# research brief's band). The baselines are tuned on the test part under a constraint of coverage
# within 0.01 of 0.9, so their coverage cannot fail the band: it is shown as context.
# (b) On the electricity series, LQT's mean pinball loss is at most 0.5 times the best of SQT's,
# ACI's and PI's, and the one-sided HAC test against each baseline gives $p<0.05$. The ratio is
# the authors' results file's (`final/latex_out.txt` in their experiments repository): on Elec2
# it has LQT's quantile loss 0.005 against 0.011–0.015 for the baselines, so 0.45 against the
# best, which we round to 0.5. The file rounds to three decimals, so the ratio it records lies
# anywhere in the interval printed below the table: the bar is the file's number rounded, within
# the file's own uncertainty. It fails if LQT's gain on our stand-in is much smaller than on
# theirs.
# (c) Across the three series, LQT's gain over the best baseline, $1-\bar\rho_{\text{LQT}}/
# \bar\rho_{\text{best}}$, follows the dependence of the scores: the Spearman rank correlation
# between the gains and the lag-1 autocorrelation of the test scores is at least 0.8 (our bar).
# A gain whose two-sided HAC test gives $p\ge0.05$ is read as 0 (within its noise). **Gate:** at
# least two series have a gain beyond their noise — an order over series is only read where at
# least two gains are resolved (ours, from what a rank needs). With that gate and three series,
# only the same order passes (a swap of two neighbours gives 0.5); without it, a tie of two
# unresolved gains read as 0 gave $\sqrt3/2\approx0.87$ and passed too. It fails if a weakly
# dependent series gains more than a strongly dependent one.

# %%
t_section = time.perf_counter()
from pmdarima.datasets import load_msft, load_sunspots, load_taylor

y_el = load_taylor()
s_el = np.abs(y_el[48:] - O.delayed_moving_average(y_el, delay=48, window=24))
close = load_msft()["Close"].to_numpy(dtype=float)
s_ms = np.abs(np.diff(close))[-3000:]
s_sun = np.abs(np.diff(np.asarray(load_sunspots(), dtype=float)))
series = {
    "electricity (Taylor)": (s_el, 0.25),
    "MSFT": (s_ms, 0.33),
    "sunspots": (s_sun, 0.25),
}
FINE_LR = np.logspace(-9, 5, 15)
# one day of half-hours on the electricity series; the same on every series
HAC_LAGS = 48
res4, lag4 = {}, {}
for sname, (s, frac) in series.items():
    res4[sname] = O.series_comparison(s, val_frac=frac, alpha=ALPHA, hac_lags=HAC_LAGS)
    lag4[sname] = O.series_comparison(
        s,
        val_frac=frac,
        alpha=ALPHA,
        hac_lags=HAC_LAGS,
        lrs=FINE_LR,
        ps=[1, 2],
        sqt_lrs=FINE_LR,
        baselines=["SQT"],
    )
rho1 = {k: O.lag1_autocorrelation(r.test) for k, r in res4.items()}
rows4 = []
for sname, r in res4.items():
    for m in r.q:
        rows4.append(
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
    lg = lag4[sname]
    rows4.append(
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
table4 = pd.DataFrame(rows4)
print(
    {k: f"{v.size} scores" for k, (v, _) in series.items()},
    "; lag-1 autocorrelation of the test scores:",
    {k: round(v, 3) for k, v in rho1.items()},
)
with pd.option_context("display.float_format", "{:.4g}".format, "display.width", 150):
    print(table4.to_string(index=False))
print(
    f"HAC lags: {HAC_LAGS} on every series; the default rule ⌊4(T/100)^(2/9)⌋ "
    "would give "
    + ", ".join(
        f"{int(np.floor(4 * (r.test.size / 100) ** (2 / 9)))} on {k}"
        for k, r in res4.items()
    )
)
# 4b's bar from the authors' results file (final/latex_out.txt, Elec2 row), quoted
# to three decimals: LQT's quantile loss and the best of the baselines'
FILE_LQT, FILE_BEST, FILE_HALF_ULP = 0.005, 0.011, 0.0005
file_ratio = FILE_LQT / FILE_BEST
file_lo = (FILE_LQT - FILE_HALF_ULP) / (FILE_BEST + FILE_HALF_ULP)
file_hi = (FILE_LQT + FILE_HALF_ULP) / (FILE_BEST - FILE_HALF_ULP)
print(
    f"4b's bar: the results file's ratio {FILE_LQT} / {FILE_BEST} = {file_ratio:.3f}, "
    f"rounded to 0.5; with the file's three-decimal rounding the true ratio lies in "
    f"{file_lo:.2f}–{file_hi:.2f}."
)
print(
    "settings (authors' protocol):",
    {k: r.settings for k, r in res4.items()},
    "\nlags-only sensitivity:",
    {
        k: {
            "LQT": r.settings["LQT"],
            "SQT": r.settings["SQT"],
            "loss gain over SQT": round(r.gain("SQT"), 4),
            "HAC p": round(r.hac["SQT"].p_greater, 4),
        }
        for k, r in lag4.items()
    },
)

# %% tags=["hide-input"]
fig, axes = plt.subplots(1, len(series), figsize=(16, 3.8))
for ax, sname in zip(axes, series):
    r = res4[sname]
    best = r.best_baseline
    win = np.arange(r.test.size - 300, r.test.size)
    ax.plot(win, r.test[win], color=color_for("muted"), lw=0.8, label="score")
    ax.plot(
        win,
        r.q["LQT"][win],
        color=color_for("LQT"),
        label=f"LQT, judged (p = {r.settings['LQT']['p']})",
    )
    ax.plot(
        win,
        r.q[best][win],
        color=color_for(best),
        lw=1.1,
        label=f"{best} (best baseline, tuned on test)",
    )
    if best != "SQT":
        ax.plot(
            win,
            r.q["SQT"][win],
            color=color_for("SQT"),
            lw=0.7,
            alpha=0.6,
            ls=":",
            label="SQT (context)",
        )
    ax.set(
        xlabel="test round (last 300)",
        ylabel="normalised |y − ŷ|",
        title=f"{sname}: LQT against {best}",
    )
    ax.legend(fontsize=7, loc="upper left")
fig.suptitle(
    "Thresholds on the real residuals (normalised by the validation part), last 300 "
    "test rounds: LQT against the best baseline",
    fontsize=12,
    fontweight="bold",
)
plt.show()
same_lags = [k for k in series if np.array_equal(lag4[k].q["LQT"], res4[k].q["LQT"])]
print(
    "The lags-only sensitivity tracker (p ∈ {1, 2}, wider grid) gives the judged LQT's "
    f"thresholds on {len(same_lags)} of {len(series)} series"
    + (
        f" ({', '.join(same_lags)}): validation picked the same setting"
        if same_lags
        else ""
    )
    + (
        ", so it is not drawn."
        if len(same_lags) == len(series)
        else "; it differs on "
        + ", ".join(k for k in series if k not in same_lags)
        + " (table above)."
    )
)

# %%
names = list(series)
el_name = names[0]
el = res4[el_name]
lqt_cov = {k: r.coverage["LQT"] for k, r in res4.items()}
cov_dev4 = float(max(abs(c - (1 - ALPHA)) for c in lqt_cov.values()))
base_cov = {f"{k}, {m}": r.coverage[m] for k, r in res4.items() for m in r.baselines}
ledger.check(
    "4a",
    "coverage holds on real residuals (validation-tuned LQT)",
    paper="abstract: coverage guarantees; the target fraction of sets covers",
    source="abstract",
    evidence="real data",
    measured={
        "max |coverage − 0.9|, LQT": cov_dev4,
        "LQT coverage": lqt_cov,
        "lags-only LQT coverage (sensitivity)": {
            k: r.coverage["LQT"] for k, r in lag4.items()
        },
        "baselines' coverage (tuned on test; context)": base_cov,
    },
    show=["max |coverage − 0.9|, LQT"],
    criterion=at_most("max |coverage − 0.9|, LQT", 0.02),
    note="the ±0.02 band is the research brief's; baselines tuned on the test part "
    "under a coverage constraint: their coverage is context, not judged",
)
ledger.check(
    "4b",
    "LQT's quantile loss ≤ 0.5 × the best baseline's (electricity)",
    paper="authors' results file (final/latex_out.txt), Elec2: q. loss 0.005 vs "
    "0.011–0.015 (ratio 0.45, rounded to 0.5)",
    source="official code",
    evidence="real data",
    measured={
        "LQT loss / best baseline's": el.loss["LQT"] / el.loss[el.best_baseline],
        "HAC p vs each baseline": {b: el.hac[b].p_greater for b in el.baselines},
        "set size / best baseline's (context)": el.set_size["LQT"]
        / el.set_size[el.best_baseline],
        "lags-only LQT: loss gain over SQT (sensitivity)": lag4[el_name].gain("SQT"),
    },
    show=["LQT loss / best baseline's", "HAC p vs each baseline"],
    criterion=all_of(
        at_most("LQT loss / best baseline's", 0.5),
        at_most("HAC p vs each baseline", 0.05, strict=True),
    ),
    unpaired_because="one real data stream, no seeds to pair: a HAC test on the loss "
    "differences over time",
    note=f"authors' protocol on min-max normalised scores; best baseline "
    f"{el.best_baseline}; LQT chose {el.settings['LQT']}; HAC with {HAC_LAGS} lags; "
    f"the file's 3-decimal rounding puts its ratio in {file_lo:.2f}–{file_hi:.2f}",
)
gain4 = {k: r.gain() for k, r in res4.items()}
p_two = {k: 2 * stats.norm.sf(abs(r.hac[r.best_baseline].t)) for k, r in res4.items()}
read4 = {k: (g if p_two[k] < 0.05 else 0.0) for k, g in gain4.items()}
n_beyond = sum(p < 0.05 for p in p_two.values())
spearman4 = float(stats.spearmanr(list(read4.values()), list(rho1.values()))[0])
ledger.check(
    "4c",
    "the gain follows the dependence of the series (3 real series)",
    paper="abstract: the improvement grows with the data's dependence",
    source="abstract",
    evidence="real data",
    measured={
        "Spearman ρ(gain read, lag-1 autocorrelation)": spearman4,
        "series with a gain beyond noise": n_beyond,
        "gain over the best baseline": gain4,
        "two-sided HAC p of the gain": p_two,
        "lag-1 autocorrelation of the test scores": rho1,
    },
    show=[
        "Spearman ρ(gain read, lag-1 autocorrelation)",
        "gain over the best baseline",
    ],
    gate=at_least("series with a gain beyond noise", 2),
    criterion=at_least("Spearman ρ(gain read, lag-1 autocorrelation)", 0.8),
    note="the 0.8 bar, the dependence statistic and the gate (an order needs two "
    f"resolved gains) are ours; a gain with two-sided HAC ({HAC_LAGS} lags) p ≥ 0.05 "
    "is "
    "read as 0; the authors' MSFT-ar row has no gain either (LQT 0.091 vs 0.088–0.091)",
)

# %% tags=["hide-input"]
print(
    "Under the authors' protocol on normalised scores, validation chose "
    + ", ".join(f"p = {r.settings['LQT']['p']} on {k}" for k, r in res4.items())
    + ". LQT's loss gain over the best baseline is "
    + ", ".join(
        f"{100 * gain4[k]:.1f} % on {k} (vs {r.best_baseline}; lag-1 autocorrelation "
        f"{rho1[k]:.2f}, two-sided HAC p = {p_two[k]:.2g})"
        for k, r in res4.items()
    )
    + f"; Spearman ρ of the gains as read and the autocorrelations = {spearman4:.2f}. "
    f"On electricity LQT's loss is {el.loss['LQT'] / el.loss[el.best_baseline]:.3f} "
    f"of {el.best_baseline}'s (4b's bar: 0.5) and its mean threshold "
    f"{el.set_size['LQT'] / el.set_size[el.best_baseline]:.3f} of it (context). "
    f"Validation-tuned LQT's coverage is within {cov_dev4:.4f} of 0.9 on the three "
    "series; the baselines' (context) within "
    f"{max(abs(c - 0.9) for c in base_cov.values()):.4f}. "
    "Sensitivity, lags only on the "
    "wider grid: loss gain over SQT "
    + ", ".join(f"{100 * r.gain('SQT'):.1f} % on {k}" for k, r in lag4.items())
    + "."
)
by_gain = sorted(gain4, key=gain4.get, reverse=True)
by_rho = sorted(rho1, key=rho1.get, reverse=True)
unresolved = [k for k in names if p_two[k] >= 0.05]
print(
    "4c, raw order (before reading unresolved gains as 0): gains "
    + " > ".join(f"{k} {100 * gain4[k]:.1f} %" for k in by_gain)
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
timings["claim 4"] = time.perf_counter() - t_section

# %% [markdown]
# Read the verdicts with the table above and the lines just printed: the judged LQT is the one
# the authors' protocol picks on validation (its $p$ in the figure's legend), drawn against the
# best baseline of each series; the lags-only tracker on the wider grid is the sensitivity
# column, and the line under the figure says where it coincides with the judged one.
#
# ## Claim 5 · The pre-registered ERCOT experiment (quoted)
#
# The authors pre-registered an experiment on Texas electricity demand: the scores are the absolute
# differences between the load and the grid operator's forecast over 2024-12-18 to 2025-01-04 (the
# window in the package's loader). That loader calls a commercial web API with a key; it cannot run
# here, and the window cannot be re-derived offline. We quote the abstract, and, in the note of the
# verdict, the authors' results file (`final/latex_out.txt` in the experiments repository; it has
# no column headers, and we read its first column as LQT and its last five as the baselines).

# %%
ledger.quote(
    5,
    "pre-registered ERCOT test: smaller sets, lower losses, all hypotheses significant",
    paper="> 10 % smaller sets; > 30 % lower quantile and absolute loss; 78/78 "
    "significant",
    source="abstract",
    note="live-API data window, not re-derived; authors' results file: quantile loss "
    "29.1 "
    "vs 42.3–76.6, mean set size 691 vs 779–1118",
)

# %% [markdown]
# ## Check 6 · Side by side with `conformalopt` (ours)
#
# The authors' package is run on the same streams with the same hyper-parameters, one
# `predict()`/`step()` pair per round, exactly as its documentation loop does; we never call its
# `fit()` (a grid search printing progress bars) or `eval()` (which writes PDFs and JSON to
# `./out/`). Reading its source, we matched three conventions: $\theta_1=(1/p)\mathbf 1$ (and 1 for
# $p=0$), no features and a zero threshold until $p$ scores have been seen, and the decaying step
# $\eta\,t^{-0.6}$ with $t$ counting every round from 1. Two quirks of the package, also from its
# source: its `hypers={}` default argument is a shared dictionary that a scalar tracker modifies
# (so we always pass a fresh one), and `fit()` chooses between its coverage-constrained and
# unconstrained optimum using the coverage flag of the *last* grid point only.
#
# **Criterion (ours: a check of our implementation, not a claim of the paper).** Over all
# streams and settings below, the largest absolute difference between our thresholds and the
# package's is at most $10^{-8}$.

# %%
t_section = time.perf_counter()
n_long, n_short = run["peer_T"], run["peer_short"]
y_long = O.ar_series(coef, n_long, run.child_rng(600))
t0 = time.perf_counter()
theirs = O.conformalopt_thresholds(y_long, alpha=ALPHA, p=2, lr=0.01, schedule="fixed")
t_theirs = time.perf_counter() - t0
t0 = time.perf_counter()
ours = O.lqt(y_long, alpha=ALPHA, p=2, lr=0.01).q
t_ours = time.perf_counter() - t0
peer_rows = [("AR(2), LQT(2) fixed η = 0.01", n_long, np.abs(ours - theirs).max())]
el_lqt = res4["electricity (Taylor)"].settings["LQT"]
cases = [
    (
        "AR(2), LQT(2) decaying η = 1",
        y_long[:n_short],
        dict(p=2, lr=1.0, bias=1.0, schedule="decaying"),
    ),
    (
        "AR(2), SQT fixed η = 0.05",
        y_long[:n_short],
        dict(p=0, lr=0.05, bias=1.0, schedule="fixed", scalar=True),
    ),
    (
        "AR(2), SQT decaying η = 1",
        y_long[:n_short],
        dict(p=0, lr=1.0, bias=1.0, schedule="decaying", scalar=True),
    ),
    (
        "regime switches, LQT(1) η = 0.05",
        runs1["regime switches", 1].scores[:n_short],
        dict(p=1, lr=0.05, bias=1.0, schedule="fixed"),
    ),
    (
        "electricity test part (normalised), tuned LQT",
        res4["electricity (Taylor)"].test,
        dict(**el_lqt, schedule="fixed"),
    ),
]
for label, s, kw in cases:
    scalar = kw.pop("scalar", False)
    ref = O.conformalopt_thresholds(s, alpha=ALPHA, scalar=scalar, **kw)
    mine = O.lqt(s, alpha=ALPHA, **kw).q
    peer_rows.append((label, s.size, np.abs(mine - ref).max()))
peer = pd.DataFrame(peer_rows, columns=["stream and method", "rounds", "max |Δq|"])
print(peer.to_string(index=False, formatters={"max |Δq|": "{:.1e}".format}))
max_dq = float(peer["max |Δq|"].max())
ledger.ours(
    6,
    "our LQT/SQT = conformalopt's thresholds",
    why="a check of our implementation against the authors' package, not a claim of "
    "the paper",
    evidence="peer agreement",
    measured={f"max |Δq| over {len(peer)} streams × settings": max_dq},
    criterion=at_most(f"max |Δq| over {len(peer)} streams × settings", 1e-8),
)

# %% tags=["nbval-ignore-output"]
timings["claim 6"] = time.perf_counter() - t_section
print(
    f"{n_long:,} rounds of LQT(2): ours {t_ours:.2f} s, conformalopt {t_theirs:.2f} s; "
    f"time ratio ours/theirs = {t_ours / t_theirs:.3f} (ours "
    f"{'faster' if t_ours < t_theirs else 'not faster'} on this machine, this run)"
)

# %% [markdown]
# Where the thresholds agree to rounding error (printed above), every LQT and SQT threshold in
# this chapter is also what the authors' package would give; ACI, conformal PI and the tuning
# protocol are our own code and are not covered by this check. The timing above varies with the machine; our tracker is a
# plain loop over Python floats instead of building a NumPy feature vector from a growing list at
# every round, plus a vectorised engine that runs whole tuning grids at once.
#
# ## Verdicts

# %% tags=["nbval-check-output"]
ledger.show()

# %% tags=["nbval-ignore-output"]
print(f"chapter run time: {run.elapsed():.1f} s at scale={run.scale!r} on {run.device}")

# %% [markdown]
# **Stability.** The *seeds* column above comes from the committed stability record (quick scale,
# `data/stability/17_online_conformal.json`); a claim changed since reads "stale record". The
# lines below are generated from that record.

# %%
stab = ledger.stability()
stability_line = unstable_sentence(ledger, stab)
print(stability_line or "No claim the record still describes flips between its seeds.")
POOLED = {"1d"}  # reads every seed of the record in each run, by design
if stab is not None:
    same = [
        c.id
        for c in ledger.claims
        if (st := stab.current(c)) is not None
        and len(st.margins) > 1
        and None not in st.margins.values()
        and len(set(st.margins.values())) == 1
    ]
    seeds_txt = ", ".join(str(s) for s in stab.seeds)
    fixed_claims = [c for c in same if c not in POOLED]
    if fixed_claims:
        print(
            f"Claim(s) {', '.join(fixed_claims)} give the same margin on every seed of "
            f"the record ({seeds_txt}): their data and tuning do not depend on the "
            "seed, so their seed column shows one outcome repeated, not a spread."
        )
    pooled = [c for c in same if c in POOLED]
    if pooled:
        print(
            f"Check(s) {', '.join(pooled)} give the same margin on every seed because "
            f"each run already reads every seed of the record ({seeds_txt})."
        )

# %% [markdown]
# ## Deviations from the paper
#
# - **What we could not confirm from the paper.** Only the abstract of the paper was available to
#   us. The algorithms follow the authors' package and experiment code (read, not copied); the
#   identity behind claim 1 and the analytic targets of claims 2–3 were derived here. Claim 1 is
#   judged on the abstract's words (miscoverage tends to $\alpha$); the rate form $C/(\eta T)$,
#   SQT's $B+\eta$ and the factor 2 on the growth of $C$ are ours (sanity check 1s, diagnostic
#   1d). Claim 1's bar is the research brief's coverage tolerance. Claim 2's bounds (0.01 and a
#   third of SQT's on the conditional gap) come from the research brief's prototype, as do those
#   of our diagnostic 2d (0.05 on $\lVert\theta_T-\theta^*\rVert$, 0.005 on marginal coverage).
# - **Issue 36's third verdict audit (a second fresh auditor), resolved here.** Every change
#   below was made after the auditor's numbers had been seen; each item says whether its result
#   was known before the change. The numbers they cite are printed by the cell after this list,
#   from this run and the records.
#   - *Claim 1's bar.* Before: $|\text{miscoverage}-\alpha|\le0.01$ after $10^6$ rounds (our
#     bar) and (ii) not larger than after $10^4$ rounds plus 0.009. The 0.01 bar sat orders of
#     magnitude above the measured errors and failed only if a bias coordinate moved by
#     $0.01\,\eta T$. Now: $3\sqrt{\alpha(1-\alpha)/T}$ at $T=10^6$, the research brief's coverage
#     tolerance with slack 0 (the brief states none for it). Part (ii) is dropped: under the new
#     bar it cannot fail, since an error of at most $3\sqrt{\alpha(1-\alpha)/10^6}$ at $10^6$
#     rounds is below 0.009 plus any error at $10^4$. The result was known before the change: by
#     the audit's numbers it still passes. The gate is unchanged but renamed (*stream design*) and
#     described as what it is: met by how the streams are built (no constant threshold reaches
#     $\alpha$ on them; the split-conformal comparator is the full set there), not a check of the
#     run's regime; the best constant in hindsight is shown beside it. The text now says that
#     claim 1 confirms a theorem: $\theta$ stays bounded.
#   - *Claim 4c's gate.* Before: at least one series with a gain beyond its noise. Electricity
#     alone met it; MSFT's and sunspots' gains were unresolved, both read as 0, and their tie gave
#     a Spearman $\rho$ of $\sqrt3/2$, which passes the 0.8 bar — so "with three series, only the
#     same order passes" was false. Now: at least two (ours, derived from what a rank needs: an
#     order over series is read only where at least two gains are resolved). The result was
#     known before the change: under the audit's p-values one gain is resolved, so the gate reads
#     unmet unless the HAC change below resolves another. The raw order of the gains is printed,
#     with which of them are within noise.
#   - *HAC lags (4b, 4c).* Before: the default rule $\lfloor4(T/100)^{2/9}\rfloor$ lags; now 48 on
#     every series, one day of the electricity series' half-hours, so that the daily cycle of the
#     loss differences lies inside the window. A change of the noise estimate, made without a
#     run under it; verdicts re-read after it (claim 4's lines; the p-values under the old lags
#     are printed below).
#   - *Claim 4b's source and bar.* The paper column now names the authors' results file
#     (`final/latex_out.txt`); the source label stays "official code", the core's label for the
#     official code or repository (it has none for a results file). The bar 0.5 is the file's
#     0.45 rounded; the file's three-decimal rounding puts the ratio it records anywhere in the
#     interval printed in claim 4's cell. A variant of the protocol: the chapter min-max
#     normalises the *scores* by their validation part (a shift and a scale), while the authors
#     normalise the *demand series* (Elec2 ships normalised) and take residuals of it, so their
#     scores are scaled but not shifted. 4b's criterion is unchanged (its ratio was known from
#     the audit).
#   - *Texts.* Claim 2's margin range over the stability record's seeds is printed under claim
#     2 (generated from the record); 3a's reading names the ledger's binding step beside the
#     smallest mean − t·SE; 3b says that at $\varphi=0$ the reduction against SQT is exactly 0
#     where validation-tuned LQT picked $p=0$ with SQT's step size (an identity there). Claim 4's
#     figure draws LQT against each series' best baseline (SQT as context) and no longer the
#     lags-only line, which the line under the figure compares with the judged LQT. Numbers once
#     typed in these Deviations and in the full-scale section are printed from this run and the
#     records.
# - **Issue 36's second verdict audit (a fresh auditor), resolved before.** Every criterion below
#   changed after the auditor's numbers, and this chapter's earlier results, had been seen; the
#   new criteria were written into the chapter before the new protocol first ran ("Now" below is
#   that round's state; claim 1's bar and 4c's gate changed again, above).
#   - *Claim 1.* Before: (i) SQT's largest $C\le B+\eta$ and (ii) $C$ at $10^5$ rounds at most
#     twice $C$ at $10^4$, for every tracker and stream, on $10^5$-round streams; reproduced on
#     seed 0 (largest growth 1.21), not on seed 4 (LQT(2) 2.64 on the regime switches). (i) is a
#     theorem that only a bug can fail, and (ii) is our rule: a growth of $C$ that can fail where
#     the guarantee is proven. Now: the abstract's limit, $|\text{miscoverage}-\alpha|\le0.01$
#     after $10^6$ rounds and not larger than after $10^4$ rounds plus 0.009, for SQT, LQT(1) and
#     LQT(2) on the regime switches and the adversary, gated on a fixed split-conformal threshold
#     missing $\alpha$ by at least 0.02 there. (i) is sanity check 1s, (ii) diagnostic 1d (now
#     also $10^5\to10^6$, on every seed of the record); $\lVert\theta\rVert$ and the bias
#     coordinate are shown. The old chapter printed the largest miscoverage error after $10^5$
#     rounds, so its order of magnitude was known before the 0.01 bar was set. The adversarial
#     streams are now $10^6$ rounds at quick scale (before: $10^5$).
#   - *Claim 2.* Before: (a) $\lVert\theta_T-\theta^*\rVert<0.05$ on every seed, (b) the
#     conditional gap below 0.01 and a third of SQT's, (c) marginal coverage in $0.9\pm0.005$;
#     reproduced. (a) is the brief's reading, not the abstract's, and (c) is claim 1's territory
#     and nearly an identity. Now: (b) plus the abstract's "tends to" as a paired per-seed drop of
#     the gap from rounds $[T/10,T/5]$ to $[T/2,T]$, positive beyond $t_{0.975,n-1}\cdot$SE; (a)
#     and (c) are our diagnostic 2d.
#   - *Claim 3a.* Before: the gain was the reduction of the mean threshold, each step read with
#     mean − 2 SE; reproduced (smallest margin +0.039). The mean threshold credits a method that
#     covers less (at $\varphi=0$ conformal PI covers less than LQT and has the smaller mean
#     threshold, a negative "gain" of LQT's; printed below), and 2 SE is loose on 5 seeds. Now:
#     the reduction of the mean pinball loss, the authors' first metric, with the set size shown
#     as context, and $t_{0.975,n-1}\cdot$SE. The pinball gains against SQT (printed below) were
#     printed as context before, and quoted by the auditor, so they were seen before this change.
#     3a is labelled a controlled demonstration.
#   - *AR(1) length.* The brief asked to restore the AR(1) streams to $10^5$ rounds if the chapter
#     stays within 75 s unloaded. With the $10^6$-round bounded streams, the run times measured
#     in that round put $10^5$ rounds over that bar, so the streams stayed at $5\times10^4$
#     rounds on 5 seeds. Whether they would fit now is printed below, from the stability
#     record's run times and claim 3's share of this run (its sweep is at least linear in the
#     rounds); this round did not change the length.
#   - *Claims 4a–4c: the authors' protocol on normalised scores.* Before: our electricity scores
#     in MW; 4a on both series (authors' grid and lags only); 4b LQT restricted to lags over
#     learning rates widened to $10^{-9}$, a loss at least 10 % (the research brief's number)
#     below SQT's on the same grid with HAC $p<0.05$ — reproduced, gain 72.0 %; 4c the gain over
#     SQT ordered like the lag-1 autocorrelation of the scores on two series — reproduced (MSFT's
#     gain −0.02 %, within its noise). The authors' Elec2 is min-max normalised, and the widened
#     grid was ours. Now: every series' scores min-max normalised by its validation part and the
#     authors' protocol run as is (LQT over their grid with $p\in\{0,1,2\}$); 4a on the three
#     series, its ±0.02 band labelled the brief's; 4b the authors' ratio — LQT's loss at most 0.5
#     times the best of SQT, ACI and PI (their Elec2 row: 0.005 against 0.011–0.015, a ratio of
#     about 0.45, rounded up to 0.5) and HAC $p<0.05$ against each; 4c the Spearman correlation of
#     gains (read as 0 within their HAC noise) and autocorrelations at least 0.8 on three series
#     (our bar), gated on one gain beyond noise. The lags-only tracker on the widened grid is a
#     sensitivity column. The auditor's note that the old 72 % passes either bar was seen before.
#     A fourth series (`load_gasoline`) is downloaded by `pmdarima` on first use, so it cannot run
#     offline; sunspots is the one longer offline series added. The authors' MSFT-ar row agrees
#     with our MSFT (no gain: LQT 0.091 against 0.088–0.091).
#   - *Check 6* was counted in the paper's tally: it checks our code, so it is ours now, and the
#     sentence after it covers LQT's and SQT's thresholds only.
# - **Issue 36's first audit, resolved before** (old → new, with the reason):
#   - *Claim 3 split into 3a and 3b* (criteria changed after their results were known). Before:
#     one claim, sourced "paper", on one stream per $\varphi$: (a) LQT's set-size reduction
#     increasing in $\varphi$ against each test-tuned baseline, (b) the reduction against SQT
#     within 5 points of $1-\sqrt{1-\varphi^2}$ at every $\varphi$, (c) below 1 % at $\varphi=0$;
#     not reproduced by (b) alone (0.133 off at $\varphi=0.9$, margin −0.083), while (a) held
#     against all three baselines. But $1-\sqrt{1-\varphi^2}$ is the reduction against the best
#     *constant* threshold, and SQT tuned on the test set is adaptive: the ✗ came from our own
#     target. Then: 3a the gain over the test-tuned baselines growing with $\varphi$ on paired
#     seeds; 3b, our derivation under `ledger.ours`, against the oracle best constant threshold.
#     The AR(1) streams were halved to $5\times10^4$ rounds for time (the chapter took 84 s of its
#     90 s then), not for the verdict.
#   - *Claim 4a.* The baselines are tuned on the test part under a coverage constraint, so their
#     coverage could not fail the band: only the validation-tuned LQT is judged.
#   - *Sources.* Claims 1, 2, 3a, 4a and 4c were sourced "paper", though only the abstract was
#     read: now "abstract", with the abstract's statement in the paper column.
#   - *Protocols* moved from chapter loops to `online_conformal.bounded_stream_runs`,
#     `ar1_dependence_sweep` and `series_comparison`, unit-tested.
#   - *Claims 4b and 4c, earlier still.* With the authors' grid on scores in MW, validation chose
#     $p=0$ on both series, so "LQT" was a scalar tracker; the lags-only set-up replaced it, and
#     is now the sensitivity column, since normalised scores let the authors' protocol run as is.
# - **Baselines.** ACI and conformal PI are our own implementations from their papers' update rules,
#   with three choices of ours: ACI uses the $\lceil(1-\alpha_t)(n+1)\rceil$-th smallest past score;
#   an infinite (empty) set is replaced by the largest (smallest) score seen so far rather than by the
#   largest score of the whole series, as the authors' baseline code does; and PI's step uses the
#   range of the last 20 scores including the current one. The authors' results file has five
#   baseline columns without headers; their code's list of methods holds ACI with fixed and decaying
#   steps, SQT with fixed and decaying steps, and conformal PI with a proportional, a fixed and a
#   decaying step (and PID with Theta and AR scorecasters, and SQT on an AR forecast). We run three:
#   ACI (fixed γ), SQT (fixed step) and conformal PI (proportional step).
# - **Tuning grids.** LQT and SQT use the authors' grid (learning rates $10^{-5}$–$10^{5}$, biases
#   0.1–1000, $p\in\{0,1,2\}$; their code computes a PACF order and then overwrites it with this
#   grid). The authors tune ACI's γ over the same $10^{-5}$–$10^{5}$; we use
#   $\{10^{-4},\dots,1\}$. They tune conformal PI over learning rates $10^{-5}$–$10^{5}$ ×
#   $C_{\text{sat}}\in\{0.1,1,5,C_{\text{sat}}^{\text{suggested}},20\}$ ×
#   $K_I\in\{10,100,K_I^{\text{suggested}},200,1000\}$, with
#   $C_{\text{sat}}^{\text{suggested}}=\tfrac2\pi(\lceil0.01\log T_{\text{val}}\rceil-1/\log
#   T_{\text{val}})$ and $K_I^{\text{suggested}}$ the largest absolute score of the series; we use
#   learning rates $10^{-3}$–$10$ (the step is already proportional to the score range),
#   $C_{\text{sat}}\in\{0.1,1,5,20\}$ and $K_I\in\{10,100,200,1000\}$ plus the test part's
#   largest absolute score.
# - **Data.** The paper's 15+ data sets are in the authors' experiments repository, which has no
#   licence and cannot be fetched at run time. Claim 4 uses three public series shipped inside
#   `pmdarima` with simple forecasters of our choosing: the electricity series is the closest stand-in
#   for Elec2 (same forecaster, different grid and years), MSFT for the paper's stock series
#   (whose residuals came from AR, Theta, Prophet and transformer forecasters), and monthly sunspots
#   a third, moderately dependent series. Scores are min-max normalised by the validation part.
# - **ERCOT.** The pre-registered result is quoted, not re-derived (claim 5).
# - **Scale.** Quick scale uses $10^6$-round bounded streams, $5\times10^4$-round AR(1) streams
#   on 5 seeds and $2\times10^5$-round AR(2) streams over 5 seeds; the authors' synthetic AR(2)
#   experiment uses $10^6$ rounds, which the full scale runs (10 seeds; AR(1) on 10 seeds).

# %% tags=["nbval-ignore-output"]
# the numbers the Deviations cite, from this run and the records (nothing typed)
c1_worst = max(dev_at[last].values())
p_default = {  # 4c's two-sided p under the default HAC lags, before this round's change
    k: 2
    * stats.norm.sf(
        abs(
            O.newey_west_test(
                O.pinball_loss(r.test, r.q[r.best_baseline], ALPHA)
                - O.pinball_loss(r.test, r.q["LQT"], ALPHA)
            ).t
        )
    )
    for k, r in res4.items()
}
p4b_default = {
    b: O.newey_west_test(
        O.pinball_loss(el.test, el.q[b], ALPHA)
        - O.pinball_loss(el.test, el.q["LQT"], ALPHA)
    ).p_greater
    for b in el.baselines
}
print(
    f"Claim 1: the worst |miscoverage − α| at {last:,} rounds is {c1_worst:.2e}; "
    "the old "
    f"bar 0.01 is {0.01 / max(c1_worst, 1e-12):.0f} times that and failed only at a "
    f"bias-coordinate move of {0.01 * ETA * last:.0f}; the new bar {BAR1:.4f} fails at "
    f"{BAR1 * ETA * last:.0f}."
)
print(
    "Claim 4c under the default HAC lags: two-sided p = "
    + ", ".join(f"{v:.2g} on {k}" for k, v in p_default.items())
    + f" ({sum(v < 0.05 for v in p_default.values())} resolved); with {HAC_LAGS} lags: "
    + ", ".join(f"{v:.2g}" for v in p_two.values())
    + f" ({n_beyond} resolved). Claim 4b's one-sided p under the default lags: "
    + ", ".join(f"{b} {v:.2g}" for b, v in p4b_default.items())
    + "."
)
cov0 = {m: sweep.coverage[m][:, 0].mean() for m in ("LQT", "conformal PI")}
print(
    "Claim 3a, the old set-size gain: at φ = 0 conformal PI covers "
    f"{cov0['conformal PI']:.4f} "
    f"against LQT's {cov0['LQT']:.4f}, and LQT's set-size 'gain' over it is "
    f"{100 * red['conformal PI'][:, 0].mean():+.1f} %; pinball gains against SQT "
    + ", ".join(f"{100 * x:.1f} %" for x in red_loss["SQT"].mean(axis=0))
    + f" at φ = {', '.join(map(str, PHIS))}; t_0.975,{n1 - 1} = {T975_3:.2f}."
)
if record is not None and record.runs:
    secs = [r["seconds"] for r in record.runs if r.get("seconds") is not None]
    print(
        f"AR(1) length: the stability record's runs took {min(secs):.1f}–"
        f"{max(secs):.1f} s "
        f"each in the run record; claim 3 took {timings['claim 3']:.1f} s of this run, "
        "so "
        f"10⁵ rounds would add at least that: at least "
        f"{min(secs) + timings['claim 3']:.0f} s, "
        + (
            "over the 75 s bar."
            if min(secs) + timings["claim 3"] > 75
            else "below the 75 s bar; a lower bound only (the sweep grows faster than "
            "its rounds), so it does not settle whether 10⁵ rounds would fit."
        )
    )

# %% [markdown]
# ## Run it at full scale
#
# ```bash
# .venv/bin/python -m repbook run 17 --scale full
# # or, directly with papermill:
# jupytext --to ipynb -o - notebooks/17_online_conformal.py | papermill - out.ipynb -p scale full -k python3
# ```
# Full scale runs $10^6$-round streams for claims 1–3 (checkpoints at 10k, 100k and 1M rounds),
# 10 AR(2) and 10 AR(1) seeds, and the package comparison over $10^6$ rounds: CPU work only, no
# GPU. A recorded full-scale run (`.venv/bin/python -m repbook full 17`) is kept in
# `data/full_runs/17_online_conformal.json`; the cell below reads it — when, where and how long
# it ran, and its verdicts beside this run's — and, when there is none yet, prints a lower bound
# of its run time from this run's sections (every section but claim 3 is linear in its rounds ×
# seeds; claim 3's tuning sweep grows faster than its rounds, so the bound is low). The
# scoreboard also shows the recorded verdicts, and the environment page where it ran.

# %% tags=["nbval-ignore-output"]
from repbook.core.data import repo_root
from repbook.core.ledger import read_record

full, quick = SIZES["full"], SIZES["quick"]
full_path = repo_root() / "data" / "full_runs" / f"{run.chapter}.json"
if run.scale == "full":
    print(f"full scale ran in {run.elapsed() / 60:.1f} min on {run.device}")
elif full_path.is_file():
    full_ledger, prov = read_record(full_path)
    here = {c.id: c.verdict_word() for c in ledger.claims}
    there = {c.id: c.verdict_word() for c in full_ledger.claims}
    differ = [k for k in here if k in there and here[k] != there[k]]
    print(
        f"Full scale recorded: {prov.get('seconds', float('nan')) / 60:.1f} min on "
        f"{prov.get('device', '?')} ({prov.get('machine', '?')}), finished "
        f"{prov.get('finished', '?')}, commit {prov.get('commit', '?')}. Its verdicts: "
        + "; ".join(f"{k} {v}" for k, v in there.items())
        + ". "
        + (
            "Different from this quick run: "
            + "; ".join(f"{k} {here[k]} here, {there[k]} at full scale" for k in differ)
            if differ
            else "Every claim has the same verdict as in this quick run"
        )
        + (
            "; the record predates the current claims (stale)."
            if set(here) != set(there)
            else "."
        )
    )
else:
    linear = {
        "claim 1": full["adv_T"] / quick["adv_T"],
        "claim 2": full["ar2_T"]
        * full["ar2_seeds"]
        / (quick["ar2_T"] * quick["ar2_seeds"]),
        "claim 3": full["ar1_T"]
        * full["ar1_seeds"]
        / (quick["ar1_T"] * quick["ar1_seeds"]),
        "claim 4": 1.0,  # the real series do not change with the scale
        "claim 6": full["peer_T"] / quick["peer_T"],
    }
    rest = run.elapsed() - sum(timings.values())  # set-up, figures, the rest
    low = rest + sum(linear[k] * timings[k] for k in linear)
    print(
        "Full scale: not yet recorded. Section times in this run: "
        + ", ".join(f"{k} {v:.1f} s" for k, v in timings.items())
        + f", the rest {rest:.1f} s; scaled linearly by the full scale's rounds × "
        "seeds, "
        f"at least {low / 60:.0f} min on this machine (claim 3's sweep grows faster "
        "than "
        "its rounds)."
    )
