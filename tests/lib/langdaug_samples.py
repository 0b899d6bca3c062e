"""Small inputs shared by the langdaug test files: generators and a few tiny domains, and
EBM/segmenter settings small enough to train in a test."""

import numpy as np
import torch

from repbook.papers import langdaug


def rng(seed=0):
    return np.random.default_rng(seed)


def gen(seed=0):
    return torch.Generator().manual_seed(seed)


def small(domains="AB", n=12, size=16, seed=11):
    r = rng(seed)
    return {d: langdaug.make_domain(d, n, r, size=size) for d in domains}


EBM = langdaug.EBMConfig(iters=2, batch=4, steps=4, step_size=1.0, widths=(4, 8, 8))
SEG = langdaug.SegConfig(batch=4, widths=(4, 8), steps=3)
