"""Report figures and the one figure style of the project.

Every figure of the project (this module's ``plot_*`` functions, ``rlvr_lib.reporting.main_page``'s and every paper
report's) is made by ``new_figure`` on the non-interactive Agg canvas with constrained layout (pyplot is never used, so
nothing global is opened or left to close). Saving is the callers' job.

Style, fixed everywhere (``run_styles``):

- each method of ``python -m rlvr_lib methods`` and the base model has one colour and one marker
  (``METHOD_STYLES``); the run named after its method draws a solid line, the base model a black dashed one;
- a variant run (another run of the same method, e.g. ``grpo_8updates``) keeps its method's colour and marker and
  gets a line style by its position among that method's variants in params.yaml's order: the i-th variant takes
  ``VARIANT_LINESTYLES[i % 4]``, with filled markers for i < 4 and hollow ones for 4 <= i < 8 (then again);
- markers are spaced along a curve with a start that differs per method, so two overlapping curves still show both
  markers (GRPO under Clip-Cov);
- curves are the mean over training seeds with the seeds' min-max as a band (``plot_curve``);
- legends sit below the axes inside the canvas (``figure_legend``), titles are wrapped to the figure's width
  (``figure_title``), every panel names its quantity and unit on the y axis (``QUANTITY_LABELS``).
"""

from __future__ import annotations

import math
import textwrap
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

import matplotlib as mpl
import pandas as pd
import seaborn as sns
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.ticker import NullLocator

from rlvr_lib.analysis import smoothing

BASE_RUN = "base"
BASE_COLOR = "black"
# method -> (colour, marker): every method of the registry (rlvr_lib.methods) and the base model; a test checks the
# keys against the registry, so a new method needs its entry here.
METHOD_STYLES: dict[str, tuple[str, str]] = {
    BASE_RUN: (BASE_COLOR, "x"),
    "grpo": ("#1f77b4", "o"),
    "grpo_onpolicy": ("#17becf", "s"),
    "dapo": ("#ff7f0e", "^"),
    "entropy_reg": ("#8c564b", "v"),
    "clip_cov": ("#2ca02c", "D"),
    "kl_cov": ("#9467bd", "P"),
    "gspo": ("#7f7f7f", "X"),
    "ent_adv": ("#bcbd22", "<"),
    "erpo": ("#d62728", ">"),
    "cw_grpo": ("#e377c2", "p"),
    "tepo": ("#393b79", "h"),
    "opefo": ("#637939", "*"),
    "aer": ("#8c6d31", "d"),
    "gpg": ("#e7969c", "H"),  # TEPO's table-1 baseline (rlvr_lib.methods.gpg)
}
VARIANT_LINESTYLES = ("--", ":", "-.", (0, (5, 1, 1, 1, 1, 1)))
MARKER_SPACING = 0.12  # distance between two markers of a curve, as a fraction of the axes' diagonal
# Neutral colours for what is not a run (the paper's numbers, reference lines, quantities of one run).
PAPER_COLOR = "#555555"
REFERENCE_COLOR = "#999999"
QUANTITY_COLORS = ("#1f77b4", "#d62728", "#2ca02c", "#ff7f0e")
DEFAULT_EMA_ALPHA = 0.3  # weight of the newest value: 1 = raw; ERPO's figures use 0.12
RAW_ALPHA = 0.25  # opacity of the unsmoothed curve drawn under the smoothed one
BAND_ALPHA = 0.18  # opacity of a seeds' band or an interval
BAND_NOTE = "line: mean over seeds; band: seeds' min-max"
# y-axis label (with unit) of each logged quantity a figure draws
QUANTITY_LABELS = {
    "reward": "reward (fraction correct)",
    "accuracy": "training accuracy (fraction)",
    "entropy/mean": "token entropy (nats)",
    "completions/mean_length": "response length (tokens)",
    "kl_to_reference": "KL to reference (nats/token)",
    "clip_ratio/region": "clipped tokens (fraction)",
    "grad_norm": "gradient norm (L2)",
    "step_time": "time per step (s)",
    "opefo/lambda": "lambda* (dimensionless)",
    "opefo/flow_net": "net dH (a.u.)",
    "opefo/flow_net_rescaled": "rescaled net dH, eq. 8 (a.u.)",
    "entropy_flow/net": "net dH (a.u. per step)",
    "aer/entropy": "token entropy (nats)",
    "aer/target_entropy": "token entropy (nats)",
    "aer/alpha": "alpha_t (coefficient)",
}
# (history key, panel title, log y axis, draw the base model's value at step 1 as a reference line)
TRAINING_PANELS = (
    ("reward", "reward", False, True),
    ("accuracy", "training accuracy", False, True),
    ("entropy/mean", "token entropy", True, True),
    ("completions/mean_length", "response length", False, True),
    ("kl_to_reference", "KL to reference", False, False),
    ("clip_ratio/region", "clipped token fraction", False, False),
    ("grad_norm", "grad norm", False, False),
)
# prefixes of keys that every run logs (TRL's and the trainer's); any other "<prefix>/..." key is a method's own
GENERIC_PREFIXES = frozenset(
    {"entropy", "completions", "clip_ratio", "rewards", "sampling", "tools", "train", "eval", "entropy_flow"}
)
FIGURE_FUNCTIONS: dict[str, Callable[..., Figure]] = {}  # every plot_* function below (the figure test renders all)


def figure_function(fn: Callable[..., Figure]) -> Callable[..., Figure]:
    """Register ``fn`` in ``FIGURE_FUNCTIONS``."""
    FIGURE_FUNCTIONS[fn.__name__] = fn
    return fn


@dataclass(frozen=True)
class Style:
    """How one run is drawn: its method's colour and marker, its line style and marker fill."""

    color: str
    marker: str
    linestyle: object = "-"
    hollow: bool = False
    marker_start: float = 0.0  # where the first marker sits along the curve (fraction of MARKER_SPACING)

    def line(self) -> dict:
        """Keyword arguments of ``Axes.plot`` for a curve of this run."""
        return {
            "color": self.color,
            "linestyle": self.linestyle,
            "marker": self.marker,
            "markersize": 4.5,
            "markevery": (self.marker_start * MARKER_SPACING, MARKER_SPACING),
            "markerfacecolor": "white" if self.hollow else self.color,
        }

    def points(self) -> dict:
        """Keyword arguments of ``Axes.plot`` / ``errorbar`` for markers at a few x values (every point marked)."""
        return {**self.line(), "markevery": None}


def method_style(method: str) -> Style:
    """The style of the run named after ``method`` (a solid line; the base model dashed)."""
    if method not in METHOD_STYLES:
        raise ValueError(f"method '{method}' has no figure style: add it to rlvr_lib.render.plots.METHOD_STYLES")
    color, marker = METHOD_STYLES[method]
    start = list(METHOD_STYLES).index(method) / len(METHOD_STYLES)
    return Style(color, marker, "--" if method == BASE_RUN else "-", marker_start=start)


def run_styles(run_methods: Mapping[str, str]) -> dict[str, Style]:
    """Style of each run of ``{run: method}`` (give every run of params.yaml, in its order, so a run's style is the
    same in every figure) and of the base model: the method's style, and for the i-th variant of a method (a run not
    named after it) ``VARIANT_LINESTYLES[i % 4]``, hollow markers when (i // 4) is odd."""
    styles = {BASE_RUN: method_style(BASE_RUN)}
    variants: dict[str, int] = {}
    for run, method in run_methods.items():
        base = method_style(method)
        if run == method:
            styles[run] = base
            continue
        i = variants.get(method, 0)
        variants[method] = i + 1
        linestyle = VARIANT_LINESTYLES[i % len(VARIANT_LINESTYLES)]
        styles[run] = Style(
            base.color, base.marker, linestyle, (i // len(VARIANT_LINESTYLES)) % 2 == 1, base.marker_start
        )
    return styles


def method_of(run: str) -> str:
    """A run's method read from its name, for reports without params: the run itself when it names a method, else
    the longest method name followed by '_' that starts it (``grpo_8updates`` -> ``grpo``)."""
    if run in METHOD_STYLES:
        return run
    prefixes = [m for m in METHOD_STYLES if run.startswith(f"{m}_")]
    if not prefixes:
        raise ValueError(
            f"run '{run}': no method of rlvr_lib.render.plots.METHOD_STYLES starts its name; pass its method"
        )
    return max(prefixes, key=len)


def quantity_label(key: str) -> str:
    """The y-axis label of a logged quantity (``QUANTITY_LABELS``), or the key itself for a method's own one."""
    return QUANTITY_LABELS.get(key, key)


def set_style() -> None:
    """Apply the one report style (seaborn whitegrid, compact fonts) to matplotlib's global rcParams."""
    sns.set_theme(style="whitegrid", context="paper", font_scale=1.1)
    mpl.rcParams.update({"axes.titleweight": "bold", "legend.frameon": False, "lines.linewidth": 1.6})


def new_figure(n_panels: int, ncols: int, panel_size=(3.6, 2.7), **subplot_kw) -> tuple[Figure, list[Axes]]:
    """A styled Agg figure with constrained layout and ``n_panels`` axes in a grid of ``ncols`` columns (spare axes
    removed)."""
    set_style()
    ncols = max(1, min(ncols, n_panels))
    nrows = math.ceil(n_panels / ncols)
    fig = Figure(figsize=(panel_size[0] * ncols, panel_size[1] * nrows), layout="constrained")
    FigureCanvasAgg(fig)
    axes = list(fig.subplots(nrows, ncols, squeeze=False, **subplot_kw).ravel())
    for ax in axes[n_panels:]:
        fig.delaxes(ax)
    return fig, axes[:n_panels]


def _characters_across(fig: Figure, size_key: str) -> int:
    """About how many characters of the rcParams font size ``size_key`` fit across ``fig``."""
    points = mpl.font_manager.FontProperties(size=mpl.rcParams[size_key]).get_size_in_points()
    return max(20, int(fig.get_figwidth() * 72 / (0.6 * points)))


def figure_title(fig: Figure, text: str) -> None:
    """The figure's title, wrapped onto as many lines as it needs to fit the figure's width."""
    fig.suptitle("\n".join(textwrap.wrap(text, _characters_across(fig, "figure.titlesize"))))


def panel_title(ax: Axes, text: str) -> None:
    """An axes' title, wrapped to the axes' width."""
    fig = ax.get_figure()
    width = ax.get_position().width * _characters_across(fig, "axes.titlesize")
    ax.set_title("\n".join(textwrap.wrap(text, max(16, int(width)))))


def figure_legend(fig: Figure, title: str | None = None) -> None:
    """One legend for the whole figure, below the axes and inside the canvas: every label of every axes once, in
    as many columns as fit the figure's width."""
    handles: dict[str, object] = {}
    for ax in fig.axes:
        for handle, label in zip(*ax.get_legend_handles_labels(), strict=False):
            if not label.startswith("_"):
                handles.setdefault(label, handle)
    if not handles:
        return
    widest = max(len(label) for label in handles) + 6  # the line sample and the gap
    ncols = max(1, min(len(handles), _characters_across(fig, "legend.fontsize") // widest))
    fig.legend(handles.values(), handles.keys(), loc="outside lower center", ncols=ncols, title=title)


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


def seed_table(history: pd.DataFrame, key: str) -> pd.DataFrame:
    """One run's ``key`` as a steps x training-seeds table (a history without a ``seed`` column is one seed)."""
    h = history if "seed" in history.columns else history.assign(seed=0)
    return h.dropna(subset=[key]).pivot_table(index="step", columns="seed", values=key, aggfunc="mean").sort_index()


def plot_curve(ax: Axes, history: pd.DataFrame, key: str, style: Style, label: str, ema_alpha: float) -> bool:
    """One run's ``key`` against the step: the mean over seeds of each seed's EMA-smoothed curve, over the raw
    seed mean drawn faintly (raw only when ``ema_alpha`` is 1), with the seeds' min-max band when several.
    Returns whether anything was drawn."""
    table = seed_table(history, key)
    if table.empty:
        return False
    smooth = table.apply(lambda column: ema(column, ema_alpha))
    if ema_alpha < 1:
        ax.plot(table.index, table.mean(axis=1), color=style.color, alpha=RAW_ALPHA, linewidth=0.8)
    ax.plot(smooth.index, smooth.mean(axis=1), label=label, **style.line())
    if table.shape[1] > 1:
        ax.fill_between(
            smooth.index, smooth.min(axis=1), smooth.max(axis=1), color=style.color, alpha=BAND_ALPHA, linewidth=0
        )
    return True


def label_step_axes(ax: Axes, key: str, log_y: bool = False) -> None:
    """x: the training step; y: the quantity's label (log scale when asked)."""
    ax.set_xlabel("training step")
    ax.set_ylabel(quantity_label(key))
    if log_y:
        ax.set_yscale("log")


def not_logged(ax: Axes, key: str) -> None:
    """Mark an axes whose quantity no run logs (it then shows no data and needs no labels)."""
    ax.text(0.5, 0.5, f"'{key}' not logged", ha="center", va="center", transform=ax.transAxes)
    ax.set_xticks([])
    ax.set_yticks([])


def _base_at_step_one(ax: Axes, histories: pd.DataFrame, key: str) -> None:
    """Dashed line at the mean over runs of each run's first logged value: the base model's own rollouts."""
    h = histories if "seed" in histories.columns else histories.assign(seed=0)
    first = h.dropna(subset=[key]).sort_values("step").groupby(["run", "seed"])[key].first()
    if len(first):
        ax.axhline(first.mean(), color=BASE_COLOR, linestyle="--", linewidth=1.0, label=f"{BASE_RUN} (step 1)")


def _training_panel(ax: Axes, histories: pd.DataFrame, panel: tuple, styles: Mapping[str, Style], ema_alpha: float):
    key, title, log_y, base_line = panel
    ax.set_title(title)
    if key not in histories.columns or histories[key].isna().all():
        not_logged(ax, key)
        return
    for run, h in histories.groupby("run", sort=True):
        plot_curve(ax, h, key, styles[run], run, ema_alpha)
    if base_line:
        _base_at_step_one(ax, histories, key)
    label_step_axes(ax, key, log_y)


def _styles_for(runs: Iterable[str], styles: Mapping[str, Style] | None) -> Mapping[str, Style]:
    return run_styles({run: method_of(run) for run in runs if run != BASE_RUN}) if styles is None else styles


@figure_function
def plot_training_dynamics(
    histories: pd.DataFrame, *, ema_alpha: float = DEFAULT_EMA_ALPHA, styles: Mapping[str, Style] | None = None
) -> Figure:
    """Reward, accuracy, entropy (log y), response length, KL to reference, clip fraction and grad norm against
    the step, one line per run (mean over seeds of EMA ``ema_alpha`` curves over faint raw values, with the seeds'
    min-max band); the base model's step-1 value dashed where it is meaningful (reward, accuracy, entropy, length);
    the legend below the panels."""
    styles = _styles_for(histories["run"], styles)
    fig, axes = new_figure(len(TRAINING_PANELS), ncols=4)
    for ax, panel in zip(axes, TRAINING_PANELS, strict=True):
        _training_panel(ax, histories, panel, styles, ema_alpha)
    figure_legend(fig, title="run")
    figure_title(fig, f"Training dynamics (EMA {ema_alpha}, raw faint; {BAND_NOTE})")
    return fig


@figure_function
def plot_method_quantities(
    history: pd.DataFrame, run: str, *, ema_alpha: float = DEFAULT_EMA_ALPHA, style: Style | None = None
) -> Figure:
    """Small multiples of one run's own quantities (``method_keys``) against the step."""
    keys = method_keys(history)
    if not keys:
        raise ValueError(f"run '{run}' logs no method-specific quantities")
    style = _styles_for([run], None)[run] if style is None else style
    fig, axes = new_figure(len(keys), ncols=4, panel_size=(3.2, 2.4))
    for ax, key in zip(axes, keys, strict=True):
        plot_curve(ax, history, key, style, run, ema_alpha)
        panel_title(ax, key)
        label_step_axes(ax, key)
    figure_title(fig, f"{run}: method-specific quantities (EMA {ema_alpha}; {BAND_NOTE})")
    return fig


@figure_function
def plot_entropy_quantiles(
    histories: pd.DataFrame, *, ema_alpha: float = DEFAULT_EMA_ALPHA, styles: Mapping[str, Style] | None = None
) -> Figure:
    """One panel per run: the p10-p90 band of per-token rollout entropy and its median (log y, shared), each
    quantile averaged over training seeds."""
    styles = _styles_for(histories["run"], styles)
    runs = sorted(histories["run"].unique())
    fig, axes = new_figure(len(runs), ncols=4, panel_size=(3.2, 2.6), sharey=True)
    for ax, run in zip(axes, runs, strict=True):
        run_history = histories[histories["run"] == run]
        low, mid, high = (ema(seed_table(run_history, f"entropy/p{q}").mean(axis=1), ema_alpha) for q in (10, 50, 90))
        color = styles[run].color
        ax.fill_between(mid.index, low, high, color=color, alpha=0.25, linewidth=0, label="p10-p90 of tokens")
        ax.plot(mid.index, mid, label="median token", **styles[run].line())
        ax.set_title(run)
        label_step_axes(ax, "entropy/mean", log_y=True)
    figure_legend(fig)
    figure_title(fig, f"Rollout token-entropy quantiles (EMA {ema_alpha}; each quantile averaged over seeds)")
    return fig


def pass_at_k_frame(evals: pd.DataFrame, benchmark: str) -> pd.DataFrame:
    """The ``pass@k`` rows of one benchmark with an integer ``k`` column, sorted by run and k."""
    rows = evals[(evals["benchmark"] == benchmark) & evals["metric"].str.startswith("pass@")]
    if rows.empty:
        raise ValueError(f"no pass@k results for benchmark '{benchmark}'")
    rows = rows.assign(k=rows["metric"].str.removeprefix("pass@").astype(int))
    return rows.sort_values(["run", "k"])


def pass_at_k_ticks(ks: Iterable[int]) -> list[int]:
    """The k values that get a tick (and a marker): the powers of two among ``ks``, or every k when none is."""
    ks = sorted(ks)
    return [k for k in ks if k & (k - 1) == 0] or ks


def pass_at_k_axes(ax: Axes, ks: list[int]) -> None:
    """k on a log2 axis ticked at the powers of two among ``ks`` (``pass_at_k_ticks``); pass@k on y."""
    ticks = pass_at_k_ticks(ks)
    ax.set_xscale("log", base=2)
    ax.set_xticks(ticks, [str(k) for k in ticks])
    ax.xaxis.set_minor_locator(NullLocator())
    ax.set_xlabel("k (samples per problem)")
    ax.set_ylabel("pass@k (fraction of problems)")


@figure_function
def plot_pass_at_k(evals: pd.DataFrame, benchmark: str, *, styles: Mapping[str, Style] | None = None) -> Figure:
    """pass@k against k (log2 x axis) with its 95% t interval over the per-seed means (logit scale,
    ``main_page.t_over_seeds``) as a band, one line per run;
    the base model dashed."""
    rows = pass_at_k_frame(evals, benchmark)
    styles = _styles_for(rows["run"], styles)
    fig, (ax,) = new_figure(1, ncols=1, panel_size=(5.6, 3.8))
    for run, r in rows.groupby("run", sort=True):
        marked = set(pass_at_k_ticks(r["k"]))  # markers at the ticked k (every k when 1-64 are all computed)
        kw = {**styles[run].points(), "markevery": [i for i, k in enumerate(r["k"]) if k in marked]}
        ax.plot(r["k"], r["value"], label=run, **kw)
        ax.fill_between(r["k"], r["ci_low"], r["ci_high"], color=styles[run].color, alpha=BAND_ALPHA, linewidth=0)
    pass_at_k_axes(ax, sorted(rows["k"].unique()))
    figure_legend(fig)
    figure_title(fig, f"{benchmark}: pass@k (band: 95% t interval over the per-seed means)")
    return fig
