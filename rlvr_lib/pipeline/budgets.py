"""The README's Budgets, computed: measured records (``docs/budgets.yaml``) and the estimates of ``make repro`` (whole
and per paper) from params.yaml's (run, seed) pairs and each pair's measured time.

A pair's time on the 2-core machine (one lane) is its measured time on the host that trained it (the last line naming
it in ``pair_times.host_logs``, or its history's summed ``step_time`` x the logged pairs' median ratio of pair time to
it) x the 2-core / host ratio measured on the pairs run on both machines (median, quartiles for the range), plus what
``make repro`` adds per pair (DVC, stage start-ups). The whole run: every pair over ``lanes`` lanes, plus the fixed
stages; one paper: its pairs (``settings.papers.repro_pairs``, the summary's five papers included) plus the base
policies. ``doc_numbers`` writes the ``budgets`` (README) and ``budgets-estimate`` (docs/budgets.md) blocks from here.
"""

from __future__ import annotations

import functools
import json
import re
import statistics
from dataclasses import dataclass
from pathlib import Path

import yaml

DATA = "docs/budgets.yaml"
LOG_LINE = re.compile(r"^\S+ (?P<run>\S+) seed (?P<seed>\d+) exit 0 in (?P<s>\d+) s$")
RECORD_KEYS = {"command", "seconds", "text", "detail", "target_s", "machine", "date", "commit", "recorded"}


def load(root: Path) -> dict:
    """``docs/budgets.yaml``, each record checked: a clear error names the record and the field."""
    path = root / DATA
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    for key, rec in data["records"].items():
        where = f"{DATA}: records.{key}"
        if unknown := set(rec) - RECORD_KEYS:
            raise ValueError(f"{where}: unknown field(s) {sorted(unknown)}; known: {sorted(RECORD_KEYS)}")
        for field in ("command", "machine", "date"):
            if field not in rec:
                raise ValueError(f"{where}: needs `{field}`")
        if ("seconds" in rec) == ("text" in rec):
            raise ValueError(f"{where}: needs exactly one of `seconds` and `text`")
        if ("commit" in rec) == ("recorded" in rec):
            raise ValueError(f"{where}: needs exactly one of `commit` (measured on) and `recorded` (recorded in)")
        if rec["machine"] not in data["machines"]:
            raise ValueError(
                f"{where}: machine {rec['machine']!r} is not in `machines` ({', '.join(data['machines'])})"
            )
    return data


def duration(seconds: float, coarse: bool = False) -> str:
    """``1 h 05 min``, ``26 min 06 s``, ``10 min``, ``17 s`` or ``1.19 s``; ``coarse``: whole minutes (estimates)."""
    if seconds < 10:
        return f"{seconds:.2f} s"
    s = round(seconds / 60) * 60 if coarse and seconds >= 60 else round(seconds)
    if s >= 3600:
        minutes = round(s / 60)
        return f"{minutes // 60} h {minutes % 60:02d} min"
    if s >= 60:
        return f"{s // 60} min" if s % 60 == 0 else f"{s // 60} min {s % 60:02d} s"
    return f"{s} s"


def read_log(path: Path) -> dict[tuple[str, int], int]:
    """(run, seed) -> seconds of each finished pair a ``train_pairs.sh`` log names (the last line wins)."""
    out = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if m := LOG_LINE.match(line.strip()):
            out[(m["run"], int(m["seed"]))] = int(m["s"])
    return out


def step_seconds(root: Path, run: str, seed: int) -> float | None:
    """The summed ``step_time`` of a pair's committed training history (None when it has none yet)."""
    path = root / "reports/training" / run / f"seed{seed}" / "history.json"
    if not path.is_file():
        return None
    stat = path.stat()
    return _summed_steps(str(path), stat.st_mtime_ns, stat.st_size)


@functools.lru_cache(maxsize=4096)
def _summed_steps(path: str, mtime_ns: int, size: int) -> float:
    """Read once per file version (``doc_numbers`` computes the estimates for two documents)."""
    return sum(row.get("step_time") or 0.0 for row in json.loads(Path(path).read_text(encoding="utf-8")))


@dataclass(frozen=True)
class Rates:
    """Per-pair 2-core lane seconds (at the median ratio, and at its quartiles) and where they come from."""

    pair: dict[tuple[str, int], tuple[float, float, float]]  # (run, seed) -> (low, median, high) seconds
    host: dict[tuple[str, int], float]  # (run, seed) -> seconds on one host lane (measured, or estimated as above)
    ratio: tuple[float, float, float]  # 2-core / host pair time: first quartile, median, third quartile
    calibrated: int  # pairs timed on both machines
    logged: int  # protocol pairs with a host log line
    untrained: int  # protocol pairs with neither a log line nor a history: the median pair's time
    per_step: float  # pair time / summed step_time, median over the logged pairs
    overhead: float  # seconds make repro adds per pair


def quartiles(values: list[float]) -> tuple[float, float, float]:
    q1, q2, q3 = statistics.quantiles(values, n=4) if len(values) > 1 else (values[0],) * 3
    return q1, q2, q3


def rates(root: Path, data: dict, pairs: list[tuple[str, int]]) -> Rates:
    """Each protocol pair's 2-core lane time (see the module docstring)."""
    cfg = data["pair_times"]
    host: dict[tuple[str, int], int] = {}
    for log in cfg["host_logs"]:
        host.update(read_log(root / log))
    two_core, calibration = read_log(root / cfg["two_core_log"]), read_log(root / cfg["calibration_log"])
    both = [k for k in two_core if k in calibration]
    if not both:
        raise ValueError(f"{DATA}: pair_times: no pair of {cfg['two_core_log']} is in {cfg['calibration_log']}")
    ratio = quartiles([two_core[k] / calibration[k] for k in both])
    logged = [k for k in pairs if k in host]
    steps = {k: step_seconds(root, *k) for k in pairs}
    per_step = statistics.median(host[k] / steps[k] for k in logged if steps[k])
    overhead = 0.0
    for key, times in cfg["overhead"].items():
        if key not in data["records"]:
            raise ValueError(f"{DATA}: pair_times.overhead names {key!r}, not a record")
        overhead += times * data["records"][key]["seconds"]
    host_s = {k: host[k] if k in host else per_step * steps[k] for k in pairs if k in host or steps[k]}
    typical = statistics.median(host_s.values())
    lane = {k: host_s.get(k, typical) for k in pairs}
    out = {k: tuple(lane[k] * r + overhead for r in ratio) for k in pairs}
    return Rates(out, lane, ratio, len(both), len(logged), len(pairs) - len(host_s), per_step, overhead)


@dataclass(frozen=True)
class Estimate:
    """One ``make repro`` scope on the 2-core machine: its pairs and seconds (low, median, high)."""

    name: str  # "whole" or a paper
    runs: int
    pairs: int
    seconds: tuple[float, float, float]


def estimates(root: Path, data: dict | None = None) -> tuple[list[Estimate], Rates]:
    """The whole ``make repro`` and each paper's, from params.yaml and the measured pair times."""
    from rlvr_lib.settings.config import load_params
    from rlvr_lib.settings.papers import ALL_PAPERS, repro_pairs

    data = data or load(root)
    params = load_params(root / "params.yaml")
    every = {run: list(spec.seeds) for run, spec in params.runs.items()}
    pairs = [(run, s) for run, seeds in every.items() for s in seeds]
    r = rates(root, data, pairs)
    cfg, recs = data["pair_times"], data["records"]
    lanes = cfg["lanes"]
    bases = recs["base_policies"]["seconds"]

    def total(runs: dict[str, list[int]], extra: tuple[float, float, float]) -> tuple[float, float, float]:
        lane = [sum(r.pair[(run, s)][i] for run, seeds in runs.items() for s in seeds) / lanes for i in range(3)]
        return tuple(lane[i] + extra[i] for i in range(3))

    fixed = sum(recs[k]["seconds"] for k in cfg["fixed"])
    host_fixed = sum(recs[k]["seconds"] for k in cfg["host_fixed"])
    whole = total(every, tuple(fixed + host_fixed * q for q in r.ratio))
    out = [Estimate("whole", len(every), len(pairs), whole)]
    for paper in ALL_PAPERS:
        runs = repro_pairs(params, paper)
        out.append(Estimate(paper, len(runs), sum(map(len, runs.values())), total(runs, (bases,) * 3)))
    return out, r


# ----------------------------------------------------------------------------- the text
def _where(rec: dict, machines: dict) -> str:
    commit = rec["commit"] if "commit" in rec else f"recorded in {rec['recorded']}"
    return f"{machines[rec['machine']]}, {commit}, {rec['date']}"


def _target(seconds: float, target: float | None) -> str:
    if target is None:
        return ""
    return f" (target {duration(target)}: {'met' if seconds <= target else 'not met'})"


def _span(seconds: tuple[float, float, float]) -> str:
    low, mid, high = (duration(s, coarse=True) for s in seconds)
    return f"{mid} ({low} to {high})"


def readme_table(root: Path) -> str:
    """README's Budgets table: one row per ``rows`` entry of docs/budgets.yaml."""
    data = load(root)
    recs, machines, cfg = data["records"], data["machines"], data["pair_times"]
    found, _ = estimates(root, data)
    by_name = {e.name: e for e in found}
    estimated = f"{machines['two_core']}, estimate from pair times of {cfg['two_core_date']} (docs/budgets.md)"
    lines = ["| command | measured | on |", "|---|---|---|"]
    for row in data["rows"]:
        if row == "estimate" or row.startswith("estimate:"):
            e = by_name.get(row.partition(":")[2] or "whole")
            if e is None:
                raise ValueError(f"{DATA}: rows: {row!r} names no paper")
            target = cfg["target_s"].get(e.name, cfg["target_s"]["paper"])
            command = (
                "`make repro`, full protocol (fresh clone)" if e.name == "whole" else f"`make repro PAPER={e.name}`"
            )
            what = f"estimate {_span(e.seconds)}, {e.pairs} pairs{_target(e.seconds[1], target)}"
            lines.append(f"| {command} | {what} | {estimated} |")
            continue
        if row not in recs:
            raise ValueError(f"{DATA}: rows: {row!r} is not a record")
        rec = recs[row]
        figure = duration(rec["seconds"]) if "seconds" in rec else rec["text"]
        detail = f"; {rec['detail']}" if rec.get("detail") else ""
        target = _target(rec["seconds"], rec.get("target_s")) if "seconds" in rec else ""
        lines.append(f"| {rec['command']} | {figure}{detail}{target} | {_where(rec, machines)} |")
    return "\n".join(lines)


def estimate_text(root: Path) -> str:
    """docs/budgets.md: how the estimates are computed, with the figures they use, and the table per scope."""
    data = load(root)
    recs, cfg = data["records"], data["pair_times"]
    found, r = estimates(root, data)
    q1, med, q3 = r.ratio
    overhead = " + ".join(f"{n} x {recs[k]['seconds']} s ({k})" for k, n in cfg["overhead"].items())
    fixed = ", ".join(f"{recs[k]['command']} {duration(recs[k]['seconds'])}" for k in cfg["fixed"])
    host_fixed = ", ".join(f"{recs[k]['command']} {duration(recs[k]['seconds'])}" for k in cfg["host_fixed"])
    lines = [
        f"- **A pair's time on a host**: its line in the logs of the calls that trained the committed pairs "
        f"(`benchmarks/train_pairs.sh`, train + eval in one process, one thread per lane; {cfg['host_dates']}): "
        f"{r.logged} of the {len(r.pair)} pairs. The others (the 64-lane `make repro` kept no per-pair log) take "
        f"their history's summed `step_time` x {r.per_step:.2f}, the logged pairs' median ratio of pair time to it"
        + (f"; {r.untrained} pairs not trained yet take the median pair's time." if r.untrained else "."),
        f"- **2-core / host**: the {r.calibrated} pairs of `{cfg['two_core_log']}` ({cfg['lanes']} lanes on the 2-core "
        f"machine, {cfg['two_core_commit']}, {cfg['two_core_date']}) retrained in `{cfg['calibration_log']}` took "
        f"{med:.2f}x their host time (quartiles {q1:.2f}-{q3:.2f}: the range below). The hosts' lanes ran at "
        "different loads, so the range is wide.",
        f"- **Per pair, `make repro` adds** {overhead} = {r.overhead:.1f} s (records in `{DATA}`).",
        f"- **The whole run** adds {fixed} (2-core) and {host_fixed} (host, scaled by the same ratio); "
        f"**one paper** adds the base policies. Pairs run in {cfg['lanes']} lanes.",
        "",
        "| `make repro` | runs | (run, seed) pairs | 2-core estimate (range) |",
        "|---|---|---|---|",
    ]
    for e in found:
        scope = "whole protocol" if e.name == "whole" else f"`PAPER={e.name}`"
        lines.append(f"| {scope} | {e.runs} | {e.pairs} | {_span(e.seconds)} |")
    return "\n".join(lines)
