"""The tuned protocol of issue 41: each arm's selected configuration (``select``) trained at the arm's own seeds
(``methods.<arm>.seeds``, the committed run's, normally 5) and evaluated on the evaluation split like every run.

The tuned run of arm ``a`` is ``tuned__<a>``: ``a``'s ``methods`` entry with the selected configuration's settings
applied (``space.Config.entry``) and ``a``'s seeds. When its settings are the committed run's (``same_settings``:
the same method, hyperparameters with their defaults resolved, train settings, training set and seeds; the
selection kept the literal transfer), it is not retrained: the tuned protocol reads the committed run ``a`` itself
(``protocol_run`` returns ``a``), which is exactly what a retraining would make from the same code and base policies,
and a verdict then cannot differ between the protocols by anything but the settings.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from rlvr_lib.methods.registry import method_class
from rlvr_lib.settings.config import Params, RunSpec, parse_run
from rlvr_lib.settings.papers import AerPaper, PapersConfig
from rlvr_lib.tuning.space import Config, check_run

TUNED_PREFIX = "tuned__"  # a tuned run's name: tuned__<arm>


def tuned_name(arm: str) -> str:
    return f"{TUNED_PREFIX}{arm}"


def tuned_spec(params: Params, raw: dict[str, Any], config: Config) -> RunSpec:
    """Run ``tuned__<arm>``: the arm's entry of ``raw`` (params.yaml's mapping, its profile applied) with
    ``config``'s settings and the arm's seeds, built and checked as any ``methods`` entry."""
    shared = {"seed": params.train.seed, **(raw.get("train") or {})}
    entry = config.entry(raw["methods"], params.runs[config.arm].seeds)
    return parse_run(tuned_name(config.arm), entry, shared, check_run)


def same_settings(a: RunSpec, b: RunSpec) -> bool:
    """Whether two runs train the same way: method, hyperparameters (defaults resolved), train settings, training
    set and seeds all equal (the names may differ)."""
    defaults = method_class(a.method).defaults() if a.method == b.method else {}
    return (
        a.method == b.method
        and {**defaults, **a.hparams} == {**defaults, **b.hparams}
        and a.train == b.train
        and a.train_data == b.train_data
        and a.seeds == b.seeds
    )


def protocol_run(params: Params, raw: dict[str, Any], config: Config) -> str:
    """The run the tuned protocol reads for ``config``'s arm when ``config`` is its selection: the committed run
    when ``same_settings``, else ``tuned__<arm>``."""
    same = same_settings(tuned_spec(params, raw, config), params.runs[config.arm])
    return config.arm if same else tuned_name(config.arm)


def tuned_papers(papers: PapersConfig | None, runs: dict[str, str]) -> PapersConfig | None:
    """``papers`` with each run of a paper's roles (and AER's pass@k runs) renamed by ``runs`` (arm -> its tuned
    run): the papers as the tuned protocol reads them, so that a tuned run is evaluated at the decodings of the papers
    that read its arm (``settings.papers.decodings_for_run``). The declared alternatives are the literal protocol's
    and stay."""
    if papers is None:
        return None

    def rename(value: Any) -> Any:
        return [runs.get(v, v) for v in value] if isinstance(value, list) else runs.get(value, value)

    replaced = {}
    for field in dataclasses.fields(papers):
        paper = getattr(papers, field.name)
        roles = {f.name: rename(getattr(paper.runs, f.name)) for f in dataclasses.fields(paper.runs)}
        paper = dataclasses.replace(paper, runs=dataclasses.replace(paper.runs, **roles))
        if isinstance(paper, AerPaper):
            paper = dataclasses.replace(
                paper, pass_at_k=dataclasses.replace(paper.pass_at_k, runs=rename(paper.pass_at_k.runs))
            )
        replaced[field.name] = paper
    return dataclasses.replace(papers, **replaced)


def with_tuned(params: Params, raw: dict[str, Any], configs: list[Config]) -> Params:
    """``params`` with the tuned run of each of ``configs`` (each arm's selection) that is not its committed run, and
    the papers renamed accordingly (``tuned_papers``)."""
    taken = [tuned_name(c.arm) for c in configs if tuned_name(c.arm) in params.runs]
    if taken:
        raise ValueError(f"methods.{taken[0]}: a run name starting '{TUNED_PREFIX}' is reserved for the tuned protocol")
    specs = {tuned_name(c.arm): tuned_spec(params, raw, c) for c in configs}
    specs = {name: s for name, s in specs.items() if not same_settings(s, params.runs[name.removeprefix(TUNED_PREFIX)])}
    runs = {name.removeprefix(TUNED_PREFIX): name for name in specs}
    return dataclasses.replace(params, runs={**params.runs, **specs}, papers=tuned_papers(params.papers, runs))
