"""The tiny ViT with its positional field, and self-supervised pre-training."""

from __future__ import annotations

import math
from dataclasses import dataclass
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from .scenes import (
    FIELD_SCALES,
    VARIANTS,
    _check_ratio,
    box_mask,
    crop_resize,
    cross_mask,
    identity_boxes,
    random_mask,
    sample_field_jitter,
    sample_view_boxes,
)

# ---------------------------------------------------------------------------------------------
# The model
# ---------------------------------------------------------------------------------------------
FIELD_INITS = ("random", "sincos")
"""Initial positional fields: "random" (truncated normal, std 0.02, as a ViT's learnable
position embedding) or "sincos" (the 2D sine-cosine table of `sincos_field`)."""


def sincos_field(dim: int, size: int, *, std: float = 0.02) -> torch.Tensor:
    """A (dim, size, size) 2D sine-cosine field: the first half of the channels encodes x, the
    second half y; each half holds sin and cos of the cell index (0..size-1) at dim/4 geometric
    frequencies 1/10000^(k/(dim/4)), k = 0..dim/4-1. Scaled so that its element std is `std`."""
    if not isinstance(dim, (int, np.integer)) or dim < 4 or dim % 4:
        raise ValueError(f"dim must be a positive multiple of 4, got {dim!r}")
    if not isinstance(size, (int, np.integer)) or size < 2:
        raise ValueError(f"size must be an integer >= 2, got {size!r}")
    if not std > 0:
        raise ValueError(f"std must be positive, got {std!r}")
    q = dim // 4
    omega = 1.0 / 10000 ** (torch.arange(q, dtype=torch.float64) / q)
    ang = torch.arange(size, dtype=torch.float64)[:, None] * omega[None, :]  # (size, q)
    axis = torch.cat([ang.sin(), ang.cos()], dim=1).T  # (dim/2, size)
    fx = axis[:, None, :].expand(-1, size, -1)  # varies along columns
    fy = axis[:, :, None].expand(-1, -1, size)  # varies along rows
    f = torch.cat([fx, fy], dim=0)
    return (f / f.std() * std).to(torch.float32)


def attention(q, k, v, *, fused: bool = True) -> torch.Tensor:
    """Softmax attention. `fused=False` spells it out, for CUDA, where the backward passes of
    the fused kernels are not deterministic."""
    if fused:
        return F.scaled_dot_product_attention(q, k, v)
    w = (q @ k.transpose(-2, -1)) * (q.shape[-1] ** -0.5)
    return w.softmax(-1) @ v


class _Block(nn.Module):
    def __init__(self, dim: int, heads: int, mlp_ratio: float):
        super().__init__()
        self.heads = heads
        self.norm1 = nn.LayerNorm(dim)
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)
        self.norm2 = nn.LayerNorm(dim)
        hidden = int(dim * mlp_ratio)
        self.mlp = nn.Sequential(
            nn.Linear(dim, hidden), nn.GELU(), nn.Linear(hidden, dim)
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        n, t, d = x.shape
        q, k, v = (
            self.qkv(self.norm1(x))
            .reshape(n, t, 3, self.heads, d // self.heads)
            .permute(2, 0, 3, 1, 4)
        )
        a = attention(q, k, v, fused=not x.is_cuda)
        x = x + self.proj(a.transpose(1, 2).reshape(n, t, d))
        return x + self.mlp(self.norm2(x))


class TinyViT(nn.Module):
    """A small ViT with a CLS token and a positional *field*.

    ``pe="crop-relative"``: the field is sampled over the view itself, so every crop of every
    image gets the same encodings (standard ViT practice). ``pe="crop-tied"``: the field is
    sampled over the view's box in the original image (after the image's placement `jitter`), so
    a patch's encoding says where it lies in the original image. `content_mask` replaces the patch
    embeddings of masked patches by a learnable vector (iBOT-style masking); `pos_mask` replaces
    their positional encodings by another learnable vector (position masking).
    """

    def __init__(
        self,
        *,
        image_size: int = 48,
        patch: int = 6,
        dim: int = 96,
        depth: int = 4,
        heads: int = 3,
        mlp_ratio: float = 2.0,
        field_size: int = 16,
        pe: str = "crop-tied",
        field_init: str = "random",
    ):
        super().__init__()
        if image_size % patch:
            raise ValueError(
                f"patch size {patch} must divide image_size {image_size} "
                f"({image_size} % {patch} = {image_size % patch})"
            )
        if dim % heads:
            raise ValueError(f"heads ({heads}) must divide dim ({dim})")
        if pe not in ("crop-tied", "crop-relative"):
            raise ValueError(f"pe must be 'crop-tied' or 'crop-relative', got {pe!r}")
        if field_size < 2:
            raise ValueError(f"field_size must be at least 2, got {field_size!r}")
        if field_init not in FIELD_INITS:
            raise ValueError(
                f"field_init must be one of {FIELD_INITS}, got {field_init!r}"
            )
        self.image_size, self.patch, self.dim, self.pe = image_size, patch, dim, pe
        self.grid = image_size // patch
        self.patch_embed = nn.Linear(3 * patch * patch, dim)
        self.cls = nn.Parameter(torch.zeros(1, 1, dim))
        self.cls_pos = nn.Parameter(torch.zeros(1, 1, dim))
        self.field = nn.Parameter(torch.zeros(dim, field_size, field_size))
        self.mask_token = nn.Parameter(torch.zeros(dim))
        self.pos_mask_token = nn.Parameter(torch.zeros(dim))
        self.blocks = nn.ModuleList(_Block(dim, heads, mlp_ratio) for _ in range(depth))
        self.norm = nn.LayerNorm(dim)
        nn.init.trunc_normal_(self.field, std=0.02)
        if field_init == "sincos":
            with torch.no_grad():
                self.field.copy_(sincos_field(dim, field_size, std=0.02))
        nn.init.trunc_normal_(self.cls, std=0.02)
        nn.init.trunc_normal_(self.cls_pos, std=0.02)
        for m in self.modules():
            if isinstance(m, nn.Linear):
                nn.init.trunc_normal_(m.weight, std=0.02)
                nn.init.zeros_(m.bias)

    def positional(self, boxes, jitter=None) -> torch.Tensor:
        """Encodings (n, grid², dim) of each view's patches."""
        if self.pe == "crop-relative":
            boxes, jitter = identity_boxes(len(np.asarray(boxes))), None
        pe = crop_resize(self.field, boxes, (self.grid, self.grid), jitter=jitter)
        return pe.flatten(2).transpose(1, 2)

    def patchify(self, images: torch.Tensor) -> torch.Tensor:
        n, c, h, w = images.shape
        if h != self.image_size or w != self.image_size:
            raise ValueError(
                f"images must be {self.image_size}×{self.image_size}, got {h}×{w}"
            )
        p, g = self.patch, self.grid
        x = images.reshape(n, c, g, p, g, p).permute(0, 2, 4, 1, 3, 5)
        return x.reshape(n, g * g, c * p * p)

    def forward(self, images, boxes, *, jitter=None, content_mask=None, pos_mask=None):
        """Tokens (n, 1 + grid², dim) after the final norm; token 0 is CLS."""
        x = self.patch_embed(self.patchify(images))
        if content_mask is not None:
            x = torch.where(content_mask[..., None], self.mask_token, x)
        pe = self.positional(boxes, jitter)
        if pos_mask is not None:
            pe = torch.where(pos_mask[..., None], self.pos_mask_token, pe)
        x = x + pe
        cls = (self.cls + self.cls_pos).expand(len(x), -1, -1)
        x = torch.cat([cls, x], dim=1)
        for blk in self.blocks:
            x = blk(x)
        return self.norm(x)


SMALL_ARCH = (("patch", 6), ("dim", 48), ("depth", 2), ("heads", 3), ("mlp_ratio", 2.0))
"""The quick scale's ViT: width 48, depth 2, 3 heads, MLP ratio 2, 6×6 patches."""


def _mlp(d_in: int, hidden: int, d_out: int) -> nn.Sequential:
    return nn.Sequential(
        nn.Linear(d_in, hidden),
        nn.BatchNorm1d(hidden),
        nn.GELU(),
        nn.Linear(hidden, d_out),
    )


# ---------------------------------------------------------------------------------------------
# Self-supervised pre-training
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class SSLConfig:
    """One pre-training run. `variant` is one of `VARIANTS`."""

    variant: str
    steps: int
    batch: int = 32
    lr: float = 1e-3
    weight_decay: float = 0.04
    warmup: int = 20
    ema: tuple[float, float] = (0.99, 0.999)
    mask_ratio: float = 0.3
    pos_mask_share: float = 0.5  # share of images given position (not content) masking
    field_size: int = 16
    field_init: str = "random"  # one of FIELD_INITS
    field_lr: float = 1.0  # the field's learning rate, as a multiple of `lr`
    field_scale: str = "beta"  # law of the field placement, one of FIELD_SCALES
    pos_mask_shape: str = "cross"  # "cross" or "box"
    crop_scale: tuple[float, float] = (0.32, 1.0)
    head_dim: int = 128
    arch: tuple = (
        ("patch", 6),
        ("dim", 96),
        ("depth", 4),
        ("heads", 3),
        ("mlp_ratio", 2.0),
    )

    def __post_init__(self):
        if self.variant not in VARIANTS:
            raise ValueError(f"variant must be one of {VARIANTS}, got {self.variant!r}")
        if not isinstance(self.steps, int) or self.steps < 1:
            raise ValueError(f"steps must be a positive integer, got {self.steps!r}")
        if not isinstance(self.batch, int) or self.batch < 2:
            raise ValueError(f"batch must be an integer >= 2, got {self.batch!r}")
        _check_ratio(self.mask_ratio)
        if not 0 <= self.pos_mask_share <= 1:
            raise ValueError(
                f"pos_mask_share must lie in [0, 1], got {self.pos_mask_share!r}"
            )
        if self.field_init not in FIELD_INITS:
            raise ValueError(
                f"field_init must be one of {FIELD_INITS}, got {self.field_init!r}"
            )
        if not (isinstance(self.field_lr, (int, float)) and self.field_lr > 0):
            raise ValueError(
                f"field_lr must be a positive number, got {self.field_lr!r}"
            )
        if self.field_scale not in FIELD_SCALES:
            raise ValueError(
                f"field_scale must be one of {FIELD_SCALES}, got {self.field_scale!r}"
            )
        if self.pos_mask_shape not in ("cross", "box"):
            raise ValueError(
                f"pos_mask_shape must be 'cross' or 'box', got {self.pos_mask_shape!r}"
            )


@dataclass(frozen=True)
class SSLTrace:
    """Per-step records of a pre-training run: total, image (CLS) and patch losses, and the
    feature std: the std over the batch of the l2-normalised CLS token of the teacher's
    *backbone* (before the projection head and its BatchNorm), averaged over dimensions and
    times sqrt(dim) (about 1 for spread features, 0 at collapse)."""

    loss: np.ndarray
    image_loss: np.ndarray
    patch_loss: np.ndarray
    feature_std: np.ndarray

    def loss_ratio(self, window: int = 50) -> float:
        """The SSL loss at the end over its step-0 value: the mean loss of the last `window`
        steps (all steps if fewer) divided by the loss of step 0 (the step-0 network on the
        first batch, before any update)."""
        if not isinstance(window, (int, np.integer)) or window < 1:
            raise ValueError(f"window must be a positive integer, got {window!r}")
        return float(self.loss[-window:].mean() / self.loss[0])


def build_model(config: SSLConfig, image_size: int, seed: int) -> TinyViT:
    """The variant's ViT, initialised from `seed` without touching the global torch RNG."""
    pe = "crop-relative" if config.variant == "B" else "crop-tied"
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        return TinyViT(
            image_size=image_size,
            field_size=config.field_size,
            pe=pe,
            field_init=config.field_init,
            **dict(config.arch),
        )


def initial_student(
    config: SSLConfig, image_size: int, rng: np.random.Generator
) -> TinyViT:
    """The student that `pretrain(images, config, rng)` starts from, for `rng` in the same state
    (its step-0 weights): the untrained reference of a pre-training run."""
    return build_model(config, image_size, int(rng.integers(2**31))).eval()


def field_change(initial: torch.Tensor, trained: torch.Tensor) -> float:
    """How far pre-training moved the positional field: ‖P_T − P_0‖ / ‖P_0‖ (Frobenius)."""
    p0 = torch.as_tensor(initial).detach().cpu().double()
    p1 = torch.as_tensor(trained).detach().cpu().double()
    if p0.shape != p1.shape:
        raise ValueError(
            f"fields differ in shape: {tuple(p0.shape)} vs {tuple(p1.shape)}"
        )
    norm = float(p0.norm())
    if norm == 0:
        raise ValueError("the initial field is zero; its relative change is undefined")
    return float((p1 - p0).norm()) / norm


def _augment(x: torch.Tensor, rng: np.random.Generator) -> torch.Tensor:
    """Photometric jitter per view: channel gains, brightness, a little noise."""
    n, kw = len(x), dict(dtype=x.dtype, device=x.device)
    gain = torch.as_tensor(rng.uniform(0.8, 1.2, size=(n, 3, 1, 1)), **kw)
    shift = torch.as_tensor(rng.uniform(-0.1, 0.1, size=(n, 1, 1, 1)), **kw)
    noise = torch.as_tensor(0.02 * rng.standard_normal(x.shape), **kw)
    return (x * gain + shift + noise).clamp(0, 1)


def _masks(config: SSLConfig, n: int, grid: int, rng: np.random.Generator):
    content = np.zeros((n, grid * grid), bool)
    pos = np.zeros((n, grid * grid), bool)
    share = config.pos_mask_share if config.variant == "B+PE+PM" else 0.0
    use_pos = rng.uniform(size=n) < share
    shape = cross_mask if config.pos_mask_shape == "cross" else box_mask
    for i in range(n):
        if use_pos[i]:
            pos[i] = shape(grid, config.mask_ratio, rng).ravel()
        else:
            content[i] = random_mask(grid, config.mask_ratio, rng).ravel()
    return torch.from_numpy(content), torch.from_numpy(pos)


def _cos_loss(p: torch.Tensor, z: torch.Tensor) -> torch.Tensor:
    return 2 - 2 * F.cosine_similarity(p, z, dim=-1).mean()


def pretrain(
    images: np.ndarray | torch.Tensor,
    config: SSLConfig,
    rng: np.random.Generator,
    *,
    device: str = "cpu",
) -> tuple[TinyViT, SSLTrace]:
    """Pre-train `config.variant` on `images` (n, 3, H, W) for `config.steps` steps.

    Each step draws a batch, two random-resized views per image (the same field placement for
    both), a content or position mask per view, and updates the student on
    L = L_image + L_patch: L_image is the symmetric cosine loss between the student's predicted
    CLS projection of one view and the teacher's CLS projection of the other; L_patch is the
    cosine loss between the student's predicted projections of masked patches and the teacher's
    projections of the same patches in the same, unmasked view. The teacher is an EMA of the
    student. Runs on `device`; returns the student backbone (on `device`) and the trace.
    """
    x_all = torch.as_tensor(np.asarray(images), dtype=torch.float32).to(device)
    if x_all.dim() != 4 or x_all.shape[1] != 3:
        raise ValueError(f"images must be (n, 3, H, W), got {tuple(x_all.shape)}")
    n_img, size = len(x_all), x_all.shape[-1]
    student = build_model(config, size, int(rng.integers(2**31)))
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(int(rng.integers(2**31)))
        s_proj = _mlp(student.dim, 2 * config.head_dim, config.head_dim)
        s_pred = _mlp(config.head_dim, 2 * config.head_dim, config.head_dim)
    teacher = build_model(config, size, 0)
    teacher.load_state_dict(student.state_dict())
    t_proj = _mlp(student.dim, 2 * config.head_dim, config.head_dim)
    t_proj.load_state_dict(s_proj.state_dict())
    for mod in (student, s_proj, s_pred, teacher, t_proj):
        mod.to(device)
    for p in [*teacher.parameters(), *t_proj.parameters()]:
        p.requires_grad_(False)
    params = [*student.parameters(), *s_proj.parameters(), *s_pred.parameters()]
    decay = [p for p in params if p.dim() >= 2 and p is not student.field]
    other = [
        p for p in params if not (p.dim() >= 2 or p is student.field)
    ]  # biases, norms, tokens
    groups = [
        {"params": decay, "weight_decay": config.weight_decay, "scale": 1.0},
        {"params": other, "weight_decay": 0.0, "scale": 1.0},
        {"params": [student.field], "weight_decay": 0.0, "scale": config.field_lr},
    ]
    opt = torch.optim.AdamW(groups, lr=config.lr)
    grid, b = student.grid, config.batch
    tied = config.variant != "B"
    rec = {k: np.zeros(config.steps) for k in ("loss", "image", "patch", "std")}
    for step in range(config.steps):
        warm = min(1.0, (step + 1) / max(1, config.warmup))
        cos = 0.5 * (1 + math.cos(math.pi * step / config.steps))
        for g in opt.param_groups:
            g["lr"] = g["scale"] * config.lr * warm * (0.1 + 0.9 * cos)
        idx = rng.choice(n_img, size=b, replace=n_img < b)
        jit = sample_field_jitter(b, rng, law=config.field_scale) if tied else None
        jit2 = None if jit is None else np.concatenate([jit, jit])
        boxes = sample_view_boxes(2 * b, rng, scale=config.crop_scale)
        src = x_all[np.concatenate([idx, idx])]
        views = _augment(crop_resize(src, boxes, (size, size)), rng)
        content, pos = (mk.to(device) for mk in _masks(config, 2 * b, grid, rng))
        masked = (content | pos).reshape(-1)
        swap = torch.cat([torch.arange(b, 2 * b), torch.arange(b)]).to(device)
        with torch.no_grad():
            t_tok = teacher(views, boxes, jitter=jit2)
            t_cls = t_proj(t_tok[:, 0])
            t_pat = t_proj(t_tok[:, 1:].reshape(-1, t_tok.shape[-1])[masked])
        s_tok = student(views, boxes, jitter=jit2, content_mask=content, pos_mask=pos)
        s_cls = s_pred(s_proj(s_tok[:, 0]))
        s_pat = s_pred(s_proj(s_tok[:, 1:].reshape(-1, s_tok.shape[-1])[masked]))
        l_img = _cos_loss(s_cls, t_cls[swap])
        l_patch = _cos_loss(s_pat, t_pat)
        loss = l_img + l_patch
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        m = config.ema[1] - (config.ema[1] - config.ema[0]) * cos
        with torch.no_grad():
            for ps, pt in zip(
                [*student.parameters(), *s_proj.parameters()],
                [*teacher.parameters(), *t_proj.parameters()],
            ):
                pt.mul_(m).add_(ps.detach(), alpha=1 - m)
            zc = F.normalize(t_tok[:, 0], dim=-1)  # the backbone's CLS token
            rec["std"][step] = float(zc.std(0).mean() * math.sqrt(zc.shape[-1]))
        rec["loss"][step] = loss.item()
        rec["image"][step] = l_img.item()
        rec["patch"][step] = l_patch.item()
    student.eval()
    return student, SSLTrace(rec["loss"], rec["image"], rec["patch"], rec["std"])
