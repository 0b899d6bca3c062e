import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from repbook.papers import pf_ppo as F


# --- the stack language --------------------------------------------------------------------------
@pytest.mark.parametrize(
    "program, x, expected",
    [
        (("x", "3", "*", "7", "+"), 4, 9),  # 3·4 + 7 = 19 → 9
        (("7", "x", "3", "*", "+"), 4, 9),
        (("1", "2", "-"), 0, 9),  # −1 mod 10
        (("x", "dup", "*"), 7, 9),  # 49
        (("2", "5", "swap", "-"), 0, 3),  # 5 − 2
        (("x", "5", "drop"), 6, 6),
        (("x", "1"), 3, 1),  # leftovers are allowed: the top is the result
        (("x",), 13, 3),  # inputs are taken mod 10
    ],
)
def test_programs_by_hand(program, x, expected):
    assert F.run_program(program, x) == expected


@pytest.mark.parametrize(
    "program",
    [(), ("+",), ("x", "+"), ("dup",), ("drop",), ("x", "swap"), ("x", "drop")],
)
def test_failing_programs_return_none(program):
    assert F.run_program(program, 3) is None


def test_bad_programs_and_inputs():
    with pytest.raises(ValueError, match="unknown token"):
        F.run_program(("x", "4"), 1)
    with pytest.raises(TypeError, match="sequence of tokens"):
        F.run_program("x 3 *", 1)
    with pytest.raises(TypeError, match="x must be an int"):
        F.run_program(("x",), 1.5)


def test_task_and_pass_rate():
    task = F.Task(3, 7, (0, 1, 2, 3))
    assert [task.target(x) for x in task.tests] == [7, 0, 3, 6]
    assert F.pass_rate(("x", "3", "*", "7", "+"), task) == 1.0
    assert F.pass_rate(("7",), task) == 0.25
    assert F.pass_rate(("+",), task) == 0.0
    with pytest.raises(ValueError, match="a must be an int"):
        F.Task(10, 0, (1,))
    with pytest.raises(ValueError, match="at least one input"):
        F.Task(1, 0, ())


def test_constant_expressions_compute_their_value():
    consts = F.constant_expressions(3)
    assert set(consts) == set(range(10)) and all(consts.values())
    for value, exprs in consts.items():
        for e in exprs:
            assert F.run_program(e, 0) == value and len(e) <= 3 and "x" not in e


def test_every_target_has_correct_programs_verified_on_all_inputs():
    for a in range(1, 10):
        for b in range(10):
            progs = F.correct_programs(a, b)
            assert progs and progs == sorted(progs)
            assert all(len(p) <= F.MAX_LEN and F.is_correct(p, a, b) for p in progs)
    with pytest.raises(ValueError, match="b must be an int"):
        F.correct_programs(3, 12)


def test_sample_task_and_pool():
    rng = np.random.default_rng(0)
    task = F.sample_task(rng)
    assert 1 <= task.a <= 9 and len(set(task.tests)) == F.N_TESTS
    pool = F.candidate_pool(task, rng, n_correct=3, n_mutants=21, n_random=8)
    assert len(pool) == 32 == len(set(pool))
    assert sum(F.is_correct(p, task.a, task.b) for p in pool) >= 3
    again = F.candidate_pool(task, np.random.default_rng(5))
    assert again == F.candidate_pool(task, np.random.default_rng(5))
    with pytest.raises(ValueError, match="n_mutants must be an int"):
        F.candidate_pool(task, rng, n_mutants=-1)


def test_mutate_stays_in_bounds():
    rng = np.random.default_rng(1)
    for _ in range(200):
        m = F.mutate(("x", "3", "*", "7", "+", "1", "2", "*"), rng, n_edits=2)
        assert 1 <= len(m) <= F.MAX_LEN and all(t in F.VOCAB for t in m)


def test_make_bandit_scores_match_verifier():
    b = F.make_bandit(5, np.random.default_rng(2))
    assert b.shape == (5, 32)
    for t, pool, row in zip(b.tasks, b.programs, b.scores):
        assert [F.pass_rate(p, t) for p in pool] == list(row)
    with pytest.raises(ValueError, match="n_prompts must be a positive int"):
        F.make_bandit(0, np.random.default_rng(0))


# --- reward model --------------------------------------------------------------------------------
def test_features_are_deterministic_and_prompt_conditioned():
    t1, t2 = F.Task(3, 7, (1,)), F.Task(4, 7, (1,))
    prog = ("x", "3", "*", "7", "+")
    f1 = F.features(t1, prog)
    assert f1 == F.features(t1, prog)
    assert f1 != F.features(t2, prog)
    # 5 tokens + 2 markers: 7 unigrams, 6 bigrams, 5 trigrams, each alone and with a=, b=
    assert sum(abs(v) for v in f1.values()) <= 3 * 18
    with pytest.raises(ValueError, match="dim must be an int"):
        F.features(t1, prog, dim=1)


def test_preference_pairs_respect_scores_and_noise():
    scores = np.random.default_rng(0).integers(0, 9, size=(50, 10)) / 8
    prefs = F.preference_pairs(scores, 4000, noise=0.2, rng=np.random.default_rng(1))
    sw, sl = scores[prefs.prompt, prefs.winner], scores[prefs.prompt, prefs.loser]
    assert np.all((sw > sl) == ~prefs.flipped)
    assert abs(prefs.flipped.mean() - 0.2) < 0.03
    with pytest.raises(ValueError, match="noise must lie"):
        F.preference_pairs(scores, 10, noise=0.6, rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match="too few pairs"):
        F.preference_pairs(
            np.zeros((3, 4)), 10, noise=0.1, rng=np.random.default_rng(0)
        )


def test_bradley_terry_gradient_and_direction():
    rng = np.random.default_rng(0)
    diff = rng.normal(size=(300, 5))
    diff[:, 0] = np.abs(diff[:, 0]) + 0.1  # feature 0 always favours the winner
    w = F.fit_bradley_terry(diff, l2=0.1)
    assert w[0] > 1.0 and np.all(np.abs(w[1:]) < w[0])
    # at the optimum the gradient of the penalised log-loss vanishes
    m = diff @ w
    grad = -(diff.T @ (1 / (1 + np.exp(m)))) + 0.1 * w
    assert np.abs(grad).max() < 1e-4
    with pytest.raises(ValueError, match="l2 must be > 0"):
        F.fit_bradley_terry(diff, l2=0)


def test_learned_rm_is_informative():
    rng = np.random.default_rng(3)
    rm_b, b = F.make_bandit(60, rng), F.make_bandit(30, rng)
    w, _ = F.train_reward_model(rm_b, 300, noise=0.1, rng=rng)
    R = F.reward_model_scores(b, w)
    assert R.shape == b.shape
    assert np.corrcoef(R.ravel(), b.scores.ravel())[0, 1] > 0.05


def test_homoscedastic_rewards_hit_the_correlation():
    s = np.random.default_rng(0).integers(0, 9, size=(400, 32)) / 8
    r = F.homoscedastic_rewards(s, 0.3, np.random.default_rng(1))
    assert np.corrcoef(r.ravel(), s.ravel())[0, 1] == pytest.approx(0.3, abs=0.02)
    with pytest.raises(ValueError, match="corr must lie"):
        F.homoscedastic_rewards(s, 1.0, np.random.default_rng(0))
    with pytest.raises(ValueError, match="must not be constant"):
        F.homoscedastic_rewards(np.ones((3, 3)), 0.5, np.random.default_rng(0))


# --- filters -------------------------------------------------------------------------------------
R = np.array(
    [
        [0.3, 1.2, -0.5, 0.9],
        [2.0, 2.0, 0.1, -1.0],  # tie for the best: lowest index wins
        [0.4, -0.2, 0.4, -0.2],  # ties for best and worst
        [1.0, 1.0, 1.0, 1.0],
    ]
)  # all tie: best = 0, worst = N − 1


def kept(mask):
    return [list(np.flatnonzero(row)) for row in mask]


def test_best_and_worst_with_ties():
    best, worst = F.best_worst(R)
    assert list(best) == [1, 0, 0, 0] and list(worst) == [2, 3, 3, 3]


def test_each_filter_keeps_the_right_responses():
    assert kept(F.select(R, "all")) == [[0, 1, 2, 3]] * 4
    assert kept(F.select(R, "bon")) == [[1], [0], [0], [0]]
    assert kept(F.select(R, "bw")) == [[1, 2], [0, 3], [0, 3], [0, 3]]
    assert kept(F.select(R, "worst")) == [[2], [3], [3], [3]]
    rng = np.random.default_rng(0)
    for _ in range(20):
        br = F.select(R, "br", rng)
        assert (
            list(br.sum(1)) == [2] * 4
            and list(br[np.arange(4), [1, 0, 0, 0]]) == [True] * 4
        )
        r2 = F.select(R, "random2", rng)
        assert list(r2.sum(1)) == [2] * 4
        r1 = F.select(R, "random1", rng)
        assert list(r1.sum(1)) == [1] * 4


def test_br_other_is_uniform_among_the_rest():
    r = np.tile([0.0, 5.0, 1.0, 2.0], (20_000, 1))
    mask = F.select(r, "br", np.random.default_rng(0))
    others = mask[:, [0, 2, 3]].mean(0)
    assert mask[:, 1].all() and np.allclose(others, 1 / 3, atol=0.015)


def test_filter_bad_inputs():
    with pytest.raises(ValueError, match="needs n ≥ 2"):
        F.select(np.ones((3, 1)), "bw")
    with pytest.raises(ValueError, match="needs n ≥ 2"):
        F.select(np.ones((3, 1)), "br", np.random.default_rng(0))
    with pytest.raises(ValueError, match="must be finite"):
        F.select(np.array([[1.0, np.nan]]), "bon")
    with pytest.raises(ValueError, match="strategy must be one of"):
        F.select(R, "best3")
    with pytest.raises(ValueError, match="pass rng"):
        F.select(R, "br")
    with pytest.raises(ValueError, match=r"\(prompts, N\) array"):
        F.select(np.ones(4), "bon")
    assert F.keep_count("bon", 8) == 1 and F.keep_count("all", 8) == 8
    assert F.keep_count("verl-max_min", 4) == 4
    with pytest.raises(ValueError, match="n must be a positive int"):
        F.keep_count("all", 0)


def test_verl_weights_and_resampling():
    s = np.array([0.5, -2.0, 3.0, 3.0, 1.0])
    np.testing.assert_allclose(F.verl_weights(s, "pow"), s**2)
    np.testing.assert_allclose(F.verl_weights(s, "pow", power=1.0), np.abs(s))
    np.testing.assert_array_equal(F.verl_weights(s, "max_min"), [0, 1, 1, 1, 0])
    np.testing.assert_allclose(
        F.verl_weights(s, "max_random"), [0.1, 0.1, 0.4, 0.4, 0.1]
    )
    idx = F.verl_resample(s, "max_min", np.random.default_rng(0))
    assert idx.size == s.size and set(idx) <= {1, 2, 3}
    with pytest.raises(ValueError, match="method must be"):
        F.verl_weights(s, "top")
    with pytest.raises(ValueError, match="1-d array"):
        F.verl_weights(np.ones((2, 2)), "pow")


# --- R² ------------------------------------------------------------------------------------------
def test_r_squared_of_an_exact_line_is_one():
    x = np.linspace(-1, 2, 11)
    assert F.r_squared(x, 3 * x - 1) == pytest.approx(1.0, abs=1e-12)
    assert F.r_squared(x, -0.5 * x + 4) == pytest.approx(1.0, abs=1e-12)


@settings(max_examples=50, deadline=None)
@given(
    st.lists(
        st.tuples(st.floats(-100, 100), st.floats(-100, 100)), min_size=3, max_size=40
    )
)
def test_r_squared_is_squared_correlation(pairs):
    x, y = np.array(pairs).T
    if np.ptp(x) < 1e-6 or np.ptp(y) < 1e-6:
        return
    r2 = F.r_squared(x, y)
    assert 0 <= r2 <= 1 + 1e-12
    assert r2 == pytest.approx(np.corrcoef(x, y)[0, 1] ** 2, abs=1e-9)


def test_r_squared_bad_inputs():
    with pytest.raises(ValueError, match="same length"):
        F.r_squared([1, 2, 3], [1, 2])
    with pytest.raises(ValueError, match="rewards are constant"):
        F.r_squared([1, 1, 1], [1, 2, 3])
    with pytest.raises(ValueError, match="scores are constant"):
        F.r_squared([1, 2, 3], [0, 0, 0])
    with pytest.raises(ValueError, match="scores must be finite"):
        F.r_squared([1, 2, 3], [0, np.inf, 1])
    with pytest.raises(ValueError, match="at least 3 samples"):
        F.r_squared([1, 2], [1, 3])


def test_filtered_r_squared_uses_the_kept_samples():
    rng = np.random.default_rng(0)
    r = rng.normal(size=(50, 4))
    s = r + rng.normal(size=(50, 4))
    mask = F.select(r, "bw")
    assert F.filtered_r_squared(r, s, "bw") == pytest.approx(
        F.r_squared(r[mask], s[mask])
    )
    with pytest.raises(ValueError, match="same shape"):
        F.filtered_r_squared(r, s[:, :3], "bw")
    with pytest.raises(ValueError, match="pass rng"):
        F.filtered_r_squared(r, s, "verl-pow")


def test_reliability_bins():
    r = np.arange(100.0)
    s = np.repeat([0.0, 1.0], 50)
    rel = F.reliability_by_bin(r, s, 10)
    assert list(rel["count"]) == [10] * 10
    np.testing.assert_allclose(rel["mean"], [0] * 5 + [1] * 5)
    np.testing.assert_allclose(rel["var"], 0)
    with pytest.raises(ValueError, match="n_bins must be an int"):
        F.reliability_by_bin(r, s, 1)


# --- PPO -----------------------------------------------------------------------------------------
def test_clipped_loss_by_hand():
    # ρ = e^{0.3} ≈ 1.35 > 1.2: a positive advantage is clipped, a negative one is not
    lp, old = -0.9, -1.2
    rho = np.exp(0.3)
    assert F.ppo_clip_loss(lp, old, 2.0) == pytest.approx(-1.2 * 2.0)
    assert F.ppo_clip_loss(lp, old, -2.0) == pytest.approx(rho * 2.0)
    # inside the trust region the loss is −ρ·A
    assert F.ppo_clip_loss(-1.0, -1.05, 1.5) == pytest.approx(-np.exp(0.05) * 1.5)
    with pytest.raises(ValueError, match="same shape"):
        F.ppo_clip_loss([0.0, 1.0], [0.0], [1.0])
    with pytest.raises(ValueError, match="clip must lie"):
        F.ppo_clip_loss(0.0, 0.0, 1.0, clip=1.5)


def test_clipped_gradient_matches_finite_differences():
    rng = np.random.default_rng(0)
    lp, old, adv = rng.normal(size=200) * 0.3, np.zeros(200), rng.normal(size=200)
    h = 1e-6
    num = -(F.ppo_clip_loss(lp + h, old, adv) - F.ppo_clip_loss(lp - h, old, adv)) / (
        2 * h
    )
    ratio = np.exp(lp)
    away = (np.abs(ratio - 0.8) > 1e-4) & (np.abs(ratio - 1.2) > 1e-4)
    np.testing.assert_allclose(
        F.ppo_clip_grad(lp, old, adv)[away], num[away], atol=1e-5
    )


def test_ppo_config_validation():
    with pytest.raises(ValueError, match="n_updates must be a positive int"):
        F.PPOConfig(n_updates=0)
    with pytest.raises(ValueError, match="clip must lie"):
        F.PPOConfig(clip=0)
    with pytest.raises(ValueError, match="kl_coef must be ≥ 0"):
        F.PPOConfig(kl_coef=-1)


def test_sample_responses_frequencies():
    probs = np.array([[0.1, 0.6, 0.3]])
    draws = F.sample_responses(np.repeat(probs, 1, 0), 30_000, np.random.default_rng(0))
    np.testing.assert_allclose(
        np.bincount(draws.ravel(), minlength=3) / 30_000, probs[0], atol=0.01
    )


@pytest.mark.parametrize("strategy", F.STRATEGIES)
def test_training_is_deterministic_and_counts_rollouts(strategy):
    b = F.make_bandit(20, np.random.default_rng(4))
    rewards = b.scores + np.random.default_rng(5).normal(0, 0.3, b.shape)
    cfg = F.PPOConfig(n_updates=5, prompts=10)
    t1 = F.train_bandit(rewards, b.scores, strategy, 4, cfg, np.random.default_rng(6))
    t2 = F.train_bandit(rewards, b.scores, strategy, 4, cfg, np.random.default_rng(6))
    np.testing.assert_array_equal(t1.actual, t2.actual)
    assert t1.actual.shape == (6,) and t1.actual[0] == pytest.approx(b.scores.mean())
    # the same prompts per update for every strategy: 5 updates × 10 prompts × N = 4
    assert t1.rollouts == 5 * 10 * 4
    # the actor trains on what the filter keeps: keep count × prompts × updates
    if strategy in F.PER_PROMPT:
        assert t1.trained == F.keep_count(strategy, 4) * 10 * 5
    else:  # verl resamples the batch to its size
        assert t1.trained == 5 * 10 * 4
    np.testing.assert_allclose(t1.probs.sum(1), 1)
    np.testing.assert_allclose(t1.final_actual, (t1.probs * b.scores).sum(1))


def test_training_on_the_true_score_improves_it():
    b = F.make_bandit(30, np.random.default_rng(7))
    for strategy in ("all", "br", "bw"):
        t = F.train_bandit(
            b.scores,
            b.scores,
            strategy,
            4,
            F.PPOConfig(n_updates=30, prompts=30),
            np.random.default_rng(8),
        )
        assert t.actual[-1] > t.actual[0] + 0.1
        assert t.kl[0] == pytest.approx(0.0) and t.kl[-1] > 0


def test_train_bad_inputs():
    b = F.make_bandit(3, np.random.default_rng(0))
    cfg = F.PPOConfig(n_updates=1, prompts=2)
    with pytest.raises(ValueError, match="same shape"):
        F.train_bandit(
            b.scores[:, :5], b.scores, "all", 2, cfg, np.random.default_rng(0)
        )
    with pytest.raises(ValueError, match="needs n ≥ 2"):
        F.train_bandit(b.scores, b.scores, "br", 1, cfg, np.random.default_rng(0))
    with pytest.raises(ValueError, match="init_logits must have shape"):
        F.train_bandit(
            b.scores,
            b.scores,
            "all",
            2,
            cfg,
            np.random.default_rng(0),
            init_logits=np.zeros((2, 2)),
        )


def test_bootstrap_interval():
    v = np.random.default_rng(0).normal(1.0, 1.0, size=400)
    lo, hi = F.bootstrap_interval(v, np.random.default_rng(1), n_boot=500)
    assert lo < v.mean() < hi and hi - lo < 0.3
    with pytest.raises(ValueError, match="at least 2 rows"):
        F.bootstrap_interval([1.0], np.random.default_rng(0))
    with pytest.raises(ValueError, match="numeric array"):
        F.bootstrap_interval(["a", "b"], np.random.default_rng(0))


# --- token-level policy (full scale) -------------------------------------------------------------
def test_encode_decode_round_trip_and_mask():
    progs = [("x", "3", "*"), (), ("x",) * 8]
    acts = F.encode_programs(progs)
    assert acts.shape == (3, F.MAX_NEW)
    assert F.decode_actions(acts) == [tuple(p) for p in progs]
    np.testing.assert_array_equal(F.action_mask(acts).sum(1), [4, 1, 9])
    with pytest.raises(ValueError, match="longer than 8"):
        F.encode_programs([("x",) * 9])
    prompts = F.encode_prompts([F.Task(3, 7, (1,))])
    assert [F.IN_TOKENS[i] for i in prompts[0]] == ["<bos>", "a=3", "b=7"]


def tiny(seed=0, value_head=False):
    return F.make_tiny_lm(
        seed, d_model=16, n_layers=1, n_heads=2, value_head=value_head
    )


def test_tiny_lm_is_seeded_and_causal():
    a, b = tiny(1), tiny(1)
    for pa, pb in zip(a.parameters(), b.parameters()):
        assert torch.equal(pa, pb)
    x = torch.randint(
        0, len(F.IN_TOKENS), (4, 11), generator=torch.Generator().manual_seed(0)
    )
    y = x.clone()
    y[:, 7:] = 0  # the future must not change the past
    la, lb = a(x)[0], a(y)[0]
    assert torch.allclose(la[:, :7], lb[:, :7], atol=1e-5)
    assert tiny(0, value_head=True)(x)[1].shape == (4, 11)


def test_generate_ends_programs_and_is_reproducible():
    m = tiny(2)
    prompts = torch.as_tensor(F.encode_prompts([F.Task(3, 7, (1,))] * 64))
    a1 = F.generate(m, prompts, torch.Generator().manual_seed(3))
    a2 = F.generate(m, prompts, torch.Generator().manual_seed(3))
    assert torch.equal(a1, a2)
    assert (a1[:, -1] == F.OUT_TOKENS.index(F.EOS)).all()
    assert all(len(p) <= F.MAX_LEN for p in F.decode_actions(a1.numpy()))


def test_gae_by_hand():
    rewards = torch.tensor([[0.0, 0.0, 1.0, 0.0]])
    values = torch.tensor([[0.5, 0.2, 0.4, 9.0]])  # the last position is masked
    mask = torch.tensor([[1.0, 1.0, 1.0, 0.0]])
    adv, ret = F.gae(rewards, values, mask, gamma=1.0, lam=1.0)
    # λ = 1, γ = 1: advantage = return-to-go − V
    assert torch.allclose(adv[0, :3], torch.tensor([0.5, 0.8, 0.6]))
    assert torch.allclose(ret[0, :3], torch.tensor([1.0, 1.0, 1.0]))
    adv0, _ = F.gae(
        rewards, values, mask, gamma=1.0, lam=0.0
    )  # λ = 0: one-step TD errors
    assert torch.allclose(adv0[0, :3], torch.tensor([0.2 - 0.5, 0.4 - 0.2, 1.0 - 0.4]))


def test_sft_lowers_the_loss():
    b = F.make_bandit(10, np.random.default_rng(0))
    losses = F.sft_train(
        tiny(4),
        b.tasks,
        b.programs,
        steps=15,
        batch=32,
        lr=1e-2,
        rng=np.random.default_rng(1),
    )
    assert losses[-5:].mean() < losses[:5].mean()
    with pytest.raises(ValueError, match="same length"):
        F.sft_train(
            tiny(4),
            b.tasks,
            b.programs[:3],
            steps=1,
            batch=2,
            lr=1e-3,
            rng=np.random.default_rng(1),
        )


def test_program_scorer():
    tasks = [F.Task(3, 7, (0, 1, 2, 3))]
    w = np.random.default_rng(0).normal(size=64)
    learned = F.ProgramScorer(tasks, w=w, shift=1.0, scale=2.0)
    s, r = learned([0, 0], [("x", "3", "*", "7", "+"), ("7",)])
    np.testing.assert_allclose(s, [1.0, 0.25])
    raw = sum(v * w[j] for j, v in F.features(tasks[0], ("7",), dim=64).items())
    assert r[1] == pytest.approx((raw - 1.0) / 2.0)
    homo = F.ProgramScorer(tasks, sigma=0.5, noise_seed=3)
    assert (
        homo([0], [("7",)])[1]
        == F.ProgramScorer(tasks, sigma=0.5, noise_seed=3)([0], [("7",)])[1]
    )
    assert (
        homo([0], [("7",)])[1]
        != F.ProgramScorer(tasks, sigma=0.5, noise_seed=4)([0], [("7",)])[1]
    )
    with pytest.raises(ValueError, match="either w"):
        F.ProgramScorer(tasks)


@pytest.mark.parametrize("strategy", ["br", "verl-max_min"])
def test_token_ppo_runs_and_is_reproducible(strategy):
    b = F.make_bandit(8, np.random.default_rng(5))
    sft = tiny(6)
    scorer = F.ProgramScorer(b.tasks, sigma=0.3, noise_seed=1)
    cfg = F.TokenPPOConfig(
        n_updates=2, prompts=4, minibatches=2, eval_every=1, eval_samples=2
    )
    runs = [
        F.train_tokens(
            sft,
            scorer,
            strategy,
            4,
            cfg,
            np.random.default_rng(7),
            torch.Generator().manual_seed(8),
        )
        for _ in range(2)
    ]
    np.testing.assert_array_equal(runs[0].actual, runs[1].actual)
    assert list(runs[0].steps) == [0, 1, 2] and runs[0].final_actual.shape == (8,)
    assert runs[0].rollouts == 2 * 4 * 4
    with pytest.raises(ValueError, match="n_updates must be a positive int"):
        F.TokenPPOConfig(n_updates=0)


def test_build_token_world():
    rng = np.random.default_rng(0)
    b, rm_b = F.make_bandit(12, rng), F.make_bandit(40, rng)
    w, _ = F.train_reward_model(rm_b, 200, noise=0.1, rng=rng)
    tw = F.build_token_world(
        b,
        w,
        sft_steps=10,
        sft_batch=32,
        sft_lr=1e-2,
        rng=np.random.default_rng(1),
        generator=torch.Generator().manual_seed(0),
        noise_seed=0,
        n_samples=8,
        model_kw=dict(d_model=16, n_layers=1, n_heads=2),
    )
    assert tw.rewards.shape == tw.scores.shape == tw.homo_rewards.shape == (12, 8)
    assert tw.rewards.mean() == pytest.approx(0, abs=1e-9)
    assert tw.rewards.std() == pytest.approx(1)
    assert 0 < tw.corr < 1
    assert np.corrcoef(tw.homo_rewards.ravel(), tw.scores.ravel())[0, 1] > 0


def test_random1_is_uniform():
    r = np.tile([0.0, 5.0, 1.0, 2.0], (20_000, 1))
    mask = F.select(r, "random1", np.random.default_rng(0))
    assert (mask.sum(1) == 1).all() and np.allclose(mask.mean(0), 0.25, atol=0.015)
    assert F.keep_count("random1", 4) == 1
    with pytest.raises(ValueError, match="pass rng"):
        F.select(r[:2], "random1")


def test_minibatch_count_fixed_size_steps_scale_with_kept():
    # an unfiltered batch of 512 in 4 minibatches: size 128
    assert F.minibatch_count(512, 512, 4) == 4
    assert F.minibatch_count(256, 512, 4) == 2  # BR/BW at N = 4
    assert F.minibatch_count(128, 512, 4) == 1  # BoN at N = 4
    assert F.minibatch_count(1, 512, 4) == 1
    assert F.minibatch_count(129, 512, 4) == 2
    for bad in (0, -1, 1.5, True):
        with pytest.raises(ValueError, match="must be a positive int"):
            F.minibatch_count(bad, 512, 4)
