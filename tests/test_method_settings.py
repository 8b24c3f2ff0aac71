"""Method hyperparameters: checked once, generically, from each Config's annotations
(``rlvr_lib.settings.schema.build``),
every error naming ``methods.<run>.<key>``; every field documented for ``python -m rlvr_lib methods``."""

from __future__ import annotations

import dataclasses
import typing

import pytest
import torch

from rlvr_lib.__main__ import format_methods
from rlvr_lib.methods import available_methods, build_method, method_class
from rlvr_lib.settings.schema import choices


def fields_of(kind):
    """(method, field) pairs of every registered method whose annotation is ``kind`` ("choice": a Literal)."""
    out = []
    for name in available_methods():
        hints = typing.get_type_hints(method_class(name).Config)
        for f in dataclasses.fields(method_class(name).Config):
            hint = hints[f.name]
            if (kind == "choice" and choices(hint)) or hint is kind:
                out.append((name, f.name))
    return out


@pytest.mark.parametrize(("name", "key"), fields_of("choice"))
def test_a_value_outside_a_choice_is_rejected_naming_the_key(name, key):
    allowed = choices(typing.get_type_hints(method_class(name).Config)[key])
    with pytest.raises(ValueError) as err:
        build_method(name, {key: "bogus"}, path=f"methods.my_{name}")
    assert str(err.value) == f"methods.my_{name}.{key} must be one of {list(allowed)}, got 'bogus' (str)"


@pytest.mark.parametrize(("name", "key"), fields_of(float))
def test_a_string_or_a_bool_where_a_number_belongs_is_rejected(name, key):
    for value, shown in (("0.5", "'0.5' (str)"), (True, "True (bool)")):
        with pytest.raises(ValueError) as err:
            build_method(name, {key: value}, path=f"methods.{name}")
        assert str(err.value) == f"methods.{name}.{key} must be a number, got {shown}"


@pytest.mark.parametrize(("name", "key"), fields_of(bool))
def test_a_string_where_a_boolean_belongs_is_rejected(name, key):
    with pytest.raises(ValueError) as err:
        build_method(name, {key: "false"}, path=f"methods.{name}")
    assert str(err.value) == f"methods.{name}.{key} must be true or false, got 'false' (str)"


def test_examples_of_the_issue():
    with pytest.raises(ValueError, match=r"^methods\.aer\.tau must be a number, got '0\.5' \(str\)$"):
        build_method("aer", {"tau": "0.5"}, path="methods.aer")
    with pytest.raises(ValueError, match=r"^methods\.dapo\.scale_rewards must be true or false, got 'false'"):
        build_method("dapo", {"scale_rewards": "false"}, path="methods.dapo")
    with pytest.raises(ValueError, match=r"^methods\.e\.num_buckets must be an integer, got 4\.0 \(float\)$"):
        build_method("erpo", {"num_buckets": 4.0}, path="methods.e")
    with pytest.raises(ValueError, match=r"unknown key\(s\) \['methods\.g\.tau'\]; valid: \["):
        build_method("grpo", {"tau": 0.5}, path="methods.g")
    # without a path the method's name stands for it; ints are accepted as floats
    with pytest.raises(ValueError, match=r"^kl_cov\.loss_agg must be one of"):
        build_method("kl_cov", {"loss_agg": "mean"})
    assert build_method("aer", {"tau": 1}).cfg.tau == 1.0


def test_shared_checks_run_for_every_method():
    # adv_eps and beta are declared once (SharedConfig / ReferenceKLConfig) and checked for each method,
    # KL-Cov included (its checks used to skip the parent's)
    for name in available_methods():
        with pytest.raises(ValueError, match=rf"^{name}\.adv_eps must be >= 0"):
            build_method(name, {"adv_eps": -1.0})
    for name in ("grpo", "kl_cov", "cw_grpo", "erpo", "aer", "tepo"):
        with pytest.raises(ValueError, match=rf"^{name}\.beta must be >= 0"):
            build_method(name, {"beta": -0.1})


def test_every_field_has_a_help_text_and_is_printed():
    text = format_methods()
    for name in available_methods():
        for f in dataclasses.fields(method_class(name).Config):
            assert f.metadata.get("help"), f"{name}.{f.name} has no help text"
        assert f"{name}  [" in text
    assert "    tau = 0.4  (float)\n        eq. 10 reduction ratio" in text
    assert "    surrogate = 'ppo'  (one of ['ppo', 'eq4_literal', 'unclipped', 'cispo', 'prefix_is'])" in text


def test_metric_names_carry_the_method_prefix():
    assert build_method("aer").metric("alpha") == "aer/alpha"
    values = {"x": torch.tensor(0.5), "n": torch.tensor(3)}
    assert build_method("dapo").own_metrics(values) == {"dapo/x": 0.5, "dapo/n": 3.0}
