"""The chapter's readings of the cost table: the curated set and the cost table as printed, the
utilisations that published GPU-hours imply, how far the lowest frontier ratio is from the
paper's lower end (claim 2), the median and its resampling (claim 3), what would move a median
into the band, why the median lands where it does (model size and over-training), the frontier
runs under each pricing, and our training costs against Epoch AI's. Each returns data (a frame or
a small frozen dataclass) and the printed diagnostic lines (`lines()`); no printing here."""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from .analysis import (
    Assumptions,
    band_miss_factor,
    class_usd_per_flop,
    class_usd_per_gpu_hour,
    cost_table,
)
from .costs import (
    bootstrap_medians,
    implied_mfu,
    params_at_ratio,
    ratio_at_fixed_compute,
    usd_per_flop,
)
from .tables import Hardware, LLMFacts

TABLE_COLUMNS = [
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
"""The columns of `cost_table` the chapter prints."""


def where(value: float, band: tuple[float, float]) -> str:
    """'inside' when `value` lies in the closed band, else 'outside' (for generated text)."""
    return "inside" if band[0] <= value <= band[1] else "outside"


def _data_side(a: Assumptions) -> dict:
    return dict(
        words_per_token=a.words_per_token,
        words_per_minute=a.words_per_minute,
        wage_usd_per_hour=a.wage_usd_per_hour,
    )


# ---------------------------------------------------------------------------------------------
# the curated set and the cost table, as printed
# ---------------------------------------------------------------------------------------------
def curated_lines(facts: list[LLMFacts], hardware: dict[str, Hardware]) -> list[str]:
    """The curated set (size, tokens, reported compute, hardware class, frontier flag) and the
    hardware classes, as printed tables."""
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
    sci = "{:.3g}".format
    formats = {
        "N": sci,
        "D_seen": sci,
        "C_reported": lambda c: "" if pd.isna(c) else sci(c),
    }
    classes = pd.DataFrame([vars(h) for h in hardware.values()])
    return [
        f"Our curated set (not the paper's table): {len(curated)} models, "
        f"{int(curated.frontier.sum())} frontier\n",
        curated.to_string(formatters=formats),
        "\nhardware classes:",
        classes.set_index("hardware_class").to_string(float_format="{:.4g}".format),
    ]


def closed_form_gap(table: pd.DataFrame) -> float:
    """The largest relative gap |closed form / direct − 1| over the rows with C = 6ND."""
    six = table[table.flops_source == "6ND"]
    return float(np.max(np.abs(six.closed_form_ratio / six.ratio - 1)))


def table_lines(table: pd.DataFrame) -> list[str]:
    """The cost table as printed, and the rows with a reported C against the closed form."""
    six = table[table.flops_source == "6ND"]
    out = [
        "Our curated set (not the paper's table), costs in US dollars:\n",
        table[TABLE_COLUMNS].to_string(float_format="{:.3g}".format),
        f"\n{len(six)} rows with C = 6ND (their largest relative gap, closed form against "
        "direct, is sanity check s1's value below)",
    ]
    for name, row in table[table.flops_source == "reported"].iterrows():
        gap = row.closed_form_ratio / row.ratio - 1
        out.append(
            f"{name}: reported C, ratio {row.ratio:.1f}; closed form with 6ND "
            f"{row.closed_form_ratio:.1f} ({gap:+.1%})"
        )
    return out


# ---------------------------------------------------------------------------------------------
# the utilisation that published GPU-hours imply
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class ImpliedMfu:
    """Per model with published GPU-hours: the hours and the utilisation they imply (`table`),
    beside the utilisation we assume."""

    table: pd.DataFrame
    assumed: float

    @property
    def lo(self) -> float:
        return self.table.implied_mfu.min()

    @property
    def hi(self) -> float:
        return self.table.implied_mfu.max()

    def lines(self) -> list[str]:
        t, mfu = self.table, self.assumed
        formats = {"gpu_hours": "{:,.0f}".format, "implied_mfu": "{:.3f}".format}
        inside = "inside" if self.lo <= mfu <= self.hi else "outside"
        return [
            t.to_string(formatters=formats),
            f"\nimplied utilisation: median {t.implied_mfu.median():.3f}, range "
            f"{self.lo:.3f}–{self.hi:.3f} (assumed: {mfu})",
            f"the assumed utilisation {mfu} lies {inside} the range the published "
            "GPU-hours imply",
        ]


def implied_mfus(
    facts: list[LLMFacts],
    table: pd.DataFrame,
    hardware: dict[str, Hardware],
    assumed: float,
) -> ImpliedMfu:
    """The utilisation each model with published GPU-hours must have had (its C, or 6ND, in
    those hours at its class's peak rate)."""
    rows = [
        dict(
            model=f.model,
            gpu_hours=f.gpu_hours_reported,
            implied_mfu=implied_mfu(
                table.loc[f.model, "flops"],
                f.gpu_hours_reported,
                peak_flops_per_s=hardware[f.hardware_class].peak_flops_per_s,
            ),
        )
        for f in facts
        if f.gpu_hours_reported is not None
    ]
    return ImpliedMfu(pd.DataFrame(rows).set_index("model"), assumed)


# ---------------------------------------------------------------------------------------------
# claim 2: how far the lowest frontier ratio lies from the paper's lower end
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class FrontierGap:
    """The lowest frontier ratio (rental), the factor by which it exceeds the band's lower end,
    the model size at which our prices reach that end, Epoch AI's pricing of the same frontier
    models, and how many of the lowest ratios of the set are frontier models."""

    table: pd.DataFrame
    hardware: dict
    assumptions: Assumptions
    band: tuple[float, float]
    lowest: str
    ratio: float
    factor: float
    n_at_low: float
    epoch_frontier: pd.Series
    epoch_cloud: pd.Series
    lowest_run: int

    def lines(self) -> list[str]:
        low, high = self.band
        t, lowest, factor, a = self.table, self.lowest, self.factor, self.assumptions
        hw = self.hardware[t.loc[lowest, "hardware_class"]]
        price = hw.rental_usd_per_gpu_hour
        frontier = t[t.frontier]
        ef, ec = self.epoch_frontier, self.epoch_cloud[self.epoch_frontier.index]
        e_low = min(ef.min(), ec.min())
        return [
            f"lowest frontier ratio {self.ratio:.0f}× ({lowest}, {hw.hardware_class} "
            f"class): {factor:.1f}× above the paper's lower end, {low}×",
            f"to reach {low}× at {lowest}'s size, a useful FLOP would have to cost "
            f"{factor:.1f}× more: a utilisation of {a.mfu / factor:.3f} instead of "
            f"{a.mfu}, or {price * factor:.0f} USD per GPU-hour instead of {price}",
            f"at our {hw.hardware_class}-class prices, a model reaches {low}× at "
            f"N = {self.n_at_low:.3g} parameters "
            f"({self.n_at_low / t.loc[lowest, 'params']:.1f}× {lowest})",
            f"with Epoch AI's own cost estimates (the {len(ef)} frontier models it "
            f"prices): lowest ratio {ef.min():.0f}× ({ef.idxmin()}) on hardware+energy, "
            f"{ec.min():.0f}× on cloud; the lower of the two is {e_low / low:.1f}× above "
            f"{low}×",
            f"the {self.lowest_run} lowest ratios of the whole set all belong to frontier "
            "models",
            f"claim 2 judges only the band's lower end, {low}×; above its upper end, "
            f"{high}×, lie {int((frontier.ratio > high).sum())} of {len(frontier)} "
            f"frontier models with the rental cost and "
            f"{int((frontier.ratio_amortized > high).sum())} with the amortised cost",
        ]


def frontier_gap(
    table: pd.DataFrame,
    epoch: pd.DataFrame,
    hardware: dict[str, Hardware],
    assumptions: Assumptions,
    *,
    band: tuple[float, float],
) -> FrontierGap:
    """Read how far claim 2's lowest frontier ratio (rental cost) lies above `band`'s lower
    end."""
    frontier = table[table.frontier]
    lowest = frontier.ratio.idxmin()
    ratio = float(frontier.ratio.min())
    hw = hardware[table.loc[lowest, "hardware_class"]]
    per_flop = usd_per_flop(
        peak_flops_per_s=hw.peak_flops_per_s,
        mfu=assumptions.mfu,
        usd_per_gpu_hour=hw.rental_usd_per_gpu_hour,
    )
    n_at_low = params_at_ratio(
        band[0], usd_per_flop=per_flop, **_data_side(assumptions)
    )
    epoch_frontier = (table.data_cost / epoch.epoch_capex_energy_usd).dropna()
    epoch_frontier = epoch_frontier[table.loc[epoch_frontier.index, "frontier"]]
    epoch_cloud = (table.data_cost / epoch.epoch_cloud_usd).dropna()
    not_frontier = ~table.sort_values("ratio").frontier.to_numpy()
    run = int(np.argmax(not_frontier)) if not_frontier.any() else len(table)
    return FrontierGap(
        table,
        hardware,
        assumptions,
        band,
        lowest,
        ratio,
        ratio / band[0],
        n_at_low,
        epoch_frontier,
        epoch_cloud,
        run,
    )


# ---------------------------------------------------------------------------------------------
# claim 3: the median, its resampling, and what would move it into the band
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class MedianSummary:
    """Claim 3's numbers: the median ratio with the amortised (judged) and the rental cost, the
    medians of `n_boot` resampled sets (amortised), the share of those inside the band and of
    the models inside it, the 90 % interval of the resampled medians, and the models Epoch AI
    prices too (`shared`, the cost table joined with Epoch's estimates)."""

    table: pd.DataFrame
    band: tuple[float, float]
    amortized: float
    rental: float
    resampled: np.ndarray
    share_in_band: float
    models_in_band: float
    interval: tuple[float, float]
    shared: pd.DataFrame

    def lines(self) -> list[str]:
        t, (lo, hi), shared = self.table, self.band, self.shared
        epoch_ratio = shared.data_cost / shared.epoch_capex_energy_usd
        out = [
            f"median data/training over {len(t)} models: {self.amortized:.0f}× "
            f"(amortised, judged); {self.rental:.0f}× (rental, not judged)",
            f"{len(self.resampled):,} resampled sets (amortised): median in [{lo}, {hi}] "
            f"for {self.share_in_band:.1%}; 90 % of the resampled medians in "
            f"{self.interval[0]:.0f}–{self.interval[1]:.0f}",
        ]
        for label, col in [("amortised", "ratio_amortized"), ("rental", "ratio")]:
            out.append(
                f"the {len(t)} ratios, {label}, sorted: "
                + ", ".join(f"{r:.0f}" for r in np.sort(t[col]))
            )
        out.append(
            f"the {len(shared)} models Epoch AI prices itself: median "
            f"{shared.ratio_amortized.median():.0f}× with our amortised cost, "
            f"{shared.ratio.median():.0f}× with our rental cost, "
            f"{epoch_ratio.median():.0f}× with Epoch's hardware+energy estimate"
        )
        for label, col in [("amortised", "ratio_amortized"), ("rental", "ratio")]:
            out.append(
                f"models above {hi}× ({label}): {int((t[col] > hi).sum())} of "
                f"{len(t)}; above 3000×: {int((t[col] > 3000).sum())}"
            )
        return out


def median_summary(
    table: pd.DataFrame,
    epoch: pd.DataFrame,
    *,
    band: tuple[float, float],
    n_boot: int,
    rng: np.random.Generator,
) -> MedianSummary:
    """Read claim 3 from the cost table: medians, `n_boot` resampled medians (from `rng`)."""
    resampled = bootstrap_medians(
        table.ratio_amortized.to_numpy(), n_boot=n_boot, rng=rng
    )
    share = float(np.mean((resampled >= band[0]) & (resampled <= band[1])))
    boot_lo, boot_hi = np.quantile(resampled, [0.05, 0.95])
    return MedianSummary(
        table,
        band,
        float(table.ratio_amortized.median()),
        float(table.ratio.median()),
        resampled,
        share,
        float(table.ratio_amortized.between(*band).mean()),
        (boot_lo, boot_hi),
        table.join(epoch, how="inner"),
    )


@dataclass(frozen=True, eq=False)
class BandFlips:
    """For each training cost ("amortised", "rental"): the factor by which its median misses
    the band (`factor`, 1 inside it) and, printed, the utilisation, prices per GPU-hour, wage,
    speed and words per token at which the median would reach the band's nearer end."""

    factor: dict
    text: list

    def lines(self) -> list[str]:
        return list(self.text)


def band_flips(
    facts: list[LLMFacts],
    hardware: dict[str, Hardware],
    assumptions: Assumptions,
    table: pd.DataFrame,
    medians: dict,
    *,
    band: tuple[float, float],
    mfu_range: tuple[float, float],
) -> BandFlips:
    """What would move each median of `medians` ({"amortised": …, "rental": …}) into `band`:
    every ratio is proportional to utilisation / price per GPU-hour and to wage · words per
    token / speed. The utilisation that would do it is checked by recomputing the table there;
    `mfu_range` is the range published GPU-hours imply."""
    a, (lo_mfu, hi_mfu) = assumptions, mfu_range
    mfu, wage, wpm, wpt = (
        a.mfu,
        a.wage_usd_per_hour,
        a.words_per_minute,
        a.words_per_token,
    )
    hours = {
        "amortised": class_usd_per_gpu_hour(hardware, a, cost="amortized"),
        "rental": class_usd_per_gpu_hour(hardware, a, cost="rental"),
    }
    used = [c for c in hardware if (table.hardware_class == c).any()]
    factor, text = {}, []
    for label, med in medians.items():
        prices = hours[label]
        f = band_miss_factor(med, *band)
        factor[label] = f
        if f == 1.0:
            text.append(
                f"{label}: the median {med:.0f}× lies in the band; nothing to flip"
            )
            continue
        k = 1 / f if med > band[1] else f  # every ratio must be multiplied by k
        u_flip = mfu * k
        col = "ratio_amortized" if label == "amortised" else "ratio"
        if u_flip <= 1:
            at_flip = cost_table(facts, hardware, replace(a, mfu=u_flip))
            recheck = f"recomputed there: median {at_flip[col].median():.0f}×"
        else:
            recheck = "above 1, impossible"
        inside = "inside" if lo_mfu <= u_flip <= hi_mfu else "outside"
        text.append(
            f"{label}: the median {med:.0f}× misses the band by a factor {f:.2f}; it "
            f"would reach the band's {'upper' if med > band[1] else 'lower'} end at a "
            f"utilisation of {u_flip:.3f} instead of {mfu} ({inside} the "
            f"{lo_mfu:.3f}–{hi_mfu:.3f} that published GPU-hours imply; {recheck}), or at "
            f"{1 / k:.2f}× our price per GPU-hour ("
            + ", ".join(f"{c} {prices[c]:.2f} → {prices[c] / k:.2f} USD" for c in used)
            + f"), or at {wage * k:.2f} USD/h instead of {wage:g}, {wpm / k:.0f} words per "
            f"minute instead of {wpm:g}, or {wpt * k:.2f} words per token "
            f"instead of {wpt}"
        )
    return BandFlips(factor, text)


# ---------------------------------------------------------------------------------------------
# why the median lands where it does; the frontier runs under each pricing
# ---------------------------------------------------------------------------------------------
def size_lines(
    table: pd.DataFrame,
    hardware: dict[str, Hardware],
    assumptions: Assumptions,
    *,
    high: float,
    tokens_per_param: float,
) -> list[str]:
    """Model size against the ratio (amortised): the size N at which each class's closed form
    reaches `high`, how many models are smaller (and so above it), how many are over-trained
    (D/N above `tokens_per_param`), the most over-trained model at that D/N instead, and how
    close the rows with a reported C sit to the closed form."""
    a = assumptions
    per_flop = class_usd_per_flop(hardware, a, cost="amortized")
    n_high = {
        cls: params_at_ratio(high, usd_per_flop=c, **_data_side(a))
        for cls, c in per_flop.items()
    }
    small = table.params < table.hardware_class.map(n_high)
    over = table.tokens_per_param > tokens_per_param
    above = table.ratio_amortized > high
    agree = "agree" if (small == above).all() else "differ"
    inside = (
        f"{table.tokens_per_param[~above].median():.0f} inside the band"
        if (~above).any()
        else "none inside the band"
    )
    big = table[above].tokens_per_param.idxmax()
    row = table.loc[big]
    at_optimum = ratio_at_fixed_compute(
        row.flops,
        tokens_per_param,
        usd_per_flop=per_flop[row.hardware_class],
        **_data_side(a),
    )
    reported = table[table.flops_source == "reported"]
    gap = reported.eval("closed_form_ratio / ratio - 1").abs()
    return [
        f"N at which the closed-form ratio is {high}× (amortised): "
        + "; ".join(f"{cls} {n:.3g}" for cls, n in n_high.items()),
        f"models smaller than their class's N_{high}: {int(small.sum())} of "
        f"{len(table)} (above {high}×: {int(above.sum())}; the two sets {agree} model "
        "by model)",
        f"over-trained (D/N above {tokens_per_param}): {int(over.sum())} of "
        f"{len(table)}; of the {int(above.sum())} models above {high}×, "
        f"{int((over & above).sum())} are over-trained; median D/N "
        f"{table.tokens_per_param[above].median():.0f} above {high}× against {inside}",
        f"the most over-trained model, {big} (D/N = {row.tokens_per_param:.0f}): ratio "
        f"{row.ratio_amortized:.0f}× (amortised); the same compute spent at "
        f"{tokens_per_param} tokens per parameter would give {at_optimum:.0f}×",
        f"the {len(gap)} rows with reported C sit within {gap.max():.1%} of the "
        f"closed-form line of their class; the other rows lie on it exactly",
    ]


@dataclass(frozen=True, eq=False)
class FrontierPricing:
    """The frontier runs' ratios under each pricing (`ratios`: our amortised cost, our rental
    cost, Epoch AI's hardware+energy estimate) and how many lie above the band's upper end
    (`over`: pricing → (count above, count))."""

    ratios: dict
    band: tuple[float, float]

    @property
    def over(self) -> dict:
        hi = self.band[1]
        return {k: (int((r > hi).sum()), len(r)) for k, r in self.ratios.items()}

    @property
    def over_half(self) -> list:
        """The pricings under which most frontier runs lie above the band."""
        return [k for k, (n, m) in self.over.items() if n > m / 2]

    def lines(self) -> list[str]:
        out, hi_end = [], self.band[1]
        for label, r in self.ratios.items():
            hi = r[r > hi_end]
            named = ", ".join(f"{m} {v:.0f}×" for m, v in hi.sort_values().items())
            out.append(
                f"frontier models above {hi_end}× with {label}: {len(hi)} of {len(r)} "
                f"(median {r.median():.0f}×, {where(r.median(), self.band)} the band; "
                f"range {r.min():.0f}–{r.max():.0f}×)"
                + (f": {named}" if 0 < len(hi) <= 4 else "")
            )
        return out


def frontier_pricing(
    table: pd.DataFrame, shared: pd.DataFrame, *, band: tuple[float, float]
) -> FrontierPricing:
    """The frontier runs priced three ways; `shared` is the cost table joined with Epoch AI's
    estimates (`MedianSummary.shared`)."""
    frontier, front = table[table.frontier], shared[shared.frontier]
    return FrontierPricing(
        {
            "our amortised cost": frontier.ratio_amortized,
            "our rental cost": frontier.ratio,
            "Epoch's hardware+energy estimate": front.data_cost
            / front.epoch_capex_energy_usd,
        },
        band,
    )


# ---------------------------------------------------------------------------------------------
# our training costs against Epoch AI's
# ---------------------------------------------------------------------------------------------
def peer_table(shared: pd.DataFrame) -> pd.DataFrame:
    """Our two training costs beside Epoch AI's two estimates for the models both price, and
    the ratios ours / Epoch's."""
    peer = pd.DataFrame(
        {
            "ours, amortised": shared.amortized_cost,
            "Epoch, hardware+energy": shared.epoch_capex_energy_usd,
            "ours, rental": shared.rental_cost,
            "Epoch, cloud": shared.epoch_cloud_usd,
        }
    )
    peer["amortised ours/Epoch"] = (
        peer["ours, amortised"] / peer["Epoch, hardware+energy"]
    )
    peer["rental ours/Epoch"] = peer["ours, rental"] / peer["Epoch, cloud"]
    return peer


def peer_lines(peer: pd.DataFrame, table: pd.DataFrame) -> list[str]:
    """The peer table as printed, the factors ours / Epoch's, and rental / amortised (ours)."""
    am, rent = peer["amortised ours/Epoch"], peer["rental ours/Epoch"]
    own = table.rental_cost / table.amortized_cost
    dearer = "rental" if (own > 1).all() else "neither cost on every model"
    return [
        "\ntraining cost of the models Epoch AI also prices (US dollars):",
        peer.to_string(float_format="{:.3g}".format),
        f"\nours / Epoch: amortised median {am.median():.2f} (range {am.min():.2f}–"
        f"{am.max():.2f}); rental median {rent.median():.2f} (range {rent.min():.2f}–"
        f"{rent.max():.2f})",
        f"rental / amortised (ours), every model: {own.min():.1f}–{own.max():.1f}×",
        f"the dearer training cost on every model: {dearer}",
    ]
