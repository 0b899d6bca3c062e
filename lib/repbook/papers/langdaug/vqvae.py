"""A small VQ-VAE: at full scale the chains run in its latent space, as in the paper."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
from torch import nn
from torch.nn import functional

from repbook.core import checks, nets

from ._checks import _check_images, _draw_seed


class VQVAE(nn.Module):
    """Encoder (two stride-2 4×4 convs and a 3×3 conv, ReLU) to `embed_dim` channels at 1/4
    resolution, a codebook of `n_embed` vectors (nearest-code quantisation with a
    straight-through gradient), and a mirrored decoder ending in a sigmoid. `latent(x)` is the
    quantised latent; `decode(z)` accepts any continuous latent, as the chains need."""

    def __init__(self, channels: int = 32, embed_dim: int = 16, n_embed: int = 64):
        super().__init__()
        ch = checks.integer("channels", channels, at_least=1)
        if ch % 2:
            raise ValueError(f"channels must be even, got {ch}")
        d, k = (
            checks.integer("embed_dim", embed_dim, at_least=1),
            checks.integer("n_embed", n_embed, at_least=1),
        )
        self.embed_dim, self.n_embed = d, k
        self.enc = nn.Sequential(
            nn.Conv2d(3, ch // 2, 4, stride=2, padding=1),
            nn.ReLU(),
            nn.Conv2d(ch // 2, ch, 4, stride=2, padding=1),
            nn.ReLU(),
            nn.Conv2d(ch, ch, 3, padding=1),
            nn.ReLU(),
            nn.Conv2d(ch, d, 1),
        )
        self.codebook = nn.Parameter(torch.randn(k, d) * 0.5)
        self.dec = nn.Sequential(
            nn.Conv2d(d, ch, 3, padding=1),
            nn.ReLU(),
            nn.ConvTranspose2d(ch, ch // 2, 4, stride=2, padding=1),
            nn.ReLU(),
            nn.ConvTranspose2d(ch // 2, 3, 4, stride=2, padding=1),
        )

    def quantize(self, z: torch.Tensor):
        """Nearest codebook vector per position: (quantised z with a straight-through gradient,
        codebook loss, commitment loss, code indices)."""
        flat = z.permute(0, 2, 3, 1).reshape(-1, self.embed_dim)
        d2 = (
            (flat**2).sum(1, keepdim=True)
            - 2 * flat @ self.codebook.T
            + (self.codebook**2).sum(1)[None]
        )
        idx = d2.argmin(1)
        # a one-hot product instead of indexing: deterministic gradients on every device
        q = functional.one_hot(idx, self.n_embed).to(flat.dtype) @ self.codebook
        q = q.view(z.shape[0], z.shape[2], z.shape[3], -1).permute(0, 3, 1, 2)
        codebook_loss = functional.mse_loss(q, z.detach())
        commitment = functional.mse_loss(z, q.detach())
        return z + (q - z).detach(), codebook_loss, commitment, idx.view(z.shape[0], -1)

    def forward(self, x: torch.Tensor):
        if x.ndim != 4 or x.shape[1] != 3 or x.shape[-1] % 4 or x.shape[-2] % 4:
            raise ValueError(
                f"VQVAE takes (b, 3, H, W) with H, W divisible by 4, got {tuple(x.shape)}"
            )
        q, cb, commit, _ = self.quantize(self.enc(x))
        return self.decode(q), cb, commit

    def decode(self, z: torch.Tensor) -> torch.Tensor:
        return torch.sigmoid(self.dec(z))

    @torch.no_grad()
    def latent(self, x: torch.Tensor) -> torch.Tensor:
        x = _check_images("x", x)
        return self.quantize(self.enc(x))[0]


@dataclass(frozen=True)
class VQTrace:
    model: VQVAE
    losses: np.ndarray  # reconstruction MSE per step


def train_vqvae(
    images,
    *,
    steps: int,
    batch: int,
    generator: torch.Generator,
    lr: float = 2e-3,
    beta: float = 0.25,
    channels: int = 32,
    embed_dim: int = 16,
    n_embed: int = 64,
) -> VQTrace:
    """Adam on reconstruction MSE + codebook loss + beta·commitment loss."""
    images = _check_images("images", images)
    steps, batch = (
        checks.integer("steps", steps, at_least=1),
        checks.integer("batch", batch, at_least=1),
    )
    beta = checks.number("beta", beta, above=0)
    with nets.seeded(_draw_seed(generator)):
        model = VQVAE(channels, embed_dim, n_embed)
    opt = torch.optim.Adam(model.parameters(), lr=checks.number("lr", lr, above=0))
    losses = np.empty(steps)
    for s in range(steps):
        x = images[torch.randint(len(images), (batch,), generator=generator)]
        recon, cb, commit = model(x)
        mse = functional.mse_loss(recon, x)
        opt.zero_grad()
        (mse + cb + beta * commit).backward()
        opt.step()
        losses[s] = mse.item()
    model.eval()
    model.requires_grad_(False)
    return VQTrace(model, losses)
