"""The committed records of a chapter's claims: its full-scale run (a ledger plus where, when and
how it ran: `data/full_runs/<stem>.json`) and its stability record (each claim's verdict on seeds
0..K−1 at quick scale: `data/stability/<stem>.json`), and when such a record is stale.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ... import layout
from .claims import JUDGED, MARKS, Claim, Ledger
from .values import fmt, fmt_margin


def stability_path(chapter: str) -> Path:
    """The chapter's stability record in this checkout (`layout.stability_path`)."""
    from ..data import repo_root

    return layout.stability_path(repo_root(), chapter)


def numerics_path(chapter: str) -> Path:
    """The chapter's numerics record in this checkout (`layout.numerics_path`)."""
    from ..data import repo_root

    return layout.numerics_path(repo_root(), chapter)


def full_run_path(chapter: str) -> Path:
    """The chapter's full-scale record in this checkout (`layout.full_run_path`)."""
    from ..data import repo_root

    return layout.full_run_path(repo_root(), chapter)


# ---------------------------------------------------------------------------------------------
# Full-scale records: ledger plus provenance
# ---------------------------------------------------------------------------------------------
def write_record(
    path: str | os.PathLike, ledger: Ledger, provenance: Mapping[str, Any]
) -> Path:
    """A ledger with where, when and how it ran (`data/full_runs/<stem>.json`)."""
    out = {**dict(provenance), **ledger.to_dict()}
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        json.dumps(out, indent=1, ensure_ascii=False, allow_nan=False) + "\n"
    )
    return path


def read_record(path: str | os.PathLike) -> tuple[Ledger, dict]:
    """(ledger, provenance) of a committed record."""
    d = json.loads(Path(path).read_text())
    keys = ("chapter", "scale", "seed", "device", "counts", "claims")
    return Ledger.from_dict(d), {
        k: v for k, v in d.items() if k not in keys or k == "device"
    }


# ---------------------------------------------------------------------------------------------
# Stability records: the same chapter on several seeds (`data/stability/<stem>.json`)
FAILED = "failed"
"""A seed whose run failed: counted in a claim's tally, never dropped."""


def _deciding_value(c: Claim) -> float | None:
    """The measured number a one-value criterion reads (None when it reads several)."""
    reads = c.criterion.get("reads", []) if c.criterion else []
    if len(reads) == 1 and isinstance(c.measured.get(reads[0]), (int, float)):
        return float(c.measured[reads[0]])
    return None


@dataclass
class ClaimStability:
    """One claim across seeds: each seed's verdict (or FAILED), its deciding value and margin."""

    id: str
    statement: str
    criterion: str
    verdicts: dict = field(default_factory=dict)  # seed (str) -> verdict or FAILED
    values: dict = field(
        default_factory=dict
    )  # seed -> deciding value (one-value criteria)
    margins: dict = field(
        default_factory=dict
    )  # seed -> margin in the criterion's units

    def counts(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for v in self.verdicts.values():
            out[v] = out.get(v, 0) + 1
        return out

    @property
    def checked(self) -> bool:
        """A criterion judged it on some seed (✓, ✗ or ≈ within noise: a claim within noise on
        every seed is a stable reading, shown as such, not as "—")."""
        return any(v in JUDGED for v in self.verdicts.values())

    @property
    def unstable(self) -> bool:
        """Its verdict differs between seeds (a failed seed counts as a different outcome)."""
        return self.checked and len(set(self.verdicts.values())) > 1

    def spread(self) -> str:
        def span(lo: str, hi: str) -> str:
            return lo if lo == hi else f"{lo} to {hi}"

        vals = [v for v in self.values.values() if v is not None]
        if vals:
            return "value " + span(fmt(min(vals)), fmt(max(vals)))
        ms = [m for m in self.margins.values() if m is not None]
        return "margin " + span(fmt_margin(min(ms)), fmt_margin(max(ms))) if ms else ""

    def cell(self) -> str:
        n = len(self.verdicts)
        if not self.checked:
            return "—"
        counts = self.counts()
        parts = [
            f"{MARKS.get(v, '!')} {k}/{n}" if v != FAILED else f"{k}/{n} failed"
            for v, k in sorted(counts.items(), key=lambda kv: -kv[1])
        ]
        text = ", ".join(parts)
        spread = self.spread()
        if self.unstable:
            return f"unstable: {text}" + (f" ({spread})" if spread else "")
        return text + (f" ({spread})" if spread and n > 1 else "")


@dataclass
class StabilityRecord:
    chapter: str
    seeds: list
    claims: list  # [ClaimStability]
    runs: list  # [{seed, status, seconds, error}]
    provenance: dict = field(default_factory=dict)

    def claim(self, claim_id: str) -> ClaimStability | None:
        return next((c for c in self.claims if c.id == str(claim_id)), None)

    def current(self, claim: Claim) -> ClaimStability | None:
        """This record's entry for `claim` if it describes the claim as it is now (the same
        statement and definition), else None: a stale entry."""
        st = self.claim(claim.id)
        if st is None or (st.statement, st.criterion) != (
            claim.statement,
            claim.definition_text,
        ):
            return None
        return st

    def unstable(self) -> list[ClaimStability]:
        return [c for c in self.claims if c.unstable]

    def signature(self) -> list[tuple[str, str, str]]:
        return [(c.id, c.statement, c.criterion) for c in self.claims]

    def is_stale(self, current: Ledger) -> bool:
        """The chapter's claims changed since the record was made (see `is_stale`)."""
        return sorted(self.signature()) != sorted(claims_signature(current))

    def to_dict(self) -> dict:
        return {
            **self.provenance,
            "chapter": self.chapter,
            "seeds": self.seeds,
            "runs": self.runs,
            "claims": [asdict(c) for c in self.claims],
        }

    @classmethod
    def from_dict(cls, d: Mapping) -> "StabilityRecord":
        keys = ("chapter", "seeds", "runs", "claims")
        try:
            claims = [ClaimStability(**c) for c in d["claims"]]
            return cls(
                d["chapter"],
                list(d["seeds"]),
                claims,
                list(d["runs"]),
                {k: v for k, v in d.items() if k not in keys},
            )
        except (KeyError, TypeError) as exc:
            raise ValueError(f"not a stability record: {exc}") from None


def stability_record(
    chapter: str,
    runs: Sequence[tuple[int, Ledger | None, Mapping]],
    provenance: Mapping[str, Any] | None = None,
) -> StabilityRecord:
    """Combine one chapter's runs on several seeds. `runs` holds (seed, ledger or None when the run
    failed, run info {status, seconds, error}). A failed seed counts as FAILED for every claim."""
    if not runs:
        raise ValueError("a stability record needs at least one run")
    order: list[Claim] = []
    for _, led, _ in runs:
        for c in led.claims if led else []:
            if all(o.id != c.id for o in order):
                order.append(c)
    claims = []
    for proto in order:
        cs = ClaimStability(proto.id, proto.statement, proto.definition_text)
        for seed, led, _ in runs:
            key = str(seed)
            c = next((x for x in led.claims if x.id == proto.id), None) if led else None
            if c is None:
                cs.verdicts[key] = FAILED
                continue
            cs.verdicts[key] = c.verdict
            cs.values[key] = _deciding_value(c)
            cs.margins[key] = c.margin
        claims.append(cs)
    info = [
        {"seed": int(seed), **{k: r.get(k) for k in ("status", "seconds", "error")}}
        for seed, _, r in runs
    ]
    return StabilityRecord(
        chapter, [int(s) for s, _, _ in runs], claims, info, dict(provenance or {})
    )


def write_stability(path: str | os.PathLike, record: StabilityRecord) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        json.dumps(record.to_dict(), indent=1, ensure_ascii=False, allow_nan=False)
        + "\n"
    )
    return path


def read_stability(path: str | os.PathLike) -> StabilityRecord:
    return StabilityRecord.from_dict(json.loads(Path(path).read_text()))


def load_stability(chapter: str) -> StabilityRecord | None:
    """The chapter's committed stability record, or None."""
    path = stability_path(chapter)
    return read_stability(path) if path.is_file() else None


def load_full_run(chapter: str) -> tuple[Ledger, dict] | None:
    """(ledger, provenance) of the chapter's committed full-scale record, or None."""
    path = full_run_path(chapter)
    return read_record(path) if path.is_file() else None


# ---------------------------------------------------------------------------------------------
# Staleness: does a record still describe the chapter's claims?
# ---------------------------------------------------------------------------------------------
def claims_signature(ledger: Ledger) -> list[tuple[str, str, str]]:
    """What a claim *is*: its id, statement and what it tests (criterion, gate, role; not its
    values)."""
    return [(c.id, c.statement, c.definition_text) for c in ledger.claims]


def is_stale(record: Ledger, current: Ledger | None) -> bool:
    """A committed record (full run, stability run) no longer describes the chapter's claims when
    the claim ids, or any claim's statement or criterion, differ from the current quick run's. (A
    claim checked only at full scale keeps its id, statement and criterion at quick scale, where it
    is recorded as not checked, so it compares equal.)"""
    if current is None:
        return False
    return sorted(claims_signature(record)) != sorted(claims_signature(current))


_NUMBER = re.compile(r"\d[\d,]*(?:\.\d+)?(?:e[-+]?\d+)?")
# A list of a scale's sizes ("V = 256" at quick scale, "V = 256, 4096" or "256 and 4,096" at full
# scale) reads as one masked number.
_NUMBER_LIST = re.compile(r"#(?:(?:,? and |, ?|,? or | )#)+")


def scale_signature(ledger: Ledger) -> list[tuple[str, str, str, str]]:
    """What a claim is whatever the scale it ran at: its id, role, statement with its numbers
    masked, and its criterion's kind. A chapter's criteria name its scale's sizes ("RMSE(4096)"
    at quick scale, "RMSE(16384)" at full scale), so a full-scale record is paired with the quick
    run on this, not on the criterion's text."""
    return [
        (
            c.id,
            c.role,
            _NUMBER_LIST.sub("#", _NUMBER.sub("#", c.statement)),
            (c.criterion or {}).get("kind", ""),
        )
        for c in ledger.claims
    ]


def is_stale_across_scales(record: Ledger, current: Ledger | None) -> bool:
    """A record made at another scale (a full-scale run) no longer describes the chapter's claims
    when their ids, roles, statements (numbers aside) or kinds of criterion differ from the
    current run's (see `scale_signature`)."""
    if current is None:
        return False
    return sorted(scale_signature(record)) != sorted(scale_signature(current))


def full_run_lines(ledger: Ledger, path: str | os.PathLike | None = None) -> list[str]:
    """What a chapter prints about its committed full-scale record (`repbook full NN`): when, how
    long and where it ran, each claim's verdict and margin there, then one line per claim whose
    verdict differs from this run's. A stale record (its claims are not this run's) is named and
    not paired; a missing one says how to make it."""
    path = Path(path) if path is not None else full_run_path(ledger.chapter)
    if ledger.scale == "full":
        return ["This is a full-scale run: the committed record is not read."]
    if not path.is_file():
        return [
            f"No full-scale record is committed yet (`repbook full {ledger.chapter[:2]}` "
            "writes one)."
        ]
    full, prov = read_record(path)
    stale = is_stale_across_scales(full, ledger)
    seconds = prov.get("seconds")
    took = (
        f"{seconds:.0f} s"
        if isinstance(seconds, (int, float))
        else "an unrecorded time"
    )
    finished = prov.get("finished")
    when = str(finished)[:10] if finished else "on an unrecorded date"
    lines = [
        f"Full scale, recorded {when} in {took} on "
        f"{prov.get('device', 'an unrecorded device')}"
        + (" (stale: the checks changed since)" if stale else "")
        + ": "
        + "; ".join(
            f"{c.id} {c.verdict_word()}"
            + (f" (margin {fmt_margin(c.margin)})" if c.checked else "")
            for c in full.claims
        )
        + "."
    ]
    if stale:
        return lines
    quick = {c.id: c for c in ledger.claims}
    differ = [
        c for c in full.claims if c.id in quick and c.verdict != quick[c.id].verdict
    ]
    lines += [
        f"  claim {c.id}: quick scale {quick[c.id].verdict_word()}; full scale "
        f"{c.verdict_word()}"
        for c in differ
    ]
    if not differ:
        lines.append("  every claim's verdict is the same at both scales")
    return lines


# ---------------------------------------------------------------------------------------------
# Numerics records: how far each claim's values and verdict move under other kernels and
# thread counts (`repbook numerics` writes them; `repbook.runner.numerics` builds them)
# ---------------------------------------------------------------------------------------------
def read_numerics(path: str | os.PathLike) -> dict:
    """A numerics record (`data/numerics/<stem>.json`) as a dict, checked for its keys."""
    d = json.loads(Path(path).read_text())
    for key in ("chapter", "environments", "claims"):
        if key not in d:
            raise ValueError(f"{path} is not a numerics record: no {key!r}")
    return d


def load_numerics(chapter: str) -> dict | None:
    """The chapter's committed numerics record, or None."""
    path = numerics_path(chapter)
    return read_numerics(path) if path.is_file() else None


def environment_verdicts(record: dict | None) -> dict[str, dict[str, tuple[str, Any]]]:
    """{claim id: {environment: (verdict, margin)}} for each claim whose verdict differs between
    the numerical environments of `record` (empty without a record)."""
    out = {}
    for entry in (record or {}).get("claims", []):
        verdicts = entry.get("verdicts", {})
        if len(set(verdicts.values())) > 1:
            margins = entry.get("margins", {})
            out[entry["id"]] = {
                env: (v, margins.get(env)) for env, v in verdicts.items()
            }
    return out
