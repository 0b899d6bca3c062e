"""The chapter's study in `repbook.papers.pf_ppo` (`study`, `readings`): the replicates, R² of
every filter with its bootstrap, training every filter and the paired comparisons, and the
sentences printed under the tables."""

import numpy as np
import pandas as pd
import pytest

from repbook.papers import pf_ppo

SIZES = dict(policy="tabular", prompts=40, rm_prompts=20, pairs=150, label_noise=0.1)
SIZES |= dict(pool=(3, 21, 8), replicates=2)
NS = [4]


def streams(base=0):
    return lambda s: np.random.default_rng(base + s)


@pytest.fixture(scope="module")
def worlds():
    return pf_ppo.make_worlds(SIZES, child_rng=streams(), seed=0)


@pytest.fixture(scope="module")
def traces(worlds):
    cfg = pf_ppo.PPOConfig(n_updates=3, prompts=5)
    return pf_ppo.train_all(worlds, NS, cfg, child_rng=streams())


# --- the replicates -----------------------------------------------------------------------------
def test_make_worlds_is_make_world_per_replicate(worlds):
    again = pf_ppo.make_world(
        40, np.random.default_rng(101), rm_prompts=20, pairs=150, label_noise=0.1
    )
    assert len(worlds) == 2
    np.testing.assert_array_equal(worlds[1].rm["learned"], again.rm["learned"])
    with pytest.raises(ValueError, match="pass torch_generator"):
        pf_ppo.make_worlds(SIZES | dict(policy="tokens"), child_rng=streams(), seed=0)


def test_world_summary_and_its_reading(worlds):
    summary = pf_ppo.world_summary(worlds)
    assert list(summary.index) == [0, 1]
    R, S = worlds[0].initial["learned"]
    assert summary.loc[0, "pair accuracy, learned RM"] == pf_ppo.pair_accuracy(R, S)
    top = S[np.arange(len(S)), R.argmax(1)].mean()
    assert summary.loc[0, pf_ppo.TOP_PICK] == top
    text = pf_ppo.summary_reading(summary)
    assert text.startswith("The learned RM orders ")
    assert f"passes {summary[pf_ppo.TOP_PICK].mean():.2f} of the tests" in text
    without = pf_ppo.summary_reading(summary.drop(columns=[pf_ppo.TOP_PICK]))
    assert "favourite" not in without and without.endswith("is unknown.")


def test_decile_gaps_contents_and_lines(worlds):
    d = pf_ppo.decile_gaps(worlds)
    b = pf_ppo.pair_accuracy_by_bin(*worlds[1].initial["homoscedastic"], 10)
    gap = b["accuracy"][9] - b["accuracy"][3:7].mean()
    assert d.gaps["homoscedastic"][1] == pytest.approx(gap)
    assert len(d.table) == 2 * 2 * 10
    lines = pf_ppo.decile_lines(d)
    assert len(lines) == 4 and lines[1].startswith("top decile − middle deciles")
    R, S = worlds[0].initial["learned"]
    c = pf_ppo.decile_contents(R, S)
    order = np.argsort(R.ravel(), kind="stable")
    first = np.array_split(S.ravel()[order], 10)[0]
    assert c["mean pass rate"][0] == first.mean()
    assert c["share passing no test"][0] == np.mean(first == 0)
    assert all(len(v) == 10 for v in c.values())


# --- R² on the filtered samples -----------------------------------------------------------------
def test_initial_r2_and_its_readings(worlds):
    r2, boot = pf_ppo.initial_r2(worlds, NS, child_rng=streams(), boot=20)
    assert set(r2.strategy) == set(pf_ppo.STRATEGIES) and len(r2) == 2 * 10
    rng = np.random.default_rng(300 + 10 * 1 + 4)
    R, S = pf_ppo.initial_samples(worlds[1], 4, rng)
    bw = pf_ppo.select(R, "all", rng)  # the first per-prompt filter drawn
    got = r2[(r2.replicate == 1) & (r2.strategy == "all")].r2.iloc[0]
    assert got == pytest.approx(pf_ppo.r_squared(R[bw], S[bw]))
    assert boot[4].shape == (20, len(pf_ppo.PER_PROMPT))
    ci = pf_ppo.bootstrap_contrasts(boot)
    assert set(ci) == {
        (4, "BR − PPO-M"),
        (4, "BW − PPO-M"),
        (4, "BoN − min(PPO-M, BR, BW)"),
    }
    assert all(lo <= hi for lo, hi in ci.values())
    gains = pf_ppo.r2_gains(r2, NS)
    rep = r2.pivot_table(index=["N", "replicate"], columns="strategy", values="r2")
    assert gains["N=4: R² BW − PPO-M, per replicate"] == pytest.approx(
        (rep.loc[4]["bw"] - rep.loc[4]["all"]).tolist()
    )
    mean = r2.pivot_table(index="strategy", columns="N", values="r2")
    lines = pf_ppo.r2_lines(mean.reindex(pf_ppo.STRATEGIES), ci)
    assert lines[0] == "R² on the filtered samples (mean over replicates):"
    assert lines[-1].startswith(
        "Across the per-prompt filters and every N, R² is at most"
    )


# --- training every filter, and what the claims read --------------------------------------------
def test_train_all_runs_each_filter_on_its_stream(worlds, traces):
    assert (
        len(traces) == 2 * 10 + 2 * 3
    )  # learned: every filter; control: PPO-M, BR, BW
    cfg = pf_ppo.PPOConfig(n_updates=3, prompts=5)
    i = pf_ppo.STRATEGIES.index("bw")
    stream = 10_000 + 1000 * 1 + 100 * 4 + 10 * i + 1
    again = pf_ppo.train_filter(
        worlds[1], "homoscedastic", 4, "bw", cfg, np.random.default_rng(stream)
    )
    np.testing.assert_array_equal(
        traces[(1, "homoscedastic", 4, "bw")].actual, again.actual
    )
    final = pf_ppo.final_table(traces)
    assert len(final) == len(traces) and set(final.rm) == {"learned", "homoscedastic"}


def test_paired_comparisons(worlds, traces):
    per = pf_ppo.per_replicate(traces, "learned", 4, "br", "all", 2)
    assert per[0] == (
        traces[(0, "learned", 4, "br")].actual[-1]
        - traces[(0, "learned", 4, "all")].actual[-1]
    )
    gains = pf_ppo.gains_against(traces, "bon", NS, 2)
    assert list(gains) == [
        "N=4: PF-PPO (BR) − PF-PPO (BoN), per replicate",
        "N=4: PF-PPO (BW) − PF-PPO (BoN), per replicate",
    ]
    counts, controlled = pf_ppo.count_controlled(traces, NS, 2)
    over = pf_ppo.per_replicate(traces, "learned", 4, "bw", "bon", 2)
    name = "N=4: (PF-PPO (BW) − PF-PPO (BoN)) − (random 2 − random 1), per replicate"
    assert controlled[name] == pytest.approx(np.subtract(over, counts[4]).tolist())
    adv = pf_ppo.filtering_advantage(traces, 4, 2)
    br = pf_ppo.per_replicate(traces, "homoscedastic", 4, "br", "all", 2)
    bw = pf_ppo.per_replicate(traces, "homoscedastic", 4, "bw", "all", 2)
    assert adv["homoscedastic"] == pytest.approx(((np.array(br) + bw) / 2).tolist())


def test_rank_blocks_keep_count_and_matched_reward(worlds, traces):
    r2, _ = pf_ppo.initial_r2(worlds, NS, child_rng=streams(), boot=2)
    filters = ["all", "bon", "br", "bw", "worst", "random2"]
    xs, ys = pf_ppo.rank_blocks(r2, traces, NS, 2, filters)
    assert np.array(xs).shape == np.array(ys).shape == (2, 6)
    assert ys[1][2] == traces[(1, "learned", 4, "br")].actual[-1]
    kc = pf_ppo.keep_count_effect(xs, ys, filters, n=4)
    assert kc.groups[1][0] == ["bon", "worst"] and kc.groups[2][0] == [
        "br",
        "bw",
        "random2",
    ]
    assert -1 <= kc.rho_r2 <= 1 and pf_ppo.keep_count_lines(kc)[0].startswith(
        "among the filters keeping 1 per prompt (PF-PPO (BoN), worst only)"
    )
    final = pf_ppo.final_table(traces)
    order, kept, rho = pf_ppo.keep_ranking(final, 4)
    assert list(order.index) != [] and len(kept) == len(pf_ppo.PER_PROMPT)
    assert kept[list(order.index).index("all")] == 4
    lines = pf_ppo.keep_ranking_lines({4: (order, kept, rho)})
    assert lines[-1].startswith("With a fixed rollout batch")
    r_star, at = pf_ppo.matched_reward(traces, worlds, 4, ["all", "bon"], reach=["all"])
    assert r_star == min(traces[(k, "learned", 4, "all")].reward.max() for k in (0, 1))
    assert not np.isnan(at["all"][0])  # every replicate of PPO-M reaches its own r*
    assert pf_ppo.matched_line(4, r_star, at).startswith(
        f"N=4: actual score at RM reward {r_star:.2f}: PPO-M "
    )


def test_readings_known_text():
    final = pd.DataFrame(
        dict(
            replicate=0,
            rm="learned",
            N=4,
            strategy=["all", "bon", "br", "bw"],
            actual=[0.3, 0.2, 0.25, 0.26],
            reward=[1.0, 0.5, 0.6, 0.7],
            kl=0.0,
            rollouts=1,
        )
    )
    assert pf_ppo.training_gain_lines(final, 0.2, [4]) == [
        "N=4: from the initial policy (actual score 0.200, RM reward 0), PPO-M gains "
        "+1.00 RM reward and +0.100 actual score; PF-PPO (BoN) gains +0.50 RM reward and "
        "+0.000 actual score; PF-PPO (BR) gains +0.60 RM reward and +0.050 actual score; "
        "PF-PPO (BW) gains +0.70 RM reward and +0.060 actual score"
    ]
    assert pf_ppo.per_replicate_line("x", [0.1, -0.02]) == "x: +0.1000, -0.0200"
    lines = pf_ppo.final_lines(final, 0.2, 1)
    assert lines[0] == (
        "final policy, learned RM, mean over 1 replicates (initial actual score 0.200):"
    )


def test_control_lines(worlds, traces):
    summary = pf_ppo.world_summary(worlds)
    d = pf_ppo.decile_gaps(worlds)
    adv = {4: pf_ppo.filtering_advantage(traces, 4, 2)}
    lines = pf_ppo.control_lines(summary, d, adv)
    assert lines[0].startswith("control RM: pair accuracy ")
    assert lines[1].startswith(
        "N=4, learned RM: mean of BR and BW − PPO-M per replicate"
    )
    assert lines[3].startswith("N=4: the advantage of filtering is positive on ")
    assert lines[-1].startswith("A policy that fully trusted the RM")


def test_verl_distinct(worlds):
    got = pf_ppo.verl_distinct(worlds[0], NS, child_rng=streams())
    rng = np.random.default_rng(504)
    r = pf_ppo.initial_samples(worlds[0], 4, rng)[0].ravel()
    assert got == {4: len(np.unique(pf_ppo.verl_resample(r, "max_min", rng)))}
