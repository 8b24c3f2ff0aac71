"""Every figure of the project, rendered on small synthetic data, checked on the saved figure: titles, axis labels and
legends inside the canvas, x and y labels on every axis that shows data, at least two labelled ticks per axis, no
twin axes. Figures are found, not listed: every figure made by ``plots.new_figure`` while the test builds the paper
reports (every experiment of every paper), the main report (every figure maker) and every registered ``plots``
function is checked, and a static check keeps figures from being made any other way."""

from __future__ import annotations

import io
import re

import matplotlib as mpl
import pandas as pd
import pytest
from conftest import REPO
from paper_workspace import record_figures

from rlvr_lib.methods.registry import available_methods
from rlvr_lib.render import plots
from rlvr_lib.reporting import main_page
from rlvr_lib.settings.papers import ALL_PAPERS

TOLERANCE_PX = 1.0
# figure making outside plots.new_figure (or twin axes) anywhere in the package
FORBIDDEN = re.compile(r"\bFigure\(|\bsubplots\(|\bpyplot\b|\btwin[xy]\(")


def _texts(fig) -> list[tuple[str, mpl.artist.Artist]]:
    """(what, artist) of every title, label, text and legend that must lie inside the canvas."""
    out = [("suptitle", fig._suptitle)] if fig._suptitle is not None else []
    out += [("figure legend", legend) for legend in fig.legends]
    out += [("figure text", text) for text in fig.texts]
    for i, ax in enumerate(fig.axes):
        out += [(f"axes {i} title", ax.title), (f"axes {i} x label", ax.xaxis.label)]
        out += [(f"axes {i} y label", ax.yaxis.label), *((f"axes {i} text", text) for text in ax.texts)]
        out += [(f"axes {i} legend", ax.get_legend())] if ax.get_legend() is not None else []
    return out


def _shows_data(ax) -> bool:
    return bool(ax.lines or ax.collections or ax.patches or ax.images)


def _labelled_ticks(axis) -> int:
    """How many ticks inside the view carry a non-empty label."""
    low, high = sorted(axis.get_view_interval())
    major = [x for x in axis.get_major_locator()() if low <= x <= high]
    count = sum(bool(label.strip()) for label in axis.get_major_formatter().format_ticks(major))
    minor = [x for x in axis.get_minor_locator()() if low <= x <= high]
    count += sum(bool(label.strip()) for label in axis.get_minor_formatter().format_ticks(minor))
    return count


def _overlapping_tick_labels(axis, renderer) -> bool:
    """Whether two of the axis's visible tick labels overlap (e.g. a label at every k from 1 to 64 on a log axis)."""
    boxes = [t.get_window_extent(renderer) for t in axis.get_ticklabels() if t.get_visible() and t.get_text()]
    return any(a.overlaps(b) for i, a in enumerate(boxes) for b in boxes[i + 1 :])


def layout_violations(fig) -> list[str]:
    """What is wrong with ``fig`` as saved: text or legends outside the canvas, an axis with data but without an x
    or y label, with fewer than two labelled ticks or with overlapping tick labels, two axes at one place (a twin
    axis)."""
    fig.savefig(io.BytesIO(), format="png", dpi=60)  # the saved figure's layout
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    canvas = fig.bbox
    problems = []
    for what, artist in _texts(fig):
        if not artist.get_visible() or (hasattr(artist, "get_text") and not artist.get_text()):
            continue
        box = artist.get_window_extent(renderer)
        if (
            box.x0 < canvas.x0 - TOLERANCE_PX
            or box.y0 < canvas.y0 - TOLERANCE_PX
            or box.x1 > canvas.x1 + TOLERANCE_PX
            or box.y1 > canvas.y1 + TOLERANCE_PX
        ):
            problems.append(f"{what} outside the canvas ({box} vs {canvas})")
    positions = []
    for i, ax in enumerate(fig.axes):
        positions.append(tuple(round(v, 3) for v in ax.get_position().bounds))
        if not ax.get_visible() or not _shows_data(ax):
            continue
        for name, axis in (("x", ax.xaxis), ("y", ax.yaxis)):
            if not axis.label.get_text():
                problems.append(f"axes {i} ('{ax.get_title()}') shows data without a {name} label")
            if _labelled_ticks(axis) < 2:
                problems.append(f"axes {i} ('{ax.get_title()}'): fewer than 2 labelled {name} ticks")
            if _overlapping_tick_labels(axis, renderer):
                problems.append(f"axes {i} ('{ax.get_title()}'): overlapping {name} tick labels")
    if len(set(positions)) < len(positions):
        problems.append("two axes at the same place (a twin axis)")
    return problems


@pytest.fixture()
def captured(monkeypatch):
    """Every figure ``plots.new_figure`` makes while the test runs."""
    return record_figures(monkeypatch)


def _histories(runs: list[str]) -> pd.DataFrame:
    rows = []
    for i, run in enumerate(runs):
        for seed in (0, 1):
            for step in range(1, 13):
                entropy = 0.4 * 0.95**step * (1 + 0.1 * i)
                row = {"run": run, "seed": seed, "step": step, "entropy/mean": entropy, "grad_norm": 1.0 + seed}
                row.update({"reward": 0.3 + 0.02 * step, "accuracy": 0.3 + 0.02 * step, "kl_to_reference": 0.001})
                row.update({"completions/mean_length": 30.0 + step, "clip_ratio/region": 0.01 * seed})
                row.update({f"entropy/p{q}": entropy * q / 50 for q in (10, 50, 90)})
                row.update({f"{run.split('_')[0]}/quantity": float(step)} if run != "grpo" else {})
                rows.append(row)
    return pd.DataFrame(rows)


def _evals(runs: list[str], ks=(1, 2, 4, 8)) -> pd.DataFrame:
    rows = []
    for i, run in enumerate(runs):
        for k in ks:
            value = min(1.0, 0.2 + 0.05 * i + 0.1 * k**0.5)
            rows.append({"run": run, "benchmark": "testbed", "metric": f"pass@{k}", "value": value})
    return pd.DataFrame(rows).assign(ci_low=lambda f: f["value"] - 0.05, ci_high=lambda f: f["value"] + 0.05)


# how the test calls each registered plots function; a function missing here fails the test below
CALLS = {
    "plot_training_dynamics": lambda: plots.plot_training_dynamics(_histories(["grpo", "erpo", "grpo_8updates"])),
    "plot_method_quantities": lambda: plots.plot_method_quantities(_histories(["erpo"]), "erpo"),
    "plot_entropy_quantiles": lambda: plots.plot_entropy_quantiles(_histories(["grpo", "erpo"])),
    "plot_pass_at_k": lambda: plots.plot_pass_at_k(_evals(["base", "grpo", "aer"], ks=range(1, 65)), "testbed"),
}


def test_planted_violations_are_found():
    fig, (ax,) = plots.new_figure(1, ncols=1)
    ax.plot([1, 2, 3], [1, 2, 3], label="a curve")
    ax.legend(loc="upper left", bbox_to_anchor=(1.6, 1.0))  # far right of the canvas
    ax.set_xlabel("step")
    problems = layout_violations(fig)
    assert any("legend outside the canvas" in p for p in problems), problems
    assert any("without a y label" in p for p in problems), problems
    fig, (ax,) = plots.new_figure(1, ncols=1, panel_size=(2.0, 2.0))
    ax.plot([1, 2], [1, 2])
    ax.set_xlabel("step")
    ax.set_ylabel("entropy (nats)")
    fig.suptitle("a title far too long to fit across a figure that is only two inches wide, so it is clipped")
    assert any("suptitle outside" in p for p in layout_violations(fig))
    fig, (ax,) = plots.new_figure(1, ncols=1)
    ax.plot([1, 2], [0.1, 0.2])
    ax.set_yscale("symlog", linthresh=1e-2)
    ax.set_ylim(0.09, 0.21)
    ax.set_xlabel("step")
    ax.set_ylabel("entropy (nats)")
    ax.twinx().plot([1, 2], [3, 4])
    problems = layout_violations(fig)
    assert any("fewer than 2 labelled y ticks" in p for p in problems), problems
    assert any("twin axis" in p for p in problems), problems
    fig, (ax,) = plots.new_figure(1, ncols=1)
    ax.plot(range(1, 65), range(1, 65))
    ax.set_xscale("log", base=2)
    ax.set_xticks(range(1, 65), [str(k) for k in range(1, 65)])  # a label at every k: they overlap
    ax.set_xlabel("k")
    ax.set_ylabel("pass@k")
    assert any("overlapping x tick labels" in p for p in layout_violations(fig))


def test_every_plots_function_draws_a_clean_figure(captured):
    assert set(plots.FIGURE_FUNCTIONS) == set(CALLS), "a plots figure function has no synthetic call in CALLS"
    for name, call in CALLS.items():
        fig = call()
        assert layout_violations(fig) == [], name


def test_main_report_figures_are_clean(captured):
    runs = ["grpo", "erpo", "kl_cov", "kl_cov_8updates"]
    histories, evals = _histories(runs), _evals(["base", *runs])
    makers = main_page._figure_makers(histories, evals, {run: plots.method_of(run) for run in runs}, 0.3)
    for rel, make in makers.items():
        assert layout_violations(make()) == [], rel
    dynamics = makers["figures/training_dynamics.png"]()
    assert "kl_cov_8updates" not in dynamics.legends[0].texts[-1].get_text()  # only the core runs
    assert {t.get_text() for t in dynamics.legends[0].texts} >= {"grpo", "erpo", "kl_cov"}


def test_every_paper_figure_is_clean(built_papers):
    _, built, figures = built_papers  # every figure made while the paper reports were built (conftest)
    assert set(built) == set(ALL_PAPERS)
    assert len(figures) >= 12  # every paper draws some; all of them are checked
    problems = {fig._suptitle.get_text() if fig._suptitle else repr(fig): layout_violations(fig) for fig in figures}
    assert {title: p for title, p in problems.items() if p} == {}


def test_styles_cover_every_method_and_figures_are_made_one_way():
    assert set(plots.METHOD_STYLES) == {*available_methods(), plots.BASE_RUN}
    colors = [color for color, _ in plots.METHOD_STYLES.values()]
    markers = [marker for _, marker in plots.METHOD_STYLES.values()]
    assert len(set(colors)) == len(colors) and len(set(markers)) == len(markers)
    offenders = [
        f"{path.relative_to(REPO)}:{n}"
        for path in (REPO / "rlvr_lib").rglob("*.py")
        if path.name != "plots.py"
        for n, line in enumerate(path.read_text().splitlines(), 1)
        if FORBIDDEN.search(line)
    ]
    assert offenders == [], "make figures with rlvr_lib.render.plots.new_figure (no twin axes)"
