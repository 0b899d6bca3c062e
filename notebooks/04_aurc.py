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
# # 04 · The population AURC and the rates of its finite-sample estimators
#
# Han Zhou, Jordy Van Landeghem, Teodora Popordanoska, Matthew B. Blaschko — *A Novel
# Characterization of the Population AURC and Rates of Finite-Sample Estimators*, ICML 2025 ·
# arXiv [2410.15361](https://arxiv.org/abs/2410.15361) · official code: `han678/AsymptoticAURC`.
#
# A selective classifier abstains on the inputs it is least sure of. Its quality is summarised by the
# area under the risk–coverage curve (AURC): the error rate among the most confident fraction $c$ of
# inputs, averaged over all coverages $c$. The paper asks what the *population* AURC is, and how fast
# the numbers we compute on $n$ test points approach it.
#
# ```{admonition} Claims we test
# 1. The population AURC equals a reweighted risk, $\mathbb{E}[\ell\cdot(-\ln(1-G(s)))]$, where $G$
#    is the CDF of the confidence score $s$.
# 2. The Monte Carlo plug-in estimator derived from that identity is *the same number* as the classic
#    empirical AURC (mean selective risk over coverages).
# 3. The plug-in estimators are consistent, with a bias that shrinks about like $1/n$; SELE, an
#    earlier estimator, converges to a different value.
# 4. Their error falls at the rate $O(\sqrt{\ln n / n})$.
# 5. On real classifiers and several confidence-score functions, the estimators approach the
#    population value and rank the score functions consistently once $n$ is large.
# 6. Using the AURC estimator as a training loss improves the test AURC over plain cross-entropy.
# ```
#
# Claims 1–4 are the paper's theory, which we check against a model with a closed form; claim 5
# mirrors its experiments with scikit-learn classifiers in place of CIFAR/ImageNet networks; claim 6
# is its fine-tuning experiment in miniature.

# %% tags=["parameters"]
scale = "quick"  # "quick" (≤ 60 s on 2 CPU cores) or "full" (larger populations)
seed = 0

# %%
import numpy as np
import pandas as pd
import matplotlib.pyplot as plt
import torch
from scipy import stats

from repbook.core import (
    Ledger,
    setup,
    use_style,
    color_for,
    reference_line,
    load_sklearn,
    register_colors,
    all_of,
    at_least,
    at_most,
    within,
    same_order,
    tol,
)
from repbook.papers import aurc as A

SIZES = {
    "quick": dict(
        n_grid=[8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192],
        budget=2_000_000,
        betas=[0.5, 1.0, 2.0, 4.0],
        identity_N=400_000,
        pool=50_000,
        train=10_000,
        batch_ns=[16, 64, 256, 1024, 4096],
        batch_reps=200,
        peer_reps=40,
        loss_seeds=10,
        pre_epochs=30,
        ft_epochs=30,
    ),
    "full": dict(
        n_grid=[8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 65536],
        budget=40_000_000,
        betas=[0.5, 1.0, 2.0, 4.0],
        identity_N=10_000_000,
        pool=400_000,
        train=50_000,
        batch_ns=[16, 64, 256, 1024, 4096, 16384],
        batch_reps=1000,
        peer_reps=200,
        loss_seeds=30,
        pre_epochs=60,
        ft_epochs=60,
    ),
}
run = setup(scale=scale, seed=seed, sizes=SIZES)
ledger = Ledger.for_run(
    run,
    regime=(
        "closed-form error model; scikit-learn models on a synthetic task; MLP on 8x8"
        " digits; CPU"
    ),
)
use_style()
register_colors(
    {
        "MC plug-in": "ours",
        "ln plug-in": "alt",
        "SELE": "baseline",
        "2·SELE": "alt2",
        "classic (Geifman)": "muted",
        "torch-uncertainty": "peer",
    }
)

# %% [markdown]
# ## The method
#
# Write $\ell$ for a per-sample loss (the 0/1 error here), $s$ for the confidence score and $G$ for
# its CDF. Keeping the fraction $c$ of most confident inputs keeps those with $G(s) \ge 1-c$, so the
# risk at coverage $c$ is $R(c)=\mathbb{E}[\ell \mid G(s)\ge 1-c]$. Swapping the order of integration
# in $\int_0^1 R(c)\,dc$ gives the paper's identity
#
# $$\mathrm{AURC} = \int_0^1 R(c)\,dc = \mathbb{E}\big[\ell \cdot w(G(s))\big],\qquad w(u) = -\ln(1-u),$$
#
# a risk in which a sample's loss counts more the more confident the model was. On $n$ samples
# ranked by *ascending* confidence ($r=1$ least confident), a plug-in estimator replaces $w(G(s))$
# by a weight $\alpha_r$ that depends only on the rank:
#
# | estimator | weight $\alpha_r$ | where it comes from |
# |---|---|---|
# | MC plug-in | $H_n - H_{n-r}$ | $\mathbb{E}[-\ln(1-U_{(r)})]$ for uniform order statistics |
# | ln plug-in | $-\ln(1 - r/(n+1))$ | $w$ at the expected $G$ of rank $r$ |
# | SELE (Franc et al., 2023) | $r/n$ | $G$ itself instead of $-\ln(1-G)$ |
#
# and estimates $\frac1n\sum_r \ell_{(r)}\alpha_r$. By hand, in four lines: the MC weight of rank $r$
# is the sum of $1/j$ for $j = n-r+1,\dots,n$, and the classic empirical AURC averages the running
# error rate of the most confident samples.

# %%
rng = run.child_rng(0)
conf, err = rng.random(12), (rng.random(12) < 0.4).astype(float)
n = conf.size
alpha = np.array([sum(1 / j for j in range(n - r + 1, n + 1)) for r in range(1, n + 1)])
by_hand_mc = np.sum(err[np.argsort(conf)] * alpha) / n
by_hand_classic = np.mean(np.cumsum(err[np.argsort(-conf)]) / np.arange(1, n + 1))
print(f"by hand: MC plug-in {by_hand_mc:.6f}, classic AURC {by_hand_classic:.6f}")
print(
    f"lib:     MC plug-in {A.plugin_aurc(err, conf):.6f}, classic AURC "
    f"{A.empirical_aurc(err, conf):.6f}"
)

# %% [markdown]
# ## A model with a closed form
#
# To know the true AURC exactly we use a model of our own: $s\sim U(0,1)$, so $G(s)=s$, and a
# sample is an error with probability $(1-s)^\beta$. Then $R(c)=c^\beta/(\beta+1)$,
# $\mathrm{AURC}=1/(\beta+1)^2$, and SELE tends to $\mathbb{E}[\ell G] = 1/(\beta+1)-1/(\beta+2)$.
# Because the errors are independent given the ranks, the *expected* value of every plug-in
# estimator is also exact: $U_{(r)}\sim\mathrm{Beta}(r,n-r+1)$, so
# $\mathbb{E}[\ell_{(r)}]=\mathbb{E}[(1-U_{(r)})^\beta]$ is a ratio of Gamma functions. The bias
# below is therefore computed, not simulated; the simulation checks the formula.
#
# ## Claim 1 · The population AURC is a reweighted risk
#
# **Criterion (fixed before the run).** (a) For each $\beta\in\{0.5,1,2,4\}$, the sample mean of
# $\ell\cdot(-\ln(1-G(s)))$ over a large simulated population lies within 4 standard errors of
# $1/(\beta+1)^2$. (b) On a real classifier (logistic regression on a scikit-learn classification
# task), the area under the empirical risk–coverage curve of one large pool and the reweighted risk
# on that pool, with $G$ estimated from an independent pool, agree within 3 % (relative).

# %%
N = run["identity_N"]
identity = []
for k, beta in enumerate(run["betas"]):
    model = A.PowerErrorModel(beta)
    s, e = model.sample(N, 1, run.child_rng(100 + k))
    terms = e[0] * -np.log1p(-s[0])
    identity.append(
        dict(
            beta=beta,
            closed_form=model.aurc(),
            reweighted=terms.mean(),
            se=terms.std(ddof=1) / np.sqrt(N),
        )
    )
identity = pd.DataFrame(identity)
identity["z"] = (identity.reweighted - identity.closed_form) / identity.se
print(identity.round(5).to_string(index=False))

# %% [markdown]
# For the real classifier we draw one classification task (5 classes, 20 features,
# `make_classification`), train on `train` samples and keep two disjoint pools of `pool` samples.
# The same data serve claim 5.

# %%
from sklearn.datasets import make_classification
from sklearn.linear_model import LogisticRegression
from sklearn.neural_network import MLPClassifier
from sklearn.ensemble import RandomForestClassifier
from sklearn.naive_bayes import GaussianNB
from sklearn.preprocessing import StandardScaler

n_pool, n_train = run["pool"], run["train"]
X, y = make_classification(
    n_samples=n_train + 2 * n_pool,
    n_features=20,
    n_informative=8,
    n_redundant=4,
    n_classes=5,
    n_clusters_per_class=2,
    class_sep=1.0,
    flip_y=0.02,
    random_state=seed,
)
scaler = StandardScaler().fit(X[:n_train])
X = scaler.transform(X)
Xtr, ytr = X[:n_train], y[:n_train]
XA, yA = X[n_train : n_train + n_pool], y[n_train : n_train + n_pool]
XB, yB = X[n_train + n_pool :], y[n_train + n_pool :]

logreg = LogisticRegression(max_iter=1000).fit(Xtr, ytr)
pA, pB = logreg.predict_proba(XA), logreg.predict_proba(XB)
sA, sB = pA.max(1), pB.max(1)
errA = (pA.argmax(1) != yA).astype(float)
lhs = A.empirical_aurc(errA, sA)  # ∫ R(c) dc on pool A
G_hat = np.searchsorted(np.sort(sB), sA, side="right") / (n_pool + 1)  # G from pool B
rhs = A.reweighted_risk(errA, G_hat)  # E[ℓ · (−ln(1 − G(s)))]
rel_gap = abs(lhs - rhs) / lhs
print(
    f"logistic regression: accuracy {1 - errA.mean():.3f}\n"
    f"area under the risk–coverage curve {lhs:.4f}, reweighted risk {rhs:.4f}, "
    f"relative gap {rel_gap:.2%}"
)

# %% tags=["hide-input"]
fig, axes = plt.subplots(1, 2, figsize=(10, 3.8))
ax = axes[0]
grid = np.linspace(0.3, 4.5, 200)
ax.plot(
    grid,
    1 / (grid + 1) ** 2,
    color=color_for("reference"),
    ls="--",
    lw=1.2,
    label=r"closed form $1/(\beta+1)^2$",
)
ax.errorbar(
    identity.beta,
    identity.reweighted,
    yerr=4 * identity.se,
    fmt="o",
    color=color_for("ours"),
    label=r"mean of $\ell\cdot(-\ln(1-s))$ (±4 SE)",
)
ax.set(
    xlabel=r"$\beta$ in $P(\mathrm{error}\mid s)=(1-s)^\beta$",
    ylabel="AURC",
    title="Reweighted risk = closed-form AURC",
)
ax.legend()
ax = axes[1]
cov, risk = A.risk_coverage_curve(errA, sA)
ax.plot(cov, risk, color=color_for("ours"))
ax.fill_between(
    cov, risk, alpha=0.15, color=color_for("ours"), label=f"area = {lhs:.4f}"
)
ax.axhline(rhs, color=color_for("peer"), ls=":", label=f"reweighted risk = {rhs:.4f}")
ax.set(
    xlabel="coverage c",
    ylabel="selective risk R(c)",
    ylim=(0, None),
    title="Logistic regression: area vs reweighted risk",
)
ax.legend(loc="upper left")
plt.show()

# %%
ledger.check(
    1,
    "population AURC = E[ℓ·(−ln(1−G(s)))]",
    paper="identity (theorem)",
    source="paper",
    evidence="derivation",
    measured={
        "max |z| over β": np.abs(identity.z).max(),
        "relative gap (log. regression)": rel_gap,
    },
    criterion=all_of(
        at_most("max |z| over β", 4), at_most("relative gap (log. regression)", 0.03)
    ),
)

# %% [markdown]
# Both sides agree: the simulated reweighted risk sits on the closed form for every $\beta$, and on
# the logistic regression the area under the curve and the reweighted risk match closely (printed
# above), although one is computed from ranks within pool A and the other from a CDF estimated on
# pool B.
#
# ## Claim 2 · The MC plug-in is the classic empirical AURC
#
# **Criterion.** Over every simulated batch used below (all $n$, $\beta=1$) and the real model's
# pool, the largest absolute difference between the MC plug-in and the classic empirical AURC is at
# most $10^{-12}$. These scores are continuous, so they never tie. With ties the two differ by
# design: the classic AURC then depends on the arbitrary order of the tied samples, while our
# plug-in gives tied samples the mean of their rank weights (the random forest of claim 5 shows it).

# %%
beta_model = A.PowerErrorModel(1.0)
sims = {}
max_diff = abs(A.plugin_aurc(errA, sA) - A.empirical_aurc(errA, sA))
for k, n in enumerate(run["n_grid"]):
    reps = int(np.clip(run["budget"] // n, 200, 20_000))
    s, e = beta_model.sample(n, reps, run.child_rng(1000 + k))
    est = {
        name: A.plugin_aurc(e, s, key)
        for name, key in [
            ("MC plug-in", "mc"),
            ("ln plug-in", "ln"),
            ("SELE", "sele"),
            ("2·SELE", "2sele"),
        ]
    }
    est["classic (Geifman)"] = A.empirical_aurc(e, s)
    max_diff = max(
        max_diff, float(np.max(np.abs(est["MC plug-in"] - est["classic (Geifman)"])))
    )
    sims[n] = est
print(
    "largest |MC plug-in − classic| over "
    f"{sum(len(v['SELE']) for v in sims.values()):,} "
    f"batches and the real pool: {max_diff:.1e}"
)

# %% tags=["hide-input"]
fig, axes = plt.subplots(1, 2, figsize=(10, 3.6))
n_show = 64
r = np.arange(1, n_show + 1)
for name, key in [("MC plug-in", "mc"), ("ln plug-in", "ln"), ("SELE", "sele")]:
    axes[0].plot(r, A.weights(n_show, key), label=name, color=color_for(name))
axes[0].set(
    xlabel="rank r (1 = least confident)",
    ylabel=r"weight $\alpha_r$",
    title=f"Rank weights at n = {n_show}",
)
axes[0].legend()
ns = np.unique(np.logspace(0, 5, 40).astype(int))
top_gap = [A.mc_weights(m)[-1] - A.ln_weights(m)[-1] for m in ns]
mean_gap = [np.mean(A.mc_weights(m) - A.ln_weights(m)) for m in ns]
axes[1].plot(ns, top_gap, color=color_for("ours"), label="top rank: $H_n-\\ln(n+1)$")
axes[1].plot(ns, mean_gap, color=color_for("alt"), label="mean over ranks")
reference_line(axes[1], np.euler_gamma, "Euler's γ")
axes[1].set(
    xscale="log",
    xlabel="n",
    ylabel=r"$\alpha^{MC}_r-\alpha^{\ln}_r$",
    title="MC and ln weights differ only at the top",
)
axes[1].legend()
plt.show()

# %%
ledger.check(
    2,
    "MC plug-in = classic empirical AURC",
    paper="equal (derived from the identity)",
    source="paper",
    evidence="derivation",
    measured={"max |MC − classic|": max_diff},
    criterion=at_most("max |MC − classic|", 1e-12),
)

# %% [markdown]
# The two weightings agree everywhere except on the most confident samples, where the MC weight
# exceeds the ln weight by a gap that tends to Euler's $\gamma\approx0.577$, while the mean gap over
# ranks vanishes as $n$ grows.
#
# ## Claim 3 · Consistency: the bias shrinks like $1/n$, SELE goes elsewhere
#
# **Criterion.** With $\beta=1$ (AURC $=1/4$), using the exact expectations: the least-squares slope
# of $\log|\text{bias}|$ on $\log n$ over the grid lies in $[-1.2,-0.8]$ for both the MC and the ln
# plug-in; SELE's bias at the largest $n$ is at least 0.05 in absolute value and its expectation is
# within 0.01 of its limit $1/6$; and at every $n$ the simulated means of the MC, ln and SELE
# estimators lie within 4 standard errors of the exact expectations.

# %%
ns = np.array(run["n_grid"])
truth = beta_model.aurc()
rows = []
for n in ns:
    for name, key in [
        ("MC plug-in", "mc"),
        ("ln plug-in", "ln"),
        ("SELE", "sele"),
        ("2·SELE", "2sele"),
    ]:
        x = sims[n][name]
        rows.append(
            dict(
                n=n,
                estimator=name,
                exact_mean=beta_model.expected_estimate(int(n), key),
                sim_mean=x.mean(),
                se=x.std(ddof=1) / np.sqrt(x.size),
                sd=x.std(ddof=1),
                rmse=np.sqrt(np.mean((x - truth) ** 2)),
            )
        )
res = pd.DataFrame(rows)
res["bias"] = res.exact_mean - truth
res["z"] = (res.sim_mean - res.exact_mean) / res.se


def loglog_slope(x, y):
    return float(np.polyfit(np.log(x), np.log(y), 1)[0])


slopes_bias = {
    e: loglog_slope(ns, res[res.estimator == e].bias.abs())
    for e in ["MC plug-in", "ln plug-in"]
}
sele_end = res[(res.estimator == "SELE") & (res.n == ns[-1])].iloc[0]
max_z = float(res[res.estimator != "2·SELE"].z.abs().max())
print(
    res[res.estimator != "2·SELE"]
    .pivot(index="n", columns="estimator", values="bias")
    .map(lambda v: f"{v:+.2e}")
    .to_string()
)
print(
    "log-log slope of |bias|: "
    + ", ".join(f"{k} {v:.3f}" for k, v in slopes_bias.items())
)
print(
    f"SELE at n = {ns[-1]}: mean {sele_end.exact_mean:.4f} (limit "
    f"{beta_model.sele_limit():.4f}), "
    f"bias {sele_end.bias:+.4f}\nlargest |z|, simulated mean vs exact expectation: "
    f"{max_z:.2f}"
)

# %% tags=["hide-input"]
fig, axes = plt.subplots(1, 2, figsize=(10, 3.8))
ax = axes[0]
for name in ["MC plug-in", "ln plug-in", "SELE", "2·SELE"]:
    d = res[res.estimator == name]
    ax.plot(d.n, d.sim_mean, marker="o", ms=3, color=color_for(name), label=name)
    ax.fill_between(
        d.n, d.sim_mean - d.sd, d.sim_mean + d.sd, color=color_for(name), alpha=0.12
    )
reference_line(ax, truth, "population AURC = 1/4")
ax.axhline(
    beta_model.sele_limit(),
    color=color_for("SELE"),
    ls=":",
    lw=1,
    label="SELE limit 1/6",
)
ax.set(
    xscale="log",
    xlabel="sample size n",
    ylabel="estimate (mean ± sd)",
    title="Plug-in estimators converge to the AURC",
)
ax.legend(ncols=2, fontsize=8)
ax = axes[1]
for name in ["MC plug-in", "ln plug-in", "SELE"]:
    d = res[res.estimator == name]
    ax.plot(d.n, d.bias.abs(), marker="o", ms=3, color=color_for(name), label=name)
ax.plot(ns, 0.5 / ns, color=color_for("reference"), ls="--", lw=1.2, label="1/(2n)")
ax.set(
    xscale="log",
    yscale="log",
    xlabel="sample size n",
    ylabel="|bias| (exact)",
    title="Bias falls like 1/n; SELE's does not",
)
ax.legend()
plt.show()

# %%
ledger.check(
    3,
    "plug-in bias ~ 1/n; SELE inconsistent",
    paper="consistent, low bias",
    source="paper",
    measured={
        "bias slope": {
            "MC": slopes_bias["MC plug-in"],
            "ln": slopes_bias["ln plug-in"],
        },
        "|SELE bias|": abs(sele_end.bias),
        "|SELE − limit|": abs(sele_end.exact_mean - beta_model.sele_limit()),
        "max |z|": max_z,
    },
    criterion=all_of(
        within("bias slope", -1.2, -0.8),
        at_least("|SELE bias|", 0.05),
        at_most("|SELE − limit|", 0.01),
        at_most("max |z|", 4),
    ),
)

# %% [markdown]
# ## Claim 4 · The error falls at the rate $\sqrt{\ln n / n}$
#
# The paper proves an upper bound of order $\sqrt{\ln n/n}$ on the estimation error. Over the
# $n$ a simulation can reach, $\sqrt{\ln n/n}$ and $1/\sqrt n$ differ only by the slowly growing
# $\sqrt{\ln n}$, so we test the order of the decay (4) and leave the log factor (4b) to a test that
# could see it.
#
# **Criterion (4).** The least-squares slope of $\log\mathrm{RMSE}$ on $\log n$ over the grid lies in
# $[-0.6,-0.4]$ for both plug-in estimators: the $1/\sqrt n$ order (slope $-0.5$). A plausible
# failure: an error that decays like $n^{-1/3}$ or stalls at a bias floor.

# %%
slopes_rmse = {
    e: loglog_slope(ns, res[res.estimator == e].rmse)
    for e in ["MC plug-in", "ln plug-in"]
}
ref_rate = np.sqrt(np.log(ns) / ns)
print(
    "log-log slope of RMSE: "
    + ", ".join(f"{k} {v:.3f}" for k, v in slopes_rmse.items())
    + "\nslope of sqrt(ln n / n) itself over the same n: "
    f"{loglog_slope(ns, ref_rate):.3f}"
)

# %% tags=["hide-input"]
fig, ax = plt.subplots()
for name in ["MC plug-in", "ln plug-in"]:
    d = res[res.estimator == name]
    ax.plot(d.n, d.rmse, marker="o", ms=3, color=color_for(name), label=name)
scale_ref = res[(res.estimator == "MC plug-in")].rmse.iloc[-1] / ref_rate[-1]
ax.plot(
    ns,
    scale_ref * ref_rate,
    color=color_for("reference"),
    ls="--",
    lw=1.2,
    label=r"$\propto\sqrt{\ln n/n}$",
)
ax.plot(
    ns,
    res[(res.estimator == "MC plug-in")].rmse.iloc[-1] * np.sqrt(ns[-1] / ns),
    color=color_for("muted"),
    ls=":",
    lw=1.2,
    label=r"$\propto 1/\sqrt{n}$",
)
ax.set(
    xscale="log",
    yscale="log",
    xlabel="sample size n",
    ylabel="RMSE vs the true AURC",
    title=r"RMSE falls like $1/\sqrt{n}$ (the bound $\sqrt{\ln n / n}$ for comparison)",
)
ax.legend()
plt.show()

# %%
ledger.check(
    4,
    "RMSE falls at order 1/√n (the proven rate up to its log factor)",
    paper="O(√(ln n / n))",
    source="paper",
    measured={
        "RMSE slope": {"MC": slopes_rmse["MC plug-in"], "ln": slopes_rmse["ln plug-in"]}
    },
    criterion=within("RMSE slope", -0.6, -0.4),
)
ledger.not_checked(
    "4b",
    "the √(ln n) factor of the rate is attained",
    paper="O(√(ln n / n))",
    source="paper",
    criterion=within("slope of log(RMSE·√n) on log ln n", 0.3, 0.7),
    note="a bound can be loose: testing the factor needs a distribution that attains "
    "it (the "
    "paper's worst case) and n over several decades more than a CPU reaches",
)

# %% [markdown]
# Over this range the RMSE follows $1/\sqrt n$ closely. The curve $\sqrt{\ln n/n}$ decays more slowly:
# its own slope over the same $n$ (printed above) lies just outside the window, so an error that
# followed the bound exactly would fail criterion 4. The measured error is consistent with the
# proven rate as an upper bound; whether the $\ln n$ factor is ever attained is claim 4b, which a
# simulation of this model at these sizes cannot settle.

# %% [markdown]
# ## Claim 5 · Real classifiers and several confidence scores
#
# Four scikit-learn models are trained on the task of claim 1. Pool A (`pool` samples) stands in for
# the population: its MC plug-in value (equal to the classic AURC, by claim 2) is the *population
# AURC* each estimate is compared with. We then draw `batch_reps` batches of each size $n$ from the
# pool and compute every estimator for each confidence-score function: max softmax (MSP), softmax
# margin, negative entropy and, where a model has logits, max logit. Random-forest probabilities have
# many ties; tied samples share the mean of their rank weights.
#
# **Criterion.** For every model × score: the MC and ln plug-ins' RMSE at the largest $n$ is at most
# a quarter of their RMSE at the smallest $n$, and their mean at the largest $n$ is within 0.005 of
# the population value. For every model, every pair of score functions whose population AURCs differ
# by more than 0.002 is ordered the same way by the mean MC estimate at the largest $n$.

# %%
models = {
    "logistic regression": (logreg, lambda m, X: m.decision_function(X)),
    "MLP": (
        MLPClassifier(
            hidden_layer_sizes=(64,),
            max_iter=300,
            early_stopping=True,
            random_state=seed,
        ).fit(Xtr, ytr),
        A.sklearn_mlp_logits,
    ),
    "random forest": (
        RandomForestClassifier(
            n_estimators=100, min_samples_leaf=2, n_jobs=1, random_state=seed
        ).fit(Xtr, ytr),
        None,
    ),
    "naive Bayes": (GaussianNB().fit(Xtr, ytr), None),
}
pop_rows, batch_rows, peer_rows = [], [], []
TU_AURC = A.torch_uncertainty_aurc_metric()
batches = {
    n: np.stack(
        [
            run.child_rng(10_000 + k * 1000 + j).choice(n_pool, n, replace=False)
            for j in range(run["batch_reps"])
        ]
    )
    for k, n in enumerate(run["batch_ns"])
}  # the same batches for every model and score


def errors_and_scores(model, logit_fn, X, y):
    probs = model.predict_proba(X)
    return (
        (probs.argmax(1) != y).astype(float),
        A.confidence_scores(probs, logit_fn(model, X) if logit_fn else None),
    )


for mname, (model, logit_fn) in models.items():
    errs, scores = errors_and_scores(model, logit_fn, XA, yA)  # pool A: the population
    errs_b, scores_b = errors_and_scores(
        model, logit_fn, XB, yB
    )  # pool B: where batches come from
    for csf, sc in scores.items():
        pop = A.plugin_aurc(errs, sc)
        pop_rows.append(
            dict(model=mname, csf=csf, accuracy=1 - errs.mean(), population=pop)
        )
        for n, idx in batches.items():
            E, S = errs_b[idx], scores_b[csf][idx]
            for est, key in [
                ("MC plug-in", "mc"),
                ("ln plug-in", "ln"),
                ("SELE", "sele"),
            ]:
                x = A.plugin_aurc(E, S, key)
                batch_rows.append(
                    dict(
                        model=mname,
                        csf=csf,
                        n=n,
                        estimator=est,
                        mean=x.mean(),
                        rmse=np.sqrt(np.mean((x - pop) ** 2)),
                        population=pop,
                    )
                )
            if (
                csf == "MSP"
            ):  # peers side by side on the same batches (the peer ranks by MSP itself)
                for j in range(run["peer_reps"]):
                    peer_rows.append(
                        {
                            "model": mname,
                            "n": n,
                            "population": pop,
                            "MC plug-in": A.plugin_aurc(E[j], S[j], "mc"),
                            "ln plug-in": A.plugin_aurc(E[j], S[j], "ln"),
                            "classic (Geifman)": A.empirical_aurc(E[j], S[j]),
                            "torch-uncertainty": A.torch_uncertainty_aurc(
                                E[j], S[j], TU_AURC
                            ),
                            "SELE": A.plugin_aurc(E[j], S[j], "sele"),
                            "2·SELE": A.plugin_aurc(E[j], S[j], "2sele"),
                        }
                    )
pop_df, batch_df, peer_df = (
    pd.DataFrame(pop_rows),
    pd.DataFrame(batch_rows),
    pd.DataFrame(peer_rows),
)
print(
    pop_df.pivot(index="model", columns="csf", values="population").round(4).to_string()
)
print(
    "accuracy: "
    + ", ".join(
        f"{m} {a:.3f}" for m, a in pop_df.groupby("model").accuracy.first().items()
    )
)

# %%
n_min, n_max = run["batch_ns"][0], run["batch_ns"][-1]
plug = batch_df[batch_df.estimator.isin(["MC plug-in", "ln plug-in"])]
wide = plug.pivot_table(
    index=["model", "csf", "estimator"], columns="n", values=["rmse", "mean"]
)
rmse_ratio = wide[("rmse", n_max)] / wide[("rmse", n_min)]
end_gap = (
    wide[("mean", n_max)]
    - plug.groupby(["model", "csf", "estimator"]).population.first()
).abs()
ranking, order_ok, order_total = {"MC estimate": {}, "population": {}}, 0, 0
for mname, d in pop_df.groupby("model"):
    est = batch_df[
        (batch_df.model == mname)
        & (batch_df.n == n_max)
        & (batch_df.estimator == "MC plug-in")
    ].set_index("csf")["mean"]
    pop = d.set_index("csf").population
    for csf in pop.index:
        ranking["MC estimate"][f"{mname}: {csf}"] = est[csf]
        ranking["population"][f"{mname}: {csf}"] = pop[csf]
    for i, a in enumerate(pop.index):
        for b in pop.index[i + 1 :]:
            if abs(pop[a] - pop[b]) > 0.002:
                order_total += 1
                order_ok += int(np.sign(pop[a] - pop[b]) == np.sign(est[a] - est[b]))
print(
    f"RMSE(n={n_max}) / RMSE(n={n_min}): worst {rmse_ratio.max():.3f}, median "
    f"{rmse_ratio.median():.3f}"
)
print(f"|mean − population| at n={n_max}: worst {end_gap.max():.4f}")
print(f"score-function pairs ordered as in the population: {order_ok}/{order_total}")

# %% tags=["hide-input"]
fig, axes = plt.subplots(1, 2, figsize=(10, 3.8))
ax = axes[0]
msp = batch_df[(batch_df.csf == "MSP") & (batch_df.estimator == "MC plug-in")]
for mname, d in msp.groupby("model", sort=False):
    ax.plot(d.n, d.rmse, marker="o", ms=3, label=mname)
bn = np.array(run["batch_ns"])
ref = np.sqrt(np.log(bn) / bn)
ax.plot(
    bn,
    ref * msp[msp.n == n_min].rmse.max() / ref[0],
    color=color_for("reference"),
    ls="--",
    lw=1.2,
    label=r"$\propto\sqrt{\ln n/n}$",
)
ax.set(
    xscale="log",
    yscale="log",
    xlabel="batch size n",
    ylabel="RMSE vs pool AURC",
    title="MC plug-in on four real models (MSP)",
)
ax.legend(fontsize=8)
ax = axes[1]
piv = pop_df.pivot(index="model", columns="csf", values="population")
piv.plot.bar(ax=ax, rot=0, width=0.8)
ax.set(
    ylabel="population AURC (pool)",
    xlabel="",
    title="AURC by model and confidence score",
    ylim=(0, piv.max().max() * 1.35),
)
ax.tick_params(axis="x", labelsize=8)
ax.legend(fontsize=8, ncols=4, loc="upper center")
plt.show()

# %%
# %%
ledger.check(
    5,
    "estimators approach the population value; scores ranked consistently",
    paper="consistency across data sets, models and CSFs",
    source="paper",
    measured={
        f"worst RMSE({n_max}) / RMSE({n_min})": rmse_ratio.max(),
        f"worst |mean − population| at n={n_max}": end_gap.max(),
        "pairs ordered": order_ok,
        "pairs compared": order_total,
        **ranking,
    },
    criterion=all_of(
        at_most(f"worst RMSE({n_max}) / RMSE({n_min})", 0.25),
        at_most(f"worst |mean − population| at n={n_max}", 0.005),
        same_order("MC estimate", "population", within="model", min_gap=0.002),
    ),
    show=[
        f"worst RMSE({n_max}) / RMSE({n_min})",
        f"worst |mean − population| at n={n_max}",
        "pairs ordered",
        "pairs compared",
    ],
)

# %% [markdown]
# ### Peers side by side
#
# The same batches (MSP) through the classic empirical AURC, our MC plug-in, SELE, 2·SELE and the
# `AURC` metric of the `torch-uncertainty` package. That package's top-level import needs
# `torchvision`, which has no build for the book's CPU torch 2.13 (pip would replace torch with a
# multi-GB CUDA build), so the chapter loads the metric's own module file from the installed package
# and runs it unchanged. torch-uncertainty integrates the risk–coverage curve with the trapezoid rule
# and rescales by $1/(1-1/n)$: a different finite-sample estimator of the same population quantity.

# %%
PEERS = [
    "MC plug-in",
    "classic (Geifman)",
    "ln plug-in",
    "torch-uncertainty",
    "SELE",
    "2·SELE",
]
side = peer_df.groupby(["model", "n"])[["population"] + PEERS].mean()
print(f"mean over the same {run['peer_reps']} batches per n, logistic regression, MSP:")
print(side.loc["logistic regression"].round(4).to_string())
gaps = peer_df.assign(
    tu=(peer_df["torch-uncertainty"] - peer_df["classic (Geifman)"]).abs(),
    mc=(peer_df["MC plug-in"] - peer_df["classic (Geifman)"]).abs(),
)
print(
    "largest |torch-uncertainty − classic| by n:\n  "
    + ", ".join(f"{n}: {v:.4f}" for n, v in gaps.groupby("n").tu.max().items())
)
print(
    "largest |MC plug-in − classic| by model:\n  "
    + ", ".join(
        f"{m}: {v:.1e}" for m, v in gaps.groupby("model", sort=False).mc.max().items()
    )
)

# %% [markdown]
# The MC and ln plug-ins centre on the pool value, SELE sits well below it and 2·SELE above it;
# torch-uncertainty's trapezoid estimate differs from the classic one by an amount that shrinks
# with $n$ (printed above). The MC plug-in equals the classic AURC on every model except the random
# forest: its probabilities tie often, the classic AURC then depends on the arbitrary order of tied
# samples, and the plug-in with tie-averaged weights does not.
#
# ## Claim 6 · AURC as a training loss
#
# The paper fine-tunes networks with the MC plug-in as the loss, using cross-entropy as $\ell$ and
# rank weights from each batch's max-softmax confidence (no gradient through the ranks). We do the
# same in miniature on scikit-learn's 8×8 digits: a one-hidden-layer torch MLP is trained with
# cross-entropy for `pre_epochs` epochs, then copied; one copy continues with cross-entropy, the
# other is fine-tuned with the AURC loss, for `ft_epochs` epochs with the same batches and learning
# rate. Each seed draws its own train/test split (60/40) and initialisation.
#
# **Criterion.** Over `loss_seeds` seeds, the test AURC (0/1 loss, MSP, MC plug-in) after AURC
# fine-tuning is lower than after cross-entropy fine-tuning on average, with a one-sided Wilcoxon
# signed-rank p-value below 0.05.

# %%
from sklearn.model_selection import train_test_split

Xd, yd = load_sklearn("digits")
Xd = Xd / 16.0


loss_rows = []
for s in range(run["loss_seeds"]):
    Xa, Xb, ya, yb = train_test_split(
        Xd, yd, test_size=0.4, stratify=yd, random_state=seed * 1000 + s
    )
    Xa, Xb = (
        torch.tensor(Xa, dtype=torch.float32),
        torch.tensor(Xb, dtype=torch.float32),
    )
    ya, yb = torch.tensor(ya), torch.tensor(yb)
    base = A.mlp_net(seed * 1000 + s, (64, 32, 10))
    A.train_epochs(
        base,
        torch.optim.SGD(base.parameters(), lr=0.05, momentum=0.9),
        torch.nn.functional.cross_entropy,
        Xa,
        ya,
        run["pre_epochs"],
        run.torch_generator(s),
    )
    for name, loss_fn in [
        ("cross-entropy", torch.nn.functional.cross_entropy),
        ("AURC loss", A.aurc_loss),
    ]:
        net = A.mlp_net(0, (64, 32, 10))
        net.load_state_dict(base.state_dict())
        A.train_epochs(
            net,
            torch.optim.SGD(net.parameters(), lr=0.05, momentum=0.9),
            loss_fn,
            Xa,
            ya,
            run["ft_epochs"],
            run.torch_generator(10_000 + s),
        )
        aurc_test, acc = A.selective_metrics(net, Xb, yb)
        loss_rows.append(dict(seed=s, loss=name, test_aurc=aurc_test, accuracy=acc))
loss_df = pd.DataFrame(loss_rows).pivot(
    index="seed", columns="loss", values=["test_aurc", "accuracy"]
)
diff = loss_df[("test_aurc", "AURC loss")] - loss_df[("test_aurc", "cross-entropy")]
wilcoxon_p = float(stats.wilcoxon(diff, alternative="less").pvalue)
print(loss_df.round(4).to_string())
print(
    "mean test AURC: cross-entropy "
    f"{loss_df[('test_aurc', 'cross-entropy')].mean():.4f}, "
    f"AURC loss {loss_df[('test_aurc', 'AURC loss')].mean():.4f}\n"
    f"mean paired difference {diff.mean():+.4f}; AURC loss lower on "
    f"{int((diff < 0).sum())}/"
    f"{len(diff)} seeds; Wilcoxon p = {wilcoxon_p:.3f}"
)
acc_drop = (
    loss_df[("accuracy", "cross-entropy")] - loss_df[("accuracy", "AURC loss")]
).mean()
print(
    "mean test accuracy: cross-entropy "
    f"{loss_df[('accuracy', 'cross-entropy')].mean():.4f}, "
    f"AURC loss {loss_df[('accuracy', 'AURC loss')].mean():.4f} (difference "
    f"{acc_drop:+.4f})\n"
    "test errors per split: about "
    f"{len(yd) * 0.4 * (1 - loss_df[('accuracy', 'cross-entropy')].mean()):.0f}"
)

# %% tags=["hide-input"]
fig, ax = plt.subplots(figsize=(5.5, 3.8))
ce, al = loss_df[("test_aurc", "cross-entropy")], loss_df[("test_aurc", "AURC loss")]
for i in loss_df.index:
    ax.plot([0, 1], [ce[i], al[i]], color=color_for("muted"), lw=0.8, alpha=0.7)
ax.scatter(
    np.zeros(len(ce)),
    ce,
    color=color_for("baseline"),
    label="cross-entropy fine-tuning",
    zorder=3,
)
ax.scatter(
    np.ones(len(al)),
    al,
    color=color_for("ours"),
    label="AURC-loss fine-tuning",
    zorder=3,
)
ax.set(
    xticks=[0, 1],
    xticklabels=["cross-entropy", "AURC loss"],
    xlim=(-0.4, 1.4),
    ylabel="test AURC (lower is better)",
    title="Fine-tuning with the AURC loss, paired by seed",
)
ax.legend(fontsize=8)
plt.show()

# %%
ledger.check(
    6,
    "AURC loss lowers test AURC vs cross-entropy",
    paper="improves AURC (CIFAR/ImageNet)",
    source="paper",
    evidence="real data",
    measured={
        "mean paired difference": diff.mean(),
        "seeds lower": int((diff < 0).sum()),
        "seeds": len(diff),
        "Wilcoxon p": wilcoxon_p,
    },
    criterion=all_of(
        at_most("mean paired difference", 0, strict=True, scale=0.001),
        at_most("Wilcoxon p", 0.05, strict=True),
    ),
    tolerance={"mean paired difference": tol(abs=2e-06)},
)

# %% [markdown]
# Read the paired plot with the numbers printed above: a line going up is a seed where the AURC loss
# made the test AURC worse. At this size the fine-tuning claim is judged by its sign only, and two
# things limit what a miniature can say. The test AURC rests on a few dozen errors per split, so its
# seed-to-seed spread is as large as any effect. And the AURC loss moves weight onto the most
# confident samples, whose cross-entropy is already small, and away from the uncertain ones that
# decide accuracy; the accuracy of both fine-tunings is printed above. The paper's setting — large pretrained networks fine-tuned with big batches — is what the full scale
# approaches but cannot reach on digits; we report the verdict as measured.
#
# ## Verdicts

# %% tags=["nbval-check-output"]
ledger.show()

# %% tags=["nbval-ignore-output"]
print(f"chapter run time: {run.elapsed():.1f} s at scale={run.scale!r} on {run.device}")

# %% [markdown]
# ## Deviations from the paper
#
# - **Criteria changed after their results were known** (a verdict audit found that a text did
#   not match its test, or that a sample was not independent of its reference):
#   - *Claim 4.* Before: "RMSE = O(√(ln n/n))" with the slope window $[-0.6,-0.4]$, reproduced
#     (slopes about $-0.5$). But the slope of $\sqrt{\ln n/n}$ itself over this grid lies outside
#     that window, so the window tested the $1/\sqrt n$ order, not the paper's rate. Now: claim 4
#     states the $1/\sqrt n$ order with the same window, and the log factor is claim 4b,
#     `not checked at this scale`.
#   - *Claim 5.* Before: the batches were drawn from pool A, the same pool that defines the
#     population value, reproduced. Now: the batches come from pool B, disjoint from pool A, with
#     the same criterion.
#   - *Claim 2.* The criterion now states how ties are handled; its test is unchanged.
#
# - **Data.** No CIFAR, ImageNet or Amazon logits can be fetched here. Claims 1–4 use a model with a
#   closed form, which tests the theory more sharply than a finite test set can (the paper's own
#   "true AURC" is the value on the full test set). Claim 5 uses scikit-learn models on a synthetic
#   5-class task with a 50k-sample pool standing in for the population; claim 6 uses the 8×8 digits.
# - **What we could not confirm from the paper.** The paper's full text was not available to us; the
#   estimators and the loss follow the official code (rank weights by ascending confidence; MC
#   weights $H_n-H_{n-r}$; the code's digamma form $\psi(n+1)-\psi(n-r+1)$ is the same number)
#   and the identity was re-derived. The rate is checked as an empirical slope, not as a bound with
#   the paper's constants.
# - **Fine-tuning.** The paper fine-tunes deep networks; ours is a 64-32-10 MLP on 1,078 training
#   digits, so the effect size is not comparable — only its sign.
# - **Peers.** torch-uncertainty's metric runs from its installed module file, because the package's
#   top-level import requires torchvision (see claim 5). `fd-shifts` is not on PyPI and was not run.
#
# ## Run it at full scale
#
# ```bash
# .venv/bin/python -m repbook run 04 --scale full
# # or, directly with papermill:
# jupytext --to ipynb -o - notebooks/04_aurc.py | papermill - out.ipynb -p scale full -k python3
# ```
# Full scale uses populations of 10⁷ samples, 40 million simulated scores per sample size, n up to
# 65,536, a 400k pool, 1,000 batches per size and 30 seeds for the loss experiment (CPU minutes; no
# GPU needed).
