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
# simulation of ours can test its lower bounds; claims 1–3 are recorded as *not checked
# at this scale*, with what our constructions show printed beside them.
# ```
#
# The problem: a set function $f$ on $n$ elements is known only through a value oracle;
# choose $S$ with $|S|\le k$ maximising $f(S)$, or just estimate
# $\mathrm{OPT}=\max_{|S|\le k}f(S)$, with as few oracle calls (*queries*) as possible.
# Greedy needs about $nk$ queries, stochastic greedy about $n\ln(1/\varepsilon)$. Can a
# constant-factor answer cost $o(n)$ queries?
#
# ```{admonition} Claims we test
# 1. For monotone submodular $f$, any constant-factor approximation needs
#    $\tilde\Omega(n)$ queries, up from the $\Omega(n/k)$ of Li–Feldman–Kazemi–Karbasi
#    (NeurIPS'22) and Kuhnle (AISTATS'21); this holds even for estimating OPT's value.
# 2. For additive $f$, finding an approximately optimal set still needs near-linear
#    queries.
# 3. For additive $f$, OPT's value can be estimated with $\tilde O(n/k)$ queries.
# 4. Both bounds are nearly tight (the $\tilde\Omega(n)$, and the $\tilde O(n/k)$ up to
#    polylog factors).
#
# Checks of our own tools, shown apart and not counted in the paper's tally: **S1** (a
# sanity check) greedy reaches $(1-1/e)\,\mathrm{OPT}$ against brute force (Nemhauser,
# Wolsey, Fisher 1978); **S2** our greedy agrees with two peer packages.
# ```
#
# A simulation proves no lower bound: where claims 1–2 are concerned, everything we
# measure speaks of *the algorithms we run*, on *our* instances.

# %% tags=["parameters"]
scale = "quick"  # "quick" (≤ 60 s on 2 CPU cores) or "full" (n up to 10⁵, more seeds)
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
    within,
)
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
# $2^{1/4}$ (12 seeds). Greedy has a fixed cost ($nk-k(k-1)/2$); lazy greedy spends $n$
# queries on its first step alone, so it enters the figure but not the search for the
# best. The *best* algorithm's $q^*$ is the smallest over the suite.
#
# **Criterion (the issue's, fixed before the run).** Over the $(n,k)$ grid, the
# least-squares fit $\log q^* = a + b\log n + c\log k$ for the best algorithm has
# $b\in[0.9,1.1]$ and $c\ge -0.2$. A cliff at $n/k$ (as the earlier bound allows) would
# give $c\approx-1$ and fail it. On a family of our own this is **not checked** (it
# needs the paper's construction): the outcome is recorded beside the verdict.

# %%
TARGET = 0.5
NESTED = {"best of blocks": K.best_of_blocks, "top singletons": K.top_singletons}
GRIDDED = ("stochastic greedy", "subsample greedy")


def budget_grid(lo, hi, per_octave=4):
    """Integer budgets from lo to hi, spaced by 2^(1/per_octave)."""
    steps = int(np.ceil(per_octave * np.log2(max(hi, 1) / max(lo, 1)))) + 1
    return np.unique(np.round(np.geomspace(max(lo, 1), max(hi, 1), steps)).astype(int))


def upper_half(hits):
    """The least budget by which at least half of the seeds succeed (inf if none)."""
    h = np.sort(np.array([np.inf if x is None else x for x in hits], dtype=float))
    return float(h[math.ceil(len(h) / 2) - 1])


def q_star_suite(make, opt_of, n, k, stream):
    """q* of every algorithm in our suite on instances make(rng) with OPT opt_of(fn)."""
    out = {}
    inst = [make(run.child_rng(stream + s)) for s in range(run["seeds"])]
    opts = [opt_of(fn) for fn in inst]
    for a, (name, alg) in enumerate(NESTED.items()):
        hi = n if name == "top singletons" else math.ceil(n / k)
        hits = []
        for s, (fn, opt) in enumerate(zip(inst, opts)):
            alg_stream = stream + 50_000 + 1000 * a + s  # the same order for every q
            ratio_at = lambda q: (
                alg(
                    fn,
                    k,
                    run.child_rng(alg_stream),  # noqa: E731
                    budget=q,
                ).value
                / opt
            )
            hits.append(K.least_budget(ratio_at, TARGET, 1, hi))
        out[name] = upper_half(hits)
    few = range(run["grid_seeds"])
    for a, name in enumerate(GRIDDED):
        out[name] = np.inf
        for q in budget_grid(K.min_budget(name, n, k), K.greedy_queries(n, k)):
            ok = [
                K.run_budgeted(
                    name,
                    inst[s],
                    k,
                    int(q),
                    run.child_rng(stream + 90_000 + 1000 * a + s),
                ).value
                >= TARGET * opts[s]
                for s in few
            ]
            if np.mean(ok) >= 0.5:
                out[name] = float(q)
                break
    ok = [K.greedy(inst[s], k).value >= TARGET * opts[s] for s in few]
    out["greedy"] = float(K.greedy_queries(n, k)) if np.mean(ok) >= 0.5 else np.inf
    return out


def ratio_curves(make, opt_of, n, k, seeds, stream, per_octave=2, q_max=None):
    """Mean ratio f(S)/OPT against the budget (up to q_max, default greedy's cost) for
    every budgeted algorithm, and greedy's and lazy greedy's (cost, ratio) points."""
    inst = [make(run.child_rng(stream + s)) for s in range(seeds)]
    opts = np.array([opt_of(fn) for fn in inst])
    curves = {}
    q_max = q_max or K.greedy_queries(n, k)
    for a, name in enumerate(K.ALGORITHMS):
        lo = max(1, K.min_budget(name, n, k))
        if lo > q_max:
            continue
        qs = budget_grid(lo, q_max, per_octave) if name != "random k" else np.array([1])
        r = [
            [
                K.run_budgeted(
                    name, fn, k, int(q), run.child_rng(stream + 7000 + 100 * a + s)
                ).value
                / opts[s]
                for s, fn in enumerate(inst)
            ]
            for q in qs
        ]
        curves[name] = (qs, np.mean(r, axis=1))
    few = range(min(5, seeds))  # greedy and lazy greedy: fixed costs, 5 seeds
    fixed = {
        "greedy": [K.greedy(inst[s], k) for s in few],
        "lazy greedy": [K.lazy_greedy(inst[s], k) for s in few],
    }
    points = {
        name: (
            np.mean([s.queries for s in sels]),
            np.mean([s.value for s in sels] / opts[: len(sels)]),
        )
        for name, sels in fixed.items()
    }
    return curves, points


def fit_slopes(table):
    """Least squares of log q* on log n and log k (finite q* only): returns (b, c)."""
    rows = [(n, k, q) for (n, k), q in table.items() if np.isfinite(q)]
    if len(rows) < 4:
        return math.nan, math.nan
    n_, k_, q_ = (np.array(c, dtype=float) for c in zip(*rows))
    A = np.column_stack([np.ones_like(n_), np.log(n_), np.log(k_)])
    coef = np.linalg.lstsq(A, np.log(q_), rcond=None)[0]
    return float(coef[1]), float(coef[2])


def hidden(n, k):
    return lambda g: K.hidden_element_instance(n, k, g)


# %%
suite_A = {}
for i, n in enumerate(run["fam_n"]):
    for j, k in enumerate(run["fam_k"]):
        suite_A[n, k] = q_star_suite(
            hidden(n, k),
            lambda fn: 1.0,
            n,
            k,
            stream=1_000_000 + 100_000 * (10 * i + j),
        )
best_A = {nk: min(v.values()) for nk, v in suite_A.items()}
winner_A = {nk: min(v, key=v.get) for nk, v in suite_A.items()}
b_A, c_A = fit_slopes(best_A)


def print_suite(suite, family):
    print(f"q* of each algorithm on our {family} (inf: never reached ratio 1/2):")
    names = next(iter(suite.values()))
    print(f"{'n':>6} {'k':>3} " + " ".join(f"{a:>17}" for a in names))
    for (n, k), v in suite.items():
        print(f"{n:>6} {k:>3} " + " ".join(f"{x:>17,.0f}" for x in v.values()))


print_suite(suite_A, "hidden-element family")
print(
    f"best algorithm: {sorted(set(winner_A.values()))}; "
    f"fit log q* = a + b log n + c log k: b = {b_A:.3f}, c = {c_A:.3f}"
)

# %%
n_c, k_c = run["curve"]
curves_A, points_A = ratio_curves(
    hidden(n_c, k_c), lambda fn: 1.0, n_c, k_c, run["curve_seeds"], stream=9_000_000
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
    f"Best algorithm: q* ∝ n^{b_A:.2f} k^{c_A:.2f}",
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
crit_1 = all_of(within("slope on log n", 0.9, 1.1), at_least("slope on log k", -0.2))
met_1 = crit_1.evaluate({"slope on log n": b_A, "slope on log k": c_A}).passed

# %% [markdown]
# Read with the printed numbers: the only algorithm that uses set queries, best of
# blocks, finds $x^*$ after about $n/(2k)$ queries, and its $q^*$ falls with $k$ — the
# $n/k$ cliff the earlier bound allows; the element-by-element algorithms and greedy
# need a constant fraction of $n$ or more. The null instance is estimated exactly after one
# query, and a planted one within a factor 2 only once $x^*$ is found, so the estimation
# cliff is the same. A family that forces $\tilde\Omega(n)$ must defeat set queries too;
# that is the paper's construction, which we do not have.

# %%
ledger.not_checked(
    "1",
    "constant-factor k-selection (and OPT estimation) needs Ω̃(n) queries",
    paper="Ω̃(n), up from Ω(n/k)",
    source="abstract",
    criterion=crit_1,
    measured={"slope on log n": b_A, "slope on log k": c_A},
    note=(
        f"needs the paper's construction; ours is the best of our algorithms on our "
        f"hidden-element family, which by design has the earlier n/k order (criterion "
        f"{'met' if met_1 else 'not met'} there)"
    ),
)

# %% [markdown]
# ## Claim 2 · Additive: finding a near-optimal set needs near-linear queries
#
# **Our family (not the paper's).** $k$ planted elements of weight 3 among $n-k$
# background elements of weight drawn from $U(0,1)$, at random places;
# $\mathrm{OPT}\approx 3k$. A set query returns a sum in which the planted weights hide
# in the unknown background, so set queries help little; a set reaches ratio $1/2$ only
# with about a quarter of the planted elements in it. $q^*$, the suite and the fit are
# as for claim 1.
#
# **Criterion (fixed before the run).** For the best algorithm, slope $b\in[0.9,1.1]$ on
# $\log n$ and $c\ge-0.2$ on $\log k$; a cliff at $n/k$ would fail it. Not checked on
# our family.


# %%
def planted(n, k):
    return lambda g: K.additive_instance("planted", n, k, g)


def additive_opt(fn, k):
    return K.additive_opt(fn.weights, k)


suite_B = {}
for i, n in enumerate(run["fam_n"]):
    for j, k in enumerate(run["fam_k"]):
        suite_B[n, k] = q_star_suite(
            planted(n, k),
            lambda fn, k=k: additive_opt(fn, k),
            n,
            k,
            stream=20_000_000 + 100_000 * (10 * i + j),
        )
best_B = {nk: min(v.values()) for nk, v in suite_B.items()}
winner_B = {nk: min(v, key=v.get) for nk, v in suite_B.items()}
b_B, c_B = fit_slopes(best_B)
print_suite(suite_B, "planted additive family")
print(f"best algorithm: {sorted(set(winner_B.values()))}; b = {b_B:.3f}, c = {c_B:.3f}")
curves_B, points_B = ratio_curves(
    planted(n_c, k_c),
    lambda fn: additive_opt(fn, k_c),
    n_c,
    k_c,
    run["curve_seeds"],
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
    f"Best algorithm: q* ∝ n^{b_B:.2f} k^{c_B:.2f}",
)
plt.show()

# %%
print(
    f"At n = {n_c}, k = {k_c} the best algorithm ({winner_B[n_c, k_c]}) needs "
    f"q* = {best_B[n_c, k_c]:,.0f} = {best_B[n_c, k_c] / n_c:.2f} n; best of blocks "
    f"never reaches ratio 1/2 there (mean ratio at its largest budget "
    f"{curves_B['best of blocks'][1][-1]:.2f})."
)
crit_2 = all_of(within("slope on log n", 0.9, 1.1), at_least("slope on log k", -0.2))
met_2 = crit_2.evaluate({"slope on log n": b_B, "slope on log k": c_B}).passed

# %% [markdown]
# On this family every algorithm of ours pays a constant fraction of $n$ (printed
# above), and random search over $k$-sets stays far below the target. That agrees with
# the claim's direction but proves nothing about algorithms we did not write.

# %%
ledger.not_checked(
    "2",
    "additive: an approximately optimal set needs near-linear queries",
    paper="near-linear lower bound",
    source="abstract",
    criterion=crit_2,
    measured={"slope on log n": b_B, "slope on log k": c_B},
    note=(
        f"needs the paper's construction; ours is the best of our algorithms on our "
        f"planted family (criterion {'met' if met_2 else 'not met'} there)"
    ),
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
# **Criterion (fixed before the run).** On the planted family, the slope of $\log q^*$
# on $\log(n/k)$ lies in $[0.8,1.2]$. A $q^*$ that grows like $n$ whatever $k$ would
# give a slope near 0 along $k$ and fail the joint fit. The estimator and the family are
# ours, so the claim is not checked; the outcome is printed.


# %%
def estimator_success(kind, n, k, budgets, seeds, stream):
    """Per budget: share of seeds with estimate in [OPT/2, 2 OPT]; and the ratios."""
    ratios = np.empty((seeds, len(budgets)))
    for s in range(seeds):
        g = run.child_rng(stream + s)
        fn = K.additive_instance(kind, n, k, g)
        est = K.sampled_level_estimates(fn.weights, k, budgets, g)
        ratios[s] = est / additive_opt(fn, k)
    ok = (ratios >= 0.5) & (ratios <= 2.0)
    return ok.mean(axis=0), ratios


def q_star_estimator(n, k, stream):
    """Least budget (grid 2^(1/8)) with >= 90 % of seeds within [OPT/2, 2 OPT]."""
    W, opts = np.empty((run["est_seeds"], n)), np.empty(run["est_seeds"])
    for s in range(run["est_seeds"]):
        g = run.child_rng(stream + s)
        fn = K.additive_instance("planted", n, k, g)
        W[s] = fn.weights[g.permutation(n)]  # the weights in the order sampled
        opts[s] = additive_opt(fn, k)
    for q in budget_grid(1, n, per_octave=8):
        r = K.level_estimate(W[:, :q], n, k) / opts
        if np.mean((r >= 0.5) & (r <= 2.0)) >= 0.9:
            return float(q)
    return np.inf


est_q = {}
for i, n in enumerate(run["est_n"]):
    for j, k in enumerate(run["est_k"]):
        est_q[n, k] = q_star_estimator(n, k, stream=40_000_000 + 100_000 * (10 * i + j))
ratio_nk = np.array([n / k for n, k in est_q])
slope_3 = float(np.polyfit(np.log(ratio_nk), np.log(list(est_q.values())), 1)[0])
b_3, c_3 = fit_slopes(est_q)
print(f"{'n':>6} {'k':>3} {'n/k':>7} {'q*':>8} {'q*/(n/k)':>9}")
for (n, k), q in est_q.items():
    print(f"{n:>6} {k:>3} {n / k:>7.1f} {q:>8,.0f} {q / (n / k):>9.2f}")
print(
    f"slope of log q* on log(n/k): {slope_3:.3f}; joint fit: b = {b_3:.3f} on log n, "
    f"c = {c_3:.3f} on log k"
)

# %%
n_e, k_e = run["est_curve"]
budgets_e = budget_grid(1, n_e, per_octave=4)
succ = {
    kind: estimator_success(
        kind, n_e, k_e, budgets_e, run["est_seeds"], stream=48_000_000 + 100_000 * a
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
    title=f"Planted additive: q* ∝ (n/k)^{slope_3:.2f}",
)
plain_log_ticks(ax)
ax.legend(fontsize=8)
plt.show()

# %%
crit_3 = within("slope on log(n/k)", 0.8, 1.2)
met_3 = crit_3.evaluate({"slope on log(n/k)": slope_3}).passed
print(f"criterion on our estimator and family: {'met' if met_3 else 'not met'}")

# %% [markdown]
# On the planted family the budget our estimator needs follows $n/k$ (right panel,
# fitted slope in its title). The left panel and the printed budgets show the other
# weights: uniform weights are estimated with a small fraction of $n/k$ queries, while
# Pareto weights (a heavy tail: the top $k$ are a few outliers) and the two rare heavy
# elements are caught only once the sample is a sizeable fraction of $n$ — a singleton
# sample of size $o(n)$ misses them. An $\tilde O(n/k)$ estimator for *every* additive
# function, as the paper claims, must therefore use set queries in a way ours does not.

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
        f"family (criterion {'met' if met_3 else 'not met'} there); it fails on rare "
        f"heavy weights"
    ),
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
    natural[name] = ratio_curves(
        lambda g, fn=fn: fn,
        lambda fn, ref=ref: ref,
        fn.n,
        k_nat,
        run["natural_seeds"],
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
# Read with the printed budgets: on the digits function even $k$ random points come
# close to greedy, and the best algorithms reach 90 % of greedy with a small fraction of
# $n$ queries; on the sparse coverage function the value grows steadily with the budget
# and 90 % of greedy takes a budget of the order of $n$. Neither curve has a cliff. Top
# singletons suits facility location badly (the best single representatives are
# redundant), best of blocks suits coverage badly: no single algorithm of ours is best
# everywhere, which is why the suite holds several.
#
# ## Our tools, checked
#
# **S1 · Greedy's guarantee against brute force.** On small random instances of every
# kind we use ($n=14$: coverage, facility location on random digits, additive, hidden
# element; $k\in\{2,3,4\}$), OPT by enumerating all $k$-sets. **Criterion:** the
# smallest greedy/OPT is at least $1-1/e$ (Nemhauser, Wolsey, Fisher 1978), and the
# smallest mean over 20 seeds of stochastic greedy with $\varepsilon=0.1$ is at least
# $1-1/e-0.1$. A bug in the oracle's incremental evaluation would show here.

# %%
g = run.child_rng(70_000_000)
greedy_ratio, stoch_ratio = [], []
for t in range(run["tool_instances"]):
    kind = t % 4
    if kind == 0:
        fn = K.coverage_instance(14, 25, g, mean_size=3.0)
    elif kind == 1:
        fn = K.FacilityLocation(
            sim[
                np.ix_(
                    g.choice(1797, 60, replace=False), g.choice(1797, 14, replace=False)
                )
            ]
        )
    elif kind == 2:
        fn = K.Additive(g.pareto(1.2, 14))
    else:
        fn = K.hidden_element_instance(14, 3, g)
    k = 2 + t % 3
    opt = K.brute_force_opt(fn, k).value
    greedy_ratio.append(K.greedy(fn, k).value / opt)
    stoch = [
        K.stochastic_greedy(
            fn, k, run.child_rng(71_000_000 + 100 * t + s), epsilon=0.1
        ).value
        for s in range(20)
    ]
    stoch_ratio.append(np.mean(stoch) / opt)
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
#   illustrations. Hence claims 1–3 are *not checked at this scale*, whatever our
#   measurements show; their notes record the outcome.
# - **Claim 1's estimation part.** Our algorithms estimate OPT by the best value of a
#   feasible set they queried, so on our family the estimation cliff coincides with the
#   selection cliff; a separate estimate curve would repeat it.
# - **Peers.** `apricot-select` 0.6.1 (2021; it installs beside numpy 2.4 with numba
#   0.68) and `submodlib-py` 0.0.3 were run on one instance; their lazy and stochastic
#   variants were not compared. The natural instances are measured against greedy's
#   value, since their OPT is unknown.
# - **Query model.** Chosen by us (above); the paper's may count marginal gains as two
#   queries or allow caching, which changes constants, not orders.
# - **Criteria** are the issue's, fixed before the run; none was changed after its
#   result (S1 and S2 changed role, not test: see above).
# - **Stability** across seeds: the *seeds* column of the verdict table, from
#   `data/stability/02_kofn_queries.json` (a claim changed since reads "stale record"); the
#   claims whose verdict flips between seeds are named under the table.
#
# ## Run it at full scale
#
# ```bash
# .venv/bin/python -m repbook run 02 --scale full
# ```
# Full scale takes $n$ up to 64,000 for the families (300 seeds), up to 100,000 for the
# estimator, $k$ up to 80, and a sparse coverage function with $n = 100{,}000$. It needs
# no GPU; it has not been run yet, and we expect tens of CPU minutes.
