"""Every paper module builds its report from synthetic pipeline outputs (no training): each experiment runs, each
claim gets a verdict, the folder is complete. The sampling parts (ERPO's perturbation study, AER's pass@k with many
samples, ERPO's count on the real files) are replaced by stand-ins here; the e2e test runs them for real."""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path

import numpy as np
import pytest
import yaml
from conftest import REPO
from paper_workspace import (
    HEADLINE_SEEDS,
    N_PROBLEMS,
    SEEDS,
    perturbation_seed,
    stub_real_files,
    write_samples,
)

from rlvr_lib import papers
from rlvr_lib.papers.framework import sampling
from rlvr_lib.papers.framework.captions import caption_for
from rlvr_lib.papers.framework.claims import VERDICTS, NotTestable, flatten
from rlvr_lib.papers.framework.output import SECTIONS
from rlvr_lib.papers.framework.references import REFERENCES
from rlvr_lib.settings.config import load_params, read_yaml
from rlvr_lib.settings.papers import ALL_PAPERS, PAPERS, paper_runs, repro_pairs


@pytest.fixture(scope="module")
def workspace(built_papers):
    """The synthetic workspace, every paper's report built in it (conftest's built_papers)."""
    return built_papers[0]


@pytest.fixture(scope="module")
def built(built_papers):
    """Every paper's report (built once per test process), the cwd in its workspace and ERPO's real-file count
    stubbed out for the module, as while they were built."""
    root, out, _ = built_papers
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(root)
        stub_real_files(patch)
        yield root, out


def test_every_paper_writes_a_complete_report_with_a_verdict_per_claim(built):
    root, out = built
    for name in ALL_PAPERS:
        paper, readme_path = out[name]
        folder = root / "reports/papers" / name
        assert readme_path == folder.relative_to(root) / "README.md"
        readme = (folder / "README.md").read_text()
        assert readme.index("## Claims") < readme.index("Verdict rule") < readme.index("## Evidence")
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


def test_every_report_header_gives_the_cheap_and_the_full_regeneration(built):
    """Issue 42: `dvc repro paper_<x>` alone retrains on a clone; the header names the report-only form first."""
    root, out = built
    params = load_params(root / "params.yaml")
    for name in ALL_PAPERS:
        header = (root / "reports/papers" / name / "README.md").read_text().splitlines()[2]
        pairs = sum(map(len, repro_pairs(params, name).values()))
        cheap, full = f"`dvc repro -s -f paper_{name}`", f"Retrain its {pairs} (run, seed) pairs first"
        assert cheap in header and full in header and f"`make repro PAPER={name}`" in header, header
        assert header.index(cheap) < header.index(full), header
    assert pairs == sum(len(spec.seeds) for spec in params.runs.values())  # the summary retrains every pair


def test_claims_pair_runs_and_use_the_declared_runs(built):
    _, out = built
    aer_paper = out["aer"][0]
    results = {r.claim.key: r for r in flatten(aer_paper.evaluate_claims())}
    e = results["pass1_vs_grpo"].estimate
    assert e.n_seeds == len(HEADLINE_SEEDS) and e.n_problems == N_PROBLEMS  # aer and grpo: headline runs
    # papers.aer.pass_at_k.n_seeds (3) of the sampled runs' own seeds, not of the top-level `seeds`
    assert results["passk_32_vs_grpo"].estimate.n_seeds == min(3, len(HEADLINE_SEEDS)) > len(SEEDS)
    assert results["passk_32_vs_grpo"].verdict == "not testable here"  # the stand-in pass@32 is 1.0: saturated
    assert results["k50_aime24"].verdict in VERDICTS and results["k50_aime24"].parts  # judged whole from its parts
    erpo_results = {r.claim.key: r for r in out["erpo"][0].evaluate_claims()}
    hubs = erpo_results["perturbation_hubs"]  # one study per seed's base policy: the t interval is over seeds
    assert hubs.estimate.n_seeds == len(HEADLINE_SEEDS)  # the sampled run's own seeds (papers.erpo...n_seeds 3)
    assert hubs.estimate.value == pytest.approx(np.mean([0.4 - 0.01 * s for s in HEADLINE_SEEDS]))  # top - bottom
    tepo_results = {r.claim.key: r for r in flatten(out["tepo"][0].evaluate_claims())}
    gpg = tepo_results["acc_vs_gpg"]  # GPG's run exists in the workspace: judged on it (two seeds: no verdict)
    assert gpg.verdict != "not run" and set(gpg.arms) == {"tepo_tepo_data", "gpg_tepo_data"}


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
    params = load_params(REPO / "params.yaml")
    with pytest.raises(ValueError, match="unknown paper"):
        papers.open_paper("ppo", params)
    params.papers = None
    with pytest.raises(ValueError, match="no 'papers' section"):
        papers.open_paper("erpo", params)


def test_every_declared_run_has_reports_in_the_workspace(workspace):
    params = load_params(workspace / "params.yaml")
    for name in ALL_PAPERS:
        for run in paper_runs(params.papers.paper(name)):
            assert (workspace / "reports/eval" / run / "seed0/results.json").is_file()


def headings(markdown: str) -> list[str]:
    """The level-2 headings of a Markdown text, outside fenced code blocks."""
    found, fenced = [], False
    for line in markdown.splitlines():
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced and line.startswith("## "):
            found.append(line[3:].strip())
    return found


def test_every_report_readme_has_the_seven_sections_in_order(built):
    root, _ = built
    for name in ALL_PAPERS:
        readme = (root / "reports/papers" / name / "README.md").read_text()
        assert headings(readme) == list(SECTIONS), name
        summary = readme.split("## Summary", 1)[1].split("## The method", 1)[0]
        bullets = [line for line in summary.splitlines() if line.startswith("- **")]
        assert bullets[0].startswith("- **Claims:**") and 4 <= len(bullets) <= 7, name  # one per category present
        assert "run with their papers' settings" not in readme, name
    for name in PAPERS:  # each paper's Summary cites it; its Setup table compares it with the testbed
        readme = (root / "reports/papers" / name / "README.md").read_text()
        assert REFERENCES[name].title in readme.split("## The method", 1)[0], name
        claims = next(line for line in readme.splitlines() if line.startswith("- **Claims:**"))  # reads as a sentence
        assert re.match(rf"- \*\*Claims:\*\* \d+ claims? of \*{re.escape(REFERENCES[name].title)}\* \([^)]+\)", claims)
        assert "| setting | paper | paper's source |" in readme, name
        assert "$$" in readme.split("## The method", 1)[1].split("## Setup", 1)[0], name


def test_every_table_and_figure_of_the_evidence_has_a_caption(built):
    _, out = built
    for name, (paper, _) in out.items():
        for section in paper.report.sections:
            for table in section.tables:
                assert table.caption or caption_for(name, table.name), (name, table.name)
            for rel, caption in section.figures:
                assert caption or caption_for(name, Path(rel).stem), (name, rel)
            lines = [v for k, v in paper.report.evidence_blocks(section.heading) if k == "text" and v.startswith("_")]
            assert len(lines) == len(set(lines)), (name, section.heading)  # a figure of a table says something new
    assert not caption_for("aer", "a_table_nobody_captioned")


def test_a_planted_section_order_fails_the_heading_check():
    text = "\n".join(f"## {h}\n\ntext" for h in SECTIONS)
    assert headings(text) == list(SECTIONS)
    swapped = (
        text.replace("## Discussion", "## X")
        .replace("## Limitations", "## Discussion")
        .replace("## X", "## Limitations")
    )
    assert headings(swapped) != list(SECTIONS)
    assert headings("```text\n## Claims\n```\n") == []


def test_every_paper_notebook_has_the_seven_sections_in_order():
    for name in ALL_PAPERS:
        nb = json.loads((REPO / f"notebooks/papers/{name}.ipynb").read_text())
        text = "\n".join(
            "".join(c["source"]) if isinstance(c["source"], list) else c["source"]
            for c in nb["cells"]
            if c["cell_type"] == "markdown"
        )
        assert headings(text) == list(SECTIONS), name


def evidence_headings(markdown: str) -> list[str]:
    """The level-3 headings of a Markdown text's Evidence section."""
    evidence = markdown.split("\n## Evidence", 1)[1].split("\n## Discussion", 1)[0]
    return [line[4:].strip() for line in evidence.splitlines() if line.startswith("### ")]


def test_every_paper_notebook_shows_each_experiment_under_its_readme_heading(built):
    """The notebook's Evidence is the README's: one subsection per experiment, in the README's order and under its
    heading, whose cell shows ``paper.evidence(<experiment>)``."""
    root, out = built
    for name in ALL_PAPERS:
        paper = out[name][0]
        nb = json.loads((REPO / f"notebooks/papers/{name}.ipynb").read_text())
        sources = ["".join(c["source"]) if isinstance(c["source"], list) else c["source"] for c in nb["cells"]]
        readme = (root / "reports/papers" / name / "README.md").read_text()
        expected = [getattr(type(paper), e).heading for e in paper.experiments()]
        assert evidence_headings(readme) == expected, name
        assert evidence_headings("\n".join(sources)) == expected, name
        shown = [m for s in sources for m in re.findall(r'show\(paper\.evidence\("(\w+)"\)\)', s)]
        assert shown == paper.experiments(), name


def test_evidence_gives_the_notebook_what_the_readme_shows(built):
    """``paper.evidence`` returns each text, table and caption line the README has for that experiment, and each of
    its figures as the PNG the report folder holds."""
    root, out = built
    for name in ALL_PAPERS:
        paper = out[name][0]
        folder = root / "reports/papers" / name
        readme = (folder / "README.md").read_text()
        for experiment in paper.experiments():
            section = paper.report.section(getattr(type(paper), experiment).heading)
            parts = paper.evidence(experiment)
            texts = [p for p in parts if isinstance(p, str)]
            pngs = [p for p in parts if isinstance(p, bytes)]
            assert texts and all(t in readme for t in texts), (name, experiment)
            assert pngs == [(folder / rel).read_bytes() for rel, _ in section.figures], (name, experiment)
            assert not any("Table: [markdown](tables/" in t for t in texts)  # links point from the report folder
    fig1b = out["erpo"][0].evidence("figure1b")  # returns its table to the caller; the notebook shows its figure too
    assert any(isinstance(p, bytes) for p in fig1b) and any(p.startswith("|") for p in fig1b if isinstance(p, str))


def test_sampling_study_missing_or_stale_names_the_stage_to_run(workspace, monkeypatch):
    monkeypatch.chdir(workspace)
    params = load_params("params.yaml")
    write_samples(params)
    assert sampling.load_study("aer_pass_at_k", params)["counts"]  # as written
    path = sampling.study_path("aer_pass_at_k")
    saved = path.read_text()
    path.unlink()
    with pytest.raises(NotTestable, match=r"reports/samples/aer_pass_at_k.json is not here: run `dvc repro sample_aer"):
        sampling.load_study("aer_pass_at_k", params)
    path.write_text(saved)
    raw = read_yaml("params.yaml")
    raw["papers"]["aer"]["pass_at_k"]["n"] = 128  # sampled with n = 256, asked for 128
    (workspace / "other.yaml").write_text(yaml.safe_dump(raw, sort_keys=False))
    other = load_params("other.yaml")
    with pytest.raises(NotTestable, match=r'was sampled with .*"n": 256.*params.yaml now gives .*"n": 128.*rerun'):
        sampling.load_study("aer_pass_at_k", other)


def test_run_study_writes_what_load_study_reads_and_nothing_when_sampling_fails(workspace, monkeypatch):
    monkeypatch.chdir(workspace)
    params = load_params("params.yaml")
    seeds = sampling.study_seeds("erpo_perturbation", params)
    monkeypatch.setattr(sampling, "run_perturbation", lambda p, s, seeds: [perturbation_seed(x) for x in seeds])
    path = sampling.run_study("erpo_perturbation", params)
    assert [s["seed"] for s in sampling.load_study("erpo_perturbation", params)["per_seed"]] == seeds
    before = path.read_bytes()

    def fails(p, s, seeds):
        raise FileNotFoundError("no base model in models/base/seed0")

    monkeypatch.setattr(sampling, "run_perturbation", fails)
    with pytest.raises(FileNotFoundError, match="models/base/seed0"):
        sampling.run_study("erpo_perturbation", params)
    assert path.read_bytes() == before  # the previous results stay whole


def test_opefo_static_lambda_must_be_the_testbeds_average_lambda(workspace, monkeypatch):
    from rlvr_lib.papers.opefo import measures as opefo_measures

    monkeypatch.chdir(workspace)
    raw = read_yaml("params.yaml")
    paper = papers.open_paper("opefo", load_params("params.yaml"))
    want = round(opefo_measures.testbed_lambda_mean(paper), 3)  # sec. 6.4: the average lambda* of the OPEFO runs
    run = paper.runs.static_lambda
    for value, ok in ((want, True), (round(want + 0.01, 3), False)):
        raw["methods"][run]["static_lambda"] = value
        (workspace / "static.yaml").write_text(yaml.safe_dump(raw, sort_keys=False))
        paper = papers.open_paper("opefo", load_params("static.yaml"))
        if ok:
            assert opefo_measures.static_run(paper) == run
        else:
            with pytest.raises(NotTestable, match=rf"set methods.{run}.static_lambda to {want:.3f}"):
                opefo_measures.static_run(paper)
