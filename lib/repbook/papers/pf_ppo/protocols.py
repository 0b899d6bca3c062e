"""The chapter's protocols: one replicate ("world"), its initial samples, training a filter,
and the statistics the claims read (pair accuracy by reward bin, the rank tests)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from repbook.core import checks

from .filters import _check_rewards
from .policy import PPOConfig, TrainTrace, train_bandit
from .reward import homoscedastic_rewards, reward_model_scores, train_reward_model
from .task import Bandit, make_bandit
from .tokens import TokenPPOConfig, build_token_world, sample_policy, train_tokens


# ---------------------------------------------------------------------------------------------
# The chapter's protocols: one replicate ("world"), its initial samples, training a filter, and
# the statistics the claims read
# ---------------------------------------------------------------------------------------------
def standardise(x, ref) -> np.ndarray:
    """(x − mean(ref)) / sd(ref): rewards standardised over a reference set of responses."""
    x, ref = np.asarray(x, dtype=float), np.asarray(ref, dtype=float)
    sd = ref.std()
    if not sd > 0:
        raise ValueError("ref must not be constant")
    return (x - ref.mean()) / sd


@dataclass(frozen=True)
class World:
    """One replicate: fresh prompts with their pools (`bandit`), the learned RM's weights `w`,
    the share of its training labels flipped, its correlation with the actual score on the
    initial policy's responses, the two RMs (`rm["learned"]`, `rm["homoscedastic"]`: (P, K)
    standardised rewards at quick scale, `ProgramScorer`s at full scale) and `initial[rm]` =
    (rewards, actual scores) of the initial policy's responses. Full scale adds the SFT model
    and the encoded prompts."""

    bandit: Bandit
    w: np.ndarray
    flipped: float
    corr: float
    rm: dict
    initial: dict
    sft: object = None
    prompts: object = None

    @property
    def tokens(self) -> bool:
        return self.sft is not None


def make_world(
    n_prompts: int,
    rng: np.random.Generator,
    *,
    rm_prompts: int,
    pairs: int,
    label_noise: float,
    pool: tuple[int, int, int] = (3, 21, 8),
    token: dict | None = None,
) -> World:
    """Build one replicate: `n_prompts` prompts and pools, an RM trained on `pairs` noisy pairs
    from `rm_prompts` *other* prompts, and the homoscedastic RM matched to its correlation.

    Quick scale (`token` None): the initial policy is uniform over each pool, so its responses
    are the pool; rewards are standardised over them. Full scale: `token` holds the keyword
    arguments of `build_token_world` besides the bandit, `w` and `rng` (sft_steps, sft_batch,
    sft_lr, generator, noise_seed, device, ...)."""
    n_correct, n_mutants, n_random = pool
    kw = dict(n_correct=n_correct, n_mutants=n_mutants, n_random=n_random)
    bandit = make_bandit(n_prompts, rng, **kw)
    rm_bandit = make_bandit(rm_prompts, rng, **kw)
    w, prefs = train_reward_model(rm_bandit, pairs, noise=label_noise, rng=rng)
    flipped = float(prefs.flipped.mean())
    if token is None:
        raw, S = reward_model_scores(bandit, w), bandit.scores
        learned = standardise(raw, raw)
        corr = float(np.corrcoef(learned.ravel(), S.ravel())[0, 1])
        homo = homoscedastic_rewards(S, corr, rng)
        homo = standardise(homo, homo)
        return World(
            bandit,
            w,
            flipped,
            corr,
            rm={"learned": learned, "homoscedastic": homo},
            initial={"learned": (learned, S), "homoscedastic": (homo, S)},
        )
    tw = build_token_world(bandit, w, rng=rng, **token)
    return World(
        bandit,
        w,
        flipped,
        tw.corr,
        rm={"learned": tw.learned, "homoscedastic": tw.homoscedastic},
        initial={
            "learned": (tw.rewards, tw.scores),
            "homoscedastic": (tw.homo_rewards, tw.scores),
        },
        sft=tw.sft,
        prompts=tw.prompts,
    )


def initial_samples(
    world: World,
    n: int,
    rng: np.random.Generator,
    *,
    rm: str = "learned",
    device: str = "cpu",
) -> tuple[np.ndarray, np.ndarray]:
    """Rewards and actual scores, each (P, n), of n fresh initial-policy responses per prompt:
    uniform draws from the pool at quick scale, samples of the SFT model at full scale."""
    if rm not in world.rm:
        raise ValueError(f"rm must be one of {sorted(world.rm)}, got {rm!r}")
    checks.integer("n", n, at_least=1)
    P, K = world.bandit.shape
    if not world.tokens:
        draws = rng.integers(K, size=(P, n))
        rows = np.arange(P)[:, None]
        return world.rm[rm][rows, draws], world.bandit.scores[rows, draws]
    import torch

    gen = torch.Generator().manual_seed(int(rng.integers(2**62)))
    idx, progs, _ = sample_policy(
        world.sft, np.arange(P), world.prompts, n, gen, device=device
    )
    S, R = world.rm[rm](idx, progs)
    return R.reshape(P, n), S.reshape(P, n)


def train_filter(
    world: World,
    rm: str,
    n: int,
    strategy: str,
    config,
    rng: np.random.Generator,
    *,
    generator=None,
    device: str = "cpu",
) -> TrainTrace:
    """Train one filter on one replicate against RM `rm`: `train_bandit` at quick scale (config a
    `PPOConfig`), `train_tokens` at full scale (a `TokenPPOConfig` and a torch `generator`)."""
    if rm not in world.rm:
        raise ValueError(f"rm must be one of {sorted(world.rm)}, got {rm!r}")
    if not world.tokens:
        if not isinstance(config, PPOConfig):
            raise TypeError(
                f"quick scale needs a PPOConfig, got {type(config).__name__}"
            )
        return train_bandit(world.rm[rm], world.bandit.scores, strategy, n, config, rng)
    if not isinstance(config, TokenPPOConfig):
        raise TypeError(
            f"full scale needs a TokenPPOConfig, got {type(config).__name__}"
        )
    if generator is None:
        raise ValueError("full scale samples with torch: pass generator")
    return train_tokens(
        world.sft, world.rm[rm], strategy, n, config, rng, generator, device=device
    )


def _pair_terms(rewards, scores):
    R, S = _check_rewards(rewards), _check_rewards(scores, "scores")
    if R.shape != S.shape:
        raise ValueError(
            f"rewards and scores must have the same shape, got {R.shape} and {S.shape}"
        )
    if R.shape[1] < 2:
        raise ValueError(
            f"pairs need at least 2 responses per prompt, got {R.shape[1]}"
        )
    i, j = np.triu_indices(R.shape[1], 1)
    dr, ds = R[:, i] - R[:, j], S[:, i] - S[:, j]
    credit = np.where(dr == 0, 0.5, (np.sign(dr) == np.sign(ds)).astype(float))
    return i, j, ds != 0, credit


def pair_accuracy(rewards, scores) -> float:
    """Pairwise accuracy of an RM: among pairs of responses to the same prompt (row) with
    different actual scores, the share the reward orders like the actual score (a tie in reward
    counts one half)."""
    _, _, keep, credit = _pair_terms(rewards, scores)
    if not keep.any():
        raise ValueError(
            "no pair of responses to one prompt has different actual scores"
        )
    return float(credit[keep].mean())


def pair_accuracy_by_bin(rewards, scores, n_bins: int = 10) -> dict[str, np.ndarray]:
    """RM reliability per reward bin, not tied to the bin's mean score: responses are split into
    `n_bins` equal-count bins of reward over all prompts (deciles by default, as
    `reliability_by_bin`), and each bin's accuracy is `pair_accuracy` over the pairs of responses
    to the same prompt that both lie in the bin and have different actual scores. Returns per bin
    the mean reward, the accuracy (NaN without pairs) and the number of pairs."""
    R, S = _check_rewards(rewards), _check_rewards(scores, "scores")
    i, j, keep, credit = _pair_terms(R, S)
    x = R.ravel()
    checks.integer("n_bins", n_bins, at_least=2, at_most=x.size)
    label = np.empty(x.size, dtype=int)
    order = np.argsort(x, kind="stable")
    for b, members in enumerate(np.array_split(order, n_bins)):
        label[members] = b
    label = label.reshape(R.shape)
    same = (label[:, i] == label[:, j]) & keep
    which = label[:, i][same]
    pairs = np.bincount(which, minlength=n_bins)
    right = np.bincount(which, weights=credit[same], minlength=n_bins)
    with np.errstate(invalid="ignore", divide="ignore"):
        acc = np.where(pairs > 0, right / np.maximum(pairs, 1), np.nan)
    reward = np.array([x[label.ravel() == b].mean() for b in range(n_bins)])
    return {"reward": reward, "accuracy": acc, "pairs": pairs}


def block_rank_test(
    xs: Sequence, ys: Sequence, rng: np.random.Generator, *, n_perm: int = 10_000
) -> tuple[float, float, np.ndarray]:
    """Pooled one-sided test that x and y are positively rank-correlated in every block.

    Each block (a replicate and N) holds one x and one y per item (a filter). The statistic is
    the mean over blocks of Spearman's ρ (ties get average ranks); under the null hypothesis
    the y's are exchangeable among the items of each block, so the p-value is the share of
    `n_perm` independent within-block permutations whose statistic reaches the observed one,
    counting the observed one: (1 + #{T* ≥ T}) / (1 + n_perm). Returns (mean ρ, p, ρ per
    block)."""
    from scipy.stats import rankdata

    if len(xs) != len(ys) or len(xs) == 0:
        raise ValueError(
            f"xs and ys must hold the same number ≥ 1 of blocks, got {len(xs)} and {len(ys)}"
        )
    checks.integer("n_perm", n_perm, at_least=1)
    rhos, nulls = [], np.zeros(n_perm)
    for x, y in zip(xs, ys):
        x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
        if x.shape != y.shape or x.ndim != 1 or x.size < 3:
            raise ValueError(
                f"each block needs x and y of the same length ≥ 3, got {x.shape}, {y.shape}"
            )
        if not (np.all(np.isfinite(x)) and np.all(np.isfinite(y))):
            raise ValueError("x and y must be finite")
        rx, ry = rankdata(x), rankdata(y)
        rx, ry = rx - rx.mean(), ry - ry.mean()
        denom = math.sqrt((rx @ rx) * (ry @ ry))
        if denom == 0:
            raise ValueError("a block's x or y is constant: ρ is undefined")
        rhos.append(float(rx @ ry / denom))
        perm = np.argsort(rng.random((n_perm, x.size)), axis=1)
        nulls += ry[perm] @ rx / denom
    rhos = np.array(rhos)
    stat = float(rhos.mean())
    nulls /= len(rhos)
    p = (1 + int(np.sum(nulls >= stat - 1e-12))) / (1 + n_perm)
    return stat, float(p), rhos


def filter_rank_test(xs: Sequence, ys: Sequence) -> tuple[float, float, np.ndarray]:
    """Filter-level one-sided test that x and y are positively rank-correlated across items.

    Each block (a replicate and N) holds one x and one y per item (a filter); the statistic is
    the mean over blocks of Spearman's ρ (average ranks for ties). The unit is the item: under
    the null hypothesis the items' labels are exchangeable, so one permutation of the items is
    applied to the y's of *every* block, and the p-value is exact over all m! orderings (the
    identity counted): #{T* ≥ T} / m!. Returns (mean ρ, p, ρ per block)."""
    import itertools

    from scipy.stats import rankdata

    if len(xs) != len(ys) or len(xs) == 0:
        raise ValueError(
            f"xs and ys must hold the same number ≥ 1 of blocks, got {len(xs)} and {len(ys)}"
        )
    X = [np.asarray(x, dtype=float) for x in xs]
    Y = [np.asarray(y, dtype=float) for y in ys]
    m = X[0].size
    if not 3 <= m <= 8:
        raise ValueError(f"exact enumeration needs 3 to 8 items per block, got {m}")
    rx_all, ry_all = [], []
    for x, y in zip(X, Y):
        if x.shape != (m,) or y.shape != (m,):
            raise ValueError(
                f"each block needs x and y of length {m}, got {x.shape}, {y.shape}"
            )
        if not (np.all(np.isfinite(x)) and np.all(np.isfinite(y))):
            raise ValueError("x and y must be finite")
        rx, ry = rankdata(x), rankdata(y)
        rx, ry = rx - rx.mean(), ry - ry.mean()
        denom = math.sqrt((rx @ rx) * (ry @ ry))
        if denom == 0:
            raise ValueError("a block's x or y is constant: ρ is undefined")
        rx_all.append(rx / denom)
        ry_all.append(ry)
    RX, RY = np.array(rx_all), np.array(ry_all)
    rhos = (RX * RY).sum(1)
    stat = float(rhos.mean())
    perms = np.array(list(itertools.permutations(range(m))))
    null = np.einsum("bi,pbi->p", RX, RY[:, perms].transpose(1, 0, 2)) / len(RX)
    p = float(np.mean(null >= stat - 1e-12))
    return stat, p, rhos
