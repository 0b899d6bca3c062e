import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import minimize
from sklearn.linear_model import LinearRegression, LogisticRegression
from sklearn.preprocessing import StandardScaler

from repbook.papers import representation_shift


def relu_features(rng, n, w, dead=0):
    F = np.maximum(rng.normal(size=(n, w)) + 0.3, 0.0)
    F[:, :dead] = 0.0
    return F


def official_eps(A, B, tol=np.finfo(float).eps):
    """The official measure.py path: LinearRegression without intercept, max residual
    row norm. The code ran on scikit-learn < 1.9, which kept SciPy's default cutoff for
    small singular values (eps); 1.9's default tol=1e-6 is a coarser cutoff."""
    reg = LinearRegression(fit_intercept=False, tol=tol).fit(B, A)
    return np.max(np.linalg.norm(A - reg.predict(B), ord=2, axis=-1))


# --- the least-squares discrepancy ----------------------------------------------------
@pytest.mark.parametrize("dead", [0, 3])
def test_matches_official_linear_regression(dead):
    rng = np.random.default_rng(0)
    A, B = relu_features(rng, 300, 24), relu_features(rng, 300, 24, dead=dead)
    assert representation_shift.discrepancy(A, B) == pytest.approx(
        official_eps(A, B), abs=1e-8
    )
    assert representation_shift.discrepancy(A, B) == pytest.approx(
        official_eps(A, B, 1e-6), abs=1e-8
    )
    # different widths on the two sides are allowed (T is w_B × w_A)
    B2 = relu_features(rng, 300, 10)
    assert representation_shift.discrepancy(A, B2) == pytest.approx(
        official_eps(A, B2), abs=1e-8
    )


def test_nearly_dead_units_match_the_official_path_as_it_ran():
    rng = np.random.default_rng(9)
    A, B = relu_features(rng, 300, 20), relu_features(rng, 300, 20, dead=1)
    B[5, 0] = 1e-4  # a unit active on one input only: a tiny singular value
    ours = representation_shift.discrepancy(A, B)
    assert ours == pytest.approx(official_eps(A, B), abs=1e-8)
    # scikit-learn 1.9's default cutoff drops that direction: a larger residual
    assert official_eps(A, B, tol=1e-6) >= ours - 1e-12


def test_zero_for_an_invertible_linear_map_and_invariant_to_one():
    rng = np.random.default_rng(1)
    A = relu_features(rng, 200, 16)
    M = rng.normal(size=(16, 16)) + 4 * np.eye(16)
    assert representation_shift.discrepancy(A, A @ M) == pytest.approx(0.0, abs=1e-9)
    B = relu_features(rng, 200, 16)
    d = representation_shift.discrepancy(A, B)
    assert d > 0.1
    assert representation_shift.discrepancy(A, B @ M) == pytest.approx(d, rel=1e-9)
    # scaling the later features changes nothing; scaling the earlier ones scales D
    assert representation_shift.discrepancy(A, 7.0 * B) == pytest.approx(d, rel=1e-9)
    assert representation_shift.discrepancy(3.0 * A, B) == pytest.approx(
        3.0 * d, rel=1e-9
    )


def test_same_snapshot_gives_zero_and_fit_alignment_is_identity():
    rng = np.random.default_rng(2)
    A = relu_features(rng, 100, 8)
    assert representation_shift.discrepancy(A, A) == pytest.approx(0.0, abs=1e-10)
    np.testing.assert_allclose(
        representation_shift.fit_alignment(A, A), np.eye(8), atol=1e-10
    )


def test_unaligned_and_size_known_answers():
    A = np.array([[3.0, 4.0], [0.0, 1.0], [1.0, 0.0]])
    B = np.array([[0.0, 0.0], [0.0, 1.0], [1.0, 2.0]])
    assert representation_shift.unaligned_discrepancy(A, B) == pytest.approx(5.0)
    s = representation_shift.representation_size(A)
    assert (s.max, s.min) == (pytest.approx(5.0), pytest.approx(1.0))
    assert s.max_normalized == pytest.approx(5.0 / np.sqrt(2))
    assert s.min_normalized == pytest.approx(1.0 / np.sqrt(2))
    shift = representation_shift.measure_shift(A, B)
    assert shift.sigma == pytest.approx(5.0) and shift.size == s


# --- the exact min–max against the surrogate ------------------------------------------
def dual_value(A, B):
    """max over λ in the simplex of min_T Σ λ_i ‖a_i − T b_i‖²: by minimax duality the
    square of the exact min–max discrepancy. Solved independently of the primal (over λ,
    not T)."""
    n = A.shape[0]

    def neg(z):
        lam = np.exp(z - z.max())
        lam /= lam.sum()
        L = lam[:, None]
        G = B.T @ (L * B)
        T = np.linalg.lstsq(G, B.T @ (L * A), rcond=None)[0]
        return -float(np.sum(lam * np.sum((A - B @ T) ** 2, axis=1)))

    best = -np.inf
    for start in range(4):
        z0 = np.random.default_rng(start).normal(size=n)
        res = minimize(
            neg,
            z0,
            method="Nelder-Mead" if n <= 4 else "Powell",
            options={"maxiter": 20000, "xtol": 1e-10, "ftol": 1e-14},
        )
        best = max(best, -res.fun)
    return np.sqrt(best)


@pytest.mark.parametrize("seed", range(5))
def test_exact_minmax_never_exceeds_surrogate_and_matches_dual(seed):
    rng = np.random.default_rng(seed)
    n, w = 9, 2
    A, B = rng.normal(size=(n, w)), rng.normal(size=(n, w))
    exact, surrogate = (
        representation_shift.minmax_discrepancy(A, B),
        representation_shift.discrepancy(A, B),
    )
    assert exact <= surrogate + 1e-9
    assert (
        exact <= representation_shift.unaligned_discrepancy(A, B) + 1e-9
    )  # T = I is a feasible choice
    assert exact == pytest.approx(dual_value(A, B), rel=1e-3)


def test_exact_minmax_one_dimensional_brute_force():
    rng = np.random.default_rng(7)
    a, b = rng.normal(size=(8, 1)), rng.normal(size=(8, 1))
    grid = np.linspace(-10, 10, 400_001)
    brute = np.min(np.max(np.abs(a - grid[None, :] * b), axis=0))
    assert representation_shift.minmax_discrepancy(a, b) == pytest.approx(
        brute, abs=1e-4
    )


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10_000), st.integers(4, 10))
def test_exact_never_exceeds_surrogate_property(seed, n):
    rng = np.random.default_rng(seed)
    A, B = rng.normal(size=(n, 2)), rng.normal(size=(n, 3))
    if n <= 3:
        return
    assert (
        representation_shift.minmax_discrepancy(A, B)
        <= representation_shift.discrepancy(A, B) + 1e-9
    )


# --- held-out variant -----------------------------------------------------------------
def test_heldout_on_the_fit_set_is_the_in_sample_discrepancy():
    rng = np.random.default_rng(3)
    A, B = relu_features(rng, 120, 6), relu_features(rng, 120, 6)
    assert representation_shift.heldout_discrepancy(A, B, A, B) == pytest.approx(
        representation_shift.discrepancy(A, B), rel=1e-12
    )


def test_split_discrepancy_is_reproducible_and_not_smaller_on_average():
    rng = np.random.default_rng(4)
    A, B = relu_features(rng, 200, 20), relu_features(rng, 200, 20)
    d1 = representation_shift.split_discrepancy(A, B, np.random.default_rng(0))
    assert d1 == representation_shift.split_discrepancy(A, B, np.random.default_rng(0))
    held = [
        np.mean(
            np.linalg.norm(
                A[o[100:]]
                - B[o[100:]]
                @ representation_shift.fit_alignment(A[o[:100]], B[o[:100]]),
                axis=1,
            )
            ** 2
        )
        for o in (np.random.default_rng(s).permutation(200) for s in range(5))
    ]
    in_sample = np.mean(representation_shift.residual_norms(A, B) ** 2)
    assert np.mean(held) > in_sample  # overfitting makes in-sample residuals smaller


# --- bad inputs -----------------------------------------------------------------------
def test_bad_inputs_name_the_argument():
    rng = np.random.default_rng(5)
    A = rng.normal(size=(50, 4))
    with pytest.raises(ValueError, match="same inputs"):
        representation_shift.discrepancy(A, A[:40])
    bad = A.copy()
    bad[3, 1] = np.nan
    with pytest.raises(ValueError, match="B has 1 non-finite"):
        representation_shift.discrepancy(A, bad)
    with pytest.raises(ValueError, match="A has 1 non-finite"):
        representation_shift.unaligned_discrepancy(bad, A)
    with pytest.raises(ValueError, match="n=4 inputs for w=4"):
        representation_shift.discrepancy(A[:4], A[:4])
    with pytest.raises(ValueError, match="must be 2-D"):
        representation_shift.discrepancy(A[:, 0], A[:, 0])
    with pytest.raises(ValueError, match="same shape"):
        representation_shift.unaligned_discrepancy(A, A[:, :3])
    with pytest.raises(
        ValueError, match=r"fit_fraction must be a number in \(0, 1\), got 1.5"
    ):
        representation_shift.split_discrepancy(A, A, rng, fit_fraction=1.5)
    with pytest.raises(TypeError, match="rng must be"):
        representation_shift.split_discrepancy(A, A, 0)
    with pytest.raises(ValueError, match="small inputs"):
        representation_shift.minmax_discrepancy(A, A)
    with pytest.raises(ValueError, match="evaluation features"):
        representation_shift.heldout_discrepancy(A, A, A[:, :3], A[:, :3])


# --- probes ---------------------------------------------------------------------------
def test_probe_matches_sklearn_on_standardised_features():
    rng = np.random.default_rng(6)
    y = rng.integers(0, 3, 300)
    F = rng.normal(size=(300, 5)) + 3 * np.eye(3)[y] @ rng.normal(size=(3, 5))
    acc = representation_shift.probe_accuracy(F[:200], y[:200], F[200:], y[200:])
    sc = StandardScaler().fit(F[:200])
    ref = LogisticRegression(C=1.0).fit(sc.transform(F[:200]), y[:200])
    assert acc == pytest.approx(np.mean(ref.predict(sc.transform(F[200:])) == y[200:]))
    assert acc > 0.6
    with pytest.raises(ValueError, match="y_train must have one label per row"):
        representation_shift.probe_accuracy(F[:200], y[:100], F[200:], y[200:])
    with pytest.raises(ValueError, match="at least two classes"):
        representation_shift.probe_accuracy(F[:200], np.zeros(200), F[200:], y[200:])
    with pytest.raises(ValueError, match="C must be a finite number > 0, got 0"):
        representation_shift.probe_accuracy(F[:200], y[:200], F[200:], y[200:], C=0)


# --- tasks, data, networks ------------------------------------------------------------
def test_split_tasks():
    rng = np.random.default_rng(8)
    y = np.repeat(np.arange(4), 25)
    X = rng.normal(size=(100, 3))
    tasks = representation_shift.split_tasks(
        X, y, [(0, 1), (2, 3)], np.random.default_rng(0)
    )
    assert [t.classes for t in tasks] == [(0, 1), (2, 3)]
    assert all(len(t.y_train) == 40 and len(t.y_test) == 10 for t in tasks)
    assert set(tasks[1].y_train) == {0, 1} and set(tasks[1].y_train_global) == {2, 3}
    with pytest.raises(ValueError, match="share classes"):
        representation_shift.split_tasks(X, y, [(0, 1), (1, 2)], rng)
    with pytest.raises(ValueError, match="no examples"):
        representation_shift.split_tasks(X, y, [(0, 9)], rng)
    with pytest.raises(
        ValueError, match=r"test_fraction must be a number in \(0, 1\), got 0"
    ):
        representation_shift.split_tasks(X, y, [(0, 1)], rng, test_fraction=0)


def test_coloured_shapes():
    X, y = representation_shift.coloured_shapes(
        20, 12, np.random.default_rng(0), size=12
    )
    assert X.shape == (240, 3, 12, 12) and X.dtype == np.float32
    assert X.min() >= 0 and X.max() <= 1 and np.bincount(y).tolist() == [20] * 12
    X2, _ = representation_shift.coloured_shapes(
        20, 12, np.random.default_rng(0), size=12
    )
    np.testing.assert_array_equal(X, X2)
    # every class differs from every other on average
    means = np.stack([X[y == c].mean(0).ravel() for c in range(12)])
    d = np.linalg.norm(means[:, None] - means[None], axis=-1)
    assert d[~np.eye(12, dtype=bool)].min() > 0.5
    with pytest.raises(ValueError, match="n_classes must be an int ≥ 2, got 1"):
        representation_shift.coloured_shapes(5, 1, np.random.default_rng(0))


@pytest.mark.parametrize(
    "kind,n_in,X",
    [
        ("mlp", 20, torch.randn(64, 20, generator=torch.Generator().manual_seed(0))),
        (
            "resnet",
            3,
            torch.rand(64, 3, 8, 8, generator=torch.Generator().manual_seed(0)),
        ),
    ],
)
def test_training_is_reproducible_and_features_have_the_width(kind, n_in, X):
    y = (X.flatten(1).sum(1) > X.flatten(1).sum(1).median()).long()
    task = representation_shift.Task(
        (0, 1), X.numpy(), y.numpy(), X.numpy(), y.numpy(), y.numpy(), y.numpy()
    )
    runs = []
    for _ in range(2):
        net = representation_shift.make_network(
            kind, n_in=n_in, width=6, depth=3, n_tasks=2, seed=1
        )
        with representation_shift.single_threaded():
            snaps = representation_shift.train_sequence(
                net,
                [task, task],
                epochs=2,
                lr=0.05,
                momentum=0.9,
                batch_size=16,
                generator=torch.Generator().manual_seed(2),
            )
        runs.append((net, snaps))
    (net, snaps), (_, snaps2) = runs
    assert len(snaps) == 2
    for k in snaps[1]:
        assert torch.equal(snaps[1][k], snaps2[1][k])
    feats = representation_shift.layer_features(net, snaps[0], X.numpy())
    assert [f.shape for f in feats] == [(64, 6)] * 3
    later = representation_shift.layer_features(net, snaps[1], X.numpy())
    assert representation_shift.discrepancy(feats[0], feats[0]) == pytest.approx(
        0.0, abs=1e-9
    )
    assert (
        representation_shift.unaligned_discrepancy(feats[0], later[0]) > 0
    )  # training moved the features
    assert (
        0.0
        <= representation_shift.task_accuracy(net, snaps[1], 1, X.numpy(), y.numpy())
        <= 1.0
    )


def test_single_threaded_restores_the_thread_count():
    before = torch.get_num_threads()
    with representation_shift.single_threaded():
        assert torch.get_num_threads() == 1
    assert torch.get_num_threads() == before


def test_network_and_training_bad_inputs():
    with pytest.raises(ValueError, match="kind must be one of"):
        representation_shift.make_network("vit", n_in=3, width=4, depth=2, n_tasks=1)
    with pytest.raises(ValueError, match="width must be a positive int, got 0"):
        representation_shift.make_network("mlp", n_in=3, width=0, depth=2, n_tasks=1)
    net = representation_shift.make_network("mlp", n_in=3, width=4, depth=2, n_tasks=1)
    X, y = torch.zeros(8, 3), torch.zeros(8, dtype=torch.long)
    g = torch.Generator().manual_seed(0)
    with pytest.raises(ValueError, match="task must lie"):
        representation_shift.train_task(
            net, X, y, 1, epochs=1, lr=0.1, momentum=0.0, batch_size=4, generator=g
        )
    with pytest.raises(ValueError, match="epochs must be a positive int, got 0"):
        representation_shift.train_task(
            net, X, y, 0, epochs=0, lr=0.1, momentum=0.0, batch_size=4, generator=g
        )
    with pytest.raises(TypeError, match="generator must be"):
        representation_shift.train_task(
            net, X, y, 0, epochs=1, lr=0.1, momentum=0.0, batch_size=4, generator=0
        )


def test_saturation_time():
    curve = [1.0, 2.0, 3.0, 3.9, 4.0, 4.1, 4.0, 3.95, 4.05]
    assert (
        representation_shift.saturation_time(curve) == 4
    )  # plateau 4.0, 90 % of it first reached at Δt = 4
    assert representation_shift.saturation_time([5.0, 5.0, 5.0]) == 1
    with pytest.raises(ValueError, match="at least 3 points"):
        representation_shift.saturation_time([1.0, 2.0])
    with pytest.raises(
        ValueError, match=r"fraction must be a number in \(0, 1\], got 0"
    ):
        representation_shift.saturation_time(curve, fraction=0)


def test_interpolated_saturation_time():
    curve = [1.0, 2.0, 3.0, 3.9, 4.0, 4.1, 4.0, 3.95, 4.05]
    # plateau 4.0, level 3.6: crossed between Δt = 3 (3.0) and Δt = 4 (3.9)
    assert representation_shift.saturation_time(
        curve, interpolate=True
    ) == pytest.approx(3 + 0.6 / 0.9)
    # already above the level at Δt = 1: read from D = 0 at Δt = 0
    assert representation_shift.saturation_time(
        [5.0, 5.0, 5.0], interpolate=True
    ) == pytest.approx(0.9)
    # a straight line through the origin crosses 90 % of its plateau exactly there
    line = np.arange(1.0, 10.0)  # plateau (mean of 7, 8, 9) = 8, level 7.2
    assert representation_shift.saturation_time(
        line, interpolate=True
    ) == pytest.approx(7.2)
    rng = np.random.default_rng(0)
    for _ in range(50):
        c = np.cumsum(rng.uniform(0.0, 1.0, size=12)) + 0.01
        tau = representation_shift.saturation_time(c, interpolate=True)
        first = representation_shift.saturation_time(c)
        assert first - 1 < tau <= first
    with pytest.raises(ValueError, match="curve ≥ 0"):
        representation_shift.saturation_time([-1.0, 2.0, 3.0], interpolate=True)
    with pytest.raises(ValueError, match="positive plateau"):
        representation_shift.saturation_time([0.0, 0.0, 0.0], interpolate=True)
