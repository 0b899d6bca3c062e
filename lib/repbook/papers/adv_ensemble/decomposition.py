"""The first-order decompositions of an ensemble's adversarial loss: squared loss (regression),
binary cross-entropy, and our readings for K-class softmax outputs (the one-hot sum and the
true-class probability). numpy arrays in, numpy arrays out; the dtype of the inputs is kept."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from repbook.core import checks

NORMS = {"linf": 1.0, "l2": 2.0}
"""The attack's norm → the order q of its dual norm, used on input gradients."""

P_BAR = ("code", "geometric")


# ----------------------------------------------------------------------------------------------
# argument checks
def dual_order(norm: str) -> float:
    """The order q of the dual norm of the attack norm `norm` ("linf" → 1, "l2" → 2)."""
    return NORMS[checks.one_of("norm", norm, sorted(NORMS))]


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
    epsilon = checks.number("epsilon", epsilon, at_least=0)
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
    epsilon = checks.number("epsilon", epsilon, at_least=0)
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
    epsilon = checks.number("epsilon", epsilon, at_least=0)
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
    epsilon = checks.number("epsilon", epsilon, at_least=0)
    q = dual_order(norm)
    checks.one_of("p_bar", p_bar, P_BAR)
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
    epsilon = checks.number("epsilon", epsilon, at_least=0)
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
# the decomposition read on a K-class classifier's softmax outputs (our reading)
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
    epsilon = checks.number("epsilon", epsilon, at_least=0)
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
    epsilon = checks.number("epsilon", epsilon, at_least=0)
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
