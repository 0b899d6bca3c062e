"""The two-point regime scan of chapter 19 (issue 36): the field's learning rate, ×1 and ×10.

Run once, before the quick scale was fixed, under the heavy-work lock:

    .venv/bin/python data/19_vit_positional_ssl/regime_scan.py 800 1,10 B+PE,B+PE+PM

Its output is regime_scan.jsonl beside it (one line per field lr and variant; the trained and
step-0 probes, the field's relative change and smoothness). The regime was chosen by the gates
(a probe moved by >= 0.05 or the field by >= half its norm), not by the claims' results.
The detection columns here are the first version's linear head, superseded in the chapter.
"""

import sys
import time
import json
import numpy as np
import torch

from repbook.papers import vit_positional_ssl as V

torch.set_num_threads(2)

steps = int(sys.argv[1])
lrs = [float(x) for x in sys.argv[2].split(",")]
variants = sys.argv[3].split(",")
init = sys.argv[4] if len(sys.argv) > 4 else "sincos"
SIZE, PATCH, G = 48, 6, 8
ssl = V.make_scenes(2000, np.random.default_rng(1))
prng = np.random.default_rng(2)
dtr = V.make_scenes(1000, prng)
dte = V.make_scenes(1000, prng)
npos = 500
pb = V.sample_view_boxes(2 * npos, prng)
pm = np.stack([V.cross_mask(G, 0.3, prng) for _ in range(2 * npos)])
pim = np.concatenate([dtr.images[:npos], dte.images[:npos]])
arch = (("patch", 6), ("dim", 48), ("depth", 2), ("heads", 3), ("mlp_ratio", 2.0))


def ev(m):
    tr, te = slice(0, npos), slice(npos, 2 * npos)
    pos = V.position_probe(m, pim[tr], pb[tr], pim[te], pb[te]).r2
    mk = V.position_probe(
        m, pim[tr], pb[tr], pim[te], pb[te], train_masks=pm[tr], test_masks=pm[te]
    ).r2
    _, ptr = V.encode(m, dtr.images)
    _, pte = V.encode(m, dte.images)
    out = dict(pos=pos, masked=mk)
    for c in (0, 1):
        out[f"ap_c{c}"] = V.detection_lite(ptr, dtr, pte, dte, patch=6, context=c).ap50
        out[f"chance_c{c}"] = V.detection_lite(
            ptr, dtr, np.roll(pte, 1, 0), dte, patch=6, context=c
        ).ap50
    return out


for lr in lrs:
    for v in variants:
        cfg = V.SSLConfig(
            variant=v,
            steps=steps,
            batch=16,
            arch=arch,
            head_dim=64,
            field_init=init,
            field_lr=lr,
        )
        m0 = V.initial_student(cfg, SIZE, np.random.default_rng(1000))
        t0 = time.time()
        m, tr = V.pretrain(ssl.images, cfg, np.random.default_rng(1000))
        dt = time.time() - t0
        r = ev(m)
        r0 = ev(m0)
        print(
            json.dumps(
                dict(
                    lr=lr,
                    v=v,
                    t=round(dt, 1),
                    std=round(float(tr.feature_std[-20:].mean()), 3),
                    field=round(V.field_change(m0.field, m.field), 3),
                    smooth=round(V.field_smoothness(m.field), 3),
                    trained={k: round(x, 3) for k, x in r.items()},
                    untrained={k: round(x, 3) for k, x in r0.items()},
                )
            ),
            flush=True,
        )
