import numpy as np
import pandas as pd
import pytest
import torch

from repbook.core import paired_gain, setup
from repbook.papers import representation_shift


# --- the experiment protocols ---------------------------------------------------------
def tiny_tasks(n_tasks=3, n=60, d=10, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n * n_tasks, d)).astype(np.float32)
    y = np.repeat(np.arange(2 * n_tasks), n // 2)
    X[np.arange(y.size), y % d] += 3.0  # separable classes
    groups = [(2 * i, 2 * i + 1) for i in range(n_tasks)]
    return representation_shift.split_tasks(
        X, y, groups, np.random.default_rng(seed + 1)
    )


def test_corrupted_probe_sets():
    task = tiny_tasks()[0]
    Xtr, ytr, Xte, yte = representation_shift.corrupted_probe_sets(
        task, 0.0, np.random.default_rng(0), test_copies=3
    )
    np.testing.assert_array_equal(Xtr, task.X_train)
    np.testing.assert_array_equal(Xte, np.concatenate([task.X_test] * 3))
    np.testing.assert_array_equal(yte, np.tile(task.y_test, 3))
    np.testing.assert_array_equal(ytr, task.y_train)
    a = representation_shift.corrupted_probe_sets(task, 0.5, np.random.default_rng(1))
    b = representation_shift.corrupted_probe_sets(task, 0.5, np.random.default_rng(1))
    np.testing.assert_array_equal(a[0], b[0])
    noise = a[0] - task.X_train
    assert noise.std() == pytest.approx(0.5, rel=0.1)
    assert a[2].shape[0] == 4 * task.X_test.shape[0]  # four test copies by default
    with pytest.raises(ValueError, match="std must be a finite number ≥ 0, got -1.0"):
        representation_shift.corrupted_probe_sets(task, -1.0, np.random.default_rng(0))
    with pytest.raises(ValueError, match="test_copies must be a positive int, got 0"):
        representation_shift.corrupted_probe_sets(
            task, 1.0, np.random.default_rng(0), test_copies=0
        )
    with pytest.raises(TypeError, match="rng must be"):
        representation_shift.corrupted_probe_sets(task, 1.0, 0)


def test_pooled_probe_sets_use_global_labels_and_the_cap():
    tasks = tiny_tasks()
    Xtr, ytr, Xte, yte = representation_shift.pooled_probe_sets(tasks, 5)
    assert sorted(np.unique(ytr)) == list(range(6))
    assert np.all(np.bincount(ytr) <= 5) and Xtr.shape[0] == ytr.size
    assert yte.size == sum(t.X_test.shape[0] for t in tasks) == Xte.shape[0]
    with pytest.raises(ValueError, match="per_class must be a positive int, got 0"):
        representation_shift.pooled_probe_sets(tasks, 0)
    with pytest.raises(ValueError, match="empty"):
        representation_shift.pooled_probe_sets([], 3)


def test_permuted_tasks():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 12)).astype(np.float32)
    y = np.arange(200) % 4
    tasks = representation_shift.permuted_tasks(
        X, y, 3, np.random.default_rng(1), n_per_task=50
    )
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
    again = representation_shift.permuted_tasks(
        X, y, 3, np.random.default_rng(1), n_per_task=50
    )
    np.testing.assert_array_equal(again[2].X_test, tasks[2].X_test)
    with pytest.raises(ValueError, match="n_per_task"):
        representation_shift.permuted_tasks(
            X, y, 2, np.random.default_rng(0), n_per_task=500
        )
    with pytest.raises(ValueError, match="2-D"):
        representation_shift.permuted_tasks(
            X[:, :, None], y, 2, np.random.default_rng(0), n_per_task=50
        )
    with pytest.raises(
        ValueError, match=r"test_fraction must be a number in \(0, 1\), got 1.0"
    ):
        representation_shift.permuted_tasks(
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
        net = representation_shift.make_network(
            "mlp", n_in=10, width=4, depth=2, n_tasks=3, seed=1
        )
        with representation_shift.single_threaded():
            out = representation_shift.measure_stream(
                net,
                tasks,
                eval_tasks=2,
                noise_std=0.5,
                noise_rng=np.random.default_rng(3),
                pooled_per_class=5,
                extra={
                    "twice_D": lambda a, b: 2 * representation_shift.discrepancy(a, b)
                },
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
    net2 = representation_shift.make_network(
        "mlp", n_in=10, width=4, depth=2, n_tasks=3, seed=1
    )
    with representation_shift.single_threaded():
        snaps = representation_shift.train_sequence(net2, tasks, **stream_kwargs())
    A = representation_shift.layer_features(net2, snaps[0], tasks[0].X_train)[0]
    B = representation_shift.layer_features(net2, snaps[2], tasks[0].X_train)[0]
    row = next(r for r in rows if (r["t"], r["dt"], r["k"]) == (0, 2, 1))
    assert row["D"] == pytest.approx(representation_shift.discrepancy(A, B), rel=1e-9)
    assert row["R"] == pytest.approx(
        representation_shift.representation_size(A).max, rel=1e-9
    )
    net3 = representation_shift.make_network(
        "mlp", n_in=10, width=4, depth=2, n_tasks=3, seed=1
    )
    with pytest.raises(ValueError, match="eval_tasks must be smaller"):
        representation_shift.measure_stream(
            net3,
            tasks,
            eval_tasks=3,
            noise_std=0.5,
            noise_rng=np.random.default_rng(3),
            **stream_kwargs(),
        )
    with pytest.raises(TypeError, match="noise_rng"):
        representation_shift.measure_stream(
            net3, tasks, eval_tasks=1, noise_std=0.5, noise_rng=3, **stream_kwargs()
        )


def test_first_task_drift():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 10)).astype(np.float32)
    y = (X[:, 0] > 0).astype(np.int64) + 2 * (X[:, 1] > 0)
    tasks = representation_shift.permuted_tasks(
        X, y, 4, np.random.default_rng(1), n_per_task=100
    )
    net = representation_shift.make_network(
        "mlp", n_in=10, width=5, depth=3, n_tasks=4, n_classes=4, seed=2
    )
    with representation_shift.single_threaded():
        out = representation_shift.first_task_drift(net, tasks, **stream_kwargs())
    assert out["D"].shape == (3, 3) and out["R"].shape == (3,)
    assert out["own_acc"].shape == (4,) and out["first_acc"].shape == (4,)
    assert out["own_acc"][0] == out["first_acc"][0]
    assert np.all(out["D"] >= 0) and np.all(out["R"] > 0)
    with pytest.raises(ValueError, match="at least two tasks"):
        representation_shift.first_task_drift(net, tasks[:1], **stream_kwargs())


def test_trend_slope_and_plateau_drift():
    assert representation_shift.trend_slope([1.0, 3.0, 5.0, 7.0]) == pytest.approx(2.0)
    assert representation_shift.trend_slope([2.0, 2.0, 2.0]) == pytest.approx(0.0)
    assert representation_shift.trend_slope([4.0, 3.0, 2.0, 1.0]) == pytest.approx(-1.0)
    assert representation_shift.plateau_drift(
        [1.0, 2.0, 3.0, 3.0, 3.0, 3.0]
    ) == pytest.approx(0.0)
    line = np.arange(1.0, 16.0)  # a straight line through the origin, Δt = 1..15
    # last third: Δt = 11..15, slope 1, span 4, mean 13
    assert representation_shift.plateau_drift(line) == pytest.approx(4 / 13)
    # the docstring's formula (m − 1) / (n − (m − 1)/2), e.g. n = 31, m = 10
    assert representation_shift.plateau_drift(np.arange(1.0, 32.0)) == pytest.approx(
        9 / 26.5
    )
    with pytest.raises(ValueError, match="at least 2 points"):
        representation_shift.trend_slope([1.0])
    with pytest.raises(ValueError, match="finite"):
        representation_shift.trend_slope([1.0, np.nan])
    with pytest.raises(ValueError, match=r"tail must be a number in \(0, 1\), got 1.5"):
        representation_shift.plateau_drift(line, tail=1.5)
    with pytest.raises(ValueError, match="positive mean"):
        representation_shift.plateau_drift([0.0, 0.0, 0.0])


def test_early_slope():
    # first third of 9 points: Δt = 1..3
    curve = [1.0, 2.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0]
    assert representation_shift.early_slope(curve) == pytest.approx(1.0)
    assert representation_shift.early_slope(curve, head=1.0) == pytest.approx(
        representation_shift.trend_slope(curve)
    )
    # at least two points, however short the head
    assert representation_shift.early_slope([0.0, 2.0, 2.0], head=0.1) == pytest.approx(
        2.0
    )
    with pytest.raises(ValueError, match=r"head must be a number in \(0, 1\], got 0"):
        representation_shift.early_slope(curve, head=0)
    with pytest.raises(ValueError, match="at least 2 points"):
        representation_shift.early_slope([1.0])


def test_layer_slopes():
    tau = np.array([[4.0, 3.0, 2.0, 1.0], [1.0, 1.0, 1.0, 1.0], [1.0, 3.0, 5.0, 7.0]])
    assert representation_shift.layer_slopes(tau) == pytest.approx([-1.0, 0.0, 2.0])
    assert representation_shift.layer_slopes([2.0, 1.0]) == pytest.approx([-1.0])
    # a shift of every τ leaves the slopes; a scale scales them
    rng = np.random.default_rng(0)
    t = rng.uniform(1, 20, size=(5, 4))
    assert representation_shift.layer_slopes(t + 3.0) == pytest.approx(
        representation_shift.layer_slopes(t)
    )
    assert representation_shift.layer_slopes(2.0 * t) == pytest.approx(
        2.0 * representation_shift.layer_slopes(t)
    )
    # each row agrees with numpy's least-squares line
    for row, s in zip(t, representation_shift.layer_slopes(t)):
        assert s == pytest.approx(np.polyfit(np.arange(1, 5), row, 1)[0])
    with pytest.raises(ValueError, match="at least 2 layers"):
        representation_shift.layer_slopes([[1.0], [2.0]])
    with pytest.raises(ValueError, match="finite"):
        representation_shift.layer_slopes([[1.0, np.nan]])


def test_plateau_window_and_still_rising():
    assert representation_shift.plateau_window(31) == (22, 31)
    assert representation_shift.plateau_window(15) == (11, 15)
    # the window is the one saturation_time averages over: a curve that is 0 before
    # the window and 1 on it has its level reached at the window's first point
    n = 31
    first, last = representation_shift.plateau_window(n)
    curve = np.where(np.arange(1, n + 1) >= first, 1.0, 0.0)
    assert representation_shift.saturation_time(curve) == first
    tau = representation_shift.saturation_time(curve, interpolate=True)
    assert first - 1 < tau <= first
    assert representation_shift.still_rising([tau, 5.0, first - 1.0], n).tolist() == [
        True,
        False,
        False,
    ]
    with pytest.raises(ValueError, match="n_points must be an int ≥ 3, got 2"):
        representation_shift.plateau_window(2)
    with pytest.raises(ValueError, match=r"tail must be a number in \(0, 1\), got 1.0"):
        representation_shift.plateau_window(10, tail=1.0)
    with pytest.raises(ValueError, match="finite"):
        representation_shift.still_rising([np.nan], 10)


# --- the official path, correlations and the paired band ------------------------------
def test_official_discrepancy_is_ours_and_official_measures_name_both_cutoffs():
    rng = np.random.default_rng(0)
    A = np.maximum(rng.normal(size=(120, 6)), 0.0)
    B = np.maximum(rng.normal(size=(120, 6)), 0.0)
    ours = representation_shift.discrepancy(A, B)
    assert representation_shift.official_discrepancy(A, B) == pytest.approx(ours)
    measures = representation_shift.official_measures()
    assert list(measures) == ["D_official", "D_sklearn19"]
    for f in measures.values():
        assert f(A, B) == pytest.approx(ours, abs=1e-8)


def test_spearman_pearson_partial_r_and_t_band():
    # one swap of four ranks is exactly 0.8 (not 0.7999…)
    assert representation_shift.spearman([1, 2, 3, 4], [1, 3, 2, 4]) == 0.8
    assert representation_shift.spearman([1, 2, 3, 4], [4, 3, 2, 1]) == -1.0
    assert np.isnan(representation_shift.spearman([1, 2, 3], [5, 5, 5]))
    assert representation_shift.pearson([1, 2, 3], [2, 4, 6]) == pytest.approx(1.0)
    assert np.isnan(representation_shift.pearson([1, 1, 1], [1, 2, 3]))
    # x and y share only their trend in z: no partial correlation left
    z = np.arange(10.0)
    x = 2 * z + np.array([1, -1] * 5)
    y = -z + np.array([1, 1, -1, -1, 1, 1, -1, -1, 1, 1]) * 0.5
    assert representation_shift.pearson(x, y) < -0.9
    assert abs(representation_shift.partial_r(x, y, z)) < 0.5
    m, h, read = representation_shift.t_band([1.0, 2.0, 3.0])
    assert (m, read) == (2.0, "spans 0")
    assert h == pytest.approx(4.302652729911275 / np.sqrt(3))  # t(0.975, 2) · SE
    assert representation_shift.t_band([5.0, 5.1, 4.9])[2] == "above 0"
    assert representation_shift.t_band([-5.0, -5.1, -4.9])[2] == "below 0"
    # the band reads the per-seed gains as paired_gain(k="t") does
    for x in ([0.1, 0.5, 0.2], [0.1, -0.5, 0.2], [-0.3, -0.5, -0.2]):
        out = paired_gain("g", 0.0, k="t").evaluate({"g": np.array(x)})
        read = representation_shift.t_band(x)[2]
        assert out.passed == (read == "above 0")


# --- the chapter's runs over widths and replicates ------------------------------------
MAIN = dict(
    net="mlp",
    n_tasks=3,
    widths=[4, 6],
    depth=2,
    seeds=2,
    epochs=1,
    lr=0.05,
    momentum=0.9,
    batch=16,
    eval_tasks=2,
    probe_noise=0.5,
)


def tiny_data(n=60, d=10, n_classes=6, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n * n_classes // 2, d)).astype(np.float32)
    y = np.repeat(np.arange(n_classes), n // 2)
    X[np.arange(y.size), y % d] += 3.0
    return X, y


def rngs(seed=0):
    return dict(
        rng_for=lambda k: np.random.default_rng([seed, k]),
        torch_rng_for=lambda k: torch.Generator().manual_seed(seed * 1_000_003 + k),
    )


def test_main_stream_is_measure_stream_per_width_and_replicate():
    X, y = tiny_data()
    out = representation_shift.main_stream(X, y, MAIN, n_in=10, **rngs())
    df, heads = out.rows, out.heads
    # per (width, rep): t = 0 → Δt = 1, 2; t = 1 → Δt = 1; two layers each
    assert len(df) == 2 * 2 * 3 * 2
    assert np.allclose(df.Dn, df.D / df.R)
    assert set(zip(df.width, df.rep)) == {(4, 0), (4, 1), (6, 0), (6, 1)}
    assert len(heads) == 2 * 2 * 5 and {"width", "rep", "acc"} <= set(heads)
    # replicate 1 of width 6, measured directly with the generators of its streams
    r, w, rng = 1, 6, rngs()["rng_for"]
    tasks = representation_shift.split_tasks(
        X, y, [(0, 1), (2, 3), (4, 5)], rng(100 + r)
    )
    assert out.n_fit == tasks[0].X_train.shape[0]
    net = representation_shift.make_network(
        "mlp",
        n_in=10,
        width=w,
        depth=2,
        n_tasks=3,
        seed=int(rng(200 + r).integers(2**31)),
    )
    with representation_shift.single_threaded():
        rows, _ = representation_shift.measure_stream(
            net,
            tasks,
            epochs=1,
            lr=0.05,
            momentum=0.9,
            batch_size=16,
            generator=rngs()["torch_rng_for"](300 + r),
            eval_tasks=2,
            noise_std=0.5,
            noise_rng=rng(400 + r),
        )
    mine = df[(df.width == w) & (df.rep == r)].drop(columns=["width", "rep", "Dn"])
    assert mine.to_dict("records") == rows
    # the same generators give the same stream; extra measures become columns
    again = representation_shift.main_stream(
        X, y, MAIN, n_in=10, extra={"twice": lambda a, b: 2.0}, **rngs()
    )
    assert again.rows.drop(columns="twice").equals(df)
    assert (again.rows.twice == 2.0).all()
    with pytest.raises(ValueError, match="sizes lacks \\['probe_noise'\\]"):
        sizes = {k: v for k, v in MAIN.items() if k != "probe_noise"}
        representation_shift.main_stream(X, y, sizes, n_in=10, **rngs())
    with pytest.raises(TypeError, match="rng_for must be a callable, got int"):
        representation_shift.main_stream(
            X, y, MAIN, n_in=10, rng_for=0, torch_rng_for=torch.Generator
        )


LONG = dict(
    long_tasks=3,
    long_widths=[4, 5],
    depth=2,
    seeds=2,
    long_per_task=60,
    long_epochs=1,
    lr=0.05,
    momentum=0.9,
    batch=16,
)


def test_long_stream_is_first_task_drift_per_width_and_replicate():
    X, y = tiny_data(n=40, n_classes=4)
    drift = representation_shift.long_stream(X, y, LONG, **rngs(3))
    assert sorted(drift) == [(4, 0), (4, 1), (5, 0), (5, 1)]
    assert drift[4, 0]["D"].shape == (2, 2)
    r, w, rng = 1, 5, rngs(3)["rng_for"]
    tasks = representation_shift.permuted_tasks(X, y, 3, rng(500 + r), n_per_task=60)
    net = representation_shift.make_network(
        "mlp",
        n_in=10,
        width=w,
        depth=2,
        n_tasks=3,
        n_classes=10,
        seed=int(rng(600 + r).integers(2**31)),
    )
    with representation_shift.single_threaded():
        direct = representation_shift.first_task_drift(
            net,
            tasks,
            epochs=1,
            lr=0.05,
            momentum=0.9,
            batch_size=16,
            generator=rngs(3)["torch_rng_for"](700 + r),
        )
    for key in ("D", "R", "own_acc", "first_acc"):
        np.testing.assert_array_equal(drift[w, r][key], direct[key])
    with pytest.raises(ValueError, match="sizes lacks \\['long_tasks'\\]"):
        sizes = {k: v for k, v in LONG.items() if k != "long_tasks"}
        representation_shift.long_stream(X, y, sizes, **rngs())


# --- what each claim reads -------------------------------------------------------------
def synthetic_rows(widths=(8, 16), reps=3, T=4, depth=3):
    rows = []
    for w in widths:
        for r in range(reps):
            for t in range(T - 1):
                for dt in range(1, T - t):
                    for k in range(1, depth + 1):
                        D = k * dt * (1 + 0.1 * r) * 8 / w
                        rows.append(
                            dict(width=w, rep=r, t=t, dt=dt, k=k, D=D, sigma=2 * D)
                            | dict(R=float(k), D_held=1.5 * D, P2_before=1.0)
                            | dict(Pn_before=0.8, dP2=0.5 * D, dPn=2 * D)
                        )
    df = pd.DataFrame(rows)
    df["Dn"] = df.D / df.R
    return df


def test_depth_width_growth_and_surrogate_known_answers():
    df = synthetic_rows()
    d = representation_shift.depth_trend(
        df, n_tasks=4, widths=[8, 16], layers=[1, 2, 3]
    )
    assert d.rho_D == {"W=8": 1.0, "W=16": 1.0}  # D grows with k
    assert np.isnan(d.rho_Dn["W=8"])  # D/‖R‖ is the same in every layer
    assert set(d.final.dt) == {3} and set(d.final.t) == {0}
    e = representation_shift.width_effect(d.final, widths=[8, 16], n_fit=100)
    # D/‖R‖ = 3 (1 + 0.1 r) · 8 / w: W = 8 minus W = 16 is 1.5 (1 + 0.1 r)
    np.testing.assert_allclose(e.gain, [1.5, 1.65, 1.8])
    np.testing.assert_allclose(e.held_gain, 1.5 * e.gain)
    assert e.seeds_ok == 3 and (e.lo, e.hi) == (8, 16)
    assert e.deflate[8] == pytest.approx(np.sqrt(1 - 8 / 100))
    g = representation_shift.growth(
        df, d.final, horizon=3, widths=[8, 16], layers=[1, 2, 3], seeds=3
    )
    # D/‖R‖ = dt (1 + 0.1 r) · 8 / w: the slope per task is (1 + 0.1 r) · 8 / w
    np.testing.assert_allclose(g.slopes[8], [1.0, 1.1, 1.2])
    assert g.rising == {"W=8": 3, "W=16": 3} and g.horizon == 3
    assert representation_shift.short_noisy(g) == []
    s = representation_shift.surrogate(df, widths=[8, 16])
    assert s.r_noisy == pytest.approx({"W=8": 1.0, "W=16": 1.0})
    assert s.r_clean == pytest.approx({"W=8": 1.0, "W=16": 1.0})
    assert s.before == pytest.approx({"W=8": 0.8, "W=16": 0.8})
    assert s.moves["noisy"] == pytest.approx(4 * s.moves["clean"])
    with pytest.raises(ValueError, match="horizon must be an int ≥ 2, got 1"):
        representation_shift.growth(
            df, d.final, horizon=1, widths=[8], layers=[1], seeds=3
        )


def synthetic_drift(widths=(4, 8), reps=3, n_tasks=32, depth=3):
    dts = np.arange(1.0, n_tasks)
    out = {}
    for w in widths:
        for r in range(reps):
            # deeper layers saturate sooner; wider networks later
            rate = (
                (w / 4) ** 3 * (1 + 0.1 * r) * np.array([4.0, 3.0, 2.0])[:depth, None]
            )
            D = 1 - np.exp(-dts[None, :] / rate)
            out[w, r] = dict(D=D, R=np.ones(depth), own_acc=np.full(n_tasks, 0.9))
    return out


def test_saturation_reads_the_long_stream():
    drift = synthetic_drift()
    s = representation_shift.saturation(
        drift, widths=[4, 8], layers=[1, 2, 3], seeds=3, n_tasks=32, bound=0.1
    )
    assert s.levelled == [4]  # the wider network is still rising at the end
    expect = representation_shift.saturation_time(drift[4, 1]["D"][0], interpolate=True)
    assert s.tau_seed[4, 1][0] == pytest.approx(expect)
    assert np.all(s.depth_gain[4] > 0)  # τ falls with depth in every seed
    assert np.all(s.tau_gain > 0)  # and is larger at the wider width
    assert s.rho_tau == {4: -1.0, 8: -1.0}
    assert s.rho_tau_seed["W=4 seed 0"] == -1.0 and len(s.rho_tau_seed) == 6
    assert s.own_acc == {"W=4": pytest.approx(0.9), "W=8": pytest.approx(0.9)}
    assert s.m_tail == 10 and s.dts[-1] == 31 and (s.lo, s.hi) == (4, 8)
    lines = representation_shift.saturation_lines(s)
    assert "(levelled off)" in lines[2] and "(> 0.1: not judged)" in lines[4]
    assert any("equals, to three decimals, the drift of log" in x for x in lines)


# --- the lines and notes the chapter prints --------------------------------------------
def test_notes_and_the_numerics_line_read_the_record():
    drift = synthetic_drift()
    s = representation_shift.saturation(
        drift, widths=[4, 8], layers=[1, 2, 3], seeds=3, n_tasks=32, bound=0.1
    )
    assert representation_shift.note_3c(None, "changed") == "changed"
    nc = "not checked at this scale"
    record = dict(
        commit="abc",
        environments=["reference", "avx2"],
        claims=[
            dict(
                id="3c",
                verdicts={"reference": nc, "avx2": "within noise"},
                values={
                    "drift over the last third, W=8": dict(
                        reference=0.12, difference=0.05
                    )
                },
            ),
            dict(id="3b", verdicts={"reference": "within noise", "avx2": nc}),
        ],
    )
    assert representation_shift.note_3c(record, "changed") == (
        "changed; its gate is met in the numerics record's avx2 and unmet in its "
        "reference environments (the drift at the widest width moves across the bound)"
    )
    line = representation_shift.numerics_drift_line(s, record)
    assert line.startswith("Numerics record (abc): W = 8's drift is 0.120")
    assert "enough to cross the bound 0.1" in line
    assert (
        "claim 3b's gate is unmet in avx2; claim 3c's gate is unmet in reference"
        in line
    )
    assert "not in the record" in representation_shift.numerics_drift_line(s, None)


def test_surrogate_note_and_reading():
    df = synthetic_rows()
    s = representation_shift.surrogate(df, widths=[8, 16])
    note = representation_shift.note_4(s, bar=0.5, strong=0.7, changed="c")
    assert note.startswith("c; shown, not judged: r clears 0.5 on the noisy probe")
    assert "above 0.5 at every width" in note and "2 of 2 widths pass" in note
    text = representation_shift.surrogate_reading(s, bar=0.5, strong=0.7)
    assert text.startswith("Pooled r 1.00–1.00;")
    assert all(isinstance(x, str) for x in representation_shift.surrogate_lines(s))


def test_paired_k_line_reads_the_ledger():
    run = setup(
        scale="quick",
        seed=0,
        sizes={"quick": {}, "full": {}},
        chapter="99_demo",
        quiet=True,
        style=False,
    )
    ledger = run.ledger
    gains = {"g": np.array([0.1, 0.5, 0.2])}
    ledger.check(
        "1",
        "a gain",
        paper="p",
        source="abstract",
        measured=gains,
        criterion=paired_gain("g", 0.0, k="t"),
    )
    line = representation_shift.paired_k_line(ledger, {"1": ["g"]})
    assert line.startswith(
        "Paired criteria with k = 2 and with the t quantile: claim 1:"
    )
    assert "k = 2 ✓" in line and ", t ≈" in line
