"""Quick scale's policy: PPO-clip with a KL penalty and a tabular critic on a categorical
policy over each prompt's candidate pool."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from repbook.core import checks

from .filters import PER_PROMPT, _check_rewards, keep_count, select, verl_resample


# ---------------------------------------------------------------------------------------------
# PPO-clip on a categorical policy over the candidate pool
# ---------------------------------------------------------------------------------------------
def ppo_clip_loss(logp, logp_old, advantages, *, clip: float = 0.2) -> np.ndarray:
    """Per-sample PPO-clip loss −min(ρ·A, clip(ρ, 1−ε, 1+ε)·A) with ρ = exp(logp − logp_old)."""
    logp, logp_old, adv = (
        np.asarray(v, dtype=float) for v in (logp, logp_old, advantages)
    )
    if not (logp.shape == logp_old.shape == adv.shape):
        raise ValueError(
            f"logp, logp_old and advantages must have the same shape, got "
            f"{logp.shape}, {logp_old.shape}, {adv.shape}"
        )
    if not 0 < clip < 1:
        raise ValueError(f"clip must lie in (0, 1), got {clip!r}")
    ratio = np.exp(logp - logp_old)
    return -np.minimum(ratio * adv, np.clip(ratio, 1 - clip, 1 + clip) * adv)


def ppo_clip_grad(logp, logp_old, advantages, *, clip: float = 0.2) -> np.ndarray:
    """d(−loss)/d(logp) per sample: ρ·A where the unclipped term is the minimum, else 0."""
    logp, logp_old, adv = (
        np.asarray(v, dtype=float) for v in (logp, logp_old, advantages)
    )
    ratio = np.exp(logp - logp_old)
    active = ((adv >= 0) & (ratio < 1 + clip)) | ((adv < 0) & (ratio > 1 - clip))
    return np.where(active, ratio * adv, 0.0)


@dataclass(frozen=True)
class PPOConfig:
    """PPO settings, equal for every strategy.

    `prompts` rollout prompts per update, the same for every strategy, as the official filter
    code keeps its rollout batch: each prompt gets N responses and a strategy keeping k of them
    trains on k·prompts samples (filtering costs gradient samples, not updates: every prompt is
    visited as often under every filter). `lr` is the step on the logits per sample (summed
    loss, so a sample weighs the same under every filter); `kl_coef` penalises log(π/π_ref) of
    the sampled response in the reward, as OpenRLHF does; `value_lr` is the tabular critic's
    step."""

    n_updates: int = 60
    prompts: int = 100
    minibatches: int = 4
    epochs: int = 1
    lr: float = 0.2
    clip: float = 0.2
    kl_coef: float = 0.01
    value_lr: float = 0.5
    power: float = 2.0

    def __post_init__(self):
        for name in ("n_updates", "prompts", "minibatches", "epochs"):
            v = getattr(self, name)
            checks.integer(name, v, at_least=1)
        for name in ("lr", "value_lr"):
            if not getattr(self, name) > 0:
                raise ValueError(f"{name} must be > 0, got {getattr(self, name)!r}")
        if not 0 < self.clip < 1:
            raise ValueError(f"clip must lie in (0, 1), got {self.clip!r}")
        if not self.kl_coef >= 0:
            raise ValueError(f"kl_coef must be ≥ 0, got {self.kl_coef!r}")


@dataclass(frozen=True)
class TrainTrace:
    """Expected actual score, expected RM reward and KL(π‖π_ref) of the policy after each update
    (index 0 = initial policy), averaged over prompts; the final policy's expected actual score
    and RM reward per prompt; the final probabilities (P, K) (None for a token-level policy); and
    the number of responses rolled out; `trained`, the number of samples the actor trained on,
    summed over updates (keep count × prompts × updates for a per-prompt filter)."""

    actual: np.ndarray
    reward: np.ndarray
    kl: np.ndarray
    final_actual: np.ndarray
    final_reward: np.ndarray
    probs: np.ndarray | None
    rollouts: int
    steps: np.ndarray | None = (
        None  # update index of each recorded point (None: every update)
    )
    trained: int = 0


def _softmax(z: np.ndarray) -> np.ndarray:
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def sample_responses(probs: np.ndarray, n: int, rng: np.random.Generator) -> np.ndarray:
    """N responses per row of `probs` (rows sum to 1), by inverse CDF: indices (rows, n)."""
    cum = np.cumsum(probs, axis=1)
    u = rng.random((probs.shape[0], n)) * cum[:, -1:]
    idx = (u[:, :, None] >= cum[:, None, :]).sum(axis=2)
    return np.minimum(idx, probs.shape[1] - 1)


def train_bandit(
    rewards,
    scores,
    strategy: str,
    n: int,
    config: PPOConfig,
    rng: np.random.Generator,
    *,
    init_logits=None,
) -> TrainTrace:
    """PPO with policy filtration on a categorical policy over each prompt's candidate pool.

    Each update: draw `config.prompts` prompts (cycling through a shuffled order; the same number
    for every strategy, so every prompt is updated as often under every filter), sample N responses per
    prompt from the current policy, score them with the RM (`rewards`, (P, K)), subtract the KL
    penalty, take advantages against a tabular critic V(prompt), filter (per prompt, or verl's
    batch-level resampling), normalise the advantages over the batch, train the critic on the kept
    samples and take `epochs` × `minibatches` PPO-clip steps on the logits. `scores` (the actual
    pass rates) are only read to report the expected actual score; the learner never sees them.
    """
    R, S = _check_rewards(rewards), _check_rewards(scores, "scores")
    if R.shape != S.shape:
        raise ValueError(
            f"rewards and scores must have the same shape, got {R.shape} and {S.shape}"
        )
    keep_count(strategy, n)  # checks the strategy and n
    P, K = R.shape
    if K < 2:
        raise ValueError(f"the pool needs at least 2 candidates, got {K}")
    theta = (
        np.zeros((P, K))
        if init_logits is None
        else np.array(init_logits, dtype=float, copy=True)
    )
    if theta.shape != (P, K):
        raise ValueError(f"init_logits must have shape {(P, K)}, got {theta.shape}")
    log_ref = np.log(_softmax(theta))
    V = np.zeros(P)
    n_prompts = config.prompts
    stream, pos = rng.permutation(P), 0
    trace_a, trace_r, trace_kl = [], [], []
    rollouts = trained = 0

    def record():
        pi = _softmax(theta)
        trace_a.append(float((pi * S).sum(1).mean()))
        trace_r.append(float((pi * R).sum(1).mean()))
        trace_kl.append(float((pi * (np.log(pi) - log_ref)).sum(1).mean()))

    record()
    for _ in range(config.n_updates):
        idx = np.empty(n_prompts, dtype=int)
        for j in range(n_prompts):
            if pos == P:
                stream, pos = rng.permutation(P), 0
            idx[j], pos = stream[pos], pos + 1
        pi = _softmax(theta[idx])
        draws = sample_responses(pi, n, rng)
        rollouts += draws.size
        logp_old = np.log(np.take_along_axis(pi, draws, axis=1))
        r = R[idx[:, None], draws]
        r_kl = r - config.kl_coef * (logp_old - log_ref[idx[:, None], draws])
        adv = r_kl - V[idx][:, None]
        prompts = np.repeat(idx[:, None], n, axis=1)
        if strategy in PER_PROMPT:
            mask = select(r, strategy, rng)
            sel_p, sel_a = prompts[mask], draws[mask]
            sel_adv, sel_lp, sel_ret = adv[mask], logp_old[mask], r_kl[mask]
            sel_adv = (sel_adv - sel_adv.mean()) / max(sel_adv.std(), 1e-8)
        else:  # verl: advantages whitened over the whole batch, then resampled
            flat_adv = adv.ravel()
            flat_adv = (flat_adv - flat_adv.mean()) / max(flat_adv.std(), 1e-8)
            pick = verl_resample(
                r.ravel(), strategy.split("-", 1)[1], rng, power=config.power
            )
            sel_p, sel_a = prompts.ravel()[pick], draws.ravel()[pick]
            sel_adv, sel_lp, sel_ret = (
                flat_adv[pick],
                logp_old.ravel()[pick],
                r_kl.ravel()[pick],
            )
        # critic: move V(prompt) toward the mean return of its kept samples
        total = np.zeros(P)
        count = np.zeros(P)
        np.add.at(total, sel_p, sel_ret)
        np.add.at(count, sel_p, 1.0)
        seen = count > 0
        V[seen] += config.value_lr * (total[seen] / count[seen] - V[seen])
        # actor: PPO-clip steps
        m = sel_p.size
        trained += m
        for _ in range(config.epochs):
            order = rng.permutation(m)
            for chunk in np.array_split(order, config.minibatches):
                if chunk.size == 0:
                    continue
                p, a = sel_p[chunk], sel_a[chunk]
                pi_now = _softmax(theta[p])
                lp = np.log(pi_now[np.arange(p.size), a])
                g = ppo_clip_grad(lp, sel_lp[chunk], sel_adv[chunk], clip=config.clip)
                step = -pi_now * g[:, None]
                step[np.arange(p.size), a] += g
                np.add.at(theta, p, config.lr * step)
        record()
    pi = _softmax(theta)
    return TrainTrace(
        np.array(trace_a),
        np.array(trace_r),
        np.array(trace_kl),
        (pi * S).sum(1),
        (pi * R).sum(1),
        pi,
        rollouts,
        trained=trained,
    )
