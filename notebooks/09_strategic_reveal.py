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
# # 09 · Should the decision-maker reveal its classifier?
#
# Han Shao, Shuo Xie, Kunhe Yang — *Should Decision-Makers Reveal Classifiers in Online
# Strategic Classification?*, ICML 2025 · arXiv
# [2506.01936](https://arxiv.org/abs/2506.01936) · no official code (a theory paper
# without experiments).
#
# Agents arrive one per round and may change their features along the edges of a
# *manipulation graph* to get a positive decision. In the standard model the
# decision-maker (DM) publishes its classifier each round and the agents best-respond to
# it. The paper asks what happens when the DM keeps the classifier to itself and the
# agents can only act on a discounted average of the classifiers used in the past
# (discount factor $\gamma$). Its answer, stated in the abstract: hiding makes the DM
# pay $(1-\gamma)^{-1}$ or $k_{\text{in}}$ times more mistakes than publishing, where
# $k_{\text{in}}$ is the largest in-degree of the manipulation graph — withholding
# backfires.
#
# ```{admonition} What we could and could not read
# :class: warning
# The paper's Sections 3–5 (its theorems, Algorithms 1–3 and the lower-bound
# constructions) were **not available to us**: our search tools return only the first
# page of the arXiv HTML (title, abstract, start of the introduction) and the first
# lines of secondary summaries. We confirmed the abstract, the model (graph with
# self-loops, $N_{\text{out}}$, $N_{\text{in}}$, $k_{\text{out}}$, $k_{\text{in}}$ as
# suprema of neighbourhood sizes, best responses
# $\mathrm{BR}_h(x)=\arg\max_{v\in N_{\text{out}}[x]}h(v)$, strategic realisability, the
# mistake count) and the discounted average
# $\bar h_t=\frac{1-\gamma}{1-\gamma^{t-1}}\sum_{\tau=0}^{t-2}\gamma^\tau h_{t-1-\tau}$
# from a secondary summary of the paper (themoonlight.io). We could **not** confirm the
# exact mistake bounds (their $\ln|\mathcal H|$, Littlestone-dimension and
# $k_{\text{out}}$ factors), the algorithms or the constructions. Every bound, learner
# and construction below is therefore **ours**, written for this chapter and labelled
# so; the paper's results appear only as the abstract states them.
# ```
#
# ```{admonition} Claims we test
# 1. **Arbitrary tie-breaking costs a factor $k_{\text{in}}$** (our construction): on a
#    star whose hub has in-degree $K+1$, an adaptive adversary forces every learner we
#    run to make at least $K-1$ mistakes when ties are broken against the DM, while
#    halving makes at most $\lceil\log_2 K\rceil$ when agents stay put on ties; the cost
#    grows linearly in $K$.
# 2. **Hiding costs a factor $(1-\gamma)^{-1}$.** *Sanity checks of our construction:*
#    (a) after the DM swaps which of two nodes it accepts, agents with long memory keep
#    going to the old one for exactly $r^*(\gamma)=\lceil\ln 2/\ln(1/\gamma)\rceil$
#    rounds; (b) on our switch gadget, a conservative learner pays those $r^*$ rounds at
#    every forced update, so its mistakes grow like $(1-\gamma)^{-1}$ (both hold by the
#    model's definition and the gadget's design). (c) The growth stops near
#    $k_{\text{in}}$, where a reduction to the arbitrary-tie setting becomes cheaper.
# 3. **Withholding does not help** on random instances: the best hidden-classifier
#    learner makes at least as many mistakes as the best revealed one on average, for
#    every $\gamma$; we report the constant $C$ in ratio
#    $\le C\cdot\min\{(1-\gamma)^{-1},k_{\text{in}}\}$.
# 4. **Upper bounds.** *Our own check:* where a learner has an explicit bound (ours,
#    derived below), no run exceeds it; the paper's bounds, whose form and constants we
#    could not read, are quoted.
# ```
#
# All claims are worst-case statements. Lower bounds are checked only on constructed
# instances (claims 1, 2); random instances (claim 3) only compare learners.

# %% tags=["parameters"]
scale = "quick"  # "quick" (≤ 60 s on 2 CPU cores) or "full" (larger graphs, horizons)
seed = 0

# %%
import numpy as np
import pandas as pd
import matplotlib.pyplot as plt

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
)
from repbook.papers import strategic_reveal as S

SIZES = {
    "quick": dict(
        star_K=[2, 4, 8, 16, 32],
        star_T=300,
        units=3,
        switch_gammas=[0.5, 0.8, 0.9, 0.95, 0.98, 0.99, 0.995],
        switch_wait=2000,
        stale_gammas=[0.5, 0.9, 0.99, 0.999],
        stale_history=20_000,
        dag_n=30,
        dag_kin=[2, 4, 8],
        dag_per_kin=2,
        n_hyp=50,
        p_pos=0.1,
        dag_gammas=[0.0, 0.5, 0.9, 0.99],
        dag_T=600,
    ),
    "full": dict(
        star_K=[2, 4, 8, 16, 32, 64, 128],
        star_T=1000,
        units=4,
        switch_gammas=[0.5, 0.8, 0.9, 0.95, 0.98, 0.99, 0.995, 0.998, 0.999],
        switch_wait=8000,
        stale_gammas=[0.5, 0.9, 0.99, 0.999, 0.9999],
        stale_history=200_000,
        dag_n=120,
        dag_kin=[2, 4, 8, 16],
        dag_per_kin=5,
        n_hyp=50,
        p_pos=0.1,
        dag_gammas=[0.0, 0.5, 0.9, 0.99],
        dag_T=3000,
    ),
}
run = setup(scale=scale, seed=seed, sizes=SIZES)
ledger = Ledger.for_run(
    run,
    regime=(
        "manipulation graphs of our own (stars, switch gadgets, random DAGs);"
        " exact simulation"
    ),
)
use_style()
register_colors(
    {
        "k_in = 2": "alt",
        "k_in = 4": "alt2",
        "k_in = 8": "alt3",
        "k_in = 16": "peer",
        "conservative (Alg. 2 analogue)": "ours",
        "monotone reduction (Alg. 3 analogue)": "alt",
        "revealed (Std)": "baseline",
        "best hidden learner": "alt2",
    }
)

# %% [markdown]
# ## The model and the mechanism
#
# A manipulation graph $G=(\mathcal X,E)$ has a self-loop at every node; an agent at $x$
# may move to any $v\in N_{\text{out}}[x]$. A class $\mathcal H$ of classifiers
# $h:\mathcal X\to\{0,1\}$ contains a target $h^*$, and an agent's true label is whether
# it can reach a node $h^*$ accepts, $y=f_{h^*}(x)=\max_{v\in N_{\text{out}}[x]}h^*(v)$.
# Each round the DM commits $h_t$; the adversary, who sees $h_t$, sends an agent
# $(x_t,y_t)$ that keeps the sequence realisable; the agent moves to
# $v_t\in\mathrm{BR}(x_t)$; the DM sees $(v_t,y_t)$ but not $x_t$, and errs when
# $h_t(v_t)\ne y_t$. The three response models:
#
# | model | agents best-respond to | ties |
# |---|---|---|
# | Revealed-Std | $h_t$ | stay at $x_t$ if it is a best response, else adversary |
# | Revealed-Arb | $h_t$ | adversary |
# | $\gamma$-Weighted | $\bar h_t\propto\sum_{s<t}\gamma^{t-1-s}h_s$ | adversary |
#
# Our conventions where the paper's could not be read: $\bar h_1\equiv 0$ (no history:
# every node ties), and agents compare $\bar h_t$ **exactly** (two nodes tie only when
# their histories are identical; the library orders the discounted sums without
# rounding).
#
# The whole cost of hiding comes from memory. Suppose the DM accepted node $a$ for $m$
# rounds and then switches to $b$. After $n$ rounds of $b$ the (unnormalised) memories
# are $\gamma^n(1-\gamma^m)/(1-\gamma)$ for $a$ and $(1-\gamma^n)/(1-\gamma)$ for $b$,
# so agents who can reach both still go to $a$ while $\gamma^n(2-\gamma^m)\ge 1$, i.e.
# for about $\ln 2/\ln(1/\gamma)$ rounds when $m$ is long. By hand, for $\gamma=0.9$ and
# $m=200$:

# %%
gamma_demo, m_demo = 0.9, 200
by_hand_stale = 0
while gamma_demo**by_hand_stale * (2 - gamma_demo**m_demo) >= 1:
    by_hand_stale += 1
hist = [np.array([0, 1, 0])] * m_demo  # nodes: agent x, old node a, new node b
for extra in range(by_hand_stale + 1):
    hbar = S.weighted_average(hist, gamma_demo)
    if extra in (0, by_hand_stale - 1, by_hand_stale):
        print(f"after {extra} rounds of b: h̄(a) = {hbar[1]:.4f}, h̄(b) = {hbar[2]:.4f}")
    hist = hist + [np.array([0, 0, 1])]
print(
    f"stale rounds: by hand {by_hand_stale}, library "
    f"{S.stale_rounds(gamma_demo, m_demo)}, r*(γ) = {S.r_star(gamma_demo)}"
)

# %% [markdown]
# The library computes the same count by playing the rounds with its exact memory, and
# both equal $r^*(0.9)=7$.
#
# ## Claim 1 · Arbitrary tie-breaking costs a factor $k_{\text{in}}$
#
# **Construction (ours).** A star: leaves $x_1,\dots,x_K$ each point to a hub $c$, so
# the hub's in-degree is $k_{\text{in}}=K+1$; hypothesis $h_j$ accepts leaf $x_j$ only.
# An agent at a leaf whose node the DM rejects ties between staying and moving to the
# (rejected) hub.
#
# *Why $K-1$ under Revealed-Arb (our argument).* Accepting the hub is a false positive
# on the hub's own agent and teaches nothing. If the DM rejects every leaf still in its
# version space, the target's agent is pushed to the hub and misclassified, and what the
# DM sees is consistent with every remaining hypothesis. So the DM must accept some
# remaining leaf, and the adversary sends that leaf's agent with label 0: one mistake
# rules out one hypothesis, $K-1$ in all. Under Revealed-Std the target's agent stays on
# its leaf, so a single false negative reveals the target.
#
# We run six learners (defined in the library): halving that ignores strategy (treats
# $(v_t,y_t)$ as a plain example), halving on the strategic version space, the
# Ahmadi–Blum–Yang-style threshold rule (accept nodes backed by
# $\ge 1/(k_{\text{out}}+1)$ of the version space), our $k_{\text{in}}$ threshold rule
# ($\ge 1/(k_{\text{in}}k_{\text{out}}+1)$), "positive on the version space", and a
# proper learner (commits one consistent hypothesis).
#
# **Criterion (fixed before the run).** For every $K\in$ `star_K`: the fewest mistakes
# of any learner under Revealed-Arb is at least $K-1$; halving under Revealed-Std makes
# at most $\lceil\log_2K\rceil$; and the least-squares slope of the Arb mistakes on $K$
# lies in $[0.9,1.1]$. A learner that beat $K-1$ (which our argument says is
# impossible), or a cost growing like $\log K$, would fail it.


# %%
def learner_set(inst, model):
    """The six learners; under γ-Weighted, rules that can be held are conservative."""
    base = [
        S.halving_naive(),
        S.halving(),
        S.aby_threshold(inst),
        S.kin_threshold(inst),
        S.positive_on_vs(),
        S.proper(),
    ]
    if model == "weighted":
        base = [L if L.rule in ("naive", "or") else S.conservative(L) for L in base]
    return base


records = []  # every run, for the bound check of claim 4


def play(inst, learner, model, gamma=None, *, horizon, stream, wait=0, tag=""):
    tr = S.simulate(
        inst,
        learner,
        model=model,
        gamma=gamma,
        horizon=horizon,
        rng=run.child_rng(stream),
        adversary=S.Adversary(wait=wait),
    )
    records.append(
        dict(
            claim=tag,
            instance=inst.name,
            model=model,
            gamma=gamma,
            learner=learner.name,
            mistakes=tr.mistakes,
            rounds=tr.rounds,
            capped=tr.rounds == horizon and not tr.stopped_early,
            bound=S.mistake_bound(inst, learner, model, gamma),
        )
    )
    return tr


star_rows = []
for i, K in enumerate(run["star_K"]):
    inst = S.star_instance(K)
    for model in ("std", "arb"):
        for j, L in enumerate(learner_set(inst, model)):
            tr = play(
                inst,
                L,
                model,
                horizon=run["star_T"],
                stream=1000 * i + 10 * j + (model == "arb"),
                tag="1",
            )
            star_rows.append(
                dict(K=K, model=model, learner=L.name, mistakes=tr.mistakes)
            )
star = pd.DataFrame(star_rows)
print(
    star.pivot_table(
        index=["model", "learner"], columns="K", values="mistakes"
    ).to_string()
)

# %%
Ks = np.array(run["star_K"])
arb_best = star[star.model == "arb"].groupby("K").mistakes.min().loc[Ks].to_numpy()
std_halving = (
    star[(star.model == "std") & (star.learner == "halving")]
    .set_index("K")
    .mistakes.loc[Ks]
    .to_numpy()
)
log2K = np.ceil(np.log2(Ks)).astype(int)
arb_slope = float(np.polyfit(Ks, arb_best, 1)[0])
print(f"best under Arb: {arb_best.tolist()}  (K − 1 = {(Ks - 1).tolist()})")
print(f"halving under Std: {std_halving.tolist()}  (⌈log2 K⌉ = {log2K.tolist()})")
print(f"slope of Arb mistakes on K: {arb_slope:.3f}")

# %% tags=["hide-input"]
fig, ax = plt.subplots(figsize=(6.4, 3.9))
ax.plot(
    Ks,
    arb_best,
    "o-",
    color=color_for("ours"),
    label="Revealed-Arb: fewest mistakes of six learners",
)
ax.plot(
    Ks, std_halving, "s-", color=color_for("baseline"), label="Revealed-Std: halving"
)
ax.plot(Ks, Ks - 1, "--", color=color_for("reference"), lw=1.2, label="K − 1")
ax.step(Ks, log2K, ":", where="mid", color=color_for("muted"), label="⌈log₂ K⌉")
ax.set_xscale("log", base=2)
ax.set_yscale("log")
ax.set(
    xlabel="leaves K (hub in-degree k_in = K + 1)",
    ylabel="mistakes against the adaptive adversary",
    title=f"Arbitrary ties: mistakes grow with slope {arb_slope:.2f} in K",
)
ax.set_xticks(Ks, [str(k) for k in Ks])
ax.yaxis.set_major_formatter(plt.FuncFormatter(lambda v, _: f"{v:g}"))
ax.legend()
plt.show()

# %%
_ = ledger.check(
    1,
    "arbitrary tie-breaking costs a factor k_in (star, our construction)",
    paper="Ω(k_in) times more mistakes than Revealed-Std",
    source="secondary summary",
    measured={
        "Arb best − (K − 1)": arb_best - (Ks - 1),
        "Std halving − ⌈log2 K⌉": std_halving - log2K,
        "slope of Arb mistakes on K": arb_slope,
    },
    criterion=all_of(
        at_least("Arb best − (K − 1)", 0),
        at_most("Std halving − ⌈log2 K⌉", 0),
        within("slope of Arb mistakes on K", 0.9, 1.1),
    ),
)

# %%
stuck = star[(star.model == "arb") & (star.learner == "halving")].mistakes
print(
    f"Under Revealed-Arb the fewest mistakes of any learner equal K − 1 at "
    f"{int((arb_best == Ks - 1).sum())} of {len(Ks)} sizes (slope {arb_slope:.2f}); "
    f"halving under Revealed-Std makes at most {std_halving.max()} (one false "
    f"negative reveals the target). Halving under Revealed-Arb errs in "
    f"{stuck.min()}–{stuck.max()} of {run['star_T']} rounds: its all-reject "
    f"classifier sends every agent to the hub."
)

# %% [markdown]
# ## Claim 2 · Hiding costs a factor $(1-\gamma)^{-1}$
#
# ### (a) Stale rounds after a swap
#
# **Criterion.** With a long history (`stale_history` rounds of the old classifier), the
# number of rounds agents still go to the old node equals $r^*(\gamma)$ exactly for
# every $\gamma$ in `stale_gammas` ($r^*=1,7,69,693$ for $\gamma=0.5,0.9,0.99,0.999$). A
# rounding error in the memory, or ties resolved the wrong way, would show as an
# off-by-one.

# %%
stale_g = run["stale_gammas"]
stale = np.array([S.stale_rounds(g, run["stale_history"]) for g in stale_g])
rstar = np.array([S.r_star(g) for g in stale_g])
stale_short = np.array([S.stale_rounds(g, 10) for g in stale_g])
print(
    pd.DataFrame(
        {
            "γ": stale_g,
            "stale rounds": stale,
            "r*(γ)": rstar,
            "ln 2 / (1 − γ)": np.log(2) / (1 - np.array(stale_g)),
            "stale after only 10 rounds": stale_short,
        }
    ).to_string(index=False)
)

# %% tags=["hide-input"]
fig, ax = plt.subplots(figsize=(6.4, 3.9))
x = 1 / (1 - np.array(stale_g))
ax.plot(
    x,
    stale,
    "o",
    ms=8,
    color=color_for("ours"),
    label=f"simulated, history {run['stale_history']:,} rounds",
)
ax.plot(
    x, stale_short, "s", color=color_for("muted"), label="simulated, history 10 rounds"
)
grid = np.logspace(np.log10(x.min()), np.log10(x.max()), 200)
ax.plot(
    grid,
    np.ceil(np.log(2) / -np.log(1 - 1 / grid)),
    "--",
    color=color_for("reference"),
    lw=1.2,
    label="r*(γ) = ⌈ln 2 / ln(1/γ)⌉",
)
ax.set(
    xscale="log",
    yscale="log",
    xlabel="memory length (1 − γ)⁻¹",
    ylabel="rounds agents follow the old classifier",
    title="After a swap, agents lag r*(γ) ≈ 0.69/(1 − γ) rounds",
)
ax.legend()
plt.show()

# %%
_ = ledger.sanity(
    "2a",
    "agents follow the stale classifier for r*(γ) rounds after a swap",
    why="r*(γ) = ⌈ln 2/ln(1/γ)⌉ follows from the discounted average's definition",
    evidence="derivation",
    measured={
        "largest |stale rounds − r*|": int(np.abs(stale - rstar).max()),
        "stale rounds": dict(zip([f"γ={g}" for g in stale_g], stale.tolist())),
    },
    criterion=at_most("largest |stale rounds − r*|", 0),
)

# %% [markdown]
# With a short history the lag is shorter (the old node's memory has not built up),
# which is why the adversary below waits before forcing each update.
#
# ### (b) The switch gadget
#
# **Construction (ours).** `units` copies of a two-option switch. In each unit an agent
# $x$ reaches $a$ and $b$ and is always positive; an agent $w$ reaches $x$ and is always
# negative (so accepting $x$ itself costs a false positive); probes $z_a\to a$ and
# $z_b\to b$ are positive exactly when their option is the target's. The class holds all
# $2^{\text{units}}$ choices. The adversary is patient: it lets `switch_wait` quiet
# rounds pass, then forces an update in one unit (a probe the DM misclassifies), then
# sends $x$ while its agents still prefer the old option.
#
# Three decision-makers: the **conservative** learner (our analogue of Algorithm 2: it
# commits one consistent hypothesis and changes it only after a mistake made once agents
# have caught up); the **monotone reduction** (our analogue of Algorithm 3: accept every
# node some consistent hypothesis accepts, so the classifier only loses positives and
# hidden play looks like Revealed-Arb); and the conservative learner with the classifier
# **revealed** (Revealed-Std).
#
# **Criterion.** For the conservative learner under $\gamma$-Weighted: the least-squares
# slope of $\log(\text{mistakes})$ on $\log(1-\gamma)^{-1}$ over `switch_gammas` lies in
# $[0.9,1.1]$, and after every forced update the stale mistakes number exactly
# $r^*(\gamma)$. A learner whose stale rounds did not all turn into mistakes, or a cost
# growing like $\log(1-\gamma)^{-1}$, would fail it.

# %%
gad = S.switch_gadget(run["units"])
sw_rows = []
for i, g in enumerate(run["switch_gammas"]):
    for j, (name, L) in enumerate(
        [
            ("conservative (Alg. 2 analogue)", S.conservative(S.proper())),
            ("monotone reduction (Alg. 3 analogue)", S.positive_on_vs()),
        ]
    ):
        tr = play(
            gad,
            L,
            "weighted",
            g,
            horizon=run["switch_wait"] + 4000,
            tag="2",
            stream=50_000 + 10 * i + j,
            wait=run["switch_wait"],
        )
        sw_rows.append(
            dict(
                gamma=g,
                learner=name,
                mistakes=tr.mistakes,
                updates=len(tr.changes),
                r_star=S.r_star(g),
            )
        )
tr_std = play(
    gad,
    S.proper(),
    "std",
    horizon=run["switch_wait"] + 4000,
    tag="2",
    stream=59_999,
    wait=run["switch_wait"],
)
sw = pd.DataFrame(sw_rows)
sw["stale per update"] = (sw.mistakes - sw.updates) / sw.updates
print(sw.to_string(index=False))
print(f"revealed (Std), same gadget and adversary: {tr_std.mistakes} mistakes")

# %%
cons = sw[sw.learner.str.startswith("conservative")].reset_index(drop=True)
mono = sw[sw.learner.str.startswith("monotone")].reset_index(drop=True)
mem_len = 1 / (1 - cons.gamma.to_numpy())
sw_slope = float(np.polyfit(np.log(mem_len), np.log(cons.mistakes), 1)[0])
stale_gap = np.abs(cons["stale per update"] - cons.r_star).to_numpy()
best_hidden = np.minimum(cons.mistakes, mono.mistakes)
cross = mem_len[np.argmax(cons.mistakes.to_numpy() > mono.mistakes.to_numpy())]
print(f"slope of log mistakes on log (1 − γ)⁻¹ (conservative): {sw_slope:.3f}")
print(f"largest |stale mistakes per update − r*|: {stale_gap.max():.0f}")
print(
    f"monotone reduction: {mono.mistakes.min()}–{mono.mistakes.max()} mistakes at "
    f"every γ; cheaper than the conservative learner from (1 − γ)⁻¹ = {cross:.0f} on"
)

# %% tags=["hide-input"]
fig, ax = plt.subplots(figsize=(6.6, 4.0))
ax.plot(
    mem_len,
    cons.mistakes,
    "o-",
    color=color_for("conservative (Alg. 2 analogue)"),
    label="conservative (Alg. 2 analogue)",
)
ax.plot(
    mem_len,
    mono.mistakes,
    "s-",
    color=color_for("monotone reduction (Alg. 3 analogue)"),
    label="monotone reduction (Alg. 3 analogue)",
)
ax.plot(
    mem_len,
    best_hidden,
    "-",
    lw=5,
    alpha=0.25,
    color=color_for("best hidden learner"),
    label="best hidden learner",
)
ax.axhline(
    tr_std.mistakes,
    color=color_for("revealed (Std)"),
    ls="-.",
    label=f"revealed (Std): {tr_std.mistakes}",
)
ax.plot(
    mem_len,
    run["units"] * (1 + cons.r_star),
    "--",
    color=color_for("reference"),
    lw=1.2,
    label="units · (1 + r*(γ))",
)
ax.axvline(cross, color=color_for("muted"), ls=":", lw=1)
ax.annotate(
    "saturation: the reduction\nbecomes cheaper",
    (cross, mono.mistakes.max()),
    xytext=(cross * 1.6, mono.mistakes.max() * 0.35),
    fontsize=8,
    arrowprops=dict(arrowstyle="->", color=color_for("muted")),
)
ax.set(
    xscale="log",
    yscale="log",
    xlabel="memory length (1 − γ)⁻¹",
    ylabel="mistakes on the switch gadget",
    title="A conservative learner pays r*(γ) per forced update",
)
ax.legend(fontsize=8, loc="upper left")
plt.show()

# %%
_ = ledger.sanity(
    "2b",
    "on the switch gadget, a conservative learner's mistakes grow like (1−γ)⁻¹",
    why="on our gadget each forced update costs 1 + r*(γ) mistakes by construction, "
    "and r*(γ) grows like (1−γ)⁻¹",
    measured={
        "slope of log mistakes on log (1−γ)⁻¹": sw_slope,
        "largest |stale per update − r*|": float(stale_gap.max()),
    },
    criterion=all_of(
        within("slope of log mistakes on log (1−γ)⁻¹", 0.9, 1.1),
        at_most("largest |stale per update − r*|", 0),
    ),
)

# %%
units = run["units"]
follows = bool((cons.mistakes == units * (1 + cons.r_star)).all())
print(
    f"Each forced update costs the conservative learner one mistake plus r*(γ) stale "
    f"ones, so its total {'equals' if follows else 'differs from'} "
    f"units·(1 + r*(γ)) at every γ; the +1 keeps the slope ({sw_slope:.2f}) under "
    f"one. Revealed, the same learner makes {tr_std.mistakes / units:.0f} mistake(s) "
    f"per unit; the monotone reduction makes {mono.mistakes.min() / units:.0f}–"
    f"{mono.mistakes.max() / units:.0f} per unit at every γ, so the best hidden "
    f"learner saturates from (1 − γ)⁻¹ = {cross:.0f} on."
)

# %% [markdown]
# ### (c) Saturation near $k_{\text{in}}$
#
# The paper's bound has the form $\min\{(1-\gamma)^{-1},k_{\text{in}}\}$: the reduction
# should take over when the memory is longer than about $k_{\text{in}}$. On our gadget
# the reduction's cost per unit is set by the two options of a unit, not by the gadget's
# in-degree (printed below); we could not build an instance on which the reduction pays
# $k_{\text{in}}$ *and* the conservative learner pays only $r^*$ per update without the
# paper's construction. We record the claim as not checked.

# %%
print(
    f"gadget: k_in = {gad.k_in}, k_out = {gad.k_out}; reduction cost per unit: "
    f"{mono.mistakes.max() / units:.0f}"
)
ledger.not_checked(
    "2c",
    "the (1−γ)⁻¹ growth saturates near k_in, where the reduction becomes cheaper",
    paper="min{(1−γ)⁻¹, k_in} times more mistakes",
    source="abstract",
    criterion=within("saturation level / k_in", 0.5, 2.0),
    note="needs the paper's lower-bound construction (Sections 4–5), which we could "
    f"not read; on our gadget the reduction costs "
    f"{mono.mistakes.max() / units:.0f} per unit, set by the options, not by k_in",
)

# %% [markdown]
# ## Claim 3 · Withholding does not help on random instances
#
# Random DAGs on `dag_n` nodes with in-degree at most $k_{\text{in}}$ (self-loop
# included; one node reaches it exactly), `n_hyp` distinct random hypotheses accepting
# each node with probability `p_pos`, and the same greedy adaptive adversary. For each
# instance and $\gamma$, the **ratio** is the fewest mistakes of the six learners under
# $\gamma$-Weighted over the fewest under Revealed-Std (at least 1). Runs stop at
# `dag_T` rounds; a learner that never learns (halving under ties) is cut there, which
# can only lower its count.
#
# **Criterion.** For every $\gamma\in$ `dag_gammas`, the mean ratio over instances is at
# least 1 (hiding the classifier does not reduce mistakes). We also report
# $C=\max\text{ratio}/\min\{(1-\gamma)^{-1},k_{\text{in}}\}$; its bound is the subject
# of the not-checked claim 3b, because the paper's constant is unknown to us.

# %% tags=["hide-input"]
dag_rows = []
stream = 100_000
for kin in run["dag_kin"]:
    for rep in range(run["dag_per_kin"]):
        stream += 1000
        inst = S.random_dag_instance(
            run["dag_n"], kin, run["n_hyp"], run["p_pos"], run.child_rng(stream)
        )
        settings = [("std", None), ("arb", None)] + [
            ("weighted", g) for g in run["dag_gammas"]
        ]
        for s_i, (model, g) in enumerate(settings):
            for j, L in enumerate(learner_set(inst, model)):
                tr = play(
                    inst,
                    L,
                    model,
                    g,
                    horizon=run["dag_T"],
                    tag="3",
                    stream=stream + 10 * s_i + j,
                )
                dag_rows.append(
                    dict(
                        k_in=kin,
                        rep=rep,
                        k_out=inst.k_out,
                        model=model,
                        gamma=g,
                        learner=L.name,
                        mistakes=tr.mistakes,
                    )
                )
dag = pd.DataFrame(dag_rows)
best = (
    dag.groupby(["k_in", "rep", "model", "gamma"], dropna=False)
    .mistakes.min()
    .reset_index()
)
std_min = best[best.model == "std"].set_index(["k_in", "rep"]).mistakes
hid = best[best.model == "weighted"].copy()
hid["ratio"] = hid.mistakes.to_numpy() / np.maximum(
    std_min.loc[list(zip(hid.k_in, hid.rep))].to_numpy(), 1
)
hid["C"] = hid.ratio / np.minimum(1 / (1 - hid.gamma), hid.k_in)
mean_ratio = hid.groupby("gamma").ratio.mean()
C = float(hid.C.max())
print(
    hid.pivot_table(index=["k_in", "rep"], columns="gamma", values="ratio")
    .round(2)
    .to_string()
)
print("mean ratio by γ: " + ", ".join(f"γ={g}: {r:.2f}" for g, r in mean_ratio.items()))
print(f"C = max ratio / min((1 − γ)⁻¹, k_in) = {C:.2f}")
winners = (
    dag[dag.model == "weighted"]
    .sort_values("mistakes", kind="stable")
    .groupby(["k_in", "rep", "gamma"])
    .learner.first()
    .value_counts()
)
print(
    "best hidden learner per (instance, γ): "
    + ", ".join(f"{k} ×{v}" for k, v in winners.items())
)

# %% tags=["hide-input"]
fig, ax = plt.subplots(figsize=(6.6, 4.0))
gam = run["dag_gammas"]
for off, kin in zip(np.linspace(-0.2, 0.2, len(run["dag_kin"])), run["dag_kin"]):
    d = hid[hid.k_in == kin]
    xpos = np.array([gam.index(g) for g in d.gamma]) + off
    ax.scatter(
        xpos,
        d.ratio,
        s=28,
        color=color_for(f"k_in = {kin}"),
        label=f"k_in = {kin}",
        zorder=3,
    )
ax.plot(
    range(len(gam)),
    mean_ratio.loc[gam].to_numpy(),
    "k_",
    ms=24,
    mew=2,
    label="mean over instances",
)
ax.axhline(
    1, color=color_for("reference"), ls="--", lw=1.2, label="ratio 1 (no effect)"
)
ax.set(
    xticks=range(len(gam)),
    xticklabels=[f"γ = {g}" for g in gam],
    ylim=(0, hid.ratio.max() * 1.15),
    ylabel="mistakes hidden / revealed (best learners)",
    title=f"Hidden vs revealed: {hid.ratio.min():.1f}× to {hid.ratio.max():.1f}× "
    f"the mistakes",
)
ax.legend(fontsize=8, ncols=2)
plt.show()

# %%
_ = ledger.check(
    3,
    "withholding the classifier does not reduce mistakes (random DAGs)",
    paper="withholding backfires: more mistakes, not fewer",
    source="abstract",
    measured={
        "mean ratio hidden / revealed": {f"γ={g}": r for g, r in mean_ratio.items()},
        "C": C,
    },
    criterion=at_least("mean ratio hidden / revealed", 1.0),
)
ledger.not_checked(
    "3b",
    "the ratio stays below C·min{(1−γ)⁻¹, k_in} with the paper's constant",
    paper="O(min{(1−γ)⁻¹, k_in}) times the revealed bound",
    source="abstract",
    criterion=at_most("C", "paper's constant"),
    note=f"the constant (and the paper's algorithm, which our learners only "
    f"approximate) could not be read; measured C = {C:.2f}",
)

# %%
top_g = max(run["dag_gammas"])
w_top = (
    dag[(dag.model == "weighted") & (dag.gamma == top_g)]
    .sort_values("mistakes", kind="stable")
    .groupby(["k_in", "rep"])
    .learner.first()
    .value_counts()
)
c_at = hid.loc[hid.C.idxmax()]
print(
    f"Hiding helped on {int((hid.ratio < 1).sum())} of {len(hid)} (instance, γ) "
    f"pairs. At γ = {top_g} the best hidden learner is most often '{w_top.index[0]}' "
    f"({w_top.iloc[0]} of {w_top.sum()} instances). C is reached at "
    f"γ = {c_at.gamma}, k_in = {c_at.k_in}, where min((1 − γ)⁻¹, k_in) = "
    f"{min(1 / (1 - c_at.gamma), c_at.k_in):.0f} while our hidden learners still pay "
    f"for ties broken against them and a stale round per change; whether the "
    f"paper's algorithm avoids that we cannot tell "
    f"without its text."
)

# %% [markdown]
# ## Claim 4 · Upper bounds
#
# **Our bounds** (derived for this chapter). Write
# $B(m)=\lfloor\ln|\mathcal H|/-\ln(1-1/m)\rfloor$ and $r=r^*(\gamma)$.
#
# - *Threshold rule* (accept $v$ when at least $|V|/m$ of the version space $V$ do). A
#   false positive at $v_t$ removes every hypothesis accepting $v_t$, at least $|V|/m$.
#   A false negative under Revealed-Std is observed at $x_t$ itself, and the survivors
#   must accept a node of $N_{\text{out}}[x_t]$, each backed by less than $|V|/m$: fewer
#   than $k_{\text{out}}|V|/m$. Under arbitrary ties the agent could have come from any
#   of $k_{\text{in}}$ in-neighbours: fewer than $k_{\text{in}}k_{\text{out}}|V|/m$
#   survive. So $m=k_{\text{out}}+1$ gives $B(m)$ under Revealed-Std (the
#   Ahmadi–Blum–Yang-style rule) and $m=k_{\text{in}}k_{\text{out}}+1$ gives $B(m)$
#   under Revealed-Arb: the $k_{\text{in}}$ factor of claim 1 in bound form.
# - *Under $\gamma$-Weighted*, once a classifier has been held $r$ rounds every accepted
#   node's memory exceeds every rejected node's ($\gamma^r\le 1/2$), so agents behave as
#   under Revealed-Arb. The conservative threshold learner pays at most $r$ unsettled
#   mistakes per change, plus round 1: $1+(1+r)B(m)$. The conservative proper learner
#   loses its hypothesis at each settled mistake: $1+(1+r)(|\mathcal H|-1)$.
# - *Positive on the version space* never errs negatively and each false positive
#   removes a hypothesis: $|\mathcal H|-1$ when revealed; hidden, its classifier only
#   loses positives, so only round 1 and the round after each change can surprise it:
#   $2|\mathcal H|-1$.
#
# **Criterion.** Over every run of claims 1–3 whose learner has such a bound, no run
# makes more mistakes than its bound (zero violations). A wrong derivation or a
# simulator that lets agents move where they cannot would show up as a violation.

# %%
rec = pd.DataFrame(records)
bounded = rec[rec.bound.notna()].copy()
bounded["ratio"] = bounded.mistakes / bounded.bound.clip(lower=1)
violations = int((bounded.mistakes > bounded.bound).sum())
cut = int(bounded.capped.sum())
print(
    f"{len(bounded)} runs with an explicit bound ({len(rec)} runs in all); "
    f"violations: {violations}; runs cut at the horizon: {cut}"
)
print("largest mistakes / bound by learner and model:")
print(bounded.groupby(["learner", "model"]).ratio.max().round(3).to_string())

# %% tags=["hide-input"]
fig, ax = plt.subplots(figsize=(6.0, 4.0))
for model, marker in [("std", "s"), ("arb", "^"), ("weighted", "o")]:
    d = bounded[bounded.model == model]
    ax.scatter(
        d.bound,
        d.mistakes.clip(lower=0.5),
        s=14,
        marker=marker,
        alpha=0.6,
        color=color_for({"std": "baseline", "arb": "alt", "weighted": "ours"}[model]),
        label={"std": "Revealed-Std", "arb": "Revealed-Arb", "weighted": "γ-Weighted"}[
            model
        ],
    )
lim = [0.5, bounded.bound.max() * 1.5]
ax.plot(lim, lim, "--", color=color_for("reference"), lw=1.2, label="mistakes = bound")
ax.set(
    xscale="log",
    yscale="log",
    xlabel="our mistake bound",
    ylabel="mistakes made",
    title=f"{violations} of {len(bounded)} runs exceed their bound",
)
ax.legend(fontsize=8)
plt.show()

# %%
_ = ledger.ours(
    4,
    "explicit mistake bounds (ours) are never exceeded",
    why="our own bounds for our learners; the paper's (Sections 3–5) were not readable",
    measured={
        "violations": violations,
        "runs with a bound": len(bounded),
        "largest mistakes / bound": float(bounded.ratio.max()),
    },
    criterion=at_most("violations", 0),
)
ledger.quote(
    "4b",
    "hiding costs (1−γ)⁻¹ or k_in times the revealed mistakes",
    paper="(1−γ)⁻¹ or k_in times more",
    source="abstract",
    note="the exact expressions (ln|H|, Ldim, k_out factors) are in Sections 3–5",
)
ledger.quote(
    "4c",
    "Revealed-Std: no deterministic learner beats o(Δ); O(Δ·ln|H|) is achievable",
    paper="Ω(Δ) lower, O(Δ ln|H|) upper (Δ: max degree)",
    source="literature",
    note="Ahmadi, Blum, Yang (2023), the baseline the paper builds on; our ABY-style "
    "rule attains (k_out+1)·ln|H|",
)

# %%
tight = bounded[bounded.mistakes == bounded.bound]
kinds = sorted(set(tight.instance.str.split(" ").str[0]))
print(
    f"{len(tight)} runs meet their bound with equality "
    f"({', '.join(kinds)} instances); the median run uses "
    f"{bounded.ratio.median():.0%} of its bound."
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
# - **What a verdict audit of issue 38 found, left for the chapter's group issue (08–13).**
#   Claim 1 holds on our star against our adaptive adversary with margin 0 on every seed
#   (and the halving bound is a theorem), so it is close to a check by construction; and it
#   compares Arb with Std rather than hidden with revealed. Claim 3's ratio includes the
#   γ-Weighted model's tie rule against the DM (Revealed-Std breaks ties otherwise), so the
#   ratio is above 1 even at γ = 0; a comparison with Revealed-Arb, or γ-Weighted with the
#   standard tie rule, would isolate the hiding.
# - **Claims regrouped after their results were known** (the book-wide rule that a
#   check true by construction is a sanity check and that our own bounds are not the
#   paper's claims). 2a (agents lag r*(γ) rounds) and 2b (the gadget's slope), both
#   identities of our model and gadget, are now sanity checks; claim 4 (our bounds are
#   never exceeded) is our own check. Their tests are unchanged; none is counted in the
#   paper's tally any more.
# - **Paper text.** Only the abstract and secondary summaries were readable (see the box
#   at the top). The paper's theorems, Algorithms 1–3 and lower-bound constructions
#   could not be confirmed, so:
#   - every learner is our reconstruction: "conservative" (hold the classifier until
#     agents have caught up, change it only after a settled mistake) stands in for
#     Algorithm 2, and "positive on the version space" (a classifier that only loses
#     positives) for Algorithm 3's reduction to Revealed-Arb;
#   - every explicit bound in claim 4 is ours, derived in the text; the paper's are
#     quoted from the abstract;
#   - the star (claim 1) and the switch gadget (claim 2) are our constructions, aligned
#     with the abstract's statements, not with the paper's theorems. Claim 2c
#     (saturation near $k_{\text{in}}$) and claim 3b (the paper's constant) are not
#     checked for this reason.
# - **Conventions we chose.** $\bar h_1\equiv 0$ (no history: all nodes tie); agents
#   compare memories exactly; ties under $\gamma$-Weighted go to the adversary (a
#   secondary summary says the paper assumes arbitrary tie-breaking there); the
#   adversary is greedy: it forces a mistake whenever one exists, keeps the most
#   hypotheses consistent, then teaches the DM the least. In the switch gadget it also
#   waits `switch_wait` rounds before the first forced update.
# - **Baselines.** Halving that ignores strategy, halving on the strategic version
#   space, and an Ahmadi–Blum–Yang-style threshold rule (accept nodes backed by
#   $1/(k_{\text{out}}+1)$ of the version space; our reading of their
#   $O(\Delta\ln|\mathcal H|)$ algorithm, not their code). SOA was not run: computing
#   Littlestone dimensions of 50 random hypotheses is exponential. No peer package
#   exists.
# - **Scale.** Quick: stars up to $K=32$, three switch units with $\gamma\le0.995$, six
#   random DAGs of 30 nodes with horizons of 600 rounds. Runs of learners that never
#   converge are cut at the horizon.
# - **Criteria.** No test was changed after its result was seen; claims 2a, 2b and 4 changed
#   role (see above), not test.
# - **Stability.** The verdict table's last column shows each verdict on seeds 0–4
#   (`repbook stability 09`); when it was recorded, no verdict was unstable. Claims 1
#   and 2 use fixed constructions, so only the random instances of claim 3 (whose runs
#   also enter claim 4) move with the seed.
#
# ## Run it at full scale
#
# ```bash
# .venv/bin/python -m repbook run 09 --scale full
# ```
# Full scale uses stars up to $K=128$, four switch units up to $\gamma=0.999$ (after
# 8,000 quiet rounds), twenty random DAGs of 120 nodes with $k_{\text{in}}$ up to 16 and
# horizons of 3,000 rounds. It needs no GPU; it took about 12 minutes on two busy CPU
# cores.
