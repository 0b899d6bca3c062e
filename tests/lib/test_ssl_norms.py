import math

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats
from sklearn.metrics import roc_auc_score
from torch import nn

from repbook.papers import ssl_norms


def rand(n, d, seed=0):
    gen = torch.Generator().manual_seed(seed)
    return torch.randn(n, d, generator=gen, dtype=torch.float64)


def gen(seed):
    return torch.Generator().manual_seed(seed)


# --- the gradient law
# ---------------------------------------------------------------------
def test_cosine_grad_matches_autograd():
    z, p = rand(50, 8, 1).requires_grad_(), rand(50, 8, 2)
    ssl_norms.cosine_similarity(z, p).sum().backward()
    np.testing.assert_allclose(
        ssl_norms.cosine_grad(z.detach(), p).numpy(),
        z.grad.numpy(),
        rtol=1e-12,
        atol=1e-14,
    )


def test_cosine_grad_is_orthogonal_with_size_sin_over_norm():
    z, p = rand(40, 5, 3) * 7.0, rand(40, 5, 4)
    g = ssl_norms.cosine_grad(z, p)
    cos = ssl_norms.cosine_similarity(z, p)
    np.testing.assert_allclose((g * z).sum(1).numpy(), 0.0, atol=1e-12)
    np.testing.assert_allclose(
        (g.norm(dim=1) * z.norm(dim=1)).numpy(),
        torch.sqrt(1 - cos**2).numpy(),
        rtol=1e-10,
    )


@settings(max_examples=40, deadline=None)
@given(st.floats(1e-3, 1e3), st.integers(0, 10_000))
def test_cosine_grad_scales_as_inverse_norm(alpha, seed):
    z, p = rand(6, 4, seed), rand(6, 4, seed + 1)
    np.testing.assert_allclose(
        (alpha * ssl_norms.cosine_grad(alpha * z, p)).numpy(),
        ssl_norms.cosine_grad(z, p).numpy(),
        rtol=1e-9,
        atol=1e-12,
    )


def test_zero_rows_and_bad_shapes():
    with pytest.raises(ValueError, match="non-zero rows"):
        ssl_norms.cosine_grad(torch.zeros(2, 3), torch.ones(2, 3))
    with pytest.raises(ValueError, match="shape"):
        ssl_norms.cosine_grad(torch.ones(2, 3), torch.ones(3, 3))
    with pytest.raises(TypeError, match="torch tensors"):
        ssl_norms.cosine_similarity(np.ones((2, 3)), torch.ones(2, 3))


# --- GradScale and the losses
# -------------------------------------------------------------
def test_grad_scale_is_identity_forward_and_scales_backward():
    z = rand(5, 3, 7).requires_grad_()
    out = ssl_norms.grad_scale(z, 1.0)
    assert torch.equal(out, z)
    w = rand(5, 3, 8)
    (out * w).sum().backward()
    expected = w * z.detach().norm(dim=1, keepdim=True)
    np.testing.assert_allclose(z.grad.numpy(), expected.numpy())
    assert ssl_norms.grad_scale(z, 0) is z
    with pytest.raises(ValueError, match="power must be a finite number"):
        ssl_norms.grad_scale(z, float("nan"))


def _grad(loss_fn, z1, z2):
    z1 = z1.clone().requires_grad_()
    loss_fn(z1, z2).backward()
    return z1.grad


@pytest.mark.parametrize("loss", ["infonce", "negcos"])
def test_loss_gradients_scale_as_inverse_norm_and_gradscale_cancels_it(loss):
    z1, z2 = rand(16, 6, 11), rand(16, 6, 12)
    for power, expo in [(0.0, -1), (1.0, 0)]:
        if loss == "infonce":

            def fn(a, b):
                return ssl_norms.info_nce_loss(a, b, tau=0.5, power=power)
        else:

            def fn(a, b):
                return ssl_norms.negative_cosine_loss(a, b, power=power)

        g1 = _grad(fn, z1, z2)
        for alpha in (0.01, 3.0, 250.0):
            np.testing.assert_allclose(
                _grad(fn, alpha * z1, z2).numpy(),
                (alpha**expo * g1).numpy(),
                rtol=1e-9,
                atol=1e-13,
            )


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
    loss = float(ssl_norms.info_nce_loss(z1, z2, tau=tau))
    assert loss == pytest.approx(total / 8, rel=1e-12)


def test_info_nce_perfect_alignment_beats_random():
    z = rand(32, 16, 5)
    assert float(ssl_norms.info_nce_loss(z, z)) < float(
        ssl_norms.info_nce_loss(z, rand(32, 16, 6))
    )


def test_negative_cosine_stop_gradient_and_symmetry():
    p1, z2 = rand(8, 4, 1).requires_grad_(), rand(8, 4, 2).requires_grad_()
    loss = ssl_norms.negative_cosine_loss(p1, z2)
    loss.backward()
    assert z2.grad is None and p1.grad is not None
    plain = -float(F.cosine_similarity(p1, z2).mean().detach())
    assert float(loss.detach()) == pytest.approx(plain)
    p2, z1 = rand(8, 4, 3), rand(8, 4, 4)
    sym = float(ssl_norms.negative_cosine_loss(p1, z2, p2, z1).detach())
    other = float(ssl_norms.negative_cosine_loss(p2, z1).detach())
    assert sym == pytest.approx(0.5 * (float(loss.detach()) + other))
    with pytest.raises(ValueError, match="both p2 and z1"):
        ssl_norms.negative_cosine_loss(p1, z2, p2)


def test_loss_bad_inputs():
    with pytest.raises(ValueError, match="tau must be a finite number > 0, got"):
        ssl_norms.info_nce_loss(rand(4, 3), rand(4, 3), tau=0)
    with pytest.raises(ValueError, match="at least 2 pairs"):
        ssl_norms.info_nce_loss(rand(1, 3), rand(1, 3))
    with pytest.raises(ValueError, match="shape"):
        ssl_norms.info_nce_loss(rand(4, 3), rand(4, 2))


def _paired_loss_by_hand(z, labels, keys, tau):
    """The official notebook's loop: row by row, one random same-class partner (here the
    one with the largest key), pairs made symmetric, then −log(num/den) on valid rows.
    """
    n = len(z)
    zh = F.normalize(z, dim=1)
    sim = (zh @ zh.T / tau).exp()
    pos = np.zeros((n, n), dtype=bool)
    valid = np.zeros(n, dtype=bool)
    for i in range(n):
        same = [j for j in range(n) if j != i and labels[j] == labels[i]]
        if same:
            j = max(same, key=lambda m: keys[i, m])
            pos[i, j] = pos[j, i] = True
            valid[i] = valid[j] = True
    losses = []
    for i in range(n):
        if valid[i]:
            num = sum(float(sim[i, j]) for j in range(n) if pos[i, j])
            den = sum(float(sim[i, j]) for j in range(n) if j != i)
            losses.append(-math.log(num / den))
    return float(np.mean(losses))


def test_paired_supervised_info_nce_matches_the_loop():
    z = rand(12, 5, 31)
    labels = torch.tensor([0, 0, 1, 1, 1, 2, 0, 1, 3, 2, 0, 1])
    keys = torch.rand(12, 12, generator=gen(4))
    loss = ssl_norms.paired_supervised_info_nce(z, labels, tau=0.7, generator=gen(4))
    by_hand = _paired_loss_by_hand(z, labels.tolist(), keys.numpy(), 0.7)
    assert float(loss) == pytest.approx(by_hand, rel=1e-12)


def test_paired_supervised_info_nce_bad_inputs():
    with pytest.raises(ValueError, match="no two rows share a label"):
        ssl_norms.paired_supervised_info_nce(
            rand(3, 2), torch.tensor([0, 1, 2]), generator=gen(0)
        )
    with pytest.raises(ValueError, match="labels must be a tensor of shape"):
        ssl_norms.paired_supervised_info_nce(
            rand(3, 2), torch.tensor([0, 1]), generator=gen(0)
        )
    with pytest.raises(TypeError, match="torch.Generator"):
        ssl_norms.paired_supervised_info_nce(
            rand(3, 2), torch.tensor([0, 0, 1]), generator=1
        )


# --- networks, cut-init, augmentations
# ----------------------------------------------------
def test_encoder_shapes_and_seeded_init():
    m1 = ssl_norms.MLPEncoder(16, (8, 6), 4, generator=gen(3))
    m2 = ssl_norms.MLPEncoder(16, (8, 6), 4, generator=gen(3))
    x = torch.rand(5, 4, 4)
    assert m1(x).shape == (5, 4) and m1.features(x).shape == (5, 6)
    assert torch.equal(m1(x), m2(x))
    with pytest.raises(ValueError, match="in_dim must be a positive int"):
        ssl_norms.MLPEncoder(0)


def test_default_init_draws_pytorch_bounds_from_the_generator():
    m = ssl_norms.default_init_(
        nn.Sequential(nn.Linear(9, 4), nn.Conv2d(2, 3, 3)), gen(0)
    )
    for layer, fan_in in [(m[0], 9), (m[1], 18)]:
        bound = 1 / math.sqrt(fan_in)
        assert float(layer.weight.detach().abs().max()) <= bound
        assert float(layer.bias.detach().abs().max()) <= bound
    again = ssl_norms.default_init_(
        nn.Sequential(nn.Linear(9, 4), nn.Conv2d(2, 3, 3)), gen(0)
    )
    assert torch.equal(m[1].weight, again[1].weight)


def test_cut_init_divides_weights_but_not_norm_layers_by_default():
    m = ssl_norms.MLPEncoder(16, (8,), 4, generator=gen(0))
    before = {k: v.clone() for k, v in m.state_dict().items()}
    ssl_norms.cut_init_(m, 3.0)
    for k, v in m.state_dict().items():
        is_norm = k.startswith("backbone.2.")  # the LayerNorm
        torch.testing.assert_close(v, before[k] if is_norm else before[k] / 3.0)
    every = ssl_norms.MLPEncoder(16, (8,), 4, generator=gen(0))
    ssl_norms.cut_init_(every, 3.0, norm_layers=True)
    for k, v in every.state_dict().items():
        torch.testing.assert_close(v, before[k] / 3.0)


def test_cut_init_shrinks_norms_of_a_net_without_normalisation():
    m = ssl_norms.MLPEncoder(16, (8,), 4, generator=gen(0), layer_norm=False)
    x = torch.rand(20, 16)
    n0 = m(x).norm(dim=1)
    ssl_norms.cut_init_(m, 3.0)
    assert bool((m(x).norm(dim=1) < n0).all())
    with pytest.raises(ValueError, match="c must be a finite number > 0, got"):
        ssl_norms.cut_init_(m, -1)


def test_mlp_builder():
    net = ssl_norms.mlp([6, 5, 3], generator=gen(1))
    assert isinstance(net[-1], nn.Linear) and len(net) == 3
    assert net(torch.rand(4, 6)).shape == (4, 3)
    with pytest.raises(ValueError, match="an input and an output width at least"):
        ssl_norms.mlp([3], generator=gen(1))


def test_augment_shape_range_and_determinism():
    x = torch.rand(10, 49)
    a = ssl_norms.augment(x, generator=gen(1))
    b = ssl_norms.augment(x, generator=gen(1))
    assert a.shape == x.shape and torch.equal(a, b)
    assert float(a.min()) >= 0 and float(a.max()) <= 1
    img = ssl_norms.augment(x.reshape(10, 7, 7), generator=gen(2))
    assert img.shape == (10, 7, 7)
    ident = ssl_norms.augment(
        x, generator=gen(3), max_rotation=0, scale=(1, 1), max_shift=0, noise=0, erase=0
    )
    torch.testing.assert_close(ident, x, atol=1e-5, rtol=0)
    with pytest.raises(ValueError, match="not a square image"):
        ssl_norms.augment(torch.rand(3, 10), generator=torch.Generator())
    with pytest.raises(TypeError, match="torch.Generator"):
        ssl_norms.augment(x, generator=0)


def test_views_are_augment_calls_and_pairs_differ():
    x = torch.rand(6, 49)
    v = ssl_norms.make_views(x, 3, generator=gen(5), chunk=4, noise=0.0)
    assert v.views.shape == (3, 6, 49) and len(v) == 6 and v.n_views == 3
    g = gen(5)
    first = torch.cat(
        [
            ssl_norms.augment(x[:4], generator=g, noise=0.0),
            ssl_norms.augment(x[4:], generator=g, noise=0.0),
        ]
    )
    torch.testing.assert_close(v.views[0], first)
    idx = torch.arange(6).repeat(20)
    a, b = v.pairs(idx, generator=gen(6))
    flat = v.views.reshape(3 * 6, 49)
    ia = [int((flat == r).all(1).nonzero()[0]) for r in a]
    ib = [int((flat == r).all(1).nonzero()[0]) for r in b]
    assert all(p % 6 == q % 6 == int(i) for p, q, i in zip(ia, ib, idx))
    assert all(p != q for p, q in zip(ia, ib))
    assert v.subset(torch.tensor([0, 2])).views.shape == (3, 2, 49)
    with pytest.raises(ValueError, match="at least 2 views"):
        ssl_norms.AugmentedViews(torch.zeros(1, 3, 4))


# --- evaluation
# ---------------------------------------------------------------------------
def test_knn_accuracy_known_answer():
    bank = torch.tensor([[1.0, 0.0], [0.9, 0.1], [0.0, 1.0], [0.1, 0.9]])
    y = torch.tensor([0, 0, 1, 1])
    q = torch.tensor([[1.0, 0.05], [0.05, 1.0]])
    assert ssl_norms.knn_accuracy(bank, y, q, torch.tensor([0, 1]), k=1) == 1.0
    assert ssl_norms.knn_accuracy(bank, y, q, torch.tensor([1, 1]), k=1) == 0.5
    with pytest.raises(ValueError, match="exceeds the bank size"):
        ssl_norms.knn_accuracy(bank, y, q, torch.tensor([0, 1]), k=9)


def test_knn_accuracy_by_norm_bins():
    bank = torch.tensor([[1.0, 0.0], [0.0, 1.0]])
    bank_y = torch.tensor([0, 1])
    # four queries, norms 1..4; the two short ones point the wrong way for their label
    q = torch.tensor([[1.0, 0.0], [0.0, 2.0], [3.0, 0.0], [0.0, 4.0]])
    qy = torch.tensor([1, 0, 0, 1])
    acc = ssl_norms.knn_accuracy_by_norm(bank, bank_y, q, qy, n_bins=2, k=1)
    np.testing.assert_array_equal(acc, [0.0, 1.0])
    with pytest.raises(ValueError, match="exceeds the number of queries"):
        ssl_norms.knn_accuracy_by_norm(bank, bank_y, q, qy, n_bins=5, k=1)


def test_time_to_accuracy():
    assert ssl_norms.time_to_accuracy([0, 10, 20], [0.1, 0.5, 0.9], 0.5) == 10
    assert ssl_norms.time_to_accuracy([0, 10, 20], [0.1, 0.5, 0.9], 0.95) == math.inf
    with pytest.raises(ValueError, match="equal length"):
        ssl_norms.time_to_accuracy([0, 1], [0.1], 0.5)


def test_accuracy_area():
    assert ssl_norms.accuracy_area([0, 10, 20], [0.5, 0.5, 0.5]) == pytest.approx(0.5)
    assert ssl_norms.accuracy_area([0, 10, 30], [0.0, 1.0, 1.0]) == pytest.approx(
        25 / 30
    )
    faster = ssl_norms.accuracy_area([0, 10, 20], [0.2, 0.8, 0.8])
    assert faster > ssl_norms.accuracy_area([0, 10, 20], [0.2, 0.2, 0.8])
    with pytest.raises(ValueError, match="steps must increase"):
        ssl_norms.accuracy_area([0, 0], [0.1, 0.2])


@settings(max_examples=50, deadline=None)
@given(
    st.lists(st.integers(0, 5), min_size=1, max_size=15),
    st.lists(st.integers(0, 5), min_size=1, max_size=15),
)
def test_auroc_matches_brute_force(pos, neg):
    brute = np.mean(
        [1.0 if p > n else 0.5 if p == n else 0.0 for p in pos for n in neg]
    )
    assert ssl_norms.auroc(pos, neg) == pytest.approx(brute, abs=1e-12)


def test_auroc_agrees_with_scikit_learn():
    rng = np.random.default_rng(3)
    pos, neg = rng.normal(0.5, 1, 120), np.round(rng.normal(0, 1, 90), 1)
    labels = np.r_[np.ones(120), np.zeros(90)]
    expected = roc_auc_score(labels, np.r_[pos, neg])
    assert ssl_norms.auroc(pos, neg) == pytest.approx(expected, abs=1e-12)


def test_auroc_interval_contains_estimate_and_is_a_percentile_bootstrap():
    rng = np.random.default_rng(0)
    pos, neg = rng.normal(1, 1, 200), rng.normal(0, 1, 200)
    auc, lo, hi = ssl_norms.auroc_interval(
        pos, neg, rng=np.random.default_rng(1), n_boot=400
    )
    assert lo <= auc <= hi and 0.6 < auc < 0.9
    again = ssl_norms.auroc_interval(pos, neg, rng=np.random.default_rng(1), n_boot=400)
    assert again == (auc, lo, hi)
    # the same resamples drawn by hand (scipy draws both groups' indices in one call
    # each)
    boot = np.random.default_rng(1)
    ip = boot.integers(0, 200, (400, 200))
    ineg = boot.integers(0, 200, (400, 200))
    by_hand = [ssl_norms.auroc(pos[a], neg[b]) for a, b in zip(ip, ineg)]
    lo_h, hi_h = np.percentile(by_hand, [2.5, 97.5])
    assert abs(lo - lo_h) < 0.02 and abs(hi - hi_h) < 0.02
    with pytest.raises(ValueError, match="non-empty"):
        ssl_norms.auroc([], [1.0])
    with pytest.raises(TypeError, match="rng must be a numpy.random.Generator"):
        ssl_norms.auroc_interval(pos, neg, rng=0)


# --- the toy simulation
# -------------------------------------------------------------------
def test_align_pairs_norms_never_shrink_and_steps_grow_like_norm_squared():
    rng = np.random.default_rng(0)
    steps = {}
    for r in (1.0, 2.0):
        a, b = ssl_norms.random_pairs(100, 8, norm=r, rng=rng)
        res = ssl_norms.align_pairs(a, b, lr=2.0)
        assert res.steps > 0 and res.mean_cos[-1] >= 1 - 1e-3
        assert res.min_norm_increment >= -1e-12
        assert np.all(np.diff(res.mean_norm) >= -1e-12)
        steps[r] = res.steps
    assert 3.0 < steps[2.0] / steps[1.0] < 5.0


def test_align_pairs_already_aligned_takes_zero_steps_and_budget():
    a = np.ones((3, 2))
    assert ssl_norms.align_pairs(a, a.copy()).steps == 0
    a, b = ssl_norms.random_pairs(50, 5, norm=10.0, rng=np.random.default_rng(1))
    assert ssl_norms.align_pairs(a, b, max_steps=3).steps == -1
    with pytest.raises(ValueError, match="eps must lie in"):
        ssl_norms.align_pairs(a, b, eps=0)
    with pytest.raises(ValueError, match="interpolation must lie in"):
        ssl_norms.random_pairs(
            3, 2, norm=1, rng=np.random.default_rng(), interpolation=1.0
        )


def test_random_pairs_interpolation_sets_the_angle():
    a, b = ssl_norms.random_pairs(
        500, 20, norm=2.0, rng=np.random.default_rng(2), interpolation=0.9
    )
    np.testing.assert_allclose(np.linalg.norm(b, axis=1), 2.0)
    assert np.mean(np.sum(a * b, 1)) / 4.0 < -0.9


# --- the class-imbalance simulation
# -------------------------------------------------------
def test_spherical_classes_shapes_frequencies_and_determinism():
    X, y = ssl_norms.spherical_classes(4000, [1, 2, 4, 8], rng=np.random.default_rng(0))
    assert X.shape == (4000, 64) and X.dtype == np.float32 and y.dtype == np.int64
    freq = np.bincount(y, minlength=4) / 4000
    np.testing.assert_allclose(freq, np.array([1, 2, 4, 8]) / 15, atol=0.02)
    X2, y2 = ssl_norms.spherical_classes(
        4000, [1, 2, 4, 8], rng=np.random.default_rng(0)
    )
    assert np.array_equal(X, X2) and np.array_equal(y, y2)
    # one linear map of 10-dimensional latent points: 10 non-zero singular values
    sv = np.linalg.svd(X.astype(float), compute_uv=False)
    assert sv[9] > 1e-2 * sv[0] and sv[10] < 1e-5 * sv[0]
    with pytest.raises(ValueError, match="class_weights must be"):
        ssl_norms.spherical_classes(10, [1, -1], rng=np.random.default_rng(0))


def test_paired_loss_batched_over_runs_equals_each_run():
    z = rand(2 * 10, 4, 41).reshape(2, 10, 4)
    labels = torch.tensor(
        [[0, 0, 1, 1, 2, 2, 0, 1, 2, 0], [1, 1, 1, 0, 0, 3, 3, 0, 1, 0]]
    )
    both = ssl_norms.paired_supervised_info_nce(z, labels, tau=0.5, generator=gen(9))
    keys = torch.rand(2, 10, 10, generator=gen(9))
    for r in range(2):
        by_hand = _paired_loss_by_hand(z[r], labels[r].tolist(), keys[r].numpy(), 0.5)
        assert float(both[r]) == pytest.approx(by_hand, rel=1e-12)


def test_runs_mlp_is_independent_mlps_side_by_side():
    gens = [gen(1), gen(2), gen(3)]
    runs = ssl_norms.RunsMLP([5, 7, 3], gens)
    singles = [ssl_norms.mlp([5, 7, 3], generator=g) for g in (gen(1), gen(2), gen(3))]
    x = torch.rand(3, 4, 5)
    out = runs(x)
    for r, net in enumerate(singles):
        torch.testing.assert_close(out[r], net(x[r]))
    out[1].sum().backward()  # a loss of run 1 moves run 1 only
    for w in runs.weights:
        assert float(w.grad[0].abs().max()) == 0 == float(w.grad[2].abs().max())
        assert float(w.grad[1].abs().max()) > 0
    with pytest.raises(ValueError, match="x must have shape"):
        runs(torch.rand(2, 4, 5))


def test_train_class_norms_records_every_epoch_and_is_seeded():
    data = [
        ssl_norms.spherical_classes(200, [1, 3], rng=np.random.default_rng(r))
        for r in (1, 2)
    ]
    X = torch.tensor(np.stack([d[0] for d in data]))
    y = torch.tensor(np.stack([d[1] for d in data]))
    out = []
    for _ in range(2):
        net = ssl_norms.RunsMLP([64, 16, 4], [gen(2), gen(5)])
        out.append(
            ssl_norms.train_class_norms(
                net, X, y, epochs=3, batch_size=64, lr=0.01, generator=gen(3)
            )
        )
    assert out[0].shape == (2, 4, 2) and np.array_equal(out[0], out[1])
    assert np.all(out[0] > 0) and not np.array_equal(out[0][:, 0], out[0][:, -1])
    # before training: the mean norm of each class under the untrained nets
    first = ssl_norms.mlp([64, 16, 4], generator=gen(2))(X[0]).norm(dim=1).detach()
    expected = [float(first[y[0] == c].mean()) for c in (0, 1)]
    np.testing.assert_allclose(out[0][0, 0], expected, rtol=1e-6)
    with pytest.raises(ValueError, match="labels must have shape"):
        ssl_norms.train_class_norms(
            net, X, y[:, :5], epochs=1, batch_size=8, lr=0.1, generator=gen(0)
        )
    sparse = ssl_norms.train_class_norms(
        ssl_norms.RunsMLP([64, 16, 4], [gen(2), gen(5)]),
        X,
        y,
        epochs=5,
        batch_size=64,
        lr=0.01,
        generator=gen(3),
        record_every=2,
    )
    assert sparse.shape == (2, 4, 2)
    assert list(ssl_norms.recorded_epochs(5, 2)) == [0, 2, 4, 5]


def test_frequency_trend_known_answer_and_interval():
    w = [1, 2, 4, 8]
    # run r: value = a_r + b_r·log2(w); the offsets a_r must not matter
    values = np.array([[a + b * k for k in range(4)] for a, b in [(5, 1.0), (-2, 3.0)]])
    tr = ssl_norms.frequency_trend(values, w)
    np.testing.assert_allclose(tr.slopes, [1.0, 3.0])
    assert tr.mean == pytest.approx(2.0)
    half = stats.t.ppf(0.975, 1) * np.std([1.0, 3.0], ddof=1) / np.sqrt(2)
    assert (tr.low, tr.high) == pytest.approx((2 - half, 2 + half))
    with pytest.raises(ValueError, match="values must be"):
        ssl_norms.frequency_trend(values[:1], w)


# --- training
# -----------------------------------------------------------------------------
def test_train_simclr_runs_and_records():
    g = gen(0)
    X = torch.rand(64, 49)
    y = torch.arange(64) % 4
    m = ssl_norms.MLPEncoder(49, (16,), 8, generator=g)
    h = ssl_norms.train_simclr(
        m,
        X,
        steps=6,
        batch_size=16,
        lr=0.05,
        generator=g,
        warmup=2,
        monitor=(X, y, X, y),
        eval_every=3,
        k=3,
    )
    assert h.loss.shape == (6,) and h.batch_norm.shape == (6,)
    assert list(h.eval_steps) == [0, 3, 6] and np.all((h.knn >= 0) & (h.knn <= 1))
    with pytest.raises(ValueError, match="batch_size = 100 exceeds"):
        ssl_norms.train_simclr(m, X, steps=1, batch_size=100, lr=0.1, generator=g)


def test_train_simclr_on_fixed_views_is_seeded():
    X = torch.rand(64, 49)
    views = ssl_norms.make_views(X, 4, generator=gen(1))
    runs = []
    for _ in range(2):
        m = ssl_norms.MLPEncoder(49, (16,), 8, generator=gen(2))
        runs.append(
            ssl_norms.train_simclr(
                m, views, steps=5, batch_size=16, lr=0.05, generator=gen(3)
            ).loss
        )
    assert np.array_equal(runs[0], runs[1]) and np.all(np.isfinite(runs[0]))
    with pytest.raises(ValueError, match="aug applies to images"):
        ssl_norms.train_simclr(
            m,
            views,
            steps=1,
            batch_size=8,
            lr=0.1,
            generator=gen(0),
            aug={"noise": 0.1},
        )


def test_conv_encoder_shapes_and_seeded_init():
    m = ssl_norms.ConvEncoder(side=12, width=4, proj_dim=5, generator=gen(0))
    x = torch.rand(3, 144)
    assert m(x).shape == (3, 5) and m.features(x).shape == (3, 16)
    again = ssl_norms.ConvEncoder(side=12, width=4, proj_dim=5, generator=gen(0))
    assert torch.equal(m(x), again(x))


# --- the chapter's protocols
# -----------------------------------------------------------------------------
def test_bracket_extends_past_an_edge_until_the_optimum_is_inside():
    calls = []

    def score(lr):
        calls.append(lr)
        return -((math.log(lr) - math.log(0.05)) ** 2)

    b = ssl_norms.bracket_learning_rate(score, [0.003, 0.01, 0.03])
    assert b.bracketed and b.best == pytest.approx(0.03)
    assert sorted(b.scores) == pytest.approx([0.003, 0.01, 0.03, 0.09])
    assert len(calls) == 4  # one extension, at the upper end
    low = ssl_norms.bracket_learning_rate(
        score_low := (lambda lr: -lr), [0.01, 0.1], max_extensions=2
    )
    assert not low.bracketed and low.best == pytest.approx(0.0001)
    assert len(low.scores) == 4 and score_low(1.0) == -1.0
    none = ssl_norms.bracket_learning_rate(
        lambda lr: -lr, [0.01, 0.1], max_extensions=0
    )
    assert none.best == 0.01 and not none.bracketed
    tie = ssl_norms.bracket_learning_rate(
        lambda lr: 0.0, [0.1, 0.2, 0.4], max_extensions=0
    )
    assert tie.best == 0.1  # ties go to the smaller rate


def test_bracket_treats_a_diverged_rate_as_worst_and_rejects_bad_grids():
    b = ssl_norms.bracket_learning_rate(
        lambda lr: -math.inf if lr > 0.05 else lr, [0.01, 0.03], max_extensions=2
    )
    assert b.best == pytest.approx(0.03) and b.bracketed
    with pytest.raises(ValueError, match="grid must hold"):
        ssl_norms.bracket_learning_rate(lambda lr: 0.0, [0.1])
    with pytest.raises(ValueError, match="grid must hold"):
        ssl_norms.bracket_learning_rate(lambda lr: 0.0, [0.1, 0.1])
    with pytest.raises(ValueError, match="max_extensions"):
        ssl_norms.bracket_learning_rate(lambda lr: 0.0, [0.1, 0.2], max_extensions=-1)


def _history(knn, loss=(1.0,), steps=None):
    knn = np.asarray(knn, dtype=float)
    steps = np.arange(len(knn)) * 10 if steps is None else np.asarray(steps)
    return ssl_norms.TrainHistory(
        np.asarray(loss, float), np.ones(1), steps, knn, np.ones(len(knn))
    )


def test_tuning_score_is_the_second_half_area_and_minus_inf_when_diverged():
    h = _history([0.1, 0.2, 0.3, 0.5, 0.7])  # steps 0..40, second half from 20
    assert ssl_norms.tuning_score(h) == pytest.approx(
        ssl_norms.accuracy_area([20, 30, 40], [0.3, 0.5, 0.7])
    )
    assert (
        ssl_norms.tuning_score(_history([0.1, 0.2, 0.3], loss=(1.0, math.nan)))
        == -math.inf
    )


def test_times_to_target_per_seed_with_a_cap():
    hs = {
        ("a", 0): _history([0.1, 0.5, 0.9]),
        ("a", 1): _history([0.1, 0.2, 0.3]),
    }
    out = ssl_norms.times_to_target(hs, [0.5, 0.5], never=99)
    assert out == {("a", 0): 10.0, ("a", 1): 99}
    with pytest.raises(ValueError, match="no target for seed 1"):
        ssl_norms.times_to_target(hs, [0.5], never=99)


def test_norm_trend_is_kendall_with_a_one_sided_p():
    steps = np.arange(8)
    tau, p = ssl_norms.norm_trend(steps, steps**2 + 1.0)
    assert tau == pytest.approx(1.0) and p < 1e-3
    res = stats.kendalltau(steps, [3, 1, 4, 1.5, 5, 9, 2, 6], alternative="greater")
    assert ssl_norms.norm_trend(steps, [3, 1, 4, 1.5, 5, 9, 2, 6]) == pytest.approx(
        (res.statistic, res.pvalue)
    )
    assert ssl_norms.norm_trend(steps, -steps.astype(float))[1] > 0.99
    with pytest.raises(ValueError, match="equal length"):
        ssl_norms.norm_trend([0, 1], [1.0, 2.0])
    with pytest.raises(ValueError, match="finite"):
        ssl_norms.norm_trend(steps, np.r_[np.ones(7), np.nan])


def test_protocol_shares_initial_weights_and_cuts_every_parameter():
    X = torch.rand(64, 784)
    y = torch.arange(64) % 4
    P = ssl_norms.SimCLRProtocol(
        data=X,
        bank=(X[:32], y[:32]),
        init_generator=lambda s: gen(100 + s),
        train_generator=lambda s: gen(200 + s),
        steps=4,
        batch_size=16,
        warmup=2,
        eval_every=2,
        aug={"noise": 0.05},
    )
    base, cut = P.encoder_for(0), P.encoder_for(0, 3.0)
    spare = P.encoder_for(0, 3.0, cut_all=False)
    norm_names = {
        f"{m}.{p}"
        for m, mod in base.named_modules()
        if isinstance(mod, nn.LayerNorm)
        for p, _ in mod.named_parameters(recurse=False)
    }
    assert len(norm_names) == 2  # the backbone's LayerNorm: scale and shift
    for (name, p0), p1, p2 in zip(
        base.named_parameters(), cut.parameters(), spare.parameters()
    ):
        assert torch.allclose(p1 * 3.0, p0)  # cut_all: every parameter
        if name in norm_names:  # spared only without cut_all
            assert torch.equal(p2, p0)
        else:
            assert torch.allclose(p2 * 3.0, p0)
    m1, h1 = P.run(0, 0.05, queries=(X[32:], y[32:]))
    m2, h2 = P.run(0, 0.05, queries=(X[32:], y[32:]))
    assert np.array_equal(h1.loss, h2.loss) and list(h1.eval_steps) == [0, 2, 4]
    _, h3 = P.run(0, 0.05, power=1.0, weight_decay=0.1, steps=2, queries=None)
    assert h3.loss.shape == (2,) and h3.eval_steps.size == 0
    with pytest.raises(ValueError, match="encoder must be"):
        ssl_norms.SimCLRProtocol(
            X, (X, y), lambda s: gen(s), lambda s: gen(s), encoder="vit"
        )
    with pytest.raises(TypeError, match="callables"):
        ssl_norms.SimCLRProtocol(X, (X, y), gen(0), gen(1))
