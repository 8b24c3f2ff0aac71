"""The numbers README.md, docs/testbed.md and docs/budgets.md quote, written from the files they come from.

Each quoted figure sits in a marked block of those files, on lines of its own (tables, lists)::

    <!-- generated:NAME -->

    ...text written by BLOCKS[NAME] from reports/ (or params.yaml)...

    <!-- /generated:NAME -->

or inside a sentence, after some text (one line): ``Size: <!-- generated:NAME -->...<!-- /generated:NAME -->``.

``python -m rlvr_lib.pipeline.doc_numbers`` rewrites every block from the committed ``reports/`` and params.yaml (run it
after regenerating the reports; ``make repro`` runs it last); ``--check`` lists the blocks whose text differs and exits
1 (``tests/test_doc_numbers.py`` runs the same comparison). Counts of runs and (run, seed) pairs come from params.yaml,
the testbed's figures from ``reports/testbed/properties.json``, the training-set filters' counts from
``reports/data_filters/seed<N>/filters.json``, the methods' results from ``reports/tables/results_testbed.csv``, the
papers' citations from ``rlvr_lib.papers.framework.references`` (the same as the paper reports and ``python -m rlvr_lib
methods``), the budgets from the measurement records of ``docs/budgets.yaml`` and the pairs' measured times
(``rlvr_lib.pipeline.budgets``).
"""

from __future__ import annotations

import argparse
import csv
import json
import re
import sys
from collections.abc import Callable
from pathlib import Path

import yaml

DOCS = ("README.md", "docs/testbed.md", "docs/budgets.md")
BLOCK = re.compile(r"(<!-- generated:(?P<name>[\w-]+) -->)(?P<body>.*?)(<!-- /generated:(?P=name) -->)", re.S)


# ----------------------------------------------------------------------------- sources
def _params(root: Path) -> dict:
    return yaml.safe_load((root / "params.yaml").read_text(encoding="utf-8"))


def _properties(root: Path) -> dict:
    return json.loads((root / "reports/testbed/properties.json").read_text(encoding="utf-8"))


def _run_seeds(params: dict) -> dict[str, list[int]]:
    default = list(params.get("seeds") or [])
    return {run: list((entry or {}).get("seeds") or default) for run, entry in params["methods"].items()}


def _interval(stat: dict, digits: int = 2) -> str:
    return f"{stat['value']:.{digits}f} [{stat['ci_low']:.{digits}f}, {stat['ci_high']:.{digits}f}]"


def _span(values: list[float], fmt: str = "{:.2f}") -> str:
    """``lo-hi`` of ``values`` in ``fmt`` (one value when both print alike); percentages as ``7-31%``."""
    lo, hi = fmt.format(min(values)), fmt.format(max(values))
    if lo == hi:
        return lo
    return f"{lo[:-1]}-{hi}" if lo.endswith("%") else f"{lo}-{hi}"


def _lr(value: float) -> str:
    mantissa, exponent = f"{value:.1e}".split("e")
    return f"{mantissa.rstrip('0').rstrip('.')}e{int(exponent)}"


def _count(n: int) -> str:
    return f"{n:,}"


def _per_seed(props: dict) -> list[tuple[str, dict]]:
    return sorted(props["grpo_per_seed"].items(), key=lambda item: int(item[0]))


# ----------------------------------------------------------------------------- blocks
def protocol(root: Path) -> str:
    """The protocol's size, from params.yaml."""
    params = _params(root)
    seeds = _run_seeds(params)
    pairs = sum(len(s) for s in seeds.values())
    widest = max(len(s) for s in seeds.values())
    headline = sum(1 for s in seeds.values() if len(s) == widest)
    bases = sorted({n for s in seeds.values() for n in s})
    return (
        f"{len(seeds)} runs and {pairs} (run, seed) pairs: {headline} headline runs on {widest} seeds, the others on "
        f"{len(params.get('seeds') or [])}; one base policy per training seed ({len(bases)})."
    )


def testbed_grpo(root: Path) -> str:
    """README: what plain GRPO does on the testbed (reports/testbed/properties.json)."""
    props, params = _properties(root), _params(root)
    n, seeds = props["n"], _per_seed(props)
    ratios = [s["entropy_ratio"] for _, s in seeds]
    base, grpo = props["base"], props["grpo"]
    crossed = sum(r < 0.4 for r in ratios)
    target = (
        "in every seed, so AER's 0.4 target is crossed and AER acts"
        if crossed == len(ratios)
        else (f"in its seeds; AER's 0.4 target is crossed in {crossed} of {len(ratios)}")
    )
    base_pass, grpo_pass = base[f"pass@{n}"]["value"], grpo[f"pass@{n}"]["value"]
    if grpo_pass <= base_pass + 0.02:
        coverage = "does not rise", ": RL exploits rare successes rather than widening coverage"
    else:
        coverage = "rises", ""
    return (
        f"Plain GRPO on it ({params['train']['max_steps']} steps, {len(seeds)} seeds) shows what the five papers "
        f"start from. Its mean@{n} goes from {base[f'mean@{n}']['value']:.2f} to {_interval(grpo[f'mean@{n}'])}. "
        f"Its rollouts' token entropy falls to {_span(ratios)} of the first step's {target}. Its pass@{n} "
        f"{coverage[0]} ({base_pass:.2f} -> {_interval(grpo[f'pass@{n}'])}){coverage[1]}."
    )


def filters(root: Path) -> str:
    """README: how many problems each paper's training-set filter keeps, over the training seeds."""
    files = sorted((root / "reports/data_filters").glob("seed*/filters.json"), key=lambda p: int(p.parent.name[4:]))
    sets = [json.loads(f.read_text(encoding="utf-8"))["sets"] for f in files]
    total = sets[0]["erpo"]["counts"]["input"]
    erpo = [s["erpo"]["counts"]["solution_length"] for s in sets]
    tepo = [s["tepo"]["counts"]["kept"] for s in sets]
    traps = [s["tepo"]["breakdowns"]["v3 kind"]["kept"].get("trap", 0) for s in sets]
    all_traps = sets[0]["tepo"]["breakdowns"]["v3 kind"]["input"]["trap"]
    fmt = "{:,}"
    return (
        f"Kept over the {len(sets)} training seeds (`reports/data_filters/seed<N>/`), of {_count(total)} problems: "
        f"ERPO's rule {_span(erpo, fmt)}; TEPO's {_span(tepo, fmt)}, among them only {_span(traps, fmt)} of the "
        f"{_count(all_traps)} traps."
    )


def plots(root: Path) -> str:
    """README: what `dvc plots show` draws (reports/plots)."""
    folders = sorted(p for p in (root / "reports/plots").iterdir() if p.is_dir())
    charts = sum(len(list(f.glob("*.csv"))) for f in folders)
    return (
        f"{charts} charts: {', '.join(f.name for f in folders)} (each: "
        f"{', '.join(sorted(p.stem for p in folders[0].glob('*.csv')))})."
    )


def papers(root: Path) -> str:
    """README: the papers table (rlvr_lib.papers.framework.references)."""
    from rlvr_lib.papers.framework.references import REFERENCES

    names = {"erpo": "ERPO", "cw_grpo": "CW-GRPO", "tepo": "TEPO", "opefo": "OPEFO", "aer": "AER"}
    lines = ["| name | paper |", "|---|---|"]
    lines += [f"| {names[key]} | {ref.markdown()} |" for key, ref in REFERENCES.items()]
    return "\n".join(lines)


def testbed_intro(root: Path) -> str:
    props, params = _properties(root), _params(root)
    kinds = props["base"]["by_kind"]
    ev = params["eval"]
    seeds = [int(s) for s, _ in _per_seed(props)]
    return (
        f"From the committed [`reports/testbed/README.md`](../reports/testbed/README.md) (`dvc repro "
        f"testbed_properties`, part of `make repro`): eval split of {props['n_problems']} problems "
        f"({kinds['plain']['n_problems']} plain sums, {kinds['trap']['n_problems']} traps), n = {props['n']} samples "
        f"per problem, T = {ev['temperature']}, top-p {ev['top_p']}, {ev['max_new_tokens']} new tokens; pass@k by "
        f"the unbiased estimator for every k = 1..{props['n']}. Intervals are 95% percentile bootstraps: over "
        f"problems for the base policy, two-way over seeds x problems for GRPO and for the GRPO - base differences "
        f"(per problem, against the base evaluation). GRPO: `train@{{{','.join(map(str, seeds))}}}` of "
        f"`pipelines/{params['testbed_properties']['run']}/dvc.yaml` ({params['train']['max_steps']} steps, lr "
        f"{_lr(params['train']['learning_rate'])})."
    )


def testbed_properties(root: Path) -> str:
    """docs/testbed.md: the measured-properties table."""
    props = _properties(root)
    n, seeds = props["n"], _per_seed(props)
    base, grpo, met = props["base"], props["grpo"], props["targets"]
    ids = ", ".join(s for s, _ in seeds)

    def yes(key: str) -> str:
        return "yes" if met[key]["met"] else "**no**"

    gains = ", ".join(f"{s['mean_gain']:+.3f}" for _, s in seeds)
    pass_gains = ", ".join(f"{s['pass_gain']:+.3f}" for _, s in seeds)
    ratios = ", ".join(f"{s['entropy_ratio']:.3f}" for _, s in seeds)
    rows = [
        "| property | target | measured | met |",
        "|---|---|---|---|",
        f"| base mean@{n} | {met['base_mean']['rule']} | **{_interval(base[f'mean@{n}'], 3)}** | {yes('base_mean')} |",
        f"| base pass@{n} | {met['base_pass']['rule']} | **{_interval(base[f'pass@{n}'], 3)}** | {yes('base_pass')} |",
        f"| GRPO rollout entropy, last batches / first | {met['entropy_ratio']['rule']} | **{ratios}** (seeds {ids}) "
        f"| {yes('entropy_ratio')} |",
        f"| GRPO eval mean@{n} - base | {met['mean_gain']['rule']} | **{gains}**; mean "
        f"{_interval(grpo[f'mean@{n}'], 3)}, difference {_interval(grpo['mean_gain'], 3)} | {yes('mean_gain')} |",
        f"| GRPO pass@{n} - base (sharpening) | {met['sharpening']['rule']} | **{_interval(grpo['pass_gain'], 3)}** "
        f"(seeds: {pass_gains}) | {yes('sharpening')} |",
    ]
    pert = props.get("perturbation") or {}
    if pert:
        uni, pol = pert["uniform"], pert["policy"]
        rows.append(
            "| ERPO fig. 1(b): accuracy after perturbing the top / bottom 5% entropy tokens of correct base responses "
            f"| report both | uniform replacement **{_interval(uni['accuracy']['top'], 3)}** vs "
            f"**{_interval(uni['accuracy']['bottom'], 3)}**, difference "
            f"{_interval(uni['difference_bottom_minus_top'], 3)}; policy replacement "
            f"{_interval(pol['accuracy']['top'], 3)} vs {_interval(pol['accuracy']['bottom'], 3)} "
            f"({uni['n_responses']} responses) | reported |"
        )
    return "\n".join(rows)


def testbed_passk(root: Path) -> str:
    """docs/testbed.md: pass@k of the base and of each GRPO seed at k = 1, 2, 4, ..., n."""
    props = _properties(root)
    curves = props["pass_at_k"]
    ks = [k for k in range(1, props["n"] + 1) if k & (k - 1) == 0]
    rows = ["| k | " + " | ".join(map(str, ks)) + " |", "|---|" + "---|" * len(ks)]
    labels = [("base", "base")] + [(f"GRPO seed {s}", key) for s in (s for s, _ in _per_seed(props)) for key in [s]]
    for label, key in labels:
        curve = curves.get(key) or curves.get(f"grpo_seed{key}") or curves.get(f"seed{key}")
        if curve is None:
            continue
        rows.append(f"| {label} | " + " | ".join(f"{curve[k - 1]:.3f}" for k in ks) + " |")
    return "\n".join(rows)


def testbed_by_kind(root: Path) -> str:
    props = _properties(root)
    n, seeds = props["n"], _per_seed(props)
    base = props["base"]["by_kind"]
    plain = [s["by_kind"]["plain"][f"mean@{n}"]["value"] for _, s in seeds]
    trap = [s["by_kind"]["trap"][f"mean@{n}"]["value"] for _, s in seeds]
    trap_pass = ", ".join(f"{s['by_kind']['trap'][f'pass@{n}']['value']:.3f}" for _, s in seeds)
    return (
        f"By kind: plain sums go from mean@{n} {base['plain'][f'mean@{n}']['value']:.3f} to {_span(plain)} (pass@{n} "
        f"{base['plain'][f'pass@{n}']['value']:.3f} for the base); traps from {base['trap'][f'mean@{n}']['value']:.3f} "
        f"to {_span(trap)}, with pass@{n} {base['trap'][f'pass@{n}']['value']:.3f} for the base and {trap_pass} for "
        f"the {len(seeds)} seeds."
    )


def testbed_reading(root: Path) -> str:
    """docs/testbed.md: the figures the reading of the table quotes."""
    props, params = _properties(root), _params(root)
    n, seeds = props["n"], _per_seed(props)
    base, grpo = props["base"], props["grpo"]
    ratios = [s["entropy_ratio"] for _, s in seeds]
    gains = [s["pass_gain"] for _, s in seeds]
    below, above = sum(g < -0.02 for g in gains), sum(g > 0.02 for g in gains)
    trap_ltr = [s["routes"]["trap"]["left_to_right"]["accuracy"] for _, s in seeds]
    base_ltr = base["routes"]["trap"]["left_to_right"]["accuracy"]
    steps = params["train"]["max_steps"]
    alpha = []
    for history in sorted((root / "reports/training/aer").glob("seed*/history.json")):
        values = [row.get("aer/alpha", 0.0) or 0.0 for row in json.loads(history.read_text(encoding="utf-8"))]
        alpha.append((sum(v != 0 for v in values), max(values)))
    lines = [
        f"- **Headroom and collapse.** The base solves {base[f'mean@{n}']['value']:.0%} of samples and "
        f"{base[f'pass@{n}']['value']:.0%} of problems at k = {n}; GRPO's mean@{n} is "
        f"{grpo[f'mean@{n}']['value'] / base[f'mean@{n}']['value']:.1f}x the base's, and its rollouts keep "
        f"{_span(ratios)} of their first-step entropy, so AER's target (0.4) is crossed in "
        f"{sum(r < 0.4 for r in ratios)} of {len(ratios)} seeds."
    ]
    if alpha:
        moved = sum(a > 0 for a, _ in alpha)
        lines.append(
            f"  AER's alpha moves in {moved} of its {len(alpha)} seeds (`aer/alpha` in "
            f"`reports/training/aer/seed*/history.json`: non-zero on {_span([a for a, _ in alpha], '{:d}')} of "
            f"{steps} steps, up to {_span([m for _, m in alpha])})."
        )
    lines.append(
        f"- **Sharpening at the top of the curve.** GRPO's pass@{n} minus the base's is below -0.02 in {below}, "
        f"within 0.02 in {len(gains) - below - above} and above +0.02 in {above} of {len(gains)} seeds. On traps, "
        f"samples that start left to right are correct {_span(trap_ltr, '{:.0%}')} of the time after GRPO against "
        f"{base_ltr:.0%} before (the route below)."
    )
    pert = props.get("perturbation") or {}
    if pert:
        acc = {kind: pert[kind]["accuracy"] for kind in ("uniform", "policy")}
        ctrl = {kind: pert[kind]["control_accuracy"] for kind in ("uniform", "policy")}
        top = [acc[k]["top"]["value"] for k in acc]
        bottom = [acc[k]["bottom"]["value"] for k in acc]
        lines.append(
            f"- **Forks matter.** Perturbing one of the 5% highest-entropy tokens of a correct base response leaves "
            f"{_span(top, '{:.0%}')} correct answers, one of the 5% lowest-entropy tokens {_span(bottom, '{:.0%}')}. "
            f"The control (token kept, rest regenerated) stays correct "
            f"{_span([ctrl[k]['top']['value'] for k in ctrl], '{:.0%}')} (top) and "
            f"{_span([ctrl[k]['bottom']['value'] for k in ctrl], '{:.0%}')} (bottom) of the time."
        )
    return "\n".join(lines)


def method_results(root: Path) -> str:
    """docs/testbed.md: the summary's methods on the testbed (reports/tables/results_testbed.csv)."""
    params = _params(root)
    methods = ["base", *params["papers"]["summary"]["runs"]["methods"]]
    rows = {r["run"]: r for r in csv.DictReader((root / "reports/tables/results_testbed.csv").open(encoding="utf-8"))}
    mean = next(c for c in next(iter(rows.values())) if c.startswith("mean@") and "_ci_" not in c)
    seeds = _run_seeds(params)
    out = [f"| run | seeds | {mean} | entropy retained |", "|---|---|---|---|"]
    for run in methods:
        row = rows[run]
        value = f"{float(row[mean]):.3f} [{float(row[mean + '_ci_low']):.3f}, {float(row[mean + '_ci_high']):.3f}]"
        kept = f"{float(row['entropy_retained']):.2f}" if row.get("entropy_retained") else "-"
        n = len(sorted({s for ss in seeds.values() for s in ss})) if run == "base" else len(seeds[run])
        out.append(f"| {run} | {n} | {value} | {kept} |")
    return "\n".join(out)


def budgets_table(root: Path) -> str:
    """README: the Budgets table (docs/budgets.yaml's records and the estimates of ``make repro``)."""
    from rlvr_lib.pipeline.budgets import readme_table

    return readme_table(root)


def budgets_estimate(root: Path) -> str:
    """docs/budgets.md: how the ``make repro`` estimates are computed, and their table."""
    from rlvr_lib.pipeline.budgets import estimate_text

    return estimate_text(root)


BLOCKS: dict[str, Callable[[Path], str]] = {
    "protocol": protocol,
    "testbed-grpo": testbed_grpo,
    "filters": filters,
    "plots": plots,
    "papers": papers,
    "testbed-intro": testbed_intro,
    "testbed-properties": testbed_properties,
    "testbed-passk": testbed_passk,
    "testbed-by-kind": testbed_by_kind,
    "testbed-reading": testbed_reading,
    "method-results": method_results,
    "budgets": budgets_table,
    "budgets-estimate": budgets_estimate,
}


# ----------------------------------------------------------------------------- rewriting
def rewrite(text: str, root: Path, where: str = "") -> tuple[str, list[str]]:
    """``text`` with every generated block rewritten from ``root``; also the names of the blocks that changed."""
    changed: list[str] = []

    def fill(match: re.Match) -> str:
        name = match.group("name")
        if name not in BLOCKS:
            raise ValueError(f"{where}: unknown generated block '{name}'; known: {', '.join(BLOCKS)}")
        text = BLOCKS[name](root).strip("\n")
        if match.group("body").startswith("\n"):  # a block of lines
            body = f"\n\n{text}\n\n"
        elif "\n" in text:
            raise ValueError(f"{where}: block '{name}' is inline but its text has several lines")
        else:
            body = text
        if body != match.group("body"):
            changed.append(name)
        return match.group(1) + body + match.group(4)

    return BLOCK.sub(fill, text), changed


def differences(root: str | Path = ".") -> list[str]:
    """One line per generated block whose committed text differs from what its sources give."""
    root = Path(root)
    out = []
    for doc in DOCS:
        _, changed = rewrite((root / doc).read_text(encoding="utf-8"), root, doc)
        out += [f"{doc}: block '{name}' differs from its sources" for name in changed]
    return out


def write(root: str | Path = ".") -> list[str]:
    root = Path(root)
    out = []
    for doc in DOCS:
        path = root / doc
        text, changed = rewrite(path.read_text(encoding="utf-8"), root, doc)
        if changed:
            path.write_text(text, encoding="utf-8")
            out += [f"{doc}: rewrote block '{name}'" for name in changed]
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m rlvr_lib.pipeline.doc_numbers", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--root", type=Path, default=Path("."), help="the repository root")
    parser.add_argument("--check", action="store_true", help="list the blocks that differ and exit 1 if any")
    args = parser.parse_args(argv)
    try:
        lines = differences(args.root) if args.check else write(args.root)
    except (OSError, ValueError, KeyError) as err:
        print(f"error: {type(err).__name__}: {err}", file=sys.stderr)
        return 2
    print("\n".join(lines) if lines else "the quoted numbers agree with their sources")
    return 1 if args.check and lines else 0


if __name__ == "__main__":
    sys.exit(main())
