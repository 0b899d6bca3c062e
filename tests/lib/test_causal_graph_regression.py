import json
import re

import networkx as nx
import numpy as np
import pytest
import torch
from torch.nn import functional

from repbook.papers import causal_graph_regression


@pytest.fixture(scope="module")
def graphs():
    return causal_graph_regression.make_dataset(
        40, np.random.default_rng(3), shortcut=0.9
    )


def to_nx(g):
    G = nx.Graph()
    G.add_nodes_from(range(g.x.size(0)))
    G.add_edges_from(g.edge_index.T.tolist())
    return G


# --- data -----------------------------------------------------------------------------
@pytest.mark.parametrize("shortcut", [0.0, 0.5, 0.9, 1.0])
@pytest.mark.parametrize("shift", ["train", "reversed"])
def test_shortcut_rate_matches_setting(shortcut, shift):
    n = 600
    data = causal_graph_regression.make_dataset(
        n, np.random.default_rng(11), shortcut=shortcut, shift=shift, base_nodes=(4, 5)
    )
    rate = causal_graph_regression.shortcut_rate(data, shift)
    se = np.sqrt(shortcut * (1 - shortcut) / n)
    assert abs(rate - shortcut) <= 4 * se + 1e-12


def test_reversed_mapping_and_bins():
    assert [causal_graph_regression.shortcut_type(b, "train") for b in range(3)] == [
        0,
        1,
        2,
    ]
    assert [causal_graph_regression.shortcut_type(b, "reversed") for b in range(3)] == [
        2,
        1,
        0,
    ]
    assert [causal_graph_regression.y_bin(v) for v in (1.99, 2.0, 3.0, 3.01)] == [
        0,
        1,
        1,
        2,
    ]


def test_graph_structure(graphs):
    for g in graphs:
        G = to_nx(g)
        assert nx.is_connected(G)
        causal = g.causal.numpy()
        assert causal.sum() == 5
        cyc = G.subgraph(np.flatnonzero(causal))
        assert sorted(d for _, d in cyc.degree()) == [2] * 5 and nx.is_connected(cyc)
        cut = [(u, v) for u, v in G.edges() if causal[u] != causal[v]]
        assert len(cut) == 1  # one edge joins cycle and base
        base = G.subgraph(np.flatnonzero(~causal))
        kind = causal_graph_regression.BASE_TYPES[int(g.base_type)]
        nb = base.number_of_nodes()
        assert 10 <= nb <= 15
        if kind == "tree":
            assert nx.is_tree(base)
        elif kind == "wheel":
            assert max(
                d for _, d in base.degree()
            ) == nb - 1 and base.number_of_edges() == 2 * (nb - 1)
        else:
            assert nb % 2 == 0 and base.number_of_edges() == 3 * nb // 2 - 2
        assert torch.all(g.x[:, 1] == 1) and torch.all(
            (g.x[:, 0] >= 0) & (g.x[:, 0] <= 1)
        )
        # undirected: every edge in both directions
        e = set(map(tuple, g.edge_index.T.tolist()))
        assert all((v, u) in e for u, v in e)


def test_y_is_the_cycle_sum_without_noise():
    data = causal_graph_regression.make_dataset(
        30, np.random.default_rng(0), shortcut=0.9, noise=0.0
    )
    for g in data:
        assert float(g.y) == pytest.approx(float(g.x[g.causal, 0].sum()), abs=1e-5)
        assert int(g.y_bin) == causal_graph_regression.y_bin(float(g.y))


def test_same_generator_same_data():
    a = causal_graph_regression.make_dataset(5, np.random.default_rng(7), shortcut=0.9)
    b = causal_graph_regression.make_dataset(5, np.random.default_rng(7), shortcut=0.9)
    c = causal_graph_regression.make_dataset(5, np.random.default_rng(8), shortcut=0.9)
    assert all(
        torch.equal(x.x, y.x) and torch.equal(x.edge_index, y.edge_index)
        for x, y in zip(a, b)
    )
    assert not all(torch.equal(x.y, y.y) for x, y in zip(a, c))


def test_graphset_batch_matches_torch_geometric(graphs):
    from torch_geometric.data import Batch

    idx = [5, 0, 17, 3]
    ours = causal_graph_regression.GraphSet(graphs).batch(idx)
    ref = Batch.from_data_list([graphs[i] for i in idx])
    assert torch.equal(ours.x, ref.x) and torch.equal(ours.edge_index, ref.edge_index)
    assert torch.equal(ours.batch, ref.batch) and torch.equal(ours.y, ref.y)
    assert ours.num_graphs == 4


# --- layers against torch-geometric ---------------------------------------------------
def test_gin_layer_equals_torch_geometric(graphs):
    from torch_geometric.nn import GINConv

    b = causal_graph_regression.GraphSet(graphs).batch(range(8))
    torch.manual_seed(0)
    mlp = torch.nn.Sequential(
        torch.nn.Linear(2, 8), torch.nn.ReLU(), torch.nn.Linear(8, 8)
    )
    ours, ref = causal_graph_regression.GINLayer(mlp), GINConv(mlp, eps=0.0)
    torch.testing.assert_close(ours(b.x, b.edge_index), ref(b.x, b.edge_index))


def test_weighted_gcn_equals_torch_geometric(graphs):
    from torch_geometric.nn import GCNConv

    b = causal_graph_regression.GraphSet(graphs).batch(range(8))
    torch.manual_seed(0)
    x = torch.randn(b.x.size(0), 6)
    w = torch.rand(b.edge_index.size(1))
    ours, ref = causal_graph_regression.WeightedGCNLayer(6, 5), GCNConv(6, 5)
    with torch.no_grad():
        ours.lin.weight.copy_(ref.lin.weight)
        ours.bias.copy_(torch.randn(5))
        ref.bias.copy_(ours.bias)
    torch.testing.assert_close(ours(x, b.edge_index, w), ref(x, b.edge_index, w))


def test_copied_weights_give_the_same_function(graphs):
    from torch_geometric.data import Batch

    ours = causal_graph_regression.make_model("erm", seed=3, hidden=16).eval()
    peer = causal_graph_regression.copy_erm_weights(
        ours, causal_graph_regression.make_model("pyg-erm", seed=9, hidden=16).eval()
    )
    torch.testing.assert_close(
        causal_graph_regression.predict(
            ours, causal_graph_regression.GraphSet(graphs).full()
        ),
        causal_graph_regression.predict(peer, Batch.from_data_list(graphs)),
    )
    with pytest.raises(ValueError, match="differ in shape"):
        causal_graph_regression.copy_erm_weights(
            ours,
            causal_graph_regression.make_model("pyg-erm", seed=0, hidden=16, layers=2),
        )
    with pytest.raises(TypeError, match="src must be"):
        causal_graph_regression.copy_erm_weights(peer, ours)


# --- models ---------------------------------------------------------------------------
def permute_graphs(graphs, rng):
    from torch_geometric.data import Data

    out = []
    for g in graphs:
        n = g.x.size(0)
        p = torch.from_numpy(rng.permutation(n))  # new position of old node i is p[i]
        x = torch.empty_like(g.x)
        x[p] = g.x
        causal = torch.empty_like(g.causal)
        causal[p] = g.causal
        out.append(Data(x=x, edge_index=p[g.edge_index], y=g.y, causal=causal))
    return out


@pytest.mark.parametrize("kind", ["erm", "cgr", "pyg-erm"])
def test_outputs_are_invariant_to_node_permutations(graphs, kind):
    model = causal_graph_regression.make_model(kind, seed=1, hidden=16)
    b = causal_graph_regression.GraphSet(graphs)
    # a few training steps so that BatchNorm running statistics are not the defaults
    causal_graph_regression.fit(
        model,
        causal_graph_regression.CGRLoss()
        if kind == "cgr"
        else causal_graph_regression.erm_loss,
        lambda e: b.batches(8, torch.Generator().manual_seed(e)),
        b.full(),
        epochs=2,
        select_after=0,
    )
    perm = causal_graph_regression.GraphSet(
        permute_graphs(graphs, np.random.default_rng(0))
    )
    torch.testing.assert_close(
        causal_graph_regression.predict(model, b.full()),
        causal_graph_regression.predict(model, perm.full()),
        atol=1e-5,
        rtol=1e-5,
    )
    if kind == "cgr":
        a1 = causal_graph_regression.node_attention(model, b.full())
        a2 = causal_graph_regression.node_attention(model, perm.full())
        assert a1.sort().values.allclose(a2.sort().values, atol=1e-6)


def test_no_batchnorm_is_shared_by_the_branches(graphs):
    model = causal_graph_regression.make_model("cgr", seed=0, hidden=16)
    assert model.bn_causal is not model.bn_conf
    shared = [
        m
        for m in model.shared_conv.modules()
        if isinstance(m, torch.nn.modules.batchnorm._BatchNorm)
    ]
    assert not shared, "the shared GCN layer must hold no BatchNorm"
    assert model.head_causal is not model.head_conf
    ids = lambda m: {id(p) for p in m.parameters()}  # noqa: E731
    assert not ids(model.head_causal) & ids(model.head_conf)
    model.train()
    model(causal_graph_regression.GraphSet(graphs).batch(range(16)))
    assert not torch.allclose(model.bn_causal.running_mean, model.bn_conf.running_mean)


def test_predict_is_the_causal_head(graphs):
    model = causal_graph_regression.make_model("cgr", seed=0, hidden=16).eval()
    b = causal_graph_regression.GraphSet(graphs).full()
    with torch.no_grad():
        out = model(b)
    torch.testing.assert_close(out.y_causal, causal_graph_regression.predict(model, b))
    assert (
        out.h_causal.shape == out.h_conf.shape == out.h_graph.shape == (len(graphs), 16)
    )
    assert torch.all((out.node_att > 0) & (out.node_att < 1))


def test_target_scale_is_applied_by_every_head(graphs):
    from torch_geometric.data import Batch

    b = causal_graph_regression.GraphSet(graphs).full()
    for kind in ("erm", "cgr", "pyg-erm"):
        plain = causal_graph_regression.make_model(kind, seed=2, hidden=8).eval()
        scaled = causal_graph_regression.make_model(
            kind, seed=2, hidden=8, target=(2.5, 0.6)
        ).eval()
        data = b if kind != "pyg-erm" else Batch.from_data_list(graphs)
        torch.testing.assert_close(
            causal_graph_regression.predict(scaled, data),
            2.5 + 0.6 * causal_graph_regression.predict(plain, data),
        )
    with torch.no_grad():
        out = causal_graph_regression.make_model(
            "cgr", seed=2, hidden=8, target=(2.5, 0.6)
        ).eval()(b)
        raw = causal_graph_regression.make_model("cgr", seed=2, hidden=8).eval()(b)
    torch.testing.assert_close(out.y_conf, 2.5 + 0.6 * raw.y_conf)
    for bad in [(0.0, 0.0), (0.0, -1.0), (float("nan"), 1.0), (1.0,)]:
        with pytest.raises(ValueError, match="target must be"):
            causal_graph_regression.make_model("erm", seed=0, target=bad)


def test_make_model_is_seeded_and_leaves_global_rng_alone():
    state = torch.random.get_rng_state()
    a, b = (
        causal_graph_regression.make_model("cgr", seed=5),
        causal_graph_regression.make_model("cgr", seed=5),
    )
    c = causal_graph_regression.make_model("cgr", seed=6)
    assert torch.equal(torch.random.get_rng_state(), state)
    pa, pb, pc = (torch.cat([p.flatten() for p in m.parameters()]) for m in (a, b, c))
    assert torch.equal(pa, pb) and not torch.equal(pa, pc)


# --- losses ---------------------------------------------------------------------------
def mix_loss_loop(hc, hs, hg, temperature=1.0, include_positive=False):
    b, total = hc.size(0), 0.0
    for i in range(b):
        for j in range(b):
            if i == j:
                continue
            m = hc[i] + hs[j]
            s = [
                functional.cosine_similarity(m, hg[k], dim=0) / temperature
                for k in range(b)
            ]
            den = [torch.exp(s[k]) for k in range(b) if include_positive or k != i]
            total = total - torch.log(torch.exp(s[i]) / sum(den))
    return total / (b * (b - 1))


@pytest.mark.parametrize("b", [2, 3, 7])
@pytest.mark.parametrize("include_positive", [False, True])
@pytest.mark.parametrize("temperature", [1.0, 0.3])
def test_mix_loss_einsum_equals_loop(b, include_positive, temperature):
    g = torch.Generator().manual_seed(b)
    hc, hs, hg = (torch.randn(b, 5, generator=g, dtype=torch.float64) for _ in range(3))
    got = causal_graph_regression.mix_loss(
        hc, hs, hg, temperature=temperature, include_positive=include_positive
    )
    want = mix_loss_loop(hc, hs, hg, temperature, include_positive)
    torch.testing.assert_close(got, want)


def test_mix_loss_gradient_flows_to_all_inputs():
    hc, hs, hg = (torch.randn(4, 3, requires_grad=True) for _ in range(3))
    causal_graph_regression.mix_loss(hc, hs, hg).backward()
    assert all(t.grad is not None and t.grad.abs().sum() > 0 for t in (hc, hs, hg))


def test_bernoulli_kl():
    assert float(
        causal_graph_regression.bernoulli_kl(torch.full((5,), 0.3), 0.3)
    ) == pytest.approx(0, abs=1e-7)
    a = torch.tensor([0.9])
    want = 0.9 * np.log(0.9 / 0.3) + 0.1 * np.log(0.1 / 0.7)
    assert float(causal_graph_regression.bernoulli_kl(a, 0.3)) == pytest.approx(
        want, rel=1e-5
    )


def test_cgr_loss_parts(graphs):
    model = causal_graph_regression.make_model("cgr", seed=0, hidden=16).train()
    b = causal_graph_regression.GraphSet(graphs).batch(range(10))
    out = model(b)
    gib = causal_graph_regression.CGRLoss("gib").parts(out, b.y)
    assert set(gib) == {"causal L1", "confounder", "I(C;G)", "L_mix"}
    want = 0.5 * functional.l1_loss(out.y_conf, b.y).item()
    assert gib["confounder"].item() == pytest.approx(want)
    var = causal_graph_regression.CGRLoss("var").parts(out, b.y)
    assert var["confounder"].item() == pytest.approx(0.5 * out.y_conf.var().item())
    assert set(
        causal_graph_regression.CGRLoss("none", lam=0, alpha=0).parts(out, b.y)
    ) == {"causal L1"}
    total = causal_graph_regression.CGRLoss()(out, b.y)
    assert total.item() == pytest.approx(sum(v.item() for v in gib.values()))


def test_fit_selects_the_best_epoch_after_warm_up(graphs):
    s = causal_graph_regression.GraphSet(graphs)
    f = causal_graph_regression.fit(
        causal_graph_regression.make_model("erm", seed=0, hidden=8),
        causal_graph_regression.erm_loss,
        lambda e: s.batches(8, torch.Generator().manual_seed(e)),
        s.full(),
        epochs=4,
        select_after=2,
    )
    assert f.best_epoch in (3, 4)
    assert f.val_mae[f.best_epoch - 1] == f.val_mae[2:].min()
    assert causal_graph_regression.mae(f.model, s.full()) == pytest.approx(
        f.val_mae[f.best_epoch - 1], rel=1e-6
    )


# --- bad inputs -----------------------------------------------------------------------
@pytest.mark.parametrize("bad", [-0.1, 1.2, float("nan"), "0.5", True])
def test_bad_probability(bad):
    got = re.escape(f"got {bad!r}")
    with pytest.raises(
        ValueError, match=rf"shortcut must be a number in \[0, 1\], {got}"
    ):
        causal_graph_regression.make_dataset(3, np.random.default_rng(0), shortcut=bad)


def test_empty_graph_is_rejected(graphs):
    from torch_geometric.data import Data

    empty = Data(
        x=torch.zeros(0, 2),
        edge_index=torch.zeros(2, 0, dtype=torch.long),
        y=torch.zeros(1),
        causal=torch.zeros(0, dtype=torch.bool),
    )
    with pytest.raises(ValueError, match=r"graphs\[1\] is an empty graph"):
        causal_graph_regression.GraphSet([graphs[0], empty])
    with pytest.raises(ValueError, match="graphs is empty"):
        causal_graph_regression.GraphSet([])


def test_batch_too_small_for_mix_loss():
    h = torch.randn(1, 4)
    with pytest.raises(ValueError, match="at least 2 graphs"):
        causal_graph_regression.mix_loss(h, h, h)
    with pytest.raises(ValueError, match="share one"):
        causal_graph_regression.mix_loss(
            torch.randn(3, 4), torch.randn(3, 5), torch.randn(3, 4)
        )


@pytest.mark.parametrize(
    "call, match",
    [
        (
            lambda: causal_graph_regression.make_dataset(
                0, np.random.default_rng(0), shortcut=0.9
            ),
            "n must be a positive int, got 0",
        ),
        (
            lambda: causal_graph_regression.make_dataset(
                3, np.random.default_rng(0), shortcut=0.9, shift="up"
            ),
            "shift must be one of 'train', 'reversed', got 'up'",
        ),
        (
            lambda: causal_graph_regression.make_dataset(
                3, np.random.default_rng(0), shortcut=0.9, base_nodes=(9, 5)
            ),
            "low ≤ high",
        ),
        (
            lambda: causal_graph_regression.make_dataset(
                3, np.random.default_rng(0), shortcut=0.9, noise=-1
            ),
            "noise must be a finite number ≥ 0, got -1",
        ),
        (
            lambda: causal_graph_regression.make_dataset(3, 0, shortcut=0.9),
            "rng must be a numpy.random.Generator, got int",
        ),
        (
            lambda: causal_graph_regression.base_graph(
                "star", 6, np.random.default_rng(0)
            ),
            "kind must be one of .*, got 'star'",
        ),
        (
            lambda: causal_graph_regression.make_model("gat", seed=0),
            "kind must be one of 'erm', 'cgr', 'pyg-erm', got 'gat'",
        ),
        (
            lambda: causal_graph_regression.make_model("erm", seed=-1),
            "seed must be an int ≥ 0, got -1",
        ),
        (
            lambda: causal_graph_regression.CGRLoss(confounder="kl"),
            "confounder must be one of .*, got 'kl'",
        ),
        (
            lambda: causal_graph_regression.CGRLoss(r=1.0),
            r"r must be a number in \(0, 1\), got 1.0",
        ),
        (
            lambda: causal_graph_regression.CGRLoss(lam=-0.5),
            "lam must be a finite number ≥ 0, got -0.5",
        ),
        (
            lambda: causal_graph_regression.CGRLoss(info="mi"),
            "info must be one of .*, got 'mi'",
        ),
        (
            lambda: causal_graph_regression.make_model(
                "cgr", seed=0, att_temperature=0
            ),
            "att_temperature must be a finite number > 0, got 0",
        ),
        (
            lambda: causal_graph_regression.make_model(
                "erm", seed=0, att_temperature=0.5
            ),
            "kind 'cgr' only",
        ),
        (
            lambda: causal_graph_regression.Method(
                "gat", causal_graph_regression.erm_loss
            ),
            "kind must be one of .*, got 'gat'",
        ),
        (
            lambda: causal_graph_regression.Method("erm", 3),
            "objective must be callable .*, got int",
        ),
        (
            lambda: causal_graph_regression.embedding_info(torch.zeros(0, 4)),
            "non-empty",
        ),
        (
            lambda: causal_graph_regression.attention_search(
                {"a": dict(epochs=2)},
                [0],
                n_val=4,
                n_test=4,
                hidden=4,
                batch=4,
                select_after=0,
                shortcut=0.9,
            ),
            "exactly the keys",
        ),
        (lambda: causal_graph_regression.shortcut_rate([], "train"), "graphs is empty"),
    ],
)
def test_bad_arguments(call, match):
    with pytest.raises((ValueError, TypeError), match=match):
        call()


def test_bad_training_arguments(graphs):
    s = causal_graph_regression.GraphSet(graphs)
    with pytest.raises(ValueError, match=r"select_after \(5\) must be below epochs"):
        causal_graph_regression.fit(
            causal_graph_regression.make_model("erm", seed=0),
            causal_graph_regression.erm_loss,
            lambda e: [],
            s.full(),
            epochs=5,
            select_after=5,
        )
    with pytest.raises(ValueError, match="batch_size must be an int ≥ 2, got 1"):
        s.batches(1, torch.Generator())
    with pytest.raises(ValueError, match="idx must lie"):
        s.batch([0, 99])
    with pytest.raises(TypeError, match="CausalGIN"):
        causal_graph_regression.attention_by_part(
            causal_graph_regression.make_model("erm", seed=0), s.full()
        )


# --- the paper's I(C;G), attention temperature, the protocol ---------------------------
def test_embedding_info_is_half_the_mean_squared_norm():
    h = torch.tensor([[3.0, 4.0], [0.0, 2.0]])
    # ½ · mean(25, 4), and per width: / 2
    assert float(causal_graph_regression.embedding_info(h)) == pytest.approx(0.5 * 14.5)
    assert float(
        causal_graph_regression.embedding_info(h, per_width=True)
    ) == pytest.approx(0.5 * 14.5 / 2)
    # KL(N(μ, I) ‖ N(0, I)) for one graph equals ½‖μ‖²
    mu = torch.tensor([[0.3, -1.2, 2.0]])
    p = torch.distributions.Normal(mu, torch.ones_like(mu))
    q = torch.distributions.Normal(torch.zeros_like(mu), torch.ones_like(mu))
    kl = torch.distributions.kl_divergence(p, q).sum()
    assert float(causal_graph_regression.embedding_info(mu)) == pytest.approx(float(kl))


def test_bottleneck_samples_in_training_only_and_is_seeded(graphs):
    b = causal_graph_regression.GraphSet(graphs).batch(range(10))
    m = causal_graph_regression.make_model("cgr", seed=3, hidden=16).train()
    out = m(b)
    assert out.mu_causal is not None
    eps = out.h_causal - out.mu_causal
    assert eps.std().item() == pytest.approx(1.0, abs=0.15)  # ε ~ N(0, I)
    assert abs(eps.mean().item()) < 0.2
    # the same seed gives the same ε; a later draw gives another
    twin = causal_graph_regression.make_model("cgr", seed=3, hidden=16).train()
    assert torch.equal(twin(b).h_causal, out.h_causal)
    assert not torch.equal(m(b).h_causal, out.h_causal)
    m.seed_noise(3)
    assert torch.allclose(m(b).h_causal, out.h_causal)
    # eval mode: h_o = μ, and predict never adds noise
    m.eval()
    ev = m(b)
    assert torch.equal(ev.h_causal, ev.mu_causal)
    assert torch.allclose(m.predict(b), ev.y_causal)
    # noise 0: deterministic in training too; the noise scales ε
    det = causal_graph_regression.make_model(
        "cgr", seed=3, hidden=16, noise=0.0
    ).train()
    o = det(b)
    assert torch.equal(o.h_causal, o.mu_causal)
    half = causal_graph_regression.make_model(
        "cgr", seed=3, hidden=16, noise=0.5
    ).train()
    oh = half(b)
    assert torch.allclose(oh.h_causal - oh.mu_causal, 0.5 * eps, atol=1e-5)
    with pytest.raises(ValueError, match="noise must be a finite number ≥ 0, got -1.0"):
        causal_graph_regression.make_model("cgr", seed=0, hidden=8, noise=-1.0)


def test_cgr_loss_info_terms(graphs):
    model = causal_graph_regression.make_model("cgr", seed=0, hidden=16).train()
    b = causal_graph_regression.GraphSet(graphs).batch(range(10))
    out = model(b)
    emb = causal_graph_regression.CGRLoss().parts(out, b.y)["I(C;G)"]
    want = (
        0.5
        * causal_graph_regression.embedding_info(out.mu_causal, per_width=True).item()
    )
    assert emb.item() == pytest.approx(want)  # on μ, not on the noisy sample
    full = causal_graph_regression.CGRLoss(per_width=False).parts(out, b.y)["I(C;G)"]
    assert full.item() == pytest.approx(
        0.5 * causal_graph_regression.embedding_info(out.mu_causal).item()
    )
    kl = causal_graph_regression.CGRLoss(info="kl").parts(out, b.y)["I(C;G)"]
    assert kl.item() == pytest.approx(
        0.5 * causal_graph_regression.bernoulli_kl(out.node_att, 0.3).item()
    )


def test_attention_temperature_sharpens_the_split(graphs):
    b = causal_graph_regression.GraphSet(graphs).batch(range(10))
    soft = causal_graph_regression.make_model("cgr", seed=4, hidden=16).eval()
    sharp = causal_graph_regression.make_model(
        "cgr", seed=4, hidden=16, att_temperature=0.25
    ).eval()
    a1, a2 = (
        causal_graph_regression.node_attention(soft, b),
        causal_graph_regression.node_attention(sharp, b),
    )
    # same logits over a smaller temperature: further from ½, same side of it
    assert torch.all((a2 - 0.5).abs() >= (a1 - 0.5).abs() - 1e-7)
    assert torch.equal(a1 > 0.5, a2 > 0.5)


def test_make_splits_keeps_the_pairings():
    sp = causal_graph_regression.make_splits(
        np.random.default_rng(0), n_train=200, n_val=20, n_test=30, shortcut=0.9
    )
    assert list(sp) == list(causal_graph_regression.SPLITS)
    assert [len(v) for v in sp.values()] == [200, 20, 30, 30]
    assert causal_graph_regression.shortcut_rate(sp["train"], "train") > 0.8
    assert causal_graph_regression.shortcut_rate(sp["OOD test"], "reversed") > 0.7
    again = causal_graph_regression.make_splits(
        np.random.default_rng(0), n_train=200, n_val=20, n_test=30, shortcut=0.9
    )
    assert torch.equal(again["OOD test"][3].x, sp["OOD test"][3].x)
    weak = causal_graph_regression.make_splits(
        np.random.default_rng(1),
        n_train=300,
        n_val=5,
        n_test=5,
        shortcut=0.0,
        ood_shortcut=1.0,
    )
    assert causal_graph_regression.shortcut_rate(weak["train"], "train") == 0.0
    assert causal_graph_regression.shortcut_rate(weak["OOD val"], "reversed") == 1.0


def test_train_methods_rows_and_shared_start():
    sp = causal_graph_regression.make_splits(
        np.random.default_rng(2), n_train=32, n_val=8, n_test=8, shortcut=0.9
    )
    methods = {
        "ERM": causal_graph_regression.Method("erm", causal_graph_regression.erm_loss),
        "peer": causal_graph_regression.Method(
            "pyg-erm", causal_graph_regression.erm_loss
        ),
        "CGR": causal_graph_regression.Method("cgr", causal_graph_regression.CGRLoss()),
    }
    kw = dict(
        model_seed=1, batch_seed=2, hidden=8, layers=2, epochs=3, batch=8,
        select_after=1,
    )  # fmt: skip
    rows, models = causal_graph_regression.train_methods(sp, methods, **kw)
    assert [r["method"] for r in rows] == list(methods) == list(models)
    for r in rows:
        assert 1 < r["epoch"] <= 3 and r["IID"] > 0 and r["OOD"] > 0
    assert {"a_o cycle", "a_o base"} <= set(rows[2]) and "a_o cycle" not in rows[0]
    again, _ = causal_graph_regression.train_methods(sp, {"ERM": methods["ERM"]}, **kw)
    assert again[0]["OOD"] == pytest.approx(rows[0]["OOD"], abs=1e-6)
    with pytest.raises(ValueError, match="splits lacks"):
        causal_graph_regression.train_methods({"train": sp["train"]}, methods, **kw)
    with pytest.raises(TypeError, match="must be a Method"):
        causal_graph_regression.train_methods(
            sp, {"ERM": causal_graph_regression.erm_loss}, **kw
        )


def test_mechanism_search_tiny(tmp_path):
    base = dict(
        zip(
            causal_graph_regression.SETUP_KEYS,
            ("embedding", True, 1.0, 1.0, 1e-3, 3, 32, 2),
        )
    )
    setups = {"a": base, "b": dict(base, info="kl", noise=0.0, lr=3e-3)}
    kw = dict(n_val=8, n_test=8, hidden=8, batch=8, select_after=1, shortcut=0.9)
    path = tmp_path / "search.json"
    rec = causal_graph_regression.write_mechanism_search(
        path, setups=setups, seeds=[0, 1], commit="x", **kw
    )
    on_disk = json.loads(path.read_text())
    assert on_disk["commit"] == "x" and on_disk["params"]["seeds"] == [0, 1]
    assert on_disk["setups"] == setups and len(on_disk["rows"]) == 4
    for r in on_disk["rows"]:
        assert r["a_o cycle − base"] == pytest.approx(r["a_o cycle"] - r["a_o base"])
        assert r["IID"] > 0 and r["OOD"] > 0 and r["setup"] in setups
    assert on_disk["rows"] == json.loads(json.dumps(rec["rows"]))
    # seeded: the same set-up and seed give the same row
    again = causal_graph_regression.attention_search({"a": base}, [1], **kw)
    row = next(r for r in rec["rows"] if r["setup"] == "a" and r["seed"] == 1)
    assert again[0]["OOD"] == pytest.approx(row["OOD"], abs=1e-6)
    summ = causal_graph_regression.search_summary(on_disk)
    assert [s["setup"] for s in summ] == ["a", "b"]
    for s in summ:
        assert s["meets_gate"] == (min(s["gaps"]) >= 0.05)
    with pytest.raises(ValueError, match="exactly the keys"):
        causal_graph_regression.attention_search({"bad": {"info": "kl"}}, [0], **kw)
    with pytest.raises(ValueError, match="no rows"):
        causal_graph_regression.search_summary({"rows": []})
