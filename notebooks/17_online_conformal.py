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
#    $\alpha$, off by at most $C/(\eta T)$ after $T$ rounds with step size $\eta$.
# 2. **Stochastic guarantee.** When the conditional $(1-\alpha)$-quantile of the score is linear in
#    the past scores, the tracker's parameter converges to the true coefficients and the coverage
#    *conditional on the past* tends to $1-\alpha$ at every round, not only on average.
# 3. **The gain grows with dependence.** The advantage of linear tracking over existing methods grows
#    with how strongly the scores depend on their past, even when the competitors are tuned on the
#    test data.
# 4. **Real series.** On real forecasting residuals every method keeps its coverage, and linear
#    tracking has lower quantile loss and smaller sets (the paper's experiments span 15+ data sets;
#    the authors' repository has electricity demand and stock prices among them).
# 5. **Pre-registered test** (ERCOT electricity demand, Texas): over 10 % smaller sets, over 30 %
#    lower quantile and absolute losses, 78 of 78 pre-registered hypotheses significant.
# 6. **Implementation** (ours, not the paper's): our linear tracker gives the same thresholds as the
#    authors' package `conformalopt`.
# ```
#
# Claims 1–3 are checked on streams we can control exactly (bounded adversarial sequences and Gaussian
# autoregressions, where the conditional coverage has a closed form); claim 4 uses two real series
# that ship offline inside `pmdarima`; claim 5 is quoted; claim 6 runs the authors' package side by
# side.

# %% tags=["parameters"]
scale = "quick"  # "quick" (≤ 90 s on 2 CPU cores) or "full" (the paper's lengths)
seed = 0

# %%
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
    monotone,
    same_order,
)
from repbook.papers import online_conformal as O

SIZES = {
    "quick": dict(
        adv_T=100_000,
        checkpoints=[10_000, 100_000],
        ar2_T=200_000,
        ar2_seeds=5,
        ar1_T=100_000,
        peer_T=100_000,
        peer_short=20_000,
    ),
    "full": dict(
        adv_T=1_000_000,
        checkpoints=[10_000, 100_000, 1_000_000],
        ar2_T=1_000_000,
        ar2_seeds=10,
        ar1_T=1_000_000,
        peer_T=1_000_000,
        peer_short=100_000,
    ),
}
run = setup(scale=scale, seed=seed, sizes=SIZES)
ledger = Ledger.for_run(
    run,
    regime=(
        "synthetic bounded and AR streams; two real series shipped with pmdarima; CPU"
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
    }
)

ALPHA = 0.1  # target miscoverage, as in the authors' experiments
BASELINES = list(O.BASELINES)  # SQT, ACI, conformal PI; grids: O.AUTHORS_LR_GRID, ...

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
# $\eta=0.05$ and $b=1$. Write $E_t=\sum_{i\le t}(\mathrm{err}_i-\alpha)$, so that the miscoverage
# after $t$ rounds is $\alpha+E_t/t$, and let $C_T=\eta\max_{t\le T}|E_t|$: the smallest constant for
# which $|\text{miscoverage}_t-\alpha|\le C_T/(\eta t)$ at every $t\le T$. The guarantee says $C$ does
# not grow with $T$. For SQT it has a closed form: with $q_1\in[0,B]$ the threshold never leaves
# $[-\alpha\eta,\,B+(1-\alpha)\eta]$, hence $C\le B+\eta$ [derived]. For LQT we could not read the
# paper's constant, so we test that $C$ stops growing.
#
# **Criterion (fixed before the run).** (i) For SQT on every stream, $C_T\le B+\eta=1.05$ at every
# checkpoint $T$ (10k and 100k at quick scale, also 1M at full scale). (ii) For every tracker on every
# stream, $C$ at the last checkpoint is at most twice $C$ at 10k rounds.

# %%
T_adv, ETA, B = run["adv_T"], 0.05, 1.0
streams = {
    "regime switches": O.regime_switch_stream(T_adv, run.child_rng(1)),
    "sawtooth": O.sawtooth_stream(T_adv, period=1000),
}
trackers = {"SQT": 0, "LQT(1)": 1, "LQT(2)": 2}
adv_rows, adv_curves = [], {}
for sname in [*streams, "adversary"]:
    for tname, p in trackers.items():
        if sname == "adversary":
            s, r = O.lqt_against(
                O.miss_when_possible(B), T_adv, alpha=ALPHA, p=p, lr=ETA
            )
        else:
            s, r = streams[sname], O.lqt(streams[sname], alpha=ALPHA, p=p, lr=ETA)
        E = np.cumsum((s > r.q) - ALPHA)
        C_running = ETA * np.maximum.accumulate(np.abs(E))
        row = {"stream": sname, "tracker": tname}
        for T in run["checkpoints"]:
            row[f"miscov @{T:,}"] = ALPHA + E[T - 1] / T
            row[f"C @{T:,}"] = C_running[T - 1]
        adv_rows.append(row)
        adv_curves[sname, tname] = (np.abs(E) / np.arange(1, T_adv + 1), C_running[-1])
adv = pd.DataFrame(adv_rows)
print(adv.round(4).to_string(index=False))

# %% tags=["hide-input"]
first, last = run["checkpoints"][0], run["checkpoints"][-1]
C_first, C_last = adv[f"C @{first:,}"], adv[f"C @{last:,}"]
sqt_rows = adv[adv.tracker == "SQT"]
sqt_worst = max(sqt_rows[f"C @{T:,}"].max() for T in run["checkpoints"])
growth = float((C_last / C_first).max())
fig, axes = plt.subplots(1, 3, figsize=(13, 3.8), sharey=True)
grid_t = np.unique(np.geomspace(50, T_adv, 300).astype(int))
for ax, sname in zip(axes, [*streams, "adversary"]):
    for tname in trackers:
        dev, C = adv_curves[sname, tname]
        ax.plot(
            grid_t,
            np.maximum(dev[grid_t - 1], 1e-6),
            color=color_for(tname),
            lw=1,
            label=tname,
        )
        ax.plot(grid_t, C / (ETA * grid_t), color=color_for(tname), ls=":", lw=1)
    ax.plot(
        grid_t,
        (B + ETA) / (ETA * grid_t),
        color=color_for("reference"),
        ls="--",
        lw=1.2,
        label=r"SQT bound $(B+\eta)/(\eta t)$",
    )
    ax.set(xscale="log", yscale="log", xlabel="rounds t", title=sname, ylim=(1e-6, 1))
axes[0].set_ylabel(r"|miscoverage$_t$ − α|  (0 drawn at 1e-6)")
handles, labels = axes[0].get_legend_handles_labels()
fig.legend(handles, labels, loc="lower center", ncols=4, bbox_to_anchor=(0.5, -0.08))
fig.suptitle(
    "Miscoverage error stays under C/(ηt), dotted in each tracker's colour",
    fontsize=12,
    fontweight="bold",
)
plt.show()

# %%
ledger.check(
    1,
    "miscoverage → α within C/(ηT) on bounded streams",
    paper="|miscov − α| ≤ C/(ηT)",
    source="paper",
    measured={
        "SQT: largest C": sqt_worst,
        f"largest C({last:,}) / C({first:,})": growth,
    },
    criterion=all_of(
        at_most("SQT: largest C", B + ETA),
        at_most(f"largest C({last:,}) / C({first:,})", 2),
    ),
)
print(
    f"largest C at {last:,} rounds: {C_last.max():.3f}; largest |miscoverage − α| at "
    f"{last:,}: "
    f"{(adv[f'miscov @{last:,}'] - ALPHA).abs().max():.2e}"
)

# %% [markdown]
# Every curve stays under its dotted line, which falls with slope $-1$ on these axes: the constant
# $C$ is reached early and barely moves afterwards (the table above gives $C$ at each checkpoint), so
# the miscoverage approaches $\alpha$ at the $1/(\eta T)$ rate of the guarantee, on the adversarial
# stream as well as on the two fixed ones. SQT stays inside its closed-form bound (dashed).
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
# **Criterion.** (a) For every seed, $\|\theta_{T}-\theta^*\|<0.05$ for decaying LQT at
# $T=$ `ar2_T`. (b) The mean over the second half of the rounds of
# $|P(s_t\le q_t\mid\text{past})-0.9|$, averaged over seeds, is below 0.01 for decaying LQT and below
# a third of SQT's. (c) Every method's marginal coverage lies in $0.9\pm0.005$ on every seed.

# %%
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
    title="θ converges to θ* (median, min–max band)",
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
ledger.check(
    2,
    "θ_t → θ* and P(cover | past) → 1 − α (AR(2))",
    paper="convergence (theorem)",
    source="paper",
    measured={
        "‖θ_T − θ*‖ per seed": theta_err,
        "conditional gap, LQT": gap_lqt,
        "conditional gap, SQT": gap_sqt,
        "max |coverage − 0.9|": cov_dev,
    },
    criterion=all_of(
        at_most("‖θ_T − θ*‖ per seed", 0.05, strict=True),
        at_most("conditional gap, LQT", 0.01, strict=True),
        at_most(
            "conditional gap, LQT", "conditional gap, SQT", factor=1 / 3, strict=True
        ),
        at_most("max |coverage − 0.9|", 0.005),
    ),
)

# %% [markdown]
# SQT's coverage is right on average, but at a given round it is typically off by about five points
# (its mean gap in the table) and swings with the last two values of the series (middle panel):
# one scalar cannot follow a quantile that moves with the past. Decaying LQT learns the moving quantile, and its per-round error keeps
# shrinking (right panel); the fixed-step LQT stalls at a level set by its step size. The numbers
# are in the table above.
#
# ## Claim 3 · The gain grows with the dependence
#
# For an AR(1) series $y_t=\varphi y_{t-1}+\varepsilon_t$ with signed scores $s_t=y_t$, the best
# *constant* threshold is the marginal quantile $z_{0.9}/\sqrt{1-\varphi^2}$, while the conditional
# quantile $\varphi y_{t-1}+z_{0.9}$ averages $z_{0.9}$. A method that learns the conditional quantile
# therefore has a mean threshold ("set size") smaller by $1-\sqrt{1-\varphi^2}$: 0, 4.6, 20.0 and
# 56.4 % for $\varphi=0, 0.3, 0.6, 0.9$; its expected pinball loss, $\sigma\,\phi(z_{0.9})$ for a
# normal law of scale $\sigma$, falls by the same fraction [derived]. We follow the authors'
# protocol: LQT (fixed steps) is tuned on the first 25 % of each series over their grid of learning
# rates, biases and $p\in\{0,1,2\}$, then run from scratch on the remaining 75 %; the baselines —
# SQT, ACI and conformal PI — are tuned *on that test part itself* (lowest pinball loss among the
# settings whose coverage is within 0.01 of 0.9). Everything is measured on the test part.
#
# **Criterion.** (a) Against each of the three baselines, LQT's reduction in mean threshold
# increases with $\varphi$ over $\{0,0.3,0.6,0.9\}$. (b) Against SQT, the reduction is within 5
# percentage points of $1-\sqrt{1-\varphi^2}$ at every $\varphi$. (c) At $\varphi=0$ its absolute
# value is below 1 %.

# %%
PHIS = [0.0, 0.3, 0.6, 0.9]
T1 = run["ar1_T"]
n_val = T1 // 4
Y1 = np.stack(
    [O.ar_series([phi], T1, run.child_rng(300 + k)) for k, phi in enumerate(PHIS)]
)
val1, test1 = Y1[:, :n_val], Y1[:, n_val:]

t0 = time.perf_counter()
cmp1 = O.tuned_comparison(val1, test1, alpha=ALPHA)
q1, settings1 = cmp1.q, cmp1.settings
rows3 = []
for i, phi in enumerate(PHIS):
    for name, qq in q1.items():
        rows3.append(
            {
                "phi": phi,
                "method": name,
                "coverage": O.coverage(test1[i], qq[i]),
                "set size": qq[i].mean(),
                "pinball": O.pinball_loss(test1[i], qq[i], ALPHA).mean(),
            }
        )
res3 = pd.DataFrame(rows3)
wide3 = res3.pivot(index="phi", columns="method")
red_size = pd.DataFrame(
    {b: 1 - wide3[("set size", "LQT")] / wide3[("set size", b)] for b in BASELINES}
)
red_loss = pd.DataFrame(
    {b: 1 - wide3[("pinball", "LQT")] / wide3[("pinball", b)] for b in BASELINES}
)
analytic = O.ar1_set_size_reduction(PHIS)
print(f"(tuning and runs: {time.perf_counter() - t0:.1f} s)")
print("coverage on the test part:\n" + wide3["coverage"].round(4).to_string())
print(
    "\nreduction of the mean threshold by LQT (analytic: "
    + ", ".join(f"{a:.3f}" for a in analytic)
    + "):\n"
    + red_size.round(4).to_string()
)
print("\nreduction of the pinball loss by LQT:\n" + red_loss.round(4).to_string())
print("\nLQT settings chosen on validation:", [c for c in settings1["LQT"]])
print("SQT step sizes chosen on the test part:", [c["lr"] for c in settings1["SQT"]])
marginal_q = z90 / np.sqrt(1 - np.array(PHIS) ** 2)
print(
    pd.DataFrame(
        {
            "LQT mean q": wide3[("set size", "LQT")].to_numpy(),
            "conditional quantile mean (z)": z90,
            "SQT mean q": wide3[("set size", "SQT")].to_numpy(),
            "best constant (marginal quantile)": marginal_q,
        },
        index=PHIS,
    )
    .round(3)
    .to_string()
)

# %% tags=["hide-input"]
fig, axes = plt.subplots(1, 2, figsize=(11, 3.9), sharey=True)
fine = np.linspace(0, 0.92, 100)
for ax, table, what in [
    (axes[0], red_size, "mean threshold (set size)"),
    (axes[1], red_loss, "pinball loss"),
]:
    ax.plot(
        fine,
        100 * O.ar1_set_size_reduction(fine),
        color=color_for("reference"),
        ls="--",
        lw=1.2,
        label=r"analytic $1-\sqrt{1-\varphi^2}$",
    )
    for b in BASELINES:
        ax.plot(
            PHIS,
            100 * table[b],
            marker="o",
            color=color_for(b),
            label=f"vs {b} (tuned on test)",
        )
    ax.axhline(0, color=color_for("muted"), lw=0.8)
    ax.set(xlabel=r"AR(1) coefficient $\varphi$", title=f"LQT's reduction in {what}")
axes[0].set_ylabel("reduction (%)")
axes[0].legend(fontsize=8)
plt.show()

# %%
dev_analytic = np.abs(red_size["SQT"].to_numpy() - analytic)
by_phi = [f"φ={phi}" for phi in PHIS]
ledger.check(
    3,
    "gain over test-tuned baselines grows with dependence (AR(1))",
    paper="grows with dependence; analytic 1 − √(1 − φ²)",
    source="paper",
    measured={
        **{f"reduction vs {b}": dict(zip(by_phi, red_size[b])) for b in BASELINES},
        "max |reduction − analytic| vs SQT": dev_analytic.max(),
        "|reduction| at φ=0 vs SQT": abs(red_size["SQT"].iloc[0]),
    },
    criterion=all_of(
        *[monotone(f"reduction vs {b}", "increasing") for b in BASELINES],
        at_most("max |reduction − analytic| vs SQT", 0.05),
        at_most("|reduction| at φ=0 vs SQT", 0.01, strict=True),
    ),
    note=""
    if dev_analytic.max() <= 0.05
    else (
        f"worst at φ = {PHIS[int(dev_analytic.argmax())]}: SQT tuned on the test set "
        f"(η = "
        f"{settings1['SQT'][int(dev_analytic.argmax())]['lr']:g}) sits below the best "
        f"constant "
        "threshold the analytic curve assumes"
    ),
)

# %% [markdown]
# The gain grows with $\varphi$ against every baseline, and up to $\varphi=0.6$ it sits on the
# analytic curve (tables above). At $\varphi=0.9$ it falls short of $1-\sqrt{1-\varphi^2}$, and
# the last table says why: the analytic curve compares the conditional quantile with the best
# *constant* threshold, but SQT tuned on the test set picks a large step, lets its threshold jump
# after the clustered misses of a strongly dependent series, and so ends well below the best
# constant — it captures part of the dependence itself; LQT's mean threshold is also a little above
# the conditional quantile's mean (fixed steps add noise). Our pre-registered tolerance of 5 points
# against SQT therefore fails at high $\varphi$. The claim in its qualitative form — more
# dependence, larger gain, even against test-tuned baselines — holds on every baseline here.
#
# ## Claim 4 · Real series that ship offline
#
# The paper's real data (stock and climate residual files, Elec2, ERCOT) live in the authors'
# experiments repository, which cannot be fetched at run time. Two series that ship inside
# `pmdarima` stand in, each with a deliberately simple forecaster:
#
# - **Electricity**: half-hourly demand of England and Wales (`load_taylor`, 12 weeks in 2000, MW),
#   forecast by the mean of the 24 half-hours that started one day earlier — the same one-day-delayed
#   moving average the authors use for Elec2. Score $|y_t-\hat y_t|$; 25 % validation.
# - **MSFT**: daily closing price (`load_msft`), forecast by the previous close. Score
#   $|y_t-y_{t-1}|$, the last 3,000 trading days; 33 % validation (the authors' split for stocks).
#
# Tuning as in claim 3: LQT on validation, the baselines on the test part. The paired test compares
# per-round pinball losses, $d_t=\rho(s_t-q^{\text{baseline}}_t)-\rho(s_t-q^{\text{LQT}}_t)$, with a
# one-sided $t$-test whose standard error is Newey–West (Bartlett kernel), since $d_t$ is
# autocorrelated.
#
# The authors' learning-rate grid ($10^{-5}$–$10^{5}$) suits scores of order one (their electricity
# data are normalised to $[0,1]$). Our electricity scores are in MW, up to about $10^4$, and a stable
# step on *lagged* scores in MW needs a learning rate far below $10^{-5}$. Run exactly as the authors
# run it, validation may then choose $p=0$, and "LQT" is a scalar tracker whose gain over SQT comes
# from where its step falls between two points of SQT's grid, not from the lags. So the claim's
# mechanism, lagged scores, is tested directly (4b, 4c): LQT restricted to $p\in\{1,2\}$, tuned on
# validation over learning rates $10^{-9}$–$10^{5}$ and the authors' biases, against SQT tuned on the
# test part over the same learning rates.
#
# **Criterion.** (a) On both series every method's test coverage (authors' protocol, all four
# methods) lies in $0.9\pm0.02$. (b) On the electricity series, LQT with lags has a mean pinball
# loss at least 10 % below SQT's on the same grid, and the one-sided HAC test gives $p<0.05$.
# (c) LQT-with-lags' relative loss gain over SQT is larger on the series whose scores have the
# larger lag-1 autocorrelation. It fails if the lags buy nothing once the scalar tracker gets the
# same grid, or if the gain does not follow the dependence.

# %%
from pmdarima.datasets import load_msft, load_taylor

y_el = load_taylor()
s_el = np.abs(y_el[48:] - O.delayed_moving_average(y_el, delay=48, window=24))
close = load_msft()["Close"].to_numpy(dtype=float)
s_ms = np.abs(np.diff(close))[-3000:]
series = {"electricity (Taylor)": (s_el, 0.25), "MSFT": (s_ms, 0.33)}
rows4, q4, test4, settings4 = [], {}, {}, {}
for sname, (s, frac) in series.items():
    n_v = int(frac * s.size)
    val, test = s[None, :n_v], s[None, n_v:]
    cmp = O.tuned_comparison(val, test, alpha=ALPHA)
    qq, sets = cmp.q, cmp.settings
    q4[sname], test4[sname], settings4[sname] = (
        {k: v[0] for k, v in qq.items()},
        test[0],
        sets,
    )
    loss_lqt = O.pinball_loss(test[0], qq["LQT"][0], ALPHA)
    for name in ["LQT", *BASELINES]:
        loss = O.pinball_loss(test[0], qq[name][0], ALPHA)
        hac = O.newey_west_test(loss - loss_lqt) if name != "LQT" else None
        rows4.append(
            {
                "series": sname,
                "method": name,
                "coverage": O.coverage(test[0], qq[name][0]),
                "pinball loss": loss.mean(),
                "set size (mean q)": qq[name][0].mean(),
                "loss / LQT's": loss.mean() / loss_lqt.mean(),
                "HAC p (LQT better)": hac.p_greater if hac else np.nan,
            }
        )
res4 = pd.DataFrame(rows4)
rho1 = {k: O.lag1_autocorrelation(v[0]) for k, v in series.items()}
print(
    {k: f"{v.size} scores" for k, (v, _) in series.items()},
    "; lag-1 autocorrelation of the scores:",
    {k: round(v, 3) for k, v in rho1.items()},
)
with pd.option_context("display.float_format", "{:.4g}".format):
    print(res4.to_string(index=False))
print(
    "settings:",
    {k: {m: v[0] for m, v in sets.items()} for k, sets in settings4.items()},
)

# %% tags=["hide-input"]
fig, axes = plt.subplots(1, 2, figsize=(13, 3.8))
for ax, sname in zip(axes, series):
    s, qq = test4[sname], q4[sname]
    best = min(BASELINES, key=lambda b: O.pinball_loss(s, qq[b], ALPHA).mean())
    win = np.arange(s.size - 300, s.size)
    ax.plot(win, s[win], color=color_for("muted"), lw=0.8, label="score")
    ax.plot(win, qq["LQT"][win], color=color_for("LQT"), label="LQT threshold")
    ax.plot(
        win,
        qq[best][win],
        color=color_for(best),
        label=f"{best} threshold (best baseline)",
    )
    ax.set(
        xlabel="test round (last 300)",
        ylabel="|y − ŷ|" + (" (MW)" if "Taylor" in sname else " ($)"),
        title=sname,
    )
    ax.legend(fontsize=8, loc="upper left")
fig.suptitle(
    "Thresholds on the real residuals, last 300 test rounds",
    fontsize=12,
    fontweight="bold",
)
plt.show()

# %%
FINE_LR = np.logspace(-9, 5, 15)
rows4b, lagged = [], {}
for sname, (s, frac) in series.items():
    n_v = int(frac * s.size)
    cmp = O.tuned_comparison(
        s[None, :n_v],
        s[None, n_v:],
        alpha=ALPHA,
        lrs=FINE_LR,
        ps=[1, 2],
        sqt_lrs=FINE_LR,
        baselines=["SQT"],
    )
    lagged[sname] = cmp
    l_lqt = O.pinball_loss(test4[sname], cmp.q["LQT"][0], ALPHA)
    l_sqt = O.pinball_loss(test4[sname], cmp.q["SQT"][0], ALPHA)
    rows4b.append(
        {
            "series": sname,
            "LQT setting (p ≥ 1)": cmp.settings["LQT"][0],
            "SQT η": cmp.settings["SQT"][0]["lr"],
            "coverage LQT": O.coverage(test4[sname], cmp.q["LQT"][0]),
            "coverage SQT": O.coverage(test4[sname], cmp.q["SQT"][0]),
            "loss gain over SQT": 1 - l_lqt.mean() / l_sqt.mean(),
            "HAC p (LQT better)": O.newey_west_test(l_sqt - l_lqt).p_greater,
            "lag-1 autocorrelation": rho1[sname],
        }
    )
res4b = pd.DataFrame(rows4b).set_index("series")
with pd.option_context("display.float_format", "{:.4g}".format, "display.width", 120):
    print(res4b.to_string())

# %%
names = list(series)
el_name = names[0]
cov_dev4 = float((res4.coverage - (1 - ALPHA)).abs().max())
ledger.check(
    "4a",
    "coverage holds on real residuals (all methods)",
    paper="coverage ≈ 1 − α",
    source="paper",
    evidence="real data",
    measured={"max |coverage − 0.9|": cov_dev4},
    criterion=at_most("max |coverage − 0.9|", 0.02),
)
ledger.check(
    "4b",
    "LQT's lagged scores beat SQT tuned on the same grid (electricity)",
    paper="Elec2: q. loss 0.005 vs 0.011–0.015",
    source="official code",
    evidence="real data",
    measured={
        "loss gain over SQT": res4b.loc[el_name, "loss gain over SQT"],
        "HAC p": res4b.loc[el_name, "HAC p (LQT better)"],
    },
    criterion=all_of(
        at_least("loss gain over SQT", 0.10), at_most("HAC p", 0.05, strict=True)
    ),
    unpaired_because="one real data stream, no seeds to pair: a HAC test on the loss "
    "differences over time",
)
ledger.check(
    "4c",
    "the lags' gain is larger on the more dependent series",
    paper="gain grows with dependence",
    source="paper",
    evidence="real data",
    measured={
        "gain over SQT": res4b["loss gain over SQT"].to_dict(),
        "lag-1 autocorrelation": rho1,
    },
    criterion=same_order("gain over SQT", "lag-1 autocorrelation"),
)

# %% [markdown]
# Read the verdicts with the two tables above. Under the authors' protocol as is (first table),
# validation picks the scalar tracker wherever the authors' grid is too coarse for the scale of
# the scores. With learning rates small enough for features in MW, the lagged scores of the
# electricity series carry most of the next score's size, and LQT's loss falls far below SQT's on
# the same grid (second table). On MSFT, whose daily price changes depend on the past mostly
# through slowly changing volatility, the lags buy nothing: the gain follows the dependence.

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
# ## Claim 6 · Side by side with `conformalopt`
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
# **Criterion.** Over all streams and settings below, the largest absolute difference between our
# thresholds and the package's is at most $10^{-8}$.

# %%
n_long, n_short = run["peer_T"], run["peer_short"]
y_long = O.ar_series(coef, n_long, run.child_rng(600))
t0 = time.perf_counter()
theirs = O.conformalopt_thresholds(y_long, alpha=ALPHA, p=2, lr=0.01, schedule="fixed")
t_theirs = time.perf_counter() - t0
t0 = time.perf_counter()
ours = O.lqt(y_long, alpha=ALPHA, p=2, lr=0.01).q
t_ours = time.perf_counter() - t0
peer_rows = [("AR(2), LQT(2) fixed η = 0.01", n_long, np.abs(ours - theirs).max())]
el_lqt = settings4["electricity (Taylor)"]["LQT"][0]
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
        streams["regime switches"][:n_short],
        dict(p=1, lr=0.05, bias=1.0, schedule="fixed"),
    ),
    (
        "electricity test part, tuned LQT",
        test4["electricity (Taylor)"],
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
ledger.check(
    6,
    "our LQT/SQT = conformalopt's thresholds",
    paper="same algorithm (package)",
    source="official code",
    evidence="peer agreement",
    measured={f"max |Δq| over {len(peer)} streams × settings": max_dq},
    criterion=at_most(f"max |Δq| over {len(peer)} streams × settings", 1e-8),
)

# %%
print(
    f"{n_long:,} rounds of LQT(2): ours {t_ours:.2f} s, conformalopt {t_theirs:.2f} s; "
    f"time ratio ours/theirs = {t_ours / t_theirs:.3f}"
)

# %% [markdown]
# The thresholds agree to rounding error (printed above), so every number in this chapter is also
# what the authors' package would give. Ours is faster per round (the timing above, which varies
# with the machine): a plain loop over Python floats instead of building a NumPy feature vector
# from a growing list at every round, plus a vectorised engine that runs whole tuning grids at once.
#
# ## Verdicts

# %% tags=["nbval-check-output"]
ledger.show()

# %% tags=["nbval-ignore-output"]
print(f"chapter run time: {run.elapsed():.1f} s at scale={run.scale!r} on {run.device}")

# %% [markdown]
# ## Deviations from the paper
#
# - **What we could not confirm from the paper.** Only the abstract of the paper was available to
#   us. The algorithms follow the authors' package and experiment code (read, not copied); the
#   identity behind claim 1 and the analytic targets of claims 2–3 were derived here. The constant
#   $C$ of the paper's adversarial bound for LQT is not known to us, so claim 1 tests that the
#   realised constant stops growing, and checks the closed-form bound only for SQT.
# - **Baselines.** ACI and conformal PI are our own implementations from their papers' update rules,
#   with three choices of ours: ACI uses the $\lceil(1-\alpha_t)(n+1)\rceil$-th smallest past score;
#   an infinite (empty) set is replaced by the largest (smallest) score seen so far rather than by the
#   largest score of the whole series, as the authors' baseline code does; and PI's step uses the
#   range of the last 20 scores including the current one. PI's learning-rate grid is
#   $\{10^{-3},\dots,10\}$ (the step is already proportional to the score range), not the full
#   $10^{-5}$–$10^{5}$ grid; SQT uses the full grid. The authors' experiments also include
#   scorecasters and batched variants, which we did not run.
# - **Tuning grids and the scale of the scores.** We used the authors' learning-rate grid
#   ($10^{-5}$–$10^{5}$), which suits scores of order one (their electricity data are normalised),
#   for claim 3 and claim 4a. On our electricity series, in MW, no learning rate in it gives a
#   stable LQT on lagged scores, so claims 4b and 4c use learning rates down to $10^{-9}$, for LQT and
#   SQT alike.
# - **Criteria changed after their results were known** (a verdict audit found that two checks did
#   not test the claimed mechanism):
#   - *Claims 4b and 4c.* Before: the authors' protocol as is — LQT tuned on validation over the
#     authors' grid including $p=0$, against the three baselines tuned on the test part; 4b asked
#     for a loss ≥ 10 % below the best baseline with HAC $p<0.05$ against each, 4c for the gain to
#     follow the lag-1 autocorrelation. Both were reproduced, but validation chose $p=0$ on both
#     series: "LQT" was a scalar tracker, and its 10 % came from its step falling between two points
#     of SQT's decade grid. Now: LQT restricted to lagged scores ($p\ge1$) against SQT tuned on the
#     same, finer learning-rate grid, with the same thresholds (10 %, $p<0.05$, ordering).
# - **Data.** The paper's 15+ data sets are in the authors' experiments repository, which has no
#   licence and cannot be fetched at run time. Claim 4 uses two public series shipped inside
#   `pmdarima` with simple forecasters of our choosing: the electricity series is the closest stand-in
#   for Elec2 (same forecaster, different grid and years), and MSFT for the paper's stock series
#   (whose residuals came from AR, Theta, Prophet and transformer forecasters).
# - **ERCOT.** The pre-registered result is quoted, not re-derived (claim 5).
# - **Scale.** Quick scale uses $10^5$-round adversarial and AR(1) streams and $2\times10^5$-round
#   AR(2) streams over 5 seeds; the authors' synthetic AR(2) experiment uses $10^6$ rounds, which the
#   full scale runs (10 seeds).
#
# ## Run it at full scale
#
# ```bash
# .venv/bin/python -m repbook run 17 --scale full
# # or, directly with papermill:
# jupytext --to ipynb -o - notebooks/17_online_conformal.py | papermill - out.ipynb -p scale full -k python3
# ```
# Full scale runs $10^6$-round streams for claims 1–3 (checkpoints at 10k, 100k and 1M rounds),
# 10 AR(2) seeds, and the package comparison over $10^6$ rounds: CPU work only, no GPU. When a
# full run has been recorded (`make full CH=17`), the scoreboard shows its verdicts beside these
# and the environment page says where and when it ran.
