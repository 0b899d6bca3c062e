"""Training and evaluation: `fit` (Adam, cosine decay, the epoch selected on the OOD
validation split as the released loop does), `predict` and `mae`, the causal attention
(`attention_by_part`, `node_attention`), and `train_methods`, which trains several
`Method`s on one seed's splits from the same initial weights and batches.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np
import torch
from torch import Tensor, nn

from repbook.core import checks

from .data import SPLITS, GraphBatch, GraphSet
from .models import MODELS, CausalGIN, make_model


# --------------------------------------------------------------------------------------
# training and evaluation
@dataclass(frozen=True)
class Fit:
    """A trained model at its selected epoch (best OOD-validation MAE after
    `select_after`)."""

    model: nn.Module
    best_epoch: int
    val_mae: np.ndarray  # per epoch, 1-based epochs at index epoch − 1


def predict(model: nn.Module, data) -> Tensor:
    """Eval-mode predictions (CGR: causal head only), without gradients."""
    model.eval()
    with torch.no_grad():
        return model.predict(data)


def mae(model: nn.Module, data) -> float:
    """Mean absolute error of `predict` on a batch."""
    return float((predict(model, data) - data.y.view(-1)).abs().mean())


def fit(
    model: nn.Module,
    objective: Callable,
    batches: Callable[[int], Iterable],
    val,
    *,
    epochs: int,
    lr: float = 1e-3,
    min_lr: float = 1e-8,
    select_after: int = 10,
) -> Fit:
    """Adam with cosine annealing from `lr` to `min_lr` over `epochs`; `batches(epoch)`
    yields the epoch's training batches; `objective(model_output, y)` is the loss. After
    each epoch the MAE on `val` (one batch) is recorded; the returned model carries the
    weights of the best epoch among epochs > `select_after` (as the released training
    loop selects)."""
    epochs = checks.integer("epochs", epochs, at_least=1)
    select_after = checks.integer("select_after", select_after, at_least=0)
    if select_after >= epochs:
        raise ValueError(
            f"select_after ({select_after}) must be below epochs ({epochs})"
        )
    checks.number("lr", lr, above=0)
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(
        opt, T_max=epochs, eta_min=min_lr
    )
    val_curve, best, best_epoch = [], math.inf, -1
    best_state = None
    for epoch in range(1, epochs + 1):
        model.train()
        for data in batches(epoch):
            opt.zero_grad()
            loss = objective(model(data), data.y.view(-1).float())
            loss.backward()
            opt.step()
        sched.step()
        v = mae(model, val)
        val_curve.append(v)
        if epoch > select_after and v < best:
            best, best_epoch = v, epoch
            best_state = copy.deepcopy(model.state_dict())
    model.load_state_dict(best_state)
    model.eval()
    return Fit(model=model, best_epoch=best_epoch, val_mae=np.array(val_curve))


def attention_by_part(model: CausalGIN, data: GraphBatch) -> dict[str, float]:
    """Mean causal node attention a_o on the causal-cycle nodes and on the base
    nodes."""
    if not isinstance(model, CausalGIN):
        raise TypeError(f"model must be a CausalGIN, got {type(model).__name__}")
    model.eval()
    with torch.no_grad():
        _, a, _ = model._split(data)
    a_o = a[:, 1]
    return {
        "cycle": float(a_o[data.causal].mean()),
        "base": float(a_o[~data.causal].mean()),
    }


def node_attention(model: CausalGIN, data: GraphBatch) -> Tensor:
    """a_o for every node of the batch (eval mode)."""
    if not isinstance(model, CausalGIN):
        raise TypeError(f"model must be a CausalGIN, got {type(model).__name__}")
    model.eval()
    with torch.no_grad():
        return model._split(data)[1][:, 1]


# --------------------------------------------------------------------------------------
# the methods trained on one seed's splits


@dataclass(frozen=True)
class Method:
    """A model kind of MODELS and its objective; kind "pyg-erm" trains on
    torch-geometric's `DataLoader` and batches, the others on `GraphSet.batches`."""

    kind: str
    objective: Callable
    att_temperature: float = 1.0
    noise: float = 1.0  # CGR's bottleneck noise (kind "cgr" only)

    def __post_init__(self):
        checks.one_of("kind", self.kind, tuple(MODELS))
        checks.number("noise", self.noise, at_least=0)
        checks.function(
            "objective", self.objective, "callable (model output, y) → loss"
        )


def train_methods(
    splits: dict[str, list],
    methods: dict[str, Method],
    *,
    model_seed: int,
    batch_seed: int,
    hidden: int,
    layers: int,
    epochs: int,
    batch: int,
    select_after: int,
    lr: float = 1e-3,
    device: str | torch.device = "cpu",
) -> tuple[list[dict], dict[str, nn.Module]]:
    """Fit every method of `methods` on one seed's `splits` (keys SPLITS), selecting the
    epoch on the OOD validation split. Every method starts from `model_seed` and sees
    the batches of a generator seeded with `batch_seed` (the peer: torch-geometric's
    shuffling with that generator); Adam starts at `lr`. Returns one row per method
    (method, epoch, IID and OOD test MAE, and for CGR models the mean a_o on cycle and
    base nodes of the OOD test graphs) and the fitted models by name."""
    from torch_geometric.data import Batch
    from torch_geometric.loader import DataLoader

    missing = [k for k in SPLITS if k not in splits]
    if missing:
        raise ValueError(f"splits lacks {missing}; it needs the keys {SPLITS}")
    if not methods:
        raise ValueError("methods is empty: name at least one method")
    for name, m in methods.items():
        if not isinstance(m, Method):
            raise TypeError(
                f"methods[{name!r}] must be a Method, got {type(m).__name__}"
            )
    batch = checks.integer("batch", batch, at_least=2)
    train = GraphSet(splits["train"], device)
    target = (float(train.y.mean()), float(train.y.std()))
    ours = {k: GraphSet(splits[k], device).full() for k in SPLITS[1:]}
    arch = dict(hidden=hidden, layers=layers, device=device, target=target)
    fit_kw = dict(epochs=epochs, select_after=select_after, lr=lr)
    rows, models = [], {}
    for name, m in methods.items():
        gen = torch.Generator().manual_seed(int(batch_seed))
        cgr_kw = (
            dict(att_temperature=m.att_temperature, noise=m.noise)
            if m.kind == "cgr"
            else {}
        )
        model = make_model(m.kind, seed=model_seed, **cgr_kw, **arch)
        if m.kind == "pyg-erm":
            loader = DataLoader(
                splits["train"],
                batch_size=batch,
                shuffle=True,
                drop_last=True,
                generator=gen,
            )
            data = {k: Batch.from_data_list(splits[k]).to(device) for k in SPLITS[1:]}
            f = fit(
                model,
                m.objective,
                lambda e: (b.to(device) for b in loader),
                data["OOD val"],
                **fit_kw,
            )
        else:
            data = ours
            f = fit(
                model,
                m.objective,
                lambda e: train.batches(batch, gen),
                data["OOD val"],
                **fit_kw,
            )
        row = dict(
            method=name,
            epoch=f.best_epoch,
            IID=mae(f.model, data["IID test"]),
            OOD=mae(f.model, data["OOD test"]),
        )
        if isinstance(f.model, CausalGIN):
            att = attention_by_part(f.model, ours["OOD test"])
            row.update({"a_o cycle": att["cycle"], "a_o base": att["base"]})
        rows.append(row)
        models[name] = f.model
    return rows, models
