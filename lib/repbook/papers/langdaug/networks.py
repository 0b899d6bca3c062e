"""Dice, the segmentation loss, and the networks: the pair EBMs (`StyleEBM`), the 2-level UNet,
and G independent copies of either run in one pass through grouped convolutions."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch
from torch import nn
from torch.nn import functional

from repbook.core import checks, nets

from ._checks import _check_even, _check_masks, _draw_seed


def dice_score(pred, target) -> np.ndarray:
    """Per-image Dice 2|P∩T|/(|P|+|T|) of binary masks (n, H, W); 1 when both are empty."""
    t = _check_masks("target", target)
    p = _check_masks("pred", pred, t.shape)
    inter = (p * t).sum(dim=(1, 2)).double()
    total = (p.sum(dim=(1, 2)) + t.sum(dim=(1, 2))).double()
    d = torch.where(total > 0, 2 * inter / total.clamp_min(1), torch.ones_like(total))
    return d.numpy()


def soft_dice_loss(logits: torch.Tensor, target: torch.Tensor, eps: float = 1.0):
    """1 − soft Dice of sigmoid(logits) against the target, per image, averaged."""
    p = torch.sigmoid(logits)
    inter = (p * target).sum(dim=(1, 2))
    total = p.sum(dim=(1, 2)) + target.sum(dim=(1, 2))
    return (1 - (2 * inter + eps) / (total + eps)).mean()


def seg_loss(logits: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    """BCE + soft Dice, the segmentation loss of the paper's code."""
    return functional.binary_cross_entropy_with_logits(logits, target) + soft_dice_loss(
        logits, target
    )


# ----------------------------------------------------------------------------------------------
# networks: one model, and G independent models evaluated in one pass (grouped convolutions)
class StyleEBM(nn.Module):
    """f(x): three stride-2 3×3 convolutions with SiLU, global average pooling, a linear head.
    Shallow and globally pooled, so it reads style (colour, contrast, noise) more than anatomy.
    Input (b, in_channels, H, W) (images, offset 0.5; or VQ-VAE latents, offset 0); one number
    per input. The energy is E = −f."""

    def __init__(
        self,
        widths: Sequence[int] = (32, 64, 64),
        *,
        in_channels: int = 3,
        offset: float = 0.5,
    ):
        super().__init__()
        self.widths = tuple(checks.integer("widths[i]", w, at_least=1) for w in widths)
        self.in_channels = checks.integer("in_channels", in_channels, at_least=1)
        self.offset = float(offset)
        layers, c = [], self.in_channels
        for w in self.widths:
            layers += [nn.Conv2d(c, w, 3, stride=2, padding=1), nn.SiLU()]
            c = w
        self.features = nn.Sequential(*layers)
        self.head = nn.Linear(c, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.features(x - self.offset).mean(dim=(2, 3))
        return self.head(h).squeeze(1)


class UNet2(nn.Module):
    """A 2-level UNet: two 3×3 conv+ReLU at full resolution (c1 channels), 2×2 max-pool, two at
    half resolution (c2), a transposed-conv up-sampling, skip concatenation, two convs and a 1×1
    output. Input (b, 3, H, W) with H, W even; one logit per pixel, (b, H, W)."""

    def __init__(self, c1: int = 16, c2: int = 32):
        super().__init__()
        self.c1, self.c2 = (
            checks.integer("c1", c1, at_least=1),
            checks.integer("c2", c2, at_least=1),
        )
        self.enc1, self.enc2 = _block(3, self.c1), _block(self.c1, self.c2)
        self.up = nn.ConvTranspose2d(self.c2, self.c1, 2, stride=2)
        self.dec = _block(2 * self.c1, self.c1)
        self.out = nn.Conv2d(self.c1, 1, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if x.ndim != 4:
            raise ValueError(f"UNet2 takes (b, 3, H, W), got shape {tuple(x.shape)}")
        _check_even(x)
        h1 = self.enc1(x)
        h2 = self.enc2(functional.max_pool2d(h1, 2))
        h = self.dec(torch.cat([self.up(h2), h1], dim=1))
        return self.out(h).squeeze(1)


def _block(cin: int, cout: int, groups: int = 1) -> nn.Sequential:
    return nn.Sequential(
        nn.Conv2d(groups * cin, groups * cout, 3, padding=1, groups=groups),
        nn.ReLU(),
        nn.Conv2d(groups * cout, groups * cout, 3, padding=1, groups=groups),
        nn.ReLU(),
    )


def _convs(module: nn.Module) -> list[nn.Module]:
    return [
        m for m in module.modules() if isinstance(m, (nn.Conv2d, nn.ConvTranspose2d))
    ]


@torch.no_grad()
def _stack_into(grouped: nn.Module, members: Sequence[nn.Module]) -> None:
    """Copy the members' conv weights into the grouped model's group slices (same order)."""
    per_member = [_convs(m) for m in members]
    for j, gconv in enumerate(_convs(grouped)):
        gconv.weight.copy_(torch.cat([convs[j].weight for convs in per_member]))
        gconv.bias.copy_(torch.cat([convs[j].bias for convs in per_member]))


@torch.no_grad()
def _slice_into(member: nn.Module, grouped: nn.Module, g: int, G: int) -> None:
    for mconv, gconv in zip(_convs(member), _convs(grouped)):
        n_w, n_b = gconv.weight.shape[0] // G, gconv.bias.shape[0] // G
        mconv.weight.copy_(gconv.weight[g * n_w : (g + 1) * n_w])
        mconv.bias.copy_(gconv.bias[g * n_b : (g + 1) * n_b])


def _to_groups(x: torch.Tensor, G: int) -> torch.Tensor:
    """(G, b, C, H, W) → (b, G·C, H, W), each model's channels contiguous."""
    if x.ndim != 5 or x.shape[0] != G:
        raise ValueError(
            f"a grouped model of {G} members takes (G={G}, b, C, H, W), got shape "
            f"{tuple(x.shape)}"
        )
    return x.transpose(0, 1).reshape(x.shape[1], G * x.shape[2], *x.shape[3:])


class GroupedStyleEBM(nn.Module):
    """G independent StyleEBMs (one per ordered domain pair) run in one pass through grouped
    convolutions. Input (G, b, 3, H, W): batch g goes to member g; output (G, b). Built from
    members (their weights are copied), and `member(g)` gives member g back as a StyleEBM."""

    def __init__(self, members: Sequence[StyleEBM]):
        super().__init__()
        if not members or not all(isinstance(m, StyleEBM) for m in members):
            raise ValueError("members must be a non-empty sequence of StyleEBM")
        first = members[0]
        widths, cin, offset = first.widths, first.in_channels, first.offset
        if any(
            (m.widths, m.in_channels, m.offset) != (widths, cin, offset)
            for m in members
        ):
            raise ValueError(
                "all members must have the same widths, in_channels and offset"
            )
        self.G, self.widths, self.in_channels, self.offset = (
            len(members),
            widths,
            cin,
            offset,
        )
        layers, c = [], cin
        for w in widths:
            layers += [
                nn.Conv2d(
                    self.G * c, self.G * w, 3, stride=2, padding=1, groups=self.G
                ),
                nn.SiLU(),
            ]
            c = w
        self.features = nn.Sequential(*layers)
        with torch.no_grad():
            w = torch.stack([m.head.weight[0] for m in members]).clone()
            b = torch.cat([m.head.bias for m in members]).clone()
        self.head_weight, self.head_bias = nn.Parameter(w), nn.Parameter(b)
        _stack_into(self.features, [m.features for m in members])

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b = x.shape[1]
        h = self.features(_to_groups(x, self.G) - self.offset).mean(dim=(2, 3))
        h = h.view(b, self.G, -1).transpose(0, 1)  # (G, b, c)
        return torch.einsum("gbc,gc->gb", h, self.head_weight) + self.head_bias[:, None]

    def member(self, g: int) -> StyleEBM:
        if not (isinstance(g, int) and 0 <= g < self.G):
            raise ValueError(f"g must be an int in [0, {self.G}), got {g!r}")
        m = StyleEBM(self.widths, in_channels=self.in_channels, offset=self.offset)
        _slice_into(m.features, self.features, g, self.G)
        with torch.no_grad():
            m.head.weight.copy_(self.head_weight[g][None])
            m.head.bias.copy_(self.head_bias[g : g + 1])
        return m


class GroupedUNet(nn.Module):
    """G independent UNet2 models in one pass (grouped convolutions): input (G, b, 3, H, W),
    output (G, b, H, W). Built from members (weights copied); `member(g)` gives one back."""

    def __init__(self, members: Sequence[UNet2]):
        super().__init__()
        if not members or not all(isinstance(m, UNet2) for m in members):
            raise ValueError("members must be a non-empty sequence of UNet2")
        c1, c2 = members[0].c1, members[0].c2
        if any((m.c1, m.c2) != (c1, c2) for m in members):
            raise ValueError("all members must have the same widths")
        G = self.G = len(members)
        self.c1, self.c2 = c1, c2
        self.enc1, self.enc2 = _block(3, c1, G), _block(c1, c2, G)
        self.up = nn.ConvTranspose2d(G * c2, G * c1, 2, stride=2, groups=G)
        self.dec = _block(2 * c1, c1, G)
        self.out = nn.Conv2d(G * c1, G, 1, groups=G)
        _stack_into(self, members)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        _check_even(x)
        G, b, (H, W) = self.G, x.shape[1], x.shape[-2:]
        h1 = self.enc1(_to_groups(x, G))
        h2 = self.enc2(functional.max_pool2d(h1, 2))
        up = self.up(h2).view(b, G, self.c1, H, W)
        h = torch.cat([up, h1.view(b, G, self.c1, H, W)], dim=2)
        return self.out(self.dec(h.view(b, G * 2 * self.c1, H, W))).transpose(0, 1)

    def member(self, g: int) -> UNet2:
        if not (isinstance(g, int) and 0 <= g < self.G):
            raise ValueError(f"g must be an int in [0, {self.G}), got {g!r}")
        m = UNet2(self.c1, self.c2)
        _slice_into(m, self, g, self.G)
        return m


def make_ebm(
    generator: torch.Generator,
    widths: Sequence[int] = (32, 64, 64),
    *,
    in_channels: int = 3,
    offset: float = 0.5,
) -> StyleEBM:
    """A StyleEBM initialised from `generator` (no global random state is touched)."""
    with nets.seeded(_draw_seed(generator)):
        return StyleEBM(widths, in_channels=in_channels, offset=offset)


def make_unet(generator: torch.Generator, c1: int = 16, c2: int = 32) -> UNet2:
    """A UNet2 initialised from `generator`: the same generator state gives the same weights."""
    with nets.seeded(_draw_seed(generator)):
        return UNet2(c1, c2)
