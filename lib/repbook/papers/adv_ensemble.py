"""Diversity in adversarial ensembles (Guo, Qian, Gao, Zhou, ICML 2025; code: GuoJQ42/AdvOAP).

Notation. An ensemble averages m members f_1..f_m: f̄ = (1/m) Σ f_i (outputs for regression, logits
for classification). The attack is an ℓ_p ball of radius ε and q is the dual norm (ℓ∞ attack →
q = 1, ℓ₂ → q = 2), so to first order max_{‖δ‖_p ≤ ε} (f(x+δ) − y)² ≈ (|f(x) − y| + ε‖∇ₓf(x)‖_q)².
With g_i = ‖∇f_i‖_q and ḡ = ‖∇f̄‖_q = ‖(1/m) Σ ∇f_i‖_q, that first-order loss splits exactly into

    L(f̄) = (1/m) Σ L(f_i) − prediction − gradient − cross diversity,
    prediction = (1/m) Σ (f_i − f̄)²,  gradient = ε² [(1/m) Σ g_i² − ḡ²],
    cross = 2ε [(1/m) Σ g_i |f_i − y| − ḡ |f̄ − y|].

For a binary logit z and labels y ∈ {0, 1} (s = 2y − 1), the first-order adversarial logit of a
member is a_i = z_i − sεg_i and that of the ensemble e = z̄ − sεḡ; the cross-entropy splits into
the members' mean loss, a KL (prediction) term and a gradient term (see `binary_ce_decomposition`).

The training method ("AdvEOAP" in the paper, `adv_oap` in the code): each member is attacked on
its own, its predicted probabilities over the non-true classes are L1-normalised, and the loss is
Σ CE − α · mean log det(P Pᵀ + 10⁻⁶ I) − β · H(mean of the members' normalised predictions).

Arrays are numpy for the algebra and torch for models; no printing, plotting or file writing.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import torch

NORMS = {"linf": 1.0, "l2": 2.0}
"""The attack's norm → the order q of its dual norm, used on input gradients."""

P_BAR = ("code", "geometric")


# ----------------------------------------------------------------------------------------------
# argument checks
def _check_epsilon(epsilon) -> float:
    if isinstance(epsilon, bool) or not isinstance(
        epsilon, (int, float, np.integer, np.floating)
    ):
        raise TypeError(f"epsilon must be a number, got {epsilon!r}")
    if not math.isfinite(float(epsilon)) or epsilon < 0:
        raise ValueError(f"epsilon must be a finite number ≥ 0, got {epsilon!r}")
    return float(epsilon)


def dual_order(norm: str) -> float:
    """The order q of the dual norm of the attack norm `norm` ("linf" → 1, "l2" → 2)."""
    if norm not in NORMS:
        raise ValueError(f"norm must be one of {sorted(NORMS)}, got {norm!r}")
    return NORMS[norm]


def _check_positive_int(name: str, value) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ValueError(f"{name} must be a positive int, got {value!r}")
    return int(value)


def _members_arrays(outputs, gradients, y, *, what: str):
    F = np.asarray(outputs)
    G = np.asarray(gradients)
    Y = np.asarray(y)
    if F.ndim != 2:
        raise ValueError(f"{what} must have shape (members, points), got {F.shape}")
    if G.ndim != 3 or G.shape[:2] != F.shape:
        raise ValueError(
            f"gradients must have shape (members, points, input dim) = "
            f"({F.shape[0]}, {F.shape[1]}, d), got {G.shape}"
        )
    if Y.shape != (F.shape[1],):
        raise ValueError(
            f"y must have shape ({F.shape[1]},), one target per point, got {Y.shape}"
        )
    dtype = np.result_type(F.dtype, G.dtype, np.float32)
    return F.astype(dtype), G.astype(dtype), Y.astype(dtype)


def _dual_norms(G: np.ndarray, q: float) -> tuple[np.ndarray, np.ndarray]:
    """Member norms g (m, n) and the norm ḡ (n,) of the mean gradient."""
    g = np.linalg.norm(G, ord=q, axis=-1)
    g_bar = np.linalg.norm(G.mean(axis=0), ord=q, axis=-1)
    return g, g_bar


# ----------------------------------------------------------------------------------------------
# the regression decomposition
@dataclass(frozen=True)
class RegressionDecomposition:
    """Per-point terms of the first-order squared-loss decomposition (arrays of shape (n,)).

    `ensemble` is (|f̄ − y| + εḡ)², `average` the members' mean of (|f_i − y| + εg_i)²; then
    ensemble = average − prediction − gradient − cross holds exactly (up to rounding)."""

    ensemble: np.ndarray
    average: np.ndarray
    prediction: np.ndarray
    gradient: np.ndarray
    cross: np.ndarray

    @property
    def residual(self) -> np.ndarray:
        """ensemble − (average − prediction − gradient − cross): zero up to rounding."""
        return self.ensemble - (
            self.average - self.prediction - self.gradient - self.cross
        )

    @property
    def relative_residual(self) -> np.ndarray:
        """|residual| over the members' mean loss, the largest term (the ensemble's loss itself
        can be close to 0, which would turn rounding into large ratios)."""
        return np.abs(self.residual) / np.maximum(
            self.average, np.finfo(self.average.dtype).tiny
        )

    def means(self) -> dict[str, float]:
        """Each term averaged over the points (as the official code reports them)."""
        return {
            k: float(np.mean(getattr(self, k)))
            for k in ("ensemble", "average", "prediction", "gradient", "cross")
        }


def first_order_sq_loss(output, grad_norm, y, *, epsilon: float) -> np.ndarray:
    """(|f − y| + ε‖∇f‖_q)²: the first-order adversarial squared loss."""
    epsilon = _check_epsilon(epsilon)
    f, g, t = np.asarray(output), np.asarray(grad_norm), np.asarray(y)
    if not (f.shape == g.shape == t.shape):
        raise ValueError(
            f"output, grad_norm and y must have one shape, got {f.shape}, {g.shape}, "
            f"{t.shape}"
        )
    return (np.abs(f - t) + epsilon * g) ** 2


def first_order_sq_loss_in_range(
    output, gradient, x, y, *, epsilon: float, clip: tuple[float, float] = (0.0, 1.0)
) -> np.ndarray:
    """The first-order ℓ∞ adversarial squared loss when x + δ must also stay in the data range:
    max over δ in [−ε, ε]^d ∩ [lo − x, hi − x] of (f + ∇f·δ − y)², per point (our refinement;
    the paper's and the code's first order use the whole ε-box, i.e. ε‖∇f‖₁).

    `output` (n,), `gradient` (n, d), `x` (n, d) in the data range, `y` (n,)."""
    epsilon = _check_epsilon(epsilon)
    f, g, X, t = (np.asarray(a) for a in (output, gradient, x, y))
    if (
        g.ndim != 2
        or X.shape != g.shape
        or f.shape != (g.shape[0],)
        or t.shape != f.shape
    ):
        raise ValueError(
            f"need output (n,), gradient (n, d), x (n, d), y (n,); got {f.shape}, "
            f"{g.shape}, {X.shape}, {t.shape}"
        )
    lo, hi = clip
    if not lo < hi:
        raise ValueError(f"clip must be (low, high) with low < high, got {clip!r}")
    if X.min() < lo or X.max() > hi:
        raise ValueError(f"x must lie in the data range {clip}")
    down = np.maximum(-epsilon, lo - X)  # ≤ 0: how far each input may move down
    up = np.minimum(epsilon, hi - X)  # ≥ 0: how far it may move up
    rise = np.maximum(g * down, g * up).sum(axis=1)  # largest first-order increase of f
    fall = np.minimum(g * down, g * up).sum(
        axis=1
    )  # largest first-order decrease (≤ 0)
    r = f - t
    return np.maximum(r + rise, -(r + fall)) ** 2


def regression_decomposition(
    outputs, gradients, y, *, epsilon: float, norm: str = "linf"
) -> RegressionDecomposition:
    """The four-term decomposition of the ensemble's first-order adversarial squared loss.

    `outputs` (m, n): each member's output at each point; `gradients` (m, n, d): the input
    gradient of each member's *output* (not of a loss); `y` (n,): targets. The dtype of the inputs
    is kept (float32 in, float32 out). The ensemble's own gradient is the mean of the members'.
    """
    epsilon = _check_epsilon(epsilon)
    q = dual_order(norm)
    F, G, Y = _members_arrays(outputs, gradients, y, what="outputs")
    g, g_bar = _dual_norms(G, q)
    f_bar = F.mean(axis=0)
    r, r_bar = np.abs(F - Y), np.abs(f_bar - Y)
    eps = F.dtype.type(epsilon)
    return RegressionDecomposition(
        ensemble=(r_bar + eps * g_bar) ** 2,
        average=((r + eps * g) ** 2).mean(axis=0),
        prediction=((F - f_bar) ** 2).mean(axis=0),
        gradient=eps**2 * ((g**2).mean(axis=0) - g_bar**2),
        cross=2 * eps * ((g * r).mean(axis=0) - g_bar * r_bar),
    )


# ----------------------------------------------------------------------------------------------
# the binary cross-entropy decomposition
def _softplus(x):
    return np.logaddexp(x.dtype.type(0), x)


def _log_sigmoid(x):
    return -_softplus(-x)


def _sigmoid(x):
    from scipy.special import expit

    return expit(x)


def _bernoulli_kl(p_logit, q_logit, stable: bool = True):
    """KL(Bern(σ(p)) ‖ Bern(σ(q))) from logits. Stable: 1 − σ(p) is taken as σ(−p) and the
    logarithms as log-sigmoids; otherwise 1 − σ and log σ are formed literally (as the official
    code does, with its 10⁻¹⁰ guard), which loses the small probabilities of confident
    predictions."""
    if stable:
        return _sigmoid(p_logit) * (
            _log_sigmoid(p_logit) - _log_sigmoid(q_logit)
        ) + _sigmoid(-p_logit) * (_log_sigmoid(-p_logit) - _log_sigmoid(-q_logit))
    p, q = _sigmoid(p_logit), _sigmoid(q_logit)
    t = p.dtype.type(1e-10)  # the code's guard inside the logarithms
    return p * np.log((p + t) / (q + t)) + (1 - p) * np.log((1 - p + t) / (1 - q + t))


@dataclass(frozen=True)
class BinaryDecomposition:
    """Per-point terms of the first-order binary cross-entropy decomposition (arrays (n,)).

    ensemble = average − kl − gradient. `p_bar` says which reference prediction the KL uses:
    "code" (σ(e), the ensemble's adversarial prediction, as GuoJQ42/AdvOAP computes it) or
    "geometric" (σ(mean a_i), the normalised geometric mean of the members' predictions)."""

    ensemble: np.ndarray
    average: np.ndarray
    kl: np.ndarray
    gradient: np.ndarray
    p_bar: str

    @property
    def residual(self) -> np.ndarray:
        return self.ensemble - (self.average - self.kl - self.gradient)

    @property
    def relative_residual(self) -> np.ndarray:
        """|residual| over the members' mean loss (see RegressionDecomposition)."""
        return np.abs(self.residual) / np.maximum(
            self.average, np.finfo(self.average.dtype).tiny
        )

    def means(self) -> dict[str, float]:
        return {
            k: float(np.mean(getattr(self, k)))
            for k in ("ensemble", "average", "kl", "gradient")
        }


def binary_ce_decomposition(
    logits,
    gradients,
    y,
    *,
    epsilon: float,
    norm: str = "linf",
    p_bar: str = "code",
    stable: bool = True,
) -> BinaryDecomposition:
    """Decompose the first-order adversarial cross-entropy of an ensemble of binary logits.

    Member i's first-order adversarial logit is a_i = z_i − sεg_i (s = 2y − 1), the ensemble's is
    e = z̄ − sεḡ, and CE(z) = softplus(−s z). With Δ = (1/m) Σ g_i − ḡ ≥ 0:

    - p_bar="code": p̄ = σ(e); kl = (1/m) Σ KL(p̄ ‖ σ(a_i)) and gradient = ε R Δ with
      R = (y − p̄)(2y − 1) = σ(−s e) ≥ 0 (the official code's div1 and div2, per point);
    - p_bar="geometric": p̃ = σ(ā) with ā = (1/m) Σ a_i; kl = (1/m) Σ KL(p̃ ‖ σ(a_i)) and
      gradient = CE(ā) − CE(e) ≥ 0 (an exact non-linear gradient term; our alternative reading).

    In both, ensemble = average − kl − gradient exactly. `y` must hold 0/1 labels.
    `stable=False` forms 1 − σ(·) and R = (y − p̄)(2y − 1) literally, as the official code does:
    the same numbers in exact arithmetic, but the identity then fails by rounding at confident
    points (most visibly in float32).
    """
    epsilon = _check_epsilon(epsilon)
    q = dual_order(norm)
    if p_bar not in P_BAR:
        raise ValueError(f"p_bar must be one of {P_BAR}, got {p_bar!r}")
    Z, G, Y = _members_arrays(logits, gradients, y, what="logits")
    if not np.all((Y == 0) | (Y == 1)):
        raise ValueError("y must hold binary labels 0 or 1")
    g, g_bar = _dual_norms(G, q)
    s = 2 * Y - 1
    eps = Z.dtype.type(epsilon)
    a = Z - s * eps * g
    e = Z.mean(axis=0) - s * eps * g_bar
    ensemble = _softplus(-s * e)
    average = _softplus(-s * a).mean(axis=0)
    if p_bar == "code":
        kl = _bernoulli_kl(e, a, stable).mean(axis=0)
        R = _sigmoid(-s * e) if stable else (Y - _sigmoid(e)) * s
        gradient = eps * R * (g.mean(axis=0) - g_bar)
    else:
        a_bar = a.mean(axis=0)
        kl = _bernoulli_kl(a_bar, a, stable).mean(axis=0)
        gradient = _softplus(-s * a_bar) - ensemble
    return BinaryDecomposition(
        ensemble=ensemble, average=average, kl=kl, gradient=gradient, p_bar=p_bar
    )


def code_binary_terms(logits, gradients, y, *, epsilon: float, norm: str = "linf"):
    """The official code's div1 and div2 (test-set means) with its literal formulas:
    1/(1 + exp(−·)) for σ, (y − p̄)(2y − 1) for R and a 10⁻¹⁰ guard inside the logarithms.
    For comparison with `binary_ce_decomposition(..., p_bar="code")`."""
    epsilon = _check_epsilon(epsilon)
    q = dual_order(norm)
    Z, G, Y = _members_arrays(logits, gradients, y, what="logits")
    g, g_bar = _dual_norms(G, q)
    s = 2 * Y - 1
    p = 1 / (1 + np.exp(-(Z - s * g * epsilon)))
    pb = 1 / (1 + np.exp(-(Z.mean(axis=0) - s * g_bar * epsilon)))
    kl = (
        pb * np.log((pb + 1e-10) / (p + 1e-10))
        + (1 - pb) * np.log((1 - pb + 1e-10) / (1 - p + 1e-10))
    ).sum(axis=0)
    R = (Y - pb) * s
    div2 = (R * (g - g_bar).sum(axis=0)).sum() * epsilon
    m, n = Z.shape
    return float(kl.sum() / m / n), float(div2 / m / n)


# ----------------------------------------------------------------------------------------------
# models
def mlp(sizes, seed: int):
    """A torch MLP with ReLU between layers, initialised from `seed` (the global torch generator
    is left as it was)."""
    sizes = tuple(sizes)
    if len(sizes) < 2 or any(isinstance(k, bool) or int(k) < 1 for k in sizes):
        raise ValueError(
            f"sizes must be two or more positive layer widths, got {sizes!r}"
        )
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(int(seed))
        layers = []
        for i, (a, b) in enumerate(zip(sizes, sizes[1:])):
            layers.append(torch.nn.Linear(int(a), int(b)))
            if i < len(sizes) - 2:
                layers.append(torch.nn.ReLU())
        return torch.nn.Sequential(*layers)


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


# ----------------------------------------------------------------------------------------------
# attacks
LOSSES = ("ce", "mse")


def _loss(kind: str, out, y):
    F = torch.nn.functional
    if kind == "ce":
        return F.cross_entropy(out, y)
    return ((out.reshape(len(y)) - y) ** 2).mean()


def pgd_attack(
    model,
    x,
    y,
    *,
    epsilon: float,
    steps: int,
    step_size: float,
    loss: str = "ce",
    norm: str = "linf",
    random_start: bool = False,
    generator=None,
    clip: tuple[float, float] | None = (0.0, 1.0),
):
    """ℓ∞ PGD that maximises the mean `loss` ("ce" for class labels, "mse" for real targets).

    Each step moves by `step_size` along the sign of the input gradient, projects onto the
    ε-box around x and, unless `clip` is None, clamps to the data range `clip`. With
    `random_start` the search starts from a uniform point of the box (drawn from `generator`).
    The model is run in eval mode and its mode restored. Returns the adversarial inputs."""
    epsilon = _check_epsilon(epsilon)
    if norm != "linf":
        raise ValueError(
            f"pgd_attack implements the ℓ∞ attack only (norm='linf'), got {norm!r}"
        )
    if isinstance(steps, bool) or not isinstance(steps, (int, np.integer)) or steps < 0:
        raise ValueError(f"steps must be an int ≥ 0, got {steps!r}")
    steps = int(steps)
    if not (isinstance(step_size, (int, float)) and step_size >= 0):
        raise ValueError(f"step_size must be a number ≥ 0, got {step_size!r}")
    if loss not in LOSSES:
        raise ValueError(f"loss must be one of {LOSSES}, got {loss!r}")
    if len(x) != len(y):
        raise ValueError(
            f"x and y must have the same length, got {len(x)} and {len(y)}"
        )
    if clip is not None:
        lo, hi = clip
        if not lo < hi:
            raise ValueError(f"clip must be (low, high) with low < high, got {clip!r}")
        if x.min() < lo or x.max() > hi:
            raise ValueError(
                f"x must lie in the data range {clip}, got values in "
                f"[{float(x.min())}, {float(x.max())}]"
            )
    if random_start and generator is None:
        raise ValueError("random_start needs a torch.Generator (generator=...)")

    def project(x_adv):
        x_adv = x + torch.clamp(x_adv - x, min=-epsilon, max=epsilon)
        return torch.clamp(x_adv, *clip) if clip is not None else x_adv

    was_training = model.training
    model.eval()
    try:
        x = x.detach()
        x_adv = x.clone()
        if random_start:
            noise = torch.rand(x.shape, generator=generator, dtype=x.dtype).to(x.device)
            x_adv = project(x + epsilon * (noise * 2 - 1))
        for _ in range(steps):
            x_adv.requires_grad_(True)
            (grad,) = torch.autograd.grad(_loss(loss, model(x_adv), y), x_adv)
            x_adv = project(x_adv.detach() + step_size * grad.sign()).detach()
    finally:
        model.train(was_training)
    return x_adv.detach()


def pgd_attack_each(
    models,
    x,
    y,
    *,
    epsilon: float,
    steps: int,
    step_size: float,
    random_start: bool = False,
    generator=None,
    clip: tuple[float, float] | None = (0.0, 1.0),
) -> list:
    """`pgd_attack` (cross-entropy) on each model separately, run in lockstep: one backward pass
    per step serves all models, since model i's loss depends on its own input only. Gives the
    same examples as separate calls in the same order (the random starts are drawn model by
    model)."""
    models = list(models)
    if not models:
        raise ValueError("models must hold at least one model")
    epsilon = _check_epsilon(epsilon)
    if len(x) != len(y):
        raise ValueError(
            f"x and y must have the same length, got {len(x)} and {len(y)}"
        )
    if random_start and generator is None:
        raise ValueError("random_start needs a torch.Generator (generator=...)")
    if clip is not None and (x.min() < clip[0] or x.max() > clip[1]):
        raise ValueError(f"x must lie in the data range {clip}")
    x = x.detach()

    def project(x_adv):
        x_adv = x + torch.clamp(x_adv - x, min=-epsilon, max=epsilon)
        return torch.clamp(x_adv, *clip) if clip is not None else x_adv

    modes = [m.training for m in models]
    for m in models:
        m.eval()
    try:
        advs = []
        for _ in models:
            x_adv = x.clone()
            if random_start:
                noise = torch.rand(x.shape, generator=generator, dtype=x.dtype).to(
                    x.device
                )
                x_adv = project(x + epsilon * (noise * 2 - 1))
            advs.append(x_adv)
        for _ in range(int(steps)):
            for a in advs:
                a.requires_grad_(True)
            total = sum(_loss("ce", m(a), y) for m, a in zip(models, advs))
            grads = torch.autograd.grad(total, advs)
            advs = [
                project(a.detach() + step_size * g.sign()).detach()
                for a, g in zip(advs, grads)
            ]
    finally:
        for m, mode in zip(models, modes):
            m.train(mode)
    return advs


def torchattacks_pgd(
    model,
    x,
    y,
    *,
    epsilon: float,
    steps: int,
    step_size: float,
    random_start: bool = False,
):
    """The peer: torchattacks' PGD (ℓ∞, cross-entropy, data range [0, 1]) on the same inputs.

    torchattacks' metadata pins an old `requests` and asks for torchvision; install it without
    its dependencies: pip install --no-deps 'torchattacks>=3.5'."""
    try:
        import torchattacks
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError(
            "the peer needs torchattacks: pip install --no-deps 'torchattacks>=3.5'"
        ) from exc
    attack = torchattacks.PGD(
        model, eps=epsilon, alpha=step_size, steps=steps, random_start=random_start
    )
    return attack(x, y).detach()


# ----------------------------------------------------------------------------------------------
# exact adversarial loss of a 2-D-input model on a grid
def box_grid(epsilon: float, n_grid: int) -> np.ndarray:
    """The n_grid × n_grid offsets of a dense grid over the 2-D box [−ε, ε]² (corners included)."""
    epsilon = _check_epsilon(epsilon)
    n_grid = _check_positive_int("n_grid", n_grid)
    if n_grid < 2:
        raise ValueError(f"n_grid must be ≥ 2 to include the corners, got {n_grid}")
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


# ----------------------------------------------------------------------------------------------
# AdvEOAP / AdvOAP
DIVERSITY_ON = ("adversarial", "clean")


def non_true_probabilities(logits, y):
    """Softmax probabilities of the K − 1 classes other than y, L1-normalised: (n, K − 1)."""
    n, K = logits.shape
    p = torch.softmax(logits, dim=1)
    keep = torch.ones_like(p, dtype=torch.bool)
    keep[torch.arange(n, device=logits.device), y] = False
    p = p[keep].reshape(n, K - 1)
    return p / p.sum(dim=1, keepdim=True)


def oap_regulariser(probs):
    """(mean log det(P Pᵀ + 10⁻⁶ I), entropy of the members' mean) for P of shape (n, m, K − 1),
    the L1-normalised non-true-class predictions of m members; as the official code computes
    them (the entropy is −Σ (p̄ + 10⁻⁶) log p̄)."""
    if probs.ndim != 3:
        raise ValueError(
            f"probs must have shape (n, members, K − 1), got {tuple(probs.shape)}"
        )
    m = probs.shape[1]
    gram = probs @ probs.transpose(1, 2) + 1e-6 * torch.eye(
        m, dtype=probs.dtype, device=probs.device
    )
    mean = probs.mean(dim=1)
    entropy = -((mean + 1e-6) * torch.log(mean)).sum(dim=1).mean()
    return torch.logdet(gram).mean(), entropy


@dataclass(frozen=True)
class OAPLoss:
    loss: object  # the scalar torch loss to minimise
    cross_entropy: float  # Σ over members of their adversarial cross-entropy
    logdet: float
    entropy: float


def adv_oap_loss(
    members,
    x,
    y,
    *,
    num_classes: int,
    epsilon: float,
    steps: int,
    step_size: float,
    alpha: float,
    beta: float,
    generator,
    diversity_on: str = "adversarial",
    random_start: bool = True,
) -> OAPLoss:
    """The AdvEOAP training loss on one batch.

    Each member is attacked on its own (ℓ∞ PGD on its cross-entropy, random start as in the
    code); loss = Σ_i CE(f_i(x_i^adv), y) − α · mean log det(P Pᵀ + 10⁻⁶ I) − β · H(mean_i p_i),
    with p_i member i's L1-normalised non-true-class probabilities on its own adversarial example
    (diversity_on="adversarial") or on the clean input (diversity_on="clean", an ADP-style
    variant). α = β = 0 is independent adversarial training of every member. The code requires
    m ≤ K − 1 members (the Gram matrix has rank at most K − 1)."""
    members = list(members)
    num_classes = _check_positive_int("num_classes", num_classes)
    if not 1 <= len(members) <= num_classes - 1:
        raise ValueError(
            f"the number of members must lie in [1, K − 1] = [1, {num_classes - 1}] "
            f"(K = num_classes), got {len(members)}"
        )
    if diversity_on not in DIVERSITY_ON:
        raise ValueError(
            f"diversity_on must be one of {DIVERSITY_ON}, got {diversity_on!r}"
        )
    for name, v in (("alpha", alpha), ("beta", beta)):
        if not (isinstance(v, (int, float)) and math.isfinite(v) and v >= 0):
            raise ValueError(f"{name} must be a finite number ≥ 0, got {v!r}")
    x_adv = pgd_attack_each(
        members,
        x,
        y,
        epsilon=epsilon,
        steps=steps,
        step_size=step_size,
        random_start=random_start,
        generator=generator,
    )
    ce, probs = 0.0, []
    for mem, xa in zip(members, x_adv):
        mem.train()
        logits = mem(xa)
        if logits.shape[1] != num_classes:
            raise ValueError(
                f"members must output {num_classes} logits, got {logits.shape[1]}"
            )
        ce = ce + torch.nn.functional.cross_entropy(logits, y)
        src = logits if diversity_on == "adversarial" else mem(x)
        probs.append(non_true_probabilities(src, y))
    logdet, entropy = oap_regulariser(torch.stack(probs, dim=1))
    loss = ce - alpha * logdet - beta * entropy
    return OAPLoss(
        loss, float(ce.detach()), float(logdet.detach()), float(entropy.detach())
    )


def train_adv_ensemble(
    members,
    X,
    y,
    *,
    num_classes: int,
    epochs: int,
    batch_size: int,
    lr: float,
    epsilon: float,
    steps: int,
    step_size: float,
    alpha: float,
    beta: float,
    generator,
    diversity_on: str = "adversarial",
    weight_decay: float = 5e-4,
) -> list[dict]:
    """Train the members jointly with `adv_oap_loss` (SGD, momentum 0.9, cosine learning rate
    per epoch, as the official trainer). Batches are drawn from `generator`. Returns per-epoch
    means of the loss parts."""
    epochs = _check_positive_int("epochs", epochs)
    batch_size = _check_positive_int("batch_size", batch_size)
    params = [p for mem in members for p in mem.parameters()]
    opt = torch.optim.SGD(params, lr=lr, momentum=0.9, weight_decay=weight_decay)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=epochs)
    history = []
    for _ in range(epochs):
        perm = torch.randperm(len(y), generator=generator).to(y.device)
        parts = []
        for i in range(0, len(y), batch_size):
            b = perm[i : i + batch_size]
            out = adv_oap_loss(
                members,
                X[b],
                y[b],
                num_classes=num_classes,
                epsilon=epsilon,
                steps=steps,
                step_size=step_size,
                alpha=alpha,
                beta=beta,
                generator=generator,
                diversity_on=diversity_on,
            )
            opt.zero_grad()
            out.loss.backward()
            opt.step()
            parts.append((out.cross_entropy, out.logdet, out.entropy))
        sched.step()
        ce, ld, ent = np.mean(parts, axis=0)
        history.append({"cross_entropy": ce, "logdet": ld, "entropy": ent})
    for mem in members:
        mem.eval()
    return history


def fit(
    model, X, y, *, loss: str, epochs: int, lr: float, batch_size: int, generator
) -> None:
    """Plain (clean) training with Adam: loss "mse" (real targets), "bce" (0/1 labels, one logit)
    or "ce" (class labels). Batches drawn from `generator`."""
    F = torch.nn.functional
    fns = {
        "mse": lambda o, t: ((o.reshape(len(t)) - t) ** 2).mean(),
        "bce": lambda o, t: F.binary_cross_entropy_with_logits(o.reshape(len(t)), t),
        "ce": F.cross_entropy,
    }
    if loss not in fns:
        raise ValueError(f"loss must be one of {sorted(fns)}, got {loss!r}")
    epochs = _check_positive_int("epochs", epochs)
    batch_size = _check_positive_int("batch_size", batch_size)
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    model.train()
    for _ in range(epochs):
        perm = torch.randperm(len(y), generator=generator).to(y.device)
        for i in range(0, len(y), batch_size):
            b = perm[i : i + batch_size]
            opt.zero_grad()
            fns[loss](model(X[b]), y[b]).backward()
            opt.step()
    model.eval()


# ----------------------------------------------------------------------------------------------
# evaluation
def accuracy(model, X, y) -> float:
    with torch.no_grad():
        return float((model(X).argmax(1) == y).float().mean())


def robust_accuracy(
    model, X, y, *, epsilon: float, steps: int, step_size: float, generator
) -> float:
    """Accuracy under ℓ∞ PGD (cross-entropy, random start, data range [0, 1])."""
    x_adv = pgd_attack(
        model,
        X,
        y,
        epsilon=epsilon,
        steps=steps,
        step_size=step_size,
        random_start=True,
        generator=generator,
    )
    return accuracy(model, x_adv, y)


def transfer_matrix(
    members, X, y, *, epsilon: float, steps: int, step_size: float, generator
) -> np.ndarray:
    """T[i, j]: among the points member j classifies correctly, the share that member i's own
    PGD examples make member j misclassify (the diagonal is the white-box success rate)."""
    members = list(members)
    with torch.no_grad():
        correct = [mem(X).argmax(1) == y for mem in members]
    T = np.zeros((len(members), len(members)))
    for i, src in enumerate(members):
        x_adv = pgd_attack(
            src,
            X,
            y,
            epsilon=epsilon,
            steps=steps,
            step_size=step_size,
            random_start=True,
            generator=generator,
        )
        with torch.no_grad():
            for j, tgt in enumerate(members):
                fooled = (tgt(x_adv).argmax(1) != y) & correct[j]
                T[i, j] = float(fooled.sum()) / max(int(correct[j].sum()), 1)
    return T


def mean_off_diagonal(T) -> float:
    T = np.asarray(T, dtype=float)
    if T.ndim != 2 or T.shape[0] != T.shape[1] or T.shape[0] < 2:
        raise ValueError(f"T must be a square matrix of size ≥ 2, got shape {T.shape}")
    return float(T[~np.eye(len(T), dtype=bool)].mean())


# ----------------------------------------------------------------------------------------------
# the decomposition read on a K-class classifier's softmax outputs (our reading)
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


def _check_multiclass(probs, jacobians, y):
    P = np.asarray(probs)
    J = np.asarray(jacobians)
    Y = np.asarray(y)
    if P.ndim != 3:
        raise ValueError(f"probs must have shape (members, points, K), got {P.shape}")
    if J.ndim != 4 or J.shape[:3] != P.shape:
        raise ValueError(
            f"jacobians must have shape (members, points, K, input dim) = "
            f"({P.shape[0]}, {P.shape[1]}, {P.shape[2]}, d), got {J.shape}"
        )
    K = P.shape[2]
    if Y.shape != (P.shape[1],):
        raise ValueError(
            f"y must have shape ({P.shape[1]},), one label per point, got {Y.shape}"
        )
    if not np.issubdtype(Y.dtype, np.integer) or Y.min() < 0 or Y.max() >= K:
        raise ValueError(f"y must hold integer class labels in 0..{K - 1}")
    return P, J, Y


def multiclass_decomposition(
    probs, jacobians, y, *, epsilon: float, norm: str = "linf"
) -> RegressionDecomposition:
    """The regression decomposition read on K-class softmax outputs: each class probability is
    a regression output with the one-hot target 1[y = j], decomposed as in
    `regression_decomposition`, and the K decompositions are summed per point (our reading for
    a K-class ensemble; the paper's own multi-class form was not read). The ensemble of the
    decomposition is the mean of the members' probabilities.

    `probs` (m, n, K), `jacobians` (m, n, K, d) of the probabilities with respect to the
    inputs, `y` (n,) class labels in 0..K−1. The identity ensemble = average − prediction −
    gradient − cross holds per class and so for the sums."""
    epsilon = _check_epsilon(epsilon)
    P, J, Y = _check_multiclass(probs, jacobians, y)
    K = P.shape[2]
    parts = [
        regression_decomposition(
            P[:, :, j],
            J[:, :, j, :],
            (Y == j).astype(P.dtype),
            epsilon=epsilon,
            norm=norm,
        )
        for j in range(K)
    ]
    terms = ("ensemble", "average", "prediction", "gradient", "cross")
    return RegressionDecomposition(
        **{t: np.sum([getattr(d, t) for d in parts], axis=0) for t in terms}
    )


def true_class_decomposition(
    probs, jacobians, y, *, epsilon: float, norm: str = "linf"
) -> RegressionDecomposition:
    """The regression decomposition read on the true-class probability alone: member i's
    output at point n is p_{i,y_n}(x_n), a scalar with the target 1, and its input gradient is
    row y_n of the Jacobian; the decomposition is `regression_decomposition` of these scalars
    (the first-order form the official code uses for scalar outputs). The ensemble of the
    decomposition is the mean of the members' true-class probabilities.

    `probs` (m, n, K), `jacobians` (m, n, K, d), `y` (n,) class labels in 0..K−1 (as in
    `multiclass_decomposition`)."""
    epsilon = _check_epsilon(epsilon)
    P, J, Y = _check_multiclass(probs, jacobians, y)
    rows = np.arange(P.shape[1])
    return regression_decomposition(
        P[:, rows, Y],
        J[:, rows, Y, :],
        np.ones(P.shape[1], dtype=P.dtype),
        epsilon=epsilon,
        norm=norm,
    )


def gradient_dispersion(gradients, *, norm: str = "linf") -> float:
    """A scale-free gradient diversity: 1 − Σₙ ḡₙ² / Σₙ (1/m) Σᵢ gᵢₙ², with gᵢₙ the dual norm
    of member i's input gradient at point n and ḡₙ that of the members' mean gradient. It is
    the gradient diversity divided by ε² · (1/m) Σᵢ gᵢ² (sums over the points), lies in
    [0, 1], and does not change when every gradient is scaled by the same factor.

    `gradients` (m, n, d)."""
    G = np.asarray(gradients)
    if G.ndim != 3:
        raise ValueError(
            f"gradients must have shape (members, points, d), got {G.shape}"
        )
    g, g_bar = _dual_norms(G, dual_order(norm))
    total = float((g**2).mean(axis=0).sum())
    if total == 0.0:
        raise ValueError("gradients are all zero: the dispersion is undefined")
    return 1.0 - float((g_bar**2).sum()) / total


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
# experiment protocols of the chapter
def _check_generator_for(name: str, fn) -> None:
    if not callable(fn):
        raise TypeError(
            f"{name} must be a callable stream → generator (e.g. run.torch_generator), "
            f"got {type(fn).__name__}"
        )


def fit_members(
    sizes,
    seeds,
    X,
    y,
    *,
    loss: str,
    epochs: int,
    lr: float,
    batch_size: int,
    generators,
) -> list:
    """Independently trained members: member k is `mlp(sizes, seeds[k])` trained on (X, y) with
    `fit` and batches from `generators[k]` (one torch.Generator per member). Returns them in
    eval mode, on X's device."""
    seeds, generators = list(seeds), list(generators)
    if not seeds:
        raise ValueError("seeds must hold at least one seed")
    if len(generators) != len(seeds):
        raise ValueError(
            f"need one generator per member: {len(seeds)} seeds, {len(generators)} "
            "generators"
        )
    members = []
    for s, g in zip(seeds, generators):
        net = mlp(sizes, seed=int(s)).to(X.device)
        fit(
            net,
            X,
            y,
            loss=loss,
            epochs=epochs,
            lr=lr,
            batch_size=batch_size,
            generator=g,
        )
        members.append(net)
    return members


def pgd_sq_loss(
    model, X, y, *, epsilon: float, steps: int, clip, generator
) -> np.ndarray:
    """The larger squared loss, per point, of two PGD runs on the mean squared error: one
    started at x and one from a random point of the ε-box (step 2.5ε/steps; `clip` None lets
    the inputs leave the data range)."""
    best = None
    for start in (False, True):
        x_adv = pgd_attack(
            model,
            X,
            y,
            epsilon=epsilon,
            steps=steps,
            step_size=2.5 * epsilon / steps,
            loss="mse",
            random_start=start,
            clip=clip,
            generator=generator,
        )
        with torch.no_grad():
            loss = ((model(x_adv).reshape(len(y)) - y) ** 2).cpu().numpy()
        best = loss if best is None else np.maximum(best, loss)
    return best


def first_order_sweep(
    models, X, y, eps_grid, *, steps: int, generator_for, clip=(0.0, 1.0)
) -> list[dict]:
    """Claim 4's sweep: for each ε of `eps_grid` (index k), the ensemble's first-order squared
    loss against the PGD loss (`pgd_sq_loss`) without clamping (stream 300 + k of
    `generator_for`) and clamped to `clip` (stream 400 + k), and the range-aware first order
    against the clamped PGD. One row per ε: the mean losses and the mean relative errors."""
    _check_generator_for("generator_for", generator_for)
    eps_grid = [_check_epsilon(e) for e in eps_grid]
    if not eps_grid:
        raise ValueError("eps_grid must hold at least one radius")
    ens = Ensemble(models).eval()
    F, G = members_outputs_and_gradients(models, X)
    t = y.detach().cpu().numpy()
    x_np = X.detach().cpu().numpy()
    rows = []
    for k, e in enumerate(eps_grid):
        first = regression_decomposition(F, G, t, epsilon=e).ensemble
        in_range = first_order_sq_loss_in_range(
            F.mean(0), G.mean(0), x_np, t, epsilon=e, clip=clip
        )
        kw = dict(epsilon=e, steps=steps)
        free = pgd_sq_loss(ens, X, y, clip=None, generator=generator_for(300 + k), **kw)
        clamped = pgd_sq_loss(
            ens, X, y, clip=clip, generator=generator_for(400 + k), **kw
        )
        rows.append(
            dict(
                eps=e,
                pgd_free=float(free.mean()),
                first=float(first.mean()),
                err_free=float(np.mean(np.abs(first - free) / free)),
                pgd_clamped=float(clamped.mean()),
                err_clamped=float(np.mean(np.abs(first - clamped) / clamped)),
                err_in_range=float(np.mean(np.abs(in_range - clamped) / clamped)),
            )
        )
    return rows


@dataclass(frozen=True)
class AdvMethod:
    """A training method of the comparison: `adv_oap_loss` with weights α (log det) and β
    (entropy) on adversarial or clean predictions; α = β = 0 is independent PGD-AT."""

    alpha: float
    beta: float
    diversity_on: str = "adversarial"


@dataclass(frozen=True)
class MethodComparison:
    """What `compare_methods` returns.

    rows: one dict per (seed, method): clean and robust accuracy of the ensemble, the members'
    mean robust accuracy attacked alone, the mean off-diagonal transfer, and the test-set means
    of the decomposition terms (`classifier_decomposition` at the attack's ε: ensemble,
    average, prediction, gradient, cross). transfers: method → one transfer matrix per seed.
    members: (seed, method) → the trained members. test_index: seed → the test rows of X."""

    rows: list
    transfers: dict
    members: dict
    test_index: dict


def compare_methods(
    X,
    y,
    methods,
    *,
    n_seeds: int,
    rng_for,
    generator_for,
    num_classes: int,
    hidden: int,
    n_members: int,
    epochs: int,
    batch_size: int,
    lr: float,
    epsilon: float,
    train_steps: int,
    eval_steps: int,
    train_share: float = 0.6,
) -> MethodComparison:
    """Claim 5's experiment. For each seed r: a train/test split and `n_members` initial
    weights from `rng_for(500 + r)` (a numpy Generator), shared by every method; then each
    method of `methods` (name → AdvMethod) trains `n_members` one-hidden-layer MLPs jointly with
    `train_adv_ensemble` (PGD-`train_steps`, step 2.5ε/steps, batches and random starts from
    `generator_for(500 + r)`), and is evaluated on the test rows with PGD-`eval_steps` (step
    2.5ε/steps, random start): the mean-logit ensemble (stream 600 + r), the transfer matrix
    (700 + r) and each member alone (800 + r, the same stream for every member)."""
    _check_generator_for("rng_for", rng_for)
    _check_generator_for("generator_for", generator_for)
    n_seeds = _check_positive_int("n_seeds", n_seeds)
    n_members = _check_positive_int("n_members", n_members)
    if not 0.0 < train_share < 1.0:
        raise ValueError(f"train_share must lie in (0, 1), got {train_share!r}")
    methods = dict(methods)
    if not methods:
        raise ValueError("methods must name at least one method")
    for name, spec in methods.items():
        if not isinstance(spec, AdvMethod):
            raise TypeError(f"method {name!r} must be an AdvMethod, got {spec!r}")
    if len(X) != len(y):
        raise ValueError(f"X and y must have the same length, got {len(X)}, {len(y)}")
    d_in = X.shape[1]
    ev = dict(epsilon=epsilon, steps=eval_steps, step_size=2.5 * epsilon / eval_steps)
    rows, transfers, trained, test_index = [], {}, {}, {}
    for r in range(n_seeds):
        srng = rng_for(500 + r)
        perm = srng.permutation(len(y))
        n_tr = int(train_share * len(perm))
        tr, te = perm[:n_tr], perm[n_tr:]
        test_index[r] = te
        member_seeds = srng.integers(0, 2**31, size=n_members)
        X_te, y_te = X[te], y[te]
        for name, spec in methods.items():
            members = [
                mlp((d_in, hidden, num_classes), seed=int(s)).to(X.device)
                for s in member_seeds
            ]
            train_adv_ensemble(
                members,
                X[tr],
                y[tr],
                num_classes=num_classes,
                epochs=epochs,
                batch_size=batch_size,
                lr=lr,
                epsilon=epsilon,
                steps=train_steps,
                step_size=2.5 * epsilon / train_steps,
                alpha=spec.alpha,
                beta=spec.beta,
                generator=generator_for(500 + r),
                diversity_on=spec.diversity_on,
            )
            ens = Ensemble(members).eval()
            robust = robust_accuracy(
                ens, X_te, y_te, generator=generator_for(600 + r), **ev
            )
            T = transfer_matrix(
                members, X_te, y_te, generator=generator_for(700 + r), **ev
            )
            member_robust = [
                robust_accuracy(m, X_te, y_te, generator=generator_for(800 + r), **ev)
                for m in members
            ]
            dec = classifier_decomposition(members, X_te, y_te, epsilon=epsilon)
            transfers.setdefault(name, []).append(T)
            trained[r, name] = members
            rows.append(
                dict(
                    seed=r,
                    method=name,
                    clean=accuracy(ens, X_te, y_te),
                    robust=robust,
                    member_robust=float(np.mean(member_robust)),
                    transfer=mean_off_diagonal(T),
                    **dec.means(),
                )
            )
    return MethodComparison(rows, transfers, trained, test_index)


def paired_differences(rows, value: str, method: str, baseline: str) -> list[float]:
    """Per seed, rows' `value` of `method` minus that of `baseline` (rows as in
    `MethodComparison.rows`), in seed order."""
    by = {(r["seed"], r["method"]): r[value] for r in rows}
    seeds = sorted({r["seed"] for r in rows})
    missing = [(s, m) for s in seeds for m in (method, baseline) if (s, m) not in by]
    if missing:
        raise ValueError(f"rows lack (seed, method) pairs {missing}")
    return [float(by[s, method] - by[s, baseline]) for s in seeds]
