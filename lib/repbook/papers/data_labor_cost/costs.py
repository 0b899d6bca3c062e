"""The two costs and their ratio: what writing D tokens would cost, what training on them costs
(rented or amortised GPU-hours), the closed form of their ratio, what follows from it, and the
bootstrap of the median ratio."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from repbook.core import checks

HARDWARE_CLASSES = ("V100", "A100", "H100")
"""The GPU generations whose prices stand for the hardware of a model's year."""

PAPER_WAGE_USD_PER_HOUR = 15.0
"""The paper's wage (from a secondary summary of the paper: we could not read its Section 3)."""
PAPER_WORDS_PER_MINUTE = 30.0
"""The paper's writing speed (same secondary summary)."""
WORDS_PER_TOKEN = 0.75
"""English words per BPE token, a rule of thumb (tokenizer documentation); ours, not the paper's."""

EPOCH_MFU = 0.375
"""Epoch AI's median model-FLOP utilisation of known training runs (cost_analysis_standalone.py)."""
EPOCH_PUE = 1.1
"""Epoch's data-centre power usage effectiveness for hyperscalers (1.25 for others)."""
EPOCH_TDP_FRACTION = 0.75
"""Epoch's average fraction of a GPU server's TDP drawn during training."""
EPOCH_INTERCONNECT_FRACTION = 0.19
"""Epoch's share of a cluster's cost that is cluster-level interconnect."""
EPOCH_PROGRESS_OOMS_PER_YEAR = 0.14
"""Epoch's ML GPU price-performance trend, orders of magnitude per year."""
HOURS_PER_YEAR = 24 * 365.25


# ---------------------------------------------------------------------------------------------
# argument checks (the house's, for a number or an array of numbers)
# ---------------------------------------------------------------------------------------------
def _positive(name: str, value):
    """`value` as a float (`checks.number`) or, given an array, a float array (`checks.array`),
    every element finite and > 0."""
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value[()]
    if np.ndim(value) == 0:
        return checks.number(name, value, above=0.0)
    arr = checks.array(name, value)
    bad = arr <= 0
    if np.any(bad):
        first = float(arr.ravel()[np.flatnonzero(bad.ravel())[0]])
        raise ValueError(f"{name} must hold finite numbers > 0, got {first!r}")
    return arr


def _fraction(name: str, value: float, *, upper_inclusive: bool = True) -> float:
    """`value` as a float in (0, 1] ((0, 1) unless `upper_inclusive`)."""
    if upper_inclusive:
        return checks.number(name, value, above=0.0, at_most=1.0)
    return checks.number(name, value, above=0.0, below=1.0)


# ---------------------------------------------------------------------------------------------
# the two costs
# ---------------------------------------------------------------------------------------------
def data_cost(
    tokens,
    *,
    words_per_token: float = WORDS_PER_TOKEN,
    words_per_minute: float = PAPER_WORDS_PER_MINUTE,
    wage_usd_per_hour: float = PAPER_WAGE_USD_PER_HOUR,
):
    """Dollars to pay people to write `tokens` tokens: tokens · w / (wpm · 60) hours at `wage`."""
    tokens = _positive("tokens", tokens)
    w = _positive("words_per_token", words_per_token)
    wpm = _positive("words_per_minute", words_per_minute)
    wage = _positive("wage_usd_per_hour", wage_usd_per_hour)
    return tokens * w / (wpm * 60.0) * wage


def writing_hours(
    tokens,
    *,
    words_per_token: float = WORDS_PER_TOKEN,
    words_per_minute: float = PAPER_WORDS_PER_MINUTE,
):
    """Person-hours to write `tokens` tokens at `words_per_minute`."""
    tokens = _positive("tokens", tokens)
    return (
        tokens
        * _positive("words_per_token", words_per_token)
        / (_positive("words_per_minute", words_per_minute) * 60.0)
    )


def training_flops_6nd(params, tokens):
    """The standard estimate of dense-transformer training compute, C = 6 · N · D (FLOP)."""
    return 6.0 * _positive("params", params) * _positive("tokens", tokens)


def gpu_hours(flops, *, peak_flops_per_s: float, mfu: float):
    """GPU-hours to execute `flops` at a fraction `mfu` of the peak rate `peak_flops_per_s`."""
    flops = _positive("flops", flops)
    peak = _positive("peak_flops_per_s", peak_flops_per_s)
    mfu = _fraction("mfu", mfu)
    return flops / (peak * mfu * 3600.0)


def usd_per_flop(
    *, peak_flops_per_s: float, mfu: float, usd_per_gpu_hour: float
) -> float:
    """Dollars per useful FLOP on a GPU rented (or costed) at `usd_per_gpu_hour`."""
    peak = _positive("peak_flops_per_s", peak_flops_per_s)
    mfu = _fraction("mfu", mfu)
    price = _positive("usd_per_gpu_hour", usd_per_gpu_hour)
    return price / (peak * mfu * 3600.0)


def rental_training_cost(
    flops, *, peak_flops_per_s: float, mfu: float, usd_per_gpu_hour: float
):
    """Dollars to rent the GPU-hours that `flops` take: C / (peak · MFU · 3600) · price."""
    return gpu_hours(flops, peak_flops_per_s=peak_flops_per_s, mfu=mfu) * _positive(
        "usd_per_gpu_hour", usd_per_gpu_hour
    )


@dataclass(frozen=True)
class AmortizedRate:
    """An Epoch-style cost of one GPU-hour, in dollars, split into its parts."""

    hardware: float  # purchase price written off at the hardware-progress rate
    interconnect: float  # cluster-level networking, a fixed share of the cluster's cost
    energy: float  # server power · PUE · energy price

    @property
    def total(self) -> float:
        return self.hardware + self.interconnect + self.energy


def amortized_rate(
    *,
    purchase_usd_per_gpu: float,
    tdp_watts: float,
    server_power_factor: float,
    energy_usd_per_kwh: float,
    pue: float = EPOCH_PUE,
    tdp_fraction: float = EPOCH_TDP_FRACTION,
    interconnect_fraction: float = EPOCH_INTERCONNECT_FRACTION,
    progress_ooms_per_year: float = EPOCH_PROGRESS_OOMS_PER_YEAR,
    hours_per_year: float = HOURS_PER_YEAR,
) -> AmortizedRate:
    """Dollars per GPU-hour of owning the hardware, after Cottier et al. (2024).

    The server's price per GPU (`purchase_usd_per_gpu`, server included) is written off at the rate
    at which it becomes optimal to replace it, progress · ln 10 per year; interconnect adds a share
    f/(1 − f) of that; energy is TDP · server power factor · TDP fraction · PUE · price. We charge
    the full purchase price (no depreciation before the run starts), a simplification that makes
    ours a little higher than Epoch's.
    """
    price = _positive("purchase_usd_per_gpu", purchase_usd_per_gpu)
    tdp_kw = _positive("tdp_watts", tdp_watts) / 1000.0
    factor = _positive("server_power_factor", server_power_factor)
    energy_price = _positive("energy_usd_per_kwh", energy_usd_per_kwh)
    pue = _positive("pue", pue)
    if np.any(np.asarray(pue) < 1):
        raise ValueError(
            "pue must be ≥ 1 (power at the wall over power at the servers), "
            f"got {pue!r}"
        )
    tdp_fraction = _fraction("tdp_fraction", tdp_fraction)
    f = _fraction("interconnect_fraction", interconnect_fraction, upper_inclusive=False)
    progress = _positive("progress_ooms_per_year", progress_ooms_per_year)
    hours = _positive("hours_per_year", hours_per_year)
    for name, v in (
        ("purchase_usd_per_gpu", price),
        ("tdp_watts", tdp_kw),
        ("server_power_factor", factor),
        ("energy_usd_per_kwh", energy_price),
        ("pue", pue),
        ("progress_ooms_per_year", progress),
        ("hours_per_year", hours),
    ):
        if not isinstance(v, float):
            raise ValueError(f"{name} must be one number, got an array")
    hardware = price * progress * math.log(10) / hours
    energy = tdp_kw * factor * tdp_fraction * pue * energy_price
    return AmortizedRate(
        hardware=hardware, interconnect=hardware * f / (1 - f), energy=energy
    )


def amortized_training_cost(
    flops, *, peak_flops_per_s: float, mfu: float, rate: AmortizedRate
):
    """Dollars of owned hardware and energy for `flops`: GPU-hours × the amortised rate."""
    if not isinstance(rate, AmortizedRate):
        raise ValueError(
            f"rate must be an AmortizedRate (see amortized_rate), got {rate!r}"
        )
    return gpu_hours(flops, peak_flops_per_s=peak_flops_per_s, mfu=mfu) * rate.total


# ---------------------------------------------------------------------------------------------
# the ratio and what follows from it
# ---------------------------------------------------------------------------------------------
def closed_form_ratio(
    params,
    *,
    usd_per_flop: float,
    words_per_token: float = WORDS_PER_TOKEN,
    words_per_minute: float = PAPER_WORDS_PER_MINUTE,
    wage_usd_per_hour: float = PAPER_WAGE_USD_PER_HOUR,
):
    """Data cost / training cost when C = 6·N·D: [wage · w / (wpm · 60)] / [6 · N · $/FLOP].

    The tokens cancel: the ratio depends on the model size N and the price of compute only.
    """
    per_token_data = (
        _positive("wage_usd_per_hour", wage_usd_per_hour)
        * _positive("words_per_token", words_per_token)
        / (_positive("words_per_minute", words_per_minute) * 60.0)
    )
    return per_token_data / (
        6.0 * _positive("params", params) * _positive("usd_per_flop", usd_per_flop)
    )


def params_at_ratio(
    ratio,
    *,
    usd_per_flop: float,
    words_per_token: float = WORDS_PER_TOKEN,
    words_per_minute: float = PAPER_WORDS_PER_MINUTE,
    wage_usd_per_hour: float = PAPER_WAGE_USD_PER_HOUR,
):
    """The model size N at which the closed-form ratio equals `ratio` (C = 6·N·D).

    The inverse of `closed_form_ratio`: N = [wage · w / (wpm · 60)] / (6 · ratio · $/FLOP).
    On the same prices, every smaller model has a larger ratio and every larger one a smaller.
    """
    per_token_data = (
        _positive("wage_usd_per_hour", wage_usd_per_hour)
        * _positive("words_per_token", words_per_token)
        / (_positive("words_per_minute", words_per_minute) * 60.0)
    )
    return per_token_data / (
        6.0 * _positive("ratio", ratio) * _positive("usd_per_flop", usd_per_flop)
    )


def ratio_at_fixed_compute(
    flops,
    tokens_per_param,
    *,
    usd_per_flop: float,
    words_per_token: float = WORDS_PER_TOKEN,
    words_per_minute: float = PAPER_WORDS_PER_MINUTE,
    wage_usd_per_hour: float = PAPER_WAGE_USD_PER_HOUR,
):
    """The closed-form ratio of a run of `flops` FLOP that spends them on D/N = `tokens_per_param`.

    With C = 6·N·D and D = r·N, N = √(C / (6 r)); so at fixed compute the ratio grows as √r:
    the more a run over-trains a small model, the larger its data cost against its training.
    """
    flops = _positive("flops", flops)
    r = _positive("tokens_per_param", tokens_per_param)
    return closed_form_ratio(
        np.sqrt(flops / (6.0 * r)),
        usd_per_flop=usd_per_flop,
        words_per_token=words_per_token,
        words_per_minute=words_per_minute,
        wage_usd_per_hour=wage_usd_per_hour,
    )


def break_even_wage(
    tokens,
    training_cost_usd,
    *,
    words_per_token: float = WORDS_PER_TOKEN,
    words_per_minute: float = PAPER_WORDS_PER_MINUTE,
):
    """The hourly wage (dollars) at which writing the data would cost exactly the training."""
    return _positive("training_cost_usd", training_cost_usd) / writing_hours(
        tokens, words_per_token=words_per_token, words_per_minute=words_per_minute
    )


def implied_mfu(flops, gpu_hours_used, *, peak_flops_per_s: float):
    """The utilisation a run must have had to do `flops` in `gpu_hours_used` at the peak rate."""
    return _positive("flops", flops) / (
        _positive("gpu_hours_used", gpu_hours_used)
        * 3600.0
        * _positive("peak_flops_per_s", peak_flops_per_s)
    )


def bootstrap_medians(values, *, n_boot: int, rng: np.random.Generator) -> np.ndarray:
    """Medians of `n_boot` resamples (with replacement, same size) of the positive `values`."""
    values = np.atleast_1d(_positive("values", values))
    checks.integer("n_boot", n_boot, at_least=1)
    checks.generator("rng", rng)
    idx = rng.integers(0, values.size, size=(int(n_boot), values.size))
    return np.median(values[idx], axis=1)


def bootstrap_median(
    values, *, n_boot: int, rng: np.random.Generator, level: float = 0.9
) -> tuple[float, float]:
    """Percentile interval (two-sided, `level`) of the median over `n_boot` resamples."""
    level = _fraction("level", level, upper_inclusive=False)
    medians = bootstrap_medians(values, n_boot=n_boot, rng=rng)
    lo, hi = np.quantile(medians, [(1 - level) / 2, (1 + level) / 2])
    return float(lo), float(hi)
