"""The chapter's experiment protocols and the multi-class reading of the decomposition."""

import numpy as np
import pytest
import torch

from repbook.papers import adv_ensemble


def gen(seed=0):
    return torch.Generator().manual_seed(seed)


def rng_for(k):
    return np.random.default_rng([0, int(k)])


def gen_for(k):
    return torch.Generator().manual_seed(int(k))


@pytest.fixture(scope="module")
def toy():
    """A learnable 4-class problem in [0, 1]^6."""
    g = gen(1)
    X = torch.rand(80, 6, generator=g)
    y = X[:, :4].argmax(1)
    return X, y


# --- the decomposition on softmax outputs ---------------------------------------------------------
def test_multiclass_is_the_sum_of_per_class_regressions():
    rng = np.random.default_rng(3)
    m, n, K, d = 3, 7, 4, 5
    P = rng.dirichlet(np.ones(K), size=(m, n))
    J = rng.normal(size=(m, n, K, d))
    y = rng.integers(0, K, size=n)
    dec = adv_ensemble.multiclass_decomposition(P, J, y, epsilon=0.1)
    by_hand = {t: np.zeros(n) for t in ("ensemble", "average", "gradient", "cross")}
    for j in range(K):
        f, g, t = P[:, :, j], np.abs(J[:, :, j, :]).sum(-1), (y == j).astype(float)
        g_bar = np.abs(J[:, :, j, :].mean(0)).sum(-1)
        r, r_bar = np.abs(f - t), np.abs(f.mean(0) - t)
        by_hand["ensemble"] += (r_bar + 0.1 * g_bar) ** 2
        by_hand["average"] += ((r + 0.1 * g) ** 2).mean(0)
        by_hand["gradient"] += 0.01 * ((g**2).mean(0) - g_bar**2)
        by_hand["cross"] += 0.2 * ((g * r).mean(0) - g_bar * r_bar)
    for t, v in by_hand.items():
        np.testing.assert_allclose(getattr(dec, t), v, rtol=1e-12)
    assert np.max(np.abs(dec.residual)) < 1e-12
    assert np.all(dec.gradient >= -1e-12) and np.all(dec.prediction >= 0)


def test_identical_members_have_no_diversity():
    rng = np.random.default_rng(4)
    P = np.repeat(rng.dirichlet(np.ones(3), size=(1, 6)), 3, axis=0)
    J = np.repeat(rng.normal(size=(1, 6, 3, 2)), 3, axis=0)
    dec = adv_ensemble.multiclass_decomposition(
        P, J, rng.integers(0, 3, size=6), epsilon=0.2
    )
    for t in ("prediction", "gradient", "cross"):
        np.testing.assert_allclose(getattr(dec, t), 0, atol=1e-12)
    np.testing.assert_allclose(dec.ensemble, dec.average, rtol=1e-12)


def test_probability_jacobians_match_autograd_per_point():
    nets = [adv_ensemble.mlp((5, 7, 3), seed=k) for k in range(2)]
    x = torch.rand(4, 5, generator=gen(2))
    P, J = adv_ensemble.members_probabilities_and_jacobians(nets, x)
    assert P.shape == (2, 4, 3) and J.shape == (2, 4, 3, 5)
    np.testing.assert_allclose(P.sum(-1), 1, rtol=1e-6)
    for i, net in enumerate(nets):
        for k in range(4):
            jac = torch.autograd.functional.jacobian(
                lambda v: torch.softmax(net(v[None]), 1)[0], x[k]
            )
            np.testing.assert_allclose(J[i, k], jac.numpy(), rtol=1e-5, atol=1e-7)
    # each row of probabilities sums to 1, so the class gradients sum to 0
    np.testing.assert_allclose(J.sum(2), 0, atol=1e-6)


def test_classifier_decomposition_accepts_torch_labels_and_keeps_the_mode():
    nets = [adv_ensemble.mlp((5, 7, 3), seed=k) for k in range(2)]
    nets[0].train()
    nets[1].eval()
    x, y = torch.rand(6, 5, generator=gen(3)), torch.tensor([0, 1, 2, 0, 1, 2])
    dec = adv_ensemble.classifier_decomposition(nets, x, y, epsilon=0.1)
    assert dec.ensemble.shape == (6,) and nets[0].training and not nets[1].training
    same = adv_ensemble.classifier_decomposition(nets, x, y.numpy(), epsilon=0.1)
    np.testing.assert_array_equal(dec.cross, same.cross)


# --- the decomposition on the true-class probability ---------------------------------------------
def test_true_class_decomposition_by_hand():
    # two members, one point of class 0, K = 3, one input; only row y of the Jacobian counts
    P = np.array([[[0.5, 0.3, 0.2]], [[0.7, 0.1, 0.2]]])
    J = np.array([[[[2.0], [9.0], [-9.0]]], [[[-1.0], [5.0], [3.0]]]])
    dec = adv_ensemble.true_class_decomposition(P, J, np.array([0]), epsilon=0.1)
    # f = (0.5, 0.7), target 1: r = (0.5, 0.3), r̄ = 0.4; g = (2, 1), ḡ = |(2 − 1)/2| = 0.5
    by_hand = dict(
        ensemble=(0.4 + 0.1 * 0.5) ** 2,  # 0.2025
        average=((0.5 + 0.2) ** 2 + (0.3 + 0.1) ** 2) / 2,  # 0.325
        prediction=0.01,
        gradient=0.01 * ((4 + 1) / 2 - 0.25),  # 0.0225
        cross=0.2 * ((2 * 0.5 + 1 * 0.3) / 2 - 0.5 * 0.4),  # 0.09
    )
    for t, v in by_hand.items():
        np.testing.assert_allclose(getattr(dec, t), [v], rtol=1e-12)
    assert np.max(np.abs(dec.residual)) < 1e-15
    # 1 − ḡ² / mean g² = 1 − 0.25 / 2.5
    assert adv_ensemble.gradient_dispersion(J[:, :, 0, :]) == pytest.approx(
        0.9, rel=1e-12
    )


def test_true_class_agrees_with_the_scalar_decomposition():
    rng = np.random.default_rng(5)
    m, n, K, d = 3, 9, 4, 6
    P = rng.dirichlet(np.ones(K), size=(m, n))
    J = rng.normal(size=(m, n, K, d))
    y = rng.integers(0, K, size=n)
    dec = adv_ensemble.true_class_decomposition(P, J, y, epsilon=0.15)
    rows = np.arange(n)
    ref = adv_ensemble.regression_decomposition(
        P[:, rows, y], J[:, rows, y, :], np.ones(n), epsilon=0.15
    )
    for t in ("ensemble", "average", "prediction", "gradient", "cross"):
        np.testing.assert_array_equal(getattr(dec, t), getattr(ref, t))
    # with one class the one-hot sum would add the wrong-class terms; here they are absent
    full = adv_ensemble.multiclass_decomposition(P, J, y, epsilon=0.15)
    assert np.all(full.average >= dec.average - 1e-12)


def test_gradient_dispersion_is_scale_free_and_bounded():
    rng = np.random.default_rng(6)
    G = rng.normal(size=(3, 8, 5))
    disp = adv_ensemble.gradient_dispersion(G)
    assert 0.0 <= disp <= 1.0
    assert adv_ensemble.gradient_dispersion(7.5 * G) == pytest.approx(disp, rel=1e-12)
    assert adv_ensemble.gradient_dispersion(
        np.repeat(G[:1], 3, axis=0)
    ) == pytest.approx(0, abs=1e-12)
    with pytest.raises(ValueError, match="gradients must have shape"):
        adv_ensemble.gradient_dispersion(G[0])
    with pytest.raises(ValueError, match="all zero"):
        adv_ensemble.gradient_dispersion(np.zeros((2, 3, 4)))


def test_classifier_true_class_terms_match_the_array_form():
    nets = [adv_ensemble.mlp((5, 7, 3), seed=k) for k in range(3)]
    x, y = torch.rand(6, 5, generator=gen(4)), torch.tensor([0, 1, 2, 0, 1, 2])
    dec, disp = adv_ensemble.classifier_true_class_terms(nets, x, y, epsilon=0.1)
    P, J = adv_ensemble.members_probabilities_and_jacobians(nets, x)
    ref = adv_ensemble.true_class_decomposition(P, J, y.numpy(), epsilon=0.1)
    np.testing.assert_array_equal(dec.cross, ref.cross)
    rows = np.arange(6)
    assert disp == adv_ensemble.gradient_dispersion(J[:, rows, y.numpy(), :])


def test_multiclass_bad_inputs():
    P, J = np.full((2, 3, 4), 0.25), np.zeros((2, 3, 4, 5))
    y = np.array([0, 1, 3])
    with pytest.raises(ValueError, match="probs must have shape"):
        adv_ensemble.multiclass_decomposition(P[0], J, y, epsilon=0.1)
    with pytest.raises(ValueError, match="jacobians must have shape"):
        adv_ensemble.multiclass_decomposition(P, J[:, :, :3], y, epsilon=0.1)
    with pytest.raises(ValueError, match="one label per point"):
        adv_ensemble.multiclass_decomposition(P, J, y[:2], epsilon=0.1)
    with pytest.raises(ValueError, match="integer class labels in 0..3"):
        adv_ensemble.multiclass_decomposition(P, J, np.array([0, 1, 4]), epsilon=0.1)
    with pytest.raises(ValueError, match="integer class labels"):
        adv_ensemble.multiclass_decomposition(
            P, J, np.array([0.0, 1.0, 2.0]), epsilon=0.1
        )
    with pytest.raises(ValueError, match="epsilon must be a finite number"):
        adv_ensemble.multiclass_decomposition(P, J, y, epsilon=-1.0)
    with pytest.raises(ValueError, match="at least one model"):
        adv_ensemble.members_probabilities_and_jacobians([], torch.rand(3, 5))
    with pytest.raises(ValueError, match=r"x must have shape \(n, d\)"):
        adv_ensemble.members_probabilities_and_jacobians(
            [adv_ensemble.mlp((5, 3), seed=0)], torch.rand(5)
        )


# --- protocols -------------------------------------------------------------------------------------
def test_fit_members_trains_each_member_reproducibly(toy):
    X, y = toy
    kw = dict(loss="ce", epochs=3, lr=1e-2, batch_size=16)
    a = adv_ensemble.fit_members(
        (6, 8, 4), [1, 2], X, y, generators=[gen(5), gen(6)], **kw
    )
    b = adv_ensemble.fit_members(
        (6, 8, 4), [1, 2], X, y, generators=[gen(5), gen(6)], **kw
    )
    for u, v in zip(a, b):
        for p, q in zip(u.parameters(), v.parameters()):
            torch.testing.assert_close(p, q, rtol=0, atol=0)
    # member k equals mlp(sizes, seeds[k]) fitted alone with generators[k]
    alone = adv_ensemble.mlp((6, 8, 4), seed=2)
    adv_ensemble.fit(alone, X, y, generator=gen(6), **kw)
    for p, q in zip(a[1].parameters(), alone.parameters()):
        torch.testing.assert_close(p, q, rtol=0, atol=0)
    assert not a[0].training
    with pytest.raises(ValueError, match="one generator per member"):
        adv_ensemble.fit_members((6, 4), [1, 2], X, y, generators=[gen()], **kw)
    with pytest.raises(ValueError, match="at least one seed"):
        adv_ensemble.fit_members((6, 4), [], X, y, generators=[], **kw)


def test_pgd_sq_loss_is_at_least_the_clean_loss():
    net = adv_ensemble.mlp((3, 6, 1), seed=0)
    X, y = torch.rand(20, 3, generator=gen(1)), torch.randn(20, generator=gen(2))
    with torch.no_grad():
        clean = ((net(X).reshape(-1) - y) ** 2).numpy()
    adv = adv_ensemble.pgd_sq_loss(
        net, X, y, epsilon=0.1, steps=5, clip=None, generator=gen(3)
    )
    assert adv.shape == (20,) and np.all(adv >= clean - 1e-6)
    again = adv_ensemble.pgd_sq_loss(
        net, X, y, epsilon=0.1, steps=5, clip=None, generator=gen(3)
    )
    np.testing.assert_array_equal(adv, again)
    assert np.all(
        adv_ensemble.pgd_sq_loss(
            net, X, y, epsilon=0.0, steps=3, clip=None, generator=gen(3)
        )
        == pytest.approx(clean, rel=1e-6)
    )


def test_first_order_sweep_is_exact_for_a_linear_ensemble():
    nets = [adv_ensemble.mlp((4, 1), seed=k) for k in range(2)]
    X = torch.rand(15, 4, generator=gen(4)) * 0.6 + 0.2  # away from the range's edges
    y = torch.randn(15, generator=gen(5))
    rows = adv_ensemble.first_order_sweep(
        nets, X, y, [0.01, 0.1], steps=10, generator_for=gen_for
    )
    assert [r["eps"] for r in rows] == [0.01, 0.1]
    # a linear model: PGD reaches the corner the first order names
    assert rows[0]["err_free"] < 1e-4 and rows[1]["err_free"] < 1e-4
    # inside the range, the two first orders agree
    assert rows[0]["err_in_range"] < 1e-4
    with pytest.raises(ValueError, match="at least one radius"):
        adv_ensemble.first_order_sweep(nets, X, y, [], steps=2, generator_for=gen_for)
    with pytest.raises(TypeError, match="generator_for must be a callable"):
        adv_ensemble.first_order_sweep(nets, X, y, [0.1], steps=2, generator_for=3)


COMPARE = dict(
    n_seeds=2,
    num_classes=4,
    hidden=8,
    n_members=2,
    epochs=2,
    batch_size=32,
    lr=0.05,
    epsilon=0.1,
    train_steps=2,
    eval_steps=3,
)


@pytest.fixture(scope="module")
def comparison(toy):
    X, y = toy
    methods = {
        "indep": adv_ensemble.AdvMethod(0.0, 0.0),
        "oap": adv_ensemble.AdvMethod(0.5, 1.0),
    }
    return adv_ensemble.compare_methods(
        X, y, methods, rng_for=rng_for, generator_for=gen_for, **COMPARE
    )


def test_compare_methods_rows_and_shared_split(comparison, toy):
    X, _ = toy
    rows = comparison.rows
    assert [(r["seed"], r["method"]) for r in rows] == [
        (0, "indep"),
        (0, "oap"),
        (1, "indep"),
        (1, "oap"),
    ]
    for r in rows:
        for key in ("clean", "robust", "member_robust", "transfer"):
            assert 0.0 <= r[key] <= 1.0
        assert r["gradient"] >= 0 and r["prediction"] >= 0
        resid = r["ensemble"] - (
            r["average"] - r["prediction"] - r["gradient"] - r["cross"]
        )
        assert abs(resid) < 1e-5 * max(r["average"], 1.0)
    n_test = len(X) - int(0.6 * len(X))
    assert all(len(te) == n_test for te in comparison.test_index.values())
    assert not np.array_equal(comparison.test_index[0], comparison.test_index[1])
    assert len(comparison.transfers["oap"]) == 2
    assert len(comparison.members[1, "oap"]) == 2


def test_compare_methods_matches_a_loop_by_hand(comparison, toy):
    """Seed 1 of the independent baseline, rebuilt from the documented streams."""
    X, y = toy
    srng = rng_for(501)
    perm = srng.permutation(len(y))
    tr, te = perm[: int(0.6 * len(y))], perm[int(0.6 * len(y)) :]
    seeds = srng.integers(0, 2**31, size=2)
    nets = [adv_ensemble.mlp((6, 8, 4), seed=int(s)) for s in seeds]
    adv_ensemble.train_adv_ensemble(
        nets,
        X[tr],
        y[tr],
        num_classes=4,
        epochs=2,
        batch_size=32,
        lr=0.05,
        epsilon=0.1,
        steps=2,
        step_size=0.125,
        alpha=0.0,
        beta=0.0,
        generator=gen_for(501),
    )
    ens = adv_ensemble.Ensemble(nets).eval()
    ev = dict(epsilon=0.1, steps=3, step_size=2.5 * 0.1 / 3)
    robust = adv_ensemble.robust_accuracy(
        ens, X[te], y[te], generator=gen_for(601), **ev
    )
    row = next(r for r in comparison.rows if r["seed"] == 1 and r["method"] == "indep")
    np.testing.assert_array_equal(comparison.test_index[1], te)
    assert row["robust"] == robust
    assert row["clean"] == adv_ensemble.accuracy(ens, X[te], y[te])
    dec = adv_ensemble.classifier_decomposition(nets, X[te], y[te], epsilon=0.1)
    assert row["cross"] == pytest.approx(float(dec.cross.mean()), rel=1e-12)


def test_paired_differences(comparison):
    rows = comparison.rows
    d = adv_ensemble.paired_differences(rows, "robust", "oap", "indep")
    by = {(r["seed"], r["method"]): r["robust"] for r in rows}
    assert d == [by[0, "oap"] - by[0, "indep"], by[1, "oap"] - by[1, "indep"]]
    with pytest.raises(ValueError, match="lack"):
        adv_ensemble.paired_differences(rows[:3], "robust", "oap", "indep")


def test_compare_methods_bad_inputs(toy):
    X, y = toy
    ok = {"indep": adv_ensemble.AdvMethod(0.0, 0.0)}
    kw = dict(rng_for=rng_for, generator_for=gen_for, **COMPARE)
    with pytest.raises(TypeError, match="must be an AdvMethod"):
        adv_ensemble.compare_methods(X, y, {"indep": (0.0, 0.0)}, **kw)
    with pytest.raises(ValueError, match="at least one method"):
        adv_ensemble.compare_methods(X, y, {}, **kw)
    with pytest.raises(ValueError, match="same length"):
        adv_ensemble.compare_methods(X, y[:10], ok, **kw)
    with pytest.raises(ValueError, match="train_share"):
        adv_ensemble.compare_methods(X, y, ok, train_share=1.0, **kw)
    with pytest.raises(TypeError, match="rng_for must be a callable"):
        adv_ensemble.compare_methods(X, y, ok, **{**kw, "rng_for": None})
    with pytest.raises(ValueError, match="n_seeds must be a positive int"):
        adv_ensemble.compare_methods(X, y, ok, **{**kw, "n_seeds": 0})
