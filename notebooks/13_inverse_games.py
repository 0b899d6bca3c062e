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
from scipy.stats import t as student_t

from repbook.core import (
    Ledger,
    setup,
    use_style,
    color_for,
    register_colors,
    all_of,
    at_least,
    at_most,
    within,
    paired_gain,
    repo_root,
    tol,
)
from repbook.core.ledger import fmt_margin, read_record, unstable_sentence
from repbook.papers import inverse_games as IG

SIZES = {
    "quick": dict(
        m=4,
        n=4,
        d=6,
        d_over=8,
        d_mle=4,
        eta=1.0,
        delta=0.1,
        games=5,
        N=[100, 1_000, 10_000, 100_000],
        N_rate=[100, 316, 1_000, 3_162, 10_000, 31_623, 100_000],
        reps=200,
        diam_reps=20,
        cover_seeds=500,
        mle_reps=30,
        markov=dict(S=3, A=3, B=3, H=3, d=6),
        markov_reps=100,
        peer_etas=[1, 3, 10, 30, 100],
    ),
    "full": dict(
        m=10,
        n=10,
        d=18,
        d_over=20,
        d_mle=12,
        eta=1.0,
        delta=0.1,
        games=10,
        N=[100, 1_000, 10_000, 100_000, 1_000_000],
        N_rate=[100, 316, 1_000, 3_162, 10_000, 31_623, 100_000, 316_228, 1_000_000],
        reps=1000,
        diam_reps=100,
        cover_seeds=1000,
        mle_reps=100,
        markov=dict(S=10, A=3, B=3, H=5, d=6),
        markov_reps=300,
        peer_etas=[1, 3, 10, 30, 100],
    ),
}
run = setup(scale=scale, seed=seed, sizes=SIZES)
ledger = Ledger.for_run(
    run,
    regime="random zero-sum matrix and Markov games of our own, N up to 1e5 plays; CPU",
)
use_style()
register_colors(
    {
        "least squares": "ours",
        "MLE": "alt",
        "pygambit": "peer",
        "nashpy": "peer",
        "Nash indifference": "baseline",
    }
)

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
phi0, theta0 = IG.random_matrix_game(3, 3, 2, run.child_rng(0))
eq0 = IG.qre(phi0, theta0, eta)
rows = [eta * eq0.nu @ (phi0[a] - phi0[0]) for a in (1, 2)] + [
    -eta * eq0.mu @ (phi0[:, b] - phi0[:, 0]) for b in (1, 2)
]
rhs = [np.log(eq0.mu[a] / eq0.mu[0]) for a in (1, 2)] + [
    np.log(eq0.nu[b] / eq0.nu[0]) for b in (1, 2)
]
by_hand = np.linalg.lstsq(np.array(rows), np.array(rhs), rcond=None)[0]
A0, c0 = IG.inverse_system(phi0, eq0.mu, eq0.nu, eta)
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
games = [IG.random_matrix_game(m, n, d, run.child_rng(10 + g)) for g in range(G)]
eqs = [IG.qre(phi, th, eta) for phi, th in games]

gambit_gap, nash_tv, naive_cos = 0.0, [], []
for (phi, th), eq in zip(games, eqs):
    Q = phi @ th
    for e in run["peer_etas"]:
        ours = IG.solve_qre(Q, e)
        mu_g, nu_g = IG.gambit_qre(Q, e)
        gambit_gap = max(
            gambit_gap, np.abs(ours.mu - mu_g).max(), np.abs(ours.nu - nu_g).max()
        )
    mu_n, nu_n = IG.nash_equilibrium(Q)
    nash_tv.append(
        [
            0.5
            * (
                np.abs(IG.solve_qre(Q, e).mu - mu_n).sum()
                + np.abs(IG.solve_qre(Q, e).nu - nu_n).sum()
            )
            for e in run["peer_etas"]
        ]
    )
    naive_cos.append(abs(IG.indifference_inverse(phi, eq.mu, eq.nu) @ th))
nash_tv = np.array(nash_tv)
print(
    f"largest |ours - pygambit| over {G} games and eta in {run['peer_etas']}: "
    f"{gambit_gap:.0e}"
)
print(
    "total-variation distance from the QRE to nashpy's Nash equilibrium, "
    "median over games:"
)
print(
    "  "
    + ", ".join(
        f"eta={e}: {v:.3f}" for e, v in zip(run["peer_etas"], np.median(nash_tv, 0))
    )
)
print(
    f"naive Nash-indifference inverse from the exact QRE: |cos(theta_hat, theta)| = "
    f"{', '.join(f'{c:.2f}' for c in naive_cos)} (least squares: 1 for every game)"
)
tv_med = np.median(nash_tv, 0)
falls = bool(np.all(np.diff(tv_med) < 0))
print(
    f"reading: ours and pygambit differ by at most {gambit_gap:.0e}; the median "
    f"distance to Nash play {'falls' if falls else 'does not fall'} steadily, from "
    f"{tv_med[0]:.2f} at eta = {run['peer_etas'][0]} to {tv_med[-1]:.3f} at "
    f"eta = {run['peer_etas'][-1]}; the Nash-based inverse's |cos| lies between "
    f"{min(naive_cos):.2f} and {max(naive_cos):.2f}"
)

# %% tags=["hide-input"]
fig, ax = plt.subplots(figsize=(6, 3.6))
for g in range(G):
    ax.plot(
        run["peer_etas"],
        nash_tv[g],
        marker="o",
        ms=3,
        color=color_for("nashpy"),
        alpha=0.7,
        label="game" if g == 0 else None,
    )
ax.plot(
    run["peer_etas"],
    np.median(nash_tv, 0),
    color=color_for("reference"),
    lw=2,
    label="median over games",
)
ax.set(
    xscale="log",
    yscale="log",
    xlabel="inverse temperature η",
    ylabel="TV distance QRE ↔ Nash (nashpy)",
    title="The QRE tends to nashpy's Nash equilibrium as η grows",
)
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
ranks, exact_err = [], []
for (phi, th), eq in zip(games, eqs):
    A, c = IG.inverse_system(phi, eq.mu, eq.nu, eta)
    ranks.append(int(np.linalg.matrix_rank(A)))
    exact_err.append(np.linalg.norm(np.linalg.lstsq(A, c, rcond=None)[0] - th))

steps = [0.25, 1.0, 4.0]
over = [
    IG.random_matrix_game(m, n, run["d_over"], run.child_rng(20 + g)) for g in range(G)
]
shift_null, shift_rand, ranks_over, stall = [], [], [], []
proj_err, full_err = np.zeros((G, len(Ns))), np.zeros((G, len(Ns)))
for g, (phi, th) in enumerate(over):
    eq = IG.qre(phi, th, eta)
    A, _ = IG.inverse_system(phi, eq.mu, eq.nu, eta)
    ranks_over.append(int(np.linalg.matrix_rank(A)))
    moved = IG.null_shift_changes(phi, th, eta, steps, run.child_rng(30 + g))
    shift_null, shift_rand = [*shift_null, *moved[0]], [*shift_rand, *moved[1]]
    target = np.linalg.pinv(A) @ A @ th  # P θ*: the identified part
    stall.append(np.linalg.norm(th - target))  # ‖(I − P)θ*‖: what is never learned
    rngs = [run.child_rng(200 + 10 * g + j) for j in range(len(Ns))]
    sweep = IG.play_sweep(phi, eq.mu, eq.nu, eta, Ns, rngs, reps=run["reps"])
    proj_err[g], full_err[g] = sweep.median_error(target), sweep.median_error(th)
slopes_proj = [IG.loglog_slope(Ns, e) for e in proj_err]
late = Ns >= 1_000  # the N ≥ 10³ sizes of claim 2's cut: a sensitivity, not judged
slopes_proj_late = [IG.loglog_slope(Ns[late], e[late]) for e in proj_err]
print(
    f"d = {d}: rank A = {ranks}; largest error from the exact policies "
    f"{max(exact_err):.1e}"
)
print(
    f"d = {run['d_over']}: rank A = {ranks_over}; largest equilibrium change along "
    f"null(A) {max(shift_null):.1e}, smallest along random directions "
    f"{min(shift_rand):.1e}"
)
print(
    "slope of the median projection error: "
    + ", ".join(f"{s:.3f}" for s in slopes_proj)
)
print(
    "  over N >= 1,000 only (sensitivity, not judged): "
    + ", ".join(f"{s:.3f}" for s in slopes_proj_late)
)
print(
    f"median over games at N = {Ns[-1]:,}: ||theta_hat - theta*|| "
    f"{np.median(full_err[:, -1]):.3f}, against its floor ||(I - P) theta*|| "
    f"{np.median(stall):.3f} (per game: {', '.join(f'{v:.3f}' for v in stall)}); "
    f"||theta_hat - P theta*|| {np.median(proj_err[:, -1]):.4f}"
)
shrink_proj = np.median(proj_err[:, 0] / proj_err[:, -1])
shrink_full = np.median(full_err[:, 0] / full_err[:, -1])
print(
    f"reading: from N = {Ns[0]:,} to {Ns[-1]:,} the median error to P theta* shrinks "
    f"{shrink_proj:.1f}-fold (an exact N^(-1/2) law: {np.sqrt(Ns[-1] / Ns[0]):.1f}), "
    f"the error to theta* {shrink_full:.1f}-fold"
)

# %% [markdown]
# To see the set the paper calls the feasible set, a two-feature toy whose second
# feature is the first plus a constant: a constant never changes an equilibrium, so $A$
# has rank 1 and every θ on a line explains the play equally well. The confidence set is
# then a slab around that line that narrows with $N$ but never closes.

# %%
rng_slab = run.child_rng(40)
f1 = rng_slab.normal(size=(3, 3))
phi_slab, theta_slab = np.stack([f1, f1 + 1.0], axis=-1), np.array([0.6, -0.8])
eq_slab = IG.qre(phi_slab, theta_slab, eta)
slab_sets = {}
for N in (100, 1_000, 10_000):
    cm, cn = IG.sample_play_counts(eq_slab.mu, eq_slab.nu, N, rng_slab)
    slab_sets[N] = IG.confidence_set(phi_slab, cm, cn, eta, delta)
v_row = np.array([1.0, 1.0]) / np.sqrt(2)  # null(A) = (1, −1)/√2: equal columns
# the set on the line θ* + w·r (r = v_row): an interval of w, or None when it misses
# θ*'s line
slab_cut = {N: cs.line_interval(theta_slab, v_row) for N, cs in slab_sets.items()}
slab_width = {N: (cut[1] - cut[0] if cut else 0.0) for N, cut in slab_cut.items()}
null_push = max(np.abs(cs.A @ np.array([1.0, -1.0])).max() for cs in slab_sets.values())
print(
    "rank of A for the toy: "
    + ", ".join(f"N={N}: {cs.rank}" for N, cs in slab_sets.items())
)
print(
    "reading: the set's width across null(A) is "
    + ", ".join(f"{w:.3f} at N={N:,}" for N, w in slab_width.items())
    + f"; along null(A) the loss does not change (|A v| <= {null_push:.0e}), so the "
    "set never closes in that direction"
)

# %% tags=["hide-input"]
fig, axes = plt.subplots(1, 2, figsize=(11, 4))
ax = axes[0]
along = np.linspace(-6, 6, 3)
shades = [color_for("muted"), color_for("alt"), color_for("ours")]
for (N, cut), col in zip(slab_cut.items(), shades):
    if cut is not None:  # the same interval on every line parallel to null(A)
        lo, hi = cut
        ax.fill_between(
            along, lo, hi, color=col, alpha=0.35, label=f"confidence set, N = {N:,}"
        )
ax.axhline(
    0,
    color=color_for("reference"),
    ls="--",
    lw=1.2,
    label="θ* + null(A): the same equilibrium",
)
ax.plot(0, 0, "o", color=color_for("reference"), label="θ*")
ax.set(
    xlabel="along null(A): v·(θ − θ*)",
    ylabel="across: r·(θ − θ*)",
    title="Rank-deficient A: an endless slab",
)
ax.legend(fontsize=8, loc="upper right")
ax = axes[1]
for g in range(G):
    ax.plot(
        Ns,
        proj_err[g],
        marker="o",
        ms=3,
        color=color_for("ours"),
        label="‖θ̂ − Pθ*‖ (identified part)" if g == 0 else None,
    )
    ax.plot(
        Ns,
        full_err[g],
        marker="s",
        ms=3,
        color=color_for("baseline"),
        label="‖θ̂ − θ*‖" if g == 0 else None,
    )
ax.plot(
    Ns,
    proj_err[:, 0].max() * (Ns / Ns[0]) ** -0.5,
    color=color_for("reference"),
    ls="--",
    lw=1.2,
    label=r"$\propto N^{-1/2}$",
)
ax.set(
    xscale="log",
    yscale="log",
    xlabel="plays observed N",
    ylabel="median error",
    title=f"d = {run['d_over']} > m + n − 2: only Pθ* is learned",
)
ax.legend(fontsize=8)
plt.show()

# %%
ledger.check(
    1,
    "identified iff rank A(μ*, ν*) = d; else θ* + null(A) all give the same play, "
    "and the row-space part is learned",
    paper="identifiability via QRE under linear rewards; a rank condition on a "
    "matrix of the policies",
    source="secondary summary",
    evidence="simulation",
    measured={
        "rank A (d = 6)": ranks,
        "max error from exact policies": max(exact_err),
        "max change along null(A)": max(shift_null),
        "min change, random directions": min(shift_rand),
        "slope of projection error": slopes_proj,
        "slope of projection error, N ≥ 10³ (not judged)": slopes_proj_late,
    },
    criterion=all_of(
        at_most("max error from exact policies", 1e-8),
        at_most("max change along null(A)", 1e-8),
        at_least("min change, random directions", 1e-3),
        within("slope of projection error", -0.6, -0.4),
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
asym = N_rate >= N_FROM
sweeps = [
    IG.play_sweep(
        phi,
        eq.mu,
        eq.nu,
        eta,
        N_rate,
        [run.child_rng(1_000 + 100 * g + j) for j in range(len(N_rate))],
        reps=run["reps"],
        delta=delta,
        diameter_reps=run["diam_reps"],
    )
    for g, ((phi, _), eq) in enumerate(zip(games, eqs))
]
errs = np.array([sw.errors(th) for sw, (_, th) in zip(sweeps, games)])
ls_err, ls_q = np.median(errs, 2), np.quantile(errs, [0.25, 0.75], axis=2)
diam = np.array([sw.diameter for sw in sweeps])
slopes_err = [IG.loglog_slope(N_rate[asym], e[asym]) for e in ls_err]
slopes_all = [IG.loglog_slope(N_rate, e) for e in ls_err]
slopes_diam = [IG.loglog_slope(N_rate[asym], e[asym]) for e in diam]
slope_se = [
    IG.bootstrap_slope_se(e[asym], N_rate[asym], run.child_rng(3_000 + g))
    for g, e in enumerate(errs)
]
slope_margin = [min(v + 0.6, -0.4 - v) for v in slopes_err]
g_bind = int(np.argmin(slope_margin))
root_err = ls_err * np.sqrt(N_rate)
i_from, i_5 = int(np.argmax(asym)), int(np.flatnonzero(N_rate == 100_000)[0])
drift = root_err[:, i_5] / root_err[:, i_from]  # √N·error, 10⁵ over 10³
drift_end = root_err[:, -1] / root_err[:, i_from]  # to the largest N (full: 10⁶)
print(f"N: {', '.join(f'{N:,}' for N in N_rate)}")
print(
    "median error x sqrt(N) (rows: games):\n"
    + np.array2string(root_err, precision=1, suppress_small=True)
)
print(
    f"slope of the median error over N >= {N_FROM:,}: "
    + ", ".join(f"{s:.3f}" for s in slopes_err)
)
print(
    "  over the whole grid (not judged): " + ", ".join(f"{s:.3f}" for s in slopes_all)
)
print(
    "  bootstrap SE of each slope over N >= 1,000 (data sets resampled, not judged): "
    + ", ".join(f"{v:.3f}" for v in slope_se)
)
print(
    f"binding margin: game {g_bind + 1}, slope {slopes_err[g_bind]:.3f}, "
    f"{slope_margin[g_bind]:.3f} inside the window = "
    f"{slope_margin[g_bind] / slope_se[g_bind]:.1f} bootstrap SE of its slope"
)
print(
    f"sqrt(N) x error at N = 100,000 over N = {N_FROM:,}: "
    + ", ".join(f"game {g + 1}: x{v:.2f}" for g, v in enumerate(drift))
    + (
        ""
        if N_rate[-1] == 100_000
        else f"; at N = {N_rate[-1]:,}: " + ", ".join(f"x{v:.2f}" for v in drift_end)
    )
)
print(
    f"slope of the median diameter over N >= {N_FROM:,}: "
    + ", ".join(f"{s:.3f}" for s in slopes_diam)
)
print(
    "diameter x sqrt(N) (rows: games):\n"
    + np.array2string(diam * np.sqrt(N_rate), precision=1, suppress_small=True)
)

# %% tags=["hide-input"]
fig, axes = plt.subplots(1, 3, figsize=(14, 4))
for g in range(G):
    axes[0].fill_between(
        N_rate, ls_q[0, g], ls_q[1, g], color=color_for("ours"), alpha=0.08
    )
    for ax, y in ((axes[0], ls_err[g]), (axes[1], root_err[g])):
        ax.plot(
            N_rate,
            y,
            marker="o",
            ms=3,
            color=color_for("ours"),
            label="least squares, one line per game" if g == 0 else None,
        )
    axes[2].plot(
        N_rate,
        diam[g],
        marker="o",
        ms=3,
        color=color_for("alt"),
        label="confidence-set diameter" if g == 0 else None,
    )
for ax, y in ((axes[0], ls_err), (axes[2], diam)):
    y0 = y[:, np.argmax(asym)].max()
    ax.plot(
        N_rate,
        y0 * (N_rate / N_FROM) ** -0.5,
        color=color_for("reference"),
        ls="--",
        lw=1.2,
        label=r"$\propto N^{-1/2}$",
    )
for ax in axes:
    ax.axvspan(
        N_rate[0],
        N_FROM,
        color=color_for("muted"),
        alpha=0.15,
        lw=0,
        label="not judged",
    )
    ax.set(xscale="log", yscale="log", xlabel="plays observed N")
    ax.legend(fontsize=8)
axes[0].set(
    ylabel="‖θ̂ − θ*‖ (median, IQR band)",
    title=f"LS error (slope judged at N ≥ {N_FROM:,})",
)
axes[1].set(ylabel="√N · median error", title="√N · error (flat under N^(-1/2))")
axes[2].set(
    ylabel="diameter of Θ̂ (median)", title="Diameter (κ_N ∝ 1/N by construction)"
)
plt.show()

# %%
ledger.check(
    2,
    "LS error shrinks like N^(-1/2) (slope over N ≥ 10³)",
    paper="'sample-efficient' (abstract); the N^(-1/2) form is our reading, the ±0.1 "
    "window the research brief's",
    source="abstract",
    measured={
        "error slope, N ≥ 10³": slopes_err,
        "error slope, whole grid": slopes_all,
        "bootstrap SE of error slope, N ≥ 10³": slope_se,
        "√N·error, N = 10⁵ / N = 10³": drift,
    },
    criterion=within("error slope, N ≥ 10³", -0.6, -0.4),
)
ledger.sanity(
    "2s",
    "the confidence set's diameter shrinks like N^(-1/2) (slope over N ≥ 10³)",
    why="its radius is the delta-method quantile, built to scale like N^(-1/2) once "
    "the plug-in settles",
    measured={"diameter slope, N ≥ 10³": slopes_diam},
    criterion=within("diameter slope, N ≥ 10³", -0.6, -0.4),
)

# %%
lo_s, hi_s = min(slopes_err), max(slopes_err)
g_up, g_dn = int(np.argmax(drift)), int(np.argmin(drift))
print(
    f"reading: over N >= {N_FROM:,} the error slopes lie between {lo_s:.3f} and "
    f"{hi_s:.3f}, {sum(-0.6 <= v <= -0.4 for v in slopes_err)} of {G} in the window; "
    f"the binding one (game {g_bind + 1}) is "
    f"{abs(slope_margin[g_bind]) / slope_se[g_bind]:.1f} bootstrap SE "
    f"{'inside' if slope_margin[g_bind] >= 0 else 'outside'} it; from "
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
seeds = [run.child_rng(10_000 + i) for i in range(run["cover_seeds"])]
covered = IG.coverage_sweep(m, n, d, eta, Ns, delta, seeds)
coverage = {f"N={N:,}": float(c) for N, c in zip(Ns, covered.mean(0))}
se = np.sqrt(delta * (1 - delta) / run["cover_seeds"])
print(
    "coverage over "
    + f"{run['cover_seeds']} seeds: "
    + ", ".join(f"{k}: {v:.3f}" for k, v in coverage.items())
    + f" (target {1 - delta})"
)
print(
    f"binomial standard error of a coverage of {1 - delta} at {run['cover_seeds']} "
    f"seeds: {se:.4f}; the 0.03 slack is {0.03 / se:.1f} of them"
)

phi_e, theta_e = IG.random_matrix_game(3, 3, 2, run.child_rng(50))
eq_e = IG.qre(phi_e, theta_e, eta)
ellipses = {}
for N in Ns:
    cm, cn = IG.sample_play_counts(
        eq_e.mu, eq_e.nu, int(N), run.child_rng(51 + int(np.log10(N)))
    )
    ellipses[int(N)] = IG.confidence_set(phi_e, cm, cn, eta, delta)

# %% tags=["hide-input"]
fig, axes = plt.subplots(1, 2, figsize=(11, 4))
ax = axes[0]
palette = [color_for(r) for r in ("muted", "alt2", "alt", "ours", "alt3")]
for (N, cs), col in zip(ellipses.items(), palette):
    b = np.sqrt(N) * (cs.boundary_2d() - theta_e)
    ax.plot(b[:, 0], b[:, 1], color=col, label=f"N = {N:,}")
    ax.plot(*(np.sqrt(N) * (cs.theta_hat - theta_e)), ".", color=col)
ax.plot(0, 0, "*", ms=12, color=color_for("reference"), label="θ*")
ax.set(
    xlabel="√N (θ₁ − θ₁*)",
    ylabel="√N (θ₂ − θ₂*)",
    title="Confidence sets (d = 2), magnified by √N",
)
ax.legend(fontsize=8)
ax = axes[1]
ax.fill_between(
    Ns,
    1 - delta - 2 * se,
    1 - delta + 2 * se,
    color=color_for("muted"),
    alpha=0.25,
    label="1 − δ ± 2 binomial SE",
)
ax.axhline(
    1 - delta - 0.03,
    color=color_for("baseline"),
    ls=":",
    label="criterion 1 − δ − 0.03",
)
ax.axhline(1 - delta, color=color_for("reference"), ls="--", lw=1.2, label="1 − δ")
ax.plot(Ns, covered.mean(0), marker="o", color=color_for("ours"), label="coverage")
ax.set(
    xscale="log",
    ylim=(0.8, 1.0),
    xlabel="plays observed N",
    ylabel=f"share of {run['cover_seeds']} seeds covered",
    title="Coverage of the true θ",
)
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
mk, H = run["markov"], run["markov"]["H"]
mk_err, mk_oracle = np.zeros((G, H, len(Ns))), np.zeros((G, H))
for g in range(G):
    mg = IG.random_markov_game(
        mk["S"], mk["A"], mk["B"], H, mk["d"], eta, run.child_rng(600 + g)
    )
    rngs = [run.child_rng(700 + 10 * g + j) for j in range(len(Ns))]
    sweep = IG.markov_sweep(mg, Ns, rngs, reps=run["markov_reps"])
    mk_err[g], mk_oracle[g] = sweep.median_error(), sweep.median_oracle()
slopes_mk = {
    f"step {h + 1}": [IG.loglog_slope(Ns, mk_err[g, h]) for g in range(G)]
    for h in range(H)
}
slopes_mk_late = {  # sensitivity: the N ≥ 10³ sizes only, not judged
    f"step {h + 1}, game {g + 1}": IG.loglog_slope(Ns[late], mk_err[g, h][late])
    for h in range(H)
    for g in range(G)
}
ratio_1H = float(np.exp(np.mean(np.log(mk_err[:, 0, -1] / mk_err[:, -1, -1]))))
for h, s in slopes_mk.items():
    print(
        f"{h}: slopes "
        + ", ".join(f"{v:.3f}" for v in s)
        + f"; median error at N={Ns[-1]:,}: "
        + f"{np.median(mk_err[:, int(h[5:]) - 1, -1]):.4f}"
    )
carried = float(np.exp(np.mean(np.log(mk_err[:, 0, -1] / mk_oracle[:, 0]))))
print(
    "slopes over N >= 1,000 only (sensitivity, not judged): "
    f"{min(slopes_mk_late.values()):.3f} to {max(slopes_mk_late.values()):.3f}"
)
# 4b, paired over games: one log ratio per game, k from Student's t with G − 1 df
k_games = float(student_t.ppf(0.975, G - 1))
log_1H = np.log(mk_err[:, 0, -1] / mk_err[:, -1, -1])
log_carried = np.log(mk_err[:, 0, -1] / mk_oracle[:, 0])


def paired_text(x):
    m_, se_ = x.mean(), x.std(ddof=1) / np.sqrt(x.size)
    return f"mean {m_:+.3f}, SE {se_:.3f}, interval [{m_ - k_games * se_:+.3f}, " + (
        f"{m_ + k_games * se_:+.3f}]"
    )


print(
    f"error(h=1) / error(h=H) at N={Ns[-1]:,}: "
    + ", ".join(f"{v:.2f}" for v in mk_err[:, 0, -1] / mk_err[:, -1, -1])
    + f" (geometric mean {ratio_1H:.2f})"
)
print(
    "step-1 error with estimated / with the true continuation (P, V_2) at "
    f"N={Ns[-1]:,}: "
    + ", ".join(f"{v:.3f}" for v in mk_err[:, 0, -1] / mk_oracle[:, 0])
    + f" (geometric mean {carried:.3f})"
)
print(
    f"paired over {G} games (k = t quantile(0.975, {G - 1} df) = {k_games:.2f}):\n"
    f"  log(error h=1 / error h={H}): {paired_text(log_1H)}\n"
    f"  log(step 1 estimated / true continuation): {paired_text(log_carried)}"
)
half_1H = k_games * log_1H.std(ddof=1) / np.sqrt(G)
print(
    f"reading: carrying the estimated continuation back adds "
    f"{100 * (carried - 1):.1f} % to step 1's error (geometric mean); step 1's error "
    f"is {100 * (ratio_1H - 1):+.1f} % against step {H}'s, and the interval of its "
    f"log ratio over games {'excludes' if abs(log_1H.mean()) > half_1H else 'contains'}"
    " 0"
)

# %% tags=["hide-input"]
fig, (ax, ax2) = plt.subplots(1, 2, figsize=(11, 4), width_ratios=[1.4, 1])
step_colors = [color_for(r) for r in ("ours", "alt", "alt2", "alt3", "baseline")]
for h in range(H):
    med = np.exp(np.mean(np.log(mk_err[:, h]), axis=0))
    ax.plot(Ns, med, marker="o", color=step_colors[h % 5], label=f"step h = {h + 1}")
    for g in range(G):
        ax.plot(Ns, mk_err[g, h], color=step_colors[h % 5], lw=0.6, alpha=0.35)
ax.plot(
    Ns,
    mk_err[:, :, 0].max() * (Ns / Ns[0]) ** -0.5,
    color=color_for("reference"),
    ls="--",
    lw=1.2,
    label=r"$\propto N^{-1/2}$",
)
ax.set(
    xscale="log",
    yscale="log",
    xlabel="plays observed per (h, s), N",
    ylabel="reward RMS error (median)",
    title="Markov game: the reward error of every step",
)
ax.legend(fontsize=8)
xg = np.arange(G)
ax2.plot(
    xg - 0.1,
    mk_err[:, 0, -1] / mk_err[:, -1, -1],
    "o",
    color=color_for("ours"),
    label=f"error h = 1 / error h = {H}",
)
ax2.plot(
    xg + 0.1,
    mk_err[:, 0, -1] / mk_oracle[:, 0],
    "s",
    color=color_for("alt"),
    label="step 1: estimated / true continuation",
)
ax2.axhline(1, color=color_for("reference"), ls="--", lw=1.2)
top = max(
    (mk_err[:, 0, -1] / mk_err[:, -1, -1]).max(),
    (mk_err[:, 0, -1] / mk_oracle[:, 0]).max(),
)
ax2.set(
    xticks=xg,
    xticklabels=[f"game {g + 1}" for g in xg],
    ylim=(None, 1.3 * top),
    ylabel=f"error ratio at N = {Ns[-1]:,}",
    title="Is step 1 worse than the last step?",
)
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
        "slope over N ≥ 10³ (not judged)": slopes_mk_late,
    },
    criterion=within([f"slope, {k}" for k in slopes_mk], -0.6, -0.4),
    show=[f"slope, {k}" for k in slopes_mk],
)
ledger.ours(
    "4b",
    "Markov game (diagnostic): step 1's error exceeds step H's, paired over games",
    why="a diagnostic of ours: the paper does not say the error grows as the "
    "recursion runs backwards; the ratio is confounded by each step's own "
    "conditioning (the stage games differ), so step 1's estimated / true "
    "continuation ratio, paired the same way, is shown beside it",
    measured={
        "log error ratio h=1 / h=H, per game": log_1H,
        "log step-1 estimated / true continuation, per game": log_carried,
        "error ratio h=1 / h=H (geometric mean)": ratio_1H,
        "step 1, estimated / true continuation (geometric mean)": carried,
    },
    criterion=paired_gain(
        "log error ratio h=1 / h=H, per game", 0.0, k="t", min_seeds=3
    ),
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
mle_err, lsm_err = np.zeros((G, len(Ns))), np.zeros((G, len(Ns)))
mle_bad = np.zeros((G, len(Ns)), dtype=int)  # fits BFGS did not report converged
mle_err_ok = np.zeros((G, len(Ns)))  # median over the converged fits only
for g in range(G):
    phi, th = IG.random_matrix_game(m, n, run["d_mle"], run.child_rng(500 + g))
    eq = IG.qre(phi, th, eta)
    rngs = [run.child_rng(510 + 10 * g + j) for j in range(len(Ns))]
    sweep = IG.play_sweep(
        phi, eq.mu, eq.nu, eta, Ns, rngs, reps=run["mle_reps"], mle=True
    )
    lsm_err[g] = sweep.median_error(th)
    mle_err[g] = sweep.median_error(th, estimator="mle")
    e_mle, ok = sweep.errors(th, estimator="mle"), sweep.mle_converged
    mle_bad[g] = (~ok).sum(1)
    mle_err_ok[g] = [np.median(e[o]) if o.any() else np.nan for e, o in zip(e_mle, ok)]
slopes_mle = [IG.loglog_slope(Ns, e) for e in mle_err]
slopes_mle_late = [IG.loglog_slope(Ns[late], e[late]) for e in mle_err]
n_fits = G * len(Ns) * run["mle_reps"]
shift_ok = float(np.nanmax(np.abs(mle_err_ok / mle_err - 1)))
ratio_mle = float(np.exp(np.mean(np.log(mle_err[:, -1] / lsm_err[:, -1]))))
print("slope of the median MLE error: " + ", ".join(f"{s:.3f}" for s in slopes_mle))
print(
    "  over N >= 1,000 only (sensitivity, not judged): "
    + ", ".join(f"{s:.3f}" for s in slopes_mle_late)
)
print(
    f"MLE / LS median error at N={Ns[-1]:,}: "
    + ", ".join(f"{v:.3f}" for v in mle_err[:, -1] / lsm_err[:, -1])
    + f" (geometric mean {ratio_mle:.3f})"
)
print(
    f"MLE fits not reported converged: {int(mle_bad.sum())} of {n_fits} ("
    + ", ".join(f"N={N:,}: {b}" for N, b in zip(Ns, mle_bad.sum(0)))
    + "); the medians keep them (their last BFGS iterate); over the converged fits "
    f"alone the median errors would change by at most {100 * shift_ok:.2f} %"
)

# %% tags=["hide-input"]
fig, ax = plt.subplots(figsize=(6.4, 4))
for g in range(G):
    ax.plot(
        Ns,
        lsm_err[g],
        marker="o",
        ms=3,
        color=color_for("least squares"),
        label="least squares" if g == 0 else None,
    )
    ax.plot(
        Ns,
        mle_err[g],
        marker="s",
        ms=3,
        ls=":",
        color=color_for("MLE"),
        label="MLE" if g == 0 else None,
    )
ax.plot(
    Ns,
    lsm_err[:, 0].max() * (Ns / Ns[0]) ** -0.5,
    color=color_for("reference"),
    ls="--",
    lw=1.2,
    label=r"$\propto N^{-1/2}$",
)
ax.set(
    xscale="log",
    yscale="log",
    xlabel="plays observed N",
    ylabel="‖θ̂ − θ*‖ (median)",
    title=f"MLE and least squares, d = {run['d_mle']} (over-identified)",
)
ax.legend(fontsize=8)
plt.show()

# %%
ledger.check(
    5,
    "an MLE can replace least squares and keeps the N^(-1/2) rate",
    paper="adaptable to other methods such as MLE (abstract)",
    source="abstract",
    measured={
        "MLE error slope": slopes_mle,
        "MLE / LS error at largest N": ratio_mle,
        "MLE error slope, N ≥ 10³ (not judged)": slopes_mle_late,
        "MLE fits not converged": int(mle_bad.sum()),
    },
    criterion=within("MLE error slope", -0.6, -0.4),
    note=f"MLE/LS error ratio {ratio_mle:.2f} at N = {Ns[-1]:,}; our expectation ≤ 1.2 "
    f"({'met' if ratio_mle <= 1.2 else 'not met'}), not a claim of the paper",
    tolerance={
        "MLE error slope": tol(abs=1e-06),
        "MLE / LS error at largest N": tol(abs=1e-06),
        "MLE error slope, N ≥ 10³ (not judged)": tol(abs=2e-06),
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
print(f"chapter run time: {run.elapsed():.1f} s at scale={run.scale!r} on {run.device}")

# %% [markdown]
# **Stability over seeds.** The seeds column comes from the committed record of the quick
# scale on seeds 0–4 (`data/stability/13_inverse_games.json`); a claim changed since it
# was made reads "stale record". The lines below are generated from that record: each
# claim's verdict and margin by seed, then the claims whose verdict flips.

# %%
record = ledger.stability()
for claim in ledger.claims:
    st = record.current(claim) if record is not None else None
    if st is None:
        known = record is not None and record.claim(claim.id) is not None
        print(f"claim {claim.id}: {'stale record' if known else 'not in the record'}")
        continue
    print(
        f"claim {st.id}: "
        + ", ".join(
            f"seed {k}: {v} ({fmt_margin(st.margins[k])})"
            for k, v in st.verdicts.items()
        )
    )
stability_line = unstable_sentence(ledger, record)
print(stability_line or "No claim the record still describes flips between its seeds.")

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
#     computed values, the stability lines from the record.
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
# .venv/bin/python -m repbook run 13 --scale full
# # or, directly with papermill:
# jupytext --to ipynb -o - notebooks/13_inverse_games.py \
#   | papermill - out.ipynb -p scale full -k python3
# ```
# Full scale: 10×10 games with 18 features (20 for the non-identified case, 12 for the
# MLE), $N$ up to $10^6$ with 1,000 data sets per size (claim 2 on a half-decade grid,
# seven sizes from $10^3$), 1,000 coverage seeds, and a Markov game with 10 states and
# horizon 5. No GPU needed. `repbook full 13` records the run in
# `data/full_runs/13_inverse_games.json`; the line below is generated from that record
# (when and how long it ran, and each check's verdict and margin there).

# %%
full_path = repo_root() / "data" / "full_runs" / f"{ledger.chapter}.json"
if full_path.is_file():
    full, prov = read_record(full_path)
    same = [(c.id, c.statement) for c in full.claims] == [
        (c.id, c.statement) for c in ledger.claims
    ]
    print(
        f"Full scale, recorded {prov.get('finished', '?')[:10]} in "
        f"{prov.get('seconds', float('nan')):.0f} s on {prov.get('device', '?')}"
        + ("" if same else " (stale: the checks changed since)")
        + ": "
        + "; ".join(
            f"{c.id} {c.verdict_word()} ({c.margin_text()})" for c in full.claims
        )
        + "."
    )
    quick_by_id = {c.id: c for c in ledger.claims}
    for c in full.claims if same else []:
        q = quick_by_id[c.id]
        if c.verdict != q.verdict:
            print(
                f"  claim {c.id}: {q.verdict_word()} at quick scale, "
                f"{c.verdict_word()} at full scale"
            )
        crit = c.criterion or {}
        if c.verdict != q.verdict and crit.get("kind") == "within":
            for name in crit["reads"]:
                v = np.asarray(c.measured[name], dtype=float)
                off = np.flatnonzero((v < crit["lo"]) | (v > crit["hi"]))
                print(
                    f"    {name} outside [{crit['lo']}, {crit['hi']}] in game(s) "
                    + ", ".join(f"{i + 1} ({v[i]:.3f})" for i in off)
                    + f" of {v.size}"
                )
else:
    print("No full-scale record is committed yet (`repbook full 13` writes one).")
