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
#    number of observed plays. (That the confidence set's diameter does too holds by
#    the construction of its radius: a sanity check, not a claim.)
# 3. **Reliability.** The confidence set contains the true θ with high probability
#    (at least $1-\delta$, up to Monte Carlo error).
# 4. **Dynamic setting.** In a finite-horizon Markov game with estimated transitions,
#    the reward of every step is recovered at rate $N^{-1/2}$. (Whether the error grows
#    as the recursion runs backwards is a check of our own.)
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
    tol,
)
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
# Our solver agrees with pygambit to the printed precision at every temperature, and its
# equilibria approach nashpy's Nash equilibria as η grows. At η = 1 the observed play is
# far from Nash play (first column), and the Nash-based inverse points in an unrelated
# direction: the temperature is what makes θ, not just its direction, recoverable.
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
# estimate that drifts along the null space would each fail it.

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
shift_null, shift_rand, ranks_over = [], [], []
proj_err, full_err = np.zeros((G, len(Ns))), np.zeros((G, len(Ns)))
for g, (phi, th) in enumerate(over):
    eq = IG.qre(phi, th, eta)
    A, _ = IG.inverse_system(phi, eq.mu, eq.nu, eta)
    ranks_over.append(int(np.linalg.matrix_rank(A)))
    basis, rng = IG.null_space(A), run.child_rng(30 + g)
    for t in steps:
        v_null = basis @ rng.normal(size=basis.shape[1])
        v_rand = rng.normal(size=th.size)
        for v, out in ((v_null, shift_null), (v_rand, shift_rand)):
            moved = IG.qre(phi, th + t * v / np.linalg.norm(v), eta)
            out.append(
                max(np.abs(moved.mu - eq.mu).max(), np.abs(moved.nu - eq.nu).max())
            )
    target = np.linalg.pinv(A) @ A @ th  # P θ*: the identified part
    for j, N in enumerate(Ns):
        cm, cn = IG.sample_play_counts(
            eq.mu, eq.nu, int(N), run.child_rng(200 + 10 * g + j), size=run["reps"]
        )
        est = IG.ls_estimate(phi, cm, cn, eta)
        proj_err[g, j] = np.median(np.linalg.norm(est - target, axis=1))
        full_err[g, j] = np.median(np.linalg.norm(est - th, axis=1))
slopes_proj = [IG.loglog_slope(Ns, e) for e in proj_err]
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
    f"median ||theta_hat - theta*|| at N = {Ns[-1]:,}: "
    f"{np.median(full_err[:, -1]):.3f} (does not shrink); ||theta_hat - P theta*||: "
    f"{np.median(proj_err[:, -1]):.4f}"
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
print(
    "rank of A for the toy: "
    + ", ".join(f"N={N}: {cs.rank}" for N, cs in slab_sets.items())
)

# %% tags=["hide-input"]
fig, axes = plt.subplots(1, 2, figsize=(11, 4))
ax = axes[0]
v_row = np.array([1.0, 1.0]) / np.sqrt(2)  # null(A) = (1, −1)/√2: equal columns
along = np.linspace(-6, 6, 3)
shades = [color_for("muted"), color_for("alt"), color_for("ours")]
for (N, cs), col in zip(slab_sets.items(), shades):
    # the set on the line θ* + w·r: a quadratic inequality in w
    ar, e = cs.A @ v_row, cs.A @ theta_slab - cs.c
    disc = (ar @ e) ** 2 - (ar @ ar) * (e @ e - cs.kappa)
    if disc >= 0:
        lo, hi = (-(ar @ e) + np.array([-1, 1]) * np.sqrt(disc)) / (ar @ ar)
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
    evidence="derivation",
    measured={
        "rank A (d = 6)": ranks,
        "max error from exact policies": max(exact_err),
        "max change along null(A)": max(shift_null),
        "min change, random directions": min(shift_rand),
        "slope of projection error": slopes_proj,
    },
    criterion=all_of(
        at_most("max error from exact policies", 1e-8),
        at_most("max change along null(A)", 1e-8),
        at_least("min change, random directions", 1e-3),
        within("slope of projection error", -0.6, -0.4),
    ),
)

# %% [markdown]
# The figure reads as the claim says: the slab on the left narrows across its width but
# runs along the null direction without end, and on the right the error to θ* stalls at
# the size of θ's null-space component while the error to its projection falls along the
# $N^{-1/2}$ line (slopes printed above).
#
# ## Claim 2 · The estimate shrinks like $N^{-1/2}$ (and the confidence set, by construction)
#
# For the five identified games we draw 200 data sets of $N$ plays at each
# $N\in\{10^2,10^3,10^4,10^5\}$ and record the median $\|\hat\theta-\theta^*\|$; on the
# first 20 data sets we also build the confidence set at $\delta=0.1$ and record its
# diameter. $\kappa_N$ is the $(1-\delta)$ quantile of $\|\hat A\theta^*-\hat c\|^2$
# under the delta method: the log-odds of multinomial frequencies are asymptotically
# normal, so the residual at θ* is a weighted sum of $\chi^2_1$ variables, whose
# quantile we compute exactly (Imhof's integral). The paper's own $\kappa_N$ comes from
# its concentration bounds, whose constants we could not read.
#
# **Criterion.** In every game, the least-squares slope of log median error on log $N$
# lies in $[-0.6,-0.4]$. A bias that does not vanish (from smoothing, or a wrong
# linearisation) would flatten it. **Sanity check.** The slope of the log median
# diameter lies in the same window: the radius $\sqrt{\kappa_N}$ is built to scale
# like $N^{-1/2}$, so this shows the construction works, not the paper.

# %%
ls_err, ls_q = np.zeros((G, len(Ns))), np.zeros((G, len(Ns), 2))
diam = np.zeros((G, len(Ns)))
for g, ((phi, th), eq) in enumerate(zip(games, eqs)):
    for j, N in enumerate(Ns):
        cm, cn = IG.sample_play_counts(
            eq.mu, eq.nu, int(N), run.child_rng(100 + 10 * g + j), size=run["reps"]
        )
        err = np.linalg.norm(IG.ls_estimate(phi, cm, cn, eta) - th, axis=1)
        ls_err[g, j], ls_q[g, j] = np.median(err), np.quantile(err, [0.25, 0.75])
        diam[g, j] = np.median(
            [
                IG.confidence_set(phi, cm[i], cn[i], eta, delta).diameter()
                for i in range(run["diam_reps"])
            ]
        )
slopes_err = [IG.loglog_slope(Ns, e) for e in ls_err]
slopes_diam = [IG.loglog_slope(Ns, e) for e in diam]
print("median error by N (rows: games):\n" + np.array2string(ls_err, precision=4))
print("slope of the median error:    " + ", ".join(f"{s:.3f}" for s in slopes_err))
print("slope of the median diameter: " + ", ".join(f"{s:.3f}" for s in slopes_diam))
print(
    "error x sqrt(N), median over games: "
    + ", ".join(f"{v:.1f}" for v in np.median(ls_err * np.sqrt(Ns), 0))
)
print(
    "diameter x sqrt(N) (rows: games):\n"
    + np.array2string(diam * np.sqrt(Ns), precision=1, suppress_small=True)
)

# %% tags=["hide-input"]
fig, axes = plt.subplots(1, 2, figsize=(11, 3.9))
for g in range(G):
    axes[0].fill_between(
        Ns, ls_q[g, :, 0], ls_q[g, :, 1], color=color_for("ours"), alpha=0.08
    )
    axes[0].plot(
        Ns,
        ls_err[g],
        marker="o",
        ms=3,
        color=color_for("ours"),
        label="least squares, one line per game" if g == 0 else None,
    )
    axes[1].plot(
        Ns,
        diam[g],
        marker="o",
        ms=3,
        color=color_for("alt"),
        label="confidence-set diameter" if g == 0 else None,
    )
for ax, y0 in ((axes[0], ls_err[:, 0].max()), (axes[1], diam[:, 0].max())):
    ax.plot(
        Ns,
        y0 * (Ns / Ns[0]) ** -0.5,
        color=color_for("reference"),
        ls="--",
        lw=1.2,
        label=r"$\propto N^{-1/2}$",
    )
    ax.set(xscale="log", yscale="log", xlabel="plays observed N")
    ax.legend(fontsize=8)
axes[0].set(
    ylabel="‖θ̂ − θ*‖ (median, IQR band)", title="Estimation error falls as N^(-1/2)"
)
axes[1].set(
    ylabel="diameter of Θ̂ (median)",
    title="Confidence set (radius ∝ N^(-1/2) by construction)",
)
plt.show()

# %%
late = slice(1, None)  # N ≥ 10³: outside the criterion
out = [
    (name, g, s)
    for name, sl in (("error", slopes_err), ("diameter", slopes_diam))
    for g, s in enumerate(sl)
    if not -0.6 <= s <= -0.4
]
print(
    "slopes outside [-0.6, -0.4]: "
    + (", ".join(f"{name} of game {g + 1}: {s:.3f}" for name, g, s in out) or "none")
)
late_slopes = [IG.loglog_slope(Ns[late], e[late]) for e in (*ls_err, *diam)]
late_inside = sum(-0.6 <= v <= -0.4 for v in late_slopes)
print(
    "for reading only, slopes over N >= 1,000: error "
    + ", ".join(f"{IG.loglog_slope(Ns[late], e[late]):.3f}" for e in ls_err)
    + "; diameter "
    + ", ".join(f"{IG.loglog_slope(Ns[late], e[late]):.3f}" for e in diam)
)

# %%
ledger.check(
    2,
    "LS error shrinks like N^(-1/2)",
    paper="'sample-efficient' (abstract); the N^(-1/2) form is our reading",
    source="abstract",
    measured={"error slope": slopes_err},
    criterion=within("error slope", -0.6, -0.4),
)
ledger.sanity(
    "2s",
    "the confidence set's diameter shrinks like N^(-1/2)",
    why="its radius is the delta-method quantile, built to scale like N^(-1/2) (up to "
    "the plug-in's noise at the smallest N)",
    measured={"diameter slope": slopes_diam},
    criterion=within("diameter slope", -0.6, -0.4),
)

# %% [markdown]
# Where a slope leaves the window, the tables above show where it bends: the products
# error × $\sqrt N$ and diameter × $\sqrt N$ are what an exact $N^{-1/2}$ law keeps
# constant. At $N=100$ the smallest singular value of $\hat A$ and the plug-in radius
# are themselves noisy, so the diameter of a poorly conditioned game is inflated there;
# from $N=10^3$ on the products settle. The slopes over $N\ge10^3$ are printed for
# reading only; the verdict uses the full grid fixed beforehand.
#
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
# error at 500 seeds is 0.013). A delta-method radius that is too small at small $N$,
# where the smoothed frequencies are least normal, would fail it.

# %%
covered = np.zeros((run["cover_seeds"], len(Ns)), dtype=bool)
for i in range(run["cover_seeds"]):
    rng = run.child_rng(10_000 + i)
    phi, th = IG.random_matrix_game(m, n, d, rng)
    eq = IG.qre(phi, th, eta)
    for j, N in enumerate(Ns):
        cm, cn = IG.sample_play_counts(eq.mu, eq.nu, int(N), rng)
        covered[i, j] = IG.coverage_pvalue(phi, cm, cn, eta, th) >= delta
coverage = {f"N={N:,}": float(c) for N, c in zip(Ns, covered.mean(0))}
print(
    "coverage over "
    + f"{run['cover_seeds']} seeds: "
    + ", ".join(f"{k}: {v:.3f}" for k, v in coverage.items())
    + f" (target {1 - delta})"
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
se = np.sqrt(delta * (1 - delta) / run["cover_seeds"])
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
    "the confidence set contains θ* with probability ≥ 1 − δ (δ = 0.1)",
    paper="confidence sets that capture all plausible parameters, with reliability "
    "guarantees",
    source="abstract",
    measured={"coverage": coverage},
    criterion=at_least("coverage", 1 - delta - 0.03),
)

# %% [markdown]
# Magnified by $\sqrt N$, the sets of all sizes have the same scale: the set itself
# shrinks like $N^{-1/2}$ around θ*, and at small $N$ it is larger and more elongated
# than the asymptotic ellipse. The coverage by $N$ is printed above against the nominal
# $1-\delta$: above it, the set is conservative there (at small $N$ the smoothing pulls
# the log-odds towards zero and the plug-in radius is larger); below it, the asymptotic
# radius is too small for that $N$.
#
# ## Claim 4 · Markov games: every step at $N^{-1/2}$, errors accumulate backwards
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
# **Criterion.** Over five random Markov games with 100 data sets per $N$: for every
# game and step, the slope of the log median reward error (root-mean-square over
# $(s,a,b)$) on log $N$ lies in $[-0.6,-0.4]$. An estimate whose transition error
# stalls would fail it. **Our own check (4d).** At the largest $N$ the error at $h=1$ is
# at least the error at $h=H$ (geometric mean over games of their ratio ≥ 1): the paper
# does not say the error accumulates; a recursion that is stable rather than
# accumulating would fail this check, not the claim.

# %%
mk, H = run["markov"], run["markov"]["H"]
mk_err, mk_oracle = np.zeros((G, H, len(Ns))), np.zeros((G, H))
for g in range(G):
    mg = IG.random_markov_game(
        mk["S"], mk["A"], mk["B"], H, mk["d"], eta, run.child_rng(600 + g)
    )
    sol, r_true = IG.solve_markov_qre(mg), mg.rewards()
    for j, N in enumerate(Ns):
        rng, errs, oracle = run.child_rng(700 + 10 * g + j), [], []
        for _ in range(run["markov_reps"]):
            data = IG.sample_markov_data(mg, sol, int(N), rng)
            for out, kw in ((errs, {}), (oracle, dict(P=mg.P, V=sol.V))):
                if out is oracle and j < len(Ns) - 1:
                    continue
                est = IG.markov_inverse(mg.phi, data, eta, **kw)
                out.append(
                    np.sqrt(
                        np.mean((mg.rewards(est.theta) - r_true) ** 2, axis=(1, 2, 3))
                    )
                )
        mk_err[g, :, j] = np.median(errs, axis=0)
    mk_oracle[g] = np.median(oracle, axis=0)
slopes_mk = {
    f"step {h + 1}": [IG.loglog_slope(Ns, mk_err[g, h]) for g in range(G)]
    for h in range(H)
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
    f"reading: carrying the estimated continuation back adds "
    f"{100 * (carried - 1):.1f} % to step 1's error; step 1's error is "
    f"{100 * (ratio_1H - 1):+.1f} % against step {H}'s"
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
    4,
    "Markov game: each step's reward error ∝ N^(-1/2)",
    paper="algorithm works in the dynamic setting, sample-efficient (abstract); the "
    "rate is our reading",
    source="abstract",
    measured={f"slope, {k}": v for k, v in slopes_mk.items()},
    criterion=within([f"slope, {k}" for k in slopes_mk], -0.6, -0.4),
)
ledger.ours(
    "4d",
    "Markov game: the error accumulates backwards (error at h = 1 ≥ error at h = H)",
    why="the paper does not say the error grows as the recursion runs backwards",
    measured={
        "error ratio h=1 / h=H": ratio_1H,
        "step 1, estimated / true continuation": carried,
    },
    criterion=at_least("error ratio h=1 / h=H", 1.0),
)

# %% [markdown]
# Left, thin lines are single games and thick lines their geometric mean. Right, two
# ratios at the largest $N$ per game: our own check 4d's (step 1 against step $H$), and a
# diagnostic beside it, step 1 solved again with the true transitions and
# the true $V_2$. The second ratio is the error the recursion carries back into step 1;
# the first also mixes in how well each step's own equations are conditioned, which
# differs from step to step because the stage games differ. When the carried error is
# small next to those differences, step 1 need not be the worst step, and 4d can fail
# although the mechanism is there.
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
# $[-0.6,-0.4]$. Beside it we show the ratio of the MLE's median error to least squares'
# at the largest $N$ (geometric mean over games), with our own expectation that it is at
# most 1.2 (MLE is efficient, least squares weights the equations equally); that
# expectation is not a claim of the paper and does not enter the verdict.

# %%
mle_err, lsm_err, mle_ok = np.zeros((G, len(Ns))), np.zeros((G, len(Ns))), 0
for g in range(G):
    phi, th = IG.random_matrix_game(m, n, run["d_mle"], run.child_rng(500 + g))
    eq = IG.qre(phi, th, eta)
    for j, N in enumerate(Ns):
        cm, cn = IG.sample_play_counts(
            eq.mu, eq.nu, int(N), run.child_rng(510 + 10 * g + j), size=run["mle_reps"]
        )
        lsm_err[g, j] = np.median(
            np.linalg.norm(IG.ls_estimate(phi, cm, cn, eta) - th, axis=1)
        )
        fits = [IG.mle_estimate(phi, cm[i], cn[i], eta) for i in range(run["mle_reps"])]
        mle_ok += sum(f.converged for f in fits)
        mle_err[g, j] = np.median([np.linalg.norm(f.theta - th) for f in fits])
slopes_mle = [IG.loglog_slope(Ns, e) for e in mle_err]
ratio_mle = float(np.exp(np.mean(np.log(mle_err[:, -1] / lsm_err[:, -1]))))
print("slope of the median MLE error: " + ", ".join(f"{s:.3f}" for s in slopes_mle))
print(
    f"MLE / LS median error at N={Ns[-1]:,}: "
    + ", ".join(f"{v:.3f}" for v in mle_err[:, -1] / lsm_err[:, -1])
    + f" (geometric mean {ratio_mle:.3f}); "
    f"MLE fits converged: {mle_ok}/{G * len(Ns) * run['mle_reps']}"
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
    measured={"MLE error slope": slopes_mle, "MLE / LS error at largest N": ratio_mle},
    criterion=within("MLE error slope", -0.6, -0.4),
    note=f"MLE/LS error ratio {ratio_mle:.2f} at N = {Ns[-1]:,}; our expectation ≤ 1.2 "
    f"({'met' if ratio_mle <= 1.2 else 'not met'}), not a claim of the paper",
    tolerance={
        "MLE error slope": tol(abs=1e-06),
        "MLE / LS error at largest N": tol(abs=1e-06),
    },
)

# %% [markdown]
# The two estimators' error lines fall together at the $N^{-1/2}$ rate; the ratio at the
# largest $N$ is printed above and in the verdict table's note.
#
# ## Verdicts

# %% tags=["nbval-check-output"]
ledger.show()

# %% tags=["nbval-ignore-output"]
print(f"chapter run time: {run.elapsed():.1f} s at scale={run.scale!r} on {run.device}")

# %% [markdown]
# **Stability over seeds.** The seeds column comes from the committed record of the quick
# scale on seeds 0–4 (`data/stability/13_inverse_games.json`), printed below claim by
# claim for the claims it still describes (a claim changed since reads "stale record"),
# with the unstable ones named under the table. A rate claim that flips does so
# because one of its slopes leaves the window, bent by the smallest $N$ in a poorly
# conditioned game (an error shrunk there by the smoothing, or a diameter inflated by
# the noisy plug-in at $N=100$); over $N\ge10^3$ the slopes printed above are the test
# of that reading. Our own check 4d compares two errors whose ratio stays close to 1, so
# it can fall on either side of 1 with the games drawn.

# %%
record = ledger.stability()
now = {claim.id: claim for claim in ledger.claims}
for old in record.claims if record is not None else []:
    c = record.current(now[old.id]) if old.id in now else None
    if c is None:
        print(f"claim {old.id}: stale record (the claim changed since it was made)")
        continue
    print(
        f"claim {c.id}: "
        + ", ".join(
            f"seed {k}: {v} ({c.margins[k]:+.3f})" for k, v in c.verdicts.items()
        )
    )

# %% [markdown]
# ## Deviations from the paper
#
# - **Criteria and code changed after a first run** (listed so that no change is
#   silent):
#   - *Claims 2 and 4, split* (the book-wide rule that a check true by construction is a
#     sanity check and that a part the paper does not state is our own). Claim 2 was
#     "error slope and diameter slope in [−0.6, −0.4]", sourced to us; the error slope
#     is now the paper's claim 2 (its "sample-efficient", in our $N^{-1/2}$ reading, as
#     for claims 4 and 5), and the diameter, whose radius scales like $N^{-1/2}$ by
#     construction, the sanity check 2s. Claim 4 was "every slope in the window, and
#     error at $h=1$ ≥ error at $h=H$"; the accumulation part, which the paper does not
#     state and which alone failed, is now our own check 4d.
#   - *Claim 1.* Before: the criterion also required rank $A=6$ in every $d=6$ game.
#     That part sits at margin 0 by construction (the rank cannot exceed $d$), so it set
#     the margin shown and hid the informative ones, and it could only fail together
#     with exact recovery. Now the rank is shown beside the criterion, not in it. The
#     verdict was and is `reproduced`.
#   - *Claim 5.* The first run's MLE reported about a third of its fits as not
#     converged: BFGS on the summed log-likelihood stopped with "precision loss" at the
#     optimum (the objective's rounding is set by the inner equilibrium solve). It now
#     minimises the mean log-likelihood per play and also accepts a final gradient below
#     $10^{-8}$. The criterion is unchanged.
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
# - **Rates are slopes, not bounds.** Claims 2, 4 and 5 test the empirical order
#   $N^{-1/2}$ with the window $[-0.6,-0.4]$ (the research brief's window, not a number of
#   the paper); they do not test the paper's constants or logarithmic factors. The 0.03
#   Monte Carlo slack of claim 3's coverage bound is ours too.
# - **What a verdict audit noted in the split of claims 2 and 4.** The parts that moved out
#   are the parts that failed at seed 0 (the diameter slope, −0.63; the accumulation); they
#   moved because the paper does not state them (4d) or because they hold by construction
#   (2s), and the sanity check's own failure at seed 0 is shown as such, not hidden. The
#   stability record predates the split, so claims 2, 2s, 4 and 4d read "stale record" until
#   it is made again.
# - **Source of the claim forms.** The rank condition comes from a secondary summary of
#   the paper; the $N^{-1/2}$ rate and the backward accumulation of errors (claim 4) are
#   our derivations of what "sample-efficient" and "dynamic setting" imply.
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
# MLE), $N$ up to $10^6$ with 1,000 data sets per size, 1,000 coverage seeds, and a
# Markov game with 10 states and horizon 5 (CPU minutes; no GPU needed).
