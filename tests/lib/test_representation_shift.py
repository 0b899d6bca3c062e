import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import minimize
from sklearn.linear_model import LinearRegression, LogisticRegression
from sklearn.preprocessing import StandardScaler

from repbook.papers import representation_shift as R


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
    assert R.discrepancy(A, B) == pytest.approx(official_eps(A, B), abs=1e-8)
    assert R.discrepancy(A, B) == pytest.approx(official_eps(A, B, 1e-6), abs=1e-8)
    # different widths on the two sides are allowed (T is w_B × w_A)
    B2 = relu_features(rng, 300, 10)
    assert R.discrepancy(A, B2) == pytest.approx(official_eps(A, B2), abs=1e-8)


def test_nearly_dead_units_match_the_official_path_as_it_ran():
    rng = np.random.default_rng(9)
    A, B = relu_features(rng, 300, 20), relu_features(rng, 300, 20, dead=1)
    B[5, 0] = 1e-4  # a unit active on one input only: a tiny singular value
    ours = R.discrepancy(A, B)
    assert ours == pytest.approx(official_eps(A, B), abs=1e-8)
    # scikit-learn 1.9's default cutoff drops that direction: a larger residual
    assert official_eps(A, B, tol=1e-6) >= ours - 1e-12


def test_zero_for_an_invertible_linear_map_and_invariant_to_one():
    rng = np.random.default_rng(1)
    A = relu_features(rng, 200, 16)
    M = rng.normal(size=(16, 16)) + 4 * np.eye(16)
    assert R.discrepancy(A, A @ M) == pytest.approx(0.0, abs=1e-9)
    B = relu_features(rng, 200, 16)
    d = R.discrepancy(A, B)
    assert d > 0.1
    assert R.discrepancy(A, B @ M) == pytest.approx(d, rel=1e-9)
    # scaling the later features changes nothing; scaling the earlier ones scales D
    assert R.discrepancy(A, 7.0 * B) == pytest.approx(d, rel=1e-9)
    assert R.discrepancy(3.0 * A, B) == pytest.approx(3.0 * d, rel=1e-9)


def test_same_snapshot_gives_zero_and_fit_alignment_is_identity():
    rng = np.random.default_rng(2)
    A = relu_features(rng, 100, 8)
    assert R.discrepancy(A, A) == pytest.approx(0.0, abs=1e-10)
    np.testing.assert_allclose(R.fit_alignment(A, A), np.eye(8), atol=1e-10)


def test_unaligned_and_size_known_answers():
    A = np.array([[3.0, 4.0], [0.0, 1.0], [1.0, 0.0]])
    B = np.array([[0.0, 0.0], [0.0, 1.0], [1.0, 2.0]])
    assert R.unaligned_discrepancy(A, B) == pytest.approx(5.0)
    s = R.representation_size(A)
    assert (s.max, s.min) == (pytest.approx(5.0), pytest.approx(1.0))
    assert s.max_normalized == pytest.approx(5.0 / np.sqrt(2))
    assert s.min_normalized == pytest.approx(1.0 / np.sqrt(2))
    shift = R.measure_shift(A, B)
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
    exact, surrogate = R.minmax_discrepancy(A, B), R.discrepancy(A, B)
    assert exact <= surrogate + 1e-9
    assert exact <= R.unaligned_discrepancy(A, B) + 1e-9  # T = I is a feasible choice
    assert exact == pytest.approx(dual_value(A, B), rel=1e-3)


def test_exact_minmax_one_dimensional_brute_force():
    rng = np.random.default_rng(7)
    a, b = rng.normal(size=(8, 1)), rng.normal(size=(8, 1))
    grid = np.linspace(-10, 10, 400_001)
    brute = np.min(np.max(np.abs(a - grid[None, :] * b), axis=0))
    assert R.minmax_discrepancy(a, b) == pytest.approx(brute, abs=1e-4)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10_000), st.integers(4, 10))
def test_exact_never_exceeds_surrogate_property(seed, n):
    rng = np.random.default_rng(seed)
    A, B = rng.normal(size=(n, 2)), rng.normal(size=(n, 3))
    if n <= 3:
        return
    assert R.minmax_discrepancy(A, B) <= R.discrepancy(A, B) + 1e-9


# --- held-out variant -----------------------------------------------------------------
def test_heldout_on_the_fit_set_is_the_in_sample_discrepancy():
    rng = np.random.default_rng(3)
    A, B = relu_features(rng, 120, 6), relu_features(rng, 120, 6)
    assert R.heldout_discrepancy(A, B, A, B) == pytest.approx(
        R.discrepancy(A, B), rel=1e-12
    )


def test_split_discrepancy_is_reproducible_and_not_smaller_on_average():
    rng = np.random.default_rng(4)
    A, B = relu_features(rng, 200, 20), relu_features(rng, 200, 20)
    d1 = R.split_discrepancy(A, B, np.random.default_rng(0))
    assert d1 == R.split_discrepancy(A, B, np.random.default_rng(0))
    held = [
        np.mean(
            np.linalg.norm(
                A[o[100:]] - B[o[100:]] @ R.fit_alignment(A[o[:100]], B[o[:100]]),
                axis=1,
            )
            ** 2
        )
        for o in (np.random.default_rng(s).permutation(200) for s in range(5))
    ]
    in_sample = np.mean(R.residual_norms(A, B) ** 2)
    assert np.mean(held) > in_sample  # overfitting makes in-sample residuals smaller


# --- bad inputs -----------------------------------------------------------------------
def test_bad_inputs_name_the_argument():
    rng = np.random.default_rng(5)
    A = rng.normal(size=(50, 4))
    with pytest.raises(ValueError, match="same inputs"):
        R.discrepancy(A, A[:40])
    bad = A.copy()
    bad[3, 1] = np.nan
    with pytest.raises(ValueError, match="B has 1 non-finite"):
        R.discrepancy(A, bad)
    with pytest.raises(ValueError, match="A has 1 non-finite"):
        R.unaligned_discrepancy(bad, A)
    with pytest.raises(ValueError, match="n=4 inputs for w=4"):
        R.discrepancy(A[:4], A[:4])
    with pytest.raises(ValueError, match="must be 2-D"):
        R.discrepancy(A[:, 0], A[:, 0])
    with pytest.raises(ValueError, match="same shape"):
        R.unaligned_discrepancy(A, A[:, :3])
    with pytest.raises(ValueError, match="fit_fraction"):
        R.split_discrepancy(A, A, rng, fit_fraction=1.5)
    with pytest.raises(TypeError, match="rng must be"):
        R.split_discrepancy(A, A, 0)
    with pytest.raises(ValueError, match="small inputs"):
        R.minmax_discrepancy(A, A)
    with pytest.raises(ValueError, match="evaluation features"):
        R.heldout_discrepancy(A, A, A[:, :3], A[:, :3])


# --- probes ---------------------------------------------------------------------------
def test_probe_matches_sklearn_on_standardised_features():
    rng = np.random.default_rng(6)
    y = rng.integers(0, 3, 300)
    F = rng.normal(size=(300, 5)) + 3 * np.eye(3)[y] @ rng.normal(size=(3, 5))
    acc = R.probe_accuracy(F[:200], y[:200], F[200:], y[200:])
    sc = StandardScaler().fit(F[:200])
    ref = LogisticRegression(C=1.0).fit(sc.transform(F[:200]), y[:200])
    assert acc == pytest.approx(np.mean(ref.predict(sc.transform(F[200:])) == y[200:]))
    assert acc > 0.6
    with pytest.raises(ValueError, match="y_train must have one label per row"):
        R.probe_accuracy(F[:200], y[:100], F[200:], y[200:])
    with pytest.raises(ValueError, match="at least two classes"):
        R.probe_accuracy(F[:200], np.zeros(200), F[200:], y[200:])
    with pytest.raises(ValueError, match="C must be"):
        R.probe_accuracy(F[:200], y[:200], F[200:], y[200:], C=0)


# --- tasks, data, networks ------------------------------------------------------------
def test_split_tasks():
    rng = np.random.default_rng(8)
    y = np.repeat(np.arange(4), 25)
    X = rng.normal(size=(100, 3))
    tasks = R.split_tasks(X, y, [(0, 1), (2, 3)], np.random.default_rng(0))
    assert [t.classes for t in tasks] == [(0, 1), (2, 3)]
    assert all(len(t.y_train) == 40 and len(t.y_test) == 10 for t in tasks)
    assert set(tasks[1].y_train) == {0, 1} and set(tasks[1].y_train_global) == {2, 3}
    with pytest.raises(ValueError, match="share classes"):
        R.split_tasks(X, y, [(0, 1), (1, 2)], rng)
    with pytest.raises(ValueError, match="no examples"):
        R.split_tasks(X, y, [(0, 9)], rng)
    with pytest.raises(ValueError, match="test_fraction"):
        R.split_tasks(X, y, [(0, 1)], rng, test_fraction=0)


def test_coloured_shapes():
    X, y = R.coloured_shapes(20, 12, np.random.default_rng(0), size=12)
    assert X.shape == (240, 3, 12, 12) and X.dtype == np.float32
    assert X.min() >= 0 and X.max() <= 1 and np.bincount(y).tolist() == [20] * 12
    X2, _ = R.coloured_shapes(20, 12, np.random.default_rng(0), size=12)
    np.testing.assert_array_equal(X, X2)
    # every class differs from every other on average
    means = np.stack([X[y == c].mean(0).ravel() for c in range(12)])
    d = np.linalg.norm(means[:, None] - means[None], axis=-1)
    assert d[~np.eye(12, dtype=bool)].min() > 0.5
    with pytest.raises(ValueError, match="n_classes"):
        R.coloured_shapes(5, 1, np.random.default_rng(0))


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
    task = R.Task(
        (0, 1), X.numpy(), y.numpy(), X.numpy(), y.numpy(), y.numpy(), y.numpy()
    )
    runs = []
    for _ in range(2):
        net = R.make_network(kind, n_in=n_in, width=6, depth=3, n_tasks=2, seed=1)
        with R.single_threaded():
            snaps = R.train_sequence(
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
    feats = R.layer_features(net, snaps[0], X.numpy())
    assert [f.shape for f in feats] == [(64, 6)] * 3
    later = R.layer_features(net, snaps[1], X.numpy())
    assert R.discrepancy(feats[0], feats[0]) == pytest.approx(0.0, abs=1e-9)
    assert (
        R.unaligned_discrepancy(feats[0], later[0]) > 0
    )  # training moved the features
    assert 0.0 <= R.task_accuracy(net, snaps[1], 1, X.numpy(), y.numpy()) <= 1.0


def test_single_threaded_restores_the_thread_count():
    before = torch.get_num_threads()
    with R.single_threaded():
        assert torch.get_num_threads() == 1
    assert torch.get_num_threads() == before


def test_network_and_training_bad_inputs():
    with pytest.raises(ValueError, match="kind must be one of"):
        R.make_network("vit", n_in=3, width=4, depth=2, n_tasks=1)
    with pytest.raises(ValueError, match="width must be a positive int"):
        R.make_network("mlp", n_in=3, width=0, depth=2, n_tasks=1)
    net = R.make_network("mlp", n_in=3, width=4, depth=2, n_tasks=1)
    X, y = torch.zeros(8, 3), torch.zeros(8, dtype=torch.long)
    g = torch.Generator().manual_seed(0)
    with pytest.raises(ValueError, match="task must lie"):
        R.train_task(
            net, X, y, 1, epochs=1, lr=0.1, momentum=0.0, batch_size=4, generator=g
        )
    with pytest.raises(ValueError, match="epochs must be"):
        R.train_task(
            net, X, y, 0, epochs=0, lr=0.1, momentum=0.0, batch_size=4, generator=g
        )
    with pytest.raises(TypeError, match="generator must be"):
        R.train_task(
            net, X, y, 0, epochs=1, lr=0.1, momentum=0.0, batch_size=4, generator=0
        )


def test_saturation_time():
    curve = [1.0, 2.0, 3.0, 3.9, 4.0, 4.1, 4.0, 3.95, 4.05]
    assert (
        R.saturation_time(curve) == 4
    )  # plateau 4.0, 90 % of it first reached at Δt = 4
    assert R.saturation_time([5.0, 5.0, 5.0]) == 1
    with pytest.raises(ValueError, match="at least 3 points"):
        R.saturation_time([1.0, 2.0])
    with pytest.raises(ValueError, match="fraction"):
        R.saturation_time(curve, fraction=0)


def test_interpolated_saturation_time():
    curve = [1.0, 2.0, 3.0, 3.9, 4.0, 4.1, 4.0, 3.95, 4.05]
    # plateau 4.0, level 3.6: crossed between Δt = 3 (3.0) and Δt = 4 (3.9)
    assert R.saturation_time(curve, interpolate=True) == pytest.approx(3 + 0.6 / 0.9)
    # already above the level at Δt = 1: read from D = 0 at Δt = 0
    assert R.saturation_time([5.0, 5.0, 5.0], interpolate=True) == pytest.approx(0.9)
    # a straight line through the origin crosses 90 % of its plateau exactly there
    line = np.arange(1.0, 10.0)  # plateau (mean of 7, 8, 9) = 8, level 7.2
    assert R.saturation_time(line, interpolate=True) == pytest.approx(7.2)
    rng = np.random.default_rng(0)
    for _ in range(50):
        c = np.cumsum(rng.uniform(0.0, 1.0, size=12)) + 0.01
        tau = R.saturation_time(c, interpolate=True)
        first = R.saturation_time(c)
        assert first - 1 < tau <= first
    with pytest.raises(ValueError, match="curve ≥ 0"):
        R.saturation_time([-1.0, 2.0, 3.0], interpolate=True)
    with pytest.raises(ValueError, match="positive plateau"):
        R.saturation_time([0.0, 0.0, 0.0], interpolate=True)


# --- the experiment protocols ---------------------------------------------------------
P = R  # the protocols live in the same module


def tiny_tasks(n_tasks=3, n=60, d=10, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n * n_tasks, d)).astype(np.float32)
    y = np.repeat(np.arange(2 * n_tasks), n // 2)
    X[np.arange(y.size), y % d] += 3.0  # separable classes
    groups = [(2 * i, 2 * i + 1) for i in range(n_tasks)]
    return R.split_tasks(X, y, groups, np.random.default_rng(seed + 1))


def test_corrupted_probe_sets():
    task = tiny_tasks()[0]
    Xtr, ytr, Xte, yte = P.corrupted_probe_sets(
        task, 0.0, np.random.default_rng(0), test_copies=3
    )
    np.testing.assert_array_equal(Xtr, task.X_train)
    np.testing.assert_array_equal(Xte, np.concatenate([task.X_test] * 3))
    np.testing.assert_array_equal(yte, np.tile(task.y_test, 3))
    np.testing.assert_array_equal(ytr, task.y_train)
    a = P.corrupted_probe_sets(task, 0.5, np.random.default_rng(1))
    b = P.corrupted_probe_sets(task, 0.5, np.random.default_rng(1))
    np.testing.assert_array_equal(a[0], b[0])
    noise = a[0] - task.X_train
    assert noise.std() == pytest.approx(0.5, rel=0.1)
    assert a[2].shape[0] == 4 * task.X_test.shape[0]  # four test copies by default
    with pytest.raises(ValueError, match="std must be"):
        P.corrupted_probe_sets(task, -1.0, np.random.default_rng(0))
    with pytest.raises(ValueError, match="test_copies"):
        P.corrupted_probe_sets(task, 1.0, np.random.default_rng(0), test_copies=0)
    with pytest.raises(TypeError, match="rng must be"):
        P.corrupted_probe_sets(task, 1.0, 0)


def test_pooled_probe_sets_use_global_labels_and_the_cap():
    tasks = tiny_tasks()
    Xtr, ytr, Xte, yte = P.pooled_probe_sets(tasks, 5)
    assert sorted(np.unique(ytr)) == list(range(6))
    assert np.all(np.bincount(ytr) <= 5) and Xtr.shape[0] == ytr.size
    assert yte.size == sum(t.X_test.shape[0] for t in tasks) == Xte.shape[0]
    with pytest.raises(ValueError, match="per_class"):
        P.pooled_probe_sets(tasks, 0)
    with pytest.raises(ValueError, match="empty"):
        P.pooled_probe_sets([], 3)


def test_permuted_tasks():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 12)).astype(np.float32)
    y = np.arange(200) % 4
    tasks = P.permuted_tasks(X, y, 3, np.random.default_rng(1), n_per_task=50)
    assert len(tasks) == 3
    for i, t in enumerate(tasks):
        assert t.X_train.shape == (40, 12) and t.X_test.shape == (10, 12)
        assert t.classes == (0, 1, 2, 3)
        np.testing.assert_array_equal(t.y_train, t.y_train_global)  # labels 0..3
        # every input is a row of X with its columns in the task's one fixed order
        # (task 0: the original order)
        rows = {tuple(np.sort(r)): r for r in X}
        srcs = [rows[tuple(np.sort(r))] for r in t.X_train]
        pi = np.array([np.flatnonzero(srcs[0] == v)[0] for v in t.X_train[0]])
        for r, src in zip(t.X_train, srcs):
            np.testing.assert_array_equal(r, src[pi])
        if i == 0:
            np.testing.assert_array_equal(pi, np.arange(12))
        else:
            assert not np.array_equal(pi, np.arange(12))
    again = P.permuted_tasks(X, y, 3, np.random.default_rng(1), n_per_task=50)
    np.testing.assert_array_equal(again[2].X_test, tasks[2].X_test)
    with pytest.raises(ValueError, match="n_per_task"):
        P.permuted_tasks(X, y, 2, np.random.default_rng(0), n_per_task=500)
    with pytest.raises(ValueError, match="2-D"):
        P.permuted_tasks(X[:, :, None], y, 2, np.random.default_rng(0), n_per_task=50)
    with pytest.raises(ValueError, match="test_fraction"):
        P.permuted_tasks(
            X, y, 2, np.random.default_rng(0), n_per_task=50, test_fraction=1.0
        )


def stream_kwargs(seed=0):
    return dict(
        epochs=2,
        lr=0.05,
        momentum=0.9,
        batch_size=16,
        generator=torch.Generator().manual_seed(seed),
    )


def test_measure_stream_rows_match_direct_measurements():
    tasks = tiny_tasks(n_tasks=3)

    def go():
        net = R.make_network("mlp", n_in=10, width=4, depth=2, n_tasks=3, seed=1)
        with R.single_threaded():
            out = P.measure_stream(
                net,
                tasks,
                eval_tasks=2,
                noise_std=0.5,
                noise_rng=np.random.default_rng(3),
                pooled_per_class=5,
                extra={"twice_D": lambda a, b: 2 * R.discrepancy(a, b)},
                **stream_kwargs(),
            )
        return net, out

    net, (rows, heads) = go()
    _, (rows2, _) = go()
    assert rows == rows2  # reproducible
    # t = 0: Δt = 1, 2; t = 1: Δt = 1; two layers each
    assert len(rows) == (2 + 1) * 2
    assert [(h["t"], h["dt"]) for h in heads] == [
        (0, 0),
        (0, 1),
        (0, 2),
        (1, 0),
        (1, 1),
    ]
    for row in rows:
        assert row["twice_D"] == pytest.approx(2 * row["D"])
        assert -1.0 <= row["dP2"] <= 1.0 and -1.0 <= row["dPn"] <= 1.0
        assert {"dPn", "dP10", "D_held", "sigma", "R", "Pn_before"} <= set(row)
        assert 0.0 <= row["Pn_before"] <= 1.0 and row["D"] >= 0
    # D of (t=0, Δt=2, k=1) against the snapshots trained directly
    net2 = R.make_network("mlp", n_in=10, width=4, depth=2, n_tasks=3, seed=1)
    with R.single_threaded():
        snaps = R.train_sequence(net2, tasks, **stream_kwargs())
    A = R.layer_features(net2, snaps[0], tasks[0].X_train)[0]
    B = R.layer_features(net2, snaps[2], tasks[0].X_train)[0]
    row = next(r for r in rows if (r["t"], r["dt"], r["k"]) == (0, 2, 1))
    assert row["D"] == pytest.approx(R.discrepancy(A, B), rel=1e-9)
    assert row["R"] == pytest.approx(R.representation_size(A).max, rel=1e-9)
    net3 = R.make_network("mlp", n_in=10, width=4, depth=2, n_tasks=3, seed=1)
    with pytest.raises(ValueError, match="eval_tasks must be smaller"):
        P.measure_stream(
            net3,
            tasks,
            eval_tasks=3,
            noise_std=0.5,
            noise_rng=np.random.default_rng(3),
            **stream_kwargs(),
        )
    with pytest.raises(TypeError, match="noise_rng"):
        P.measure_stream(
            net3, tasks, eval_tasks=1, noise_std=0.5, noise_rng=3, **stream_kwargs()
        )


def test_first_task_drift():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 10)).astype(np.float32)
    y = (X[:, 0] > 0).astype(np.int64) + 2 * (X[:, 1] > 0)
    tasks = P.permuted_tasks(X, y, 4, np.random.default_rng(1), n_per_task=100)
    net = R.make_network(
        "mlp", n_in=10, width=5, depth=3, n_tasks=4, n_classes=4, seed=2
    )
    with R.single_threaded():
        out = P.first_task_drift(net, tasks, **stream_kwargs())
    assert out["D"].shape == (3, 3) and out["R"].shape == (3,)
    assert out["own_acc"].shape == (4,) and out["first_acc"].shape == (4,)
    assert out["own_acc"][0] == out["first_acc"][0]
    assert np.all(out["D"] >= 0) and np.all(out["R"] > 0)
    with pytest.raises(ValueError, match="at least two tasks"):
        P.first_task_drift(net, tasks[:1], **stream_kwargs())


def test_trend_slope_and_plateau_drift():
    assert P.trend_slope([1.0, 3.0, 5.0, 7.0]) == pytest.approx(2.0)
    assert P.trend_slope([2.0, 2.0, 2.0]) == pytest.approx(0.0)
    assert P.trend_slope([4.0, 3.0, 2.0, 1.0]) == pytest.approx(-1.0)
    assert P.plateau_drift([1.0, 2.0, 3.0, 3.0, 3.0, 3.0]) == pytest.approx(0.0)
    line = np.arange(1.0, 16.0)  # a straight line through the origin, Δt = 1..15
    # last third: Δt = 11..15, slope 1, span 4, mean 13
    assert P.plateau_drift(line) == pytest.approx(4 / 13)
    # the docstring's formula (m − 1) / (n − (m − 1)/2), e.g. n = 31, m = 10
    assert P.plateau_drift(np.arange(1.0, 32.0)) == pytest.approx(9 / 26.5)
    with pytest.raises(ValueError, match="at least 2 points"):
        P.trend_slope([1.0])
    with pytest.raises(ValueError, match="finite"):
        P.trend_slope([1.0, np.nan])
    with pytest.raises(ValueError, match="tail"):
        P.plateau_drift(line, tail=1.5)
    with pytest.raises(ValueError, match="positive mean"):
        P.plateau_drift([0.0, 0.0, 0.0])


def test_early_slope():
    # first third of 9 points: Δt = 1..3
    curve = [1.0, 2.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0]
    assert P.early_slope(curve) == pytest.approx(1.0)
    assert P.early_slope(curve, head=1.0) == pytest.approx(P.trend_slope(curve))
    # at least two points, however short the head
    assert P.early_slope([0.0, 2.0, 2.0], head=0.1) == pytest.approx(2.0)
    with pytest.raises(ValueError, match="head"):
        P.early_slope(curve, head=0)
    with pytest.raises(ValueError, match="at least 2 points"):
        P.early_slope([1.0])


def test_layer_slopes():
    tau = np.array([[4.0, 3.0, 2.0, 1.0], [1.0, 1.0, 1.0, 1.0], [1.0, 3.0, 5.0, 7.0]])
    assert P.layer_slopes(tau) == pytest.approx([-1.0, 0.0, 2.0])
    assert P.layer_slopes([2.0, 1.0]) == pytest.approx([-1.0])
    # a shift of every τ leaves the slopes; a scale scales them
    rng = np.random.default_rng(0)
    t = rng.uniform(1, 20, size=(5, 4))
    assert P.layer_slopes(t + 3.0) == pytest.approx(P.layer_slopes(t))
    assert P.layer_slopes(2.0 * t) == pytest.approx(2.0 * P.layer_slopes(t))
    # each row agrees with numpy's least-squares line
    for row, s in zip(t, P.layer_slopes(t)):
        assert s == pytest.approx(np.polyfit(np.arange(1, 5), row, 1)[0])
    with pytest.raises(ValueError, match="at least 2 layers"):
        P.layer_slopes([[1.0], [2.0]])
    with pytest.raises(ValueError, match="finite"):
        P.layer_slopes([[1.0, np.nan]])


def test_plateau_window_and_still_rising():
    assert P.plateau_window(31) == (22, 31)
    assert P.plateau_window(15) == (11, 15)
    # the window is the one saturation_time averages over: a curve that is 0 before
    # the window and 1 on it has its level reached at the window's first point
    n = 31
    first, last = P.plateau_window(n)
    curve = np.where(np.arange(1, n + 1) >= first, 1.0, 0.0)
    assert R.saturation_time(curve) == first
    tau = R.saturation_time(curve, interpolate=True)
    assert first - 1 < tau <= first
    assert P.still_rising([tau, 5.0, first - 1.0], n).tolist() == [True, False, False]
    with pytest.raises(ValueError, match="n_points"):
        P.plateau_window(2)
    with pytest.raises(ValueError, match="tail"):
        P.plateau_window(10, tail=1.0)
    with pytest.raises(ValueError, match="finite"):
        P.still_rising([np.nan], 10)
