"""The protocols of checks 1–4: the 2-D illustration of the exact loss (claim 1), the
binary task and its independently trained members, the regression and cross-entropy
decompositions over ensembles of several sizes (sanity checks 2 and 3, our check 2b) and the
first-order ε sweep (our check 4). Each draws its randomness from the streams it is given
(`rng_for(k)`: a numpy Generator, `generator_for(k)`: a torch.Generator), at the stream
numbers its docstring names."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import torch

from repbook.core import checks
from repbook.core.nets import mlp

from .attacks import pgd_attack
from .decomposition import (
    RegressionDecomposition,
    binary_ce_decomposition,
    code_binary_terms,
    first_order_sq_loss_in_range,
    regression_decomposition,
)
from .models import (
    Ensemble,
    MemberTerms,
    box_grid,
    fit,
    grid_outputs,
    members_outputs_and_gradients,
)

STREAM = "a callable stream → generator (e.g. run.torch_generator)"


# ----------------------------------------------------------------------------------------------
# claim 1: the exact adversarial loss of two 2-D ReLU regressors against the first order
@dataclass(frozen=True)
class ExactStudy:
    """Claim 1's illustration: two ReLU regressors with a 2-D input at n test points, their
    outputs on a grid over the ε-box around each point, and the first order at the centres.

    offsets (k, 2): the grid; outputs (members, n, k): the members' outputs at x + offset;
    y (n,): targets ±1; exact_ensemble (n,): the ensemble's squared loss maximised over the
    grid; exact_diversity (n,): the members' mean of their own maxima minus that;
    first_order: the regression decomposition at the centres; F (members, n), G (members, n,
    2): the members' outputs and input gradients there."""

    epsilon: float
    offsets: np.ndarray
    outputs: np.ndarray
    y: np.ndarray
    exact_ensemble: np.ndarray
    exact_diversity: np.ndarray
    first_order: RegressionDecomposition
    F: np.ndarray
    G: np.ndarray

    @property
    def first_diversity(self) -> np.ndarray:
        """Prediction + gradient + cross diversity at each point."""
        d = self.first_order
        return d.prediction + d.gradient + d.cross

    @property
    def relative_gap(self) -> np.ndarray:
        """|first-order ensemble loss − exact| / exact, per point."""
        return np.abs(self.first_order.ensemble - self.exact_ensemble) / (
            self.exact_ensemble
        )

    @property
    def worst(self) -> int:
        """The point where the first-order diversity is farthest from the exact one."""
        return int(np.argmax(np.abs(self.first_diversity - self.exact_diversity)))

    def surface(self, i: int) -> np.ndarray:
        """The ensemble's squared loss over the grid around point i, (side, side)."""
        side = int(round(np.sqrt(len(self.offsets))))
        return ((self.outputs.mean(0)[i] - self.y[i]) ** 2).reshape(side, side)

    def first_order_step(self, i: int) -> np.ndarray:
        """The first order's maximiser at point i: ε · sign(∇f̄) · sign(f̄ − y)."""
        sign_f = np.sign(self.F.mean(0)[i] - self.y[i])
        return self.epsilon * np.sign(self.G.mean(0)[i]) * sign_f


def exact_study_2d(
    n_moons: int,
    n_points: int,
    n_grid: int,
    epsilon: float,
    *,
    rng_for,
    generator_for,
    device: str = "cpu",
    hidden: int = 32,
    epochs: int = 300,
    lr: float = 1e-2,
) -> ExactStudy:
    """Claim 1's protocol: scikit-learn's moons (`n_moons` points, noise 0.15, its seed from
    `rng_for(1)`, targets ±1), two regressors 2-`hidden`-`hidden`-1 (initial seeds from
    `rng_for(2)`) trained full-batch with Adam on the squared loss (`generator_for(20 + k)` for
    member k), and `n_points` points (drawn by `rng_for(3)`) at which the exact losses are
    maximised over an `n_grid` × `n_grid` grid on the ε-box."""
    from sklearn.datasets import make_moons

    checks.function("rng_for", rng_for, STREAM)
    checks.function("generator_for", generator_for, STREAM)
    epsilon = checks.number("epsilon", epsilon, at_least=0)
    moons_seed = int(rng_for(1).integers(2**31))
    X_np, y_np = make_moons(n_moons, noise=0.15, random_state=moons_seed)
    X = torch.tensor(X_np, dtype=torch.float32, device=device)
    y = torch.tensor(2.0 * y_np - 1.0, dtype=torch.float32, device=device)
    seeds = rng_for(2).integers(0, 2**31, size=2)
    nets = [mlp((2, hidden, hidden, 1), seed=int(s)).to(device) for s in seeds]
    for k, net in enumerate(nets):
        kw = dict(epochs=epochs, lr=lr, batch_size=len(y))
        fit(net, X, y, loss="mse", generator=generator_for(20 + k), **kw)
    pick = rng_for(3).choice(len(y), n_points, replace=False)
    x, t = X[pick], y[pick].cpu().numpy()
    offsets = box_grid(epsilon, n_grid)
    out = grid_outputs(nets, x, offsets)  # (members, points, grid)
    exact_members = ((out - t[None, :, None]) ** 2).max(axis=2)
    exact_ensemble = ((out.mean(0) - t[:, None]) ** 2).max(axis=1)
    F, G = members_outputs_and_gradients(nets, x)
    first = regression_decomposition(F, G, t, epsilon=epsilon)
    diversity = exact_members.mean(0) - exact_ensemble
    return ExactStudy(epsilon, offsets, out, t, exact_ensemble, diversity, first, F, G)


# ----------------------------------------------------------------------------------------------
# checks 2–4: two classes, independently trained regressors and binary classifiers
@dataclass(frozen=True)
class PairMembers:
    """The binary task of checks 2–4 and its members. x_train/x_test: inputs (torch);
    regression targets ±1 (`y_reg`) and binary labels 0/1 (`y_bin`), each a dict "train"/"test"
    → torch tensor; regressors and classifiers: the trained members (eval mode)."""

    train_index: np.ndarray
    test_index: np.ndarray
    x_train: torch.Tensor
    x_test: torch.Tensor
    y_reg: dict
    y_bin: dict
    regressors: list
    classifiers: list


def pair_members(
    X,
    y,
    *,
    hidden: int,
    n_members: int,
    epochs: int,
    rng_for,
    generator_for,
    classes: tuple[int, int] = (3, 8),
    train_share: float = 0.6,
    lr: float = 3e-3,
    batch_size: int = 64,
    device: str = "cpu",
) -> PairMembers:
    """The official two-class protocol on our data: the rows of `classes` (targets +1 for the
    first, −1 for the second; labels 1/0), shuffled by `rng_for(4)` and split `train_share` /
    rest; `n_members` regressors (squared loss) and as many binary classifiers (cross-entropy
    on one logit), MLPs d-`hidden`-`hidden`-1 trained with Adam from initial seeds drawn by
    `rng_for(5)` (row 0 regressors, row 1 classifiers), batches from `generator_for(100 + k)`
    and `generator_for(200 + k)` for member k."""
    checks.function("rng_for", rng_for, STREAM)
    checks.function("generator_for", generator_for, STREAM)
    n_members = checks.integer("n_members", n_members, at_least=1)
    checks.number("train_share", train_share, above=0, below=1)
    X, y = np.asarray(X), np.asarray(y)
    checks.same_length(X=X, y=y)
    pair = np.flatnonzero((y == classes[0]) | (y == classes[1]))
    order = rng_for(4).permutation(pair)
    n_train = int(train_share * len(order))
    tr, te = order[:n_train], order[n_train:]
    x_tr, x_te = (torch.tensor(X[i], device=device) for i in (tr, te))
    y_reg = {
        s: torch.tensor(
            np.where(y[i] == classes[0], 1.0, -1.0), dtype=torch.float32, device=device
        )
        for s, i in (("train", tr), ("test", te))
    }
    y_bin = {s: (t + 1) / 2 for s, t in y_reg.items()}
    sizes = (X.shape[1], hidden, hidden, 1)
    init = rng_for(5).integers(0, 2**31, size=(2, n_members))
    kw = dict(epochs=epochs, lr=lr, batch_size=batch_size)
    members = [
        fit_members(
            sizes,
            init[row],
            x_tr,
            targets["train"],
            loss=loss,
            generators=[generator_for(base + k) for k in range(n_members)],
            **kw,
        )
        for row, (targets, loss, base) in enumerate(
            ((y_reg, "mse", 100), (y_bin, "bce", 200))
        )
    ]
    return PairMembers(tr, te, x_tr, x_te, y_reg, y_bin, *members)


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


def ensemble_configs(n_members: int, m_max: int, repeats: int, rng) -> list:
    """(m, sorted member indices) for m = 1..m_max, `repeats` ensembles of m distinct members
    each, drawn in that order from `rng` (a numpy Generator)."""
    checks.generator("rng", rng)
    n_members = checks.integer("n_members", n_members, at_least=1)
    m_max = checks.integer("m_max", m_max, at_least=1, at_most=n_members)
    repeats = checks.integer("repeats", repeats, at_least=1)
    return [
        (m, np.sort(rng.choice(n_members, m, replace=False)))
        for m in range(1, m_max + 1)
        for _ in range(repeats)
    ]


@dataclass(frozen=True)
class RegressionStudy:
    """Sanity check 2 and our check 2b over ensembles of several sizes.

    table: one row per ensemble (m, the float64 test-set means of ensemble, average,
    prediction, gradient, cross, and the largest relative residual in float32 `rel32` and
    float64 `rel64`); cross, gradient: the float64 terms at every (ensemble, point) with m ≥ 2;
    min_prediction: the smallest prediction diversity there."""

    table: pd.DataFrame
    cross: np.ndarray
    gradient: np.ndarray
    min_prediction: float

    @property
    def summary(self) -> dict:
        """The values the chapter records: residuals, smallest terms, the cross term's sign
        and size."""
        return {
            "max relative residual (float32)": self.table.rel32.max(),
            "max relative residual (float64)": self.table.rel64.max(),
            "min prediction diversity": self.min_prediction,
            "min gradient diversity": self.gradient.min(),
            "share with cross < 0": np.mean(self.cross < 0),
            "mean |cross| / mean gradient": np.abs(self.cross).mean()
            / self.gradient.mean(),
        }

    @property
    def config_share(self) -> float:
        """Share of the ensembles with m ≥ 2 whose test-set mean cross diversity is < 0."""
        return np.mean(self.table[self.table.m >= 2].cross < 0)


def regression_study(
    terms: MemberTerms, y, configs, *, epsilon: float
) -> RegressionStudy:
    """The regression decomposition of each ensemble of `configs` (`ensemble_configs`), from
    the members' float32 and float64 outputs and gradients at the points with targets y."""
    rows, pooled = [], []
    for m, idx in configs:
        d32 = regression_decomposition(
            terms.outputs[idx], terms.gradients[idx], y, epsilon=epsilon
        )
        d64 = regression_decomposition(
            terms.outputs64[idx], terms.gradients64[idx], y, epsilon=epsilon
        )
        rel32, rel64 = d32.relative_residual.max(), d64.relative_residual.max()
        rows.append(dict(m=m, **d64.means(), rel32=rel32, rel64=rel64))
        if m >= 2:
            pooled.append(d64)
    if not pooled:
        raise ValueError(
            "configs must hold at least one ensemble of two or more members"
        )
    return RegressionStudy(
        pd.DataFrame(rows),
        np.concatenate([d.cross for d in pooled]),
        np.concatenate([d.gradient for d in pooled]),
        min(d.prediction.min() for d in pooled),
    )


@dataclass(frozen=True)
class BinaryStudy:
    """Sanity check 3 over ensembles of several sizes.

    table: one row per ensemble (m, the float64 test-set means of ensemble, average, kl and
    gradient in the code's reading; geometric_kl, geometric_gradient in the geometric-mean
    reading; code_kl, code_gradient from the code's literal formulas; rel32, rel64 the largest
    relative residuals); summary: the values the chapter records; geometric_residual and
    geometric_min: the geometric reading's largest relative residual and smallest term (m ≥ 2);
    literal_residual: the largest float32 residual of the code's literal forms."""

    table: pd.DataFrame
    summary: dict
    geometric_residual: float
    geometric_min: float
    literal_residual: float

    @property
    def code_gap(self) -> float:
        """The largest gap between our terms and the code's literal formulas (test-set
        means)."""
        ours = self.table[["kl", "gradient"]].to_numpy()
        return np.max(
            np.abs(ours - self.table[["code_kl", "code_gradient"]].to_numpy())
        )


def binary_study(terms: MemberTerms, y, configs, *, epsilon: float) -> BinaryStudy:
    """The binary cross-entropy decomposition of each ensemble of `configs`, from the
    classifiers' float32 and float64 logits and gradients at the points with labels y: the
    code's reading in stable form (float32 and float64), its literal form (float32), the
    geometric-mean reading and the code's own formulas (float64)."""
    eps = dict(epsilon=epsilon)
    rows, pooled, geo_rel, geo_min, literal32 = [], [], 0.0, np.inf, 0.0
    for m, idx in configs:
        Z, G = terms.outputs[idx], terms.gradients[idx]
        Z64, G64 = terms.outputs64[idx], terms.gradients64[idx]
        b32 = binary_ce_decomposition(Z, G, y, **eps)
        lit = binary_ce_decomposition(Z, G, y, **eps, stable=False)
        literal32 = max(literal32, lit.relative_residual.max())
        b64 = binary_ce_decomposition(Z64, G64, y, **eps)
        geo = binary_ce_decomposition(Z64, G64, y, **eps, p_bar="geometric")
        geo_rel = max(geo_rel, geo.relative_residual.max())
        code_kl, code_grad = code_binary_terms(Z64, G64, y, **eps)
        rows.append(
            dict(
                m=m,
                **b64.means(),
                geometric_kl=geo.kl.mean(),
                geometric_gradient=geo.gradient.mean(),
                code_kl=code_kl,
                code_gradient=code_grad,
                rel32=b32.relative_residual.max(),
                rel64=b64.relative_residual.max(),
            )
        )
        if m >= 2:
            pooled.append(b64)
            geo_min = min(geo_min, geo.kl.min(), geo.gradient.min())
    if not pooled:
        raise ValueError(
            "configs must hold at least one ensemble of two or more members"
        )
    table = pd.DataFrame(rows)
    summary = {
        "max relative residual (float32)": table.rel32.max(),
        "max relative residual (float64)": table.rel64.max(),
        "min KL term": min(b.kl.min() for b in pooled),
        "min gradient term": min(b.gradient.min() for b in pooled),
    }
    return BinaryStudy(table, summary, geo_rel, geo_min, literal32)


# ----------------------------------------------------------------------------------------------
# our check 4: the first order against PGD over ε
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
    checks.function("generator_for", generator_for, STREAM)
    eps_grid = [checks.number("epsilon", e, at_least=0) for e in eps_grid]
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
