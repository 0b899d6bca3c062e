"""The whole table: every assumption of the comparison (`Assumptions`), one row of costs and
ratios per model (`cost_table`), the prices per GPU-hour and per FLOP of each hardware class, how
far a value misses a band, and the wage × speed sensitivity grid."""

from __future__ import annotations

from dataclasses import dataclass, fields, replace

import numpy as np
import pandas as pd

from .costs import (
    EPOCH_INTERCONNECT_FRACTION,
    EPOCH_MFU,
    EPOCH_PROGRESS_OOMS_PER_YEAR,
    EPOCH_PUE,
    EPOCH_TDP_FRACTION,
    PAPER_WAGE_USD_PER_HOUR,
    PAPER_WORDS_PER_MINUTE,
    WORDS_PER_TOKEN,
    _fraction,
    _positive,
    amortized_rate,
    amortized_training_cost,
    break_even_wage,
    closed_form_ratio,
    data_cost,
    rental_training_cost,
    training_flops_6nd,
    usd_per_flop,
)
from .tables import Hardware, LLMFacts


# ---------------------------------------------------------------------------------------------
# the whole table
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Assumptions:
    """Every assumption of the cost comparison, with its unit."""

    wage_usd_per_hour: float = PAPER_WAGE_USD_PER_HOUR
    words_per_minute: float = PAPER_WORDS_PER_MINUTE
    words_per_token: float = WORDS_PER_TOKEN
    mfu: float = EPOCH_MFU
    pue: float = EPOCH_PUE
    tdp_fraction: float = EPOCH_TDP_FRACTION
    interconnect_fraction: float = EPOCH_INTERCONNECT_FRACTION
    progress_ooms_per_year: float = EPOCH_PROGRESS_OOMS_PER_YEAR

    def __post_init__(self):
        for f in fields(self):
            value = getattr(self, f.name)
            checked = _positive(f.name, value)
            if not isinstance(checked, float):
                raise ValueError(f"{f.name} must be one number, got {value!r}")
        _fraction("mfu", self.mfu)
        _fraction("tdp_fraction", self.tdp_fraction)
        _fraction(
            "interconnect_fraction", self.interconnect_fraction, upper_inclusive=False
        )


def cost_table(
    facts: list[LLMFacts], hardware: dict[str, Hardware], assumptions: Assumptions
) -> pd.DataFrame:
    """One row per model: N, D (tokens seen), D/N, C (reported, else 6ND), both training costs,
    the data cost, the ratios, the closed-form ratio and the break-even wage (rental cost)."""
    if not facts or not all(isinstance(f, LLMFacts) for f in facts):
        raise ValueError(
            "facts must be a non-empty list of LLMFacts (see read_llm_facts)"
        )
    if not isinstance(assumptions, Assumptions):
        raise ValueError(f"assumptions must be an Assumptions, got {assumptions!r}")
    missing = sorted({f.hardware_class for f in facts} - set(hardware))
    if missing:
        raise ValueError(f"hardware has no entry for class(es) {missing}")
    a = assumptions
    rows = []
    for f in facts:
        hw = hardware[f.hardware_class]
        c6nd = training_flops_6nd(f.params, f.tokens_seen)
        flops = f.train_flops_reported if f.train_flops_reported is not None else c6nd
        rate = amortized_rate(
            purchase_usd_per_gpu=hw.purchase_usd_per_gpu,
            tdp_watts=hw.tdp_watts,
            server_power_factor=hw.server_power_factor,
            energy_usd_per_kwh=hw.energy_usd_per_kwh,
            pue=a.pue,
            tdp_fraction=a.tdp_fraction,
            interconnect_fraction=a.interconnect_fraction,
            progress_ooms_per_year=a.progress_ooms_per_year,
        )
        rental = rental_training_cost(
            flops,
            peak_flops_per_s=hw.peak_flops_per_s,
            mfu=a.mfu,
            usd_per_gpu_hour=hw.rental_usd_per_gpu_hour,
        )
        amortized = amortized_training_cost(
            flops, peak_flops_per_s=hw.peak_flops_per_s, mfu=a.mfu, rate=rate
        )
        data = data_cost(
            f.tokens_seen,
            words_per_token=a.words_per_token,
            words_per_minute=a.words_per_minute,
            wage_usd_per_hour=a.wage_usd_per_hour,
        )
        per_flop = usd_per_flop(
            peak_flops_per_s=hw.peak_flops_per_s,
            mfu=a.mfu,
            usd_per_gpu_hour=hw.rental_usd_per_gpu_hour,
        )
        rows.append(
            dict(
                model=f.model,
                release_year=f.release_year,
                hardware_class=f.hardware_class,
                frontier=f.frontier,
                params=f.params,
                tokens=f.tokens_seen,
                tokens_per_param=f.tokens_seen / f.params,
                flops=flops,
                flops_source="reported"
                if f.train_flops_reported is not None
                else "6ND",
                data_cost=data,
                rental_cost=rental,
                amortized_cost=amortized,
                ratio=data / rental,
                ratio_amortized=data / amortized,
                closed_form_ratio=closed_form_ratio(
                    f.params,
                    usd_per_flop=per_flop,
                    words_per_token=a.words_per_token,
                    words_per_minute=a.words_per_minute,
                    wage_usd_per_hour=a.wage_usd_per_hour,
                ),
                break_even_wage=break_even_wage(
                    f.tokens_seen,
                    rental,
                    words_per_token=a.words_per_token,
                    words_per_minute=a.words_per_minute,
                ),
            )
        )
    return pd.DataFrame(rows).set_index("model")


def class_usd_per_gpu_hour(
    hardware: dict[str, Hardware], assumptions: Assumptions, *, cost: str = "rental"
) -> dict[str, float]:
    """Dollars per GPU-hour of each hardware class: its rental price (`cost="rental"`) or the
    total of its amortised rate under `assumptions` (`cost="amortized"`), as `cost_table` uses."""
    if cost not in ("rental", "amortized"):
        raise ValueError(f"cost must be 'rental' or 'amortized', got {cost!r}")
    if not isinstance(assumptions, Assumptions):
        raise ValueError(f"assumptions must be an Assumptions, got {assumptions!r}")
    if not hardware or not all(isinstance(h, Hardware) for h in hardware.values()):
        raise ValueError(
            "hardware must be a non-empty {class: Hardware} (read_hardware)"
        )
    a, out = assumptions, {}
    for cls, hw in hardware.items():
        if cost == "rental":
            out[cls] = hw.rental_usd_per_gpu_hour
        else:
            out[cls] = amortized_rate(
                purchase_usd_per_gpu=hw.purchase_usd_per_gpu,
                tdp_watts=hw.tdp_watts,
                server_power_factor=hw.server_power_factor,
                energy_usd_per_kwh=hw.energy_usd_per_kwh,
                pue=a.pue,
                tdp_fraction=a.tdp_fraction,
                interconnect_fraction=a.interconnect_fraction,
                progress_ooms_per_year=a.progress_ooms_per_year,
            ).total
    return out


def class_usd_per_flop(
    hardware: dict[str, Hardware], assumptions: Assumptions, *, cost: str = "rental"
) -> dict[str, float]:
    """Dollars per useful FLOP of each hardware class at the utilisation of `assumptions`, with
    the rental or the amortised price per GPU-hour (see `class_usd_per_gpu_hour`)."""
    prices = class_usd_per_gpu_hour(hardware, assumptions, cost=cost)
    return {
        cls: usd_per_flop(
            peak_flops_per_s=hardware[cls].peak_flops_per_s,
            mfu=assumptions.mfu,
            usd_per_gpu_hour=price,
        )
        for cls, price in prices.items()
    }


def band_miss_factor(value: float, lo: float, hi: float) -> float:
    """How far `value` lies outside the band [lo, hi], as a factor: value / hi above the band,
    lo / value below it, 1 inside. Every ratio of the table scales with utilisation / price (and
    with wage · words per token / speed), so dividing them all by this factor brings a value
    above the band to its upper end."""
    value, lo, hi = (
        _positive(n, v) for n, v in (("value", value), ("lo", lo), ("hi", hi))
    )
    if not all(isinstance(v, float) for v in (value, lo, hi)):
        raise ValueError("value, lo and hi must be single numbers")
    if lo > hi:
        raise ValueError(f"lo must not exceed hi, got lo={lo!r}, hi={hi!r}")
    if value > hi:
        return value / hi
    if value < lo:
        return lo / value
    return 1.0


def median_ratio_grid(
    facts: list[LLMFacts],
    hardware: dict[str, Hardware],
    assumptions: Assumptions,
    *,
    wages,
    speeds,
    cost: str = "rental",
) -> np.ndarray:
    """The sensitivity sweep: the median data/training ratio over `facts` for every wage (rows,
    dollars per hour) and writing speed (columns, words per minute), the other assumptions as in
    `assumptions`; `cost` is "rental" or "amortized" (which training cost the ratio divides by)."""
    if cost not in ("rental", "amortized"):
        raise ValueError(f"cost must be 'rental' or 'amortized', got {cost!r}")
    if not isinstance(assumptions, Assumptions):
        raise ValueError(f"assumptions must be an Assumptions, got {assumptions!r}")
    wages = np.atleast_1d(_positive("wages", wages))
    speeds = np.atleast_1d(_positive("speeds", speeds))
    if wages.ndim != 1 or speeds.ndim != 1:
        raise ValueError("wages and speeds must be one-dimensional")
    column = "ratio" if cost == "rental" else "ratio_amortized"
    out = np.empty((wages.size, speeds.size))
    for i, w in enumerate(wages):
        for j, v in enumerate(speeds):
            a = replace(
                assumptions, wage_usd_per_hour=float(w), words_per_minute=float(v)
            )
            out[i, j] = float(cost_table(facts, hardware, a)[column].median())
    return out
