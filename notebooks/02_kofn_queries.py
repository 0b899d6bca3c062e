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
# # 02 · Selecting k out of n with sublinear query complexity
#
# Title, authors and arXiv id: **not identified** · ICML 2025 · official code: none
# known (a theory paper, by its abstract).
#
# ```{warning}
# We could not identify this paper. Searches of public web pages, documentation, code
# and issue threads for the abstract's phrases ("selecting k-out-of-n", "nearly tight
# Ω̃(n)", "estimate the value of the optimal subset in Õ(n/k) queries", the cited Ω(n/k)
# bounds of Li, Feldman, Kazemi, Karbasi and of Kuhnle, ICML 2025 paper lists) found
# neither its text nor its title. This chapter is therefore built from the **abstract's
# claims alone**. Every construction below — the hard families, the OPT-value estimator,
# the query model — is **ours**, and says so. Without the paper's hard instances no
# simulation of ours can test its lower bounds, at any scale; claims 1–3 are recorded
# as *blocked*, with what our constructions show printed beside them.
# ```
#
# The problem: a set function $f$ on $n$ elements is known only through a value oracle;
# choose $S$ with $|S|\le k$ maximising $f(S)$, or just estimate
# $\mathrm{OPT}=\max_{|S|\le k}f(S)$, with as few oracle calls (*queries*) as possible.
# Greedy needs about $nk$ queries, stochastic greedy about $n\ln(1/\varepsilon)$. Can a
# constant-factor answer cost $o(n)$ queries?
#
# ```{admonition} Claims we test: the paper's, from its abstract (none testable here)
# 1. For monotone submodular $f$, any constant-factor approximation needs
#    $\tilde\Omega(n)$ queries, up from the $\Omega(n/k)$ of Li–Feldman–Kazemi–Karbasi
#    (NeurIPS'22) and Kuhnle (AISTATS'21); this holds even for estimating OPT's value.
# 2. For additive $f$, finding an approximately optimal set still needs near-linear
#    queries.
# 3. For additive $f$, OPT's value can be estimated with $\tilde O(n/k)$ queries.
# 4. Both bounds are nearly tight (the $\tilde\Omega(n)$, and the $\tilde O(n/k)$ up to
#    polylog factors).
# ```
#
# Checks of our own tools, shown apart and not counted in the paper's tally: **S1** (a
# sanity check) greedy reaches $(1-1/e)\,\mathrm{OPT}$ against brute force (Nemhauser,
# Wolsey, Fisher 1978); **S2** our greedy agrees with two peer packages.
#
# A simulation proves no lower bound: where claims 1–2 are concerned, everything we
# measure speaks of *the algorithms we run*, on *our* instances.

# %% tags=["parameters"]
scale = "quick"  # "quick" (≤ 90 s on 2 CPU cores) or "full" (n up to 10⁵, more seeds)
seed = 0

# %%
import math

import matplotlib.pyplot as plt
import numpy as np
from matplotlib import ticker

from repbook.core import all_of, at_least, at_most, color_for, full_run_lines
from repbook.core import load_sklearn, log_ticks, reading_lines, setup
from repbook.core.ledger import load_full_run
from repbook.papers import kofn_queries

# %%
FAMILIES = dict(fam_n=[500, 1000, 2000, 4000], fam_k=[5, 10, 20], seeds=100)
QUICK = FAMILIES | dict(grid_seeds=12, curve=(2000, 10), curve_seeds=20, natural_k=10)
QUICK |= dict(natural_seeds=3, coverage_n=5000, est_n=[1000, 2000, 4000, 8000])
QUICK |= dict(est_k=[5, 10, 20, 40], est_seeds=100, est_curve=(4000, 20))
FULL = dict(fam_n=[1000, 4000, 16000, 64000], fam_k=[5, 10, 20, 40], seeds=300)
FULL |= dict(grid_seeds=30, curve=(16000, 20), curve_seeds=50, natural_k=10)
FULL |= dict(natural_seeds=20, coverage_n=100_000, est_n=[2000, 8000, 32000, 100_000])
FULL |= dict(est_k=[5, 10, 20, 40, 80], est_seeds=300, est_curve=(32000, 40))
QUICK |= dict(tool_instances=40)
SIZES = {"quick": QUICK, "full": FULL | dict(tool_instances=200)}
REGIME = "synthetic instances of our own (n up to a few thousand) and scikit-learn "
REGIME += "digits; CPU"
COLORS = {"best of blocks": "ours", "top singletons": "alt"}
COLORS |= {"stochastic greedy": "peer", "subsample greedy": "alt2", "random k": "muted"}
COLORS |= {"greedy": "baseline", "lazy greedy": "alt3", "k = 5": "ours"}
COLORS |= {"k = 10": "baseline", "k = 20": "peer", "k = 40": "alt2", "k = 80": "alt"}
COLORS |= {"uniform": "ours", "pareto": "alt", "planted": "peer"}
COLORS |= {"rare heavy": "baseline"}

# %%
run = setup(scale=scale, seed=seed, sizes=SIZES, regime=REGIME, colors=COLORS)
ledger = run.ledger

# %% [markdown]
# ## The method: counting queries
#
# **Query model (ours, fixed once).** One query is one evaluation of $f$ on one set;
# $f(\emptyset)=0$ is free. An algorithm keeps $f(S)$ of its current set, so a marginal
# gain $f(S\cup\{e\})-f(S)$ costs **one** query. Nothing is cached: asking a set twice
# costs twice. The value of an algorithm's output is measured by a referee outside the
# budget, so $k$ random elements cost 0 queries. Under this model greedy costs exactly
#
# $$Q_\text{greedy}=\sum_{i=0}^{k-1}(n-i)=nk-\tfrac{k(k-1)}{2},$$
#
# stochastic greedy (Mirzasoleiman et al. 2015) $\sum_{i<k}\min(s,n-i)$ with
# $s=\lceil (n/k)\ln(1/\varepsilon)\rceil$, and greedy on a random subsample of $m$
# elements $mk-k(k-1)/2$. Two more algorithms of ours fit any budget $q$: *top
# singletons* queries $f(\{e\})$ for $q$ random elements and keeps the $k$ best; *best
# of blocks* cuts a random order into disjoint $k$-sets, queries the first $q$ and keeps
# the best (random search over feasible sets — it uses set queries, which the others do
# not exploit).
#
# By hand, on a small coverage function: greedy with an explicit query counter, then the
# library.

# %%
tiny = kofn_queries.coverage_instance(12, 30, run.child_rng(0), mean_size=4.0)
chosen, queries, value = [], 0, 0.0
for step in range(3):
    left = [e for e in range(tiny.n) if e not in chosen]
    gains = {e: tiny.value(chosen + [e]) - value for e in left}
    queries += len(gains)  # one query per f(S + e); f(S) is known
    best = max(gains, key=gains.get)  # ties: the lowest index
    chosen.append(best)
    value += gains[best]
print(f"by hand: S = {chosen}, f(S) = {value:g}, {queries} queries")

# %%
lib = kofn_queries.greedy(tiny, 3)
formula = f"formula nk − k(k−1)/2 = {kofn_queries.greedy_queries(12, 3)}"
print(f"lib:     S = {lib.indices.tolist()}, f(S) = {lib.value:g}, ", end="")
print(f"{lib.queries} queries; {formula}")

# %% [markdown]
# **The OPT-value estimator for additive $f$ (ours, illustrative).** The paper's
# estimator is unknown to us. Ours reads $q$ random singletons $w_e=f(\{e\})$ (one query
# each), estimates the level counts $c_\ell=\#\{e: w_e\ge 2^\ell\}$ by
# $\hat c_\ell=(n/q)\,\#\{\text{sampled } w_e\ge 2^\ell\}$ and returns
#
# $$\widehat{\mathrm{OPT}}=\sum_\ell 2^\ell\min(k,\hat c_\ell).$$
#
# With exact counts, $\min(k,c_\ell)$ counts the top-$k$ elements above $2^\ell$, so
# each of them contributes $2^{j+1}-2^{\ell_\min}\in[2^j,2^{j+1})$ for its level
# $j=\lfloor\log_2 w_e\rfloor$: the estimate lies strictly between $\mathrm{OPT}/2$ and
# $2\,\mathrm{OPT}$. Sampling only $\tilde O(n/k)$ elements can work when the top levels
# hold about $k$ elements each; it must fail when a few rare elements carry OPT.

# %%
w_tiny = run.child_rng(1).pareto(1.5, 12) + 1.0
k_tiny = 3
levels = np.floor(np.log2(w_tiny)).astype(int)
by_hand = sum(
    2.0**lev * min(k_tiny, int(np.sum(w_tiny >= 2.0**lev)))
    for lev in range(levels.min(), levels.max() + 1)
)
lib_estimate = kofn_queries.level_estimate(w_tiny, 12, k_tiny)
opt = kofn_queries.additive_opt(w_tiny, k_tiny)
print(f"by hand {by_hand:.6f}, lib {lib_estimate:.6f}, OPT {opt:.6f}")

# %% [markdown]
# ## Claim 1 · Monotone submodular: a constant factor needs Ω̃(n) queries
#
# **Our family (not the paper's).**
# $f(S)=\min\bigl(1,\ |S\setminus\{x^*\}|/m+[x^*\in S]\bigr)$ with $m=4k$ and a hidden
# element $x^*$: every element is worth $1/m$, except $x^*$, worth 1; any set of $m$ or
# more elements saturates at 1 and reveals nothing. A $k$-set without $x^*$ has ratio
# $k/m=1/4$, so ratio $\ge 1/2$ means $x^*$ was found. The *null* instance without $x^*$
# has $\mathrm{OPT}=1/4$ and answers every query without $x^*$ in it exactly like the
# planted one, so estimating OPT within a factor 2 also means finding $x^*$. Since a set
# query with fewer than $m$ elements tests them all at once, this family should need
# only about $n/m\propto n/k$ queries — the order of the *earlier* $\Omega(n/k)$ bound.
# We use it to show what the paper's construction must avoid.
#
# For each $(n,k)$ and each algorithm, $q^*$ is the least budget at which the
# algorithm's output has ratio $f(S)/\mathrm{OPT}\ge 1/2$ in at least half of the seeds
# (a fresh instance and fresh algorithm randomness per seed). For the nested algorithms
# (top singletons, best of blocks: a larger budget sees a superset) we find each seed's
# least budget by bisection; the others are scanned on a grid of budgets spaced by
# $2^{1/4}$ (on the first `grid_seeds` seeds of the size table). Greedy has a fixed
# cost ($nk-k(k-1)/2$); lazy greedy spends $n$ queries on its first step alone, so it
# enters the figure but not the search for the best. The *best* algorithm's $q^*$ is the
# smallest over the suite. That minimum mixes seed counts: the nested algorithms are
# judged on all `seeds` seeds, the gridded ones and greedy on the first `grid_seeds`
# only, and the median of fewer seeds is noisier, so a minimum over the suite favours
# them (it is biased downward). Judging all on `seeds` seeds would cost about 50 s more
# at quick scale (timed once on this book's CPU); the nested algorithms' per-seed
# budgets give their $q^*$ on the first `grid_seeds` seeds for free, and the best over
# the suite on *equal* seeds is printed beside the judged one.
#
# **Criterion (ours, derived from the abstract's $\tilde\Omega(n)$; revised after the
# audit, the old result known: see Deviations).** $\tilde\Omega(n)$ hides
# polylogarithmic factors, $\Omega(n/\mathrm{polylog}\,n)$; **our allowance is a factor
# $\ln^2 n$** ($p=2$). Over the $(n,k)$ grid, the least-squares fit
# $\log q^* = a + b\log(n/\ln^2 n) + c\log k$ for the best algorithm has $b\ge 0.9$
# (0.1 is the noise allowance, the old band's lower edge) and $c\ge -0.2$ ($q^*$ does
# not fall with $k$). A $q^*\propto n/\ln^2 n$ gives $b=1$, $c=0$; $n/\ln n$ and $n$
# give more. A cliff at $n/k$ (as the earlier bound allows) gives $c\approx-1$ and
# fails it, as does a $q^*$ that grows more slowly than $n/\ln^2 n$ by more than the
# noise allowance. The criterion is one-sided: that $q^*$ is not *above* linear (tightness) is
# claim 4, quoted. On a family of our own the claim is **blocked** (it needs the
# paper's construction): the outcome is recorded beside the verdict. The cell below
# prints what the criterion gives for a few shapes of $q^*$ on this grid.

# %%
# The protocols live in the tested module: `kofn_queries.q_star_suite` (one cell),
# `q_star_table` (the grid), `equal_seed_best`, `ratio_curves` (mean ratio against the
# budget), `fit_slopes` and `fit_family` (the best of the suite and its fits).
TARGET = kofn_queries.TARGET
P_LOG = 2  # our polylog allowance: Ω̃(n) read as Ω(n / ln^P_LOG n)
B_NAME = "slope on log(n/ln²n)"
SUITE = dict(child_rng=run.child_rng, seeds=run["seeds"], grid_seeds=run["grid_seeds"])
crit_1 = all_of(at_least(B_NAME, 0.9), at_least("slope on log k", -0.2))
grid_A = [(n, k) for n in run["fam_n"] for k in run["fam_k"]]
shapes = {"n": lambda n, k: n, "n/ln n": lambda n, k: n / math.log(n)}
shapes["n/ln²n"] = lambda n, k: n / math.log(n) ** 2
shapes["n/ln³n"] = lambda n, k: n / math.log(n) ** 3
shapes |= {"√n": lambda n, k: math.sqrt(n), "n/k": lambda n, k: n / k}
for name, shape in shapes.items():
    b, c = kofn_queries.fit_slopes({nk: shape(*nk) for nk in grid_A}, polylog=P_LOG)
    ok = crit_1.evaluate({B_NAME: b, "slope on log k": c}).passed
    print(f"q* ∝ {name:7}: b = {b:5.2f}, c = {c:5.2f} → {'meets' if ok else 'fails'}")

# %%
FAMILY_A = dict(stream=1_000_000, return_hits=True, **SUITE)
fam_n, fam_k, grid_seeds = run["fam_n"], run["fam_k"], run["grid_seeds"]
suite_A, hits_A = kofn_queries.q_star_table(
    kofn_queries.hidden_family, fam_n, fam_k, **FAMILY_A
)
fit_A = kofn_queries.fit_family(suite_A, hits_A, grid_seeds, polylog=P_LOG)


def print_equal(fit, name, crit):
    """The best q* with every algorithm on the first `grid_seeds` seeds, and whether the
    criterion's outcome on our family stays the same."""
    fits = ((fit.b_equal, fit.c_equal), (fit.b_polylog, fit.c_polylog))
    meets = [crit.evaluate({B_NAME: b, "slope on log k": c}).passed for b, c in fits]
    print(
        f"{name}, every algorithm on the first {grid_seeds} seeds: the best q* differs "
        f"on {fit.differ} of {len(fit.best)} cells; {B_NAME} {fit.b_equal:.3f}, "
        f"slope on log k {fit.c_equal:.3f}; the criterion's outcome on our family is "
        + ("the same" if meets[0] == meets[1] else "the opposite")
    )


# %%
HEAD = "q* of each algorithm on our {} (inf: never reached ratio 1/2):"
print(HEAD.format("hidden-element family"))
print(kofn_queries.suite_table(suite_A))
print(
    f"best algorithm: {sorted(set(fit_A.winner.values()))}; fit log q* = a + b log n + "
    f"c log k: b = {fit_A.b:.3f}, c = {fit_A.c:.3f}; {B_NAME} = {fit_A.b_polylog:.3f}"
)
print_equal(fit_A, "hidden element", crit_1)

# %%
n_c, k_c = run["curve"]
CURVE = dict(child_rng=run.child_rng, seeds=run["curve_seeds"])
curves_A, points_A = kofn_queries.ratio_curves(
    kofn_queries.hidden_family(n_c, k_c),
    lambda fn: kofn_queries.family_opt(fn, k_c),
    n_c,
    k_c,
    stream=9_000_000,
    **CURVE,
)
null_rng, rng_one = run.child_rng(9_500_000), run.child_rng(9_500_001)
null = kofn_queries.hidden_element_instance(n_c, k_c, null_rng, planted=False)
null_est = kofn_queries.best_of_blocks(null, k_c, rng_one, budget=1).value
null_opt = k_c / null.m
print(
    f"null instance (no x*): OPT = {null_opt:.3f}, best-of-blocks estimate after one "
    f"query = {null_est:.3f}; planted instances: OPT = 1"
)


# %% tags=["hide-input"]
def plot_suite(ax_curve, ax_q, curves, points, table, n, k, title_curve, title_q):
    for name, (qs, r) in curves.items():
        if name == "random k":
            ax_curve.axhline(r[0], color=color_for(name), lw=1.2, ls=":", label=name)
        else:
            ax_curve.plot(qs, r, color=color_for(name), label=name)
    for name, (q, r) in points.items():
        ax_curve.plot(q, r, marker="D", ls="none", color=color_for(name), label=name)
    target = dict(color=color_for("reference"), ls="--", lw=1, label="target ratio 1/2")
    ax_curve.axhline(TARGET, **target)
    for x, lab in [(n / k, "n/k"), (n, "n")]:
        ax_curve.axvline(x, color=color_for("muted"), lw=0.8)
        ax_curve.text(x, 0.02, f" {lab}", color=color_for("muted"), fontsize=8)
    ax_curve.set(xscale="log", ylim=(0, 1.05), xlabel="query budget q")
    ax_curve.set(ylabel="mean f(S)/OPT", title=title_curve)
    ax_curve.xaxis.set_major_formatter(ticker.FuncFormatter(lambda v, _: f"{v:,.0f}"))
    ax_curve.legend(fontsize=7, ncols=2, loc="upper left")
    ns = np.array(sorted({n for n, _ in table}))
    for kk in sorted({k for _, k in table}):
        qs = [table[nn, kk] for nn in ns]
        ax_q.plot(ns, qs, marker="o", label=f"k = {kk}", color=color_for(f"k = {kk}"))
    ref = table[ns[0], min(k for _, k in table)]
    slope_1 = dict(color=color_for("reference"), ls="--", lw=1, label="∝ n (slope 1)")
    ax_q.plot(ns, ref * ns / ns[0], **slope_1)
    ax_q.set(xscale="log", yscale="log", xlabel="n", ylabel="q* of the best algorithm")
    ax_q.set(title=title_q)
    log_ticks(ax_q)
    ax_q.legend(fontsize=8)


fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
TITLE_Q = "Best algorithm (our suite, our family):\nq* ∝ n^{:.2f} k^{:.2f}"
hidden = f"Hidden element (ours), n = {n_c}, k = {k_c}"
title_A = TITLE_Q.format(fit_A.b, fit_A.c)
plot_suite(*axes, curves_A, points_A, fit_A.best, n_c, k_c, hidden, title_A)
plt.show()

# %%
print(kofn_queries.hidden_cell_reading(suite_A, fit_A, n_c, k_c))
met_1 = crit_1.evaluate({B_NAME: fit_A.b_polylog, "slope on log k": fit_A.c}).passed

# %%
print(kofn_queries.hidden_family_reading(suite_A, fit_A, null_est, null_opt))

# %% [markdown]
# A planted instance is estimated within a factor 2 only once $x^*$ is found, so the
# estimation cliff is the selection cliff. A family that forces $\tilde\Omega(n)$ must
# defeat queries of arbitrary sets too; that is the paper's construction, which we do
# not have.

# %%
ledger.not_checked(
    "1",
    "constant-factor k-selection (and OPT estimation) needs Ω̃(n) queries",
    paper="Ω̃(n), up from Ω(n/k)",
    source="abstract",
    criterion=crit_1,
    measured={B_NAME: fit_A.b_polylog, "slope on log k": fit_A.c},
    note=(
        f"needs the paper's construction; ours is the best of our algorithms on our "
        f"hidden-element family, which by design has the earlier n/k order (criterion "
        f"{'met' if met_1 else 'not met'} there, as our construction implies; this "
        f"says nothing about the paper's bound)"
    ),
    blocked=True,
)

# %% [markdown]
# ## Claim 2 · Additive: finding a near-optimal set needs near-linear queries
#
# **Our family (not the paper's).** $k$ planted elements of weight 3 among $n-k$
# background elements of weight drawn from $U(0,1)$, at random places;
# $\mathrm{OPT}\approx 3k$. A set query returns a sum in which the planted weights hide
# in the unknown background, so set queries help little; a set reaches ratio $1/2$ only
# with about a quarter of the planted elements in it. $q^*$, the suite (with its mixed
# seed counts), the fit and the equal-seed comparison are as for claim 1.
#
# **Criterion (ours, derived from the abstract's "near-linear"; revised after the
# audit, the old result known: see Deviations).** Near-linear read as
# $n/\mathrm{polylog}\,n$ with our allowance $\ln^2 n$, as in claim 1: for the best
# algorithm, slope $b\ge 0.9$ on $\log(n/\ln^2 n)$ and $c\ge-0.2$ on $\log k$; a cliff
# at $n/k$ fails it, and so does a growth below $n/\ln^2 n$. One-sided, as for claim 1.
# Blocked: the family is ours.


# %%
crit_2 = all_of(at_least(B_NAME, 0.9), at_least("slope on log k", -0.2))
FAMILY_B = dict(stream=20_000_000, return_hits=True, **SUITE)
suite_B, hits_B = kofn_queries.q_star_table(
    kofn_queries.planted_family, fam_n, fam_k, **FAMILY_B
)
fit_B = kofn_queries.fit_family(suite_B, hits_B, grid_seeds, polylog=P_LOG)
print(HEAD.format("planted additive family"))
print(kofn_queries.suite_table(suite_B))
print(
    f"best algorithm: {sorted(set(fit_B.winner.values()))}; b = {fit_B.b:.3f}, "
    f"c = {fit_B.c:.3f}; {B_NAME} = {fit_B.b_polylog:.3f}"
)
print_equal(fit_B, "planted additive", crit_2)

# %%
curves_B, points_B = kofn_queries.ratio_curves(
    kofn_queries.planted_family(n_c, k_c),
    lambda fn: kofn_queries.family_opt(fn, k_c),
    n_c,
    k_c,
    stream=29_000_000,
    **CURVE,
)

# %% tags=["hide-input"]
fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
planted = f"Planted additive (ours), n = {n_c}, k = {k_c}"
title_B = TITLE_Q.format(fit_B.b, fit_B.c)
plot_suite(*axes, curves_B, points_B, fit_B.best, n_c, k_c, planted, title_B)
plt.show()

# %%
print(kofn_queries.planted_cell_reading(suite_B, fit_B, curves_B, n_c, k_c))
met_2 = crit_2.evaluate({B_NAME: fit_B.b_polylog, "slope on log k": fit_B.c}).passed

# %%
print(kofn_queries.planted_family_reading(suite_B, fit_B, met_2))

# %%
ledger.not_checked(
    "2",
    "additive: an approximately optimal set needs near-linear queries",
    paper="near-linear lower bound",
    source="abstract",
    criterion=crit_2,
    measured={B_NAME: fit_B.b_polylog, "slope on log k": fit_B.c},
    note=(
        f"needs the paper's construction; ours is the best of our algorithms on our "
        f"planted family (criterion {'met' if met_2 else 'not met'} there, as our "
        f"construction implies; this says nothing about the paper's bound)"
    ),
    blocked=True,
)

# %% [markdown]
# ## Claim 3 · Additive: OPT's value from Õ(n/k) queries
#
# We run our illustrative estimator on the planted family for every $(n,k)$ of a grid
# and find $q^*$, the least budget (grid spaced by $2^{1/8}$) at which the estimate lies
# within its factor, $\widehat{\mathrm{OPT}}/\mathrm{OPT}\in[1/2,2]$, in at least 90 %
# of the seeds. We also run it on uniform, Pareto and *rare heavy* weights (two elements
# of weight $5k$ in a $U(0,1)$ background, carrying most of OPT): a singleton sample of
# size $\tilde O(n/k)$ misses them.
#
# **Criterion (ours, derived from the abstract's upper bound $\tilde O(n/k)$; revised
# after the audit, the old result known: see Deviations).** $\tilde O(n/k)$ allows a
# polylog factor above $n/k$; our allowance is $\ln^2 n$, as in claims 1–2. On the
# planted family, the slope of $\log q^*$ on $\log(n/k)$ is at most $1.2+\Delta$: 0.2 is
# the noise allowance (the old band's upper edge), $\Delta$ what a factor $\ln^2 n$
# adds to that slope on this grid, computed below from the grid alone. A $q^*$ growing
# like $(n/k)^{1.5}$ would fail it on this grid.
# It is one-sided: that $q^*$ is not *below* $n/k$ (tightness) is claim 4, quoted. It
# judges the growth along $n/k$ only: a $q^*$ that grows like $n$ whatever $k$ gives a
# slope under 1 on this grid (printed below) and passes it; the joint fit
# $\log q^*=a+b\log n+c\log k$, printed and not judged, would show it as $c$ near 0
# rather than near $-1$. The estimator and the family are ours, so the claim is
# blocked; the outcome is printed.

# %%
grid_3 = [(n, k) for n in run["est_n"] for k in run["est_k"]]
polylog_3 = {(n, k): n / k * math.log(n) ** P_LOG for n, k in grid_3}
delta_3 = kofn_queries.ratio_slope(polylog_3) - 1.0
bar_3 = 1.2 + delta_3
crit_3 = at_most("slope on log(n/k)", bar_3)
linear_3 = kofn_queries.ratio_slope({(n, k): float(n) for n, k in grid_3})
print(
    f"Δ (a factor ln²n on this grid) = {delta_3:.3f}: bar {bar_3:.3f}; a q* ∝ n "
    f"whatever k would give slope {linear_3:.3f} on log(n/k)"
)

# %%
ESTIMATOR = dict(seeds=run["est_seeds"], child_rng=run.child_rng)
est_n, est_k = run["est_n"], run["est_k"]
est_q = kofn_queries.estimator_q_table(est_n, est_k, stream=40_000_000, **ESTIMATOR)
ratio_nk = np.array([n / k for n, k in est_q])
slope_3 = kofn_queries.ratio_slope(est_q)
b_3, c_3 = kofn_queries.fit_slopes(est_q)
print(kofn_queries.estimator_table(est_q))
print(
    f"slope of log q* on log(n/k): {slope_3:.3f}; joint fit (printed, not judged): "
    f"b = {b_3:.3f} on log n, c = {c_3:.3f} on log k"
)

# %%
n_e, k_e = run["est_curve"]
budgets_e = kofn_queries.budget_grid(1, n_e, per_octave=4)
succ = kofn_queries.estimator_success_by_kind(
    n_e, k_e, budgets_e, stream=48_000_000, **ESTIMATOR
)
q90 = {kind: budgets_e[np.argmax(s[0] >= 0.9)] for kind, s in succ.items()}
at = min(int(np.searchsorted(budgets_e, est_q[n_e, k_e])), len(budgets_e) - 1)
least = [
    f"{kind} {q / (n_e / k_e):.2g} n/k = {q / n_e:.2g} n" for kind, q in q90.items()
]
print(
    f"n = {n_e}, k = {k_e} (n/k = {n_e // k_e}); least budget with 90 % of seeds "
    f"within [OPT/2, 2 OPT]:\n  " + ", ".join(least)
)
print(
    f"at q = {budgets_e[at]:,}: planted {succ['planted'][0][at]:.0%} of seeds "
    f"within, rare heavy {succ['rare heavy'][0][at]:.0%}"
)

# %% tags=["hide-input"]
fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
ax = axes[0]
for kind, (share, _) in succ.items():
    ax.plot(budgets_e / (n_e / k_e), share, color=color_for(kind), label=kind)
ax.axhline(0.9, color=color_for("reference"), ls="--", lw=1, label="90 % of seeds")
ax.axvline(1, color=color_for("muted"), lw=0.8)
ax.set(xscale="log", xlabel="budget q / (n/k)")
ax.set(ylabel="share of seeds within [OPT/2, 2 OPT]")
ax.set(title=f"Our estimator, n = {n_e}, k = {k_e}")
ax.xaxis.set_major_formatter(ticker.FuncFormatter(lambda v, _: f"{v:g}"))
ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.2), ncols=5)
ax = axes[1]
for k in est_k:
    pts = [(n / k, est_q[n, k]) for n in est_n]
    ax.plot(*zip(*pts), marker="o", label=f"k = {k}", color=color_for(f"k = {k}"))
xs = np.geomspace(ratio_nk.min(), ratio_nk.max(), 20)
fit = np.polyfit(np.log(ratio_nk), np.log(list(est_q.values())), 1)
fitted = dict(color=color_for("reference"), ls="--", lw=1)
fitted["label"] = f"fit: slope {slope_3:.2f}"
ax.plot(xs, np.exp(np.polyval(fit, np.log(xs))), **fitted)
title = f"Planted additive (our estimator, our family):\nq* ∝ (n/k)^{slope_3:.2f}"
ax.set(xscale="log", yscale="log", xlabel="n/k", ylabel="q* (90 % within factor 2)")
ax.set(title=title)
log_ticks(ax)
ax.legend(fontsize=8)
plt.show()

# %%
met_3 = crit_3.evaluate({"slope on log(n/k)": slope_3}).passed
print(
    f"criterion on our estimator and family: {'met' if met_3 else 'not met'}, as our "
    "construction implies; this says nothing about the paper's estimator"
)

# %%
print(kofn_queries.estimator_reading(est_q, q90, n_e, k_e, slope_3))

# %% [markdown]
# Pareto weights (a heavy tail: the top $k$ are a few outliers) and the two rare heavy
# elements are seen only by a sample that holds them, and a singleton sample of size
# $o(n)$ misses them with high probability. An $\tilde O(n/k)$ estimator for *every*
# additive function, as the paper claims, must use set queries in a way ours does not.

# %%
ledger.not_checked(
    "3",
    "additive: OPT's value is estimated with Õ(n/k) queries",
    paper="Õ(n/k) (upper bound)",
    source="abstract",
    criterion=crit_3,
    measured={"slope on log(n/k)": slope_3},
    note=(
        f"needs the paper's estimator; ours is our singleton estimator on our planted "
        f"family (criterion {'met' if met_3 else 'not met'} there, as our construction "
        f"implies; this says nothing about the paper's bound); at q = "
        f"{budgets_e[at]:,} (n = {n_e}, k = {k_e}) it is within a factor 2 on "
        f"{succ['rare heavy'][0][at]:.0%} of rare-heavy instances"
    ),
    blocked=True,
)

# %% [markdown]
# ## Claim 4 · Tightness
#
# The abstract calls the $\tilde\Omega(n)$ bound nearly tight and the $\tilde O(n/k)$
# estimation bound tight up to polylog factors. We assert no tightness of our own:
# greedy-type algorithms use $O(n)$ to $O(nk)$ queries, which shows only that linear
# budgets suffice for a constant factor, a classical fact.

# %%
ledger.quote(
    "4",
    "both bounds are tight up to polylog factors",
    paper="nearly tight Ω̃(n); Õ(n/k) tight up to polylogs",
    source="abstract",
    note="not re-derived",
)

# %% [markdown]
# ## Two natural instances
#
# The lower bounds are worst-case. On a facility-location function over scikit-learn's
# 8×8 digits ($n=1797$, RBF similarity with the median heuristic) and a random sparse
# coverage function, we measure each budgeted algorithm, with budgets up to $2n$,
# against greedy's value (OPT is unknown here; it lies between greedy's value and
# $1/(1-1/e)$ times it).

# %%
X_digits, _ = load_sklearn("digits")
sim = kofn_queries.rbf_similarity(X_digits)
digits = kofn_queries.FacilityLocation(sim)
cover_n, k_nat = run["coverage_n"], run["natural_k"]
cover = kofn_queries.coverage_instance(cover_n, cover_n // 2, run.child_rng(60_000_000))
NATURAL = dict(child_rng=run.child_rng, seeds=run["natural_seeds"])
natural = {}
for name, fn, stream in [
    ("digits facility location", digits, 61_000_000),
    ("sparse coverage", cover, 62_000_000),
]:
    natural[name] = kofn_queries.natural_curves(fn, k_nat, stream=stream, **NATURAL)
    print(kofn_queries.natural_reach_line(name, fn.n, natural[name]))

# %% tags=["hide-input"]
fig, axes = plt.subplots(1, 2, figsize=(11, 3.9))
for ax, (name, nat) in zip(axes, natural.items()):
    n_nat = digits.n if name.startswith("digits") else cover.n
    for alg, (qs, r) in nat.curves.items():
        if alg == "random k":
            ax.axhline(r[0], color=color_for(alg), lw=1.2, ls=":", label=alg)
        else:
            ax.plot(qs / n_nat, r, color=color_for(alg), label=alg)
    e_bound = dict(color=color_for("reference"), ls="--", lw=1, label="1 − 1/e")
    ax.axhline(1 - 1 / math.e, **e_bound)
    ax.set(xscale="log", ylim=(0, 1.05), xlabel="budget q / n")
    ax.set(ylabel="f(S) / f(greedy)", title=f"{name}, k = {k_nat}")
    ax.xaxis.set_major_formatter(ticker.FuncFormatter(lambda v, _: f"{v:g}"))
    ax.legend(fontsize=7)
plt.show()

# %% [markdown]
# Read with the printed budgets, per instance: what $k$ random points get, the
# algorithm that reaches 90 % of greedy first, those that never do, and the largest rise
# of any mean curve between two budgets a factor 2 apart (a cliff would show as a rise
# close to the whole range).

# %%
print("\n".join(kofn_queries.natural_summary_lines(natural)))

# %% [markdown]
# ## Our tools, checked
#
# **S1 · Greedy's guarantee against brute force.** On small random instances of every
# kind we use ($n=14$: coverage, facility location on random digits, additive, hidden
# element; $k\in\{2,3,4\}$), OPT by enumerating all $k$-sets. **Criterion:** the
# smallest greedy/OPT is at least $1-1/e$ (Nemhauser, Wolsey, Fisher 1978), and the
# smallest mean over 20 seeds of stochastic greedy with $\varepsilon=0.1$ is at least
# $1-1/e-0.1$. A bug in the oracle's incremental evaluation would show here.

# %%
greedy_ratio, stoch_ratio = kofn_queries.greedy_against_brute_force(
    sim,
    run["tool_instances"],
    run.child_rng(70_000_000),
    child_rng=run.child_rng,
    stream=71_000_000,
)
print(
    f"{run['tool_instances']} instances: min greedy/OPT = {min(greedy_ratio):.4f}, "
    f"min mean stochastic greedy/OPT = {min(stoch_ratio):.4f} "
    f"(bounds {1 - 1 / math.e:.4f} and {1 - 1 / math.e - 0.1:.4f})"
)

# %%
outcome_s1 = ledger.sanity(
    "S1",
    "greedy ≥ (1 − 1/e) OPT; stochastic greedy ≥ (1 − 1/e − ε) OPT on average",
    why="theorems any correct greedy meets: 1 − 1/e (Nemhauser et al. 1978); "
    "1 − 1/e − ε (Mirzasoleiman et al. 2015)",
    measured={
        "min greedy/OPT": min(greedy_ratio),
        "min stochastic/OPT": min(stoch_ratio),
    },
    criterion=all_of(
        at_least("min greedy/OPT", 1 - 1 / math.e),
        at_least("min stochastic/OPT", 1 - 1 / math.e - 0.1),
    ),
)

# %% [markdown]
# **S2 · Peers side by side.** `apricot-select` (0.6.1) and `submodlib-py` (0.0.3) run
# their naive greedy on the same digits facility-location function (our precomputed
# similarity matrix, $k=10$). We evaluate every selection with our own $f$.
# **Criterion:** each peer's value is within a relative $10^{-9}$ of our greedy's. It
# fails if a peer picks a different set (another tie rule, or float32 arithmetic
# changing a near-tie).

# %%
peer_k = 10
ours = kofn_queries.greedy(digits, peer_k)
peers = kofn_queries.peer_greedy(sim, peer_k)
gap = {p: abs(digits.value(s) - ours.value) / ours.value for p, (s, _) in peers.items()}
print(f"ours:      f(S) = {ours.value:.10f}, S = {ours.indices.tolist()}")
for p, (s, _) in peers.items():
    same = sorted(s) == sorted(ours.indices)
    found = f"f(S) = {digits.value(s):.10f}, same set: {same}"
    print(f"{p:10} {found}, relative gap {gap[p]:.1e}")

# %% tags=["nbval-ignore-output"]
t_apricot, t_sub = peers["apricot"][1], peers["submodlib"][1]
print(
    f"times (this machine, load-dependent): apricot {t_apricot:.1f} s including its "
    f"numba compilation, submodlib {t_sub:.2f} s"
)

# %%
outcome_s2 = ledger.ours(
    "S2",
    "our greedy = peer packages' naive greedy (digits facility location)",
    why="checks our implementation against apricot and submodlib",
    evidence="peer agreement",
    measured={"relative gap": gap},
    criterion=at_most("relative gap", 1e-9),
)

# %% [markdown]
# ## Verdicts

# %% tags=["nbval-check-output"]
ledger.show()

# %% tags=["nbval-ignore-output"]
print(run.time_line())

# %% [markdown]
# **Stability.** The *seeds* column above comes from the committed stability record
# (quick scale, `data/stability/02_kofn_queries.json`); a claim changed since reads
# "stale record". Blocked and quoted claims show "—" there: they have no verdict to
# compare across seeds. The lines below are generated from this run's ledger and the
# committed records: the stability record and the numerics record (verdicts that move under
# other kernels and thread counts).

# %%
print("\n".join(reading_lines(ledger)))

# %% [markdown]
# ## Deviations from the paper
#
# - **Our checks apart.** S1 (greedy's guarantee, a theorem any correct greedy meets) and
#   S2 (agreement with the peer packages) check our tools, not the paper; they were
#   counted in the paper's tally and are now shown apart, S1 as a sanity check and S2 as
#   our own check. Their tests are unchanged.
# - **The paper was not identified.** Title, authors, arXiv id, its hard families and
#   its estimator are unknown to us; see the warning at the top for what was searched.
#   Claims come from the abstract only, in our words.
# - **Every construction is ours.** The hidden-element family (claim 1) has the earlier
#   bound's $n/k$ order by design and is beaten by set queries; the planted additive
#   family (claims 2, 3), the rare-heavy family and the level-count estimator are
#   illustrations. Hence claims 1–3 are *blocked* (⊘), whatever our measurements show:
#   no scale of ours tests them without the paper's constructions; their notes say what
#   is missing and what our stand-ins measured. Before (238c14c, until issue 33): *not
#   checked at this scale*, which wrongly suggested that a larger run would test them;
#   that change left their criteria as they were (the audit's revision of them is
#   below).
# - **Protocols in the tested module.** The sweeps that were chapter functions (q* of
#   each algorithm, the $(n,k)$ grids, the ratio curves, the slope fits, the estimator's
#   $q^*$ and success curves, greedy against brute force) are now
#   `repbook.papers.kofn_queries` functions with unit tests; the same random streams,
#   so the measured values did not change. The sentences that read a result are now
#   printed from the computed values (claim 3's note too: the share of rare-heavy
#   instances within a factor 2, where it read "it fails on rare heavy weights").
#   Since then (no value changed) the module is a package split at its sections
#   (`functions`, `algorithms`, `instances`, `protocols`), with the best of the suite and
#   its fits (`fit_family`), the printed tables, the natural-instance curves, the peers'
#   greedy and the sentences under the tables (`summaries`, `readings`) tested there too.
# - **Claim 1's estimation part.** Our algorithms estimate OPT by the best value of a
#   feasible set they queried, so on our family the estimation cliff coincides with the
#   selection cliff; a separate estimate curve would repeat it.
# - **Peers.** `apricot-select` 0.6.1 (2021; it installs beside numpy 2.4 with numba
#   0.68) and `submodlib-py` 0.0.3 were run on one instance; their lazy and stochastic
#   variants were not compared. The natural instances are measured against greedy's
#   value, since their OPT is unknown.
# - **Query model.** Chosen by us (above); the paper's may count marginal gains as two
#   queries or allow caching, which changes constants, not orders.
# - **Criteria of claims 1–2, one-sided with a polylog allowance (audit of issue 33).**
#   Old: the slope of $\log q^*$ on $\log n$ in $[0.9,1.1]$ and on $\log k$ at least
#   $-0.2$ (described as the issue's). New: the slope on $\log(n/\ln^2 n)$ at least 0.9
#   and on $\log k$ at least $-0.2$; the criterion is ours, derived from the abstract's
#   $\tilde\Omega(n)$ and "near-linear", with our allowance $p=2$ (a factor $\ln^2 n$).
#   Why: $\tilde\Omega(n)$ hides polylog factors, and the old band failed a genuine
#   $n/\ln n$ (slope 0.86 on log n over the quick grid, the audit's computation); its
#   upper edge tested tightness, which is claim 4. Known before the change: yes — the
#   audit's numbers and our stand-ins' slopes (hidden element 0.99 and −0.86, planted
#   0.98 and −0.03 on log n and log k, seed 0) were printed by the previous run. The
#   verdicts are *blocked* before and after, so no result could be tuned.
# - **Criterion of claim 3, one-sided (audit of issue 33).** Old: the slope of
#   $\log q^*$ on $\log(n/k)$ in $[0.8,1.2]$, with a sentence saying that $q^*\propto n$
#   "would fail the joint fit", which was printed and never judged. New: the slope is at
#   most $1.2+\Delta$, $\Delta$ what a factor $\ln^2 n$ adds on the grid (upper bound
#   $\tilde O(n/k)$; the lower edge is claim 4's tightness); the sentence now says what
#   the criterion does not see ($q^*\propto n$ passes it). Known before the change: yes
#   (slope 0.97 on seed 0, printed by the previous run); blocked before and after.
# - **Equal seeds (audit of issue 33).** The best-of-suite $q^*$ takes a minimum over
#   algorithms judged on different numbers of seeds (the nested ones on `seeds`, the
#   others on `grid_seeds`), which favours the latter. Judging all on `seeds` seeds
#   costs about 50 s more at quick scale, so the judged value is unchanged and the
#   minimum on equal seeds (the first `grid_seeds`, at no cost) is printed beside it.
# - **Other criteria** (S1, S2) are as fixed before their first run; S1 and S2 changed
#   role, not test (above).
# - **Stability** across seeds: the *seeds* column of the verdict table and the line
#   under it, both from the committed record.
#
# ## Run it at full scale
#
# ```bash
# .venv/bin/python -m repbook full 02   # runs it and records it in data/full_runs/
# ```
# Full scale takes $n$ up to 64,000 for the families (300 seeds), up to 100,000 for the
# estimator, $k$ up to 80, and a sparse coverage function with $n = 100{,}000$. It needs
# no GPU. Its sweeps, timed on a tenth of the full-scale seeds on this book's CPU (2
# cores) and extrapolated linearly in the seeds, take about 6.5 minutes; with the
# digits, the peers and the set-up, we expect about 7 minutes for the whole run. The
# recorded full-scale run is kept in `data/full_runs/02_kofn_queries.json`; the cell below
# reads when and how long it ran, each claim's verdict there and what its stand-ins
# measured, or says that none is recorded.

# %% tags=["nbval-ignore-output"]
print("\n".join(full_run_lines(ledger)))
record = load_full_run(run.chapter) if run.scale == "quick" else None
for c in record[0].claims if record else []:
    vals = [f"{k} {v:.3f}" for k, v in c.measured.items() if isinstance(v, float)]
    if vals:
        print(f"  {c.id} at full scale: {', '.join(vals)}")
