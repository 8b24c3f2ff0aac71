"""Claims as declarations: a claim names its measure; the measure is called with the paper when the claim is judged.

``measure(fn, *args, **kwargs)`` declares a claim's measure: ``fn(paper, *args, **kwargs)`` returns the estimate of
d (or raises ``NotTestable`` / ``NotRun``). ``fn`` is either one of the shared measures below (``SHARED``: what
several papers compute alike) or a function of the paper's own measures module (``rlvr_lib.papers.<paper>.
measures``); ``check_declared`` refuses anything else (a lambda, a bound method, another paper's function), so a
paper's claims module holds declarations only and every computation has a name a reader can look up.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from rlvr_lib.papers.framework.claims import BEYOND, Estimate, NotTestable, estimate_of
from rlvr_lib.papers.framework.guard import METHOD
from rlvr_lib.papers.framework.results import ACCURACY


@dataclass(frozen=True)
class Measure:
    """A claim's declared measure: ``fn(paper, *args, **kwargs)``."""

    fn: Callable[..., Any]
    args: tuple[Any, ...] = ()
    kwargs: tuple[tuple[str, Any], ...] = ()

    def bind(self, paper: Any) -> Callable[[], Any]:
        """The measure of ``paper``, called without arguments by the claims engine."""
        return functools.partial(self.fn, paper, *self.args, **dict(self.kwargs))

    @property
    def name(self) -> str:
        return f"{self.fn.__module__}.{self.fn.__qualname__}"


def measure(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Measure:
    """Declare a claim's measure: ``fn(paper, *args, **kwargs)`` (``fn`` shared or of the paper's measures module)."""
    return Measure(fn, tuple(args), tuple(sorted(kwargs.items())))


# ----------------------------------------------------------------------------- shared measures: fn(paper, ...)
def compare(paper: Any, a: str, b: str, metric: str = ACCURACY, differs_in: tuple[str, ...] = (METHOD,)) -> Estimate:
    """Paired-by-seed difference of evaluation ``metric`` between runs ``a`` and ``b`` (``RunResults.compare``)."""
    return paper.results.compare(a, b, metric, differs_in)


def compare_history(
    paper: Any,
    a: str,
    b: str,
    fn: Callable[[pd.DataFrame], float],
    digits: int = 3,
    differs_in: tuple[str, ...] = (METHOD,),
) -> Estimate:
    """Paired-by-seed difference of a per-seed history quantity ``fn`` (``RunResults.compare_history``)."""
    return paper.results.compare_history(a, b, fn, digits, differs_in)


def per_seed(
    paper: Any, run: str, fn: Callable[..., float], *args: Any, digits: int = 3, shift: float = 0.0, named: bool = True
) -> Estimate:
    """One run's per-seed history quantity ``fn(history, *args)`` (+ ``shift``), its seeds named (a universal claim
    names the seed that refutes it); the run is shown with its '(diverged)' mark unless ``named`` is False."""
    seeds = paper.results.seeds_of(run)
    values = paper.results.per_seed(run, (lambda h: fn(h, *args)) if args else fn, seeds)
    if shift:
        values = values + shift
    label = paper.results.label(run) if named else run
    return estimate_of(values, detail=f"{label}: per seed {np.round(values, digits).tolist()}", seeds=seeds)


def compare_on_levels(paper: Any, a: str, b: str, metric: str, differs_in: tuple[str, ...] = (METHOD,)) -> Estimate:
    """Paired difference of ``metric`` on the problems at the level(s) both runs trained on
    (``RunResults.compare_on_levels``)."""
    return paper.results.compare_on_levels(a, b, metric, differs_in)


def single_run(paper: Any, run: str, fn: Callable[[pd.DataFrame], float]) -> Estimate:
    """One run's per-seed history quantity ``fn`` (``PaperBase.single_run``)."""
    return paper.single_run(run, fn)


def unavailable(paper: Any, reason: str, kind: str = BEYOND) -> Estimate:
    """A claim the testbed cannot test: raises ``NotTestable(reason, kind)``."""
    raise NotTestable(reason, kind)


def null_value(paper: Any, value: float, what: str) -> Estimate:
    """A no-op form of a mechanism as a claim's null: d as the no-op gives it, ``value`` exactly (``what`` says which
    no-op, e.g. 'a kernel w = 1 down-weights no token: share 0')."""
    return Estimate(float(value), float(value), float(value), 0, None, what, 0.0, exact=True, per_seed=(float(value),))


SHARED: dict[str, Callable[..., Any]] = {
    f.__name__: f for f in (compare, compare_history, compare_on_levels, per_seed, single_run, unavailable, null_value)
}


def register(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Add ``fn`` to the shared measures (a measure several papers compute alike)."""
    SHARED[fn.__name__] = fn
    return fn


def check_declared(paper_name: str, key: str, declared: Any) -> None:
    """Raise unless claim ``key``'s measure is a ``Measure`` of a shared measure or of the paper's measures module."""
    if not isinstance(declared, Measure):
        raise TypeError(
            f"claim {key} of {paper_name}: its measure must be declared with measure(fn, *args) (a named function), "
            f"not {type(declared).__name__}"
        )
    fn = declared.fn
    own = f"rlvr_lib.papers.{paper_name}.measures"
    if SHARED.get(getattr(fn, "__name__", "")) is fn:
        return
    if getattr(fn, "__module__", "") == own and "<" not in fn.__qualname__ and "." not in fn.__qualname__:
        return
    raise TypeError(
        f"claim {key} of {paper_name}: measure {declared.name} is neither a shared measure "
        f"(rlvr_lib.papers.framework.declare.SHARED) nor a module-level function of {own}"
    )


def undeclared_nulls(paper: Any) -> list[str]:
    """The keys of ``paper``'s claims with a measure but no declared null (a run, the base policy, the contrast arm,
    a no-op form of the mechanism, or ``claims.Formula``); a claim the testbed cannot test needs none."""
    out = []
    for claim, compute in paper._claims:
        declared = paper.declared_measures.get(claim.key)
        if compute is None or (isinstance(declared, Measure) and declared.fn is unavailable):
            continue
        if claim.null is None:
            out.append(claim.key)
    return out
