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
# # 13 · Inverse game theory: recovering rewards from entropy-regularised play
#
# Junyi Liao, Zihan Zhu, Ethan X. Fang, Zhuoran Yang, Vahid Tarokh — *Decoding Rewards
# in Competitive Games: Inverse Game Theory with Entropy Regularization*, ICML 2025 ·
# PMLR 267:37610–37622 · the extended journal version with the same title is arXiv
# [2601.12707](https://arxiv.org/abs/2601.12707) · no official code released.
#
# Two players play a zero-sum game whose payoff is linear in known features,
# $Q(a,b)=\phi(a,b)^\top\theta$, but $\theta$ is unknown. Both players are boundedly
# rational: they play the entropy-regularised (quantal response) equilibrium at a known
# temperature $1/\eta$. Watching $N$ plays, can we recover $\theta$, say how sure we
# are, and do the same in a Markov game where the payoff of a step includes the value of
# the next state? The paper answers with an identifiability result, a least-squares
# estimator wrapped in a confidence set, a dynamic version and an MLE variant.
#
# ```{admonition} Claims we test
# 1. **Identifiability.** θ is identified exactly when a matrix built from the
#    equilibrium policies has full column rank; when it does not, every θ in a shifted
#    null space produces the same play, and the identified part (θ's projection on the
#    row space) is still learned.
# 2. **Sample efficiency.** The least-squares error shrinks like $N^{-1/2}$ with the
#    number of observed plays, judged from $N=10^3$ on (issue 34's cut). (That
#    the confidence set's diameter does too holds by the construction of its radius: a
#    sanity check, not a claim.)
# 3. **Reliability.** The confidence set (delta-method radius, ours) contains the true
#    θ with high probability (at least $1-\delta$, up to Monte Carlo error).
# 4. **Dynamic setting.** (4a) In a finite-horizon Markov game with estimated
#    transitions, the reward of every step is recovered at rate $N^{-1/2}$. (Whether
#    the error grows as the recursion runs backwards, 4b, is a diagnostic of our own.)
# 5. **MLE plugs in.** A maximum-likelihood estimator can replace least squares and
#    keeps the $N^{-1/2}$ rate.
# ```
#
# The paper's full text was not available to us (only its abstract and the opening of
# the extended version); we rebuilt the algorithm from the abstract and the algebra of
# the quantal response equilibrium, and say below where our construction may differ from
# the paper's Section 3.2. The forms "rank condition" and "$N^{-1/2}$" are our reading:
# the abstract promises identifiability, reliability and sample efficiency without
# stating them, and a secondary summary of the paper describes the rank condition.

# %% tags=["parameters"]
scale = "quick"  # "quick" (≤ 60 s on 2 CPU cores) or "full" (10×10 games, 1,000 seeds)
seed = 0

# %%
import matplotlib.pyplot as plt
import numpy as np

from repbook.core import all_of, at_least, at_most, color_for, full_run_lines
from repbook.core import paired_gain, reading_lines, setup, tol, within
from repbook.core.ledger import is_stale_across_scales, load_full_run
from repbook.papers import inverse_games

# %%
MARKOV = dict(markov=dict(S=3, A=3, B=3, H=3, d=6), markov_reps=100)
QUICK = dict(m=4, n=4, d=6, d_over=8, d_mle=4, eta=1.0, delta=0.1, games=5)
QUICK |= dict(N=[100, 1_000, 10_000, 100_000])
QUICK |= dict(N_rate=[100, 316, 1_000, 3_162, 10_000, 31_623, 100_000])
QUICK |= dict(reps=200, diam_reps=20, cover_seeds=500, mle_reps=30) | MARKOV
FULL = dict(m=10, n=10, d=18, d_over=20, d_mle=12, eta=1.0, delta=0.1, games=10)
FULL |= dict(N=[100, 1_000, 10_000, 100_000, 1_000_000])
FULL |= dict(N_rate=[100, 316, 1_000, 3_162, 10_000, 31_623, 100_000, 316_228])
FULL["N_rate"] += [1_000_000]
FULL |= dict(reps=1000, diam_reps=100, cover_seeds=1000, mle_reps=100)
FULL |= dict(markov=dict(S=10, A=3, B=3, H=5, d=6), markov_reps=300)
PEERS = dict(peer_etas=[1, 3, 10, 30, 100])
SIZES = {"quick": QUICK | PEERS, "full": FULL | PEERS}

# %%
REGIME = "random zero-sum matrix and Markov games of our own, N up to 1e5 plays; CPU"
COLORS = {"least squares": "ours", "MLE": "alt", "pygambit": "peer", "nashpy": "peer"}
COLORS |= {"Nash indifference": "baseline"}
run = setup(scale=scale, seed=seed, sizes=SIZES, regime=REGIME, colors=COLORS)
ledger = run.ledger
m, n, d, eta, delta = run["m"], run["n"], run["d"], run["eta"], run["delta"]
Ns, G = np.array(run["N"]), run["games"]

# %% [markdown]
# ## The method
#
# (Sizes quoted in the text are the quick scale's; the full scale's are in `SIZES`.)
#
# The max player's policy $\mu$ and the min player's policy $\nu$ form the quantal
# response equilibrium (QRE), the unique saddle point of
# $\mu^\top Q\nu+\eta^{-1}H(\mu)-\eta^{-1}H(\nu)$:
#
# $$\mu(a)\propto e^{\eta(Q\nu)(a)},\qquad \nu(b)\propto e^{-\eta(Q^\top\mu)(b)}.$$
#
# We solve these equations with `scipy.optimize.root` on centred logits (a damped
# fixed-point iteration cycles in zero-sum games). The inverse step rests on one
# observation: taking logs against a reference action ($a_0=b_0=$ the first action), the
# equations are *linear* in θ,
#
# $$\log\frac{\mu(a)}{\mu(a_0)}=\eta\sum_b\nu(b)\,[\phi(a,b)-\phi(a_0,b)]^\top\theta,
# \qquad\log\frac{\nu(b)}{\nu(b_0)}=-\eta\sum_a\mu(a)\,[\phi(a,b)-\phi(a,b_0)]^\top
# \theta,$$
#
# so $A(\mu,\nu)\,\theta=c(\mu,\nu)$ with $(m-1)+(n-1)$ rows, and θ is identified iff
# $\operatorname{rank}A=d$ (hence $d\le m+n-2$). From $N$ plays we plug in the action
# frequencies (add-½ smoothed), take the least-squares solution $\hat\theta$ and the
# confidence set $\hat\Theta=\{\theta:\|\hat A\theta-\hat c\|^2\le\kappa_N\}$. By hand
# on a 3×3 game with two features: the four rows, then least squares.

# %%
phi0, theta0 = inverse_games.random_matrix_game(3, 3, 2, run.child_rng(0))
eq0 = inverse_games.qre(phi0, theta0, eta)
rows = [eta * eq0.nu @ (phi0[a] - phi0[0]) for a in (1, 2)] + [
    -eta * eq0.mu @ (phi0[:, b] - phi0[:, 0]) for b in (1, 2)
]
rhs = [np.log(eq0.mu[a] / eq0.mu[0]) for a in (1, 2)] + [
    np.log(eq0.nu[b] / eq0.nu[0]) for b in (1, 2)
]
by_hand = np.linalg.lstsq(np.array(rows), np.array(rhs), rcond=None)[0]

# %%
A0, c0 = inverse_games.inverse_system(phi0, eq0.mu, eq0.nu, eta)
lib = np.linalg.lstsq(A0, c0, rcond=None)[0]
print(f"QRE: mu = {np.round(eq0.mu, 4)}, nu = {np.round(eq0.nu, 4)}")
print(
    f"true theta {np.round(theta0, 6)}\nby hand    {np.round(by_hand, 6)}\n"
    f"lib        {np.round(lib, 6)}   (max |by hand - lib| = "
    f"{np.abs(by_hand - lib).max():.0e})"
)

# %% [markdown]
# ### Is our equilibrium right? Peers side by side
#
# The five random games used below (4×4, $d=6$ Gaussian features, θ on the unit sphere)
# go through `pygambit`, whose `qre.logit_solve_lambda` traces the logit QRE at a given
# precision $\lambda$ (= our η; its `nash.logit_solve` returns only the limit
# $\lambda\to\infty$), and through `nashpy`, whose linear program gives the Nash
# equilibrium, the η → ∞ limit. A naive inverse built on Nash play reads the observed
# policies as a Nash equilibrium: every action would earn the same payoff, $A\theta=0$.
# With an interior QRE and full rank, only θ = 0 solves that, so its best unit-norm
# answer is unrelated to θ.

# %%
games = [
    inverse_games.random_matrix_game(m, n, d, run.child_rng(10 + g)) for g in range(G)
]
eqs = [inverse_games.qre(phi, th, eta) for phi, th in games]
peers = inverse_games.peer_check(games, eqs, run["peer_etas"])
print("\n".join(peers.lines()))

# %% tags=["hide-input"]
fig, ax = plt.subplots(figsize=(6, 3.6))
etas, nash_tv = run["peer_etas"], peers.nash_tv
for g in range(G):
    style = dict(marker="o", ms=3, color=color_for("nashpy"), alpha=0.7)
    ax.plot(etas, nash_tv[g], **style, label="game" if g == 0 else None)
median_tv = np.median(nash_tv, 0)
style = dict(color=color_for("reference"), lw=2, label="median over games")
ax.plot(etas, median_tv, **style)
ax.set(xscale="log", yscale="log", xlabel="inverse temperature η")
ax.set(ylabel="TV distance QRE ↔ Nash (nashpy)")
ax.set(title="The QRE tends to nashpy's Nash equilibrium as η grows")
ax.legend()
plt.show()

# %% [markdown]
# The reading line above compares our solver with pygambit at every temperature and
# our equilibria with nashpy's Nash equilibria as η grows; at η = 1 the distance to
# Nash play is its first value. A Nash-based inverse ignores the temperature, which is
# what makes θ, not just its direction, recoverable: its cosine with θ is printed.
#
# ## Claim 1 · Identifiability is a rank condition
#
# For each of the five games we form $A(\mu^*,\nu^*)$ from the exact equilibrium and
# solve it. Then we make the problem non-identifiable on purpose with $d=8>m+n-2=6$
# features (five more games), compute $\operatorname{null}A$, move θ along it and
# re-solve the equilibrium; as a control, we move θ the same distance along random
# directions. Finally, from $N$ sampled plays, the minimum-norm least-squares
# $\hat\theta$ should approach $P\theta^*$, θ's projection on the row space, even though
# θ itself cannot be learned.
#
# **Criterion (fixed before the run).** For $d=6$: the exact policies give back θ to
# $10^{-8}$ in every game (the rank of $A$ is shown beside it). For $d=8$: moving θ
# along $\operatorname{null}A$ (by 0.25 to 4 units) changes no equilibrium probability
# by more than $10^{-8}$, while random directions of the same lengths change some
# probability by at least $10^{-3}$; and in every game the log-log slope of the median
# $\|\hat\theta-P\theta^*\|$ over $N\in\{10^2,\dots,10^5\}$ (200 data sets each) lies in
# $[-0.6,-0.4]$. A wrong linearisation, a non-unique equilibrium, or a minimum-norm
# estimate that drifts along the null space would each fail it. The slope includes
# $N=100$, which claim 2 below sets aside as pre-asymptotic; we found no reason that
# makes $N=100$ safer here than there, so the criterion stays as it was fixed (changing
# a passing criterion after its result is known would itself be post hoc) and the slope
# over $N\ge10^3$ is printed beside it as a sensitivity, not judged.

# %%
ident = inverse_games.identifiability_study(
    games,
    eqs,
    m=m,
    n=n,
    d_over=run["d_over"],
    eta=eta,
    n_plays=Ns,
    reps=run["reps"],
    rng_for=run.child_rng,
)
print("\n".join(ident.lines()))
proj_err, full_err = ident.proj_err, ident.full_err

# %% [markdown]
# To see the set the paper calls the feasible set, a two-feature toy whose second
# feature is the first plus a constant: a constant never changes an equilibrium, so $A$
# has rank 1 and every θ on a line explains the play equally well. The confidence set is
# then a slab around that line that narrows with $N$ but never closes.

# %%
slab = inverse_games.slab_study(eta, delta, run.child_rng(40))
print("\n".join(slab.lines()))

# %% tags=["hide-input"]
fig, axes = plt.subplots(1, 2, figsize=(11, 4))
ax = axes[0]
along = np.linspace(-6, 6, 3)
shades = [color_for("muted"), color_for("alt"), color_for("ours")]
for (N, cut), col in zip(slab.cut.items(), shades):
    if cut is not None:  # the same interval on every line parallel to null(A)
        lo, hi = cut
        label = f"confidence set, N = {N:,}"
        ax.fill_between(along, lo, hi, color=col, alpha=0.35, label=label)
style = dict(color=color_for("reference"), ls="--", lw=1.2)
ax.axhline(0, **style, label="θ* + null(A): the same equilibrium")
ax.plot(0, 0, "o", color=color_for("reference"), label="θ*")
ax.set(xlabel="along null(A): v·(θ − θ*)", ylabel="across: r·(θ − θ*)")
ax.set(title="Rank-deficient A: an endless slab")
ax.legend(fontsize=8, loc="upper right")
ax = axes[1]
for g in range(G):
    label = "‖θ̂ − Pθ*‖ (identified part)" if g == 0 else None
    ax.plot(Ns, proj_err[g], marker="o", ms=3, color=color_for("ours"), label=label)
    label = "‖θ̂ − θ*‖" if g == 0 else None
    ax.plot(Ns, full_err[g], marker="s", ms=3, color=color_for("baseline"), label=label)
guide = proj_err[:, 0].max() * (Ns / Ns[0]) ** -0.5
style = dict(color=color_for("reference"), ls="--", lw=1.2, label=r"$\propto N^{-1/2}$")
ax.plot(Ns, guide, **style)
ax.set(xscale="log", yscale="log", xlabel="plays observed N", ylabel="median error")
ax.set(title=f"d = {run['d_over']} > m + n − 2: only Pθ* is learned")
ax.legend(fontsize=8)
plt.show()

# %%
SLOPE1 = "slope of projection error"
ledger.check(
    1,
    "identified iff rank A(μ*, ν*) = d; else θ* + null(A) all give the same play, "
    "and the row-space part is learned",
    paper="identifiability via QRE under linear rewards; a rank condition on a "
    "matrix of the policies",
    source="secondary summary",
    evidence="simulation",
    measured={
        "rank A (d = 6)": ident.ranks,
        "max error from exact policies": max(ident.exact_err),
        "max change along null(A)": max(ident.shift_null),
        "min change, random directions": min(ident.shift_rand),
        SLOPE1: ident.slopes,
        f"{SLOPE1}, N ≥ 10³ (not judged)": ident.slopes_late,
    },
    criterion=all_of(
        at_most("max error from exact policies", 1e-8),
        at_most("max change along null(A)", 1e-8),
        at_least("min change, random directions", 1e-3),
        within(SLOPE1, -0.6, -0.4),
    ),
    note="exact recovery and the null-space moves are the derivation, checked "
    "numerically; the learned row-space part is a simulation (its slope over "
    "N ≥ 10³ is shown, not judged)",
)

# %% [markdown]
# Left, the slab: its width across null(A) at each $N$ and the loss along null(A) are
# printed above the figure. Right, the error to θ* against the error to its projection
# $P\theta^*$; how far each shrinks over the grid is printed under claim 1's numbers,
# and the level at which the error to θ* stalls, $\|(I-P)\theta^*\|$ (the part of θ*
# in null(A), which no data can reveal), is printed beside it.
#
# ## Claim 2 · The estimate shrinks like $N^{-1/2}$
#
# For the five identified games we draw 200 data sets of $N$ plays at each $N$ of a
# half-decade grid from $10^2$ to $10^5$ and record the median $\|\hat\theta-\theta^*\|$;
# on the first 20 data sets we also build the confidence set at $\delta=0.1$ and record
# its diameter. $\kappa_N$ is the $(1-\delta)$ quantile of $\|\hat A\theta^*-\hat c\|^2$
# under the delta method: the log-odds of multinomial frequencies are asymptotically
# normal, so the residual at θ* is a weighted sum of $\chi^2_1$ variables, whose
# quantile we compute exactly (Imhof's integral). The paper's own $\kappa_N$ comes from
# its concentration bounds, whose constants we could not read.
#
# A rate is a statement about large $N$: at $N=100$ some actions are seen a handful of
# times, the add-½ smoothing pulls the log-odds towards zero and $\hat A$'s smallest
# singular value is itself noisy, so the error there need not be on its asymptotic line.
# The rate is judged from $N=10^3$ on (the sizes below are shown, not judged). That cut
# is the convention issue 34 set, not an onset we measured: nothing here shows that
# the asymptotic regime begins at $10^3$ in every game, and √N·error still drifts
# between $10^3$ and $10^5$ in some games (printed below, per game).
#
# **Criterion (fixed before this grid was run).** In every game, the least-squares slope
# of log median error on log $N$ over the grid's sizes $N\ge10^3$ (five at quick scale,
# seven at full) lies in $[-0.6,-0.4]$: $-\tfrac12$ is the rate (our reading of the
# abstract's "sample-efficient"), ±0.1 the research brief's tolerance for a slope. A bias
# that does not vanish (from smoothing, or a wrong linearisation) would flatten the
# slope towards 0 as $N$ grows; an estimator slower than $\sqrt N$ (an $N^{-1/4}$ law)
# would sit near $-0.25$; both fail. Shown beside it, not judged: √N·error at
# $N=10^5$ over √N·error at $N=10^3$ (1 for an exact $N^{-1/2}$ law), the slope over
# the whole grid, and a bootstrap standard error of each game's slope (the data sets
# of every $N$ resampled, 200 draws), which says how far the binding margin is from
# the noise of the slope itself. **Sanity check.** The diameter's slope over the same sizes lies
# in the same window: the radius $\sqrt{\kappa_N}$ is built to scale like $N^{-1/2}$, so
# this shows the construction works, not the paper.

# %%
N_rate, N_FROM = np.array(run["N_rate"]), 1_000  # N_FROM: where the rate is judged
rate = inverse_games.rate_study(
    games,
    eqs,
    eta=eta,
    delta=delta,
    n_plays=N_rate,
    n_from=N_FROM,
    reps=run["reps"],
    diameter_reps=run["diam_reps"],
    rng_for=run.child_rng,
)
print("\n".join(rate.lines()))
ls_err, diam, asym = rate.median, rate.diameter, rate.asymptotic

# %% tags=["hide-input"]
fig, axes = plt.subplots(1, 3, figsize=(14, 4))
ls_q, root_err = rate.quartiles, rate.root_error
for g in range(G):
    band = dict(color=color_for("ours"), alpha=0.08)
    axes[0].fill_between(N_rate, ls_q[0, g], ls_q[1, g], **band)
    for ax, y in ((axes[0], ls_err[g]), (axes[1], root_err[g])):
        label = "least squares, one line per game" if g == 0 else None
        ax.plot(N_rate, y, marker="o", ms=3, color=color_for("ours"), label=label)
    label = "confidence-set diameter" if g == 0 else None
    axes[2].plot(N_rate, diam[g], marker="o", ms=3, color=color_for("alt"), label=label)
for ax, y in ((axes[0], ls_err), (axes[2], diam)):
    y0 = y[:, np.argmax(asym)].max()
    style = dict(color=color_for("reference"), ls="--", lw=1.2)
    ax.plot(
        N_rate, y0 * (N_rate / N_FROM) ** -0.5, **style, label=r"$\propto N^{-1/2}$"
    )
for ax in axes:
    style = dict(color=color_for("muted"), alpha=0.15, lw=0, label="not judged")
    ax.axvspan(N_rate[0], N_FROM, **style)
    ax.set(xscale="log", yscale="log", xlabel="plays observed N")
    ax.legend(fontsize=8)
title = f"LS error (slope judged at N ≥ {N_FROM:,})"
axes[0].set(ylabel="‖θ̂ − θ*‖ (median, IQR band)", title=title)
axes[1].set(ylabel="√N · median error", title="√N · error (flat under N^(-1/2))")
title = "Diameter (κ_N ∝ 1/N by construction)"
axes[2].set(ylabel="diameter of Θ̂ (median)", title=title)
plt.show()

# %%
SLOPE2 = "error slope, N ≥ 10³"
ledger.check(
    2,
    "LS error shrinks like N^(-1/2) (slope over N ≥ 10³)",
    paper="'sample-efficient' (abstract); the N^(-1/2) form is our reading, the ±0.1 "
    "window the research brief's",
    source="abstract",
    measured={
        SLOPE2: rate.slopes,
        "error slope, whole grid": rate.slopes_all,
        "bootstrap SE of error slope, N ≥ 10³": rate.slope_se,
        "√N·error, N = 10⁵ / N = 10³": rate.drift(100_000),
    },
    criterion=within(SLOPE2, -0.6, -0.4),
)

# %%
ledger.sanity(
    "2s",
    "the confidence set's diameter shrinks like N^(-1/2) (slope over N ≥ 10³)",
    why="its radius is the delta-method quantile, built to scale like N^(-1/2) once "
    "the plug-in settles",
    measured={"diameter slope, N ≥ 10³": rate.slopes_diameter},
    criterion=within("diameter slope, N ≥ 10³", -0.6, -0.4),
)

# %%
slopes_err, slopes_all, drift = rate.slopes, rate.slopes_all, rate.drift(100_000)
g_bind, margin = rate.binding, rate.margin[rate.binding]
g_up, g_dn = int(np.argmax(drift)), int(np.argmin(drift))
print(
    f"reading: over N >= {N_FROM:,} the error slopes lie between {min(slopes_err):.3f} "
    f"and {max(slopes_err):.3f}, {sum(-0.6 <= v <= -0.4 for v in slopes_err)} of {G} "
    f"in the window; the binding one (game {g_bind + 1}) is "
    f"{abs(margin) / rate.slope_se[g_bind]:.1f} bootstrap SE "
    f"{'inside' if margin >= 0 else 'outside'} it; from "
    f"N = {N_FROM:,} to 100,000 sqrt(N) x error moves by x{drift[g_dn]:.2f} "
    f"(game {g_dn + 1}) to x{drift[g_up]:.2f} (game {g_up + 1}); over the whole "
    f"grid {sum(-0.6 <= v <= -0.4 for v in slopes_all)} of {G} slopes are in the "
    f"window (the smallest sizes included, not judged)"
)

# %% [markdown]
# ## Claim 3 · The confidence set holds θ* with high probability
#
# 500 seeds, each a new random game and a new data set at every $N$. The true θ lies in
# $\hat\Theta$ exactly when the generalised-$\chi^2$ tail probability of its residual is
# at least δ, so no quantile search is needed. The figure's left panel draws the sets of
# a two-feature game over $N$ (3×3, over-identified, so the set is an ellipse around
# $\hat\theta$).
#
# **Criterion.** With $\delta=0.1$, the coverage at every $N$ in the grid is at least
# $1-\delta-0.03=0.87$. The 0.03 allows for Monte Carlo error (the binomial standard
# error at this run's number of seeds is printed below). A delta-method radius that is
# too small at small $N$, where the smoothed frequencies are least normal, would fail
# it. The radius $\kappa_N$ is ours (the delta-method quantile, not the paper's
# concentration bound, whose constants we could not read), so this coverage tests our
# calibration of the paper's confidence set, not the paper's own radius.

# %%
cover = inverse_games.coverage_study(
    m=m,
    n=n,
    d=d,
    eta=eta,
    delta=delta,
    n_plays=Ns,
    seeds=run["cover_seeds"],
    rng_for=run.child_rng,
)
print("\n".join(cover.lines()))
coverage, se, ellipses, theta_e = cover.coverage, cover.se, cover.ellipses, cover.theta

# %% tags=["hide-input"]
fig, axes = plt.subplots(1, 2, figsize=(11, 4))
ax = axes[0]
palette = [color_for(r) for r in ("muted", "alt2", "alt", "ours", "alt3")]
for (N, cs), col in zip(ellipses.items(), palette):
    b = np.sqrt(N) * (cs.boundary_2d() - theta_e)
    ax.plot(b[:, 0], b[:, 1], color=col, label=f"N = {N:,}")
    ax.plot(*(np.sqrt(N) * (cs.theta_hat - theta_e)), ".", color=col)
ax.plot(0, 0, "*", ms=12, color=color_for("reference"), label="θ*")
ax.set(xlabel="√N (θ₁ − θ₁*)", ylabel="√N (θ₂ − θ₂*)")
ax.set(title="Confidence sets (d = 2), magnified by √N")
ax.legend(fontsize=8)
ax = axes[1]
style = dict(color=color_for("muted"), alpha=0.25, label="1 − δ ± 2 binomial SE")
ax.fill_between(Ns, 1 - delta - 2 * se, 1 - delta + 2 * se, **style)
style = dict(color=color_for("baseline"), ls=":", label="criterion 1 − δ − 0.03")
ax.axhline(1 - delta - 0.03, **style)
ax.axhline(1 - delta, color=color_for("reference"), ls="--", lw=1.2, label="1 − δ")
share = cover.covered.mean(0)
ax.plot(Ns, share, marker="o", color=color_for("ours"), label="coverage")
ax.set(xscale="log", ylim=(0.8, 1.0), xlabel="plays observed N")
ax.set(ylabel=f"share of {run['cover_seeds']} seeds covered")
ax.set(title="Coverage of the true θ")
ax.legend(fontsize=8, loc="lower right")
plt.show()

# %%
ledger.check(
    3,
    "the confidence set (delta-method radius, ours) contains θ* with probability "
    "≥ 1 − δ (δ = 0.1)",
    paper="confidence sets that capture all plausible parameters, with reliability "
    "guarantees",
    source="abstract",
    measured={"coverage": coverage},
    criterion=at_least("coverage", 1 - delta - 0.03),
)

# %%
scaled = {N: np.sqrt(N) * cs.diameter() for N, cs in ellipses.items()}
gap = {k: (v - (1 - delta)) / se for k, v in coverage.items()}  # in binomial SE
side = {k: "above" if z > 2 else "below" if z < -2 else "at" for k, z in gap.items()}
print(
    "reading: the d = 2 sets' diameter x sqrt(N) is "
    + ", ".join(f"{v:.1f} at N={N:,}" for N, v in scaled.items())
    + "; coverage is "
    + ", ".join(f"{w} 1 - delta at {k}" for k, w in side.items())
    + " (at: within 2 binomial SE)"
)

# %% [markdown]
# Magnified by $\sqrt N$, a set that shrinks like $N^{-1/2}$ keeps its size; the
# printed products say how far the small-$N$ sets are from the asymptotic ellipse.
# Coverage above the nominal $1-\delta$ means the set is conservative at that $N$ (at
# small $N$ the smoothing pulls the log-odds towards zero and the plug-in radius is
# larger); below it, the asymptotic radius is too small for that $N$.
#
# ## Claim 4 · Markov games: (a) every step at $N^{-1/2}$; (b, ours) does error pile up?
#
# A finite-horizon zero-sum Markov game (at quick scale: $S=3$ states, $3\times3$
# actions, horizon $H=3$), Gaussian reward features ($d=6$ per step), random
# transitions, and $N$ observed plays (action pair and next state) at every $(h,s)$. The
# soft value of a state is its stage game's regularised value,
# $V_h(s)=\mu^\top Q_h\nu+\eta^{-1}H(\mu)-\eta^{-1}H(\nu)$, and $Q_h=r_h+P_hV_{h+1}$.
# Backwards from $h=H$: estimate $\hat P_h$ from the transitions; $Q_h$ lies in the
# family $\phi_h\theta+\hat P_h\hat V_{h+1}$, so the stage equations of all states,
# stacked, are linear in θ (the known continuation moves to the right-hand side); least
# squares gives $\hat\theta_h$, $\hat Q_h$, the reward
# $\hat r_h=\hat Q_h-\hat P_h\hat V_{h+1}$ and $\hat V_h$ at the observed policies.
# Errors in $\hat V_{h+1}$ and $\hat P_h$ feed into step $h$.
#
# **Criterion (4a, the paper's).** Over five random Markov games with 100 data sets per
# $N$: for every game and step (15 slopes at quick scale), the slope of the log median
# reward error (root-mean-square over $(s,a,b)$) on log $N$ lies in $[-0.6,-0.4]$. An
# estimate whose transition error stalls would fail it. As for claim 1, the slopes
# include $N=100$ and we found no reason that makes it safer here than in claim 2; the
# criterion stays as fixed, and the slopes over $N\ge10^3$ are printed as a
# sensitivity, not judged.
#
# **Our own diagnostic (4b).** Is step 1's error, at the largest $N$, larger than step
# $H$'s? Per game, the log of their ratio (both from the same data sets), judged as a
# paired gain over the games: it holds when the mean minus $k$ standard errors is
# above 0, fails when the mean plus $k$ SE is at most 0, and is within noise
# otherwise, with $k=t_{0.975,\,G-1}$ for $G$ games. The paper does not say the error
# accumulates, and the ratio is confounded: step 1 and step $H$ differ not only by
# what the recursion carries back but by how well each step's own stage equations are
# conditioned (the stage games differ). Beside it, paired the same way and shown, not
# judged: the log ratio of step 1's error with the estimated continuation over its
# error with the true $(P, V_2)$. That one is nearly implied by the construction: the
# two solves use the same plays and differ only by the estimation noise of
# $\hat P_1$ and $\hat V_2$, which adding can hardly reduce.

# %%
H = run["markov"]["H"]
MARKOV_RUN = dict(games=G, eta=eta, n_plays=Ns, reps=run["markov_reps"])
markov = inverse_games.markov_study(run["markov"], **MARKOV_RUN, rng_for=run.child_rng)
print("\n".join(markov.lines()))
mk_err, mk_oracle, slopes_mk = markov.errors, markov.oracle, markov.slopes

# %% tags=["hide-input"]
fig, (ax, ax2) = plt.subplots(1, 2, figsize=(11, 4), width_ratios=[1.4, 1])
step_colors = [color_for(r) for r in ("ours", "alt", "alt2", "alt3", "baseline")]
for h in range(H):
    med = np.exp(np.mean(np.log(mk_err[:, h]), axis=0))
    ax.plot(Ns, med, marker="o", color=step_colors[h % 5], label=f"step h = {h + 1}")
    for g in range(G):
        ax.plot(Ns, mk_err[g, h], color=step_colors[h % 5], lw=0.6, alpha=0.35)
guide = mk_err[:, :, 0].max() * (Ns / Ns[0]) ** -0.5
style = dict(color=color_for("reference"), ls="--", lw=1.2, label=r"$\propto N^{-1/2}$")
ax.plot(Ns, guide, **style)
ax.set(xscale="log", yscale="log", xlabel="plays observed per (h, s), N")
ax.set(ylabel="reward RMS error (median)")
ax.set(title="Markov game: the reward error of every step")
ax.legend(fontsize=8)
xg = np.arange(G)
by_step = mk_err[:, 0, -1] / mk_err[:, -1, -1]
style = dict(color=color_for("ours"), label=f"error h = 1 / error h = {H}")
ax2.plot(xg - 0.1, by_step, "o", **style)
by_continuation = mk_err[:, 0, -1] / mk_oracle[:, 0]
style = dict(color=color_for("alt"), label="step 1: estimated / true continuation")
ax2.plot(xg + 0.1, by_continuation, "s", **style)
ax2.axhline(1, color=color_for("reference"), ls="--", lw=1.2)
top = max(by_step.max(), by_continuation.max())
ax2.set(xticks=xg, xticklabels=[f"game {g + 1}" for g in xg], ylim=(None, 1.3 * top))
ax2.set(ylabel=f"error ratio at N = {Ns[-1]:,}")
ax2.set(title="Is step 1 worse than the last step?")
ax2.legend(fontsize=8, loc="upper left")
plt.show()

# %%
ledger.check(
    "4a",
    "Markov game: each step's reward error ∝ N^(-1/2)",
    paper="algorithm works in the dynamic setting, sample-efficient (abstract); the "
    "rate is our reading",
    source="abstract",
    measured={
        **{f"slope, {k}": v for k, v in slopes_mk.items()},
        "slope over N ≥ 10³ (not judged)": markov.slopes_late,
    },
    criterion=within([f"slope, {k}" for k in slopes_mk], -0.6, -0.4),
    show=[f"slope, {k}" for k in slopes_mk],
)

# %%
RATIO4B = "log error ratio h=1 / h=H, per game"
ledger.ours(
    "4b",
    "Markov game (diagnostic): step 1's error exceeds step H's, paired over games",
    why="a diagnostic of ours: the paper does not say the error grows as the "
    "recursion runs backwards; the ratio is confounded by each step's own "
    "conditioning (the stage games differ), so step 1's estimated / true "
    "continuation ratio, paired the same way, is shown beside it",
    measured={
        RATIO4B: markov.log_1H,
        "log step-1 estimated / true continuation, per game": markov.log_carried,
        "error ratio h=1 / h=H (geometric mean)": markov.ratio_1H,
        "step 1, estimated / true continuation (geometric mean)": markov.carried,
    },
    criterion=paired_gain(RATIO4B, 0.0, k="t", min_seeds=3),
)

# %% [markdown]
# Left, thin lines are single games and thick lines their geometric mean. Right, two
# ratios at the largest $N$ per game: our own check 4b's (step 1 against step $H$), and a
# diagnostic beside it, step 1 solved again with the true transitions and
# the true $V_2$. The second ratio is the error the recursion carries back into step 1;
# the first also mixes in how well each step's own equations are conditioned, which
# differs from step to step because the stage games differ. When the carried error is
# small next to those differences, step 1 need not be the worst step, and 4b can be
# within noise or fail although the mechanism is there; the lines under the numbers
# give both ratios, each paired over the games with its interval.
#
# ## Claim 5 · MLE plugs in
#
# The maximum-likelihood estimator maximises the multinomial likelihood of the observed
# actions over θ, solving the equilibrium inside every evaluation (gradient by the
# implicit function theorem). When $d=m+n-2$ the equilibrium map is onto an open set of
# policies, so the MLE just reproduces the raw frequencies and coincides with least
# squares on unsmoothed counts (a unit test checks this to $10^{-6}$). To compare them
# where they differ, we use five over-identified games with $d=4<m+n-2=6$, 30 data sets
# per $N$.
#
# **Criterion.** In every game, the slope of the log median MLE error on log $N$ lies in
# $[-0.6,-0.4]$. The slope includes $N=100$; as for claims 1 and 4a the criterion
# stays as fixed and the slope over $N\ge10^3$ is printed as a sensitivity, not
# judged. Fits that BFGS does not report converged stay in the medians (their count,
# and how much dropping them would move the medians, are printed). Beside it we show the ratio of the MLE's median error to least squares'
# at the largest $N$ (geometric mean over games), with our own expectation that it is at
# most 1.2 (MLE is efficient, least squares weights the equations equally); that
# expectation is not a claim of the paper and does not enter the verdict.

# %%
MLE_RUN = dict(m=m, n=n, d=run["d_mle"], games=G, eta=eta, n_plays=Ns)
mle = inverse_games.mle_study(**MLE_RUN, reps=run["mle_reps"], rng_for=run.child_rng)
print("\n".join(mle.lines()))
mle_err, lsm_err, slopes_mle, ratio_mle = mle.mle, mle.ls, mle.slopes, mle.ratio

# %% tags=["hide-input"]
fig, ax = plt.subplots(figsize=(6.4, 4))
for g in range(G):
    label = "least squares" if g == 0 else None
    style = dict(marker="o", ms=3, color=color_for("least squares"), label=label)
    ax.plot(Ns, lsm_err[g], **style)
    style = dict(marker="s", ms=3, ls=":", color=color_for("MLE"))
    ax.plot(Ns, mle_err[g], **style, label="MLE" if g == 0 else None)
guide = lsm_err[:, 0].max() * (Ns / Ns[0]) ** -0.5
style = dict(color=color_for("reference"), ls="--", lw=1.2, label=r"$\propto N^{-1/2}$")
ax.plot(Ns, guide, **style)
ax.set(xscale="log", yscale="log", xlabel="plays observed N")
ax.set(ylabel="‖θ̂ − θ*‖ (median)")
ax.set(title=f"MLE and least squares, d = {run['d_mle']} (over-identified)")
ax.legend(fontsize=8)
plt.show()

# %%
SLOPE5, LATE5 = "MLE error slope", "MLE error slope, N ≥ 10³ (not judged)"
ledger.check(
    5,
    "an MLE can replace least squares and keeps the N^(-1/2) rate",
    paper="adaptable to other methods such as MLE (abstract)",
    source="abstract",
    measured={
        SLOPE5: slopes_mle,
        "MLE / LS error at largest N": ratio_mle,
        LATE5: mle.slopes_late,
        "MLE fits not converged": int(mle.not_converged.sum()),
    },
    criterion=within(SLOPE5, -0.6, -0.4),
    note=f"MLE/LS error ratio {ratio_mle:.2f} at N = {Ns[-1]:,}; our expectation ≤ 1.2 "
    f"({'met' if ratio_mle <= 1.2 else 'not met'}), not a claim of the paper",
    tolerance={
        SLOPE5: tol(abs=1e-06),
        "MLE / LS error at largest N": tol(abs=1e-06),
        LATE5: tol(abs=2e-06),
    },
)

# %%
print(
    f"reading: the MLE's error slopes lie between {min(slopes_mle):.3f} and "
    f"{max(slopes_mle):.3f}; at N = {Ns[-1]:,} its median error is "
    f"{ratio_mle:.2f} times least squares' (geometric mean over games)"
)

# %% [markdown]
# The MLE's slopes and its error relative to least squares are read in the line above
# and in the verdict table's note.
#
# ## Verdicts

# %% tags=["nbval-check-output"]
ledger.show()

# %% tags=["nbval-ignore-output"]
print(run.time_line())

# %% [markdown]
# **Reading the verdicts.** The sentences below are generated from this run's ledger and
# from the committed records (quick scale): the stability record of seeds 0–4
# (`data/stability/13_inverse_games.json`; the *seeds* column above gives each claim's
# verdicts and margins over the seeds; a claim changed since it was made is named) and the
# numerics record (verdicts that move under other kernels and thread counts).

# %%
print("\n".join(reading_lines(ledger)))

# %% [markdown]
# ## Deviations from the paper
#
# Every criterion, gate or statement changed after a result was known, old → new, with
# the reason and whether the result was known before the change (the values quoted as
# "then" are those of the run at the time, quick scale, seed 0; the current values are
# in the output above).
#
# - **Claims 2 and 4: the splits, and where the rate is judged.**
#   - *First run → split* (the book's rule that a check true by construction is a
#     sanity check and a part the paper does not state is ours). Claim 2 was "error
#     slope and diameter slope in [−0.6, −0.4]" over $N\in\{10^2,\dots,10^5\}$,
#     sourced to us; the error slope became the paper's claim 2 (the abstract's
#     "sample-efficient" in our $N^{-1/2}$ reading, as for 4a and 5) and the diameter
#     the sanity check 2s: its radius $\kappa_N\propto1/N$ comes from our delta method
#     and the paper's $\kappa_N$ is unknown, so its rate holds by construction. Claim
#     4 was "every slope in the window, and error at $h=1$ ≥ error at $h=H$"; the
#     accumulation, which the paper does not state and which alone failed, became our
#     own check (4d, now 4b); the rate is claim 4a, unchanged. The parts that moved
#     out are the parts that failed then (the diameter slope, −0.630 in game 1; the
#     accumulation): the results were known.
#   - *Issue 34: claim 2 and 2s judged from $N=10^3$.* Before: the slopes over the whole
#     grid (claim 2 reproduced then, margin +0.034). Now: the same window on the slopes
#     over $N\ge10^3$ only, on a half-decade grid (five sizes from $10^3$ at quick
#     scale, seven at full; new data sets); √N·error's drift and the whole-grid slope
#     are shown, not judged. Reason: the slope was bent by the pre-asymptotic $N=100$.
#     The cut at $10^3$ is the convention, not an onset we measured: √N·error
#     still drifts between $10^3$ and $10^5$ in some games (printed per game). Known:
#     the old grid's slopes over $N\ge10^3$ had been printed "for reading only" (all
#     five in the window) before this criterion was fixed, so it was not fixed blind to
#     them. The figure's titles no longer assert the rate (one said "Estimation error
#     falls as N^(-1/2)").
#   - *Second audit: claim 2's noise.* Criterion unchanged. Added, shown and not
#     judged: a bootstrap standard error of each game's slope (data sets resampled per
#     $N$) and the binding margin in units of it; the drift of √N·error is now
#     $10^5$ over $10^3$ at both scales (was: the largest $N$ over $10^3$).
#   - *Second audit: 4b as a paired comparison, labelled a diagnostic.* Before: the
#     geometric mean over games of error($h=1$)/error($h=H$) at least 1 (0.942 then,
#     does not hold, margin −0.058). Now: one log ratio per game, judged as a paired
#     gain over the games, mean − k·SE > 0 with $k=t_{0.975,G-1}$ (within noise when
#     the interval contains 0). Reason: the book's rule that "larger than" is decided
#     on paired differences beyond their noise, never on a bare mean; the audit found
#     the ✗ inside the noise (log ratios over the five games: mean −0.058, SE 0.107).
#     Known: yes, this criterion was changed after its result was known, and the
#     audit's numbers foretold "within noise"; the change follows the book-wide rule,
#     not the number, and 4b is ours, never in the paper's tally. The
#     oracle-continuation ratio (1.051 then) is shown paired the same way, not judged:
#     it is nearly implied by adding estimation noise to step 1's continuation.
# - **Claims 1, 4a and 5 and $N=100$** (second audit). Their slopes include the
#   $N=100$ that claim 2 now sets aside. We found no reason that makes $N=100$ safer
#   for them than for claim 2 (the same add-½ smoothing and noisy $\hat A$ act there),
#   so their criteria are kept as fixed: changing a passing criterion after its result
#   is known would itself be post hoc. Their slopes over $N\ge10^3$ (three sizes at
#   quick scale, four at full) are shown as a sensitivity, not judged. Known: their
#   whole-grid verdicts were (all reproduced); the sensitivity values were computed
#   after this decision.
# - **Other changes after a first run.**
#   - *Claim 1.* Before: the criterion also required rank $A=6$ in every $d=6$ game.
#     That part sits at margin 0 by construction (the rank cannot exceed $d$), so it set
#     the margin shown and hid the informative ones, and it could only fail together
#     with exact recovery. Now the rank is shown beside the criterion, not in it. The
#     verdict was and is `reproduced`. Its evidence label was "derivation"; it is now
#     "simulation", since the learned row-space part is simulated (the note says which
#     parts are the derivation). The typed "(does not shrink)" beside the error to θ*
#     is replaced by the computed floor $\|(I-P)\theta^*\|$.
#   - *Claim 3.* The statement now says its radius is ours ("delta-method radius,
#     ours"): the coverage tests our calibration, not the paper's radius. The text had
#     typed "the binomial standard error at 500 seeds is 0.013", wrong at full scale's
#     1,000 seeds; it is computed from the run's seed count. The criterion is unchanged.
#   - *Claim 5.* The first run's MLE reported about a third of its fits as not
#     converged: BFGS on the summed log-likelihood stopped with "precision loss" at the
#     optimum (the objective's rounding is set by the inner equilibrium solve). It now
#     minimises the mean log-likelihood per play and also accepts a final gradient below
#     $10^{-8}$. The fits still not reported converged are counted in the output and
#     kept in the medians, with how far dropping them would move the medians. The
#     criterion is unchanged.
#   - *Protocols moved into the library* (`play_sweep`, `null_shift_changes`,
#     `coverage_sweep`, `markov_sweep`, `bootstrap_slope_se`, and the slab's cut
#     `ConfidenceSet.line_interval`, unit-tested); claims 1, 3, 4a, 4b and 5 draw the
#     same data sets as before. Sentences that read a result are printed from the
#     computed values, the stability lines from the record. Later (issue 37) the
#     studies themselves moved too (`peer_check`, `identifiability_study`,
#     `slab_study`, `rate_study`, `coverage_study`, `markov_study`, `mle_study`, with
#     the lines they print; unit-tested, the same streams), the module became a package
#     (`equilibrium`, `inverse`, `markov`, `protocol`, `studies`, `extensions`), and the
#     per-seed stability lines gave way to the book's reading lines (the *seeds* column
#     of the verdict table holds the same record). No number changed.
# - **No paper text.** Only the abstract (ICML and arXiv versions), the opening of the
#   extended version and secondary summaries could be read; Section 3.2 (the algorithm)
#   and the theorems could not. Our algorithm is rebuilt from the abstract and the QRE
#   algebra, so it may differ from the paper's in these places, none of which we could
#   confirm:
#   - *Reference actions.* We write the equations as log-odds against the first action
#     of each player; the paper may centre the logits or use another normalisation. With
#     noisy frequencies the least-squares solution depends on that choice (not its
#     rate).
#   - *Smoothing.* Frequencies get add-½ smoothing so that log-odds stay finite.
#   - *Radius $\kappa_N$.* The paper's radius follows from its concentration bounds with
#     constants we do not know; ours is the delta-method $(1-\delta)$ quantile
#     (generalised $\chi^2$, computed exactly by Imhof's integral). The coverage of
#     claim 3 is therefore the coverage of our calibration, which is asymptotic, not of
#     the paper's finite-sample radius, which is presumably more conservative.
#   - *Markov games.* We move the estimated continuation $\hat P_h\hat V_{h+1}$ to the
#     right-hand side of each step's equations and solve for θ_h directly, which is the
#     same as recovering $Q_h$ within $\phi_h\theta+\hat P_h\hat V_{h+1}$ and
#     subtracting the continuation. If the paper instead assumes $Q_h$ itself linear in
#     the features (a linear Markov game), its step order differs; the estimand is the
#     same. We observe $N$ plays at every $(h,s)$ (a generative model); the paper's
#     sampling scheme is unknown to us.
#   - *MLE.* Our MLE maximises the likelihood of the observed actions with an inner
#     equilibrium solve; the paper's MLE variant may plug the likelihood into the
#     confidence-set construction instead.
# - **Rates are slopes, not bounds.** Claims 2, 4a and 5 test the empirical order
#   $N^{-1/2}$ with the window $[-0.6,-0.4]$ (the research brief's window, not a number of
#   the paper); they do not test the paper's constants or logarithmic factors. The 0.03
#   Monte Carlo slack of claim 3's coverage bound is ours too.
# - **Source of the claim forms.** The rank condition comes from a secondary summary of
#   the paper; the $N^{-1/2}$ rate (claims 2, 4a, 5) is our reading of what
#   "sample-efficient" implies, and the backward accumulation of errors (4b) our own
#   check.
# - **Synthetic games only** (the paper's experiments are described as synthetic too; we
#   could not read their settings): Gaussian features, θ on the unit sphere, η = 1,
#   Dirichlet(1) transitions. Full scale moves to 10×10 games with $d=18$ and a Markov
#   game with $S=10$, $H=5$.
# - **Peers.** pygambit's `nash.logit_solve` returns the end of the logit branch (a Nash
#   equilibrium), not the QRE at a given λ; the QRE at λ = η comes from
#   `qre.logit_solve_lambda`. nashpy has no QRE solver; we use its Nash equilibrium as
#   the η → ∞ limit. open-spiel's QRE solver was not installed (a heavy dependency).
#
# ## Run it at full scale
#
# ```bash
# .venv/bin/python -m repbook full 13   # runs it and records it in data/full_runs/
# # or, directly with papermill (not recorded):
# jupytext --to ipynb -o - notebooks/13_inverse_games.py \
#   | papermill - out.ipynb -p scale full -k python3
# ```
# Full scale: 10×10 games with 18 features (20 for the non-identified case, 12 for the
# MLE), $N$ up to $10^6$ with 1,000 data sets per size (claim 2 on a half-decade grid,
# seven sizes from $10^3$), 1,000 coverage seeds, and a Markov game with 10 states and
# horizon 5. No GPU needed. `repbook full 13` records the run in
# `data/full_runs/13_inverse_games.json`; the lines below are generated from that record
# (when and how long it ran, each check's verdict and margin there, the checks whose
# verdict differs from this run's and, for a rate, the games outside its window).

# %%
print("\n".join(full_run_lines(ledger)))

# %%
record = load_full_run(
    ledger.chapter
)  # the games a rate that fails at full scale misses
quick = {c.id: c for c in ledger.claims}
paired = record is not None and not is_stale_across_scales(record[0], ledger)
for c in record[0].claims if paired else []:
    crit = c.criterion or {}
    if c.verdict == quick[c.id].verdict or crit.get("kind") != "within":
        continue
    for name in crit["reads"]:
        v = np.asarray(c.measured[name], dtype=float)
        off = np.flatnonzero((v < crit["lo"]) | (v > crit["hi"]))
        games_off = ", ".join(f"{i + 1} ({v[i]:.3f})" for i in off)
        window = f"[{crit['lo']}, {crit['hi']}]"
        print(f"    {name} outside {window} in game(s) {games_off} of {v.size}")
