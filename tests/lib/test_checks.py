import numpy as np
import pytest
import torch

from repbook.core import checks


def test_integer_accepts_numpy_ints_and_refuses_bools_and_out_of_range():
    assert checks.integer("n", np.int64(3), at_least=1) == 3
    with pytest.raises(ValueError, match=r"n must be a positive int, got True"):
        checks.integer("n", True, at_least=1)
    with pytest.raises(ValueError, match=r"k must be an int ≥ 0, got -1"):
        checks.integer("k", -1, at_least=0)
    with pytest.raises(ValueError, match=r"k must be an int in \[1, 5\], got 6"):
        checks.integer("k", 6, at_least=1, at_most=5)
    with pytest.raises(ValueError, match=r"k must be an int, got 2.0"):
        checks.integer("k", 2.0)


@pytest.mark.parametrize(
    "kw, bad, text",
    [
        (dict(above=0), 0, r"lr must be a finite number > 0, got 0"),
        (dict(at_least=0), -1e-9, r"lr must be a finite number ≥ 0"),
        (dict(above=0, below=1), 1.0, r"lr must be a number in \(0, 1\), got 1.0"),
        (dict(), float("inf"), r"lr must be a finite number, got inf"),
        (dict(), float("nan"), r"lr must be a finite number, got nan"),
        (dict(), "1", r"lr must be a finite number, got '1'"),
        (dict(), False, r"lr must be a finite number, got False"),
    ],
)
def test_number_names_the_argument_the_value_and_the_bound(kw, bad, text):
    with pytest.raises(ValueError, match=text):
        checks.number("lr", bad, **kw)


def test_number_accepts_what_it_should():
    assert checks.number("x", np.float32(0.5), above=0, below=1) == 0.5
    assert checks.number("x", 3, at_least=3) == 3.0
    assert checks.number("x", float("inf"), finite=False) == float("inf")
    assert checks.probability("p", 1) == 1.0
    with pytest.raises(ValueError, match=r"p must be a number in \[0, 1\]"):
        checks.probability("p", 1.5)
    with pytest.raises(ValueError, match="not both"):
        checks.number("x", 1, at_least=0, above=0)


def test_generators_and_functions():
    rng = np.random.default_rng(0)
    assert checks.generator("rng", rng) is rng
    with pytest.raises(
        TypeError, match=r"rng must be a numpy.random.Generator, got int"
    ):
        checks.generator("rng", 0)
    g = torch.Generator()
    assert checks.torch_generator("g", g) is g
    with pytest.raises(TypeError, match=r"g must be a torch.Generator, got Generator"):
        checks.torch_generator("g", rng)
    assert checks.function("f", len) is len
    with pytest.raises(TypeError, match=r"f must be a stream → generator, got int"):
        checks.function("f", 3, "a stream → generator")


def test_arrays_lengths_and_choices():
    a = checks.array("X", [[1, 2], [3, 4]], ndim=2)
    assert a.dtype == np.float64 and a.shape == (2, 2)
    with pytest.raises(ValueError, match=r"X must be 1-D, got shape \(2, 2\)"):
        checks.array("X", a, ndim=1)
    with pytest.raises(ValueError, match="X must not be empty"):
        checks.array("X", [])
    assert checks.array("X", [], empty=True).size == 0
    with pytest.raises(ValueError, match="X must be finite"):
        checks.array("X", [1.0, np.nan])
    with pytest.raises(ValueError, match="X must be an array of numbers"):
        checks.array("X", ["a"])
    assert checks.same_length(a=[1, 2], b=(3, 4)) == 2
    with pytest.raises(
        ValueError, match=r"a and b must have the same length, got a 2, b 1"
    ):
        checks.same_length(a=[1, 2], b=[3])
    assert checks.one_of("kind", "mc", ("mc", "ln")) == "mc"
    with pytest.raises(ValueError, match=r"kind must be one of 'mc', 'ln', got 'x'"):
        checks.one_of("kind", "x", ("mc", "ln"))
