"""The flat networks the paper studies (constant width across layers, one output head per
task), trained task-incrementally, and what is read from their snapshots: every layer's
features and a head's accuracy. `single_threaded` runs torch and the BLAS pools on one
thread. Randomness comes in as a seed (initialisation) or a torch.Generator (batch
order); nothing here prints, plots or writes files.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Sequence

import numpy as np
import torch
from torch import nn
from torch.nn import functional

from repbook.core import checks, nets

from .tasks import Task


def single_threaded():
    """Run torch and the BLAS/OpenMP pools with one thread inside the block, then restore
    them (`repbook.core.nets.single_threaded`, with scipy.optimize and
    sklearn.linear_model loaded first so that the limit covers their pools).

    The networks and probes here are tiny: a second thread only adds synchronisation, and
    on a busy machine its spin-waits slow small matrix products and L-BFGS steps by
    orders of magnitude. One thread is also a fixed thread count, so results stay
    reproducible.
    """
    return nets.single_threaded(preload=("scipy.optimize", "sklearn.linear_model"))


# --------------------------------------------------------------------------------------
# flat networks with one head per task
def _init_(module: nn.Module) -> None:
    if isinstance(module, (nn.Linear, nn.Conv2d)):
        nn.init.xavier_uniform_(module.weight)
        if module.bias is not None:
            nn.init.zeros_(module.bias)


class FlatMLP(nn.Module):
    """`depth` hidden ReLU layers of constant `width`, then one linear head per task.

    `features(x)` returns the post-ReLU output of every hidden layer, k = 1..depth.
    """

    def __init__(self, n_in: int, width: int, depth: int, n_tasks: int, n_classes: int):
        super().__init__()
        self.layers = nn.ModuleList(
            [nn.Linear(n_in if k == 0 else width, width) for k in range(depth)]
        )
        self.heads = nn.ModuleList(
            [nn.Linear(width, n_classes) for _ in range(n_tasks)]
        )

    def features(self, x: torch.Tensor) -> list[torch.Tensor]:
        x = x.flatten(1)
        out = []
        for layer in self.layers:
            x = functional.relu(layer(x))
            out.append(x)
        return out

    def forward(self, x: torch.Tensor, task: int) -> torch.Tensor:
        return self.heads[task](self.features(x)[-1])


class _Block(nn.Module):
    def __init__(self, c: int):
        super().__init__()
        self.conv1 = nn.Conv2d(c, c, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(c)
        self.conv2 = nn.Conv2d(c, c, 3, padding=1)
        self.bn2 = nn.BatchNorm2d(c)

    def forward(self, x):
        y = functional.relu(self.bn1(self.conv1(x)))
        return functional.relu(self.bn2(self.conv2(y)) + x)


class FlatResNet(nn.Module):
    """A stem convolution and `depth` residual blocks, all with `width` channels and
    stride 1 (a "flat" ResNet), global average pooling, one linear head per task.

    `features(x)` returns each block's output averaged over space (width numbers per
    input).
    """

    def __init__(self, n_in: int, width: int, depth: int, n_tasks: int, n_classes: int):
        super().__init__()
        self.stem = nn.Sequential(
            nn.Conv2d(n_in, width, 3, padding=1), nn.BatchNorm2d(width), nn.ReLU()
        )
        self.blocks = nn.ModuleList([_Block(width) for _ in range(depth)])
        self.heads = nn.ModuleList(
            [nn.Linear(width, n_classes) for _ in range(n_tasks)]
        )

    def _maps(self, x):
        x = self.stem(x)
        out = []
        for block in self.blocks:
            x = block(x)
            out.append(x)
        return out

    def features(self, x: torch.Tensor) -> list[torch.Tensor]:
        return [m.mean(dim=(2, 3)) for m in self._maps(x)]

    def forward(self, x: torch.Tensor, task: int) -> torch.Tensor:
        return self.heads[task](self._maps(x)[-1].mean(dim=(2, 3)))


ARCHITECTURES = {"mlp": FlatMLP, "resnet": FlatResNet}


def make_network(
    kind: str,
    *,
    n_in: int,
    width: int,
    depth: int,
    n_tasks: int,
    n_classes: int = 2,
    seed: int = 0,
) -> nn.Module:
    """A flat network (`kind` in ARCHITECTURES) with Xavier-uniform weights drawn from
    `seed`.

    `n_in` is the input size for "mlp" and the input channels for "resnet".
    """
    if kind not in ARCHITECTURES:
        raise ValueError(f"kind must be one of {tuple(ARCHITECTURES)}, got {kind!r}")
    for name, v in [
        ("n_in", n_in),
        ("width", width),
        ("depth", depth),
        ("n_tasks", n_tasks),
        ("n_classes", n_classes),
    ]:
        checks.integer(name, v, at_least=1)
    with nets.seeded(seed):
        net = ARCHITECTURES[kind](
            int(n_in), int(width), int(depth), int(n_tasks), int(n_classes)
        )
        net.apply(_init_)
    return net


def train_task(
    net: nn.Module,
    X: torch.Tensor,
    y: torch.Tensor,
    task: int,
    *,
    epochs: int,
    lr: float,
    momentum: float,
    batch_size: int,
    generator: torch.Generator,
) -> float:
    """Train `net` on one task with SGD (fresh momentum buffers), cross-entropy on head
    `task`.

    Returns the mean training loss of the last epoch.
    """
    if X.shape[0] != y.shape[0]:
        raise ValueError(
            f"X and y must have the same number of rows, got {X.shape[0]} and "
            f"{y.shape[0]}"
        )
    if not 0 <= task < len(net.heads):
        raise ValueError(f"task must lie in [0, {len(net.heads)}), got {task!r}")
    checks.integer("epochs", epochs, at_least=1)
    checks.integer("batch_size", batch_size, at_least=1)
    checks.torch_generator("generator", generator)
    params = [
        p
        for name, p in net.named_parameters()
        if not name.startswith("heads.") or name.startswith(f"heads.{task}.")
    ]
    opt = torch.optim.SGD(params, lr=lr, momentum=momentum)
    net.train()
    n = X.shape[0]
    last = math.nan
    for _ in range(epochs):
        order = torch.randperm(n, generator=generator).to(X.device)
        total = 0.0
        for start in range(0, n, batch_size):
            idx = order[start : start + batch_size]
            loss = functional.cross_entropy(net(X[idx], task), y[idx])
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            total += float(loss.detach()) * idx.numel()
        last = total / n
    return last


def train_sequence(
    net: nn.Module,
    tasks: Sequence[Task],
    *,
    epochs: int,
    lr: float,
    momentum: float,
    batch_size: int,
    generator: torch.Generator,
    device: str = "cpu",
) -> list[dict]:
    """Task-incremental training: task 0, then 1, ... Returns one snapshot (a state dict
    on the CPU) after each task: snapshot t is the network h_t."""
    if len(tasks) > len(net.heads):
        raise ValueError(f"net has {len(net.heads)} heads for {len(tasks)} tasks")
    net.to(device)
    snapshots = []
    for t, task in enumerate(tasks):
        X = torch.as_tensor(task.X_train, dtype=torch.float32, device=device)
        y = torch.as_tensor(task.y_train, dtype=torch.int64, device=device)
        train_task(
            net,
            X,
            y,
            t,
            epochs=epochs,
            lr=lr,
            momentum=momentum,
            batch_size=batch_size,
            generator=generator,
        )
        snapshots.append(
            {k: v.detach().cpu().clone() for k, v in net.state_dict().items()}
        )
    return snapshots


@torch.no_grad()
def layer_features(
    net: nn.Module, snapshot: dict, X, *, batch_size: int = 4096, device: str = "cpu"
) -> list[np.ndarray]:
    """Features h^k(X) of every layer k = 1..depth under `snapshot` (eval mode), as
    float64.
    """
    net = copy.deepcopy(net).to(device)
    net.load_state_dict(snapshot)
    net.eval()
    X = torch.as_tensor(np.asarray(X), dtype=torch.float32)
    parts = []
    for start in range(0, X.shape[0], batch_size):
        feats = net.features(X[start : start + batch_size].to(device))
        parts.append([f.double().cpu().numpy() for f in feats])
    return [np.concatenate([p[k] for p in parts]) for k in range(len(parts[0]))]


def task_accuracy(
    net: nn.Module, snapshot: dict, task_index: int, X, y, *, device: str = "cpu"
) -> float:
    """Accuracy of head `task_index` of `snapshot` on (X, y) with task-local labels."""
    net = copy.deepcopy(net).to(device)
    net.load_state_dict(snapshot)
    net.eval()
    with torch.no_grad():
        logits = net(
            torch.as_tensor(np.asarray(X), dtype=torch.float32, device=device),
            task_index,
        )
    return float((logits.argmax(1).cpu().numpy() == np.asarray(y)).mean())
