"""What a paper declares about reading its own verdicts: which runs switch its mechanism on (``Mechanism``: a claim
reading one is about the paper's method), and which refutations share one root cause (``RootCause``: counted once
as independent evidence)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

UNSET = object()  # a hyperparameter a run does not set (it trains with the method's default)


@dataclass(frozen=True)
class Mechanism:
    """The paper's mechanism is on in a run of registered method ``method`` unless the run's hyperparameters match
    one of ``off`` (each a {hyperparameter: value} set that together switches it off, e.g. AER's fixed coefficient:
    both components off). ``off`` values must differ from the method's defaults (tests/test_about.py), so a run that
    does not set a key trains with the mechanism on."""

    method: str
    off: tuple[Mapping[str, Any], ...] = ()

    def on(self, spec: Any) -> bool:
        """Whether ``spec`` (a ``settings.config.RunSpec``) trains with the mechanism switched on."""
        if spec.method != self.method:
            return False
        return not any(all(spec.hparams.get(k, UNSET) == v for k, v in switch.items()) for switch in self.off)

    def why(self, spec: Any) -> str:
        """Why ``spec`` does or does not count as the paper's method, in words."""
        if spec.method != self.method:
            return f"`{spec.name}` trains {spec.method}, not {self.method}"
        for switch in self.off:
            if all(spec.hparams.get(k, UNSET) == v for k, v in switch.items()):
                keys = ", ".join(f"{k}: {v}" for k, v in switch.items())
                return f"`{spec.name}` switches {self.method}'s mechanism off ({keys})"
        return f"`{spec.name}` trains {self.method} with its mechanism on"


@dataclass(frozen=True)
class RootCause:
    """Claims whose refutations share one cause (``cause``, in words): counted once as independent evidence.
    ``evidence(paper)``: a short sentence with the numbers that show the cause ('' for none)."""

    cause: str
    claims: tuple[str, ...]
    evidence: Callable[[Any], str] = field(default=lambda paper: "", compare=False)
