import numpy as np
import pytest
import torch
from torch.nn import functional
from hypothesis import given, settings
from hypothesis import strategies as st

from repbook.core import nets
from repbook.papers import fewshot_synthetic


# --- the code's double loops, in plain Python (the reference) -----------------------------------
def mse(a, b):
    return float(((a - b) ** 2).mean())


def loops(h_real, h_syn, r_real, r_syn, K, real_regions_only=True):
    """The released code's loops: per region with a real point, Σ_{S_k×G_k} mse/(g|S_k|) and
    Σ_{G_k×G_k} mse/(g|G_k|); with real_regions_only=False the robustness covers every region."""
    g = len(h_syn)
    dis = rob = 0.0
    for k in range(K):
        S = [i for i in range(len(h_real)) if r_real[i] == k]
        G = [j for j in range(g) if r_syn[j] == k]
        if S:
            dis += sum(mse(h_real[i], h_syn[j]) for i in S for j in G) / (g * len(S))
        if G and (S or not real_regions_only):
            rob += sum(mse(h_syn[i], h_syn[j]) for i in G for j in G) / (g * len(G))
    return dis, rob


def random_case(seed, n_real=7, n_syn=13, C=4, K=5):
    g = torch.Generator().manual_seed(seed)
    return (
        torch.randn(n_real, C, generator=g, dtype=torch.float64),
        torch.randn(n_syn, C, generator=g, dtype=torch.float64),
        torch.randint(0, K, (n_real,), generator=g),
        torch.randint(0, K, (n_syn,), generator=g),
    )


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("real_regions_only", [True, False])
def test_vectorised_terms_equal_the_loops(seed, real_regions_only):
    h_real, h_syn, r_real, r_syn = random_case(seed)
    dis, rob = loops(h_real, h_syn, r_real, r_syn, 5, real_regions_only)
    assert float(
        fewshot_synthetic.discrepancy_term(h_real, h_syn, r_real, r_syn, 5)
    ) == pytest.approx(dis, rel=1e-12)
    got = fewshot_synthetic.robustness_term(
        h_syn, r_syn, 5, regions_real=r_real if real_regions_only else None
    )
    assert float(got) == pytest.approx(rob, rel=1e-12, abs=1e-15)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000), st.integers(1, 8), st.integers(1, 20), st.integers(1, 6))
def test_vectorised_terms_equal_the_loops_property(seed, n_real, n_syn, K):
    h_real, h_syn, r_real, r_syn = random_case(seed, n_real, n_syn, 3, K)
    dis, rob = loops(h_real, h_syn, r_real, r_syn, K)
    assert float(
        fewshot_synthetic.discrepancy_term(h_real, h_syn, r_real, r_syn, K)
    ) == pytest.approx(dis, rel=1e-10)
    assert float(
        fewshot_synthetic.robustness_term(h_syn, r_syn, K, regions_real=r_real)
    ) == pytest.approx(rob, rel=1e-10, abs=1e-12)


def test_terms_vanish_when_synthetic_equals_real_within_every_region():
    K, C = 4, 3
    centre = torch.randn(
        K, C, generator=torch.Generator().manual_seed(1), dtype=torch.float64
    )
    r_real, r_syn = (
        torch.tensor([0, 1, 1, 2, 3]),
        torch.tensor([0, 0, 1, 2, 2, 2, 3, 3]),
    )
    h_real, h_syn = (
        centre[r_real],
        centre[r_syn],
    )  # every point of a region has one output
    assert float(
        fewshot_synthetic.discrepancy_term(h_real, h_syn, r_real, r_syn, K)
    ) == pytest.approx(0, abs=1e-12)
    assert float(fewshot_synthetic.robustness_term(h_syn, r_syn, K)) == pytest.approx(
        0, abs=1e-12
    )
    # …and do not vanish once one synthetic output moves
    h_syn = h_syn.clone()
    h_syn[0] += 1.0
    assert (
        float(fewshot_synthetic.discrepancy_term(h_real, h_syn, r_real, r_syn, K))
        > 0.01
    )
    assert float(fewshot_synthetic.robustness_term(h_syn, r_syn, K)) > 0.01


def test_known_small_discrepancy_and_robustness():
    # one region, one real logit [0, 0], two synthetic [1, 1] and [3, 3]: C = 2, g = 2
    h_real = torch.tensor([[0.0, 0.0]])
    h_syn = torch.tensor([[1.0, 1.0], [3.0, 3.0]])
    r0 = torch.tensor([0]), torch.tensor([0, 0])
    # discrepancy = (mse 1 + mse 9) / (2·1) = 5;  robustness = 2·mse(4) / (2·2) = 2
    assert float(
        fewshot_synthetic.discrepancy_term(h_real, h_syn, *r0, 1)
    ) == pytest.approx(5.0)
    assert float(fewshot_synthetic.robustness_term(h_syn, r0[1], 1)) == pytest.approx(
        2.0
    )


def test_robustness_only_counts_regions_with_real_points_like_the_code():
    h_syn = torch.tensor([[0.0], [2.0], [5.0], [9.0]])
    r_syn, r_real = torch.tensor([0, 0, 1, 1]), torch.tensor([0])
    only_0 = fewshot_synthetic.robustness_term(h_syn, r_syn, 2, regions_real=r_real)
    everywhere = fewshot_synthetic.robustness_term(h_syn, r_syn, 2)
    assert float(only_0) == pytest.approx(
        2 * 4 / (4 * 2)
    )  # region 0: pairs (0,2),(2,0)
    assert float(everywhere) == pytest.approx(float(only_0) + 2 * 16 / (4 * 2))


def test_objective_adds_its_parts_and_matches_cross_entropy_without_regularisers():
    h_real, h_syn, r_real, r_syn = random_case(3, C=10)
    y_real, y_syn = torch.arange(7) % 10, torch.arange(13) % 10
    t = fewshot_synthetic.objective(
        h_real,
        y_real,
        h_syn,
        y_syn,
        r_real,
        r_syn,
        5,
        lam_dis=0.5,
        lam_rob=2.0,
        ce_real=1.0,
        ce_syn=3.0,
    )
    assert float(t.total) == pytest.approx(
        float(t.ce_real + 3 * t.ce_syn + 0.5 * t.discrepancy + 2 * t.robustness)
    )
    plain = fewshot_synthetic.objective(
        h_real, y_real, h_syn, y_syn, r_real, r_syn, 5, lam_dis=0, lam_rob=0
    )
    assert float(plain.total) == pytest.approx(
        float(
            functional.cross_entropy(h_real, y_real)
            + functional.cross_entropy(h_syn, y_syn)
        )
    )
    assert float(plain.discrepancy) == 0 and float(plain.robustness) == 0


def test_gradients_of_the_terms_match_the_loops():
    h_real, h_syn, r_real, r_syn = random_case(4)
    a = h_real.clone().requires_grad_(True)
    b = h_syn.clone().requires_grad_(True)
    (
        fewshot_synthetic.discrepancy_term(a, b, r_real, r_syn, 5)
        + fewshot_synthetic.robustness_term(b, r_syn, 5, regions_real=r_real)
    ).backward()
    a2, b2 = h_real.clone().requires_grad_(True), h_syn.clone().requires_grad_(True)
    g, total = len(b2), 0
    for k in range(5):
        S, G = (r_real == k).nonzero().ravel(), (r_syn == k).nonzero().ravel()
        if len(S):
            for i in S:
                for j in G:
                    total = total + functional.mse_loss(a2[i], b2[j]) / (g * len(S))
            for i in G:
                for j in G:
                    total = total + functional.mse_loss(b2[i], b2[j]) / (g * len(G))
    total.backward()
    torch.testing.assert_close(a.grad, a2.grad)
    torch.testing.assert_close(b.grad, b2.grad)


# --- the online partition ------------------------------------------------------------------------
def test_online_update_is_the_running_mean():
    gen = torch.Generator().manual_seed(0)
    km = fewshot_synthetic.OnlineKMeans.init(3, 2, gen)
    x = torch.randn(40, 2, generator=gen, dtype=torch.float32)
    regions = torch.randint(0, 3, (40,), generator=gen)
    regions[:3] = torch.tensor([0, 1, 2])
    # per point, as the code does: c ← (1 − 1/n)c + x/n, batches of 10
    c, n = km.centroids.clone(), [0, 0, 0]
    state = km
    for start in range(0, 40, 10):
        for i in range(start, start + 10):
            k = int(regions[i])
            n[k] += 1
            c[k] = (1 - 1 / n[k]) * c[k] + x[i] / n[k]
        state = state.update(x[start : start + 10], regions[start : start + 10])
    torch.testing.assert_close(state.centroids, c)
    for k in range(3):
        torch.testing.assert_close(state.centroids[k], x[regions == k].mean(0))
    assert state.counts.tolist() == n


def test_a_centroid_without_points_keeps_its_start():
    km = fewshot_synthetic.OnlineKMeans.init(3, 2, torch.Generator().manual_seed(0))
    new = km.update(torch.ones(4, 2), torch.zeros(4, dtype=torch.int64))
    torch.testing.assert_close(new.centroids[1:], km.centroids[1:])
    torch.testing.assert_close(new.centroids[0], torch.ones(2))
    assert new.counts.tolist() == [4, 0, 0] and km.counts.tolist() == [
        0,
        0,
        0,
    ]  # frozen


def test_step_assigns_before_updating():
    km = fewshot_synthetic.OnlineKMeans(
        torch.tensor([[0.0], [10.0]]), torch.zeros(2, dtype=torch.int64)
    )
    r_real, r_syn, new = km.step(
        torch.tensor([[9.0]]), torch.tensor([[1.0], [4.0], [7.0]])
    )
    assert r_real.tolist() == [1] and r_syn.tolist() == [0, 0, 1]
    torch.testing.assert_close(new.centroids, torch.tensor([[2.5], [7.0]]))


def test_kmeans_regions_on_real_and_synthetic():
    rng = np.random.default_rng(0)
    a = rng.normal(0, 0.1, (5, 2)) + [0, 0]
    b = np.concatenate(
        [rng.normal(0, 0.1, (6, 2)), rng.normal(0, 0.1, (6, 2)) + [5, 5]]
    )
    r_real, r_syn = fewshot_synthetic.kmeans_regions(a, b, 2, seed=0)
    assert len(set(r_real)) == 1 and r_syn[:6].tolist() == [r_real[0]] * 6
    assert set(r_syn[6:]) == {1 - r_real[0]}


# --- data -------------------------------------------------------------------------------------------
def test_split_pool_never_overlaps_the_shots_or_the_test_set():
    from sklearn.datasets import load_digits

    y = load_digits().target
    sp = fewshot_synthetic.split_digits(
        y, pool_size=700, shots=[1, 5], rng=np.random.default_rng(3)
    )
    assert len(sp.pool) == 700 and len(sp.shots[1]) == 10 and len(sp.shots[5]) == 50
    assert not set(sp.pool) & set(sp.shots[5]) and not set(sp.pool) & set(sp.test)
    assert not set(sp.shots[5]) & set(sp.test) and set(sp.shots[1]) <= set(sp.shots[5])
    assert len(sp.pool) + len(sp.shots[5]) + len(sp.test) == len(y)
    for k in (1, 5):
        assert np.bincount(y[sp.shots[k]], minlength=10).tolist() == [k] * 10
    again = fewshot_synthetic.split_digits(
        y, pool_size=700, shots=[1, 5], rng=np.random.default_rng(3)
    )
    assert np.array_equal(again.test, sp.test)
    other = fewshot_synthetic.split_digits(
        y, pool_size=700, shots=[1, 5], rng=np.random.default_rng(4)
    )
    assert not np.array_equal(other.shots[5], sp.shots[5])


def test_apply_gap():
    X = np.arange(128, dtype=float).reshape(2, 64) % 17
    rng = np.random.default_rng(0)
    np.testing.assert_array_equal(fewshot_synthetic.apply_gap(X, 0.0, rng), X)
    out = fewshot_synthetic.apply_gap(X, 1.0, rng, noise=0.0)
    img = X.reshape(2, 8, 8)
    expect = np.zeros_like(img)
    expect[:, :, 1:] = img[:, :, :7]
    np.testing.assert_allclose(out.reshape(2, 8, 8), 0.7 * expect)
    noisy = fewshot_synthetic.apply_gap(
        np.zeros((2000, 64)), 0.5, np.random.default_rng(1)
    )
    assert noisy.std() == pytest.approx(1.0, rel=0.02)


def test_generator_samples_each_class_and_is_seeded():
    from sklearn.datasets import load_digits

    d = load_digits()
    gen = fewshot_synthetic.fit_generator(
        d.data[:500], d.target[:500], rng=np.random.default_rng(0)
    )
    X, y = gen.sample(4, np.random.default_rng(1))
    assert X.shape == (40, 64) and np.bincount(y).tolist() == [4] * 10
    X2, _ = gen.sample(4, np.random.default_rng(1))
    np.testing.assert_array_equal(X, X2)


def test_font_digits():
    X, y = fewshot_synthetic.render_font_digits(3, np.random.default_rng(0))
    assert X.shape == (30, 64) and X.min() >= 0 and X.max() <= 16
    assert np.bincount(y).tolist() == [3] * 10
    assert fewshot_synthetic.n_usable_fonts() >= 10  # symbol fonts are skipped
    X2, _ = fewshot_synthetic.render_font_digits(3, np.random.default_rng(0))
    np.testing.assert_array_equal(X, X2)


# --- training -----------------------------------------------------------------------------------------
def tiny_task():
    g = torch.Generator().manual_seed(0)
    x_real, y_real = torch.randn(10, 64, generator=g), torch.arange(10)
    x_syn, y_syn = torch.randn(30, 64, generator=g), torch.arange(30) % 10
    return x_real, y_real, x_syn, y_syn


@pytest.mark.parametrize("name", list(fewshot_synthetic.methods()))
def test_training_is_deterministic_and_independent_of_global_state(name):
    meth = fewshot_synthetic.methods()[name]
    weights = []
    for junk in (0, 1):
        torch.rand(junk + 1)  # moves the global generator: must change nothing
        net = nets.mlp(fewshot_synthetic.LAYERS, seed=5)
        fewshot_synthetic.train(
            net,
            meth,
            *tiny_task(),
            epochs=5,
            K=3,
            generator=torch.Generator().manual_seed(2),
        )
        weights.append(torch.cat([p.ravel() for p in net.parameters()]))
    torch.testing.assert_close(weights[0], weights[1], rtol=0, atol=0)


def test_training_reduces_the_objective_and_kmeans_partition_runs():
    x_real, y_real, x_syn, y_syn = tiny_task()
    for partition in ("online", "kmeans"):
        net = nets.mlp(fewshot_synthetic.LAYERS, seed=0)
        before = fewshot_synthetic.accuracy(net, x_real, y_real)
        fewshot_synthetic.train(
            net,
            fewshot_synthetic.methods()["+ λ_dis + λ_rob"],
            x_real,
            y_real,
            x_syn,
            y_syn,
            epochs=200,
            K=3,
            generator=torch.Generator().manual_seed(0),
            partition=partition,
            lr=1e-2,
        )
        assert fewshot_synthetic.accuracy(net, x_real, y_real) == 1.0 > before


def test_bound_ingredients():
    x_real, _, x_syn, _ = tiny_task()
    net = nets.mlp(fewshot_synthetic.LAYERS, seed=0)
    r_real, r_syn = fewshot_synthetic.kmeans_regions(
        x_real.numpy(), x_syn.numpy(), 3, seed=0
    )
    ing = fewshot_synthetic.bound_ingredients(net, x_real, x_syn, r_real, r_syn, 3)
    assert ing.discrepancy > 0 and ing.robustness > 0 and 1 <= ing.regions_shared <= 3


# --- bad inputs ------------------------------------------------------------------------------------------
def test_bad_inputs_give_clear_errors():
    h_real, h_syn, r_real, r_syn = random_case(0)
    with pytest.raises(ValueError, match="K must be a positive int, got 0"):
        fewshot_synthetic.discrepancy_term(h_real, h_syn, r_real, r_syn, 0)
    with pytest.raises(ValueError, match="K must be a positive int, got 0"):
        fewshot_synthetic.OnlineKMeans.init(0, 2, torch.Generator())
    with pytest.raises(ValueError, match=r"regions_(real|syn) must lie in 0..K-1"):
        fewshot_synthetic.discrepancy_term(h_real, h_syn, r_real, r_syn, 3)
    with pytest.raises(ValueError, match="lam_dis must be a finite number ≥ 0, got -1"):
        fewshot_synthetic.objective(
            h_real,
            torch.zeros(7, dtype=torch.int64),
            h_syn,
            torch.zeros(13, dtype=torch.int64),
            r_real,
            r_syn,
            5,
            lam_dis=-1,
            lam_rob=1,
        )
    with pytest.raises(
        ValueError, match="lam_rob must be a finite number ≥ 0, got -0.1"
    ):
        fewshot_synthetic.methods(lam_rob=-0.1)
    with pytest.raises(ValueError, match="same number of classes"):
        fewshot_synthetic.discrepancy_term(h_real[:, :2], h_syn, r_real, r_syn, 5)
    with pytest.raises(
        ValueError, match=r"regions_real must be an int64 tensor of shape \(7,\)"
    ):
        fewshot_synthetic.discrepancy_term(h_real, h_syn, r_real[:3], r_syn, 5)
    with pytest.raises(ValueError, match=r"y_syn must be a tensor of shape \(13,\)"):
        fewshot_synthetic.objective(
            h_real,
            torch.zeros(7, dtype=torch.int64),
            h_syn,
            torch.zeros(3),
            r_real,
            r_syn,
            5,
            lam_dis=1,
            lam_rob=1,
        )
    with pytest.raises(ValueError, match="h_syn must be a 2-D tensor"):
        fewshot_synthetic.robustness_term(h_syn[0], r_syn, 5)
    with pytest.raises(ValueError, match="x has 3 features but the centroids have 2"):
        fewshot_synthetic.OnlineKMeans.init(2, 2, torch.Generator()).update(
            torch.ones(4, 3), torch.zeros(4, dtype=torch.int64)
        )
    y = np.repeat(np.arange(10), 3)
    with pytest.raises(ValueError, match="class 0 has .* images outside the pool"):
        fewshot_synthetic.split_digits(
            np.concatenate([y[y != 0], [0]]),
            pool_size=1,
            shots=[1, 5],
            rng=np.random.default_rng(0),
        )
    with pytest.raises(
        ValueError, match="each shot count must be a positive int, got 0"
    ):
        fewshot_synthetic.split_digits(
            y, pool_size=5, shots=[0], rng=np.random.default_rng(0)
        )
    with pytest.raises(
        TypeError, match="rng must be a numpy.random.Generator, got int"
    ):
        fewshot_synthetic.split_digits(y, pool_size=5, shots=[1], rng=0)
    with pytest.raises(ValueError, match=r"gap must be a number in \[0, 1\], got 1.5"):
        fewshot_synthetic.apply_gap(np.zeros((2, 64)), 1.5, np.random.default_rng(0))
    with pytest.raises(ValueError, match=r"X must have shape \(n, 64\)"):
        fewshot_synthetic.apply_gap(np.zeros((2, 63)), 0.5, np.random.default_rng(0))
    with pytest.raises(
        ValueError, match="partition must be one of 'online', 'kmeans', got 'spectral'"
    ):
        fewshot_synthetic.train(
            nets.mlp(fewshot_synthetic.LAYERS, seed=0),
            fewshot_synthetic.methods()["real only"],
            *tiny_task(),
            epochs=1,
            K=2,
            generator=torch.Generator(),
            partition="spectral",
        )
    with pytest.raises(ValueError, match="epochs must be a positive int, got 0"):
        fewshot_synthetic.train(
            nets.mlp(fewshot_synthetic.LAYERS, seed=0),
            fewshot_synthetic.methods()["real only"],
            *tiny_task(),
            epochs=0,
            K=2,
            generator=torch.Generator(),
        )
    x_real, y_real, x_syn, y_syn = tiny_task()
    with pytest.raises(ValueError, match="trains on real images, but there are none"):
        fewshot_synthetic.train(
            nets.mlp(fewshot_synthetic.LAYERS, seed=0),
            fewshot_synthetic.methods()["real only"],
            x_real[:0],
            y_real[:0],
            x_syn,
            y_syn,
            epochs=1,
            K=2,
            generator=torch.Generator(),
        )
    with pytest.raises(ValueError, match="real and synthetic images differ in size"):
        fewshot_synthetic.train(
            nets.mlp(fewshot_synthetic.LAYERS, seed=0),
            fewshot_synthetic.methods()["real only"],
            x_real,
            y_real,
            x_syn[:, :10],
            y_syn,
            epochs=1,
            K=2,
            generator=torch.Generator(),
        )
    with pytest.raises(ValueError, match="y_pool has 3 labels but there are 4 images"):
        fewshot_synthetic.fit_generator(
            np.zeros((4, 64)), np.zeros(3, dtype=int), rng=np.random.default_rng(0)
        )


def test_online_regions_match_what_training_sees_and_partition_summary():
    x_real, _, x_syn, y_syn = tiny_task()
    r_real, r_syn = fewshot_synthetic.online_regions(
        x_real, x_syn, 3, 4, torch.Generator().manual_seed(7)
    )
    state = fewshot_synthetic.OnlineKMeans.init(3, 64, torch.Generator().manual_seed(7))
    for _ in range(4):
        a, b, state = state.step(x_real, x_syn)
    assert torch.equal(a, r_real) and torch.equal(b, r_syn)
    s = fewshot_synthetic.summarise_partition(
        [0, 0], [0, 0, 1, 1, 1], [2, 2, 3, 3, 4], 3
    )
    assert s == fewshot_synthetic.PartitionSummary(
        regions_used=2, purity=0.8, synthetic_share=0.4, regions_shared=1
    )
    with pytest.raises(
        ValueError, match="regions_syn must be 1-D with values in 0..K-1"
    ):
        fewshot_synthetic.summarise_partition([0], [0, 5], [1, 1], 3)


def test_the_network_is_the_one_the_chapter_always_built():
    # core.nets.mlp(seed=) must stay bit-identical to the builder this module had before it
    # (layers made inside fork_rng + manual_seed), or every recorded accuracy would move
    def before(seed):
        layers = []
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(seed)
            for a, b in zip(fewshot_synthetic.LAYERS, fewshot_synthetic.LAYERS[1:]):
                layers += [torch.nn.Linear(a, b), torch.nn.ReLU()]
        return torch.nn.Sequential(*layers[:-1])

    for seed in (0, 123456789):
        new = nets.mlp(fewshot_synthetic.LAYERS, seed=seed)
        assert str(new) == str(before(seed))
        for p, q in zip(new.parameters(), before(seed).parameters()):
            assert torch.equal(p, q)


def test_house_checks_name_the_argument_and_the_value():
    X, rng = np.zeros((2, 64)), np.random.default_rng(0)
    with pytest.raises(ValueError, match=r"shift must be an int in \[0, 7\], got 8"):
        fewshot_synthetic.apply_gap(X, 0.5, rng, shift=8)
    with pytest.raises(
        ValueError, match=r"contrast must be a number in \[0, 1\], got 2"
    ):
        fewshot_synthetic.apply_gap(X, 0.5, rng, contrast=2)
    with pytest.raises(ValueError, match="noise must be a finite number ≥ 0, got -1"):
        fewshot_synthetic.apply_gap(X, 0.5, rng, noise=-1)
    with pytest.raises(
        ValueError, match="reg_covar must be a finite number > 0, got 0"
    ):
        fewshot_synthetic.fit_generator(
            np.zeros((30, 64)), np.repeat(np.arange(10), 3), reg_covar=0, rng=rng
        )
    with pytest.raises(TypeError, match="generator must be a torch.Generator, got int"):
        fewshot_synthetic.OnlineKMeans.init(2, 2, 0)
