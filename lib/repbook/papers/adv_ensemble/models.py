"""The networks of the chapter (ReLU MLPs are the core's `nets.mlp`): the mean-output ensemble, plain
training, input gradients and Jacobians of the members' outputs, and a 2-D model's outputs on a
grid over the ε-box (for the exact adversarial loss)."""

from __future__ import annotations

import copy
from dataclasses import dataclass

import numpy as np
import torch

from repbook.core import checks, nets

from .decomposition import (
    RegressionDecomposition,
    _check_multiclass,
    gradient_dispersion,
    multiclass_decomposition,
    true_class_decomposition,
)


# ----------------------------------------------------------------------------------------------
# models and training
class Ensemble(torch.nn.Module):
    """The mean of the members' outputs (logits for classifiers). Members live in an
    `nn.ModuleList`, so `.parameters()`, `.train()` and `.eval()` reach all of them."""

    def __init__(self, members):
        super().__init__()
        members = list(members)
        if not members:
            raise ValueError("an ensemble needs at least one member")
        self.members = torch.nn.ModuleList(members)

    def forward(self, x):
        out = self.members[0](x)
        for member in self.members[1:]:
            out = out + member(x)
        return out / len(self.members)


def input_gradients(model, x):
    """(outputs (n,), input gradients (n, d)) of a scalar-output model, computed in eval mode.

    The gradient is that of the model's *output* (a regression output or a binary logit), one row
    per input; the model's train/eval mode is restored afterwards."""
    if x.ndim < 2:
        raise ValueError(
            f"x must be a batch of inputs (n, ...), got shape {tuple(x.shape)}"
        )
    was_training = model.training
    model.eval()
    try:
        xr = x.detach().clone().requires_grad_(True)
        out = model(xr).reshape(len(xr), -1)
        if out.shape[1] != 1:
            raise ValueError(
                f"the model must have one output per input, got {out.shape[1]}"
            )
        (grad,) = torch.autograd.grad(out[:, 0].sum(), xr)
    finally:
        model.train(was_training)
    return out[:, 0].detach(), grad.reshape(len(xr), -1)


def members_outputs_and_gradients(models, x):
    """Stacked outputs (m, n) and input gradients (m, n, d) of scalar-output models, as numpy."""
    pairs = [input_gradients(model, x) for model in models]
    if not pairs:
        raise ValueError("models must hold at least one model")
    F = np.stack([p[0].cpu().numpy() for p in pairs])
    G = np.stack([p[1].cpu().numpy() for p in pairs])
    return F, G


def fit(
    model, X, y, *, loss: str, epochs: int, lr: float, batch_size: int, generator
) -> None:
    """Plain (clean) training with Adam: loss "mse" (real targets), "bce" (0/1 labels, one logit)
    or "ce" (class labels). Batches drawn from `generator` (`nets.train_epochs`)."""
    functional = torch.nn.functional
    fns = {
        "mse": lambda o, t: ((o.reshape(len(t)) - t) ** 2).mean(),
        "bce": lambda o, t: functional.binary_cross_entropy_with_logits(
            o.reshape(len(t)), t
        ),
        "ce": functional.cross_entropy,
    }
    checks.one_of("loss", loss, sorted(fns))
    epochs = checks.integer("epochs", epochs, at_least=1)
    batch_size = checks.integer("batch_size", batch_size, at_least=1)
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    model.train()
    nets.train_epochs(model, opt, fns[loss], X, y, epochs, generator, batch_size)
    model.eval()


def accuracy(model, X, y) -> float:
    """Share of rows whose arg-max output is the label (a float32 mean, as the chapter's
    records were made)."""
    with torch.no_grad():
        return float((model(X).argmax(1) == y).float().mean())


@dataclass(frozen=True)
class MemberTerms:
    """Outputs (m, n) and input gradients (m, n, d) of scalar-output members at n points, in
    float32 (the precision the networks run in) and in float64 (from double copies of the same
    weights), so that rounding cannot pass for a sign."""

    outputs: np.ndarray
    gradients: np.ndarray
    outputs64: np.ndarray
    gradients64: np.ndarray


def member_terms(models, x) -> MemberTerms:
    """`members_outputs_and_gradients` of the models at x in float32, and of double copies of
    them at x in float64 (the models themselves are not changed)."""
    f32 = members_outputs_and_gradients(models, x)
    doubles = [copy.deepcopy(m).double() for m in models]
    f64 = members_outputs_and_gradients(doubles, x.double())
    return MemberTerms(*f32, *f64)


# ----------------------------------------------------------------------------------------------
# the members' softmax outputs and their Jacobians (for the K-class readings)
def members_probabilities_and_jacobians(models, x):
    """Softmax outputs (m, n, K) and their input Jacobians (m, n, K, d) of K-class models, as
    numpy, computed in eval mode (each model's mode is restored). Row j of the Jacobian of a
    point is the input gradient of that point's class-j probability; the models must treat
    the points of a batch independently (no batch statistics)."""
    models = list(models)
    if not models:
        raise ValueError("models must hold at least one model")
    if x.ndim != 2:
        raise ValueError(f"x must have shape (n, d), got {tuple(x.shape)}")
    probs, jacs = [], []
    for model in models:
        was_training = model.training
        model.eval()
        try:
            xr = x.detach().clone().requires_grad_(True)
            p = torch.softmax(model(xr), dim=1)
            rows = [
                torch.autograd.grad(p[:, j].sum(), xr, retain_graph=True)[0]
                for j in range(p.shape[1])
            ]
        finally:
            model.train(was_training)
        probs.append(p.detach().cpu().numpy())
        jacs.append(torch.stack(rows, dim=1).cpu().numpy())
    return np.stack(probs), np.stack(jacs)


def classifier_true_class_terms(models, x, y, *, epsilon: float, norm: str = "linf"):
    """`true_class_decomposition` of K-class models at the inputs x (torch (n, d)) with labels
    y (torch or numpy (n,)), and the `gradient_dispersion` of the members' true-class
    probabilities. Returns (decomposition, dispersion)."""
    P, J = members_probabilities_and_jacobians(models, x)
    labels = y.detach().cpu().numpy() if isinstance(y, torch.Tensor) else np.asarray(y)
    dec = true_class_decomposition(P, J, labels, epsilon=epsilon, norm=norm)
    rows = np.arange(P.shape[1])
    _, _, Y = _check_multiclass(P, J, labels)
    return dec, gradient_dispersion(J[:, rows, Y, :], norm=norm)


def classifier_decomposition(
    models, x, y, *, epsilon: float, norm: str = "linf"
) -> RegressionDecomposition:
    """`multiclass_decomposition` of K-class models at the inputs x (torch (n, d)) with labels
    y (torch or numpy (n,))."""
    P, J = members_probabilities_and_jacobians(models, x)
    labels = y.detach().cpu().numpy() if isinstance(y, torch.Tensor) else np.asarray(y)
    return multiclass_decomposition(P, J, labels, epsilon=epsilon, norm=norm)


# ----------------------------------------------------------------------------------------------
# exact adversarial loss of a 2-D-input model on a grid
def box_grid(epsilon: float, n_grid: int) -> np.ndarray:
    """The n_grid × n_grid offsets of a dense grid over the 2-D box [−ε, ε]² (corners included)."""
    epsilon = checks.number("epsilon", epsilon, at_least=0)
    n_grid = checks.integer("n_grid", n_grid, at_least=2)  # the corners included
    t = np.linspace(-epsilon, epsilon, n_grid)
    u, v = np.meshgrid(t, t, indexing="ij")
    return np.stack([u.ravel(), v.ravel()], axis=1)


def grid_outputs(models, x, offsets):
    """Outputs (m, n, k) of scalar-output models at x + each of k offsets (x: (n, 2))."""
    if x.ndim != 2 or x.shape[1] != 2:
        raise ValueError(f"x must have shape (n, 2), got {tuple(x.shape)}")
    off = torch.as_tensor(np.asarray(offsets), dtype=x.dtype, device=x.device)
    if off.ndim != 2 or off.shape[1] != 2:
        raise ValueError(f"offsets must have shape (k, 2), got {tuple(off.shape)}")
    pts = (x[:, None, :] + off[None, :, :]).reshape(-1, 2)
    with torch.no_grad():
        out = [model(pts).reshape(len(x), len(off)) for model in models]
    return torch.stack(out).cpu().numpy()
