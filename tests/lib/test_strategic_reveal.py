from fractions import Fraction

import networkx as nx
import numpy as np
import pytest

from repbook.papers import strategic_reveal


# --- brute-force references, written as plainly as possible ---------------------------
def brute_scores(history, gamma):
    """Exact S(v) = Σ_{s<t} γ^{t−1−s} h_s(v) with fractions (0^0 = 1)."""
    g = Fraction(repr(gamma))
    T = len(history)
    return [
        sum(g ** (T - 1 - s) * int(history[s][v]) for s in range(T))
        for v in range(len(history[0]))
    ]


def brute_labels(adj, H):
    n = adj.shape[0]
    return np.array(
        [
            [any(H[j][v] for v in range(n) if adj[x][v]) for x in range(n)]
            for j in range(len(H))
        ]
    )


def all_learners(inst):
    return [
        strategic_reveal.halving_naive(),
        strategic_reveal.halving(),
        strategic_reveal.aby_threshold(inst),
        strategic_reveal.kin_threshold(inst),
        strategic_reveal.positive_on_vs(),
        strategic_reveal.proper(),
    ]


def for_model(learner, model):
    if model == "weighted" and learner.rule not in ("naive", "or"):
        return strategic_reveal.conservative(learner)
    return learner


# --- best responses -------------------------------------------------------------------
def test_best_response_on_a_hand_drawn_graph():
    # 0 → 1, 0 → 2, 1 → 2 (plus self-loops); h accepts node 2 only.
    adj = np.eye(3, dtype=bool)
    adj[0, 1] = adj[0, 2] = adj[1, 2] = True
    br = strategic_reveal.best_response(adj, np.array([0, 0, 1]))
    assert br.tolist() == [[False, False, True]] * 3
    # Nothing accepted: every reachable node ties.
    br0 = strategic_reveal.best_response(adj, np.zeros(3))
    assert br0.tolist() == adj.tolist()
    # Fractional scores (a memory): the largest reachable value wins.
    brf = strategic_reveal.best_response(adj, np.array([0.2, 0.7, 0.5]))
    assert brf[0].tolist() == [False, True, False]
    assert brf[2].tolist() == [False, False, True]


def test_tie_rules_std_stays_arb_may_move():
    adj = np.eye(3, dtype=bool)
    adj[0, 1] = adj[0, 2] = True
    h = np.array([0, 0, 0])
    std = strategic_reveal.allowed_moves(adj, h, "std")
    arb = strategic_reveal.allowed_moves(adj, h, "arb")
    assert std[0].tolist() == [True, False, False]  # stays: x is a best response
    assert arb[0].tolist() == [True, True, True]  # any tie
    h = np.array([0, 1, 1])  # x is not a best response
    assert strategic_reveal.allowed_moves(adj, h, "std")[0].tolist() == [
        False,
        True,
        True,
    ]
    h = np.array([1, 1, 0])  # x ties with node 1
    assert strategic_reveal.allowed_moves(adj, h, "std")[0].tolist() == [
        True,
        False,
        False,
    ]
    assert strategic_reveal.allowed_moves(adj, h, "arb")[0].tolist() == [
        True,
        True,
        False,
    ]


def test_effective_labels_match_brute_force():
    rng = np.random.default_rng(3)
    adj = rng.random((7, 7)) < 0.3
    np.fill_diagonal(adj, True)
    H = rng.random((5, 7)) < 0.3
    assert np.array_equal(
        strategic_reveal.effective_labels(adj, H), brute_labels(adj, H)
    )


# --- the agents' memory ---------------------------------------------------------------
@pytest.mark.parametrize(
    "gamma,expected", [(0.0, 1), (0.5, 1), (0.8, 4), (0.9, 7), (0.99, 69), (0.999, 693)]
)
def test_r_star_values(gamma, expected):
    assert strategic_reveal.r_star(gamma) == expected
    if gamma > 0:
        assert expected == max(1, int(np.ceil(np.log(2) / np.log(1 / gamma))))


@pytest.mark.parametrize("gamma", [0.0, 0.5, 0.8, 0.9, 0.99])
def test_stale_rounds_equal_r_star_after_a_long_history(gamma):
    assert strategic_reveal.stale_rounds(gamma, 5000) == strategic_reveal.r_star(gamma)


@pytest.mark.parametrize("gamma", [0.0, 0.3, 0.5, 0.75, 0.9])
@pytest.mark.parametrize("history", [1, 2, 5, 40])
def test_stale_rounds_match_the_closed_form(gamma, history):
    got = strategic_reveal.stale_rounds(gamma, history)
    assert got == strategic_reveal.stale_rounds_closed_form(gamma, history)
    assert 1 <= got <= strategic_reveal.r_star(gamma)


@pytest.mark.parametrize("gamma", [0.0, 0.3, 0.5, 0.6, 0.9, 0.99])
def test_memory_ranks_order_exactly_like_the_discounted_sums(gamma):
    rng = np.random.default_rng(int(gamma * 100))
    for trial in range(40):
        T, n = int(rng.integers(1, 25)), 6
        hist = [rng.random(n) < 0.5 for _ in range(T)]
        if trial % 4 == 0:  # long runs of one classifier, then a switch
            hist = [hist[0]] * T + [hist[-1]] * int(rng.integers(1, 5))
        ranks, exact = (
            strategic_reveal.memory_ranks(hist, gamma),
            brute_scores(hist, gamma),
        )
        for a in range(n):
            for b in range(n):
                assert (ranks[a] > ranks[b]) == (exact[a] > exact[b])
                assert (ranks[a] == ranks[b]) == (exact[a] == exact[b])


def test_memory_ranks_resolve_differences_below_float_precision():
    # Node 0 was accepted long ago only; node 1 never: the difference is γ^200 ≈ 1e-61
    # of the common part, yet node 0 must still be preferred. Node 2 shares node 0's
    # history.
    old = np.array([1, 0, 1, 1], bool)
    common = np.array([1, 1, 1, 0], bool)
    hist = [old] + [common] * 200
    ranks = strategic_reveal.memory_ranks(hist, 0.5)
    assert ranks[0] > ranks[1] and ranks[0] == ranks[2] and ranks[1] > ranks[3]
    ranks9 = strategic_reveal.memory_ranks([old] * 3 + [common] * 300, 0.9)
    assert ranks9[0] > ranks9[1] and ranks9[0] == ranks9[2]


def test_weighted_average_is_the_normalised_discounted_mean():
    hist = [np.array([1, 0]), np.array([0, 1]), np.array([1, 1])]
    g = 0.5
    num = np.array([1, 1]) + g * np.array([0, 1]) + g**2 * np.array([1, 0])
    by_hand = num / (1 + g + g * g)
    assert np.allclose(strategic_reveal.weighted_average(hist, g), by_hand)
    assert np.array_equal(strategic_reveal.weighted_average(hist, 0.0), [1, 1])
    assert strategic_reveal.memory_ranks([], 0.5, n=3).tolist() == [
        0,
        0,
        0,
    ]  # h̄_1 ≡ 0: all tie


# --- instances ------------------------------------------------------------------------
def test_star_and_switch_gadget_shapes():
    star = strategic_reveal.star_instance(8)
    assert (star.n, star.n_hyp, star.k_in, star.k_out) == (9, 8, 9, 2)
    assert star.F[3].tolist() == [i == 3 for i in range(9)]
    gad = strategic_reveal.switch_gadget(3)
    assert (gad.n, gad.n_hyp, gad.k_in, gad.k_out) == (18, 8, 3, 3)
    x, a, b, w, za, zb = range(6)
    assert gad.F[:, x].all() and not gad.F[:, w].any()
    assert gad.F[0, za] and not gad.F[0, zb] and gad.F[1, zb]


def test_random_dag_has_the_requested_in_degree_and_no_cycle():
    for seed in range(5):
        inst = strategic_reveal.random_dag_instance(
            30, 4, 50, 0.1, np.random.default_rng(seed)
        )
        assert inst.k_in == 4 and inst.n_hyp == 50
        g = nx.DiGraph([(a, b) for a, b in zip(*np.nonzero(inst.adj)) if a != b])
        assert nx.is_directed_acyclic_graph(g)
        assert len({row.tobytes() for row in inst.H}) == 50
    one = strategic_reveal.random_dag_instance(20, 3, 10, 0.2, np.random.default_rng(7))
    two = strategic_reveal.random_dag_instance(20, 3, 10, 0.2, np.random.default_rng(7))
    assert np.array_equal(one.adj, two.adj) and np.array_equal(one.H, two.H)


def test_make_instance_from_networkx():
    g = nx.DiGraph()
    g.add_edges_from([(0, 0), (1, 1), (2, 2), (0, 1), (1, 2)])
    inst = strategic_reveal.make_instance(g, [[0, 0, 1], [0, 1, 0]])
    assert inst.F.tolist() == [[False, True, True], [True, True, False]]


# --- simulation -----------------------------------------------------------------------
@pytest.mark.parametrize(
    "model,gamma",
    [
        ("std", None),
        ("arb", None),
        ("weighted", 0.0),
        ("weighted", 0.5),
        ("weighted", 0.9),
    ],
)
def test_the_adversary_keeps_the_sequence_realisable(model, gamma):
    inst = strategic_reveal.random_dag_instance(
        15, 3, 20, 0.15, np.random.default_rng(1)
    )
    for learner in all_learners(inst):
        learner = for_model(learner, model)
        tr = strategic_reveal.simulate(
            inst,
            learner,
            model=model,
            gamma=gamma,
            horizon=150,
            rng=np.random.default_rng(2),
        )
        assert tr.consistent.any()
        target = int(np.flatnonzero(tr.consistent)[0])
        assert np.array_equal(inst.F[target, tr.x], tr.y.astype(bool))
        assert inst.adj[tr.x, tr.v].all()  # agents move along the graph
        assert (
            strategic_reveal.version_space(inst, tr.x, tr.y).sum()
            == tr.consistent.sum()
        )
        if learner.rule != "naive":  # the DM never loses the target
            assert (tr.dm_version_space | ~tr.consistent).all()


def test_star_costs_k_minus_one_under_arb_and_one_under_std():
    for K in (2, 4, 8):
        inst = strategic_reveal.star_instance(K)
        arb = [
            strategic_reveal.simulate(
                inst, L, model="arb", horizon=200, rng=np.random.default_rng(0)
            ).mistakes
            for L in all_learners(inst)
        ]
        assert min(arb) == K - 1
        std = strategic_reveal.simulate(
            inst,
            strategic_reveal.halving(),
            model="std",
            horizon=200,
            rng=np.random.default_rng(0),
        )
        assert std.mistakes <= 1


@pytest.mark.parametrize("gamma", [0.5, 0.8, 0.9])
def test_switch_gadget_exposes_r_star_stale_rounds_per_forced_update(gamma):
    inst = strategic_reveal.switch_gadget(2)
    tr = strategic_reveal.simulate(
        inst,
        strategic_reveal.conservative(strategic_reveal.proper()),
        model="weighted",
        gamma=gamma,
        horizon=3000,
        rng=np.random.default_rng(0),
        adversary=strategic_reveal.Adversary(wait=300),
    )
    assert len(tr.changes) == 2  # one forced update per unit
    assert tr.mistakes == 2 * (
        1 + strategic_reveal.r_star(gamma)
    )  # it, then r* stale rounds
    stale = tr.kind[
        tr.changes[0] - 1 : tr.changes[0] - 1 + strategic_reveal.r_star(gamma)
    ]
    assert (stale == 2).all()  # false negatives right after it
    std = strategic_reveal.simulate(
        inst,
        strategic_reveal.proper(),
        model="std",
        horizon=3000,
        rng=np.random.default_rng(0),
        adversary=strategic_reveal.Adversary(wait=300),
    )
    assert std.mistakes == 2


def test_same_seed_same_trace_and_a_stalled_run_counts_every_round():
    inst = strategic_reveal.random_dag_instance(
        15, 3, 20, 0.15, np.random.default_rng(4)
    )
    a, b = (
        strategic_reveal.simulate(
            inst,
            strategic_reveal.kin_threshold(inst),
            model="arb",
            horizon=100,
            rng=np.random.default_rng(9),
        )
        for _ in range(2)
    )
    assert np.array_equal(a.x, b.x) and np.array_equal(a.kind, b.kind)
    stuck = strategic_reveal.simulate(
        strategic_reveal.star_instance(4),
        strategic_reveal.halving(),
        model="arb",
        horizon=50,
        rng=np.random.default_rng(0),
    )
    assert stuck.stalled and stuck.rounds == 50 and stuck.mistakes == 50


@pytest.mark.parametrize("seed", range(4))
def test_no_run_exceeds_its_mistake_bound(seed):
    inst = strategic_reveal.random_dag_instance(
        12, 3, 16, 0.2, np.random.default_rng(seed)
    )
    settings = [("std", None), ("arb", None), ("weighted", 0.0), ("weighted", 0.7)]
    for model, gamma in settings:
        for learner in all_learners(inst):
            learner = for_model(learner, model)
            bound = strategic_reveal.mistake_bound(inst, learner, model, gamma)
            if bound is None:
                continue
            tr = strategic_reveal.simulate(
                inst,
                learner,
                model=model,
                gamma=gamma,
                horizon=2000,
                rng=np.random.default_rng(seed),
            )
            assert not tr.stalled
            assert tr.mistakes <= bound, (model, gamma, learner.name)


def test_bounds_known_values():
    star = strategic_reveal.star_instance(8)
    assert (
        strategic_reveal.mistake_bound(star, strategic_reveal.positive_on_vs(), "arb")
        == 7
    )
    assert (
        strategic_reveal.mistake_bound(
            star, strategic_reveal.positive_on_vs(), "weighted", 0.5
        )
        == 15
    )
    assert (
        strategic_reveal.mistake_bound(star, strategic_reveal.halving(), "std") is None
    )
    # ABY: m = k_out + 1 = 3, B = ⌊ln 8 / −ln(2/3)⌋ = 5; no bound under arbitrary ties.
    assert (
        strategic_reveal.mistake_bound(
            star, strategic_reveal.aby_threshold(star), "std"
        )
        == 5
    )
    assert (
        strategic_reveal.mistake_bound(
            star, strategic_reveal.aby_threshold(star), "arb"
        )
        is None
    )
    bound = strategic_reveal.mistake_bound(
        star, strategic_reveal.conservative(strategic_reveal.proper()), "weighted", 0.9
    )
    assert bound == 1 + 8 * 7


# --- bad inputs -----------------------------------------------------------------------
@pytest.mark.parametrize("gamma", [-0.1, 1.0, 1.5, float("nan"), "0.5", True, None])
def test_gamma_outside_the_unit_interval_is_rejected(gamma):
    with pytest.raises(ValueError, match=r"gamma must be a number in \[0, 1\), got "):
        strategic_reveal.r_star(gamma)
    with pytest.raises(ValueError, match="gamma"):
        strategic_reveal.simulate(
            strategic_reveal.star_instance(3),
            strategic_reveal.halving(),
            model="weighted",
            gamma=gamma,
            horizon=5,
            rng=np.random.default_rng(0),
        )


def test_bad_graphs_and_classes_are_rejected():
    with pytest.raises(ValueError, match="self-loop"):
        strategic_reveal.make_instance(np.array([[0, 1], [0, 1]]), [[1, 0]])
    with pytest.raises(ValueError, match="H must be a non-empty"):
        strategic_reveal.make_instance(np.eye(2), np.zeros((0, 2)))
    with pytest.raises(ValueError, match="columns"):
        strategic_reveal.make_instance(np.eye(2), [[1, 0, 1]])
    with pytest.raises(ValueError, match="only 0 and 1"):
        strategic_reveal.make_instance(np.eye(2), [[2, 0]])
    with pytest.raises(ValueError, match="square"):
        strategic_reveal.make_instance(np.ones((2, 3)), [[1, 0, 0]])
    with pytest.raises(ValueError, match="K must be an int ≥ 2, got 1"):
        strategic_reveal.star_instance(1)
    with pytest.raises(ValueError, match=r"units must be an int in \[1, 10\], got 0"):
        strategic_reveal.switch_gadget(0)
    with pytest.raises(ValueError, match=r"k_in must be an int in \[2, 10\], got 1"):
        strategic_reveal.random_dag_instance(10, 1, 5, 0.1, np.random.default_rng(0))
    with pytest.raises(
        ValueError, match=r"p_pos must be a number in \(0, 1\), got 1.0"
    ):
        strategic_reveal.random_dag_instance(10, 2, 5, 1.0, np.random.default_rng(0))
    with pytest.raises(
        TypeError, match="rng must be a numpy.random.Generator, got int"
    ):
        strategic_reveal.random_dag_instance(10, 2, 5, 0.1, 0)


def test_labels_no_hypothesis_fits_are_rejected():
    star = strategic_reveal.star_instance(3)
    with pytest.raises(ValueError, match="no hypothesis"):
        strategic_reveal.version_space(
            star, [0, 1], [1, 1]
        )  # two leaves cannot both be positive
    with pytest.raises(ValueError, match="no hypothesis"):
        strategic_reveal.version_space(star, [3], [1])  # the hub is never positive
    assert strategic_reveal.version_space(star, [0], [1]).tolist() == [
        True,
        False,
        False,
    ]
    with pytest.raises(ValueError, match="labels must be 0 or 1"):
        strategic_reveal.version_space(star, [0], [2])


def test_bad_simulation_arguments_are_rejected():
    star, rng = strategic_reveal.star_instance(3), np.random.default_rng(0)
    with pytest.raises(ValueError, match="model"):
        strategic_reveal.simulate(
            star, strategic_reveal.halving(), model="hidden", horizon=5, rng=rng
        )
    with pytest.raises(ValueError, match="gamma"):
        strategic_reveal.simulate(
            star, strategic_reveal.halving(), model="std", gamma=0.5, horizon=5, rng=rng
        )
    with pytest.raises(ValueError, match="horizon must be a positive int, got 0"):
        strategic_reveal.simulate(
            star, strategic_reveal.halving(), model="std", horizon=0, rng=rng
        )
    with pytest.raises(TypeError, match="rng"):
        strategic_reveal.simulate(
            star, strategic_reveal.halving(), model="std", horizon=5, rng=1
        )
    with pytest.raises(ValueError, match="rule"):
        strategic_reveal.Learner("x", "soa")
    with pytest.raises(ValueError, match="m:"):
        strategic_reveal.Learner("x", "threshold")
    with pytest.raises(ValueError, match="wait must be an int ≥ 0, got -1"):
        strategic_reveal.Adversary(wait=-1)
    with pytest.raises(ValueError, match="ties"):
        strategic_reveal.allowed_moves(np.eye(2, dtype=bool), np.zeros(2), "random")
    with pytest.raises(ValueError, match="scores"):
        strategic_reveal.best_response(np.eye(2, dtype=bool), np.zeros(3))
    with pytest.raises(ValueError, match="history must be a positive int, got 0"):
        strategic_reveal.stale_rounds(0.5, 0)
