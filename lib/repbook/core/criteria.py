"""Typed criteria: a claim's test and its wording are one object, so they cannot disagree.

A criterion is written in the chapter before the result is seen. It names the measured values it
reads (`at_least("gap", 0.4)` reads the value called "gap"), decides the verdict from them, says how
far the deciding value lies from the boundary (the *margin*), and renders its own text for the
verdict table. The kinds:

- comparisons of one named value with a bound: `at_least`, `at_most`, `within`; the bound may be
  another named value times a factor (`at_most("steps", "baseline steps", factor=0.9)`);
- agreement between two named sequences: `same_order` (every pair ranked alike) and `same_sign`
  (every element has the sign of its reference);
- `monotone`: a named sequence increases (or decreases) step by step;
- `all_of(c1, c2, ...)`: every part must hold; the part closest to failing decides the margin;
- each-of: give a comparison a list of names (`within(["MC slope", "ln slope"], -1.2, -0.8)`), or a
  sequence value (one number per seed): every element must hold;
- `paired_gain(name, bar)`: "A beats B" on paired per-seed gains (A − B on the same seed): the
  mean gain minus k standard errors must clear the bar; plus k standard errors under it fails;
  an interval that straddles the bar is *within noise*, neither ✓ nor ✗;
- `custom(text, test, why=...)`: the one escape hatch for a test no typed form expresses. The
  chapter says why it needs it.

Margins are signed, in the units of the value: positive means the criterion holds with room to
spare, negative that it fails by that much. A strict comparison (`strict=True`) fails at margin 0.
The *normalised* margin divides by the criterion's scale (the bound's size, or half the width of an
interval), so that margins of different claims can be set side by side.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .ledger.values import CriterionError, as_float, elements


@dataclass(frozen=True)
class Outcome:
    """What a criterion concluded from the measured values."""

    passed: bool
    margin: float  # signed, in the value's own units; NaN when no margin is defined
    normalized: float  # margin / the criterion's scale (dimensionless)
    binding: str  # the value (and element) that decided the margin
    undecided: bool = False  # within the noise: neither passed nor failed (paired_gain)

    def _ipython_display_(self) -> None:
        """Shows nothing when a cell ends with `ledger.check(...)`: the ledger prints the claim."""


def number_text(x: float) -> str:
    """A bound as the criterion text shows it: up to 6 significant figures, no trailing zeros."""
    if isinstance(x, (int, np.integer)) and not isinstance(x, bool):
        return str(int(x))
    x = float(x)
    if x == 0:
        return "0"
    return f"{x:.6g}".replace("e-0", "e-").replace("e+0", "e+")


def _lookup(values: Mapping[str, Any], name: str, criterion: "Criterion") -> Any:
    if name not in values:
        have = ", ".join(repr(k) for k in values) or "nothing"
        raise CriterionError(
            f"criterion '{criterion.text()}' reads the value {name!r}, but the "
            f"measured values are: {have}"
        )
    return values[name]


def _nan_outcome(label: str) -> Outcome:
    return Outcome(False, math.nan, math.nan, label)


def _worst(outcomes: list[Outcome]) -> Outcome:
    """Combine parts: fails if any part fails. The deciding part is a failing one without a margin
    (NaN), else the one failing by most; when all pass, the one closest to failing."""
    failing = [o for o in outcomes if not o.passed and not o.undecided]
    if failing:
        nan = [o for o in failing if math.isnan(o.normalized)]
        pick = nan[0] if nan else min(failing, key=lambda o: o.normalized)
        return Outcome(False, pick.margin, pick.normalized, pick.binding)
    noisy = [o for o in outcomes if o.undecided]
    if noisy:  # nothing fails, but a part lies within the noise: so does the whole
        pick = min(noisy, key=lambda o: o.normalized)
        return Outcome(
            False, pick.margin, pick.normalized, pick.binding, undecided=True
        )
    finite = [o for o in outcomes if not math.isnan(o.normalized)]
    pick = min(finite, key=lambda o: o.normalized) if finite else outcomes[0]
    return Outcome(True, pick.margin, pick.normalized, pick.binding)


# ---------------------------------------------------------------------------------------------
# Criteria
# ---------------------------------------------------------------------------------------------
class Criterion:
    """Base class. Subclasses implement `evaluate`, `text`, `names` and `params`."""

    kind = "criterion"

    def evaluate(
        self, values: Mapping[str, Any]
    ) -> Outcome:  # pragma: no cover - abstract
        raise NotImplementedError

    def text(self) -> str:  # pragma: no cover - abstract
        raise NotImplementedError

    def names(self) -> list[str]:  # pragma: no cover - abstract
        raise NotImplementedError

    def params(self) -> dict:
        return {}

    def to_dict(self) -> dict:
        return {
            "kind": self.kind,
            "text": self.text(),
            "reads": self.names(),
            **self.params(),
        }

    def __repr__(self) -> str:
        return f"<{type(self).__name__}: {self.text()}>"


def _check_names(names: str | Sequence[str]) -> list[str]:
    names = [names] if isinstance(names, str) else list(names)
    if not names or not all(isinstance(n, str) and n.strip() for n in names):
        raise CriterionError(
            f"a criterion needs one or more value names, got {names!r}"
        )
    return names


def _check_bound(what: str, bound: Any) -> float | str:
    if isinstance(bound, str):
        if not bound.strip():
            raise CriterionError(
                f"{what} must be a number or a value name, got an empty name"
            )
        return bound
    if isinstance(bound, bool) or not isinstance(
        bound, (int, float, np.integer, np.floating)
    ):
        raise CriterionError(f"{what} must be a number or a value name, got {bound!r}")
    if not math.isfinite(float(bound)):
        raise CriterionError(f"{what} must be finite, got {bound!r}")
    return bound if isinstance(bound, (int, np.integer)) else float(bound)


class _Compare(Criterion):
    """One or more named values (each element of each) compared with a bound."""

    sign = +1  # +1: value ≥ bound; −1: value ≤ bound
    symbol = "≥"

    def __init__(
        self,
        names,
        bound,
        *,
        factor: float = 1.0,
        strict: bool = False,
        scale: float | None = None,
    ):
        self.value_names = _check_names(names)
        self.bound = _check_bound("the bound", bound)
        if isinstance(self.bound, str) and self.bound in self.value_names:
            raise CriterionError(f"value {self.bound!r} cannot be compared with itself")
        if (
            not isinstance(factor, (int, float))
            or not math.isfinite(factor)
            or factor <= 0
        ):
            raise CriterionError(f"factor must be a positive number, got {factor!r}")
        if factor != 1.0 and not isinstance(self.bound, str):
            raise CriterionError(
                "factor applies to a bound that is another value's name"
            )
        if scale is not None and not (isinstance(scale, (int, float)) and scale > 0):
            raise CriterionError(f"scale must be a positive number, got {scale!r}")
        self.factor, self.strict, self.scale = float(factor), bool(strict), scale

    def names(self):
        return self.value_names + ([self.bound] if isinstance(self.bound, str) else [])

    def params(self):
        return {"bound": self.bound, "factor": self.factor, "strict": self.strict}

    def _subject(self) -> str:
        if len(self.value_names) == 1:
            return self.value_names[0]
        return "each of " + ", ".join(self.value_names)

    def _bound_text(self) -> str:
        if isinstance(self.bound, str):
            return (
                f"{number_text(self.factor)} × " if self.factor != 1 else ""
            ) + self.bound
        return number_text(self.bound)

    def text(self):
        sym = {"≥": ">", "≤": "<"}[self.symbol] if self.strict else self.symbol
        return f"{self._subject()} {sym} {self._bound_text()}"

    def _bound_value(self, values) -> tuple[float, str]:
        if isinstance(self.bound, str):
            el = elements(self.bound, _lookup(values, self.bound, self))
            if len(el) != 1:
                raise CriterionError(
                    f"the bound {self.bound!r} must be one number, got {len(el)}"
                )
            return self.factor * el[0][1], el[0][0]
        return float(self.bound), ""

    def evaluate(self, values):
        bound, bound_label = self._bound_value(values)
        if math.isnan(bound):
            return _nan_outcome(bound_label)
        scale = self.scale or (abs(bound) if bound != 0 else 1.0)
        outs = []
        for name in self.value_names:
            for label, x in elements(name, _lookup(values, name, self)):
                if math.isnan(x):
                    outs.append(_nan_outcome(label))
                    continue
                margin = self.sign * (x - bound)
                passed = margin > 0 if self.strict else margin >= 0
                outs.append(Outcome(passed, margin, margin / scale, label))
        return _worst(outs)


class AtLeast(_Compare):
    kind, sign, symbol = "at least", +1, "≥"


class AtMost(_Compare):
    kind, sign, symbol = "at most", -1, "≤"


class Within(Criterion):
    """Each element of each named value lies in [lo, hi]."""

    kind = "within"

    def __init__(self, names, lo: float, hi: float):
        self.value_names = _check_names(names)
        self.lo, self.hi = (_check_bound("lo", lo), _check_bound("hi", hi))
        if isinstance(self.lo, str) or isinstance(self.hi, str):
            raise CriterionError("within takes numeric bounds")
        if not self.lo < self.hi:
            raise CriterionError(f"within needs lo < hi, got [{lo}, {hi}]")

    def names(self):
        return list(self.value_names)

    def params(self):
        return {"lo": self.lo, "hi": self.hi}

    def text(self):
        subject = (
            self.value_names[0]
            if len(self.value_names) == 1
            else "each of " + ", ".join(self.value_names)
        )
        return f"{subject} in [{number_text(self.lo)}, {number_text(self.hi)}]"

    def evaluate(self, values):
        half = (self.hi - self.lo) / 2
        outs = []
        for name in self.value_names:
            for label, x in elements(name, _lookup(values, name, self)):
                if math.isnan(x):
                    outs.append(_nan_outcome(label))
                    continue
                margin = min(x - self.lo, self.hi - x)
                outs.append(Outcome(margin >= 0, margin, margin / half, label))
        return _worst(outs)


def _paired(crit: Criterion, values, name: str, ref: str):
    a = elements(name, _lookup(values, name, crit))
    b = elements(ref, _lookup(values, ref, crit))
    if len(a) != len(b):
        raise CriterionError(f"{name!r} has {len(a)} elements but {ref!r} has {len(b)}")
    va, vb = _maybe_keyed(values[name]), _maybe_keyed(values[ref])
    if va is not None and vb is not None and list(va) != list(vb):
        raise CriterionError(
            f"{name!r} and {ref!r} must have the same keys in the same order"
        )
    return a, b


def _maybe_keyed(value):
    return value if isinstance(value, Mapping) else None


class SameOrder(Criterion):
    """Every pair of elements is ordered in `name` as in `reference` (pairs whose reference values
    differ by at most `min_gap` are not counted). Margin: the smallest signed gap in `name` over the
    counted pairs, so a margin near 0 means one pair almost swapped.

    With `within="model"`, the values are {"<group>: <item>": number} maps and only pairs in the
    same group (the key's part before ": ") are compared."""

    kind = "same order"
    GROUP_SEP = ": "

    def __init__(
        self,
        name: str,
        reference: str,
        *,
        min_gap: float = 0.0,
        within: str | None = None,
    ):
        self.name, self.reference = _check_names(name)[0], _check_names(reference)[0]
        if not (isinstance(min_gap, (int, float)) and min_gap >= 0):
            raise CriterionError(f"min_gap must be a number ≥ 0, got {min_gap!r}")
        if within is not None and (not isinstance(within, str) or not within.strip()):
            raise CriterionError(
                f"within must name the groups (e.g. 'model'), got {within!r}"
            )
        self.min_gap, self.within = float(min_gap), within

    def names(self):
        return [self.name, self.reference]

    def params(self):
        return {"min_gap": self.min_gap, "within": self.within}

    def text(self):
        text = f"{self.name} ranks every pair as {self.reference} does"
        if self.within:
            text += f", within each {self.within}"
        if self.min_gap:
            text += f" (pairs more than {number_text(self.min_gap)} apart in {self.reference})"
        return text

    def _group(self, label: str) -> str:
        key = label[len(self.name) + 1 : -1] if label.endswith("]") else label
        if self.GROUP_SEP not in key:
            raise CriterionError(
                f"with within={self.within!r}, keys of {self.name!r} must read "
                f"'<{self.within}>{self.GROUP_SEP}<item>', got {key!r}"
            )
        return key.split(self.GROUP_SEP, 1)[0]

    def evaluate(self, values):
        a, b = _paired(self, values, self.name, self.reference)
        xs, rs = [x for _, x in a], [r for _, r in b]
        if any(math.isnan(v) for v in xs + rs):
            return _nan_outcome(self.name)
        groups = (
            [self._group(label) for label, _ in a] if self.within else [""] * len(a)
        )
        scale = (max(xs) - min(xs)) or 1.0
        outs = []
        for i in range(len(xs)):
            for j in range(i + 1, len(xs)):
                if groups[i] != groups[j] or abs(rs[i] - rs[j]) <= self.min_gap:
                    continue
                margin = math.copysign(1.0, rs[i] - rs[j]) * (xs[i] - xs[j])
                outs.append(
                    Outcome(
                        margin > 0, margin, margin / scale, f"{a[i][0]} vs {a[j][0]}"
                    )
                )
        if not outs:
            raise CriterionError(
                f"no pair of {self.reference!r} differs by more than "
                f"{self.min_gap}: nothing to rank"
            )
        return _worst(outs)


class SameSign(Criterion):
    """Every element of `name` has the (non-zero) sign of the matching element of `reference`."""

    kind = "same sign"

    def __init__(self, name: str, reference: str):
        self.name, self.reference = _check_names(name)[0], _check_names(reference)[0]

    def names(self):
        return [self.name, self.reference]

    def text(self):
        return f"every {self.name} has the sign of its {self.reference}"

    def evaluate(self, values):
        a, b = _paired(self, values, self.name, self.reference)
        scale = max(abs(x) for _, x in a) or 1.0
        outs = []
        for (label, x), (_, r) in zip(a, b):
            if math.isnan(x) or math.isnan(r) or r == 0:
                outs.append(_nan_outcome(label))
                continue
            margin = math.copysign(1.0, r) * x
            outs.append(Outcome(margin > 0, margin, margin / scale, label))
        return _worst(outs)


class Monotone(Criterion):
    """A named sequence rises (or falls) at every step; margin: the smallest step in that direction."""

    kind = "monotone"

    def __init__(
        self, name: str, direction: str = "increasing", *, strict: bool = True
    ):
        self.name = _check_names(name)[0]
        if direction not in ("increasing", "decreasing"):
            raise CriterionError(
                f"direction must be 'increasing' or 'decreasing', got {direction!r}"
            )
        self.direction, self.strict = direction, bool(strict)

    def names(self):
        return [self.name]

    def params(self):
        return {"direction": self.direction, "strict": self.strict}

    def text(self):
        if self.strict:
            return f"{self.name} strictly {self.direction} at every step"
        never = "decreasing" if self.direction == "increasing" else "increasing"
        return f"{self.name} never {never}"

    def evaluate(self, values):
        el = elements(self.name, _lookup(values, self.name, self))
        if len(el) < 2:
            raise CriterionError(
                f"monotone needs at least two elements in {self.name!r}"
            )
        xs = [x for _, x in el]
        if any(math.isnan(x) for x in xs):
            return _nan_outcome(self.name)
        sign = 1.0 if self.direction == "increasing" else -1.0
        scale = max(abs(x) for x in xs) or 1.0
        outs = []
        for (la, xa), (lb, xb) in zip(el, el[1:]):
            margin = sign * (xb - xa)
            outs.append(
                Outcome(
                    margin > 0 if self.strict else margin >= 0,
                    margin,
                    margin / scale,
                    f"{la} → {lb}",
                )
            )
        return _worst(outs)


class AllOf(Criterion):
    """Every part holds. The margin is that of the part closest to failing (normalised margins
    compared), or of the part failing by most."""

    kind = "all of"

    def __init__(self, *parts: Criterion):
        if not parts or not all(isinstance(p, Criterion) for p in parts):
            raise CriterionError("all_of takes one or more criteria")
        self.parts = list(parts)

    def names(self):
        out = []
        for p in self.parts:
            out += [n for n in p.names() if n not in out]
        return out

    def params(self):
        return {"parts": [p.to_dict() for p in self.parts]}

    def text(self):
        return "; ".join(p.text() for p in self.parts)

    def evaluate(self, values):
        return _worst([p.evaluate(values) for p in self.parts])


class AnyOf(Criterion):
    """At least one part holds (a gate that must not hide a pass: "the model learned, or the
    claim's own test already passes"). The margin is that of the part that holds by most, or,
    when none holds, of the part closest to holding; a part within the noise makes the whole
    within the noise unless another part holds."""

    kind = "any of"

    def __init__(self, *parts: Criterion):
        if len(parts) < 2 or not all(isinstance(p, Criterion) for p in parts):
            raise CriterionError("any_of takes two or more criteria")
        self.parts = list(parts)

    def names(self):
        out = []
        for p in self.parts:
            out += [n for n in p.names() if n not in out]
        return out

    def params(self):
        return {"parts": [p.to_dict() for p in self.parts]}

    def text(self):
        return " or ".join(f"({p.text()})" for p in self.parts)

    def evaluate(self, values):
        outcomes = [p.evaluate(values) for p in self.parts]

        def size(o):
            return -math.inf if math.isnan(o.normalized) else o.normalized

        for group in (
            [o for o in outcomes if o.passed],
            [o for o in outcomes if o.undecided],
            outcomes,
        ):
            if group:
                pick = max(group, key=size)
                return Outcome(
                    pick.passed, pick.margin, pick.normalized, pick.binding,
                    undecided=pick.undecided,
                )  # fmt: skip


class PairedGain(Criterion):
    """ "A beats B" decided on paired per-seed gains beyond their noise.

    `name` holds one gain per seed (A − B on the same seed, positive when A is better; ≥
    `min_seeds` of them). With mean m and standard error SE = sd / √n: the claim holds when
    m − k·SE > bar, fails when m + k·SE ≤ bar, and is *within noise* otherwise. The margin is the
    distance from the bar to the nearer end of the interval: positive when it holds, negative
    when it fails, and minus the smaller overlap when the interval straddles the bar."""

    kind = "paired gain"

    def __init__(
        self, name: str, bar: float = 0.0, *, k: float | str = 2.0, min_seeds: int = 3
    ):
        self.name = _check_names(name)[0]
        self.bar = _check_bound("the bar", bar)
        if isinstance(self.bar, str):
            raise CriterionError("paired_gain takes a numeric bar")
        if k != "t" and (
            isinstance(k, bool) or not isinstance(k, (int, float)) or not k > 0
        ):
            raise CriterionError(
                f"k must be a positive number or 't' (Student's quantile), got {k!r}"
            )
        if (
            isinstance(min_seeds, bool)
            or not isinstance(min_seeds, int)
            or min_seeds < 2
        ):
            raise CriterionError(f"min_seeds must be an integer ≥ 2, got {min_seeds!r}")
        self.k = "t" if k == "t" else float(k)
        self.min_seeds = int(min_seeds)

    def names(self):
        return [self.name]

    def params(self):
        return {"bar": self.bar, "k": self.k, "min_seeds": self.min_seeds}

    def k_for(self, n: int) -> float:
        """The multiple of SE for n gains: k itself, or with k = "t" Student's 97.5 % quantile
        on n − 1 degrees of freedom (a two-sided 95 % interval whatever the number of seeds)."""
        if self.k != "t":
            return self.k
        from .stats import t_quantile

        return t_quantile(n)

    def text(self):
        bar = number_text(self.bar)
        if self.k == "t":
            return (
                f"mean {self.name} − t SE > {bar} (t: Student's 97.5 % quantile on "
                f"seeds − 1 d.f.; within noise if ± t SE spans {bar})"
            )
        k = number_text(self.k)
        return (
            f"mean {self.name} − {k} SE > {bar} (within noise if ± {k} SE spans {bar})"
        )

    def interval(self, values) -> tuple[float, float, float, int]:
        """(mean, SE, k·SE, n) of the gains."""
        xs = [x for _, x in elements(self.name, _lookup(values, self.name, self))]
        if len(xs) < self.min_seeds:
            raise CriterionError(
                f"paired_gain needs one gain per seed on at least {self.min_seeds} seeds in "
                f"{self.name!r}, got {len(xs)}"
            )
        arr = np.asarray(xs, dtype=float)
        mean = float(arr.mean())
        se = float(arr.std(ddof=1) / math.sqrt(len(arr)))
        return mean, se, self.k_for(len(arr)) * se, len(arr)

    def evaluate(self, values):
        mean, se, half, _ = self.interval(values)
        if math.isnan(mean) or math.isnan(se):
            return _nan_outcome(self.name)
        lo, hi = mean - half, mean + half
        scale = half or abs(self.bar) or 1.0
        if lo > self.bar:
            margin = lo - self.bar
            return Outcome(True, margin, margin / scale, f"{self.name} (mean − k SE)")
        if hi <= self.bar:
            margin = hi - self.bar
            return Outcome(False, margin, margin / scale, f"{self.name} (mean + k SE)")
        margin = -min(self.bar - lo, hi - self.bar)
        return Outcome(
            False, margin, margin / scale, f"{self.name} (mean ± k SE)", undecided=True
        )


class Custom(Criterion):
    """The escape hatch: a text and a test of the measured values that no typed form expresses.

    `test(values)` returns a bool, or a float margin (≥ 0 passes). `why` says why no typed form fits
    and is stored with the claim."""

    kind = "custom"

    def __init__(
        self,
        text: str,
        test: Callable[[Mapping[str, Any]], Any],
        *,
        why: str,
        reads: Sequence[str] = (),
    ):
        if not isinstance(text, str) or not text.strip():
            raise CriterionError("a custom criterion needs its text")
        if not callable(test):
            raise CriterionError("a custom criterion needs a callable test")
        if not isinstance(why, str) or not why.strip():
            raise CriterionError(
                "a custom criterion must say why no typed criterion fits (why=...)"
            )
        self._text, self.test, self.why = text, test, why
        self.reads = list(reads)

    def names(self):
        return list(self.reads)

    def params(self):
        return {"why": self.why}

    def text(self):
        return self._text

    def evaluate(self, values):
        for name in self.reads:
            for _, x in elements(name, _lookup(values, name, self)):
                if math.isnan(x):
                    return _nan_outcome(name)
        result = self.test(values)
        if isinstance(result, (bool, np.bool_)):
            return Outcome(bool(result), math.nan, math.nan, "")
        margin = as_float("the custom test's margin", result)
        if math.isnan(margin):
            return _nan_outcome("")
        return Outcome(margin >= 0, margin, margin, "")


# Lower-case constructors, as chapters write them.
def at_least(
    names,
    bound,
    *,
    factor: float = 1.0,
    strict: bool = False,
    scale: float | None = None,
) -> AtLeast:
    """Each element of each named value is ≥ `bound` (> with strict). `bound` is a number or the
    name of another value (then times `factor`). `scale` normalises the margin when bound is 0."""
    return AtLeast(names, bound, factor=factor, strict=strict, scale=scale)


def at_most(
    names,
    bound,
    *,
    factor: float = 1.0,
    strict: bool = False,
    scale: float | None = None,
) -> AtMost:
    """Each element of each named value is ≤ `bound` (< with strict)."""
    return AtMost(names, bound, factor=factor, strict=strict, scale=scale)


def within(names, lo: float, hi: float) -> Within:
    """Each element of each named value lies in the closed interval [lo, hi]."""
    return Within(names, lo, hi)


def same_order(
    name: str, reference: str, *, min_gap: float = 0.0, within: str | None = None
) -> SameOrder:
    """Every pair ordered in `name` as in `reference`; see `SameOrder`."""
    return SameOrder(name, reference, min_gap=min_gap, within=within)


def same_sign(name: str, reference: str) -> SameSign:
    return SameSign(name, reference)


def monotone(
    name: str, direction: str = "increasing", *, strict: bool = True
) -> Monotone:
    return Monotone(name, direction, strict=strict)


def all_of(*parts: Criterion) -> AllOf:
    return AllOf(*parts)


def any_of(*parts: Criterion) -> AnyOf:
    return AnyOf(*parts)


def each_of(
    names: Sequence[str], make: Callable[..., Criterion], *args, **kwargs
) -> Criterion:
    """`each_of(["a", "b"], at_least, 0.5)` is `at_least(["a", "b"], 0.5)`: every named value."""
    return make(list(_check_names(names)), *args, **kwargs)


def paired_gain(
    name: str, bar: float = 0.0, *, k: float | str = 2.0, min_seeds: int = 3
) -> PairedGain:
    """ "A beats B" on per-seed paired gains: mean − k·SE > bar (k = "t": Student's quantile for
    the number of seeds); see `PairedGain`."""
    return PairedGain(name, bar, k=k, min_seeds=min_seeds)


def custom(
    text: str,
    test: Callable[[Mapping[str, Any]], Any],
    *,
    why: str,
    reads: Sequence[str] = (),
) -> Custom:
    return Custom(text, test, why=why, reads=reads)
