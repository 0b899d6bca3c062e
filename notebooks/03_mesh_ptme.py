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
# # 03 · FreeMesh: per-token mesh entropy and coordinate merging
#
# Jian Liu, Haohan Weng, Biwen Lei, Xianghui Yang, Zibo Zhao, Zhuo Chen, Song Guo, Tao Han, Chunchao
# Guo — *FreeMesh: Boosting Mesh Generation with Coordinates Merging*, ICML 2025 · arXiv
# [2505.13573](https://arxiv.org/abs/2505.13573) · official code: `freemesh2025/FreeMesh` (tokenizers
# only, MIT).
#
# Autoregressive mesh generators write a triangle mesh as a sequence of quantised coordinates and
# learn it like text. How the mesh is serialised (the *tokenizer*) decides how long and how
# predictable that sequence is. The paper proposes a score that needs no training, the
# Per-Token-Mesh-Entropy (PTME), and a plug-in that shortens any serialisation: rearrange the
# coordinates of each group of three vertices so that equal values sit side by side, then merge
# frequent runs with byte-pair encoding (BPE).
#
# ```{admonition} Claims we test
# **The paper's claims**
#
# - **1** · MeshAnything V2 and EdgeRunner compress a face to about 4–5 coordinates (MeshXL
#   writes 9).
# - **2** · Naive coordinate merging (BPE on the sequences as they are, "MC") does not lower PTME,
#   on any of the three serialisations.
# - **3** · Rearranging then merging ("RMC") lowers PTME for all three tokenizers, and lowers it
#   further as the merged vocabulary grows.
# - **4** · Naive merging fails for want of frequent informative pairs, and rearranging supplies
#   them: among the most frequent pairs, the share whose merge lowers PTME rises from the
#   sequences as they are to the rearranged ones, on every tokenizer (the official derivation).
# - **6** · PTME ranks tokenisations without training as learnability does: within each
#   tokenizer, a next-token model's held-out bits per face order MC against base and RMC against
#   MC as PTME does — judged where the model learns more than a unigram.
#
# (Number 5 is one of our own checks, below: the paper does not state it.)
#
# **Quoted (not re-derived):** 7, "up to 21.2 %" compression (a secondary summary); 8, PTME
# against the Chamfer distance of generated meshes, r = 0.965 (a figure in the official
# repository).
#
# **Our own checks (outside the paper's tally)**
#
# - **2b** · MC removes less than 3 % of PTME (the magnitude of "no meaningful reduction").
# - **4b** · Within each kind of pair (two equal tokens $(a,a)$, two distinct ones), the
#   first-order change ranks the exact changes (Spearman ≥ 0.9), on every tokenizer.
# - **4c** · The same ranking pooled over both kinds, on MeshXL.
# - **5** · Rearranging is what makes merging compress: at the same vocabulary size, RMC needs
#   fewer tokens per face than MC, each base mesh held out in turn.
# - **6b** · PTME and the model's bits per face rank all nine tokenisations alike (Spearman).
#
# **Sanity checks (true by construction)**
#
# - **4s** · The first-order rule and the exact change agree in sign on the candidate pairs.
# - **5s** · RMC sequences are shorter than the base ones and shorten as the vocabulary grows.
# ```
#
# We implement the three serialisations the paper evaluates, each with a decoder, the rearrangement
# and its inverse, SentencePiece BPE merging, PTME and the chapter's experiment protocols in
# `repbook.papers.mesh_tokenizers`, and run them on real meshes that ship inside installed
# packages.
#
# **What was read.** Of the paper's own text we read its first page, from a stored copy of the
# arXiv HTML: the abstract, the opening of the introduction ("a sequence with a lower total amount
# of information is usually easier for sequence learning") and the caption of Figure 1 ("MC fails
# to reduce PTME", RMC lowers it). Its method sections, tables and generator experiments were not
# available offline. The derivation of the merge rule (claim 4) is in the official repository
# (`figures/proof.png`, earlier in its README), with the tokenizers, the vocabulary sizes and the toy
# strings; the authors' project page says that a larger vocabulary lowers PTME further. The
# "about 4–5 coordinates per face" and the "up to 21.2 %" come from a secondary summary. Each
# claim's source in the verdict table names what its value was read from.

# %% tags=["parameters"]
scale = "quick"  # "quick" (≤ 90 s on 2 CPU cores) or "full" (a transformer)
seed = 0

# %%
import time

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import torch
from mpl_toolkits.mplot3d.art3d import Poly3DCollection

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
    monotone,
    paired_gain,
    tol,
)
from repbook.core.ledger import full_run_lines, full_run_path, unstable_sentence
from repbook.papers import mesh_tokenizers as M

SIZES = {
    "quick": dict(
        max_faces=2000,
        rotations=6,
        vocab=[256, 512, 1024, 2048, 4096],
        top_pairs=50,
        context=4096,
        peer_vocab=[512, 4096],
        lobo_vocab=[256],
        lm=None,
    ),
    "full": dict(
        max_faces=5000,
        rotations=16,
        vocab=[256, 512, 1024, 2048, 4096, 8192],
        top_pairs=50,
        context=4096,
        peer_vocab=[256, 512, 1024, 2048, 4096, 8192],
        lobo_vocab=[256, 4096],
        lm=dict(
            d_model=128,
            n_layers=2,
            n_heads=4,
            context=256,
            steps=600,
            batch=16,
            lr=1e-3,
        ),
    ),
}
run = setup(scale=scale, seed=seed, sizes=SIZES)
# threads that train the vocabularies (the results do not depend on it)
WORKERS = torch.get_num_threads()
ledger = Ledger.for_run(
    run,
    regime=(
        "7 real meshes shipped with pyvista/pymeshlab plus 7 primitives, rotated; CPU"
    ),
)
use_style()
register_colors(
    {
        "base": "baseline",
        "MC": "muted",
        "RMC": "ours",
        "RAW": "alt",
        "AMT": "alt2",
        "EDR": "alt3",
    }
)
NAMES = {
    "RAW": "MeshXL (RAW)",
    "AMT": "MeshAnything V2 (AMT)",
    "EDR": "EdgeRunner (EDR)",
}

# %% [markdown]
# ## The method
#
# **Serialisations.** A mesh is normalised to the unit box and every coordinate quantised to 7 bits
# (0…127). MeshXL writes the 9 coordinates of every face. MeshAnything V2 walks strips of adjacent
# faces: a strip starts with one full face and every further face costs only its new vertex (3
# coordinates); a separator token ends the strip. EdgeRunner walks the half-edge structure in the
# style of Edgebreaker: each sub-mesh opens with a `BOM` token and one full face, then every face adds
# an `L`/`R` op and one vertex. The *compression ratio* CR is the base sequence length over the 9F of
# MeshXL.
#
# **Rearrangement (RAC).** Within every group of three vertices, the sequence
# $x_1y_1z_1\,x_2y_2z_2\,x_3y_3z_3$ becomes $x_1x_2x_3\,y_1y_2y_3\,z_1z_2z_3$. Neighbouring vertices
# often share a coordinate, so equal values become adjacent — exactly what BPE can merge.
#
# **PTME.** For a token sequence with empirical token probabilities $p_t$, entropy
# $H=-\sum_t p_t\log_2 p_t$ and mean number of base symbols per token $\bar l=\sum_t p_t l_t$,
#
# $$\mathrm{PTME} = \frac{H}{\bar l}\cdot \mathrm{CR} = H\cdot\frac{\#\text{tokens}}{9F},$$
#
# the unigram information per raw MeshXL coordinate. Merging shortens the sequence (fewer tokens) but
# spreads the probability over a larger vocabulary (higher $H$); PTME weighs the two. By hand on one
# random sequence, then the library:

# %%
rng = run.child_rng(0)
toy = rng.integers(0, 6, 90)
toy_faces = 10
counts = np.bincount(toy)
p = counts[counts > 0] / toy.size
by_hand = -(p * np.log2(p)).sum() * toy.size / (9 * toy_faces)
lib = M.corpus_ptme([toy], toy_faces)
print(
    f"by hand: PTME = {by_hand:.6f}   lib: PTME = {lib.ptme:.6f} (H = "
    f"{lib.entropy:.4f} bits, "
    f"l̄ = {lib.mean_length:.1f}, CR = {lib.cr:.1f})"
)

# %% [markdown]
# The official repository's toy strings (`intuition.py`), through the library (`ptme_of_string`,
# CR = 1), beside the values the repository prints for them:

# %%
ab = {c: c for c in "abcd"}
toys = [
    ("aadabbacc", ab, "base"),
    ("Xdabbacc", {**ab, "X": "aa"}, "merge (MC), X = aa"),
    ("aaaabcdbc", ab, "rearranged (RAC)"),
    ("XXYdY", {**ab, "X": "aa", "Y": "bb"}, "rearrange + merge (RMC), X = aa, Y = bb"),
]
official = [1.837, 2.0, 1.837, 0.846]  # printed by the repository's intuition.py
toy_ptme = [M.ptme_of_string(text, vocab) for text, vocab, _ in toys]
for (text, _, label), ours, theirs in zip(toys, toy_ptme, official):
    print(f"{text:>10}  PTME = {ours:.3f} (repository: {theirs})   {label}")
same = all(abs(a - b) < 5e-4 for a, b in zip(toy_ptme, official))
mc_word = "raises" if toy_ptme[1] > toy_ptme[0] else "does not raise"
rac_word = "leaves" if abs(toy_ptme[2] - toy_ptme[0]) < 1e-12 else "changes"
rmc_word = "lowers" if toy_ptme[3] < toy_ptme[0] else "does not lower"
print(
    f"{'all four agree' if same else 'they differ'} to the repository's 3 decimals: "
    f"MC {mc_word} the base PTME, RAC alone {rac_word} it, RMC {rmc_word} it"
)

# %% [markdown]
# (The repository's RMC toy string expands to `aaaabbdbb`, not to the rearranged string; we reproduce
# its numbers as given.)
#
# ## Data: real meshes that ship offline
#
# The real meshes are the sample files inside the installed `pyvista` and `pymeshlab` wheels (two
# airplanes, an ant, a nut, a bone, a bunny and a cow), decimated with pymeshlab's quadric edge
# collapse to at most `max_faces` faces, plus seven trimesh primitives. Each base mesh is rotated
# `rotations` times at random, which changes every quantised coordinate. Train/test is split **by base
# mesh** (a third of the real meshes and of the primitives are held out, `M.hold_out`), so no rotated
# copy of a test mesh is trained on. Quantisation can glue two surfaces together; EdgeRunner needs at
# most two faces per edge, so faces that would put a third face on an edge are dropped (counted
# below) and all three tokenizers see the same faces. `M.build_corpus` rotates, quantises and
# serialises every mesh and decodes each of its six tokenisations back to its faces (an error if
# one does not).

# %%
t0 = time.perf_counter()
bases = M.sample_meshes(max_faces=run["max_faces"])
real = [k for k in bases if "(" in k]
prims = [k for k in bases if "(" not in k]
test_bases = M.hold_out({"real": real, "primitives": prims}, rng=run.child_rng(1))
corpus = M.build_corpus(
    bases, rotations=run["rotations"], test_bases=test_bases, rng=run.child_rng(2)
)
stage_s = {"data": time.perf_counter() - t0}
meshes = pd.DataFrame(list(corpus.rows))
test_idx = corpus.test
faces_test = corpus.faces("test")
print(
    f"{len(bases)} base meshes × {run['rotations']} rotations = {len(meshes)} meshes "
    f"({corpus.train.size} train, {test_idx.size} test); every one of the "
    f"{6 * len(meshes)} tokenisations decodes to its mesh's faces; data prepared in "
    f"{time.perf_counter() - t0:.1f} s"
)
print("held-out base meshes: " + ", ".join(sorted(test_bases)))
summary = meshes.groupby("mesh", sort=False).agg(
    faces=("faces", "median"),
    dropped_all_rotations=("dropped", "sum"),
    CR_AMT=("CR_AMT", "mean"),
    CR_EDR=("CR_EDR", "mean"),
    split=("split", "first"),
)
print(summary.round(3).to_string())

# %% [markdown]
# ## Coordinate merging on every tokenizer
#
# For each tokenizer, one SentencePiece BPE vocabulary is trained per size $V$ on the training meshes
# — on the sequences as they are (MC) and on the rearranged sequences (RMC) — and PTME is measured on
# the held-out meshes (`M.merging_sweep`). Separators (AMT's strip end, EDR's `BOM`) are never
# merged; EDR's `L`/`R` ops are ordinary tokens, as in the official code.

# %%
t0 = time.perf_counter()
sweep = M.merging_sweep(corpus, run["vocab"], workers=WORKERS)
stage_s["vocabularies"] = time.perf_counter() - t0
res = pd.DataFrame(list(sweep.rows))
print(
    f"{len(sweep.mergers)} BPE vocabularies trained and applied in "
    f"{time.perf_counter() - t0:.1f} s"
)
table = res.pivot_table(
    index=["tokenizer", "method"], columns="V", values="ptme", sort=False
)
print("held-out PTME (bits per raw coordinate):")
print(table.round(3).to_string())

# %% [markdown]
# ## Claim 1 · AMT and EDR compress the connectivity
#
# For an unmerged sequence PTME $=H\cdot\mathrm{CR}$, and the per-token entropy $H$ of the three
# serialisations is similar (all three write 7-bit coordinates), so the ratio of their PTMEs is set
# by their compression ratios: the PTME ranking of unmerged tokenizers follows from CR and is shown,
# not tested. Whether PTME ranks tokenisations as a model's learning does is claim 6.
#
# **Criterion.** On the real meshes (every rotation of the seven shipped meshes, train and test;
# the primitives left out), base tokens per face of AMT and of EDR, weighted by faces (all their
# tokens over all their faces), each lie in [4, 5]. The summary says *about* 4–5 coordinates per
# face; the band's hard edges are ours. It fails if the strips or sub-meshes of these meshes are
# short (more full faces, CR toward 1), if they are longer than the paper's (under 4), or if our
# serialisers drop tokens.

# %%
base_ptme = res[res.method == "base"].set_index("tokenizer").ptme
ratio1 = float(base_ptme["RAW"] / max(base_ptme["AMT"], base_ptme["EDR"]))
is_real = meshes.mesh.isin(real)
real_tpf = {  # all tokens over all faces of the real meshes
    tk: float(
        9
        * (meshes[f"CR_{tk}"] * meshes.faces)[is_real].sum()
        / meshes.faces[is_real].sum()
    )
    for tk in ("AMT", "EDR")
}
cr_mean = {tk: float(meshes[f"CR_{tk}"].mean()) for tk in ("AMT", "EDR")}
cr_range = {
    tk: (float(meshes[f"CR_{tk}"].min()), float(meshes[f"CR_{tk}"].max()))
    for tk in ("AMT", "EDR")
}
base_h = res[res.method == "base"].set_index("tokenizer").entropy
print(
    "base PTME: "
    + ", ".join(f"{tk} {base_ptme[tk]:.3f}" for tk in M.TOKENIZERS)
    + f"; RAW / max(AMT, EDR) = {ratio1:.2f}"
)
print(
    "entropy per token H (bits): "
    + ", ".join(f"{tk} {base_h[tk]:.3f}" for tk in M.TOKENIZERS)
)
for tk in ("AMT", "EDR"):
    print(
        f"{tk}: {real_tpf[tk]:.2f} tokens per face on the real meshes "
        "(faces-weighted); "
        f"over all {len(meshes)} meshes, mean CR {cr_mean[tk]:.3f} "
        f"({9 * cr_mean[tk]:.2f} tokens per face, unweighted), per-mesh range "
        f"{cr_range[tk][0]:.3f}–{cr_range[tk][1]:.3f}"
    )

# %% tags=["hide-input"]
fig, axes = plt.subplots(1, 2, figsize=(10, 3.6))
ax = axes[0]
xs = np.arange(3)
ax.bar(
    xs,
    [base_ptme[tk] for tk in M.TOKENIZERS],
    color=[color_for(tk) for tk in M.TOKENIZERS],
)
ax.set(
    xticks=xs,
    xticklabels=[NAMES[tk] for tk in M.TOKENIZERS],
    ylabel="held-out PTME (bits / raw coord.)",
    title="Unmerged PTME of each tokenizer",
)
ax.tick_params(axis="x", labelsize=8)
ax = axes[1]
for k, tk in enumerate(("AMT", "EDR")):
    for sel, marker, kind in ((is_real, "o", "real"), (~is_real, "x", "primitive")):
        ax.scatter(
            meshes.faces[sel],
            meshes[f"CR_{tk}"][sel],
            s=12,
            alpha=0.6,
            marker=marker,
            color=color_for(tk),
            label=f"{NAMES[tk]}, {kind}",
        )
ax.axhspan(
    4 / 9,
    5 / 9,
    color=color_for("muted"),
    alpha=0.12,
    label="4–5 tokens per face (summary: about; edges ours)",
)
ax.set(
    xscale="log",
    xlabel="faces (after quantisation)",
    ylabel="CR = base tokens / 9F",
    title="Compression ratio of each mesh (x: primitives, not judged)",
    ylim=(0.25, 0.65),
)
ax.legend(fontsize=7)
plt.show()

# %%
ledger.check(
    1,
    "AMT and EDR write about 4–5 tokens per face (MeshXL: 9)",
    paper="about 4–5 coordinates per face",
    source="secondary summary",
    evidence="real data",
    measured={
        "base tokens per face, real meshes": real_tpf,
        "PTME RAW / max(AMT, EDR)": ratio1,
    },
    criterion=within("base tokens per face, real meshes", 4, 5),
    note="faces-weighted over every rotation of the 7 real meshes; the band's edges "
    "are ours (the summary says about 4–5)",
)

# %% [markdown]
# Since PTME $= H\cdot\mathrm{CR}$ for an unmerged sequence, compressing the connectivity (AMT, EDR)
# lowers PTME by the compression ratio times the change of the per-token entropy $H$; both are printed
# above. The right panel shows how much the ratio varies from mesh to mesh: it depends on how long
# AMT's strips and EdgeRunner's sub-mesh runs are on each mesh.
#
# ## Claim 2 · Naive merging does not lower PTME
#
# The caption of the paper's Figure 1 says MC fails to reduce PTME; the official README's
# derivation opens by noting that naive merging raises it slightly on all three serialisations.
#
# **Criterion (claim 2, the paper's direction).** For every tokenizer and every vocabulary size
# $V$, held-out PTME with MC is not below the base PTME (ratio ≥ 1). It fails if naive BPE finds
# frequent, informative pairs in the sequences as they are — repeated whole vertices in MeshXL, or
# the ops and coordinates EdgeRunner writes side by side — on any one tokenizer.
#
# **Our check 2b (the magnitude).** MC removes less than 3 % of the base PTME at every $V$ (ratio
# ≥ 0.97; the 3 % bar for "no meaningful reduction" is ours). It fails if MC lowers PTME by as much
# as RMC does at its smallest vocabulary.

# %%
wide = res.pivot_table(
    index=["tokenizer", "V"], columns="method", values="ptme"
).reset_index()
wide["base"] = wide.tokenizer.map(base_ptme)
mc = wide.dropna(subset=["MC"]).copy()
mc["MC / base"] = mc.MC / mc.base
mc["RMC / base"] = mc.RMC / mc.base
print(
    mc[["tokenizer", "V", "base", "MC", "RMC", "MC / base", "RMC / base"]]
    .round(3)
    .to_string(index=False)
)
worst_mc = float(mc["MC / base"].min())

# %% tags=["hide-input"]
fig, axes = plt.subplots(1, 3, figsize=(12, 3.6), sharex=True)
for ax, tk in zip(axes, M.TOKENIZERS):
    d = mc[mc.tokenizer == tk]
    ax.axhline(
        base_ptme[tk],
        color=color_for("base"),
        ls="--",
        lw=1.2,
        label="base (no merging)",
    )
    ax.plot(d.V, d.MC, marker="o", color=color_for("MC"), label="MC: merge as is")
    ax.plot(
        d.V,
        d.RMC,
        marker="o",
        color=color_for("RMC"),
        label="RMC: rearrange, then merge",
    )
    ax.set(xscale="log", xlabel="vocabulary size V", title=NAMES[tk])
    ax.set_xticks(run["vocab"], [str(v) for v in run["vocab"]], fontsize=8)
    ax.minorticks_off()
axes[0].set_ylabel("held-out PTME (bits / raw coord.)")
axes[0].legend(fontsize=8)
fig.suptitle("Held-out PTME of MC and RMC against the base", fontweight="bold")
plt.show()

# %%
ratio2 = {
    "PTME(MC) / PTME(base)": {
        f"{r.tokenizer} V={r.V}": r["MC / base"] for _, r in mc.iterrows()
    }
}
ledger.check(
    2,
    "naive merging (MC) does not lower PTME, on any tokenizer",
    paper="MC fails to reduce PTME (the paper, Figure 1's caption); a slight increase "
    "on all three serialisations (the official README's derivation)",
    source="official code",
    evidence="real data",
    measured=ratio2,
    criterion=at_least("PTME(MC) / PTME(base)", 1),
    tolerance={"PTME(MC) / PTME(base)": tol(abs=0.0003)},
)
ledger.ours(
    "2b",
    "naive merging (MC) removes less than 3 % of PTME",
    why="the magnitude of 'no meaningful reduction': the 3 % bar is ours, the paper "
    "states a direction",
    evidence="real data",
    measured=ratio2,
    criterion=at_least("PTME(MC) / PTME(base)", 0.97),
    tolerance={"PTME(MC) / PTME(base)": tol(abs=0.0003)},
)

# %% [markdown]
# ## Claim 3 · Rearranging then merging lowers PTME, more with a larger vocabulary
#
# The caption of Figure 1 says RMC lowers PTME where MC fails; the authors' project page adds that
# a larger vocabulary lowers it further. (The ledger's source label is the weaker of the two; it
# has no label for a project page, and "official code" — the authors' own material outside the
# paper — is the nearest.)
#
# **Criterion.** For each tokenizer: PTME with RMC is below the base PTME and below MC at every $V$,
# decreases strictly as $V$ grows, and at the largest $V$ is at least 5 % below the base (the 5 %
# bar is ours). It fails if the rearranged pairs are no more frequent than the raw ones, or if a
# larger vocabulary spreads the probability faster than it shortens the sequence.

# %%
checks3 = {}
for tk in M.TOKENIZERS:
    d = mc[mc.tokenizer == tk].sort_values("V")
    checks3[tk] = dict(
        below_base=bool((d.RMC < d.base).all()),
        below_mc=bool((d.RMC < d.MC).all()),
        decreasing=bool(np.all(np.diff(d.RMC.values) < 0)),
        reduction=float(1 - d.RMC.values[-1] / d.base.values[-1]),
    )
checks3 = pd.DataFrame(checks3).T
print(checks3.to_string())

# %%
v3 = {
    "PTME(RMC) / PTME(base)": {
        f"{r.tokenizer} V={r.V}": r["RMC / base"] for _, r in mc.iterrows()
    },
    "PTME(RMC) / PTME(MC)": {
        f"{r.tokenizer} V={r.V}": r.RMC / r.MC for _, r in mc.iterrows()
    },
    f"reduction at V={run['vocab'][-1]}": checks3.reduction.to_dict(),
}
for tk in M.TOKENIZERS:
    v3[f"PTME(RMC) by V, {tk}"] = mc[mc.tokenizer == tk].sort_values("V").RMC.to_numpy()
ledger.check(
    3,
    "RMC lowers PTME on all tokenizers, further as V grows",
    paper="RMC lowers PTME where MC fails (the paper, Figure 1's caption); a larger "
    "vocabulary lowers it further (the authors' project page)",
    source="official code",
    evidence="real data",
    measured=v3,
    criterion=all_of(
        at_most(["PTME(RMC) / PTME(base)", "PTME(RMC) / PTME(MC)"], 1, strict=True),
        *[monotone(f"PTME(RMC) by V, {tk}", "decreasing") for tk in M.TOKENIZERS],
        at_least(f"reduction at V={run['vocab'][-1]}", 0.05),
    ),
    show=[f"reduction at V={run['vocab'][-1]}"],
    tolerance=tol(abs=0.0004),
)

# %%
mc_range = (float(mc["MC / base"].min()), float(mc["MC / base"].max()))
rmc_range = (float(mc["RMC / base"].min()), float(mc["RMC / base"].max()))
print(
    f"MC / base ranges {mc_range[0]:.3f}–{mc_range[1]:.3f} over the "
    f"{len(mc)} tokenizer × V cells; RMC / base {rmc_range[0]:.3f}–"
    f"{rmc_range[1]:.3f}; the reduction at V = {run['vocab'][-1]} is "
    + ", ".join(f"{tk} {checks3.reduction[tk]:.1%}" for tk in M.TOKENIZERS)
)
lowers2, raises2 = [], []
for tk in M.TOKENIZERS:
    r2 = mc[mc.tokenizer == tk]["MC / base"]
    n_below = int((r2 < 1).sum())
    span = f"{r2.min():.3f}–{r2.max():.3f} of the base"
    if n_below:
        lowers2.append(f"{NAMES[tk]} at {n_below} of {len(r2)} sizes ({span})")
    else:
        raises2.append(f"{NAMES[tk]} ({span})")
print(
    "Claim 2 reads: MC lowers PTME on "
    + ("; ".join(lowers2) if lowers2 else "no tokenizer")
    + (
        f", and leaves it at or above the base on {', '.join(raises2)}"
        if raises2
        else ""
    )
    + f" — so the paper's direction holds on {len(raises2)} of {len(M.TOKENIZERS)} "
    f"tokenizers; the largest reduction, {1 - mc_range[0]:.1%}, is "
    + ("under" if mc_range[0] >= 0.97 else "over")
    + " our 3 % bar (2b)."
)

# %% [markdown]
# ### Peers side by side: a second BPE implementation
#
# The peers of this paper are the three tokenizers above, each run as base, MC and RMC. The merging
# step itself has two mature implementations: SentencePiece (used by the paper and above) and Hugging
# Face `tokenizers`. We train the latter on the same rearranged training sequences (separators split
# off before merging) at the vocabulary sizes `peer_vocab` and compare held-out PTME and tokens per
# face (`M.peer_merging`, which also decodes every encoding back). The two differ in details
# (SentencePiece caps pieces at 16 symbols like `tokenizers` here, but breaks ties between equally
# frequent pairs differently), so the numbers need not agree exactly.

# %%
t0 = time.perf_counter()
peer = pd.DataFrame(M.peer_merging(corpus, sweep, run["peer_vocab"]))
stage_s["second BPE"] = time.perf_counter() - t0
print(
    f"RMC with two BPE implementations ({time.perf_counter() - t0:.1f} s); held-out "
    f"values:"
)
print(peer.round(3).to_string(index=False))
print(
    "largest relative PTME difference: "
    f"{(peer['PTME tokenizers'] / peer['PTME sentencepiece'] - 1).abs().max():.1%}"
)

# %% [markdown]
# ### What the merged pieces look like
#
# One held-out mesh, its rearranged MeshXL sequence and the largest RMC vocabulary. Each face is
# coloured by the number of tokens its 9 coordinates cost after merging (a coordinate inside a piece
# of length $l$ costs $1/l$ token); the strip on the right shows the first 180 coordinates of the
# sequence, one block per merged piece, and the histogram the lengths of the pieces used.

# %% tags=["hide-input"]
V_max = run["vocab"][-1]
show = int(test_idx[np.argmax(meshes.faces.values[test_idx])])
q_show = corpus.meshes[show]
mg = sweep.mergers[("RAW", "RMC", V_max)]
ids = mg.encode(corpus.sequences[("RAW", True)][show])
lens = mg.piece_length[ids]
cost = np.repeat(1.0 / lens, lens)  # token cost of every base coordinate
face_cost = cost.reshape(-1, 9).sum(
    axis=1
)  # RAC keeps each face's 9 coordinates together
print(
    f"{meshes.mesh[show]} (rotation {meshes.rotation[show]}), {q_show.n_faces} faces: "
    f"{len(ids)} tokens for {lens.sum()} coordinates, {face_cost.mean():.2f} tokens "
    f"per face "
    f"(9 before merging); face cost ranges {face_cost.min():.2f}–{face_cost.max():.2f}"
)

fig = plt.figure(figsize=(12, 4.4))
gs = fig.add_gridspec(1, 3, width_ratios=[1.5, 1.1, 0.8])
ax = fig.add_subplot(gs[0], projection="3d")
tri = q_show.triangles().astype(float)
lo, hi = q_show.vertices.min(0), q_show.vertices.max(0)
mid, half = (lo + hi) / 2, (hi - lo).max() / 2
cmap = plt.get_cmap("viridis")
norm = plt.Normalize(face_cost.min(), face_cost.max())
ax.add_collection3d(
    Poly3DCollection(tri, facecolors=cmap(norm(face_cost)), edgecolor="none")
)
ax.set(
    xlim=(mid[0] - half, mid[0] + half),
    ylim=(mid[1] - half, mid[1] + half),
    zlim=(mid[2] - half, mid[2] + half),
    xticks=[],
    yticks=[],
    zticks=[],
)
ax.set_box_aspect((1, 1, 1), zoom=1.4)
ax.set_axis_off()
ax.set_title("tokens per face after RMC", fontsize=10)
fig.colorbar(
    plt.cm.ScalarMappable(norm=norm, cmap=cmap), ax=ax, shrink=0.6, label="tokens"
)
ax = fig.add_subplot(gs[1])
pos, k = 0, 0
palette = plt.get_cmap("tab20")
while pos < 180:
    l = int(lens[k])
    for j in range(l):
        r, c = divmod(pos + j, 18)
        if r >= 10:
            break
        ax.add_patch(plt.Rectangle((c, -r), 1, 0.9, color=palette(k % 20)))
    pos += l
    k += 1
ax.set(xlim=(0, 18), ylim=(-9.2, 1), xticks=[], yticks=[], aspect="equal")
ax.set_title(f"first 180 coordinates, 2 faces a row: {k} tokens", fontsize=9)
ax.grid(False)
ax = fig.add_subplot(gs[2])
ax.hist(lens, bins=np.arange(0.5, lens.max() + 1.5), color=color_for("RMC"))
ax.set(
    xlabel="piece length (coordinates)",
    ylabel="tokens",
    title="lengths of the pieces used",
    xticks=np.arange(1, lens.max() + 1),
)
fig.suptitle(
    f"RMC on {meshes.mesh[show]} (MeshXL order, V = {V_max})", fontweight="bold"
)
plt.show()


# %% [markdown]
# ## Claim 4 · Rearranging supplies the merges that lower PTME
#
# The official derivation (`figures/proof.png` in the repository, and an earlier version of its
# README) merges every occurrence of one adjacent pair $(a,b)$ into a new token and finds exactly
# $\Delta\mathrm{PTME} = -\mathrm{CR}\cdot F_{ab}/\bar l$; to first order in $p_{ab}$
#
# $$F_{ab}\approx F^*_{ab} = p_{ab}\Big(\ln\frac{p_{ab}}{p_a p_b} - 1\Big),$$
#
# so a merge lowers PTME only if the pointwise mutual information $\ln\frac{p_{ab}}{p_ap_b}$ exceeds 1
# and $p_{ab}$ is high. The README draws the paper's conclusion from it: naive merging fails because
# the frequent pairs of the sequences as they are do not have that $p_{ab}$, and rearranging raises
# it. We take the `top_pairs` most frequent pairs of each training corpus — each tokenizer, as is
# and rearranged — and compute the exact change of PTME for merging each one (from the counts after
# the merge) beside the first-order one (`M.pair_sweep`, `M.helpful_merges`).
#
# **Criterion (claim 4).** For every tokenizer, the share of helpful merges (exact ΔPTME < 0) among
# the candidate pairs is higher on the rearranged corpus than on the corpus as it is. It fails if
# rearranging brings no more informative pairs to the top — if the frequent rearranged pairs were
# equal neighbours too common to carry information, say — or if the pairs of a serialisation are
# already helpful as they are (EdgeRunner writes an op before every vertex, a frequent pattern).
#
# **Sanity check 4s.** The first-order rule and the exact change agree in sign on at least 90 % of
# the candidates of every corpus. The neglected terms are of order $p_{ab}/p_a$, so a sign can flip
# only for a pair whose PMI lies about that close to 1; the table below counts such pairs, and too
# few of them for the 90 % bar to bite.
#
# **Our checks 4b and 4c.** The derivation states a sign condition, not a ranking. That $F^*$ also
# orders the merges by how much they help is our reading of its "≈": 4b asks for Spearman ≥ 0.9
# between predicted and exact changes within each kind of pair (self-pairs $(a,a)$, distinct pairs;
# the derivation's algebra takes $a\ne b$), on every tokenizer and order where a kind has at least
# 10 of the candidates; 4c the same pooled over both kinds on MeshXL. 4b fails if the neglected
# terms vary from pair to pair as much as $F^*$ does; 4c also fails if the two kinds sit on
# separate lines.

# %%
pairs = pd.DataFrame(M.pair_sweep(corpus, top=run["top_pairs"]))
helpful = pd.DataFrame(M.helpful_merges(pairs.to_dict("records"))).set_index(
    ["tokenizer", "order"]
)
agreement = {}
for (tk, order), d in pairs.groupby(["tokenizer", "order"], sort=False):
    agreement[(tk, order)] = M.formula_agreement(
        d.exact, d.predicted, d.kind, d.pmi, min_pairs=10
    )
rows4 = {}
for key, a in agreement.items():
    d = pairs[(pairs.tokenizer == key[0]) & (pairs.order == key[1])]
    reach = float(
        (d.p_ab / np.minimum(d.p_a, d.p_b)).max()
    )  # order of the neglected terms
    rows4[key] = {
        "helpful (exact)": helpful.loc[key, "helpful_exact"],
        "helpful (F* > 0)": helpful.loc[key, "helpful_first_order"],
        "mean p_ab": helpful.loc[key, "mean_p_ab"],
        "sign agreement": a.sign_agreement,
        "min |PMI − 1|": a.closest_pmi_to_one,
        "max p_ab / p_a": reach,
        "pairs near PMI = 1": int((np.abs(d.pmi - 1) < reach).sum()),
        "Spearman pooled": a.spearman_pooled,
        "Spearman self": a.spearman_by_kind.get("self", np.nan),
        "Spearman distinct": a.spearman_by_kind.get("distinct", np.nan),
        "self pairs": a.pairs_by_kind.get("self", 0),
    }
agree = pd.DataFrame(rows4).T
agree = agree.astype({"self pairs": int, "pairs near PMI = 1": int})
agree.index.names = ["tokenizer", "order"]
print(agree.round(3).to_string())

# %% tags=["hide-input"]
fig, axes = plt.subplots(
    1, 3, figsize=(14, 4), gridspec_kw=dict(width_ratios=[0.8, 1, 1])
)
ax = axes[0]
xs = np.arange(len(M.TOKENIZERS))
for k, (order, label) in enumerate((("as is", "as is"), ("RAC", "rearranged"))):
    ax.bar(
        xs + (k - 0.5) * 0.38,
        [helpful.loc[(tk, order), "helpful_exact"] for tk in M.TOKENIZERS],
        width=0.38,
        color=color_for("MC" if order == "as is" else "RMC"),
        label=label,
    )
ax.set(
    xticks=xs,
    xticklabels=list(M.TOKENIZERS),
    ylim=(0, 1.05),
    ylabel=f"share of the top {run['top_pairs']} pairs whose merge lowers PTME",
    title="Helpful merges, as is and rearranged",
)
ax.legend(fontsize=8)
for ax, order in zip(axes[1:], ("as is", "RAC")):
    d = pairs[(pairs.tokenizer == "RAW") & (pairs.order == order)]
    a4 = agreement[("RAW", order)]
    for kind, marker in (("distinct", "o"), ("self", "^")):
        dk = d[d.kind == kind]
        sc = ax.scatter(
            dk.predicted,
            dk.exact,
            c=dk.pmi,
            cmap="coolwarm",
            vmin=-1,
            vmax=3,
            s=26,
            marker=marker,
            edgecolor="k" if kind == "self" else "none",
            linewidths=0.4,
            label=f"{kind} pairs ({len(dk)})",
        )
    lim = [min(d.predicted.min(), d.exact.min()), max(d.predicted.max(), d.exact.max())]
    ax.plot(
        lim,
        lim,
        color=color_for("reference"),
        ls="--",
        lw=1.2,
        label="predicted = exact",
    )
    ax.axhline(0, color=color_for("muted"), lw=0.8)
    ax.axvline(0, color=color_for("muted"), lw=0.8)
    n_help = int((d.exact < 0).sum())
    ax.set(
        xlabel="first-order ΔPTME (bits)",
        ylabel="exact ΔPTME (bits)",
        title=f"MeshXL, {'rearranged' if order == 'RAC' else 'raw order'}: "
        f"{n_help} of {len(d)} help; signs agree on {a4.sign_agreement:.0%}",
    )
    ax.title.set_fontsize(9)
    ax.legend(fontsize=8, loc="upper left")
fig.colorbar(sc, ax=axes[1:], label="PMI = ln p_ab / (p_a p_b)")
plt.show()

# %%
share = {
    order: {tk: float(helpful.loc[(tk, order), "helpful_exact"]) for tk in M.TOKENIZERS}
    for order in ("as is", "RAC")
}
rise4 = {tk: share["RAC"][tk] - share["as is"][tk] for tk in M.TOKENIZERS}
ledger.check(
    4,
    "rearranging raises the share of merges that lower PTME among the most frequent "
    "pairs, on every tokenizer",
    paper="ΔPTME = −CR·F_ab/l̄ with F_ab ≈ p_ab(PMI − 1): naive merging fails for want "
    "of p_ab, and rearranging raises p_ab (the official derivation, figures/proof.png "
    "and the README)",
    source="official code",
    evidence="real data",
    measured={
        "share of helpful merges, as is": share["as is"],
        "share of helpful merges, rearranged": share["RAC"],
        "rise in the share (rearranged − as is)": rise4,
    },
    criterion=at_least("rise in the share (rearranged − as is)", 0, strict=True),
    tolerance={
        "share of helpful merges, as is": tol(abs=0.06),
        "rise in the share (rearranged − as is)": tol(abs=0.06),
    },
    note=f"helpful: exact ΔPTME < 0; the {run['top_pairs']} most frequent pairs of "
    "each training corpus",
)
sign4 = {f"{tk} {order}": a.sign_agreement for (tk, order), a in agreement.items()}
ledger.sanity(
    "4s",
    "the first-order rule and the exact change agree in sign on the candidate pairs",
    why="the rule neglects terms of order p_ab/p_a, which can flip a sign only for a "
    "pair whose PMI lies about that close to 1; too few candidates do for the 90 % bar "
    "to bite (counted in the table above)",
    measured={"sign agreement": sign4},
    criterion=at_least("sign agreement", 0.9),
    evidence="real data",
    tolerance={"sign agreement": tol(abs=0.06)},
)
within4 = {
    f"{tk} {order}: {kind}": rho
    for (tk, order), a in agreement.items()
    for kind, rho in a.spearman_by_kind.items()
}
ledger.ours(
    "4b",
    "within each kind of pair, the first-order change ranks the exact changes, on "
    "every tokenizer",
    why="the derivation states a sign condition; that F* also orders merges by how "
    "much they help is our reading of its ≈, read within self-pairs and within "
    "distinct pairs because its algebra takes a ≠ b",
    evidence="real data",
    measured={"Spearman within kind": within4},
    criterion=at_least("Spearman within kind", 0.9),
    note="each tokenizer and order, kinds with at least 10 of the candidate pairs",
    tolerance={"Spearman within kind": tol(abs=0.03)},
)
raw_agree = {order: agreement[("RAW", order)] for order in ("as is", "RAC")}
ledger.ours(
    "4c",
    "pooled over both kinds of pair, the first-order change ranks the exact changes",
    why="claim 4's ranking part before this revision: one ranking over self-pairs and "
    "distinct pairs, which the derivation does not treat alike",
    evidence="real data",
    measured={
        "Spearman pooled, RAW": {o: a.spearman_pooled for o, a in raw_agree.items()}
    },
    criterion=at_least("Spearman pooled, RAW", 0.9),
    tolerance={"Spearman pooled, RAW": tol(abs=0.005)},
)

# %%
print(
    f"Claim 4 reads: among the {run['top_pairs']} most frequent pairs, the share whose "
    "merge lowers PTME goes from "
    + ", ".join(
        f"{share['as is'][tk]:.0%} to {share['RAC'][tk]:.0%} ({tk})"
        for tk in M.TOKENIZERS
    )
    + " when the coordinates are rearranged; the mean p_ab of the candidates goes from "
    + ", ".join(
        f"{helpful.loc[(tk, 'as is'), 'mean_p_ab']:.4f} to "
        f"{helpful.loc[(tk, 'RAC'), 'mean_p_ab']:.4f} ({tk})"
        for tk in M.TOKENIZERS
    )
    + "."
)
n_near = agree["pairs near PMI = 1"]
print(
    "4s: the rule gets the sign of "
    + ", ".join(
        f"{round(a.sign_agreement * a.n_pairs)} of {a.n_pairs} ({tk} {order})"
        for (tk, order), a in agreement.items()
    )
    + f" right; the corpora hold {n_near.min()}–{n_near.max()} pairs whose PMI lies "
    "within max p_ab/p_a of 1, the only ones the neglected terms could flip."
)
low4 = [
    f"{tk} {order}, {kind} pairs: {rho:.3f} over {a.pairs_by_kind[kind]}"
    for (tk, order), a in agreement.items()
    for kind, rho in a.spearman_by_kind.items()
    if rho < 0.9
]
print(
    f"4b: the ranking within kind reaches 0.9 in {len(within4) - len(low4)} of "
    f"{len(within4)} (corpus, kind) cells"
    + ("; below: " + "; ".join(low4) if low4 else "")
)
d4 = pairs[(pairs.tokenizer == "RAW") & (pairs.order == "RAC")]
by_kind = d4.groupby("kind").apply(
    lambda d: pd.Series(
        {
            "pairs": len(d),
            "mean exact / predicted": float((d.exact / d.predicted).mean()),
            "max p_ab / min(p_a, p_b)": float(
                (d.p_ab / np.minimum(d.p_a, d.p_b)).max()
            ),
        }
    ),
    include_groups=False,
)
print("RAW + RAC, by kind of pair:")
print(by_kind.round(3).to_string())

# %% [markdown]
# The left panel is claim 4: the share of the top pairs whose merge lowers PTME, per tokenizer,
# before and after rearranging. The two scatters show MeshXL's pairs: points below zero are merges
# that lower PTME, the colour is their PMI, the marker the kind of pair. The first table gives,
# per corpus, the shares, the sign agreement of the rule (4s) with the smallest distance of a PMI
# from the boundary 1 against the order of the neglected terms, and the rank correlations (4b,
# 4c). The last table reads the two kinds of rearranged MeshXL pairs apart: the ratio
# exact / predicted per kind says how far apart their two lines lie.
#
# ## Our check 5 · Rearranging is what makes merging compress
#
# The abstract credits the better compression to "rearranging and merging the most frequent
# patterns of coordinates", and says that merging improves the compression ratio of existing
# tokenizers (sanity check 5s below: any merge shortens a sequence). That rearranging, not merging
# alone, does the shortening — RMC against MC at the same vocabulary size — is our reading, not a
# sentence of the paper, so it is our check.
#
# The fixed split has four held-out base meshes: four pairs, too few to resolve a gain. So the check
# holds each of the 14 base meshes out in turn: MC and RMC vocabularies are trained on the
# rotations of the 13 others and applied to the held-out mesh's rotations
# (`M.leave_one_base_out`); the pair is the held-out base mesh, its relative shortening
# $1-\text{tokens}_\text{RMC}/\text{tokens}_\text{MC}$ with its rotations pooled. For the quick
# budget it runs at the vocabulary sizes `lobo_vocab` only (quick: the sweep's smallest, where the
# four pairs of the fixed split gave the smallest gains; full: the smallest and the largest). This
# regime — leave-one-base-out, these sizes — was fixed before its result was computed.
#
# **Criterion (ours).** For every tokenizer and each size in `lobo_vocab`, the mean shortening over
# the 14 base meshes minus $t$ standard errors is above 0 (the book's paired rule). It fails if naive
# BPE merges the patterns of the raw order — whole repeated vertices, or coordinate pairs that
# neighbouring faces share — as well as rearranged ones, or if the gain holds on some meshes and
# not on others (the primitives, whose few distinct coordinates both orders may merge alike).
#
# **Sanity check 5s.** RMC is shorter than the base at every $V$ and shortens as $V$ grows (the
# criterion claim 5 had before this revision): any merge replaces two tokens by one, and a larger
# vocabulary only adds merges.

# %%
t0 = time.perf_counter()
lobo = pd.DataFrame(M.leave_one_base_out(corpus, run["lobo_vocab"], workers=WORKERS))
stage_s["leave-one-base-out"] = time.perf_counter() - t0
lobo["gain"] = 1 - lobo.RMC / lobo.MC
print(
    f"leave-one-base-out: {2 * len(lobo)} vocabularies trained and applied in "
    f"{time.perf_counter() - t0:.1f} s; shortening 1 − RMC/MC per held-out base mesh:"
)
print(
    lobo.pivot_table(
        index="mesh", columns=["tokenizer", "V"], values="gain", sort=False
    )
    .round(3)
    .to_string()
)
gains5 = {
    f"RMC shortening vs MC, {tk} V={V}": dict(zip(d.mesh, d.gain))
    for (tk, V), d in lobo.groupby(["tokenizer", "V"], sort=False)
}
tpf = res.pivot_table(
    index=["tokenizer", "V"], columns="method", values="tokens_per_face"
).reset_index()
tpf["base"] = tpf.tokenizer.map(
    res[res.method == "base"].set_index("tokenizer").tokens_per_face
)
tpf = tpf.dropna(subset=["RMC"])
fixed5 = []  # the fixed split's four held-out base meshes, every V (context)
for tk in M.TOKENIZERS:
    for V in run["vocab"]:
        t_mc = M.tokens_per_face_by_base(corpus, sweep, tk, "MC", V)
        t_rmc = M.tokens_per_face_by_base(corpus, sweep, tk, "RMC", V)
        g = [1 - t_rmc[b] / t_mc[b] for b in t_mc]
        m, _, half, n = paired_gain("g", k="t").interval({"g": g})
        fixed5.append(dict(tokenizer=tk, V=V, mean=m, half=half, n=n))
fixed5 = pd.DataFrame(fixed5)

# %% tags=["hide-input"]
fig, axes = plt.subplots(
    1, 2, figsize=(12, 4.2), gridspec_kw=dict(width_ratios=[1, 1.3])
)
ax = axes[0]
for tk in M.TOKENIZERS:
    d = tpf[tpf.tokenizer == tk].sort_values("V")
    ax.plot(d.V, d.RMC, marker="o", color=color_for(tk), label=f"{NAMES[tk]} + RMC")
    ax.plot(
        d.V, d.MC, marker=".", ls=":", color=color_for(tk), lw=1.2, label=f"{tk} + MC"
    )
    ax.axhline(d.base.values[0], color=color_for(tk), ls="--", lw=1.0)
ax.set(
    xscale="log",
    xlabel="vocabulary size V",
    ylabel="held-out tokens per face",
    title="Fixed split: base (dashed), MC (dotted), RMC",
)
ax.set_xticks(run["vocab"], [str(v) for v in run["vocab"]])
ax.minorticks_off()
ax.legend(fontsize=7, ncols=2)
ax = axes[1]
order5 = list(lobo.groupby("mesh", sort=False).faces.first().sort_values().index)
xpos = {m: k for k, m in enumerate(order5)}
shift = {tk: f for tk, f in zip(M.TOKENIZERS, (-0.22, 0.0, 0.22))}
marks = {V: mk for V, mk in zip(run["lobo_vocab"], ("o", "s", "^"))}
for (tk, V), d in lobo.groupby(["tokenizer", "V"], sort=False):
    ax.scatter(
        [xpos[m] + shift[tk] for m in d.mesh],
        d.gain,
        s=18,
        marker=marks[V],
        color=color_for(tk),
        label=f"{tk} V={V}",
    )
    m, _, half, n = paired_gain("g", k="t").interval({"g": list(d.gain)})
    ax.errorbar(
        len(order5) + 0.5 + shift[tk],
        m,
        yerr=half,
        fmt=marks[V],
        color=color_for(tk),
        capsize=3,
    )
ax.axhline(0, color=color_for("reference"), ls="--", lw=1.0)
ax.axvline(len(order5) - 0.3, color=color_for("muted"), lw=0.6)
ax.set_xticks(
    list(range(len(order5))) + [len(order5) + 0.5],
    [m.replace(" (", "\n(") for m in order5] + ["mean\n± t·SE"],
    fontsize=6,
    rotation=90,
)
n_pos5 = int((lobo.gain > 0).sum())
ax.set(
    ylabel="1 − RMC / MC tokens per face",
    title=f"Each base mesh held out: RMC shorter than MC in {n_pos5} of {len(lobo)}",
)
ax.legend(fontsize=7, ncols=3)
plt.show()

# %%
names5 = list(gains5)
ledger.ours(
    5,
    f"at V = {', '.join(map(str, run['lobo_vocab']))}, RMC needs fewer tokens per face "
    "than MC, each base mesh held out in turn",
    why="that rearranging, not merging alone, does the shortening is our reading of "
    "the abstract, which says rearranging and merging improve the compression ratio of "
    "existing tokenizers",
    evidence="real data",
    measured={
        **gains5,
        "mean shortening": {
            name.split(", ")[1]: float(np.mean(list(g.values())))
            for name, g in gains5.items()
        },
    },
    criterion=all_of(*[paired_gain(n, k="t") for n in names5]),
    show=["mean shortening"],
    note=f"shortening = 1 − tokens per face of RMC / of MC; paired over the "
    f"{lobo.mesh.nunique()} base meshes, each held out in turn",
    tolerance={
        "RMC shortening vs MC, RAW V=256": tol(abs=0.03),
        "RMC shortening vs MC, AMT V=256": tol(abs=0.03),
        "mean shortening": tol(abs=0.003),
    },
)
ctx = run["context"]
lines5, v5 = [], {}
for tk in M.TOKENIZERS:
    d = tpf[tpf.tokenizer == tk].sort_values("V")
    v5[f"tokens per face, RMC / base, {tk}"] = (d.RMC / d.base).to_numpy()
    v5[f"tokens per face by V, {tk}"] = d.RMC.to_numpy()
    v5[f"faces per {ctx} tokens, {tk}: base"] = ctx / d.base.values[0]
    v5[f"faces per {ctx} tokens, {tk}: RMC V={d.V.values[-1]}"] = ctx / d.RMC.values[-1]
    lines5.append(f"{tk} {ctx / d.base.values[0]:.0f} → {ctx / d.RMC.values[-1]:.0f}")
ledger.sanity(
    "5s",
    "RMC shortens every tokenizer, more as V grows",
    why="any merge replaces two tokens by one, and a larger vocabulary only adds "
    "merges",
    measured=v5,
    criterion=all_of(
        at_most(
            [f"tokens per face, RMC / base, {tk}" for tk in M.TOKENIZERS],
            1,
            strict=True,
        ),
        *[monotone(f"tokens per face by V, {tk}", "decreasing") for tk in M.TOKENIZERS],
    ),
    show=[k for k in v5 if k.startswith("faces per")],
    evidence="real data",
    tolerance=tol(rel=0.0002),
)

# %%
c5 = next(c for c in ledger.claims if c.id == "5")
READ5 = {
    "reproduced": "above 0 beyond the noise",
    "within noise": "within the noise",
    "not reproduced": "at or below 0 beyond the noise",
}
cells5 = []
for name in names5:
    m, _, half, n = paired_gain(name, k="t").interval(gains5)
    cells5.append(f"{name.split(', ')[1]} {m:+.3f} ± {half:.3f}")
n_neg5 = int((lobo.gain <= 0).sum())
print(
    f"Check 5 ({c5.verdict_word()}): mean shortening ± t·SE over "
    f"{lobo.mesh.nunique()} base meshes: " + ", ".join(cells5) + f"; the weakest cell "
    f"({c5.binding}) is {READ5.get(c5.verdict, c5.verdict)}; RMC is no shorter than "
    f"MC on {n_neg5} of {len(lobo)} (base mesh, tokenizer, V)"
    + (
        ": "
        + ", ".join(
            f"{r.mesh} ({r.tokenizer})" for r in lobo[lobo.gain <= 0].itertuples()
        )
        if n_neg5
        else ""
    )
    + "."
)
n_res = int((fixed5["mean"] - fixed5["half"] > 0).sum())
n_fix = int(fixed5.n.iloc[0])
print(
    f"For context, the fixed split's {n_fix} held-out base meshes resolve "
    f"{n_res} of the {len(fixed5)} tokenizer × V cells (mean − t·SE > 0; t on "
    f"{n_fix - 1} d.f. is {paired_gain('g', k='t').k_for(n_fix):.2f}); "
    f"faces in a {ctx}-token context, base → RMC at V = {V_max}: " + ", ".join(lines5)
)

# %% [markdown]
# The left panel shows the fixed split's pooled held-out corpus (dashed: base, dotted: MC, solid:
# RMC) at every vocabulary size; the right one the leave-one-base-out pairs of check 5, each base
# mesh (ordered by its number of faces) with its shortening per tokenizer, and at the right end
# the mean ± $t$·SE that the check reads.
#
# ## Claim 6 · Does PTME rank tokenisations as learning does?
#
# PTME is a unigram statistic: it scores a tokenisation without training anything. The paper's
# argument (its introduction) is that a sequence with less information is easier to learn; its
# evidence is a point-cloud-conditioned generator on Objaverse, whose meshes' Chamfer distance the
# repository's figure correlates with PTME. We ask the same of a next-token model trained on each
# of nine tokenisations of our training meshes — the three tokenizers, each as base, MC and RMC at
# the largest $V$ — scored by held-out **bits per face** (`M.learnability`). At quick scale the model
# is a count-based trigram with interpolated absolute discounting (it sees the two previous tokens,
# which a unigram statistic like PTME does not); at full scale a small causal transformer.
#
# The contrasts that test PTME are within one tokenizer. MC against base: MC's sequences are
# shorter, while PTME rises for some tokenizers and falls for others (claim 2), so a model that
# profits from length alone would rank MC ahead of base even where PTME ranks it behind. RMC
# against MC: same vocabulary size, PTME lower. A ranking pooled over all nine tokenisations mostly
# separates MeshXL from the two compressed tokenizers, and cannot see these contrasts.
#
# **Gate (the model learned).** A model that learns nothing beyond token frequencies cannot tell
# whether PTME ranks tokenisations as *learning* does. The model's held-out bits per face must be
# below those of a unigram fitted on the same training split (`ngram_bits_per_face(order=1)`) on
# every one of the nine tokenisations; otherwise the claim is not checked at this scale.
#
# **Criterion (claim 6).** For each tokenizer and each contrast (MC vs base, RMC vs MC), the model's
# bits per face order the two tokenisations as PTME does, mesh by mesh: with $s=\pm1$ PTME's
# direction (read from the held-out corpus's PTME), the gain
# $s\cdot(\text{bits/face}_B-\text{bits/face}_A)$ per held-out base mesh
# (rotations pooled: rotated copies of one mesh are not independent pairs) has mean − $t$·SE
# above 0 (`M.learnability_contrasts`). It fails where the model finds MC easier than base although
# PTME calls it harder — shorter sequences that a model with context exploits — or finds RMC no
# easier than MC.
#
# **Our check 6b.** The Spearman correlation between PTME and held-out bits per face over the nine
# tokenisations is at least 0.8 (our bar; the repository's figure has r = 0.965 against Chamfer
# distance). Ungated; where the model's bits per face lie above $9\cdot$PTME — the held-out
# sequences' own unigram entropy per face — on any tokenisation, the verdict table calls it a weak
# test there, since a model that stays near the unigram line agrees with a unigram statistic
# partly by construction.

# %%
t0 = time.perf_counter()
lm_rows = M.learnability(
    corpus,
    sweep,
    V=V_max,
    lm=run["lm"],
    generator=lambda i: run.torch_generator(60 + i),
    device=run.device,
)
contrasts6 = M.learnability_contrasts(corpus, lm_rows)
stage_s["next-token models"] = time.perf_counter() - t0
lm = pd.DataFrame(lm_rows).drop(columns=["tokens", "sequence_bits"], errors="ignore")
lm["model − unigram"] = lm.bits_per_face - lm.unigram_bits_per_face  # < 0: learned
lm["model − 9·PTME"] = lm.bits_per_face - 9 * lm.ptme  # < 0: below the unigram line
rho6 = M.spearman(lm.ptme, lm.bits_per_face)
rho6_len = M.spearman(lm.tokens_per_face, lm.bits_per_face)
model6 = "trigram" if run["lm"] is None else "transformer"
print(f"next-token model: {model6} ({time.perf_counter() - t0:.1f} s)")
print(lm.round(3).to_string(index=False))
print(
    f"Spearman(PTME, bits per face) = {rho6:.3f}; for comparison, "
    f"Spearman(tokens per face, bits per face) = {rho6_len:.3f}"
)
gains6 = {
    f"{c['tokenizer']} {c['contrast']}: gain in PTME's direction": c["gains"]
    for c in contrasts6
}
table6 = []
for c in contrasts6:
    name = f"{c['tokenizer']} {c['contrast']}: gain in PTME's direction"
    m, _, half, n = paired_gain(name, k="t").interval(gains6)
    a, b = c["contrast"].split(" vs ")
    table6.append(
        {
            "tokenizer": c["tokenizer"],
            "contrast": c["contrast"],
            "PTME says": f"{a} {'easier' if c['direction'] > 0 else 'harder'}",
            "ΔPTME (A − B)": c["ptme_a"] - c["ptme_b"],
            "mean gain (bits/face)": m,
            "± t·SE": half,
            "meshes": n,
        }
    )
table6 = pd.DataFrame(table6)
print("per held-out base mesh, the gain in PTME's direction (> 0: the model agrees):")
print(table6.round(3).to_string(index=False))

# %% tags=["hide-input"]
fig, axes = plt.subplots(
    1, 2, figsize=(12, 4.2), gridspec_kw=dict(width_ratios=[1, 1.1])
)
ax = axes[0]
MARK6 = {"base": "o", "MC": "s", "RMC": "*"}
for _, r in lm.iterrows():
    ax.scatter(
        r.ptme,
        r.bits_per_face,
        color=color_for(r.tokenizer),
        marker=MARK6[r.method],
        s=80,
        label=f"{NAMES[r.tokenizer]}, {r.method}",
    )
    ax.scatter(
        r.ptme,
        r.unigram_bits_per_face,
        facecolor="none",
        edgecolor=color_for(r.tokenizer),
        marker=MARK6[r.method],
        s=40,
        lw=0.8,
    )
xline = np.array([lm.ptme.min() * 0.95, lm.ptme.max() * 1.03])
ax.plot(
    xline,
    9 * xline,
    color=color_for("reference"),
    ls="--",
    lw=1,
    label="unigram line: 9·PTME",
)
n_above = int((lm["model − 9·PTME"] > 0).sum())
n_learn = int((lm["model − unigram"] < 0).sum())
ax.set(
    xlabel="PTME (bits / raw coord.)",
    ylabel=f"held-out bits per face ({model6}: filled; unigram: open)",
    title=f"{model6.capitalize()} beats the unigram on {n_learn} of {len(lm)}; "
    f"above 9·PTME on {n_above}",
)
ax.title.set_fontsize(9)
ax.legend(fontsize=6, loc="upper left")
ax = axes[1]
for k, c in enumerate(contrasts6):
    g = np.array(list(c["gains"].values()))
    ax.scatter(np.full(g.size, k), g, s=16, color=color_for(c["tokenizer"]), alpha=0.7)
    r6 = table6.iloc[k]
    ax.errorbar(
        k + 0.25,
        r6["mean gain (bits/face)"],
        yerr=r6["± t·SE"],
        fmt="_",
        color=color_for(c["tokenizer"]),
        capsize=4,
    )
ax.axhline(0, color=color_for("reference"), ls="--", lw=1)
ax.set_yscale("symlog", linthresh=1)
ax.set_xticks(
    range(len(contrasts6)),
    [f"{c['tokenizer']}\n{c['contrast']}" for c in contrasts6],
    fontsize=7,
)
gate6_met = n_learn == len(lm)
ax.set(
    ylabel="gain in PTME's direction (bits / face)",
    title=f"Per held-out base mesh: > 0 where the {model6} orders the pair as PTME"
    + ("" if gate6_met else " (not judged: gate unmet)"),
)
ax.title.set_fontsize(9)
plt.show()

# %%
unigram_gap = {
    f"{r.tokenizer} {r.method}": r["model − unigram"] for _, r in lm.iterrows()
}
ledger.check(
    6,
    "within each tokenizer, PTME orders MC against base and RMC against MC as a "
    "next-token model's held-out bits per face do",
    paper="a sequence with less information is easier to learn (the introduction); "
    "PTME tracks generation quality (r = 0.965 with Chamfer distance, a figure in the "
    "official repository)",
    source="paper",
    evidence="real data",
    measured={
        "model − unigram bits per face": unigram_gap,
        **gains6,
        "mean gain in PTME's direction": {
            f"{r.tokenizer} {r.contrast}": r["mean gain (bits/face)"]
            for _, r in table6.iterrows()
        },
    },
    gate=at_most("model − unigram bits per face", 0, strict=True),
    criterion=all_of(*[paired_gain(n, k="t") for n in gains6]),
    show=["model − unigram bits per face", "mean gain in PTME's direction"],
    note=f"{model6} at {run.scale} scale; gains paired over the "
    f"{len(contrasts6[0]['gains'])} held-out base meshes"
    + ("; the full-scale transformer would check it" if run["lm"] is None else ""),
    tolerance={
        "model − unigram bits per face": tol(abs=0.02),
        "RAW MC vs base: gain in PTME's direction": tol(abs=0.1),
        "RAW RMC vs MC: gain in PTME's direction": tol(abs=0.08),
        "AMT MC vs base: gain in PTME's direction": tol(abs=0.1),
        "AMT RMC vs MC: gain in PTME's direction": tol(abs=0.2),
        "EDR MC vs base: gain in PTME's direction": tol(abs=0.0002),
        "EDR RMC vs MC: gain in PTME's direction": tol(abs=0.004),
        "mean gain in PTME's direction": tol(abs=0.07),
    },
)
weak = lm[lm["model − 9·PTME"] > 0]
ledger.ours(
    "6b",
    "PTME and a next-token model's held-out bits per face rank nine tokenisations "
    "(base, MC, RMC) alike",
    why="one ranking over all nine tokenisations, our bar; it mostly separates MeshXL "
    "from the compressed tokenizers and cannot see the within-tokenizer contrasts",
    evidence="real data",
    measured={
        "Spearman(PTME, bits per face)": rho6,
        "bits per face": {
            f"{r.tokenizer} {r.method}": r.bits_per_face for _, r in lm.iterrows()
        },
    },
    criterion=at_least("Spearman(PTME, bits per face)", 0.8),
    show=["Spearman(PTME, bits per face)"],
    note=f"{model6} at {run.scale} scale, 9 tokenisations"
    + (
        f"; a weak test: the model's bits per face lie above 9·PTME (the unigram "
        f"line) on {len(weak)} of {len(lm)} tokenisations"
        if len(weak)
        else ""
    ),
    tolerance={"bits per face": tol(abs=0.06)},
)

# %%
c6 = next(c for c in ledger.claims if c.id == "6")
lost = lm[lm["model − unigram"] >= 0]
print(
    f"The {model6} beats the unigram fitted on the training split on {n_learn} of "
    f"{len(lm)} tokenisations"
    + (
        "; it does not on "
        + ", ".join(
            f"{r.tokenizer} {r.method} ({r['model − unigram']:+.2f} bits per face)"
            for _, r in lost.iterrows()
        )
        if len(lost)
        else ""
    )
    + f", so claim 6 is {c6.verdict_word()}."
)
agree6 = table6[table6["mean gain (bits/face)"] - table6["± t·SE"] > 0]
against6 = table6[table6["mean gain (bits/face)"] + table6["± t·SE"] <= 0]
print(
    ("Judged" if gate6_met else "Read anyway (not judged)")
    + f": the {model6} orders the pair as PTME does beyond the noise in "
    f"{len(agree6)} of {len(table6)} contrasts"
    + (
        " ("
        + ", ".join(f"{r.tokenizer} {r.contrast}" for r in agree6.itertuples())
        + ")"
        if len(agree6)
        else ""
    )
    + f", against it beyond the noise in {len(against6)}"
    + (
        " ("
        + ", ".join(
            f"{r.tokenizer} {r.contrast}, where PTME says {r['PTME says']}"
            for _, r in against6.iterrows()
        )
        + ")"
        if len(against6)
        else ""
    )
    + "."
)
print(
    f"The {model6}'s bits per face lie below 9·PTME (it learns from context beyond the "
    f"held-out unigram entropy) on {len(lm) - len(weak)} of {len(lm)} tokenisations"
    + (
        ": "
        + ", ".join(
            f"{r.tokenizer} {r.method}"
            for _, r in lm[lm["model − 9·PTME"] <= 0].iterrows()
        )
        if len(lm) > len(weak)
        else ""
    )
    + "."
)

# %% [markdown]
# In the left panel, filled markers are the model, open ones the unigram fitted on the training
# split (the gate), and the dashed line $9\cdot$PTME is the held-out sequences' own unigram entropy
# per face: a model below it has learned from context what PTME cannot see. The right panel shows
# the six contrasts of claim 6, one point per held-out base mesh, with mean ± $t$·SE. The lines
# above read both, and say whether the gate let the criterion judge.

# %%
ledger.quote(
    "7",
    "RMC improves compression by up to 21.2 % across the three tokenizers",
    paper="up to 21.2 % (whether a ratio or a reduction is ambiguous)",
    source="secondary summary",
    note="needs the paper's Objaverse corpus and vocabularies",
)
ledger.quote(
    "8",
    "PTME correlates with the Chamfer distance of generated meshes",
    paper="r = 0.965 (EDR + RMC; the figure names no data set)",
    source="official code",
    note="a figure in the official repository (figures/EDR_RMC_PTME_CD.png), not the "
    "paper's text; needs the paper's trained point-cloud-conditioned generator",
)

# %% [markdown]
# ## Verdicts

# %% tags=["nbval-check-output"]
ledger.show()

# %% tags=["nbval-ignore-output"]
ser = {tk: meshes[f"time_{tk}"] for tk in M.TOKENIZERS}
print(f"chapter run time: {run.elapsed():.1f} s at scale={run.scale!r} on {run.device}")
print(
    "stages (s): " + ", ".join(f"{k} {v:.1f}" for k, v in stage_s.items()) + "; "
    "serialisation time per mesh (median / max, ms): "
    + ", ".join(
        f"{tk} {1e3 * s.median():.1f} / {1e3 * s.max():.1f}" for tk, s in ser.items()
    )
    + f"; largest mesh {meshes.faces.max()} faces"
)
stab_runs = [
    r["seconds"]
    for r in (ledger.stability().runs if ledger.stability() else [])
    if isinstance(r.get("seconds"), (int, float))
]
if stab_runs:
    print(
        f"the runner's time per quick run in the stability record (kernel start "
        f"included, on a shared machine): {min(stab_runs):.0f}–{max(stab_runs):.0f} s "
        f"over {len(stab_runs)} seeds; the budget is 90 s on 2 quiet cores"
    )

# %% [markdown]
# **Reading the verdicts.** The lines below are generated from this run's ledger and from the
# committed stability record (quick scale, `data/stability/03_mesh_ptme.json`; a claim changed
# since reads "stale record" in the table).

# %%
for c in ledger.claims:
    if not c.checked and not c.gate:
        continue
    print(c.reading_line())
stab = ledger.stability()
print(
    unstable_sentence(ledger, stab)
    or "No claim the record still describes flips between its seeds."
)
stale = [
    c.id
    for c in ledger.claims
    if (c.checked or c.gate)
    and (stab is None or stab.claim(c.id) is None or stab.current(c) is None)
]
if stale:
    print(
        f"The record does not describe claim {', '.join(stale)} as it is now (new or "
        "changed since it was made): its seeds column says so until the record is "
        "re-made."
    )


# %% [markdown]
# ## Deviations from the paper
#
# - **What was read.** The paper's first page (abstract, the opening of the introduction, the
#   caption of Figure 1) from a stored copy of the arXiv HTML, the official repository (its code,
#   the derivation in `figures/proof.png` and in an earlier version of its README — with its
#   sentence that naive merging raises PTME slightly on all three serialisations — the toy strings
#   of `intuition.py`, the vocabulary sizes of `bpe/train_vocab.py`, the figure
#   `EDR_RMC_PTME_CD.png`), the authors' project page, and secondary summaries. The paper's method
#   sections, tables and generator experiments were not available offline.
# - **Sources in the verdict table.** A claim whose value comes from two places carries the weaker
#   one's label and names both in its paper field: claim 2 "official code" (Figure 1's caption and
#   the README), claim 3 "official code" (the caption and the project page: the ledger has no label
#   for a project page, and the authors' material outside the paper is the nearest), claim 4
#   "official code" (the derivation), claim 6 "paper" (the introduction; the repository's figure is
#   named beside it), claim 1 "secondary summary".
# - **Data.** The paper trains its vocabularies on filtered Objaverse / Objaverse-XL meshes and
#   measures PTME on their validation split; nothing can be downloaded here. We use the 7 real meshes
#   shipped inside pyvista and pymeshlab plus 7 trimesh primitives, with random rotations as
#   augmentation and a split by base mesh. Vocabularies trained on a few dozen meshes are small
#   samples of the paper's; absolute PTME values are therefore not comparable with the paper's, only
#   the directions of the effects.
# - **Faces.** Meshes above `max_faces` are decimated (pymeshlab quadric edge collapse); faces that
#   would make an edge non-manifold after quantisation are dropped (counts in the data table) so
#   that EdgeRunner's half-edge traversal applies; the official code would pair such edges silently.
# - **Implementation.** Our own code, written from the official repository's description of the
#   methods: quantisation and sorting as in its `process_mesh`, AMT strips, an iterative version of
#   its recursive EdgeRunner traversal, RAC per strip / per sub-mesh with the ops moved to the front.
#   The official inverse of RAC returns an empty sequence for every valid run of 9 or more
#   coordinates (a `[:-0]` slicing slip); ours is tested to invert exactly. SentencePiece runs with
#   normalisation, the dummy prefix and script splitting switched off, and with a sentence-length
#   limit above the longest sequence (the official limit would skip long meshes silently).
# - **PTME** follows the paper's definition $H/\bar l\cdot\mathrm{CR}$ with $H$ in bits; the
#   first-order formula is checked on the 50 most frequent pairs, with the exact change computed from
#   the counts (the derivation's identity $\Delta = -\mathrm{CR}\,F_{ab}/\bar l$).
# - **Not checked here.** The paper's generator (point-cloud conditioning, Chamfer / Hausdorff
#   distances, the 21.2 % figure) needs Objaverse and GPU training; claim 6 replaces it by a
#   next-token model's held-out bits per face (a trigram at quick scale, a small transformer at full
#   scale). At quick scale the gate of claim 6 decides whether the trigram judges it (the lines
#   under claim 6 say whether it did); the full-scale transformer is the run that could.
# - **Answered in this revision (two independent verdict audits)** — old → new, the reason, and what
#   was known when the change was made. "Committed" is the chapter before this revision; "first
#   audit" the intermediate state its answers produced, audited a second time.
#   - *Claim 1: real meshes, weighted by faces.* Old: the unweighted mean over all 84 meshes,
#     primitives included, of base tokens per face in [4, 5] — *reproduced*, AMT 4.11 and EDR 4.19
#     at seed 0 (margin +0.106). New: all tokens over all faces of the real meshes (the summary
#     speaks of real data; a 12-face box counts as much as a 2,000-face cow in an unweighted
#     mean), the same band, its hard edges labelled ours (the summary says "about"). Changed after
#     the old values and the per-mesh ranges were known.
#   - *Claim 2 split into the paper's direction (2) and our magnitude (2b).* Old: "MC gives no
#     meaningful PTME reduction", PTME(MC) / PTME(base) ≥ 0.97 on every tokenizer and $V$, counted as
#     the paper's — *reproduced* at seed 0 (margin +0.012, EDR at $V$ = 512) although EDR's MC lies
#     below its base at every $V$ (0.982–0.999), against the direction the paper states; it passed
#     only through our 3 % bar. New: claim 2 is the paper's direction, ratio ≥ 1 for every tokenizer
#     and $V$; the 3 % bar is our check 2b. Known: all fifteen ratios, so that claim 2 would fail on
#     EDR — a result, reported as such. The sentence under claim 6 that said "by claim 2, its PTME
#     is no lower" was false for EDR; the text now names the tokenizers where MC lowers PTME.
#   - *Claim 4: from the sign rule to what the derivation concludes.* Committed: sign agreement ≥ 0.9
#     and Spearman ≥ 0.9 on MeshXL as is and rearranged — *not reproduced* at seed 0 (Spearman 0.896
#     on the rearranged corpus), ✗ on seeds 0, 1, 2, 4. First audit: the Spearman pooled self-pairs
#     and distinct pairs, which lie on separate lines; claim 4 became the sign rule alone (✓ 1.00),
#     with 4b (ranking within each kind, MeshXL) and 4c (the pooled ranking, unchanged) ours. Second
#     audit: the sign test cannot fail on these pairs — the rule's neglected terms are of order
#     $p_{ab}/p_a$, at most 0.084 here, and the pair nearest PMI = 1 on MeshXL lies 0.072 from it (one
#     pair, on one corpus). New: the sign agreement is sanity check 4s, on all six corpora (it was
#     read on MeshXL only); claim 4 is the conclusion the official README draws — naive merging fails
#     for want of $p_{ab}$, rearranging raises it — tested as a rise of the share of helpful merges
#     among the 50 most frequent pairs, on every tokenizer. Known when it was written: the first
#     audit's table already counted the helpful merges of each corpus (MeshXL 1 → 50, MeshAnything V2 2 →
#     50, EdgeRunner 0 → 49 of 50 at seed 0).
#   - *Check 4b on every tokenizer.* Old: the ranking within kind read on MeshXL only (✓, lowest
#     0.990 on rearranged self-pairs). New: every tokenizer and order where a kind has at least 10
#     candidates. Known when changed: EdgeRunner's rearranged self-pairs give 0.531 over 12 pairs, so
#     4b goes from ✓ to ✗; that reading of the first-order formula does not carry over to EdgeRunner.
#   - *Claim 5: ours, leave-one-base-out.* Committed: "RMC tokens per face below the base at every
#     $V$ and strictly falling in $V$", the paper's, *reproduced* on every seed; it cannot fail (any
#     merge shortens a sequence) and is now sanity check 5s. First audit: RMC against MC at equal
#     $V$, paired over the fixed split's 4 held-out base meshes at every $V$ — *within noise* at seed
#     0 (weakest: MeshXL at $V$ = 256, +0.070 ± 0.095). Second audit: "RMC against MC" is our
#     inference, not the abstract's sentence, so the check is ours; and 4 pairs cannot resolve it.
#     New: each of the 14 base meshes held out in turn, at `lobo_vocab` (quick: $V$ = 256 only, for
#     the 90-second budget; full: 256 and 4,096), $t$ interval over 14 pairs. The regime was fixed
#     before its result was computed; the four-pair results above were known.
#   - *Claim 6: within-tokenizer contrasts, gated on learning.* Committed: Spearman ≥ 0.8 between
#     PTME and trigram bits per face over six tokenisations (ρ = 1 on every seed; two clusters).
#     First audit: nine tokenisations, MC added (✓ ρ = 0.967). Second audit: the pooled Spearman
#     fails only if RMC loses its rank, and the trigram ranks MC ahead of base on every tokenizer
#     while PTME ranks it behind on MeshXL and MeshAnything V2. New: claim 6 judges, per tokenizer, MC
#     against base and RMC against MC as paired gains over the held-out base meshes, gated on the
#     model beating a unigram fitted on the training split on every tokenisation; the pooled
#     Spearman is our check 6b, and its "weak test" note fires when any tokenisation lies above
#     the line $9\cdot$PTME (it fired only when all did). Known: the nine corpus-level bits per
#     face, hence the contrasts' directions, and that the trigram stayed above $9\cdot$PTME on
#     base and MC. The train-split unigram was computed after the gate was set (with a bigram, to
#     see whether a lower order learns where the trigram does not: it does not, on base and MC); no
#     model setting was changed after.
#   - *Sources.* Committed: claims 2–5 "paper" without the paper's text read, 6 "official code".
#     Now: see "Sources in the verdict table" above; 5 is ours.
#   - *Texts computed.* The sentence under claim 4 that said the formula gets every sign right, the
#     readings of claims 2, 4, 4b, 5 and 6, the toy strings' agreement, the figure titles and the
#     full-scale estimate are generated from the numbers; the run time quotes the stability record.
#   - *The full-scale transformer made affordable on a CPU.* Committed: 4 layers, width 256, context
#     1,024, 4,000 steps of 32 windows per tokenisation, out of reach of the book's CPU. New: 2
#     layers, width 128, context 256, 600 steps of 16 windows, for nine tokenisations. Not recorded:
#     the estimate under "Run it at full scale" (generated from a timed step) is over the book's
#     30-minute rule for a CPU run, and no GPU run has been made, so there is no
#     `data/full_runs/03_mesh_ptme.json`; at quick scale claim 6 is judged by the trigram, or not
#     at all where its gate is unmet.
#   - *Protocols moved into the module.* The data preparation, the merging sweep, the peer BPE, the
#     pair sweep, the learnability runs and their contrasts, and leave-one-base-out are
#     `M.hold_out`, `M.build_corpus`, `M.merging_sweep`, `M.peer_merging`, `M.pair_sweep`,
#     `M.formula_agreement`, `M.helpful_merges`, `M.learnability`, `M.learnability_contrasts`,
#     `M.bits_per_face_by_base` and `M.leave_one_base_out` (unit-tested), with the same random
#     streams: claims 1–3 read the same corpus and vocabularies as before.
# - **Criteria changed after their results were known (earlier revisions).**
#   - *Claim 1.* Before: "PTME(RAW) ≥ 1.5 × max(AMT, EDR) and mean CR of AMT and EDR in
#     [0.35, 0.55]" (reproduced). The PTME ratio follows from the CR condition (PTME $=H\cdot$CR for
#     unmerged sequences, with similar $H$), and no source has the 0.35–0.55 range. Then: base
#     tokens per face of AMT and EDR in [4, 5], the value a secondary summary of the paper gives;
#     the PTME ratio is shown, not tested.
#   - *Claim 6.* Before: `not checked at this scale` (six transformers, full scale only). Then: a
#     trigram model at quick scale, Spearman ≥ 0.8.
#   - *Quotes.* "21.2 %" comes from a secondary summary and "r = 0.965" from a figure in the official
#     repository that names no data set; both are labelled so.
# - **Peers.** The three tokenizers the paper compares are the peers, each run side by side as base,
#   MC and RMC. None of them is distributed as a Python package (MeshXL, MeshAnything V2 and
#   EdgeRunner ship research repositories), so they are re-implemented here and checked by round
#   trips in every run. During development we also compared our RAW, AMT and EDR tokens (with and
#   without RAC) with the official FreeMesh serialisers on the 14 base meshes: they were identical
#   token for token, as was the quantisation. The book does not re-run that comparison, because the
#   official repository is not an installable package and nothing is downloaded at run time. The
#   merging step runs with two BPE implementations, SentencePiece and Hugging Face `tokenizers`.
# - **Verdict stability.** `python -m repbook stability 03` runs the chapter on seeds 0–4 at quick
#   scale (`data/stability/03_mesh_ptme.json`, the verdict table's last column); the lines under the
#   verdict table read it.
#
# ## Run it at full scale
#
# ```bash
# .venv/bin/python -m repbook run 03 --scale full
# # or, directly with papermill:
# jupytext --to ipynb -o - notebooks/03_mesh_ptme.py | papermill - out.ipynb -p scale full -k python3
# ```
# Full scale keeps up to 5,000 faces per mesh, 16 rotations, vocabularies up to 8,192, runs check 5
# at two vocabulary sizes, and trains nine 2-layer transformers (width 128, context 256, 600 steps of
# 16 windows) for claims 6 and 6b. It is for a GPU or a long CPU run: the estimate below comes from
# a step of that transformer timed in this run, and from this run's own stages.

# %% tags=["hide-input", "nbval-ignore-output"]
full_lm = SIZES["full"]["lm"]
if run.scale == "full":
    print(f"This is the full-scale run: {run.elapsed() / 60:.1f} min in all.")
else:
    step = M.lm_step_seconds(
        vocab=SIZES["full"]["vocab"][-1],
        generator=run.torch_generator(99),
        device=run.device,
        **full_lm,
    )
    n_tok = 3 * len(M.METHODS)
    lm_min = n_tok * full_lm["steps"] * step / 60
    rest = sum(v for k, v in stage_s.items() if k != "next-token models")
    grow = SIZES["full"]["rotations"] / SIZES["quick"]["rotations"]
    faces_ratio = SIZES["full"]["max_faces"] / SIZES["quick"]["max_faces"]
    print(
        f"one training step of the full-scale transformer took {step:.2f} s of wall "
        f"time in this run ({run.device}, under this machine's present load), so the "
        f"{n_tok} models' {full_lm['steps']} steps take about "
        f"{lm_min:.0f} min, before their evaluation; this run's other stages took "
        f"{rest:.0f} s, and full scale has {grow:.1f}× the meshes, up to "
        f"{faces_ratio:.1f}× the faces each, "
        f"{len(SIZES['full']['vocab'])} vocabulary sizes and a leave-one-base-out at "
        f"{len(SIZES['full']['lobo_vocab'])}: at least {grow * rest / 60:.0f} min "
        "more. "
        f"In all at least {lm_min + grow * rest / 60:.0f} min: "
        + (
            "over the book's 30-minute rule for a CPU run — a GPU or a long CPU run."
            if lm_min + grow * rest / 60 > 30
            else "within the book's 30-minute rule for a CPU run."
        )
    )
if full_run_path(ledger.chapter).is_file():
    print("\n".join(full_run_lines(ledger)))
