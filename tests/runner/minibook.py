"""Chapter sources of the miniature book the runner tests execute."""

import textwrap

HEADER = textwrap.dedent("""\
    # ---
    # jupyter:
    #   kernelspec:
    #     display_name: Python 3
    #     language: python
    #     name: python3
    # ---
    """)

TINY = HEADER + textwrap.dedent("""\
    # %% [markdown]
    # # 01 · tiny

    # %% tags=["parameters"]
    scale = "quick"
    seed = 0
    width: int = 3

    # %%
    from repbook.core import Ledger, at_least, setup
    from repbook.papers import aurc  # the fake root has its own papers/aurc.py
    run = setup(scale=scale, seed=seed, sizes={"quick": {"n": 2}, "full": {"n": 4}})
    ledger = Ledger.for_run(run)
    ledger.check(1, "tiny works", paper="yes", source="paper", measured={"width": width},
                 criterion=at_least("width", 1))

    # %% tags=["nbval-check-output"]
    ledger.show()
    """)

BROKEN = HEADER + textwrap.dedent("""\
    # %% tags=["parameters"]
    scale = "quick"
    seed = 0

    # %%
    x = 1

    # %%
    raise RuntimeError("boom in cell")
    """)
