"""Tolerances, and the comparison of a claim with its reference: a regression is a changed claim.

A claim's measured numbers may move between numerical environments (another CPU, other kernels,
another thread count) without the claim changing: a value that comes out of training, sampling or
an iterative fit sums its floating-point numbers in another order. So each measured value carries a
tolerance, fixed where the claim is checked:

- by default, exact to about 1e-9 relative (`DEFAULT`): closed forms, counts, derivations, agreement
  with a peer. Values below `TINY` in size are rounding noise and compare equal to each other.
- a value that training or a fit moves declares `tol(abs=..., rel=...)`, measured, never wished:
  about three times the largest difference `repbook numerics NN` saw between numerical
  environments, recorded in `data/numerics/<stem>.json` (a test holds every declared tolerance to
  that record: at least twice the difference it saw, and no value that moved without one).

`compare_claims(reference, current)` is what the reference tests use: the claim's definition
(statement, paper value, source, criterion, tolerances) must match exactly, every measured number
and the margin must lie within tolerance, and the verdict must be the same, unless the deciding
value lies within tolerance of both the reference and the criterion's boundary: then the flip is
reported by name, not failed. A claim's note must keep its words; the numbers a note quotes are
measurements (a time, a ratio read on this machine), compared through the claim's measured values
and their tolerances, so `note_words` masks them before the notes are compared.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .ledger.values import stored_items

DEFAULT_REL = 1e-9
"""The default tolerance: relative, for numbers that no environment should move."""
TINY = 1e-14
"""Numbers smaller than this in size are rounding noise (as the verdict table shows them)."""
BASES = ("default", "numerics")
"""Where a tolerance comes from: the default, or the differences measured between numerical
environments (`repbook numerics`, recorded in `data/numerics/`)."""


@dataclass(frozen=True)
class Tolerance:
    """How far a measured number may move: max(abs, rel × |reference|) (at least TINY)."""

    abs: float = 0.0
    rel: float = 0.0
    basis: str = "numerics"

    def __post_init__(self):
        for name in ("abs", "rel"):
            x = getattr(self, name)
            if (
                isinstance(x, bool)
                or not isinstance(x, (int, float))
                or not math.isfinite(x)
                or x < 0
            ):
                raise ValueError(
                    f"a tolerance's {name} must be a finite number ≥ 0, got {x!r}"
                )
        if self.basis not in BASES:
            raise ValueError(
                f"a tolerance's basis must be one of {', '.join(BASES)}, "
                f"got {self.basis!r}"
            )
        if self.basis == "numerics" and self.abs == 0 and self.rel == 0:
            raise ValueError("a declared tolerance needs abs > 0 or rel > 0")

    def allowed(self, reference: float | None) -> float:
        ref = 0.0 if reference is None else abs(float(reference))
        return max(self.abs, self.rel * ref, TINY)

    def text(self) -> str:
        parts = [f"±{self.abs:g}"] if self.abs else []
        parts += [f"±{self.rel:g} relative"] if self.rel else []
        where = "the default" if self.basis == "default" else "declared, data/numerics"
        return " or ".join(parts) + f" ({where})"

    def to_dict(self) -> dict:
        return {"abs": float(self.abs), "rel": float(self.rel), "basis": self.basis}

    @classmethod
    def from_dict(cls, d: Mapping) -> "Tolerance":
        try:
            return cls(float(d["abs"]), float(d["rel"]), d["basis"])
        except (KeyError, TypeError) as exc:
            raise ValueError(f"not a tolerance: {d!r} ({exc})") from None


DEFAULT = Tolerance(abs=0.0, rel=DEFAULT_REL, basis="default")


def tol(abs: float = 0.0, rel: float = 0.0) -> Tolerance:
    """A measured tolerance for values that training, sampling or an iterative fit moves between
    numerical environments: `abs` in the value's units, or `rel` of the reference value (the larger
    applies). Derive it from `data/numerics/<stem>.json` (about 3× the largest difference seen)."""
    return Tolerance(abs=abs, rel=rel, basis="numerics")


def tolerances_for(
    claim_id: str, names: Sequence[str], tolerance: Any
) -> dict[str, dict]:
    """Each measured value's tolerance as stored in the ledger, from what `check` was given: None
    (the default for all), one `Tolerance` (for all), or {value name: Tolerance} (the rest get the
    default)."""
    if tolerance is None:
        given: dict[str, Tolerance] = {}
    elif isinstance(tolerance, Tolerance):
        given = {n: tolerance for n in names}
    elif isinstance(tolerance, Mapping):
        unknown = [k for k in tolerance if k not in names]
        if unknown:
            raise ValueError(
                f"claim {claim_id!r}: tolerance names {unknown}, which are not measured "
                f"(measured: {', '.join(map(repr, names))})"
            )
        bad = [k for k, v in tolerance.items() if not isinstance(v, Tolerance)]
        if bad:
            raise TypeError(
                f"claim {claim_id!r}: the tolerance of {bad[0]!r} must be a "
                f"tol(abs=..., rel=...), got {tolerance[bad[0]]!r}"
            )
        given = dict(tolerance)
    else:
        raise TypeError(
            f"claim {claim_id!r}: tolerance must be tol(...), a mapping of value names to "
            f"tol(...), or None; got {type(tolerance).__name__}"
        )
    return {n: given.get(n, DEFAULT).to_dict() for n in names}


# ---------------------------------------------------------------------------------------------
# Comparing a claim with its reference
# ---------------------------------------------------------------------------------------------
def _tolerance_of(claim, name: str) -> Tolerance:
    d = (claim.tolerance or {}).get(name)
    return Tolerance.from_dict(d) if d else DEFAULT


def _elements(value: Any) -> list[tuple[str, Any]]:
    """A stored value's numbers labelled as the comparison reports them: `[key]`, or `` alone."""
    return [("" if k is None else f"[{k}]", v) for k, v in stored_items(value)]


def _shape(value: Any) -> str:
    if isinstance(value, Mapping):
        return f"a map with keys {list(value)}"
    if isinstance(value, list):
        return f"{len(value)} numbers"
    return "one number"


def _num(x: Any) -> str:
    return "nan" if x is None else f"{x:.6g}"


def _factor(criterion: Mapping) -> float:
    """How many read values one margin combines, at most: 1 for a value against a number (or
    its own sign), 2 for a difference of two elements (order, monotone; a custom test, whose
    margin we cannot see), 1 + factor for a bound that is another value times a factor."""
    kind = criterion.get("kind", "")
    if kind in ("all of", "any of"):
        return max([_factor(p) for p in criterion.get("parts", [])] or [2.0])
    if kind in ("at least", "at most"):
        if isinstance(criterion.get("bound"), str):
            return 1.0 + float(criterion.get("factor", 1.0))
        return 1.0
    if kind in ("within", "same sign"):
        return 1.0
    return 2.0


def margin_tolerance(claim, criterion: Mapping | None = None) -> float:
    """How far the margin may move when every value the criterion reads moves within its own
    tolerance: the largest of those allowances, times how many values a margin combines.
    `criterion` (a criterion's dict) is the claim's own by default, or e.g. its gate's."""
    criterion = claim.criterion if criterion is None else criterion
    reads = (criterion or {}).get("reads", []) or list(claim.measured)
    allowed = [TINY]
    for name in reads:
        if name not in claim.measured:
            continue
        t = _tolerance_of(claim, name)
        allowed += [t.allowed(v) for _, v in _elements(claim.measured[name])]
    return _factor(criterion or {}) * max(allowed)


DEFINITION = (
    "statement",
    "paper",
    "source",
    "role",
    "load_dependent",
    "evidence",
    "regime",
    "unpaired_because",
)


_NUMBER = re.compile(r"[-+−]?(?:\d[\d,]*)?\.?\d+(?:[eE][-+]?\d+)?")


def note_words(note: str) -> str:
    """A note with each number it quotes replaced by '#': what must match between two runs."""
    return _NUMBER.sub("#", note or "")


@dataclass
class ClaimComparison:
    """What differs between a claim and its reference: `failures` fail the test; `near_boundary`
    names a verdict that differs within tolerance of the boundary (reported, not failed)."""

    chapter: str
    id: str
    failures: list[str] = field(default_factory=list)
    near_boundary: str = ""

    @property
    def ok(self) -> bool:
        return not self.failures


def compare_claims(reference, current) -> ClaimComparison:
    """Compare one claim of this run with the same claim of the reference (see the module)."""
    out = ClaimComparison(reference.chapter, reference.id)
    fail = out.failures.append
    for name in DEFINITION:
        a, b = getattr(reference, name), getattr(current, name)
        if a != b:
            fail(f"its {name} changed: reference {a!r}, this run {b!r}")
    if reference.criterion != current.criterion:
        fail(
            f"its criterion changed: reference '{reference.criterion_text}', "
            f"this run '{current.criterion_text}'"
        )
    if (reference.tolerance or {}) != (current.tolerance or {}):
        fail(
            f"its tolerances changed: reference {reference.tolerance}, "
            f"this run {current.tolerance}"
        )
    ref_gate, cur_gate = reference.gate or {}, current.gate or {}
    if ref_gate.get("criterion") != cur_gate.get("criterion"):
        fail(
            f"its gate changed: reference {reference.gate_text!r}, this run "
            f"{current.gate_text!r}"
        )
    gate_flipped = bool(ref_gate) and ref_gate.get("passed") != cur_gate.get("passed")
    if note_words(reference.note) != note_words(current.note) and not gate_flipped:
        fail(
            f"its note changed: reference {reference.note!r}, this run {current.note!r}"
        )
    if out.failures:
        return out  # another claim: regenerate the reference
    if reference.load_dependent:
        return out  # timed on the machine: its values and verdict are not compared

    if list(reference.measured) != list(current.measured):
        fail(
            f"its measured values changed: reference {list(reference.measured)}, "
            f"this run {list(current.measured)}"
        )
        return out
    for name, ref_value in reference.measured.items():
        cur_value = current.measured[name]
        if _shape(ref_value) != _shape(cur_value):
            fail(
                f"value {name!r} is {_shape(cur_value)}; the reference has "
                f"{_shape(ref_value)}"
            )
            continue
        t = _tolerance_of(reference, name)
        for (label, r), (_, c) in zip(_elements(ref_value), _elements(cur_value)):
            if r is None or c is None:
                if r is not c:
                    fail(
                        f"value {name + label!r} = {_num(c)}, reference {_num(r)} "
                        "(one is not a number)"
                    )
                continue
            if abs(c - r) > t.allowed(r):
                fail(
                    f"value {name + label!r} = {_num(c)}, reference {_num(r)}: differs "
                    f"by {abs(c - r):.3g}, beyond its tolerance {t.text()} "
                    f"(allowed {t.allowed(r):.3g})"
                )

    if ref_gate:
        g_tol = margin_tolerance(reference, ref_gate["criterion"])
        gr, gc = ref_gate.get("margin"), cur_gate.get("margin")
        if (gr is None) != (gc is None):
            fail(
                f"its gate's margin = {_num(gc)}, reference {_num(gr)} (one is not a number)"
            )
        elif gr is not None and abs(gc - gr) > g_tol:
            fail(
                f"its gate's margin = {gc:+.6g}, reference {gr:+.6g}: differs by "
                f"{abs(gc - gr):.3g}, beyond its tolerance ±{g_tol:.3g}"
            )
        if gate_flipped:
            near = (
                gr is not None
                and gc is not None
                and abs(gr) <= g_tol
                and abs(gc) <= g_tol
            )
            text = (
                f"its gate is {'met' if cur_gate.get('passed') else 'unmet'} (margin "
                f"{_num(gc)}), reference {'met' if ref_gate.get('passed') else 'unmet'} "
                f"(margin {_num(gr)}); gate margin tolerance ±{g_tol:.3g}"
            )
            if near and not out.failures:
                out.near_boundary = (
                    text + ": the gate's value lies within tolerance of its boundary"
                )
            else:
                fail(text)
            return out  # one side was not judged: there is no verdict to compare

    m_tol = margin_tolerance(reference)
    mr, mc = reference.margin, current.margin
    if (mr is None) != (mc is None):
        fail(f"margin = {_num(mc)}, reference {_num(mr)} (one is not a number)")
    elif mr is not None and abs(mc - mr) > m_tol:
        fail(
            f"margin = {mc:+.6g}, reference {mr:+.6g}: differs by {abs(mc - mr):.3g}, "
            f"beyond its tolerance ±{m_tol:.3g} (from the values' tolerances)"
        )
    if reference.verdict != current.verdict:
        near = (
            not out.failures
            and mr is not None
            and mc is not None
            and abs(mr) <= m_tol
            and abs(mc) <= m_tol
        )
        text = (
            f"verdict {current.verdict!r} (margin {_num(mc)}), reference "
            f"{reference.verdict!r} (margin {_num(mr)}); margin tolerance ±{m_tol:.3g}"
        )
        if near:
            out.near_boundary = (
                text + ": the deciding value lies within tolerance of the boundary"
            )
        else:
            fail(text)
    return out


def compare_ledgers(reference, current) -> list[str]:
    """Claims added or dropped, or reordered (each claim itself: `compare_claims`)."""
    ref_ids = [c.id for c in reference.claims]
    cur_ids = [c.id for c in current.claims]
    problems = []
    added = [i for i in cur_ids if i not in ref_ids]
    dropped = [i for i in ref_ids if i not in cur_ids]
    if added:
        problems.append(f"claim(s) {added} are in this run but not in the reference")
    if dropped:
        problems.append(f"claim(s) {dropped} are in the reference but not in this run")
    if not added and not dropped and ref_ids != cur_ids:
        problems.append(
            f"the claims' order changed: reference {ref_ids}, this run {cur_ids}"
        )
    return problems
