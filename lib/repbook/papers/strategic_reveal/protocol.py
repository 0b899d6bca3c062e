"""The chapter's protocols: the learners run, one run as a record, and the three sweeps
(stars, the switch gadget, random DAGs), each returning one record per run."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from repbook.core import checks

from .instances import Instance, random_dag_instance, star_instance, switch_gadget
from .learners import (
    MODELS,
    Adversary,
    Learner,
    Trace,
    accept_once,
    aby_threshold,
    conservative,
    halving,
    halving_naive,
    kin_threshold,
    mistake_bound,
    positive_on_vs,
    proper,
    simulate,
)
from .memory import r_star

RNG_FOR = "a function from a stream number to a numpy Generator (e.g. run.child_rng)"


# --------------------------------------------------------------------------------------
# Protocols of the chapter: the learners run, one run as a record, the sweeps
# --------------------------------------------------------------------------------------
def learner_set(inst: Instance, model: str) -> list[Learner]:
    """The learners the chapter runs on `inst` under `model`: halving that ignores
    strategy, strategic halving, the ABY-style and k_in threshold rules, positive on the
    version space and a proper learner (six). Under "weighted", the rules that can be
    held are made conservative (the naive and "or" rules are left as they are), and a
    seventh, `accept_once`, which uses the agents' memory, is added last (so the
    streams of the first six are those of the revealed runs' learners)."""
    if model not in MODELS:
        raise ValueError(f"model must be one of {MODELS}, got {model!r}")
    base = [
        halving_naive(),
        halving(),
        aby_threshold(inst),
        kin_threshold(inst),
        positive_on_vs(),
        proper(),
    ]
    if model == "weighted":
        base = [L if L.rule in ("naive", "or") else conservative(L) for L in base]
        base.append(accept_once())
    return base


def play(
    inst: Instance,
    learner: Learner,
    model: str,
    gamma: float | None = None,
    *,
    horizon: int,
    rng: np.random.Generator,
    wait: int = 0,
    tag: str = "",
) -> tuple[Trace, dict]:
    """One run of `simulate` and its record: the claim `tag`, instance, model, γ,
    learner, mistakes, rounds, classifier changes, whether the horizon cut it (`capped`)
    and our mistake bound (None where we have none)."""
    tr = simulate(
        inst,
        learner,
        model=model,
        gamma=gamma,
        horizon=horizon,
        rng=rng,
        adversary=Adversary(wait=wait),
    )
    record = dict(
        claim=str(tag),
        instance=inst.name,
        model=model,
        gamma=gamma,
        learner=learner.name,
        mistakes=tr.mistakes,
        rounds=tr.rounds,
        updates=int(tr.changes.size),
        capped=tr.rounds == horizon and not tr.stopped_early,
        bound=mistake_bound(inst, learner, model, gamma),
    )
    return tr, record


def _check_settings(settings) -> list[tuple[str, float | None]]:
    out = []
    for s in settings:
        if not (isinstance(s, tuple) and len(s) == 2 and s[0] in MODELS):
            raise ValueError(
                f"settings: each must be (model, gamma) with model in {MODELS}, "
                f"got {s!r}"
            )
        model, gamma = s
        if model == "weighted":
            gamma = checks.number("gamma", gamma, at_least=0.0, below=1.0)
        elif gamma is not None:
            raise ValueError(f"settings: only 'weighted' takes a gamma, got {s!r}")
        out.append((model, gamma))
    if not out or len(out) > 10:
        raise ValueError(f"settings: give 1 to 10 (model, gamma) pairs, got {len(out)}")
    return out


def star_horizon(K: int, model: str, gamma: float | None, base: int) -> int:
    """The horizon of a star run: `base`, or under "weighted" long enough for K − 1
    classifier changes each held r*(γ) + 3 rounds, twice over:
    max(base, 2 (K + 1)(r*(γ) + 3))."""
    checks.integer("base", base, at_least=1)
    if model != "weighted":
        return int(base)
    return max(int(base), 2 * (int(K) + 1) * (r_star(gamma) + 3))


def star_sweep(
    Ks: Sequence[int],
    settings: Sequence[tuple[str, float | None]],
    *,
    horizon: int,
    rng_for,
    stream0: int = 0,
    tag: str = "1",
) -> list[dict]:
    """Every learner of `learner_set` on `star_instance(K)` for each K and each (model,
    γ) of `settings`, against the adaptive adversary. Run (i, s, j) (size, setting,
    learner) draws its tie-breaks from `rng_for(stream0 + 1000 i + 10 j + s)`; the
    horizon is `star_horizon(K, model, γ, horizon)`. Returns one record per run (see
    `play`) with K added."""
    checks.function("rng_for", rng_for, RNG_FOR)
    settings = _check_settings(settings)
    out = []
    for i, K in enumerate(Ks):
        inst = star_instance(K)
        for s, (model, gamma) in enumerate(settings):
            T = star_horizon(K, model, gamma, horizon)
            for j, L in enumerate(learner_set(inst, model)):
                stream = stream0 + 1000 * i + 10 * j + s
                _, rec = play(
                    inst, L, model, gamma, horizon=T, rng=rng_for(stream), tag=tag
                )
                out.append(dict(rec, K=int(K)))
    return out


SWITCH_LEARNERS = (
    "conservative (Alg. 2 analogue)",
    "monotone reduction (Alg. 3 analogue)",
)


def switch_sweep(
    units: int,
    gammas: Sequence[float],
    *,
    wait: int,
    rng_for,
    extra: int = 4000,
    stream0: int = 50_000,
    tag: str = "2",
) -> tuple[list[dict], dict]:
    """The switch gadget of `units` units under γ-Weighted for each γ, with the
    conservative proper learner (our Algorithm 2 analogue) and positive on the version
    space (our Algorithm 3 analogue, a classifier that only loses positives), and once
    revealed (Revealed-Std, proper learner). The adversary waits `wait` quiet rounds;
    runs last at most wait + extra rounds. Run (i, j) draws from
    `rng_for(stream0 + 10 i + j)`, the revealed run from `rng_for(stream0 + 9999)`.

    Returns (hidden records with `label` and `r_star` added, the revealed record)."""
    checks.function("rng_for", rng_for, RNG_FOR)
    gad = switch_gadget(units)
    rows = []
    for i, g in enumerate(gammas):
        pair = (conservative(proper()), positive_on_vs())
        for j, (label, L) in enumerate(zip(SWITCH_LEARNERS, pair)):
            _, rec = play(
                gad,
                L,
                "weighted",
                g,
                horizon=wait + extra,
                rng=rng_for(stream0 + 10 * i + j),
                wait=wait,
                tag=tag,
            )
            rows.append(dict(rec, label=label, r_star=r_star(g)))
    _, std = play(
        gad,
        proper(),
        "std",
        horizon=wait + extra,
        rng=rng_for(stream0 + 9999),
        wait=wait,
        tag=tag,
    )
    return rows, std


def dag_sweep(
    n: int,
    kins: Sequence[int],
    per_kin: int,
    n_hyp: int,
    p_pos: float,
    gammas: Sequence[float],
    *,
    horizon: int,
    rng_for,
    stream0: int = 100_000,
    tag: str = "3",
) -> list[dict]:
    """`per_kin` random DAG instances (`random_dag_instance`) for each k_in in `kins`;
    on each, every learner of `learner_set` under Revealed-Std, Revealed-Arb and
    γ-Weighted for each γ. Instance number q (from 1) is drawn from
    `rng_for(stream0 + 1000 q)`, its run (s, j) (setting, learner) from
    `rng_for(stream0 + 1000 q + 10 s + j)`. Returns one record per run with k_in, rep
    (the instance's index within its k_in) and k_out added."""
    checks.function("rng_for", rng_for, RNG_FOR)
    checks.integer("per_kin", per_kin, at_least=1)
    settings = _check_settings(
        [("std", None), ("arb", None)] + [("weighted", g) for g in gammas]
    )
    out, base = [], stream0
    for kin in kins:
        for rep in range(per_kin):
            base += 1000
            inst = random_dag_instance(n, kin, n_hyp, p_pos, rng_for(base))
            for s, (model, g) in enumerate(settings):
                for j, L in enumerate(learner_set(inst, model)):
                    _, rec = play(
                        inst,
                        L,
                        model,
                        g,
                        horizon=horizon,
                        rng=rng_for(base + 10 * s + j),
                        tag=tag,
                    )
                    out.append(dict(rec, k_in=int(kin), rep=rep, k_out=inst.k_out))
    return out
