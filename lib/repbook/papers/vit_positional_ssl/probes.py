"""Frozen features, probes, detection-lite and the probe suite."""

from __future__ import annotations

import math
from dataclasses import dataclass
import numpy as np
import torch
import torch.nn.functional as F
from .scenes import (
    SHAPES,
    Scenes,
    check_boxes,
    crop_resize,
    grid_coords,
    identity_boxes,
)
from .model import TinyViT


# ---------------------------------------------------------------------------------------------
# Frozen features and probes
# ---------------------------------------------------------------------------------------------
@torch.no_grad()
def encode(
    model: TinyViT,
    images: np.ndarray | torch.Tensor,
    boxes=None,
    *,
    pos_mask: np.ndarray | None = None,
    batch: int = 250,
) -> tuple[np.ndarray, np.ndarray]:
    """Frozen tokens of the views `boxes` of `images` (whole images if None), with the field at
    its identity placement. Returns CLS (n, dim) and patch tokens (n, grid², dim)."""
    device = model.field.device
    x = torch.as_tensor(np.asarray(images), dtype=torch.float32).to(device)
    n, size = len(x), model.image_size
    boxes = identity_boxes(n) if boxes is None else check_boxes(boxes)
    if len(boxes) != n:
        raise ValueError(f"boxes has {len(boxes)} rows for {n} images")
    if pos_mask is not None:
        pos_mask = np.asarray(pos_mask, bool).reshape(n, -1)
    model.eval()
    cls, pat = [], []
    for s in range(0, n, batch):
        sl = slice(s, s + batch)
        v = crop_resize(x[sl], boxes[sl], (size, size))
        pm = None if pos_mask is None else torch.from_numpy(pos_mask[sl]).to(device)
        t = model(v, boxes[sl], pos_mask=pm).cpu()
        cls.append(t[:, 0].numpy())
        pat.append(t[:, 1:].numpy())
    return np.concatenate(cls), np.concatenate(pat)


def patch_positions(boxes, grid: int) -> np.ndarray:
    """Original-image (x, y) in [0, 1] of every patch centre of each view: (n, grid², 2)."""
    x, y = grid_coords(boxes, grid)
    xx = np.broadcast_to(x[:, None, :], (len(x), grid, grid))
    yy = np.broadcast_to(y[:, :, None], (len(x), grid, grid))
    return np.stack([xx, yy], axis=-1).reshape(len(x), grid * grid, 2)


@dataclass(frozen=True)
class RidgeProbe:
    """A linear map fitted by ridge regression on standardised features."""

    mean: np.ndarray
    scale: np.ndarray
    coef: np.ndarray  # (d + 1, k): weights and intercept

    def predict(self, X: np.ndarray) -> np.ndarray:
        Z = (np.asarray(X, np.float64) - self.mean) / self.scale
        return Z @ self.coef[:-1] + self.coef[-1]


def ridge_probe(X: np.ndarray, Y: np.ndarray, *, alpha: float = 1.0) -> RidgeProbe:
    """Fit ``Y ≈ standardise(X) W + b`` with an L2 penalty `alpha` on W (closed form)."""
    X = np.asarray(X, np.float64)
    Y = np.asarray(Y, np.float64)
    if X.ndim != 2 or len(X) != len(Y):
        raise ValueError(
            f"X must be (n, d) with n = len(Y); got {X.shape} and {Y.shape}"
        )
    if alpha < 0:
        raise ValueError(f"alpha must be >= 0, got {alpha!r}")
    Y2 = Y.reshape(len(Y), -1)
    mean, scale = X.mean(0), X.std(0) + 1e-8
    Z = (X - mean) / scale
    ym = Y2.mean(0)
    A = Z.T @ Z + alpha * np.eye(Z.shape[1])
    W = np.linalg.solve(A, Z.T @ (Y2 - ym))
    coef = np.vstack([W, ym[None, :]])
    return RidgeProbe(mean, scale, coef)


def r2_score(y_true: np.ndarray, y_pred: np.ndarray) -> float:
    """Coefficient of determination averaged over output columns (sklearn's 'uniform')."""
    yt = np.asarray(y_true, np.float64).reshape(len(y_true), -1)
    yp = np.asarray(y_pred, np.float64).reshape(len(y_pred), -1)
    ss_res = ((yt - yp) ** 2).sum(0)
    ss_tot = ((yt - yt.mean(0)) ** 2).sum(0)
    return float(np.mean(1 - ss_res / ss_tot))


# ---------------------------------------------------------------------------------------------
# Detection-lite
# ---------------------------------------------------------------------------------------------
def patch_targets(scenes: Scenes, patch: int) -> dict[str, np.ndarray]:
    """Ground truth on the patch grid: `label` (n, g²) the majority class of each patch's
    pixels (0 = background), `centre` (n, g²) 1 where a box centre falls, and `box` (n, g², 4)
    the offsets (dx, dy, log w, log h) of that box from the patch centre, in patch units."""
    n, H, W = scenes.classes.shape
    if H % patch or W % patch:
        raise ValueError(f"patch size {patch} must divide the image size {H}×{W}")
    g = H // patch
    cl = scenes.classes.reshape(n, g, patch, g, patch).transpose(0, 1, 3, 2, 4)
    cl = cl.reshape(n, g * g, patch * patch)
    counts = np.stack([(cl == k).sum(-1) for k in range(len(SHAPES) + 1)], axis=-1)
    label = counts.argmax(-1)
    centre = np.zeros((n, g * g))
    box = np.zeros((n, g * g, 4))
    for i in range(n):
        for k in range(int(scenes.counts[i])):
            x0, y0, x1, y1 = scenes.boxes[i, k]
            cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
            c, r = min(int(cx // patch), g - 1), min(int(cy // patch), g - 1)
            j = r * g + c
            centre[i, j] = 1
            box[i, j] = (
                cx / patch - (c + 0.5),
                cy / patch - (r + 0.5),
                np.log((x1 - x0) / patch),
                np.log((y1 - y0) / patch),
            )
    return {"label": label, "centre": centre, "box": box}


def box_iou(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """IoU matrix between boxes a (k, 4) and b (m, 4), both (x0, y0, x1, y1)."""
    a, b = np.asarray(a, float).reshape(-1, 4), np.asarray(b, float).reshape(-1, 4)
    lt = np.maximum(a[:, None, :2], b[None, :, :2])
    rb = np.minimum(a[:, None, 2:], b[None, :, 2:])
    inter = np.clip(rb - lt, 0, None).prod(-1)
    area = lambda z: (z[:, 2] - z[:, 0]) * (z[:, 3] - z[:, 1])  # noqa: E731
    return inter / (area(a)[:, None] + area(b)[None, :] - inter)


def average_precision(
    detections: list[tuple[np.ndarray, np.ndarray]],
    truths: list[np.ndarray],
    *,
    iou: float = 0.5,
) -> float:
    """All-point interpolated average precision of one class over a set of images.

    `detections[i]` = (boxes (k, 4), scores (k,)) and `truths[i]` = boxes (m, 4) of image i.
    Detections are matched greedily in descending score order to the unmatched truth of highest
    IoU in their image, a match needing IoU >= `iou`. NaN if there is no truth.
    """
    if len(detections) != len(truths):
        raise ValueError(
            f"detections ({len(detections)}) and truths ({len(truths)}) must list the same images"
        )
    if not 0 < iou <= 1:
        raise ValueError(f"iou must lie in (0, 1], got {iou!r}")
    n_true = sum(len(t) for t in truths)
    if n_true == 0:
        return float("nan")
    rows = []
    for i, (bx, sc) in enumerate(detections):
        for j in range(len(sc)):
            rows.append((-float(sc[j]), i, j))
    rows.sort()
    used = [np.zeros(len(t), bool) for t in truths]
    tp = np.zeros(len(rows))
    for r, (_, i, j) in enumerate(rows):
        if len(truths[i]) == 0:
            continue
        ious = box_iou(detections[i][0][j], truths[i])[0]
        ious[used[i]] = -1
        best = int(np.argmax(ious))
        if ious[best] >= iou:
            used[i][best] = True
            tp[r] = 1
    if not len(rows):
        return 0.0
    ctp = np.cumsum(tp)
    recall = ctp / n_true
    precision = ctp / np.arange(1, len(rows) + 1)
    mrec = np.concatenate([[0.0], recall])
    mpre = np.concatenate([[1.0], precision])
    mpre = np.maximum.accumulate(mpre[::-1])[::-1]
    return float(np.sum((mrec[1:] - mrec[:-1]) * mpre[1:]))


def neighbourhood(tokens: np.ndarray, context: int) -> np.ndarray:
    """Tokens (n, g², d) of a g×g grid → (n, g², (2c + 1)² d): each patch's own token and those
    of the patches within `context` = c rows and columns of it, zero beyond the grid's edge."""
    t = np.asarray(tokens)
    if t.ndim != 3:
        raise ValueError(f"tokens must be (n, g², d), got shape {t.shape}")
    n, g2, d = t.shape
    g = int(round(math.sqrt(g2)))
    if g * g != g2:
        raise ValueError(f"tokens must lie on a square grid, got {g2} per image")
    if not isinstance(context, (int, np.integer)) or context < 0:
        raise ValueError(f"context must be a non-negative integer, got {context!r}")
    c = int(context)
    pad = np.pad(t.reshape(n, g, g, d), ((0, 0), (c, c), (c, c), (0, 0)))
    parts = [
        pad[:, c + dy : c + dy + g, c + dx : c + dx + g]
        for dy in range(-c, c + 1)
        for dx in range(-c, c + 1)
    ]
    return np.concatenate(parts, axis=-1).reshape(n, g2, -1)


def random_features(
    train: np.ndarray, test: np.ndarray, m: int, *, seed: int = 0
) -> tuple[np.ndarray, np.ndarray]:
    """A fixed random ReLU map of tokens (…, d): standardise with the training tokens' mean and
    std, then relu(Z W + b) with W ~ N(0, 1/d) (d × m) and b ~ N(0, 1), the same W and b for
    train and test (drawn from `seed`). Returns both mapped to (…, m), float32."""
    if not isinstance(m, (int, np.integer)) or m < 1:
        raise ValueError(f"m must be a positive integer, got {m!r}")
    tr, te = np.asarray(train, np.float32), np.asarray(test, np.float32)
    d = tr.shape[-1]
    if te.shape[-1] != d:
        raise ValueError(
            f"train and test tokens differ in width: {d} vs {te.shape[-1]}"
        )
    flat = tr.reshape(-1, d)
    mean, std = flat.mean(0), flat.std(0) + 1e-6
    g = np.random.default_rng(seed)
    W = (g.standard_normal((d, m)) / math.sqrt(d)).astype(np.float32)
    b = g.standard_normal(m).astype(np.float32)

    def phi(x):
        return np.maximum(((x - mean) / std) @ W + b, 0)

    return phi(tr), phi(te)


@dataclass(frozen=True)
class DetectionResult:
    """Detection-lite on frozen tokens: mIoU of the patch-grid class map, AP at IoU 0.5 per
    class and their mean, the decoded detections of the test images, and the chance AP: the
    same heads' AP when every test image is scored with another test image's tokens (the next
    one), which keeps what the heads learned of where and how large objects tend to be and
    removes everything the features say about the image itself."""

    miou: float
    ap50: float
    ap_per_class: tuple[float, ...]
    detections: list  # per test image: (boxes (k, 4), scores (k,), labels (k,))
    chance_ap50: float = float("nan")


def detection_lite(
    train_tokens: np.ndarray,
    train: Scenes,
    test_tokens: np.ndarray,
    test: Scenes,
    *,
    patch: int,
    alpha: float = 10.0,
    min_score: float = 0.05,
    context: int = 0,
    features: int = 0,
    feature_seed: int = 0,
) -> DetectionResult:
    """Linear heads on frozen patch tokens (n, g², d): a 5-way patch class head (one-hot ridge)
    gives the class map (mIoU over background and the four shapes); a centre head scores each
    patch for holding a box centre; a box head regresses (dx, dy, log w, log h) from patches that
    hold a centre. Each head reads a patch's token, or with `context` = c the tokens of the
    (2c + 1)² patches around it (see `neighbourhood`). Decoding keeps patches whose centre score
    is a 3×3 local maximum above `min_score`, labelled by the class head's best shape, scored by
    the centre score. With `features` = m > 0 the heads read m fixed random ReLU features of
    those tokens instead (`random_features`, seeded by `feature_seed`): still closed-form ridge
    heads, but able to draw a nonlinear boundary."""
    if not isinstance(features, (int, np.integer)) or features < 0:
        raise ValueError(f"features must be a non-negative integer, got {features!r}")
    if not isinstance(context, (int, np.integer)) or context < 0:
        raise ValueError(f"context must be a non-negative integer, got {context!r}")
    g2 = train_tokens.shape[1]
    g = int(round(math.sqrt(g2)))
    t_tr, t_te = patch_targets(train, patch), patch_targets(test, patch)
    if context:
        train_tokens = neighbourhood(train_tokens, context)
        test_tokens = neighbourhood(test_tokens, context)
    if features:
        train_tokens, test_tokens = random_features(
            train_tokens, test_tokens, features, seed=feature_seed
        )
    d = train_tokens.shape[-1]
    Xtr, Xte = train_tokens.reshape(-1, d), test_tokens.reshape(-1, d)
    k = len(SHAPES) + 1
    # the class and centre heads share their inputs: one ridge fit with k + 1 outputs
    both = ridge_probe(
        Xtr,
        np.column_stack([np.eye(k)[t_tr["label"].ravel()], t_tr["centre"].ravel()]),
        alpha=alpha,
    )
    cls_head = RidgeProbe(both.mean, both.scale, both.coef[:, :k])
    cen_head = RidgeProbe(both.mean, both.scale, both.coef[:, k:])
    has = t_tr["centre"].ravel() > 0
    box_head = ridge_probe(Xtr[has], t_tr["box"].reshape(-1, 4)[has], alpha=alpha)
    n = len(test_tokens)

    def score(X):
        cls_score = cls_head.predict(X).reshape(n, g2, k)
        pred = cls_score.argmax(-1)
        truth = t_te["label"]
        ious = []
        for c in range(k):
            inter = ((pred == c) & (truth == c)).sum()
            union = ((pred == c) | (truth == c)).sum()
            ious.append(inter / union if union else np.nan)
        cen = cen_head.predict(X).reshape(n, g, g)
        off = box_head.predict(X).reshape(n, g, g, 4)
        pad = np.pad(cen, ((0, 0), (1, 1), (1, 1)), constant_values=-np.inf)
        neigh = np.stack(
            [
                pad[:, 1 + dy : 1 + dy + g, 1 + dx : 1 + dx + g]
                for dy in (-1, 0, 1)
                for dx in (-1, 0, 1)
            ]
        )
        peak = (cen >= neigh.max(0)) & (cen > min_score)
        fg = cls_score.reshape(n, g, g, k)[..., 1:].argmax(-1) + 1
        dets = []
        for i in range(n):
            rr, cc = np.nonzero(peak[i])
            o = off[i, rr, cc]
            cx, cy = (cc + 0.5 + o[:, 0]) * patch, (rr + 0.5 + o[:, 1]) * patch
            w, h = (
                np.exp(np.clip(o[:, 2], -3, 3)) * patch,
                np.exp(np.clip(o[:, 3], -3, 3)) * patch,
            )
            bx = np.stack([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2], axis=1)
            dets.append((bx, cen[i, rr, cc], fg[i, rr, cc]))
        aps = []
        for c in range(1, k):
            det_c = [(bx[lab == c], sc[lab == c]) for bx, sc, lab in dets]
            tru_c = [
                test.boxes[i][: test.counts[i]][test.labels[i][: test.counts[i]] == c]
                for i in range(n)
            ]
            aps.append(average_precision(det_c, tru_c, iou=0.5))
        return float(np.nanmean(ious)), aps, dets

    miou, aps, dets = score(Xte)
    chance = float("nan")
    if n > 1:  # every test image scored with the next image's tokens
        chance = float(np.nanmean(score(np.roll(test_tokens, 1, 0).reshape(-1, d))[1]))
    return DetectionResult(
        miou=miou,
        ap50=float(np.nanmean(aps)),
        ap_per_class=tuple(float(a) for a in aps),
        detections=dets,
        chance_ap50=chance,
    )


# ---------------------------------------------------------------------------------------------
# The probe suite
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class PositionResult:
    """A position probe: R² on the test tokens, and the true and predicted original-image (x, y)
    of each test token it used (k, 2)."""

    r2: float
    true: np.ndarray
    pred: np.ndarray


def position_probe(
    model: TinyViT,
    train_images: np.ndarray,
    train_boxes: np.ndarray,
    test_images: np.ndarray,
    test_boxes: np.ndarray,
    *,
    train_masks: np.ndarray | None = None,
    test_masks: np.ndarray | None = None,
    alpha: float = 1.0,
) -> PositionResult:
    """Fit a linear (ridge) map from frozen patch tokens of views to the original-image (x, y) of
    each patch centre on the training views; report R² on the test views. With masks
    (n, grid, grid), the positional encodings of the masked patches are replaced by the model's
    position-mask vector and only the masked patches' tokens are used."""
    if (train_masks is None) != (test_masks is None):
        raise ValueError("give both train_masks and test_masks, or neither")
    g = model.grid

    def tokens(images, boxes, masks):
        _, pat = encode(model, images, boxes, pos_mask=masks)
        pos = patch_positions(boxes, g)
        if masks is None:
            return pat.reshape(-1, pat.shape[-1]), pos.reshape(-1, 2)
        keep = np.asarray(masks, bool).reshape(len(images), -1)
        return pat[keep], pos[keep]

    Xtr, Ytr = tokens(train_images, train_boxes, train_masks)
    Xte, Yte = tokens(test_images, test_boxes, test_masks)
    pred = ridge_probe(Xtr, Ytr, alpha=alpha).predict(Xte)
    return PositionResult(r2_score(Yte, pred), Yte, pred)


def content_probe(
    train_features: np.ndarray,
    train: Scenes,
    test_features: np.ndarray,
    test: Scenes,
    *,
    alpha: float = 10.0,
) -> dict[str, float]:
    """Image-level linear probes on frozen features (n, d): the number of shapes (one-hot ridge,
    accuracy) and which shape types are present (one ridge score per type, threshold 1/2,
    accuracy averaged over types)."""
    k = int(max(train.counts.max(), test.counts.max()))
    head = ridge_probe(train_features, np.eye(k + 1)[train.counts], alpha=alpha)
    count_acc = float((head.predict(test_features).argmax(1) == test.counts).mean())

    def present(s: Scenes) -> np.ndarray:
        return np.stack([(s.labels == c + 1).any(1) for c in range(len(SHAPES))], 1)

    types = ridge_probe(train_features, present(train).astype(float), alpha=alpha)
    type_acc = float(((types.predict(test_features) > 0.5) == present(test)).mean())
    return {"count accuracy": count_acc, "type accuracy": type_acc}


def field_smoothness(field: torch.Tensor | np.ndarray) -> float:
    """Mean cosine similarity between horizontally and vertically adjacent cells of a field
    (d, h, w): about 0 for an untrained random field, near 1 for a smooth one."""
    f = torch.as_tensor(
        np.asarray(field.detach().cpu() if torch.is_tensor(field) else field)
    )
    if f.dim() != 3 or min(f.shape[1:]) < 2:
        raise ValueError(
            f"field must be (d, h, w) with h, w >= 2, got {tuple(f.shape)}"
        )
    h = F.cosine_similarity(f[:, :, 1:], f[:, :, :-1], dim=0)
    v = F.cosine_similarity(f[:, 1:, :], f[:, :-1, :], dim=0)
    return float(torch.cat([h.flatten(), v.flatten()]).mean())
