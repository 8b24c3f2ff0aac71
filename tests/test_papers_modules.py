"""Every paper module builds its report from synthetic pipeline outputs (no training): each experiment runs, each
claim gets a verdict, the folder is complete. The sampling parts (ERPO's perturbation study, AER's pass@k with many
samples, ERPO's count on the real files) are replaced by stand-ins here; the e2e test runs them for real."""

from __future__ import annotations

import csv
import json
import re

import pytest
from conftest import REPO
from paper_workspace import N_PROBLEMS, SEEDS, build_papers, build_workspace

from rlvr_lib import papers
from rlvr_lib.config import load_params
from rlvr_lib.papers.claims import VERDICTS, flatten
from rlvr_lib.papers.config import ALL_PAPERS, PAPERS, paper_runs


@pytest.fixture(scope="module")
def workspace(tmp_path_factory):
    return build_workspace(tmp_path_factory.mktemp("papers"))


@pytest.fixture()
def built(workspace, monkeypatch):
    return workspace, build_papers(workspace, monkeypatch)


def test_every_paper_writes_a_complete_report_with_a_verdict_per_claim(built):
    root, out = built
    for name in ALL_PAPERS:
        paper, readme_path = out[name]
        folder = root / "reports/papers" / name
        assert readme_path == folder.relative_to(root) / "README.md"
        readme = (folder / "README.md").read_text()
        assert readme.index("Verdict rule") < readme.index("## Claims") + 200 < len(readme)
        claims = list(csv.DictReader((folder / "claims.csv").open()))
        assert len(claims) == len(paper.declared_claims()), name
        assert (len(claims) == 0) == (name == "summary"), name  # the summary gathers the papers' claims, makes none
        assert all(row["verdict"] in VERDICTS for row in claims), name
        assert all(row["note"] for row in claims if row["verdict"] == "not testable here"), name
        links = re.findall(r"\]\(((?:tables|figures)/[^)]+)\)", readme)
        assert links and all((folder / rel).is_file() for rel in links), name
        for experiment in paper.experiments():  # every experiment left a section in the README
            assert f"## {getattr(type(paper), experiment).heading}" in readme, (name, experiment)
        assert not list((root / "reports/papers").glob(".staging*"))


def test_claims_pair_runs_and_use_the_declared_runs(built):
    _, out = built
    aer_paper = out["aer"][0]
    results = {r.claim.key: r for r in flatten(aer_paper.evaluate_claims())}
    e = results["pass1_vs_grpo"].estimate
    assert e.n_seeds == len(SEEDS) and e.n_problems == N_PROBLEMS
    assert results["passk_32_vs_grpo"].estimate.n_seeds == 3  # papers.aer.pass_at_k.n_seeds
    assert results["passk_32_vs_grpo"].verdict == "not testable here"  # the stand-in pass@32 is 1.0: saturated
    assert results["k50_aime24"].verdict in VERDICTS and results["k50_aime24"].parts  # judged whole from its parts
    erpo_results = {r.claim.key: r for r in out["erpo"][0].evaluate_claims()}
    assert erpo_results["perturbation_hubs"].verdict == "not testable here"  # one base policy: one seed
    assert erpo_results["perturbation_hubs"].estimate.value == pytest.approx(0.4)
    tepo_results = {r.claim.key: r for r in flatten(out["tepo"][0].evaluate_claims())}
    assert tepo_results["acc_vs_gpg"].verdict == "not testable here"


def test_summary_gathers_every_paper_claim(built):
    root, _ = built
    rows = list(csv.DictReader((root / "reports/papers/summary/tables/all_claims.csv").open()))
    per_paper = {
        name: len(list(csv.DictReader((root / f"reports/papers/{name}/claims.csv").open()))) for name in PAPERS
    }
    assert len(rows) == sum(per_paper.values())
    assert {row["paper_name"] for row in rows} == set(PAPERS)


def test_paper_notebooks_call_their_module_and_print_the_rule_before_results():
    for name in ALL_PAPERS:
        nb = json.loads((REPO / f"notebooks/papers/{name}.ipynb").read_text())
        sources = ["".join(c["source"]) if isinstance(c["source"], list) else c["source"] for c in nb["cells"]]
        code = [s for c, s in zip(nb["cells"], sources, strict=True) if c["cell_type"] == "code"]
        assert nb["cells"][1]["metadata"].get("tags") == ["parameters"], name
        assert f'papers.open_paper("{name}", params)' in "\n".join(code)
        rule = next(i for i, s in enumerate(code) if "verdict_rule()" in s)
        first_result = next(i for i, s in enumerate(code) if re.search(r"show\(paper\.(?!declared_claims)", s))
        assert rule < first_result, name
        assert "paper.write()" in code[-1]


def test_open_paper_errors():
    params = load_params(REPO / "params.yaml", check_methods=False)
    with pytest.raises(ValueError, match="unknown paper"):
        papers.open_paper("ppo", params)
    params.papers = None
    with pytest.raises(ValueError, match="no 'papers' section"):
        papers.open_paper("erpo", params)


def test_every_declared_run_has_reports_in_the_workspace(workspace):
    params = load_params(workspace / "params.yaml", check_methods=False)
    for name in ALL_PAPERS:
        for run in paper_runs(params.papers.paper(name)):
            assert (workspace / "reports/eval" / run / "seed0/results.json").is_file()
