"""Measured values: what a chapter hands a criterion, and what a ledger stores and shows.

One walk over a measured value serves them all. A value is one number, a sequence of numbers
(one per seed, per size ...) or a {label: number} map. The criteria read it as labelled floats
(`elements`); the ledger stores it as plain JSON numbers at full precision (`plain_values`,
NaN and inf as null) and shows it rounded (`show_value`); the reference comparison and the
numerics records walk the stored form (`stored_items`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np


class CriterionError(ValueError):
    """A criterion is malformed, or the measured values do not give it what it reads."""


def _not_a_number(name: str, x: Any) -> CriterionError:
    if isinstance(x, (str, bytes)):
        return CriterionError(
            f"measured value {name!r} must be a number (or numbers), got the text {x!r}"
        )
    return CriterionError(
        f"measured value {name!r} must be a number (or numbers), "
        f"got {type(x).__name__}: {x!r}"
    )


def number(name: str, x: Any) -> int | float:
    """One measured number as a Python int (bools and integers) or float."""
    if isinstance(x, (bool, np.bool_)):
        return int(bool(x))
    if isinstance(x, (int, np.integer)):
        return int(x)
    if isinstance(x, (float, np.floating)):
        return float(x)
    if hasattr(x, "item") and getattr(x, "ndim", None) == 0:
        return number(name, x.item())
    raise _not_a_number(name, x)


def as_float(name: str, x: Any) -> float:
    return float(number(name, x))


def _flat(value: Any) -> list:
    return list(np.asarray(value, dtype=object).ravel())


def _is_sequence(value: Any) -> bool:
    return isinstance(value, (Sequence, np.ndarray)) and np.ndim(value) > 0


def elements(name: str, value: Any) -> list[tuple[str, float]]:
    """The numbers of one measured value with their labels: `name`, `name[i]` or `name[key]`,
    as the criteria read them (a one-element sequence reads as the value itself)."""
    if isinstance(value, Mapping):
        if not value:
            raise CriterionError(f"measured value {name!r} is empty")
        return [(f"{name}[{k}]", as_float(f"{name}[{k}]", v)) for k, v in value.items()]
    if isinstance(value, (str, bytes)):
        raise _not_a_number(name, value)
    if not _is_sequence(value):
        return [(name, as_float(name, value))]
    flat = _flat(value)
    if not flat:
        raise CriterionError(f"measured value {name!r} is empty")
    if len(flat) == 1:
        return [(name, as_float(name, flat[0]))]
    return [(f"{name}[{i}]", as_float(f"{name}[{i}]", v)) for i, v in enumerate(flat)]


def _stored(name: str, x: Any) -> float | int | None:
    x = number(name, x)
    return None if isinstance(x, float) and not math.isfinite(x) else x  # JSON: no NaN


def plain_values(measured: Mapping[str, Any]) -> dict[str, Any]:
    """Measured values as JSON-ready numbers, lists of numbers or {label: number} maps."""
    if not isinstance(measured, Mapping) or not measured:
        raise CriterionError(
            "measured must be a non-empty mapping of value names to numbers, "
            f"got {measured!r}"
        )
    out = {}
    for name, value in measured.items():
        if not isinstance(name, str) or not name.strip():
            raise CriterionError(f"a measured value needs a name, got {name!r}")
        if isinstance(value, Mapping):
            out[name] = {str(k): _stored(f"{name}[{k}]", v) for k, v in value.items()}
        elif isinstance(value, (str, bytes)):
            raise _not_a_number(name, value)
        elif _is_sequence(value):
            out[name] = [_stored(f"{name}[{i}]", v) for i, v in enumerate(_flat(value))]
        else:
            out[name] = _stored(name, value)
    return out


def evaluable(values: Mapping[str, Any]) -> dict[str, Any]:
    """Stored values for a criterion: JSON nulls back to NaN."""

    def back(v):
        return math.nan if v is None else v

    out = {}
    for k, v in values.items():
        if isinstance(v, dict):
            out[k] = {a: back(b) for a, b in v.items()}
        elif isinstance(v, list):
            out[k] = [back(b) for b in v]
        else:
            out[k] = back(v)
    return out


def json_float(x: float | None) -> float | None:
    return None if x is None or not math.isfinite(x) else float(x)


def stored_items(value: Any) -> list[tuple[Any, Any]]:
    """The numbers of a stored value with their keys: (label, x) of a map, (index, x) of a
    list, (None, x) of one number."""
    if isinstance(value, Mapping):
        return list(value.items())
    if isinstance(value, list):
        return list(enumerate(value))
    return [(None, value)]


def stored_shape(value: Any) -> tuple:
    """What two stored values must share to be compared element by element."""
    if isinstance(value, Mapping):
        return ("map", tuple(value))
    if isinstance(value, list):
        return ("list", len(value))
    return ("number",)


# ---------------------------------------------------------------------------------------------
# Shown values: rounded, so that re-runs print the same text
# ---------------------------------------------------------------------------------------------
def fmt(value: Any, digits: int = 3) -> str:
    """Format a value for display: numbers to `digits` significant figures.

    Sequences are formatted element-wise; strings pass through. Rounding makes re-runs print the
    same text even when the last float digits move.
    """
    if isinstance(value, str):
        return value
    if isinstance(value, (bool, np.bool_)):
        return "yes" if value else "no"
    if hasattr(value, "item") and getattr(value, "ndim", 1) == 0:
        value = value.item()
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value) or math.isinf(value):
            return str(value)
        if value == 0:
            return "0"
        out = f"{value:.{digits}g}"
        return out.replace("e-0", "e-").replace("e+0", "e+")
    if value is None:
        return "nan"
    if isinstance(value, Mapping):
        return ", ".join(f"{k}={fmt(v, digits)}" for k, v in value.items())
    if isinstance(value, Sequence) or hasattr(value, "tolist"):
        seq = value.tolist() if hasattr(value, "tolist") else value
        return "[" + ", ".join(fmt(v, digits) for v in seq) + "]"
    raise TypeError(f"cannot format a value of type {type(value).__name__}: {value!r}")


def fmt_margin(margin: float | None) -> str:
    if margin is None or (isinstance(margin, float) and math.isnan(margin)):
        return "n/a"
    return ("+" if margin > 0 else "") + fmt(float(margin))


MAX_SHOWN = 6
"""A measured sequence longer than this is shown as its first elements plus its range."""
TINY = 1e-14
"""Non-zero values below this in size are rounding noise whose digits vary with the machine's
floating-point paths: the table shows them as `< 1e-14` (the JSON keeps the number)."""


def show_number(x: Any) -> str:
    if isinstance(x, float) and x != 0 and abs(x) < TINY:
        return f"< {TINY:g}" if x > 0 else f"> -{TINY:g}"
    return fmt(x)


def show_value(value: Any) -> str:
    """A stored value as the tables show it (rounded; long sequences cut to their range)."""
    if isinstance(value, Mapping):
        items = list(value.items())
        text = ", ".join(f"{k} {show_number(v)}" for k, v in items[:MAX_SHOWN])
        if len(items) > MAX_SHOWN:
            nums = [v for _, v in items if v is not None]
            text += f", … ({len(items)} values, {fmt(min(nums))} to {fmt(max(nums))})"
        return "{" + text + "}"
    if isinstance(value, list):
        if len(value) > MAX_SHOWN:
            nums = [v for v in value if v is not None]
            return (
                f"[{', '.join(show_number(v) for v in value[:MAX_SHOWN])}, … ({len(value)} "
                f"values, {show_number(min(nums))} to {show_number(max(nums))})]"
            )
        return "[" + ", ".join(show_number(v) for v in value) + "]"
    return show_number(value)
