"""The samplers (the released code's noise-free step and the paper's Langevin step), the
contrastive-divergence training of the pair EBMs, and the augmentations their chains make."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import torch
from torch import nn

from repbook.core import checks

from ._checks import _check_batch, _check_masks, _image_list
from .networks import GroupedStyleEBM, make_ebm
from .vqvae import VQVAE

SAMPLERS = ("code", "langevin")


def sample_chain(
    energy: Callable[[torch.Tensor], torch.Tensor],
    x0,
    *,
    steps: int,
    step_size: float,
    sampler: str = "code",
    save_every: int = 1,
    generator: torch.Generator | None = None,
    clip: tuple[float, float] | None = None,
) -> torch.Tensor:
    """Run `steps` sampler steps from x0 on the energy E (one number per sample) and return the
    iterates 0, save_every, 2·save_every, …, stacked: shape (1 + steps // save_every, *x0.shape).

    ``sampler="code"``: x ← x − η∇E(x), η = step_size (no noise, as in the released code).
    ``sampler="langevin"``: x ← x − (β/2)∇E(x) + √β·ω, β = step_size (the paper's step; needs a
    `generator` for ω). `clip` = (lo, hi) clamps every iterate (the pixel range).
    """
    steps = checks.integer("steps", steps, at_least=1)
    step_size = checks.number("step_size", step_size, above=0)
    save_every = checks.integer("save_every", save_every, at_least=1)
    checks.one_of("sampler", sampler, SAMPLERS)
    if sampler == "langevin" and not isinstance(generator, torch.Generator):
        raise ValueError("the langevin sampler needs a torch.Generator for its noise")
    if not isinstance(x0, torch.Tensor):
        x0 = torch.as_tensor(np.asarray(x0), dtype=torch.float32)
    if x0.numel() == 0 or not torch.isfinite(x0).all():
        raise ValueError("x0 must be a non-empty, finite tensor")
    if clip is not None and not (len(clip) == 2 and clip[0] < clip[1]):
        raise ValueError(f"clip must be (lo, hi) with lo < hi, got {clip!r}")
    x = x0.detach().clone()
    saved = [x.clone()]
    for k in range(1, steps + 1):
        x.requires_grad_(True)
        (grad,) = torch.autograd.grad(energy(x).sum(), x)
        with torch.no_grad():
            if sampler == "code":
                x = x - step_size * grad
            else:
                noise = torch.randn(x.shape, generator=generator, dtype=x.dtype)
                x = x - 0.5 * step_size * grad + math.sqrt(step_size) * noise
            if clip is not None:
                x = x.clamp(clip[0], clip[1])
        x = x.detach()
        if k % save_every == 0:
            saved.append(x.clone())
    return torch.stack(saved)


def ebm_energy(ebm: nn.Module, temperature: float = 1.0):
    """E(x) = −f(x)/T for an EBM f: the energy the samplers descend. f is only defined up to a
    scale, so T sets how far one Langevin step drifts against its noise (drift β/(2T), noise
    √β per pixel)."""
    temperature = checks.number("temperature", temperature, above=0)
    return lambda x: -ebm(x) / temperature


@dataclass(frozen=True)
class EBMTrace:
    """Trained pair EBMs (one group per pair) and their contrastive-divergence losses,
    shape (iters, G)."""

    ebm: GroupedStyleEBM
    losses: np.ndarray


def train_pair_ebms(
    sources,
    targets,
    *,
    iters: int,
    batch: int,
    steps: int,
    step_size: float,
    generator: torch.Generator,
    sampler: str = "code",
    temperature: float = 1.0,
    l2: float = 0.1,
    lr: float = 1e-3,
    widths: Sequence[int] = (32, 64, 64),
    clip: tuple[float, float] | None = (0.0, 1.0),
    offset: float = 0.5,
) -> EBMTrace:
    """Contrastive divergence for the ordered pairs sources[g] → targets[g], as in the released
    code: each iteration runs a `steps`-step chain from a batch of source images, then takes an
    Adam step (lr, betas 0.5/0.999) on −(f(x_j) − f(x_chain)).mean() +
    l2·(f(x_j)² + f(x_chain)²).mean() (the code's optional penalty has weight 1 or 0).
    The G pairs train side by side as independent members of one grouped model (Adam is
    elementwise, so this equals G separate runs). Inputs are images (clip to [0, 1], offset
    0.5) or VQ-VAE latents of any channel count (clip None, offset 0)."""
    sources, targets = _image_list("sources", sources), _image_list("targets", targets)
    if len(sources) != len(targets):
        raise ValueError(
            f"sources and targets must pair up, got {len(sources)} and {len(targets)}"
        )
    iters, batch = (
        checks.integer("iters", iters, at_least=1),
        checks.integer("batch", batch, at_least=1),
    )
    checks.number("l2", l2, at_least=0)
    lr = checks.number("lr", lr, above=0)
    if len({x.shape[1:] for x in sources + targets}) != 1:
        raise ValueError("sources and targets must all have the same (C, H, W)")
    G, cin = len(sources), sources[0].shape[1]
    ebm = GroupedStyleEBM(
        [make_ebm(generator, widths, in_channels=cin, offset=offset) for _ in range(G)]
    )
    opt = torch.optim.Adam(ebm.parameters(), lr=lr, betas=(0.5, 0.999))
    energy = ebm_energy(ebm, temperature)

    def draw(xs):
        return torch.stack(
            [x[torch.randint(len(x), (batch,), generator=generator)] for x in xs]
        )

    losses = np.empty((iters, G))
    for it in range(iters):
        xs, xt = draw(sources), draw(targets)
        ebm.requires_grad_(False)
        xc = sample_chain(
            energy,
            xs,
            steps=steps,
            step_size=step_size,
            sampler=sampler,
            save_every=steps,
            generator=generator,
            clip=clip,
        )[-1]
        ebm.requires_grad_(True)
        ft, fc = ebm(xt), ebm(xc)
        per_pair = -(ft - fc).mean(1) + l2 * (ft**2 + fc**2).mean(1)
        opt.zero_grad()
        per_pair.sum().backward()
        opt.step()
        losses[it] = per_pair.detach().numpy()
    ebm.eval()
    ebm.requires_grad_(False)
    return EBMTrace(ebm, losses)


@dataclass(frozen=True)
class Augmentations:
    """LangDAug samples: the saved iterates `chains` (n_saved, *images.shape) with step 0 first,
    the `steps` they were taken at, and the labelled augmentations: every iterate after step 0,
    flattened to (N, 3, H, W), with the source masks (N, H, W)."""

    chains: torch.Tensor
    steps: tuple[int, ...]
    images: torch.Tensor
    masks: torch.Tensor


def langdaug_augment(
    ebm: nn.Module,
    images,
    masks,
    *,
    steps: int,
    step_size: float,
    sampler: str = "code",
    save_every: int = 5,
    temperature: float = 1.0,
    generator: torch.Generator | None = None,
    vq: "VQVAE | None" = None,
) -> Augmentations:
    """Run the pair EBMs' chains from source `images` ((n, 3, H, W) for one StyleEBM, or
    (G, n, 3, H, W) for a grouped one) and keep iterates save_every, 2·save_every, …, steps as
    augmentations labelled with the source masks ((n, H, W) or (G, n, H, W)).

    With `vq`, the chains run on the VQ-VAE's quantised latents (unclipped, as in the paper)
    and every saved iterate is decoded, so `chains` are images either way (step 0 is then the
    reconstruction of the source image)."""
    images = _check_batch("images", images)
    if vq is not None and not isinstance(vq, VQVAE):
        raise TypeError(f"vq must be a VQVAE or None, got {type(vq).__name__}")
    masks = (
        masks if isinstance(masks, torch.Tensor) else torch.as_tensor(np.asarray(masks))
    )
    want = (*images.shape[:-3], *images.shape[-2:])
    if tuple(masks.shape) != want:
        raise ValueError(
            f"masks must have shape {want}, one mask per source image, got "
            f"{tuple(masks.shape)}"
        )
    masks = _check_masks("masks", masks.reshape(-1, *want[-2:])).view(want)
    steps = checks.integer("steps", steps, at_least=1)
    save_every = checks.integer("save_every", save_every, at_least=1)
    if steps % save_every:
        raise ValueError(
            f"steps ({steps}) must be a multiple of save_every ({save_every})"
        )
    start = images if vq is None else vq.latent(images.flatten(0, -4))
    if vq is not None:
        start = start.view(*images.shape[:-3], *start.shape[1:])
    chains = sample_chain(
        ebm_energy(ebm, temperature),
        start,
        steps=steps,
        step_size=step_size,
        sampler=sampler,
        save_every=save_every,
        generator=generator,
        clip=(0.0, 1.0) if vq is None else None,
    )
    if vq is not None:
        with torch.no_grad():
            dec = vq.decode(chains.flatten(0, -4))
        chains = dec.view(*chains.shape[:-3], *dec.shape[1:])
    n_saved = chains.shape[0] - 1
    aug = chains[1:].reshape(-1, *images.shape[-3:])
    labels = masks.expand(n_saved, *masks.shape).reshape(-1, *masks.shape[-2:])
    return Augmentations(
        chains, tuple(range(0, steps + 1, save_every)), aug, labels.contiguous()
    )
