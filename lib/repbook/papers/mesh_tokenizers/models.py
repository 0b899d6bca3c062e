"""Next-token models: a tiny causal transformer (full scale) and a count-based n-gram
(quick scale), scored by held-out bits per face."""

from __future__ import annotations

import math

import numpy as np

from repbook.core import checks


# ---------------------------------------------------------------------------------------------
# a tiny autoregressive transformer (full scale: does PTME track learnability?)
def _causal_lm(vocab: int, *, d_model: int, n_layers: int, n_heads: int, context: int):
    """A small pre-norm causal transformer over `vocab` tokens plus one start token (id `vocab`)."""
    import torch
    from torch import nn

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln1, self.ln2 = nn.LayerNorm(d_model), nn.LayerNorm(d_model)
            self.att = nn.MultiheadAttention(d_model, n_heads, batch_first=True)
            self.mlp = nn.Sequential(
                nn.Linear(d_model, 4 * d_model),
                nn.GELU(),
                nn.Linear(4 * d_model, d_model),
            )

        def forward(self, x, mask):
            h = self.ln1(x)
            x = x + self.att(h, h, h, attn_mask=mask, need_weights=False)[0]
            return x + self.mlp(self.ln2(x))

    class LM(nn.Module):
        def __init__(self):
            super().__init__()
            self.tok = nn.Embedding(vocab + 1, d_model)
            self.pos = nn.Embedding(context + 1, d_model)
            self.blocks = nn.ModuleList(Block() for _ in range(n_layers))
            self.ln = nn.LayerNorm(d_model)
            self.head = nn.Linear(d_model, vocab + 1)

        def forward(self, idx):
            n = idx.shape[1]
            mask = torch.triu(torch.ones(n, n, dtype=torch.bool, device=idx.device), 1)
            x = self.tok(idx) + self.pos(torch.arange(n, device=idx.device))
            for blk in self.blocks:
                x = blk(x, mask)
            return self.head(self.ln(x))

    return LM()


def _seeded_lm(vocab, generator, device, **arch):
    """`_causal_lm` initialised from `generator` (not from global state), on `device`."""
    import torch

    init_seed = int(torch.randint(0, 2**31 - 1, (1,), generator=generator))
    devices = (
        [torch.device(device).index or 0] if str(device).startswith("cuda") else []
    )
    with torch.random.fork_rng(devices=devices):
        torch.manual_seed(init_seed)
        return _causal_lm(vocab, **arch).to(device)


def lm_bits_per_face(
    train,
    test,
    test_faces,
    *,
    vocab: int,
    generator,
    device: str = "cpu",
    d_model: int = 128,
    n_layers: int = 2,
    n_heads: int = 4,
    context: int = 512,
    steps: int = 2000,
    batch: int = 32,
    lr: float = 1e-3,
) -> dict:
    """Train a small causal transformer on token sequences and return held-out bits per token and per
    face (test sequences cut into windows of `context` tokens, each window predicted from its own
    start; the first token of every window is scored from an extra start-of-window token), and
    `sequence_bits`, the bits of each test sequence.
    """
    import torch
    from torch import nn

    if not train or not test:
        raise ValueError("train and test must be non-empty lists of sequences")
    bos = vocab
    stream = torch.as_tensor(
        np.concatenate([np.concatenate([[bos], s]) for s in train]), dtype=torch.long
    )
    if stream.numel() <= context + 1:
        raise ValueError(
            f"the training corpus ({stream.numel()} tokens) must be longer than the "
            f"context ({context}) + 1"
        )
    arch = dict(d_model=d_model, n_layers=n_layers, n_heads=n_heads, context=context)
    model = _seeded_lm(vocab, generator, device, **arch)
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.01)
    sched = torch.optim.lr_scheduler.OneCycleLR(
        opt, max_lr=lr, total_steps=steps, pct_start=0.1
    )
    model.train()
    for _ in range(steps):
        starts = torch.randint(
            0, stream.numel() - context - 1, (batch,), generator=generator
        )
        xb = torch.stack([stream[s : s + context + 1] for s in starts.tolist()]).to(
            device
        )
        loss = nn.functional.cross_entropy(
            model(xb[:, :-1]).reshape(-1, vocab + 1), xb[:, 1:].reshape(-1)
        )
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
    model.eval()
    seq_nats, total_tokens = [], 0
    with torch.no_grad():
        for s in test:
            s = torch.as_tensor(np.asarray(s), dtype=torch.long)
            nats = 0.0
            for i in range(0, s.numel(), context):
                w = s[i : i + context]
                x = torch.cat([torch.tensor([bos]), w]).unsqueeze(0).to(device)
                logits = model(x[:, :-1])
                nats += float(
                    nn.functional.cross_entropy(
                        logits.reshape(-1, vocab + 1),
                        x[:, 1:].reshape(-1),
                        reduction="sum",
                    )
                )
                total_tokens += w.numel()
            seq_nats.append(nats)
    sequence_bits = np.asarray(seq_nats) / math.log(2)
    bits = float(sequence_bits.sum())
    return {
        "bits_per_token": bits / total_tokens,
        "bits_per_face": bits / float(np.sum(test_faces)),
        "final_train_loss": float(loss.detach()),
        "sequence_bits": sequence_bits,
    }


def lm_step_seconds(
    *,
    vocab: int,
    generator,
    device: str = "cpu",
    d_model: int = 128,
    n_layers: int = 2,
    n_heads: int = 4,
    context: int = 512,
    batch: int = 32,
    lr: float = 1e-3,
    repeats: int = 2,
    **unused,
) -> float:
    """Wall seconds of one training step of `lm_bits_per_face`'s transformer with these settings
    (random tokens; one untimed warm-up step, then the mean over `repeats` steps): a timing probe
    for estimating a full-scale run. Extra keys of an `lm` settings dict (its `steps` count)
    are accepted and ignored."""
    import time

    import torch
    from torch import nn

    checks.integer("repeats", repeats, at_least=1)
    unknown = sorted(set(unused) - {"steps"})
    if unknown:
        raise TypeError(f"lm_step_seconds got unexpected settings {unknown}")
    arch = dict(d_model=d_model, n_layers=n_layers, n_heads=n_heads, context=context)
    model = _seeded_lm(vocab, generator, device, **arch)
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.01)
    times = []
    for k in range(repeats + 1):
        xb = torch.randint(0, vocab, (batch, context + 1), generator=generator).to(
            device
        )
        t0 = time.perf_counter()
        loss = nn.functional.cross_entropy(
            model(xb[:, :-1]).reshape(-1, vocab + 1), xb[:, 1:].reshape(-1)
        )
        opt.zero_grad()
        loss.backward()
        opt.step()
        if str(device).startswith("cuda"):
            torch.cuda.synchronize()
        if k:
            times.append(time.perf_counter() - t0)
    return float(np.mean(times))


# ----------------------------------------------------------------------------------------------
# a count-based next-token model: held-out bits per face without training a network
def ngram_bits_per_face(
    train, test, test_faces, *, vocab: int, order: int = 3, discount: float = 0.75
) -> dict:
    """Held-out bits per token and per face of an interpolated absolute-discounting n-gram model.

    P_k(w | last k−1 tokens) = max(c(ctx, w) − d, 0) / c(ctx) + d · T(ctx) / c(ctx) · P_{k−1}(w),
    with T(ctx) the number of distinct tokens seen after ctx, falling back to P_{k−1} for an unseen
    context; P_0 is uniform over the `vocab` tokens. Each sequence starts from `order − 1` start
    symbols. Trained on `train`, scored on `test` (lists of int token arrays); `test_faces` is the
    number of faces per test sequence (or their total). `order=1` is a unigram fitted on `train`
    (discounted towards the uniform). Returns bits per token and per face, the number of test
    tokens and `sequence_bits`, the bits of each test sequence.
    """
    checks.integer("order", order, at_least=1)
    if not 0 < discount < 1:
        raise ValueError(f"discount must lie in (0, 1), got {discount!r}")
    if isinstance(vocab, bool) or not isinstance(vocab, (int, np.integer)) or vocab < 2:
        raise ValueError(f"vocab must be an int ≥ 2, got {vocab!r}")
    if not train or not test:
        raise ValueError("train and test must be non-empty lists of token sequences")
    base = int(vocab) + 1  # token ids 0..vocab−1 and the start symbol `vocab`
    if base**order >= 2**62:
        raise ValueError(
            f"vocab {vocab} and order {order} do not fit 64-bit context keys"
        )

    def contexts(seqs):
        """(target, context key of length j for j = 0..order−1) for every position."""
        tgt, ctx = [], [[] for _ in range(order)]
        for q in seqs:
            q = np.asarray(q, dtype=np.int64)
            if q.ndim != 1 or (q.size and (q.min() < 0 or q.max() >= vocab)):
                raise ValueError(f"token ids must be a 1-D array in [0, {vocab})")
            padded = np.concatenate([np.full(order - 1, vocab, dtype=np.int64), q])
            tgt.append(q)
            key = np.zeros(q.size, dtype=np.int64)
            ctx[0].append(key.copy())
            for j in range(1, order):  # context of the last j tokens
                key = key * base + padded[order - 1 - j : order - 1 - j + q.size]
                ctx[j].append(key.copy())
        return np.concatenate(tgt), [np.concatenate(c) for c in ctx]

    t_tr, c_tr = contexts(train)
    t_te, c_te = contexts(test)
    prob = np.full(t_te.size, 1.0 / vocab)  # P_0: uniform
    for j in range(order):  # j = context length: unigram, bigram, ...
        pair = c_tr[j] * base + t_tr
        pair_keys, pair_counts = np.unique(pair, return_counts=True)
        ctx_keys, ctx_counts = np.unique(c_tr[j], return_counts=True)
        distinct_ctx, distinct_counts = np.unique(pair_keys // base, return_counts=True)
        assert np.array_equal(distinct_ctx, ctx_keys)

        def lookup(keys, table, values):
            i = np.clip(np.searchsorted(table, keys), 0, len(table) - 1)
            return np.where(table[i] == keys, values[i], 0)

        c_pair = lookup(c_te[j] * base + t_te, pair_keys, pair_counts).astype(float)
        c_ctx = lookup(c_te[j], ctx_keys, ctx_counts).astype(float)
        n_types = lookup(c_te[j], ctx_keys, distinct_counts).astype(float)
        seen = c_ctx > 0
        safe = np.where(seen, c_ctx, 1.0)
        higher = (
            np.maximum(c_pair - discount, 0) / safe + discount * n_types / safe * prob
        )
        prob = np.where(seen, higher, prob)
    token_bits = -np.log2(prob)
    bits = float(token_bits.sum())
    faces = float(np.sum(test_faces))
    if faces <= 0:
        raise ValueError("test_faces must add up to a positive number of faces")
    which = np.repeat(np.arange(len(test)), [np.asarray(q).size for q in test])
    return {
        "bits_per_token": bits / t_te.size,
        "bits_per_face": bits / faces,
        "tokens": int(t_te.size),
        "sequence_bits": np.bincount(which, weights=token_bits, minlength=len(test)),
    }
