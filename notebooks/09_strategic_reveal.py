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
# 1. **Arbitrary tie-breaking costs a factor $k_{\text{in}}$** (a *sanity check* on our
#    construction): on a star whose hub has in-degree $K+1$, an adaptive adversary
#    makes every learner pay at least $K-1$ mistakes when ties are broken against the
#    DM, and positive-on-the-version-space pays at most $K-1$ by our bound, while
#    halving makes at most $\lceil\log_2 K\rceil$ when agents stay put on ties. Both
#    sides hold by the argument and the bound we derive, so the run shows our
#    simulator works, not the paper's lower bound.
# 2. **Hiding costs a factor $(1-\gamma)^{-1}$ or $k_{\text{in}}$** (the abstract's main
#    result). Both branches are lower bounds: an instance on which *every* learner pays.
#    We do not have the paper's instances, so both are **blocked**.
#    - The $(1-\gamma)^{-1}$ branch (2): on our switch gadget only one of our learners
#      pays for the memory. *Sanity checks of our gadget:* (a) after the DM swaps which
#      of two nodes it accepts, agents with long memory keep going to the old one for
#      exactly $r^*(\gamma)=\lceil\ln 2/\ln(1/\gamma)\rceil$ rounds; (b) a conservative
#      learner pays those $r^*$ rounds at every forced update (both hold by the
#      model's definition and the gadget's design).
#    - (c) The two branches meet where $(1-\gamma)^{-1}\approx k_{\text{in}}$: this
#      reads the abstract's "or" as $\min\{(1-\gamma)^{-1},k_{\text{in}}\}$, which is
#      *our* reading; **blocked**.
#    - (d) *Our own check:* what our learners pay on our star with hidden agents. Our
#      star is not a lower-bound instance for hidden agents: a learner that accepts
#      every leaf once and then rejects them (in our set) uses the agents' memory to
#      keep them on their leaves. (e) The paper's $k_{\text{in}}$ branch for hidden
#      agents: **blocked** (its construction is unknown to us).
# 3. **Withholding backfires** on random instances: for every $\gamma>0$ in our grid
#    the best hidden-classifier learner makes more mistakes than the best revealed one,
#    a paired gain over instances beyond their noise ($\gamma=0$ shown as a
#    diagnostic). *Our own checks:* (3m) hidden agents, even with a one-round lag, cost
#    more than the tie rule (hidden against Revealed-Arb, which breaks ties against the
#    DM as the hidden model does); (3c) the memory effect, hidden at the longest memory
#    against hidden at $\gamma=0$, instance by instance. The constant $C$ in ratio
#    $\le C\cdot\min\{(1-\gamma)^{-1},k_{\text{in}}\}$ (3b) rests on our reading of the
#    "or" and on the paper's constant: **blocked**.
# 4. **Upper bounds.** *Our own check:* where a learner has an explicit bound (ours,
#    derived below), no run exceeds it; the paper's bounds, whose form and constants we
#    could not read, are quoted.
# ```
#
# All claims are worst-case statements. The one claim of the paper judged here is
# claim 3, a comparison of learners on random instances; no lower bound of the paper is
# judged: our constructions (claim 1's star, claim 2's gadget) show the mechanisms of
# our model, and the paper's lower-bound instances could not be read.

# %% tags=["parameters"]
scale = "quick"  # "quick" (≤ 90 s on 2 CPU cores) or "full" (larger graphs, horizons)
seed = 0

# %%
import matplotlib.pyplot as plt
import numpy as np

from repbook.core import all_of, at_least, at_most, paired_gain, within
from repbook.core import color_for, full_run_lines, reading_lines, setup
from repbook.papers import strategic_reveal

# %%
QUICK = dict(star_K=[2, 4, 8, 16, 32], star_T=300, star_gammas=[0.0, 0.5, 0.9, 0.99])
QUICK |= dict(units=3, switch_gammas=[0.5, 0.8, 0.9, 0.95, 0.98, 0.99, 0.995])
QUICK |= dict(switch_wait=2000, stale_gammas=[0.5, 0.9, 0.99, 0.999])
QUICK |= dict(stale_history=20_000, dag_n=30, dag_kin=[2, 4, 8], dag_per_kin=2)
FULL = dict(star_K=[2, 4, 8, 16, 32, 64, 128], star_T=1000)
FULL |= dict(star_gammas=[0.0, 0.5, 0.9, 0.99, 0.999], units=4)
FULL |= dict(switch_gammas=[0.5, 0.8, 0.9, 0.95, 0.98, 0.99, 0.995, 0.998, 0.999])
FULL |= dict(switch_wait=8000, stale_gammas=[0.5, 0.9, 0.99, 0.999, 0.9999])
FULL |= dict(stale_history=200_000, dag_n=120, dag_kin=[2, 4, 8, 16], dag_per_kin=5)
DAG = dict(n_hyp=50, p_pos=0.1, dag_gammas=[0.0, 0.5, 0.9, 0.99])
SIZES = {"quick": QUICK | DAG | dict(dag_T=600), "full": FULL | DAG | dict(dag_T=3000)}

# %%
REGIME = "manipulation graphs of our own (stars, switch gadgets, random DAGs); "
CONS, MONO = strategic_reveal.SWITCH_LEARNERS  # our Alg. 2 and Alg. 3 analogues
COLORS = {
    CONS: "ours",
    MONO: "alt",
    "revealed (Std)": "baseline",
    "Revealed-Arb": "alt",
}
COLORS |= {"best hidden learner": "alt2", "k_in = 2": "alt", "k_in = 4": "alt2"}
COLORS |= {"k_in = 8": "alt3", "k_in = 16": "peer"}
REGIME += "exact simulation"
run = setup(scale=scale, seed=seed, sizes=SIZES, regime=REGIME, colors=COLORS)
ledger = run.ledger


span = strategic_reveal.span  # 'a' when all equal, else 'a–b' (for generated text)


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
    hbar = strategic_reveal.weighted_average(hist, gamma_demo)
    if extra in (0, by_hand_stale - 1, by_hand_stale):
        print(f"after {extra} rounds of b: h̄(a) = {hbar[1]:.4f}, h̄(b) = {hbar[2]:.4f}")
    hist = hist + [np.array([0, 0, 1])]

# %%
lib_stale = strategic_reveal.stale_rounds(gamma_demo, m_demo)
r_demo = strategic_reveal.r_star(gamma_demo)
print(f"stale rounds: by hand {by_hand_stale}, library {lib_stale}, r*(γ) = {r_demo}")
word = "agrees with" if by_hand_stale == lib_stale == r_demo else "DIFFERS from"
print(f"The library, which plays the rounds with its exact memory, {word} the count "
      f"by hand and r*({gamma_demo}).")  # fmt: skip

# %% [markdown]
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
# its leaf, so a single false negative reveals the target. Our bound of claim 4 gives
# positive-on-the-version-space at most $|\mathcal H|-1=K-1$ under Revealed-Arb, so the
# fewest mistakes are exactly $K-1$: the check below holds by this argument and that
# bound, and is a **sanity check** of the simulator and the adversary (it was the
# paper's check of the $k_{\text{in}}$ factor until issue 34's audit; see Deviations).
#
# We run six learners (defined in the library): halving that ignores strategy (treats
# $(v_t,y_t)$ as a plain example), halving on the strategic version space, the
# Ahmadi–Blum–Yang-style threshold rule (accept nodes backed by
# $\ge 1/(k_{\text{out}}+1)$ of the version space), our $k_{\text{in}}$ threshold rule
# ($\ge 1/(k_{\text{in}}k_{\text{out}}+1)$), "positive on the version space", and a
# proper learner (commits one consistent hypothesis).
#
# **Sanity criterion (unchanged, fixed before its first run).** For every $K\in$
# `star_K`: the fewest mistakes of any learner under Revealed-Arb is at least $K-1$;
# halving under Revealed-Std makes at most $\lceil\log_2K\rceil$; and the
# least-squares slope of the Arb mistakes on $K$ lies in $[0.9,1.1]$. Only a bug can
# fail it: a learner that beat $K-1$ (which our argument says is impossible), or a
# cost growing like $\log K$.


# %%
records = []  # every run, for the bound check of claim 4
STAR_RUN = dict(horizon=run["star_T"], rng_for=run.child_rng)
revealed = [("std", None), ("arb", None)]
star_recs = strategic_reveal.star_sweep(run["star_K"], revealed, **STAR_RUN, tag="1")
records += star_recs
star = strategic_reveal.summarise_star(star_recs, run["star_K"])
print(star.mistakes.to_string())

# %%
Ks, arb_best, std_halving, log2K = star.Ks, star.arb_best, star.std_halving, star.log2K
print("\n".join(star.lines()))


# %% tags=["hide-input"]
def star_axes(ax, ylabel, title):
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set(xlabel="leaves K (hub in-degree k_in = K + 1)", ylabel=ylabel, title=title)
    ax.set_xticks(Ks, [str(k) for k in Ks])
    ax.yaxis.set_major_formatter(plt.FuncFormatter(lambda v, _: f"{v:g}"))


fig, ax = plt.subplots(figsize=(6.4, 3.9))
best_label = "Revealed-Arb: fewest mistakes of six learners"
ax.plot(Ks, arb_best, "o-", color=color_for("ours"), label=best_label)
std_style = dict(color=color_for("baseline"), label="Revealed-Std: halving")
ax.plot(Ks, std_halving, "s-", **std_style)
ax.plot(Ks, Ks - 1, "--", color=color_for("reference"), lw=1.2, label="K − 1")
ax.step(Ks, log2K, ":", where="mid", color=color_for("muted"), label="⌈log₂ K⌉")
title = "Our star, revealed: K − 1 under arbitrary ties (by construction)"
star_axes(ax, "mistakes against the adaptive adversary", title)
ax.legend()
plt.show()

# %%
A1, S1 = "Arb best − (K − 1)", "Std halving − ⌈log2 K⌉"
SL1 = "slope of Arb mistakes on K"
_ = ledger.sanity(
    1,
    "arbitrary tie-breaking costs a factor k_in (star, our construction)",
    why="every learner pays ≥ K − 1 under Revealed-Arb by our argument and positive "
    "on VS pays ≤ |H| − 1 = K − 1 by our bound (claim 4); halving under Revealed-Std "
    "is within its ⌈log2 K⌉",
    evidence="derivation",
    note="the paper (secondary summary): 'Ω(k_in) times more mistakes'; our star is "
    "not its construction",
    measured={A1: arb_best - (Ks - 1), S1: std_halving - log2K, SL1: star.slope},
    criterion=all_of(at_least(A1, 0), at_most(S1, 0), within(SL1, 0.9, 1.1)),
)

# %%
print(
    f"Under Revealed-Arb the fewest mistakes of any learner equal K − 1 at "
    f"{int((arb_best == Ks - 1).sum())} of {len(Ks)} sizes (slope {star.slope:.2f}); "
    f"halving under Revealed-Std makes at most {std_halving.max()} (one false "
    f"negative reveals the target). Halving under Revealed-Arb errs in "
    f"{span(star.arb_halving)} of {run['star_T']} rounds: its all-reject "
    f"classifier sends every agent to the hub."
)

# %% [markdown]
# ## Claim 2 · Hiding costs a factor $(1-\gamma)^{-1}$ or $k_{\text{in}}$
#
# The $(1-\gamma)^{-1}$ branch is a lower bound: an instance on which *every* learner
# pays for the agents' memory. We build the mechanism, agents that lag after a change
# (a), and a gadget that charges that lag to a learner that changes its classifier (b);
# what we lack is the paper's instance that forces every learner to pay, so claim 2 is
# blocked and (a), (b) are sanity checks of our model. (c) is where the two branches
# meet; (d) is what our learners pay on our star with hidden agents (ours), and (e) the
# paper's $k_{\text{in}}$ branch with hidden agents (blocked).
#
# ### (a) Stale rounds after a swap
#
# **Criterion.** With a long history (`stale_history` rounds of the old classifier), the
# number of rounds agents still go to the old node equals $r^*(\gamma)$ exactly for
# every $\gamma$ in `stale_gammas` ($r^*=1,7,69,693$ for $\gamma=0.5,0.9,0.99,0.999$). A
# rounding error in the memory, or ties resolved the wrong way, would show as an
# off-by-one.

# %%
stale = strategic_reveal.stale_sweep(run["stale_gammas"], run["stale_history"])
print(stale.table.to_string(index=False))

# %% tags=["hide-input"]
fig, ax = plt.subplots(figsize=(6.4, 3.9))
x = 1 / (1 - np.array(stale.gammas))
label = f"simulated, history {run['stale_history']:,} rounds"
ax.plot(x, stale.stale, "o", ms=8, color=color_for("ours"), label=label)
label = "simulated, history 10 rounds"
ax.plot(x, stale.stale_short, "s", color=color_for("muted"), label=label)
grid = np.logspace(np.log10(x.min()), np.log10(x.max()), 200)
curve, label = np.ceil(np.log(2) / -np.log(1 - 1 / grid)), "r*(γ) = ⌈ln 2 / ln(1/γ)⌉"
ax.plot(grid, curve, "--", color=color_for("reference"), lw=1.2, label=label)
ax.set(xscale="log", yscale="log", xlabel="memory length (1 − γ)⁻¹")
ax.set(ylabel="rounds agents follow the old classifier")
ax.set(title="After a swap, agents lag r*(γ) ≈ 0.69/(1 − γ) rounds")
ax.legend()
plt.show()

# %%
STALE, BY_GAMMA = "largest |stale rounds − r*|", [f"γ={g}" for g in stale.gammas]
_ = ledger.sanity(
    "2a",
    "agents follow the stale classifier for r*(γ) rounds after a swap",
    why="r*(γ) = ⌈ln 2/ln(1/γ)⌉ follows from the discounted average's definition",
    evidence="derivation",
    measured={
        STALE: stale.worst,
        "stale rounds": dict(zip(BY_GAMMA, stale.stale.tolist())),
    },
    criterion=at_most(STALE, 0),
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
gad = strategic_reveal.switch_gadget(run["units"])
SWITCH = dict(wait=run["switch_wait"], rng_for=run.child_rng, tag="2")
sw_recs, sw_std = strategic_reveal.switch_sweep(
    run["units"], run["switch_gammas"], **SWITCH
)
records += sw_recs + [sw_std]
sw = strategic_reveal.summarise_switch(sw_recs, sw_std)
cons, mono, hide_ratio, cross = sw.cons, sw.mono, sw.hide_ratio, sw.cross
print("\n".join(sw.lines()))

# %% tags=["hide-input"]
fig, ax = plt.subplots(figsize=(6.6, 4.0))
for rows, marker, name in [(cons, "o-", CONS), (mono, "s-", MONO)]:
    ax.plot(sw.mem_len, rows.mistakes, marker, color=color_for(name), label=name)
style = dict(lw=5, alpha=0.25, color=color_for("best hidden learner"))
label = f"best hidden learner: {span(hide_ratio)}× revealed"
ax.plot(sw.mem_len, sw.best_hidden, "-", **style, label=label)
label = f"revealed (Std): {sw.revealed}"
ax.axhline(sw.revealed, color=color_for("revealed (Std)"), ls="-.", label=label)
design = run["units"] * (1 + cons.r_star)
label = "units · (1 + r*(γ)): the gadget's design"
ax.plot(sw.mem_len, design, "--", color=color_for("reference"), lw=1.2, label=label)
ax.axvline(cross, color=color_for("muted"), ls=":", lw=1)
top, arrow = mono.mistakes.max(), dict(arrowstyle="->", color=color_for("muted"))
note = dict(xytext=(cross * 1.6, top * 0.35), fontsize=8, arrowprops=arrow)
ax.annotate("the reduction\nbecomes cheaper", (cross, top), **note)
ax.set(xscale="log", yscale="log", xlabel="memory length (1 − γ)⁻¹")
title = f"Our gadget: the best hidden learner pays {span(hide_ratio)}× the revealed "
title += "mistakes"
ax.set(ylabel="mistakes on the switch gadget", title=title)
ax.legend(fontsize=8, loc="upper left")
plt.show()

# %%
SLOPE2, GAP2 = "slope of log mistakes on log (1−γ)⁻¹", "largest |stale per update − r*|"
_ = ledger.sanity(
    "2b",
    "on the switch gadget, a conservative learner's mistakes grow like (1−γ)⁻¹",
    why="on our gadget each forced update costs 1 + r*(γ) mistakes by construction, "
    "and r*(γ) grows like (1−γ)⁻¹",
    measured={SLOPE2: sw.slope, GAP2: float(sw.stale_gap.max())},
    criterion=all_of(within(SLOPE2, 0.9, 1.1), at_most(GAP2, 0)),
)

# %%
hide = {f"γ={g}": r for g, r in zip(cons.gamma, hide_ratio)}
ledger.not_checked(
    2,
    "hiding costs a factor (1−γ)⁻¹: on some instance every learner pays for the "
    "agents' memory",
    paper="(1−γ)⁻¹ or k_in times more mistakes than the full-knowledge setting",
    source="abstract",
    criterion=at_least(
        "slope of log(fewest hidden mistakes / revealed) on log (1−γ)⁻¹", 0.9
    ),
    measured={"best hidden / revealed on our gadget": hide},
    note="needs an instance on which every learner pays (1−γ)⁻¹ (the paper's "
    "lower-bound construction, which we could not read); on our switch gadget only "
    "the conservative learner pays it, and the best hidden learner (the monotone "
    f"reduction) makes {span(hide_ratio)}× the revealed mistakes at every γ",
    blocked=True,
)

# %%
print(sw.reading(run["units"]))

# %% [markdown]
# ### (c) Where the two branches meet
#
# *Our reading* of the abstract's "$(1-\gamma)^{-1}$ or $k_{\text{in}}$" is
# $\min\{(1-\gamma)^{-1},k_{\text{in}}\}$: the reduction to Revealed-Arb should take
# over when the memory is longer than about $k_{\text{in}}$. The abstract does not say
# which branch applies when, and the theorems that would were not readable, so a test
# of where the branches meet rests on a statement we could not read. On our gadget the
# reduction's cost per unit is set by the two options of a unit, not by the gadget's
# in-degree (printed below). The claim is blocked.

# %%
per_unit = span(mono.mistakes / run["units"])
print(
    f"gadget: k_in = {gad.k_in}, k_out = {gad.k_out}; reduction cost per unit: "
    f"{per_unit}"
)

# %%
ledger.not_checked(
    "2c",
    "the (1−γ)⁻¹ growth saturates near k_in, where the reduction becomes cheaper",
    paper="(1−γ)⁻¹ or k_in times more mistakes (read by us as min{(1−γ)⁻¹, k_in})",
    source="abstract",
    criterion=within("saturation level / k_in", 0.5, 2.0),
    note="the abstract says '(1−γ)⁻¹ or k_in', not which applies when (the min is "
    "our reading), and the paper's construction was not readable; on our gadget the "
    f"reduction costs {per_unit} per unit, set by the options, "
    "not by k_in",
    blocked=True,
)

# %% [markdown]
# ### (d) Our star with hidden agents (our own check)
#
# The star of claim 1, now with agents that see only the discounted average of past
# classifiers ($\gamma\in$ `star_gammas`). The learners are the six of claim 1, the
# conservative versions where a rule can be held, and a seventh, **accept once, then
# halving**: in round 1 it accepts every node some consistent hypothesis accepts, then
# it follows strategic halving. With $\gamma>0$ the leaves it accepted once keep a
# memory above the never-accepted hub, so agents stay on their leaves however it labels
# them later; on the star it can then reject every leaf, and the target's agent, kept
# on its leaf, shows the target in one false negative. This learner uses the agents'
# memory, which none of the six does; it was added after issue 34's audit showed that it
# makes at most 2 mistakes on our star for $K=4,8,16$ and $\gamma=0.5,0.9,0.99$ (see
# Deviations). A run lasts `star_T` rounds or, with memory, long enough for $K-1$
# changes each held $r^*(\gamma)+3$ rounds, twice over.
#
# **Criterion (ours; claim 1's test applied to hidden agents).** Judged on the pairs
# $(K,\gamma)$ with $(1-\gamma)^{-1}\ge k_{\text{in}}=K+1$: the fewest mistakes of any
# learner under $\gamma$-Weighted is at least $K-1$, and at the largest $\gamma$ the
# least-squares slope of those mistakes on the judged $K$ lies in $[0.9,1.1]$. The test
# is claim 1's, fixed long before. *The rule of which pairs are judged is ours*: it
# reads the abstract's "or" as "both branches at least $k_{\text{in}}$", and **it was
# written after a timing probe of these runs (with the six learners) had printed their
# mistakes**. With the seventh learner the result was known before this run, from the
# audit: accept once made at most 2 mistakes on the star at every $\gamma>0$ it tried,
# so the check was expected to fail (the text below reads the result). It is what our
# learners pay on *our* star; our star is not a lower-bound instance for hidden agents,
# and the paper's $k_{\text{in}}$ branch for them (2e) stays blocked. Beside it we show
# the hidden-to-Revealed-Arb ratio.

# %%
sg = run["star_gammas"]
hidden = [("weighted", g) for g in sg]
hs_recs = strategic_reveal.star_sweep(
    run["star_K"], hidden, **STAR_RUN, stream0=200_000, tag="2d"
)
records += hs_recs
hs = strategic_reveal.summarise_hidden_star(hs_recs, Ks, sg, arb_best)
print("\n".join(hs.lines()))

# %% tags=["hide-input"]
hbest = hs.best
fig, ax = plt.subplots(figsize=(6.4, 3.9))
for gi, g in enumerate(sg):
    color = color_for(["peer", "alt2", "alt3", "ours", "muted"][gi % 5])
    style = dict(ms=4 + 1.5 * gi, alpha=0.8, color=color, label=f"hidden, γ = {g}")
    ax.plot(Ks, hbest.loc[g].to_numpy(), "o-", **style)
ax.plot(Ks, arb_best, "^:", color=color_for("Revealed-Arb"), label="Revealed-Arb")
ax.plot(Ks, std_halving, "s-", **std_style)
ax.plot(Ks, Ks - 1, "--", color=color_for("reference"), lw=1.2, label="K − 1")
title = "Our star with hidden agents: fewest mistakes "
title += f"{span(hbest.to_numpy().ravel())} against {span(arb_best)} under Revealed-Arb"
star_axes(ax, "fewest mistakes of our learners", title)
ax.legend(fontsize=8)
plt.show()

# %%
h_minus, g_top, h_slope, vs_arb = hs.minus, hs.g_top, hs.slope, hs.vs_arb
H_MINUS = "hidden best − (K − 1), judged (K, γ)"
H_SLOPE = f"slope of hidden mistakes on K at γ={g_top}"
pairs = [(f"γ={g}, K={K}", i, j) for i, g in enumerate(sg) for j, K in enumerate(Ks)]
_ = ledger.ours(
    "2d",
    "what our learners pay on our star with hidden agents: at least K − 1 for every "
    "learner where (1−γ)⁻¹ ≥ k_in",
    why="claim 1's test on hidden agents, with the pair rule our reading of the "
    "abstract's 'or' (written after a probe printed the mistakes); our star is not a "
    "lower-bound instance for hidden agents",
    measured={
        H_MINUS: h_minus,
        H_SLOPE: h_slope,
        "hidden / Arb (fewest)": {k: float(vs_arb[gi, ki]) for k, gi, ki in pairs},
    },
    show=[H_MINUS, H_SLOPE],
    criterion=all_of(at_least(H_MINUS, 0), within(H_SLOPE, 0.9, 1.1)),
    note="our star and learners, one of which (accept once) uses the agents' memory; "
    "the paper's construction was not readable",
)

# %%
ledger.not_checked(
    "2e",
    "hiding costs a factor k_in: on some instance every learner pays k_in times the "
    "revealed mistakes with hidden agents",
    paper="(1−γ)⁻¹ or k_in times more mistakes than the full-knowledge setting",
    source="abstract",
    criterion=at_least("fewest hidden mistakes − (K − 1) on the paper's instance", 0),
    measured={"fewest hidden mistakes − (K − 1) on our star (2d)": h_minus},
    note="needs the paper's lower-bound construction for hidden agents, which we "
    "could not read; our star is not one (2d: a learner that accepts every leaf once "
    "keeps the agents on their leaves through their memory)",
    blocked=True,
)

# %%
print(hs.reading())

# %% [markdown]
# ## Claim 3 · Withholding backfires on random instances
#
# Random DAGs on `dag_n` nodes with in-degree at most $k_{\text{in}}$ (self-loop
# included; one node reaches it exactly), `n_hyp` distinct random hypotheses accepting
# each node with probability `p_pos`, and the same greedy adaptive adversary. On each
# instance and for each $\gamma$ we compare the fewest mistakes of our learners under
# $\gamma$-Weighted (the seven of claim 2d) with the fewest of the six under
# Revealed-Std: their **difference** (hidden − revealed) is the paired gain of
# revealing, one per instance, and their **ratio** is shown. One hidden learner, accept
# once, uses the agents' memory (it plants them on the nodes it accepted in round 1);
# the other six only suffer it. Runs stop at `dag_T` rounds; a learner that never learns
# (halving under ties) is cut there, which can only lower its count.
#
# **Criterion.** The paper's "can backfire" is existential and, through its
# $(1-\gamma)^{-1}$ branch, predicts a memory cost only for $\gamma>0$. For every
# $\gamma>0$ in `dag_gammas`, the mean paired difference over instances, less $k$
# standard errors, is above 0 (hiding strictly increases mistakes beyond the noise
# between instances), with $k$ the 97.5 % quantile of Student's $t$ with $n-1$ degrees
# of freedom. $\gamma=0$ (agents follow the last classifier) is shown as a diagnostic.
# Equal mistakes on every instance, a difference within the noise, or a learner that
# uses the memory well enough to match the revealed DM fail it. *When it was fixed:*
# judging $\gamma>0$ only (with $\gamma=0$ a diagnostic) was decided after the
# audit, when the earlier run (six learners, every $\gamma$ judged) had passed at every
# $\gamma$; the run with the seven learners had not been made (see Deviations).
#
# *Our own checks, fixed with it, before the run with seven learners.* (3m) Revealed-Std
# lets agents stay put on ties; the hidden model breaks ties against the DM, as
# Revealed-Arb does, so part of the gap is the tie rule. Hidden agents, even with a
# one-round lag, cost more than the tie rule: for every $\gamma$ in `dag_gammas`
# ($\gamma=0$ included), the paired difference hidden − Revealed-Arb is above 0 by the
# same rule. (3c) The memory effect: the paired difference hidden($\gamma_{\max}$) −
# hidden($\gamma=0$) per instance is above 0 by the same rule (longer memory costs the
# DM mistakes beyond a one-round lag); a learner that profits from the memory can make
# it fail. The ratio $C=\max\text{ratio}/\min\{(1-\gamma)^{-1},k_{\text{in}}\}$ is
# printed; its bound (3b) rests on our "min" reading and on the paper's constant.

# %%
DAG_SIZES = ("dag_n", "dag_kin", "dag_per_kin", "n_hyp", "p_pos", "dag_gammas")
dag_recs = strategic_reveal.dag_sweep(
    *[run[k] for k in DAG_SIZES], horizon=run["dag_T"], rng_for=run.child_rng, tag="3"
)
dag = strategic_reveal.summarise_dag(dag_recs, run["dag_gammas"])
records += dag.runs.to_dict("records")
print("\n".join(dag.lines()))

# %%
hid, gam, gains, gains_arb = dag.hidden, dag.gammas, dag.gains, dag.gains_arb
mean_ratio, mean_ratio_arb = dag.mean_ratio, dag.mean_ratio_arb
mem_gain, n_inst, top_g, g0 = dag.memory_gain, dag.n_instances, dag.top, 0.0

# %% tags=["hide-input"]
fig, axes = plt.subplots(1, 2, figsize=(9.6, 4.0), sharey=True)
panels = [
    ("ratio", mean_ratio, "Revealed-Std"),
    ("ratio vs Arb", mean_ratio_arb, "Revealed-Arb"),
]
top = hid[["ratio", "ratio vs Arb"]].max().max() * 1.15
for ax, (col, means, ref) in zip(axes, panels):
    for off, kin in zip(np.linspace(-0.2, 0.2, len(run["dag_kin"])), run["dag_kin"]):
        d = hid[hid.k_in == kin]
        xpos = np.array([gam.index(g) for g in d.gamma]) + off
        color, label = color_for(f"k_in = {kin}"), f"k_in = {kin}"
        ax.scatter(xpos, d[col], s=28, color=color, label=label, zorder=3)
    means = means.loc[gam].to_numpy()
    ax.plot(range(len(gam)), means, "k_", ms=24, mew=2, label="mean over instances")
    style = dict(color=color_for("reference"), ls="--", lw=1.2)
    ax.axhline(1, **style, label="ratio 1 (no effect)")
    ticks = dict(xticks=range(len(gam)), xticklabels=[f"γ = {g}" for g in gam])
    ax.set(**ticks, ylim=(0, top), title=f"hidden / {ref}: {span(hid[col], '{:.1f}')}×")
axes[0].set_ylabel("mistakes hidden / revealed (best learners)")
axes[0].legend(fontsize=8, ncols=2)
title = "Hiding against publishing (left) and against Revealed-Arb, the same tie rule "
fig.suptitle(title + "without memory (right)")
plt.show()

# %%
GAIN3 = {g: f"hidden − revealed, γ={g}" for g in gam}
_ = ledger.check(
    3,
    "withholding the classifier increases mistakes (random DAGs, every γ > 0)",
    paper="withholding access to the classifier can backfire and degrade the DM's "
    "performance",
    source="abstract",
    measured={
        **{GAIN3[g]: gains[g] for g in gam},
        "mean ratio hidden / revealed": {f"γ={g}": r for g, r in mean_ratio.items()},
        "C": dag.C,
    },
    show=[GAIN3[g] for g in dag.judged],
    criterion=all_of(*[paired_gain(GAIN3[g], k="t") for g in dag.judged]),
    note=f"γ = {g0} (agents follow the last classifier) is a diagnostic, not judged; "
    "one hidden learner of seven (accept once) uses the agents' memory",
)

# %%
GAIN3M = {g: f"hidden − Arb, γ={g}" for g in gam}
_ = ledger.ours(
    "3m",
    "hidden agents, even with a one-round lag, cost more than the tie rule "
    "(hidden vs Revealed-Arb, every γ)",
    why="separates the hidden model from the tie-breaking convention: it breaks ties "
    "against the DM as Revealed-Arb does, Revealed-Std does not",
    measured={
        **{GAIN3M[g]: gains_arb[g] for g in gam},
        "mean ratio hidden / Arb": {f"γ={g}": r for g, r in mean_ratio_arb.items()},
    },
    show=list(GAIN3M.values()),
    criterion=all_of(*[paired_gain(GAIN3M[g], k="t") for g in gam]),
)

# %%
MEMORY = f"hidden(γ={top_g}) − hidden(γ={g0})"
_ = ledger.ours(
    "3c",
    f"the agents' memory costs mistakes: hidden at γ = {top_g} against hidden at "
    f"γ = {g0}, per instance",
    why="the paper's (1−γ)⁻¹ branch predicts a cost that grows with the memory; "
    "γ = 0 has the hidden model's one-round lag and tie rule without the memory",
    measured={MEMORY: mem_gain},
    criterion=paired_gain(MEMORY, k="t"),
)

# %%
ledger.not_checked(
    "3b",
    "the ratio stays below C·min{(1−γ)⁻¹, k_in} with the paper's constant",
    paper="(1−γ)⁻¹ or k_in times more (read by us as O(min{(1−γ)⁻¹, k_in}))",
    source="abstract",
    criterion=at_most("C", "paper's constant"),
    measured={"C": dag.C},
    note="the abstract says '(1−γ)⁻¹ or k_in' (the min is our reading), and the "
    "paper's constant and algorithm, which our learners only approximate, could not "
    f"be read; measured C = {dag.C:.2f}",
    blocked=True,
)

# %%
print(dag.reading())

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
bounds = strategic_reveal.summarise_bounds(records)
bounded, violations = bounds.bounded, bounds.violations
print("\n".join(bounds.lines()))

# %% tags=["hide-input"]
fig, ax = plt.subplots(figsize=(6.0, 4.0))
roles = {"std": "baseline", "arb": "alt", "weighted": "ours"}
names = {"std": "Revealed-Std", "arb": "Revealed-Arb", "weighted": "γ-Weighted"}
for model, marker in [("std", "s"), ("arb", "^"), ("weighted", "o")]:
    d, color = bounded[bounded.model == model], color_for(roles[model])
    style = dict(s=14, marker=marker, alpha=0.6, color=color, label=names[model])
    ax.scatter(d.bound, d.mistakes.clip(lower=0.5), **style)
lim = [0.5, bounded.bound.max() * 1.5]
ax.plot(lim, lim, "--", color=color_for("reference"), lw=1.2, label="mistakes = bound")
ax.set(xscale="log", yscale="log", xlabel="our mistake bound", ylabel="mistakes made")
ax.set(title=f"{violations} of {len(bounded)} runs exceed their bound")
ax.legend(fontsize=8)
plt.show()

# %%
MEASURED4 = {"violations": violations, "runs with a bound": len(bounded)}
MEASURED4["largest mistakes / bound"] = float(bounded.ratio.max())
_ = ledger.ours(
    4,
    "explicit mistake bounds (ours) are never exceeded",
    why="our own bounds for our learners; the paper's (Sections 3–5) were not readable",
    measured=MEASURED4,
    criterion=at_most("violations", 0),
)

# %%
ledger.quote(
    "4b",
    "hiding costs (1−γ)⁻¹ or k_in times the revealed mistakes",
    paper="(1−γ)⁻¹ or k_in times more",
    source="abstract",
    note="the exact expressions (ln|H|, Ldim, k_out factors) are in Sections 3–5",
)
ledger.quote(
    "4c",
    "Revealed-Std: no deterministic learner achieves o(Δ); O(Δ·ln|H|) is achievable",
    paper="no deterministic algorithm can achieve a mistake bound o(Δ); an algorithm "
    "achieves O(Δ ln|H|) (Δ: max degree)",
    source="literature",
    note="read in the abstract of Ahmadi, Blum, Yang (2023, arXiv 2302.12355), the "
    "baseline the paper builds on (its body was not read); our ABY-style rule attains "
    "(k_out+1)·ln|H|",
)

# %%
tight = bounds.tight
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
print(run.time_line())

# %% [markdown]
# **Reading the verdicts.** The sentences below are generated from this run's ledger and
# from the committed records (quick scale): the stability record
# (`data/stability/09_strategic_reveal.json`; the *seeds* column above; a claim changed
# since it was made is named) and the numerics record (verdicts that move under other
# kernels and thread counts). Claims 1 and 2 use fixed constructions, so only the random
# instances of claim 3 (whose runs also enter claim 4) and the adversary's tie-breaks
# move with the seed.

# %%
print("\n".join(reading_lines(ledger)))

# %% [markdown]
# ## Deviations from the paper
#
# - **Issue 34, second audit (answered here)** (old → new, the reason, and whether the
#   result was known before the change):
#   - *A seventh learner, accept once.* The audit showed (its own script) that a
#     learner that accepts every leaf in round 1 and then rejects them makes at most 2
#     mistakes on our star for $K=4,8,16$ and $\gamma=0.5,0.9,0.99$: agents remember
#     the leaves above the hub and stay put. Old: six learners under $\gamma$-Weighted,
#     none of which uses the agents' memory. New: `accept_once` (round 1 positive on
#     the version space, then strategic halving), unit-tested, is added last to the
#     hidden learner set and enters every "best hidden learner" (2d, 3, 3m, 3c); the
#     first six keep their random streams. Its result on the star was known from the
#     audit; on the random DAGs of claim 3 it was not.
#   - *Claim 1: paper's check → sanity check* (role change; its test unchanged). Its
#     lower side holds by our argument for every learner and its upper side by our
#     bound of claim 4 (positive on the version space pays at most $K-1$ under
#     Revealed-Arb), so it can only fail through a bug; the result (margin 0 on every
#     seed) was known. Its figure title now says that $K-1$ holds by construction, and
#     its quote is the summary's "$\Omega(k_{\text{in}})$ times more mistakes", without
#     the "than Revealed-Std" that the quote does not hold.
#   - *2d: paper's check → our own check*, "what our learners pay on our star" (role
#     change; test unchanged). With accept once in the set its result was known from
#     the audit before the change: it fails on every judged pair with $K\ge4$. Our star
#     is not a lower-bound instance for hidden agents; the paper's $k_{\text{in}}$
#     branch for them is new entry 2e, **blocked** (its construction is unknown). 2d's
#     rule of which $(K,\gamma)$ pairs are judged was written *after* a timing probe
#     printed these runs' mistakes (with six learners), and rests on our reading of
#     the abstract's "or": both are said where the criterion is shown.
#   - *Claim 3's criterion.* Old: the paired gain hidden − Revealed-Std beyond its
#     noise for every $\gamma$ in `dag_gammas`, $\gamma=0$ included. New: for every
#     $\gamma>0$ in the grid, with $\gamma=0$ shown as a diagnostic. Reason: the
#     abstract's "can backfire" is existential, and its $(1-\gamma)^{-1}$ branch
#     predicts a memory cost only for $\gamma>0$; at $\gamma=0$ agents follow the last
#     classifier. Known before the change: the old criterion had passed at every
#     $\gamma$ with six learners; the run with seven had not been made.
#   - *3m's statement and criterion.* Old: "with the longest memory, hiding costs more
#     than the tie rule alone", the paired gain hidden − Revealed-Arb at the largest
#     $\gamma$ only. New: "hidden agents, even with a one-round lag, cost more than the
#     tie rule", the same gain at every $\gamma$ of the grid, $\gamma=0$ included.
#     Reason: the gap to Revealed-Arb was already there at $\gamma=0$, so the check
#     speaks of the hidden model (its one-round lag included), not of the memory.
#     Known before the change: with six learners the gain at every $\gamma$ had been
#     printed (the old criterion passed at the largest $\gamma$); with seven, not.
#   - *3c, new (ours): the memory effect*, hidden($\gamma_{\max}$) − hidden(0) per
#     instance, a paired gain with the same $t$ quantile, written before its first
#     run. The six-learner run had printed per-instance ratios at every $\gamma$, from
#     which this difference could have been read; with seven learners it had not been
#     computed.
#   - *The $t$ quantile.* Old (`t_quantile_k`): Student's $t$ for $n\le10$, the
#     constant 2 above. New: the 97.5 % quantile with $n-1$ degrees of freedom for
#     every $n$. Quick scale (6 instances) is unchanged; at full scale (20) $k$ rises
#     from 2 to 2.09. Known: no full-scale result had been recorded.
#   - *4c*: "no deterministic learner achieves $o(\Delta)$" (was "beats"), quoted from
#     the abstract of Ahmadi, Blum and Yang (2023), which is what we read of it.
#   - *Full scale* was not recorded in that session (no CPU time was left for it); it
#     was recorded later: see "Run it at full scale".
# - **Issue 34's first audit, resolved earlier** (old → new, with the reason):
#   - *2b.* Already a sanity check (issue 38): on our gadget the conservative learner's
#     mistakes are units·(1 + r*) exactly, an identity, and its test is unchanged. New:
#     the paper's $(1-\gamma)^{-1}$ hiding cost is recorded as claim 2, **blocked**: the
#     gadget forces only the conservative learner to pay for the memory, and the
#     figure of (b) shows (and its text says, computed) the best hidden learner paying
#     a constant multiple of the revealed mistakes at every $\gamma$. A test of the
#     branch needs an instance on which every learner pays, the paper's lower-bound
#     construction, which we could not read.
#   - *The $k_{\text{in}}$ branch with hidden agents.* Before: never run with
#     $\gamma$-weighted agents. Then: claim 2d ran claim 1's star under
#     $\gamma$-Weighted for `star_gammas` and applied claim 1's test on the pairs where
#     $(1-\gamma)^{-1}\ge k_{\text{in}}$, a pair rule written after a timing probe had
#     printed the mistakes (now our own check; above).
#   - *Claim 3.* Before: the mean ratio hidden / revealed at least 1 for every
#     $\gamma$ (`≥ 1`: equal mistakes would pass "withholding backfires"), reproduced
#     with margin +1.14. Then: a strict paired gain for every $\gamma$ (now every
#     $\gamma>0$; above), the ratio shown, and our check 3m with a second panel of the
#     figure to separate the tie rule.
#   - *The abstract's "or".* $\min\{(1-\gamma)^{-1},k_{\text{in}}\}$ is our reading and
#     is said to be ours where it is used. Claims that rest on it, 2c (where the
#     branches meet) and 3b (the constant $C$), were "not checked at this scale"; they
#     are now **blocked**, with that reason: no scale of ours can test a statement we
#     could not read.
#   - *Protocols.* The learner set, one run as a record and the three sweeps (stars,
#     switch gadget, random DAGs) moved from the chapter into
#     `repbook.papers.strategic_reveal` (`learner_set`, `play`, `star_sweep`,
#     `switch_sweep`, `dag_sweep`), unit-tested, with the chapter's random streams
#     unchanged. Later (issue 37) the module became a package (`instances`, `memory`,
#     `learners`, `protocol`, `summaries`), and what the chapter reads from each sweep
#     (the tables, the printed diagnostics and the readings under claims 2b, 2d and 3)
#     moved into tested summaries (`summarise_star`, `stale_sweep`, `summarise_switch`,
#     `summarise_hidden_star`, `summarise_dag`, `summarise_bounds`); no number changed.
# - **Earlier (issue 38): claims regrouped after their results were known** (the
#   book-wide rule that a check true by construction is a sanity check and that our own
#   bounds are not the paper's claims). 2a (agents lag r*(γ) rounds) and 2b (the
#   gadget's slope), both identities of our model and gadget, became sanity checks;
#   claim 4 (our bounds are never exceeded) our own check. Their tests are unchanged.
# - **Paper text.** Only the abstract and secondary summaries were readable (see the box
#   at the top). The paper's theorems, Algorithms 1–3 and lower-bound constructions
#   could not be confirmed, so:
#   - every learner is our reconstruction: "conservative" (hold the classifier until
#     agents have caught up, change it only after a settled mistake) stands in for
#     Algorithm 2, and "positive on the version space" (a classifier that only loses
#     positives) for Algorithm 3's reduction to Revealed-Arb; "accept once" is ours;
#   - every explicit bound in claim 4 is ours, derived in the text; the paper's are
#     quoted from the abstract;
#   - the star (claims 1 and 2d) and the switch gadget (claim 2) are our
#     constructions, aligned with the abstract's statements, not with the paper's
#     theorems. Claims 2, 2c, 2e and 3b are blocked for this reason.
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
# - **Criteria written or changed after their result was known**: claim 3's (twice,
#   above), 3m's, 2d's pair rule (after a probe printed the mistakes), the roles of
#   claims 1 and 2d and, earlier, of 2a, 2b and 4 (their tests unchanged), and the $t$
#   quantile above 10 instances. 3c was written before its first run; every other test
#   is as first fixed.
# - **Scale** (the line below is generated from the chapter's settings). Runs of
#   learners that never converge are cut at the horizon.


# %%
print(f"Quick scale: {strategic_reveal.describe_sizes(SIZES['quick'])}.")

# %% [markdown]
# ## Run it at full scale
#
# ```bash
# .venv/bin/python -m repbook full 09   # runs it and records it in data/full_runs/
# ```
# It needs no GPU (CPU minutes: most of it the hidden star at the largest $K$ and
# $\gamma$, and the random DAGs). The lines below give the full scale's sizes and, from
# the committed record (`data/full_runs/09_strategic_reveal.json`), when and how long it
# ran, each claim's verdict and margin there, and the claims whose verdict differs from
# this run's.

# %%
print(f"Full scale: {strategic_reveal.describe_sizes(SIZES['full'])}.")
print("\n".join(full_run_lines(ledger)))
