import math

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from hypothesis import given, settings
from hypothesis import strategies as st

from repbook.papers import ssl_norms as S


def rand(n, d, seed=0):
    return torch.randn(n, d, generator=torch.Generator().manual_seed(seed), dtype=torch.float64)


# --- the gradient law ----------------------------------------------------------------------------
def test_cosine_grad_matches_autograd():
    z, p = rand(50, 8, 1).requires_grad_(), rand(50, 8, 2)
    S.cosine_similarity(z, p).sum().backward()
    np.testing.assert_allclose(S.cosine_grad(z.detach(), p).numpy(), z.grad.numpy(), rtol=1e-12,
                               atol=1e-14)


def test_cosine_grad_is_orthogonal_with_size_sin_over_norm():
    z, p = rand(40, 5, 3) * 7.0, rand(40, 5, 4)
    g = S.cosine_grad(z, p)
    cos = S.cosine_similarity(z, p)
    np.testing.assert_allclose((g * z).sum(1).numpy(), 0.0, atol=1e-12)
    np.testing.assert_allclose((g.norm(dim=1) * z.norm(dim=1)).numpy(),
                               torch.sqrt(1 - cos ** 2).numpy(), rtol=1e-10)


@settings(max_examples=40, deadline=None)
@given(st.floats(1e-3, 1e3), st.integers(0, 10_000))
def test_cosine_grad_scales_as_inverse_norm(alpha, seed):
    z, p = rand(6, 4, seed), rand(6, 4, seed + 1)
    np.testing.assert_allclose((alpha * S.cosine_grad(alpha * z, p)).numpy(),
                               S.cosine_grad(z, p).numpy(), rtol=1e-9, atol=1e-12)


def test_zero_rows_and_bad_shapes():
    with pytest.raises(ValueError, match="non-zero rows"):
        S.cosine_grad(torch.zeros(2, 3), torch.ones(2, 3))
    with pytest.raises(ValueError, match="shape"):
        S.cosine_grad(torch.ones(2, 3), torch.ones(3, 3))
    with pytest.raises(TypeError, match="torch tensors"):
        S.cosine_similarity(np.ones((2, 3)), torch.ones(2, 3))


# --- GradScale and the losses ---------------------------------------------------------------------
def test_grad_scale_is_identity_forward_and_scales_backward():
    z = rand(5, 3, 7).requires_grad_()
    out = S.grad_scale(z, 1.0)
    assert torch.equal(out, z)
    w = rand(5, 3, 8)
    (out * w).sum().backward()
    np.testing.assert_allclose(z.grad.numpy(), (w * z.detach().norm(dim=1, keepdim=True)).numpy())
    assert S.grad_scale(z, 0) is z
    with pytest.raises(ValueError, match="power must be a finite number"):
        S.grad_scale(z, float("nan"))


def _grad(loss_fn, z1, z2):
    z1 = z1.clone().requires_grad_()
    loss_fn(z1, z2).backward()
    return z1.grad


@pytest.mark.parametrize("loss", ["infonce", "negcos"])
def test_loss_gradients_scale_as_inverse_norm_and_gradscale_cancels_it(loss):
    z1, z2 = rand(16, 6, 11), rand(16, 6, 12)
    for power, expo in [(0.0, -1), (1.0, 0)]:
        fn = ((lambda a, b: S.info_nce_loss(a, b, tau=0.5, power=power)) if loss == "infonce"
              else (lambda a, b: S.negative_cosine_loss(a, b, power=power)))
        g1 = _grad(fn, z1, z2)
        for alpha in (0.01, 3.0, 250.0):
            np.testing.assert_allclose(_grad(fn, alpha * z1, z2).numpy(), (alpha ** expo * g1).numpy(),
                                       rtol=1e-9, atol=1e-13)


def test_info_nce_brute_force():
    z1, z2 = rand(4, 3, 21), rand(4, 3, 22)
    tau = 0.3
    z = F.normalize(torch.cat([z1, z2]), dim=1)
    total = 0.0
    for i in range(8):
        j = (i + 4) % 8
        num = math.exp(float(z[i] @ z[j]) / tau)
        den = sum(math.exp(float(z[i] @ z[m]) / tau) for m in range(8) if m != i)
        total += -math.log(num / den)
    assert float(S.info_nce_loss(z1, z2, tau=tau)) == pytest.approx(total / 8, rel=1e-12)


def test_info_nce_perfect_alignment_beats_random():
    z = rand(32, 16, 5)
    assert float(S.info_nce_loss(z, z)) < float(S.info_nce_loss(z, rand(32, 16, 6)))


def test_negative_cosine_stop_gradient_and_symmetry():
    p1, z2 = rand(8, 4, 1).requires_grad_(), rand(8, 4, 2).requires_grad_()
    loss = S.negative_cosine_loss(p1, z2)
    loss.backward()
    assert z2.grad is None and p1.grad is not None
    assert float(loss.detach()) == pytest.approx(-float(F.cosine_similarity(p1, z2).mean().detach()))
    p2, z1 = rand(8, 4, 3), rand(8, 4, 4)
    sym = S.negative_cosine_loss(p1, z2, p2, z1)
    assert float(sym.detach()) == pytest.approx(0.5 * (float(loss.detach()) + float(S.negative_cosine_loss(p2, z1).detach())))
    with pytest.raises(ValueError, match="both p2 and z1"):
        S.negative_cosine_loss(p1, z2, p2)


def test_loss_bad_inputs():
    with pytest.raises(ValueError, match="tau must be a positive number"):
        S.info_nce_loss(rand(4, 3), rand(4, 3), tau=0)
    with pytest.raises(ValueError, match="at least 2 pairs"):
        S.info_nce_loss(rand(1, 3), rand(1, 3))
    with pytest.raises(ValueError, match="shape"):
        S.info_nce_loss(rand(4, 3), rand(4, 2))


# --- networks, cut-init, augmentations ------------------------------------------------------------
def test_encoder_shapes_and_seeded_init():
    m1 = S.MLPEncoder(16, (8, 6), 4, generator=torch.Generator().manual_seed(3))
    m2 = S.MLPEncoder(16, (8, 6), 4, generator=torch.Generator().manual_seed(3))
    x = torch.rand(5, 4, 4)
    assert m1(x).shape == (5, 4) and m1.features(x).shape == (5, 6)
    assert torch.equal(m1(x), m2(x))
    with pytest.raises(ValueError, match="in_dim must be a positive int"):
        S.MLPEncoder(0)


def test_cut_init_divides_every_parameter_and_shrinks_norms():
    m = S.MLPEncoder(16, (8,), 4, generator=torch.Generator().manual_seed(0), layer_norm=False)
    before = [p.clone() for p in m.parameters()]
    x = torch.rand(20, 16)
    n0 = m(x).norm(dim=1)
    S.cut_init_(m, 3.0)
    for b, p in zip(before, m.parameters()):
        torch.testing.assert_close(p, b / 3.0)
    assert bool((m(x).norm(dim=1) < n0).all())
    with pytest.raises(ValueError, match="c must be a positive number"):
        S.cut_init_(m, -1)


def test_augment_shape_range_and_determinism():
    x = torch.rand(10, 49)
    a = S.augment(x, generator=torch.Generator().manual_seed(1))
    b = S.augment(x, generator=torch.Generator().manual_seed(1))
    assert a.shape == x.shape and torch.equal(a, b)
    assert float(a.min()) >= 0 and float(a.max()) <= 1
    img = S.augment(x.reshape(10, 7, 7), generator=torch.Generator().manual_seed(2))
    assert img.shape == (10, 7, 7)
    ident = S.augment(x, generator=torch.Generator().manual_seed(3), max_rotation=0, scale=(1, 1),
                      max_shift=0, noise=0, erase=0)
    torch.testing.assert_close(ident, x, atol=1e-5, rtol=0)
    with pytest.raises(ValueError, match="not a square image"):
        S.augment(torch.rand(3, 10), generator=torch.Generator())
    with pytest.raises(TypeError, match="torch.Generator"):
        S.augment(x, generator=0)


# --- evaluation -----------------------------------------------------------------------------------
def test_knn_accuracy_known_answer():
    bank = torch.tensor([[1.0, 0.0], [0.9, 0.1], [0.0, 1.0], [0.1, 0.9]])
    y = torch.tensor([0, 0, 1, 1])
    q = torch.tensor([[1.0, 0.05], [0.05, 1.0]])
    assert S.knn_accuracy(bank, y, q, torch.tensor([0, 1]), k=1) == 1.0
    assert S.knn_accuracy(bank, y, q, torch.tensor([1, 1]), k=1) == 0.5
    with pytest.raises(ValueError, match="exceeds the bank size"):
        S.knn_accuracy(bank, y, q, torch.tensor([0, 1]), k=9)


def test_time_to_accuracy():
    assert S.time_to_accuracy([0, 10, 20], [0.1, 0.5, 0.9], 0.5) == 10
    assert S.time_to_accuracy([0, 10, 20], [0.1, 0.5, 0.9], 0.95) == math.inf
    with pytest.raises(ValueError, match="equal length"):
        S.time_to_accuracy([0, 1], [0.1], 0.5)


@settings(max_examples=50, deadline=None)
@given(st.lists(st.integers(0, 5), min_size=1, max_size=15),
       st.lists(st.integers(0, 5), min_size=1, max_size=15))
def test_auroc_matches_brute_force(pos, neg):
    brute = np.mean([1.0 if p > n else 0.5 if p == n else 0.0 for p in pos for n in neg])
    assert S.auroc(pos, neg) == pytest.approx(brute, abs=1e-12)


def test_auroc_interval_contains_estimate():
    rng = np.random.default_rng(0)
    pos, neg = rng.normal(1, 1, 200), rng.normal(0, 1, 200)
    auc, lo, hi = S.auroc_interval(pos, neg, rng=np.random.default_rng(1), n_boot=200)
    assert lo <= auc <= hi and 0.6 < auc < 0.9
    with pytest.raises(ValueError, match="non-empty"):
        S.auroc([], [1.0])
    with pytest.raises(TypeError, match="numpy Generator"):
        S.auroc_interval(pos, neg, rng=0)


# --- the toy simulation ---------------------------------------------------------------------------
def test_align_pairs_norms_never_shrink_and_steps_grow_like_norm_squared():
    rng = np.random.default_rng(0)
    steps = {}
    for r in (1.0, 2.0):
        a, b = S.random_pairs(100, 8, norm=r, rng=rng)
        res = S.align_pairs(a, b, lr=2.0)
        assert res.steps > 0 and res.mean_cos[-1] >= 1 - 1e-3
        assert res.min_norm_increment >= -1e-12
        assert np.all(np.diff(res.mean_norm) >= -1e-12)
        steps[r] = res.steps
    assert 3.0 < steps[2.0] / steps[1.0] < 5.0


def test_align_pairs_already_aligned_takes_zero_steps_and_budget():
    a = np.ones((3, 2))
    assert S.align_pairs(a, a.copy()).steps == 0
    a, b = S.random_pairs(50, 5, norm=10.0, rng=np.random.default_rng(1))
    assert S.align_pairs(a, b, max_steps=3).steps == -1
    with pytest.raises(ValueError, match="eps must lie in"):
        S.align_pairs(a, b, eps=0)
    with pytest.raises(ValueError, match="interpolation must lie in"):
        S.random_pairs(3, 2, norm=1, rng=np.random.default_rng(), interpolation=1.0)


def test_random_pairs_interpolation_sets_the_angle():
    a, b = S.random_pairs(500, 20, norm=2.0, rng=np.random.default_rng(2), interpolation=0.9)
    np.testing.assert_allclose(np.linalg.norm(b, axis=1), 2.0)
    assert np.mean(np.sum(a * b, 1)) / 4.0 < -0.9


# --- training --------------------------------------------------------------------------------------
def test_train_simclr_runs_and_records():
    g = torch.Generator().manual_seed(0)
    X = torch.rand(64, 49)
    y = torch.arange(64) % 4
    m = S.MLPEncoder(49, (16,), 8, generator=g)
    h = S.train_simclr(m, X, steps=6, batch_size=16, lr=0.05, generator=g, warmup=2,
                       monitor=(X, y, X, y), eval_every=3, k=3)
    assert h.loss.shape == (6,) and h.batch_norm.shape == (6,)
    assert list(h.eval_steps) == [0, 3, 6] and np.all((h.knn >= 0) & (h.knn <= 1))
    with pytest.raises(ValueError, match="batch_size = 100 exceeds"):
        S.train_simclr(m, X, steps=1, batch_size=100, lr=0.1, generator=g)


def test_conv_encoder_shapes():
    torch.manual_seed(0)
    m = S.ConvEncoder(side=12, width=4, proj_dim=5)
    x = torch.rand(3, 144)
    assert m(x).shape == (3, 5) and m.features(x).shape == (3, 16)
