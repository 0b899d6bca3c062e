"""Argument checks with the house's error messages: each names the argument, the value and what
was expected, so that a bad parameter fails at once and says how to fix it.

    n = checks.integer("n", n, at_least=1)             # "n must be a positive int, got 0"
    lr = checks.number("lr", lr, above=0)               # "lr must be a finite number > 0, got -1"
    alpha = checks.number("alpha", alpha, above=0, below=1)
    p = checks.probability("p", p)                      # in [0, 1]
    rng = checks.generator("rng", rng)                  # a numpy.random.Generator
    X = checks.array("X", X, ndim=2)                    # finite float64, not empty

Paper modules call these instead of writing their own; a check only one paper needs (a shape of
its own objects) stays in its module and raises in the same words.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

_REAL = (int, float, np.integer, np.floating)


def _is_int(value: Any) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(
        value, (bool, np.bool_)
    )


def _is_real(value: Any) -> bool:
    return isinstance(value, _REAL) and not isinstance(value, (bool, np.bool_))


def _int_range(at_least: int | None, at_most: int | None) -> str:
    if at_least is not None and at_most is not None:
        return f"an int in [{at_least}, {at_most}]"
    if at_least == 1:
        return "a positive int"
    if at_least is not None:
        return f"an int ≥ {at_least}"
    if at_most is not None:
        return f"an int ≤ {at_most}"
    return "an int"


def integer(
    name: str, value: Any, *, at_least: int | None = None, at_most: int | None = None
) -> int:
    """`value` as an int (numpy ints too; bools refused) within [at_least, at_most]."""
    if (
        not _is_int(value)
        or (at_least is not None and value < at_least)
        or (at_most is not None and value > at_most)
    ):
        raise ValueError(
            f"{name} must be {_int_range(at_least, at_most)}, got {value!r}"
        )
    return int(value)


def _interval(
    at_least: float | None,
    above: float | None,
    at_most: float | None,
    below: float | None,
) -> str:
    lo = (
        ("[", at_least)
        if at_least is not None
        else ("(", above)
        if above is not None
        else None
    )
    hi = (
        (at_most, "]")
        if at_most is not None
        else (below, ")")
        if below is not None
        else None
    )
    if lo and hi:
        return f"a number in {lo[0]}{lo[1]:g}, {hi[0]:g}{hi[1]}"
    if lo:
        return f"a finite number {'≥' if lo[0] == '[' else '>'} {lo[1]:g}"
    if hi:
        return f"a finite number {'≤' if hi[1] == ']' else '<'} {hi[0]:g}"
    return "a finite number"


def number(
    name: str,
    value: Any,
    *,
    at_least: float | None = None,
    above: float | None = None,
    at_most: float | None = None,
    below: float | None = None,
    finite: bool = True,
) -> float:
    """`value` as a float (ints and numpy scalars too; bools refused), finite unless `finite` is
    False, and within the bounds given: `at_least`/`at_most` inclusive, `above`/`below` strict."""
    if at_least is not None and above is not None:
        raise ValueError("give at_least or above, not both")
    if at_most is not None and below is not None:
        raise ValueError("give at_most or below, not both")
    ok = _is_real(value)
    if ok:
        x = float(value)
        ok = not math.isnan(x) and (not finite or math.isfinite(x))
        ok = ok and (at_least is None or x >= at_least) and (above is None or x > above)
        ok = ok and (at_most is None or x <= at_most) and (below is None or x < below)
    if not ok:
        raise ValueError(
            f"{name} must be {_interval(at_least, above, at_most, below)}, got {value!r}"
        )
    return float(value)


def probability(name: str, value: Any) -> float:
    """`value` as a float in [0, 1]."""
    return number(name, value, at_least=0.0, at_most=1.0)


def generator(name: str, rng: Any) -> np.random.Generator:
    """`rng` itself, when it is a numpy.random.Generator (randomness comes in as one)."""
    if not isinstance(rng, np.random.Generator):
        raise TypeError(
            f"{name} must be a numpy.random.Generator, got {type(rng).__name__}"
        )
    return rng


def torch_generator(name: str, gen: Any):
    """`gen` itself, when it is a torch.Generator."""
    import torch

    if not isinstance(gen, torch.Generator):
        raise TypeError(f"{name} must be a torch.Generator, got {type(gen).__name__}")
    return gen


def function(name: str, fn: Any, what: str = "a callable") -> Callable:
    """`fn` itself, when it can be called; `what` says what it should be."""
    if not callable(fn):
        raise TypeError(f"{name} must be {what}, got {type(fn).__name__}")
    return fn


def array(
    name: str,
    x: Any,
    *,
    ndim: int | None = None,
    finite: bool = True,
    empty: bool = False,
    dtype=np.float64,
) -> np.ndarray:
    """`x` as a numpy array of `dtype`, with `ndim` dimensions when given, not empty unless
    `empty`, and finite unless `finite` is False."""
    try:
        arr = np.asarray(x, dtype=dtype)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be an array of numbers, got {x!r}") from None
    if ndim is not None and arr.ndim != ndim:
        raise ValueError(f"{name} must be {ndim}-D, got shape {arr.shape}")
    if not empty and arr.size == 0:
        raise ValueError(f"{name} must not be empty")
    if (
        finite
        and np.issubdtype(arr.dtype, np.floating)
        and not np.all(np.isfinite(arr))
    ):
        raise ValueError(f"{name} must be finite, got a non-finite entry")
    return arr


def same_length(**arrays: Any) -> int:
    """The common length of the named arrays (each given as name=array)."""
    lengths = {k: len(v) for k, v in arrays.items()}
    if len(set(lengths.values())) > 1:
        text = ", ".join(f"{k} {n}" for k, n in lengths.items())
        raise ValueError(
            f"{' and '.join(lengths)} must have the same length, got {text}"
        )
    return next(iter(lengths.values()), 0)


def one_of(name: str, value: Any, choices) -> Any:
    """`value` itself, when it is one of `choices`."""
    if value not in choices:
        raise ValueError(
            f"{name} must be one of {', '.join(map(repr, choices))}, got {value!r}"
        )
    return value
