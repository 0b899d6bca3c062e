import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from torch.func import functional_call

from repbook.papers import butterfly


def gen(seed=0):
    return torch.Generator().manual_seed(seed)


@pytest.fixture(scope="module")
def toy():
    """A small MLP and a learnable 3-class problem."""
    g = gen(1)
    X = torch.randn(96, 12, generator=g)
    y = (X[:, :3].argmax(1)).long()
    model = butterfly.MLP([12, 16, 16, 3])
    return model, X, y


# --- models and initialisation -----------------------------------------------------------------
def test_mlp_forward_and_features():
    m = butterfly.MLP([6, 5, 4, 3])
    p = butterfly.init_params(m, generator=gen())
    out, feats = functional_call(
        m, p, (torch.randn(7, 2, 3),), {"return_features": True}
    )
    assert out.shape == (7, 3) and [f.shape for f in feats] == [(7, 5), (7, 4)]
    assert all((f >= 0).all() for f in feats)


def test_resnet_shapes_and_depth_check():
    r = butterfly.ResNetLN(depth=8, width=4, in_channels=1, n_classes=10)
    p = butterfly.init_params(r, generator=gen())
    out, feats = functional_call(
        r, p, (torch.randn(2, 1, 28, 28),), {"return_features": True}
    )
    assert out.shape == (2, 10) and len(feats) == 3
    assert feats[-1].shape == (2, 16, 7, 7)
    assert sum(b.has_shortcut for b in r.blocks) == 2
    with pytest.raises(ValueError, match="depth must be 6n"):
        butterfly.ResNetLN(depth=10)


def test_init_stds_and_params():
    m = butterfly.MLP([100, 50, 10])
    stds = butterfly.init_stds(m)
    assert stds["layers.0.weight"] == pytest.approx(math.sqrt(2 / 100))
    assert stds["layers.1.weight"] == pytest.approx(math.sqrt(2 / 50))
    assert stds["layers.0.bias"] == 0.0
    p = butterfly.init_params(m, generator=gen(3))
    q = butterfly.init_params(m, generator=gen(3))
    assert all(torch.equal(p[k], q[k]) for k in p)
    assert float(p["layers.0.weight"].std()) == pytest.approx(
        math.sqrt(2 / 100), rel=0.05
    )
    assert torch.count_nonzero(p["layers.0.bias"]) == 0
    assert butterfly.perturbable(m) == ["layers.0.weight", "layers.1.weight"]
    r = butterfly.ResNetLN(depth=8, width=4, in_channels=1)
    assert butterfly.init_stds(r)["stem_conv.weight"] == pytest.approx(math.sqrt(2 / 9))
    rp = butterfly.init_params(r, generator=gen())
    assert torch.equal(rp["stem_norm.weight"], torch.ones(4))


def test_init_needs_a_generator():
    with pytest.raises(TypeError, match="generator must be a torch.Generator"):
        butterfly.init_params(butterfly.MLP([3, 2]), generator=0)


# --- batches and schedule -----------------------------------------------------------------------
def test_batch_order():
    order = butterfly.batch_order(10, batch_size=3, epochs=4, generator=gen())
    assert order.shape == (12, 3)
    for e in range(4):
        ep = order[3 * e : 3 * e + 3].flatten()
        assert len(set(ep.tolist())) == 9 and ep.max() < 10
    assert torch.equal(
        order, butterfly.batch_order(10, batch_size=3, epochs=4, generator=gen())
    )


@pytest.mark.parametrize(
    "kw, msg",
    [
        (dict(n=5, batch_size=6, epochs=1), "batch_size must be at most"),
        (dict(n=5, batch_size=0, epochs=1), "batch_size must be a positive int, got 0"),
        (dict(n=5, batch_size=2, epochs=1.5), "epochs must be a positive int, got 1.5"),
    ],
)
def test_batch_order_bad(kw, msg):
    n = kw.pop("n")
    with pytest.raises(ValueError, match=msg):
        butterfly.batch_order(n, generator=gen(), **kw)


def test_triangle_schedule():
    lrs = butterfly.triangle_schedule(100, peak_lr=0.1, warmup_frac=0.1)
    assert lrs.shape == (100,) and np.all(lrs > 0)
    assert lrs.max() == pytest.approx(0.1) and int(np.argmax(lrs)) == 9
    assert np.all(np.diff(lrs[:10]) > 0) and np.all(np.diff(lrs[10:]) < 0)
    assert lrs[-1] == pytest.approx(0.1 / 90)
    flat = butterfly.triangle_schedule(10, peak_lr=1.0, warmup_frac=0.0)
    np.testing.assert_allclose(flat, np.arange(10, 0, -1) / 10)
    with pytest.raises(
        ValueError, match=r"warmup_frac must be a number in \[0, 1\), got 1.0"
    ):
        butterfly.triangle_schedule(10, peak_lr=1.0, warmup_frac=1.0)
    with pytest.raises(
        ValueError, match="peak_lr must be a finite number > 0, got -1.0"
    ):
        butterfly.triangle_schedule(10, peak_lr=-1.0, warmup_frac=0.1)


# --- training -------------------------------------------------------------------------------------
def test_train_equals_torch_sgd(toy):
    model, X, y = toy
    p = butterfly.init_params(model, generator=gen())
    order = butterfly.batch_order(len(y), batch_size=16, epochs=3, generator=gen(2))
    lrs = butterfly.triangle_schedule(len(order), peak_lr=0.2, warmup_frac=0.1)
    res = butterfly.train(
        model, butterfly.TrainState.start(p), X, y, order, lrs, momentum=0.9
    )
    net = butterfly.MLP([12, 16, 16, 3])
    net.load_state_dict(p)
    opt = torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
    for s in range(len(order)):
        for grp in opt.param_groups:
            grp["lr"] = float(lrs[s])
        opt.zero_grad()
        torch.nn.functional.cross_entropy(net(X[order[s]]), y[order[s]]).backward()
        opt.step()
    for k, v in net.named_parameters():
        torch.testing.assert_close(res.final.params[k], v.detach(), rtol=0, atol=1e-6)


def test_train_is_deterministic_and_resumable(toy):
    """The spawn property: continuing from a saved state reproduces the full run bit for bit."""
    model, X, y = toy
    p = butterfly.init_params(model, generator=gen())
    order = butterfly.batch_order(len(y), batch_size=16, epochs=3, generator=gen(2))
    lrs = butterfly.triangle_schedule(len(order), peak_lr=0.2, warmup_frac=0.1)
    full = butterfly.train(
        model,
        butterfly.TrainState.start(p),
        X,
        y,
        order,
        lrs,
        save_at=[0, 7, len(order)],
    )
    again = butterfly.train(model, butterfly.TrainState.start(p), X, y, order, lrs)
    resumed = butterfly.train(model, full.saved[7], X, y, order, lrs)
    for k in p:
        assert torch.equal(full.final.params[k], again.final.params[k])
        assert torch.equal(full.final.params[k], resumed.final.params[k])
        assert torch.equal(full.saved[len(order)].params[k], full.final.params[k])
    assert resumed.final.step == len(order) and full.saved[7].step == 7
    ref = {s: st.params for s, st in full.saved.items()}
    dist = butterfly.train(
        model, butterfly.TrainState.start(p), X, y, order, lrs, distance_to=ref
    ).distances
    assert dist == {0: 0.0, 7: 0.0, len(order): 0.0}


def test_train_does_not_modify_inputs(toy):
    model, X, y = toy
    p = butterfly.init_params(model, generator=gen())
    copy = {k: v.clone() for k, v in p.items()}
    state = butterfly.TrainState.start(p)
    order = butterfly.batch_order(len(y), batch_size=16, epochs=1, generator=gen(2))
    butterfly.train(model, state, X, y, order, np.full(len(order), 0.1))
    assert all(
        torch.equal(p[k], copy[k]) and torch.equal(state.params[k], copy[k]) for k in p
    )
    assert all(torch.count_nonzero(state.momentum[k]) == 0 for k in p)


def test_train_bad_inputs(toy):
    model, X, y = toy
    state = butterfly.TrainState.start(butterfly.init_params(model, generator=gen()))
    order = butterfly.batch_order(len(y), batch_size=16, epochs=1, generator=gen(2))
    with pytest.raises(ValueError, match="stop"):
        butterfly.train(
            model, state, X, y, order, np.ones(len(order)), stop=len(order) + 1
        )
    with pytest.raises(ValueError, match="lrs has 2 entries"):
        butterfly.train(model, state, X, y, order, np.ones(2))
    with pytest.raises(ValueError, match="save_at"):
        butterfly.train(
            model, state, X, y, order, np.ones(len(order)), stop=3, save_at=[5]
        )
    with pytest.raises(ValueError, match="same, non-zero number of rows"):
        butterfly.train(model, state, X, y[:-1], order, np.ones(len(order)))
    with pytest.raises(
        ValueError, match=r"momentum must be a number in \[0, 1\), got 1.0"
    ):
        butterfly.train(model, state, X, y, order, np.ones(len(order)), momentum=1.0)


# --- perturbations --------------------------------------------------------------------------------
def test_gaussian_perturbation_scale_and_mask():
    m = butterfly.MLP([30, 20, 20, 5])
    p = butterfly.init_params(m, generator=gen())
    stds = butterfly.init_stds(m)
    eps = butterfly.gaussian_perturbation(p, stds, sigma=0.01, generator=gen(5))
    expected = 0.01 * math.sqrt(
        sum(stds[k] ** 2 * p[k].numel() for k in butterfly.perturbable(m))
    )
    assert butterfly.l2_distance(
        eps, {k: torch.zeros_like(v) for k, v in p.items()}
    ) == pytest.approx(expected, rel=1e-6)
    assert all(torch.count_nonzero(eps[k]) == 0 for k in p if k.endswith("bias"))
    one = butterfly.gaussian_perturbation(
        p, stds, sigma=0.5, generator=gen(5), n_weights=1
    )
    nz = [
        (k, int(torch.count_nonzero(v)))
        for k, v in one.items()
        if torch.count_nonzero(v)
    ]
    assert len(nz) == 1 and nz[0][1] == 1
    assert float(one[nz[0][0]].abs().sum()) == pytest.approx(
        0.5 * stds[nz[0][0]], rel=1e-6
    )
    zero = butterfly.gaussian_perturbation(p, stds, sigma=0.0, generator=gen(5))
    assert all(torch.count_nonzero(v) == 0 for v in zero.values())
    again = butterfly.gaussian_perturbation(p, stds, sigma=0.01, generator=gen(5))
    assert all(torch.equal(eps[k], again[k]) for k in p)
    moved = butterfly.add(p, eps)
    assert butterfly.l2_distance(moved, p) == pytest.approx(expected, rel=1e-4)


@pytest.mark.parametrize(
    "kw, msg",
    [
        (dict(sigma=-1.0), "sigma must be a finite number ≥ 0, got -1.0"),
        (dict(sigma=float("nan")), "sigma must be a finite number ≥ 0, got nan"),
        (dict(sigma=0.1, n_weights=10**9), "n_weights must be at most"),
        (dict(sigma=0.1, names=["layers.0.bias"]), "positive init std"),
    ],
)
def test_gaussian_perturbation_bad(kw, msg):
    m = butterfly.MLP([4, 3, 2])
    p = butterfly.init_params(m, generator=gen())
    with pytest.raises(ValueError, match=msg):
        butterfly.gaussian_perturbation(
            p, butterfly.init_stds(m), generator=gen(), **kw
        )


def test_one_ulp_changes_exactly_one_entry_by_one_ulp():
    m = butterfly.MLP([4, 3, 2])
    p = butterfly.init_params(m, generator=gen())
    q = butterfly.nudge_one_ulp(p, name="layers.1.weight", index=4)
    diff = {k: int((p[k] != q[k]).sum()) for k in p}
    assert diff == {
        "layers.0.weight": 0,
        "layers.0.bias": 0,
        "layers.1.weight": 1,
        "layers.1.bias": 0,
    }
    old = p["layers.1.weight"].view(-1)[4].numpy()
    new = q["layers.1.weight"].view(-1)[4].numpy()
    assert new == np.nextafter(old, np.float32(np.inf)) and new != old
    down = butterfly.nudge_one_ulp(p, name="layers.1.weight", index=4, direction=-1)
    assert down["layers.1.weight"].view(-1)[4].numpy() == np.nextafter(
        old, np.float32(-np.inf)
    )
    with pytest.raises(ValueError, match="index must be an int in"):
        butterfly.nudge_one_ulp(p, name="layers.1.weight", index=6)
    with pytest.raises(ValueError, match="name must be one of"):
        butterfly.nudge_one_ulp(p, name="nope", index=0)


def test_pick_weight_covers_tensors_in_proportion_to_size():
    p = {"a": torch.zeros(3), "b": torch.zeros(2, 3), "c": torch.zeros(1)}
    g = gen(7)
    picks = [butterfly.pick_weight(p, ["a", "b"], generator=g) for _ in range(3000)]
    assert all(0 <= i < p[k].numel() for k, i in picks)
    frac_b = np.mean([k == "b" for k, _ in picks])
    assert frac_b == pytest.approx(6 / 9, abs=0.03)
    assert {i for k, i in picks if k == "b"} == set(range(6))
    with pytest.raises(ValueError, match="non-empty list"):
        butterfly.pick_weight(p, ["zz"], generator=g)


# --- divergence measures --------------------------------------------------------------------------
def test_l2_distance_known_answer_and_errors():
    a = {"w": torch.tensor([[1.0, 2.0]]), "b": torch.tensor([0.0])}
    b = {"w": torch.tensor([[4.0, 6.0]]), "b": torch.tensor([12.0])}
    assert butterfly.l2_distance(a, b) == pytest.approx(13.0)
    assert (
        butterfly.l2_distance(a, b) == butterfly.l2_distance(b, a)
        and butterfly.l2_distance(a, a) == 0.0
    )
    with pytest.raises(ValueError, match="same names"):
        butterfly.l2_distance(a, {"w": a["w"]})
    with pytest.raises(ValueError, match="has shape"):
        butterfly.l2_distance(a, {"w": torch.zeros(2, 1), "b": a["b"]})


def test_interpolate_endpoints_exact():
    g = gen()
    a = {"w": torch.randn(5, generator=g)}
    b = {"w": torch.randn(5, generator=g)}
    assert torch.equal(butterfly.interpolate(a, b, 0.0)["w"], a["w"])
    assert torch.equal(butterfly.interpolate(a, b, 1.0)["w"], b["w"])
    for al in np.linspace(0, 1, 11):
        assert torch.equal(butterfly.interpolate(a, a, float(al))["w"], a["w"])
    torch.testing.assert_close(
        butterfly.interpolate(a, b, 0.25)["w"], 0.75 * a["w"] + 0.25 * b["w"]
    )
    with pytest.raises(
        ValueError, match=r"alpha must be a number in \[0, 1\], got 1.5"
    ):
        butterfly.interpolate(a, b, 1.5)


def test_barrier_of_a_network_with_itself_is_zero(toy):
    model, X, y = toy
    p = butterfly.init_params(model, generator=gen())
    bar = butterfly.loss_barrier(model, p, p, X, y)
    assert bar.loss_barrier == 0.0 and bar.error_barrier == 0.0
    assert np.all(bar.loss == bar.loss[0]) and len(bar.alphas) == 11


def test_barrier_matches_brute_force(toy):
    model, X, y = toy
    a = butterfly.init_params(model, generator=gen(1))
    b = butterfly.init_params(model, generator=gen(2))
    bar = butterfly.loss_barrier(model, a, b, X, y, n_alpha=5, batch_size=7)
    losses = []
    for al in [0, 0.25, 0.5, 0.75, 1.0]:
        mix = {k: (1 - al) * a[k] + al * b[k] for k in a}
        losses.append(
            float(
                torch.nn.functional.cross_entropy(functional_call(model, mix, (X,)), y)
            )
        )
    losses = np.array(losses)
    chord = (1 - bar.alphas) * losses[0] + bar.alphas * losses[-1]
    np.testing.assert_allclose(bar.loss, losses, rtol=1e-5)
    assert bar.loss_barrier == pytest.approx(np.max(losses - chord), abs=1e-5)
    assert bar.loss_barrier >= 0 and bar.error_barrier >= 0
    with pytest.raises(ValueError, match="n_alpha must be at least 3"):
        butterfly.loss_barrier(model, a, b, X, y, n_alpha=2)


def test_evaluate_known_answer():
    model = butterfly.MLP([2, 2])
    p = {"layers.0.weight": torch.eye(2), "layers.0.bias": torch.zeros(2)}
    X = torch.tensor([[3.0, 0.0], [0.0, 3.0], [3.0, 0.0]])
    y = torch.tensor([0, 1, 1])
    loss, err = butterfly.evaluate(model, p, X, y, batch_size=2)
    lp = math.log1p(math.exp(-3.0))
    assert err == pytest.approx(1 / 3)
    assert loss == pytest.approx((2 * lp + (3.0 + lp)) / 3)


# --- CKA ------------------------------------------------------------------------------------------
def cka_brute(X, Y):
    n = X.shape[0]
    H = np.eye(n) - np.ones((n, n)) / n
    K, L = H @ X @ X.T @ H, H @ Y @ Y.T @ H
    return np.trace(K @ L) / np.sqrt(np.trace(K @ K) * np.trace(L @ L))


@settings(max_examples=40, deadline=None)
@given(st.integers(3, 12), st.integers(1, 6), st.integers(1, 20), st.integers(0, 10**6))
def test_cka_matches_brute_force_both_forms(n, p, q, seed):
    rng = np.random.default_rng(seed)
    X, Y = rng.normal(size=(n, p)), rng.normal(size=(n, q))
    if np.allclose(X - X.mean(0), 0) or np.allclose(Y - Y.mean(0), 0):
        return
    assert butterfly.linear_cka(X, Y) == pytest.approx(
        cka_brute(X, Y), rel=1e-9, abs=1e-12
    )
    assert 0.0 <= butterfly.linear_cka(X, Y) <= 1.0 + 1e-12


def test_cka_invariances():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(50, 8))
    Y = X @ rng.normal(size=(8, 6)) + 0.5 * rng.normal(size=(50, 6))
    base = butterfly.linear_cka(X, Y)
    Q, _ = np.linalg.qr(rng.normal(size=(6, 6)))
    assert butterfly.linear_cka(X, Y @ Q) == pytest.approx(base, rel=1e-10)  # rotation
    assert butterfly.linear_cka(X, Y[:, rng.permutation(6)]) == pytest.approx(
        base, rel=1e-10
    )  # unit order
    assert butterfly.linear_cka(X, 7.5 * Y + 3.0) == pytest.approx(
        base, rel=1e-10
    )  # scale and shift
    assert butterfly.linear_cka(X, Y) == pytest.approx(
        butterfly.linear_cka(Y, X), rel=1e-12
    )  # symmetry
    assert butterfly.linear_cka(X, X) == pytest.approx(1.0, abs=1e-12)
    assert butterfly.angular_cka(X, X) == pytest.approx(0.0, abs=1e-6)
    assert butterfly.linear_cka(X, Y * rng.uniform(1, 3, size=6)) != pytest.approx(
        base, rel=1e-6
    )  # not per-unit scale
    wide = np.hstack(
        [Y, rng.normal(size=(50, 80))]
    )  # more features than inputs: Gram form
    assert butterfly.linear_cka(X, wide) == pytest.approx(cka_brute(X, wide), rel=1e-9)
    assert butterfly.linear_cka(torch.tensor(X), torch.tensor(Y)) == pytest.approx(base)


def test_cka_bad_inputs():
    with pytest.raises(ValueError, match="same number"):
        butterfly.linear_cka(np.ones((5, 2)), np.ones((4, 2)))
    with pytest.raises(ValueError, match="constant"):
        butterfly.linear_cka(np.ones((5, 2)), np.arange(10.0).reshape(5, 2))
    with pytest.raises(ValueError, match="finite"):
        butterfly.linear_cka(np.full((3, 2), np.nan), np.ones((3, 2)))


# --- permutations and weight matching -------------------------------------------------------------
def random_perms(sizes, seed):
    g = gen(seed)
    return {k: torch.randperm(n, generator=g) for k, n in sizes.items()}


@pytest.mark.parametrize("kind", ["mlp", "resnet"])
def test_weight_matching_recovers_a_known_permutation_exactly(kind):
    if kind == "mlp":
        model = butterfly.MLP([10, 12, 9, 7, 4])
        spec = butterfly.mlp_perm_spec(model)
        x = torch.randn(5, 10, generator=gen(9))
    else:
        model = butterfly.ResNetLN(depth=8, width=4, in_channels=1, n_classes=3)
        spec = butterfly.resnet_perm_spec(model)
        x = torch.randn(2, 1, 12, 12, generator=gen(9))
    a = butterfly.init_params(model, generator=gen(0))
    g = gen(4)
    a = {
        k: v + 0.3 * torch.randn(v.shape, generator=g) if v.dim() == 1 else v
        for k, v in a.items()
    }
    sizes = butterfly.matching._check_spec(a, spec)
    pi = random_perms(sizes, 11)
    b = butterfly.permute(a, spec, pi)
    assert butterfly.l2_distance(a, b) > 1.0
    torch.testing.assert_close(
        functional_call(model, a, (x,)),
        functional_call(model, b, (x,)),
        rtol=1e-4,
        atol=1e-5,
    )  # same function
    perms = butterfly.weight_matching(a, b, spec, generator=gen(0))
    assert butterfly.l2_distance(a, butterfly.permute(b, spec, perms)) == 0.0
    for k in sizes:  # the inverse permutation
        assert torch.equal(pi[k][perms[k]], torch.arange(sizes[k]))


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 10**6))
def test_weight_matching_never_increases_distance(seed):
    model = butterfly.MLP([6, 5, 5, 3])
    a = butterfly.init_params(model, generator=gen(seed))
    b = butterfly.init_params(model, generator=gen(seed + 1))
    spec = butterfly.mlp_perm_spec(model)
    perms = butterfly.weight_matching(a, b, spec, generator=gen(seed))
    assert (
        butterfly.l2_distance(a, butterfly.permute(b, spec, perms))
        <= butterfly.l2_distance(a, b) + 1e-9
    )
    ident = butterfly.weight_matching(a, a, spec, generator=gen(seed))
    assert all(torch.equal(v, torch.arange(len(v))) for v in ident.values())


def test_weight_matching_bad_spec():
    model = butterfly.MLP([4, 3, 2])
    a = butterfly.init_params(model, generator=gen())
    spec = dict(butterfly.mlp_perm_spec(model))
    with pytest.raises(ValueError, match="spec must name exactly"):
        butterfly.weight_matching(
            a,
            a,
            {k: v for k, v in spec.items() if k != "layers.0.bias"},
            generator=gen(),
        )
    spec["layers.0.bias"] = ("P0", None)
    with pytest.raises(ValueError, match="axes"):
        butterfly.weight_matching(a, a, spec, generator=gen())
    spec["layers.0.bias"] = ("P9",)
    spec["layers.0.weight"] = ("P9", "P9")
    with pytest.raises(ValueError, match="has size"):
        butterfly.weight_matching(a, a, spec, generator=gen())


# --- spawn and perturb end to end ---------------------------------------------------------------
def test_spawn_and_perturb_control_and_divergence(toy):
    model, X, y = toy
    p = butterfly.init_params(model, generator=gen())
    order = butterfly.batch_order(len(y), batch_size=16, epochs=4, generator=gen(2))
    lrs = butterfly.triangle_schedule(len(order), peak_lr=0.3, warmup_frac=0.05)
    base = butterfly.train(
        model, butterfly.TrainState.start(p), X, y, order, lrs, save_at=[3]
    )
    spawn = base.saved[3]
    control = butterfly.train(
        model, spawn.with_params(spawn.params), X, y, order, lrs
    ).final
    assert butterfly.l2_distance(control.params, base.final.params) == 0.0
    name, idx = butterfly.pick_weight(
        spawn.params, butterfly.perturbable(model), generator=gen(3)
    )
    nudged = butterfly.train(
        model,
        spawn.with_params(butterfly.nudge_one_ulp(spawn.params, name=name, index=idx)),
        X,
        y,
        order,
        lrs,
    ).final
    assert butterfly.l2_distance(nudged.params, base.final.params) > 0.0


# --- comparing two networks, peers ----------------------------------------------------------------
def test_fresh_module_copies_params_and_leaves_model_alone():
    model = butterfly.MLP([5, 4, 3])
    before = {k: v.detach().clone() for k, v in model.named_parameters()}
    p = butterfly.init_params(model, generator=gen(2))
    net = butterfly.fresh_module(model, p)
    assert net is not model
    assert all(torch.equal(v.detach(), p[k]) for k, v in net.named_parameters())
    assert all(torch.equal(v.detach(), before[k]) for k, v in model.named_parameters())
    p["layers.0.weight"].add_(1.0)  # a copy, not a view of p
    assert not torch.equal(net.layers[0].weight.detach(), p["layers.0.weight"])
    with pytest.raises(ValueError, match="same names"):
        butterfly.fresh_module(model, {"layers.0.weight": p["layers.0.weight"]})


def test_weight_activity_known_answer():
    model = butterfly.MLP([3, 2, 2])
    p = {
        "layers.0.weight": torch.tensor([[1.0, 0.0, 0.0], [-1.0, -1.0, -1.0]]),
        "layers.0.bias": torch.zeros(2),
        "layers.1.weight": torch.ones(2, 2),
        "layers.1.bias": torch.zeros(2),
    }
    X = torch.tensor(
        [[1.0, 0.0, 2.0], [0.0, 0.0, 3.0], [2.0, 1.0, 0.0], [-1.0, 0.0, 0.0]]
    )
    # hidden unit 0 = relu(x0) is active on rows 0 and 2; hidden unit 1 = relu(−Σx) on row 3
    # only; input 2 is non-zero on rows 0 and 1
    assert butterfly.weight_activity(
        model, p, X, name="layers.0.weight", index=2
    ) == pytest.approx((0.5, 0.5, 0.25))  # reads input 2, feeds unit 0
    assert butterfly.weight_activity(
        model, p, X, name="layers.1.weight", index=1
    ) == pytest.approx((0.25, 1.0, 0.25))  # reads unit 1, feeds an output
    assert butterfly.weight_activity(
        model, p, X, name="layers.1.weight", index=0
    ) == pytest.approx((0.5, 1.0, 0.5))
    with pytest.raises(ValueError, match="layers.<i>.weight"):
        butterfly.weight_activity(model, p, X, name="layers.0.bias", index=0)
    with pytest.raises(ValueError, match=r"index must be an int in \[0, 6\)"):
        butterfly.weight_activity(model, p, X, name="layers.0.weight", index=6)
    with pytest.raises(TypeError, match="butterfly.MLP"):
        butterfly.weight_activity(
            butterfly.ResNetLN(depth=8, width=2, in_channels=1),
            p,
            X,
            name="layers.0.weight",
            index=0,
        )


def test_compare_pair_self_and_permuted():
    model = butterfly.MLP([8, 6, 5, 3])
    spec = butterfly.mlp_perm_spec(model)
    a = butterfly.init_params(model, generator=gen(0))
    a = {
        k: v + 0.1 * torch.randn(v.shape, generator=gen(1)) if v.dim() == 1 else v
        for k, v in a.items()
    }
    X = torch.randn(40, 8, generator=gen(3))
    same = butterfly.compare_pair(model, a, a, spec, X, generator=gen(0))
    assert same.l2 == 0.0 and same.l2_aligned == 0.0 and same.identity
    assert same.cka == pytest.approx((1.0, 1.0)) and max(same.angular) < 1e-6
    b = butterfly.permute(
        a, spec, random_perms(butterfly.matching._check_spec(a, spec), 5)
    )
    cmp = butterfly.compare_pair(
        model,
        a,
        b,
        spec,
        X,
        generator=gen(0),
        features_a=butterfly.hidden_features(model, a, X),
    )
    assert cmp.l2 > 0.5 and cmp.l2_aligned == 0.0 and not cmp.identity
    assert cmp.cka == pytest.approx((1.0, 1.0), abs=1e-9)  # CKA ignores unit order
    assert all(torch.equal(cmp.aligned[k], a[k]) for k in a)
    other = butterfly.init_params(model, generator=gen(9))
    far = butterfly.compare_pair(model, a, other, spec, X, generator=gen(0))
    assert far.l2_aligned <= far.l2 and all(0 < c < 1 for c in far.cka)
    assert far.angular == pytest.approx(tuple(math.acos(c) for c in far.cka))


def test_rebasin_peer_recovers_a_permutation_and_keeps_global_rng():
    pytest.importorskip("rebasin")
    model = butterfly.MLP([10, 12, 9, 4])
    spec = butterfly.mlp_perm_spec(model)
    a = butterfly.init_params(model, generator=gen(0))
    a = {
        k: v + 0.3 * torch.randn(v.shape, generator=gen(4)) if v.dim() == 1 else v
        for k, v in a.items()
    }
    b = butterfly.permute(
        a, spec, random_perms(butterfly.matching._check_spec(a, spec), 11)
    )
    state = torch.random.get_rng_state()
    theirs = butterfly.rebasin_align(
        model, a, b, torch.randn(2, 10, generator=gen(9)), seed=3
    )
    assert torch.equal(
        torch.random.get_rng_state(), state
    )  # global generator untouched
    assert butterfly.l2_distance(a, theirs) == pytest.approx(0.0, abs=1e-6)
    with pytest.raises(TypeError, match="seed must be an int"):
        butterfly.rebasin_align(model, a, b, torch.zeros(2, 10), seed=1.5)


def test_repsim_peer_agrees_with_linear_cka():
    pytest.importorskip("repsim")
    rng = np.random.default_rng(1)
    X = rng.normal(size=(60, 7))
    Y = X @ rng.normal(size=(7, 5)) + rng.normal(size=(60, 5))
    assert butterfly.repsim_linear_cka(X, Y) == pytest.approx(
        butterfly.linear_cka(X, Y), abs=1e-9
    )
    assert butterfly.repsim_linear_cka(
        torch.tensor(X), torch.tensor(X)
    ) == pytest.approx(1.0)


def test_typical_draws():
    assert butterfly.typical_draws([1.86, 0.92, 1.9e-9], 1) == [1]  # the median draw
    assert butterfly.typical_draws([1.86, 0.92, 1.9e-9], 3) == [
        1,
        0,
        2,
    ]  # then outwards
    assert butterfly.typical_draws([5.0, 1.0, 3.0, 4.0], 2) == [
        2,
        3,
    ]  # even count: both middles
    assert butterfly.typical_draws([2.0, 2.0, 2.0], 1) == [1]  # ties keep their order
    assert butterfly.typical_draws([7.0], 1) == [0]
    with pytest.raises(ValueError, match="n must be at most"):
        butterfly.typical_draws([1.0, 2.0], 3)
    with pytest.raises(ValueError, match="finite"):
        butterfly.typical_draws([1.0, float("nan")], 1)
    with pytest.raises(ValueError, match="n must be a positive int"):
        butterfly.typical_draws([1.0], 0)
