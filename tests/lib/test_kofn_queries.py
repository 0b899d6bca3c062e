import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import sparse

from repbook.papers import kofn_queries as K


def rng(seed=0):
    return np.random.default_rng(seed)


def small_instances(seed=0):
    """A few small monotone submodular instances of each kind (n <= 14)."""
    g = rng(seed)
    X = g.normal(size=(14, 3))
    return [
        K.coverage_instance(12, 20, g, mean_size=3.0),
        K.FacilityLocation(K.rbf_similarity(X)),
        K.Additive(g.random(13)),
        K.hidden_element_instance(14, 3, g),
        K.FacilityLocation(g.random((9, 11))),
    ]


# --- set functions ---------------------------------------------------------------------------
def test_known_values():
    inc = sparse.csr_matrix(np.array([[1, 1, 0, 0], [0, 1, 1, 0], [0, 0, 0, 1]]))
    cov = K.Coverage(inc, [1.0, 2.0, 3.0, 4.0])
    assert (
        cov.value([0]) == 3.0
        and cov.value([0, 1]) == 6.0
        and cov.value([0, 1, 2]) == 10.0
    )
    assert cov.value([]) == 0.0
    fl = K.FacilityLocation(np.array([[1.0, 0.2], [0.5, 0.9]]))
    assert fl.value([0]) == 1.5 and fl.value([0, 1]) == 1.9
    h = K.HiddenElement(10, 4, star=3)
    assert h.value([0]) == 0.25 and h.value([3]) == 1.0 and h.value([0, 1, 2, 4]) == 1.0
    assert K.HiddenElement(10, 4).value([3]) == 0.25


@pytest.mark.parametrize("i", range(5))
def test_incremental_interface_matches_value(i):
    fn = small_instances(1)[i]
    g = rng(2)
    oracle = K.QueryOracle(fn)
    state = oracle.start()
    for e in g.permutation(fn.n)[:4]:
        cands = np.setdiff1d(np.arange(fn.n), state.members)
        vals = oracle.extend(state, cands)
        np.testing.assert_allclose(vals, [fn.value(state.members + [c]) for c in cands])
        oracle.add(state, e, fn.value(state.members + [int(e)]))
        assert state.value == pytest.approx(fn.value(state.members))


@pytest.mark.parametrize("i", range(5))
def test_instances_are_monotone_submodular(i):
    K.check_monotone_submodular(small_instances(3)[i], rng(4), trials=300)


def test_check_catches_decreasing_and_supermodular():
    decreasing = K.CallableFunction(6, lambda S: -float(len(S)))
    with pytest.raises(ValueError, match="not monotone: its values decrease"):
        K.check_monotone_submodular(decreasing, rng())
    convex = K.CallableFunction(6, lambda S: float(len(S)) ** 2)
    with pytest.raises(ValueError, match="not submodular"):
        K.check_monotone_submodular(convex, rng())


# --- query counts equal their formulas ---------------------------------------------------------
@pytest.mark.parametrize("n,k", [(12, 1), (12, 5), (30, 7), (9, 9)])
def test_greedy_count(n, k):
    fn = K.coverage_instance(n, 40, rng(n + k))
    assert K.greedy(fn, k).queries == n * k - k * (k - 1) // 2 == K.greedy_queries(n, k)


@pytest.mark.parametrize(
    "n,k,eps", [(50, 5, 0.1), (50, 5, 0.5), (20, 10, 0.01), (7, 3, 0.3)]
)
def test_stochastic_greedy_count(n, k, eps):
    fn = K.Additive(rng(1).random(n))
    s = K.stochastic_greedy_sample_size(n, k, eps)
    assert s == max(1, math.ceil(n / k * math.log(1 / eps)))
    sel = K.stochastic_greedy(fn, k, rng(2), epsilon=eps)
    expected = sum(min(s, n - i) for i in range(k))
    assert sel.queries == expected == K.stochastic_greedy_queries(n, k, s)
    assert len(set(sel.indices.tolist())) == k


@pytest.mark.parametrize("m,k", [(5, 5), (17, 4), (30, 1)])
def test_subsample_greedy_count(m, k):
    fn = K.coverage_instance(30, 50, rng(m))
    assert K.subsample_greedy(fn, k, rng(1), m=m).queries == m * k - k * (k - 1) // 2


def test_other_counts():
    fn = K.Additive(rng().random(23))
    assert K.random_k(fn, 4, rng()).queries == 0
    assert K.top_singletons(fn, 4, rng(), budget=10).queries == 10
    assert K.top_singletons(fn, 4, rng(), budget=100).queries == 23
    assert K.best_of_blocks(fn, 4, rng(), budget=3).queries == 3
    assert K.best_of_blocks(fn, 4, rng(), budget=100).queries == 6  # ceil(23/4) blocks
    assert K.brute_force_opt(fn, 3).queries == math.comb(23, 3)


@pytest.mark.parametrize("i", range(5))
def test_lazy_greedy_matches_greedy_with_fewer_queries(i):
    fn = small_instances(5)[i]
    k = 4
    a, b = K.greedy(fn, k), K.lazy_greedy(fn, k)
    assert b.value == pytest.approx(a.value)
    assert fn.n <= b.queries <= a.queries


@pytest.mark.parametrize("name", K.ALGORITHMS)
@pytest.mark.parametrize("q", [0, 1, 5, 13, 40, 200])
def test_budgeted_runs_never_exceed_the_budget(name, q):
    fn = K.coverage_instance(40, 60, rng(q))
    k = 4
    if q < K.min_budget(name, 40, k):
        with pytest.raises(ValueError, match="below the minimum"):
            K.run_budgeted(name, fn, k, q, rng())
        return
    sel = K.run_budgeted(name, fn, k, q, rng())
    assert sel.queries <= q
    assert 1 <= sel.indices.size <= k
    assert sel.value == pytest.approx(fn.value(sel.indices))


def test_oracle_budget_and_no_cache():
    fn = K.Additive([1.0, 2.0, 3.0])
    o = K.QueryOracle(fn, budget=3)
    o.value([0])
    o.value([0])  # the same set again costs again
    assert o.queries == 2
    with pytest.raises(K.BudgetExceeded):
        o.extend(o.start(), [0, 1])
    assert o.queries == 2


# --- guarantees against brute force ----------------------------------------------------------
@pytest.mark.parametrize("seed", range(3))
def test_greedy_beats_one_minus_one_over_e(seed):
    for fn in small_instances(seed):
        for k in (2, 3, 4):
            opt = K.brute_force_opt(fn, k).value
            assert K.greedy(fn, k).value >= (1 - 1 / math.e) * opt - 1e-12


def test_stochastic_greedy_on_average():
    eps = 0.2
    for fn in small_instances(7):
        k = 3
        opt = K.brute_force_opt(fn, k).value
        mean = np.mean(
            [K.stochastic_greedy(fn, k, rng(s), epsilon=eps).value for s in range(40)]
        )
        assert mean >= (1 - 1 / math.e - eps) * opt


def test_brute_force_is_optimal_on_additive():
    w = rng(3).random(15)
    assert K.brute_force_opt(K.Additive(w), 4).value == pytest.approx(
        K.additive_opt(w, 4)
    )


# --- nested algorithms and least_budget --------------------------------------------------------
def test_nested_algorithms_are_monotone_in_the_budget():
    fn = K.additive_instance("planted", 300, 6, rng(1))
    for alg in (K.top_singletons, K.best_of_blocks):
        vals = [alg(fn, 6, rng(9), budget=q).value for q in range(1, 320, 7)]
        assert np.all(np.diff(vals) >= 0)


def test_least_budget_bisection():
    f = lambda q: float(q >= 37)  # noqa: E731
    assert K.least_budget(f, 0.5, 1, 100) == 37
    assert K.least_budget(f, 0.5, 1, 20) is None
    assert K.least_budget(f, 0.5, 37, 37) == 37


def test_hidden_element_needs_the_star():
    fn = K.HiddenElement(200, 20, star=150)
    sel = K.top_singletons(fn, 5, rng(), budget=200)
    assert 150 in sel.indices and sel.value == 1.0
    assert K.HiddenElement(200, 20).value(np.arange(5)) == 0.25


# --- the illustrative estimator ---------------------------------------------------------------
def test_level_estimate_by_hand():
    w = np.array([5.0, 3.0, 1.5, 0.7])
    # levels: 0.7 -> -1, 1.5 -> 0, 3 -> 1, 5 -> 2; counts #{w >= 2^l}: l=-1:4, 0:3, 1:2, 2:1
    k = 2
    by_hand = 0.5 * 2 + 1 * 2 + 2 * 2 + 4 * 1
    assert K.level_estimate(w, 4, k) == pytest.approx(by_hand)
    assert K.level_estimate(np.zeros(3), 3, 1) == 0.0


@settings(max_examples=80, deadline=None)
@given(
    st.lists(st.floats(0, 1e6, allow_subnormal=False), min_size=1, max_size=60),
    st.integers(1, 60),
)
def test_exact_counts_are_within_two(ws, k):
    w = np.array(ws)
    k = min(k, w.size)
    opt = K.additive_opt(w, k)
    est = K.level_estimate(w, w.size, k)
    if opt == 0:
        assert est == 0
    else:
        assert opt / 2 < est <= 2 * opt * (1 + 1e-12)


def test_level_estimate_rows_and_sampling():
    w = rng(2).random(100)
    rows = np.stack([w[:20], w[20:40]])
    one_by_one = [K.level_estimate(w[:20], 100, 5), K.level_estimate(w[20:40], 100, 5)]
    np.testing.assert_allclose(K.level_estimate(rows, 100, 5), one_by_one)
    est = K.sampled_level_estimates(w, 5, [10, 100], rng(1))
    assert est[-1] == pytest.approx(K.level_estimate(w, 100, 5))


@pytest.mark.parametrize("kind", K.ADDITIVE_KINDS)
def test_additive_kinds(kind):
    fn = K.additive_instance(kind, 500, 10, rng(4))
    assert fn.n == 500 and np.all(fn.weights >= 0)
    if kind == "planted":
        assert np.sum(fn.weights == 3.0) == 10
    if kind == "rare heavy":
        assert np.sum(fn.weights == 50.0) == 2


# --- bad inputs -------------------------------------------------------------------------------
@pytest.mark.parametrize("k", [0, -1, 11, 2.0, True])
def test_bad_k(k):
    fn = K.Additive(np.ones(10))
    with pytest.raises(ValueError, match="k must"):
        K.greedy(fn, k)


def test_bad_values():
    with pytest.raises(ValueError, match="weights must be nonnegative"):
        K.Additive([1.0, -2.0])
    with pytest.raises(ValueError, match="weights must be finite"):
        K.Additive([1.0, np.nan])
    with pytest.raises(ValueError, match="similarity must be nonnegative"):
        K.FacilityLocation(-np.ones((2, 2)))
    with pytest.raises(ValueError, match="similarity must be a 2-D"):
        K.FacilityLocation(np.ones(3))
    with pytest.raises(ValueError, match="item_weights"):
        K.Coverage(sparse.csr_matrix(np.eye(3)), [1.0, 1.0])
    with pytest.raises(ValueError, match="0/1 matrix"):
        K.Coverage(sparse.csr_matrix(2 * np.eye(2)), [1.0, 1.0])
    with pytest.raises(ValueError, match="sample must be nonnegative"):
        K.level_estimate([1.0, -1.0], 5, 1)
    with pytest.raises(ValueError, match="at most n=2"):
        K.level_estimate([1.0, 1.0, 1.0], 2, 1)
    with pytest.raises(ValueError, match="repeat an element"):
        K.Additive(np.ones(4)).value([1, 1])
    with pytest.raises(ValueError, match=r"indices must lie in \[0, 3\]"):
        K.Additive(np.ones(4)).value([4])


def test_bad_parameters():
    fn = K.Additive(np.ones(10))
    with pytest.raises(ValueError, match="budget 3 is below the minimum 6"):
        K.run_budgeted("subsample greedy", fn, 3, 3, rng())
    with pytest.raises(ValueError, match="algorithm must be one of"):
        K.run_budgeted("sieve", fn, 3, 30, rng())
    with pytest.raises(ValueError, match="epsilon must lie in"):
        K.stochastic_greedy(fn, 3, rng(), epsilon=1.5)
    with pytest.raises(ValueError, match="exactly one of"):
        K.stochastic_greedy(fn, 3, rng())
    with pytest.raises(ValueError, match=r"m must be an int in \[3, 10\], got 2"):
        K.subsample_greedy(fn, 3, rng(), m=2)
    with pytest.raises(ValueError, match="budget must be a positive int, got 0"):
        K.top_singletons(fn, 3, rng(), budget=0)
    with pytest.raises(TypeError, match="rng must be a numpy.random.Generator"):
        K.random_k(fn, 3, 0)
    with pytest.raises(TypeError, match="fn must be one of"):
        K.greedy(lambda S: 0.0, 1)
    with pytest.raises(ValueError, match="brute force is for n <= 25"):
        K.brute_force_opt(K.Additive(np.ones(30)), 2)
    with pytest.raises(ValueError, match="kind must be one of"):
        K.additive_instance("normal", 10, 2, rng())
    with pytest.raises(ValueError, match="need lo <= hi"):
        K.least_budget(lambda q: 1.0, 0.5, 5, 4)
    with pytest.raises(ValueError, match=r"star must be an int in \[-1, 9\], got 10"):
        K.HiddenElement(10, 2, star=10)
    with pytest.raises(ValueError, match="X must be a 2-D array"):
        K.rbf_similarity(np.ones(4))


@pytest.mark.parametrize("i", range(5))
def test_oracle_values_rows_match_value(i):
    fn = small_instances(8)[i]
    rows = rng(3).permutation(fn.n)[: 3 * (fn.n // 3)].reshape(-1, 3)
    o = K.QueryOracle(fn)
    np.testing.assert_allclose(o.values(rows), [fn.value(r) for r in rows])
    assert o.queries == len(rows)
    with pytest.raises(ValueError, match="rows must be a 2-D array"):
        o.values(rows[0])


def test_vectorised_rows_match_one_by_one():
    g = rng(11)
    w = np.concatenate([g.random((6, 30)), g.pareto(1.3, (6, 30)) + 1.0])
    w[0, :5] = 0.0
    w[1] = 0.0
    got = K.level_estimate(w, 500, 7)
    np.testing.assert_allclose(
        got, [K.level_estimate(r, 500, 7) for r in w], rtol=1e-12
    )
    assert got[1] == 0.0


def test_more_bad_parameters():
    with pytest.raises(ValueError, match="heavy must be a finite number > 0, got -1.0"):
        K.additive_instance("planted", 10, 2, rng(), heavy=-1.0)
    with pytest.raises(
        ValueError, match="pareto_shape must be a finite number > 0, got 0"
    ):
        K.additive_instance("pareto", 10, 2, rng(), pareto_shape=0)
    with pytest.raises(ValueError, match="mean_size must be >= 1"):
        K.coverage_instance(10, 5, rng(), mean_size=0.5)
    with pytest.raises(ValueError, match="gamma must be a finite number > 0, got -2.0"):
        K.rbf_similarity(np.eye(3), gamma=-2.0)
    with pytest.raises(TypeError, match="ratio_at must be callable"):
        K.least_budget(3, 0.5, 1, 4)
    with pytest.raises(ValueError, match="target must be a finite number"):
        K.least_budget(lambda q: 1.0, float("nan"), 1, 4)
    with pytest.raises(ValueError, match="trials must be a positive int, got 0"):
        K.check_monotone_submodular(K.Additive(np.ones(3)), rng(), trials=0)
    with pytest.raises(ValueError, match="sample_size must be a positive int, got 0"):
        K.stochastic_greedy_queries(10, 2, 0)
    with pytest.raises(ValueError, match="m must be a positive int, got 0"):
        K.HiddenElement(10, 0)


# --- experiment protocols ---------------------------------------------------------------
def streams(seed=0):
    return lambda k: np.random.default_rng([seed, int(k)])


def test_budget_grid():
    g = K.budget_grid(3, 1000, per_octave=4)
    assert g[0] == 3 and g[-1] == 1000
    assert np.all(np.diff(g) > 0)
    assert np.max(g[1:] / g[:-1]) <= 2**0.25 * 1.2  # rounding aside
    assert K.budget_grid(0, 0).tolist() == [1]
    assert K.budget_grid(7, 7).tolist() == [7]
    with pytest.raises(ValueError, match="need lo <= hi"):
        K.budget_grid(10, 5)
    with pytest.raises(ValueError, match="per_octave must be a positive int, got 0"):
        K.budget_grid(1, 5, per_octave=0)


def test_upper_half():
    assert K.upper_half([3, None, 1, 2]) == 2.0  # sorted 1, 2, 3, inf: the 2nd
    assert K.upper_half([5, None, None]) == math.inf
    assert K.upper_half([4]) == 4.0
    with pytest.raises(ValueError, match="hits is empty"):
        K.upper_half([])


def test_q_star_suite_matches_a_linear_scan():
    n, k, seeds = 60, 3, 5
    make = K.hidden_family(n, k)
    child = streams(1)
    out = K.q_star_suite(
        make,
        lambda fn: K.family_opt(fn, k),
        n,
        k,
        child_rng=child,
        stream=100,
        seeds=seeds,
        grid_seeds=3,
    )
    assert set(out) == {*K.NESTED, *K.GRIDDED, "greedy"}
    inst = [make(child(100 + s)) for s in range(seeds)]
    for a, name in enumerate(K.NESTED):
        alg = {"best of blocks": K.best_of_blocks, "top singletons": K.top_singletons}
        hi = n if name == "top singletons" else math.ceil(n / k)
        hits = []
        for s, fn in enumerate(inst):
            g = 100 + 50_000 + 1000 * a + s
            ok = [
                q
                for q in range(1, hi + 1)
                if alg[name](fn, k, child(g), budget=q).value >= K.TARGET
            ]
            hits.append(ok[0] if ok else None)
        assert out[name] == K.upper_half(hits)
    assert out["greedy"] == K.greedy_queries(n, k)  # greedy finds x* (a gain of 1)
    again = K.q_star_suite(
        make,
        lambda fn: 1.0,
        n,
        k,
        child_rng=streams(1),
        stream=100,
        seeds=seeds,
        grid_seeds=3,
    )
    assert again == out
    out2, hits = K.q_star_suite(
        make,
        lambda fn: K.family_opt(fn, k),
        n,
        k,
        child_rng=streams(1),
        stream=100,
        seeds=seeds,
        grid_seeds=3,
        return_hits=True,
    )
    assert out2 == out and set(hits) == set(K.NESTED)
    for name in K.NESTED:
        assert len(hits[name]) == seeds and K.upper_half(hits[name]) == out[name]
    with pytest.raises(TypeError, match="return_hits must be True or False"):
        K.q_star_suite(
            make,
            lambda fn: 1.0,
            n,
            k,
            child_rng=child,
            stream=0,
            seeds=1,
            grid_seeds=1,
            return_hits=1,
        )


def test_equal_seed_best():
    ns, ks = [40, 80], [2, 4]
    table, hits = K.q_star_table(
        K.hidden_family,
        ns,
        ks,
        child_rng=streams(),
        stream=11,
        seeds=5,
        grid_seeds=2,
        return_hits=True,
    )
    assert table == K.q_star_table(
        K.hidden_family, ns, ks, child_rng=streams(), stream=11, seeds=5, grid_seeds=2
    )
    # the nested algorithms judged on 2 seeds alone: the same as running with seeds=2
    few = K.q_star_table(
        K.hidden_family, ns, ks, child_rng=streams(), stream=11, seeds=2, grid_seeds=2
    )
    best = K.equal_seed_best(table, hits, 2)
    assert best == {cell: min(v.values()) for cell, v in few.items()}
    # with all seeds, the nested q* are the table's
    assert K.equal_seed_best(table, hits, 5) == {
        cell: min(v.values()) for cell, v in table.items()
    }
    with pytest.raises(ValueError, match="fewer than grid_seeds=6"):
        K.equal_seed_best(table, hits, 6)
    with pytest.raises(ValueError, match="same cells"):
        K.equal_seed_best(table, {}, 2)


def test_q_star_table_cells_and_streams():
    ns, ks = [40, 80], [2, 4]
    table = K.q_star_table(
        K.planted_family, ns, ks, child_rng=streams(), stream=7, seeds=3, grid_seeds=2
    )
    assert list(table) == [(40, 2), (40, 4), (80, 2), (80, 4)]
    cell = K.q_star_suite(
        K.planted_family(80, 2),
        lambda fn: K.family_opt(fn, 2),
        80,
        2,
        child_rng=streams(),
        stream=7 + 100_000 * 10,
        seeds=3,
        grid_seeds=2,
    )
    assert table[80, 2] == cell
    with pytest.raises(ValueError, match="at most 10 values of k"):
        K.q_star_table(
            K.planted_family,
            [40],
            list(range(1, 12)),
            child_rng=streams(),
            stream=0,
            seeds=1,
            grid_seeds=1,
        )


def test_ratio_curves():
    n, k = 80, 4
    curves, points = K.ratio_curves(
        K.planted_family(n, k),
        lambda fn: K.family_opt(fn, k),
        n,
        k,
        child_rng=streams(),
        seeds=4,
        stream=0,
    )
    assert set(curves) == set(K.ALGORITHMS)
    assert curves["random k"][0].tolist() == [1]
    for name in K.NESTED:  # one order per seed for every budget: nested, so monotone
        assert np.all(np.diff(curves[name][1]) >= -1e-12)
    for qs, r in curves.values():
        assert np.all((r >= 0) & (r <= 1 + 1e-12))
        assert qs[-1] <= K.greedy_queries(n, k)
    assert points["greedy"][0] == K.greedy_queries(n, k)
    assert points["greedy"][1] == pytest.approx(1.0)  # greedy is optimal on additive f
    assert points["lazy greedy"][0] <= points["greedy"][0]
    small, _ = K.ratio_curves(
        K.planted_family(n, k),
        lambda fn: K.family_opt(fn, k),
        n,
        k,
        child_rng=streams(),
        seeds=2,
        stream=0,
        q_max=5,
    )
    assert "subsample greedy" not in small  # its minimum budget k(k+1)/2 = 10 > 5


def test_fit_slopes_known_answer():
    table = {(n, k): 3.0 * n * k**-0.5 for n in (100, 400, 1600) for k in (2, 8)}
    b, c = K.fit_slopes(table)
    assert b == pytest.approx(1.0) and c == pytest.approx(-0.5)
    table[100, 2] = math.inf  # ignored
    assert K.fit_slopes(table) == pytest.approx((1.0, -0.5))
    assert all(math.isnan(x) for x in K.fit_slopes({(1, 1): 1.0, (2, 1): 2.0}))


def test_fit_slopes_polylog_allowance():
    ns, ks = (500, 1000, 2000, 4000), (5, 10, 20)
    poly = {(n, k): 7.0 * n / math.log(n) ** 2 for n in ns for k in ks}
    assert K.fit_slopes(poly, polylog=2) == pytest.approx((1.0, 0.0), abs=1e-12)
    b_plain, _ = K.fit_slopes(poly)
    assert b_plain < 0.8  # n / ln^2 n is well below slope 1 on log n
    linear = {(n, k): 2.0 * n for n in ns for k in ks}
    assert K.fit_slopes(linear, polylog=2)[0] > 1.0  # linear passes a lower bar
    cube = {(n, k): n / math.log(n) ** 3 for n in ns for k in ks}
    assert K.fit_slopes(cube, polylog=2)[0] < 0.9  # beyond the allowance
    n_over_k = {(n, k): n / k for n in ns for k in ks}
    assert K.fit_slopes(n_over_k, polylog=2)[1] == pytest.approx(-1.0)
    with pytest.raises(ValueError, match="polylog must be"):
        K.fit_slopes(poly, polylog=-1)
    with pytest.raises(ValueError, match="every n > e"):
        K.fit_slopes({(n, 1): float(n) for n in (2, 4, 8, 16)}, polylog=2)


def test_ratio_slope():
    table = {(n, k): 3.0 * (n / k) ** 1.5 for n in (100, 400) for k in (2, 8)}
    assert K.ratio_slope(table) == pytest.approx(1.5)
    table[100, 2] = math.inf  # ignored
    assert K.ratio_slope(table) == pytest.approx(1.5)
    assert math.isnan(K.ratio_slope({(4, 2): 1.0, (8, 4): 3.0}))  # one n/k only


def test_family_opt_against_brute_force():
    g = rng(5)
    for fn in (
        K.hidden_element_instance(12, 3, g),
        K.hidden_element_instance(12, 3, g, planted=False),
        K.additive_instance("planted", 12, 3, g),
    ):
        assert K.family_opt(fn, 3) == pytest.approx(K.brute_force_opt(fn, 3).value)
    assert K.family_opt(K.HiddenElement(10, 8), 3) == pytest.approx(3 / 8)
    with pytest.raises(TypeError, match="Additive or HiddenElement"):
        K.family_opt(K.coverage_instance(5, 5, g), 2)
    assert K.hidden_family(30, 3)(rng()).n == 30
    assert np.sum(K.planted_family(30, 3)(rng()).weights == 3.0) == 3


def test_estimator_protocols():
    n, k = 200, 5
    budgets = K.budget_grid(1, n, per_octave=2)
    share, ratios = K.estimator_success(
        "planted", n, k, budgets, seeds=6, child_rng=streams(), stream=0
    )
    assert ratios.shape == (6, budgets.size) and share.shape == (budgets.size,)
    assert share[-1] == 1.0  # the whole ground set: exact counts, within a factor 2
    q = K.q_star_estimator(n, k, seeds=6, child_rng=streams(), stream=0)
    assert 1 <= q <= n
    assert (
        K.q_star_estimator(n, k, seeds=6, child_rng=streams(), stream=0, share=1.0) >= q
    )
    table = K.estimator_q_table(
        [100, 200], [2, 5], seeds=4, child_rng=streams(), stream=3
    )
    assert table[200, 5] == K.q_star_estimator(
        200, 5, seeds=4, child_rng=streams(), stream=3 + 100_000 * 11
    )
    with pytest.raises(ValueError, match="share must lie in"):
        K.q_star_estimator(n, k, seeds=2, child_rng=streams(), stream=0, share=0)


def test_greedy_against_brute_force():
    sim = K.rbf_similarity(rng(1).normal(size=(70, 4)))
    greedy_ratio, stoch_ratio = K.greedy_against_brute_force(
        sim, 8, rng(2), child_rng=streams(), stream=0, stochastic_seeds=3
    )
    assert len(greedy_ratio) == len(stoch_ratio) == 8
    assert min(greedy_ratio) >= 1 - 1 / math.e
    assert max(greedy_ratio) <= 1 + 1e-12 and max(stoch_ratio) <= 1 + 1e-12
    with pytest.raises(ValueError, match="at least 60 x 14"):
        K.greedy_against_brute_force(sim[:50], 2, rng(), child_rng=streams(), stream=0)


def test_protocols_bad_parameters():
    with pytest.raises(TypeError, match="child_rng must be callable"):
        K.q_star_estimator(10, 2, seeds=1, child_rng=3, stream=0)
    with pytest.raises(
        ValueError, match=r"seeds must be an int in \[1, 1000\], got 1001"
    ):
        K.estimator_success(
            "uniform", 10, 2, [5], seeds=1001, child_rng=streams(), stream=0
        )
    with pytest.raises(ValueError, match=r"grid_seeds must be an int in \[1, 2\], got"):
        K.q_star_suite(
            K.hidden_family(20, 2),
            lambda fn: 1.0,
            20,
            2,
            child_rng=streams(),
            stream=0,
            seeds=2,
            grid_seeds=3,
        )
