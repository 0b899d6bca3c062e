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
import time
import warnings

import numpy as np
import matplotlib.pyplot as plt
from matplotlib import ticker

from repbook.core import (
    Ledger,
    setup,
    use_style,
    color_for,
    register_colors,
    load_sklearn,
    all_of,
    at_least,
    at_most,
)
from repbook.core.ledger import unstable_sentence
from repbook.papers import kofn_queries as K

SIZES = {
    "quick": dict(
        fam_n=[500, 1000, 2000, 4000],
        fam_k=[5, 10, 20],
        seeds=100,
        grid_seeds=12,
        curve=(2000, 10),
        curve_seeds=20,
        natural_k=10,
        natural_seeds=3,
        coverage_n=5000,
        est_n=[1000, 2000, 4000, 8000],
        est_k=[5, 10, 20, 40],
        est_seeds=100,
        est_curve=(4000, 20),
        tool_instances=40,
    ),
    "full": dict(
        fam_n=[1000, 4000, 16000, 64000],
        fam_k=[5, 10, 20, 40],
        seeds=300,
        grid_seeds=30,
        curve=(16000, 20),
        curve_seeds=50,
        natural_k=10,
        natural_seeds=20,
        coverage_n=100_000,
        est_n=[2000, 8000, 32000, 100_000],
        est_k=[5, 10, 20, 40, 80],
        est_seeds=300,
        est_curve=(32000, 40),
        tool_instances=200,
    ),
}
run = setup(scale=scale, seed=seed, sizes=SIZES)
ledger = Ledger.for_run(
    run,
    regime=(
        "synthetic instances of our own (n up to a few thousand) and scikit-learn "
        "digits; CPU"
    ),
)
use_style()
register_colors(
    {
        "best of blocks": "ours",
        "top singletons": "alt",
        "stochastic greedy": "peer",
        "subsample greedy": "alt2",
        "random k": "muted",
        "greedy": "baseline",
        "lazy greedy": "alt3",
        "k = 5": "ours",
        "k = 10": "baseline",
        "k = 20": "peer",
        "k = 40": "alt2",
        "k = 80": "alt",
        "uniform": "ours",
        "pareto": "alt",
        "planted": "peer",
        "rare heavy": "baseline",
    }
)

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
tiny = K.coverage_instance(12, 30, run.child_rng(0), mean_size=4.0)
chosen, queries, value = [], 0, 0.0
for step in range(3):
    gains = {
        e: tiny.value(chosen + [e]) - value for e in range(tiny.n) if e not in chosen
    }
    queries += len(gains)  # one query per f(S + e); f(S) is known
    best = max(gains, key=gains.get)  # ties: the lowest index
    chosen.append(best)
    value += gains[best]
lib = K.greedy(tiny, 3)
print(f"by hand: S = {chosen}, f(S) = {value:g}, {queries} queries")
print(
    f"lib:     S = {lib.indices.tolist()}, f(S) = {lib.value:g}, "
    f"{lib.queries} queries; formula nk − k(k−1)/2 = {K.greedy_queries(12, 3)}"
)

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
print(
    f"by hand {by_hand:.6f}, lib {K.level_estimate(w_tiny, 12, k_tiny):.6f}, "
    f"OPT {K.additive_opt(w_tiny, k_tiny):.6f}"
)

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
# The protocols live in the tested module: `K.q_star_suite` (one cell), `K.q_star_table`
# (the grid), `K.equal_seed_best`, `K.ratio_curves` (mean ratio against the budget) and
# `K.fit_slopes`.
TARGET = K.TARGET
P_LOG = 2  # our polylog allowance: Ω̃(n) read as Ω(n / ln^P_LOG n)
B_NAME = "slope on log(n/ln²n)"
SUITE = dict(child_rng=run.child_rng, seeds=run["seeds"], grid_seeds=run["grid_seeds"])
crit_1 = all_of(at_least(B_NAME, 0.9), at_least("slope on log k", -0.2))
grid_A = [(n, k) for n in run["fam_n"] for k in run["fam_k"]]
shapes = {
    "n": lambda n, k: n,
    "n/ln n": lambda n, k: n / math.log(n),
    "n/ln²n": lambda n, k: n / math.log(n) ** 2,
    "n/ln³n": lambda n, k: n / math.log(n) ** 3,
    "√n": lambda n, k: math.sqrt(n),
    "n/k": lambda n, k: n / k,
}
for name, shape in shapes.items():
    b, c = K.fit_slopes({nk: shape(*nk) for nk in grid_A}, polylog=P_LOG)
    ok = crit_1.evaluate({B_NAME: b, "slope on log k": c}).passed
    print(f"q* ∝ {name:7}: b = {b:5.2f}, c = {c:5.2f} → {'meets' if ok else 'fails'}")

# %%
suite_A, hits_A = K.q_star_table(
    K.hidden_family,
    run["fam_n"],
    run["fam_k"],
    stream=1_000_000,
    return_hits=True,
    **SUITE,
)
best_A = {nk: min(v.values()) for nk, v in suite_A.items()}
winner_A = {nk: min(v, key=v.get) for nk, v in suite_A.items()}
b_A, c_A = K.fit_slopes(best_A)  # plain exponents, for the figure
b2_A, _ = K.fit_slopes(best_A, polylog=P_LOG)
eq_A = K.equal_seed_best(suite_A, hits_A, run["grid_seeds"])


def print_suite(suite, family):
    print(f"q* of each algorithm on our {family} (inf: never reached ratio 1/2):")
    names = next(iter(suite.values()))
    print(f"{'n':>6} {'k':>3} " + " ".join(f"{a:>17}" for a in names))
    for (n, k), v in suite.items():
        print(f"{n:>6} {k:>3} " + " ".join(f"{x:>17,.0f}" for x in v.values()))


def print_equal(best, eq, name, crit):
    b_eq, c_eq = K.fit_slopes(eq, polylog=P_LOG)
    b_j, c_j = K.fit_slopes(best, polylog=P_LOG)
    differ = sum(best[nk] != eq[nk] for nk in best)
    same = (
        crit.evaluate({B_NAME: b_eq, "slope on log k": c_eq}).passed
        == crit.evaluate({B_NAME: b_j, "slope on log k": c_j}).passed
    )
    print(
        f"{name}, every algorithm on the first {run['grid_seeds']} seeds: the best q* "
        f"differs on {differ} of {len(best)} cells; {B_NAME} {b_eq:.3f}, slope on "
        f"log k {c_eq:.3f}; the criterion's outcome on our family is "
        + ("the same" if same else "the opposite")
    )


print_suite(suite_A, "hidden-element family")
print(
    f"best algorithm: {sorted(set(winner_A.values()))}; fit log q* = a + b log n + "
    f"c log k: b = {b_A:.3f}, c = {c_A:.3f}; {B_NAME} = {b2_A:.3f}"
)
print_equal(best_A, eq_A, "hidden element", crit_1)

# %%
n_c, k_c = run["curve"]
curves_A, points_A = K.ratio_curves(
    K.hidden_family(n_c, k_c),
    lambda fn: K.family_opt(fn, k_c),
    n_c,
    k_c,
    child_rng=run.child_rng,
    seeds=run["curve_seeds"],
    stream=9_000_000,
)
null = K.hidden_element_instance(n_c, k_c, run.child_rng(9_500_000), planted=False)
null_est = K.best_of_blocks(null, k_c, run.child_rng(9_500_001), budget=1).value
null_opt = k_c / null.m
print(
    f"null instance (no x*): OPT = {null_opt:.3f}, best-of-blocks estimate after one "
    f"query = {null_est:.3f}; planted instances: OPT = 1"
)


# %% tags=["hide-input"]
def plain_log_ticks(ax, which="xy"):
    """Plain numbers (1,000 rather than 10³) on log axes."""
    fmt = ticker.FuncFormatter(lambda v, _: f"{v:,.0f}" if v >= 1 else f"{v:g}")
    axes = [a for a, name in [(ax.xaxis, "x"), (ax.yaxis, "y")] if name in which]
    for axis in axes:
        axis.set_major_locator(ticker.LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
        axis.set_major_formatter(fmt)
        axis.set_minor_formatter(ticker.NullFormatter())


def plot_suite(ax_curve, ax_q, curves, points, table, n, k, title_curve, title_q):
    for name, (qs, r) in curves.items():
        if name == "random k":
            ax_curve.axhline(r[0], color=color_for(name), lw=1.2, ls=":", label=name)
        else:
            ax_curve.plot(qs, r, color=color_for(name), label=name)
    for name, (q, r) in points.items():
        ax_curve.plot(q, r, marker="D", ls="none", color=color_for(name), label=name)
    ax_curve.axhline(
        TARGET, color=color_for("reference"), ls="--", lw=1, label="target ratio 1/2"
    )
    for x, lab in [(n / k, "n/k"), (n, "n")]:
        ax_curve.axvline(x, color=color_for("muted"), lw=0.8)
        ax_curve.text(x, 0.02, f" {lab}", color=color_for("muted"), fontsize=8)
    ax_curve.set(
        xscale="log",
        ylim=(0, 1.05),
        xlabel="query budget q",
        ylabel="mean f(S)/OPT",
        title=title_curve,
    )
    ax_curve.xaxis.set_major_formatter(ticker.FuncFormatter(lambda v, _: f"{v:,.0f}"))
    ax_curve.legend(fontsize=7, ncols=2, loc="upper left")
    ns = np.array(sorted({n for n, _ in table}))
    for kk in sorted({k for _, k in table}):
        qs = [table[nn, kk] for nn in ns]
        ax_q.plot(ns, qs, marker="o", label=f"k = {kk}", color=color_for(f"k = {kk}"))
    ref = table[ns[0], min(k for _, k in table)]
    ax_q.plot(
        ns,
        ref * ns / ns[0],
        color=color_for("reference"),
        ls="--",
        lw=1,
        label="∝ n (slope 1)",
    )
    ax_q.set(
        xscale="log",
        yscale="log",
        xlabel="n",
        ylabel="q* of the best algorithm",
        title=title_q,
    )
    plain_log_ticks(ax_q)
    ax_q.legend(fontsize=8)


fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
plot_suite(
    axes[0],
    axes[1],
    curves_A,
    points_A,
    best_A,
    n_c,
    k_c,
    f"Hidden element (ours), n = {n_c}, k = {k_c}",
    f"Best algorithm (our suite, our family):\nq* ∝ n^{b_A:.2f} k^{c_A:.2f}",
)
plt.show()

# %%
at_c = suite_A[n_c, k_c]
print(
    f"At n = {n_c}, k = {k_c}: best of blocks reaches ratio 1/2 in half the seeds at "
    f"q = {at_c['best of blocks']:,.0f} (n/k = {n_c // k_c}), top singletons at "
    f"{at_c['top singletons']:,.0f}, greedy only at its full cost "
    f"{K.greedy_queries(n_c, k_c):,}.\nThe best algorithm's q* grows like "
    f"n^{b_A:.2f} k^{c_A:.2f}."
)
met_1 = crit_1.evaluate({B_NAME: b2_A, "slope on log k": c_A}).passed

# %%
bob_A = [v["best of blocks"] / (n / k) for (n, k), v in suite_A.items()]
ELEMENTWISE = ("top singletons", "stochastic greedy", "subsample greedy")
least_A = min(v[a] / n for (n, k), v in suite_A.items() for a in ELEMENTWISE)
n_bob = sum(w == "best of blocks" for w in winner_A.values())
print(
    f"Best of blocks, the one algorithm that queries arbitrary k-sets, is the best on "
    f"{n_bob} of {len(winner_A)} cells; its q* lies between {min(bob_A):.2f} and "
    f"{max(bob_A):.2f} times n/k, and the best algorithm's q* "
    + ("falls" if c_A < -0.2 else "does not fall")
    + f" with k (slope {c_A:.2f} on log k). The element-by-element algorithms need at "
    f"least {least_A:.2f} n queries on every cell. The null instance's estimate after "
    f"one query is {null_est:.3f} against its OPT {null_opt:.3f}."
)

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
    measured={B_NAME: b2_A, "slope on log k": c_A},
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
suite_B, hits_B = K.q_star_table(
    K.planted_family,
    run["fam_n"],
    run["fam_k"],
    stream=20_000_000,
    return_hits=True,
    **SUITE,
)
best_B = {nk: min(v.values()) for nk, v in suite_B.items()}
winner_B = {nk: min(v, key=v.get) for nk, v in suite_B.items()}
b_B, c_B = K.fit_slopes(best_B)
b2_B, _ = K.fit_slopes(best_B, polylog=P_LOG)
eq_B = K.equal_seed_best(suite_B, hits_B, run["grid_seeds"])
print_suite(suite_B, "planted additive family")
print(
    f"best algorithm: {sorted(set(winner_B.values()))}; b = {b_B:.3f}, c = {c_B:.3f}; "
    f"{B_NAME} = {b2_B:.3f}"
)
print_equal(best_B, eq_B, "planted additive", crit_2)
curves_B, points_B = K.ratio_curves(
    K.planted_family(n_c, k_c),
    lambda fn: K.family_opt(fn, k_c),
    n_c,
    k_c,
    child_rng=run.child_rng,
    seeds=run["curve_seeds"],
    stream=29_000_000,
)

# %% tags=["hide-input"]
fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
plot_suite(
    axes[0],
    axes[1],
    curves_B,
    points_B,
    best_B,
    n_c,
    k_c,
    f"Planted additive (ours), n = {n_c}, k = {k_c}",
    f"Best algorithm (our suite, our family):\nq* ∝ n^{b_B:.2f} k^{c_B:.2f}",
)
plt.show()

# %%
bob_c = suite_B[n_c, k_c]["best of blocks"]
print(
    f"At n = {n_c}, k = {k_c} the best algorithm ({winner_B[n_c, k_c]}) needs "
    f"q* = {best_B[n_c, k_c]:,.0f} = {best_B[n_c, k_c] / n_c:.2f} n; best of blocks "
    + (
        f"reaches ratio 1/2 in half the seeds at q = {bob_c:,.0f}"
        if np.isfinite(bob_c)
        else "does not reach ratio 1/2 in half the seeds within its ⌈n/k⌉ blocks"
    )
    + f" (mean ratio at its largest budget {curves_B['best of blocks'][1][-1]:.2f})."
)
met_2 = crit_2.evaluate({B_NAME: b2_B, "slope on log k": c_B}).passed

# %%
frac_B = [q / n for (n, k), q in best_B.items()]
bob_B = sum(np.isfinite(v["best of blocks"]) for v in suite_B.values())
print(
    f"On this family the best algorithm of ours needs between {min(frac_B):.2f} n and "
    f"{max(frac_B):.2f} n queries over the grid; random search over k-sets (best of "
    f"blocks) reaches ratio 1/2 on {bob_B} of {len(suite_B)} cells. Criterion "
    + ("met" if met_2 else "not met")
    + " on our family, as our construction implies; this says nothing about the "
    "paper's bound, nor about algorithms we did not write."
)

# %%
ledger.not_checked(
    "2",
    "additive: an approximately optimal set needs near-linear queries",
    paper="near-linear lower bound",
    source="abstract",
    criterion=crit_2,
    measured={B_NAME: b2_B, "slope on log k": c_B},
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
delta_3 = K.ratio_slope({(n, k): n / k * math.log(n) ** P_LOG for n, k in grid_3}) - 1.0
bar_3 = 1.2 + delta_3
crit_3 = at_most("slope on log(n/k)", bar_3)
linear_3 = K.ratio_slope({(n, k): float(n) for n, k in grid_3})
print(
    f"Δ (a factor ln²n on this grid) = {delta_3:.3f}: bar {bar_3:.3f}; a q* ∝ n "
    f"whatever k would give slope {linear_3:.3f} on log(n/k)"
)

# %%
est_q = K.estimator_q_table(
    run["est_n"],
    run["est_k"],
    seeds=run["est_seeds"],
    child_rng=run.child_rng,
    stream=40_000_000,
)
ratio_nk = np.array([n / k for n, k in est_q])
slope_3 = K.ratio_slope(est_q)
b_3, c_3 = K.fit_slopes(est_q)
print(f"{'n':>6} {'k':>3} {'n/k':>7} {'q*':>8} {'q*/(n/k)':>9}")
for (n, k), q in est_q.items():
    print(f"{n:>6} {k:>3} {n / k:>7.1f} {q:>8,.0f} {q / (n / k):>9.2f}")
print(
    f"slope of log q* on log(n/k): {slope_3:.3f}; joint fit (printed, not judged): "
    f"b = {b_3:.3f} on log n, c = {c_3:.3f} on log k"
)

# %%
n_e, k_e = run["est_curve"]
budgets_e = K.budget_grid(1, n_e, per_octave=4)
succ = {
    kind: K.estimator_success(
        kind,
        n_e,
        k_e,
        budgets_e,
        seeds=run["est_seeds"],
        child_rng=run.child_rng,
        stream=48_000_000 + 100_000 * a,
    )
    for a, kind in enumerate(K.ADDITIVE_KINDS)
}
q90 = {kind: budgets_e[np.argmax(succ[kind][0] >= 0.9)] for kind in K.ADDITIVE_KINDS}
at = min(int(np.searchsorted(budgets_e, est_q[n_e, k_e])), len(budgets_e) - 1)
print(
    f"n = {n_e}, k = {k_e} (n/k = {n_e // k_e}); least budget with 90 % of seeds "
    f"within [OPT/2, 2 OPT]:\n  "
    + ", ".join(
        f"{kind} {q / (n_e / k_e):.2g} n/k = {q / n_e:.2g} n" for kind, q in q90.items()
    )
)
print(
    f"at q = {budgets_e[at]:,}: planted {succ['planted'][0][at]:.0%} of seeds "
    f"within, rare heavy {succ['rare heavy'][0][at]:.0%}"
)

# %% tags=["hide-input"]
fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
ax = axes[0]
for kind in K.ADDITIVE_KINDS:
    ax.plot(budgets_e / (n_e / k_e), succ[kind][0], color=color_for(kind), label=kind)
ax.axhline(0.9, color=color_for("reference"), ls="--", lw=1, label="90 % of seeds")
ax.axvline(1, color=color_for("muted"), lw=0.8)
ax.set(
    xscale="log",
    xlabel="budget q / (n/k)",
    ylabel="share of seeds within [OPT/2, 2 OPT]",
    title=f"Our estimator, n = {n_e}, k = {k_e}",
)
ax.xaxis.set_major_formatter(ticker.FuncFormatter(lambda v, _: f"{v:g}"))
ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.2), ncols=5)
ax = axes[1]
for k in run["est_k"]:
    pts = [(n / k, est_q[n, k]) for n in run["est_n"]]
    ax.plot(*zip(*pts), marker="o", label=f"k = {k}", color=color_for(f"k = {k}"))
xs = np.geomspace(ratio_nk.min(), ratio_nk.max(), 20)
fit = np.polyfit(np.log(ratio_nk), np.log(list(est_q.values())), 1)
ax.plot(
    xs,
    np.exp(np.polyval(fit, np.log(xs))),
    color=color_for("reference"),
    ls="--",
    lw=1,
    label=f"fit: slope {slope_3:.2f}",
)
ax.set(
    xscale="log",
    yscale="log",
    xlabel="n/k",
    ylabel="q* (90 % within factor 2)",
    title=f"Planted additive (our estimator, our family):\nq* ∝ (n/k)^{slope_3:.2f}",
)
plain_log_ticks(ax)
ax.legend(fontsize=8)
plt.show()

# %%
met_3 = crit_3.evaluate({"slope on log(n/k)": slope_3}).passed
print(
    f"criterion on our estimator and family: {'met' if met_3 else 'not met'}, as our "
    "construction implies; this says nothing about the paper's estimator"
)

# %%
per_nk = [q / (n / k) for (n, k), q in est_q.items()]
print(
    f"On the planted family our estimator's q* grows like (n/k)^{slope_3:.2f}, at "
    f"{min(per_nk):.2f}–{max(per_nk):.2f} times n/k. At n = {n_e}, k = {k_e}: uniform "
    f"weights need {q90['uniform'] / (n_e / k_e):.2g} n/k, Pareto weights "
    f"{q90['pareto'] / n_e:.2g} n and the rare heavy ones "
    f"{q90['rare heavy'] / n_e:.2g} n."
)

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
sim = K.rbf_similarity(X_digits)
digits = K.FacilityLocation(sim)
cover = K.coverage_instance(
    run["coverage_n"], run["coverage_n"] // 2, run.child_rng(60_000_000)
)
k_nat = run["natural_k"]
natural, reach90 = {}, {}
for name, fn, stream in [
    ("digits facility location", digits, 61_000_000),
    ("sparse coverage", cover, 62_000_000),
]:
    ref = K.greedy(fn, k_nat).value
    natural[name] = K.ratio_curves(
        lambda g, fn=fn: fn,
        lambda fn, ref=ref: ref,
        fn.n,
        k_nat,
        child_rng=run.child_rng,
        seeds=run["natural_seeds"],
        stream=stream,
        per_octave=1,
        q_max=2 * fn.n,
    )
    curves = natural[name][0]
    reach90[name] = {
        alg: qs[np.argmax(r >= 0.9)] / fn.n if np.any(r >= 0.9) else np.inf
        for alg, (qs, r) in curves.items()
        if alg != "random k"
    }
    print(
        f"{name} (n = {fn.n}): random k gets {curves['random k'][1][0]:.2f} of "
        f"greedy's value; least budget / n at which the mean reaches 90 % of "
        f"greedy:\n  "
        + ", ".join(
            f"{a} {v:.3f}" if np.isfinite(v) else f"{a} never (q ≤ 2n)"
            for a, v in reach90[name].items()
        )
    )

# %% tags=["hide-input"]
fig, axes = plt.subplots(1, 2, figsize=(11, 3.9))
for ax, (name, (curves, points)) in zip(axes, natural.items()):
    n_nat = digits.n if name.startswith("digits") else cover.n
    for alg, (qs, r) in curves.items():
        if alg == "random k":
            ax.axhline(r[0], color=color_for(alg), lw=1.2, ls=":", label=alg)
        else:
            ax.plot(qs / n_nat, r, color=color_for(alg), label=alg)
    ax.axhline(
        1 - 1 / math.e, color=color_for("reference"), ls="--", lw=1, label="1 − 1/e"
    )
    ax.set(
        xscale="log",
        ylim=(0, 1.05),
        xlabel="budget q / n",
        ylabel="f(S) / f(greedy)",
        title=f"{name}, k = {k_nat}",
    )
    ax.xaxis.set_major_formatter(ticker.FuncFormatter(lambda v, _: f"{v:g}"))
    ax.legend(fontsize=7)
plt.show()

# %% [markdown]
# Read with the printed budgets, per instance: what $k$ random points get, the
# algorithm that reaches 90 % of greedy first, those that never do, and the largest rise
# of any mean curve between two budgets a factor 2 apart (a cliff would show as a rise
# close to the whole range).

# %%
for name, (curves, _) in natural.items():
    reach = reach90[name]
    first = min(reach, key=reach.get)
    never = [a for a, v in reach.items() if not np.isfinite(v)]
    rise = max(float(np.max(np.diff(r))) for a, (_, r) in curves.items() if len(r) > 1)
    print(
        f"{name}: random k {curves['random k'][1][0]:.2f} of greedy; first to 90 %: "
        f"{first} at {reach[first]:.3f} n; never (q ≤ 2n): "
        f"{', '.join(never) if never else 'none'}; largest rise per doubling {rise:.2f}"
    )
firsts = {min(r, key=r.get) for r in reach90.values()}
print(
    "The same algorithm is first on both instances."
    if len(firsts) == 1
    else "No single algorithm of ours is first on both, which is why the suite holds "
    "several."
)

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
greedy_ratio, stoch_ratio = K.greedy_against_brute_force(
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
from submodlib import FacilityLocationFunction

peer_k = 10
ours = K.greedy(digits, peer_k)
t0 = time.perf_counter()
with warnings.catch_warnings():
    # apricot 0.6.1 imports tqdm's notebook widget and numba; neither affects results
    warnings.simplefilter("ignore")
    from apricot import FacilityLocationSelection

    apricot_sel = FacilityLocationSelection(
        peer_k, metric="precomputed", optimizer="naive", verbose=False
    ).fit(sim)
t_apricot = time.perf_counter() - t0
t0 = time.perf_counter()
sub_fn = FacilityLocationFunction(
    n=digits.n, mode="dense", sijs=sim, separate_rep=False
)
sub_sel = sub_fn.maximize(
    budget=peer_k,
    optimizer="NaiveGreedy",
    stopIfZeroGain=False,
    stopIfNegativeGain=False,
    verbose=False,
    show_progress=False,
)
t_sub = time.perf_counter() - t0
peer_sets = {
    "apricot": [int(i) for i in apricot_sel.ranking],
    "submodlib": [i for i, _ in sub_sel],
}
gap = {p: abs(digits.value(s) - ours.value) / ours.value for p, s in peer_sets.items()}
print(f"ours:      f(S) = {ours.value:.10f}, S = {ours.indices.tolist()}")
for p, s in peer_sets.items():
    same = sorted(s) == sorted(ours.indices)
    print(
        f"{p:10} f(S) = {digits.value(s):.10f}, same set: {same}, "
        f"relative gap {gap[p]:.1e}"
    )

# %% tags=["nbval-ignore-output"]
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
print(f"chapter run time: {run.elapsed():.1f} s at scale={run.scale!r} on {run.device}")

# %% [markdown]
# **Stability.** The *seeds* column above comes from the committed stability record
# (quick scale, `data/stability/02_kofn_queries.json`); a claim changed since reads
# "stale record". Blocked and quoted claims show "—" there: they have no verdict to
# compare across seeds. The line below is generated from that record.

# %%
stability_line = unstable_sentence(ledger, ledger.stability())
print(stability_line or "No claim the record still describes flips between its seeds.")

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
# .venv/bin/python -m repbook run 02 --scale full
# ```
# Full scale takes $n$ up to 64,000 for the families (300 seeds), up to 100,000 for the
# estimator, $k$ up to 80, and a sparse coverage function with $n = 100{,}000$. It needs
# no GPU. Its sweeps, timed on a tenth of the full-scale seeds on this book's CPU (2
# cores) and extrapolated linearly in the seeds, take about 6.5 minutes; with the
# digits, the peers and the set-up, we expect about 7 minutes for the whole run. A
# recorded full-scale run (`.venv/bin/python -m repbook full 02`) is kept in
# `data/full_runs/02_kofn_queries.json`; the cell below reads when and how long it ran,
# and what its stand-ins measured, or says that none is recorded.

# %% tags=["nbval-ignore-output"]
from repbook.core.data import repo_root
from repbook.core.ledger import read_record

full_path = repo_root() / "data" / "full_runs" / f"{run.chapter}.json"
if run.scale == "full":
    print(f"this is the full-scale run: {run.elapsed():.1f} s on {run.device}")
elif full_path.is_file():
    full_ledger, prov = read_record(full_path)
    here = {c.id: (c.statement, c.criterion) for c in ledger.claims}
    there = {c.id: (c.statement, c.criterion) for c in full_ledger.claims}
    stale = set(here) != set(there) or any(
        there[i][0] != here[i][0]
        or there[i][1].get("kind") != here[i][1].get("kind")
        or set(there[i][1].get("reads", [])) != set(here[i][1].get("reads", []))
        for i in here
        if i in there
    )
    print(
        f"full scale recorded: {prov.get('seconds', float('nan')):.0f} s on "
        f"{prov.get('device', '?')} ({prov.get('machine', '?')}), finished "
        f"{prov.get('finished', '?')}, commit {prov.get('commit', '?')}"
        + ("; the record predates the current claims or criteria" if stale else "")
    )
    for c in full_ledger.claims:
        vals = ", ".join(
            f"{k} {v:.3f}" for k, v in c.measured.items() if isinstance(v, float)
        )
        print(f"  {c.id}: {c.verdict_word()}" + (f" ({vals})" if vals else ""))
else:
    print(f"no full-scale run recorded yet ({full_path.relative_to(repo_root())})")
