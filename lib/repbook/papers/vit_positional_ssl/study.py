"""The chapter's protocols and the pre-training study over seeds."""

from __future__ import annotations

from dataclasses import dataclass
import numpy as np
import torch
from .scenes import (
    Scenes,
    check_boxes,
    crop_resize,
    cross_mask,
    make_scenes,
    sample_view_boxes,
)
from .model import SSLConfig, TinyViT, field_change, initial_student, pretrain
from .probes import (
    content_probe,
    detection_lite,
    encode,
    field_smoothness,
    patch_positions,
    position_probe,
    r2_score,
    ridge_probe,
)


# ---------------------------------------------------------------------------------------------
# Protocols of the chapter
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class ProbeSet:
    """The held-out data every probe reads: `pos_images` (2n, 3, H, W) with one view box and one
    cross mask each (the first n fit the position probes, the last n score them), and the
    detection scenes `det_train`, `det_test`."""

    pos_images: np.ndarray
    pos_boxes: np.ndarray
    pos_masks: np.ndarray
    det_train: Scenes
    det_test: Scenes

    @property
    def n_pos(self) -> int:
        return len(self.pos_images) // 2


def make_probe_set(
    n_pos: int, n_det: int, rng: np.random.Generator, *, size: int, grid: int
) -> ProbeSet:
    """Draw the probes' data: `n_det` + `n_det` detection scenes, and for the position probes
    the first `n_pos` images of each with a random view box and a 30 % cross mask apiece."""
    if not isinstance(n_pos, (int, np.integer)) or not 1 <= n_pos <= n_det:
        raise ValueError(
            f"n_pos must be an integer in [1, n_det = {n_det}], got {n_pos!r}"
        )
    det_train = make_scenes(n_det, rng, size=size)
    det_test = make_scenes(n_det, rng, size=size)
    boxes = sample_view_boxes(2 * n_pos, rng)
    masks = np.stack([cross_mask(grid, 0.3, rng) for _ in range(2 * n_pos)])
    images = np.concatenate([det_train.images[:n_pos], det_test.images[:n_pos]])
    return ProbeSet(images, boxes, masks, det_train, det_test)


HEADS = {
    "linear": dict(context=1, features=0),
    "random-feature": dict(context=1, features=1024),
}
"""The two detection-lite heads, both on the 3×3 neighbourhood of tokens: "linear" reads the
tokens themselves (the usual frozen-feature readout, claim 3's judged head); "random-feature"
reads 1,024 fixed random ReLU features of them (shown beside it)."""


def probe_suite(model: TinyViT, data: ProbeSet, *, patch: int, heads=None) -> dict:
    """Every frozen-feature probe of one model: `pos` (position probe on all patches), `masked`
    (on position-masked patches), `det` ({head name: `detection_lite` result} for each entry
    of `heads`, {name: dict(context=..., features=...)}; empty without heads) and the
    image-level content probes (CLS and mean patch token)."""
    heads = dict(heads or {})
    for name, kw in heads.items():
        if set(kw) - {"context", "features"}:
            raise ValueError(
                f"head {name!r} takes context and features only, got {sorted(kw)}"
            )
    n = data.n_pos
    tr, te = slice(0, n), slice(n, 2 * n)
    im, bx, mk = data.pos_images, data.pos_boxes, data.pos_masks
    pos = position_probe(model, im[tr], bx[tr], im[te], bx[te])
    masked = position_probe(
        model, im[tr], bx[tr], im[te], bx[te], train_masks=mk[tr], test_masks=mk[te]
    )
    cls_tr, pat_tr = encode(model, data.det_train.images)
    cls_te, pat_te = encode(model, data.det_test.images)
    det = {
        name: detection_lite(
            pat_tr, data.det_train, pat_te, data.det_test, patch=patch, **kw
        )
        for name, kw in heads.items()
    }
    content = content_probe(
        np.concatenate([cls_tr, pat_tr.mean(1)], 1),
        data.det_train,
        np.concatenate([cls_te, pat_te.mean(1)], 1),
        data.det_test,
    )
    return dict(pos=pos, masked=masked, det=det, **content)


def suite_numbers(suite: dict) -> dict[str, float]:
    """The numbers of a `probe_suite` result, flat: position and masked-position R², count and
    type accuracy, and per head its AP@0.5, chance AP@0.5 and patch mIoU."""
    out = {
        "position R²": float(suite["pos"].r2),
        "masked-position R²": float(suite["masked"].r2),
        "count accuracy": float(suite["count accuracy"]),
        "type accuracy": float(suite["type accuracy"]),
    }
    for name, r in suite["det"].items():
        out[f"AP {name}"] = float(r.ap50)
        out[f"chance AP {name}"] = float(r.chance_ap50)
        out[f"mIoU {name}"] = float(r.miou)
    return out


def encoding_r2(field: torch.Tensor, boxes: np.ndarray, grid: int) -> float:
    """The position probe on the crop-tied encodings alone (no network): ridge from each patch's
    encoding, sampled from `field` over its view box, to its original-image (x, y); fitted on the
    first half of `boxes`, R² on the second half."""
    b = check_boxes(boxes)
    n = len(b) // 2
    if n < 1:
        raise ValueError(f"boxes must hold at least 2 views, got {len(b)}")
    f = torch.as_tensor(field).detach().cpu()
    pe = crop_resize(f, b, (grid, grid)).flatten(2).transpose(1, 2).numpy()
    xy = patch_positions(b, grid)
    d = pe.shape[-1]
    probe = ridge_probe(pe[:n].reshape(-1, d), xy[:n].reshape(-1, 2))
    return r2_score(
        xy[n : 2 * n].reshape(-1, 2), probe.predict(pe[n : 2 * n].reshape(-1, d))
    )


@dataclass(frozen=True)
class DetectionStudy:
    """Claim 3's protocol over pre-training seeds: per variant, one AP@0.5 per seed for the
    trained student (`ap`), for its step-0 weights (`untrained_ap`) and the chance AP of the
    trained features (`chance_ap`); `seconds` per variant and seed."""

    variants: tuple[str, ...]
    seeds: tuple[int, ...]
    ap: dict
    untrained_ap: dict
    chance_ap: dict
    seconds: dict

    def gains(self, variant: str, baseline: str = "B") -> list[float]:
        """Per-seed paired gains AP(variant) − AP(baseline)."""
        return [a - b for a, b in zip(self.ap[variant], self.ap[baseline])]


def detection_study(
    ssl_images: np.ndarray,
    data: ProbeSet,
    configs: dict,
    seeds,
    *,
    patch: int,
    context: int = 1,
    features: int = 1024,
    device: str = "cpu",
    clock=None,
    untrained_of=None,
) -> DetectionStudy:
    """Pre-train each variant of `configs` ({variant: SSLConfig}) once per seed (rng
    `numpy.random.default_rng(seed)`, the same for every variant, so gains pair by seed) and score
    the detection-lite head (`context`, `features`) on the trained student, on its step-0
    weights and by chance. `clock` (a no-argument timer such as time.perf_counter) times each
    pre-training; without it `seconds` is empty. `untrained_of` names the variants whose step-0
    weights are scored (default: all; the others get NaN)."""
    seeds = tuple(int(s) for s in seeds)
    if not seeds:
        raise ValueError("seeds must name at least one pre-training seed")
    size = data.det_train.images.shape[-1]
    ap, un, ch, secs = {}, {}, {}, {}
    for v, cfg in configs.items():
        if cfg.variant != v:
            raise ValueError(f"configs[{v!r}] is a config of variant {cfg.variant!r}")
        ap[v], un[v], ch[v] = [], [], []
        for s in seeds:
            m0 = initial_student(cfg, size, np.random.default_rng(s)).to(device)
            t0 = clock() if clock else 0.0
            m, _ = pretrain(ssl_images, cfg, np.random.default_rng(s), device=device)
            if clock:
                secs[v, s] = clock() - t0
            kw = dict(patch=patch, context=context, features=features)
            if untrained_of is not None and v not in untrained_of:
                un[v].append(float("nan"))
            pairs = [(m, ap[v])]
            if untrained_of is None or v in untrained_of:
                pairs.append((m0, un[v]))
            for model, out in pairs:
                _, p_tr = encode(model, data.det_train.images)
                _, p_te = encode(model, data.det_test.images)
                r = detection_lite(p_tr, data.det_train, p_te, data.det_test, **kw)
                out.append(r.ap50)
                if model is m:
                    ch[v].append(r.chance_ap50)
    return DetectionStudy(tuple(configs), seeds, ap, un, ch, secs)


# ---------------------------------------------------------------------------------------------
# The pre-training study: every variant on every seed, probed at step 0 and trained
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Study:
    """Pre-trainings probed at step 0 and after training. `runs` holds one JSON-able row per
    (label, seed): "label", "variant", "seed", the probe numbers at "step 0" and "trained"
    (`suite_numbers`), the SSL loss at step 0 and at the end and their ratio, the field's change
    and smoothness, the final feature std and the pre-training's seconds (None without a
    clock). With `keep`, `models`, `initial`, `traces` and `suites` ({"step 0", "trained"}
    `probe_suite` results) hold the objects, keyed by (label, seed)."""

    labels: tuple[str, ...]
    seeds: tuple[int, ...]
    runs: list
    models: dict
    initial: dict
    traces: dict
    suites: dict

    def record(self) -> dict:
        """The JSON-able part: labels, seeds and runs (what `study_values` reads)."""
        return {
            "labels": list(self.labels),
            "seeds": list(self.seeds),
            "runs": self.runs,
        }


def pretraining_study(
    ssl_images: np.ndarray,
    data: ProbeSet,
    configs: dict,
    seeds,
    *,
    patch: int,
    heads=None,
    device: str = "cpu",
    rng_of=None,
    clock=None,
    keep: bool = False,
    loss_window: int = 50,
) -> Study:
    """Pre-train each config of `configs` ({label: SSLConfig}; the label is the variant name
    where the claims read it) once per seed and run `probe_suite` (with `heads`) on the trained
    student and on its step-0 weights. `rng_of(seed)` returns a fresh generator for a seed
    (default `numpy.random.default_rng(seed)`); it is called once for the step-0 student and
    once for the pre-training, which therefore start from the same weights. Step-0 weights that
    two configs share (B+PE and B+PE+PM: the same architecture, field and seed) are probed once.
    `clock` (a no-argument timer) times each pre-training; `loss_window` steps make the loss
    at the end (`SSLTrace.loss_ratio`)."""
    seeds = tuple(int(s) for s in seeds)
    if not seeds:
        raise ValueError("seeds must name at least one pre-training seed")
    if len(set(seeds)) != len(seeds):
        raise ValueError(f"seeds repeat: {seeds}")
    if not configs:
        raise ValueError("configs must hold at least one {label: SSLConfig}")
    for label, cfg in configs.items():
        if not isinstance(cfg, SSLConfig):
            raise ValueError(f"configs[{label!r}] is not an SSLConfig")
    rng_of = rng_of or np.random.default_rng
    size = data.det_train.images.shape[-1]
    runs, models, initial, traces, suites, step0 = [], {}, {}, {}, {}, {}
    for s in seeds:
        for label, cfg in configs.items():
            m0 = initial_student(cfg, size, rng_of(s)).to(device)
            key = (cfg.variant == "B", cfg.field_size, cfg.field_init, cfg.arch, s)
            if key not in step0:
                step0[key] = probe_suite(m0, data, patch=patch, heads=heads)
            t0 = clock() if clock else None
            m, tr = pretrain(ssl_images, cfg, rng_of(s), device=device)
            secs = None if clock is None else round(clock() - t0, 1)
            suite = probe_suite(m, data, patch=patch, heads=heads)
            w = min(loss_window, cfg.steps)
            runs.append(
                {
                    "label": label,
                    "variant": cfg.variant,
                    "seed": s,
                    "pos_mask_share": cfg.pos_mask_share,
                    "step 0": suite_numbers(step0[key]),
                    "trained": suite_numbers(suite),
                    "loss step 0": float(tr.loss[0]),
                    "loss end": float(tr.loss[-w:].mean()),
                    "loss end / step 0": tr.loss_ratio(w),
                    "field change": field_change(m0.field, m.field),
                    "field smoothness step 0": field_smoothness(m0.field),
                    "field smoothness": field_smoothness(m.field),
                    "feature std end": float(tr.feature_std[-w:].mean()),
                    "seconds": secs,
                }
            )
            if keep:
                models[label, s], initial[label, s], traces[label, s] = m, m0, tr
                suites[label, s] = {"step 0": step0[key], "trained": suite}
    return Study(tuple(configs), seeds, runs, models, initial, traces, suites)


def study_values(record: dict) -> dict[str, list[float]]:
    """The per-seed values the chapter's gates and claims read, from a `Study.record()` (or
    its JSON), in seed order. For every label L: "loss end / step 0 · L" and "content probe
    rise · L" (the larger of the count and the type accuracy's rise over step 0). With B and
    B+PE (claim 1): the position-R² gain of B+PE over B trained and at step 0, its learned part
    and B+PE's own rise. With B+PE and B+PE+PM (claim 2): B+PE+PM's masked-position R², its
    gain over B+PE and its rise. For every head H with B (claim 3): B's pre-training AP gain,
    and the AP gains of B+PE+PM and B+PE over B."""
    seeds = [int(s) for s in record["seeds"]]
    runs = {(r["label"], int(r["seed"])): r for r in record["runs"]}
    labels = list(
        record.get("labels") or dict.fromkeys(r["label"] for r in record["runs"])
    )
    missing = [(lab, s) for lab in labels for s in seeds if (lab, s) not in runs]
    if missing:
        raise ValueError(f"the record lacks runs {missing}")

    def get(lab, stage, key):
        return np.array([runs[lab, s][stage][key] for s in seeds], float)

    def rise(lab, key):
        return get(lab, "trained", key) - get(lab, "step 0", key)

    out: dict[str, np.ndarray] = {}
    for lab in labels:
        out[f"loss end / step 0 · {lab}"] = np.array(
            [runs[lab, s]["loss end / step 0"] for s in seeds], float
        )
        out[f"content probe rise · {lab}"] = np.maximum(
            rise(lab, "count accuracy"), rise(lab, "type accuracy")
        )
    if {"B", "B+PE"} <= set(labels):
        key = "position R²"
        g = get("B+PE", "trained", key) - get("B", "trained", key)
        g0 = get("B+PE", "step 0", key) - get("B", "step 0", key)
        out["R² gain (B+PE − B)"] = g
        out["R² gain at step 0"] = g0
        out["learned part Δ (gain − gain at step 0)"] = g - g0
        out["B+PE: R² trained − step 0"] = rise("B+PE", key)
    if {"B+PE", "B+PE+PM"} <= set(labels):
        key = "masked-position R²"
        pm = get("B+PE+PM", "trained", key)
        out["masked R² (B+PE+PM)"] = pm
        out["masked R² gain over B+PE"] = pm - get("B+PE", "trained", key)
        out["B+PE+PM: masked R² trained − step 0"] = rise("B+PE+PM", key)
    if "B" in labels:
        heads = [k[3:] for k in runs[labels[0], seeds[0]]["trained"] if k[:3] == "AP "]
        for h in heads:
            ap_b = get("B", "trained", f"AP {h}")
            out[f"pre-training AP gain of B · {h}"] = rise("B", f"AP {h}")
            for lab in ("B+PE+PM", "B+PE"):
                if lab in labels:
                    ap = get(lab, "trained", f"AP {h}")
                    out[f"AP gain ({lab} − B) · {h}"] = ap - ap_b
    return {k: [float(x) for x in v] for k, v in out.items()}
