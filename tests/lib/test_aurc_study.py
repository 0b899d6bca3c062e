"""The closed-form simulations and claim 5's study on trained models (`repbook.papers.aurc`)."""

import numpy as np
import pandas as pd
import pytest

from repbook.papers import aurc


def rngs(n, base=0):
    return [np.random.default_rng(base + i) for i in range(n)]


# --- the closed-form model ----------------------------------------------------------------------
def test_reweighted_identity_matches_the_closed_form_and_the_draws():
    table = aurc.reweighted_identity([0.5, 2.0], 20_000, rngs(2, 7))
    assert list(table.closed_form) == pytest.approx([1 / 1.5**2, 1 / 9])
    assert np.all(np.abs(table.z) < 4)
    s, e = aurc.PowerErrorModel(2.0).sample(20_000, 1, np.random.default_rng(8))
    terms = e[0] * -np.log1p(-s[0])
    assert table.reweighted[1] == terms.mean()
    assert table.se[1] == terms.std(ddof=1) / np.sqrt(20_000)
    with pytest.raises(ValueError, match="betas and rngs must have the same length"):
        aurc.reweighted_identity([1.0], 100, rngs(2))
    with pytest.raises(ValueError, match="n must be an int ≥ 2, got 1"):
        aurc.reweighted_identity([1.0], 1, rngs(1))


def test_simulated_estimators_and_their_bias_table():
    model = aurc.PowerErrorModel(1.0)
    sims = aurc.simulate_estimators(model, [8, 64], 3200, rngs(2, 3))
    assert set(sims) == {8, 64}
    assert (
        len(sims[8]["SELE"]) == 400 and len(sims[64]["SELE"]) == 200
    )  # clipped at 200
    assert set(sims[8]) == set(aurc.NAMED) | {"classic (Geifman)"}
    s, e = model.sample(8, 400, np.random.default_rng(3))
    assert np.array_equal(sims[8]["ln plug-in"], aurc.plugin_aurc(e, s, "ln"))
    assert aurc.largest_mc_classic_gap(sims) < 1e-12  # MC plug-in = classic AURC
    table = aurc.bias_table(model, sims)
    assert len(table) == 2 * len(aurc.NAMED)
    row = table[(table.n == 64) & (table.estimator == "SELE")].iloc[0]
    assert row.bias == pytest.approx(model.expected_estimate(64, "sele") - model.aurc())
    assert row.sim_mean == sims[64]["SELE"].mean()
    assert row.z == pytest.approx((row.sim_mean - row.exact_mean) / row.se)
    assert np.all(np.abs(table.z) < 5)
    with pytest.raises(ValueError, match="n_grid and rngs must have the same length"):
        aurc.simulate_estimators(model, [8, 16], 100, rngs(1))


# --- claim 5's study ----------------------------------------------------------------------------
@pytest.fixture(scope="module")
def small_study():
    pools = aurc.synthetic_pools(600, 400, seed=0)
    from sklearn.linear_model import LogisticRegression

    logistic = LogisticRegression(max_iter=1000).fit(*pools.train)
    models = aurc.trained_models(*pools.train, seed=0, logistic=logistic)
    batches = aurc.batch_indices(
        [16, 64], 20, 400, child_rng=lambda s: np.random.default_rng(s), stream=5
    )
    study = aurc.model_study(models, pools, batches, peer_reps=3)
    return pools, models, batches, study


def test_synthetic_pools_and_models(small_study):
    pools, models, _, _ = small_study
    (Xt, _), (Xa, ya), (Xb, _) = pools.train, pools.a, pools.b
    assert Xt.shape == (600, 20) and Xa.shape == Xb.shape == (400, 20)
    assert np.allclose(Xt.mean(0), 0, atol=1e-9) and set(np.unique(ya)) == set(range(5))
    again = aurc.synthetic_pools(600, 400, seed=0)
    assert np.array_equal(again.b[0], Xb)
    assert list(models) == [
        "logistic regression",
        "MLP",
        "random forest",
        "naive Bayes",
    ]
    assert models["random forest"][1] is None and models["MLP"][1] is not None
    with pytest.raises(ValueError, match="n_pool must be a positive int, got 0"):
        aurc.synthetic_pools(10, 0, seed=0)


def test_pool_identity_known_answer():
    # one error at the highest score: area = mean over k of (top-k risk) = (1/1 + ...)/n
    errors, scores = np.array([0.0, 0.0, 1.0]), np.array([0.1, 0.2, 0.9])
    area, reweighted = aurc.pool_identity(errors, scores, np.array([0.15, 0.5, 0.95]))
    assert area == pytest.approx(aurc.empirical_aurc(errors, scores))
    # G(0.9) from the reference pool: 2 of 3 below, over 3 + 1
    assert reweighted == pytest.approx(-np.log(1 - 2 / 4) / 3)


def test_batch_indices(small_study):
    _, _, batches, _ = small_study
    assert batches[16].shape == (20, 16) and batches[64].shape == (20, 64)
    first = np.random.default_rng(5 + 1000 + 3).choice(400, 64, replace=False)
    assert np.array_equal(batches[64][3], first)
    assert all(len(set(b)) == len(b) for b in batches[64])
    with pytest.raises(TypeError, match="child_rng must be callable"):
        aurc.batch_indices([4], 2, 10, child_rng=3, stream=0)


def test_model_study_and_consistency(small_study):
    pools, models, batches, study = small_study
    assert set(study.population.model) == set(models)
    assert set(study.batches.n) == {16, 64}
    assert len(study.peers) == len(models) * 2 * 3  # MSP only, 3 batches per size
    name = "naive Bayes: MSP"
    errs_a, scores_a = aurc.errors_and_scores(models["naive Bayes"][0], *pools.a)
    errs_b, scores_b = aurc.errors_and_scores(models["naive Bayes"][0], *pools.b)
    assert study.pool_gap[name] == pytest.approx(
        abs(
            aurc.plugin_aurc(errs_a, scores_a["MSP"])
            - aurc.plugin_aurc(errs_b, scores_b["MSP"])
        )
    )
    con = aurc.consistency(study, min_gap=0.002)
    assert 0 <= con.ordered <= con.compared
    key = ("MLP", "MSP", "MC plug-in")
    b = study.batches.set_index(["model", "csf", "estimator", "n"])
    assert con.rmse_ratio[key] == pytest.approx(
        b.loc[(*key, 64), "rmse"] / b.loc[(*key, 16), "rmse"]
    )
    assert con.end_gap[key] == pytest.approx(
        abs(b.loc[(*key, 64), "mean"] - b.loc[(*key, 64), "population"])
    )
    assert set(con.ranking) == {"MC estimate", "population"}
    assert con.ranking["MC estimate"]["MLP: MSP"] == b.loc[(*key, 64), "mean"]


def test_peer_side_by_side():
    peers = pd.DataFrame(
        {
            "model": ["b", "b", "a"],
            "n": [16, 16, 16],
            "population": [0.1, 0.1, 0.2],
            **{p: [0.1, 0.2, 0.3] for p in aurc.PEERS},
        }
    )
    peers["torch-uncertainty"] = [0.15, 0.2, 0.1]
    side, tu, mc = aurc.peer_side_by_side(peers)
    assert list(side.columns) == ["population", *aurc.PEERS]
    assert side.loc[("b", 16), "SELE"] == pytest.approx(0.15)
    assert tu[16] == pytest.approx(0.2) and list(mc.index) == ["b", "a"]


def test_finetune_result_table():
    res = aurc.FineTuneResult(
        np.array([0, 1]),
        np.array([0.2, 0.3]),
        np.array([0.1, 0.35]),
        np.array([0.9, 0.8]),
        np.array([0.91, 0.79]),
        np.array([10, 20]),
    )
    table = res.table()
    assert table.index.name == "seed" and list(table.index) == [0, 1]
    assert list(table.gain) == pytest.approx([0.1, -0.05])
    assert list(table["test errors, CE"]) == [10, 20]
