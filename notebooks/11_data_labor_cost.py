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
#    would cost 10–1000 times as much as training the model (abstract); and the cost of
#    training a frontier model doubles about every nine months (introduction).
# 2. On **our curated set**, under the paper's wage and writing speed, the data of every
#    frontier model would cost at least 10 times its training.
# 3. The median ratio of data cost to training cost over our curated set lies in the
#    paper's band, 10–1000×.
# 4. The data would cost more than the training even at a token wage: for every model of
#    our curated set, the wage at which writing the data costs as much as the training
#    is below \$1 per hour.
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

# %% tags=["parameters"]
scale = "quick"  # "quick" (seconds) or "full" (more bootstrap resamples, nothing else)
seed = 0

# %%
import numpy as np
import pandas as pd
import matplotlib.pyplot as plt
from matplotlib.colors import LogNorm

from repbook.core import (
    Ledger,
    setup,
    use_style,
    color_for,
    register_colors,
    data_file,
    at_least,
    at_most,
    within,
)
from repbook.papers import data_labor_cost as L

SIZES = {"quick": dict(n_boot=2_000), "full": dict(n_boot=200_000)}
run = setup(scale=scale, seed=seed, sizes=SIZES)
ledger = Ledger.for_run(
    run,
    regime=(
        "our curated table of 19 documented LLMs (public sources); arithmetic, no "
        "training"
    ),
)
use_style()
register_colors(
    {
        "data cost": "ours",
        "rental training cost": "baseline",
        "amortised training cost": "alt",
        "Epoch AI estimate": "peer",
        "V100": "alt2",
        "A100": "ours",
        "H100": "baseline",
    }
)
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
facts = L.read_llm_facts(data_file("11_data_labor_cost", "llm_facts.csv"))
hardware = L.read_hardware(data_file("11_data_labor_cost", "hardware.csv"))
epoch = L.read_epoch_costs(data_file("11_data_labor_cost", "epoch_costs.csv"))
curated = pd.DataFrame(
    [
        dict(
            model=f.model,
            year=f.release_year,
            N=f.params,
            D_seen=f.tokens_seen,
            C_reported=f.train_flops_reported,
            hardware=f.hardware_class,
            frontier=f.frontier,
        )
        for f in facts
    ]
).set_index("model")
print(
    f"Our curated set (not the paper's table): {len(curated)} models, "
    f"{int(curated.frontier.sum())} frontier\n"
)
sci = "{:.3g}".format
print(
    curated.to_string(
        formatters={
            "N": sci,
            "D_seen": sci,
            "C_reported": lambda c: "" if pd.isna(c) else sci(c),
        }
    )
)
print("\nhardware classes:")
print(
    pd.DataFrame([vars(h) for h in hardware.values()])
    .set_index("hardware_class")
    .to_string(float_format="{:.4g}".format)
)

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

assumptions = L.Assumptions(
    wage_usd_per_hour=wage,
    words_per_minute=wpm,
    words_per_token=words_per_token,
    mfu=mfu,
    pue=L.EPOCH_PUE,
    tdp_fraction=L.EPOCH_TDP_FRACTION,
    interconnect_fraction=L.EPOCH_INTERCONNECT_FRACTION,
    progress_ooms_per_year=L.EPOCH_PROGRESS_OOMS_PER_YEAR,
)
table = L.cost_table(facts, hardware, assumptions)
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
c_flop = L.usd_per_flop(
    peak_flops_per_s=a100.peak_flops_per_s,
    mfu=mfu,
    usd_per_gpu_hour=a100.rental_usd_per_gpu_hour,
)
for tokens in (2e12, 4e12):
    data = L.data_cost(
        tokens,
        words_per_token=words_per_token,
        words_per_minute=wpm,
        wage_usd_per_hour=wage,
    )
    direct = data / (L.training_flops_6nd(7e9, tokens) * c_flop)
    print(f"Llama-2-7B with D = {tokens:.0e} tokens: ratio {direct:.6g}")
closed = L.closed_form_ratio(
    7e9,
    usd_per_flop=c_flop,
    words_per_minute=wpm,
    words_per_token=words_per_token,
    wage_usd_per_hour=wage,
)
print(f"closed form (no D): {closed:.6g}")

# %% [markdown]
# The whole curated set, rental training cost, under these assumptions (dollars):

# %%
show = table[
    [
        "release_year",
        "hardware_class",
        "frontier",
        "flops_source",
        "data_cost",
        "rental_cost",
        "amortized_cost",
        "ratio",
        "break_even_wage",
    ]
]
print("Our curated set (not the paper's table), costs in US dollars:\n")
print(show.to_string(float_format="{:.3g}".format))
six = table[table.flops_source == "6ND"]
gap = np.max(np.abs(six.closed_form_ratio / six.ratio - 1))
print(
    f"\nlargest |closed form − direct| / direct over the {len(six)} rows with "
    f"C = 6ND: {'below 1e-12' if gap < 1e-12 else f'{gap:.1e}'}"
)
for name, row in table[table.flops_source == "reported"].iterrows():
    print(
        f"{name}: reported C, ratio {row.ratio:.1f}; closed form with 6ND "
        f"{row.closed_form_ratio:.1f} ({row.closed_form_ratio / row.ratio - 1:+.1%})"
    )

# %% [markdown]
# **Is a utilisation of 0.375 plausible for these runs?** Where a source reports the
# GPU-hours, the utilisation the run must have had follows from $C$ (or $6ND$), the
# hours and the peak rate.

# %%
mfu_rows = [
    dict(
        model=f.model,
        gpu_hours=f.gpu_hours_reported,
        implied_mfu=L.implied_mfu(
            table.loc[f.model, "flops"],
            f.gpu_hours_reported,
            peak_flops_per_s=hardware[f.hardware_class].peak_flops_per_s,
        ),
    )
    for f in facts
    if f.gpu_hours_reported is not None
]
mfu_df = pd.DataFrame(mfu_rows).set_index("model")
print(
    mfu_df.to_string(
        formatters={"gpu_hours": "{:,.0f}".format, "implied_mfu": "{:.3f}".format}
    )
)
print(
    f"\nimplied utilisation: median {mfu_df.implied_mfu.median():.3f}, range "
    f"{mfu_df.implied_mfu.min():.3f}–{mfu_df.implied_mfu.max():.3f} (assumed: {mfu})"
)

# %% [markdown]
# The assumed 0.375 lies inside the range the published GPU-hours imply (printed above),
# so the rental costs are of the right size for these runs. A lower utilisation would
# make training dearer and every ratio smaller in proportion.
#
# ## Claim 1 · The paper's numbers (quoted)
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
# ## Claim 2 · Every frontier model's data costs at least 10× its training
#
# The frontier models are the largest runs, so by the closed form they have the
# *smallest* ratios: if the claim fails anywhere, it fails there. **Criterion (fixed
# before the run):** on our curated set, with the rental training cost and the paper's
# wage and speed, every one of the frontier models has data cost / training cost ≥ 10.
# An outcome that would fail it: a several-hundred-billion-parameter model whose useful
# FLOPs cost an order of magnitude more than A100 rental at a utilisation of 0.375 — old
# hardware run at a utilisation of a few percent, or a price list far above the one we
# use.

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
for col, label, marker in [
    ("data_cost", "data cost", "o"),
    ("rental_cost", "rental training cost", "s"),
]:
    for is_frontier, fill in [(True, None), (False, "none")]:
        m = table.frontier == is_frontier
        ax.scatter(
            x[m],
            table.loc[m, col],
            marker=marker,
            s=36,
            color=color_for(label),
            facecolors=fill if fill else color_for(label),
            label=f"{label} ({'frontier' if is_frontier else 'other'})",
        )
ax.set(
    yscale="log",
    xlabel="release year",
    ylabel="cost (US dollars)",
    xticks=sorted(table.release_year.unique()),
    title="Our curated set: data (circles) vs training (squares)",
)
ax.legend(fontsize=7.5, loc="upper left")
ax = axes[1]
lim = np.array([1e5, 3e9])
floor = max(k for k in (1, 10, 100, 1000) if table.ratio.min() >= k)
for k, ls in [(1, "-"), (10, "--"), (100, "-."), (1000, ":")]:
    ax.plot(
        lim,
        k * lim,
        color=color_for("reference"),
        ls=ls,
        lw=1,
        label=f"data = {k}× training",
    )
for is_frontier, fill in [(True, None), (False, "none")]:
    m = table.frontier == is_frontier
    ax.scatter(
        table.loc[m, "rental_cost"],
        table.loc[m, "data_cost"],
        s=36,
        color=color_for("data cost"),
        facecolors=fill if fill else color_for("data cost"),
        label="frontier" if is_frontier else "other",
    )
for name in [lowest, "Llama-3.1-405B", "LLaMA-7B"]:
    ax.annotate(
        name,
        (table.loc[name, "rental_cost"], table.loc[name, "data_cost"]),
        fontsize=7.5,
        xytext=(4, -10),
        textcoords="offset points",
    )
ax.set(
    xscale="log",
    yscale="log",
    xlim=lim,
    ylim=(5e8, 3e11),
    xlabel="rental training cost (USD)",
    ylabel="data cost (USD)",
    title=f"Our curated set: every model above {floor}×",
)
ax.legend(fontsize=7.5, loc="lower right")
plt.show()

# %%
ledger.check(
    "2",
    "every frontier model of our curated set: data cost ≥ 10× training cost",
    paper="10–1000× over 64 LLMs",
    source="abstract",
    evidence="real data",
    measured={
        "data/training, frontier": frontier_ratio,
        "frontier models": len(frontier),
    },
    criterion=at_least("data/training, frontier", 10),
    note="our curated set, rental training cost",
)
# %% [markdown]
# The right panel's title names the highest guide line that every model clears; the
# frontier models sit closest to it, and the smallest ratio printed above belongs to the
# largest model priced on A100-class rental.
#
# ## Claim 3 · The median ratio is one to three orders of magnitude
#
# **Criterion:** the median of data cost / training cost over all 19 models of our
# curated set (rental training cost) lies in the paper's band, [10, 1000]. It fails if
# small, heavily over-trained models dominate the set — by the closed form, a 7B model
# on A100 prices sits an order of magnitude above a 70B one — or if the set were mostly
# giant models on dear hardware (median below 10). To see how much the median depends on
# *which* models we curated, we resample the 19 rows with replacement (`n_boot` times,
# seeded) and report the share of resampled sets whose median lies in the band, and the
# 90 % interval of the resampled medians; both are shown, the criterion reads the median
# itself. Beside it, not judged: the median with the
# amortised training cost, and with Epoch AI's own published cost estimates for the nine
# models both tables share.

# %%
BAND = (10, 1000)  # the paper's range over its 64 models (abstract)
median_ratio = float(table.ratio.median())
resampled = L.bootstrap_medians(
    table.ratio.to_numpy(), n_boot=run["n_boot"], rng=run.child_rng(0)
)
share_in_band = float(np.mean((resampled >= BAND[0]) & (resampled <= BAND[1])))
boot_lo, boot_hi = np.quantile(resampled, [0.05, 0.95])
median_amortized = float(table.ratio_amortized.median())
shared = table.join(epoch, how="inner")
epoch_ratio = shared.data_cost / shared.epoch_capex_energy_usd
print(f"median data/training over {len(table)} models: {median_ratio:.0f}× (rental)")
print(
    f"{len(resampled):,} resampled sets: median in [{BAND[0]}, {BAND[1]}] for "
    f"{share_in_band:.1%}; 90 % of the resampled medians in "
    f"{boot_lo:.0f}–{boot_hi:.0f}"
)
print(
    f"the {len(table)} ratios, sorted: "
    + ", ".join(f"{r:.0f}" for r in np.sort(table.ratio))
)
print(f"with the amortised training cost: median {median_amortized:.0f}×")
print(
    f"the {len(shared)} models Epoch AI prices itself: median "
    f"{shared.ratio.median():.0f}× with our rental cost, "
    f"{epoch_ratio.median():.0f}× with Epoch's hardware+energy estimate"
)
print(
    f"models above 1000× (rental): {int((table.ratio > 1000).sum())} of {len(table)};"
    f" above 3000×: {int((table.ratio > 3000).sum())}"
)

# %% tags=["hide-input"]
fig, ax = plt.subplots(figsize=(7.6, 4.6))
Ns = np.logspace(9.5, 12, 50)
for cls, hw in hardware.items():
    m = table.hardware_class == cls
    if not m.any():
        continue
    cf = L.usd_per_flop(
        peak_flops_per_s=hw.peak_flops_per_s,
        mfu=mfu,
        usd_per_gpu_hour=hw.rental_usd_per_gpu_hour,
    )
    line = L.closed_form_ratio(
        Ns,
        usd_per_flop=cf,
        words_per_token=words_per_token,
        words_per_minute=wpm,
        wage_usd_per_hour=wage,
    )
    ax.plot(
        Ns,
        line,
        color=color_for(cls),
        lw=1,
        ls="--",
        label=f"closed form, {cls} rental",
    )
    ax.scatter(
        table.loc[m, "params"],
        table.loc[m, "ratio"],
        color=color_for(cls),
        s=36,
        label=f"{cls} class, rental",
        zorder=3,
    )
    ax.scatter(
        table.loc[m, "params"],
        table.loc[m, "ratio_amortized"],
        color=color_for(cls),
        facecolors="none",
        marker="D",
        s=28,
        label=f"{cls} class, amortised",
        zorder=3,
    )
ax.axhspan(
    *BAND, color=color_for("muted"), alpha=0.12, label="the paper's band 10–1000×"
)
ax.axhline(median_ratio, color=color_for("reference"), lw=1.2, label="median (rental)")
ax.set(
    xscale="log",
    yscale="log",
    xlabel="parameters N",
    ylabel="data cost / training cost",
    title="Our curated set: the ratio falls as 1/N, whatever D",
)
ax.legend(fontsize=7, ncols=2, loc="upper right")
plt.show()

# %%
ledger.check(
    "3",
    "median data/training over our curated set is 10–1000×",
    paper="10–1000× (1–3 orders of magnitude)",
    source="abstract",
    evidence="real data",
    measured={
        "median data/training": median_ratio,
        "resampled sets with median in band": share_in_band,
        "median, amortised training cost": median_amortized,
    },
    criterion=within("median data/training", *BAND),
    note="our curated set, rental training cost; resampling not judged",
)
# %%
inside = BAND[0] <= median_ratio <= BAND[1]
where_am = "inside" if BAND[0] <= median_amortized <= BAND[1] else "outside"
print(
    f"Reading: on rental prices the median is {median_ratio:.0f}×, "
    f"{'inside' if inside else 'outside'} the band [{BAND[0]}, {BAND[1]}]; the median "
    f"of {share_in_band:.0%} of the resampled sets lies inside it; the amortised cost "
    f"moves the median to {median_amortized:.0f}×, {where_am} the band."
)

# %% [markdown]
# The points lie on their class's closed-form line (the two rows with reported $C$ sit
# on it within a percent): the ratio is set by $N$ and the price of compute, not by how
# long a model was trained. Small over-trained models — Llama-2-7B, OLMo-7B,
# Llama-3.1-8B — are far above the paper's 1000×, the frontier models lowest (claim 2
# printed their range). The verdict on the median therefore says as much about our
# choice of models and prices as about the paper's claim.
#
# ## Claim 4 · Even a token wage would buy less data than the training costs
#
# **Criterion (fixed before the run):** for every model of our curated set, the
# break-even wage $w^* = \text{training cost}/\text{writing hours}$ (rental training
# cost, 30 words per minute) is below \$1 per hour. Since $w^* = w_h/\text{ratio}$, it
# fails for any model whose ratio at \$15/h is below 15: by the closed form, a dense
# model of several trillion parameters at these prices, or a frontier-sized model on
# compute more than ten times dearer per useful FLOP.

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
for hw in ("V100", "A100", "H100"):  # bar colour: the hardware class whose prices apply
    ax.barh([], [], color=color_for(hw), label=f"{hw}-class prices")
for value, label, ls in [
    (1.0, "criterion: 1 USD/h", "--"),
    (7.25, "US federal minimum wage, 7.25 USD/h", ":"),
    (15.0, "paper's wage, 15 USD/h", "-"),
]:
    ax.axvline(value, color=color_for("reference"), ls=ls, lw=1.2, label=label)
ax.set(
    xscale="log",
    xlabel="break-even wage (US dollars per hour, log scale)",
    title="Our curated set: wage at which data = training cost",
)
ax.tick_params(axis="y", labelsize=8)
ax.legend(fontsize=8, loc="lower right")
plt.show()

# %%
ledger.check(
    "4",
    "every model of our curated set: break-even wage below 1 USD/h",
    paper="data costs exceed training even at conservative wages",
    source="abstract",
    evidence="real data",
    measured={"break-even wage, USD/h": wage_star.to_dict()},
    criterion=at_most("break-even wage, USD/h", 1.0, strict=True),
    note="our curated set, rental training cost, 30 words/min",
)
# %% [markdown]
# Every bar ends far left of the \$1 line (the largest is printed above). Put the other
# way round, the second line printed above gives what the data would cost, as a
# multiple of the training, if the writers were paid the US federal minimum wage
# (\$7.25 per hour under the Fair Labor Standards Act, U.S. Department of Labor) instead
# of \$15.
#
# ## Shown, not judged: wage, speed and how training is priced
#
# The ratio is proportional to wage / speed, so the heatmap below is the median of claim
# 3 rescaled — but it shows at a glance which assumptions would move our curated set's
# median into or out of the paper's band. Beside it, our amortised training cost against
# Epoch AI's own published estimate for the same models (`epoch_costs.csv`, a peer
# estimate computed with their code and their per-run hardware data).

# %%
wages, speeds = [2.0, 7.25, 15.0, 30.0], [10.0, 30.0, 60.0]
grid = np.array(
    [
        [
            float(
                L.cost_table(
                    facts,
                    hardware,
                    L.Assumptions(
                        wage_usd_per_hour=w,
                        words_per_minute=v,
                        words_per_token=words_per_token,
                        mfu=mfu,
                    ),
                ).ratio.median()
            )
            for v in speeds
        ]
        for w in wages
    ]
)
heat = pd.DataFrame(
    grid, index=[f"${w}/h" for w in wages], columns=[f"{v:g} wpm" for v in speeds]
)
print("median data/training over our curated set (rental):")
print(heat.to_string(float_format="{:.0f}".format))
peer = pd.DataFrame(
    {
        "ours, amortised": shared.amortized_cost,
        "Epoch, hardware+energy": shared.epoch_capex_energy_usd,
        "ours, rental": shared.rental_cost,
        "Epoch, cloud": shared.epoch_cloud_usd,
    }
)
peer["amortised ours/Epoch"] = peer["ours, amortised"] / peer["Epoch, hardware+energy"]
peer["rental ours/Epoch"] = peer["ours, rental"] / peer["Epoch, cloud"]
print("\ntraining cost of the models Epoch AI also prices (US dollars):")
print(peer.to_string(float_format="{:.3g}".format))
am, rent = peer["amortised ours/Epoch"], peer["rental ours/Epoch"]
print(
    f"\nours / Epoch: amortised median {am.median():.2f} (range {am.min():.2f}–"
    f"{am.max():.2f}); rental median {rent.median():.2f} (range {rent.min():.2f}–"
    f"{rent.max():.2f})"
)
own = table.rental_cost / table.amortized_cost
print(f"rental / amortised (ours), every model: {own.min():.1f}–{own.max():.1f}×")

# %% tags=["hide-input"]
fig, axes = plt.subplots(
    1, 2, figsize=(11, 4.2), gridspec_kw=dict(width_ratios=[1, 1.1])
)
ax = axes[0]
im = ax.imshow(grid, norm=LogNorm(vmin=10, vmax=1e5), cmap="viridis", aspect="auto")
for i in range(len(wages)):
    for j in range(len(speeds)):
        ax.text(
            j,
            i,
            f"{grid[i, j]:.0f}",
            ha="center",
            va="center",
            fontsize=9,
            color="white" if grid[i, j] < 3000 else "black",
        )
ax.set(
    xticks=range(len(speeds)),
    xticklabels=[f"{v:g}" for v in speeds],
    yticks=range(len(wages)),
    yticklabels=[f"${w:g}" for w in wages],
    xlabel="writing speed (words per minute)",
    ylabel="wage (US dollars per hour)",
    title="Our curated set: median ratio by wage, speed",
)
ax.grid(False)
fig.colorbar(im, ax=ax, label="median ratio (rental)")
ax = axes[1]
lim = np.array([1e5, 1e9])
ax.plot(lim, lim, color=color_for("reference"), lw=1, label="equal")
ax.plot(lim, 3 * lim, color=color_for("reference"), lw=1, ls=":", label="×3 and ÷3")
ax.plot(lim, lim / 3, color=color_for("reference"), lw=1, ls=":")
ax.scatter(
    peer["Epoch, hardware+energy"],
    peer["ours, amortised"],
    s=36,
    color=color_for("amortised training cost"),
    label="amortised: ours vs Epoch",
)
ax.scatter(
    peer["Epoch, cloud"],
    peer["ours, rental"],
    s=36,
    marker="s",
    color=color_for("rental training cost"),
    label="rental: ours vs Epoch cloud",
)
ax.set(
    xscale="log",
    yscale="log",
    xlim=lim,
    ylim=lim,
    xlabel="Epoch AI's estimate (USD)",
    ylabel="our estimate (USD)",
    title=f"Training cost: ours vs Epoch AI ({len(peer)} shared models)",
)
ax.legend(fontsize=8, loc="upper left")
plt.show()

# %% [markdown]
# Halving the wage or doubling the speed halves every ratio, so the paper's choice of a
# low wage and a fast writer is what keeps its estimates conservative. Our two training
# costs agree with Epoch AI's estimates for the same runs to within the factors printed
# above, although Epoch uses each run's reported hardware count and time where it has
# them and we use one utilisation for all. Renting costs several times owning (printed
# above), so with the amortised cost — the method the paper is reported to use — every
# ratio grows by that factor.
#
# ## Verdicts

# %% tags=["nbval-check-output"]
ledger.show()

# %% tags=["nbval-ignore-output"]
print(f"chapter run time: {run.elapsed():.1f} s at scale={run.scale!r} on {run.device}")

# %% [markdown]
# ## Deviations from the paper
#
# - **A bound changed after its result was known.** Claim 3 first asked the median to lie
#   in [30, 3000], a band of our own; it now uses the paper's own band, [10, 1000] (its
#   abstract), since a claim is judged against the paper's bound. With the old band the
#   claim read reproduced (the median lies between 1,000 and 3,000); with the paper's it
#   reads not reproduced (the table gives the margin).
# - **What a verdict audit noted about claim 3, left for the chapter's group issue
#   (08–13).** The judged cost is the rental price, while the paper is reported to use the
#   amortised cost: on our set both lie outside the paper's band (the reading under the
#   claim prints the amortised median). The failure comes from our curation of many small,
#   over-trained models (below); a frontier-only subset, shown as a diagnostic added after
#   the result, is the check that would separate the set from the claim. Claim 4's < $1/h
#   bar is the research brief's.
# - **Data: our curated set, not the paper's.** The paper's 64-model table (probably
#   drawn from Epoch AI's database) was not available offline. We curated 19 LLMs from
#   model cards, papers and announcements, one source per row, and left out models whose
#   token count or compute has no clean source (OPT-175B, Mistral-7B, mixture-of-experts
#   and code models; see the data README). Our set has more small, over-trained models
#   than a list of notable frontier runs would, which raises the median ratio; the
#   verdicts of claims 2–4 are about our set.
# - **Training cost.** The paper is reported to use Cottier et al.'s amortised
#   hardware-plus-energy cost. The judged claims use a rental price (AWS on-demand list
#   prices, one vendor for all three GPU classes) at one utilisation, 0.375; the
#   amortised cost, built from Epoch's constants and hardware prices, is shown beside it
#   and compared with Epoch's published per-model estimates. Rental is the dearer of the
#   two, so it is the harder test for claims 2 and 4; for claim 3 the median under the
#   amortised cost is printed beside the verdict and in the reading that follows it.
#   Prices are not adjusted for inflation; Epoch's estimates are (June 2025 dollars).
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
#   derivation; a unit test holds the closed form to the direct ratio at a relative
#   tolerance of $10^{-9}$.
# - **Stability across seeds.** The only random step is the resampling of claim 3,
#   shown but not judged; every verdict is the same for every seed. The upper end of the
#   90 % interval of the resampled medians sits in a gap between the ratios (printed in
#   claim 3) and moves with the seed; the share of resampled sets inside the band does
#   not, to within a percent.
#
# ## Run it at full scale
#
# ```bash
# .venv/bin/python -m repbook run 11 --scale full
# ```
# Full scale draws 200,000 bootstrap resamples instead of 2,000; every cost and verdict
# is the same, and no GPU is needed.
