"""rlvr_lib.settings.schema: settings dataclasses built from mappings, each bad value named by its key path."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Annotated, Literal

import pytest

from rlvr_lib.settings.schema import Bounds, Seed, build, choices, field_help, require


@dataclass
class Inner:
    levels: list[int] = field(default_factory=lambda: [1, 2])
    mode: Literal["a", "b"] = "a"


@dataclass
class Outer:
    rate: float = 0.1
    steps: int = 3
    flag: bool = False
    name: str = "x"
    limit: int | None = None
    pair: tuple[int, ...] = (1, 2)
    seed: Seed = 0
    samples: Annotated[int, Bounds(None, 100, "a test's bound")] = 4
    table: dict[str, float] = field(default_factory=dict)
    inner: Inner = field(default_factory=Inner, metadata={"help": "nested settings"})

    def __post_init__(self) -> None:
        require(self.steps >= 1, "steps", f"must be >= 1, got {self.steps}")


def test_valid_values_are_normalised():
    out = build(Outer, {"rate": 1, "limit": 4, "pair": [3, 4], "inner": {"mode": "b"}}, "sec")
    assert out.rate == 1.0 and isinstance(out.rate, float)
    assert out.pair == (3, 4) and out.inner == Inner(mode="b")
    assert build(Outer, None, "sec") == Outer()


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ({"rate": "1e-4"}, "sec.rate must be a number, got '1e-4' (str)"),
        ({"rate": True}, "sec.rate must be a number"),
        ({"steps": 2.5}, "sec.steps must be an integer"),
        ({"steps": "4"}, "sec.steps must be an integer"),
        ({"flag": "false"}, "sec.flag must be true or false, got 'false'"),
        ({"name": 3}, "sec.name must be a string"),
        ({"limit": "x"}, "sec.limit must be an integer"),
        ({"pair": 3}, "sec.pair must be a list"),
        ({"inner": {"levels": [1, "2"]}}, "sec.inner.levels[1] must be an integer"),
        ({"inner": {"mode": "c"}}, "sec.inner.mode must be one of ['a', 'b'], got 'c'"),
        ({"inner": {"bogus": 1}}, "unknown key(s) ['sec.inner.bogus']"),
        ({"inner": 5}, "sec.inner must be a mapping"),
        ({"steps": 0}, "sec.steps must be >= 1, got 0"),
        ({"trian": 1}, "unknown key(s) ['sec.trian']"),
        ({"rate": float("inf")}, "sec.rate must be a finite number, got inf"),
        ({"rate": float("-inf")}, "sec.rate must be a finite number, got -inf"),
        ({"rate": float("nan")}, "sec.rate must be a finite number, got nan"),
        ({"rate": 10**400}, "sec.rate must be a finite number"),
        ({"table": {"a": float("inf")}}, "sec.table.a must be a finite number"),
        ({"seed": 2**32}, "sec.seed must lie in [0, 4294967295] (numpy's seed range), got 4294967296"),
        ({"seed": -1}, "sec.seed must lie in [0, 4294967295]"),
        ({"samples": 101}, "sec.samples must be <= 100 (a test's bound), got 101"),
        ({"table": {7: 1.0}}, "sec.table.7: YAML read this key as the number 7, not a name"),
        ({"table": {"a": 1.0, None: 2.0}}, "sec.table.None: YAML read this key as the value None"),
        ({False: 1}, "sec.False: YAML read this key as the boolean False"),
    ],
)
def test_bad_values_name_their_key_path(values, message):
    with pytest.raises(ValueError) as err:
        build(Outer, values, "sec")
    assert message in str(err.value)


def test_literal_does_not_confuse_bool_and_int():
    @dataclass
    class Flags:
        x: Literal[1, 2] = 1

    with pytest.raises(ValueError, match="must be one of"):
        build(Flags, {"x": True}, "f")


def test_choices_and_help():
    assert choices(Literal["a", "b"]) == ("a", "b")
    assert choices(Literal["a"] | None) == ("a",)
    assert choices(int) is None
    assert field_help(Outer)["inner"] == "nested settings"
