"""One change per comparison: the resolved settings of two runs, their difference, and the guard on it.

A run's resolved settings (``resolved_settings``) are flat keys: ``method`` (the registered name),
``method.<hparam>`` for every hyperparameter of its method with the default filled in (``log_*`` switches, which
only add logged metrics, are left out), ``train.<key>`` for every shared training setting after the run's
overrides (``train.seed`` is set per seed and left out), and ``train_data``.

A claim declares what its two runs may differ in (``differs_in``):

- ``"method"``: the method name, the hyperparameters only one of the two methods has, and those either method
  declares as part of its definition (``Method.defining_hparams``: DAPO's clip-higher ``eps_high``). Any other
  hyperparameter both methods have (a KL coefficient, the loss aggregation, a clip range) must be equal: that is
  what "the baseline shares the method's settings" means;
- ``"method.<hparam>"``, ``"train.<key>"``, ``"train_data"``: that one key.

``check_comparison`` raises ``ComparisonRefused`` (a ``NotTestable``: the claim is reported as not testable, with
the extra keys named) when the difference holds any other key. The base policy is untrained: a comparison with it
is about training as a whole and is not checked.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from typing import Any

from rlvr_lib.papers.framework.claims import NotTestable
from rlvr_lib.settings.papers import BASE_RUN

METHOD = "method"
NOT_TRAINING = ("train.seed",)  # set per training seed, not per run


class ComparisonRefused(NotTestable):
    """Two runs differ in more than the claim is about."""


def resolved_settings(params, run: str) -> dict[str, Any]:
    """The flat resolved settings of ``run`` (module docstring)."""
    from rlvr_lib.methods import build_method

    spec = params.runs[run]
    cfg = dataclasses.asdict(build_method(spec.method, spec.hparams).cfg)
    out: dict[str, Any] = {METHOD: spec.method}
    out.update({f"method.{k}": v for k, v in cfg.items() if not k.startswith("log_")})
    out.update({f"train.{k}": v for k, v in dataclasses.asdict(spec.train).items()})
    out["train_data"] = spec.train_data
    for key in NOT_TRAINING:
        out.pop(key, None)
    return out


def settings_difference(params, a: str, b: str) -> dict[str, tuple[Any, Any]]:
    """{key: (a's value, b's value)} of every key whose value differs or that only one run has."""
    sa, sb = resolved_settings(params, a), resolved_settings(params, b)
    missing = object()
    diff = {}
    for key in dict.fromkeys([*sa, *sb]):
        va, vb = sa.get(key, missing), sb.get(key, missing)
        if va != vb:
            diff[key] = (None if va is missing else va, None if vb is missing else vb)
    return diff


def defining(params, run: str) -> set[str]:
    """``method.<hparam>`` keys of the hyperparameters that define ``run``'s method (``Method.defining_hparams``)."""
    from rlvr_lib.methods import method_class

    return {f"method.{h}" for h in method_class(params.runs[run].method).defining_hparams}


def undeclared(params, a: str, b: str, differs_in: Iterable[str]) -> dict[str, tuple[Any, Any]]:
    """The part of ``settings_difference`` that ``differs_in`` does not allow (module docstring)."""
    allowed = set(differs_in)
    if METHOD in allowed:
        sa, sb = resolved_settings(params, a), resolved_settings(params, b)
        one_sided = {k for k in sa.keys() ^ sb.keys() if k.startswith("method.")}
        allowed |= {METHOD} | one_sided | defining(params, a) | defining(params, b)
    return {k: v for k, v in settings_difference(params, a, b).items() if k not in allowed}


def check_comparison(params, a: str, b: str, differs_in: Iterable[str]) -> None:
    """Raise ``ComparisonRefused`` naming every setting in which runs ``a`` and ``b`` differ beyond
    ``differs_in``; a comparison with the base policy is not checked."""
    if BASE_RUN in (a, b):
        return
    extra = undeclared(params, a, b, differs_in)
    if extra:
        listed = ", ".join(f"{k} ({va!r} vs {vb!r})" for k, (va, vb) in extra.items())
        raise ComparisonRefused(
            f"runs '{a}' and '{b}' differ in more than {sorted(set(differs_in))}: {listed}; a claim compares runs "
            "that differ only in what it is about"
        )
