import numpy as np
import pytest
import torch
import torch.nn.functional as F
from hypothesis import given, settings
from hypothesis import strategies as st

from repbook.papers import fewshot_synthetic as M


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
    assert float(M.discrepancy_term(h_real, h_syn, r_real, r_syn, 5)) == pytest.approx(
        dis, rel=1e-12
    )
    got = M.robustness_term(
        h_syn, r_syn, 5, regions_real=r_real if real_regions_only else None
    )
    assert float(got) == pytest.approx(rob, rel=1e-12, abs=1e-15)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000), st.integers(1, 8), st.integers(1, 20), st.integers(1, 6))
def test_vectorised_terms_equal_the_loops_property(seed, n_real, n_syn, K):
    h_real, h_syn, r_real, r_syn = random_case(seed, n_real, n_syn, 3, K)
    dis, rob = loops(h_real, h_syn, r_real, r_syn, K)
    assert float(M.discrepancy_term(h_real, h_syn, r_real, r_syn, K)) == pytest.approx(
        dis, rel=1e-10
    )
    assert float(
        M.robustness_term(h_syn, r_syn, K, regions_real=r_real)
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
    assert float(M.discrepancy_term(h_real, h_syn, r_real, r_syn, K)) == pytest.approx(
        0, abs=1e-12
    )
    assert float(M.robustness_term(h_syn, r_syn, K)) == pytest.approx(0, abs=1e-12)
    # …and do not vanish once one synthetic output moves
    h_syn = h_syn.clone()
    h_syn[0] += 1.0
    assert float(M.discrepancy_term(h_real, h_syn, r_real, r_syn, K)) > 0.01
    assert float(M.robustness_term(h_syn, r_syn, K)) > 0.01


def test_known_small_discrepancy_and_robustness():
    # one region, one real logit [0, 0], two synthetic [1, 1] and [3, 3]: C = 2, g = 2
    h_real = torch.tensor([[0.0, 0.0]])
    h_syn = torch.tensor([[1.0, 1.0], [3.0, 3.0]])
    r0 = torch.tensor([0]), torch.tensor([0, 0])
    # discrepancy = (mse 1 + mse 9) / (2·1) = 5;  robustness = 2·mse(4) / (2·2) = 2
    assert float(M.discrepancy_term(h_real, h_syn, *r0, 1)) == pytest.approx(5.0)
    assert float(M.robustness_term(h_syn, r0[1], 1)) == pytest.approx(2.0)


def test_robustness_only_counts_regions_with_real_points_like_the_code():
    h_syn = torch.tensor([[0.0], [2.0], [5.0], [9.0]])
    r_syn, r_real = torch.tensor([0, 0, 1, 1]), torch.tensor([0])
    only_0 = M.robustness_term(h_syn, r_syn, 2, regions_real=r_real)
    everywhere = M.robustness_term(h_syn, r_syn, 2)
    assert float(only_0) == pytest.approx(
        2 * 4 / (4 * 2)
    )  # region 0: pairs (0,2),(2,0)
    assert float(everywhere) == pytest.approx(float(only_0) + 2 * 16 / (4 * 2))


def test_objective_adds_its_parts_and_matches_cross_entropy_without_regularisers():
    h_real, h_syn, r_real, r_syn = random_case(3, C=10)
    y_real, y_syn = torch.arange(7) % 10, torch.arange(13) % 10
    t = M.objective(
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
    plain = M.objective(
        h_real, y_real, h_syn, y_syn, r_real, r_syn, 5, lam_dis=0, lam_rob=0
    )
    assert float(plain.total) == pytest.approx(
        float(F.cross_entropy(h_real, y_real) + F.cross_entropy(h_syn, y_syn))
    )
    assert float(plain.discrepancy) == 0 and float(plain.robustness) == 0


def test_gradients_of_the_terms_match_the_loops():
    h_real, h_syn, r_real, r_syn = random_case(4)
    a = h_real.clone().requires_grad_(True)
    b = h_syn.clone().requires_grad_(True)
    (
        M.discrepancy_term(a, b, r_real, r_syn, 5)
        + M.robustness_term(b, r_syn, 5, regions_real=r_real)
    ).backward()
    a2, b2 = h_real.clone().requires_grad_(True), h_syn.clone().requires_grad_(True)
    g, total = len(b2), 0
    for k in range(5):
        S, G = (r_real == k).nonzero().ravel(), (r_syn == k).nonzero().ravel()
        if len(S):
            for i in S:
                for j in G:
                    total = total + F.mse_loss(a2[i], b2[j]) / (g * len(S))
            for i in G:
                for j in G:
                    total = total + F.mse_loss(b2[i], b2[j]) / (g * len(G))
    total.backward()
    torch.testing.assert_close(a.grad, a2.grad)
    torch.testing.assert_close(b.grad, b2.grad)


# --- the online partition ------------------------------------------------------------------------
def test_online_update_is_the_running_mean():
    gen = torch.Generator().manual_seed(0)
    km = M.OnlineKMeans.init(3, 2, gen)
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
    km = M.OnlineKMeans.init(3, 2, torch.Generator().manual_seed(0))
    new = km.update(torch.ones(4, 2), torch.zeros(4, dtype=torch.int64))
    torch.testing.assert_close(new.centroids[1:], km.centroids[1:])
    torch.testing.assert_close(new.centroids[0], torch.ones(2))
    assert new.counts.tolist() == [4, 0, 0] and km.counts.tolist() == [
        0,
        0,
        0,
    ]  # frozen


def test_step_assigns_before_updating():
    km = M.OnlineKMeans(
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
    r_real, r_syn = M.kmeans_regions(a, b, 2, seed=0)
    assert len(set(r_real)) == 1 and r_syn[:6].tolist() == [r_real[0]] * 6
    assert set(r_syn[6:]) == {1 - r_real[0]}


# --- data -------------------------------------------------------------------------------------------
def test_split_pool_never_overlaps_the_shots_or_the_test_set():
    from sklearn.datasets import load_digits

    y = load_digits().target
    sp = M.split_digits(y, pool_size=700, shots=[1, 5], rng=np.random.default_rng(3))
    assert len(sp.pool) == 700 and len(sp.shots[1]) == 10 and len(sp.shots[5]) == 50
    assert not set(sp.pool) & set(sp.shots[5]) and not set(sp.pool) & set(sp.test)
    assert not set(sp.shots[5]) & set(sp.test) and set(sp.shots[1]) <= set(sp.shots[5])
    assert len(sp.pool) + len(sp.shots[5]) + len(sp.test) == len(y)
    for k in (1, 5):
        assert np.bincount(y[sp.shots[k]], minlength=10).tolist() == [k] * 10
    again = M.split_digits(y, pool_size=700, shots=[1, 5], rng=np.random.default_rng(3))
    assert np.array_equal(again.test, sp.test)
    other = M.split_digits(y, pool_size=700, shots=[1, 5], rng=np.random.default_rng(4))
    assert not np.array_equal(other.shots[5], sp.shots[5])


def test_apply_gap():
    X = np.arange(128, dtype=float).reshape(2, 64) % 17
    rng = np.random.default_rng(0)
    np.testing.assert_array_equal(M.apply_gap(X, 0.0, rng), X)
    out = M.apply_gap(X, 1.0, rng, noise=0.0)
    img = X.reshape(2, 8, 8)
    expect = np.zeros_like(img)
    expect[:, :, 1:] = img[:, :, :7]
    np.testing.assert_allclose(out.reshape(2, 8, 8), 0.7 * expect)
    noisy = M.apply_gap(np.zeros((2000, 64)), 0.5, np.random.default_rng(1))
    assert noisy.std() == pytest.approx(1.0, rel=0.02)


def test_generator_samples_each_class_and_is_seeded():
    from sklearn.datasets import load_digits

    d = load_digits()
    gen = M.fit_generator(d.data[:500], d.target[:500], rng=np.random.default_rng(0))
    X, y = gen.sample(4, np.random.default_rng(1))
    assert X.shape == (40, 64) and np.bincount(y).tolist() == [4] * 10
    X2, _ = gen.sample(4, np.random.default_rng(1))
    np.testing.assert_array_equal(X, X2)


def test_font_digits():
    X, y = M.render_font_digits(3, np.random.default_rng(0))
    assert X.shape == (30, 64) and X.min() >= 0 and X.max() <= 16
    assert np.bincount(y).tolist() == [3] * 10
    assert M.n_usable_fonts() >= 10  # symbol fonts are skipped
    X2, _ = M.render_font_digits(3, np.random.default_rng(0))
    np.testing.assert_array_equal(X, X2)


# --- training -----------------------------------------------------------------------------------------
def tiny_task():
    g = torch.Generator().manual_seed(0)
    x_real, y_real = torch.randn(10, 64, generator=g), torch.arange(10)
    x_syn, y_syn = torch.randn(30, 64, generator=g), torch.arange(30) % 10
    return x_real, y_real, x_syn, y_syn


@pytest.mark.parametrize("name", list(M.methods()))
def test_training_is_deterministic_and_independent_of_global_state(name):
    meth = M.methods()[name]
    nets = []
    for junk in (0, 1):
        torch.rand(junk + 1)  # moves the global generator: must change nothing
        net = M.mlp(seed=5)
        M.train(
            net,
            meth,
            *tiny_task(),
            epochs=5,
            K=3,
            generator=torch.Generator().manual_seed(2),
        )
        nets.append(torch.cat([p.ravel() for p in net.parameters()]))
    torch.testing.assert_close(nets[0], nets[1], rtol=0, atol=0)


def test_training_reduces_the_objective_and_kmeans_partition_runs():
    x_real, y_real, x_syn, y_syn = tiny_task()
    for partition in ("online", "kmeans"):
        net = M.mlp(seed=0)
        before = M.accuracy(net, x_real, y_real)
        M.train(
            net,
            M.methods()["+ λ_dis + λ_rob"],
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
        assert M.accuracy(net, x_real, y_real) == 1.0 > before


def test_bound_ingredients():
    x_real, _, x_syn, _ = tiny_task()
    net = M.mlp(seed=0)
    r_real, r_syn = M.kmeans_regions(x_real.numpy(), x_syn.numpy(), 3, seed=0)
    ing = M.bound_ingredients(net, x_real, x_syn, r_real, r_syn, 3)
    assert ing.discrepancy > 0 and ing.robustness > 0 and 1 <= ing.regions_shared <= 3


# --- bad inputs ------------------------------------------------------------------------------------------
def test_bad_inputs_give_clear_errors():
    h_real, h_syn, r_real, r_syn = random_case(0)
    with pytest.raises(ValueError, match="K must be a positive int"):
        M.discrepancy_term(h_real, h_syn, r_real, r_syn, 0)
    with pytest.raises(ValueError, match="K must be a positive int"):
        M.OnlineKMeans.init(0, 2, torch.Generator())
    with pytest.raises(ValueError, match=r"regions_(real|syn) must lie in 0..K-1"):
        M.discrepancy_term(h_real, h_syn, r_real, r_syn, 3)
    with pytest.raises(ValueError, match="lam_dis must be a finite number ≥ 0"):
        M.objective(
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
    with pytest.raises(ValueError, match="lam_rob must be a finite number ≥ 0"):
        M.methods(lam_rob=-0.1)
    with pytest.raises(ValueError, match="same number of classes"):
        M.discrepancy_term(h_real[:, :2], h_syn, r_real, r_syn, 5)
    with pytest.raises(
        ValueError, match=r"regions_real must be an int64 tensor of shape \(7,\)"
    ):
        M.discrepancy_term(h_real, h_syn, r_real[:3], r_syn, 5)
    with pytest.raises(ValueError, match=r"y_syn must be a tensor of shape \(13,\)"):
        M.objective(
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
        M.robustness_term(h_syn[0], r_syn, 5)
    with pytest.raises(ValueError, match="x has 3 features but the centroids have 2"):
        M.OnlineKMeans.init(2, 2, torch.Generator()).update(
            torch.ones(4, 3), torch.zeros(4, dtype=torch.int64)
        )
    y = np.repeat(np.arange(10), 3)
    with pytest.raises(ValueError, match="class 0 has .* images outside the pool"):
        M.split_digits(
            np.concatenate([y[y != 0], [0]]),
            pool_size=1,
            shots=[1, 5],
            rng=np.random.default_rng(0),
        )
    with pytest.raises(ValueError, match="each shot count must be a positive int"):
        M.split_digits(y, pool_size=5, shots=[0], rng=np.random.default_rng(0))
    with pytest.raises(TypeError, match="rng must be a numpy.random.Generator"):
        M.split_digits(y, pool_size=5, shots=[1], rng=0)
    with pytest.raises(ValueError, match=r"gap must lie in \[0, 1\]"):
        M.apply_gap(np.zeros((2, 64)), 1.5, np.random.default_rng(0))
    with pytest.raises(ValueError, match=r"X must have shape \(n, 64\)"):
        M.apply_gap(np.zeros((2, 63)), 0.5, np.random.default_rng(0))
    with pytest.raises(ValueError, match="partition must be 'online' or 'kmeans'"):
        M.train(
            M.mlp(seed=0),
            M.methods()["real only"],
            *tiny_task(),
            epochs=1,
            K=2,
            generator=torch.Generator(),
            partition="spectral",
        )
    with pytest.raises(ValueError, match="epochs must be a positive int"):
        M.train(
            M.mlp(seed=0),
            M.methods()["real only"],
            *tiny_task(),
            epochs=0,
            K=2,
            generator=torch.Generator(),
        )
    x_real, y_real, x_syn, y_syn = tiny_task()
    with pytest.raises(ValueError, match="trains on real images, but there are none"):
        M.train(
            M.mlp(seed=0),
            M.methods()["real only"],
            x_real[:0],
            y_real[:0],
            x_syn,
            y_syn,
            epochs=1,
            K=2,
            generator=torch.Generator(),
        )
    with pytest.raises(ValueError, match="real and synthetic images differ in size"):
        M.train(
            M.mlp(seed=0),
            M.methods()["real only"],
            x_real,
            y_real,
            x_syn[:, :10],
            y_syn,
            epochs=1,
            K=2,
            generator=torch.Generator(),
        )
    with pytest.raises(ValueError, match="y_pool has 3 labels but there are 4 images"):
        M.fit_generator(
            np.zeros((4, 64)), np.zeros(3, dtype=int), rng=np.random.default_rng(0)
        )


def test_online_regions_match_what_training_sees_and_partition_summary():
    x_real, _, x_syn, y_syn = tiny_task()
    r_real, r_syn = M.online_regions(
        x_real, x_syn, 3, 4, torch.Generator().manual_seed(7)
    )
    state = M.OnlineKMeans.init(3, 64, torch.Generator().manual_seed(7))
    for _ in range(4):
        a, b, state = state.step(x_real, x_syn)
    assert torch.equal(a, r_real) and torch.equal(b, r_syn)
    s = M.summarise_partition([0, 0], [0, 0, 1, 1, 1], [2, 2, 3, 3, 4], 3)
    assert s == M.PartitionSummary(
        regions_used=2, purity=0.8, synthetic_share=0.4, regions_shared=1
    )
    with pytest.raises(
        ValueError, match="regions_syn must be 1-D with values in 0..K-1"
    ):
        M.summarise_partition([0], [0, 5], [1, 1], 3)


# --- the released configurations and the chapter's protocol -----------------------------------
def test_released_configurations_known_answers():
    # configs/clip_vit_caltech.json and configs/clip_resnet.json of the lightweight code
    assert M.CONFIGS["clip_vit_caltech"] == M.Method(4, 1, 0.1, 1)
    assert M.CONFIGS["clip_resnet"] == M.Method(1, 1, 0.05, 1)


@pytest.fixture(scope="module")
def digits():
    from sklearn.datasets import load_digits

    d = load_digits()
    return d.data, d.target


def small_seed(digits, seed=0, fonts=False):
    X, y = digits
    return M.prepare_seed(
        X, y, pool=700, shots=[1, 5], n_syn=6, gaps=[0.0, 1.0],
        rng=np.random.default_rng(seed), fonts=fonts,
    )  # fmt: skip


def test_prepare_seed_shapes_normalisation_and_determinism(digits):
    X, y = digits
    d = small_seed(digits)
    assert list(d.synthetic) == ["gap 0.0", "gap 1.0"]
    assert d.x_real[5].shape == (50, 64) and d.y_real[1].shape == (10,)
    assert d.synthetic["gap 1.0"][0].shape == (60, 64)
    assert d.x_test.shape == (len(d.split.test), 64) and d.x_oracle.shape == (700, 64)
    # normalised by the pool's pixel statistics: the oracle (the pool) has mean 0, sd 1
    assert float(d.x_oracle.mean()) == pytest.approx(0, abs=1e-5)
    assert float(d.x_oracle.std(unbiased=False)) == pytest.approx(1, rel=1e-4)
    torch.testing.assert_close(d.y_oracle, torch.as_tensor(y[d.split.pool]))
    # gap 0 leaves the generator's images as drawn; the raw copy is on the 0–16 scale
    pool01 = X[d.split.pool] / 16
    back = d.synthetic["gap 0.0"][0].double() * pool01.std() + pool01.mean()
    np.testing.assert_allclose(back.numpy() * 16, d.raw["gap 0.0"][0], atol=1e-4)
    again = small_seed(digits)
    torch.testing.assert_close(again.synthetic["gap 1.0"][0], d.synthetic["gap 1.0"][0])
    assert again.init == d.init and small_seed(digits, 1).init != d.init
    with_fonts = small_seed(digits, fonts=True)
    assert list(with_fonts.synthetic)[-1] == "fonts"
    # fonts are drawn after the gaps: the gap images do not change
    torch.testing.assert_close(
        with_fonts.synthetic["gap 1.0"][0], d.synthetic["gap 1.0"][0]
    )


def test_prepare_seed_bad_inputs(digits):
    X, y = digits
    with pytest.raises(ValueError, match="gaps must list at least one gap"):
        M.prepare_seed(X, y, pool=700, shots=[5], n_syn=2, gaps=[],
                       rng=np.random.default_rng(0))  # fmt: skip
    with pytest.raises(ValueError, match="n_syn must be a positive int"):
        M.prepare_seed(X, y, pool=700, shots=[5], n_syn=0, gaps=[0.0],
                       rng=np.random.default_rng(0))  # fmt: skip


def rng_for(stream):
    return torch.Generator().manual_seed(17 * int(stream) + 3)


VARIANTS = {
    M.NAIVE: M.Method(1, 1, 0, 0),
    "full": M.CONFIGS["clip_vit_caltech"],
    "lam1": M.Method(1, 1, 1, 1),
}


@pytest.fixture(scope="module")
def grid(digits):
    data = [small_seed(digits, s) for s in (0, 1)]
    rows, ing = M.run_grid(
        data, VARIANTS, epochs=3, K=4, rng_for=rng_for,
        only_on={"lam1": ["gap 1.0"]}, kmeans_variants=["full"],
    )  # fmt: skip
    return data, rows, ing


def test_run_grid_rows_and_ingredients(grid):
    data, rows, ing = grid
    gens, shots = ["gap 0.0", "gap 1.0"], [1, 5]
    key = {(r["seed"], r["k"], r["generator"], r["method"]) for r in rows}
    assert len(key) == len(rows)  # one row per (seed, k, generator, method)
    per_cell = {M.REAL_ONLY, M.SYN_ONLY, M.ORACLE, M.NAIVE, "full"}
    per_cell |= {"full (k-means on S ∪ G)"}
    for s in (0, 1):
        for k in shots:
            for g in gens:
                got = {m for (s2, k2, g2, m) in key if (s2, k2, g2) == (s, k, g)}
                assert got == per_cell | ({"lam1"} if g == "gap 1.0" else set())
    # real only, the oracle and synthetic only do not depend on the rest: one model each
    acc = {(r["seed"], r["k"], r["generator"], r["method"]): r["acc"] for r in rows}
    for m in (M.REAL_ONLY, M.ORACLE):
        assert acc[(0, 5, "gap 0.0", m)] == acc[(0, 5, "gap 1.0", m)]
    assert acc[(1, 1, "gap 1.0", M.SYN_ONLY)] == acc[(1, 5, "gap 1.0", M.SYN_ONLY)]
    # the bound's ingredients after every naive run, its error = 1 − accuracy
    assert len(ing) == 2 * len(shots) * len(gens)
    for row in ing:
        a = acc[(row["seed"], row["k"], row["generator"], M.NAIVE)]
        assert row["error"] == pytest.approx(1 - a) and row["discrepancy"] >= 0
    assert max(row["discrepancy"] for row in ing) > 0


def test_run_grid_matches_a_single_fit(grid):
    data, rows, _ = grid
    d = data[1]
    net = M.fit(
        VARIANTS["full"], d.x_real[5], d.y_real[5], *d.synthetic["gap 1.0"],
        init=d.init, epochs=3, K=4, generator=rng_for(M.cell_stream(1, 5, 1)),
    )  # fmt: skip
    want = M.accuracy(net, d.x_test, d.y_test)
    got = [
        r["acc"]
        for r in rows
        if (r["seed"], r["k"], r["generator"], r["method"]) == (1, 5, "gap 1.0", "full")
    ]
    assert got == [want]


def test_paired_gains_and_mean_over_cells():
    rows = [
        dict(seed=s, k=5, generator=g, method=m, acc=a)
        for s, g, m, a in [
            (0, "a", "x", 0.9), (0, "a", "y", 0.8), (1, "a", "x", 0.7), (1, "a", "y", 0.75),
            (0, "b", "x", 0.5), (0, "b", "y", 0.5), (1, "b", "x", 0.6), (1, "b", "y", 0.4),
        ]
    ]  # fmt: skip
    gains = M.paired_gains(rows, "x", "y", [("a", 5), ("b", 5)])
    assert gains[("a", 5)] == pytest.approx([0.1, -0.05])
    assert gains[("b", 5)] == pytest.approx([0.0, 0.2])
    assert M.mean_over_cells(gains) == pytest.approx([0.05, 0.075])
    with pytest.raises(ValueError, match="no 'z' accuracy for seed 0"):
        M.paired_gains(rows, "z", "y", [("a", 5)])
    with pytest.raises(ValueError, match="gains must hold at least one cell"):
        M.mean_over_cells({})


def test_protocol_bad_inputs(grid):
    data = grid[0]
    with pytest.raises(TypeError, match="rng_for must be a callable"):
        M.run_grid(data, VARIANTS, epochs=1, K=2, rng_for=0)
    with pytest.raises(ValueError, match="'nope' is not one of the variants"):
        M.run_grid(data, VARIANTS, epochs=1, K=2, rng_for=rng_for, only_on={"nope": []})
    with pytest.raises(ValueError, match="data must hold at least one seed"):
        M.run_grid([], VARIANTS, epochs=1, K=2, rng_for=rng_for)
    with pytest.raises(ValueError, match="generator 'fonts' is not in the data"):
        M.partition_summaries(data, ["fonts"], K=2, steps=1, rng_for=rng_for)


def test_partition_summaries_use_the_training_stream(grid):
    data = grid[0]
    out = M.partition_summaries(data[:1], ["gap 1.0"], K=4, steps=3, rng_for=rng_for)
    assert len(out) == 2 * 2  # two shot counts × two partitions
    d = data[0]
    x_syn, y_syn = d.synthetic["gap 1.0"]
    a, b = M.online_regions(d.x_real[5], x_syn, 4, 3, rng_for(M.cell_stream(0, 5, 1)))
    s = M.summarise_partition(a, b, y_syn.numpy(), 4)
    row = [r for r in out if r["k"] == 5 and r["partition"] == "online (training)"][0]
    assert (row["regions"], row["purity"], row["share"]) == (
        s.regions_used, s.purity, s.synthetic_share,
    )  # fmt: skip


def test_lambda_grid_corner_is_the_plain_objective(grid):
    data = grid[0][:1]
    g = M.lambda_grid(
        data, [0.0, 1.0], k=5, generator="gap 1.0", ce_real=1, ce_syn=1,
        epochs=3, K=4, rng_for=rng_for,
    )  # fmt: skip
    assert g.shape == (2, 2) and np.isfinite(g).all()
    d = data[0]
    net = M.fit(M.Method(1, 1, 0, 0), d.x_real[5], d.y_real[5], *d.synthetic["gap 1.0"],
                init=d.init, epochs=3, K=4, generator=rng_for(0))  # fmt: skip
    assert g[0, 0] == M.accuracy(net, d.x_test, d.y_test)
