# ---
# jupyter:
#   jupytext:
#     formats: py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 01 · AR-Bench: can a reasoner ask the right questions?
#
# Zhanke Zhou, Xiao Feng, Zhaocheng Zhu, Jiangchao Yao, Sanmi Koyejo, Bo Han — *From Passive to
# Active Reasoning: Can Large Language Models Ask the Right Questions under Incomplete
# Information?*, ICML 2025 · arXiv [2506.08295](https://arxiv.org/abs/2506.08295) · official code:
# `tmlr-group/AR-Bench`.
#
# AR-Bench puts a reasoner in front of a problem it cannot solve from what it is told: it has to
# *ask*. Three task families do this — detective cases (DC: question five suspects, then name the
# murderer), situation puzzles (SP: uncover a hidden story with yes/no questions) and guessing
# numbers (GN: find a secret of four distinct digits from bulls-and-cows feedback). The paper
# measures large language models on it and finds them weak at acquiring and at using information.
#
# ```{admonition} Claims we test
# 1. **Passive versus active.** The paper's central finding: models that reason well when given
#    all the information at once (passive) do much worse when they must ask for it (active). That
#    needs a model, so at this scale we check its mechanism (1b): with the same number of queries,
#    questions chosen in the light of the previous answers identify the hidden answer far more
#    often than the same number of questions fixed in advance.
# 2. **Failing to acquire or to use information is what breaks an agent.** Accuracy collapses for
#    an agent that ignores the feedback, and falls steadily as an agent forgets (keeps only the last
#    k answers) or misreads (each answer wrong with probability p).
# 3. **Search gives only modest gains.** Choosing each question by information gain or by a
#    one-step lookahead tree search needs only slightly fewer turns than picking any question
#    consistent with what is known.
# 4. **The same holds for detectives and puzzles.** Informative questioning reaches the answer with
#    fewer questions than random questioning, at equal or better accuracy.
# 5. **The paper's LLM results** are quoted, not re-measured; a user can plug in an
#    OpenAI-compatible endpoint and evaluate a model on our fixtures.
# ```
#
# No language model can be downloaded here. The chapter therefore rebuilds the benchmark's
# *environments, judge and metrics* and checks the information-theoretic core of the paper's
# claims with agents whose failure modes we control. It reproduces the mechanism, never the paper's
# LLM numbers.

# %% tags=["parameters"]
scale = "quick"  # "quick" (≤ 90 s on 2 CPU cores) or "full" (every secret, more seeds)
seed = 0
llm_base_url = ""  # OpenAI-compatible endpoint, e.g. http://127.0.0.1:8000/v1 ("": off)
llm_model = ""  # the model name the endpoint serves

# %%
import numpy as np
import pandas as pd
import matplotlib.pyplot as plt

from repbook.core import (
    Ledger,
    setup,
    use_style,
    color_for,
    reference_line,
    data_file,
    register_colors,
    all_of,
    at_least,
    at_most,
)
from repbook.papers.ar_bench import dc, gn, llm, load_arbench, metrics, sp

SIZES = {
    "quick": dict(
        seeds=3,
        active_secrets=5040,
        passive_secrets=5040,
        ablation_games=1000,
        memories=[0, 1, 2, 3, 4, 6, 25],
        noises=[0.0, 0.05, 0.1, 0.2, 0.3, 0.5],
        lookahead_width=4,
        dc_reps=40,
        sp_reps=200,
        sp_distractors=2,
        llm_games=10,
    ),
    "full": dict(
        seeds=10,
        active_secrets=5040,
        passive_secrets=5040,
        ablation_games=5040,
        memories=[0, 1, 2, 3, 4, 6, 25],
        noises=[0.0, 0.05, 0.1, 0.2, 0.3, 0.5],
        lookahead_width=16,
        dc_reps=400,
        sp_reps=2000,
        sp_distractors=2,
        llm_games=100,
    ),
}
run = setup(scale=scale, seed=seed, sizes=SIZES)
ledger = Ledger.for_run(
    run,
    regime=(
        "all 5,040 bulls-and-cows secrets and our own DC/SP fixtures; algorithmic "
        "agents, no LLM; CPU"
    ),
)
use_style()
register_colors(
    {
        "entropy": "ours",
        "lookahead": "alt",
        "consistent random": "baseline",
        "minimax (Knuth)": "peer",
        "fixed clues (random)": "muted",
        "ignores feedback": "alt2",
        "info gain": "ours",
        "random": "baseline",
        "follow-up": "ours",
        "forgetful k=1": "alt3",
        "noisy p=0.3": "muted",
    }
)
MAX_TURN = gn.MAX_TURN  # the benchmark's default budget: 25 turns

# %% [markdown]
# ## The guessing-numbers judge
#
# The secret is any string of four distinct digits, a leading zero included (AR-Bench's own test
# set has such secrets), so there are $10\cdot9\cdot8\cdot7 = 5040$ of them. A guess $g$ against
# the secret $s$ gets two numbers: *bulls*, the positions where $g_i = s_i$, and *cows*, the digits
# shared by $g$ and $s$ minus the bulls. The benchmark counts a game as won when a guess has four
# bulls within 25 guesses. By hand for one pair, then the library's judge and its precomputed
# $5040\times5040$ feedback matrix $F[g,s]$ (code $5\cdot\text{bulls}+\text{cows}$, one byte each):

# %%
secret, guess = "0521", "1250"
bulls = sum(a == b for a, b in zip(secret, guess))
cows = len(set(secret) & set(guess)) - bulls
print(f"by hand: secret {secret}, guess {guess} → {bulls} bulls, {cows} cows")
print(
    f"judge:   {gn.compare_guess(secret, guess)[:2]} → "
    f"'{gn.feedback_text(*gn.compare_guess(secret, guess)[:2])}'"
)
F = gn.feedback_matrix()
i_s, i_g = gn.index_of(secret), gn.index_of(guess)
print(
    f"matrix:  F[{guess}, {secret}] = {F[i_g, i_s]} = 5·{F[i_g, i_s] // 5} + "
    f"{F[i_g, i_s] % 5}; "
    f"{F.shape[0]:,} secrets, {F.nbytes / 1e6:.1f} MB"
)

# %% [markdown]
# After a guess, the secrets that would have produced the same feedback are the only ones left.
# The first guess splits the 5,040 secrets into 14 classes (3 bulls and 1 cow cannot happen); the
# expected information of a guess is the entropy of that split.

# %%
first = np.bincount(F[0], minlength=gn.N_CODES)
split = pd.DataFrame(
    [
        dict(feedback=f"{c // 5}B{c % 5}C", secrets_left=int(first[c]))
        for c in np.flatnonzero(first)
    ]
)
p = first[first > 0] / first.sum()
print(split.sort_values("secrets_left", ascending=False).to_string(index=False))
print(
    f"entropy of the first split: {-(p * np.log2(p)).sum():.3f} bits of the "
    f"{np.log2(5040):.3f} needed (lib: "
    f"{gn.partition_entropy(F, [0], np.arange(5040))[0]:.3f})"
)

# %% [markdown]
# Our fixtures are 100 secrets of our own in the benchmark's GN schema (a JSON list of strings);
# the algorithmic agents below are run on **all 5,040 secrets**, which is both cheaper and sharper
# than any sample.

# %%
fixture_secrets = load_arbench(data_file("01_ar_bench", "gn_mini.json"))
print(
    f"{len(fixture_secrets)} fixture secrets, "
    f"{sum(s[0] == '0' for s in fixture_secrets)} with a "
    f"leading zero; first five: {fixture_secrets[:5]}"
)
all_idx = np.arange(5040)

# %% [markdown]
# ## Claim 1 · Passive versus active
#
# In the paper, *passive* reasoning means that everything needed is given at once and the model
# only has to deduce; *active* reasoning means the model must ask for it. For a reasoner that
# deduces exactly, as ours do, passive reasoning is solved by construction (on the detective cases
# below, all facts given up front give accuracy 1), so the paper's gap between the two is a
# property of language models that we cannot measure without one (1). What we can test is the
# mechanism behind it (1b): asking is only as good as the choice of questions.
#
# The *active* agent is the simplest one that uses its answers: each turn it guesses uniformly among
# the secrets still consistent with all feedback (consistent random). The *fixed-clue* reasoner gets
# $k$ clues — random guesses with their feedback — chosen before seeing any answer. After $k$
# clues the fixed-clue reasoner can name the secret only if the clues leave exactly one candidate;
# the active agent has the same $k$ answers when it makes guess $k+1$. So we compare the share of
# secrets solved by guess $k+1$ with the share determined by $k$ random clues.
#
# **Criterion (1b, fixed before the run).** At $k = 5$, for each of `seeds` seeds over all 5,040
# secrets: (share solved by the consistent-random agent within 6 guesses) − (share determined by 5
# random non-adaptive clues) ≥ 0.4. It would fail if fixed clues carried about as much information
# as adaptive ones.

# %%
ks = np.arange(1, 9)
active, passive, passive_sizes = [], [], []
for r in range(run["seeds"]):
    stats = gn.consistent_random(
        all_idx[: run["active_secrets"]], run.child_rng(100 + r)
    )
    active.append(stats)
    sizes = gn.passive_sizes(
        all_idx[: run["passive_secrets"]], int(ks.max()), run.child_rng(200 + r)
    )
    passive_sizes.append(sizes)
    passive.append((sizes[:, ks] == 1).mean(0))
act_share = np.array([gn.solved_by(a.turns, ks + 1) for a in active])  # (seeds, k)
pas_share = np.array(passive)
tree = {
    name: gn.solve_tree(name, width=run["lookahead_width"])
    for name in ("entropy", "lookahead")
}
ent_share = gn.solved_by(tree["entropy"].turns, ks + 1)
table1 = pd.DataFrame(
    {
        "k": ks,
        "active: consistent random": act_share.mean(0),
        "active: entropy": ent_share,
        "fixed: k random clues": pas_share.mean(0),
    }
)
print(table1.round(3).to_string(index=False))
gap5 = act_share[:, ks == 5].ravel() - pas_share[:, ks == 5].ravel()
print(f"adaptive − fixed at k = 5 per seed: {np.round(gap5, 3).tolist()}")

# %% tags=["hide-input"]
fig, axes = plt.subplots(1, 2, figsize=(11, 4))
ax = axes[0]
w = 0.38
for j, (lab, vals, err) in enumerate(
    [
        ("consistent random", act_share.mean(0), act_share.std(0)),
        ("fixed clues (random)", pas_share.mean(0), pas_share.std(0)),
    ]
):
    ax.bar(
        ks + (j - 0.5) * w,
        vals,
        w,
        yerr=err,
        label=("active: " if j == 0 else "") + lab,
        color=color_for(lab),
        capsize=2,
    )
ax.plot(
    ks, ent_share, "o-", color=color_for("entropy"), ms=4, label="active: entropy agent"
)
ax.set(
    xlabel="answers received k",
    ylabel="share of the 5,040 secrets identified",
    title="Asking adaptively identifies far more secrets",
    ylim=(0, 1.05),
    xticks=ks,
)
ax.legend(loc="upper left")
ax = axes[1]
turns_axis = np.arange(0, 11)
for lab, S in [
    ("consistent random", np.concatenate([a.sizes for a in active])),
    ("entropy", tree["entropy"].sizes),
]:
    ax.plot(
        turns_axis,
        np.log2(S[:, turns_axis]).mean(0),
        "o-",
        ms=3,
        color=color_for(lab),
        label=f"active: {lab}",
    )
P = np.concatenate(passive_sizes)
ax.plot(
    np.arange(P.shape[1]),
    np.log2(P).mean(0),
    "s--",
    ms=3,
    color=color_for("fixed clues (random)"),
    label="fixed: random clues",
)
ax.set(
    xlabel="answers received",
    ylabel="mean log₂(candidates left)",
    title="Information held after each answer",
    xticks=turns_axis,
)
ax.legend()
plt.show()

# %%
ledger.not_checked(
    1,
    "models solve passive versions far better than active ones",
    paper="large gap between passive and active reasoning (LLMs)",
    source="abstract",
    criterion=at_least("passive − active accuracy (same model, GN)", 0.2),
    note="needs a language model on passive and active versions of the same tasks; set "
    "llm_base_url to run the chapter's LLM agent",
)
ledger.ours(
    "1b",
    "adaptive queries identify far more secrets than the same number of fixed ones",
    why="our simulation of why active questioning is the bottleneck, with ideal "
    "agents; "
    "the paper's claim 1 is about language models",
    measured={
        "adaptive − fixed share at k=5, per seed": gap5,
        "adaptive share": act_share[:, ks == 5].mean(),
        "fixed-clue share": pas_share[:, ks == 5].mean(),
    },
    criterion=at_least("adaptive − fixed share at k=5, per seed", 0.4),
)

# %% [markdown]
# Read the left panel with the table above: by five answers the adaptive agents have pinned down
# most secrets, while five fixed clues determine only a minority. The right panel shows why: each
# adaptive answer removes more uncertainty than a random clue, because a guess drawn from the
# consistent set splits *the remaining candidates*, not the whole space.
#
# ## Claim 2 · Failing to acquire or to use information breaks the agent
#
# Three ways to waste information, each a one-parameter change of the consistent-random agent:
# *ignores feedback* (guesses among untried secrets, as if it never heard an answer); *forgetful-k*
# (keeps only the last $k$ answers; $k=0$ is no memory, $k=25$ is full memory); *noisy reader*
# (each non-winning answer is misread, with probability $p$, as another possible answer; when no
# secret fits what it believes it drops its oldest observations). Accuracy is the benchmark's: the
# share of games won within 25 guesses.
#
# **Criterion.** (a) Accuracy is non-decreasing in the memory $k$ and non-increasing in the
# misreading probability $p$, up to Monte Carlo noise: no step in the wrong direction exceeds twice
# the standard error of the difference. (b) The failures *break* the agent: accuracy drops by at
# least 0.5 from full memory to none, and from $p=0$ to the largest $p$. It fails if accuracy is
# flat (information not used has no cost) or non-monotone. The feedback-ignoring agent is shown for
# context only: with 25 guesses among 5,040 secrets it can solve at most 25/5,040 by chance.

# %%
games = all_idx[run.child_rng(300).permutation(5040)[: run["ablation_games"]]]
ignore = gn.ignore_feedback(games, run.child_rng(301))


def acc_se(stats):
    a = stats.solved.mean()
    return a, np.sqrt(max(a * (1 - a), 1e-12) / len(stats.solved))


mem = [
    gn.forgetful(games, run.child_rng(400 + j), k=k)
    for j, k in enumerate(run["memories"])
]
noise = [
    gn.noisy_reader(games, run.child_rng(500 + j), p=p)
    for j, p in enumerate(run["noises"])
]
mem_acc = np.array([acc_se(s) for s in mem])
noise_acc = np.array([acc_se(s) for s in noise])


def worst_wrong_step(acc, direction):
    """Largest step against `direction` (+1 rise, −1 fall), in units of its SE."""
    steps = direction * np.diff(acc[:, 0])
    se = np.sqrt(acc[1:, 1] ** 2 + acc[:-1, 1] ** 2)
    return float(np.max(-steps / se))


ign_acc = ignore.solved.mean()
z_mem, z_noise = worst_wrong_step(mem_acc, +1), worst_wrong_step(noise_acc, -1)
print(f"ignores feedback: accuracy {ign_acc:.3f} over {len(games)} games")
print(
    "forgetful-k: "
    + ", ".join(f"k={k}: {a:.3f}" for k, (a, _) in zip(run["memories"], mem_acc))
)
print(
    "noisy reader: "
    + ", ".join(f"p={p}: {a:.3f}" for p, (a, _) in zip(run["noises"], noise_acc))
)
print(
    f"largest step in the wrong direction: memory {max(0.0, z_mem):.2f} SE, "
    f"noise {max(0.0, z_noise):.2f} SE (0 = none)"
)

# %% tags=["hide-input"]
fig, axes = plt.subplots(1, 2, figsize=(11, 3.8), sharey=True)
ax = axes[0]
labels = [str(k) if k < 25 else "all" for k in run["memories"]]
ax.errorbar(
    range(len(labels)),
    mem_acc[:, 0],
    yerr=2 * mem_acc[:, 1],
    fmt="o-",
    color=color_for("forgetful k=1"),
    capsize=3,
    label="forgetful-k (±2 SE)",
)
ax.axhline(
    ign_acc, color=color_for("ignores feedback"), ls=":", label="ignores feedback"
)
ax.set(
    xticks=range(len(labels)),
    xticklabels=labels,
    xlabel="answers remembered k",
    ylabel="accuracy within 25 guesses",
    title="Forgetting answers costs accuracy",
    ylim=(-0.02, 1.05),
)
ax.legend(loc="lower right")
ax = axes[1]
ax.errorbar(
    run["noises"],
    noise_acc[:, 0],
    yerr=2 * noise_acc[:, 1],
    fmt="o-",
    color=color_for("noisy p=0.3"),
    capsize=3,
    label="noisy reader (±2 SE)",
)
ax.axhline(
    ign_acc, color=color_for("ignores feedback"), ls=":", label="ignores feedback"
)
ax.set(
    xlabel="probability p of misreading an answer",
    title="Misreading answers costs accuracy",
)
ax.legend(loc="lower left")
plt.show()

# %%
ledger.check(
    2,
    "forgetting or misreading answers breaks the agent",
    paper="LLMs fail to acquire or to leverage information",
    source="abstract",
    measured={
        "worst wrong-way step in k (SE)": z_mem,
        "worst wrong-way step in p (SE)": z_noise,
        "drop, full memory → none": mem_acc[-1, 0] - mem_acc[0, 0],
        f"drop, p=0 → {run['noises'][-1]}": noise_acc[0, 0] - noise_acc[-1, 0],
        "accuracy by k": dict(zip(map(str, run["memories"]), mem_acc[:, 0])),
        "accuracy by p": dict(zip(map(str, run["noises"]), noise_acc[:, 0])),
        "ignores feedback": ign_acc,
    },
    criterion=all_of(
        at_most(
            ["worst wrong-way step in k (SE)", "worst wrong-way step in p (SE)"], 2
        ),
        at_least(["drop, full memory → none", f"drop, p=0 → {run['noises'][-1]}"], 0.5),
    ),
    show=[
        "worst wrong-way step in k (SE)",
        "worst wrong-way step in p (SE)",
        "drop, full memory → none",
        f"drop, p=0 → {run['noises'][-1]}",
    ],
)

# %% [markdown]
# The agent that ignores answers almost never wins — with 25 guesses among 5,040 secrets it cannot —
# while the same guessing rule with full memory always wins. Between the two, accuracy rises with
# the number of answers kept and falls with the misreading rate (values printed above), the two
# failure modes the paper reports in LLM transcripts: not using what was learned, and misusing it.
# Forgetting breaks the agent completely. Misreading does less damage than "breaks" asks for: a
# reader that drops its oldest observations whenever nothing fits what it believes recovers from
# many misreadings, so even at the largest $p$ it keeps a sizeable share of its wins (the drop is in
# the verdict table).
#
# ## Claim 3 · Tree search helps only modestly
#
# Three deterministic agents choose every guess by a score over all 5,040 possible guesses: the
# **entropy** agent maximises the expected information of the answer (the idea behind
# uncertainty-of-thoughts), the **lookahead** agent re-scores the `lookahead_width` best guesses by
# the information expected after the answer *and* the best next guess (a one-step tree search), and
# the classic **minimax** rule (Knuth's for Mastermind) minimises the largest set that can remain.
# Each is played against every secret at once by splitting the candidate set along the answers.
#
# How large a gain *can* search buy? Optimal bulls-and-cows play needs 26,274 guesses over the
# 5,040 secrets, a mean of about 5.213 with a worst case of 7 (Tanaka, 1996; a classical result,
# not AR-Bench's). So the room for any search over the consistent-random agent is the gap between
# its mean and that optimum.
#
# **Criterion.** (a) Over all 5,040 secrets the entropy and lookahead agents each need fewer
# guesses on average than the consistent-random agent (mean over seeds): a gain > 0; and the gain
# that even optimal play could buy over consistent random is at most 10 % of its mean ("modest").
# It fails if search does not help at all, or if consistent random were far from optimal, so that
# search could buy much. (b) (The research brief's check of the entropy agent against the
# classical optimum) the entropy agent's mean is ≤ 5.35 guesses and its worst case ≤ 7.

# %%
OPTIMUM_MEAN = (
    26274 / 5040
)  # Tanaka (1996), optimal bulls-and-cows play; not from AR-Bench
tree["minimax (Knuth)"] = gn.solve_tree("minimax")
cr_means = np.array([a.turns.mean() for a in active])
rows = [
    dict(
        agent="consistent random",
        mean_guesses=cr_means.mean(),
        sd_over_seeds=cr_means.std(),
        worst=max(a.turns.max() for a in active),
        solved=np.mean([a.solved.mean() for a in active]),
    )
]
for name, res in tree.items():
    rows.append(
        dict(
            agent=name,
            mean_guesses=res.turns.mean(),
            sd_over_seeds=0.0,
            worst=res.turns.max(),
            solved=(res.turns > 0).mean(),
        )
    )
table3 = pd.DataFrame(rows).set_index("agent")
print(table3.round(4).to_string())
gain = {
    n: (cr_means.mean() - tree[n].turns.mean()) / cr_means.mean()
    for n in ("entropy", "lookahead")
}
print(
    "relative gain over consistent random: "
    + ", ".join(f"{n} {100 * g:.2f} %" for n, g in gain.items())
)
print(
    f"secrets needing 8 guesses: entropy {(tree['entropy'].turns == 8).sum()}, "
    f"lookahead {(tree['lookahead'].turns == 8).sum()}, minimax "
    f"{(tree['minimax (Knuth)'].turns == 8).sum()}"
)

# %% tags=["hide-input"]
fig, axes = plt.subplots(1, 2, figsize=(11, 3.9))
ax = axes[0]
t = np.arange(0, MAX_TURN + 1)
curves = {
    "ignores feedback": ignore.turns,
    "forgetful k=1": mem[run["memories"].index(1)].turns,
    "noisy p=0.3": noise[run["noises"].index(0.3)].turns,
    "consistent random": np.concatenate([a.turns for a in active]),
    "entropy": tree["entropy"].turns,
    "lookahead": tree["lookahead"].turns,
}
for lab, tt in curves.items():
    style = {
        "entropy": dict(lw=3.5, alpha=0.6),
        "lookahead": dict(ls=":", lw=2),
        "consistent random": {},
    }.get(lab, dict(ls="--"))
    ax.step(
        t,
        [np.mean((tt > 0) & (tt <= x)) for x in t],
        where="post",
        color=color_for(lab),
        label=lab + (" (on top of entropy)" if lab == "lookahead" else ""),
        **style,
    )
ax.axvline(MAX_TURN, color=color_for("reference"), lw=1, ls=":")
ax.set(
    xlabel="guess number",
    ylabel="share of games solved",
    title="Solved by turn (budget 25)",
    xlim=(0, MAX_TURN + 0.5),
)
ax.legend(fontsize=8, loc="center right", bbox_to_anchor=(1.0, 0.4))
ax = axes[1]
names = ["consistent random", "entropy", "lookahead", "minimax (Knuth)"]
means = [cr_means.mean()] + [tree[n].turns.mean() for n in names[1:]]
errs = [cr_means.std()] + [0, 0, 0]
bars = ax.bar(
    range(4), means, yerr=errs, color=[color_for(n) for n in names], capsize=3
)
ax.bar_label(bars, labels=[f"{v:.3f}" for v in means], padding=2, fontsize=9)
reference_line(ax, OPTIMUM_MEAN, "optimal play 26,274/5,040 ≈ 5.213 (literature)")
ax.set(
    xticks=range(4),
    xticklabels=["consistent\nrandom", "entropy", "lookahead", "minimax"],
    ylabel="mean guesses over 5,040 secrets",
    ylim=(0, 7.2),
    title="Search buys little",
)
ax.legend(loc="upper center")
plt.show()

# %%
achievable = (cr_means.mean() - OPTIMUM_MEAN) / cr_means.mean()
ledger.check(
    3,
    "search (information gain, lookahead) gives only modest gains",
    paper="ToT / UoT / post-training give modest gains (LLMs)",
    source="abstract",
    measured={
        "gain: entropy": gain["entropy"],
        "gain: lookahead": gain["lookahead"],
        "gain of optimal play": achievable,
        "mean guesses, random": cr_means.mean(),
    },
    criterion=all_of(
        at_least(["gain: entropy", "gain: lookahead"], 0, strict=True, scale=0.01),
        at_most("gain of optimal play", 0.10),
    ),
)
ent = tree["entropy"].turns
ledger.check(
    "3b",
    "greedy entropy play comes close to optimal play",
    paper="optimum 26,274/5,040 ≈ 5.213 mean, worst 7 (Tanaka 1996; not AR-Bench)",
    source="literature",
    measured={
        "entropy mean": ent.mean(),
        "entropy worst case": int(ent.max()),
        "minimax worst case": int(tree["minimax (Knuth)"].turns.max()),
    },
    criterion=all_of(at_most("entropy mean", 5.35), at_most("entropy worst case", 7)),
    note=""
    if ent.max() <= 7
    else (
        f"greedy play is not optimal play: {int((ent == ent.max()).sum())} "
        f"secret(s) need {int(ent.max())} guesses"
    ),
)

# %% [markdown]
# All agents that use every answer solve every secret within 25 guesses; the search agents save a
# fraction of a guess on average over picking any consistent secret (table above). Greedy play is
# not optimal play: the entropy agent's worst case is printed above, against the 7 guesses an
# optimal strategy needs. The benchmark's own budget of 25 turns is far from binding for any agent
# that uses the feedback; what separates agents is whether they use it (claim 2), not how cleverly
# they search.
#
# ## Claim 4 · Detectives and puzzles: informative questions are fewer
#
# **Detective cases.** Our five fixture cases follow AR-Bench's DC schema: five suspects, the
# murderer with statements for motive, opportunity and access to the weapon, every other suspect
# lacking at least one (one suspect lacks all three), and key questions of the form "can this
# question deduce that X had / did not have …". A question asks one suspect about one attribute.
# Both agents keep an exact belief over who can be the murderer and stop as soon as it is certain;
# one asks uniformly random new questions, the other the question with the largest expected drop in
# the entropy of "who did it". The process score is the benchmark's: the share of the case's key
# questions asked.
#
# **Situation puzzles.** Our five fixture puzzles follow the SP schema (surface, bottom, a story
# tree whose nodes carry key questions). The puzzle is solved when every key fact is uncovered.
# Each fact also has `sp_distractors` off-track follow-ups (answered "no"); a question about a
# fact whose premise is not known yet would be answered "irrelevant", so both questioners follow
# the same rule and ask only questions whose premise is known. The random questioner picks any of
# those; the follow-up questioner works through the oldest uncovered fact first, breadth-first. In AR-Bench an LLM plays the suspects and judges the yes/no answers; here both are
# exact, so only the choice of questions differs.
#
# **Criterion.** On each simulator, over all fixture records × repetitions, with the benchmark's
# budget of 25 questions: the informative agent's accuracy and process score (the benchmark's
# share of key questions asked) are at least the random agent's, and its mean number of questions
# (unsolved games counted at 25) is at most 0.9 × the random agent's. It fails if choosing
# questions well buys no fewer questions, or buys them by skipping the key questions.

# %%
cases = load_arbench(data_file("01_ar_bench", "dc_mini.json"))
puzzles = load_arbench(data_file("01_ar_bench", "sp_mini.json"))
dc_rows = []
for strat, lab in [("random", "random"), ("info_gain", "info gain")]:
    rng = run.child_rng(600 + len(dc_rows))
    for ci, case in enumerate(cases):
        for _ in range(run["dc_reps"]):
            g = dc.play_case(case, strat, rng, max_turn=MAX_TURN)
            dc_rows.append(
                dict(
                    agent=lab,
                    case=ci,
                    correct=g.correct,
                    questions=g.turns,
                    process=g.process_score,
                )
            )
dc_df = pd.DataFrame(dc_rows)
sp_rows, sp_curves = [], {}
for strat, lab in [("random", "random"), ("follow_up", "follow-up")]:
    rng = run.child_rng(700 + len(sp_rows))
    hits = np.zeros((len(puzzles) * run["sp_reps"], MAX_TURN + 1))
    r_i = 0
    for pi, puz in enumerate(puzzles):
        n_keys = len([n for n in puz.story_tree.walk()]) - 1
        for _ in range(run["sp_reps"]):
            g = sp.play_puzzle(
                puz, strat, rng, n_distractors=run["sp_distractors"], max_turn=MAX_TURN
            )
            sp_rows.append(
                dict(
                    agent=lab,
                    puzzle=pi,
                    correct=g.solved,
                    questions=g.turns if g.solved else MAX_TURN,
                    process=g.process_score,
                )
            )
            h = np.r_[0, g.hits_by_turn] / n_keys
            hits[r_i] = np.r_[h, np.full(MAX_TURN + 1 - len(h), h[-1])]
            r_i += 1
    sp_curves[lab] = hits.mean(0)
sp_df = pd.DataFrame(sp_rows)
summary4 = pd.concat(
    {
        "DC": dc_df.groupby("agent")[["correct", "questions", "process"]].mean(),
        "SP": sp_df.groupby("agent")[["correct", "questions", "process"]].mean(),
    }
)
summary4.columns = ["accuracy", "mean questions", "process score"]
print(summary4.round(3).to_string())
print(
    f"DC passive accuracy (all facts given up front): "
    f"{np.mean([dc.passive_accuracy(c) for c in cases]):.2f}"
)

# %% tags=["hide-input"]
fig, axes = plt.subplots(1, 2, figsize=(11, 3.8))
ax = axes[0]
bins = np.arange(0.5, 16.5)
for lab in ("random", "info gain"):
    ax.hist(
        dc_df[dc_df.agent == lab].questions,
        bins=bins,
        alpha=0.6,
        color=color_for(lab),
        label=f"{lab}: mean {dc_df[dc_df.agent == lab].questions.mean():.1f}",
    )
ax.set(
    xlabel="questions until the murderer is certain",
    ylabel="games",
    title="Detective cases: questions needed",
)
ax.legend()
ax = axes[1]
for lab, curve in sp_curves.items():
    ax.plot(np.arange(MAX_TURN + 1), curve, color=color_for(lab), label=lab)
ax.set(
    xlabel="question number",
    ylabel="share of key facts uncovered (mean)",
    title="Situation puzzles: key-question hit rate",
    ylim=(0, 1.03),
)
ax.legend()
plt.show()

# %%
values4, parts4 = {}, []
for task, inf in [("DC", "info gain"), ("SP", "follow-up")]:
    for col, short in [
        ("accuracy", "accuracy"),
        ("mean questions", "questions"),
        ("process score", "process"),
    ]:
        values4[f"{task} {short}: {inf}"] = summary4.loc[(task, inf), col]
        values4[f"{task} {short}: random"] = summary4.loc[(task, "random"), col]
    parts4 += [
        at_least(f"{task} accuracy: {inf}", f"{task} accuracy: random"),
        at_least(f"{task} process: {inf}", f"{task} process: random"),
        at_most(f"{task} questions: {inf}", f"{task} questions: random", factor=0.9),
    ]
ledger.check(
    4,
    "informative questioning needs fewer questions on DC and SP simulators",
    paper="active questioning is the bottleneck on all three task families",
    source="abstract",
    measured=values4,
    criterion=all_of(*parts4),
)

# %% [markdown]
# Read the verdict with the table above. On the detective cases both agents always end certain and
# right, and the information-gain questioner gets there with fewer questions; but its process score
# is lower, because it asks fewer questions in all and skips key questions whose answer it can
# already infer: by the benchmark's own process metric, efficient questioning looks worse. On the
# puzzles both questioners ask only answerable questions, so they differ only in order. Both
# simulators make the answers exact; the paper's difficulty of *judging* free-text answers with an
# LLM is not modelled.
#
# ## Claim 5 · The paper's LLM results, and your own model
#
# We did not run any language model. The paper evaluates open and closed LLMs (Llama-3.1, Qwen2.5,
# GPT-4o and others) with several prompting and search methods. Its result tables were not available
# to us offline and we print no number we could not check against the paper itself; we quote the
# finding as its abstract states it.

# %%
ledger.quote(
    5,
    "LLMs on AR-Bench (the paper's result, not re-measured)",
    paper="contemporary LLMs struggle to acquire and use missing information; tree "
    "search "
    "and post-training give only modest gains",
    source="abstract",
    note="its per-model accuracies are in its main tables",
)

# %% [markdown]
# ### Use your own LLM
#
# Set `llm_base_url` and `llm_model` (or the environment variables `REPBOOK_LLM_BASE_URL` and
# `REPBOOK_LLM_MODEL`) to any OpenAI-compatible chat endpoint — a local vLLM or llama.cpp server,
# or a hosted API. The key is read only from the environment variable `REPBOOK_LLM_API_KEY`; it is
# never a parameter and is never printed. The book's kernels block every non-loopback connection,
# so an endpoint on another host needs `REPBOOK_ALLOW_NETWORK=1` in the environment; a server on
# `127.0.0.1` works as is. The model then plays guessing numbers on the first `llm_games` fixture
# secrets and questions the suspects of the five fixture detective cases, each with the
# benchmark's 25-turn budget. In the detective cases it chooses from a menu (one suspect, one of
# motive / opportunity / weapon, or an accusation) and the simulator answers from the case file —
# a structured stand-in for the benchmark's free-text interrogation. Endpoint errors (timeouts, HTTP
# errors, malformed replies) are recorded per game instead of stopping the chapter. For example:
#
# ```bash
# REPBOOK_LLM_API_KEY=... REPBOOK_ALLOW_NETWORK=1 .venv/bin/python -m repbook run 01 \
#     -p llm_base_url https://api.example.com/v1 -p llm_model my-model
# ```

# %%
client = llm.client_from_settings(llm_base_url, llm_model)
if client is None:
    print("no LLM endpoint set (llm_base_url is empty): the LLM agent is off")
else:
    llm_games = llm.evaluate_gn_llm(
        client, fixture_secrets[: run["llm_games"]], max_turn=MAX_TURN
    )
    solved = [g.solved for g in llm_games]
    errors = [g.error for g in llm_games if g.error]
    print(
        f"{client.model} at {client.base_url}: accuracy "
        f"{metrics.accuracy(solved):.2f} on "
        f"{len(llm_games)} fixture secrets"
        + (
            ", mean guesses when solved "
            f"{metrics.mean_turns([g.turns for g in llm_games], solved):.1f}"
            if any(solved)
            else ""
        )
        + f"; invalid replies {sum(g.invalid for g in llm_games)}; endpoint errors "
        f"{len(errors)}"
    )
    if errors:
        print(f"first error: {errors[0]}")
    same = gn.index_of(fixture_secrets[: run["llm_games"]])
    cr_same = gn.consistent_random(same, run.child_rng(800)).solved.mean()
    ent_same = (tree["entropy"].turns[same] > 0).mean()
    print(
        f"for comparison on the same secrets: consistent random {cr_same:.2f}, "
        f"entropy {ent_same:.2f}"
    )
    llm_cases = llm.evaluate_dc_llm(client, cases, max_turn=MAX_TURN)
    print(
        "detective cases: accuracy "
        f"{metrics.accuracy([c.correct for c in llm_cases]):.2f}, "
        f"mean questions {np.mean([c.turns for c in llm_cases]):.1f}, "
        f"process score {np.nanmean([c.process_score for c in llm_cases]):.2f}, "
        f"endpoint errors {sum(bool(c.error) for c in llm_cases)} "
        f"(info-gain agent: {summary4.loc[('DC', 'info gain'), 'accuracy']:.2f}, "
        f"{summary4.loc[('DC', 'info gain'), 'mean questions']:.1f}, "
        f"{summary4.loc[('DC', 'info gain'), 'process score']:.2f})"
    )

# %% [markdown]
# ## Verdicts

# %% tags=["nbval-check-output"]
ledger.show()

# %% tags=["nbval-ignore-output"]
print(f"chapter run time: {run.elapsed():.1f} s at scale={run.scale!r} on {run.device}")

# %% [markdown]
# ## Deviations from the paper
#
# - **What a verdict audit of issue 38 found, left for the chapter's group issue (01–07).**
#   Claims 2, 3, 3b and 4 are, like 1b, simulations of ideal agents with bars we chose (a
#   drop ≥ 0.5 at our largest misreading rate, Tanaka's optimum from the literature, a
#   process-score condition our stopping rule loses by design), yet they count in the
#   paper's tally; they are candidates for our own checks, which would leave the paper's
#   tally with nothing judged. Claim 2's verdict flips between seeds (the table names it).
# - **Our checks apart.** Claim 1b, our simulation with ideal agents, was counted in the
#   paper's tally; it is now shown under our own checks (the book-wide rule that a check
#   of ours is never counted as the paper's). Its test is unchanged.
# - **No language model.** The paper's subject is LLM behaviour; none can be downloaded here. We
#   rebuild the environments, the judge and the metrics, and test the information-theoretic core of
#   its claims with algorithmic agents whose failures we control (ignoring, forgetting, misreading
#   answers). Claims 1–4 are about those agents, not about LLMs; claim 5 quotes the paper.
# - **Data.** AR-Bench's data has no licence, so none of it is shipped. Our fixtures (100 secrets,
#   5 detective cases, 5 puzzles, `data/01_ar_bench/`) are our own, in the benchmark's schemas;
#   `load_arbench(path)` reads the benchmark's own `test.json` files if you have a copy (it
#   tolerates the missing `murderer` and `is_murderer` keys and string booleans of the real files).
#   The GN agents run on all 5,040 secrets rather than the benchmark's 100-secret test set. We
#   checked the loader once against the benchmark's own test files (commit `9971322`, not shipped):
#   it reads all three; in a minority of the real detective cases the three attribute fields alone
#   do not single out the murderer, so our DC simulator would not always be exact on them.
# - **Simulated answers.** In AR-Bench an LLM plays the suspects and judges yes/no questions and
#   key-question hits (a reviewer puts that judge's reliability at about 84 % at best). Our DC and SP
#   simulators answer exactly from the record's structure, so they test questioning strategy only.
#   The SP distractor questions and the rule that both questioners ask only answerable questions
#   are our modelling choices.
# - **Paper numbers.** The paper's result tables were not available offline, so claim 5 quotes the
#   abstract's finding and no per-model number. The optimum for bulls and cows (26,274/5,040
#   guesses, worst case 7) is a classical result credited to Tanaka (1996), not from AR-Bench; an
#   earlier version of this chapter credited it to Koyama and Lai (1993), who solved Mastermind
#   (mean 4.340).
# - **Criteria changed after their results were known** (a verdict audit found checks that could not
#   fail or did not test the paper's claim; each new criterion is derived from the claim, and its
#   verdict is what came out):
#   - *Claim 1.* Before: "active beats passive", with *passive* meaning $k$ random clues fixed in
#     advance (reproduced, smallest gap 0.564). The paper's *passive* means all information given at
#     once, which an exact reasoner solves by construction. Now: the paper's gap is claim 1,
#     `not checked at this scale` (it needs a model), and the old test is claim 1b, "adaptive beats
#     fixed questions", marked as our formulation.
#   - *Claim 2.* Before: "ignores-feedback accuracy ≤ 0.05" plus monotonicity within 2 SE
#     (reproduced). The first part could not fail (at most 25/5,040 secrets are solvable by chance)
#     and the second passes a flat curve. Now: monotonicity within 2 SE and a drop of at least 0.5
#     from full to no memory and from $p=0$ to the largest $p$, the paper's "breaks".
#   - *Claim 3.* Before: "0 < gain ≤ 10 %" (reproduced). The upper bound could not fail, since
#     optimal play itself gains under 10 % over consistent random. Now: gain > 0 for both search
#     agents, and the gain of optimal play over consistent random at most 10 % of its mean: the
#     "modest" part is a property of the game, stated as such.
#   - *Claim 4.* Before: the SP simulator answered "irrelevant" to a question whose premise was not
#     yet known, which only the random questioner ever asked, so it lost turns by construction; and
#     the DC process score, where the information-gain agent is worse, was left out (reproduced).
#     Now: both questioners ask only answerable questions, and the process score is part of the
#     criterion on both simulators.
# - **Not run.** The paper's post-training (SFT/DPO) and its ToT/UoT prompting need an LLM; our
#   lookahead and entropy agents are their algorithmic analogues.
#
# ## Run it at full scale
#
# ```bash
# .venv/bin/python -m repbook run 01 --scale full
# # or, directly with papermill:
# jupytext --to ipynb -o - notebooks/01_ar_bench.py | papermill - out.ipynb -p scale full -k python3
# ```
# Full scale uses 10 seeds, 5,040 games per ablation setting, a lookahead over the 16 best guesses,
# and ten times more detective and puzzle games. It needs no GPU: our full run took about a minute
# and a half on 2 shared CPU cores, with the same verdicts as the quick scale.
