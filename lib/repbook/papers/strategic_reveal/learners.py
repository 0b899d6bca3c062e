"""Learners (the decision-maker's rules), the adaptive adversary, one simulated run
(`simulate`) and the mistake bounds we derived for these learners."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from repbook.core import checks

from .instances import Instance
from .memory import _Memory, allowed_moves, r_star

MODELS = ("std", "arb", "weighted")
RULES = ("naive", "majority", "threshold", "or", "proper", "once")


# --------------------------------------------------------------------------------------
# Learners and the adversary
# --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Learner:
    """A decision-maker's rule, computed from its version space V (hypotheses consistent
    with what it observed, given that it knows the response model and its own past
    classifiers).

    rule: "naive" (halving that treats (v_t, y_t) as a plain example h*(v_t) = y_t:
    ignores strategy; restarts from H if V empties), "majority" (node-wise strict
    majority of V), "threshold" (accept v when at least |V|/m hypotheses of V accept
    it), "or" (accept v when any hypothesis of V does: positive on the version space),
    "proper" (commit one hypothesis of V; on a change, the one nearest in Hamming
    distance), "once" (accept once: in round 1 the "or" rule, from round 2 on the
    node-wise strict majority of V). conservative: in the γ-Weighted model, change the
    classifier only after a mistake made once it has been held r*(γ) rounds.
    """

    name: str
    rule: str
    m: int | None = None
    conservative: bool = False

    def __post_init__(self):
        if self.rule not in RULES:
            raise ValueError(f"rule must be one of {RULES}, got {self.rule!r}")
        if self.rule == "threshold" and (not isinstance(self.m, int) or self.m < 1):
            raise ValueError(
                f"m: the threshold rule needs an integer m ≥ 1, got {self.m!r}"
            )


def halving_naive() -> Learner:
    return Learner("halving (ignores strategy)", "naive")


def halving() -> Learner:
    return Learner("halving", "majority")


def aby_threshold(inst: Instance) -> Learner:
    """Accept nodes backed by ≥ 1/(k_out+1) of V: the Ahmadi–Blum–Yang (2023)-style
    rule."""
    return Learner("ABY threshold", "threshold", m=inst.k_out + 1)


def kin_threshold(inst: Instance) -> Learner:
    """Accept nodes backed by ≥ 1/(k_in·k_out+1) of V: our rule for arbitrary
    tie-breaking."""
    return Learner("k_in threshold", "threshold", m=inst.k_in * inst.k_out + 1)


def positive_on_vs() -> Learner:
    return Learner("positive on VS", "or")


def proper() -> Learner:
    return Learner("proper", "proper")


def accept_once() -> Learner:
    """Accept once, then halving: in round 1 accept every node some hypothesis of V
    accepts ("or"), from round 2 on the strict majority of V (strategic halving).

    Under γ-Weighted with γ > 0 the nodes accepted in round 1 keep a memory above every
    node never accepted, so agents on them stay put however the DM labels them later:
    the learner uses the agents' memory. On the star it makes at most two mistakes for
    every K (a false positive in round 1, then one false negative seen at the target's
    leaf)."""
    return Learner("accept once, then halving", "once")


def conservative(learner: Learner) -> Learner:
    """The same rule, changed only after a settled mistake (our reading of
    Algorithm 2)."""
    return Learner(f"{learner.name} (conservative)", learner.rule, learner.m, True)


@dataclass(frozen=True)
class Adversary:
    """Adaptive adversary. Each round it sees h_t (and the agents' memory), and picks an
    agent and a label that some hypothesis still consistent with all its past choices
    gives (so the sequence stays realisable), and the agent's move among the allowed
    ones.

    It forces a mistake whenever one is available (after round `wait`; before, it only
    plays quiet rounds). Among its options it keeps the most hypotheses consistent, then
    lets the DM learn the least; remaining ties are broken by `rng`. It stops when no
    mistake has been available for `patience` rounds in a row with an unchanged
    classifier (r*(γ) + 2 under γ-Weighted, 2 otherwise), or at the horizon.
    """

    wait: int = 0

    def __post_init__(self):
        checks.integer("wait", self.wait, at_least=0)


@dataclass(frozen=True, eq=False)
class Trace:
    """One run. Per round: agent x, label y, observed node v, mistake kind (0 none, 1
    false positive, 2 false negative); plus the rounds where the classifier changed and
    the final version spaces (the DM's and the adversary's). `stopped_early`: no mistake
    was left to force; `stalled`: the same uninformative mistake repeats to the horizon.
    """

    x: np.ndarray
    y: np.ndarray
    v: np.ndarray
    kind: np.ndarray
    changes: np.ndarray
    dm_version_space: np.ndarray
    consistent: np.ndarray
    stopped_early: bool
    model: str
    gamma: float | None
    learner: str = field(default="")
    stalled: bool = False

    @property
    def mistakes(self) -> int:
        return int((self.kind > 0).sum())

    @property
    def rounds(self) -> int:
        return int(self.x.size)


def _classifier(
    learner: Learner,
    H: np.ndarray,
    V: np.ndarray,
    prev: np.ndarray | None,
    committed: int | None,
) -> tuple[np.ndarray, int | None]:
    size = int(V.sum())
    if learner.rule == "proper":
        if committed is not None and V[committed]:
            return H[committed], committed
        idx = np.flatnonzero(V)
        if prev is None:
            j = int(idx[0])
        else:
            dist = (H[idx] != prev[None, :]).sum(1)
            j = int(idx[np.argmin(dist)])
        return H[j], j
    counts = H[V].sum(0)
    if learner.rule == "once":
        return (counts >= 1 if prev is None else counts * 2 > size), None
    if learner.rule in ("naive", "majority"):
        return counts * 2 > size, None
    if learner.rule == "threshold":
        return counts * learner.m >= size, None
    return counts >= 1, None


def _dm_update(
    learner: Learner, inst: Instance, V: np.ndarray, v: int, y: int, R: np.ndarray
) -> np.ndarray:
    """The DM's version space after observing (v, y), when agents could move along R."""
    if learner.rule == "naive":
        new = V & (inst.H[:, v] == bool(y))
        return new if new.any() else np.ones_like(V)
    origins = R[:, v]
    return V & (inst.F[:, origins] == bool(y)).any(1)


def _update_sizes(
    learner: Learner, inst: Instance, V: np.ndarray, Ri: np.ndarray
) -> np.ndarray:
    """sizes[v, y] = |V| after observing (v, y), for every node v and label y."""
    out = np.empty((inst.n, 2), dtype=np.int64)
    if learner.rule == "naive":
        cnt1 = inst.H[V].sum(0)
        for y, cnt in ((1, cnt1), (0, int(V.sum()) - cnt1)):
            out[:, y] = np.where(cnt > 0, cnt, inst.n_hyp)
        return out
    FV = inst.F[V].astype(np.int64)
    out[:, 1] = ((FV @ Ri) > 0).sum(0)
    out[:, 0] = (((1 - FV) @ Ri) > 0).sum(0)
    return out


def simulate(
    inst: Instance,
    learner: Learner,
    *,
    model: str,
    horizon: int,
    rng: np.random.Generator,
    gamma: float | None = None,
    adversary: Adversary = Adversary(),
) -> Trace:
    """Play `learner` against the adaptive `adversary` for at most `horizon` rounds.

    When a round changes nothing (a mistake that teaches neither side anything, with a
    settled classifier), every later round repeats it; the run is then completed to the
    horizon at once (`Trace.stalled`), which gives the same counts as playing those
    rounds.
    """
    if not isinstance(inst, Instance):
        raise TypeError(f"inst must be an Instance, got {type(inst).__name__}")
    if not isinstance(learner, Learner):
        raise TypeError(f"learner must be a Learner, got {type(learner).__name__}")
    if model not in MODELS:
        raise ValueError(f"model must be one of {MODELS}, got {model!r}")
    if model == "weighted":
        gamma = checks.number("gamma", gamma, at_least=0.0, below=1.0)
    elif gamma is not None:
        raise ValueError(
            f"gamma: only the 'weighted' model takes gamma, got "
            f"gamma={gamma!r} with model={model!r}"
        )
    checks.integer("horizon", horizon, at_least=1)
    checks.generator("rng", rng)
    if not isinstance(adversary, Adversary):
        raise TypeError(
            f"adversary must be an Adversary, got {type(adversary).__name__}"
        )

    n, adj, F = inst.n, inst.adj, inst.F
    rstar = r_star(gamma) if model == "weighted" else 0
    patience = rstar + 2 if model == "weighted" else 2
    ties = "std" if model == "std" else "arb"
    big = inst.n_hyp + 1
    V = np.ones(inst.n_hyp, dtype=bool)
    A = np.ones(inst.n_hyp, dtype=bool)
    c, committed = None, None
    s0, pending, last_change = 1, True, 0
    memory = _Memory(n, gamma) if model == "weighted" else None
    xs, ys, vs, kinds, changes = [], [], [], [], []
    quiet_streak, stopped, stalled = 0, False, False

    t = 0
    while t < horizon:
        t += 1
        if pending:
            new, committed = _classifier(learner, inst.H, V, c, committed)
            if c is None or not np.array_equal(new, c):
                if c is not None:
                    changes.append(t)
                    last_change = t
                c, s0 = new, t
        if model == "weighted":
            scores = memory.ranks()
        else:
            scores = c.astype(np.int64)
        R = allowed_moves(adj, scores, ties)

        n1 = F[A].sum(0)
        n0 = int(A.sum()) - n1
        neg, pos = R & ~c[None, :], R & c[None, :]
        fn = neg & (n1 > 0)[:, None]  # agent x, label 1, move v with c(v) = 0
        fp = pos & (n0 > 0)[:, None]  # agent x, label 0, move v with c(v) = 1
        any_mistake = bool(fn.any() or fp.any())
        if any_mistake and t > adversary.wait:
            masks = (fp, fn)
        else:
            masks = (neg & (n0 > 0)[:, None], pos & (n1 > 0)[:, None])
            if not (masks[0].any() or masks[1].any()):
                masks = (fp, fn)
        sizes = _update_sizes(learner, inst, V, R.astype(np.int64))
        best, picks = -1, []
        for y, mask in enumerate(masks):  # masks[y]: options with label y
            if not mask.any():
                continue
            cnt = n1 if y == 1 else n0
            score = np.where(mask, cnt[:, None] * big + sizes[None, :, y], -1)
            top = int(score.max())
            if top > best:
                best, picks = top, []
            if top == best:
                picks += [
                    (int(i), int(j), y) for i, j in zip(*np.nonzero(score == top))
                ]
        x, v, y = picks[int(rng.integers(len(picks)))] if len(picks) > 1 else picks[0]

        kind = 0 if bool(c[v]) == bool(y) else (1 if y == 0 else 2)
        xs.append(x), ys.append(y), vs.append(v), kinds.append(kind)
        A_new = A & (F[:, x] == bool(y))
        V_new = _dm_update(learner, inst, V, v, y, R)
        unchanged = np.array_equal(A_new, A) and np.array_equal(V_new, V)
        A, V = A_new, V_new

        if model == "weighted":
            memory.push(c)
            held = t - s0
            settled = held >= rstar or (s0 == 1 and held >= 1)
            pending = (not learner.conservative) or (kind > 0 and settled)
        else:
            pending = True

        # A mistake that changed nothing, with a classifier that will not change and
        # agents whose preferences are settled, repeats in every later round.
        steady = model != "weighted" or t - s0 >= rstar or (s0 == 1 and t >= 2)
        if kind > 0 and unchanged and steady and t > adversary.wait:
            nxt = _classifier(learner, inst.H, V, c, committed)[0] if pending else c
            if np.array_equal(nxt, c):
                rest = horizon - t
                xs += [x] * rest
                ys += [y] * rest
                vs += [v] * rest
                kinds += [kind] * rest
                stalled = True
                break

        # Before `wait`, a quiet round that changed nothing repeats until `wait`.
        if kind == 0 and unchanged and steady and t < adversary.wait:
            nxt = _classifier(learner, inst.H, V, c, committed)[0] if pending else c
            if np.array_equal(nxt, c):
                rest = min(adversary.wait, horizon) - t
                xs += [x] * rest
                ys += [y] * rest
                vs += [v] * rest
                kinds += [0] * rest
                if memory is not None:
                    memory.t += rest
                t += rest

        quiet_streak = 0 if any_mistake else quiet_streak + 1
        settled_run = quiet_streak >= patience and t - last_change >= patience
        if t > adversary.wait and settled_run:
            stopped = True
            break

    return Trace(
        np.array(xs),
        np.array(ys),
        np.array(vs),
        np.array(kinds),
        np.array(changes),
        V,
        A,
        stopped,
        model,
        gamma,
        learner.name,
        stalled,
    )


# --------------------------------------------------------------------------------------
# Mistake bounds we derived for these learners (not the paper's; see the chapter)
# --------------------------------------------------------------------------------------
def mistake_bound(
    inst: Instance, learner: Learner, model: str, gamma: float | None = None
) -> float | None:
    """An explicit worst-case mistake bound for `learner` under `model`, or None where
    we have none. With B(m) = ⌊ln|H| / −ln(1 − 1/m)⌋ and r = r*(γ):

    - threshold m ≥ k_out+1 under "std", or m ≥ k_in·k_out+1 under "std"/"arb": B(m);
      the conservative version with m ≥ k_in·k_out+1 under "weighted": 1 + (1 + r)·B(m);
    - "or" (positive on VS): |H| − 1 under "std"/"arb"; 2|H| − 1 under "weighted";
    - "proper": |H| − 1 under "std"/"arb"; conservative under "weighted": 1 + (1 +
      r)(|H| − 1).
    """
    if model not in MODELS:
        raise ValueError(f"model must be one of {MODELS}, got {model!r}")
    if model == "weighted":
        gamma = checks.number("gamma", gamma, at_least=0.0, below=1.0)
    size, kin, kout = inst.n_hyp, inst.k_in, inst.k_out
    if learner.rule == "threshold":
        m = learner.m
        need = kout + 1 if model == "std" else kin * kout + 1
        if m < need or m < 2:
            return None
        base = math.floor(math.log(size) / -math.log1p(-1.0 / m) + 1e-12)
        if model != "weighted":
            return float(base)
        return float(1 + (1 + r_star(gamma)) * base) if learner.conservative else None
    if learner.rule == "or":
        return float(size - 1) if model != "weighted" else float(2 * size - 1)
    if learner.rule == "proper":
        if model != "weighted":
            return float(size - 1)
        if not learner.conservative:
            return None
        return float(1 + (1 + r_star(gamma)) * (size - 1))
    return None
