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
# # 05 · LangDAug: Langevin traversal between source domains as data augmentation
#
# Piyush Tiwary, Kinjawl Bhattacharyya, Prathosh A. P. — *LangDAug: Langevin Data Augmentation
# for Multi-Source Domain Generalization in Medical Image Segmentation*, ICML 2025 · arXiv
# [2505.19659](https://arxiv.org/abs/2505.19659) · official code: `backpropagator/LangDAug`
# (its README says MIT, but the repository has no LICENSE file; we read it and copied nothing).
#
# A segmentation model trained on images from a few hospitals often fails on a new one, because
# scanners differ in colour, contrast and noise. LangDAug trains, for every ordered pair of source
# domains $i \to j$, an energy-based model (EBM) whose low-energy region is domain $j$; Langevin
# chains started at images of domain $i$ then walk towards domain $j$, and the images they pass
# through, labelled with the *source* mask, are added to the training set. The paper argues that
# these in-between images regularise the model, and reports state-of-the-art results on retinal
# fundus and prostate MRI benchmarks.
#
# ```{admonition} Claims we test
# **The paper's claims.** What was read: the abstract, the official code with its README, and
# excerpts of the authors' project page; not the paper's full text. Each claim's source in the verdict
# table says which.
#
# - **1 · The chains move the images' colour from domain $i$ to domain $j$** (abstract: the
#   chains traverse between domains; the sampler is the official code's). Along the chains of
#   every ordered source pair, the distance of the images' mean colour to domain $j$'s falls at
#   every saved step and ends at most 0.3 of where it started (the research brief's bound).
#   The statistic sees colour only, not the disc's contrast (printed under check 2).
# - **3 · LangDAug beats ERM on an unseen domain** (abstract: it outperforms the state of the
#   art on unseen domains; ERM, plain training on the sources, is the baseline every
#   domain-generalisation method must beat). A paired gain per training seed, beyond the seeds'
#   noise, judged only where the unseen domain costs ERM at least 0.03 Dice, LangDAug's
#   in-domain Dice is within 0.01 of ERM's, and ERM's seeds resolve 0.03 Dice there (gates): **3** on D (one leave-one-domain-out split, sources A,
#   B, C), **3b** on X (outside the sources' hull), **3c** on M (between them); **3d** (full
#   scale): the mean over the four leave-one-domain-out splits.
# - **4 · It complements domain randomisation** (abstract; the README: up to +3.05 % mIoU):
#   DR + LangDAug beats DR, paired by seed, where the domain costs DR at least 0.03 Dice and
#   DR + LangDAug's in-domain Dice is within 0.01 of DR's, and DR's seeds resolve 0.03 Dice
#   there: **4** on D, **4b** on X, **4c** on M.
# - **5 · It regularises** (abstract; the derivative form is the project page's): the loss's
#   input-gradient norm on M is lower after LangDAug than after ERM, paired by seed.
#
# **Quoted (not re-derived):** 5b, the Rademacher bound for GLMs (abstract); 6a–6c, the
# README's benchmark numbers.
#
# **Our own checks (outside the paper's tally):** 2 · the augmentations keep valid labels
# (the official code files every saved iterate with its source image's mask, a premise of the
# method that the paper does not report as a result): a style-robust segmenter that never saw
# an augmentation (domain randomisation, DR) finds the disc under the source masks, Dice ≥ 0.9
# (the brief's bound), provided it finds it on real images of the styles the chains pass
# between; 3e · LangDAug's gain on D exceeds 0.02 Dice (the research brief's bar; the abstract
# gives none).
#
# **Sanity check:** 1b · the paper's noisy Langevin step, run with the drift of claim 1's
# sampler, traverses as claim 1 does: it differs from it only by noise of $\sqrt\beta = 0.01$
# per pixel and step.
# ```
#
# The Fundus and Prostate data and all trained weights are out of reach offline. This chapter
# shows the *mechanism* on synthetic fundus-like images whose domains differ only in acquisition
# style; it does not re-measure any of the paper's segmentation numbers.

# %% tags=["parameters"]
scale = "quick"  # "quick" (≤ 150 s on 2 CPU cores, training-heavy) or "full" (GPU)
seed = 0

# %%
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import torch

from repbook.core import all_of, at_least, at_most, color_for, full_run_lines, monotone
from repbook.core import paired_gain, reading_lines, setup, tol
from repbook.core.stats import gain_line
from repbook.papers import langdaug
from repbook.papers.langdaug import readings

# %%
SIZES = {
    "quick": dict(
        size=32, n_train=150, n_test=200,  # side (pixels); images per source, domain
        ebm_widths=(32, 64, 64), ebm_iters=60, ebm_batch=16,  # CD iterations per pair
        K=20, eta=1.0,  # chain length (training and augmentation); the code's step
        beta=1e-4,  # ours (the README ablates β in latent units): noise √β per pixel
        n_chain=50, save_every=5,  # source images per pair that seed chains
        unet_widths=(8, 16), unet_batch=16,
        seg=dict(steps=600, lr=5e-3, schedule="poly"),  # every method alike
        seeds=3, ebm_per_seed=False,  # seeds per method; quick: one set of EBMs
        latent=False, vq_steps=0,  # full: chains in a VQ-VAE's latents (the paper)
        lodo=False, k_sweep=[],  # full: four leave-one-domain-out splits, K sweep
    ),
    "full": dict(
        size=64, n_train=400, n_test=400, ebm_widths=(32, 64, 64), ebm_iters=600,
        ebm_batch=32, K=20, eta=1.0, beta=1e-4, n_chain=200, save_every=5,
        unet_widths=(16, 32), unet_batch=32,
        seg=dict(steps=3000, lr=5e-3, schedule="poly"), seeds=5, ebm_per_seed=True,
        latent=True, vq_steps=3000, lodo=True, k_sweep=[10, 20, 40, 80],
    ),
}  # fmt: skip
REGIME = {
    "quick": "synthetic fundus-like RGB domains differing only in style (sources A, B,"
    " C; held out D, X outside their hull and M between them); small conv EBMs and"
    " 2-level UNets; CPU",
    "full": "synthetic fundus-like 64x64 domains; VQ-VAE latent chains; LODO; GPU",
}
METHODS = ["ERM", "DR", "LangDAug", "DR + LangDAug"]
COLORS = {"ERM": "baseline", "DR": "alt", "LangDAug": "ours", "DR + LangDAug": "alt2"}
PAIR_COLORS = ["ours", "baseline", "peer", "alt", "alt2", "alt3"]

# %%
run = setup(scale=scale, seed=seed, sizes=SIZES, regime=REGIME.get(scale, ""),
            colors=COLORS)  # fmt: skip
ledger = run.ledger
eta, beta, steps, n_chain = run["eta"], run["beta"], run["K"], run["n_chain"]

# %% [markdown]
# ## The method
#
# For an ordered pair of source domains $i \to j$ an EBM $f_{ij}$ (a scalar network; the energy is
# $E_{ij} = -f_{ij}$) is trained by contrastive divergence. A chain starts at a source image
# $x_0 \sim D_i$ and takes $K$ sampler steps; the loss lowers the energy of real images of domain
# $j$ and raises it where the chains stopped:
#
# $$\mathcal{L}_{CD} = -\big(\mathbb{E}_{x \sim D_j} f_{ij}(x) - \mathbb{E}\,f_{ij}(x_K)\big)
#   + \lambda\,\big(\mathbb{E}\,f_{ij}(x)^2 + \mathbb{E}\,f_{ij}(x_K)^2\big).$$
#
# The paper samples (as the project page and the research brief write it; the paper's text was
# not read) with the Langevin step
#
# $$x_{k+1} = x_k - \tfrac{\beta}{2}\nabla_x E_{ij}(x_k) + \sqrt{\beta}\,\omega_k,
#   \qquad \omega_k \sim \mathcal{N}(0, I),$$
#
# while the released code takes noise-free steps $x_{k+1} = x_k + \eta\,\nabla_x f_{ij}(x_k)$
# (SGD on $-f$, $\eta = 10$ in its VQ-VAE latent space, $K = 30$–$40$). Every 5th iterate
# $x_5, x_{10}, \dots, x_K$ becomes a training image with the mask of $x_0$. Because $f$ is only
# defined up to a scale, we run the paper's step on $E = -f/T$ with $T = \beta/(2\eta)$: its drift
# then equals the code's step, and $\sqrt\beta$ sets the pixel noise. **Unless a result says
# otherwise, the EBMs are trained and the augmentations are made with the code's noise-free
# sampler**; sanity check 1b runs the paper's sampler on the same EBMs.
#
# By hand, three steps of each sampler on a small EBM, next to the library's `sample_chain`:

# %%
g = run.torch_generator(0)
ebm = langdaug.make_ebm(g, (8, 16, 16))
x = torch.rand(4, 3, 16, 16, generator=g)
T = beta / (2 * eta)
g_noise = run.torch_generator(1)
noise = [torch.randn(x.shape, generator=g_noise) for _ in range(3)]
xc, xl = x.clone(), x.clone()
for k in range(3):
    for z, is_code in ((xc, True), (xl, False)):
        z.requires_grad_(True)
        (grad_f,) = torch.autograd.grad(ebm(z).sum(), z)  # ∇f = −∇E
        z.requires_grad_(False)
        if is_code:
            z += eta * grad_f  # x ← x + η∇f
        else:  # x ← x − (β/2)∇(−f/T) + √β ω
            z += beta / (2 * T) * grad_f + np.sqrt(beta) * noise[k]

# %%
lib_code = langdaug.sample_chain(langdaug.ebm_energy(ebm), x, steps=3, step_size=eta,
                                 sampler="code")[-1]  # fmt: skip
lib_lang = langdaug.sample_chain(
    langdaug.ebm_energy(ebm, T), x, steps=3, step_size=beta, sampler="langevin",
    generator=run.torch_generator(1))[-1]  # fmt: skip
print(f"code sampler:     max |by hand − library| = {(xc - lib_code).abs().max():.1e}")
print(f"Langevin sampler: max |by hand − library| = {(xl - lib_lang).abs().max():.1e}")

# %% [markdown]
# ## Synthetic domains
#
# Each image is a fundus-like scene — a vignetted, textured background, three dark vessels and a
# bright elliptic *disc*, whose mask is the segmentation target — rendered in one acquisition
# style: channel $c$ of a pixel with scene luminance $L$ is
# $\mathrm{clip}(t_c L^{\gamma_c} + b_c + \sigma\varepsilon)$ with a tint $t$, gamma $\gamma$, bias
# $b$ and noise $\sigma$ per domain. The sources are A (dark, red), B (bright, washed out, low
# contrast) and C (green-blue, high contrast, noisy). Three domains are held out: **D**
# (purple, the fourth domain of the full scale's leave-one-domain-out splits; here the split
# that holds D out), **X** (A pushed away from B and C: red, very high contrast, noisy) and
# **M** (the *average* of the sources' style parameters, between them by construction, the
# case most favourable to interpolation between domains). The printed distance of each style
# to the convex hull of the sources' styles (in the ten style parameters) says which lie
# outside it.

# %%
sources, held_out = ["A", "B", "C"], ["D", "X", "M"]
train, test = langdaug.make_domains(
    sources, sources + ["M", "D", "X"], n_train=run["n_train"], n_test=run["n_test"],
    rng=run.child_rng(10), size=run["size"],
)  # fmt: skip
styles = readings.style_table(sources, sources + held_out)
print(styles.round(3).to_string())
print(readings.hull_line(styles, held_out))

# %% tags=["hide-input"]
shown = sources + held_out
fig, axes = plt.subplots(len(shown), 6, figsize=(9, 1.55 * len(shown)))
for r, d in enumerate(shown):
    for c in range(6):
        ax = axes[r, c]
        ax.imshow(test[d].images[c].permute(1, 2, 0).numpy())
        ax.contour(test[d].masks[c].numpy(), levels=[0.5], colors="w", linewidths=0.6)
        ax.set_xticks([]), ax.set_yticks([])
    axes[r, 0].set_ylabel(f"{d} (held out)" if d in held_out else f"{d} (source)")
fig.suptitle(
    "Six domains, one anatomy: only the acquisition style differs (white: disc mask)"
)
plt.show()

# %% [markdown]
# ## Training the pair EBMs
#
# One EBM per ordered source pair (6 pairs), each a shallow, globally pooled conv net (three
# stride-2 convolutions, SiLU, average pooling, a linear head), so that it can read style but
# hardly anatomy. Contrastive divergence as in the released code — $K$-step chains from a batch of
# source images, Adam (lr $10^{-3}$, betas 0.5/0.999) — with the energy penalty at
# $\lambda = 0.1$ (our choice: the released script's optional penalty has weight 1 and its run
# script leaves it off). The six EBMs train side by side as the independent members of one grouped
# network (`langdaug.pair_augmentations`, which then runs the augmentation chains of claim 1). At
# full scale a small VQ-VAE is trained on the source images first and the chains run in its
# latent space, as in the paper.

# %%
ebm_cfg = langdaug.EBMConfig(iters=run["ebm_iters"], batch=run["ebm_batch"],
                             steps=steps, step_size=eta,
                             widths=run["ebm_widths"])  # fmt: skip
vq = None  # full scale: a VQ-VAE of the sources, whose latents the chains walk
if run["latent"]:
    x_all = torch.cat([train[d].images for d in sources])
    vq = langdaug.train_vqvae(x_all, steps=run["vq_steps"], batch=64,
                              generator=run.torch_generator(20)).model  # fmt: skip

# %%
n_ebm_sets = run["seeds"] if run["ebm_per_seed"] else 1
pair_sets = [
    langdaug.pair_augmentations(train, sources, ebm=ebm_cfg, n_chain=n_chain,
                                save_every=run["save_every"],
                                generator=run.torch_generator(30 + s), vq=vq)
    for s in range(n_ebm_sets)
]  # fmt: skip
pairs = list(pair_sets[0].pairs)
pair_names = langdaug.pair_names(pairs)
augs = [ps.augmentations for ps in pair_sets]
print(readings.cd_loss_line(n_ebm_sets, pair_names, pair_sets[-1].trace.losses))

# %% [markdown]
# ## Claim 1 · The chains traverse from domain $i$ to domain $j$
#
# From `n_chain` training images of each source domain we run the chains of each pair for $K = 20$
# steps and keep steps 0, 5, 10, 15, 20 (steps 5–20 are the augmentations). The statistic is the
# distance of the chains' mean colour (the channel means, averaged over a pair's chains) to the
# mean colour of domain $j$, divided by the same distance at step 0: 1 at the start, 0 on arrival
# (`langdaug.normalised_traversal`; `langdaug.compare_samplers` runs both samplers and measures
# them).
#
# **Criterion (fixed before the run).** For every one of the 6 pairs, the normalised distance
# falls at every saved step (strictly) and is at most 0.3 at step 20 (the research brief's
# bound; the abstract says only that the chains traverse between domains), with the code's
# sampler, which makes the augmentations. Plausible failures: chains that stall half-way (the
# EBM has not learned a slope that reaches $j$), overshoot past $j$ (the distance rises
# again), or drift elsewhere (pixel-space EBMs can push images along directions that are not
# style).
#
# **Sanity check 1b.** The same criterion for the paper's Langevin step on the same EBMs, from
# the same starts. At $T = \beta/(2\eta)$ its drift *is* the code's step, so it differs from
# claim 1 only by the noise, $\sqrt\beta = 0.01$ per pixel and step, which the channel means
# average away: it can fail only where claim 1 fails or the noise derails a chain, so it shows
# that our Langevin sampler runs, not the paper's claim. What the noise does change is printed
# under it: the pixel noise it leaves in the augmentations.

# %%
samplers = langdaug.compare_samplers(
    pair_sets[0], train, n_chain=n_chain, steps=steps, beta=beta, temperature=T,
    save_every=run["save_every"], generator=run.torch_generator(40), vq=vq,
)  # fmt: skip
trav_code, trav_lang = samplers.code, samplers.langevin
print("code sampler, normalised distance to the target domain:")
print(readings.traversal_table(samplers).round(3).to_string())
print("\n".join(readings.sampler_lines(samplers, beta)))

# %% tags=["hide-input"]
fig = plt.figure(figsize=(11, 5.6))
grid = fig.add_gridspec(len(pairs), 7, width_ratios=[1] * 6 + [5.5])
show_steps = augs[0].steps
for p, name in enumerate(pair_names):
    for c, k in enumerate(show_steps):
        ax = fig.add_subplot(grid[p, c])
        ax.imshow(augs[0].chains[c, p, 0].permute(1, 2, 0).clamp(0, 1).numpy())
        ax.set_xticks([]), ax.set_yticks([])
        if p == 0:
            ax.set_title(f"step {k}", fontsize=9, fontweight="normal")
        if c == 0:
            ax.set_ylabel(name, fontsize=9)
    ax = fig.add_subplot(grid[p, 5])
    ax.imshow(train[pairs[p][1]].images[0].permute(1, 2, 0).numpy())
    ax.set_xticks([]), ax.set_yticks([])
    if p == 0:
        ax.set_title("a j image", fontsize=9, fontweight="normal")
ax = fig.add_subplot(grid[:, 6])
for p, name in enumerate(pair_names):
    col = color_for(PAIR_COLORS[p])
    ax.plot(show_steps, trav_code[name], "-o", ms=3, color=col, label=name)
    ax.plot(show_steps, trav_lang[name], "--", color=col, lw=1)
ax.axhline(0.3, color=color_for("reference"), ls=":", lw=1.2, label="criterion 0.3")
ax.plot([], [], "k--", lw=1, label="paper's Langevin step (1b)")
ax.set(xlabel="chain step k", ylabel="distance to domain j (normalised)",
       xticks=list(show_steps), ylim=(0, 1.05))  # fmt: skip
ax.legend(fontsize=8, ncols=2)
fig.suptitle("Chains walk from domain i to domain j (code sampler; curves: both)")
plt.show()

# %%
end_key = f"distance at step {steps} / step 0"
end_code = {p: v[-1] for p, v in trav_code.items()}
traverses = all_of(
    at_most(end_key, 0.3), *[monotone(p, "decreasing") for p in pair_names]
)
ledger.check(
    "1",
    "chains move the images' mean colour from domain i to j "
    "(code's noise-free sampler)",
    paper="abstract: EBMs traverse between source domains, generating intermediate "
    "samples by Langevin dynamics; the sampler (noise-free steps) is the official "
    "code's; the bound 0.3 is the research brief's",
    source="abstract", measured={end_key: end_code, **trav_code}, criterion=traverses,
    show=[end_key], tolerance=tol(abs=0.0005),
)  # fmt: skip

# %%
end_lang = {p: v[-1] for p, v in trav_lang.items()}
ledger.sanity(
    "1b",
    "the paper's Langevin step, with claim 1's drift, traverses as claim 1 does",
    why="at T = β/(2η) its drift is the code's step, so it differs from claim 1 only "
    "by noise of √β = 0.01 per pixel and step (β = 1e-4 is ours), which the channel "
    "means average away; it fails only where claim 1 fails or the noise derails a "
    "chain",
    measured={end_key: end_lang, **trav_lang,
              "largest |1b − 1| normalised distance": samplers.largest_gap},
    criterion=traverses, show=[end_key], evidence="simulation",
    tolerance=tol(abs=0.0005),
)  # fmt: skip

# %% [markdown]
# The image grid shows one chain per pair: the mean colour moves from the source's style towards
# the target's while the disc and vessels stay in place; the table gives the distance at each
# saved step. The dashed curves (the paper's noisy step) lie on the solid ones, as they must
# (sanity check 1b). What the statistic does not see is visible in the grid: the chains change
# the mean colour faster than the contrast between disc and background, and some pairs pick up
# a faint grid pattern, the pixel-space EBM's own fingerprint (our check 2 measures what both do
# to the labels, and prints the disc contrast). Claim 1 is therefore read as a move of colour,
# not as arrival in domain $j$: the late iterates carry $j$'s colours with much of $i$'s
# contrast. The official fundus pipeline restores the source's lightness channel after the
# chain (LAB colour), so there too the chains change colour rather than structure.

# %% [markdown]
# ## Segmentation models
#
# Four training sets, each for `seeds` seeds: **ERM** (the 3 source domains), **DR** (the sources,
# each batch randomised per image and channel: gain in [0.6, 1.4], bias in [−0.2, 0.2], gamma in
# [0.6, 1.7] log-uniform), **LangDAug** (sources plus the augmentations of claim 1, labelled with
# their source masks) and **DR + LangDAug** (both). The model is a 2-level UNet trained with
# BCE + Dice and Adam; the learning rate follows the official code's "poly" schedule
# ($\mathrm{lr}\cdot(1-s/S)^{0.9}$ at step $s$ of $S$). Every method gets the same number of
# gradient steps and batch size, so LangDAug cannot win by training longer, and seed $s$ starts
# every method from the same initial weights. The steps are not enough for full convergence on
# this budget: the in-domain Dice of each method is printed below, and claims 3 and 4 are
# judged only where the augmented set fits the sources about as well as its baseline. The models of
# one step count train side by side as members of one grouped network
# (`langdaug.train_segmenters`).

# %%
seeds = run["seeds"]
tasks = langdaug.method_tasks(train, sources, augs, seeds=seeds, dr=langdaug.DRRange())
seg_cfg = langdaug.SegConfig(batch=run["unet_batch"], widths=run["unet_widths"],
                             **run["seg"])  # fmt: skip
study = langdaug.train_segmenters(
    tasks, seeds=seeds, config=seg_cfg,
    init=lambda s: run.torch_generator(100 + s),  # seed s: one start for every method
    batches=lambda k: run.torch_generator(50 + k),
)  # fmt: skip
print(readings.training_line(study, tasks, seg_cfg.batch))

# %%
dice = {d: study.dice(test[d].images, test[d].masks) for d in sources + held_out}
results = readings.results_table(study, dice, sources, held_out)
in_dom = {lab: float(v) for lab, v in zip(study.labels, results.in_domain)}
print("mean Dice on the source domains' test images (in-domain), over seeds:")
print(readings.in_domain_table(results, study).round(4).to_string())

# %% [markdown]
# ## Our check 2 · The augmented images keep valid labels
#
# A chain may change more than style: pixel-space EBMs can smear or shift the disc, and then the
# source mask is a wrong label. We segment every augmentation and score the prediction against
# the source mask. The referee must not confuse "the label is wrong" with "this style is new to
# me": the chains leave the sources' styles on purpose, and a model trained on the sources alone
# (ERM) can miss a disc whose label is right. The referees are the **DR** models: they never saw
# an augmentation, and their training randomises gain, bias and gamma per channel, so the styles
# the chains pass through are not new to them.
#
# **Gate (the referee reads real images of these styles).** Each DR seed's Dice is at least 0.9
# on the real test images of each source and of M (the centroid of the sources' styles), where
# the labels are right by construction. **Criterion.** Each DR seed's mean Dice over all
# augmentations is at least 0.9 (the research brief's bound). A chain that blurs, moves or
# erases the disc would fail it. Two diagnostics are printed and do not decide: ERM's Dice on
# the augmentations (the referee of this chapter's earlier revision) and a model-free one, the
# per-image AUC of the source mask against the image's brightness (1 when the mask marks
# exactly the brightest region, as the disc is in every real style).

# %%
aug0 = augs[0]
labels = langdaug.label_check(study, aug0, dice, domains=sources + ["M"])
auc_aug = langdaug.mask_auc(aug0.images, aug0.masks)
auc_real = langdaug.mask_auc(torch.cat([test[d].images for d in sources]),
                             torch.cat([test[d].masks for d in sources]))  # fmt: skip
print("\n".join(readings.label_lines(labels, auc_real, auc_aug)))
print("disc contrast (inside − outside the mask, mean over channels):")
contrast = readings.contrast_table(aug0, train, pairs, n_chain)
print(contrast.round(3).to_string())

# %%
REF_REAL = "referee (DR) Dice on real test images (sources, M)"
REF_AUG = "referee (DR) Dice on augmentations"
ledger.ours(
    "2",
    "augmentations keep valid labels (a style-robust referee's Dice on them)",
    why="a premise of the method, not a result the paper reports: the official "
    "code files every saved iterate with its source image's mask (convert_LAB.py); "
    "the bound 0.9 is the research brief's",
    measured={REF_AUG: list(labels.referee.mean(1)), REF_REAL: labels.real,
              **labels.by_step},
    gate=at_least(REF_REAL, 0.9),
    criterion=at_least(REF_AUG, 0.9),
    show=[REF_AUG],
    tolerance={REF_AUG: tol(abs=0.02), REF_REAL: tol(abs=0.02),
               "step 5": tol(abs=0.005), "step 10": tol(abs=0.007),
               "step 15": tol(abs=0.009), "step 20": tol(abs=0.008)},
)  # fmt: skip

# %% [markdown]
# The referee's Dice by chain step shows where labels drift, if they do: the late iterates
# carry the target's mean colour with a disc that stands out less (or more) than in the target
# domain (the contrast table), a combination no real domain shows. ERM's lower Dice on the same
# images, printed beside it, is the gap between "the label is wrong" and "this style is new".

# %% [markdown]
# ## Claim 3 · Better segmentation of an unseen domain
#
# The paper's benchmarks hold one domain out at a time (leave-one-domain-out) and average; at
# quick scale we run the split that holds D out (sources A, B, C) and test the same models on two
# more unseen domains, X outside the sources' hull and M between them.
#
# **Gates (fixed before the run).** (a) *A domain gap*: the unseen domain costs ERM at least
# 0.03 Dice (its mean in-domain Dice minus its mean Dice on that domain): a gain can show only
# where there is a gap to close, and 3 points is the largest gain the README reports (up to
# +3.05 % mIoU added to DR methods; +1.7 mDSC over the next method on Fundus), so that a gain
# of the paper's size has room to show. (b) *Both models fit the sources*:
# LangDAug's mean in-domain Dice is at most 0.01 below ERM's, so that a held-out difference is
# not an under-fitted model's. (c) *The seeds resolve a gain of that size*: $t$·SE of ERM's
# per-seed Dice on the domain is at most 0.03 (the baseline's own scatter, read before the
# method's; added after the audit, see Deviations). Unmet, the claim is not checked at this
# scale.
# **Criterion.** The gain LangDAug − ERM in Dice on the unseen domain, paired by training seed
# (both start from the same weights), beyond its noise: mean − $t$·SE > 0 ($t$: Student's
# 97.5 % quantile on seeds − 1 degrees of freedom). It fails if mean + $t$·SE ≤ 0 (the
# augmentations add nothing the sources did not teach, or they mislead the UNet); in between it
# is within the noise. The bar is 0: the abstract says "outperforms" without a size; the
# research brief's bar of 0.02 is our check 3e.
#
# The unseen domains were chosen from ERM's gap alone: in a probe that trained only ERM (seed 0),
# before any LangDAug model was scored on D or X, D and X cost ERM far more than 0.03 and M
# almost nothing; the probe's numbers are not used here, the gates read this run's.

# %%
WHERE = {"D": "the fourth domain, held out from A, B, C",
         "X": "outside the sources' hull", "M": "between the sources"}  # fmt: skip
IDS3 = dict(zip(held_out, ["3", "3b", "3c"]))
IDS4 = dict(zip(held_out, ["4", "4b", "4c"]))
wide = readings.per_seed_tables(results, held_out, METHODS)
for d in held_out:
    print(f"Dice on {d} ({WHERE[d]}), per seed:")
    print(wide[d].round(4).to_string())
print(readings.cost_line(in_dom, dice, METHODS, held_out))
erm_in_domain = langdaug.mean_of(in_dom, "ERM")  # drawn as a reference

# %% tags=["hide-input"]
fig, axes = plt.subplots(1, len(held_out), figsize=(11, 3.9), sharey=True)
for ax, d in zip(axes, held_out):
    for a, b in (("ERM", "LangDAug"), ("DR", "DR + LangDAug")):
        ka, kb = METHODS.index(a), METHODS.index(b)
        for s in range(seeds):
            ax.plot([ka, kb], [wide[d].loc[s, a], wide[d].loc[s, b]],
                    color=color_for("muted"), lw=0.8, zorder=1)  # fmt: skip
    for k, m in enumerate(METHODS):
        vals = wide[d][m].to_numpy()
        ax.scatter(np.full(len(vals), k), vals, color=color_for(m), s=22, zorder=3)
        ax.hlines(vals.mean(), k - 0.25, k + 0.25, color=color_for(m), lw=2)
    ax.hlines(erm_in_domain, -0.4, len(METHODS) - 0.6, color=color_for("reference"),
              ls=":", lw=1.2, label="ERM in-domain")  # fmt: skip
    ax.set(xticks=range(len(METHODS)),
           xticklabels=[m.replace(" + ", "\n+ ") for m in METHODS],
           title=f"{d}: {WHERE[d]}", ylim=(0, 1.02))  # fmt: skip
    ax.title.set_fontsize(10)
axes[0].set_ylabel("Dice on the unseen domain")
axes[0].legend(fontsize=8, loc="lower left")
fig.suptitle(
    "Unseen-domain Dice per method (dots: seeds; lines: pairs of one seed; bars: means)"
)
plt.show()

# %% [markdown]
# The gate and the criterion of claims 3–3c, 3e and 4–4c, written once (`judge_gain`); the
# measured values come from `langdaug.gain_measures`.

# %%
# `repbook numerics 05` (data/numerics/05_langdaug.json): about 3× the largest move,
# for the gain, gap, fit, resolution, baseline's Dice and method's Dice (in the order of
# gain_measures)
TOL05 = {
    "3": (0.2, 0.002, 0.02, 0.02, 0.08, 0.2),
    "3b": (0.3, 0.09, 0.02, 0.05, 0.3, 0.3),
    "3c": (0.04, 0.004, 0.02, 0.06, 0.04, 0.03),
    "4": (0.08, 0.007, 0.04, 0.002, 0.02, 0.07),
    "4b": (0.06, 0.002, 0.04, 0.05, 0.03, 0.05),
    "4c": (0.08, 0.006, 0.04, 0.008, 0.02, 0.07),
}
TOL05["3e"] = TOL05["3"]  # our check 3e reads claim 3's values


def judge_gain(cid, statement, paper, method, baseline, d, *, role="paper", why=""):
    g = langdaug.gain_measures(dice[d], in_dom, method, baseline, d)
    kw = dict(
        measured=g.measured,
        gate=all_of(at_least(g.gap, 0.03), at_least(g.fit, -0.01),
                    at_most(g.resolution, 0.03)),
        criterion=paired_gain(g.gain, 0.02 if role == "ours" else 0.0, k="t"),
        show=[g.gain, g.gap, g.resolution], note=f"{d}: {WHERE[d]}",
        tolerance={k: tol(abs=a) for k, a in zip(g.measured, TOL05[cid])},
    )  # fmt: skip
    if role == "ours":
        return ledger.ours(cid, statement, why=why, **kw)
    return ledger.check(cid, statement, paper=paper, source="abstract", **kw)


# %%
PAPER3 = (
    "abstract: outperforms state-of-the-art domain-generalisation methods on unseen "
    "domains (ERM, the baseline they all beat, is our comparator; the paper's ERM row "
    "was not read)"
)
for d in held_out:
    statement = f"LangDAug beats ERM on the unseen domain {d}"
    judge_gain(IDS3[d], statement, PAPER3, "LangDAug", "ERM", d)
judge_gain(
    "3e", "LangDAug's gain over ERM on D exceeds 0.02 Dice", "", "LangDAug", "ERM", "D",
    role="ours", why="the research brief's bar (its prototype's gain was 0.07); the "
    "abstract gives no size, so the bar is ours",
)  # fmt: skip
for cid in ["3", "3b", "3c", "3e"]:
    print(readings.gain_reading(ledger.claim(cid)))

# %% [markdown]
# The lines above read the figure: for each unseen domain, whether a gap was there to close (the
# gate), and the paired gains of the seeds against it. A gain on D or X is interpolation
# between the sources reaching a style outside their hull; M, between the sources, is where the
# method's own design says it should help most, and where ERM has least to lose.
#
# ## Claim 4 · LangDAug complements domain randomisation
#
# **Gates.** As for claim 3 with DR as the baseline: the unseen domain costs *DR* at least 0.03
# Dice (room for LangDAug to add to DR), and DR + LangDAug's in-domain Dice is at most 0.01 below
# DR's (an earlier revision judged this claim on a DR + LangDAug that had not fitted the
# sources). **Criterion.** The gain DR + LangDAug − DR on the unseen domain, paired by seed:
# mean − $t$·SE > 0; it fails if mean + $t$·SE ≤ 0 (random style jitter already covers what the
# chains add); in between it is within the noise. The README's "up to +3.05 % mIoU" is a best
# case over DR methods, not a bar. Claim 4 on D, 4b on X, 4c on M.

# %%
PAPER4 = (
    "abstract: complements existing domain-randomisation approaches; official README: "
    "up to +3.05 % mIoU over DR methods (TriD, RAM, ...; table not read)"
)
for d in held_out:
    statement = f"DR + LangDAug beats DR on {d}"
    judge_gain(IDS4[d], statement, PAPER4, "DR + LangDAug", "DR", d)
for cid in ["4", "4b", "4c"]:
    print(readings.gain_reading(ledger.claim(cid)))
print("context, not a bar (the paper's strongest baselines are DR methods):")
for d in ("D", "X"):
    gains = langdaug.paired_gains(dice[d], "DR", "LangDAug")
    print(gain_line(f"  DR − LangDAug on {d}, per seed", gains))

# %% [markdown]
# Read with the figure of claim 3. Our DR randomises per channel the very family of
# transformations that makes the domains here (a gain, a gamma and a bias per channel, see
# *Synthetic domains*): it is an oracle for these domains, every unseen style lies within its
# reach, and the gate (DR's own gap) leaves LangDAug nothing to add. A regime where the
# mechanism could show is known and not run: a DR that shares one gain, bias and gamma across
# the channels (intensity-only randomisation, common in medical imaging), so that the
# per-channel colour of D and X lies outside DR's reach but inside the chains' colour
# traversal; six more UNets, about 40 s, beyond this chapter's budget.

# %% [markdown]
# ## Claim 5 · The regularisation effect
#
# The abstract says LangDAug induces a regularisation effect; the authors' project page writes
# the LangDAug risk as the ERM risk plus terms in the model's first and second derivatives:
# training on Langevin-perturbed inputs penalises a loss that changes sharply with the input.
# We measure $\lVert\nabla_x \ell(x, y)\rVert_2$ (BCE + Dice of one image) on the held-out test
# images of M, per model, and average over images.
#
# **Criterion.** ERM's mean input-gradient norm minus LangDAug's, paired by seed, beyond its
# noise: mean − $t$·SE > 0; it fails if mean + $t$·SE ≤ 0, and is within the noise in between.
# A caveat fixed in advance: a model with a lower loss on M also tends to have smaller
# gradients there, so a pass does not separate regularisation from better fit; the same numbers
# on the *source* test images (the first half of each source's test set), where both fit well,
# are printed for that reason (they do not decide).

# %%
gn_held = study.grad_norm(test["M"].images, test["M"].masks)
# the sources' images (the first half of each test set) only inform a diagnostic
half = run["n_test"] // 2
gn_src = langdaug.source_grad_norm(study, [test[d] for d in sources], half)
results["grad_M"] = [gn_held[lab] for lab in study.labels]
results["grad_sources"] = [gn_src[lab] for lab in study.labels]
print("mean ‖∇ₓℓ‖ over test images, then over seeds:")
grads = results.groupby("method", sort=False)[["grad_M", "grad_sources"]].mean()
print(grads.round(4).to_string())
drop_m = langdaug.paired_gains(gn_held, "ERM", "LangDAug")
drop_src = langdaug.paired_gains(gn_src, "ERM", "LangDAug")
print(readings.grad_ratio_line(gn_held, gn_src, drop_src))

# %% tags=["hide-input"]
fig, axes = plt.subplots(1, 2, figsize=(9, 3.6), sharey=True)
for ax, col, where in zip(
    axes, ["grad_M", "grad_sources"], ["held-out domain M", "source test images"]
):
    for k, m in enumerate(METHODS):
        vals = results.query("method == @m")[col].to_numpy()
        ax.scatter(np.full(len(vals), k), vals, color=color_for(m), zorder=3)
        ax.hlines(vals.mean(), k - 0.25, k + 0.25, color=color_for(m))
    ax.set(xticks=range(len(METHODS)),
           xticklabels=[m.replace(" + ", "\n+ ") for m in METHODS],
           yscale="log", title=where)  # fmt: skip
axes[0].set_ylabel("mean ‖∇ₓ loss‖₂ per image")
fig.suptitle("Input-gradient norm of the loss (dots: seeds; bars: means)")
plt.show()

# %%
G5 = "ERM − LangDAug ‖∇ₓℓ‖ on M, per seed"
E5, L5 = "ERM ‖∇ₓℓ‖ on M", "LangDAug ‖∇ₓℓ‖ on M"
ledger.check(
    "5",
    "LangDAug lowers the loss's input-gradient norm vs ERM",
    paper="abstract: LangDAug induces a regularisation effect; the project page: the "
    "augmented risk is the ERM risk plus first- and second-derivative terms (the test, "
    "a lower input-gradient norm of the trained model, is our derived prediction)",
    source="abstract",
    measured={G5: drop_m, E5: langdaug.per_seed(gn_held, "ERM"),
              L5: langdaug.per_seed(gn_held, "LangDAug")},
    criterion=paired_gain(G5, k="t"),
    show=[G5],
    tolerance={G5: tol(abs=0.09), E5: tol(abs=0.09), L5: tol(abs=0.08)},
)  # fmt: skip
print(readings.gain_reading(ledger.claim("5")))
print(readings.source_gradient_line(drop_src))

# %%
ledger.quote("5b", "GLM Rademacher complexity bounded via intrinsic dimension",
             paper="upper bound in the data manifold's intrinsic dimension",
             source="abstract", note="theorem; not re-derived here")  # fmt: skip

# %% [markdown]
# The paired difference on the *source* test images, where both models fit about equally
# well, is what could separate the two readings of claim 5 (a smoother model, or only a better
# fit on M); the line above reads it.
#
# ## At full scale only · Leave-one-domain-out over all four domains (claim 3d)
#
# At full scale the same pipeline (`langdaug.langdaug_split`: pair EBMs retrained per seed, their
# augmentations, ERM and LangDAug segmenters) runs on 64×64 images with the chains in a VQ-VAE's
# latent space, for each of the four domains A–D held out in turn, as the paper's benchmarks do;
# it also sweeps the chain length $K$. Claim 3d: each seed's gain LangDAug − ERM averaged over
# the four held-out domains, paired by seed, with the criterion of claim 3 and the gate of a
# domain gap (ERM's mean cost over the four held-out domains at least 0.03).

# %%
if run["lodo"]:
    full_train, full_test = (
        {d: langdaug.make_domain(d, run[n], run.child_rng(k), size=run["size"])
         for d in "ABCD"}  # each domain from a fresh copy of stream k: the same scenes
        for n, k in (("n_train", 1000), ("n_test", 1001))
    )  # fmt: skip
    protocol = dict(seeds=seeds, ebm=ebm_cfg, seg=seg_cfg, n_chain=n_chain,
                    save_every=run["save_every"],
                    streams=run.torch_generator)  # fmt: skip
    lodo = langdaug.lodo_splits(full_train, full_test, latent=run["latent"],
                                vq_steps=run["vq_steps"], **protocol)  # fmt: skip
    k_rows = langdaug.k_sweep(train, "D", test["D"], ks=run["k_sweep"], sources=sources,
                              vq=vq, **protocol)  # fmt: skip
    print(readings.lodo_table(lodo).round(4).to_string())
    print("K sweep (sources A, B, C; Dice on D):")
    print(pd.DataFrame(k_rows).round(4).to_string(index=False))
else:
    print("quick scale: the four leave-one-domain-out splits and the K sweep run at "
          "full scale")  # fmt: skip

# %%
G3D = "LangDAug − ERM, per seed (mean over the four held-out domains)"
GAP3D = "ERM gap, mean over the four held-out domains"
FIT3D = "fit: LangDAug's − ERM's in-domain Dice, mean over the four splits"
RES3D = "ERM resolution (t·SE of its per-seed held-out Dice, mean over the splits)"
STATEMENT3D = "LangDAug beats ERM, leave-one-domain-out (mean over four splits)"
crit_3d = paired_gain(G3D, k="t")
if run["lodo"]:
    s3d = langdaug.lodo_summary(lodo)
    ledger.check(
        "3d", STATEMENT3D, paper=PAPER3, source="abstract",
        measured={G3D: list(s3d.gain), GAP3D: s3d.erm_gap, FIT3D: s3d.fit,
                  RES3D: langdaug.resolution(s3d.erm_held),
                  "gain per held-out domain": s3d.by_domain},
        gate=all_of(at_least(GAP3D, 0.03), at_least(FIT3D, -0.01),
                    at_most(RES3D, 0.03)),
        criterion=crit_3d, show=[G3D, GAP3D],
    )  # fmt: skip
else:
    ledger.not_checked(
        "3d", STATEMENT3D, paper=PAPER3, source="abstract", criterion=crit_3d,
        note="full scale: A–D each held out, latent chains, EBMs per seed, 5 seeds",
    )  # fmt: skip

# %% [markdown]
# ## Quoted from the paper · The benchmark numbers (claims 6a–6c)
#
# These numbers come from the official README (the project page shows the same tables); we could
# not check them against the paper's PDF offline, and nothing in this chapter re-measures them. The
# README's ablations over $K$ and $\beta$ were not verified against the paper and are not quoted.

# %%
ledger.quote("6a", "Fundus (4 domains, leave-one-out): average mDSC",
             paper="LangDAug 87.61 vs TriD 85.95", source="official code",
             note="README table; RAM 85.39, MixStyle 85.58, FedDG 83.67")  # fmt: skip
ledger.quote("6b", "Prostate MRI (6 sites): average DSC",
             paper="LangDAug 89.16 vs TriD 87.68", source="official code",
             note="README table; ASD 0.81 vs 0.90")  # fmt: skip
ledger.quote("6c", "LangDAug added to domain-randomisation methods",
             paper="up to +3.05% mIoU", source="official code",
             note="README highlight; TriD, RAM, MixStyle, FedDG are not run here",
             )  # fmt: skip

# %% [markdown]
# ## Verdicts

# %% tags=["nbval-check-output"]
ledger.show()

# %% tags=["nbval-ignore-output"]
print(run.time_line())

# %% [markdown]
# **Reading the verdicts.** The lines below are generated from this run's ledger, from the
# committed stability record (quick scale, seeds 0–4, `data/stability/05_langdaug.json`; a
# claim changed since the record was made reads "stale record" in the table) and from the
# numerics record (`repbook numerics 05`: a claim whose verdict moves under other kernels and
# thread counts is named).

# %%
print("\n".join(reading_lines(ledger)))

# %% [markdown]
# ## Deviations from the paper
#
# - **Paper text.** Only the abstract, the official code with its README and the authors'
#   project page were read; the paper's full text was not available offline. Every claim's
#   source says what its statement rests on: the abstract (1, 3–3d, 4–4c, 5, 5b), the official
#   code (the premise of our check 2; the quoted numbers 6a–6c come from its README). The sampler, the CD loss, the saved
#   iterates and the source-mask labels follow the official code; the noisy Langevin step of
#   sanity check 1b and the derivative form of claim 5 follow the project page and the research
#   brief, not the paper's text. Bounds that are the research brief's say so where they are
#   used (0.3 in claim 1, 0.9 in our check 2, 0.02 in our check 3e).
# - **Answered in this revision (an independent verdict audit, issue 33)** — old → new, the
#   reason, and what was known when the change was made:
#   - *Claim 3: a held-out domain with a gap.* Old: claim 3 on M only (between the sources),
#     gated on ERM's gap ≥ 0.04 and judged as mean − 2 SE > 0.02; *not checked* (ERM's gap
#     0.0023 at seed 0: M cost ERM nothing), with 3b (leave-one-domain-out) and 3c (domain X)
#     left to the full scale. New: the same models are scored on three unseen domains — D (the
#     leave-one-domain-out split that holds D out, as the paper's benchmarks do), X (outside the
#     sources' hull) and M — as claims 3, 3b and 3c; the gate is a gap of 0.03 Dice for ERM (the
#     largest gain the README reports) and LangDAug fitting the sources within 0.01 of ERM's
#     in-domain Dice; the criterion is the paired gain beyond the $t$ interval with bar 0 (the
#     abstract says "outperforms", no size; by the audit rules an unstated bound is ours). The
#     brief's bar 0.02 stays, on D, as our check 3e. The full-scale mean over the four
#     leave-one-domain-out splits is 3d. Known: the old verdicts; ERM's gaps on D, X and M in
#     an ERM-only probe (seed 0, the earlier 400-step protocol: 0.64, 0.40, 0.004) that chose
#     which unseen domains to run at quick scale; no LangDAug or DR model had been scored on D
#     or X when the gates and criteria were written.
#   - *Claim 4: under-fitting.* Old: DR + LangDAug − DR on M, gate ERM's gap ≥ 0.04, mean − 2 SE
#     > 0.005; *not checked* (gate), and the chapter noted that DR + LangDAug trailed DR on the
#     sources' own images (in-domain 0.917 against 0.943 in the audit's run) after 400 steps.
#     New: every model trains longer with the official code's poly schedule (see *Training*
#     below); claims 4, 4b and 4c on D, X and M are gated on DR's own gap ≥ 0.03 (room for
#     LangDAug to add to DR) and on DR + LangDAug fitting the sources within 0.01 of DR; bar 0
#     with the $t$ interval (0.005 was our tie band, not the README's). Known: the old values;
#     in-domain Dice of the four methods in convergence probes (below); nothing on D or X.
#   - *Training (all segmenters).* Old: 400 steps at a constant Adam rate of
#     $2\times10^{-3}$, every method alike. Convergence probes that read only the sources' test
#     images (seed 0, one model per method) showed every method still rising at 400 steps (ERM
#     0.954 → 0.981 at 800 → 0.994 at 1,200 steps at the old rate), so all the old models were
#     under-fitted, not only DR + LangDAug. New: 600 steps of 16 images for every method, at a base rate
#     of $5\times10^{-3}$ with the official code's poly schedule; the rate and the step count
#     were chosen from those probes (a faster rise at the higher rate) and the time budget,
#     before any model of this protocol was scored on an unseen domain. In the probes
#     DR + LangDAug stayed 0.003–0.015 below DR in-domain at every length tried, so the fit
#     gate of claim 4 (0.01), fixed at one Dice point before this protocol ran, looked at
#     risk; in the runs of this revision the part of claim 4's gate that is unmet is DR's
#     own gap (the verdict lines say which part). Equal epochs (the official
#     protocol, which gives an augmented set more steps) would cost 2.5–3.7 times the steps on
#     the augmented sets; equal steps keep the comparison free of training length, and the fit
#     gates of claims 3 and 4 check that the augmented sets were fitted as well as their
#     baselines.
#   - *Claim 2: the referee.* Old: ERM's Dice on the augmentations ≥ 0.9 per seed; *not
#     reproduced* on 5 of 5 seeds (−0.0034 at seed 0). ERM has never seen the styles the chains
#     pass through, so a miss mixes a wrong label with ERM's own reach to new styles; the
#     criterion did not test the labels. New: the DR models are the referees (they never saw an
#     augmentation and are trained across random gains, biases and gammas), gated on reading
#     real images of the sources and of M with Dice ≥ 0.9; the bound 0.9 is unchanged. ERM's
#     Dice and a model-free mask AUC are printed beside it. Known: the old ERM values; the DR
#     models' Dice on the augmentations had never been computed.
#   - *Claim 1b → sanity check 1b.* Old: a claim of the paper, *reproduced* (end distances
#     within 0.001 of claim 1's). At $T = \beta/(2\eta)$ its drift is claim 1's, and its noise,
#     $\sqrt\beta = 0.01$ per pixel and step, averages away in the channel means: it passes
#     whenever claim 1 does. It is now a sanity check with the same criterion, and the line
#     under claim 1 prints what the noise does change (the augmentations' pixel noise).
#     Known: all values.
#   - *Claim 5: paired.* Old: LangDAug's mean gradient norm on M below ERM's, a bare comparison
#     of means over 3 seeds (*reproduced*, margin +0.032). A comparison of two methods is decided
#     on paired per-seed differences beyond their noise (the book's rule); new: ERM − LangDAug
#     per seed, mean − $t$·SE > 0, on the same images. Known: the old result.
#   - *Sources.* Old: claims 1, 1b, 2 and 5 were marked "paper" although the paper's text was not
#     read; each is now labelled by what was read.
#   - *Protocols moved into the module.* The EBM-and-augmentation step
#     (`langdaug.pair_augmentations`), the segmenters trained side by side
#     (`langdaug.train_segmenters`), one leave-one-domain-out split (`langdaug.langdaug_split`,
#     formerly the chapter's `pipeline`), the traversal statistic, the disc contrast, the mask
#     AUC and the hull distance are tested functions of `repbook.papers.langdaug`; the EBMs,
#     chains and claim 1's numbers are those of the earlier revision (the same random streams).
#     Later (issue 37) the module became a package, and the chapter's remaining experiments
#     (the two samplers compared, the four methods' training sets, the referee of check 2, the
#     measured values of claims 3 and 4, the leave-one-domain-out splits and the $K$ sweep)
#     and its tables and generated sentences moved into it (`langdaug.studies`,
#     `langdaug.readings`), unit-tested and with the same random streams: the ledger did not
#     change.
#   - *Budget.* The unseen domains D and X cost only their evaluation (the same models are
#     scored on them). The longer training (12 UNets for 600 instead of 400 steps) is the
#     added cost, and it takes the chapter over its 150-second budget on 2 quiet cores (the
#     time line under the verdict table prints this run's time). A trial at 450 steps was
#     still over budget, with a lower in-domain fit, so 600 steps stay and the overrun is
#     reported rather than cut from the protocol that answers the under-fitting finding. Part
#     of the cost was paid for by scoring the input-gradient norms on half of the
#     sources' test images (a diagnostic of claim 5, not its criterion) and by using the DR
#     models, already trained for claim 4, as check 2's referees instead of training a model
#     on every domain; the run time is printed under the verdict table.
# - **Answered after a second verdict audit (issue 33)** — old → new, and what was known: every
#   value of the run above (600 steps), which the audit read.
#   - *Claims 3, 3b, 3e: a resolution gate.* The gap gate was met on D and X, but ERM's Dice
#     there scatters over the seeds (D: 0.41 to 0.93 in the audited run), so the $t$ interval
#     of the gains was ±0.97 on D and ±0.44 on X, 15–30 times the 0.03 the gap gate is sized
#     for: "within the noise" read a test without power as a tested claim. New: a third part of
#     the gate, $t$·SE of the *baseline's* per-seed Dice on the domain at most 0.03 (the
#     method's values do not enter it), for 3–3c, 3e, 4–4c and 3d. Known: it closes 3, 3b and
#     3e at this scale (≈ → ○). Cheap regimes the audit named and not run for want of time:
#     held-out styles graded between M and D or X (evaluation only, chosen on an ERM-only
#     probe), and more seeds (about 6 s per UNet).
#   - *Claim 3d* gains the fit and resolution gates of claims 3–3c (it had the gap gate only).
#   - *Claim 2 → our check 2.* The labels' validity is a premise of the method (the official
#     code files each iterate with its source mask), not a result the paper reports; it left
#     the paper's tally. Criterion and gate unchanged; known: ✓.
#   - *Claim 1's statement* names what the statistic measures, the mean colour; the disc
#     contrast the chains leave (printed under check 2) is not part of it. Criterion
#     unchanged; known: ✓ and the contrast table.
#   - *Sanity check 1b:* β = 1e-4 is labelled ours (the README ablates β in latent units).
#   - *Claim 5:* the reading on the sources' test images is generated from the paired interval
#     (it read a ratio of means); the paper field says the test is our derived prediction.
#   - *Claims 4–4c:* the gate is kept; the text says why it is unmet (our DR is an oracle for
#     this family of styles) and names the regime that could show the mechanism, not run. DR −
#     LangDAug on D and X is printed as context (the paper's strongest baselines are DR
#     methods).
#   - *Equal steps, not the official equal epochs,* at both scales: the official setting would
#     give the augmented sets about 3.7 times the steps (about +100 s at quick scale); not run,
#     and the comparison at equal steps is ours.
#   - *Tolerances measured.* `repbook numerics 05` ran the chapter under three other numerical
#     environments: the segmenters' Dice on D and X moves by up to about 0.1 between them (the
#     same training follows other float paths), the colour traversal by under 2e-4. Each
#     claim's tolerances are about 3× the largest move (`TOL05`, and those of check 2 and
#     claim 5); no verdict moved between the environments.
#   - *Claim 3c* sits within its tolerance of the gate's boundary (ERM's gap on M 0.022–0.026
#     against 0.03): on another machine it may read as checked.
# - **Data.** Synthetic 32×32 fundus-like images in six styles stand in for the Fundus and
#   Prostate benchmarks; M is the average of the sources' styles, inside their hull by
#   construction, the setting most favourable to the method, and D and X lie outside it. No
#   number of the paper is re-measured. The quick scale runs one leave-one-domain-out split
#   (D held out); the other three need their own pair EBMs and segmenters and run at full scale.
# - **Space of the chains.** At quick scale the EBMs and chains work in pixel space, with a
#   shallow, globally pooled EBM (the paper: VQ-VAE latents, a StyleGAN-like EBM with attention
#   and spectral norm, the fundus images in LAB colour with the source's L channel restored). The
#   full scale adds a small VQ-VAE so that the chains run in its latent space, without the LAB
#   step. The EBMs are not conditioned on the source mask (the released code feeds its latent).
# - **Sampler.** The EBMs are trained and the augmentations made with the released code's
#   noise-free step ($\eta = 1$ in pixel space; the code: 10 in latent space); the paper's noisy
#   Langevin step is run on the same EBMs for sanity check 1b only, at temperature
#   $T=\beta/(2\eta)$. $\eta$ was chosen from a pilot on pair A→B with a seed the chapter does
#   not use; a timing pilot with narrower EBMs (16/32/32 channels) left pair B→C at 0.47 of its
#   start after 60 iterations, so we kept the brief's 32/64/64.
# - **Scale.** Quick: 150 training images per source, 60 CD iterations per pair (the code: up to
#   6,000), $K = 20$ (the code: 30 for fundus, 40 for prostate), 50 chains per pair (1,200
#   augmentations), a UNet with 8/16 channels (the paper: DeepLabv3+ with ResNet-34, 120 epochs),
#   3 training seeds sharing one set of EBMs (so the seed spread does not include the EBMs'
#   randomness; the book's stability run varies them).
# - **Saved iterates.** We keep $x_5, x_{10}, \dots, x_K$; the released code keeps the iterates
#   after steps 6, 11, 16, … and files them as 5, 10, 15, ….
# - **Equal steps.** Every method gets the same number of gradient steps; the paper trains for
#   a fixed number of epochs, which gives the augmented sets more steps.
# - **Regularisation.** Claim 5 measures the input-gradient norm only; the Hessian term (a
#   Hutchinson trace estimate) is not measured. The GLM Rademacher bound is quoted.
# - **Baselines.** TriD, RAM, MixStyle and FedDG are not run; DR is our own random gain, bias and
#   gamma. No peer package implements LangDAug, so all methods are ours.
# - **Not confirmed from the paper.** Without the PDF we could not check the ERM row, the K/β
#   ablations, or whether the README's numbers match the paper's tables.
#
# ## Run it at full scale
#
# ```bash
# .venv/bin/python -m repbook full 05   # writes data/full_runs/05_langdaug.json (commit it)
# # or only run it:
# .venv/bin/python -m repbook run 05 --scale full
# ```
# Full scale (one GPU): 64×64 images, 400 per domain, a VQ-VAE and latent chains, 600 CD
# iterations per pair, EBMs retrained for each of 5 seeds, 16/32-channel UNets for 3,000 steps,
# the four leave-one-domain-out splits (claim 3d), D, X and M for the main split, and a sweep
# over $K \in \{10, 20, 40, 80\}$. It has no full-scale record, and is meant for a GPU. An estimate for this book's 2-core CPU,
# scaled from the quick run's timings (not measured at full size): a full-size UNet step costs
# about 32 times a quick one (4× the pixels, 4× the channel products, 2× the batch), about 0.4 s
# per model and step, and the full scale trains about 300,000 model-steps (20 models on the
# main split, 40 on the leave-one-domain-out splits and 40 in the K sweep, 3,000 steps each):
# some 33 hours; the 63 sets of pair EBMs (600 iterations, batch 32, on latents) add about
# 5 hours and the five VQ-VAEs about 1: roughly 40 hours, far beyond the 30 minutes the book
# allows a CPU full run.

# %% tags=["nbval-ignore-output"]
print("\n".join(full_run_lines(ledger)))
