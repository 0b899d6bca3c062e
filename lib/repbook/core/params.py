"""Chapter parameters: the scales the book knows and the checks every parameter goes through.

Kept free of heavy imports: the CLI calls it before any kernel starts, so that a bad parameter fails
in well under a second.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

SCALES = ("quick", "full")
"""quick: at most 90 s on 2 CPU cores; full: the paper's setting as far as one GPU allows."""


class ParameterError(ValueError):
    """A chapter parameter has an unknown name, a wrong type or a value outside what is allowed."""


def _type_name(value: Any) -> str:
    return type(value).__name__


def validate_parameters(
    values: Mapping[str, Any], defaults: Mapping[str, Any]
) -> dict[str, Any]:
    """Check `values` against a chapter's `parameters` cell (`defaults`) and return the merged set.

    - every name must be declared in the parameters cell;
    - a value must have the type of its default (an int is accepted where a float is declared);
    - `scale` must be one of SCALES, `seed` a non-negative int.
    """
    unknown = sorted(set(values) - set(defaults))
    if unknown:
        raise ParameterError(
            f"unknown parameter(s) {', '.join(map(repr, unknown))}; "
            f"this chapter accepts: {', '.join(sorted(defaults))}"
        )
    merged = dict(defaults)
    for name, value in values.items():
        default = defaults[name]
        ok = isinstance(value, type(default)) and not (
            isinstance(value, bool) and not isinstance(default, bool)
        )
        if (
            isinstance(default, float)
            and isinstance(value, int)
            and not isinstance(value, bool)
        ):
            value, ok = float(value), True
        if default is not None and not ok:
            raise ParameterError(
                f"parameter {name!r} must be of type {_type_name(default)} "
                f"(like its default {default!r}), got {value!r} of type {_type_name(value)}"
            )
        merged[name] = value
    if "scale" in merged and merged["scale"] not in SCALES:
        raise ParameterError(
            f"parameter 'scale' must be one of {', '.join(map(repr, SCALES))}; got {merged['scale']!r}"
        )
    if "seed" in merged and (
        isinstance(merged["seed"], bool)
        or not isinstance(merged["seed"], int)
        or merged["seed"] < 0
    ):
        raise ParameterError(
            f"parameter 'seed' must be a non-negative int, got {merged['seed']!r}"
        )
    return merged
