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

import matplotlib.pyplot as plt
import numpy as np
from scipy import stats

from repbook.core import all_of, at_least, at_most, paired_gain, t_quantile
from repbook.core import color_for, full_run_lines, reading_lines, reference_line, setup
from repbook.papers import online_conformal

# %%
CHECKPOINTS = [10_000, 100_000, 1_000_000]
SIZES = {
    "quick": dict(adv_T=1_000_000, checkpoints=CHECKPOINTS, ar2_T=200_000, ar2_seeds=5,
                  ar1_T=50_000, ar1_seeds=5, peer_T=100_000, peer_short=20_000),
    "full": dict(adv_T=1_000_000, checkpoints=CHECKPOINTS, ar2_T=1_000_000,
                 ar2_seeds=10, ar1_T=1_000_000, ar1_seeds=10, peer_T=1_000_000,
                 peer_short=100_000),
}  # fmt: skip
REGIME = "synthetic bounded and AR streams; three real series shipped with pmdarima; "
REGIME += "CPU"
COLORS = {"LQT": "ours", "LQT(2)": "ours", "LQT(2), decaying": "ours", "ACI": "alt",
          "SQT": "baseline", "SQT, decaying": "baseline", "LQT(1)": "alt3",
          "LQT(2), fixed η": "alt3", "conformal PI": "alt2"}  # fmt: skip

# %%
run = setup(scale=scale, seed=seed, sizes=SIZES, regime=REGIME, colors=COLORS)
ledger = run.ledger
ALPHA = 0.1  # target miscoverage, as in the authors' experiments
BASELINES = list(online_conformal.BASELINES)  # SQT, ACI, conformal PI

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
lib_run = online_conformal.lqt(s_demo, alpha=ALPHA, p=p, lr=eta, bias=b)
E_demo = np.sum((s_demo > lib_run.q)[p:] - ALPHA)
print(f"max |q by hand − q lib| = {np.abs(q_hand - lib_run.q).max():.1e}")
print(f"bias coordinate moved {lib_run.theta[-1] - 1 / p:+.6f}; η·b·Σ(err − α) = "
      f"{eta * b * E_demo:+.6f}")  # fmt: skip

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
T_adv, ETA, B = run["adv_T"], 0.05, 1.0
cps = run["checkpoints"]
first, last = cps[0], cps[-1]  # the comparator calibrates on the first checkpoint
JUDGED1 = ["regime switches", "adversary"]
trackers = {"SQT": 0, "LQT(1)": 1, "LQT(2)": 2}
record = ledger.stability()  # the regime switches run again on each of its seeds
record_seeds = sorted({int(x) for x in getattr(record, "seeds", [])} | {run.seed})
grid_t = np.unique(np.geomspace(100, T_adv, 300).astype(int))  # rounds drawn
claim1 = online_conformal.bounded_coverage(
    T_adv, run.child_rng(1), trackers=trackers, checkpoints=cps, judged=JUDGED1,
    alpha=ALPHA, lr=ETA, bound=B, n_cal=first, seeds=record_seeds, seed=run.seed,
    rng_for=lambda sd: dataclasses.replace(run, seed=sd).child_rng(1), rounds=grid_t,
    path_at=np.unique(np.geomspace(10, T_adv - 1, 60).astype(int)),
)  # fmt: skip
runs1, per_seed, v1 = claim1.runs, claim1.per_seed, claim1.values
BAR1 = 3 * np.sqrt(ALPHA * (1 - ALPHA) / last)  # the brief's tolerance at 10⁶, slack 0

# %%
print(online_conformal.table_text(claim1.table, index=False, na_rep="—"))

# %% [markdown]
# Only the regime-switch stream depends on the seed (the sawtooth and the adversary are
# deterministic). So that the diagnostic reads every seed, the regime-switch runs are repeated on
# every seed of the chapter's stability record (the committed record of the chapter run on
# several seeds), each with the generator its chapter run used.

# %%
print("regime switches, every seed of the record:\n"
      + online_conformal.table_text(claim1.seed_table.T))  # fmt: skip

# %% tags=["hide-input"]
fig, axes = plt.subplots(1, 4, figsize=(16, 4.0))
split_label = f"fixed split-conformal threshold ({first:,} rounds)"
for ax, sname in zip(axes[:2], JUDGED1):
    for name, (x, y) in claim1.curves[sname].items():
        split = name == "split"
        ax.plot(x, y, color=color_for("muted" if split else name), lw=1.2,
                ls="--" if split else "-",
                label=split_label if split else name)  # fmt: skip
    ax.axhline(BAR1, color=color_for("reference"), ls=":", lw=1.2,
               label=f"bar at {last:,} rounds, 3√(α(1−α)/T) = {BAR1:.4f}")  # fmt: skip
    for T in cps:
        ax.axvline(T, color=color_for("muted"), lw=0.6)
    title = sname + (f" (seed {run.seed})" if sname == "regime switches" else "")
    ax.set(xscale="log", yscale="log", xlabel="rounds t", title=title)
axes[0].set_ylabel("|miscoverage after t rounds − α|")
axes[0].legend(fontsize=7, loc="lower left")
ax = axes[2]
for sd, d in per_seed.items():
    for tname, tr in d.items():
        ax.plot(grid_t, tr.C[grid_t - 1], color=color_for(tname), lw=0.9, alpha=0.8,
                label=tname if sd == record_seeds[0] else None)  # fmt: skip
ax.axhline(B + ETA, color=color_for("reference"), ls="--", lw=1.0, label="B + η (SQT)")
seeds1 = f"seeds {record_seeds[0]}–{record_seeds[-1]}"
ax.set(xscale="log", xlabel="rounds t", ylabel=r"$C_t=\eta\,\max_{i\leq t}|E_i|$",
       title=f"C_t on the regime switches, {seeds1}")  # fmt: skip
ax.legend(fontsize=7)
ax = axes[3]
for sname, ls in zip(JUDGED1, ["-", "--"]):
    for tname in ["LQT(1)", "LQT(2)"]:
        tr, c = runs1[sname, trackers[tname]], color_for(tname)
        ax.plot(tr.marks + 1, np.linalg.norm(tr.theta, axis=1), color=c, ls=ls,
                label=f"‖θ‖ {tname}, {sname}")  # fmt: skip
        ax.plot(tr.marks + 1, tr.theta[:, -1], color=c, ls=ls, lw=0.8, alpha=0.5)
ax.set(xscale="log", xlabel="rounds t", ylabel="‖θ_t‖ (thick), bias coordinate (thin)",
       title=f"LQT's parameter (seed {run.seed})")  # fmt: skip
ax.legend(fontsize=7)
fig.suptitle("Claim 1: |miscoverage − α| of the trackers and of a fixed "
             "split-conformal threshold; C_t and θ as diagnostics", fontsize=12,
             fontweight="bold")  # fmt: skip
plt.show()

# %%
GATE1 = "stream design: fixed split-conformal |miscov − α|"
AT_LAST, AT_FIRST = f"|miscov − α| at {last:,}", f"|miscov − α| at {first:,}"
ledger.check(
    1, "miscoverage → α on bounded streams (regime switches, adversary)",
    paper="abstract: over time, the target fraction of sets covers (adversarial data)",
    measured={AT_LAST: v1.dev_at[last], AT_FIRST: v1.dev_at[first], GATE1: v1.split_dev,
              "split-conformal threshold": v1.split_q,
              "best constant in hindsight: |miscov − α| (context)": claim1.best_const},
    show=[AT_LAST, GATE1], gate=at_least(GATE1, 0.02), source="abstract",
    criterion=at_most(AT_LAST, float(BAR1)),
    note=f"the bar {BAR1:.4f} = 3√(α(1−α)/T) at T = {last:,} is the research brief's "
    "coverage tolerance (slack 0); the gate is met by the streams' design (no constant "
    "threshold reaches α), not a regime check; the comparator is ours",
)  # fmt: skip

# %%
ledger.sanity(
    "1s", "SQT's running constant C_t ≤ B + η",
    why="sanity: holds by construction — SQT's threshold stays in "
    "[−αη, B + (1−α)η] on any stream in [0, B] (derived), so only a bug can fail it",
    measured={"SQT: C at each checkpoint": v1.sqt_C},
    criterion=at_most("SQT: C at each checkpoint", B + ETA),
)  # fmt: skip
GROW_A, GROW_B = (f"C({b:,}) / C({a:,})" for a, b in zip(cps, cps[1:]))
ledger.ours(
    "1d", "the running constant C_t levels off by 10⁶ rounds (every seed)",
    why="diagnostic of ours: the rate form C/(ηT) needs a C that stops growing; the "
    "factor 2 is ours (it decided claim 1 before issue 36's audit)",
    measured={GROW_A: v1.growth_a, GROW_B: v1.growth_b,
              f"max ‖θ‖ at {last:,}, regime switches": v1.max_theta},
    show=[GROW_A, GROW_B], criterion=all_of(at_most(GROW_A, 2), at_most(GROW_B, 2)),
)  # fmt: skip

# %%
verdict1 = ledger.claim("1").verdict
print(online_conformal.claim1_reading(v1, verdict1, bar=BAR1, lr=ETA, bound=B,
                                     best_const=claim1.best_const))  # fmt: skip

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
T2, n_seeds = run["ar2_T"], run["ar2_seeds"]
coef = [0.3, -0.3]
z90 = stats.norm.ppf(1 - ALPHA)
theta_star = np.array([-0.3, 0.3, z90])
Y = np.stack([online_conformal.ar_series(coef, T2, run.child_rng(200 + k))
              for k in range(n_seeds)])  # fmt: skip
marks = np.unique(np.geomspace(10, T2 - 1, 120).astype(int))
DECAY2 = dict(alpha=ALPHA, lr=1.0, schedule="decaying")
runs2 = {
    "LQT(2), decaying": online_conformal.lqt(Y, p=2, path_at=marks, **DECAY2),
    "LQT(2), fixed η": online_conformal.lqt(Y, alpha=ALPHA, p=2, lr=0.01,
                                            path_at=marks),
    "SQT, decaying": online_conformal.sqt(Y, **DECAY2),
}  # fmt: skip

# %%
dec, sqt_name, W2 = "LQT(2), decaying", "SQT, decaying", 2000  # W2: the figure's window
half, early = slice(T2 // 2, T2), slice(T2 // 10, T2 // 5)
study2 = online_conformal.conditional_study(
    Y, runs2, coef, theta_star, lqt=dec, sqt=sqt_name, alpha=ALPHA, early=early,
    late=half, window=W2,
)  # fmt: skip
cond_cov, summary2, v2 = study2.cond_cov, study2.summary, study2.values
print(summary2.round(4).to_string())
print("final θ of decaying LQT, seed 0:", np.round(runs2[dec].theta[0], 4), "; θ* =",
      np.round(theta_star, 4))  # fmt: skip

# %% tags=["hide-input"]
fig, axes = plt.subplots(1, 3, figsize=(14, 3.8))
ax = axes[0]
for name in ["LQT(2), decaying", "LQT(2), fixed η"]:
    errs = np.linalg.norm(runs2[name].path - theta_star, axis=2)  # seeds × marks
    ax.plot(marks + 1, np.median(errs, axis=0), color=color_for(name), label=name)
    ax.fill_between(marks + 1, errs.min(0), errs.max(0), color=color_for(name),
                    alpha=0.2)  # fmt: skip
ax.set(xscale="log", yscale="log", xlabel="round t", ylabel=r"$\|\theta_t-\theta^*\|$",
       title="diagnostic: ‖θ_t − θ*‖ (median, min–max band)")  # fmt: skip
ax.legend()
ax = axes[1]
window = np.arange(T2 - 200, T2)
for name in ["SQT, decaying", "LQT(2), decaying"]:
    ax.plot(window, cond_cov[name][0, window], color=color_for(name), lw=1, label=name)
reference_line(ax, 1 - ALPHA, "target 0.9")
ax.set(xlabel="round t (last 200, seed 0)", ylabel="P(s ≤ q | past)",
       title="Coverage at each round, given the past")  # fmt: skip
ax.legend(fontsize=8, loc="lower left")
ax = axes[2]
for name, (t_axis, roll) in study2.rolling.items():
    ax.plot(t_axis, roll, color=color_for(name), label=name)
ax.set(xscale="log", yscale="log", xlabel="round t",
       ylabel=f"rolling mean over {W2:,} rounds",
       title="|P(s ≤ q | past) − 0.9|")  # fmt: skip
ax.legend(fontsize=8)
plt.show()

# %%
T975_2 = t_quantile(n_seeds)
LQT2, SQT2 = "conditional gap, LQT", "conditional gap, SQT"
DROP2 = "gap drop [T/10, T/5] → [T/2, T], LQT, per seed"
ledger.check(
    2, "P(cover | past) → 1 − α when the quantile is linear (AR(2))",
    paper="abstract: P(cover | past) converges to the target when the conditional "
    "quantile is linear in past data",
    source="abstract", measured={LQT2: v2.gap_lqt, SQT2: v2.gap_sqt, DROP2: v2.drop},
    criterion=all_of(at_most(LQT2, 0.01, strict=True),
                     at_most(LQT2, SQT2, factor=1 / 3, strict=True),
                     paired_gain(DROP2, k="t")),
    note="the bounds 0.01 and a third of SQT's are the research brief's (its "
    f"prototype); the drop is read with t_0.975,{n_seeds - 1} = {T975_2:.2f}",
)  # fmt: skip

# %%
THETA2, COV2 = "‖θ_T − θ*‖ per seed", "max |coverage − 0.9|"
ledger.ours(
    "2d", "θ_T → θ* and marginal coverage 0.9 ± 0.005 (AR(2))",
    why="diagnostic of ours: θ_t → θ* is the research brief's reading, not the "
    "abstract's; marginal coverage is claim 1's territory; bounds from the brief's "
    "prototype",
    measured={THETA2: v2.theta_err, COV2: v2.cov_dev},
    criterion=all_of(at_most(THETA2, 0.05, strict=True), at_most(COV2, 0.005)),
)  # fmt: skip

# %%
FIX2 = "LQT(2), fixed η"
print(online_conformal.conditional_reading(summary2, v2.drop, t=T975_2, lqt=dec,
                                          sqt=sqt_name, fixed=FIX2))  # fmt: skip
c2 = ledger.claim("2")  # and its margins on the seeds of the stability record:
entry2 = record.current(c2) if record is not None else None
print(online_conformal.margin_range_line("2", entry2, binding=c2.binding,
                                         margin=c2.margin))  # fmt: skip

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
PHIS = [0.0, 0.3, 0.6, 0.9]
T1, n1 = run["ar1_T"], run["ar1_seeds"]
rngs3 = [run.child_rng(300 + k) for k in range(n1)]
sweep = online_conformal.ar1_dependence_sweep(PHIS, T=T1, rngs=rngs3, alpha=ALPHA)
red = {b: sweep.reduction(b) for b in BASELINES}  # seeds × φ, set size
red_loss = {b: sweep.reduction(b, "pinball") for b in BASELINES}
red_oracle = sweep.reduction("oracle constant")
analytic = online_conformal.ar1_set_size_reduction(PHIS)
T975_3 = t_quantile(n1)
steps = online_conformal.named_steps(red_loss, PHIS)  # the criterion's paired steps
print(f"(tuning and runs: {sweep.seconds:.1f} s)")

# %%
tables3 = online_conformal.sweep_tables(sweep, BASELINES, steps, analytic, t=T975_3)
for title, table in tables3.items():
    print(f"{title}\n{table.to_string()}")
print("LQT settings chosen on validation, seed 0:", sweep.settings["LQT"][0],
      "\nSQT step sizes chosen on the test part, seed 0:",
      [c["lr"] for c in sweep.settings["SQT"][0]])  # fmt: skip

# %% tags=["hide-input"]
fig, axes = plt.subplots(1, 2, figsize=(12, 4.0))
ax = axes[0]
for j, b in enumerate(BASELINES):
    x, c = np.array(PHIS) + 0.012 * (j - 1), color_for(b)
    for row in red_loss[b]:
        ax.scatter(x, 100 * row, color=c, s=10, alpha=0.6)
    ax.plot(x, 100 * red_loss[b].mean(axis=0), color=c, marker="o", label=f"vs {b}")
    ax.plot(x, 100 * red[b].mean(axis=0), color=c, ls=":", lw=1, alpha=0.8)
ax.plot([], [], color=color_for("muted"), ls=":", label="set-size reduction (context)")
ax.axhline(0, color=color_for("muted"), lw=0.8)
ax.set(xlabel=r"AR(1) coefficient $\varphi$",
       ylabel="pinball-loss reduction by LQT (%)",
       title="3a: loss gain over test-tuned baselines (seeds as points)")  # fmt: skip
ax.legend(fontsize=8)
ax = axes[1]
fine = np.linspace(0, 0.92, 100)
ref = 100 * (1.0 - np.sqrt(1.0 - fine**2))  # 1 − √(1 − φ²)
ax.plot(fine, ref, color=color_for("reference"), ls="--", lw=1.2, label="1 − √(1 − φ²)")
ax.fill_between(fine, ref - 5, ref + 5, color=color_for("reference"), alpha=0.12)
for row in red_oracle:
    ax.scatter(PHIS, 100 * row, color=color_for("LQT"), s=10, alpha=0.6)
ax.plot(PHIS, 100 * red_oracle.mean(axis=0), color=color_for("LQT"), marker="o",
        label="LQT vs the oracle constant")  # fmt: skip
ax.set(xlabel=r"AR(1) coefficient $\varphi$",
       ylabel="reduction against the oracle constant (%)",
       title="3b (ours): reduction against the best constant, ± 5 points")  # fmt: skip
ax.legend(fontsize=8)
plt.show()

# %%
measured3 = online_conformal.sweep_measured(sweep, steps, BASELINES)
STEPS3 = [name for st_ in steps.values() for name in st_]
ledger.check(
    "3a", "the gain over test-tuned baselines grows with dependence (AR(1))",
    paper="abstract: the improvement over baselines grows with the data's dependence, "
    "even when baselines are tuned on the test set",
    source="abstract", measured=measured3,
    show=[f"mean loss reduction vs {b}" for b in BASELINES],
    criterion=all_of(*[paired_gain(name, k="t") for name in STEPS3]),
    note="gain = LQT's reduction of the mean pinball loss; each step φ_j → φ_j+1 "
    f"paired on the seed (the same innovations), read with t_0.975,{n1 - 1} = "
    f"{T975_3:.2f}; a controlled demonstration (LQT(1) represents the AR(1) "
    "conditional quantile)",
)  # fmt: skip

# %%
DEV3, SQT0 = "max |mean reduction − analytic|", "|mean reduction vs SQT| at φ=0"
ledger.ours(
    "3b", "reduction vs the best constant threshold = 1 − √(1 − φ²) (AR(1))",
    why="our derivation: the conditional quantile against the best constant "
    "threshold; the paper states no such number",
    measured=online_conformal.oracle_measured(sweep, analytic),  # DEV3, SQT0 among them
    criterion=all_of(at_most(DEV3, 0.05), at_most(SQT0, 0.01, strict=True)),
)  # fmt: skip

# %%
c3a = ledger.claim("3a")
print(online_conformal.sweep_reading(sweep, steps, analytic, t=T975_3,
                                     binding=c3a.binding,
                                     margin=c3a.margin))  # fmt: skip

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
series = online_conformal.offline_series()  # {name: (|y − ŷ|, validation fraction)}
HAC_LAGS = 48  # one day of half-hours on the electricity series; the same on all
FINE_LR = np.logspace(-9, 5, 15)  # the lags-only sensitivity column's grid
res4, lag4 = online_conformal.compare_series(series, alpha=ALPHA, hac_lags=HAC_LAGS,
                                             fine_lrs=FINE_LR)  # fmt: skip
read4 = online_conformal.dependence_reading(res4)  # 4c's gains, their noise and ρ

# %%
print(online_conformal.series_overview(series, res4, lag4, read4, hac_lags=HAC_LAGS))

# %%
# 4b's bar: the authors' results file (final/latex_out.txt, Elec2 row), three decimals:
# LQT's quantile loss 0.005 and the best of the baselines' 0.011
FILE4 = (0.005, 0.011, 5e-4)  # LQT's loss, the best baseline's, half the rounding step
file_ratio, file_lo, file_hi = online_conformal.rounded_ratio_interval(*FILE4)
print(f"4b's bar: the results file's ratio 0.005 / 0.011 = {file_ratio:.3f}, rounded "
      f"to 0.5; with the file's three-decimal rounding the true ratio lies in "
      f"{file_lo:.2f}–{file_hi:.2f}.")  # fmt: skip
print("settings (authors' protocol):", {k: r.settings for k, r in res4.items()},
      "\nlags-only sensitivity:", online_conformal.lags_only_summary(lag4))  # fmt: skip

# %% tags=["hide-input"]
fig, axes = plt.subplots(1, len(series), figsize=(16, 3.8))
for ax, sname in zip(axes, series):
    r, best = res4[sname], res4[sname].best_baseline
    win = np.arange(r.test.size - 300, r.test.size)
    ax.plot(win, r.test[win], color=color_for("muted"), lw=0.8, label="score")
    ax.plot(win, r.q["LQT"][win], color=color_for("LQT"),
            label=f"LQT, judged (p = {r.settings['LQT']['p']})")  # fmt: skip
    ax.plot(win, r.q[best][win], color=color_for(best), lw=1.1,
            label=f"{best} (best baseline, tuned on test)")  # fmt: skip
    if best != "SQT":
        ax.plot(win, r.q["SQT"][win], color=color_for("SQT"), lw=0.7, alpha=0.6,
                ls=":", label="SQT (context)")  # fmt: skip
    ax.set(xlabel="test round (last 300)", ylabel="normalised |y − ŷ|",
           title=f"{sname}: LQT against {best}")  # fmt: skip
    ax.legend(fontsize=7, loc="upper left")
fig.suptitle("Thresholds on the real residuals (normalised by the validation part), "
             "last 300 test rounds: LQT against the best baseline", fontsize=12,
             fontweight="bold")  # fmt: skip
plt.show()

# %%
print(online_conformal.same_lags_line(res4, lag4))

# %%
v4 = online_conformal.claim4_values(res4, lag4, alpha=ALPHA)  # electricity: the first
DEV4 = "max |coverage − 0.9|, LQT"
ledger.check(
    "4a", "coverage holds on real residuals (validation-tuned LQT)",
    paper="abstract: coverage guarantees; the target fraction of sets covers",
    source="abstract", evidence="real data",
    measured={DEV4: v4.cov_dev, "LQT coverage": v4.lqt_cov,
              "lags-only LQT coverage (sensitivity)": v4.lag_cov,
              "baselines' coverage (tuned on test; context)": v4.base_cov},
    show=[DEV4], criterion=at_most(DEV4, 0.02),
    note="the ±0.02 band is the research brief's; baselines tuned on the test part "
    "under a coverage constraint: their coverage is context, not judged",
)  # fmt: skip

# %%
RATIO4, P4 = "LQT loss / best baseline's", "HAC p vs each baseline"
ledger.check(
    "4b", "LQT's quantile loss ≤ 0.5 × the best baseline's (electricity)",
    paper="authors' results file (final/latex_out.txt), Elec2: q. loss 0.005 vs "
    "0.011–0.015 (ratio 0.45, rounded to 0.5)",
    source="official code", evidence="real data", show=[RATIO4, P4],
    measured={RATIO4: v4.loss_ratio, P4: v4.p_each,
              "set size / best baseline's (context)": v4.size_ratio,
              "lags-only LQT: loss gain over SQT (sensitivity)": v4.lag_gain},
    criterion=all_of(at_most(RATIO4, 0.5), at_most(P4, 0.05, strict=True)),
    unpaired_because="one real data stream, no seeds to pair: a HAC test on the loss "
    "differences over time",
    note=f"authors' protocol on min-max normalised scores; best baseline "
    f"{v4.best}; LQT chose {v4.settings}; HAC with {HAC_LAGS} lags; "
    f"the file's 3-decimal rounding puts its ratio in {file_lo:.2f}–{file_hi:.2f}",
)  # fmt: skip

# %%
RHO4 = "Spearman ρ(gain read, lag-1 autocorrelation)"
BEYOND4 = "series with a gain beyond noise"
ledger.check(
    "4c", "the gain follows the dependence of the series (3 real series)",
    paper="abstract: the improvement grows with the data's dependence",
    source="abstract", evidence="real data",
    measured={RHO4: read4.spearman, BEYOND4: read4.n_beyond,
              "gain over the best baseline": read4.gain,
              "two-sided HAC p of the gain": read4.p_two,
              "lag-1 autocorrelation of the test scores": read4.rho1},
    show=[RHO4, "gain over the best baseline"],
    gate=at_least(BEYOND4, 2), criterion=at_least(RHO4, 0.8),
    note="the 0.8 bar, the dependence statistic and the gate (an order needs two "
    f"resolved gains) are ours; a gain with two-sided HAC ({HAC_LAGS} lags) p ≥ 0.05 "
    "is read as 0; the authors' MSFT-ar row has no gain either (LQT 0.091 vs "
    "0.088–0.091)",
)  # fmt: skip

# %%
print(online_conformal.series_reading(res4, lag4, read4, alpha=ALPHA))

# %% [markdown]
# Read the verdicts with the table above and the lines just printed: the judged LQT is the one
# the authors' protocol picks on validation (its $p$ in the figure's legend), drawn against the
# best baseline of each series; the lags-only tracker on the wider grid is the sensitivity
# column, and the line under the figure says where it coincides with the judged one.
#
# ## Quoted from the paper · The pre-registered ERCOT experiment (claim 5)
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
    "29.1 vs 42.3–76.6, mean set size 691 vs 779–1118",
)  # fmt: skip

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
n_long, n_short = run["peer_T"], run["peer_short"]
y_long = online_conformal.ar_series(coef, n_long, run.child_rng(600))
long6 = online_conformal.timed_peer(y_long, alpha=ALPHA, p=2, lr=0.01)  # and seconds

# %%
CASES = online_conformal.peer_cases(  # the settings above, on shorter streams
    y_long[:n_short], runs1["regime switches", 1].scores[:n_short], v4.test, v4.settings
)
long_row = ("AR(2), LQT(2) fixed η = 0.01", n_long, long6.max_dq)
peer = online_conformal.peer_agreement(CASES, alpha=ALPHA, rows=[long_row])
print(peer.to_string(index=False, formatters={"max |Δq|": "{:.1e}".format}))

# %%
DQ6 = f"max |Δq| over {len(peer)} streams × settings"
ledger.ours(
    6, "our LQT/SQT = conformalopt's thresholds",
    why="a check of our implementation against the authors' package, not a claim of "
    "the paper", evidence="peer agreement",
    measured={DQ6: float(peer["max |Δq|"].max())}, criterion=at_most(DQ6, 1e-8),
)  # fmt: skip

# %% tags=["nbval-ignore-output"]
print(long6.timing_line(n_long))

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
print(run.time_line())

# %% [markdown]
# **Reading the verdicts.** The sentences below are generated from this run's ledger and from the
# committed records (quick scale): the stability record (`data/stability/17_online_conformal.json`;
# the *seeds* column above comes from it, and a claim changed since it was made is named) and the
# numerics record (verdicts that move under other kernels and thread counts). The last lines
# name the claims whose margin is the same on every seed of the record, and why.

# %%
print("\n".join(reading_lines(ledger)))
# 1d reads every seed of the record in each run, by design
print("\n".join(online_conformal.same_margin_lines(record, ledger.claims, ["1d"])))

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
# - **Protocols in the module (issue 37; no value, verdict or figure changed).**
#   `online_conformal` is now a package, one file per part (trackers, baselines, tuning, data,
#   the authors' protocol, and one file per claim's protocol). Claim 1's runs on every seed of
#   the record, the values, tables and error curves the chapter reads (`bounded_coverage`),
#   claim 2's conditional-coverage study (`conditional_study`), claim 3's tables and measured
#   values (`sweep_tables`, `sweep_measured`, `oracle_measured`), claim 4's two protocols,
#   data and values (`offline_series`, `compare_series`, `claim4_values`,
#   `dependence_reading`), check 6's cases (`peer_cases`, `peer_agreement`, `timed_peer`),
#   and the generated sentences that read claims 1–4 and the stability record moved there,
#   unit-tested; the stability, full-scale and run-time lines come from the book's core
#   (`reading_lines`, `full_run_lines`, `run.time_line()`).
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
print(online_conformal.old_bar_line(v1, bar=BAR1, lr=ETA))
print(online_conformal.default_lags_line(res4, read4, hac_lags=HAC_LAGS, alpha=ALPHA))
print(online_conformal.old_gain_line(sweep, t=T975_3))
if line := online_conformal.ar1_length_line(getattr(record, "runs", []), sweep.seconds):
    print(line)  # from the record's run times and claim 3's seconds

# %% [markdown]
# ## Run it at full scale
#
# ```bash
# .venv/bin/python -m repbook full 17   # runs it and records it in data/full_runs/ (commit it)
# # or, directly with papermill (not recorded):
# jupytext --to ipynb -o - notebooks/17_online_conformal.py | papermill - out.ipynb -p scale full -k python3
# ```
# Full scale runs $10^6$-round streams for claims 1–3 (checkpoints at 10k, 100k and 1M rounds),
# 10 AR(2) and 10 AR(1) seeds, and the package comparison over $10^6$ rounds: CPU work only, no
# GPU. The recorded full-scale run is kept in `data/full_runs/17_online_conformal.json`; the
# lines below are generated from it: when, where and how long it ran, each check's verdict and
# margin there, and the checks whose verdict differs from this run's. The scoreboard also shows
# the recorded verdicts, and the environment page where it ran.

# %%
print("\n".join(full_run_lines(ledger)))
