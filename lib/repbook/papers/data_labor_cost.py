"""What it would cost to pay people to write an LLM's training data, against the cost of training it
(Kandpal & Raffel, ICML 2025 position paper track, arXiv 2504.12427).

Every cost is in US dollars. The two sides:

- data cost = D · w / (wpm · 60) · wage: D tokens, w words per token, a writer producing wpm words
  per minute, paid `wage` dollars per hour;
- training cost, two ways: renting GPUs, C / (peak FLOP/s · MFU · 3600) · dollars per GPU-hour;
  or an Epoch-style amortised cost (Cottier et al. 2024): the hardware's purchase price written
  off at the rate hardware price-performance improves, plus cluster interconnect and energy, per
  GPU-hour.

With C = 6·N·D, the ratio of the two has the closed form
[wage · w / (wpm · 60)] / [6 · N · dollars per FLOP]: it does not depend on D.

Which D: both costs use the tokens the model *saw* in training (`tokens_seen`). Where a source also
gives the number of distinct tokens, `tokens_unique` keeps it for comparison.

The curated facts live in `data/11_data_labor_cost/` (our own set, not the paper's 64 models); the
readers here validate them and fail naming the file, line, model and column. No printing,
plotting or file writing.
"""

from __future__ import annotations

import csv
import math
from dataclasses import dataclass, fields, replace
from pathlib import Path

import numpy as np
import pandas as pd

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
# argument checks
# ---------------------------------------------------------------------------------------------
def _positive(name: str, value, *, allow_zero: bool = False):
    """`value` as a float or float array, every element finite and > 0 (≥ 0 with allow_zero)."""
    if isinstance(value, (bool, np.bool_)) or isinstance(value, str):
        raise ValueError(f"{name} must be a positive number, got {value!r}")
    try:
        arr = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(
            f"{name} must be a positive number (or an array of them), got {value!r}"
        ) from None
    if arr.size == 0:
        raise ValueError(f"{name} must not be empty")
    bad = ~np.isfinite(arr) | ((arr < 0) if allow_zero else (arr <= 0))
    if np.any(bad):
        what = "≥ 0" if allow_zero else "> 0"
        first = arr.ravel()[np.flatnonzero(bad.ravel())[0]]
        raise ValueError(f"{name} must be finite and {what}, got {first!r}")
    return float(arr) if arr.ndim == 0 else arr


def _fraction(name: str, value: float, *, upper_inclusive: bool = True) -> float:
    value = _positive(name, value)
    if (
        not isinstance(value, float)
        or value > 1
        or (value == 1 and not upper_inclusive)
    ):
        raise ValueError(
            f"{name} must be a number in (0, 1{']' if upper_inclusive else ')'}, "
            f"got {value!r}"
        )
    return value


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
    if (
        isinstance(n_boot, bool)
        or not isinstance(n_boot, (int, np.integer))
        or n_boot < 1
    ):
        raise ValueError(f"n_boot must be a positive int, got {n_boot!r}")
    if not isinstance(rng, np.random.Generator):
        raise ValueError(
            f"rng must be a numpy.random.Generator, got {type(rng).__name__}"
        )
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


# ---------------------------------------------------------------------------------------------
# the curated tables
# ---------------------------------------------------------------------------------------------
class CuratedDataError(ValueError):
    """A curated table is malformed; the message names the file, line, model and column."""


@dataclass(frozen=True)
class LLMFacts:
    """One row of llm_facts.csv: what a model card or paper reports about one model."""

    model: str
    developer: str
    release_year: int
    params: float  # N, parameters
    tokens_seen: float  # D, training tokens processed
    tokens_unique: float | None  # distinct tokens, where the source gives them
    train_flops_reported: float | None  # C as reported (FLOP); None: use 6ND
    gpu_hours_reported: float | None
    hardware_reported: str
    hardware_class: str  # one of HARDWARE_CLASSES
    frontier: bool  # fixed before any ratio was computed (see the README)
    epoch_compute_rank: float | None
    source: str
    checked_against: str


@dataclass(frozen=True)
class Hardware:
    """One row of hardware.csv: a GPU class's peak rate, prices and power (sources in the file)."""

    hardware_class: str
    peak_flops_per_s: float
    rental_usd_per_gpu_hour: float
    purchase_usd_per_gpu: float
    tdp_watts: float
    server_power_factor: float
    energy_usd_per_kwh: float
    energy_price_year: int


LLM_COLUMNS = tuple(f.name for f in fields(LLMFacts))
HARDWARE_COLUMNS = tuple(f.name for f in fields(Hardware)) + (
    "source_peak",
    "source_rental",
    "source_purchase",
    "source_power",
)


def _read_rows(path, columns) -> list[tuple[int, dict]]:
    path = Path(path)
    if not path.is_file():
        raise CuratedDataError(f"{path}: no such file")
    with open(path, newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f)
        header = reader.fieldnames or []
        missing = [c for c in columns if c not in header]
        if missing:
            raise CuratedDataError(
                f"{path.name}: missing column(s) {missing}; expected {list(columns)}"
            )
        extra = [c for c in header if c not in columns]
        if extra:
            raise CuratedDataError(f"{path.name}: unknown column(s) {extra}")
        rows = []
        for row in reader:
            line = reader.line_num
            if None in row or any(v is None for v in row.values()):
                raise CuratedDataError(
                    f"{path.name} line {line}: expected {len(columns)} fields "
                    "(a comma inside an unquoted cell?)"
                )
            rows.append((line, {k: v.strip() for k, v in row.items()}))
    if not rows:
        raise CuratedDataError(f"{path.name}: no data rows")
    return rows


class _Row:
    """Parses one CSV row's cells, naming file, line, model and column in every error."""

    def __init__(self, file: str, line: int, row: dict, key: str):
        self.file, self.line, self.row = file, line, row
        self.name = row.get(key) or "?"

    def fail(self, column: str, what: str):
        raise CuratedDataError(
            f"{self.file} line {self.line} ({self.name}), column {column!r}: "
            f"{what}, got {self.row.get(column)!r}"
        )

    def text(self, column: str, *, required: bool = True) -> str:
        value = self.row[column]
        if required and not value:
            self.fail(column, "must not be empty")
        return value

    def number(self, column: str, *, required: bool = True) -> float | None:
        cell = self.row[column]
        if not cell:
            if required:
                self.fail(column, "must not be empty")
            return None
        try:
            value = float(cell)
        except ValueError:
            self.fail(column, "must be a number")
        if not math.isfinite(value) or value <= 0:
            self.fail(column, "must be a positive finite number")
        return value

    def integer(self, column: str, lo: int, hi: int) -> int:
        value = self.number(column)
        if value != int(value) or not lo <= value <= hi:
            self.fail(column, f"must be a whole number in [{lo}, {hi}]")
        return int(value)


def read_llm_facts(path) -> list[LLMFacts]:
    """Read and validate llm_facts.csv. Fails, naming the line, model and column, on a missing
    source, a missing, non-numeric or non-positive number, an unknown hardware class, a frontier
    flag other than yes/no, more unique than seen tokens, or a model listed twice."""
    name = Path(path).name
    out, seen = [], {}
    for line, row in _read_rows(path, LLM_COLUMNS):
        r = _Row(name, line, row, "model")
        model = r.text("model")
        if model in seen:
            r.fail("model", f"is listed twice (first on line {seen[model]})")
        seen[model] = line
        hw = r.text("hardware_class")
        if hw not in HARDWARE_CLASSES:
            r.fail("hardware_class", f"must be one of {', '.join(HARDWARE_CLASSES)}")
        frontier = r.text("frontier").lower()
        if frontier not in ("yes", "no"):
            r.fail("frontier", "must be yes or no")
        facts = LLMFacts(
            model=model,
            developer=r.text("developer"),
            release_year=r.integer("release_year", 2010, 2030),
            params=r.number("params"),
            tokens_seen=r.number("tokens_seen"),
            tokens_unique=r.number("tokens_unique", required=False),
            train_flops_reported=r.number("train_flops_reported", required=False),
            gpu_hours_reported=r.number("gpu_hours_reported", required=False),
            hardware_reported=r.text("hardware_reported"),
            hardware_class=hw,
            frontier=frontier == "yes",
            epoch_compute_rank=r.number("epoch_compute_rank", required=False),
            source=r.text("source"),
            checked_against=r.text("checked_against"),
        )
        if facts.tokens_unique is not None and facts.tokens_unique > facts.tokens_seen:
            r.fail("tokens_unique", "must not exceed tokens_seen")
        out.append(facts)
    return out


def read_hardware(path) -> dict[str, Hardware]:
    """Read and validate hardware.csv: exactly one row per class in HARDWARE_CLASSES, every number
    positive, every source cell filled."""
    name = Path(path).name
    out = {}
    for line, row in _read_rows(path, HARDWARE_COLUMNS):
        r = _Row(name, line, row, "hardware_class")
        cls = r.text("hardware_class")
        if cls not in HARDWARE_CLASSES:
            r.fail("hardware_class", f"must be one of {', '.join(HARDWARE_CLASSES)}")
        if cls in out:
            r.fail("hardware_class", "is listed twice")
        for col in ("source_peak", "source_rental", "source_purchase", "source_power"):
            r.text(col)
        out[cls] = Hardware(
            hardware_class=cls,
            peak_flops_per_s=r.number("peak_flops_per_s"),
            rental_usd_per_gpu_hour=r.number("rental_usd_per_gpu_hour"),
            purchase_usd_per_gpu=r.number("purchase_usd_per_gpu"),
            tdp_watts=r.number("tdp_watts"),
            server_power_factor=r.number("server_power_factor"),
            energy_usd_per_kwh=r.number("energy_usd_per_kwh"),
            energy_price_year=r.integer("energy_price_year", 2010, 2030),
        )
    missing = [c for c in HARDWARE_CLASSES if c not in out]
    if missing:
        raise CuratedDataError(f"{name}: no row for hardware class(es) {missing}")
    return out


def read_epoch_costs(path) -> pd.DataFrame:
    """Epoch AI's published per-model cost estimates (dollars) for the models both tables share."""
    name = Path(path).name
    cols = (
        "model",
        "epoch_model",
        "epoch_cloud_usd",
        "epoch_capex_energy_usd",
        "source",
    )
    rows = []
    for line, row in _read_rows(path, cols):
        r = _Row(name, line, row, "model")
        rows.append(
            dict(
                model=r.text("model"),
                epoch_model=r.text("epoch_model"),
                epoch_cloud_usd=r.number("epoch_cloud_usd"),
                epoch_capex_energy_usd=r.number("epoch_capex_energy_usd"),
                source=r.text("source"),
            )
        )
    return pd.DataFrame(rows).set_index("model")


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
