"""The chapter's experiment protocols in `repbook.papers.aurc`: rate slopes, the estimator
study, pair ordering and the fine-tuning comparison."""

import numpy as np
import pytest
from sklearn.datasets import make_classification
from sklearn.linear_model import LogisticRegression

from repbook.papers import aurc as A


# --- rate slopes ---------------------------------------------------------------------------------
def test_loglog_slope_of_a_power_law():
    x = np.array([1.0, 2, 4, 8, 16])
    assert A.loglog_slope(x, 3 * x**-0.5) == pytest.approx(-0.5, abs=1e-12)


@pytest.mark.parametrize(
    "x, y, msg",
    [([1, 2], [1, -1], "positive"), ([1], [1], "≥ 2 points"), ([1, 2], [1], "shape")],
)
def test_loglog_slope_bad_inputs(x, y, msg):
    with pytest.raises(ValueError, match=msg):
        A.loglog_slope(x, y)


def test_normalised_rate_slope_signs():
    ns = 2.0 ** np.arange(3, 14)
    # exactly the paper's rate: the normalised error is constant, slope 0
    assert A.normalised_rate_slope(ns, np.sqrt(np.log(ns) / ns)) == pytest.approx(
        0.0, abs=1e-12
    )
    # 1/√n: normalised error falls like 1/√(ln n), a negative slope
    assert A.normalised_rate_slope(ns, ns**-0.5) < 0
    # n^(−1/3) or a floor: it grows
    assert A.normalised_rate_slope(ns, ns ** (-1 / 3)) > 0
    assert A.normalised_rate_slope(ns, ns**-0.5 + 0.01) > 0


def test_normalised_rate_slope_uses_only_n_at_least_n_min():
    ns = np.array([8.0, 16, 128, 256, 512, 1024])
    e = np.sqrt(np.log(ns) / ns)
    e[:2] = [10.0, 0.001]  # ignored below n_min
    assert A.normalised_rate_slope(ns, e, n_min=128) == pytest.approx(0.0, abs=1e-12)


def test_normalised_rate_slope_bad_inputs():
    with pytest.raises(ValueError, match="three sizes"):
        A.normalised_rate_slope([128, 256], [0.1, 0.05])
    with pytest.raises(ValueError, match="n_min"):
        A.normalised_rate_slope([1, 2, 3], [0.1, 0.1, 0.1], n_min=1)
    with pytest.raises(ValueError, match="shape"):
        A.normalised_rate_slope([128, 256, 512], [0.1, 0.05])


# --- the estimator study -------------------------------------------------------------------------
@pytest.fixture(scope="module")
def fitted():
    X, y = make_classification(
        n_samples=3000, n_features=8, n_informative=5, n_classes=3, random_state=0
    )
    model = LogisticRegression(max_iter=500).fit(X[:1000], y[:1000])
    return model, X, y


def test_errors_and_scores(fitted):
    model, X, y = fitted
    err, sc = A.errors_and_scores(model, X[1000:], y[1000:])
    np.testing.assert_array_equal(err, model.predict(X[1000:]) != y[1000:])
    assert set(sc) == {"MSP", "margin", "neg. entropy"}
    _, sc2 = A.errors_and_scores(
        model, X[1000:], y[1000:], lambda m, Z: m.decision_function(Z)
    )
    assert "max logit" in sc2
    with pytest.raises(ValueError, match="one row per sample"):
        A.errors_and_scores(model, X[1000:], y[1000:1500])


def test_estimator_study_matches_direct_computation(fitted):
    model, X, y = fitted
    pop = A.errors_and_scores(model, X[1000:2000], y[1000:2000])
    src = A.errors_and_scores(model, X[2000:], y[2000:])
    rng = np.random.default_rng(0)
    batches = {
        n: np.stack([rng.choice(1000, n, replace=False) for _ in range(5)])
        for n in (16, 64)
    }
    study = A.estimator_study("lr", pop, src, batches, peer_reps=2)
    assert len(study.population) == 3
    assert len(study.batches) == 3 * 2 * 3
    assert len(study.peers) == 2 * 2  # MSP only
    row = next(
        r
        for r in study.batches
        if r["csf"] == "margin" and r["n"] == 64 and r["estimator"] == "ln plug-in"
    )
    truth = A.plugin_aurc(pop[0], pop[1]["margin"])
    x = A.plugin_aurc(src[0][batches[64]], src[1]["margin"][batches[64]], "ln")
    assert row["population"] == pytest.approx(truth)
    assert row["mean"] == pytest.approx(x.mean())
    assert row["rmse"] == pytest.approx(np.sqrt(np.mean((x - truth) ** 2)))
    peer = study.peers[0]
    assert peer["MC plug-in"] == pytest.approx(peer["classic (Geifman)"], abs=1e-12)
    assert "torch-uncertainty" not in peer


def test_estimator_study_whole_pool_batch_has_zero_rmse(fitted):
    model, X, y = fitted
    pool = A.errors_and_scores(model, X[1000:1200], y[1000:1200])
    study = A.estimator_study("lr", pool, pool, {200: np.arange(200)[None, :]})
    mc = [r for r in study.batches if r["estimator"] == "MC plug-in"]
    assert all(r["rmse"] == pytest.approx(0.0, abs=1e-15) for r in mc)


def test_estimator_study_bad_inputs(fitted):
    model, X, y = fitted
    pool = A.errors_and_scores(model, X[1000:1200], y[1000:1200])
    with pytest.raises(ValueError, match=r"must be \(reps, 16\)"):
        A.estimator_study("lr", pool, pool, {16: np.zeros((3, 8), int)})
    with pytest.raises(ValueError, match="outside the source pool"):
        A.estimator_study("lr", pool, pool, {2: np.array([[0, 500]])})
    with pytest.raises(ValueError, match="exceeds"):
        A.estimator_study("lr", pool, pool, {2: np.array([[0, 1]])}, peer_reps=2)
    other = (pool[0], {"MSP": pool[1]["MSP"]})
    with pytest.raises(ValueError, match="same score functions"):
        A.estimator_study("lr", pool, other, {2: np.array([[0, 1]])})


def test_ordered_pairs():
    pop = {"a": 0.1, "b": 0.2, "c": 0.3, "d": 0.301}
    assert A.ordered_pairs(pop, pop, min_gap=0.002) == (5, 5)
    est = {"a": 0.1, "b": 0.35, "c": 0.3, "d": 0.0}
    # pairs (a,b) ok, (a,c) ok, (a,d) wrong, (b,c) wrong, (b,d) wrong; (c,d) not compared
    assert A.ordered_pairs(pop, est, min_gap=0.002) == (2, 5)
    with pytest.raises(ValueError, match="same keys"):
        A.ordered_pairs(pop, {"a": 1.0})


# --- the fine-tuning comparison ------------------------------------------------------------------
@pytest.fixture(scope="module")
def small_task():
    X, y = make_classification(
        n_samples=1600, n_features=6, n_informative=4, n_classes=3, random_state=1
    )
    X = (X - X.mean(0)) / X.std(0)
    return X[:600], y[:600], X[600:], y[600:]


def test_finetune_comparison_is_seeded_and_consistent(small_task):
    p = A.FineTuneProtocol(hidden=16, n_train=300, pre_epochs=3, ft_epochs=2)
    a = A.finetune_comparison(*small_task, seeds=[0, 1], protocol=p, key=7)
    b = A.finetune_comparison(*small_task, seeds=[0, 1], protocol=p, key=7)
    np.testing.assert_array_equal(a.aurc_ce, b.aurc_ce)
    np.testing.assert_array_equal(a.aurc_aurc, b.aurc_aurc)
    np.testing.assert_allclose(a.gain, a.aurc_ce - a.aurc_aurc)
    assert a.aurc_ce[0] != a.aurc_ce[1]  # seeds differ
    np.testing.assert_array_equal(
        a.errors_ce, np.round((1 - a.accuracy_ce) * 1000).astype(int)
    )
    assert np.all((a.accuracy_ce > 0.5) & (a.accuracy_aurc > 0.5))  # it learned


def test_finetune_without_finetuning_epochs_gives_identical_arms(small_task):
    p = A.FineTuneProtocol(hidden=16, n_train=300, pre_epochs=2, ft_epochs=0)
    r = A.finetune_comparison(*small_task, seeds=[3], protocol=p, key=0)
    np.testing.assert_array_equal(r.gain, [0.0])


def test_finetune_bad_inputs(small_task):
    Xa, ya, Xb, yb = small_task
    p = A.FineTuneProtocol(hidden=4, n_train=100, pre_epochs=0, ft_epochs=0)
    with pytest.raises(ValueError, match="exceeds"):
        A.finetune_comparison(
            Xa,
            ya,
            Xb,
            yb,
            seeds=[0],
            protocol=A.FineTuneProtocol(n_train=10_000),
            key=0,
        )
    with pytest.raises(ValueError, match="same features"):
        A.finetune_comparison(Xa, ya, Xb[:, :3], yb, seeds=[0], protocol=p, key=0)
    with pytest.raises(ValueError, match="one label per row"):
        A.finetune_comparison(Xa, ya[:5], Xb, yb, seeds=[0], protocol=p, key=0)
    with pytest.raises(ValueError, match="seeds"):
        A.finetune_comparison(Xa, ya, Xb, yb, seeds=[], protocol=p, key=0)
    for bad in [dict(hidden=0), dict(pre_epochs=-1), dict(lr=0.0), dict(momentum=1.0)]:
        with pytest.raises(ValueError):
            A.FineTuneProtocol(**bad)
