"""The curated tables of `data/11_data_labor_cost/`: the models' facts, the hardware classes
and Epoch AI's published cost estimates, validated on reading (each failure names the file, line,
model and column)."""

from __future__ import annotations

import csv
import math
from dataclasses import dataclass, fields
from pathlib import Path

import pandas as pd

from .costs import HARDWARE_CLASSES


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
