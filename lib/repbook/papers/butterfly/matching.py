"""The permutation symmetry of hidden units and weight matching (Ainsworth, Hayase & Srinivasa,
2023): which axes each unit group acts on (``mlp_perm_spec``, ``resnet_perm_spec``), applying a
permutation (``permute``) and the coordinate ascent that aligns one network to another
(``weight_matching``).
"""

from __future__ import annotations

from collections.abc import Mapping

import torch
from scipy.optimize import linear_sum_assignment

from repbook.core import checks

from .models import MLP, Params, PermSpec, ResNetLN, _check_same_keys


# ----------------------------------------------------------------------------------------------
# permutation symmetry and weight matching
def mlp_perm_spec(model: MLP) -> dict[str, tuple[str | None, ...]]:
    """Hidden layer ℓ's units form group ``P{ℓ}``; inputs and outputs are not permuted."""
    spec, n = {}, len(model.layers)
    for i in range(n):
        out_p = f"P{i}" if i < n - 1 else None
        in_p = f"P{i - 1}" if i > 0 else None
        spec[f"layers.{i}.weight"] = (out_p, in_p)
        spec[f"layers.{i}.bias"] = (out_p,)
    return spec


def resnet_perm_spec(model: ResNetLN) -> dict[str, tuple[str | None, ...]]:
    """Channel groups of ``ResNetLN``: one per block interior, one per stage's residual stream
    (blocks joined by identity shortcuts share their stream's group)."""
    spec = {
        "stem_conv.weight": ("R0", None, None, None),
        "stem_norm.weight": ("R0",),
        "stem_norm.bias": ("R0",),
    }
    res, n_res = "R0", 0
    for i, block in enumerate(model.blocks):
        inner, p = f"B{i}", f"blocks.{i}."
        out = res
        if block.has_shortcut:
            n_res += 1
            out = f"R{n_res}"
            spec[p + "shortcut_conv.weight"] = (out, res, None, None)
            spec[p + "shortcut_norm.weight"] = (out,)
            spec[p + "shortcut_norm.bias"] = (out,)
        spec[p + "conv1.weight"] = (inner, res, None, None)
        spec[p + "norm1.weight"] = (inner,)
        spec[p + "norm1.bias"] = (inner,)
        spec[p + "conv2.weight"] = (out, inner, None, None)
        spec[p + "norm2.weight"] = (out,)
        spec[p + "norm2.bias"] = (out,)
        res = out
    spec["fc.weight"] = (None, res)
    spec["fc.bias"] = (None,)
    return spec


def _check_spec(params: Params, spec: PermSpec) -> dict[str, int]:
    if set(spec) != set(params):
        raise ValueError(
            f"spec must name exactly the parameters; missing {sorted(set(params) - set(spec))}, "
            f"unknown {sorted(set(spec) - set(params))}"
        )
    sizes: dict[str, int] = {}
    for name, axes in spec.items():
        if len(axes) != params[name].dim():
            raise ValueError(
                f"spec[{name!r}] has {len(axes)} axes, the parameter has "
                f"{params[name].dim()}"
            )
        for ax, group in enumerate(axes):
            if group is None:
                continue
            n = params[name].shape[ax]
            if sizes.setdefault(group, n) != n:
                raise ValueError(
                    f"group {group!r} has size {sizes[group]} elsewhere but {n} on "
                    f"axis {ax} of {name!r}"
                )
    return sizes


def permute(
    params: Params,
    spec: PermSpec,
    perms: Mapping[str, torch.Tensor],
    *,
    skip: tuple[str, int] | None = None,
) -> Params:
    """Apply the unit permutations: along an axis of group g, new unit i is old unit perms[g][i].
    A network permuted consistently (every group on all its axes) computes the same function."""
    out = {}
    for name, p in params.items():
        for ax, group in enumerate(spec[name]):
            if group is not None and (name, ax) != skip:
                p = p.index_select(ax, perms[group].to(p.device))
        out[name] = p
    return out


def weight_matching(
    a: Params,
    b: Params,
    spec: PermSpec,
    *,
    generator: torch.Generator,
    max_sweeps: int = 100,
) -> dict[str, torch.Tensor]:
    """Weight matching (Ainsworth, Hayase & Srinivasa, 2023): the permutations of θ_b's hidden
    units that maximise Σ ⟨θ_a, π(θ_b)⟩, i.e. minimise ‖θ_a − π(θ_b)‖₂.

    Coordinate ascent from the identity: groups are visited in a random order (``generator``),
    each solved exactly by a linear assignment given the others, until a sweep changes nothing.
    Never increases the distance. Returns {group: index tensor} for ``permute``.
    """
    _check_same_keys(a, b)
    checks.torch_generator("generator", generator)
    sizes = _check_spec(a, spec)
    max_sweeps = checks.integer("max_sweeps", max_sweeps, at_least=1)
    perms = {g: torch.arange(n) for g, n in sizes.items()}
    where = {
        g: [
            (k, ax) for k, axes in spec.items() for ax, gg in enumerate(axes) if gg == g
        ]
        for g in sizes
    }
    groups = list(sizes)
    a64 = {k: v.detach().cpu().double() for k, v in a.items()}
    b64 = {k: v.detach().cpu().double() for k, v in b.items()}
    for _ in range(max_sweeps):
        changed = False
        for gi in torch.randperm(len(groups), generator=generator).tolist():
            g = groups[gi]
            n = sizes[g]
            cost = torch.zeros(n, n, dtype=torch.float64)
            for name, ax in where[g]:
                wb = permute(
                    {name: b64[name]}, {name: spec[name]}, perms, skip=(name, ax)
                )[name]
                cost += (
                    a64[name].moveaxis(ax, 0).reshape(n, -1)
                    @ wb.moveaxis(ax, 0).reshape(n, -1).T
                )
            _, cols = linear_sum_assignment(cost.numpy(), maximize=True)
            new = torch.as_tensor(cols, dtype=torch.long)
            old_score = float(cost[torch.arange(n), perms[g]].sum())
            new_score = float(cost[torch.arange(n), new].sum())
            if new_score > old_score + 1e-12 * max(1.0, abs(old_score)):
                perms[g] = new
                changed = True
        if not changed:
            break
    return perms
