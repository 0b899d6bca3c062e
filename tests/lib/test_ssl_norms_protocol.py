"""The chapter's protocols (one per claim) and the readings (printed lines) of ssl_norms."""

import numpy as np
import pytest
import torch

from repbook.papers import ssl_norms


def gen(seed=0):
    return torch.Generator().manual_seed(seed)


def rng_for(k):
    return np.random.default_rng([0, int(k)])


def gen_for(k):
    return torch.Generator().manual_seed(int(k))


def history(knn, norm, steps=None, loss=None):
    knn, norm = np.asarray(knn, float), np.asarray(norm, float)
    steps = np.arange(len(knn)) * 10 if steps is None else np.asarray(steps)
    loss = np.ones(5) if loss is None else np.asarray(loss)
    return ssl_norms.TrainHistory(loss, loss, steps, knn, norm)


# --- claim 1 -----------------------------------------------------------------------------------
def test_gradient_study_meets_the_exact_law():
    s = ssl_norms.gradient_study(60, np.random.default_rng(1), n_loss=16)
    assert s.z.shape == (60, 64) and s.grad.shape == (60, 64)
    assert s.rel_autograd < 1e-10 and s.orth < 1e-10 and s.sin_gap < 1e-10
    assert set(s.scale_err) == {(k, p) for k in ssl_norms.LOSSES for p in (0.0, 1.0)}
    assert max(s.scale_err.values()) < 1e-9
    assert len(s.curves) == 4 * 13 and set(s.curves.columns) == {
        "loss",
        "power",
        "alpha",
        "grad",
    }
    norms = s.z.norm(dim=1)
    assert float(norms.min()) >= 1e-3 * (1 - 1e-9) and float(norms.max()) <= 1e3 * (
        1 + 1e-9
    )
    again = ssl_norms.gradient_study(60, np.random.default_rng(1), n_loss=16)
    assert torch.equal(s.z, again.z) and s.scale_err == again.scale_err
    lines = ssl_norms.gradient_lines(s)
    assert lines[0].startswith("(a) max relative error analytic vs autograd: ")
    assert lines[3].startswith("    InfoNCE          p = 0: ")


def test_loss_gradient_scales_as_one_over_the_norm():
    z1 = torch.randn(6, 5, generator=gen(2), dtype=torch.float64)
    z2 = torch.randn(6, 5, generator=gen(3), dtype=torch.float64)
    g1 = ssl_norms.loss_gradient("negative cosine", z1, z2, 0.0)
    g10 = ssl_norms.loss_gradient("negative cosine", 10 * z1, z2, 0.0)
    torch.testing.assert_close(g10, g1 / 10)
    with pytest.raises(ValueError, match="kind must be one of 'InfoNCE'"):
        ssl_norms.loss_gradient("hinge", z1, z2, 0.0)
    with pytest.raises(TypeError, match="rng must be a numpy.random.Generator"):
        ssl_norms.gradient_study(10, 0)


# --- claims 2a–2c --------------------------------------------------------------------------------
def test_toy_study_by_hand():
    s = ssl_norms.toy_study([1.0, 2.0, 4.0], 3, n=30, d=6, rng_for=rng_for)
    a, b = ssl_norms.random_pairs(30, 6, norm=2.0, rng=rng_for(201))
    res = ssl_norms.align_pairs(a, b, lr=10.0, eps=1e-3)
    assert s.by_norm.steps[1] == res.steps
    assert list(s.by_norm.norm) == [1.0, 2.0, 4.0] and len(s.by_angle) == 3
    assert s.min_increment >= -1e-12
    expect = np.polyfit(np.log([1.0, 2.0, 4.0]), np.log(s.by_norm.steps), 1)[0]
    assert s.slope == pytest.approx(expect, rel=1e-12) and 1.5 < s.slope < 2.5
    assert s.by_angle.angle.is_monotonic_increasing
    lines = ssl_norms.toy_lines(s)
    assert lines[1] == f"log-log slope of steps on r (r ≥ 1): {s.slope:.3f}"
    with pytest.raises(TypeError, match="rng_for must be a callable"):
        ssl_norms.toy_study([1.0], 2, n=5, d=3, rng_for=None)


# --- claims 2d and 3: tuning and training --------------------------------------------------------
@pytest.fixture(scope="module")
def small():
    g = gen(5)
    X = torch.rand(96, 784, generator=g)
    y = torch.arange(96) % 4
    protocol = ssl_norms.SimCLRProtocol(
        data=X[:64],
        bank=(X[:32], y[:32]),
        init_generator=lambda s: gen_for(2000 + s),
        train_generator=lambda s: gen_for(1000 + s),
        steps=4,
        batch_size=16,
        warmup=0,
        eval_every=2,
        aug=dict(erase=0.0, noise=0.05),
    )
    variants = {"default": dict(c=1.0, power=0.0), "cut": dict(c=3.0, power=0.0)}
    variants["scale"] = dict(c=1.0, power=1.0)
    trained = ssl_norms.tune_and_train(
        protocol,
        variants,
        follows={"cut": "default"},
        grid=[0.01, 0.03],
        max_extensions=0,
        tune_seed=2,
        tune_steps=4,
        validation=(X[64:80], y[64:80]),
        seeds=2,
        queries=(X[80:], y[80:]),
    )
    return X, y, protocol, variants, trained


def test_tune_and_train_follows_and_reproduces(small):
    X, y, protocol, variants, trained = small
    assert list(trained.brackets) == ["default", "scale"]
    assert list(trained.best_lr) == ["default", "scale", "cut"]
    assert trained.best_lr["cut"] == trained.best_lr["default"]
    assert trained.bracketed["cut"] == trained.bracketed["default"]
    assert set(trained.histories) == {(v, s) for v in variants for s in range(2)}
    _, h = protocol.run(
        1, trained.best_lr["scale"], power=1.0, queries=(X[80:], y[80:])
    )
    np.testing.assert_array_equal(h.knn, trained.histories["scale", 1].knn)
    assert set(trained.tuning.method) == {"default", "scale"}
    assert len(trained.curves) == 6 * 3  # 6 runs, evaluations at steps 0, 2, 4
    lines = ssl_norms.tuning_lines(trained, ["default", "scale"], 16)
    assert lines[-1].startswith("chosen learning rates: default ")
    assert lines[-1].endswith("; cut-init at the default's rate")
    with pytest.raises(ValueError, match="follows names variants"):
        ssl_norms.tune_and_train(
            protocol,
            variants,
            follows={"x": "default"},
            grid=[0.01, 0.03],
            max_extensions=0,
            tune_seed=2,
            tune_steps=4,
            validation=None,
            seeds=1,
            queries=None,
        )


def test_norm_growth_by_hand():
    histories = {
        ("d", 0): history([0.5, 0.6, 0.7], [1.0, 3.0, 2.0]),
        ("d", 1): history([0.5, 0.6, 0.7], [2.0, 2.5, 3.0]),
        ("c", 0): history([0.5, 0.6, 0.7], [0.5, 1.0, 1.0]),
        ("c", 1): history([0.5, 0.6, 0.7], [0.5, 1.0, 1.0]),
    }
    g = ssl_norms.norm_growth(histories, 2, default="d", cut="c")
    np.testing.assert_allclose(g.growth, [2.0, 1.5])
    np.testing.assert_allclose(g.peak_growth, [3.0, 1.5])
    np.testing.assert_allclose(g.peak, [1.5, 1.0])
    assert g.shrink == pytest.approx(3.0)
    assert g.trends[1][0] == pytest.approx(1.0)


def test_decays_and_the_weight_decay_sweep(small):
    X, y, protocol, variants, trained = small
    assert ssl_norms.decays_for([0.0, 1.0], lr=0.1, steps=10) == [
        0.0,
        pytest.approx(0.1),
    ]
    sweep = ssl_norms.weight_decay_sweep(
        protocol, 0.01, [0.0, 1.0], steps=4, seeds=2, queries=(X[80:], y[80:])
    )
    assert (
        list(sweep.effective) == [0.0, 0.0, 1.0, 1.0] and list(sweep.seed) == [0, 1] * 2
    )
    by_seed = ssl_norms.final_norms_by_seed(sweep)
    assert list(by_seed) == [f"final ‖z‖ by effective decay, seed {s}" for s in (0, 1)]
    assert list(by_seed["final ‖z‖ by effective decay, seed 1"]) == ["0", "1"]
    lines = ssl_norms.decay_lines(sweep, lr=0.01, steps=4)
    assert lines[0].startswith("decays λ for the effective decays 0 → 0, 1 → ")
    assert lines[0].endswith("(η = 0.01, T = 4)")


def test_target_study_by_hand():
    histories = {
        ("default", 0): history([0.5, 0.6, 0.9], [1, 1, 1]),
        ("fast", 0): history([0.5, 0.8, 0.9], [1, 1, 1]),
        ("default", 1): history([0.4, 0.5, 0.8], [1, 1, 1]),
        ("fast", 1): history([0.4, 0.4, 0.5], [1, 1, 1]),
    }
    t = ssl_norms.target_study(
        histories, ["default", "fast"], 2, steps=20, eval_every=10, default="default"
    )
    np.testing.assert_allclose(t.target, [0.7, 0.6])
    assert t.never == 30
    assert t.steps_to == {
        ("default", 0): 20,
        ("fast", 0): 10,
        ("default", 1): 20,
        ("fast", 1): 30,
    }
    np.testing.assert_array_equal(t.saved["fast"], [10, -10])
    assert list(t.table.reached) == [True, True, True, False]
    assert t.summary.loc["fast", "reached"] == 1
    lines = ssl_norms.target_lines(
        t, steps=20, peak_growth=np.array([1.5, 2.0]), bracketed={"default": True}
    )
    assert lines[2] == "steps saved by fast per seed (default − variant): [ 10. -10.]"
    assert lines[-1].endswith("(needs ≥ 1.414); rates bracketed: default yes")


# --- claims 4a–4d --------------------------------------------------------------------------------
def test_familiarity_study(small):
    X, y, protocol, variants, trained = small
    model = protocol.encoder_for(0)
    models = [protocol.encoder_for(s) for s in range(2)]
    f = ssl_norms.familiarity_study(
        model,
        X[32:],
        y[32:] + 3,
        models=models,
        bank=(X[:32], y[:32]),
        rng_for=rng_for,
        n_boot=50,
    )
    assert set(f.norms) == {"seen digits", "unseen classes", "scrambled pixels"}
    assert len(f.norms["seen digits"]) == int((y[32:] + 3 < 5).sum())
    assert len(f.norms["scrambled pixels"]) == len(f.norms["seen digits"])
    for auc, lo, hi in f.aucs.values():
        assert 0 <= lo <= auc <= hi <= 1
    assert f.quintiles.shape == (2, 5)
    lines = ssl_norms.familiarity_lines(f)
    assert lines[0].startswith("unseen classes  : AUROC ")
    assert lines[-1].startswith("k-NN accuracy by norm quintile (1 = smallest norms)")


def test_seen_subset():
    X, y = torch.rand(6, 4), torch.tensor([0, 7, 3, 9, 1, 5])
    torch.testing.assert_close(ssl_norms.seen_subset(X, y), X[[0, 2, 4]])
    views = ssl_norms.AugmentedViews(torch.rand(2, 6, 4))
    assert len(ssl_norms.seen_subset(views, y)) == 3


def test_imbalance_study_shapes_and_reproducibility():
    kw = dict(
        runs=2, epochs=2, record_every=1, rng_for=rng_for, generator_for=gen_for, n=160
    )
    s = ssl_norms.imbalance_study([1, 2, 4, 8], **kw)
    assert s.norms.shape == (2, 3, 4) and list(s.epochs) == [0, 1, 2]
    np.testing.assert_array_equal(s.growth, s.norms[:, -1] - s.norms[:, 0])
    assert s.trend.slopes.shape == (2,)
    again = ssl_norms.imbalance_study([1, 2, 4, 8], **kw)
    np.testing.assert_array_equal(s.norms, again.norms)
    lines = ssl_norms.imbalance_lines(s, [1, 2, 4, 8])
    assert lines[0].startswith(
        "mean ‖z‖ growth per class (weights 1, 2, 4, 8), mean over runs: "
    )
    with pytest.raises(ValueError, match="runs must be an int ≥ 2, got 1"):
        ssl_norms.imbalance_study([1, 2], **{**kw, "runs": 1})


def test_growth_lines(small):
    X, y, protocol, variants, trained = small
    g = ssl_norms.norm_growth(trained.histories, 2, default="default", cut="cut")
    lines = ssl_norms.growth_lines(trained, g, list(variants))
    assert lines[1].startswith("default run, final / initial mean ‖z‖ per seed: [")
    assert lines[-1].startswith("cut-initialisation divides the initial mean ‖z‖ by ")
