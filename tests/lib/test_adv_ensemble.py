import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from repbook.papers import adv_ensemble


def random_members(rng, m=4, n=30, d=5, dtype=np.float64):
    F = rng.normal(size=(m, n)).astype(dtype)
    G = rng.normal(size=(m, n, d)).astype(dtype)
    return F, G


# --- regression decomposition -------------------------------------------------------------------
@settings(max_examples=40, deadline=None)
@given(
    st.integers(1, 6),
    st.integers(1, 8),
    st.floats(0.0, 0.5),
    st.sampled_from(["linf", "l2"]),
    st.integers(0, 10_000),
)
def test_regression_identity_is_exact_in_float64(m, d, eps, norm, seed):
    rng = np.random.default_rng(seed)
    F, G = random_members(rng, m=m, d=d)
    y = rng.normal(size=F.shape[1])
    dec = adv_ensemble.regression_decomposition(F, G, y, epsilon=eps, norm=norm)
    # relative to the members' mean loss, the largest term (the ensemble's may be ~0)
    scale = np.maximum(dec.average, 1e-12)
    assert np.max(np.abs(dec.residual) / scale) < 1e-10
    assert np.all(dec.prediction >= 0)
    assert np.all(dec.gradient >= -1e-12)


def test_regression_terms_by_hand():
    # two members, one input dimension: f = (1, 3), y = 0, gradients (2, −1) → g = (2, 1), ḡ = 0.5
    F, G, y, eps = (
        np.array([[1.0], [3.0]]),
        np.array([[[2.0]], [[-1.0]]]),
        np.array([0.0]),
        0.1,
    )
    dec = adv_ensemble.regression_decomposition(F, G, y, epsilon=eps)
    assert dec.ensemble[0] == pytest.approx((2 + 0.1 * 0.5) ** 2)
    assert dec.average[0] == pytest.approx(((1 + 0.2) ** 2 + (3 + 0.1) ** 2) / 2)
    assert dec.prediction[0] == pytest.approx(1.0)
    assert dec.gradient[0] == pytest.approx(0.01 * ((4 + 1) / 2 - 0.25))
    assert dec.cross[0] == pytest.approx(0.2 * ((2 * 1 + 1 * 3) / 2 - 0.5 * 2))


def test_one_member_has_no_diversity_and_float32_is_kept():
    rng = np.random.default_rng(1)
    F, G = random_members(rng, m=1, dtype=np.float32)
    y = rng.normal(size=F.shape[1]).astype(np.float32)
    dec = adv_ensemble.regression_decomposition(F, G, y, epsilon=0.1)
    assert dec.ensemble.dtype == np.float32
    for term in (dec.prediction, dec.gradient, dec.cross):
        np.testing.assert_array_equal(term, 0)
    np.testing.assert_array_equal(dec.ensemble, dec.average)


def test_cross_diversity_can_be_negative():
    # member 1 is accurate but steep, member 2 wrong but flat: Σ g_i r_i small, ḡ r̄ large
    F = np.array([[0.0], [2.0]])
    G = np.array([[[4.0]], [[0.0]]])
    dec = adv_ensemble.regression_decomposition(F, G, np.array([0.0]), epsilon=0.1)
    assert dec.cross[0] < 0
    assert dec.residual[0] == pytest.approx(0, abs=1e-12)


def test_first_order_loss():
    assert adv_ensemble.first_order_sq_loss(
        np.array([1.0]), np.array([2.0]), np.array([0.5]), epsilon=0.25
    )[0] == pytest.approx(1.0)


# --- binary cross-entropy decomposition ---------------------------------------------------------
@settings(max_examples=40, deadline=None)
@given(
    st.integers(1, 6),
    st.floats(0.0, 0.5),
    st.sampled_from(["code", "geometric"]),
    st.integers(0, 10_000),
)
def test_binary_identity_is_exact_and_terms_nonnegative(m, eps, p_bar, seed):
    rng = np.random.default_rng(seed)
    Z, G = random_members(rng, m=m)
    Z *= 3
    y = rng.integers(0, 2, size=Z.shape[1])
    dec = adv_ensemble.binary_ce_decomposition(Z, G, y, epsilon=eps, p_bar=p_bar)
    assert np.max(np.abs(dec.residual) / np.maximum(dec.average, 1e-12)) < 1e-10
    assert np.all(dec.kl >= -1e-12)
    assert np.all(dec.gradient >= -1e-12)


def test_binary_matches_the_codes_literal_formulas():
    rng = np.random.default_rng(3)
    Z, G = random_members(rng, m=3, n=200, d=10)
    y = rng.integers(0, 2, size=200)
    dec = adv_ensemble.binary_ce_decomposition(Z, G, y, epsilon=0.1)
    div1, div2 = adv_ensemble.code_binary_terms(Z, G, y, epsilon=0.1)
    assert div1 == pytest.approx(dec.kl.mean(), rel=1e-6)
    assert div2 == pytest.approx(dec.gradient.mean(), rel=1e-9)


def test_literal_form_loses_the_identity_in_float32_at_confident_points():
    Z = np.array([[18.0, 1.0], [22.0, 1.5]], dtype=np.float32)  # confident, then not
    G = np.ones((2, 2, 3), dtype=np.float32) * np.array(
        [1.0, 2.0, 0.5], dtype=np.float32
    )
    G[1] *= -1
    y = np.array([1, 1])
    stable = adv_ensemble.binary_ce_decomposition(Z, G, y, epsilon=0.1)
    literal = adv_ensemble.binary_ce_decomposition(Z, G, y, epsilon=0.1, stable=False)
    assert stable.relative_residual.max() < 1e-5
    assert literal.relative_residual[0] > 1e-3
    np.testing.assert_allclose(literal.kl[1], stable.kl[1], rtol=1e-4)


def test_binary_ensemble_is_cross_entropy_of_the_adversarial_logit():
    Z, G, y = (
        np.array([[2.0], [0.0]]),
        np.array([[[1.0, -1.0]], [[0.0, 3.0]]]),
        np.array([1]),
    )
    dec = adv_ensemble.binary_ce_decomposition(Z, G, y, epsilon=0.1)
    e = 1.0 - 0.1 * np.abs(np.array([0.5, 1.0])).sum()  # z̄ − ε‖mean ∇‖₁
    assert dec.ensemble[0] == pytest.approx(np.log1p(np.exp(-e)))


# --- gradients and models -----------------------------------------------------------------------
@pytest.mark.parametrize("norm, order", [("linf", 1), ("l2", 2)])
def test_linear_model_gradient_norm_is_the_weights_dual_norm(norm, order):
    net = adv_ensemble.mlp((6, 1), seed=0)
    x = torch.rand(5, 6)
    out, grad = adv_ensemble.input_gradients(net, x)
    w = net[0].weight.detach().numpy()[0]
    norms = np.linalg.norm(grad.numpy(), ord=order, axis=1)
    np.testing.assert_allclose(
        norms, np.linalg.norm(w, ord=adv_ensemble.dual_order(norm)), rtol=1e-6
    )
    assert out.shape == (5,)


def test_first_order_is_exact_for_a_linear_model():
    """For f(x) = w·x + b the ε-box maximum of (f − y)² is (|f − y| + ε‖w‖₁)²; PGD reaches it."""
    net = adv_ensemble.mlp((8, 1), seed=2).double()
    x, y = torch.rand(20, 8, dtype=torch.float64), torch.rand(20, dtype=torch.float64)
    F, G = adv_ensemble.members_outputs_and_gradients([net], x)
    first = adv_ensemble.regression_decomposition(
        F, G, y.numpy(), epsilon=0.05
    ).ensemble
    x_adv = adv_ensemble.pgd_attack(
        net, x, y, epsilon=0.05, steps=3, step_size=0.05, loss="mse", clip=None
    )
    with torch.no_grad():
        exact = ((net(x_adv).squeeze(1) - y) ** 2).numpy()
    np.testing.assert_allclose(first, exact, rtol=1e-10)


def test_first_order_in_range_is_exact_for_a_linear_model():
    net = adv_ensemble.mlp((8, 1), seed=3).double()
    x = torch.rand(30, 8, dtype=torch.float64)
    x[:, :3] = torch.tensor(
        [0.0, 1.0, 0.97], dtype=torch.float64
    )  # inputs at the range's edges
    y = torch.rand(30, dtype=torch.float64)
    out, grad = adv_ensemble.input_gradients(net, x)
    first = adv_ensemble.first_order_sq_loss_in_range(
        out.numpy(), grad.numpy(), x.numpy(), y.numpy(), epsilon=0.1
    )
    x_adv = adv_ensemble.pgd_attack(
        net, x, y, epsilon=0.1, steps=3, step_size=0.1, loss="mse"
    )
    with torch.no_grad():
        exact = ((net(x_adv).squeeze(1) - y) ** 2).numpy()
    np.testing.assert_allclose(first, exact, rtol=1e-10)
    free = adv_ensemble.first_order_sq_loss(
        out.numpy(), np.abs(grad.numpy()).sum(1), y.numpy(), epsilon=0.1
    )
    assert np.all(first <= free + 1e-12) and np.any(first < free - 1e-6)


def test_input_gradients_restores_training_mode():
    net = adv_ensemble.mlp((3, 4, 1), seed=0)
    net.train()
    adv_ensemble.input_gradients(net, torch.rand(2, 3))
    assert net.training


def test_ensemble_uses_module_list():
    members = [adv_ensemble.mlp((4, 3, 2), seed=k) for k in range(3)]
    ens = adv_ensemble.Ensemble(members)
    assert len(list(ens.parameters())) == sum(
        len(list(m.parameters())) for m in members
    )
    ens.eval()
    assert not any(m.training for m in members)
    x = torch.rand(5, 4)
    expected = sum(m(x) for m in members) / 3
    torch.testing.assert_close(ens(x), expected)


# --- attacks -------------------------------------------------------------------------------------
def test_pgd_stays_in_the_ball_and_the_data_range():
    net = adv_ensemble.mlp((16, 8, 3), seed=1)
    x, y = torch.rand(50, 16), torch.randint(0, 3, (50,))
    g = torch.Generator().manual_seed(0)
    x_adv = adv_ensemble.pgd_attack(
        net, x, y, epsilon=0.2, steps=7, step_size=0.1, random_start=True, generator=g
    )
    assert float((x_adv - x).abs().max()) <= 0.2 + 1e-6
    assert float(x_adv.min()) >= 0 and float(x_adv.max()) <= 1
    assert float((x_adv - x).abs().max()) > 0.1
    again = adv_ensemble.pgd_attack(
        net,
        x,
        y,
        epsilon=0.2,
        steps=7,
        step_size=0.1,
        random_start=True,
        generator=torch.Generator().manual_seed(0),
    )
    torch.testing.assert_close(x_adv, again, rtol=0, atol=0)


def test_pgd_raises_the_loss():
    net = adv_ensemble.mlp((16, 8, 3), seed=1)
    x, y = torch.rand(50, 16), torch.randint(0, 3, (50,))
    x_adv = adv_ensemble.pgd_attack(net, x, y, epsilon=0.1, steps=10, step_size=0.025)
    ce = torch.nn.functional.cross_entropy
    with torch.no_grad():
        assert float(ce(net(x_adv), y)) > float(ce(net(x), y))


def test_lockstep_pgd_equals_separate_runs():
    nets = [adv_ensemble.mlp((10, 6, 4), seed=k) for k in range(3)]
    x, y = torch.rand(12, 10), torch.randint(0, 4, (12,))
    kw = dict(epsilon=0.1, steps=4, step_size=0.03, random_start=True)
    joint = adv_ensemble.pgd_attack_each(
        nets, x, y, generator=torch.Generator().manual_seed(5), **kw
    )
    g = torch.Generator().manual_seed(5)
    for net, adv in zip(nets, joint):
        torch.testing.assert_close(
            adv, adv_ensemble.pgd_attack(net, x, y, generator=g, **kw), rtol=0, atol=0
        )


def test_pgd_agrees_with_torchattacks():
    nets = [adv_ensemble.mlp((16, 12, 5), seed=k) for k in range(3)]
    ens = adv_ensemble.Ensemble(nets)
    x, y = torch.rand(40, 16), torch.randint(0, 5, (40,))
    ours = adv_ensemble.pgd_attack(ens, x, y, epsilon=0.1, steps=10, step_size=0.02)
    peer = adv_ensemble.torchattacks_pgd(
        ens, x, y, epsilon=0.1, steps=10, step_size=0.02
    )
    assert float((ours - peer).abs().max()) <= 1e-6


# --- the AdvEOAP loss -----------------------------------------------------------------------------
def test_non_true_probabilities_are_normalised():
    logits, y = torch.randn(6, 5), torch.tensor([0, 1, 2, 3, 4, 0])
    p = adv_ensemble.non_true_probabilities(logits, y)
    assert p.shape == (6, 4)
    torch.testing.assert_close(p.sum(1), torch.ones(6))
    full = torch.softmax(logits, 1)[1]
    torch.testing.assert_close(p[1], torch.cat([full[:1], full[2:]]) / (1 - full[1]))


def test_regulariser_prefers_orthogonal_predictions():
    orth = torch.eye(3, 4).unsqueeze(0)  # three one-hot rows
    same = torch.full((1, 3, 4), 0.25)
    ld_orth, _ = adv_ensemble.oap_regulariser(orth)
    ld_same, h_same = adv_ensemble.oap_regulariser(same)
    assert float(ld_orth) == pytest.approx(0.0, abs=1e-5)  # log det(I + 1e-6 I) ≈ 0
    assert float(ld_same) < -20
    assert float(h_same) == pytest.approx(np.log(4) * (1 + 4e-6), rel=1e-5)


def test_zero_weights_give_independent_adversarial_training():
    nets = [adv_ensemble.mlp((8, 6, 4), seed=k) for k in range(2)]
    x, y = torch.rand(10, 8), torch.randint(0, 4, (10,))
    kw = dict(epsilon=0.1, steps=3, step_size=0.04, random_start=True)
    out = adv_ensemble.adv_oap_loss(
        nets,
        x,
        y,
        num_classes=4,
        alpha=0.0,
        beta=0.0,
        generator=torch.Generator().manual_seed(1),
        **kw,
    )
    advs = adv_ensemble.pgd_attack_each(
        nets, x, y, generator=torch.Generator().manual_seed(1), **kw
    )
    ce = sum(torch.nn.functional.cross_entropy(n(a), y) for n, a in zip(nets, advs))
    assert float(out.loss.detach()) == pytest.approx(float(ce.detach()), rel=1e-6)


def test_clean_diversity_variant_uses_clean_predictions():
    nets = [adv_ensemble.mlp((8, 6, 4), seed=k) for k in range(2)]
    x, y = torch.rand(10, 8), torch.randint(0, 4, (10,))
    kw = dict(num_classes=4, epsilon=0.1, steps=2, step_size=0.05, alpha=1.0, beta=0.0)
    out = adv_ensemble.adv_oap_loss(
        nets,
        x,
        y,
        generator=torch.Generator().manual_seed(2),
        diversity_on="clean",
        **kw,
    )
    with torch.no_grad():
        probs = torch.stack(
            [adv_ensemble.non_true_probabilities(n(x), y) for n in nets], dim=1
        )
        logdet, _ = adv_ensemble.oap_regulariser(probs)
    assert out.logdet == pytest.approx(float(logdet), rel=1e-5)


def test_training_runs_and_is_reproducible():
    X, y = torch.rand(40, 8), torch.randint(0, 4, (40,))

    def train():
        nets = [adv_ensemble.mlp((8, 6, 4), seed=k) for k in range(3)]
        adv_ensemble.train_adv_ensemble(
            nets,
            X,
            y,
            num_classes=4,
            epochs=2,
            batch_size=16,
            lr=0.05,
            epsilon=0.1,
            steps=2,
            step_size=0.05,
            alpha=0.5,
            beta=1.0,
            generator=torch.Generator().manual_seed(0),
        )
        return torch.cat([p.detach().flatten() for n in nets for p in n.parameters()])

    torch.testing.assert_close(train(), train(), rtol=0, atol=0)


def test_transfer_matrix_shape_and_range():
    nets = [adv_ensemble.mlp((8, 6, 4), seed=k) for k in range(3)]
    X, y = torch.rand(30, 8), torch.randint(0, 4, (30,))
    T = adv_ensemble.transfer_matrix(
        nets,
        X,
        y,
        epsilon=0.3,
        steps=5,
        step_size=0.1,
        generator=torch.Generator().manual_seed(0),
    )
    assert T.shape == (3, 3) and np.all((T >= 0) & (T <= 1))
    assert adv_ensemble.mean_off_diagonal(
        np.array([[1.0, 0.2], [0.4, 1.0]])
    ) == pytest.approx(0.3)


def test_grid_covers_the_box_corners():
    off = adv_ensemble.box_grid(0.1, 3)
    assert off.shape == (9, 2)
    assert {tuple(r) for r in off} >= {
        (-0.1, -0.1),
        (-0.1, 0.1),
        (0.1, -0.1),
        (0.1, 0.1),
    }
    net = adv_ensemble.mlp((2, 1), seed=0)
    out = adv_ensemble.grid_outputs([net, net], torch.rand(4, 2), off)
    assert out.shape == (2, 4, 9)


# --- bad inputs ------------------------------------------------------------------------------
def test_bad_inputs():
    rng = np.random.default_rng(0)
    F, G = random_members(rng, m=2, n=5, d=3)
    y = np.zeros(5)
    with pytest.raises(ValueError, match="epsilon must be a finite number ≥ 0"):
        adv_ensemble.regression_decomposition(F, G, y, epsilon=-0.1)
    with pytest.raises(ValueError, match="norm must be one of"):
        adv_ensemble.regression_decomposition(F, G, y, epsilon=0.1, norm="l3")
    with pytest.raises(ValueError, match="gradients must have shape"):
        adv_ensemble.regression_decomposition(F, G[:, :4], y, epsilon=0.1)
    with pytest.raises(ValueError, match="y must have shape"):
        adv_ensemble.regression_decomposition(F, G, np.zeros(4), epsilon=0.1)
    with pytest.raises(ValueError, match="outputs must have shape"):
        adv_ensemble.regression_decomposition(F[0], G, y, epsilon=0.1)
    with pytest.raises(ValueError, match="binary labels"):
        adv_ensemble.binary_ce_decomposition(F, G, y + 2, epsilon=0.1)
    with pytest.raises(ValueError, match="p_bar must be one of"):
        adv_ensemble.binary_ce_decomposition(F, G, y, epsilon=0.1, p_bar="mean")
    with pytest.raises(
        ValueError, match="epsilon must be a finite number ≥ 0, got .0.1."
    ):
        adv_ensemble.first_order_sq_loss(y, y, y, epsilon="0.1")
    with pytest.raises(ValueError, match="data range"):
        adv_ensemble.first_order_sq_loss_in_range(
            y, np.zeros((5, 3)), np.full((5, 3), 2.0), y, epsilon=0.1
        )
    with pytest.raises(ValueError, match="one shape"):
        adv_ensemble.first_order_sq_loss(y, y[:3], y, epsilon=0.1)


def test_bad_attack_and_training_inputs():
    nets = [adv_ensemble.mlp((8, 6, 4), seed=k) for k in range(4)]
    x, y = torch.rand(10, 8), torch.randint(0, 4, (10,))
    with pytest.raises(ValueError, match=r"members must lie in \[1, K − 1\]"):
        adv_ensemble.adv_oap_loss(
            nets,
            x,
            y,
            num_classes=4,
            epsilon=0.1,
            steps=1,
            step_size=0.1,
            alpha=0.5,
            beta=1.0,
            generator=torch.Generator(),
        )
    with pytest.raises(ValueError, match="diversity_on"):
        adv_ensemble.adv_oap_loss(
            nets[:2],
            x,
            y,
            num_classes=4,
            epsilon=0.1,
            steps=1,
            step_size=0.1,
            alpha=0.5,
            beta=1.0,
            generator=torch.Generator(),
            diversity_on="both",
        )
    with pytest.raises(ValueError, match="alpha must be"):
        adv_ensemble.adv_oap_loss(
            nets[:2],
            x,
            y,
            num_classes=4,
            epsilon=0.1,
            steps=1,
            step_size=0.1,
            alpha=-1.0,
            beta=1.0,
            generator=torch.Generator(),
        )
    with pytest.raises(ValueError, match="epsilon must be a finite number"):
        adv_ensemble.pgd_attack(nets[0], x, y, epsilon=-1.0, steps=1, step_size=0.1)
    with pytest.raises(ValueError, match="data range"):
        adv_ensemble.pgd_attack(nets[0], x + 2, y, epsilon=0.1, steps=1, step_size=0.1)
    with pytest.raises(ValueError, match="same length"):
        adv_ensemble.pgd_attack(nets[0], x, y[:5], epsilon=0.1, steps=1, step_size=0.1)
    with pytest.raises(ValueError, match="needs a torch.Generator"):
        adv_ensemble.pgd_attack(
            nets[0], x, y, epsilon=0.1, steps=1, step_size=0.1, random_start=True
        )
    with pytest.raises(ValueError, match="loss must be one of"):
        adv_ensemble.pgd_attack(
            nets[0], x, y, epsilon=0.1, steps=1, step_size=0.1, loss="hinge"
        )
    with pytest.raises(ValueError, match="steps must be an int"):
        adv_ensemble.pgd_attack(nets[0], x, y, epsilon=0.1, steps=2.5, step_size=0.1)
    with pytest.raises(ValueError, match="ℓ∞ attack only"):
        adv_ensemble.pgd_attack(
            nets[0], x, y, epsilon=0.1, steps=1, step_size=0.1, norm="l2"
        )
    with pytest.raises(ValueError, match="one output per input"):
        adv_ensemble.input_gradients(nets[0], x)
    with pytest.raises(
        ValueError, match="sizes must give an input and an output width"
    ):
        adv_ensemble.mlp((8,), seed=0)
    with pytest.raises(ValueError, match="at least one member"):
        adv_ensemble.Ensemble([])
    with pytest.raises(ValueError, match="loss must be one of"):
        adv_ensemble.fit(
            nets[0],
            x,
            y,
            loss="hinge",
            epochs=1,
            lr=0.1,
            batch_size=4,
            generator=torch.Generator(),
        )
    with pytest.raises(ValueError, match="n_grid must be an int ≥ 2, got 1"):
        adv_ensemble.box_grid(0.1, 1)
    with pytest.raises(ValueError, match="square matrix"):
        adv_ensemble.mean_off_diagonal(np.zeros((2, 3)))
