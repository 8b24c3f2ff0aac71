"""Report figures: training dynamics, method quantities, entropy quantiles and pass@k curves.

Every function takes the DataFrames of ``rlvr_lib.report`` (histories: one row per run x step with a ``run``
column; evals: one row per run x benchmark x metric) and returns a ``Figure`` drawn on the non-interactive Agg
canvas (pyplot is never used, so nothing global is opened or left to close). Saving is ``rlvr_lib.report``'s job.
Colours come from ``run_colors``: a fixed palette indexed by the sorted run names, with the base model always
black and dashed, so a run keeps its colour across figures when they get the same ``colors`` mapping.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

import matplotlib as mpl
import pandas as pd
import seaborn as sns
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from .analysis import smoothing

BASE_RUN = "base"
BASE_COLOR = "black"
# tab20's ten saturated colours (= tab10) first, then its ten light ones: 20 distinct colours, cycled beyond.
PALETTE = [*sns.color_palette("tab20")[0::2], *sns.color_palette("tab20")[1::2]]
DEFAULT_EMA_ALPHA = 0.3  # weight of the newest value: 1 = raw; ERPO's figures use 0.12
RAW_ALPHA = 0.25  # opacity of the unsmoothed curve drawn under the smoothed one
# (history key, panel title, log y axis, draw the base model's value at step 1 as a reference line)
TRAINING_PANELS = (
    ("reward", "reward", False, True),
    ("accuracy", "training accuracy", False, True),
    ("entropy/mean", "token entropy (nats)", True, True),
    ("completions/mean_length", "response length (tokens)", False, True),
    ("kl_to_reference", "KL to reference", False, False),
    ("clip_ratio/region", "clipped token fraction", False, False),
    ("grad_norm", "grad norm", False, False),
)
# prefixes of keys that every run logs (TRL's and the trainer's); any other "<prefix>/..." key is a method's own
GENERIC_PREFIXES = frozenset(
    {"entropy", "completions", "clip_ratio", "rewards", "sampling", "tools", "train", "eval", "entropy_flow"}
)


def set_style() -> None:
    """Apply the one report style (seaborn whitegrid, compact fonts) to matplotlib's global rcParams."""
    sns.set_theme(style="whitegrid", context="paper", font_scale=1.1)
    mpl.rcParams.update({"axes.titleweight": "bold", "legend.frameon": False, "lines.linewidth": 1.6})


def run_colors(runs: Iterable[str]) -> dict[str, tuple]:
    """Colour of each run: ``PALETTE`` in the order of the sorted non-base names; the base model is black."""
    trained = sorted(set(runs) - {BASE_RUN})
    colors = {run: PALETTE[i % len(PALETTE)] for i, run in enumerate(trained)}
    return {BASE_RUN: mpl.colors.to_rgb(BASE_COLOR), **colors}


def ema(values: pd.Series, alpha: float) -> pd.Series:
    """Exponential moving average s_t = alpha * x_t + (1 - alpha) * s_{t-1}, starting at x_0; a NaN holds the
    previous average (``analysis.smoothing.ema``, whose docstring gives the reading of ERPO's "EMA (alpha)")."""
    return smoothing.ema(values, alpha)


def method_keys(history: pd.DataFrame) -> list[str]:
    """The method's own quantities in one run's history: ``<prefix>/...`` keys outside ``GENERIC_PREFIXES``
    that hold at least one value."""
    return sorted(
        key
        for key in history.columns
        if "/" in key and key.split("/", 1)[0] not in GENERIC_PREFIXES and history[key].notna().any()
    )


def _new_figure(n_panels: int, ncols: int, panel_size=(3.6, 2.7), **subplot_kw) -> tuple[Figure, list[Axes]]:
    """A styled Agg figure with ``n_panels`` axes in a grid of ``ncols`` columns (spare axes hidden)."""
    set_style()
    ncols = max(1, min(ncols, n_panels))
    nrows = math.ceil(n_panels / ncols)
    fig = Figure(figsize=(panel_size[0] * ncols, panel_size[1] * nrows), layout="constrained")
    FigureCanvasAgg(fig)
    axes = list(fig.subplots(nrows, ncols, squeeze=False, **subplot_kw).ravel())
    for ax in axes[n_panels:]:
        ax.set_axis_off()
    return fig, axes[:n_panels]


def _colors_for(runs: Iterable[str], colors: dict[str, tuple] | None) -> dict[str, tuple]:
    return run_colors(runs) if colors is None else colors


def seed_table(history: pd.DataFrame, key: str) -> pd.DataFrame:
    """One run's ``key`` as a steps x training-seeds table (a history without a ``seed`` column is one seed)."""
    h = history if "seed" in history.columns else history.assign(seed=0)
    return h.dropna(subset=[key]).pivot_table(index="step", columns="seed", values=key, aggfunc="mean").sort_index()


def _plot_curve(ax: Axes, history: pd.DataFrame, key: str, color, label: str, ema_alpha: float) -> None:
    """One run's ``key`` against the step: the mean over seeds of each seed's EMA-smoothed curve, over the raw
    seed mean drawn faintly (raw only when ``ema_alpha`` is 1), with the seeds' min-max band when several."""
    table = seed_table(history, key)
    if table.empty:
        return
    smooth = table.apply(lambda column: ema(column, ema_alpha))
    if ema_alpha < 1:
        ax.plot(table.index, table.mean(axis=1), color=color, alpha=RAW_ALPHA, linewidth=0.8)
    ax.plot(smooth.index, smooth.mean(axis=1), color=color, label=label)
    if table.shape[1] > 1:
        ax.fill_between(smooth.index, smooth.min(axis=1), smooth.max(axis=1), color=color, alpha=0.2, linewidth=0)


def _base_at_step_one(ax: Axes, histories: pd.DataFrame, key: str) -> None:
    """Dashed line at the mean over runs of each run's first logged value: the base model's own rollouts."""
    h = histories if "seed" in histories.columns else histories.assign(seed=0)
    first = h.dropna(subset=[key]).sort_values("step").groupby(["run", "seed"])[key].first()
    if len(first):
        ax.axhline(first.mean(), color=BASE_COLOR, linestyle="--", linewidth=1.0, label=f"{BASE_RUN} (step 1)")


def _training_panel(ax: Axes, histories: pd.DataFrame, panel: tuple, colors: dict, ema_alpha: float) -> None:
    key, title, log_y, base_line = panel
    ax.set_title(title)
    ax.set_xlabel("step")
    if key not in histories.columns or histories[key].isna().all():
        ax.text(0.5, 0.5, f"'{key}' not logged", ha="center", va="center", transform=ax.transAxes)
        return
    for run, h in histories.groupby("run", sort=True):
        _plot_curve(ax, h, key, colors[run], run, ema_alpha)
    if base_line:
        _base_at_step_one(ax, histories, key)
    if log_y:
        ax.set_yscale("log")


def plot_training_dynamics(
    histories: pd.DataFrame, *, ema_alpha: float = DEFAULT_EMA_ALPHA, colors: dict[str, tuple] | None = None
) -> Figure:
    """Reward, accuracy, entropy (log y), response length, KL to reference, clip fraction and grad norm against
    the step, one line per run (mean over seeds of EMA ``ema_alpha`` curves over faint raw values, with the seeds'
    min-max band); the base model's step-1 value dashed
    where it is meaningful (reward, accuracy, entropy, length). The last grid cell holds the legend."""
    colors = _colors_for(histories["run"], colors)
    fig, axes = _new_figure(len(TRAINING_PANELS) + 1, ncols=4)
    for ax, panel in zip(axes, TRAINING_PANELS, strict=False):
        _training_panel(ax, histories, panel, colors, ema_alpha)
    legend = {}  # a panel may lack a run (metric not logged): collect every label once, over all panels
    for ax in axes[:-1]:
        for handle, label in zip(*ax.get_legend_handles_labels(), strict=False):
            legend.setdefault(label, handle)
    axes[-1].set_axis_off()
    axes[-1].legend(legend.values(), legend.keys(), loc="center", title="run")
    fig.suptitle("Training dynamics")
    return fig


def plot_method_quantities(
    history: pd.DataFrame, run: str, *, ema_alpha: float = DEFAULT_EMA_ALPHA, color=None
) -> Figure:
    """Small multiples of one run's own quantities (``method_keys``) against the step."""
    keys = method_keys(history)
    if not keys:
        raise ValueError(f"run '{run}' logs no method-specific quantities")
    color = run_colors([run])[run] if color is None else color
    fig, axes = _new_figure(len(keys), ncols=4, panel_size=(3.2, 2.4))
    for ax, key in zip(axes, keys, strict=False):
        _plot_curve(ax, history, key, color, run, ema_alpha)
        ax.set_title(key)
        ax.set_xlabel("step")
    fig.suptitle(f"{run}: method-specific quantities")
    return fig


def plot_entropy_quantiles(
    histories: pd.DataFrame, *, ema_alpha: float = DEFAULT_EMA_ALPHA, colors: dict[str, tuple] | None = None
) -> Figure:
    """One panel per run: the p10-p90 band of per-token rollout entropy and its median (log y, shared), each
    quantile averaged over training seeds."""
    colors = _colors_for(histories["run"], colors)
    runs = sorted(histories["run"].unique())
    fig, axes = _new_figure(len(runs), ncols=4, panel_size=(3.2, 2.6), sharey=True)
    for ax, run in zip(axes, runs, strict=False):
        run_history = histories[histories["run"] == run]
        low, mid, high = (ema(seed_table(run_history, f"entropy/p{q}").mean(axis=1), ema_alpha) for q in (10, 50, 90))
        ax.fill_between(mid.index, low, high, color=colors[run], alpha=0.25, linewidth=0, label="p10-p90")
        ax.plot(mid.index, mid, color=colors[run], label="p50")
        ax.set_yscale("log")
        ax.set_title(run)
        ax.set_xlabel("step")
    axes[0].set_ylabel("token entropy (nats)")
    axes[0].legend(loc="best")
    fig.suptitle("Rollout token-entropy quantiles")
    return fig


def pass_at_k_frame(evals: pd.DataFrame, benchmark: str) -> pd.DataFrame:
    """The ``pass@k`` rows of one benchmark with an integer ``k`` column, sorted by run and k."""
    rows = evals[(evals["benchmark"] == benchmark) & evals["metric"].str.startswith("pass@")]
    if rows.empty:
        raise ValueError(f"no pass@k results for benchmark '{benchmark}'")
    rows = rows.assign(k=rows["metric"].str.removeprefix("pass@").astype(int))
    return rows.sort_values(["run", "k"])


def plot_pass_at_k(evals: pd.DataFrame, benchmark: str, *, colors: dict[str, tuple] | None = None) -> Figure:
    """pass@k against k (log2 x axis) with its 95% interval over seeds and problems as a band, one line per run;
    the base model dashed."""
    rows = pass_at_k_frame(evals, benchmark)
    colors = _colors_for(rows["run"], colors)
    fig, (ax,) = _new_figure(1, ncols=1, panel_size=(5.0, 3.6))
    for run, r in rows.groupby("run", sort=True):
        style = "--" if run == BASE_RUN else "-"
        ax.plot(r["k"], r["value"], style, marker="o", markersize=3, color=colors[run], label=run)
        ax.fill_between(r["k"], r["ci_low"], r["ci_high"], color=colors[run], alpha=0.15, linewidth=0)
    ks = sorted(rows["k"].unique())
    ax.set_xscale("log", base=2)
    ax.set_xticks(ks, [str(k) for k in ks])
    ax.set_xlabel("k")
    ax.set_ylabel("pass@k")
    ax.set_title(f"{benchmark}: pass@k (95% CI)")
    ax.legend(loc="lower right")
    return fig
