import pytest
import torch

from repbook.core import nets


def _params(net):
    return [p.detach().clone() for p in net.parameters()]


def test_a_seed_gives_the_same_net_and_leaves_the_global_generator_alone():
    torch.manual_seed(123)
    before = torch.rand(1)
    torch.manual_seed(123)
    a = nets.mlp([4, 8, 3], seed=7)
    assert torch.equal(torch.rand(1), before)  # the global stream did not move
    b = nets.mlp([4, 8, 3], seed=7)
    assert all(torch.equal(x, y) for x, y in zip(_params(a), _params(b)))
    assert [type(m).__name__ for m in a] == ["Linear", "ReLU", "Linear"]
    c = nets.mlp([4, 8, 3], seed=8)
    assert not torch.equal(_params(a)[0], _params(c)[0])


def test_the_seed_path_is_pytorchs_default_initialisation_under_that_seed():
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(5)
        ref = torch.nn.Sequential(
            torch.nn.Linear(3, 6), torch.nn.ReLU(), torch.nn.Linear(6, 2)
        )
    net = nets.mlp([3, 6, 2], seed=5)
    assert all(torch.equal(x, y) for x, y in zip(_params(ref), _params(net)))


def test_a_generator_draws_the_default_distribution():
    net = nets.mlp([10, 5], generator=torch.Generator().manual_seed(0))
    w = net[0].weight
    assert w.abs().max() <= 1 / 10**0.5 and w.std() > 0
    again = nets.mlp([10, 5], generator=torch.Generator().manual_seed(0))
    assert torch.equal(again[0].weight, w)


def test_bad_arguments_are_named():
    with pytest.raises(ValueError, match="seed= or generator="):
        nets.mlp([2, 2])
    with pytest.raises(ValueError, match="an input and an output width"):
        nets.mlp([2], seed=0)
    with pytest.raises(
        ValueError, match="each layer width must be a positive int, got 0"
    ):
        nets.mlp([2, 0], seed=0)
    with pytest.raises(TypeError, match="generator must be a torch.Generator"):
        nets.default_init_(torch.nn.Linear(2, 2), 0)


def test_training_fits_a_separable_problem_and_is_repeatable():
    X = torch.randn(200, 2, generator=torch.Generator().manual_seed(1))
    y = (X[:, 0] > 0).long()

    def fit():
        net = nets.mlp([2, 16, 2], seed=0)
        opt = torch.optim.SGD(net.parameters(), lr=0.5)
        nets.train_epochs(
            net, opt, torch.nn.functional.cross_entropy, X, y, 20,
            torch.Generator().manual_seed(2), batch_size=32,
        )  # fmt: skip
        return net

    a, b = fit(), fit()
    assert nets.accuracy(a, X, y) > 0.95
    assert all(torch.equal(x, z) for x, z in zip(_params(a), _params(b)))
    with pytest.raises(ValueError, match="epochs must be an int ≥ 0"):
        nets.train_epochs(a, None, None, X, y, -1, torch.Generator())
    with pytest.raises(ValueError, match="one row per label"):
        nets.train_epochs(a, None, None, X, y[:3], 1, torch.Generator())


def test_single_threaded_restores_the_thread_count():
    before = torch.get_num_threads()
    with nets.single_threaded(preload=("json",)):
        assert torch.get_num_threads() == 1
    assert torch.get_num_threads() == before


def test_accuracy_is_the_exact_ratio_of_counts():
    net = torch.nn.Identity()
    X = torch.tensor([[1.0, 0.0], [0.0, 1.0], [1.0, 0.0]])
    assert nets.accuracy(net, X, torch.tensor([0, 1, 1])) == 2 / 3
