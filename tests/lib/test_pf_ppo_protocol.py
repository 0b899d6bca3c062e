"""The chapter's protocols in `repbook.papers.pf_ppo`: worlds, initial samples, training one
filter, the pair accuracies and the pooled rank test."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from repbook.papers import pf_ppo as F


@pytest.fixture(scope="module")
def world():
    return F.make_world(
        12, np.random.default_rng(0), rm_prompts=20, pairs=150, label_noise=0.1
    )


# --- one replicate -------------------------------------------------------------------------------
def test_make_world_matches_the_steps_by_hand(world):
    rng = np.random.default_rng(0)
    bandit = F.make_bandit(12, rng)
    rm_bandit = F.make_bandit(20, rng)
    w, prefs = F.train_reward_model(rm_bandit, 150, noise=0.1, rng=rng)
    raw = F.reward_model_scores(bandit, w)
    learned = (raw - raw.mean()) / raw.std()
    np.testing.assert_array_equal(world.bandit.scores, bandit.scores)
    np.testing.assert_allclose(world.rm["learned"], learned)
    assert world.flipped == pytest.approx(prefs.flipped.mean())
    corr = np.corrcoef(learned.ravel(), bandit.scores.ravel())[0, 1]
    assert world.corr == pytest.approx(corr)
    homo = F.homoscedastic_rewards(bandit.scores, corr, rng)
    np.testing.assert_allclose(world.rm["homoscedastic"], F.standardise(homo, homo))
    R, S = world.initial["learned"]
    np.testing.assert_array_equal(S, bandit.scores)
    assert not world.tokens


def test_world_rewards_are_standardised(world):
    for rm in ("learned", "homoscedastic"):
        r = world.rm[rm]
        assert r.mean() == pytest.approx(0, abs=1e-9) and r.std() == pytest.approx(1)


def test_standardise_rejects_a_constant_reference():
    with pytest.raises(ValueError, match="constant"):
        F.standardise([1.0, 2.0], [3.0, 3.0])


def test_initial_samples_come_from_the_pool(world):
    R, S = F.initial_samples(world, 4, np.random.default_rng(1))
    assert R.shape == S.shape == (12, 4)
    for p in range(12):
        for r, s in zip(R[p], S[p]):
            j = np.flatnonzero(world.rm["learned"][p] == r)
            assert j.size and world.bandit.scores[p, j[0]] == s
    R2, _ = F.initial_samples(world, 4, np.random.default_rng(1))
    np.testing.assert_array_equal(R, R2)
    with pytest.raises(ValueError, match="rm must be one of"):
        F.initial_samples(world, 4, np.random.default_rng(1), rm="oracle")
    with pytest.raises(ValueError, match="n must be a positive int"):
        F.initial_samples(world, 0, np.random.default_rng(1))


def test_train_filter_is_train_bandit(world):
    cfg = F.PPOConfig(n_updates=3, prompts=6)
    t = F.train_filter(world, "homoscedastic", 4, "bw", cfg, np.random.default_rng(2))
    ref = F.train_bandit(
        world.rm["homoscedastic"],
        world.bandit.scores,
        "bw",
        4,
        cfg,
        np.random.default_rng(2),
    )
    np.testing.assert_array_equal(t.actual, ref.actual)
    assert t.rollouts == 3 * 6 * 4
    with pytest.raises(TypeError, match="PPOConfig"):
        F.train_filter(world, "learned", 4, "bw", F.TokenPPOConfig(), None)
    with pytest.raises(ValueError, match="rm must be one of"):
        F.train_filter(world, "oracle", 4, "bw", cfg, np.random.default_rng(2))


def test_every_filter_updates_each_prompt_equally_often():
    """The same prompts per update for every strategy: over P / prompts updates of a stream
    every prompt is drawn exactly once, whatever the filter keeps."""
    b = F.make_bandit(12, np.random.default_rng(3))
    cfg = F.PPOConfig(n_updates=3, prompts=4)
    for s in ("all", "bon", "br", "random2"):
        t = F.train_bandit(b.scores, b.scores, s, 4, cfg, np.random.default_rng(4))
        assert t.rollouts == 3 * 4 * 4
        # every prompt was drawn once: each one's logits moved (or its samples tied)
        moved = np.abs(np.log(t.probs) - np.log(1 / b.shape[1])).sum(1) > 0
        tied = np.ptp(b.scores, axis=1) == 0
        assert np.all(moved | tied)


def test_ppo_config_rejects_bad_prompts():
    with pytest.raises(ValueError, match="prompts must be a positive int"):
        F.PPOConfig(prompts=0)
    with pytest.raises(ValueError, match="prompts must be a positive int"):
        F.TokenPPOConfig(prompts=0)


# --- pair accuracies -----------------------------------------------------------------------------
def test_pair_accuracy_by_hand():
    R = np.array([[3.0, 2.0, 1.0], [0.0, 1.0, 1.0]])
    S = np.array([[1.0, 0.5, 0.5], [1.0, 0.0, 0.5]])
    # row 0: (0,1) right, (0,2) right, (1,2) tie in score → skipped
    # row 1: (0,1) wrong, (0,2) wrong, (1,2) reward tie → one half
    assert F.pair_accuracy(R, S) == pytest.approx((1 + 1 + 0 + 0 + 0.5) / 5)
    with pytest.raises(ValueError, match="different actual scores"):
        F.pair_accuracy(R, np.ones_like(S))
    with pytest.raises(ValueError, match="same shape"):
        F.pair_accuracy(R, S[:, :2])


def _by_bin_brute(R, S, n_bins):
    x = R.ravel()
    order = np.argsort(x, kind="stable")
    label = np.empty(x.size, int)
    for b, m in enumerate(np.array_split(order, n_bins)):
        label[m] = b
    label = label.reshape(R.shape)
    right, count = np.zeros(n_bins), np.zeros(n_bins)
    for p in range(R.shape[0]):
        for i, j in itertools.combinations(range(R.shape[1]), 2):
            if label[p, i] != label[p, j] or S[p, i] == S[p, j]:
                continue
            dr, ds = R[p, i] - R[p, j], S[p, i] - S[p, j]
            right[label[p, i]] += 0.5 if dr == 0 else float(np.sign(dr) == np.sign(ds))
            count[label[p, i]] += 1
    return right, count


@settings(max_examples=40, deadline=None)
@given(
    st.integers(2, 6),
    st.integers(3, 7),
    st.integers(2, 5),
    st.integers(0, 2**31 - 1),
)
def test_pair_accuracy_by_bin_matches_brute_force(P, N, n_bins, s):
    rng = np.random.default_rng(s)
    R = rng.integers(0, 4, size=(P, N)).astype(float)  # ties in reward on purpose
    S = rng.integers(0, 3, size=(P, N)) / 2
    out = F.pair_accuracy_by_bin(R, S, n_bins)
    right, count = _by_bin_brute(R, S, n_bins)
    np.testing.assert_array_equal(out["pairs"], count)
    expected = np.where(count > 0, right / np.maximum(count, 1), np.nan)
    np.testing.assert_allclose(out["accuracy"], expected, equal_nan=True)


def test_pair_accuracy_by_bin_is_not_the_bin_mean():
    """Two RMs with the same bins of pass rate but opposite orders within each bin."""
    S = np.tile([0.0, 1.0, 0.0, 1.0], (50, 1))
    right = np.tile([0.0, 1.0, 10.0, 11.0], (50, 1))
    wrong = np.tile([1.0, 0.0, 11.0, 10.0], (50, 1))
    a = F.pair_accuracy_by_bin(right, S, 2)["accuracy"]
    b = F.pair_accuracy_by_bin(wrong, S, 2)["accuracy"]
    np.testing.assert_allclose(a, [1.0, 1.0])
    np.testing.assert_allclose(b, [0.0, 0.0])


def test_pair_accuracy_by_bin_bad_inputs():
    R = np.zeros((2, 3))
    with pytest.raises(ValueError, match="n_bins must be an int"):
        F.pair_accuracy_by_bin(R, R, 1)
    with pytest.raises(ValueError, match="at least 2 responses"):
        F.pair_accuracy_by_bin(np.zeros((3, 1)), np.zeros((3, 1)), 2)


# --- the pooled rank test ------------------------------------------------------------------------
def test_block_rank_test_statistic_is_the_mean_spearman():
    rng = np.random.default_rng(0)
    xs = [rng.normal(size=6) for _ in range(4)]
    ys = [x + rng.normal(size=6) for x in xs]
    stat, p, rhos = F.block_rank_test(xs, ys, np.random.default_rng(1), n_perm=500)
    expect = [stats.spearmanr(x, y).statistic for x, y in zip(xs, ys)]
    np.testing.assert_allclose(rhos, expect)
    assert stat == pytest.approx(np.mean(expect))
    assert 1 / 501 <= p <= 1


def test_block_rank_test_exact_on_one_block():
    """One block of 5 items: with many permutations p approaches the exact share of the 120
    orderings whose ρ reaches the observed one."""
    x, y = np.arange(5.0), np.array([0.0, 2, 1, 3, 4])
    rho = stats.spearmanr(x, y).statistic
    exact = np.mean(
        [
            stats.spearmanr(x, y[list(q)]).statistic >= rho - 1e-12
            for q in itertools.permutations(range(5))
        ]
    )
    _, p, _ = F.block_rank_test([x], [y], np.random.default_rng(2), n_perm=40_000)
    assert p == pytest.approx(exact, abs=0.01)


def test_block_rank_test_calibrated_under_the_null():
    rng = np.random.default_rng(3)
    ps = [
        F.block_rank_test(
            [rng.normal(size=6) for _ in range(3)],
            [rng.normal(size=6) for _ in range(3)],
            rng,
            n_perm=200,
        )[1]
        for _ in range(300)
    ]
    assert 0.02 < np.mean(np.array(ps) < 0.05) < 0.09


def test_block_rank_test_perfect_agreement_is_significant():
    xs = [np.arange(6.0)] * 10
    stat, p, _ = F.block_rank_test(xs, xs, np.random.default_rng(4), n_perm=2000)
    assert stat == pytest.approx(1.0) and p == pytest.approx(1 / 2001)


def test_block_rank_test_bad_inputs():
    g = np.random.default_rng(0)
    with pytest.raises(ValueError, match="same number"):
        F.block_rank_test([[1, 2, 3]], [], g)
    with pytest.raises(ValueError, match="same length ≥ 3"):
        F.block_rank_test([[1, 2]], [[1, 2]], g)
    with pytest.raises(ValueError, match="constant"):
        F.block_rank_test([[1, 1, 1]], [[1, 2, 3]], g)
    with pytest.raises(ValueError, match="finite"):
        F.block_rank_test([[1, 2, np.nan]], [[1, 2, 3]], g)
    with pytest.raises(ValueError, match="n_perm"):
        F.block_rank_test([[1, 2, 3]], [[1, 2, 3]], g, n_perm=0)


# --- the filter-level rank test ------------------------------------------------------------------
def _filter_level_by_hand(xs, ys):
    xs, ys = np.asarray(xs, float), np.asarray(ys, float)
    stat = np.mean([stats.spearmanr(x, y).statistic for x, y in zip(xs, ys)])
    null = [
        np.mean([stats.spearmanr(x, y[list(q)]).statistic for x, y in zip(xs, ys)])
        for q in itertools.permutations(range(xs.shape[1]))
    ]
    return stat, np.mean(np.array(null) >= stat - 1e-12)


def test_filter_rank_test_matches_enumeration_by_hand():
    rng = np.random.default_rng(5)
    xs = [rng.normal(size=5) for _ in range(3)]
    ys = [x + rng.normal(size=5) for x in xs]
    stat, p, rhos = F.filter_rank_test(xs, ys)
    s_hand, p_hand = _filter_level_by_hand(xs, ys)
    assert stat == pytest.approx(s_hand) and p == pytest.approx(p_hand)
    np.testing.assert_allclose(
        rhos, [stats.spearmanr(x, y).statistic for x, y in zip(xs, ys)]
    )


def test_filter_rank_test_one_permutation_for_all_blocks():
    """Many blocks that agree perfectly give p = 1/m!, not (1/m!)^blocks: the unit is the item."""
    xs = [np.arange(6.0)] * 10
    stat, p, _ = F.filter_rank_test(xs, xs)
    assert stat == pytest.approx(1.0) and p == pytest.approx(1 / 720)


def test_filter_rank_test_bad_inputs():
    with pytest.raises(ValueError, match="same number"):
        F.filter_rank_test([[1, 2, 3]], [])
    with pytest.raises(ValueError, match="3 to 8 items"):
        F.filter_rank_test([[1, 2]], [[1, 2]])
    with pytest.raises(ValueError, match="length 3"):
        F.filter_rank_test([[1, 2, 3], [1, 2, 3, 4]], [[1, 2, 3], [1, 2, 3, 4]])
    with pytest.raises(ValueError, match="constant"):
        F.filter_rank_test([[1, 1, 1]], [[1, 2, 3]])
    with pytest.raises(ValueError, match="finite"):
        F.filter_rank_test([[1, 2, np.nan]], [[1, 2, 3]])


# --- full scale: the same protocols on a token-level world ---------------------------------------
def test_token_world_protocols():
    import torch

    world = F.make_world(
        6,
        np.random.default_rng(0),
        rm_prompts=20,
        pairs=150,
        label_noise=0.1,
        token=dict(
            sft_steps=5,
            sft_batch=16,
            sft_lr=1e-2,
            generator=torch.Generator().manual_seed(0),
            noise_seed=0,
            n_samples=4,
            model_kw=dict(d_model=16, n_layers=1, n_heads=2),
        ),
    )
    assert world.tokens and world.initial["learned"][0].shape == (6, 4)
    R, S = F.initial_samples(world, 3, np.random.default_rng(1))
    assert R.shape == S.shape == (6, 3) and np.all((S >= 0) & (S <= 1))
    cfg = F.TokenPPOConfig(
        n_updates=1, prompts=2, minibatches=1, eval_every=1, eval_samples=1
    )
    t = F.train_filter(
        world,
        "learned",
        2,
        "bw",
        cfg,
        np.random.default_rng(2),
        generator=torch.Generator().manual_seed(3),
    )
    assert t.rollouts == 1 * 2 * 2 and t.final_actual.shape == (6,)
    with pytest.raises(ValueError, match="pass generator"):
        F.train_filter(world, "learned", 2, "bw", cfg, np.random.default_rng(2))
    with pytest.raises(TypeError, match="TokenPPOConfig"):
        F.train_filter(world, "learned", 2, "bw", F.PPOConfig(), None)
