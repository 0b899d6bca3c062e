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
# # 16 · Causal graph regression: confounders that predict, and contrastive intervention
#
# Yujia Yin, Tianyi Qu, Zihao Wang, Yifan Chen — *A Recipe for Causal Graph Regression:
# Confounding Effects Revisited*, ICML 2025 · PMLR 267:72414–72427 · arXiv
# [2507.00440](https://arxiv.org/abs/2507.00440) · official code: `causal-graph/CGR` (no
# licence: we read it to understand it and wrote our own).
#
# Causal graph learning splits a graph $G$ into a *causal* subgraph $C$, which decides
# the response $Y$, and a *confounding* subgraph $S$, which is only correlated with it.
# Methods built for classification (CAL, DisC) assume that $S$ predicts nothing and
# intervene by mixing $C$ and $S$ within a class, which needs discrete labels. For graph
# **regression** the paper changes two things: an *enhanced graph information
# bottleneck* in which the confounder branch is allowed — in fact trained — to predict
# $Y$, and a *contrastive* causal intervention that needs no labels: the causal part of
# graph $i$ plus the confounding part of another graph $j$ should still look like graph
# $i$.
#
# ```{admonition} Claims we test
# *The regime (two gates, not claims):* (i) our benchmark has a real shortcut: ERM
# trained where the base graph's type tracks the response does clearly worse when that
# pairing is reversed (OOD MAE ≥ 1.4 × IID MAE); (ii) CGR's mechanism forms: its causal
# attention is higher on the cycle that decides $y$ than on the base graph (mean $a_o$
# on cycle nodes − base nodes ≥ 0.05). Claims 2 and 4 are judged only if both hold;
# claim 3, an in-distribution claim, needs no shortcut and is gated on (ii) alone.
#
# 2. CGR (enhanced GIB + contrastive intervention) has a lower out-of-distribution MAE
#    than ERM with the same encoder, beyond the noise of paired per-seed differences.
# 3. CGR has a lower in-distribution MAE than ERM, beyond the noise of paired per-seed
#    differences.
# 4. The paper's ablation directions: (a) training the confounder head to predict $Y$
#    (enhanced GIB) gives a lower OOD MAE than ignoring the confounder's predictive role
#    (the paper's Fig. 3 comparator; the released code's variance penalty is shown
#    beside it); (b) removing the contrastive intervention $L_\mathrm{mix}$ raises
#    the OOD MAE (both beyond the noise of paired per-seed differences; full scale, or
#    `ablations=True`).
# 5. *Quoted:* the paper's GOOD-ZINC (Table 1) and ReactionOOD Cycloaddition (Table 2)
#    results.
# ```
#
# GOOD-ZINC and ReactionOOD need downloads, so claims 2–4 are tested on a synthetic
# regression task with a structural shortcut, built below; claim 5 is quoted from the
# paper.

# %% tags=["parameters"]
scale = "quick"  # "quick" (≤ 150 s on 2 CPU cores, training-heavy) or "full" (one GPU)
seed = 0
ablations = None  # None: the scale's default (off at quick, on at full); True / False
mechanism_search = False  # True: rerun the bounded search and rewrite its data file

# %%
import warnings

import matplotlib.pyplot as plt
import networkx as nx
import numpy as np
import pandas as pd
import torch

from repbook.core import all_of, at_least, checks, color_for, paired_gain, tol
from repbook.core import full_run_lines, reading_lines, setup

# torch-geometric 2.8 calls torch.jit.script at import, which torch 2.13 deprecates, and
# imports tqdm.auto, which warns when ipywidgets is absent (we show no progress bars)
warnings.filterwarnings(
    "ignore", message=r"`torch.jit.script` is deprecated", category=DeprecationWarning
)
warnings.filterwarnings("ignore", message="IProgress not found")
from repbook.papers import causal_graph_regression

# %%
SIZES = {
    "quick": dict(n_train=600, n_val=200, n_test=300, hidden=32, layers=3, epochs=20)
    | dict(batch=64, select_after=10, seeds=5, shortcut=0.9, ablations=False)
    | dict(sweep=[], sweep_seeds=0),
    "full": dict(n_train=10_000, n_val=1_000, n_test=2_000, hidden=300, layers=3)
    | dict(epochs=100, batch=128, select_after=10, seeds=10, shortcut=0.9)
    | dict(ablations=True, sweep=[0.5, 0.7, 0.8, 0.95], sweep_seeds=3),
}
ERM, PEER = "ERM", "ERM (torch-geometric)"
CGR, VAR, NOMIX = "CGR (enhanced GIB)", "CGR (variance penalty)", "CGR without L_mix"
NONE, KL = "CGR (confounder ignored)", "CGR (GSAT KL)"
COLORS = {CGR: "ours", ERM: "baseline", PEER: "peer", VAR: "alt", NOMIX: "alt2"}
COLORS |= {NONE: "alt3", KL: "muted"}

# %%
run = setup(scale=scale, seed=seed, sizes=SIZES, colors=COLORS)
ledger = run.ledger
ledger.regime = f"synthetic graphs of our own ({run['n_train']:,} training graphs); "
ledger.regime += "small GNNs; CPU"
checks.one_of("ablations", ablations, (None, True, False))
ABLATE = run["ablations"] if ablations is None else ablations


def listed(values, spec="+.3f"):  # per-seed values, printed in a row
    return ", ".join(f"{v:{spec}}" for v in values)


# %% [markdown]
# ## The method
#
# A GIN encoder turns each node into an embedding $x_v$ and the graph into
# $h_G=\sum_v x_v$. Two small attention layers give every node and edge a soft split,
# $(a^c_v, a^o_v)=\mathrm{softmax}(W_n x_v)$ and
# $(e^c_{uv}, e^o_{uv})=\mathrm{softmax}(W_e[x_u, x_v])$, with $a^o$ the causal
# ("object") mask $M$ and $a^c = 1-a^o$ its complement. Each part passes through its
# **own** BatchNorm and then **one shared** edge-weighted GCN layer, and is sum-pooled
# into $h_o$ (the paper's $H_c$) and $h_c$ (its $H_s$). Two heads predict $\hat y_o$ and
# $\hat y_c$; the model's prediction is $\hat y_o$ alone. Every head predicts on a
# standardised scale, $\hat y = \bar y + s_y\cdot\mathrm{MLP}(h)$, with the training
# mean and standard deviation fixed beforehand.
#
# The paper's enhanced GIB objective (its Eq. 4) adds a confounder term to the usual
# bottleneck,
#
# $$\min\; -I(C;Y) + \alpha\, I(C;G) - \beta\, I(S;Y),$$
#
# so that $S$ is *allowed to be predictive* instead of forced to be noise; $-I(C;Y)$ and
# $-I(S;Y)$ become regression losses of the two heads. The causal intervention (its Eq.
# 16–17) mixes the causal embedding of graph $i$ with the confounding embedding of graph
# $j$ and asks the mixture to be recognised as graph $i$ among the batch:
#
# $$h^{\mathrm{mix}}_{ij}=h_{o,i}+h_{c,j},\qquad
# \ell_{ij}=-s(h^{\mathrm{mix}}_{ij},h_{G,i})
#   +\log\sum_{k\neq i}\exp s(h^{\mathrm{mix}}_{ij},h_{G,k}),\qquad
# L_\mathrm{mix}=\frac{1}{B(B-1)}\sum_{i\neq j}\ell_{ij},$$
#
# with $s$ the cosine similarity (temperature 1) and, as in the released code, the
# positive left out of the denominator. Our total loss is
#
# $$L = |\hat y_o - y| + \beta\,\mathrm{conf}
#   + \tfrac{\alpha}{D}\,\tfrac12\mathbb E\|\mu(G)\|^2
#   + \lambda L_\mathrm{mix}$$
#
# with $\alpha=\beta=\lambda=0.5$ (the paper sets every weight to 0.5). The $I(C;G)$
# term is a Gaussian information bottleneck: the pooled causal branch is the mean
# $\mu(G)$, and in training the model samples $h_o=\mu(G)+\varepsilon$,
# $\varepsilon\sim\mathcal N(0, I)$, which feeds the causal head and $L_\mathrm{mix}$
# (evaluation uses $h_o=\mu(G)$). Its KL to $\mathcal N(0, I)$ is
# $\tfrac12\|\mu(G)\|^2$, the paper's proxy (its Eq. 8); we divide it by the width $D$,
# a rescaling of the weight to $\alpha/D$ so that $\alpha=0.5$ weighs the same at
# every width. Without the noise the penalty would press on nothing: the BatchNorm at
# the head's input undoes any scale of $h_o$. GSAT's
# $\mathrm{KL}(a^o\,\|\,\mathrm{Bern}(0.3))$ on node attention is the variant
# `CGRLoss(info="kl")` (with `noise=0`). "conf" is
# $|\hat y_c - y|$ for the enhanced GIB (our default, the paper's text) or the batch
# variance of $\hat y_c$ (the released code's penalty).
#
# By hand, $L_\mathrm{mix}$ is a loop over the $B(B-1)$ ordered pairs; the library
# computes all $B^3$ similarities in one einsum.

# %%
gen = run.torch_generator(0)
h_o, h_c, h_g = (torch.randn(4, 8, generator=gen) for _ in range(3))
cos = torch.nn.functional.cosine_similarity
terms = []
for i in range(4):
    for j in range(4):
        if i != j:
            s = torch.stack([cos(h_o[i] + h_c[j], h_g[k], dim=0) for k in range(4)])
            negatives = torch.cat([s[:i], s[i + 1 :]])  # k ≠ i
            terms.append(-s[i] + torch.logsumexp(negatives, dim=0))
lib = causal_graph_regression.mix_loss(h_o, h_c, h_g)
print(f"by hand, loop over 12 ordered pairs: L_mix = {torch.stack(terms).mean():.6f}")
print(f"library, one (B, B, B) einsum:       L_mix = {lib:.6f}")

# %% [markdown]
# ## The benchmark: a cycle that decides $y$, a base graph that correlates with it
#
# Each graph is a 5-cycle whose node values $v\sim U(0,1)$ give
# $y=\sum v+\mathcal N(0,0.05^2)$, joined by one edge to a base graph of 10–15 nodes (a
# random tree, a ladder or a wheel) whose nodes carry irrelevant $U(0,1)$ values. Node
# features are [value, 1]; nothing marks the cycle. The response is binned ($y<2$,
# $2\le y\le3$, $y>3$). In the training and IID test splits the base type equals the bin
# (tree, ladder, wheel) with probability 0.9; in the OOD validation and test splits the
# pairing is reversed (bin $b$ → type $2-b$) with probability 0.9. A model that reads
# the base type learns a coarse guess of $y$ that the OOD split turns against it. Model
# selection uses the OOD validation split, as the paper does on GOOD. Every seed draws
# its own data and initialisation.


# %%
SPLIT_SIZES = {k: run[k] for k in ("n_train", "n_val", "n_test")}


def make_splits(r):
    rng, shortcut = run.child_rng(100 + r), run["shortcut"]
    return causal_graph_regression.make_splits(rng, shortcut=shortcut, **SPLIT_SIZES)


splits0 = make_splits(0)

# %%
rate = causal_graph_regression.shortcut_rate
for name, graphs in splits0.items():
    shift = "reversed" if "OOD" in name else "train"
    print(
        f"{name:9s} {len(graphs):5d} graphs · base type follows the {shift} pairing "
        f"in {rate(graphs, shift):.1%} · follows the training pairing in "
        f"{rate(graphs, 'train'):.1%}"
    )
table = causal_graph_regression.split_table(splits0)
print(table.loc[["train", "OOD test"]].to_string())

# %% [markdown]
# The reversed pairing leaves the middle bin on the ladder, so the OOD split keeps the
# training pairing for the middle bin of $y$ (the largest, see the table) and flips it
# for both tails (the rates printed above).
#
# ## Training: ERM, CGR and its ablations, with the torch-geometric peer
#
# Per seed, on the same data: ERM (our GIN encoder, sum pooling, an MLP head, L1
# loss); the same ERM built from torch-geometric's `GINConv`, `global_add_pool` and
# `DataLoader` (the peer); CGR with the enhanced GIB (the default); and, at full scale
# or with `ablations=True`, CGR ignoring the confounder's predictive role, CGR with the
# released code's variance penalty, CGR without $L_\mathrm{mix}$, and CGR with GSAT's
# KL in place of the Gaussian bottleneck (a sensitivity check of the $I(C;G)$ form;
# `causal_graph_regression.train_seeds` trains them all, on every seed). All use Adam
# (learning rate $10^{-3}$, cosine decay to $10^{-8}$), and the weights of the epoch
# with the best OOD-validation MAE after epoch 10 (the released selection rule). The
# sizes for this scale are printed at the top.

# %%
Method, CGRLoss = causal_graph_regression.Method, causal_graph_regression.CGRLoss
erm_loss = causal_graph_regression.erm_loss
METHODS = {
    ERM: Method("erm", erm_loss),
    PEER: Method("pyg-erm", erm_loss),
    CGR: Method("cgr", CGRLoss(confounder="gib")),
    VAR: Method("cgr", CGRLoss(confounder="var")),
    NOMIX: Method("cgr", CGRLoss(confounder="gib", lam=0.0)),
    NONE: Method("cgr", CGRLoss(confounder="none")),
    KL: Method("cgr", CGRLoss(info="kl"), noise=0.0),
}

# %%
ORDER = [ERM, PEER, CGR] + ([NONE, VAR, NOMIX, KL] if ABLATE else [])
FIT = {k: run[k] for k in ("hidden", "layers", "epochs", "batch", "select_after")}
FIT |= dict(seed=seed, device=run.device)
trained = {name: METHODS[name] for name in ORDER}
rows, models0 = causal_graph_regression.train_seeds(
    make_splits, trained, first=splits0, seeds=run["seeds"], **FIT
)
res = pd.DataFrame(rows)
by = {name: res[res.method == name].sort_values("seed") for name in ORDER}


# %%
def diff(a, b, split="OOD"):  # per seed: method a − method b in a split's test MAE
    return by[a][split].to_numpy() - by[b][split].to_numpy()


# %%
tables = causal_graph_regression.mae_tables(res, ORDER)
print("test MAE per seed (epoch selected on OOD validation):")
print(tables.per_seed.round(3).to_string())
print("\nmean and standard deviation over seeds:")
print(tables.summary.round(3).to_string())
print("\nselected epochs:", tables.epochs)

# %% tags=["hide-input"]
fig, axes = plt.subplots(1, 2, figsize=(11, 4), sharey=True)
for ax, split in zip(axes, ["IID", "OOD"]):
    for k, name in enumerate(ORDER):
        v, col = res[res.method == name][split].to_numpy(), color_for(name)
        ax.bar(k, v.mean(), color=col, alpha=0.35, width=0.7)
        x = np.full(v.size, k) + np.linspace(-0.15, 0.15, v.size)
        ax.scatter(x, v, color=col, zorder=3, s=22)
    labels = [n.replace(" (", "\n(").replace(" without", "\nwithout") for n in ORDER]
    if len(ORDER) > 4:
        ax.tick_params(axis="x", labelrotation=45)
    ax.set_xticks(range(len(ORDER)), labels, fontsize=8)
    ylabel = "MAE (lower is better)" if split == "IID" else ""
    ax.set(title=f"{split} test", ylabel=ylabel)
fig.suptitle("Test MAE per method: bars are means, dots are seeds", fontweight="bold")
plt.show()

# %% [markdown]
# ## The regime · The shortcut hurts ERM (a gate)
#
# If the base type carries usable information about $y$, ERM will use it, and the
# reversed pairing will cost it accuracy. Without a real shortcut, claims 2 and 4 would
# test nothing, so this is a check of our benchmark, not a claim of the paper: the gate
# of those claims.
#
# **Gate (fixed before the run).** Mean over seeds of ERM's OOD-test MAE ≥ 1.4 × its
# mean IID-test MAE. It is unmet if ERM finds the cycle sum alone (then the two MAEs are
# close), and claims 2 and 4 are then not checked.
#
# **Second gate: the mechanism forms (fixed before the run that first used it).** CGR
# can only beat ERM by the route the paper describes if its causal mask puts more
# weight on the cycle than on the base graph. Mean over seeds of CGR's $a_o$ on the
# cycle nodes of the OOD test graphs minus its $a_o$ on their base nodes ≥ 0.05. It is
# unmet when the mask gives both parts about the same weight, so that $h_o$ and $h_c$
# are close to fixed fractions of one embedding; claims 2, 3 and 4 are then not
# checked (claim 3 reads this gate alone).

# %%
erm, cgr, peer = by[ERM], by[CGR], by[PEER]
print(
    f"ERM: OOD MAE {erm.OOD.mean():.3f} against IID MAE {erm.IID.mean():.3f} "
    f"(ratio {erm.OOD.mean() / erm.IID.mean():.2f}); the peer built from "
    f"torch-geometric: {peer.OOD.mean():.3f} against {peer.IID.mean():.3f}"
)

# %%
sep = (cgr["a_o cycle"] - cgr["a_o base"]).to_numpy()
per_seed = f"{listed(sep)} (mean {sep.mean():+.3f}; gate ≥ 0.05)"
print(f"CGR's a_o on OOD test graphs, cycle − base per seed: {per_seed}")
SEP = "a_o cycle − base (CGR)"
shortcut = at_least("ERM OOD MAE", "ERM IID MAE", factor=1.4)  # gate (i)
mask_gate = at_least(SEP, 0.05)  # gate (ii)
regime_gate = all_of(shortcut, mask_gate)  # gates (i) and (ii): claims 2 and 4
regime = {"ERM OOD MAE": erm.OOD.mean(), "ERM IID MAE": erm.IID.mean()}
regime[SEP] = float(sep.mean())
REGIME_TOL = {"ERM OOD MAE": tol(abs=0.04), "ERM IID MAE": tol(abs=0.03)}

# %% [markdown]
# ## Claim 2 · CGR beats ERM out of distribution
#
# The paper's central result is a lower OOD error than ERM on every GOOD-ZINC split
# (claim 5). Here CGR with the enhanced GIB and $L_\mathrm{mix}$ faces ERM on the same
# data, seeds and selection rule. An earlier prototype of this benchmark saw a
# seed-to-seed spread near 0.05 and a causal attention that did not single out the
# cycle, so we show every seed and the mean causal attention $a^o$ on cycle and base
# nodes of the OOD test graphs.
#
# **Criterion.** The gain ERM − CGR in OOD-test MAE, paired by seed: its mean minus two
# standard errors > 0. It fails if the mean plus two standard errors is ≤ 0; in between
# the gain is within the noise of the seeds, neither ✓ nor ✗. It is gated on both
# regime gates. A plausible failing outcome: CGR's regularisers cost it OOD accuracy
# (the mean gain negative beyond its noise).

# %%
gap, gap_peer = diff(CGR, ERM), diff(CGR, PEER)
att_diff = cgr["a_o cycle"].mean() - cgr["a_o base"].mean()
erm_sd = erm.OOD.std(ddof=1)
erm_ood, cgr_ood = listed(erm.OOD, ".3f"), listed(cgr.OOD, ".3f")
print(f"OOD MAE per seed:  ERM {erm_ood}  ·  CGR {cgr_ood}")
lower = f"lower on {(gap < 0).sum()} of {gap.size} seeds"
print(f"CGR − ERM per seed: {listed(gap)} (mean {gap.mean():+.3f}; {lower})")
mean_peer = f"(mean {gap_peer.mean():+.3f})"
print(f"CGR − ERM (torch-geometric) per seed: {listed(gap_peer)} {mean_peer}")

# %%
print(
    f"for scale: the sd of ERM's OOD MAE over seeds is {erm_sd:.3f}, and "
    f"our ERM and the torch-geometric ERM (the same function; other initial weights "
    f"and batch order) differ by {peer.OOD.mean() - erm.OOD.mean():+.3f} in mean OOD "
    f"MAE"
)
print(
    f"mean causal attention a_o on OOD test graphs: cycle nodes "
    f"{cgr['a_o cycle'].mean():.3f}, base nodes {cgr['a_o base'].mean():.3f} "
    f"(difference {att_diff:+.3f})"
)

# %%
ledger.check(
    "2",
    "CGR (enhanced GIB) has a lower OOD MAE than ERM",
    paper="lower OOD MAE than ERM on all 4 GOOD-ZINC splits (Table 1)",
    source="paper",
    measured={
        "ERM − CGR OOD MAE, per seed": (-gap).tolist(),
        "CGR OOD MAE": cgr.OOD.mean(),
        **regime,
        "a_o cycle": cgr["a_o cycle"].mean(),
        "a_o base": cgr["a_o base"].mean(),
    },
    gate=regime_gate,
    criterion=paired_gain("ERM − CGR OOD MAE, per seed", min_seeds=5),
    tolerance={
        "ERM − CGR OOD MAE, per seed": tol(abs=0.2),
        "CGR OOD MAE": tol(abs=0.02),
        **REGIME_TOL,
        SEP: tol(abs=0.003),
        "a_o cycle": tol(abs=0.009),
        "a_o base": tol(abs=0.004),
    },
)

# %% [markdown]
# Seed 0's OOD test graphs through its trained ERM and CGR, for the two figures below:
# the predictions, and CGR's causal attention on the first graph of each base type.

# %%
view = causal_graph_regression.seed_view(
    models0, splits0["OOD test"], names=[ERM, CGR], attention_of=CGR, device=run.device
)
BASE_TYPES = causal_graph_regression.BASE_TYPES
BIN_EDGES = causal_graph_regression.BIN_EDGES

# %% tags=["hide-input"]
fig, axes = plt.subplots(1, 2, figsize=(10, 4.2), sharex=True, sharey=True)
y0 = view.y
lim = (y0.min() - 0.2, y0.max() + 0.2)
shades = [color_for("alt3"), color_for("muted"), color_for("alt2")]
for ax, name in zip(axes, [ERM, CGR]):
    pred = view.predictions[name]
    for t, kind in enumerate(BASE_TYPES):
        m, label = view.base_type == t, f"base: {kind}"
        ax.scatter(y0[m], pred[m], s=9, alpha=0.7, label=label, color=shades[t])
    ax.plot(lim, lim, color=color_for("reference"), ls="--", lw=1, label="y = ŷ")
    for edge in BIN_EDGES:
        ax.axvline(edge, color=color_for("muted"), lw=0.6, ls=":")
    title = f"{name}: MAE {np.abs(pred - y0).mean():.3f}"
    ax.set(title=title, xlabel="true y", ylabel="predicted y", xlim=lim, ylim=lim)
axes[0].legend(fontsize=8, loc="upper left")
title = "OOD test, seed 0: predictions against truth, coloured by base type"
fig.suptitle(title, fontweight="bold")
plt.show()

# %% tags=["hide-input"]
fig, axes = plt.subplots(1, 3, figsize=(12, 3.8))
for ax, g, att in zip(axes, view.examples, view.attention):
    G = nx.Graph(g.edge_index.T.tolist())
    pos = nx.kamada_kawai_layout(G)
    nodes = sorted(G.nodes())
    causal = g.causal.numpy()[nodes]
    ring = dict(edgecolors=["black" if c else "none" for c in causal], linewidths=1.5)
    size = [140 if c else 60 for c in causal]
    colours = dict(node_color=att[nodes], cmap="viridis", vmin=0, vmax=1)
    drawn = nx.draw_networkx_nodes(
        G, pos, nodelist=nodes, node_size=size, ax=ax, **colours, **ring
    )
    nx.draw_networkx_edges(G, pos, ax=ax, alpha=0.4)
    on = g.causal.numpy()
    title = f"{BASE_TYPES[int(g.base_type)]} base, y = {float(g.y):.2f}\n"
    title += f"mean a_o: cycle {att[on].mean():.2f}, base {att[~on].mean():.2f}"
    ax.set_title(title, fontsize=9)
    ax.axis("off")
fig.colorbar(drawn, ax=axes, label="causal node attention a_o", shrink=0.8)
title = "CGR's causal attention on OOD test graphs (cycle nodes ringed in black)"
fig.suptitle(title, fontweight="bold")
plt.show()

# %% [markdown]
# The scatter plots show where the errors come from: a model that leans on the base type
# pulls its predictions for the tails of $y$ towards the bin that type stood for in
# training (in the OOD split a wheel marks a low $y$, a tree a high one). The signed
# errors on the tails measure that pull; the attention maps show whether CGR's causal
# mask found the cycle.

# %%
for name in (ERM, CGR):
    tails = causal_graph_regression.tail_errors(view.predictions[name], view.y)
    tails = ", ".join(f"{k} {v:+.3f}" for k, v in tails.items())
    print(f"{name:19s} seed 0, mean signed error on the OOD tails: {tails}")
verb = "separates" if att_diff >= 0.05 else "does not separate"
print(
    f"over all seeds, a_o on cycle nodes minus base nodes = {att_diff:+.3f}: the "
    f"causal mask {verb} the cycle from the base (the second gate: ≥ 0.05)"
)
size_word = "smaller" if abs(gap.mean()) < erm_sd else "larger"
print(
    f"CGR's mean OOD gain over our ERM ({-gap.mean():+.3f}) is {size_word} than the "
    f"seed sd of ERM's OOD MAE ({erm_sd:.3f})"
)

# %% [markdown]
# ### Where could the mask form? A bounded search
#
# The second gate asks for a set-up in which the causal attention can single out the
# cycle. We searched a short list of quick-scale set-ups of CGR alone, chosen for the
# attention and never for an MAE: the chapter's form, the bottleneck without the width
# rescaling, a deterministic $h_o$, GSAT's KL, larger learning rates, a sharper
# attention, twice the training graphs and 100 epochs
# (`causal_graph_regression.MECHANISM_SETUPS`). The search ran once, by
# `causal_graph_regression.write_mechanism_search()`, which stored its rows, parameters
# and commit in `data/16_causal_graph_regression/mechanism_search.json`; the table and
# sentences below are read from that file (`mechanism_search=True` reruns the search
# and rewrites the file, a few minutes on 2 cores). A set-up met the gate only if every
# seed did.

# %%
if mechanism_search:
    causal_graph_regression.write_mechanism_search()
search = causal_graph_regression.read_mechanism_search()
found = causal_graph_regression.search_report(search)
print(
    f"{len(found.table)} set-ups × {len(search['params']['seeds'])} seeds, CGR alone, "
    f"made at commit {search['commit']} in {search['seconds']:.0f} s; gap = a_o cycle "
    f"− base on the OOD test graphs, gate ≥ {search['gate']} on every seed; MAE means "
    "over seeds"
)
print(found.table.round(3).to_string())
print(found.text)
print(
    "the chapter keeps its quick set-up (the first row); the gate measured on the "
    "chapter's own run decides"
)

# %% [markdown]
# What we think would let the mask form, untested: under the enhanced GIB both heads
# are trained to predict $y$, so only $L_\mathrm{mix}$ and the bottleneck on $h_o$ tell
# the branches apart and nothing in one training distribution says which part is
# causal; training data in which the base type's pairing with $y$ varies (several
# environments, as IRM and VREx assume) would give the attention that signal.

# %% [markdown]
# ## Claim 3 · A lower IID error too
#
# A model that ignores the shortcut gives up a little information that was valid in
# training, yet the paper's Table 1 shows CGR with a lower ID error than ERM on every
# GOOD-ZINC split.
#
# **Criterion.** The gain ERM − CGR in IID-test MAE, paired by seed: its mean minus two
# standard errors > 0 (fails when the mean plus two standard errors is ≤ 0, within the
# noise in between). It fails if CGR's regularisers cost it accuracy in distribution (a
# prototype saw 0.165 against 0.123 on one seed). It is gated on the mask gate (ii)
# alone: without a mask that separates the cycle, CGR is ERM with extra regularisers,
# and its IID error says nothing about the paper's recipe; the shortcut gate (i) is
# about the OOD split and is not needed for an in-distribution claim.

# %%
iid_gain = diff(ERM, CGR, "IID")
print(
    f"IID MAE: CGR {cgr.IID.mean():.3f}, ERM {erm.IID.mean():.3f}; ERM − CGR per "
    f"seed {listed(iid_gain)} (mean {iid_gain.mean():+.3f})"
)

# %%
ledger.check(
    "3",
    "CGR has a lower IID MAE than ERM",
    paper="ID MAE below ERM's on GOOD-ZINC (Table 1)",
    source="paper",
    measured={
        "ERM − CGR IID MAE, per seed": iid_gain.tolist(),
        "CGR IID MAE": cgr.IID.mean(),
        "ERM IID MAE": erm.IID.mean(),
        SEP: regime[SEP],
    },
    gate=mask_gate,
    criterion=paired_gain("ERM − CGR IID MAE, per seed", min_seeds=5),
    tolerance={
        "ERM − CGR IID MAE, per seed": tol(abs=0.06),
        "CGR IID MAE": tol(abs=0.009),
        "ERM IID MAE": tol(abs=0.03),
        SEP: tol(abs=0.003),
    },
)

# %% [markdown]
# ## Claim 4 · The ablation directions
#
# The paper ablates on GOOD-Motif (its Fig. 3: letting the confounder be predictive
# against ignoring its predictive role) and on four regression sets (its Fig. 4: the
# full model has the lowest error, and removing the causal intervention hurts). We
# compare, on the same seeds and data, the enhanced GIB against CGR whose confounder
# head is not trained at all (`confounder="none"`, our reading of Fig. 3's "ignoring"),
# and CGR against CGR without $L_\mathrm{mix}$. The released code's variance penalty
# (make the confounder head uninformative) is shown beside 4a as context, not judged.
#
# **Criteria.** Paired by seed, as in claim 2: (a) the gain confounder ignored −
# enhanced GIB in OOD MAE, (b) the gain without $L_\mathrm{mix}$ − CGR; each holds when
# its mean minus two standard errors is > 0, fails when its mean plus two standard errors is ≤ 0,
# and is within the noise otherwise. Both are gated on the shortcut and on the mask
# separating the cycle (the regime gates). A plausible failing outcome: the ablated
# model does as well, since without a separating mask both variants train nearly the
# same encoder. The two ablations cost two more models per seed; the quick run leaves
# them out to afford five seeds, and records 4a and 4b as not checked.

# %%
crit4 = {
    "4a": paired_gain("ignored − GIB OOD MAE, per seed", min_seeds=5),
    "4b": paired_gain("without L_mix − CGR OOD MAE, per seed", min_seeds=5),
}
text4 = {
    "4a": (
        "enhanced GIB gives a lower OOD MAE than ignoring the confounder",
        "predictive confounder beats ignoring it (Fig. 3 left, GOOD-Motif)",
    ),
    "4b": (
        "removing L_mix raises the OOD MAE",
        "w/o CI worse than the full model on 4 datasets (Fig. 4)",
    ),
}

# %%
if ABLATE:
    print(
        f"mean OOD MAE: enhanced GIB {cgr.OOD.mean():.3f}, confounder ignored "
        f"{by[NONE].OOD.mean():.3f}, without L_mix {by[NOMIX].OOD.mean():.3f}; "
        f"context: variance penalty {by[VAR].OOD.mean():.3f}"
    )
    pairs = {"confounder ignored − GIB": NONE, "without L_mix − CGR": NOMIX}
    pairs["context: variance penalty − GIB"] = VAR
    for label, name in pairs.items():
        d = diff(name, CGR)
        positive = f"positive on {(d > 0).sum()} of {d.size} seeds"
        print(f"{label}: per seed {listed(d)}, mean {d.mean():+.3f}, {positive}")
else:
    print(f"ablations: not trained at scale {run.scale!r} (ablations=True trains them)")

# %%
ROLES4 = dict(full=CGR, ignored=NONE, no_mix=NOMIX, variance=VAR)
measured4 = causal_graph_regression.ablation_measures(by, **ROLES4) if ABLATE else {}
tolerance4 = {
    "4a": {"GIB OOD MAE": tol(abs=0.03), **REGIME_TOL},
    "4b": {
        "without L_mix − CGR OOD MAE, per seed": tol(abs=0.3),
        "without L_mix OOD MAE": tol(abs=0.2),
        "CGR OOD MAE": tol(abs=0.03),
        **REGIME_TOL,
    },
}

# %%
NOT_TRAINED = "the ablations are trained at full scale (or with ablations=True); "
NOT_TRAINED += "the quick run spends their time on five seeds of claims 2 and 3"
for cid, (statement, paper) in text4.items():
    spec = dict(paper=paper, source="paper", criterion=crit4[cid])
    if ABLATE:
        spec |= dict(measured=measured4[cid] | regime, tolerance=tolerance4[cid])
        ledger.check(cid, statement, **spec, gate=regime_gate)
    else:
        ledger.not_checked(cid, statement, **spec, note=NOT_TRAINED)

# %% [markdown]
# Both directions are judged on the paired per-seed differences, against their own
# spread: a mean that the seeds cannot tell from zero is within the noise.
#
# **Sensitivity of the $I(C;G)$ form** (not a claim; trained with the ablations). CGR
# with GSAT's KL on node attention in place of the Gaussian bottleneck, against ERM on
# the same seeds, and its mask separation.

# %%
if ABLATE:
    for split in ("IID", "OOD"):
        d, gaussian = diff(ERM, KL, split), diff(ERM, CGR, split).mean()
        print(
            f"ERM − CGR (GSAT KL) {split} MAE per seed: {listed(d)} (mean "
            f"{d.mean():+.3f}; the Gaussian bottleneck: {gaussian:+.3f})"
        )
    kl_sep = (by[KL]["a_o cycle"] - by[KL]["a_o base"]).to_numpy()
    print(
        f"CGR (GSAT KL) a_o cycle − base: mean {kl_sep.mean():+.3f} "
        f"(the Gaussian bottleneck: {regime[SEP]:+.3f}; gate ≥ 0.05)"
    )
else:
    print(
        "GSAT-KL sensitivity: trained with the ablations (full scale, ablations=True)"
    )

# %% [markdown]
# ## Quoted from the paper · The benchmarks (claim 5)
#
# The numbers below are the paper's, read from its Table 1 (GOOD-ZINC, MAE, mean ±
# standard error over 3 seeds) and Table 2 (ReactionOOD Cycloaddition, RMSE), not
# re-derived. We could not run them: both benchmarks are downloaded at run time (Google
# Drive through `gdown` in the released code).

# %%
quoted = causal_graph_regression.paper_table1()
print("GOOD-ZINC, MAE (the paper's Table 1):")
print(quoted.to_string(index=False))

# %%
ledger.quote(
    "5a",
    "GOOD-ZINC OOD MAE, CGR vs ERM (Table 1)",
    paper="scaffold-cov. 0.1046 vs 0.1660; scaffold-concept 0.0518 vs 0.1248; "
    "size-cov. 0.1484 vs 0.2331; size-concept 0.0580 vs 0.1406",
    source="paper",
    note="best of 10 methods on every split; 3 seeds",
)
ledger.quote(
    "5b",
    "ReactionOOD Cycloaddition OOD RMSE, CGR vs ERM (Table 2)",
    paper="scaffold-cov. 4.22 vs 4.80; scaffold-concept 5.37 vs 5.60; atom-number-cov. "
    "4.42 vs 4.36; atom-number-concept 5.53 vs 5.69",
    source="paper",
    note="best OOD RMSE in 6 of 10 ReactionOOD settings (paper's text)",
)

# %% [markdown]
# ## Peers side by side
#
# The peer is ERM assembled from torch-geometric 2.8's `GINConv`, `global_add_pool`,
# `Batch` and `DataLoader`, trained on the same splits with the same seeds (its batches
# come from torch-geometric's own shuffling). With identical weights, it and our
# hand-written ERM compute the same function; trained separately, they differ only
# through their initial weights (torch-geometric's `GINConv` re-initialises its MLP) and
# batch order, so their gap is a yardstick for run-to-run noise.

# %%
probe = splits0["OOD test"][:50]
size = dict(hidden=run["hidden"], layers=run["layers"])
same_fn = causal_graph_regression.peer_agreement(probe, **size)
print(f"identical weights, 50 graphs: max |ours − torch-geometric| = {same_fn:.1e}")
for split in ("IID", "OOD"):
    d = diff(ERM, PEER, split)
    mean = f"(mean {d.mean():+.3f})"
    print(f"{split} MAE, ours − torch-geometric per seed: {listed(d)} {mean}")

# %% [markdown]
# ## At full scale only · OOD error against shortcut strength
#
# At full scale the chapter also trains ERM and CGR with training shortcut strengths
# from 0.5 to 0.95 (the OOD split keeps its 0.9 reversal); at quick scale this section
# does nothing.

# %%
ERM_CGR = {name: METHODS[name] for name in (ERM, CGR)}
SWEEP = dict(rng_for=run.child_rng, **SPLIT_SIZES, **FIT)
sweep_rows = causal_graph_regression.shortcut_sweep(
    run["sweep"], run["sweep_seeds"], ERM_CGR, **SWEEP
)
sweep = pd.DataFrame(sweep_rows)

# %% tags=["hide-input"]
if sweep_rows:
    fig, ax = plt.subplots(figsize=(6, 4))
    for name in (ERM, CGR):
        d = sweep[sweep.method == name]
        ax.scatter(d.shortcut, d.OOD, color=color_for(name), s=14, alpha=0.6)
        m = d.groupby("shortcut").OOD.mean()
        ax.plot(m.index, m.values, color=color_for(name), marker="o", label=name)
    title = "OOD test MAE against training shortcut strength"
    ax.set(xlabel="training shortcut strength", ylabel="OOD test MAE", title=title)
    ax.legend()
    plt.show()

# %%
if sweep_rows:
    print(sweep.groupby(["shortcut", "method"]).OOD.agg(["mean", "std"]).round(3))
else:
    print(f"shortcut sweep: not run at scale {run.scale!r}")

# %% [markdown]
# ## Verdicts

# %% tags=["nbval-check-output"]
ledger.show()

# %% [markdown]
# **Unmet gates.** For every claim whose gate is unmet, the part of the gate that failed
# (read from the ledger, with its value) and what would check the claim.

# %%
GATE_PARTS = {
    "the shortcut gate (i)": (
        shortcut,
        "a benchmark whose base type ERM exploits (a stronger training shortcut)",
    ),
    "the mask gate (ii)": (
        mask_gate,
        "a set-up in which CGR's causal attention is on average ≥ 0.05 higher on the "
        f"cycle than on the base graph (the bounded search: {found.text}); the full "
        "scale, not yet run, is the next place to look",
    ),
}
print("\n".join(causal_graph_regression.gate_part_lines(ledger.claims, GATE_PARTS)))

# %% tags=["nbval-ignore-output"]
print(run.time_line())

# %% [markdown]
# **Reading the verdicts.** The sentences below are generated from this run's ledger and
# from the committed records (quick scale): the stability record (`data/stability/`; a
# claim changed since it was made is named) and the numerics record (verdicts that move
# under other kernels and thread counts).

# %%
print("\n".join(reading_lines(ledger)))

# %% [markdown]
# ## Deviations from the paper
#
# - **Criteria and objective changed after their results were known, second verdict
#   audit.** Old → new, and why:
#   - claim 3 (ERM − CGR IID MAE, paired gain) was not gated, and read "not reproduced"
#     (margin −0.010, with the mask gate unmet at −0.021) in the run before this
#     change; it is now gated on the mask gate (ii) alone, because without a mask that
#     separates the cycle the ✗ described an ERM with extra regularisers rather than
#     the paper's recipe; the shortcut gate (i) is left out since the claim is about
#     the IID split. GSAT's KL as a sensitivity of claims 2 and 3 is trained with the
#     ablations (full scale, `ablations=True`): at quick scale it does not fit the 90 s
#     budget;
#   - the $I(C;G)$ term was $\tfrac{1}{2D}\mathbb E\|h_o\|^2$ on a deterministic $h_o$,
#     which puts no pressure on the model (the head's BatchNorm undoes any scale of
#     $h_o$); it is now the Gaussian bottleneck (train: $h_o=\mu+\varepsilon$,
#     $\varepsilon\sim\mathcal N(0,I)$; eval: $h_o=\mu$) with the penalty
#     $\tfrac12\|\mu\|^2$, its KL to $\mathcal N(0,I)$, still divided by $D$: a
#     rescaling of $\alpha$ to $\alpha/D$. What we could confirm: the research brief we
#     worked from does not describe the paper's Eq. 8 at all; the form
#     $\tfrac12\mathbb E\|\mu_\phi(G)\|^2$ of a Gaussian causal embedding is an
#     earlier reading of the paper's text extraction, which we could not re-check here,
#     and the unit variance of $\varepsilon$ is our assumption (it is what makes
#     $\tfrac12\|\mu\|^2$ the KL). The search also tries the penalty without $/D$;
#   - claim 4a's bar was the released code's variance penalty; it is now CGR with the
#     confounder head untrained (`confounder="none"`), our reading of the paper's
#     Fig. 3 comparator ("ignoring" the confounder's predictive power), with the
#     variance penalty printed beside it as context. At the reference run (commit
#     0bf9c6d) 4a's old gain was measured on three seeds; at quick scale both the old
#     and the new 4a are not checked;
#   - the bounded mechanism search was described in hand-typed prose; it now lives in
#     `causal_graph_regression.write_mechanism_search` with set-ups that include
#     learning rates $3\cdot10^{-3}$ and $10^{-2}$ and 100 epochs, and its stored
#     result is printed above. No set-up was adopted from it unless the printout says
#     so.
# - **Criteria changed after their results were known** (issue 35's verdict audit: a
#   "better" claim is a gain beyond the noise of paired per-seed differences on at least
#   five seeds; a claim is judged only where its mechanism can show). Old → new:
#   - claims 2, 4a and 4b were gated on the shortcut alone; they are now also gated on
#     the mask separating the cycle (CGR's mean $a_o$ on cycle − base nodes ≥ 0.05, the
#     threshold an earlier audit proposed, fixed before this run). The reference ledger
#     of commit 0bf9c6d (`tests/reference/16_causal_graph_regression.json`) has the
#     mask's mean $a_o$ at 0.3431 on the cycle and 0.3453 on the base (commit 238c14c's
#     reference notebook printed them as 0.346 and 0.344), so under the old gate the
#     claims read "within noise" and "reproduced" on gains made without the paper's
#     mechanism;
#   - claims 2, 3, 4a and 4b: the paired gains now need five seeds (`min_seeds=5`); the
#     quick run has five instead of three, and pays for them by leaving the two
#     ablation models out, so 4a and 4b are not checked at quick scale (full scale, or
#     `ablations=True`, checks them);
#   - claim 3 was "CGR − ERM IID MAE ≤ 0.05" (reproduced at 238c14c with −0.017), an
#     allowance from the research brief, while the paper reports a *lower* ID MAE; it
#     is now the paired gain ERM − CGR in IID MAE, mean − 2 SE > 0;
#   - the $I(C;G)$ term was GSAT's KL of the node attention to Bernoulli(0.3), which
#     pulls every node's attention towards 0.3 whatever its part; it is now the paper's
#     $\tfrac12\mathbb E\|h_o\|^2$ (divided by the width), with GSAT's form kept as
#     `CGRLoss(info="kl")` (replaced again by the Gaussian bottleneck, above);
#   - the note under claim 1 that its verdict differed between chapter seeds 0 and 1
#     (printed whatever seed ran) was already gone; the remaining prose about seeds is
#     computed;
#   Earlier changes (the book-wide rule that a check of our benchmark is a gate):
#   - claim 1, "ERM's OOD MAE ≥ 1.4 × its IID MAE", was a claim of ours counted in the
#     paper's tally; it is now the gate of claims 2, 4a and 4b, with the same bound;
#   - claim 2, "mean CGR OOD MAE < mean ERM OOD MAE" (at commit 238c14c reproduced by a
#     gain of 0.062 against an ERM seed sd of 0.139), is now the paired gain ERM − CGR
#     with mean − 2 SE > 0;
#   - claims 4a and 4b, the same change of form for the variance penalty and for
#     $L_\mathrm{mix}$ (at 238c14c, 4b was reproduced by 0.0034 and failed on 3 of 5
#     chapter seeds).
# - **Changed after the first run.** In the first quick run
#   every model, ERM included, had an MAE near 1.6, worse than predicting the training
#   mean (about 0.54): the released head ends in BatchNorm → Linear, so y's offset of
#   about 2.5 had to be learned by the output bias at Adam's step size, which 180
#   optimiser steps cannot do. All heads (ERM, peer, both CGR branches) now predict on a
#   standardised scale, $\hat y=\bar y+s_y\cdot\mathrm{MLP}(h)$, with $\bar y, s_y$
#   fixed from the training targets; nothing else changed (sizes were fixed by timing
#   before any MAE).
# - **Stability.** Each chapter seed draws its own data sets and initialisations; the
#   seeds column of the verdict table gives each claim's verdicts over the chapter seeds
#   of the stability record (a claim changed since reads "stale record"), and the cell
#   after the verdict table prints them from that record.
# - **Data.** GOOD-ZINC and ReactionOOD are downloaded at run time, so claims 2–4 use
#   our own synthetic regression task with a structural shortcut (the base graph's type
#   tracks the response bin). The reversed OOD pairing maps bin $b$ to type $2-b$, which
#   leaves the middle bin's pairing unchanged: the shift acts on the tails of $y$ only.
#   The paper's own ablation used GOOD-Motif, a *classification* task; ours is
#   regression.
# - **Scale.** The sizes of both scales are printed from the chapter's `SIZES` in the
#   section "Run it at full scale". The paper: a three-layer GIN of width 300, 300 epochs and
#   GOOD-ZINC's 100–150k training graphs (its Appendix A.4, as read from the paper's text); our
#   full scale trains 100 epochs, not 300, to fit a GPU session. Seeds: Table 1 reports
#   3 seeds (the paper's text, as quoted under claim 5), while the released shell
#   scripts run 10 trials (the research brief, from the official code); our full scale
#   uses 10 seeds and the quick scale 5.
# - **Objective, as the paper writes it and as we run it.**
#   - The paper derives least-squares terms for $-I(C;Y)$ and $-I(S;Y)$ (its Eq. 14–15);
#     the released code and we use L1 on both heads (MAE is the metric).
#   - $I(C;G)$: the paper's proxy is $\tfrac12\,\mathbb E\|\mu_\phi(G)\|^2$ of a
#     Gaussian causal embedding (its Eq. 8); the released code has no such term. Ours
#     is Gaussian too: the pooled causal branch is $\mu(G)$, training samples
#     $h_o=\mu(G)+\varepsilon$ with unit variance (our assumption), evaluation uses
#     $\mu(G)$, and the penalty is divided by the width $D$, a rescaling of $\alpha$ to
#     $\alpha/D$ (so that $\alpha=0.5$ weighs the same at every width); GSAT's KL of the
#     causal node attention to Bernoulli(0.3) is the variant `CGRLoss(info="kl")`.
#   - $L_\mathrm{mix}$: the paper's Eq. 17 writes the denominator with
#     $s(h_{G,i}, h_{G,k})$; the released code (and we) use
#     $s(h^{\mathrm{mix}}_{ij}, h_{G,k})$, $k\ne i$, without the positive.
#     `mix_loss(..., include_positive=True)` gives the standard InfoNCE.
#   - Confounder term: the enhanced GIB trains the confounder head on $|\hat y_c-y|$
#     (the paper's text; our default); the released `train_cal.py` uses
#     $\mathrm{Var}(\hat y_c)$ with the predictive version commented out. Claim 4a
#     compares the two.
#   - Weights $\alpha=\beta=\lambda=0.5$ as the paper states; the released model's third
#     (random-mix) readout head is not in any loss and is left out.
# - **Architecture.** Our GIN, GCN and pooling layers are written in torch
#   (`sum_neighbours`); unit tests show they equal torch-geometric's `GINConv` and
#   `GCNConv`. The shared GCN layer normalises by the target node's weighted degree
#   (torch-geometric's convention); the released layer uses the source's. No weight
#   decay.
# - **What we could not confirm.** The paper's numbers were read from a text extraction
#   of the PMLR PDF; the GOOD-ZINC values match those its Section 5.3 repeats in prose.
#   The paper's appendix gives no per-split hyper-parameters beyond those above.
# - **Not implemented.** The full-scale extras beyond size, width, seeds and the
#   shortcut sweep — concept and covariate variants, house/crane motifs, IRM and VREx —
#   are not in this chapter. The full scale has not been run on a GPU yet; it does not
#   fit a CPU (see the last section).
#
# ## Run it at full scale
#
# ```bash
# .venv/bin/python -m repbook full 16   # runs it and records it in data/full_runs/
# # or, directly with papermill (not recorded):
# jupytext --to ipynb -o - notebooks/16_causal_graph_regression.py \
#   | papermill - out.ipynb -p scale full -k python3
# ```
# The full scale's sizes are printed below from `SIZES`. GPU only: scaled up from the
# quick fits by its graphs, epochs and width, its fits would take days on 2 CPU cores.
# The last line is generated from the committed full-scale record
# (`data/full_runs/16_causal_graph_regression.json`), once there is one.

# %%
for name in SIZES:
    print(causal_graph_regression.describe_sizes(name, SIZES[name]))

# %%
print("\n".join(full_run_lines(ledger)))
