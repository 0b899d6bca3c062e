import math

import numpy as np
import pytest
import torch

from repbook.papers import butterfly
from repbook.papers.butterfly import protocol


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


# --- experiment protocols (butterfly.protocol) ---------------------------------------------------


def _runner(toy, steps=12, save_at=()):
    model, X, y = toy
    order = butterfly.batch_order(len(X), batch_size=16, epochs=2, generator=gen(3))[
        :steps
    ]
    lrs = butterfly.triangle_schedule(steps, peak_lr=0.1, warmup_frac=0.0)
    return protocol.make_runner(model, X, y, lrs, momentum=0.9, save_at=save_at), order


def test_reference_runs_pairs_and_control(toy):
    model, X, y = toy
    runner, order = _runner(toy)
    theta = butterfly.init_params(model, generator=gen(5))
    base = runner(butterfly.TrainState.start(theta), order).final.params
    ref = protocol.reference_runs(runner, base, [theta, theta], [order, order.flip(0)])
    assert ref.pairs == [(0, 1), (0, 2), (1, 2)]
    d = ref.l2()
    assert d[0] == 0.0 and d[1] > 0  # same start and order: bit-identical
    with pytest.raises(ValueError, match="same length"):
        protocol.reference_runs(runner, base, [theta], [order, order])


def test_perturbation_kinds_and_spawn_copy(toy):
    model, X, y = toy
    runner, order = _runner(toy, save_at=[0, 6])
    names = tuple(butterfly.perturbable(model))
    stds = butterfly.init_stds(model)
    theta = butterfly.init_params(model, generator=gen(5))
    base = runner(butterfly.TrainState.start(theta), order, save=True)
    one = protocol.Perturbation("gaussian", names, sigma=0.5, n_weights=1)
    moved, (name, idx) = one.apply(theta, stds, generator=gen(9))
    diff = {k: (moved[k] - theta[k]).abs() for k in theta}
    assert sum(int(v.ne(0).sum()) for v in diff.values()) == 1
    assert math.isclose(float(diff[name].view(-1)[idx]), 0.5 * stds[name], rel_tol=1e-5)
    ulp = protocol.Perturbation("ulp", names)
    c = protocol.spawn_copy(
        runner, base.saved[6], ulp, stds, base.final.params, order, generator=gen(2)
    )
    assert c.where is not None and 0 < c.eps < 1e-5 and c.l2 >= 0
    with pytest.raises(ValueError, match="kind"):
        protocol.Perturbation("batch", names)
    with pytest.raises(ValueError, match="sigma"):
        protocol.Perturbation("gaussian", names, sigma=0.0)


def test_compare_with_barrier_identity_and_permuted(toy):
    model, X, y = toy
    theta = butterfly.init_params(model, generator=gen(5))
    spec = butterfly.mlp_perm_spec(model)
    calls = []

    def bar(a, b):
        calls.append(1)
        return butterfly.loss_barrier(model, a, b, X, y).loss_barrier

    row, c = protocol.compare_with_barrier(
        model, theta, theta, spec, X, bar, 0.0, generator=gen(1)
    )
    assert row["identity"] and row["barrier_aligned"] == 0.0 and not calls
    perm = {"P0": torch.randperm(16, generator=gen(2)), "P1": torch.arange(16)}
    other = butterfly.permute(theta, spec, perm)
    row, _ = protocol.compare_with_barrier(
        model, theta, other, spec, X, bar, 1.0, generator=gen(1)
    )
    assert row["l2_aligned"] < 1e-5 and calls and abs(row["barrier_aligned"]) < 1e-5


def test_scan_recipe_and_gate(toy):
    model, X, y = toy
    orders = [
        butterfly.batch_order(len(X), batch_size=16, epochs=2, generator=gen(k))
        for k in (3, 4)
    ]
    r = protocol.Recipe("tiny", (8, 8), 0.1, 0.0)
    rr = protocol.scan_recipe(
        r,
        X,
        y,
        X,
        y,
        orders=orders,
        inits=[gen(1), gen(2)],
        momentum=0.9,
        save_at=[0, 6],
    )
    assert set(rr.base.saved) == {0, 6} and rr.indep_barrier >= 0
    assert rr.share == rr.noise_barrier / rr.indep_barrier or math.isnan(rr.share)
    assert protocol.first_meeting([rr], 1.0) in (None, 0)
    with pytest.raises(ValueError, match="share"):
        protocol.first_meeting([rr], 0.0)
    with pytest.raises(ValueError, match="hidden"):
        protocol.Recipe("bad", (), 0.1, 0.0)
    with pytest.raises(ValueError, match="two entries"):
        protocol.scan_recipe(
            r, X, y, X, y, orders=orders[:1], inits=[gen(1)], momentum=0.9
        )


def test_excess_divergence():
    assert np.allclose(protocol.excess_divergence([3.0, 1.0], [1.0, 1.0]), [2.0, 0.0])
    with pytest.raises(ValueError, match="1-D"):
        protocol.excess_divergence([1.0], [1.0, 2.0])


def test_adjacent_rises():
    assert protocol.adjacent_rises([4.0, 2.0, 3.0, 1.0]) == [(1, 1.0)]
    assert protocol.adjacent_rises([3.0, 2.0, 1.0]) == []
    # one adjacent swap on four points is exactly ρ = −0.8
    assert protocol.spearman_rho([0, 1, 2, 3], [4.0, 2.0, 3.0, 1.0]) == -0.8
    with pytest.raises(ValueError, match="length"):
        protocol.adjacent_rises([1.0])


def test_barrier_kept_reads_only_above_the_floor():
    r, n = protocol.barrier_kept(
        [0.0, 0.005, 0.02, 0.1], [0.0, 0.004, 0.02, 0.05], floor=0.01
    )
    assert n == 2 and np.allclose(r, [1.0, 0.5])
    r, n = protocol.barrier_kept([0.0, 0.0], [0.0, 0.0], floor=0.01)
    assert n == 0 and r.size == 0
    with pytest.raises(ValueError, match="floor"):
        protocol.barrier_kept([0.1], [0.1], floor=0.0)
    with pytest.raises(ValueError, match="one length"):
        protocol.barrier_kept([0.1], [0.1, 0.2], floor=0.01)
