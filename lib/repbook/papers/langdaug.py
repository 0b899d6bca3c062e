"""LangDAug: Langevin traversal between source domains as data augmentation (Tiwary,
Bhattacharyya, Prathosh A. P., ICML 2025, arXiv 2505.19659), on synthetic fundus-like domains.

Notation. Domains D_1..D_n share the anatomy and differ in acquisition style. For an ordered pair
i → j an energy-based model f_ij (a small conv net; f is the *negative* energy, E = −f) is trained
by contrastive divergence: chains start at images of domain i, move a few steps uphill on f, and
the loss −(f(x_j) − f(x_chain)) pulls f up on domain j and down where the chains stopped. The
samplers, started at an image x_0 of domain i:

- ``"langevin"`` (the paper): x_{k+1} = x_k − (β/2)∇E(x_k) + √β·ω_k, ω_k ~ N(0, I);
- ``"code"`` (the released code): x_{k+1} = x_k − η∇E(x_k), plain gradient descent on E
  (gradient ascent on f with an SGD learning rate η), no noise.

Every ``save_every``-th iterate (5, 10, …, K) becomes an augmentation labelled with the source
image's mask. A 2-level UNet trained with BCE + Dice segments the disc.

Images are float32 tensors (n, 3, H, W) in [0, 1]; masks are (n, H, W) with values 0 and 1.
Randomness comes in as ``numpy.random.Generator`` (data) or ``torch.Generator`` (chains, batches,
network initialisation). No printing, plotting or file writing.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

SAMPLERS = ("code", "langevin")
SCHEDULES = ("constant", "poly")


# ----------------------------------------------------------------------------------------------
# input checks
def _positive_int(name: str, value) -> int:
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, np.integer))
        or value <= 0
    ):
        raise ValueError(f"{name} must be a positive int, got {value!r}")
    return int(value)


def _positive_float(name: str, value) -> float:
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, float, np.integer, np.floating))
        or not math.isfinite(float(value))
        or value <= 0
    ):
        raise ValueError(f"{name} must be a positive finite number, got {value!r}")
    return float(value)


def _check_images(name: str, x, *, channels: int | None = 3) -> torch.Tensor:
    if not isinstance(x, torch.Tensor):
        x = torch.as_tensor(np.asarray(x), dtype=torch.float32)
    if x.ndim != 4 or (channels is not None and x.shape[1] != channels):
        want = f"(n, {channels}, H, W)" if channels else "(n, C, H, W)"
        raise ValueError(f"{name} must have shape {want}, got {tuple(x.shape)}")
    if x.shape[0] == 0:
        raise ValueError(
            f"{name} must hold at least one image, got shape {tuple(x.shape)}"
        )
    if not torch.isfinite(x).all():
        raise ValueError(f"{name} must be finite; it holds NaN or inf values")
    return x if x.is_floating_point() else x.float()


def _check_masks(name: str, m, shape: Sequence[int] | None = None) -> torch.Tensor:
    if not isinstance(m, torch.Tensor):
        m = torch.as_tensor(np.asarray(m))
    if m.ndim != 3:
        raise ValueError(f"{name} must have shape (n, H, W), got {tuple(m.shape)}")
    if shape is not None and tuple(m.shape) != tuple(shape):
        raise ValueError(
            f"{name} must have shape {tuple(shape)} to match the images, got "
            f"{tuple(m.shape)}"
        )
    mf = m if m.is_floating_point() else m.float()
    if not torch.isfinite(mf).all() or not ((mf == 0) | (mf == 1)).all():
        bad = mf[~((mf == 0) | (mf == 1))]
        raise ValueError(
            f"{name} must be binary (0/1), got a value {bad.flatten()[0].item()!r}"
        )
    return mf


# ----------------------------------------------------------------------------------------------
# synthetic fundus-like domains
@dataclass(frozen=True)
class Style:
    """An acquisition style: pixel value of channel c is
    clip(tint_c · L^gamma_c + bias_c + noise·ε, 0, 1), with L the scene's luminance in [0, 1]."""

    tint: tuple[float, float, float]
    gamma: tuple[float, float, float]
    bias: tuple[float, float, float]
    noise: float

    def __post_init__(self):
        for field in ("tint", "gamma", "bias"):
            v = getattr(self, field)
            if len(v) != 3 or not all(math.isfinite(float(a)) for a in v):
                raise ValueError(f"Style.{field} must be 3 finite numbers, got {v!r}")
        if any(g <= 0 for g in self.gamma):
            raise ValueError(f"Style.gamma must be positive, got {self.gamma!r}")
        if not (math.isfinite(self.noise) and self.noise >= 0):
            raise ValueError(f"Style.noise must be ≥ 0, got {self.noise!r}")

    def vector(self) -> np.ndarray:
        """The 10 style parameters as one vector (tint, gamma, bias, noise)."""
        return np.array([*self.tint, *self.gamma, *self.bias, self.noise])

    @staticmethod
    def mix(styles: Sequence["Style"], weights: Sequence[float]) -> "Style":
        """The style whose parameters are the convex combination of `styles` with `weights`."""
        w = np.asarray(weights, dtype=float)
        if len(styles) == 0 or w.shape != (len(styles),):
            raise ValueError(
                f"weights must have one entry per style ({len(styles)}), got {weights!r}"
            )
        if (w < 0).any() or not np.isclose(w.sum(), 1.0):
            raise ValueError(f"weights must be ≥ 0 and sum to 1, got {weights!r}")
        v = sum(wi * s.vector() for wi, s in zip(w, styles))
        return Style(tuple(v[0:3]), tuple(v[3:6]), tuple(v[6:9]), float(v[9]))


_A = Style((0.95, 0.50, 0.30), (1.0, 1.1, 1.2), (0.02, 0.00, 0.04), 0.03)
_B = Style((0.60, 0.60, 0.25), (0.6, 0.7, 0.8), (0.25, 0.18, 0.08), 0.02)
_C = Style((0.55, 0.85, 0.80), (1.7, 1.5, 1.3), (0.00, 0.02, 0.12), 0.05)
_D = Style((0.80, 0.35, 0.75), (1.2, 0.9, 0.9), (0.10, 0.05, 0.15), 0.04)
STYLES: Mapping[str, Style] = {
    "A": _A,  # dark, red-orange
    "B": _B,  # bright, washed-out yellow, low contrast (gamma < 1)
    "C": _C,  # green-blue, high contrast (gamma > 1), noisy
    "D": _D,  # purple (a fourth source at full scale)
    # held out, between the sources: the centroid of A, B and C
    "M": Style.mix([_A, _B, _C], [1 / 3, 1 / 3, 1 / 3]),
    # held out, outside the sources' hull: A pushed away from B and C
    "X": Style((1.00, 0.30, 0.20), (1.9, 2.0, 2.1), (0.00, 0.00, 0.00), 0.06),
}
"""The named styles. Quick scale trains on A, B, C and tests on M (between them by construction);
full scale also holds out each of A–D in turn and tests on X, outside the sources' hull."""


def get_style(domain: str | Style) -> Style:
    """A Style, or the named one from STYLES (clear error for an unknown name)."""
    if isinstance(domain, Style):
        return domain
    if not isinstance(domain, str) or domain not in STYLES:
        raise ValueError(
            f"domain must be a Style or one of {', '.join(STYLES)}, got {domain!r}"
        )
    return STYLES[domain]


def hull_distance(point, vertices) -> float:
    """Euclidean distance from `point` (d,) to the convex hull of the rows of `vertices` (k, d):
    min ‖Σ wᵢ vᵢ − point‖ over weights w ≥ 0 with Σ wᵢ = 1 (0 inside the hull). Solved as a
    non-negative least-squares problem with the sum-to-one constraint as a heavily weighted row."""
    from scipy.optimize import nnls

    p = np.asarray(point, dtype=float).reshape(-1)
    v = np.asarray(vertices, dtype=float)
    if v.ndim != 2 or v.shape[1] != p.shape[0] or v.shape[0] == 0:
        raise ValueError(
            f"vertices must have shape (k, {p.shape[0]}) to match the point, got {v.shape}"
        )
    if not (np.isfinite(p).all() and np.isfinite(v).all()):
        raise ValueError("point and vertices must be finite")
    big = 1e4 * max(1.0, float(np.abs(v).max()), float(np.abs(p).max()))
    a = np.vstack([v.T, big * np.ones(v.shape[0])])
    b = np.concatenate([p, [big]])
    w, _ = nnls(a, b, maxiter=50 * v.shape[0])
    w = w / w.sum()
    return float(np.linalg.norm(w @ v - p))


@dataclass(frozen=True)
class Scenes:
    """Style-free scenes: luminance in [0, 1], the disc mask, and the disc's ellipse
    (centre row, centre column, semi-axes a (rows) and b (columns) in pixels, angle θ)."""

    luminance: np.ndarray  # (n, H, W) float32
    masks: np.ndarray  # (n, H, W) float32, 0/1
    discs: np.ndarray  # (n, 5): cy, cx, a, b, theta


def disc_mask(size: int, cy: float, cx: float, a: float, b: float, theta: float):
    """The binary mask of the ellipse ((v·cosθ + u·sinθ)/a)² + ((−v·sinθ + u·cosθ)/b)² ≤ 1,
    with v = row − cy and u = column − cx, sampled at pixel centres."""
    rows, cols = np.mgrid[0:size, 0:size].astype(np.float64)
    v, u = rows - cy, cols - cx
    p = v * np.cos(theta) + u * np.sin(theta)
    q = -v * np.sin(theta) + u * np.cos(theta)
    return ((p / a) ** 2 + (q / b) ** 2 <= 1.0).astype(np.float32)


def draw_scenes(n: int, rng: np.random.Generator, *, size: int = 32) -> Scenes:
    """`n` fundus-like scenes: a textured, vignetted background, three dark curved vessels and a
    bright elliptic disc (the segmentation target). The style is applied by `apply_style`."""
    n, size = _positive_int("n", n), _positive_int("size", size)
    if size < 8:
        raise ValueError(f"size must be at least 8 pixels, got {size}")
    if not isinstance(rng, np.random.Generator):
        raise TypeError(
            f"rng must be a numpy.random.Generator, got {type(rng).__name__}"
        )
    s = size / 32.0
    rows, cols = np.mgrid[0:size, 0:size].astype(np.float64)
    lum = np.empty((n, size, size), np.float32)
    masks = np.empty((n, size, size), np.float32)
    discs = np.empty((n, 5))
    for k in range(n):
        # background: vignette plus a faint oriented texture
        r2 = ((rows - size / 2) ** 2 + (cols - size / 2) ** 2) / (size / 2) ** 2
        phi, freq, ang = (
            rng.uniform(0, 2 * np.pi),
            rng.uniform(0.3, 0.7) / s,
            rng.uniform(0, np.pi),
        )
        tex = np.sin(freq * (rows * np.cos(ang) + cols * np.sin(ang)) + phi)
        L = 0.42 - 0.12 * r2 + 0.05 * tex
        # three vessels: smooth curves, darker than the background
        for _ in range(3):
            horizontal = rng.random() < 0.5
            t, w = (cols, rows) if horizontal else (rows, cols)
            c0, amp = rng.uniform(0.2, 0.8) * size, rng.uniform(1.5, 4.0) * s
            fr, ph = rng.uniform(0.1, 0.25) / s, rng.uniform(0, 2 * np.pi)
            dist = np.abs(w - (c0 + amp * np.sin(fr * t + ph)))
            L -= 0.18 * np.exp(-((dist / (0.9 * s)) ** 2))
        # the disc
        cy, cx = rng.uniform(0.28, 0.72, size=2) * size
        a, b = rng.uniform(3.5, 6.5, size=2) * s
        theta = rng.uniform(0, np.pi)
        m = disc_mask(size, cy, cx, a, b, theta)
        L = np.where(m > 0, 0.80 + 0.05 * tex, L)
        lum[k] = np.clip(L, 0.02, 1.0)
        masks[k] = m
        discs[k] = (cy, cx, a, b, theta)
    return Scenes(lum, masks, discs)


def apply_style(
    luminance: np.ndarray, style: str | Style, rng: np.random.Generator
) -> np.ndarray:
    """Render scenes in a style: (n, H, W) luminance → (n, 3, H, W) float32 images in [0, 1]."""
    style = get_style(style)
    L = np.asarray(luminance, dtype=np.float64)
    if L.ndim != 3:
        raise ValueError(f"luminance must have shape (n, H, W), got {L.shape}")
    if not np.isfinite(L).all() or L.min() < 0 or L.max() > 1:
        raise ValueError("luminance must be finite and lie in [0, 1]")
    tint = np.asarray(style.tint)[None, :, None, None]
    gamma = np.asarray(style.gamma)[None, :, None, None]
    bias = np.asarray(style.bias)[None, :, None, None]
    x = tint * L[:, None] ** gamma + bias
    x = x + style.noise * rng.standard_normal(x.shape)
    return np.clip(x, 0.0, 1.0).astype(np.float32)


@dataclass(frozen=True)
class Domain:
    """Images (n, 3, H, W) in [0, 1] and disc masks (n, H, W) of one style."""

    name: str
    images: torch.Tensor
    masks: torch.Tensor


def make_domain(
    domain: str | Style, n: int, rng: np.random.Generator, *, size: int = 32
) -> Domain:
    """`n` images of a domain (a name in STYLES or a Style) with their disc masks."""
    style = get_style(domain)
    scenes = draw_scenes(n, rng, size=size)
    images = apply_style(scenes.luminance, style, rng)
    name = domain if isinstance(domain, str) else "custom"
    return Domain(name, torch.from_numpy(images), torch.from_numpy(scenes.masks))


def channel_means(images) -> torch.Tensor:
    """Per-image channel means, (n, 3): the style statistic the chains are tracked with."""
    x = _check_images("images", images)
    return x.mean(dim=(2, 3))


def style_distance(images, target_mean) -> float:
    """‖mean channel-mean of `images` − `target_mean`‖₂ (the batch's style centre to a domain's)."""
    m = channel_means(images).double().mean(0)
    t = torch.as_tensor(np.asarray(target_mean), dtype=torch.float64).reshape(-1)
    if t.shape != (3,):
        raise ValueError(
            f"target_mean must hold 3 channel means, got shape {tuple(t.shape)}"
        )
    return float(torch.linalg.norm(m - t))


# ----------------------------------------------------------------------------------------------
# Dice
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
    return F.binary_cross_entropy_with_logits(logits, target) + soft_dice_loss(
        logits, target
    )


# ----------------------------------------------------------------------------------------------
# networks: one model, and G independent models evaluated in one pass (grouped convolutions)
def _init_seed(generator: torch.Generator) -> int:
    if not isinstance(generator, torch.Generator):
        raise TypeError(
            f"generator must be a torch.Generator, got {type(generator).__name__}"
        )
    return int(torch.randint(0, 2**31 - 1, (1,), generator=generator))


def _check_even(x: torch.Tensor) -> None:
    if x.shape[-1] % 2 or x.shape[-2] % 2:
        raise ValueError(
            "the UNet halves the image once: H and W must be even, got "
            f"{tuple(x.shape[-2:])}"
        )


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
        self.widths = tuple(_positive_int("widths[i]", w) for w in widths)
        self.in_channels = _positive_int("in_channels", in_channels)
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
        self.c1, self.c2 = _positive_int("c1", c1), _positive_int("c2", c2)
        self.enc1, self.enc2 = _block(3, self.c1), _block(self.c1, self.c2)
        self.up = nn.ConvTranspose2d(self.c2, self.c1, 2, stride=2)
        self.dec = _block(2 * self.c1, self.c1)
        self.out = nn.Conv2d(self.c1, 1, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if x.ndim != 4:
            raise ValueError(f"UNet2 takes (b, 3, H, W), got shape {tuple(x.shape)}")
        _check_even(x)
        h1 = self.enc1(x)
        h2 = self.enc2(F.max_pool2d(h1, 2))
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
        h2 = self.enc2(F.max_pool2d(h1, 2))
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
    seed = _init_seed(generator)
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        return StyleEBM(widths, in_channels=in_channels, offset=offset)


def make_unet(generator: torch.Generator, c1: int = 16, c2: int = 32) -> UNet2:
    """A UNet2 initialised from `generator`: the same generator state gives the same weights."""
    seed = _init_seed(generator)
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        return UNet2(c1, c2)


# ----------------------------------------------------------------------------------------------
# samplers
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
    steps = _positive_int("steps", steps)
    step_size = _positive_float("step_size", step_size)
    save_every = _positive_int("save_every", save_every)
    if sampler not in SAMPLERS:
        raise ValueError(f"sampler must be one of {SAMPLERS}, got {sampler!r}")
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
    temperature = _positive_float("temperature", temperature)
    return lambda x: -ebm(x) / temperature


@dataclass(frozen=True)
class EBMTrace:
    """Trained pair EBMs (one group per pair) and their contrastive-divergence losses,
    shape (iters, G)."""

    ebm: GroupedStyleEBM
    losses: np.ndarray


def _image_list(name: str, xs) -> list[torch.Tensor]:
    if isinstance(xs, torch.Tensor) or not isinstance(xs, Sequence) or not xs:
        raise ValueError(f"{name} must be a non-empty list of image tensors")
    return [_check_images(f"{name}[{i}]", x, channels=None) for i, x in enumerate(xs)]


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
    iters, batch = _positive_int("iters", iters), _positive_int("batch", batch)
    if not (isinstance(l2, (int, float)) and l2 >= 0):
        raise ValueError(f"l2 must be a number ≥ 0, got {l2!r}")
    lr = _positive_float("lr", lr)
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


def _check_batch(name: str, x) -> torch.Tensor:
    """(n, 3, H, W) images, or (G, n, 3, H, W) for a grouped model."""
    if not isinstance(x, torch.Tensor):
        x = torch.as_tensor(np.asarray(x), dtype=torch.float32)
    if x.ndim == 5:
        _check_images(name, x.flatten(0, 1))
        return x.float()
    return _check_images(name, x)


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
    steps = _positive_int("steps", steps)
    save_every = _positive_int("save_every", save_every)
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


# ----------------------------------------------------------------------------------------------
# a small VQ-VAE (full scale: the chains run in its latent space, as in the paper)
class VQVAE(nn.Module):
    """Encoder (two stride-2 4×4 convs and a 3×3 conv, ReLU) to `embed_dim` channels at 1/4
    resolution, a codebook of `n_embed` vectors (nearest-code quantisation with a
    straight-through gradient), and a mirrored decoder ending in a sigmoid. `latent(x)` is the
    quantised latent; `decode(z)` accepts any continuous latent, as the chains need."""

    def __init__(self, channels: int = 32, embed_dim: int = 16, n_embed: int = 64):
        super().__init__()
        ch = _positive_int("channels", channels)
        if ch % 2:
            raise ValueError(f"channels must be even, got {ch}")
        d, k = _positive_int("embed_dim", embed_dim), _positive_int("n_embed", n_embed)
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
        q = F.one_hot(idx, self.n_embed).to(flat.dtype) @ self.codebook
        q = q.view(z.shape[0], z.shape[2], z.shape[3], -1).permute(0, 3, 1, 2)
        codebook_loss = F.mse_loss(q, z.detach())
        commitment = F.mse_loss(z, q.detach())
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
    steps, batch = _positive_int("steps", steps), _positive_int("batch", batch)
    beta = _positive_float("beta", beta)
    seed = _init_seed(generator)
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        model = VQVAE(channels, embed_dim, n_embed)
    opt = torch.optim.Adam(model.parameters(), lr=_positive_float("lr", lr))
    losses = np.empty(steps)
    for s in range(steps):
        x = images[torch.randint(len(images), (batch,), generator=generator)]
        recon, cb, commit = model(x)
        mse = F.mse_loss(recon, x)
        opt.zero_grad()
        (mse + cb + beta * commit).backward()
        opt.step()
        losses[s] = mse.item()
    model.eval()
    model.requires_grad_(False)
    return VQTrace(model, losses)


# ----------------------------------------------------------------------------------------------
# domain randomisation and segmentation training
@dataclass(frozen=True)
class DRRange:
    """Domain randomisation: per image and channel, x ← clip(g·x^γ + b, 0, 1) with g and b
    uniform and log γ uniform in the given ranges."""

    gain: tuple[float, float] = (0.6, 1.4)
    bias: tuple[float, float] = (-0.2, 0.2)
    gamma: tuple[float, float] = (0.6, 1.7)

    def __post_init__(self):
        for field in ("gain", "bias", "gamma"):
            lo, hi = getattr(self, field)
            if not lo <= hi:
                raise ValueError(f"DRRange.{field} must be (lo, hi) with lo ≤ hi")
        if self.gain[0] <= 0 or self.gamma[0] <= 0:
            raise ValueError("DRRange.gain and DRRange.gamma must be positive")


def domain_randomize(
    x: torch.Tensor, generator: torch.Generator, ranges: DRRange = DRRange()
) -> torch.Tensor:
    """Random gain, bias and gamma per image and channel (see DRRange)."""
    x = _check_images("x", x)
    shape = (x.shape[0], x.shape[1], 1, 1)

    def u(lo, hi):
        return lo + (hi - lo) * torch.rand(shape, generator=generator)

    g, b = u(*ranges.gain), u(*ranges.bias)
    gamma = torch.exp(u(math.log(ranges.gamma[0]), math.log(ranges.gamma[1])))
    return (g * x.clamp_min(1e-4) ** gamma + b).clamp(0.0, 1.0)


@dataclass(frozen=True)
class SegTask:
    """One segmentation training set: images, masks, and optional domain randomisation."""

    images: torch.Tensor
    masks: torch.Tensor
    randomize: DRRange | None = None

    def __post_init__(self):
        images = _check_images("images", self.images)
        masks = _check_masks("masks", self.masks, (images.shape[0], *images.shape[2:]))
        _check_even(images)
        object.__setattr__(self, "images", images)
        object.__setattr__(self, "masks", masks)


def poly_lr(base: float, step: int, total: int, power: float = 0.9) -> float:
    """The "poly" learning rate base·(1 − step/total)^power of the official segmentation code
    (DeepLab's LR_Scheduler, power 0.9), for step = 0, …, total − 1."""
    total = _positive_int("total", total)
    if isinstance(step, bool) or not isinstance(step, (int, np.integer)):
        raise ValueError(f"step must be an int, got {step!r}")
    if not 0 <= step < total:
        raise ValueError(f"step must lie in [0, {total}), got {step}")
    return float(base) * (1.0 - step / total) ** float(power)


@dataclass(frozen=True)
class SegTrace:
    """Trained UNets (member g learned task g) and their losses, shape (steps, G)."""

    model: GroupedUNet
    losses: np.ndarray


def train_unets(
    tasks: Sequence[SegTask],
    *,
    inits: Sequence[torch.Generator],
    steps: int,
    batch: int,
    generator: torch.Generator,
    lr: float = 2e-3,
    widths: tuple[int, int] = (16, 32),
    schedule: str = "constant",
) -> SegTrace:
    """Adam on BCE + Dice, `steps` minibatches of `batch` images drawn uniformly from each task
    (domain-randomised first where the task says so). Member g starts from a UNet2 made from
    `inits[g]`, so two tasks given equally seeded generators start from the same weights. The
    tasks train side by side in one grouped model (the loss is the sum of the members' losses,
    so each member's gradient is its own). `schedule`: "constant" keeps `lr`; "poly" decays it
    as lr·(1 − s/steps)^0.9 at step s, the official segmentation code's default schedule."""
    if not tasks or not all(isinstance(t, SegTask) for t in tasks):
        raise ValueError("tasks must be a non-empty sequence of SegTask")
    if len(inits) != len(tasks):
        raise ValueError(
            f"inits must give one generator per task ({len(tasks)}), got {len(inits)}"
        )
    if len({t.images.shape[1:] for t in tasks}) != 1:
        raise ValueError("all tasks must have images of the same shape")
    steps, batch = _positive_int("steps", steps), _positive_int("batch", batch)
    if schedule not in SCHEDULES:
        raise ValueError(f"schedule must be one of {SCHEDULES}, got {schedule!r}")
    lr = _positive_float("lr", lr)
    model = GroupedUNet([make_unet(g, *widths) for g in inits])
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    G = len(tasks)
    losses = np.empty((steps, G))
    for s in range(steps):
        if schedule == "poly":
            for group in opt.param_groups:
                group["lr"] = poly_lr(lr, s, steps)
        xs, ys = [], []
        for t in tasks:
            idx = torch.randint(len(t.images), (batch,), generator=generator)
            x = t.images[idx]
            if t.randomize is not None:
                x = domain_randomize(x, generator, t.randomize)
            xs.append(x)
            ys.append(t.masks[idx])
        logits, y = model(torch.stack(xs)), torch.stack(ys)
        bce = F.binary_cross_entropy_with_logits(logits, y, reduction="none")
        p = torch.sigmoid(logits)
        dice = (2 * (p * y).sum((2, 3)) + 1) / (p.sum((2, 3)) + y.sum((2, 3)) + 1)
        per_task = bce.mean((1, 2, 3)) + (1 - dice).mean(1)
        opt.zero_grad()
        per_task.sum().backward()
        opt.step()
        losses[s] = per_task.detach().numpy()
    model.eval()
    return SegTrace(model, losses)


def _as_grouped_input(model: nn.Module, x: torch.Tensor) -> torch.Tensor:
    if isinstance(model, GroupedUNet):
        return x.unsqueeze(0).expand(model.G, *x.shape)
    return x


@torch.no_grad()
def predict_masks(model: nn.Module, images, *, chunk: int = 64) -> torch.Tensor:
    """Binary masks (logit > 0, i.e. probability > 0.5): (n, H, W) for a UNet2, (G, n, H, W)
    for a GroupedUNet (every member sees the same images)."""
    images = _check_images("images", images)
    out = [
        model(_as_grouped_input(model, images[i : i + chunk])) > 0
        for i in range(0, len(images), chunk)
    ]
    return torch.cat(out, dim=-3).float()


def segment_dice(model: nn.Module, images, masks) -> np.ndarray:
    """Per-image Dice of the predicted masks: (n,) for a UNet2, (G, n) for a GroupedUNet."""
    images = _check_images("images", images)
    masks = _check_masks("masks", masks, (images.shape[0], *images.shape[2:]))
    pred = predict_masks(model, images)
    if pred.ndim == 3:
        return dice_score(pred, masks)
    return np.stack([dice_score(p, masks) for p in pred])


def input_grad_norm(model: nn.Module, images, masks, *, chunk: int = 64) -> np.ndarray:
    """Per-image ‖∇ₓ ℓ(x, y)‖₂ of the segmentation loss (BCE + soft Dice of that image alone):
    how sharply the loss changes with the input, the quantity LangDAug's first-order regulariser
    penalises. (n,) for a UNet2, (G, n) for a GroupedUNet."""
    images = _check_images("images", images)
    masks = _check_masks("masks", masks, (images.shape[0], *images.shape[2:]))
    out = []
    for i in range(0, len(images), chunk):
        x = _as_grouped_input(model, images[i : i + chunk]).clone().requires_grad_(True)
        y = masks[i : i + chunk].expand_as(x[..., 0, :, :])
        logits = model(x)
        bce = F.binary_cross_entropy_with_logits(logits, y, reduction="none")
        p = torch.sigmoid(logits)
        dice = (2 * (p * y).sum((-2, -1)) + 1) / (p.sum((-2, -1)) + y.sum((-2, -1)) + 1)
        per_image = bce.mean((-2, -1)) + 1 - dice
        (g,) = torch.autograd.grad(per_image.sum(), x)
        out.append(g.flatten(-3).norm(dim=-1))
    return torch.cat(out, dim=-1).detach().double().numpy()


# ----------------------------------------------------------------------------------------------
# measurements along the chains and on the augmentations
def ordered_pairs(domains: Sequence[str]) -> list[tuple[str, str]]:
    """Every ordered pair (i, j) of distinct `domains`, i-major: one pair EBM each."""
    domains = list(domains)
    if len(domains) < 2 or len(set(domains)) != len(domains):
        raise ValueError(
            f"domains must be at least two distinct names, got {domains!r}"
        )
    return [(i, j) for i in domains for j in domains if i != j]


def normalised_traversal(chains, target_means) -> np.ndarray:
    """How far the chains of each pair still are from their target's style, step by step.

    `chains` holds the saved iterates (n_saved, G, n, 3, H, W) of G pairs (step 0 first);
    `target_means` (G, 3) the mean colour of each pair's target domain. Returns (G, n_saved):
    the distance of the chains' mean colour (channel means averaged over the pair's n chains)
    to the target's, divided by the same distance at step 0 (1 at the start, 0 on arrival)."""
    if not isinstance(chains, torch.Tensor):
        chains = torch.as_tensor(np.asarray(chains), dtype=torch.float32)
    if chains.ndim != 6 or chains.shape[3] != 3:
        raise ValueError(
            f"chains must have shape (n_saved, G, n, 3, H, W), got {tuple(chains.shape)}"
        )
    t = np.asarray(target_means, dtype=float)
    if t.shape != (chains.shape[1], 3):
        raise ValueError(
            f"target_means must have shape ({chains.shape[1]}, 3), one mean colour per "
            f"pair, got {t.shape}"
        )
    out = np.empty((chains.shape[1], chains.shape[0]))
    for g in range(chains.shape[1]):
        d = [style_distance(chains[k, g], t[g]) for k in range(chains.shape[0])]
        if d[0] == 0:
            raise ValueError(f"pair {g} starts on its target's mean colour: distance 0")
        out[g] = np.asarray(d) / d[0]
    return out


def disc_contrast(images, masks) -> float:
    """Mean over images and channels of (mean pixel inside the mask − mean pixel outside)."""
    x = _check_images("images", images)
    m = _check_masks("masks", masks, (x.shape[0], *x.shape[2:]))
    if (m.sum((1, 2)) == 0).any() or (m.sum((1, 2)) == m[0].numel()).any():
        raise ValueError("every mask must have pixels both inside and outside")
    m = m[:, None]
    inside = (x * m).sum((2, 3)) / m.sum((2, 3))
    outside = (x * (1 - m)).sum((2, 3)) / (1 - m).sum((2, 3))
    return float((inside - outside).mean())


def mask_auc(images, masks) -> np.ndarray:
    """Per image, the probability that a pixel inside the mask is brighter (mean over channels)
    than a pixel outside it, ties counting one half (the Mann–Whitney AUC): 1 when the mask
    marks exactly the brightest region, about 0.5 when it marks nothing in particular. A
    model-free check that a label still sits on the disc."""
    from scipy.stats import rankdata

    x = _check_images("images", images)
    m = _check_masks("masks", masks, (x.shape[0], *x.shape[2:]))
    lum = x.mean(1).flatten(1).double().numpy()
    pos = m.flatten(1).numpy() > 0.5
    n1, n0 = pos.sum(1), (~pos).sum(1)
    if (n1 == 0).any() or (n0 == 0).any():
        raise ValueError("every mask must have pixels both inside and outside")
    ranks = rankdata(lum, axis=1)
    r1 = (ranks * pos).sum(1)
    return (r1 - n1 * (n1 + 1) / 2) / (n1 * n0)


# ----------------------------------------------------------------------------------------------
# experiment protocols: pair EBMs and their augmentations, segmenters trained side by side
@dataclass(frozen=True)
class EBMConfig:
    """Contrastive-divergence settings of the pair EBMs (see `train_pair_ebms`): `iters`
    iterations of `batch` images, chains of `steps` steps of size `step_size` (the code's
    sampler), energy penalty `l2`, Adam lr `lr`, conv `widths`."""

    iters: int
    batch: int
    steps: int
    step_size: float
    widths: tuple[int, ...] = (32, 64, 64)
    l2: float = 0.1
    lr: float = 1e-3

    def __post_init__(self):
        for name in ("iters", "batch", "steps"):
            _positive_int(f"EBMConfig.{name}", getattr(self, name))
        _positive_float("EBMConfig.step_size", self.step_size)
        _positive_float("EBMConfig.lr", self.lr)


@dataclass(frozen=True)
class PairAugmentation:
    """The pair EBMs of a set of source domains and the augmentations their chains made:
    `pairs` in the EBMs' order, the EBMs' `trace`, and the `augmentations` (chains from the
    first `n_chain` training images of each pair's source)."""

    pairs: tuple[tuple[str, str], ...]
    trace: EBMTrace
    augmentations: Augmentations


def pair_augmentations(
    train: Mapping[str, Domain],
    sources: Sequence[str],
    *,
    ebm: EBMConfig,
    n_chain: int,
    save_every: int,
    generator: torch.Generator,
    vq: "VQVAE | None" = None,
) -> PairAugmentation:
    """Train one EBM per ordered pair of `sources` (side by side, on VQ-VAE latents when `vq`
    is given) and run each pair's chains from the first `n_chain` training images of its source
    domain, keeping every `save_every`-th iterate labelled with the source masks."""
    pairs = ordered_pairs(sources)
    missing = [d for d in sources if d not in train]
    if missing:
        raise ValueError(f"train has no images of source domain(s) {missing}")
    n_chain = _positive_int("n_chain", n_chain)
    short = [i for i, _ in pairs if len(train[i].images) < n_chain]
    if short:
        raise ValueError(
            f"n_chain ({n_chain}) exceeds the training images of domain(s) {sorted(set(short))}"
        )
    x_src = torch.stack([train[i].images for i, _ in pairs])
    x_tgt = torch.stack([train[j].images for _, j in pairs])
    if vq is not None:
        x_src, x_tgt = (
            torch.stack([vq.latent(x) for x in xs]) for xs in (x_src, x_tgt)
        )
    trace = train_pair_ebms(
        list(x_src),
        list(x_tgt),
        iters=ebm.iters,
        batch=ebm.batch,
        steps=ebm.steps,
        step_size=ebm.step_size,
        generator=generator,
        widths=ebm.widths,
        l2=ebm.l2,
        lr=ebm.lr,
        clip=None if vq is not None else (0.0, 1.0),
        offset=0.0 if vq is not None else 0.5,
    )
    x0 = torch.stack([train[i].images[:n_chain] for i, _ in pairs])
    m0 = torch.stack([train[i].masks[:n_chain] for i, _ in pairs])
    aug = langdaug_augment(
        trace.ebm,
        x0,
        m0,
        steps=ebm.steps,
        step_size=ebm.step_size,
        save_every=save_every,
        vq=vq,
    )
    return PairAugmentation(tuple(pairs), trace, aug)


@dataclass(frozen=True)
class SegConfig:
    """How the segmenters train. With `epochs`, every training set gets that many passes
    (steps = ⌈epochs · images / batch⌉, as the official code trains each set for a fixed number
    of epochs, so a set enlarged by augmentations gets more steps); with `steps`, every set gets
    that many. Exactly one of the two. `schedule` as in `train_unets` ("poly": the official
    code's)."""

    batch: int
    widths: tuple[int, int]
    epochs: float | None = None
    steps: int | None = None
    lr: float = 2e-3
    schedule: str = "poly"

    def __post_init__(self):
        _positive_int("SegConfig.batch", self.batch)
        if (self.epochs is None) == (self.steps is None):
            raise ValueError("SegConfig takes exactly one of epochs and steps")
        if self.epochs is not None:
            _positive_float("SegConfig.epochs", self.epochs)
        else:
            _positive_int("SegConfig.steps", self.steps)
        _positive_float("SegConfig.lr", self.lr)
        if self.schedule not in SCHEDULES:
            raise ValueError(
                f"schedule must be one of {SCHEDULES}, got {self.schedule!r}"
            )

    def steps_for(self, n_images: int) -> int:
        """The number of steps a training set of `n_images` images gets."""
        n_images = _positive_int("n_images", n_images)
        if self.steps is not None:
            return int(self.steps)
        return int(math.ceil(self.epochs * n_images / self.batch - 1e-9))


@dataclass(frozen=True)
class SegStudy:
    """Segmenters trained side by side: member k is `labels[k]` = (method, seed); `steps` per
    method; `groups` holds each grouped model with the members it holds (one group per step
    count). Evaluate with `per_image`, `dice` or `grad_norm`."""

    labels: tuple[tuple[str, int], ...]
    steps: Mapping[str, int]
    groups: tuple[tuple[GroupedUNet, tuple[int, ...]], ...]
    losses: Mapping[str, np.ndarray]  # per method: (steps, seeds) training losses

    def per_image(self, measure: Callable, images, masks) -> np.ndarray:
        """measure(model, images, masks) → (G, n) for each group, reassembled in member order:
        (members, n)."""
        out: list = [None] * len(self.labels)
        for model, members in self.groups:
            vals = np.asarray(measure(model, images, masks))
            for row, k in zip(vals, members):
                out[k] = row
        return np.stack(out)

    def dice(self, images, masks) -> dict[tuple[str, int], float]:
        """Mean Dice over the images, per (method, seed)."""
        d = self.per_image(segment_dice, images, masks).mean(1)
        return {lab: float(v) for lab, v in zip(self.labels, d)}

    def grad_norm(self, images, masks) -> dict[tuple[str, int], float]:
        """Mean input-gradient norm of the loss over the images, per (method, seed)."""
        g = self.per_image(input_grad_norm, images, masks).mean(1)
        return {lab: float(v) for lab, v in zip(self.labels, g)}


def train_segmenters(
    train_sets: Mapping[str, SegTask | Sequence[SegTask]],
    *,
    seeds: int | Mapping[str, int],
    config: SegConfig,
    init: Callable[[int], torch.Generator],
    batches: Callable[[int], torch.Generator],
) -> SegStudy:
    """Train every method's training set for its seeds: a SegTask serves every seed, a sequence
    gives one task per seed (all of one size, e.g. augmentations from EBMs retrained per seed).
    Seed s of every method starts from the UNet made from `init(s)` (the same weights for every
    method: gains pair by seed). Methods with the same number of steps (see
    `SegConfig.steps_for`) train side by side in one grouped model; the group with the k-th
    smallest step count draws its batches from `batches(k)`."""
    if not train_sets:
        raise ValueError(
            "train_sets must map method names to SegTask (or one per seed)"
        )
    if not isinstance(config, SegConfig):
        raise TypeError(f"config must be a SegConfig, got {type(config).__name__}")
    n_seeds, tasks = {}, {}
    for m, t in train_sets.items():
        n = seeds[m] if isinstance(seeds, Mapping) else seeds
        n_seeds[m] = _positive_int(f"seeds[{m!r}]", n)
        per = [t] * n_seeds[m] if isinstance(t, SegTask) else list(t)
        if len(per) != n_seeds[m] or not all(isinstance(x, SegTask) for x in per):
            raise ValueError(
                f"train_sets[{m!r}] must be a SegTask or {n_seeds[m]} of them (one per seed)"
            )
        if len({len(x.images) for x in per}) != 1:
            raise ValueError(f"the per-seed tasks of {m!r} must all have the same size")
        tasks[m] = per
    steps = {m: config.steps_for(len(per[0].images)) for m, per in tasks.items()}
    labels = tuple((m, s) for m in tasks for s in range(n_seeds[m]))
    groups, losses = [], {}
    for k, n_steps in enumerate(sorted(set(steps.values()))):
        members = tuple(i for i, (m, _) in enumerate(labels) if steps[m] == n_steps)
        trace = train_unets(
            [tasks[labels[i][0]][labels[i][1]] for i in members],
            inits=[init(labels[i][1]) for i in members],
            steps=n_steps,
            batch=config.batch,
            generator=batches(k),
            lr=config.lr,
            widths=config.widths,
            schedule=config.schedule,
        )
        groups.append((trace.model, members))
        for m in {labels[i][0] for i in members}:
            cols = [c for c, i in enumerate(members) if labels[i][0] == m]
            losses[m] = trace.losses[:, cols]
    return SegStudy(labels, steps, tuple(groups), losses)


def per_seed(values: Mapping[tuple[str, int], float], method: str) -> list[float]:
    """The values of one method in seed order."""
    seeds = sorted(s for m, s in values if m == method)
    if not seeds:
        raise ValueError(f"no values for method {method!r}")
    return [float(values[method, s]) for s in seeds]


def paired_gains(
    values: Mapping[tuple[str, int], float], method: str, baseline: str
) -> list[float]:
    """method − baseline per seed, for the seeds both have (a paired gain per seed)."""
    a = {s: v for (m, s), v in values.items() if m == method}
    b = {s: v for (m, s), v in values.items() if m == baseline}
    common = sorted(set(a) & set(b))
    if not common:
        raise ValueError(f"{method!r} and {baseline!r} share no seed")
    return [float(a[s] - b[s]) for s in common]


def langdaug_split(
    train: Mapping[str, Domain],
    tests: Mapping[str, Domain],
    *,
    sources: Sequence[str],
    seeds: int,
    ebm: EBMConfig,
    seg: SegConfig,
    n_chain: int,
    save_every: int,
    ebm_generator: Callable[[int], torch.Generator],
    init: Callable[[int], torch.Generator],
    batches: Callable[[int], torch.Generator],
    vq: "VQVAE | None" = None,
) -> dict[str, dict[str, list[float]]]:
    """One domain-generalisation split: for each seed s, pair EBMs of `sources` (from
    `ebm_generator(s)`) and their augmentations; ERM (the sources) and LangDAug (the sources
    and seed s's augmentations) segmenters, seed s of both from `init(s)`; their mean Dice on
    each test domain. Returns {test domain: {"ERM": [per seed], "LangDAug": [per seed]}}."""
    seeds = _positive_int("seeds", seeds)
    if not tests:
        raise ValueError("tests must name at least one test domain")
    x = torch.cat([train[d].images for d in sources])
    m = torch.cat([train[d].masks for d in sources])
    augmented = []
    for s in range(seeds):
        aug = pair_augmentations(
            train,
            sources,
            ebm=ebm,
            n_chain=n_chain,
            save_every=save_every,
            generator=ebm_generator(s),
            vq=vq,
        ).augmentations
        augmented.append(SegTask(torch.cat([x, aug.images]), torch.cat([m, aug.masks])))
    study = train_segmenters(
        {"ERM": SegTask(x, m), "LangDAug": augmented},
        seeds=seeds,
        config=seg,
        init=init,
        batches=batches,
    )
    out = {}
    for d, dom in tests.items():
        dice = study.dice(dom.images, dom.masks)
        out[d] = {k: per_seed(dice, k) for k in ("ERM", "LangDAug")}
    return out
