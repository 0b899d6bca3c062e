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
# **The paper's claims** (each from its abstract; the estimators and the loss from the
# official code)
#
# 1. The population AURC equals a reweighted risk, $\mathbb{E}[\ell\cdot(-\ln(1-G(s)))]$, where
#    $G$ is the CDF of the confidence score $s$.
# 3. The plug-in estimators are consistent, with a bias that shrinks about like $1/n$; SELE, an
#    earlier estimator, converges to a different value.
# 4. Their error is bounded by the rate $O(\sqrt{\ln n / n})$ (an upper bound, tested one-sided).
# 5. On trained classifiers and several confidence-score functions, the estimators approach the
#    population value and rank the score functions consistently once $n$ is large.
# 6. Fine-tuning with the AURC estimator as the loss lowers the test AURC below plain
#    cross-entropy fine-tuning (judged on paired per-seed gains, gated on the run resolving a
#    gain of 10 % of the test AURC).
#
# **Our own check (outside the paper's tally)**
#
# - **4b** · In our closed-form model the error falls at order $1/\sqrt n$: the bound's
#   $\sqrt{\ln n}$ factor is not attained there.
#
# **Sanity check (an identity)**
#
# - **2** · The Monte Carlo plug-in estimator is *the same number* as the classic empirical AURC
#   (mean selective risk over coverages): the two sums are rearrangements of each other.
# ```
#
# Claims 1, 3 and 4 are the paper's theory, which we check against a model with a closed form;
# claim 5 mirrors its experiments with scikit-learn classifiers in place of CIFAR/ImageNet
# networks; claim 6 is its fine-tuning experiment in miniature, on the synthetic task of claim 5.
# The paper's full text was not available to us offline; its abstract and the official code
# were. Each claim's source in the verdict table says what was read: the abstract for every
# claim of the paper, with the estimators, score functions and loss as the official code has
# them; none rests on the paper's text.

# %% tags=["parameters"]
scale = "quick"  # "quick" (≤ 90 s on 2 CPU cores) or "full" (larger populations)
seed = 0

# %%
import matplotlib.pyplot as plt
import numpy as np
from sklearn.linear_model import LogisticRegression

from repbook.core import all_of, at_least, at_most, color_for, full_run_lines
from repbook.core import paired_gain, paired_summary, reading_lines, reference_line
from repbook.core import same_order, setup, tol, within
from repbook.papers import aurc

# %%
N_GRID = [8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192]
QUICK = dict(n_grid=N_GRID, budget=2_000_000, betas=[0.5, 1.0, 2.0, 4.0])
QUICK |= dict(identity_N=400_000, pool=50_000, train=10_000)
QUICK |= dict(batch_ns=[16, 64, 256, 1024, 4096], batch_reps=200, peer_reps=40)
QUICK |= dict(loss_seeds=10, ft_train=3000, pre_epochs=30, ft_epochs=30)
FULL = dict(n_grid=N_GRID + [16384, 65536], budget=40_000_000, betas=QUICK["betas"])
FULL |= dict(identity_N=10_000_000, pool=400_000, train=50_000)
FULL |= dict(batch_ns=[16, 64, 256, 1024, 4096, 16384], batch_reps=1000, peer_reps=200)
FULL |= dict(loss_seeds=20, ft_train=6000, pre_epochs=60, ft_epochs=60)
SIZES = {"quick": QUICK, "full": FULL}
REGIME = "closed-form error model; scikit-learn models and a torch MLP on a synthetic"
REGIME += " 5-class task; CPU"
COLORS = {"MC plug-in": "ours", "ln plug-in": "alt", "SELE": "baseline"}
COLORS |= {"2·SELE": "alt2", "classic (Geifman)": "muted", "torch-uncertainty": "peer"}

# %%
run = setup(scale=scale, seed=seed, sizes=SIZES, regime=REGIME, colors=COLORS)
ledger = run.ledger

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
lib_mc, lib_classic = aurc.plugin_aurc(err, conf), aurc.empirical_aurc(err, conf)
print(f"lib:     MC plug-in {lib_mc:.6f}, classic AURC {lib_classic:.6f}")

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
betas = run["betas"]
rngs = [run.child_rng(100 + k) for k in range(len(betas))]
identity = aurc.reweighted_identity(betas, run["identity_N"], rngs)
print(identity.round(5).to_string(index=False))

# %% [markdown]
# For the real classifier we draw one classification task (5 classes, 20 features,
# `make_classification`), train on `train` samples and keep two disjoint pools of `pool` samples.
# The same data serve claim 5.

# %%
n_pool = run["pool"]
pools = aurc.synthetic_pools(run["train"], n_pool, seed=seed)
(Xtr, ytr), (XA, yA), (XB, yB) = pools.train, pools.a, pools.b
logreg = LogisticRegression(max_iter=1000).fit(Xtr, ytr)
pA, pB = logreg.predict_proba(XA), logreg.predict_proba(XB)
sA, sB = pA.max(1), pB.max(1)
errA = (pA.argmax(1) != yA).astype(float)
# ∫ R(c) dc on pool A, and E[ℓ · (−ln(1 − G(s)))] with G from pool B
lhs, rhs = aurc.pool_identity(errA, sA, sB)
cov, risk = aurc.risk_coverage_curve(errA, sA)  # for the figure
rel_gap = abs(lhs - rhs) / lhs
print(
    f"logistic regression: accuracy {1 - errA.mean():.3f}\n"
    f"area under the risk–coverage curve {lhs:.4f}, reweighted risk {rhs:.4f}, "
    f"relative gap {rel_gap:.2%}"
)

# %% tags=["hide-input"]
fig, axes = plt.subplots(1, 2, figsize=(10, 3.8))
ax, grid = axes[0], np.linspace(0.3, 4.5, 200)
closed = dict(color=color_for("reference"), ls="--", lw=1.2)
ax.plot(grid, 1 / (grid + 1) ** 2, **closed, label=r"closed form $1/(\beta+1)^2$")
mean_label = r"mean of $\ell\cdot(-\ln(1-s))$ (±4 SE)"
dots = dict(fmt="o", color=color_for("ours"), label=mean_label)
ax.errorbar(identity.beta, identity.reweighted, yerr=4 * identity.se, **dots)
ax.set(xlabel=r"$\beta$ in $P(\mathrm{error}\mid s)=(1-s)^\beta$", ylabel="AURC")
ax.set(title="Reweighted risk = closed-form AURC")
ax.legend()
ax = axes[1]
ax.plot(cov, risk, color=color_for("ours"))
area = dict(alpha=0.15, color=color_for("ours"), label=f"area = {lhs:.4f}")
ax.fill_between(cov, risk, **area)
ax.axhline(rhs, color=color_for("peer"), ls=":", label=f"reweighted risk = {rhs:.4f}")
ax.set(xlabel="coverage c", ylabel="selective risk R(c)", ylim=(0, None))
ax.set(title="Logistic regression: area vs reweighted risk")
ax.legend(loc="upper left")
plt.show()

# %%
ledger.check(
    1,
    "population AURC = E[ℓ·(−ln(1−G(s)))]",
    paper="an equivalent expression of the population AURC as a reweighted risk",
    source="abstract",
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
# Both sides are printed above: the simulated reweighted risk against the closed form for every
# $\beta$ (the `z` column), and on the logistic regression the area under the curve against the
# reweighted risk (their relative gap), although one is computed from ranks within pool A and the
# other from a CDF estimated on pool B.
#
# ## Sanity check 2 · The MC plug-in is the classic empirical AURC
#
# Swapping the two sums shows it: the risk of the $k$ most confident samples, averaged over
# $k$, counts the sample of rank $r$ (ascending) once for each $k \ge n-r+1$, with weight $1/k$,
# which is $\sum_{j=n-r+1}^{n} 1/j = H_n - H_{n-r}$. The check only guards the code.
#
# **Criterion.** Over every simulated batch used below (all $n$, $\beta=1$) and the real model's
# pool, the largest absolute difference between the MC plug-in and the classic empirical AURC is at
# most $10^{-12}$. These scores are continuous, so they never tie. With ties the two differ by
# design: the classic AURC then depends on the arbitrary order of the tied samples, while our
# plug-in gives tied samples the mean of their rank weights (the random forest of claim 5 shows it).

# %%
beta_model = aurc.PowerErrorModel(1.0)
PLUG_INS = ["MC plug-in", "ln plug-in", "SELE"]  # the figures' plug-ins
grid_rngs = [run.child_rng(1000 + k) for k in range(len(run["n_grid"]))]
sims = aurc.simulate_estimators(beta_model, run["n_grid"], run["budget"], grid_rngs)
pool_diff = abs(aurc.plugin_aurc(errA, sA) - aurc.empirical_aurc(errA, sA))
max_diff = max(pool_diff, aurc.largest_mc_classic_gap(sims))
batches_run = sum(len(v["SELE"]) for v in sims.values())
print(
    f"largest |MC plug-in − classic| over {batches_run:,} batches and the real pool: "
    f"{max_diff:.1e}"
)

# %%
n_show, n_range = 64, np.unique(np.logspace(0, 5, 40).astype(int))  # for the figure
rank_weights = {name: aurc.weights(n_show, aurc.NAMED[name]) for name in PLUG_INS}
top_gap = [aurc.mc_weights(m)[-1] - aurc.ln_weights(m)[-1] for m in n_range]
mean_gap = [np.mean(aurc.mc_weights(m) - aurc.ln_weights(m)) for m in n_range]

# %% tags=["hide-input"]
fig, axes = plt.subplots(1, 2, figsize=(10, 3.6))
r = np.arange(1, n_show + 1)
for name, w in rank_weights.items():
    axes[0].plot(r, w, label=name, color=color_for(name))
axes[0].set(xlabel="rank r (1 = least confident)", ylabel=r"weight $\alpha_r$")
axes[0].set(title=f"Rank weights at n = {n_show}")
axes[0].legend()
top = "top rank: $H_n-\\ln(n+1)$"
axes[1].plot(n_range, top_gap, color=color_for("ours"), label=top)
axes[1].plot(n_range, mean_gap, color=color_for("alt"), label="mean over ranks")
reference_line(axes[1], np.euler_gamma, "Euler's γ")
axes[1].set(xscale="log", xlabel="n", ylabel=r"$\alpha^{MC}_r-\alpha^{\ln}_r$")
axes[1].set(title="MC and ln weights differ only at the top")
axes[1].legend()
plt.show()

# %%
ledger.sanity(
    2,
    "MC plug-in = classic empirical AURC",
    why="an identity: the mean over coverages k/n of the top-k risk is Σ_r ℓ_(r) "
    "(H_n − H_(n−r))/n rearranged, so only a bug or rounding can fail it (the abstract "
    "does not state it; the official code has both estimators)",
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
res = aurc.bias_table(beta_model, sims)
MC_LN = ["MC plug-in", "ln plug-in"]
abs_bias = {e: res[res.estimator == e].bias.abs() for e in MC_LN}
slopes_bias = {e: aurc.loglog_slope(ns, abs_bias[e]) for e in MC_LN}
sele_end = res[(res.estimator == "SELE") & (res.n == ns[-1])].iloc[0]
max_z = float(res[res.estimator != "2·SELE"].z.abs().max())

# %%
three = res[res.estimator != "2·SELE"]
bias = three.pivot(index="n", columns="estimator", values="bias")
print(bias.map(lambda v: f"{v:+.2e}").to_string())
slopes = ", ".join(f"{k} {v:.3f}" for k, v in slopes_bias.items())
print(f"log-log slope of |bias|: {slopes}")
print(
    f"SELE at n = {ns[-1]}: mean {sele_end.exact_mean:.4f} (limit "
    f"{beta_model.sele_limit():.4f}), bias {sele_end.bias:+.4f}\nlargest |z|, "
    f"simulated mean vs exact expectation: {max_z:.2f}"
)

# %% tags=["hide-input"]
fig, axes = plt.subplots(1, 2, figsize=(10, 3.8))
ax = axes[0]
for name in ["MC plug-in", "ln plug-in", "SELE", "2·SELE"]:
    d = res[res.estimator == name]
    ax.plot(d.n, d.sim_mean, marker="o", ms=3, color=color_for(name), label=name)
    band = dict(color=color_for(name), alpha=0.12)
    ax.fill_between(d.n, d.sim_mean - d.sd, d.sim_mean + d.sd, **band)
reference_line(ax, truth, "population AURC = 1/4")
sele = dict(color=color_for("SELE"), ls=":", lw=1, label="SELE limit 1/6")
ax.axhline(beta_model.sele_limit(), **sele)
ax.set(xscale="log", xlabel="sample size n", ylabel="estimate (mean ± sd)")
ax.set(title="Plug-in estimators converge to the AURC")
ax.legend(ncols=2, fontsize=8)
ax = axes[1]
for name in ["MC plug-in", "ln plug-in", "SELE"]:
    d = res[res.estimator == name]
    ax.plot(d.n, d.bias.abs(), marker="o", ms=3, color=color_for(name), label=name)
ax.plot(ns, 0.5 / ns, color=color_for("reference"), ls="--", lw=1.2, label="1/(2n)")
ax.set(xscale="log", yscale="log", xlabel="sample size n", ylabel="|bias| (exact)")
ax.set(title="Bias falls like 1/n; SELE's does not")
ax.legend()
plt.show()

# %%
ledger.check(
    3,
    "plug-in bias ~ 1/n; SELE inconsistent",
    paper="the weight estimators are consistent, with low bias",
    source="abstract",
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
    note="the abstract says consistent with low bias; the 1/n window and SELE's bounds "
    "are ours (from our research brief's prototype)",
)

# %% [markdown]
# ## Claim 4 · The error is bounded by the rate $\sqrt{\ln n / n}$
#
# The paper proves that the plug-in estimators converge at the rate $O(\sqrt{\ln n/n})$: an
# *upper bound* on the error. Divided by that rate, the error must stay bounded as $n$ grows.
# Over a finite grid, "bounded" is tested as "does not grow": the normalised error
# $\mathrm{RMSE}\cdot\sqrt{n/\ln n}$ shows no upward trend over the sizes where the $1/n$ bias
# has faded ($n \ge 128$, the threshold of our research brief, fixed before this criterion was
# judged). An error that followed the bound exactly would give a slope of 0; one that decays
# faster, a negative slope.
#
# **Criterion (4), fixed before the run.** For both plug-in estimators (MC and ln), the
# least-squares slope of $\log(\mathrm{RMSE}\cdot\sqrt{n/\ln n})$ on $\log n$ over the grid's
# $n \ge 128$ is at most 0. Plausible failures: an error that decays like $n^{-1/3}$ (slope
# about $+0.1$ here) or stalls at a bias floor (the normalised error then grows like
# $\sqrt{n/\ln n}$).
#
# **Our check (4b).** Whether the bound is tight in our model is not the paper's claim: we test
# that the log-log slope of the RMSE itself lies in $[-0.6,-0.4]$, the $1/\sqrt n$ order.

# %%
N_MIN_RATE = 128
rmse = {e: res[res.estimator == e].rmse for e in MC_LN}
slopes_rmse = {e: aurc.loglog_slope(ns, rmse[e]) for e in MC_LN}
slopes_norm = {
    e: aurc.normalised_rate_slope(ns, rmse[e], n_min=N_MIN_RATE) for e in MC_LN
}
ref_rate = np.sqrt(np.log(ns) / ns)
norm = ", ".join(f"{k} {v:+.3f}" for k, v in slopes_norm.items())
print(f"slope of log(RMSE·√(n/ln n)) on log n, n ≥ {N_MIN_RATE}: {norm}")
slopes = ", ".join(f"{k} {v:.3f}" for k, v in slopes_rmse.items())
print(f"log-log slope of RMSE: {slopes}")
ref_slope = aurc.loglog_slope(ns, ref_rate)
print(f"slope of sqrt(ln n / n) itself over the same n: {ref_slope:.3f}")

# %% tags=["hide-input"]
fig, axes = plt.subplots(1, 2, figsize=(10, 3.8))
ax = axes[0]
for name in ["MC plug-in", "ln plug-in"]:
    d = res[res.estimator == name]
    ax.plot(d.n, d.rmse, marker="o", ms=3, color=color_for(name), label=name)
last = res[(res.estimator == "MC plug-in")].rmse.iloc[-1]
bound = dict(color=color_for("reference"), ls="--", lw=1.2)
bound["label"] = r"$\propto\sqrt{\ln n/n}$ (the bound's rate)"
ax.plot(ns, last / ref_rate[-1] * ref_rate, **bound)
root = dict(color=color_for("muted"), ls=":", lw=1.2, label=r"$\propto 1/\sqrt{n}$")
ax.plot(ns, last * np.sqrt(ns[-1] / ns), **root)
ax.set(xscale="log", yscale="log", xlabel="sample size n")
ax.set(ylabel="RMSE vs the true AURC", title="RMSE against n")
ax.legend(fontsize=8)
ax = axes[1]
for name in ["MC plug-in", "ln plug-in"]:
    d = res[res.estimator == name]
    normed = d.rmse * np.sqrt(d.n / np.log(d.n))
    ax.plot(d.n, normed, marker="o", ms=3, color=color_for(name), label=name)
ax.axvspan(ns[0], N_MIN_RATE, color=color_for("muted"), alpha=0.1, label="not judged")
ax.set(xscale="log", xlabel="sample size n", ylabel=r"RMSE $\cdot\sqrt{n/\ln n}$")
ax.set(ylim=(0, None), title="Normalised by the bound's rate (judged for n ≥ 128)")
ax.legend(fontsize=8)
plt.show()

# %%
NORM = f"slope of log(RMSE·√(n/ln n)) on log n, n ≥ {N_MIN_RATE}"
ledger.check(
    4,
    "RMSE·√(n/ln n) does not grow with n (the error obeys the O(√(ln n/n)) rate)",
    paper="the plug-in estimators converge at the rate O(√(ln n / n))",
    source="abstract",
    measured={NORM: {"MC": slopes_norm["MC plug-in"], "ln": slopes_norm["ln plug-in"]}},
    criterion=at_most(NORM, 0, scale=0.1),
)
ledger.ours(
    "4b",
    "RMSE falls at order 1/√n in the closed-form model (the bound's log factor is not "
    "attained there)",
    why="a diagnostic of our model: the paper states an upper bound, not its tightness",
    measured={
        "RMSE slope": {"MC": slopes_rmse["MC plug-in"], "ln": slopes_rmse["ln plug-in"]}
    },
    criterion=within("RMSE slope", -0.6, -0.4),
)

# %% [markdown]
# The right panel divides the error by the bound's rate; the verdict table gives the slopes and
# their margins. The curve $\sqrt{\ln n/n}$ itself has the slope printed above, outside the
# window of our check 4b: an error that followed the bound exactly would fail 4b, which is why
# the old two-sided window on the RMSE slope (see Deviations) tested our model rather than the
# paper's rate.

# %% [markdown]
# ## Claim 5 · Trained classifiers and several confidence scores
#
# Four scikit-learn models are trained on the task of claim 1. Pool A (`pool` samples) stands in for
# the population: its MC plug-in value (equal to the classic AURC, by sanity check 2) is the *population
# AURC* each estimate is compared with. We then draw `batch_reps` batches of each size $n$ from
# pool B, disjoint from pool A, and compute every estimator for each confidence-score function: max softmax (MSP), softmax
# margin, negative entropy and, where a model has logits, max logit. Random-forest probabilities have
# many ties; tied samples share the mean of their rank weights.
#
# **Criterion.** For every model × score: the MC and ln plug-ins' RMSE at the largest $n$ is at most
# a quarter of their RMSE at the smallest $n$, and their mean at the largest $n$ is within 0.005 of
# the population value. For every model, every pair of score functions whose population AURCs differ
# by more than 0.002 is ordered the same way by the mean MC estimate at the largest $n$.

# %%
models = aurc.trained_models(Xtr, ytr, seed=seed, logistic=logreg)
batches = aurc.batch_indices(
    run["batch_ns"], run["batch_reps"], n_pool, child_rng=run.child_rng, stream=10_000
)  # the same batches for every model and score
TU_AURC = aurc.torch_uncertainty_aurc_metric()
study = aurc.model_study(
    models, pools, batches, peer_reps=run["peer_reps"], peer_metric=TU_AURC
)
pop_df, batch_df, peer_df = study.population, study.batches, study.peers
population = pop_df.pivot(index="model", columns="csf", values="population")
print(population.round(4).to_string())
accuracy = pop_df.groupby("model").accuracy.first()
print("accuracy: " + ", ".join(f"{m} {a:.3f}" for m, a in accuracy.items()))

# %%
n_min, n_max = run["batch_ns"][0], run["batch_ns"][-1]
con = aurc.consistency(study, min_gap=0.002)
rmse_ratio, end_gap = con.rmse_ratio, con.end_gap
print(
    f"RMSE(n={n_max}) / RMSE(n={n_min}): worst {rmse_ratio.max():.3f}, median "
    f"{rmse_ratio.median():.3f}"
)
print(f"|mean − population| at n={n_max}: worst {end_gap.max():.4f}")
pairs = f"{con.ordered}/{con.compared}"
print(f"score-function pairs ordered as in the population: {pairs}")
pool_gap = study.pool_gap
print(
    "|AURC(pool A) − AURC(pool B)|, the pools' own sampling difference: worst "
    f"{max(pool_gap.values()):.4f} ({max(pool_gap, key=pool_gap.get)})"
)

# %% tags=["hide-input"]
fig, axes = plt.subplots(1, 2, figsize=(10, 3.8))
ax = axes[0]
msp = batch_df[(batch_df.csf == "MSP") & (batch_df.estimator == "MC plug-in")]
for mname, d in msp.groupby("model", sort=False):
    ax.plot(d.n, d.rmse, marker="o", ms=3, label=mname)
bn = np.array(run["batch_ns"])
ref = np.sqrt(np.log(bn) / bn)
bound = dict(color=color_for("reference"), ls="--", lw=1.2)
bound["label"] = r"$\propto\sqrt{\ln n/n}$"
ax.plot(bn, ref * msp[msp.n == n_min].rmse.max() / ref[0], **bound)
ax.set(xscale="log", yscale="log", xlabel="batch size n", ylabel="RMSE vs pool AURC")
ax.set(title="MC plug-in on four real models (MSP)")
ax.legend(fontsize=8)
ax = axes[1]
piv = pop_df.pivot(index="model", columns="csf", values="population")
piv.plot.bar(ax=ax, rot=0, width=0.8)
ax.set(ylabel="population AURC (pool)", xlabel="")
ax.set(title="AURC by model and confidence score", ylim=(0, piv.max().max() * 1.35))
ax.tick_params(axis="x", labelsize=8)
ax.legend(fontsize=8, ncols=4, loc="upper center")
plt.show()

# %%
RATIO5 = f"worst RMSE({n_max}) / RMSE({n_min})"
GAP5 = f"worst |mean − population| at n={n_max}"
COUNTS5 = {"pairs ordered": con.ordered, "pairs compared": con.compared}
_ = ledger.check(
    5,
    "estimators approach the population value; scores ranked consistently",
    paper="consistency across data sets, models and CSFs",
    source="abstract",
    measured={RATIO5: rmse_ratio.max(), GAP5: end_gap.max(), **COUNTS5, **con.ranking},
    criterion=all_of(
        at_most(RATIO5, 0.25),
        at_most(GAP5, 0.005),
        same_order("MC estimate", "population", within="model", min_gap=0.002),
    ),
    show=[RATIO5, GAP5, *COUNTS5],
    note="the abstract says the estimators are consistent across models and CSFs; the "
    "bounds 0.25, 0.005 and 0.002 are ours",
)

# %% [markdown]
# Read with the printed numbers: set the worst gap between a batch mean and the pool-A value
# beside the two pools' own difference (printed last above), the sampling noise of a finite
# "population", which the criterion's bound of 0.005 (ours) does not allow for. The committed stability record (seeds 0–4, quick scale) says how often the
# verdict holds; the line below is generated from it.


# %%
record, claim5 = ledger.stability(), ledger.claim("5")
st = record.current(claim5) if record is not None else None
if st is None:
    print("claim 5: the stability record does not describe it as it is now")
else:
    seeds = f"seeds {record.seeds[0]}–{record.seeds[-1]}"
    how = "unstable" if st.unstable else "stable"
    print(f"claim 5 is {how} across {seeds}: {st.cell().removeprefix('unstable: ')}")

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
side, tu_gap, mc_gap = aurc.peer_side_by_side(peer_df)
print(f"mean over the same {run['peer_reps']} batches per n, logistic regression, MSP:")
print(side.loc["logistic regression"].round(4).to_string())
by_n = ", ".join(f"{n}: {v:.4f}" for n, v in tu_gap.items())
print(f"largest |torch-uncertainty − classic| by n:\n  {by_n}")
by_model = ", ".join(f"{m}: {v:.1e}" for m, v in mc_gap.items())
print(f"largest |MC plug-in − classic| by model:\n  {by_model}")

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
# rank weights from each batch's max-softmax confidence (no gradient through the ranks), as the
# official `BaseAURCLoss` does. We do the same in miniature on the synthetic 5-class task of
# claims 1 and 5: for each of `loss_seeds` seeds, a one-hidden-layer torch MLP (64 units) is
# trained with cross-entropy on its own random subset of `ft_train` training samples for
# `pre_epochs` epochs, then copied; one copy continues with cross-entropy, the other is
# fine-tuned with the AURC loss, for `ft_epochs` epochs with the same batches (128, the official
# loss's default) and learning rate. Both are scored on all of pool A (`pool` samples), chosen so
# that the test sample's own noise is small beside that of training (the test errors per run
# are printed below; the 8×8 digits of the previous version gave about 25).
#
# **Gate (fixed before the run): the run can resolve a gain.** The half-width $t\cdot$SE of the
# paired per-seed gains (the same interval the criterion uses) is at most 10 % of the mean test
# AURC after cross-entropy fine-tuning. When it is wider, a gain of that size could go unseen,
# and the claim is `not checked at this scale`. The 10 % is ours (the paper's effect size was
# not read).
#
# **Criterion.** The gain per seed is the test AURC (0/1 loss, MSP, MC plug-in) after
# cross-entropy fine-tuning minus that after AURC fine-tuning; the claim holds when the mean gain
# minus $t\cdot$SE is above 0 (`paired_gain`, Student's quantile on seeds − 1 d.f.), fails when
# the mean plus $t\cdot$SE is at most 0, and is within the noise otherwise. A plausible failure:
# the loss puts weight on the most confident samples, whose cross-entropy is already small, and
# away from the uncertain ones, so it may leave the ranking unchanged or make it worse.

# %%
EPOCHS = dict(pre_epochs=run["pre_epochs"], ft_epochs=run["ft_epochs"])
protocol = aurc.FineTuneProtocol(hidden=64, n_train=run["ft_train"], **EPOCHS)
seeds = range(run["loss_seeds"])
ft = aurc.finetune_comparison(
    Xtr, ytr, XA, yA, seeds=seeds, protocol=protocol, key=seed
)
GAIN6 = "test-AURC gain of AURC fine-tuning over CE, per seed"
RES6 = "t·SE of the gains / mean CE test AURC"
s6 = paired_summary(ft.gain)
mean6, half6, n6 = s6.mean, s6.half, s6.n
print(ft.table().round(5).to_string())

# %%
print(
    f"mean test AURC: CE {ft.aurc_ce.mean():.5f}, AURC loss {ft.aurc_aurc.mean():.5f}\n"
    f"mean gain {mean6:+.5f} ± {half6:.5f} (t·SE, {n6} seeds); AURC loss lower on "
    f"{int((ft.gain > 0).sum())}/{n6} seeds\n"
    f"resolution: t·SE / mean CE test AURC = {half6 / ft.aurc_ce.mean():.3f} "
    "(gate ≤ 0.1)\n"
    f"mean accuracy: CE {ft.accuracy_ce.mean():.4f}, AURC loss "
    f"{ft.accuracy_aurc.mean():.4f}; test errors per run about "
    f"{ft.errors_ce.mean():.0f} of {len(yA):,}"
)

# %% tags=["hide-input"]
fig, ax = plt.subplots(figsize=(5.5, 3.8))
pair = dict(color=color_for("muted"), lw=0.8, alpha=0.7)
for i in range(len(ft.seeds)):
    ax.plot([0, 1], [ft.aurc_ce[i], ft.aurc_aurc[i]], **pair)
ce = dict(color=color_for("baseline"), label="cross-entropy fine-tuning", zorder=3)
ax.scatter(np.zeros(len(ft.seeds)), ft.aurc_ce, **ce)
loss = dict(color=color_for("ours"), label="AURC-loss fine-tuning", zorder=3)
ax.scatter(np.ones(len(ft.seeds)), ft.aurc_aurc, **loss)
ax.set(xticks=[0, 1], xticklabels=["cross-entropy", "AURC loss"], xlim=(-0.4, 1.4))
ax.set(ylabel="test AURC (lower is better)")
ax.set(title="Fine-tuning with the AURC loss, paired by seed")
ax.legend(fontsize=8)
plt.show()

# %%
ledger.check(
    6,
    "fine-tuning with the AURC loss lowers the test AURC below CE fine-tuning",
    paper="effectiveness in fine-tuning AURC performance (CIFAR/ImageNet; effect size "
    "not read)",
    source="abstract",
    evidence="simulation",
    measured={
        GAIN6: ft.gain,
        RES6: half6 / ft.aurc_ce.mean(),
        "mean CE test AURC": ft.aurc_ce.mean(),
        "mean test errors per run (CE)": ft.errors_ce.mean(),
    },
    gate=at_most(RES6, 0.1),
    criterion=paired_gain(GAIN6, k="t"),
    show=[GAIN6, RES6],
    note="the loss as the official code has it, on an MLP and a synthetic task",
    tolerance={  # from data/numerics (SGD moves under other kernels and thread counts)
        GAIN6: tol(abs=0.003),
        RES6: tol(abs=0.006),
        "mean CE test AURC": tol(abs=0.0004),
        "mean test errors per run (CE)": tol(abs=50),
    },
)

# %% [markdown]
# Read the paired plot with the numbers printed above: a line going up is a seed where the AURC
# loss made the test AURC worse. The verdict, its margin and the gate's margin are in the table
# and in the lines under it, with the verdict under other kernels and thread counts. The paper's setting — large pretrained networks fine-tuned on
# CIFAR and ImageNet — is out of reach offline; a verdict here is about the loss on a small MLP.
#
# ## Verdicts

# %% tags=["nbval-check-output"]
ledger.show()

# %% tags=["nbval-ignore-output"]
print(run.time_line())

# %% [markdown]
# **Reading the verdicts.** The lines below are generated from this run's ledger, from the
# committed stability record (quick scale, seeds 0–4, `data/stability/04_aurc.json`; a claim
# changed since reads "stale record" in the table's seeds column), and last from the numerics
# record (`data/numerics/04_aurc.json`: this seed under other kernels and thread counts): a
# verdict that moves there sits at its boundary within the noise of the machine, not only of
# the seeds.

# %%
print("\n".join(reading_lines(ledger)))

# %% [markdown]
# ## Deviations from the paper
#
# - **Paper text.** Only the abstract and the official code (`han678/AsymptoticAURC`) were
#   available offline. The estimators follow `utils/estimators.py` (rank weights by ascending
#   confidence; MC weights $H_n-H_{n-r}$, which the code writes as $\psi(n+1)-\psi(n-r+1)$), the
#   loss follows `utils/loss.py`, and the identity was re-derived. The official code has no
#   fine-tuning script, so claim 6's protocol (pre-training, epochs, learning rate) is ours, and
#   so is its comparator, cross-entropy fine-tuning for the same epochs on the same batches (the
#   abstract names none).
#   Every claim's source says what was read: the abstract (1, 3, 4, 5, 6); none rests on the
#   paper's text, and the bounds inside the criteria of 3 and 5 are ours (their notes say so).
# - **Answered in this revision (an independent verdict audit)** — old → new, the reason, and
#   what was known when the change was made:
#   - *Claim 4: two-sided window → one-sided rate.* Old: claim 4 "RMSE falls at order 1/√n",
#     the log-log slope of the RMSE in $[-0.6,-0.4]$, *reproduced* (slopes about $-0.52$ and
#     $-0.50$ on seed 0), and a claim 4b "the √(ln n) factor is attained", *not checked*. The
#     window rejects the paper's own rate (the slope of $\sqrt{\ln n/n}$ over the grid is
#     printed under claim 4), and the paper states an upper bound, not its attainment. New:
#     claim 4 is one-sided, the slope of $\log(\mathrm{RMSE}\cdot\sqrt{n/\ln n})$ over
#     $n\ge128$ at most 0 (the threshold 128 and "non-increasing" are our research brief's,
#     written before this chapter's first run); the old window moves, unchanged, to our check 4b
#     (outside the paper's tally); the old 4b is dropped. Known: the RMSE slopes on seeds 0–4 (about
#     $-0.5$), hence the direction of the new test.
#   - *Claim 6: 8×8 digits, means and a Wilcoxon test → the synthetic task, a gate on
#     resolution and a paired gain.* Old: 10 seeds on scikit-learn's digits (about 25 test
#     errors per split), "mean paired difference < 0 and one-sided Wilcoxon p < 0.05",
#     *not reproduced* on seeds 0–4 (on seed 0: mean difference +0.00024, AURC loss lower on 2 of
#     10 seeds, p = 0.97; from the previous reference ledger). With so few errors the test AURC
#     of one run is noisier than any plausible effect. New: the task of claims 1 and 5, each
#     run scored on all of pool A; the gate and the criterion above (the book's paired rule
#     with Student's quantile), fixed before the new set-up was run. Known: the digits result
#     only; nothing of the new task's fine-tuning. Nothing was changed after its first run
#     except the tolerances, set from the numerics record.
#   - *Claim 2 → sanity check 2.* Old: a claim of the paper, *reproduced*. It is an identity of
#     the two sums (derived above), which the abstract does not state; only a bug can fail it.
#     New: `ledger.sanity`, the criterion unchanged.
#   - *Claim 5: stability named.* Unchanged criterion; the line under it is generated from the
#     stability record (the previous record had it ✓ on 4 of 5 seeds), and the two pools' own
#     difference is printed beside the gap it bounds.
#   - *Sources.* Old: every claim marked "paper" although only the abstract and the code were
#     read; now each is labelled by what was read.
#   - *Protocols moved into the module.* The estimator study of claim 5, the rate slopes and
#     the fine-tuning comparison are `aurc.estimator_study`, `aurc.ordered_pairs`,
#     `aurc.loglog_slope`, `aurc.normalised_rate_slope` and `aurc.finetune_comparison`
#     (unit-tested); claim 5's batches and numbers are those of the loop they replace. Since
#     then (no value changed) the module is a package (`estimators`, `training`, `protocols`,
#     `study`), the closed-form simulations (`reweighted_identity`, `simulate_estimators`,
#     `bias_table`) and claim 5's pools, models, batches and readings (`synthetic_pools`,
#     `trained_models`, `batch_indices`, `model_study`, `consistency`, `peer_side_by_side`)
#     are tested functions there, and claim 6's network and loop are the house's
#     (`repbook.core.nets`, the same initialisation and batches).
# - **Criteria changed after their results were known (earlier revisions):**
#   - *Claim 5.* Before: the batches were drawn from pool A, the same pool that defines the
#     population value, reproduced. Now: the batches come from pool B, disjoint from pool A, with
#     the same criterion.
#   - *Check 2.* The criterion now states how ties are handled; its test is unchanged.
#
# - **Data.** No CIFAR, ImageNet or Amazon logits can be fetched here. Claims 1, 3 and 4 use a
#   model with a closed form, which tests the theory more sharply than a finite test set can (the
#   paper's own "true AURC" is the value on the full test set). Claims 5 and 6 use a synthetic
#   5-class task (`make_classification`) with a pool of `pool` samples standing in for the
#   population.
# - **The rate.** Claim 4 tests that the error does not outgrow the bound's rate over the grid,
#   not the bound with the paper's constants.
# - **Fine-tuning.** The paper fine-tunes deep networks; ours is a 20-64-5 MLP trained from
#   scratch with cross-entropy and then fine-tuned, so the effect size is not comparable.
# - **Peers.** torch-uncertainty's metric runs from its installed module file, because the package's
#   top-level import requires torchvision (see claim 5). `fd-shifts` is not on PyPI and was not run.
# - **Run time.** The quick scale took 47.9–58.1 s in the runner with two threads over the 11
#   runs of this revision on this book's shared 2-core CPU (2026-12-04; 37.1 s with one thread),
#   within the book's 90 s; the full scale took the time its record gives below. The time of
#   each run is printed under the verdict table (load-dependent: not compared by the tests).
#
# ## Run it at full scale
#
# ```bash
# .venv/bin/python -m repbook full 04   # runs it and records it in data/full_runs/
# # or, directly with papermill (not recorded):
# jupytext --to ipynb -o - notebooks/04_aurc.py | papermill - out.ipynb -p scale full -k python3
# ```
# Full scale uses populations of 10⁷ samples, 40 million simulated scores per sample size, n up to
# 65,536, a 400k pool, 1,000 batches per size and, for claim 6, 20 seeds with 6,000 training
# samples and 60 + 60 epochs (CPU minutes; no GPU needed). The line below is generated from the
# committed record `data/full_runs/04_aurc.json`.

# %%
print("\n".join(full_run_lines(ledger)))
