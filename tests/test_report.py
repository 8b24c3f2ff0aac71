"""Report tables, figures and README from synthetic histories and evaluation results."""

import json
import os
import re

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from rlvr_lib.eval import write_results
from rlvr_lib.render import plots, tables
from rlvr_lib.reporting import main_page

N = 8  # samples per problem: pass@1, 2, 4, 8
STEPS = 10
BENCHMARKS = ("math500", "aime24")
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def history(entropy: np.ndarray, accuracy: np.ndarray, extra: dict[str, np.ndarray]) -> list[dict]:
    """Per-step dicts as train_method writes them."""
    rows = []
    for i in range(STEPS):
        row = {
            "step": i + 1,
            "reward": float(accuracy[i]),
            "accuracy": float(accuracy[i]),
            "entropy/mean": float(entropy[i]),
            "entropy/p10": float(entropy[i] / 10),
            "entropy/p50": float(entropy[i] / 2),
            "entropy/p90": float(entropy[i] * 3),
            "entropy/current": float(entropy[i]),
            "completions/mean_length": 40.0 + i,
            "kl_to_reference": 0.01 * i,
            "clip_ratio/low": 0.0,
            "clip_ratio/high": 0.01,
            "clip_ratio/region": 0.01,
            "grad_norm": 1.0 / (i + 1),
            "step_time": 2.0,
            "rewards/accuracy_reward/mean": float(accuracy[i]),  # a TRL key: generic, not a method quantity
        }
        rows.append(row | {k: float(v[i]) for k, v in extra.items()})
    return rows


STEP = np.arange(STEPS)
HISTORIES = {
    "grpo": history(2.0 * 0.9**STEP, 0.1 + 0.05 * STEP, {}),
    "erpo": history(
        np.full(STEPS, 1.5), 0.2 + 0.02 * STEP, {"erpo/gate_mean": 0.5 + 0.01 * STEP, "erpo/psi_std": np.ones(STEPS)}
    ),
}


COUNTS = {  # correct samples (of N = 8) per problem, for each run and training seed, on math500
    "base": {0: [0] * 10 + [4] * 10},  # mean@8 0.25, pass@8 0.5
    "grpo": {0: [0] * 5 + [4] * 10 + [8] * 5},  # mean@8 0.5, pass@8 0.75
    "erpo": {0: [0] * 4 + [8] * 16, 1: [0] * 8 + [8] * 12},  # mean@8 0.8 and 0.6 -> 0.7; pass@8 likewise
}
LENGTH = {"base": 50.0, "grpo": 45.0, "erpo": 40.0}


def eval_result(counts: list[int], length: float, seed: int) -> dict:
    """An evaluate_benchmark() result with the given per-problem counts (metrics recomputed by the loader)."""
    per_problem = [
        {"uid": f"p{i}", "n": N, "c": c, "n_formatted": N, "mean_length": length, "mean_entropy": 0.7}
        for i, c in enumerate(counts)
    ]
    settings = {
        "n": N,
        "ks": [1, 2, 4, 8],
        "temperature": 1.0,
        "top_p": 1.0,
        "max_new_tokens": 64,
        "batch_size": 8,
        "seed": seed,
        "n_boot": 100,
    }
    return {"n_problems": len(counts), "settings": settings, "metrics": {}, "per_problem": per_problem}


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    root = tmp_path_factory.mktemp("runs")
    run_dirs, result_dirs = {}, {}
    for run, rows in HISTORIES.items():
        run_dirs[run] = {}
        for seed in COUNTS[run]:
            run_dirs[run][seed] = root / "train" / run / f"seed{seed}"
            run_dirs[run][seed].mkdir(parents=True)
            shifted = [{**r, "entropy/mean": r["entropy/mean"] * (1 + seed)} for r in rows]  # seed 1: twice the entropy
            (run_dirs[run][seed] / "history.json").write_text(json.dumps(shifted))
    for run, by_seed in COUNTS.items():
        result_dirs[run] = {}
        for seed, counts in by_seed.items():
            result_dirs[run][seed] = root / "eval" / run / f"seed{seed}"
            aime = [max(c - 4, 0) for c in counts]
            write_results(
                {"math500": eval_result(counts, LENGTH[run], seed), "aime24": eval_result(aime, LENGTH[run], seed)},
                result_dirs[run][seed],
            )
    return tables.load_histories(run_dirs), main_page.load_eval_results(result_dirs)


PARAMS = {"model": "tiny", "train": {"max_steps": STEPS, "learning_rate": 1e-4}}


@pytest.fixture(scope="module")
def report_dir(data, tmp_path_factory):
    out = tmp_path_factory.mktemp("reports")
    main_page.write_report(out, *data, title="Synthetic replication", params_summary=PARAMS)
    return out


def expected_files() -> list[str]:
    figures = ["training_dynamics", "entropy_quantiles", "method_erpo", *(f"pass_at_k_{b}" for b in BENCHMARKS)]
    tables = [f"results_{b}.{ext}" for b in BENCHMARKS for ext in ("md", "csv")]
    return [*(f"figures/{f}.png" for f in figures), *(f"tables/{t}" for t in tables), "README.md"]


def test_loaders_shape(data):
    histories, evals = data
    assert sorted(histories["run"].unique()) == ["erpo", "grpo"]
    assert len(histories) == 3 * STEPS and list(histories.columns[:2]) == ["run", "seed"]
    assert sorted(histories.loc[histories["run"] == "erpo", "seed"].unique()) == [0, 1]
    assert histories.loc[histories["run"] == "grpo", "erpo/gate_mean"].isna().all()
    assert list(evals.columns) == list(main_page.EVAL_COLUMNS)
    assert len(evals) == 3 * len(BENCHMARKS) * 8  # runs x benchmarks x (4 pass@k + 4 other metrics)
    assert evals.groupby("run")["n_seeds"].first().to_dict() == {"base": 1, "erpo": 2, "grpo": 1}


@pytest.mark.parametrize(
    "loader, name", [(tables.load_histories, "history.json"), (main_page.load_eval_results, "results.json")]
)
def test_missing_file_is_named(loader, name, tmp_path):
    (tmp_path / "empty").mkdir()
    with pytest.raises(FileNotFoundError, match=re.escape(str(tmp_path / "empty" / name))):
        loader({"grpo": {0: tmp_path / "empty"}})


def test_seeds_on_other_problems_are_refused(tmp_path):
    write_results({"math500": eval_result([1, 2], 40.0, 0)}, tmp_path / "s0")
    write_results({"math500": eval_result([1, 2, 3], 40.0, 1)}, tmp_path / "s1")
    with pytest.raises(ValueError, match="run 'grpo', benchmark 'math500': seed result 1 was evaluated on other"):
        main_page.load_eval_results({"grpo": {0: tmp_path / "s0", 1: tmp_path / "s1"}})


def test_results_table_numbers(data):
    histories, evals = data
    table = main_page.results_table(evals, histories, "math500").set_index("run")
    assert list(table.index) == ["base", "grpo", "erpo"]
    assert {"mean@8", "pass@8", "pass@8_ci_low", "pass@8_ci_high", "response_length"} <= set(table.columns)
    assert "pass@1" not in table.columns  # mean@8 is the unbiased pass@1: not repeated
    assert table.loc["erpo", "pass@8"] == pytest.approx((0.8 + 0.6) / 2)  # mean over seeds
    # Student t over the two per-seed means (0.8, 0.6) on the logit scale, mapped back: it stays inside [0, 1]
    z = np.log(np.array([0.8, 0.6]) / (1 - np.array([0.8, 0.6])))
    half = stats.t.ppf(0.975, 1) * z.std(ddof=1) / np.sqrt(2)
    assert table.loc["erpo", "pass@8_ci_low"] == pytest.approx(1 / (1 + np.exp(-(z.mean() - half))))
    assert table.loc["erpo", "pass@8_ci_high"] == pytest.approx(1 / (1 + np.exp(-(z.mean() + half))))
    assert 0 <= table.loc["erpo", "pass@8_ci_low"] and table.loc["erpo", "pass@8_ci_high"] <= 1
    assert table.loc["erpo", "n_seeds"] == 2 and table.loc["grpo", "n_seeds"] == 1  # seeds per run, not the first
    assert table.loc["grpo", "mean@8"] == pytest.approx(0.5)
    assert table.loc["grpo", "pass@8_ci_low"] == -np.inf  # one seed: an infinite interval
    assert table.loc["grpo", "pass@8"] == pytest.approx(0.75)
    assert table.loc["base", "mean@8"] == pytest.approx(0.25)
    assert table.loc["base", "pass@8"] == pytest.approx(0.5)
    assert table.loc["base", "response_length"] == pytest.approx(50.0)
    # grpo entropy 2 * 0.9^i, i = 0..9: mean of the last 5 steps over the first
    assert table.loc["grpo", "entropy_retained"] == pytest.approx((0.9**5 + 0.9**6 + 0.9**7 + 0.9**8 + 0.9**9) / 5)
    assert table.loc["erpo", "entropy_retained"] == pytest.approx(1.0)  # each seed's ratio is 1
    assert table.loc["grpo", "train_accuracy"] == pytest.approx(0.1 + 0.05 * 7)  # mean of steps 6..10
    assert np.isnan(table.loc["base", "entropy_retained"]) and np.isnan(table.loc["base", "train_accuracy"])
    aime = main_page.results_table(evals, histories, "aime24").set_index("run")
    assert aime.loc["grpo", "pass@8"] == pytest.approx(0.25)  # aime24: counts 4 lower, floored at 0


def test_results_table_unknown_benchmark(data):
    with pytest.raises(ValueError, match="gsm8k"):
        main_page.results_table(data[1], data[0], "gsm8k")


def test_markdown_table_lists_every_run(report_dir):
    text = (report_dir / "tables" / "results_math500.md").read_text()
    rows = [line for line in text.splitlines() if line.startswith("| ") and "---" not in line][1:]
    assert [r.split("|")[1].strip() for r in rows] == ["base", "grpo", "erpo"]
    assert "0.700 [" in rows[2]  # erpo pass@8, mean over its two seeds
    assert rows[0].count(main_page.MISSING) == 2  # base: no entropy retained, no train accuracy
    header = text.splitlines()[0]
    assert header == "| run | seeds | mean@8 | pass@8 | entropy retained | train accuracy |"  # fits 1,000 px
    assert [r.split("|")[2].strip() for r in rows] == ["1", "1", "2"]  # each run's own seeds
    csv = pd.read_csv(report_dir / "tables" / "results_math500.csv")
    assert csv.loc[csv["run"] == "erpo", "pass@8"].item() == pytest.approx(0.7)
    assert csv.loc[csv["run"] == "erpo", "response_length"].item() == pytest.approx(40.0)  # in the CSV only


def test_every_file_written(report_dir):
    for rel in expected_files():
        path = report_dir / rel
        assert path.is_file() and path.stat().st_size > 0, rel
        if rel.endswith(".png"):
            assert path.read_bytes()[:8] == PNG_MAGIC, rel
    assert not (report_dir / "figures" / "method_grpo.png").exists()  # grpo logs no quantities of its own
    assert not list(report_dir.rglob("*.tmp"))


def test_readme_links_resolve(report_dir):
    text = (report_dir / "README.md").read_text()
    links = re.findall(r"\]\(([^)]+)\)", text)
    assert {link for link in links if link.endswith(".png")} == {f for f in expected_files() if f.endswith(".png")}
    for link in links:
        assert (report_dir / link).is_file(), link
    assert "make repro" in text and "# Synthetic replication" in text and "train.learning_rate" in text
    for run in COUNTS:
        assert f"| {run} |" in text
    assert "*Seeds*: the run's training seeds" in text and "training seeds)" not in text  # no global count
    assert text.index("## Results") < text.index("## Runs and settings") < text.index("<details>")
    assert text.index("<details>") < text.index("train.learning_rate") < text.index("</details>")


def test_styles_fixed_per_method_and_variants_told_apart():
    styles = plots.run_styles({"grpo": "grpo", "erpo": "erpo", "grpo_8updates": "grpo", "grpo_cw": "grpo"})
    assert styles == plots.run_styles({"erpo": "erpo", "grpo_8updates": "grpo", "grpo": "grpo", "grpo_cw": "grpo"})
    assert styles["base"].color == "black" and styles["base"].linestyle == "--"
    assert styles["grpo"] == plots.method_style("grpo") and styles["grpo"].linestyle == "-"
    assert styles["grpo_8updates"].color == styles["grpo"].color != styles["erpo"].color
    assert len({styles[r].linestyle for r in ("grpo", "grpo_8updates", "grpo_cw")}) == 3
    assert plots.method_of("kl_cov_8updates") == "kl_cov" and plots.method_of("grpo_onpolicy") == "grpo_onpolicy"
    with pytest.raises(ValueError, match="no figure style"):
        plots.run_styles({"x": "unknown_method"})


def test_ema_and_method_keys(data):
    values = pd.Series([1.0, np.nan, 3.0])
    assert plots.ema(values, 0.5).tolist() == [1.0, 1.0, 2.0]
    assert plots.ema(values, 1.0).tolist() == [1.0, 1.0, 3.0]
    histories = data[0]
    assert plots.method_keys(histories[histories["run"] == "erpo"]) == ["erpo/gate_mean", "erpo/psi_std"]
    assert plots.method_keys(histories[histories["run"] == "grpo"]) == []


def snapshot(folder) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def test_failed_plot_leaves_previous_report_untouched(data, report_dir, monkeypatch):
    before = snapshot(report_dir)

    def broken(*args, **kwargs):
        raise RuntimeError("plot failed")

    monkeypatch.setattr(plots, "plot_pass_at_k", broken)
    with pytest.raises(RuntimeError, match="plot failed"):
        main_page.write_report(report_dir, *data, title="Synthetic replication", params_summary=PARAMS)
    assert snapshot(report_dir) == before


def test_failed_write_leaves_previous_report(data, tmp_path, monkeypatch):
    rendered = main_page.render_report(*data, title="Synthetic replication", params_summary=PARAMS)
    assert sorted(rendered) == sorted(expected_files()) and list(rendered)[-1] == "README.md"
    main_page.write_report(tmp_path, *data, title="Synthetic replication", params_summary=PARAMS)
    before = snapshot(tmp_path)
    real_replace, calls = os.replace, []

    def fail_late(src, dst):  # the staged files are written, then moving the second folder into place fails
        calls.append(dst)
        if len(calls) == len(rendered) + 3:  # once: the rollback of publish succeeds
            raise OSError("disk full")
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", fail_late)
    with pytest.raises(OSError, match="disk full"):
        main_page.write_report(tmp_path, *data, title="Another title", params_summary=PARAMS)
    assert snapshot(tmp_path) == before  # the previous report, whole; no staging folder or temp file left


def test_rewrite_drops_figures_of_runs_no_longer_drawn(data, tmp_path):
    main_page.write_report(tmp_path, *data, title="Synthetic replication", params_summary=PARAMS)
    assert (tmp_path / "figures" / "method_erpo.png").is_file()
    main_page.write_report(tmp_path, *data, title="Synthetic replication", params_summary=PARAMS, figure_runs=["grpo"])
    assert not (tmp_path / "figures" / "method_erpo.png").exists()
    text = (tmp_path / "README.md").read_text()
    assert "The 1 core methods (`grpo`)" in text and "| erpo |" in text  # the tables keep every run
    with pytest.raises(ValueError, match=r"figure runs \['dapo'\] have no training history"):
        main_page.render_report(*data, title="T", params_summary=PARAMS, figure_runs=["dapo"])


def test_base_only_report(data, tmp_path):
    """No trained run yet: pass@k figures and tables only, every README link resolves."""
    evals = data[1][data[1]["run"] == "base"]
    main_page.write_report(tmp_path, tables.load_histories({}), evals, title="Base only", params_summary={})
    assert sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*.png")) == [
        f"figures/pass_at_k_{b}.png" for b in sorted(BENCHMARKS)
    ]
    text = (tmp_path / "README.md").read_text()
    assert "Training dynamics" not in text
    for link in re.findall(r"\]\(([^)]+)\)", text):
        assert (tmp_path / link).is_file(), link


def test_paper_reports_are_linked_first(data):
    files = main_page.render_report(
        *data,
        title="Synthetic replication",
        params_summary=PARAMS,
        papers=[("erpo", "ERPO: replication"), ("summary", "Summary")],
    )
    readme = files["README.md"].decode()
    assert "- [ERPO: replication](papers/erpo/README.md)" in readme
    assert readme.index("## Paper replications") < readme.index("## Results") < readme.index("## Runs and settings")
    without = main_page.render_report(*data, title="Synthetic replication", params_summary=PARAMS)["README.md"]
    assert b"Paper replications" not in without


def claims_csv(folder, paper: str, rows: list[tuple[str, str, str]]) -> None:
    """A claims.csv of (key, parent, verdict) rows, the columns the verdict table reads."""
    (folder / paper).mkdir(parents=True)
    pd.DataFrame(rows, columns=["key", "parent", "verdict"]).to_csv(folder / paper / "claims.csv", index=False)


def test_verdict_table_opens_the_readme(data, tmp_path):
    claims_csv(tmp_path, "erpo", [("a", "", "holds"), ("b", "", "does not hold"), ("b1", "b", "holds")])
    claims_csv(tmp_path, "aer", [("c", "", "inconclusive")])
    papers = [("erpo", "ERPO: replication"), ("aer", "AER: replication"), ("summary", "Summary")]
    verdicts = main_page.paper_verdicts(tmp_path, papers[:2])
    assert verdicts.set_index("paper").loc["erpo"].to_dict() == {
        "holds": 1,  # the part b1 of the conjunctive claim b is not counted
        "does not hold": 1,
        "inconclusive": 0,
        "method failed": 0,
        "not testable here": 0,
        "not run": 0,
        "claims": 2,
    }
    readme = main_page.render_report(*data, title="T", params_summary=PARAMS, papers=papers, verdicts=verdicts)[
        "README.md"
    ].decode()
    assert readme.index("## Which claims hold") < readme.index("## Results")
    assert "| [ERPO: replication](papers/erpo/README.md) | 1 | 1 | 0 | 0 | 0 | 0 | 2 |" in readme
    assert "- [Summary](papers/summary/README.md)" in readme


@pytest.mark.parametrize(
    "rows, columns, message",
    [
        ([("a", "", "holds")], ["key", "verdict"], r"no column\(s\) \['parent'\]: it predates this code"),
        ([("a", "", "maybe")], ["key", "parent", "verdict"], r"column 'verdict' has unknown value\(s\) \['maybe'\]"),
    ],
)
def test_bad_claims_csv_is_named(tmp_path, rows, columns, message):
    (tmp_path / "erpo").mkdir()
    pd.DataFrame([r[: len(columns)] if len(columns) == 3 else (r[0], r[2]) for r in rows], columns=columns).to_csv(
        tmp_path / "erpo" / "claims.csv", index=False
    )
    with pytest.raises(ValueError, match=re.escape(str(tmp_path / "erpo" / "claims.csv")) + ": " + message):
        main_page.paper_verdicts(tmp_path, [("erpo", "ERPO")])
    with pytest.raises(FileNotFoundError, match=r"aer/claims.csv: run the paper's stage first \(dvc repro paper_aer\)"):
        main_page.paper_verdicts(tmp_path, [("aer", "AER")])
