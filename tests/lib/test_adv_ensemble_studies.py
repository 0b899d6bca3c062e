"""The protocols of checks 1–4, claim 5c's terms and the readings (printed lines) of the chapter."""

import numpy as np
import pandas as pd
import pytest
import torch

from repbook.papers import adv_ensemble


def gen(seed=0):
    return torch.Generator().manual_seed(seed)


def rng_for(k):
    return np.random.default_rng([0, int(k)])


def gen_for(k):
    return torch.Generator().manual_seed(int(k))


STREAMS = dict(rng_for=rng_for, generator_for=gen_for)


# --- claim 1: the exact loss of 2-D regressors on a grid -------------------------------------------
@pytest.fixture(scope="module")
def study2d():
    return adv_ensemble.exact_study_2d(40, 6, 5, 0.1, **STREAMS, hidden=8, epochs=3)


def test_exact_study_maximises_over_the_grid(study2d):
    s = study2d
    assert s.offsets.shape == (25, 2) and s.outputs.shape == (2, 6, 25)
    assert set(np.unique(s.y)) <= {-1.0, 1.0}
    # the grid holds the centre (odd side): the exact maximum is at least the loss there
    centre = int(np.flatnonzero((s.offsets == 0).all(axis=1))[0])
    at_centre = (s.outputs.mean(0)[:, centre] - s.y) ** 2
    assert np.all(s.exact_ensemble >= at_centre - 1e-7)
    np.testing.assert_allclose(at_centre, (s.F.mean(0) - s.y) ** 2, rtol=1e-5)
    members = ((s.outputs - s.y[None, :, None]) ** 2).max(axis=2).mean(0)
    np.testing.assert_array_equal(s.exact_diversity, members - s.exact_ensemble)
    d = s.first_order
    np.testing.assert_array_equal(
        s.first_diversity, d.prediction + d.gradient + d.cross
    )
    gap = np.abs(s.first_diversity - s.exact_diversity)
    assert s.worst == int(np.argmax(gap))
    assert s.surface(s.worst).shape == (5, 5)
    assert s.surface(2).max() == pytest.approx(s.exact_ensemble[2])
    step = np.abs(s.first_order_step(s.worst))
    assert np.all(np.isclose(step, 0.1) | (step == 0))


def test_exact_study_is_reproducible_and_checks_its_inputs(study2d):
    again = adv_ensemble.exact_study_2d(40, 6, 5, 0.1, **STREAMS, hidden=8, epochs=3)
    np.testing.assert_array_equal(again.outputs, study2d.outputs)
    with pytest.raises(TypeError, match="rng_for must be a callable"):
        adv_ensemble.exact_study_2d(40, 6, 5, 0.1, rng_for=1, generator_for=gen_for)
    with pytest.raises(ValueError, match="epsilon must be a finite number ≥ 0"):
        adv_ensemble.exact_study_2d(40, 6, 5, -0.1, **STREAMS)


# --- checks 2–4: the binary task and its members ---------------------------------------------------
@pytest.fixture(scope="module")
def digits():
    g = np.random.default_rng(7)
    y = g.choice([3, 8, 1], size=90)
    X = g.random((90, 6)).astype(np.float32)
    X[:, 0] = np.where(y == 3, 0.9, 0.1)  # learnable
    return X, y


@pytest.fixture(scope="module")
def pair(digits):
    X, y = digits
    return adv_ensemble.pair_members(X, y, hidden=8, n_members=3, epochs=2, **STREAMS)


def test_pair_members_split_and_targets(pair, digits):
    X, y = digits
    both = np.flatnonzero((y == 3) | (y == 8))
    order = rng_for(4).permutation(both)
    n_train = int(0.6 * len(both))
    np.testing.assert_array_equal(pair.train_index, order[:n_train])
    np.testing.assert_array_equal(pair.test_index, order[n_train:])
    t = pair.y_reg["test"].numpy()
    np.testing.assert_array_equal(t, np.where(y[pair.test_index] == 3, 1.0, -1.0))
    np.testing.assert_array_equal(
        pair.y_bin["train"].numpy(), (pair.y_reg["train"] + 1) / 2
    )
    torch.testing.assert_close(pair.x_test, torch.tensor(X[pair.test_index]))
    assert len(pair.regressors) == len(pair.classifiers) == 3


def test_pair_members_are_fit_members_from_the_documented_streams(pair):
    init = rng_for(5).integers(0, 2**31, size=(2, 3))
    kw = dict(epochs=2, lr=3e-3, batch_size=64)
    clf = adv_ensemble.fit_members(
        (6, 8, 8, 1),
        init[1],
        pair.x_train,
        pair.y_bin["train"],
        loss="bce",
        generators=[gen_for(200 + k) for k in range(3)],
        **kw,
    )
    for a, b in zip(clf, pair.classifiers):
        for p, q in zip(a.parameters(), b.parameters()):
            torch.testing.assert_close(p, q, rtol=0, atol=0)


def test_pair_members_bad_inputs(digits):
    X, y = digits
    kw = dict(hidden=4, epochs=1, **STREAMS)
    with pytest.raises(ValueError, match="n_members must be a positive int, got 0"):
        adv_ensemble.pair_members(X, y, n_members=0, **kw)
    with pytest.raises(ValueError, match=r"train_share must be a number in \(0, 1\)"):
        adv_ensemble.pair_members(X, y, n_members=2, train_share=1.0, **kw)
    with pytest.raises(ValueError, match="same length"):
        adv_ensemble.pair_members(X, y[:5], n_members=2, **kw)


def test_member_terms_in_two_precisions(pair):
    terms = adv_ensemble.member_terms(pair.regressors, pair.x_test)
    assert terms.outputs.dtype == np.float32 and terms.outputs64.dtype == np.float64
    assert terms.gradients.shape == (3, len(pair.test_index), 6)
    np.testing.assert_allclose(terms.outputs64, terms.outputs, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(terms.gradients64, terms.gradients, rtol=1e-4, atol=1e-5)
    # the models themselves stay in float32
    assert all(p.dtype == torch.float32 for p in pair.regressors[0].parameters())


def test_ensemble_configs():
    configs = adv_ensemble.ensemble_configs(5, 3, 2, np.random.default_rng(1))
    assert [m for m, _ in configs] == [1, 1, 2, 2, 3, 3]
    for m, idx in configs:
        assert len(set(idx)) == m and list(idx) == sorted(idx) and idx.max() < 5
    again = adv_ensemble.ensemble_configs(5, 3, 2, np.random.default_rng(1))
    assert all(np.array_equal(a, b) for (_, a), (_, b) in zip(configs, again))
    with pytest.raises(ValueError, match=r"m_max must be an int in \[1, 5\], got 6"):
        adv_ensemble.ensemble_configs(5, 6, 1, np.random.default_rng(1))
    with pytest.raises(TypeError, match="rng must be a numpy.random.Generator"):
        adv_ensemble.ensemble_configs(5, 2, 1, 0)


def random_terms(m=4, n=30, d=5, seed=0, binary=False):
    g = np.random.default_rng(seed)
    F = g.normal(size=(m, n))
    G = g.normal(size=(m, n, d))
    y = (g.random(n) < 0.5).astype(float) if binary else g.choice([-1.0, 1.0], n)
    terms = adv_ensemble.MemberTerms(F.astype(np.float32), G.astype(np.float32), F, G)
    return terms, y


def test_regression_study_by_hand():
    terms, y = random_terms()
    configs = adv_ensemble.ensemble_configs(4, 3, 2, np.random.default_rng(2))
    study = adv_ensemble.regression_study(terms, y, configs, epsilon=0.1)
    assert list(study.table.m) == [1, 1, 2, 2, 3, 3]
    m, idx = configs[4]
    d = adv_ensemble.regression_decomposition(
        terms.outputs64[idx], terms.gradients64[idx], y, epsilon=0.1
    )
    assert study.table.cross[4] == pytest.approx(float(d.cross.mean()), rel=1e-12)
    assert len(study.cross) == 4 * 30  # the pairs of the ensembles with m ≥ 2
    s = study.summary
    assert s["max relative residual (float64)"] < 1e-12
    assert s["max relative residual (float32)"] < 1e-5
    assert s["share with cross < 0"] == np.mean(study.cross < 0)
    assert study.config_share == np.mean(study.table.cross[2:] < 0)
    with pytest.raises(ValueError, match="two or more members"):
        adv_ensemble.regression_study(terms, y, configs[:2], epsilon=0.1)


def test_binary_study_by_hand():
    terms, y = random_terms(binary=True, seed=3)
    configs = adv_ensemble.ensemble_configs(4, 3, 1, np.random.default_rng(4))
    study = adv_ensemble.binary_study(terms, y, configs, epsilon=0.1)
    assert study.summary["max relative residual (float64)"] < 1e-12
    assert study.geometric_residual < 1e-12 and study.geometric_min >= -1e-12
    assert study.code_gap < 1e-8  # the code's literal formulas give the same means
    assert study.summary["min KL term"] >= 0
    with pytest.raises(ValueError, match="two or more members"):
        adv_ensemble.binary_study(terms, y, configs[:1], epsilon=0.1)


# --- claim 5: the true-class terms and the tables --------------------------------------------------
@pytest.fixture(scope="module")
def comparison():
    g = gen(1)
    X = torch.rand(60, 6, generator=g)
    y = X[:, :4].argmax(1)
    methods = {
        name: adv_ensemble.METHODS[name] for name in list(adv_ensemble.METHODS)[:2]
    }
    kw = dict(n_seeds=2, num_classes=4, hidden=8, n_members=2, epochs=1, batch_size=32)
    kw |= dict(lr=0.05, epsilon=0.1, train_steps=1, eval_steps=2)
    return X, y, adv_ensemble.compare_methods(X, y, methods, **kw, **STREAMS)


def test_methods_table():
    m = adv_ensemble.METHODS
    assert m["independent PGD-AT"] == adv_ensemble.AdvMethod(0.0, 0.0)
    assert m["AdvEOAP (α=0.5)"].alpha == 0.5 and m["AdvEOAP (α=0.2)"].beta == 10.0
    assert m["ADP-style (clean predictions)"].diversity_on == "clean"


def test_true_class_table_rows(comparison):
    X, y, cmp = comparison
    rows = adv_ensemble.true_class_table(cmp, X, y, epsilon=0.1)
    keys = sorted(cmp.members)
    assert [(r["seed"], r["method"]) for r in rows] == keys
    te = cmp.test_index[1]
    dec, disp = adv_ensemble.classifier_true_class_terms(
        cmp.members[keys[-1]], X[te], y[te], epsilon=0.1
    )
    assert rows[-1]["cross"] == dec.means()["cross"] and rows[-1]["dispersion"] == disp
    assert all(0 <= r["dispersion"] <= 1 for r in rows)


def test_robust_by_run_and_scale_free_table(comparison):
    X, y, cmp = comparison
    base, ours = list(adv_ensemble.METHODS)[:2]
    robust = adv_ensemble.robust_by_run(cmp.rows, (base,))
    assert list(robust) == [f"{base}, seed 0", f"{base}, seed 1"]
    assert robust[f"{base}, seed 1"] == cmp.rows[2]["robust"]
    tc = adv_ensemble.true_class_table(cmp, X, y, epsilon=0.1)
    table = adv_ensemble.scale_free_table(cmp.rows, tc, [base, ours])
    assert list(table.index) == [base, ours]
    rows = pd.DataFrame(cmp.rows)
    mine = rows[rows.method == ours]
    expect = mine.cross.mean() / mine.average.mean()
    assert table.loc[ours, "one-hot sum cross ÷ average"] == pytest.approx(
        expect, rel=1e-12
    )


def test_peer_comparison_agrees_with_torchattacks(comparison):
    pytest.importorskip("torchattacks")
    X, y, cmp = comparison
    members = cmp.members[0, list(adv_ensemble.METHODS)[0]]
    gap, ours, peer = adv_ensemble.peer_comparison(members, X, y, epsilon=0.1, steps=3)
    assert gap < 1e-6 and ours == peer


# --- readings -------------------------------------------------------------------------------------
def test_paired_verdict_and_gain_reading():
    assert adv_ensemble.paired_verdict("g", [1.0, 1.1, 0.9]) == "reproduced"
    assert adv_ensemble.paired_verdict("g", [-1.0, -1.1, -0.9]) == "not reproduced"
    assert adv_ensemble.paired_verdict("g", [1.0, -1.0, 0.1]) == "within noise"
    line = adv_ensemble.gain_reading("gain", [1.0, 1.1, 0.9], digits=2, extra=", x")
    assert line.startswith(
        "gain: +1.00 ± 0.25 (t·SE, 3 seeds; positive on 3 of 3), x: "
    )
    assert line.endswith("beyond the noise in favour of AdvEOAP")


def test_direction_reading():
    text = adv_ensemble.direction_reading([-0.10, -0.11, -0.09])
    assert text.startswith(
        "5b's direction: transfer rose under AdvEOAP on 3 of 3 seeds"
    )
    assert "at or below the ✗ boundary" in text and "clear of ✗" in text


def test_sweep_reading():
    rows = [
        dict(
            eps=0.01,
            pgd_free=1.0,
            first=0.9,
            err_free=0.02,
            pgd_clamped=0.8,
            err_clamped=0.3,
            err_in_range=0.01,
        ),
        dict(
            eps=0.3,
            pgd_free=7.5,
            first=6.0,
            err_free=0.6,
            pgd_clamped=5.0,
            err_clamped=1.2,
            err_in_range=0.7,
        ),
    ]
    text = adv_ensemble.sweep_reading(rows)
    assert text.startswith(
        "Without clamping the mean relative error is 2.0% at ε = 0.01 "
    )
    assert (
        "PGD finds a mean loss of 7.500 against the first order's 6.000 (more" in text
    )
    assert text.endswith(
        "off by 30.0% already at ε = 0.01; the range-aware first order is "
        "off by 1.0% there."
    )


def test_study_lines(study2d, pair):
    lines = adv_ensemble.exact_lines(study2d)
    assert lines[0] == "6 points, ε = 0.1, grid 5×5:" and len(lines) == 3
    reg = adv_ensemble.member_terms(pair.regressors, pair.x_test)
    clf = adv_ensemble.member_terms(pair.classifiers, pair.x_test)
    lines = adv_ensemble.members_lines(pair, reg, clf)
    n_tr, n_te = len(pair.train_index), len(pair.test_index)
    assert lines[0] == f"{n_tr} training and {n_te} test points, input dimension 6"
    terms, y = random_terms()
    configs = adv_ensemble.ensemble_configs(4, 3, 2, np.random.default_rng(2))
    study = adv_ensemble.regression_study(terms, y, configs, epsilon=0.1)
    lines = adv_ensemble.regression_lines(study)
    assert lines[-1].endswith(f"{study.config_share:.0%} of 4")
    reading = adv_ensemble.cross_sign_reading(study)
    assert f"of the {len(study.cross):,} (ensemble, point) pairs" in reading[1]
    terms, yb = random_terms(binary=True, seed=3)
    lines = adv_ensemble.binary_lines(
        adv_ensemble.binary_study(terms, yb, configs, epsilon=0.1)
    )
    assert lines[2].startswith("geometric-mean reading: max relative residual")


def test_comparison_and_confidence_lines(comparison):
    X, y, cmp = comparison
    base, ours = list(adv_ensemble.METHODS)[:2]
    lines = adv_ensemble.comparison_lines(cmp.rows, ours, base)
    gains = adv_ensemble.paired_differences(cmp.rows, "robust", ours, base)
    assert lines[1].endswith(", ".join(f"{100 * v:+.2f}" for v in gains))
    tc = adv_ensemble.true_class_table(cmp, X, y, epsilon=0.1)
    text = adv_ensemble.confidence_reading(cmp.rows, tc, ours, base)
    rows = pd.DataFrame(cmp.rows)
    a = rows[rows.method == ours].average.mean()
    assert f"(average term) is {a:.4f} against the baseline's" in text[0]
    assert text[1] == "scale-free diagnostics (means over seeds; not judged):"
