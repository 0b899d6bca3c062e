import pytest

from repbook.core.params import SCALES, ParameterError, validate_parameters

DEFAULTS = {"scale": "quick", "seed": 0, "lr": 0.1, "verbose": False, "name": "x"}


def test_defaults_pass_through():
    assert validate_parameters({}, DEFAULTS) == DEFAULTS


def test_overrides_merge_and_int_widens_to_float():
    out = validate_parameters({"scale": "full", "lr": 1}, DEFAULTS)
    assert out["scale"] == "full" and out["lr"] == 1.0 and isinstance(out["lr"], float)


@pytest.mark.parametrize("bad", ["bogus", "QUICK", ""])
def test_unknown_scale_names_the_parameter_and_choices(bad):
    with pytest.raises(ParameterError, match=r"'scale' must be one of 'quick', 'full'"):
        validate_parameters({"scale": bad}, DEFAULTS)


@pytest.mark.parametrize("bad", [-1, 1.5, "3", True])
def test_bad_seed(bad):
    with pytest.raises(ParameterError, match="seed"):
        validate_parameters({"seed": bad}, DEFAULTS)


def test_unknown_name_lists_accepted_ones():
    with pytest.raises(
        ParameterError, match=r"unknown parameter\(s\) 'nope'.*scale, seed"
    ):
        validate_parameters({"nope": 1}, DEFAULTS)


def test_wrong_type_names_parameter_and_types():
    with pytest.raises(
        ParameterError, match=r"'verbose' must be of type bool.*got 1 of type int"
    ):
        validate_parameters({"verbose": 1}, DEFAULTS)
    with pytest.raises(ParameterError, match=r"'lr' must be of type float"):
        validate_parameters({"lr": "fast"}, DEFAULTS)


def test_scales_are_quick_and_full():
    assert SCALES == ("quick", "full")
