"""The representation discrepancy and its companions, and the linear probes.

For the inputs X_t of task t, A = h_t^k(X_t) (earlier snapshot) and B = h_{t+Δt}^k(X_t)
(later snapshot), both (n × w), rows the same inputs. `discrepancy` is the official
`measure.py` surrogate of D = min_T max_x ‖h_t^k(x) − T h_{t+Δt}^k(x)‖₂ (T fitted by least
squares without intercept, then the largest residual row norm); `official_discrepancy` is
that official path itself (scikit-learn); `minmax_discrepancy` solves the exact convex
min–max for small inputs; σ (`unaligned_discrepancy`) and ‖R‖ (`representation_size`) are
what the official code logs beside it. `probe_accuracy` is a logistic-regression probe on
frozen features. No function here prints, plots or writes files.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import torch

from repbook.core import checks


# --------------------------------------------------------------------------------------
# input checks
def _features(name: str, value) -> np.ndarray:
    if isinstance(value, torch.Tensor):
        value = value.detach().cpu().numpy()
    try:
        arr = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(
            f"{name} must be a 2-D array of numbers (inputs × features), got "
            f"{type(value).__name__}"
        ) from None
    if arr.ndim != 2:
        raise ValueError(
            f"{name} must be 2-D (inputs × features), got shape {arr.shape}"
        )
    if arr.shape[0] == 0 or arr.shape[1] == 0:
        raise ValueError(f"{name} is empty: shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        bad = int(np.sum(~np.isfinite(arr)))
        raise ValueError(
            f"{name} has {bad} non-finite entries (NaN or inf); features must be finite"
        )
    return arr


def _pair(A, B, *, names=("A", "B")) -> tuple[np.ndarray, np.ndarray]:
    A, B = _features(names[0], A), _features(names[1], B)
    if A.shape[0] != B.shape[0]:
        raise ValueError(
            f"{names[0]} and {names[1]} must hold the same inputs (rows), got "
            f"{A.shape[0]} and {B.shape[0]} rows"
        )
    return A, B


def _enough_rows(B: np.ndarray, name: str = "B") -> None:
    n, w = B.shape
    if n <= w:
        raise ValueError(
            f"{name} has n={n} inputs for w={w} features: least squares needs "
            f"n > w (n ≫ w in practice), else T interpolates and D is trivially 0"
        )


# --------------------------------------------------------------------------------------
# the discrepancy and its companions
def fit_alignment(A, B) -> np.ndarray:
    """T* = argmin_T ‖A − B T‖_F (least squares, no intercept), shape (w_B × w_A).

    Rows are inputs, so the paper's T (acting on column vectors) is T*ᵀ. With
    rank-deficient B (dead ReLU units) the minimum-norm solution is returned; the
    residual is unique either way.
    """
    A, B = _pair(A, B)
    _enough_rows(B)
    T, *_ = np.linalg.lstsq(B, A, rcond=None)
    return T


def residual_norms(A, B) -> np.ndarray:
    """‖a_i − T* b_i‖₂ for every input i, with T* from `fit_alignment`."""
    A, B = _pair(A, B)
    return np.linalg.norm(A - B @ fit_alignment(A, B), axis=1)


def discrepancy(A, B) -> float:
    """D = max_i ‖a_i − T* b_i‖₂ with the least-squares T* (the official `measure.py`
    surrogate).

    A = h_t^k(X_t) (earlier snapshot), B = h_{t+Δt}^k(X_t) (later snapshot), same rows.
    """
    return float(residual_norms(A, B).max())


def unaligned_discrepancy(A, B) -> float:
    """σ = max_i ‖a_i − b_i‖₂: the change without any linear alignment."""
    A, B = _pair(A, B)
    if A.shape != B.shape:
        raise ValueError(
            f"A and B must have the same shape for σ, got {A.shape} and {B.shape}"
        )
    return float(np.linalg.norm(A - B, axis=1).max())


@dataclass(frozen=True)
class RepresentationSize:
    """‖R‖ = max_i ‖a_i‖₂ and the variants the official code logs (min, and /√w)."""

    max: float
    min: float
    max_normalized: float  # max / √w
    min_normalized: float  # min / √w


def representation_size(A) -> RepresentationSize:
    """The size of the representation space: largest (and smallest) row norm of A."""
    A = _features("A", A)
    norms = np.linalg.norm(A, axis=1)
    root_w = math.sqrt(A.shape[1])
    return RepresentationSize(
        float(norms.max()),
        float(norms.min()),
        float(norms.max() / root_w),
        float(norms.min() / root_w),
    )


def heldout_discrepancy(A_fit, B_fit, A_eval, B_eval) -> float:
    """T* fitted by least squares on (A_fit, B_fit); the max residual norm taken on
    (A_eval, B_eval).

    Guards against the in-sample fit shrinking D when n is not much larger than w.
    """
    A_fit, B_fit = _pair(A_fit, B_fit, names=("A_fit", "B_fit"))
    A_eval, B_eval = _pair(A_eval, B_eval, names=("A_eval", "B_eval"))
    if A_eval.shape[1] != A_fit.shape[1] or B_eval.shape[1] != B_fit.shape[1]:
        raise ValueError(
            f"evaluation features must have the fitted widths: A {A_fit.shape[1]}, "
            f"B {B_fit.shape[1]}; got A_eval {A_eval.shape[1]}, B_eval "
            f"{B_eval.shape[1]}"
        )
    T = fit_alignment(A_fit, B_fit)
    return float(np.linalg.norm(A_eval - B_eval @ T, axis=1).max())


def split_discrepancy(
    A, B, rng: np.random.Generator, *, fit_fraction: float = 0.5
) -> float:
    """`heldout_discrepancy` on a random split of the rows: `fit_fraction` of them fit
    T.
    """
    A, B = _pair(A, B)
    checks.generator("rng", rng)
    checks.number("fit_fraction", fit_fraction, above=0.0, below=1.0)
    n = A.shape[0]
    n_fit = int(round(fit_fraction * n))
    if not 0 < n_fit < n:
        raise ValueError(
            f"fit_fraction={fit_fraction} leaves no rows on one side of n={n}"
        )
    order = rng.permutation(n)
    fit, ev = order[:n_fit], order[n_fit:]
    return heldout_discrepancy(A[fit], B[fit], A[ev], B[ev])


def minmax_discrepancy(A, B, *, max_size: int = 400) -> float:
    """The exact D = min_T max_i ‖a_i − T b_i‖₂ (a convex problem), for small inputs
    only.

    Solved in epigraph form (minimise s subject to ‖a_i − T b_i‖² ≤ s²) with SLSQP,
    started from the least-squares T*. It never exceeds `discrepancy(A, B)`. `max_size`
    caps n·w_A·w_B.
    """
    from scipy.optimize import minimize

    A, B = _pair(A, B)
    _enough_rows(B)
    n, wa = A.shape
    wb = B.shape[1]
    if n * wa * wb > max_size:
        raise ValueError(
            f"minmax_discrepancy is for small inputs: n·w_A·w_B = {n * wa * wb} "
            f"exceeds max_size={max_size}"
        )
    T0 = fit_alignment(A, B)
    s0 = float(np.linalg.norm(A - B @ T0, axis=1).max())
    scale = max(s0, 1e-12)
    An, Bn = A / scale, B  # solve in units of the surrogate, rescale at the end

    def unpack(x):
        return x[:-1].reshape(wb, wa), x[-1]

    def constraints(x):
        T, s = unpack(x)
        R = An - Bn @ T
        return s * s - np.sum(R * R, axis=1)

    def constraints_jac(x):
        T, s = unpack(x)
        R = An - Bn @ T  # n × wa
        # d/dT of −‖r_i‖² = 2 b_i r_iᵀ (as a wb × wa matrix per input)
        dT = 2.0 * Bn[:, :, None] * R[:, None, :]
        return np.hstack([dT.reshape(n, -1), np.full((n, 1), 2.0 * s)])

    x0 = np.concatenate([(T0 / scale).ravel(), [1.0]])
    res = minimize(
        lambda x: x[-1],
        x0,
        jac=lambda x: np.eye(1, x.size, x.size - 1)[0],
        method="SLSQP",
        constraints=[{"type": "ineq", "fun": constraints, "jac": constraints_jac}],
        bounds=[(None, None)] * (x0.size - 1) + [(0.0, None)],
        options={"maxiter": 2000, "ftol": 1e-14},
    )
    T, _ = unpack(res.x)
    exact = float(
        np.linalg.norm(An - Bn @ T, axis=1).max()
    )  # the max at the returned T
    return exact * scale


@dataclass(frozen=True)
class Shift:
    """Everything `measure.py` logs for one (task t, layer k, later snapshot t+Δt)."""

    D: float  # least-squares surrogate of the min–max discrepancy
    sigma: float  # unaligned discrepancy
    size: RepresentationSize


def official_discrepancy(A, B, tol: float = float(np.finfo(float).eps)) -> float:
    """D by the official `measure.py` path: scikit-learn's `LinearRegression` without
    intercept, then the largest residual row norm.

    Before scikit-learn 1.9 the fit cut small singular values at SciPy's default
    (machine epsilon, `tol=eps` here, as the official code ran); 1.9 made `tol=1e-6`
    the default, a coarser cutoff."""
    from sklearn.linear_model import LinearRegression

    fit = LinearRegression(fit_intercept=False, tol=tol).fit(B, A)
    return np.linalg.norm(A - fit.predict(B), axis=1).max()


def official_measures() -> dict:
    """The official path with both cutoffs, as `extra` measures of `measure_stream`:
    "D_official" (SciPy's default, as the official code ran) and "D_sklearn19"
    (scikit-learn 1.9's default 1e-6)."""
    return {
        "D_official": official_discrepancy,
        "D_sklearn19": lambda a, b: official_discrepancy(a, b, 1e-6),
    }


def measure_shift(A, B) -> Shift:
    """D, σ and ‖R‖ of one pair of snapshots' features on the same inputs."""
    return Shift(discrepancy(A, B), unaligned_discrepancy(A, B), representation_size(A))


# --------------------------------------------------------------------------------------
# linear probes
def probe_accuracy(
    F_train, y_train, F_test, y_test, *, C: float = 1.0, max_iter: int = 2000
) -> float:
    """Test accuracy of a logistic-regression probe (lbfgs, L2 with strength C) on
    frozen features.

    Features are standardised with the training features' mean and spread first
    (constant features, e.g. dead ReLU units, are left at zero).
    """
    from sklearn.linear_model import LogisticRegression
    from sklearn.preprocessing import StandardScaler

    F_train = _features("F_train", F_train)
    F_test = _features("F_test", F_test)
    y_train, y_test = np.asarray(y_train), np.asarray(y_test)
    if y_train.shape != (F_train.shape[0],):
        raise ValueError(
            f"y_train must have one label per row of F_train ({F_train.shape[0]}), "
            f"got shape {y_train.shape}"
        )
    if y_test.shape != (F_test.shape[0],):
        raise ValueError(
            f"y_test must have one label per row of F_test ({F_test.shape[0]}), "
            f"got shape {y_test.shape}"
        )
    if F_test.shape[1] != F_train.shape[1]:
        raise ValueError(
            f"F_test must have the width of F_train ({F_train.shape[1]}), got "
            f"{F_test.shape[1]}"
        )
    if len(np.unique(y_train)) < 2:
        raise ValueError("y_train must contain at least two classes")
    checks.number("C", C, above=0.0)
    scaler = StandardScaler().fit(F_train)
    clf = LogisticRegression(C=C, solver="lbfgs", max_iter=max_iter)
    clf.fit(scaler.transform(F_train), y_train)
    return float(np.mean(clf.predict(scaler.transform(F_test)) == y_test))
