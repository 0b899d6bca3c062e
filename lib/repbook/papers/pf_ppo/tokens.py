"""Full scale: a token-level transformer policy, PPO with a critic, GAE and a KL penalty
to the SFT policy, and the world a replicate builds for it."""

from __future__ import annotations

import zlib
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from repbook.core import checks

from .filters import PER_PROMPT, keep_count, select, verl_resample
from .policy import TrainTrace
from .reward import features
from .task import Bandit, MAX_LEN, MOD, Program, Task, VOCAB, _check_program, pass_rate


# ---------------------------------------------------------------------------------------------
# Full scale: a token-level transformer policy, PPO with a critic, GAE and KL to the SFT policy
# ---------------------------------------------------------------------------------------------
EOS = "<eos>"
PROMPT_TOKENS = tuple(f"a={i}" for i in range(MOD)) + tuple(
    f"b={i}" for i in range(MOD)
)
OUT_TOKENS: tuple[str, ...] = VOCAB + (EOS,)
"""What the policy emits: a program token or the end of the program."""
IN_TOKENS: tuple[str, ...] = ("<bos>",) + PROMPT_TOKENS + OUT_TOKENS
PROMPT_LEN = 3  # <bos> a=… b=…
MAX_NEW = MAX_LEN + 1  # up to 8 program tokens and the end token
_OUT_OFFSET = 1 + len(PROMPT_TOKENS)
_EOS_ID = len(OUT_TOKENS) - 1


def encode_prompts(tasks: Sequence[Task]) -> np.ndarray:
    """Token ids (P, 3) of `<bos> a=… b=…`."""
    return np.array([[0, 1 + t.a, 1 + MOD + t.b] for t in tasks], dtype=np.int64)


def encode_programs(programs: Sequence[Sequence[str]]) -> np.ndarray:
    """Action ids (B, MAX_NEW) into OUT_TOKENS: the program, then the end token repeated."""
    out = np.full((len(programs), MAX_NEW), _EOS_ID, dtype=np.int64)
    for i, prog in enumerate(programs):
        prog = _check_program(prog)
        if len(prog) > MAX_LEN:
            raise ValueError(f"program {prog} is longer than {MAX_LEN} tokens")
        out[i, : len(prog)] = [VOCAB.index(t) for t in prog]
    return out


def decode_actions(actions) -> list[Program]:
    """Programs from action ids: the tokens before the first end token."""
    out = []
    for row in np.asarray(actions):
        toks = []
        for a in row:
            if a == _EOS_ID:
                break
            toks.append(VOCAB[int(a)])
        out.append(tuple(toks))
    return out


def action_mask(actions) -> np.ndarray:
    """True for the emitted actions: every program token and the first end token."""
    a = np.asarray(actions)
    ended_before = np.cumsum(a == _EOS_ID, axis=1) - (a == _EOS_ID)
    return ended_before == 0


def make_tiny_lm(
    seed: int,
    *,
    d_model: int = 64,
    n_layers: int = 2,
    n_heads: int = 4,
    value_head: bool = False,
):
    """A causal transformer over IN_TOKENS with a head over OUT_TOKENS (and a scalar value head
    if `value_head`), initialised from `seed` without touching the global torch generator."""
    import torch
    from torch import nn

    class TinyLM(nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = nn.Embedding(len(IN_TOKENS), d_model)
            self.pos = nn.Embedding(PROMPT_LEN + MAX_NEW, d_model)
            layer = nn.TransformerEncoderLayer(
                d_model,
                n_heads,
                4 * d_model,
                dropout=0.0,
                batch_first=True,
                norm_first=True,
            )
            self.body = nn.TransformerEncoder(
                layer, n_layers, enable_nested_tensor=False
            )
            self.norm = nn.LayerNorm(d_model)
            self.head = nn.Linear(d_model, len(OUT_TOKENS))
            self.value = nn.Linear(d_model, 1) if value_head else None

        def forward(self, tokens):
            T = tokens.shape[1]
            pos = torch.arange(T, device=tokens.device)
            mask = torch.triu(
                torch.full((T, T), float("-inf"), device=tokens.device), 1
            )
            h = self.norm(
                self.body(self.embed(tokens) + self.pos(pos), mask=mask, is_causal=True)
            )
            values = self.value(h).squeeze(-1) if self.value is not None else None
            return self.head(h), values

    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(int(seed))
        return TinyLM()


def _sequences(prompts, actions):
    import torch

    return torch.cat([prompts, actions[:, :-1] + _OUT_OFFSET], dim=1)


def _action_logp(model, prompts, actions):
    """log π(action_j | prefix) for every action position, and the values there (or None)."""
    import torch

    logits, values = model(_sequences(prompts, actions))
    logits = logits[:, PROMPT_LEN - 1 :]
    logp = torch.log_softmax(logits, dim=-1).gather(-1, actions[..., None]).squeeze(-1)
    return logp, (values[:, PROMPT_LEN - 1 :] if values is not None else None)


def generate(model, prompts, generator, *, device: str = "cpu"):
    """Sample one program per prompt row (ids (B, 3)), token by token at temperature 1; the end
    token is forced after 8 program tokens. Uniform draws come from the CPU `generator`, so the
    samples are the same on any device. Returns action ids (B, MAX_NEW) on `device`."""
    import torch

    B = prompts.shape[0]
    actions = torch.full((B, MAX_NEW), _EOS_ID, dtype=torch.long, device=device)
    done = torch.zeros(B, dtype=torch.bool, device=device)
    with torch.no_grad():
        for j in range(MAX_NEW):
            if j == MAX_NEW - 1:
                break  # the last action is the end token
            seq = torch.cat([prompts, actions[:, :j] + _OUT_OFFSET], dim=1)
            probs = torch.softmax(model(seq)[0][:, -1].double(), dim=-1)
            u = torch.rand(B, 1, generator=generator, dtype=torch.float64).to(device)
            cum = probs.cumsum(-1)
            tok = torch.clamp((u * cum[:, -1:] >= cum).sum(-1), max=len(OUT_TOKENS) - 1)
            tok = torch.where(done, torch.full_like(tok, _EOS_ID), tok)
            actions[:, j] = tok
            done |= tok == _EOS_ID
    return actions


def sft_train(
    model,
    tasks: Sequence[Task],
    programs: Sequence[Sequence[Program]],
    *,
    steps: int,
    batch: int,
    lr: float,
    rng: np.random.Generator,
    device: str = "cpu",
) -> np.ndarray:
    """Supervised fine-tuning on (prompt, program) pairs drawn uniformly from each prompt's pool
    (cross-entropy on the program tokens and the end token). Returns the loss per step."""
    import torch

    if len(tasks) != len(programs):
        raise ValueError(
            f"tasks and programs must have the same length, got {len(tasks)} and "
            f"{len(programs)}"
        )
    prompts = torch.as_tensor(encode_prompts(tasks), device=device)
    flat = [(i, p) for i, pool in enumerate(programs) for p in pool]
    acts = torch.as_tensor(encode_programs([p for _, p in flat]), device=device)
    owner = torch.as_tensor([i for i, _ in flat], device=device)
    mask = torch.as_tensor(action_mask(acts.cpu().numpy()), device=device).float()
    model.to(device).train()
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    losses = []
    for _ in range(steps):
        pick = torch.as_tensor(rng.integers(len(flat), size=batch), device=device)
        logp, _ = _action_logp(model, prompts[owner[pick]], acts[pick])
        loss = -(logp * mask[pick]).sum() / mask[pick].sum()
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return np.array(losses)


def gae(rewards, values, mask, *, gamma: float = 1.0, lam: float = 0.95):
    """Generalised advantage estimation over the action positions (B, T) of finished sequences
    (the value after the last action is 0). Returns advantages and returns (torch tensors)."""
    import torch

    B, T = rewards.shape
    adv = torch.zeros_like(rewards)
    last = torch.zeros(B, dtype=rewards.dtype, device=rewards.device)
    values = values * mask
    for t in reversed(range(T)):
        nxt = values[:, t + 1] if t + 1 < T else torch.zeros_like(last)
        delta = rewards[:, t] + gamma * nxt - values[:, t]
        last = (delta + gamma * lam * last) * mask[:, t]
        adv[:, t] = last
    return adv, adv + values


@dataclass(frozen=True)
class TokenPPOConfig:
    """Token-level PPO settings, equal for every strategy (see `PPOConfig` for `prompts`)."""

    n_updates: int = 60
    prompts: int = 128
    minibatches: int = 4
    epochs: int = 1
    lr: float = 1e-4
    critic_lr: float = 5e-4
    clip: float = 0.2
    value_clip: float = 0.2
    kl_coef: float = 0.01
    gamma: float = 1.0
    lam: float = 0.95
    eval_every: int = 10
    eval_samples: int = 8
    power: float = 2.0

    def __post_init__(self):
        for name in (
            "n_updates",
            "prompts",
            "minibatches",
            "epochs",
            "eval_every",
            "eval_samples",
        ):
            v = getattr(self, name)
            checks.integer(name, v, at_least=1)
        if not 0 < self.clip < 1:
            raise ValueError(f"clip must lie in (0, 1), got {self.clip!r}")
        if not (self.lr > 0 and self.critic_lr > 0):
            raise ValueError("lr and critic_lr must be > 0")


class ProgramScorer:
    """Actual score and reward of (prompt index, program) pairs, cached: the verifier, and either
    the learned RM (weights `w`) or the homoscedastic RM (actual score + σ·ε, ε fixed per pair by a
    hash of the pair and `noise_seed`). Rewards are (raw − shift) / scale."""

    def __init__(
        self,
        tasks: Sequence[Task],
        *,
        w: np.ndarray | None = None,
        sigma: float | None = None,
        noise_seed: int = 0,
        shift: float = 0.0,
        scale: float = 1.0,
    ):
        if (w is None) == (sigma is None):
            raise ValueError("give either w (learned RM) or sigma (homoscedastic RM)")
        self.tasks, self.w, self.sigma, self.noise_seed = (
            tuple(tasks),
            w,
            sigma,
            noise_seed,
        )
        self.shift, self.scale = float(shift), float(scale)
        self._cache: dict[tuple[int, Program], tuple[float, float]] = {}

    def raw(self, i: int, program: Program) -> tuple[float, float]:
        key = (int(i), program)
        if key not in self._cache:
            task = self.tasks[key[0]]
            s = pass_rate(program, task)
            if self.w is not None:
                r = sum(
                    v * self.w[j]
                    for j, v in features(task, program, dim=self.w.size).items()
                )
            else:
                h = zlib.crc32(repr(key).encode())
                eps = np.random.default_rng([self.noise_seed, h]).standard_normal()
                r = s + self.sigma * eps
            self._cache[key] = (s, float(r))
        return self._cache[key]

    def __call__(self, idx, programs) -> tuple[np.ndarray, np.ndarray]:
        """Actual scores and standardised rewards, arrays of len(programs)."""
        pairs = [self.raw(i, p) for i, p in zip(idx, programs)]
        s = np.array([p[0] for p in pairs])
        r = (np.array([p[1] for p in pairs]) - self.shift) / self.scale
        return s, r


def sample_policy(
    model, tasks_idx, prompts_all, n: int, generator, *, device: str = "cpu"
):
    """N programs per prompt index from `model`: (programs list of P·n, action ids tensor)."""
    import torch

    idx = np.repeat(np.asarray(tasks_idx), n)
    prompts = prompts_all[torch.as_tensor(idx, device=device)]
    model.eval()
    acts = generate(model, prompts, generator, device=device)
    return idx, decode_actions(acts.cpu().numpy()), acts


def minibatch_count(kept: int, batch: int, minibatches: int) -> int:
    """How many optimiser steps an epoch takes on `kept` samples when an unfiltered batch of
    `batch` samples takes `minibatches`: the minibatch size is fixed (⌈batch / minibatches⌉, as
    the official trainer's fixed train batch size) and the steps scale with the samples kept,
    ⌈kept / size⌉ (at least 1)."""
    for name, v in (("kept", kept), ("batch", batch), ("minibatches", minibatches)):
        checks.integer(name, v, at_least=1)
    size = -(-int(batch) // int(minibatches))
    return max(1, -(-int(kept) // size))


def train_tokens(
    sft_model,
    scorer: ProgramScorer,
    strategy: str,
    n: int,
    config: TokenPPOConfig,
    rng: np.random.Generator,
    generator,
    *,
    device: str = "cpu",
    eval_idx=None,
) -> TrainTrace:
    """Token-level PPO with policy filtration from the SFT model (also the KL reference).

    Each update: `config.prompts` prompts (the same for every strategy), N samples each,
    rewards from `scorer` at the end token and a per-token KL penalty −β·log(π_old/π_ref), GAE
    (γ, λ) with a separate critic (a copy of the SFT body with a value head), per-prompt
    filtering (or verl's batch-level resampling after whitening), advantages normalised over
    the kept tokens, and per epoch clipped actor and critic steps (Adam, gradient norm 1) on
    minibatches of a fixed size, ⌈prompts·N / `minibatches`⌉ samples, so that the number of
    steps scales with the samples kept (`minibatch_count`), as in the official trainer. Every
    `eval_every` updates the policy samples `eval_samples` programs per evaluation prompt to
    estimate its actual score and reward.
    """
    import copy

    import torch

    keep_count(strategy, n)  # checks the strategy and n
    P = len(scorer.tasks)
    eval_idx = np.arange(P) if eval_idx is None else np.asarray(eval_idx)
    prompts_all = torch.as_tensor(encode_prompts(scorer.tasks), device=device)
    actor = copy.deepcopy(sft_model).to(device)
    ref = copy.deepcopy(sft_model).to(device).eval()
    critic = make_tiny_lm(
        int(rng.integers(2**31)),
        d_model=actor.embed.embedding_dim,
        n_layers=len(actor.body.layers),
        n_heads=actor.body.layers[0].self_attn.num_heads,
        value_head=True,
    )
    critic.load_state_dict(sft_model.state_dict(), strict=False)
    critic.to(device)
    opt_a = torch.optim.Adam(actor.parameters(), lr=config.lr)
    opt_c = torch.optim.Adam(critic.parameters(), lr=config.critic_lr)
    n_prompts = config.prompts
    stream, pos = rng.permutation(P), 0
    steps, trace_a, trace_r, trace_kl = [], [], [], []
    rollouts = trained = 0

    def evaluate(step):
        idx, progs, acts = sample_policy(
            actor, eval_idx, prompts_all, config.eval_samples, generator, device=device
        )
        s, r = scorer(idx, progs)
        with torch.no_grad():
            m = torch.as_tensor(action_mask(acts.cpu().numpy()), device=device).float()
            lp, _ = _action_logp(
                actor, prompts_all[torch.as_tensor(idx, device=device)], acts
            )
            lr_, _ = _action_logp(
                ref, prompts_all[torch.as_tensor(idx, device=device)], acts
            )
            kl = float(((lp - lr_) * m).sum(1).mean())
        steps.append(step)
        trace_a.append(float(s.mean()))
        trace_r.append(float(r.mean()))
        trace_kl.append(kl)
        return s.reshape(-1, config.eval_samples).mean(1), r.reshape(
            -1, config.eval_samples
        ).mean(1)

    evaluate(0)
    for u in range(config.n_updates):
        idx = np.empty(n_prompts, dtype=int)
        for j in range(n_prompts):
            if pos == P:
                stream, pos = rng.permutation(P), 0
            idx[j], pos = stream[pos], pos + 1
        rep, progs, acts = sample_policy(
            actor, idx, prompts_all, n, generator, device=device
        )
        rollouts += len(progs)
        _, r = scorer(rep, progs)
        pr = prompts_all[torch.as_tensor(rep, device=device)]
        mask = torch.as_tensor(action_mask(acts.cpu().numpy()), device=device).float()
        with torch.no_grad():
            lp_old, _ = _action_logp(actor, pr, acts)
            lp_ref, _ = _action_logp(ref, pr, acts)
            _, v_old = _action_logp(critic, pr, acts)
        last = mask.sum(1).long() - 1
        rew = -config.kl_coef * (lp_old - lp_ref) * mask
        rew[torch.arange(len(progs)), last] += torch.as_tensor(
            r, device=device, dtype=rew.dtype
        )
        adv, ret = gae(rew, v_old, mask, gamma=config.gamma, lam=config.lam)
        if strategy in PER_PROMPT:
            keep = np.flatnonzero(
                select(r.reshape(n_prompts, n), strategy, rng).ravel()
            )
            kt = torch.as_tensor(keep, device=device)
            m_k = mask[kt]
            a_k = adv[kt]
            mean = (a_k * m_k).sum() / m_k.sum()
            std = torch.sqrt((((a_k - mean) ** 2) * m_k).sum() / m_k.sum()).clamp(
                min=1e-8
            )
            a_k = (a_k - mean) / std
        else:
            mean = (adv * mask).sum() / mask.sum()
            std = torch.sqrt((((adv - mean) ** 2) * mask).sum() / mask.sum()).clamp(
                min=1e-8
            )
            whitened = (adv - mean) / std
            keep = verl_resample(r, strategy.split("-", 1)[1], rng, power=config.power)
            kt = torch.as_tensor(keep, device=device)
            m_k, a_k = mask[kt], whitened[kt]
        pr_k, acts_k, lp_k, v_k, ret_k = (
            pr[kt],
            acts[kt],
            lp_old[kt],
            v_old[kt],
            ret[kt],
        )
        actor.train()
        critic.train()
        trained += len(keep)
        n_chunks = minibatch_count(len(keep), n_prompts * n, config.minibatches)
        for _ in range(config.epochs):
            order = rng.permutation(len(keep))
            for chunk in np.array_split(order, n_chunks):
                if chunk.size == 0:
                    continue
                c = torch.as_tensor(chunk, device=device)
                mk = m_k[c]
                lp, _ = _action_logp(actor, pr_k[c], acts_k[c])
                ratio = torch.exp(lp - lp_k[c])
                surr = torch.minimum(
                    ratio * a_k[c],
                    ratio.clamp(1 - config.clip, 1 + config.clip) * a_k[c],
                )
                loss_a = -((surr * mk).sum(1) / mk.sum(1)).mean()
                opt_a.zero_grad()
                loss_a.backward()
                torch.nn.utils.clip_grad_norm_(actor.parameters(), 1.0)
                opt_a.step()
                _, v = _action_logp(critic, pr_k[c], acts_k[c])
                v_clip = v_k[c] + (v - v_k[c]).clamp(
                    -config.value_clip, config.value_clip
                )
                loss_v = torch.maximum((v - ret_k[c]) ** 2, (v_clip - ret_k[c]) ** 2)
                loss_v = 0.5 * ((loss_v * mk).sum(1) / mk.sum(1)).mean()
                opt_c.zero_grad()
                loss_v.backward()
                torch.nn.utils.clip_grad_norm_(critic.parameters(), 1.0)
                opt_c.step()
        if (u + 1) % config.eval_every == 0 and u + 1 < config.n_updates:
            evaluate(u + 1)
    fin_a, fin_r = evaluate(config.n_updates)
    return TrainTrace(
        np.array(trace_a),
        np.array(trace_r),
        np.array(trace_kl),
        fin_a,
        fin_r,
        None,
        rollouts,
        steps=np.array(steps),
        trained=trained,
    )


@dataclass(frozen=True)
class TokenWorld:
    """One replicate at full scale: the SFT model, its prompts, the two RMs as `ProgramScorer`s
    (rewards standardised over the SFT samples) and `n_samples` SFT samples per prompt with their
    standardised rewards under both RMs and actual scores, each (P, n_samples)."""

    sft: object
    prompts: object
    learned: ProgramScorer
    homoscedastic: ProgramScorer
    rewards: np.ndarray
    homo_rewards: np.ndarray
    scores: np.ndarray
    corr: float


def build_token_world(
    bandit: Bandit,
    w: np.ndarray,
    *,
    sft_steps: int,
    sft_batch: int,
    sft_lr: float,
    rng: np.random.Generator,
    generator,
    noise_seed: int,
    n_samples: int = 32,
    device: str = "cpu",
    model_kw: dict | None = None,
) -> TokenWorld:
    """SFT a tiny transformer on `bandit`'s pools, sample `n_samples` programs per prompt from it,
    and build the learned RM (weights `w`) and the homoscedastic RM whose correlation with the
    actual score on those samples matches the learned RM's. `model_kw` goes to `make_tiny_lm`."""
    import torch

    sft = make_tiny_lm(int(rng.integers(2**31)), **(model_kw or {})).to(device)
    sft_train(
        sft,
        bandit.tasks,
        bandit.programs,
        steps=sft_steps,
        batch=sft_batch,
        lr=sft_lr,
        rng=rng,
        device=device,
    )
    prompts = torch.as_tensor(encode_prompts(bandit.tasks), device=device)
    P = len(bandit.tasks)
    idx, progs, _ = sample_policy(
        sft, np.arange(P), prompts, n_samples, generator, device=device
    )
    S, raw = ProgramScorer(bandit.tasks, w=w)(idx, progs)
    corr = float(np.corrcoef(raw, S)[0, 1])
    if not 0 < corr < 1:
        raise ValueError(
            f"the learned RM's correlation with the actual score on the SFT "
            f"samples must lie in (0, 1) to match it, got {corr:.3f}"
        )
    sigma = float(np.sqrt(S.var() * (1 / corr**2 - 1)))
    homo_raw = ProgramScorer(bandit.tasks, sigma=sigma, noise_seed=noise_seed)(
        idx, progs
    )[1]
    learned = ProgramScorer(bandit.tasks, w=w, shift=raw.mean(), scale=raw.std())
    homo = ProgramScorer(
        bandit.tasks,
        sigma=sigma,
        noise_seed=noise_seed,
        shift=homo_raw.mean(),
        scale=homo_raw.std(),
    )
    shape = (P, n_samples)
    return TokenWorld(
        sft,
        prompts,
        learned,
        homo,
        learned(idx, progs)[1].reshape(shape),
        homo(idx, progs)[1].reshape(shape),
        S.reshape(shape),
        corr,
    )
