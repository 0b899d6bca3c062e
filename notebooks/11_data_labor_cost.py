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
# # 11 · Paying for an LLM's training data, against the cost of training it
#
# Nikhil Kandpal, Colin Raffel — *Position: The Most Expensive Part of an LLM should be
# its Training Data*, ICML 2025 (Position Paper Track) · arXiv
# [2504.12427](https://arxiv.org/abs/2504.12427) · OpenReview `L6RpQ1h4Nx` · no official
# code or data.
#
# The paper prices the human labour inside an LLM's training set: what would it cost to
# pay people to *write* every training token from scratch, at a modest wage and a fast
# writing speed? It sets that replacement cost beside the cost of the training run
# itself, for 64 LLMs released 2016–2024, and argues that the data — not the compute —
# should be the most expensive part of an LLM.
#
# ```{admonition} Claims we test
# 1. *(quoted)* For 64 LLMs released 2016–2024, paying people to write the training data
#    would cost 10–1000 times as much as training the model (abstract); the cost of
#    training a frontier model doubles about every nine months (introduction); and most
#    of the developers the paper assesses could not afford to pay for their data out of
#    their revenue (a secondary summary; not confirmed).
# 2. On **our curated set**, under the paper's wage and writing speed, the data of every
#    frontier model would cost at least 10 times its training (the lower end of the
#    abstract's band).
# 3. The median ratio of data cost to training cost over our curated set, with the
#    amortised training cost (the method the paper is reported to use), lies in the
#    abstract's band, 10–1000×.
#
# Our own check, not counted in the paper's tally: claim 2 restated as a wage over every
# model of our set — the wage at which writing the data would cost as much as the
# training is below \$1 per hour (check 2w; the \$1 bar is our research brief's).
# ```
#
# ```{important}
# **The models here are our own curated set of 19 LLMs, not the paper's 64-model
# table**, which we could not obtain. Every number in our set comes from a public model
# card, paper or announcement named in `data/11_data_labor_cost/llm_facts.csv` (its
# README describes each column and source). The verdicts below are about our set; they
# test whether the paper's cost argument holds on well-documented models, not whether we
# recover the paper's numbers.
# ```
#
# **What we could and could not confirm.** The paper's full text was not available to us
# offline. Its abstract gives the 10–1000× range and the 64 models. A public copy of its
# introduction states that the cost of training a state-of-the-art LLM doubles every
# nine months. The wage of \$15 per hour and the writing speed of 30 words per minute
# come from a secondary summary of the paper, as does the method for the training cost
# (Cottier et al.'s amortised hardware plus energy). We could not confirm these three
# against Section 3, so the chapter passes each one as an explicit, labelled argument.
# The paper's comparison of dataset costs with its developers' revenue is known to us
# only from an automatically generated summary of the paper; we quote it as such.

# %% tags=["parameters"]
scale = "quick"  # "quick" (seconds) or "full" (more bootstrap resamples, nothing else)
seed = 0

# %%
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.colors import LogNorm
from matplotlib.patches import Patch

from repbook.core import at_least, at_most, color_for, data_file, full_run_lines
from repbook.core import reading_lines, setup, within
from repbook.papers import data_labor_cost

SIZES = {"quick": dict(n_boot=2_000), "full": dict(n_boot=200_000)}
REGIME = "our curated table of 19 documented LLMs (public sources); arithmetic, no "
REGIME += "training"
COLORS = {"data cost": "ours", "rental training cost": "baseline"}
COLORS |= {"amortised training cost": "alt", "Epoch AI estimate": "peer"}
COLORS |= {"V100": "alt2", "A100": "ours", "H100": "baseline"}
run = setup(scale=scale, seed=seed, sizes=SIZES, regime=REGIME, colors=COLORS)
ledger = run.ledger
pd.set_option("display.width", 120)

# %% [markdown]
# ## Our curated set
#
# Nineteen LLMs from 2020 to 2024 whose size, training tokens and hardware are
# published. The frontier flag was fixed before any cost was computed: a model is
# *frontier* when Epoch AI's database ranks it among the ten largest training runs at
# its publication. The hardware class says whose prices stand for the run: the NVIDIA
# GPU the source names, or for TPUs the NVIDIA class of the model's year (V100 up to
# 2020, A100 2021–2023, H100 2024).


# %%
def shipped(name):
    return data_file("11_data_labor_cost", name)


facts = data_labor_cost.read_llm_facts(shipped("llm_facts.csv"))
hardware = data_labor_cost.read_hardware(shipped("hardware.csv"))
epoch = data_labor_cost.read_epoch_costs(shipped("epoch_costs.csv"))
print("\n".join(data_labor_cost.curated_lines(facts, hardware)))

# %% [markdown]
# ## The method
#
# A writer producing $v$ words per minute, paid $w_h$ dollars per hour, writes $D$
# tokens of $\omega$ words each in $D\omega/(60v)$ hours. Renting GPUs of peak rate $P$
# (FLOP/s) at a model-FLOP utilisation $u$ and $p$ dollars per GPU-hour, $C$ training
# FLOPs cost $C/(3600\,P u)\cdot p$:
#
# $$\text{data cost} = \frac{D\,\omega}{60\,v}\,w_h,\qquad
#   \text{training cost} = \frac{C}{3600\,P\,u}\,p = C\cdot c_F ,$$
#
# with $c_F$ the price of one useful FLOP. With the usual estimate $C = 6ND$ for a model
# of $N$ parameters, $D$ cancels from the ratio:
#
# $$\frac{\text{data cost}}{\text{training cost}}
#   = \frac{w_h\,\omega/(60\,v)}{6\,N\,c_F}, \qquad
#   w^{*} = \frac{w_h}{\text{ratio}} = \frac{\text{training cost}}{D\omega/(60v)} .$$
#
# $w^*$ is the *break-even wage*: the hourly pay at which writing the data costs exactly
# the training. This closed form is our derivation, not the paper's. It says that the
# ratio grows as compute gets cheaper, falls as $1/N$, and does not depend on how many
# tokens the model saw. The paper's band of 10–1000 therefore depends on which models
# are chosen (large models have small ratios) and on how the training cost is priced.
#
# **Assumptions**, each an explicit argument: wage \$15/h and 30 words per minute (the
# paper's, via a secondary summary); 0.75 English words per token (a tokenizer rule of
# thumb; ours); $u = 0.375$, the median utilisation of known runs in Epoch AI's cost
# code; AWS on-demand prices per GPU-hour (\$3.06 V100, \$4.10 A100, \$12.29 H100) and
# datasheet peak rates (`hardware.csv`). **Which D:** both costs use the tokens each
# model saw in training. **Which C:** the reported training compute where the source
# gives one (GPT-3, Llama-3.1-405B), else $6ND$.
#
# By hand, for GPT-3 (175B parameters, 300B tokens, $3.14\times10^{23}$ FLOP on V100s):

# %%
words_per_token, wpm, wage, mfu = 0.75, 30.0, 15.0, 0.375
v100 = hardware["V100"]
D, C = 300e9, 3.14e23
writing_hours = D * words_per_token / (wpm * 60)
by_hand_data = writing_hours * wage
by_hand_gpu_hours = C / (v100.peak_flops_per_s * mfu * 3600)
by_hand_train = by_hand_gpu_hours * v100.rental_usd_per_gpu_hour
print(
    f"by hand: {writing_hours:.3g} writing hours → data ${by_hand_data:.4g}; "
    f"{by_hand_gpu_hours:.4g} V100-hours → training ${by_hand_train:.4g}; "
    f"ratio {by_hand_data / by_hand_train:.1f}"
)

# %%
DATA_SIDE = dict(words_per_token=words_per_token, words_per_minute=wpm)
DATA_SIDE |= dict(wage_usd_per_hour=wage)
assumptions = data_labor_cost.Assumptions(
    **DATA_SIDE, mfu=mfu
)  # Epoch's other constants
table = data_labor_cost.cost_table(facts, hardware, assumptions)
g = table.loc["GPT-3 175B"]
print(
    f"lib:     data ${g.data_cost:.4g}; training ${g.rental_cost:.4g}; "
    f"ratio {g.ratio:.1f}"
)

# %% [markdown]
# The tokens cancel: double Llama-2-7B's training tokens and its ratio does not move,
# while the closed form gives the same number without looking at $D$.

# %%
a100 = hardware["A100"]
A100_PRICE = dict(mfu=mfu, usd_per_gpu_hour=a100.rental_usd_per_gpu_hour)
c_flop = data_labor_cost.usd_per_flop(
    peak_flops_per_s=a100.peak_flops_per_s, **A100_PRICE
)
for tokens in (2e12, 4e12):
    data = data_labor_cost.data_cost(tokens, **DATA_SIDE)
    direct = data / (data_labor_cost.training_flops_6nd(7e9, tokens) * c_flop)
    print(f"Llama-2-7B with D = {tokens:.0e} tokens: ratio {direct:.6g}")
closed = data_labor_cost.closed_form_ratio(7e9, usd_per_flop=c_flop, **DATA_SIDE)
print(f"closed form (no D): {closed:.6g}")

# %% [markdown]
# The whole curated set, rental training cost, under these assumptions (dollars):

# %%
print("\n".join(data_labor_cost.table_lines(table)))
gap = data_labor_cost.closed_form_gap(table)

# %%
S1 = "largest relative gap, closed form vs direct"
ledger.sanity(
    "s1",
    "closed form equals the direct ratio on every row with C = 6ND",
    why="D cancels from data cost / (6ND · $/FLOP) by algebra: an identity",
    measured={S1: gap},
    criterion=at_most(S1, 1e-9),
)

# %% [markdown]
# **Is a utilisation of 0.375 plausible for these runs?** Where a source reports the
# GPU-hours, the utilisation the run must have had follows from $C$ (or $6ND$), the
# hours and the peak rate.

# %%
implied = data_labor_cost.implied_mfus(facts, table, hardware, mfu)
print("\n".join(implied.lines()))

# %% [markdown]
# A lower utilisation would make training dearer and every ratio smaller in proportion
# (the ratio is proportional to $u/p$, utilisation over price per GPU-hour).
#
# ## Quoted from the paper · Claim 1, the paper's numbers
#
# The 10–1000× range is the paper's result on its 64 models; we do not have that table
# and do not re-derive it. The nine-month doubling of frontier training costs is stated
# in the paper's introduction; Cottier et al. (2024, arXiv 2405.21015) report that the
# amortised cost of the most compute-intensive runs grew 2.4× per year since 2016, and
# the doubling time that implies is printed below. We quote both.

# %%
ledger.quote(
    "1a",
    "64 LLMs (2016–2024): data would cost 10–1000× the training",
    paper="10–1000×",
    source="abstract",
    note="the paper's 64-model table; not available to us",
)
ledger.quote(
    "1b",
    "frontier LLM training costs double about every 9 months",
    paper="doubling every nine months",
    source="paper",
    note="read in a public copy of the paper's introduction",
)
doubling_months = 12 * np.log(2) / np.log(2.4)
print(f"2.4× per year (Cottier et al.): a doubling every {doubling_months:.1f} months")

# %% [markdown]
# **Can the developers afford their data?** The paper sets its dataset costs against the
# revenue of the companies that built the models. Neither the abstract nor our research
# brief gives that result; an automatically generated summary of the paper (arxivlens)
# says that for 8 of the 10 companies assessed the dataset cost exceeds 10 % of annual
# revenue. We quote it as that summary's, unconfirmed against the paper's text. Our
# shipped tables hold no revenues (and no installed package ships them), so it is not
# tested here.

# %%
ledger.quote(
    "1c",
    "most developers could not afford their data: cost above 10 % of annual revenue",
    paper="8 of 10 companies assessed",
    source="secondary summary",
    note=(
        "an automatically generated summary of the paper (arxivlens.com), not "
        "confirmed against its text; our data hold no revenues, so not tested"
    ),
)

# %% [markdown]
# ## Claim 2 · Every frontier model's data costs at least 10× its training
#
# The frontier models are the largest runs, so by the closed form they have the
# *smallest* ratios: if the claim fails anywhere, it fails there. **Criterion (fixed
# before the run):** on our curated set, with the rental training cost and the paper's
# wage and speed, every one of the frontier models has data cost / training cost ≥ 10,
# the lower end of the abstract's band. An outcome that would fail it: a
# several-hundred-billion-parameter model whose useful FLOPs cost an order of magnitude
# more than A100 rental at a utilisation of 0.375 — old hardware run at a utilisation of
# a few percent, or a price list far above the one we use. Nothing else plausible fails
# it: on our set the criterion tests the *order of magnitude* of the price of compute,
# not the finer shape of the paper's band (the gap is worked out after the verdict).

# %%
frontier = table[table.frontier]
frontier_ratio = frontier.ratio.to_dict()
lowest = frontier.ratio.idxmin()
print(
    f"{len(frontier)} frontier models; data/training from "
    f"{frontier.ratio.min():.0f}× ({lowest}) to {frontier.ratio.max():.0f}× "
    f"({frontier.ratio.idxmax()})"
)

# %% tags=["hide-input"]
fig, axes = plt.subplots(1, 2, figsize=(11, 4.4))
ax = axes[0]
offset = table.groupby("release_year").cumcount()
centre = offset.groupby(table.release_year).transform("mean")
x = table.release_year + (offset - centre) * 0.07
KINDS = [(True, None, "frontier"), (False, "none", "other")]  # filled, hollow
COSTS = [("data_cost", "data cost", "o"), ("rental_cost", "rental training cost", "s")]
for col, label, marker in COSTS:
    for is_frontier, fill, kind in KINDS:
        m, c = table.frontier == is_frontier, color_for(label)
        style = dict(marker=marker, s=36, color=c, facecolors=fill if fill else c)
        ax.scatter(x[m], table.loc[m, col], **style, label=f"{label} ({kind})")
ax.set(yscale="log", xlabel="release year", ylabel="cost (US dollars)")
title = "Our curated set: data (circles) vs training (squares)"
ax.set(xticks=sorted(table.release_year.unique()), title=title)
ax.legend(fontsize=7.5, loc="upper left")
ax = axes[1]
lim = np.array([1e5, 3e9])
floor = max(k for k in (1, 10, 100, 1000) if table.ratio.min() >= k)
for k, ls in [(1, "-"), (10, "--"), (100, "-."), (1000, ":")]:
    style = dict(color=color_for("reference"), ls=ls, lw=1)
    ax.plot(lim, k * lim, **style, label=f"data = {k}× training")
for is_frontier, fill, kind in KINDS:
    m, c = table.frontier == is_frontier, color_for("data cost")
    style = dict(s=36, color=c, facecolors=fill if fill else c, label=kind)
    ax.scatter(table.loc[m, "rental_cost"], table.loc[m, "data_cost"], **style)
for name in [lowest, "Llama-3.1-405B", "LLaMA-7B"]:
    at = (table.loc[name, "rental_cost"], table.loc[name, "data_cost"])
    ax.annotate(name, at, fontsize=7.5, xytext=(4, -10), textcoords="offset points")
ax.set(xscale="log", yscale="log", xlim=lim, ylim=(5e8, 3e11))
ax.set(xlabel="rental training cost (USD)", ylabel="data cost (USD)")
ax.set(title=f"Our curated set: every model above {floor}×")
ax.legend(fontsize=7.5, loc="lower right")
plt.show()

# %%
FRONTIER = "data/training, frontier"
ledger.check(
    "2",
    "every frontier model of our curated set: data cost ≥ 10× training cost",
    paper="10–1000× over 64 LLMs",
    source="abstract",
    evidence="real data",
    measured={FRONTIER: frontier_ratio, "frontier models": len(frontier)},
    criterion=at_least(FRONTIER, 10),
    note=(
        "our curated set, rental training cost; fails only if a useful FLOP costs "
        "about an order of magnitude more than we price it (utilisation or $/GPU-hour)"
    ),
)

# %% [markdown]
# **How far are we from the paper's lowest ratios?** The abstract's band starts at 10×;
# which of its 64 models sit there, and at what price, we could not read (its Figure 1
# and table were not available to us), so "about 10×" is the abstract's lower end, not a
# per-model number we confirmed. The ratio is proportional to $u/p$ (utilisation over
# price per GPU-hour) and to $1/N$, so the factor between our lowest frontier ratio and
# 10 says how much dearer a useful FLOP, or how much larger the model, would have to be.

# %%
PAPER_LOW, PAPER_HIGH = 10, 1000  # the ends of the abstract's band
BAND = (PAPER_LOW, PAPER_HIGH)  # the paper's range over its 64 models (abstract)
gap2 = data_labor_cost.frontier_gap(table, epoch, hardware, assumptions, band=BAND)
print("\n".join(gap2.lines()))

# %% [markdown]
# Epoch AI's estimates are per run (its reported hardware and time), ours use one
# utilisation for all; the line above says how far each pricing leaves the lowest ratio
# from 10×. Where the paper's lowest ratios come from — models, hardware or prices our
# set does not hold — we cannot tell without its table; the check says whether every
# frontier model of ours clears 10×, not where in the band the paper's models fall.
#
# ## Claim 3 · The median ratio is one to three orders of magnitude
#
# **What the abstract bounds.** It says that the dataset costs of its 64 models are
# 10–1000 times their training costs: a band for each model's ratio of data cost to
# training cost, over the paper's set. Our set is not the paper's, so we judge its
# centre: the median must lie in the band (a necessary condition of every model lying in
# it); the share of our models inside the band is shown beside it.
#
# **Criterion** (its band and its cost changed after the results were known; see
# Deviations): the median of data cost / training cost over all 19 models of our curated
# set, with the **amortised** training cost — Cottier et al.'s hardware plus energy, the
# method the paper is reported to use — lies in the paper's band, [10, 1000]. It fails
# if small, heavily over-trained models dominate the set — by the closed form, a 7B
# model on A100 prices sits an order of magnitude above a 70B one — or if the price of a
# useful FLOP (utilisation and dollars per GPU-hour) or the data side (wage, speed,
# words per token) were off from the paper's by a factor of a few; a set of mostly giant
# models on dear hardware would fail it from below. To see how much the median depends
# on *which* models we curated, we resample the 19 rows with replacement (`n_boot`
# times, seeded) and report the share of resampled sets whose median lies in the band,
# and the 90 % interval of the resampled medians; both are shown, the criterion reads
# the median itself. Beside it, not judged: the median with the rental training cost (a
# sensitivity), and with Epoch AI's own published cost estimates for the nine models
# both tables share.

# %%
RESAMPLING = dict(band=BAND, n_boot=run["n_boot"], rng=run.child_rng(0))
med = data_labor_cost.median_summary(table, epoch, **RESAMPLING)
median_amortized, median_ratio = med.amortized, med.rental  # judged; a sensitivity
share_in_band, models_in_band, shared = (
    med.share_in_band,
    med.models_in_band,
    med.shared,
)
print("\n".join(med.lines()))

# %%
Ns = np.logspace(9.5, 12, 50)  # the closed form on each class's rental prices
rental_flop = data_labor_cost.class_usd_per_flop(hardware, assumptions, cost="rental")
closed_lines = {
    cls: data_labor_cost.closed_form_ratio(Ns, usd_per_flop=c, **DATA_SIDE)
    for cls, c in rental_flop.items()
}

# %% tags=["hide-input"]
fig, ax = plt.subplots(figsize=(7.6, 4.6))
for cls in hardware:
    m, c = table.hardware_class == cls, color_for(cls)
    if not m.any():
        continue
    params = table.loc[m, "params"]
    style = dict(color=c, lw=1, ls="--", label=f"closed form, {cls} rental")
    ax.plot(Ns, closed_lines[cls], **style)
    style = dict(color=c, s=36, label=f"{cls} class, rental", zorder=3)
    ax.scatter(params, table.loc[m, "ratio"], **style)
    style = dict(color=c, facecolors="none", marker="D", s=28, zorder=3)
    label = f"{cls} class, amortised"
    ax.scatter(params, table.loc[m, "ratio_amortized"], **style, label=label)
label = "the paper's band 10–1000×"
ax.axhspan(*BAND, color=color_for("muted"), alpha=0.12, label=label)
label = "median (amortised, judged)"
ax.axhline(median_amortized, color=color_for("reference"), lw=1.2, label=label)
style = dict(color=color_for("reference"), lw=1, ls=":", label="median (rental)")
ax.axhline(median_ratio, **style)
ax.set(xscale="log", yscale="log", xlabel="parameters N")
title = "Our curated set: ratio against N (closed-form lines: rental prices)"
ax.set(ylabel="data cost / training cost", title=title)
ax.legend(fontsize=7, ncols=2, loc="lower left")
plt.show()

# %%
MEDIAN = "median data/training, amortised"
ledger.check(
    "3",
    "median data/training over our curated set is 10–1000×",
    paper="10–1000× over its 64 LLMs (each model's data/training)",
    source="abstract",
    evidence="real data",
    measured={
        MEDIAN: median_amortized,
        "resampled sets with median in band": share_in_band,
        "median, rental training cost": median_ratio,
        "share of models in band": models_in_band,
    },
    criterion=within(MEDIAN, *BAND),
    note=(
        "criterion changed after the result; see Deviations. Our curated set, "
        "amortised training cost (the paper's reported method); the abstract bounds "
        "each model's ratio, we judge the median; resampling, rental median and share "
        "in band not judged"
    ),
)


# %%
def reads(value, band):
    return "reproduced" if band[0] <= value <= band[1] else "not reproduced"


where = data_labor_cost.where
print(
    f"Reading: with the amortised cost (judged) the median is {median_amortized:.0f}×, "
    f"{where(median_amortized, BAND)} the band [{BAND[0]}, {BAND[1]}]; the median of "
    f"{share_in_band:.0%} of the resampled sets lies inside it; "
    f"{models_in_band:.0%} of our models lie in the band themselves. With the rental "
    f"cost (not judged) the median is {median_ratio:.0f}×, "
    f"{where(median_ratio, BAND)} the band."
)
OLD_BAND = (30, 3000)  # the first criterion's band (ours; see Deviations)
print(
    "The criterion changed after its results were known (see Deviations): the first "
    f"one, the rental median in [{OLD_BAND[0]}, {OLD_BAND[1]}] (a band of ours), reads "
    f"{reads(median_ratio, OLD_BAND)}; the rental median in the paper's band reads "
    f"{reads(median_ratio, BAND)}; the judged one, the amortised median in the paper's "
    f"band, reads {reads(median_amortized, BAND)}."
)

# %% [markdown]
# How far the judged median misses the band, and what would move it in (every ratio is
# proportional to utilisation / price per GPU-hour, and to wage · words per token over
# speed):

# %%
medians = {"amortised": median_amortized, "rental": median_ratio}
MFU_RANGE = (implied.lo, implied.hi)
flips = data_labor_cost.band_flips(
    facts, hardware, assumptions, table, medians, band=BAND, mfu_range=MFU_RANGE
)
print("\n".join(flips.lines()))

# %%
flip = flips.factor
if flip["amortised"] > 1:
    print(
        f"So the ✗ rests on the choice of training cost and on the utilisation and "
        f"price assumptions: a useful FLOP {flip['amortised']:.2f}× dearer than our "
        f"amortised estimate would put the median in the band"
        + (
            f", {flip['rental']:.2f}× dearer than our rental one"
            if flip["rental"] > 1
            else "; the rental median is already inside it"
        )
        + "; or the data side (wage, speed, words per token) off by the same factor."
    )

# %% [markdown]
# **Why the median lands where it does.** By the closed form the ratio is $K/N$, with
# $K = w_h\omega/(60v)/(6c_F)$ fixed by the wage, the speed and the price of a useful
# FLOP on the model's hardware class. So on each class there is one size $N_{1000}$
# above which a model's ratio is inside the band and below which it is above 1000×; the
# median is above 1000× exactly when more than half of the set is smaller than its
# class's $N_{1000}$. The number of tokens cancels, but over-training still matters: at
# a fixed compute $C = 6ND$ a run that puts $r = D/N$ tokens on each parameter trains a
# model of $N = \sqrt{C/(6r)}$, so its ratio grows as $\sqrt{r}$. As a yardstick for
# "over-trained" we use about 20 tokens per parameter, Hoffmann et al.'s (2022)
# compute-optimal ratio (literature, fixed before we counted).

# %%
CHINCHILLA_TOKENS_PER_PARAM = 20  # Hoffmann et al. 2022, compute-optimal D/N
SIZE = dict(high=BAND[1], tokens_per_param=CHINCHILLA_TOKENS_PER_PARAM)
print("\n".join(data_labor_cost.size_lines(table, hardware, assumptions, **SIZE)))

# %% [markdown]
# **Is it only the models we chose?** If the median missed the band because our set
# holds more small, over-trained models than the paper's list of notable runs, the
# notable (frontier) runs alone should sit inside it. The counts below — added after the
# verdict, not judged — price the frontier runs three ways: our amortised cost (the
# judged one), our rental cost, and Epoch AI's own hardware-plus-energy estimates
# (`epoch_costs.csv`) for the frontier models it prices.

# %%
pricing = data_labor_cost.frontier_pricing(table, shared, band=BAND)
print("\n".join(pricing.lines()))

# %%
over_half = pricing.over_half
print(
    "Reading: "
    + (
        f"with {' and with '.join(over_half)}, most frontier runs — the notable runs a "
        "list like the paper's is made of — also lie above the band's upper end, so "
        "the miss is not only a matter of which models we curated. The gap lies in the "
        f"cost arithmetic or its inputs — the wage of {wage:g} USD/h and the speed of "
        f"{wpm:g} words per minute (both unconfirmed against the paper's text), our "
        f"{words_per_token} words per token, the training cost's utilisation and "
        "prices — or the abstract's band is an approximate one, as well as in the "
        "selection."
        if over_half
        else "under no pricing do most frontier runs lie above the band's upper end; "
        "the miss comes from the small models of our selection."
    )
)

# %% [markdown]
# ## Our check 2w · Even a token wage would buy less data than the training costs
#
# *Ours, not the paper's claim.* This restates claim 2 as a wage, over every model
# rather than the frontier ones: since $w^* = w_h/\text{ratio}$, a break-even wage below
# \$1 per hour is the same as a ratio above 15 at \$15/h. The \$1 bar is our research
# brief's.
# **Criterion (fixed before the run):** for every model of our curated set, the
# break-even wage $w^* = \text{training cost}/\text{writing hours}$ (rental training
# cost, 30 words per minute) is below \$1 per hour. Like claim 2 it fails only through
# an order-of-magnitude error in the price of compute: by the closed form, a dense model
# of several trillion parameters at these prices, or a frontier-sized model on compute
# more than ten times dearer per useful FLOP.

# %%
wage_star = table.break_even_wage.sort_values()
print(
    f"break-even wage: median ${wage_star.median():.4f}/h, highest "
    f"${wage_star.max():.3f}/h ({wage_star.idxmax()}), lowest "
    f"${wage_star.min():.5f}/h ({wage_star.idxmin()})"
)
at_minimum_wage = 7.25 / wage_star  # data cost / training cost at 7.25 USD per hour
print(
    f"at the US federal minimum wage (7.25 USD/h) data/training would range from "
    f"{at_minimum_wage.min():.0f}× ({at_minimum_wage.idxmin()}) to "
    f"{at_minimum_wage.max():.0f}×"
)

# %% tags=["hide-input"]
fig, ax = plt.subplots(figsize=(7.6, 5.4))
colors = [color_for(table.loc[m, "hardware_class"]) for m in wage_star.index]
ax.barh(wage_star.index, wage_star.values, color=colors)
handles = [  # bar colour: the hardware class whose prices apply
    Patch(color=color_for(hw), label=f"{hw}-class prices")
    for hw in ("V100", "A100", "H100")
]
for value, label, ls in [
    (1.0, "criterion: 1 USD/h", "--"),
    (7.25, "US federal minimum wage, 7.25 USD/h", ":"),
    (15.0, "paper's wage, 15 USD/h", "-"),
]:
    ax.axvline(value, color=color_for("reference"), ls=ls, lw=1.2, label=label)
xlabel = "break-even wage (US dollars per hour, log scale)"
title = "Our curated set: wage at which data = training cost"
ax.set(xscale="log", xlabel=xlabel, title=title)
ax.tick_params(axis="y", labelsize=8)
handles = ax.get_legend_handles_labels()[0] + handles
ax.legend(handles=handles, fontsize=8, loc="lower right")
plt.show()

# %%
WAGE = "break-even wage, USD/h"
ledger.ours(
    "2w",
    "every model of our curated set: break-even wage below 1 USD/h",
    why=(
        "claim 2 restated as a wage over every model (w* = wage / ratio, so w* < 1 "
        "USD/h means ratio > 15 at 15 USD/h); the 1 USD/h bar is our research brief's"
    ),
    evidence="real data",
    measured={WAGE: wage_star.to_dict()},
    criterion=at_most(WAGE, 1.0, strict=True),
    note="our curated set, rental training cost, 30 words/min",
)

# %%
print(
    f"highest break-even wage {wage_star.max():.3f} USD/h ({wage_star.idxmax()}), "
    f"{1.0 / wage_star.max():.0f}× below the 1 USD/h bar"
)

# %% [markdown]
# Put the other way round, the second line printed under the criterion gives what the
# data would cost, as a multiple of the training, if the writers were paid the US
# federal minimum wage (\$7.25 per hour under the Fair Labor Standards Act, U.S.
# Department of Labor) instead of \$15.
#
# ## Shown, not judged: wage, speed and how training is priced
#
# The ratio is proportional to wage / speed, so the heatmap below is claim 3's judged
# median (amortised cost) rescaled — but it shows at a glance which assumptions would
# move our curated set's median into or out of the paper's band. Beside it, our
# amortised training cost against Epoch AI's own published estimate for the same models
# (`epoch_costs.csv`, a peer estimate computed with their code and their per-run
# hardware data).

# %%
wages, speeds = [2.0, 7.25, 15.0, 30.0], [10.0, 30.0, 60.0]
SWEEP = dict(wages=wages, speeds=speeds, cost="amortized")
grid = data_labor_cost.median_ratio_grid(facts, hardware, assumptions, **SWEEP)
rows, cols = [f"${w}/h" for w in wages], [f"{v:g} wpm" for v in speeds]
print("median data/training over our curated set (amortised, as claim 3 judges):")
print(
    pd.DataFrame(grid, index=rows, columns=cols).to_string(float_format="{:.0f}".format)
)
peer = data_labor_cost.peer_table(shared)
print("\n".join(data_labor_cost.peer_lines(peer, table)))

# %% tags=["hide-input"]
fig, axes = plt.subplots(
    1, 2, figsize=(11, 4.2), gridspec_kw=dict(width_ratios=[1, 1.1])
)
ax = axes[0]
im = ax.imshow(grid, norm=LogNorm(vmin=10, vmax=1e5), cmap="viridis", aspect="auto")
for i in range(len(wages)):
    for j in range(len(speeds)):
        color = "white" if grid[i, j] < 3000 else "black"
        style = dict(ha="center", va="center", fontsize=9, color=color)
        ax.text(j, i, f"{grid[i, j]:.0f}", **style)
ax.set(xticks=range(len(speeds)), xticklabels=[f"{v:g}" for v in speeds])
ax.set(yticks=range(len(wages)), yticklabels=[f"${w:g}" for w in wages])
ax.set(xlabel="writing speed (words per minute)", ylabel="wage (US dollars per hour)")
ax.set(title="Our curated set: median ratio (amortised) by wage, speed")
ax.grid(False)
fig.colorbar(im, ax=ax, label="median ratio (amortised)")
ax = axes[1]
lim = np.array([1e5, 1e9])
ax.plot(lim, lim, color=color_for("reference"), lw=1, label="equal")
ax.plot(lim, 3 * lim, color=color_for("reference"), lw=1, ls=":", label="×3 and ÷3")
ax.plot(lim, lim / 3, color=color_for("reference"), lw=1, ls=":")
style = dict(s=36, color=color_for("amortised training cost"))
label = "amortised: ours vs Epoch"
ax.scatter(
    peer["Epoch, hardware+energy"], peer["ours, amortised"], **style, label=label
)
style = dict(s=36, marker="s", color=color_for("rental training cost"))
label = "rental: ours vs Epoch cloud"
ax.scatter(peer["Epoch, cloud"], peer["ours, rental"], **style, label=label)
ax.set(xscale="log", yscale="log", xlim=lim, ylim=lim)
ax.set(xlabel="Epoch AI's estimate (USD)", ylabel="our estimate (USD)")
ax.set(title=f"Training cost: ours vs Epoch AI ({len(peer)} shared models)")
ax.legend(fontsize=8, loc="upper left")
plt.show()

# %% [markdown]
# Halving the wage or doubling the speed halves every ratio, so the paper's choice of a
# low wage and a fast writer is what keeps its estimates conservative. The printout
# gives the factors between our two training costs and Epoch AI's estimates for the same
# runs (Epoch uses each run's reported hardware count and time where it has them, we use
# one utilisation for all), and between renting and owning: with the amortised cost —
# the method the paper is reported to use, and the one claim 3 judges — every ratio is
# larger by the rental/amortised factor of its model.
#
# ## Verdicts

# %% tags=["nbval-check-output"]
ledger.show()

# %% tags=["nbval-ignore-output"]
print(run.time_line())

# %% [markdown]
# **Reading the verdicts.** The sentences below are generated from this run's ledger and
# from the committed records (quick scale): the stability record
# (`data/stability/11_data_labor_cost.json`; the *seeds* column above; a claim changed
# since it was made is named) and the numerics record (verdicts that move under other
# kernels and thread counts). The only random step is the resampling of claim 3, which is
# shown and not judged.

# %%
print("\n".join(reading_lines(ledger)))

# %% [markdown]
# ## Deviations from the paper
#
# - **The verdict audit of issue 34, resolved here** (criteria changed after their
#   results were known; old → new, with the reason):
#   - *Claim 3, its band.* Before: the median in [30, 3000], a band of our own (the
#     research brief's), read reproduced. Now: the abstract's own band, [10, 1000],
#     which the claim's paper field already named; a claim is judged against the paper's
#     bound. The abstract bounds each model's ratio over its 64 models; we still judge
#     the median of ours (a necessary condition of every model lying in the band) and
#     show the share of our models inside it. The result under the new band was known
#     (from the audit) before the change.
#   - *Claim 3, its training cost.* Before: the rental cost. Now: the amortised
#     hardware-plus-energy cost, the method (Cottier et al.) the paper is reported to
#     use, so that the claim is judged with the paper's method; the rental median is
#     shown as a sensitivity. Changed after both results were known (from the audit):
#     each misses the band, so the verdict is ✗ either way; both medians, and what each
#     criterion gives, are printed under the claim. The resampling, the share in band,
#     the $N_{1000}$ explanation and the sensitivity heatmap follow the judged cost.
#   - *Claim 3, its reading.* The earlier text laid the ✗ on our curation alone, against
#     the chapter's own numbers: priced by our amortised cost or by Epoch AI's own
#     estimates, most frontier runs also exceed 1000×. The counts are now printed under
#     the claim (a diagnostic added after the result, not judged), with how far the
#     median misses the band and the utilisation, price, wage, speed and words per token
#     at which it would reach it; the reading, generated from them, places the gap in
#     the cost arithmetic or its inputs, or in an approximate band, as well as in the
#     selection.
#   - *Claim 2.* Unchanged criterion (every frontier ratio ≥ 10, the lower end of the
#     abstract's band, rental cost: the dearer of our two on every model, so the harder
#     test of a lower bound). The audit noted that on our set it can fail only through
#     an order-of-magnitude error in the price of compute; the claim's note now says so,
#     the gap to the paper's lower end (10×; the abstract's number, the per-model
#     minimum of the paper's figure unconfirmed) is worked out, computed, after the
#     verdict, and a computed line says that the band's upper end is not judged there
#     and how many frontier models exceed it.
#   - *Claim 4 → our check 2w.* Before: a paper claim (source "abstract"), reproduced.
#     It restates claim 2 as a wage ($w^* = w_h/\text{ratio}$), and its \$1/h bar is the
#     research brief's, not the paper's: it is now our own check, outside the paper's
#     tally.
#   - *Claim 1c, new quote.* The paper's affordability result (dataset cost against its
#     developers' revenue) is quoted from a generated secondary summary, unconfirmed;
#     our data hold no revenues, so it is not tested.
#   - *New sanity check s1.* The closed form's agreement with the direct ratio, printed
#     before, is recorded as a sanity check (true by algebra), not as a result.
# - **Data: our curated set, not the paper's.** The paper's 64-model table (probably
#   drawn from Epoch AI's database) was not available offline. We curated 19 LLMs from
#   model cards, papers and announcements, one source per row, and left out models whose
#   token count or compute has no clean source (OPT-175B, Mistral-7B, mixture-of-experts
#   and code models; see the data README). Our set holds small, over-trained models that
#   raise the median ratio (claim 3 counts them), but the selection is not the only
#   cause: claim 3 prints how many frontier runs alone exceed 1000× under each pricing.
#   The verdicts of claims 2 and 3 and of check 2w are about our set.
# - **Training cost.** The paper is reported to use Cottier et al.'s amortised
#   hardware-plus-energy cost; claim 3 is judged with ours, built from Epoch's constants
#   and hardware prices at one utilisation, 0.375, and compared with Epoch's published
#   per-model estimates. Claim 2 and check 2w use a rental price (AWS on-demand list
#   prices, one vendor for all three GPU classes) at the same utilisation; the last
#   section prints which of the two is the dearer on every model (the dearer one is the
#   harder test for their lower bounds). Prices are not adjusted for inflation; Epoch's
#   estimates are (June 2025 dollars).
# - **Hardware of its year.** TPU-trained models (Gopher, Chinchilla, PaLM) are priced
#   as A100s, the NVIDIA class of their year; OLMo-7B, trained on AMD MI250X and NVIDIA
#   A100, as A100.
# - **Which D.** Both costs use the tokens seen in training. Only Pythia-12B (deduped)
#   has a source for its distinct tokens (207B of the 300B it saw); pricing only
#   distinct tokens would lower its data cost by that factor.
# - **What we could not confirm from the paper.** Its Section 3 (wage \$15/h, 30 words
#   per minute, the training-cost method) was known to us only through a secondary
#   summary; 0.75 words per token is our choice. The "doubling every nine months" is
#   quoted from a public copy of the introduction. Claim 1 is therefore quoted, not
#   re-derived.
# - **Closed form.** The ratio's independence of $D$ and its $1/N$ fall are our
#   derivation; a unit test and sanity check s1 hold the closed form to the direct ratio
#   at a relative tolerance of $10^{-9}$.
# - **Stability across seeds.** The only random step is the resampling of claim 3,
#   shown but not judged, so no judged value depends on the seed by construction; the
#   stability line under the verdict table is generated from the committed record.
# - **Code.** The readings of the cost table that the chapter prints (the curated set, the
#   implied utilisations, the gap to the paper's lower end, the median and its
#   resampling, what would move a median into the band, model size and over-training,
#   the frontier runs under each pricing, our costs against Epoch AI's) are functions of
#   `repbook.papers.data_labor_cost.protocol`, unit-tested; the module became a package
#   (`costs`, `tables`, `analysis`, `protocol`) for issue 37. No number changed.
#
# ## Run it at full scale
#
# ```bash
# .venv/bin/python -m repbook full 11   # runs it and records it in data/full_runs/
# ```
# Full scale draws 200,000 bootstrap resamples instead of 2,000; every cost and verdict
# is the same by construction (the resampling is shown, not judged), and no GPU is
# needed. The line below is generated from the committed record
# (`data/full_runs/11_data_labor_cost.json`): when and how long it ran, each claim's
# verdict and margin there, and the claims whose verdict differs from this run's.

# %%
print("\n".join(full_run_lines(ledger)))
