"""AURC as a training loss (torch), the peer torch-uncertainty's AURC metric, and what the
chapter's small models need (scikit-learn MLP logits, a torch classifier's selective
metrics). The networks and their training loop are `repbook.core.nets`' (`mlp`, `train_epochs`)."""

from __future__ import annotations

import numpy as np

from .estimators import _check_pair, plugin_aurc, weights


# ----------------------------------------------------------------------------------------------
# AURC as a training loss (torch)
def aurc_loss(logits, targets, estimator: str = "mc"):
    """Batch AURC plug-in with cross-entropy as ℓ: Σ_r α_r · CE_(r) / B.

    Ranks come from the detached max-softmax confidence, so no gradient flows through the
    ranking; the gradient reweights each sample's cross-entropy by its rank weight.
    """
    import torch
    import torch.nn.functional as F

    if logits.ndim != 2 or targets.ndim != 1 or logits.shape[0] != targets.shape[0]:
        raise ValueError(
            f"logits must be (B, C) and targets (B,), got {tuple(logits.shape)} and "
            f"{tuple(targets.shape)}"
        )
    b = logits.shape[0]
    ce = F.cross_entropy(logits, targets, reduction="none")
    with torch.no_grad():
        conf = torch.softmax(logits, dim=1).max(dim=1).values
        rank = torch.empty_like(conf, dtype=torch.long)
        rank[torch.argsort(conf, stable=True)] = torch.arange(b, device=logits.device)
        w = torch.as_tensor(
            weights(b, estimator), dtype=logits.dtype, device=logits.device
        )[rank]
    return (ce * w).sum() / b


# ----------------------------------------------------------------------------------------------
# peer: torch-uncertainty's AURC metric
def torch_uncertainty_aurc_metric():
    """The `AURC` metric class of the installed torch-uncertainty package.

    The package's top-level import pulls torchvision (no build exists for the book's torch 2.13
    CPU), so the metric's module file is loaded on its own from the installed distribution.
    """
    import importlib.metadata as md
    import importlib.util
    import warnings

    try:
        dist = md.distribution("torch-uncertainty")
    except md.PackageNotFoundError as exc:
        raise ImportError(
            "torch-uncertainty is not installed (pip install torch-uncertainty)"
        ) from exc
    path = dist.locate_file("torch_uncertainty/metrics/classification/risk_coverage.py")
    spec = importlib.util.spec_from_file_location("_tu_risk_coverage", path)
    module = importlib.util.module_from_spec(spec)
    with (
        warnings.catch_warnings()
    ):  # it imports tqdm.auto, which warns that ipywidgets is absent
        warnings.filterwarnings("ignore", message="IProgress not found")
        spec.loader.exec_module(module)
    return module.AURC


def torch_uncertainty_aurc(errors, confidence, metric_cls=None) -> float:
    """torch-uncertainty's AURC of 0/1 `errors` ranked by `confidence` (1-D).

    The metric takes class probabilities and targets; a two-class probability p = (1 + rank)/(n + 1)
    monotone in the confidence, with target 1 − error, gives it exactly these ranks and errors.
    """
    import torch

    errors, confidence = _check_pair(errors, confidence)
    if errors.ndim != 1 or not np.all((errors == 0) | (errors == 1)):
        raise ValueError("torch_uncertainty_aurc takes 1-D 0/1 errors")
    n = errors.size
    order = np.argsort(confidence, kind="stable")
    p = np.empty(n)
    p[order] = 0.5 + 0.5 * np.arange(1, n + 1) / (n + 1)
    probs = torch.tensor(np.stack([p, 1 - p], axis=1))
    targets = torch.tensor((errors == 1).astype(np.int64))
    metric = (metric_cls or torch_uncertainty_aurc_metric())()
    metric.update(probs, targets)
    return float(metric.compute())


# ----------------------------------------------------------------------------------------------
# The small models of the chapter's experiments
def sklearn_mlp_logits(mlp, X) -> np.ndarray:
    """Pre-softmax outputs of a fitted scikit-learn `MLPClassifier` with ReLU hidden layers
    (scikit-learn exposes only probabilities; the max logit is one of the confidence scores)."""
    if getattr(mlp, "activation", "relu") != "relu":
        raise ValueError(
            f"sklearn_mlp_logits handles ReLU networks, got {mlp.activation!r}"
        )
    h = np.asarray(X, dtype=np.float64)
    for W, b in zip(mlp.coefs_[:-1], mlp.intercepts_[:-1]):
        h = np.maximum(h @ W + b, 0)
    return h @ mlp.coefs_[-1] + mlp.intercepts_[-1]


def selective_metrics(net, X, y) -> tuple[float, float]:
    """(test AURC with 0/1 loss and max-softmax confidence, accuracy) of a torch classifier."""
    import torch

    with torch.no_grad():
        p = torch.softmax(net(X), 1).numpy()
    e = (p.argmax(1) != np.asarray(y)).astype(float)
    return float(plugin_aurc(e, p.max(1))), float(1 - e.mean())
