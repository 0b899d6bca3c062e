import itertools

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import digamma

from repbook.core import nets
from repbook.papers import aurc as A


# --- weights -----------------------------------------------------------------------------------
def test_mc_weights_are_harmonic_differences_and_digamma():
    n = 50
    r = np.arange(1, n + 1)
    np.testing.assert_allclose(
        A.mc_weights(n), digamma(n + 1) - digamma(n - r + 1), rtol=1e-12
    )
    assert A.mc_weights(1)[0] == 1.0
    assert A.mc_weights(n).mean() == pytest.approx(
        1.0, abs=1e-12
    )  # Σ_r (H_n − H_{n−r}) = n


def test_ln_and_sele_weights():
    np.testing.assert_allclose(A.ln_weights(3), -np.log([3 / 4, 2 / 4, 1 / 4]))
    np.testing.assert_allclose(A.sele_weights(4), [0.25, 0.5, 0.75, 1.0])
    np.testing.assert_allclose(A.weights(4, "2sele"), [0.5, 1.0, 1.5, 2.0])


def test_top_weight_gap_tends_to_euler_gamma():
    n = 10**6
    assert A.mc_weights(n)[-1] - A.ln_weights(n)[-1] == pytest.approx(
        np.euler_gamma, abs=1e-5
    )


@pytest.mark.parametrize("bad", [0, -3, 2.5, True, "4"])
def test_bad_n(bad):
    with pytest.raises(ValueError, match="n must be a positive int"):
        A.mc_weights(bad)


def test_unknown_estimator():
    with pytest.raises(ValueError, match="estimator must be one of"):
        A.weights(4, "median")


# --- estimators ----------------------------------------------------------------------------------
def brute_force_aurc(losses, conf):
    """Risk at every coverage k/n, averaged (sorted by descending confidence), in plain Python."""
    pairs = sorted(zip(conf, losses), key=lambda t: -t[0])
    risks = [sum(l for _, l in pairs[:k]) / k for k in range(1, len(pairs) + 1)]
    return sum(risks) / len(risks)


def test_known_small_example():
    # confidences 0.9, 0.8, 0.7 with losses 0, 1, 0: risks 0, 1/2, 1/3 → AURC = 5/18
    losses, conf = [0, 1, 0], [0.9, 0.8, 0.7]
    assert A.empirical_aurc(losses, conf) == pytest.approx(5 / 18)
    assert A.plugin_aurc(losses, conf) == pytest.approx(5 / 18)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(st.floats(0, 1), st.integers(0, 1)),
        min_size=1,
        max_size=40,
        unique_by=lambda t: t[0],
    )
)
def test_mc_plugin_equals_classic_and_brute_force(pairs):
    conf = np.array([p[0] for p in pairs])
    losses = np.array([p[1] for p in pairs], dtype=float)
    mc = A.plugin_aurc(losses, conf)
    assert mc == pytest.approx(A.empirical_aurc(losses, conf), abs=1e-12)
    assert mc == pytest.approx(brute_force_aurc(losses, conf), abs=1e-12)


def test_ties_average_equals_mean_over_tie_orders():
    conf = np.array([0.2, 0.5, 0.5, 0.5, 0.9])
    losses = np.array([1.0, 1.0, 0.0, 0.0, 1.0])
    orders = []
    for perm in itertools.permutations([1, 2, 3]):
        eps = np.zeros(5)
        eps[list(perm)] = [0.0, 1e-6, 2e-6]
        orders.append(A.empirical_aurc(losses, conf + eps))
    assert A.plugin_aurc(losses, conf) == pytest.approx(np.mean(orders), abs=1e-12)
    assert A.plugin_aurc(losses, conf, ties="order") != pytest.approx(np.mean(orders))


def test_batched_rows_match_single_calls():
    rng = np.random.default_rng(0)
    conf = rng.random((5, 30))
    conf[2, :10] = 0.5  # a row with ties
    losses = (rng.random((5, 30)) < 0.3).astype(float)
    for est in A.ESTIMATORS:
        batch = A.plugin_aurc(losses, conf, est)
        single = [A.plugin_aurc(losses[i], conf[i], est) for i in range(5)]
        np.testing.assert_allclose(batch, single, rtol=1e-12)
    np.testing.assert_allclose(
        A.empirical_aurc(losses, conf),
        [A.empirical_aurc(losses[i], conf[i]) for i in range(5)],
    )


def test_invariant_to_monotone_transform_of_confidence():
    rng = np.random.default_rng(1)
    conf, losses = rng.random(200), (rng.random(200) < 0.4).astype(float)
    for est in A.ESTIMATORS:
        assert A.plugin_aurc(losses, conf, est) == pytest.approx(
            A.plugin_aurc(losses, np.exp(3 * conf), est)
        )


def test_perfect_and_constant_rankings():
    losses = np.array([1.0, 1.0, 0.0, 0.0])
    conf_perfect = np.array([0.1, 0.2, 0.8, 0.9])  # errors least confident
    conf_worst = conf_perfect[::-1]
    assert A.empirical_aurc(losses, conf_perfect) < A.empirical_aurc(losses, conf_worst)
    # one tie group: every weight is the mean weight (1 for MC) → estimate = mean loss
    assert A.plugin_aurc(losses, np.ones(4)) == pytest.approx(losses.mean())


def test_risk_coverage_curve_and_reweighted_risk():
    cov, risk = A.risk_coverage_curve([0, 1, 0], [0.9, 0.8, 0.7])
    np.testing.assert_allclose(cov, [1 / 3, 2 / 3, 1])
    np.testing.assert_allclose(risk, [0, 0.5, 1 / 3])
    assert A.reweighted_risk([1.0, 0.0], [0.5, 0.0]) == pytest.approx(np.log(2) / 2)
    with pytest.raises(ValueError, match=r"\[0, 1\)"):
        A.reweighted_risk([1.0], [1.0])


@pytest.mark.parametrize(
    "losses, conf, msg",
    [
        ([], [], "empty"),
        ([1.0, 0.0], [0.5], "same shape"),
        ([1.0, np.nan], [0.5, 0.2], "losses contain NaN"),
        ([1.0, 0.0], [0.5, np.inf], "confidence contains NaN"),
        ([-1.0, 0.0], [0.5, 0.2], "non-negative"),
        (np.zeros((2, 2, 2)), np.zeros((2, 2, 2)), "1-D"),
    ],
)
def test_bad_inputs_name_the_problem(losses, conf, msg):
    with pytest.raises(ValueError, match=msg):
        A.plugin_aurc(losses, conf)


def test_bad_ties_option():
    with pytest.raises(ValueError, match="ties must be one of"):
        A.plugin_aurc([1.0], [0.5], ties="random")


# --- the closed-form model ------------------------------------------------------------------------
@pytest.mark.parametrize("beta", [0.5, 1.0, 3.0])
def test_closed_form_is_the_integral_of_the_risk(beta):
    from scipy.integrate import quad

    m = A.PowerErrorModel(beta)
    assert quad(m.risk, 0, 1)[0] == pytest.approx(m.aurc(), rel=1e-9)
    # SELE limit E[ℓ·G] = ∫ s (1 − s)^β ds
    assert quad(lambda s: s * (1 - s) ** beta, 0, 1)[0] == pytest.approx(
        m.sele_limit(), rel=1e-9
    )


def test_exact_mc_bias_for_beta_one_is_one_over_two_n_plus_two():
    m = A.PowerErrorModel(1.0)
    for n in (1, 5, 64, 1000):
        assert m.expected_estimate(n, "mc") - m.aurc() == pytest.approx(
            1 / (2 * (n + 1)), rel=1e-9
        )


def test_expected_estimate_matches_simulation():
    m = A.PowerErrorModel(2.0)
    s, e = m.sample(20, 40_000, np.random.default_rng(0))
    for est in ("mc", "ln", "sele"):
        x = A.plugin_aurc(e, s, est)
        assert abs(x.mean() - m.expected_estimate(20, est)) < 4 * x.std() / np.sqrt(
            x.size
        )


def test_model_rejects_bad_beta():
    with pytest.raises(ValueError, match="beta"):
        A.PowerErrorModel(0.0)


# --- confidence scores -------------------------------------------------------------------------------
def test_confidence_scores():
    p = np.array([[0.7, 0.2, 0.1], [0.4, 0.4, 0.2]])
    out = A.confidence_scores(p, np.log(p))
    np.testing.assert_allclose(out["MSP"], [0.7, 0.4])
    np.testing.assert_allclose(out["margin"], [0.5, 0.0])
    np.testing.assert_allclose(out["neg. entropy"], (p * np.log(p)).sum(1))
    np.testing.assert_allclose(out["max logit"], np.log([0.7, 0.4]))
    assert "max logit" not in A.confidence_scores(p)
    with pytest.raises(ValueError, match="sum to 1"):
        A.confidence_scores(np.array([[0.5, 0.6]]))
    with pytest.raises(ValueError, match="logits must have the shape"):
        A.confidence_scores(p, np.zeros((2, 2)))


# --- the loss -------------------------------------------------------------------------------------------
def test_aurc_loss_is_the_plugin_estimate_of_cross_entropy():
    g = torch.Generator().manual_seed(0)
    logits = torch.randn(16, 4, generator=g, dtype=torch.float64, requires_grad=True)
    targets = torch.randint(0, 4, (16,), generator=g)
    loss = A.aurc_loss(logits, targets)
    ce = (
        torch.nn.functional.cross_entropy(logits, targets, reduction="none")
        .detach()
        .numpy()
    )
    conf = torch.softmax(logits, 1).max(1).values.detach().numpy()
    assert loss.item() == pytest.approx(A.plugin_aurc(ce, conf), rel=1e-10)
    loss.backward()
    assert torch.isfinite(logits.grad).all()


def test_aurc_loss_gradient_has_no_path_through_ranks():
    logits = torch.tensor([[2.0, 0.0], [0.0, 1.0]], requires_grad=True)
    targets = torch.tensor([0, 0])
    A.aurc_loss(logits, targets).backward()
    w = torch.tensor(
        A.mc_weights(2)
    )  # ranks: sample 1 less confident (0.73) than sample 0 (0.88)
    ce = lambda z: torch.nn.functional.cross_entropy(z, targets, reduction="none")
    expected = torch.autograd.functional.jacobian(
        lambda z: (ce(z) * w[[1, 0]].float()).sum() / 2, logits
    )
    torch.testing.assert_close(logits.grad, expected)


def test_aurc_loss_bad_shapes():
    with pytest.raises(ValueError, match="logits must be"):
        A.aurc_loss(torch.zeros(3), torch.zeros(3, dtype=torch.long))


# --- the peer -----------------------------------------------------------------------------------------
def test_torch_uncertainty_metric_agrees_with_classic_at_large_n():
    rng = np.random.default_rng(0)
    conf = rng.random(5000)
    err = (rng.random(5000) < 1 - conf).astype(float)
    tu = A.torch_uncertainty_aurc(err, conf)
    assert tu == pytest.approx(A.empirical_aurc(err, conf), abs=2e-3)
    with pytest.raises(ValueError, match="0/1"):
        A.torch_uncertainty_aurc(np.array([0.5, 1.0]), np.array([0.1, 0.2]))


def test_sklearn_mlp_logits_give_its_probabilities():
    from scipy.special import softmax
    from sklearn.datasets import make_classification
    from sklearn.neural_network import MLPClassifier

    X, y = make_classification(
        200, n_features=6, n_informative=4, n_classes=3, random_state=0
    )
    mlp = MLPClassifier((8,), max_iter=50, random_state=0).fit(X, y)
    assert np.allclose(
        softmax(A.sklearn_mlp_logits(mlp, X), axis=1), mlp.predict_proba(X)
    )


def test_training_lowers_the_loss_and_metrics_are_consistent():
    import torch

    g = torch.Generator().manual_seed(0)
    X = torch.randn(256, 4, generator=g)
    y = (X[:, 0] > 0).long()
    net = nets.mlp(
        (4, 8, 2), seed=0
    )  # the house's network and loop (claim 6 uses them)
    loss = torch.nn.functional.cross_entropy
    before = float(loss(net(X), y))
    nets.train_epochs(
        net,
        torch.optim.SGD(net.parameters(), lr=0.5, momentum=0.9),
        loss,
        X,
        y,
        30,
        torch.Generator().manual_seed(1),
    )
    assert float(loss(net(X), y)) < before / 2
    aurc, acc = A.selective_metrics(net, X, y)
    assert 0.9 < acc <= 1 and 0 <= aurc < 0.05
