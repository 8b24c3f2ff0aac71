"""Command line.

``python -m rlvr_lib methods`` lists every registered method with its paper and its hyperparameters (default,
choices, help text citing the paper);
``python -m rlvr_lib check-params`` validates params.yaml (the pipeline's first stage; ``--params FILE`` another
file, which leaves the pipeline's record reports/params_check.txt alone);
``python -m rlvr_lib train RUN`` / ``eval RUN`` run one pipeline stage outside papermill, e.g. under
``accelerate launch -m rlvr_lib train grpo`` on several GPUs;
``python -m rlvr_lib tune --dry`` lists issue 41's tuning configurations, the tuned protocol's pairs and their
estimated cost; ``tune --tuned-pairs`` the tuned runs' pairs to train (``repro_lanes --pairs-file``);
``python -m rlvr_lib qwen-tokenizer OUT`` writes a Qwen2.5 tokenizer folder built from ``qwen.tiktoken``;
``python -m rlvr_lib memory-probe --params configs/<paper>.yaml [--rows N]`` measures a profile's loss pass and
optimizer step on the GPU next to the memory estimate (``rlvr_lib.training.memory_probe``; sharded under
``accelerate launch --config_file configs/accelerate/fsdp2.yaml``).

Bad input to any command (a malformed or missing params file, an unknown key or run, a bad value) ends in one
``error: ...`` line on stderr naming the file, key or value, with exit status 2 and no traceback.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import typing
from pathlib import Path

from rlvr_lib.methods import REGISTRY
from rlvr_lib.papers.framework.references import REFERENCES
from rlvr_lib.settings.schema import choices


def format_methods() -> str:
    lines = []
    for name in sorted(REGISTRY):
        cls = REGISTRY[name]
        lines.append(f"{name}  [{cls.updates_per_batch} update(s) per rollout batch]")
        lines.append(f"    paper: {cls.paper}")
        if name in REFERENCES:
            lines.append(f"    cites: {REFERENCES[name].short()}")
        hints = typing.get_type_hints(cls.Config)
        for f in dataclasses.fields(cls.Config):
            allowed = choices(hints[f.name])
            kind = f"one of {list(allowed)}" if allowed else getattr(hints[f.name], "__name__", str(hints[f.name]))
            lines.append(f"    {f.name} = {f.default!r}  ({kind})")
            lines.append(f"        {f.metadata.get('help', '')}")
    return "\n".join(lines)


BAD_INPUT = (ValueError, FileNotFoundError)  # what a command raises for a bad file, key or value: no traceback


def error_line(err: Exception) -> int:
    """Every command's answer to bad input: one ``error: ...`` line on stderr (the message names the file, key or
    value; its line breaks joined), exit status 2."""
    print("error: " + " ".join(line.strip() for line in str(err).splitlines() if line.strip()), file=sys.stderr)
    return 2


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["memory-probe"]:
        from rlvr_lib.training.memory_probe import main as memory_probe

        try:
            return memory_probe(argv[1:])
        except BAD_INPUT as err:
            return error_line(err)
    parser = argparse.ArgumentParser(prog="python -m rlvr_lib", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("methods", help="list registered methods with their paper and hyperparameters")
    check = sub.add_parser(
        "check-params",
        help="validate a params file; for params.yaml (the default) write the pipeline's record "
        "reports/params_check.txt, for another file only with --out",
    )
    check.add_argument("--params", default="params.yaml")
    check.add_argument(
        "--out", default=None, help="write the record here (default: reports/params_check.txt for params.yaml)"
    )
    for stage in ("train", "eval"):
        stage_parser = sub.add_parser(stage, help=f"run the {stage} stage for one entry of params.yaml 'methods'")
        stage_parser.add_argument("run", help="an entry of params.yaml 'methods' (or 'base' for eval)")
        stage_parser.add_argument("--params", default="params.yaml")
    tune = sub.add_parser(
        "tune", help="issue 41's tuning: --dry lists every arm's configurations and their cost before anything runs"
    )
    mode = tune.add_mutually_exclusive_group(required=True)
    mode.add_argument("--dry", action="store_true", help="list only (the runs are DVC stages)")
    mode.add_argument(
        "--tuned-pairs",
        action="store_true",
        help="the tuned protocol's pairs to train, tuned__<arm>:<seed> a line (repro_lanes --pairs-file), from "
        "reports/tuning/selection.json",
    )
    tune.add_argument("--root", default=".", help="the repository root (params.yaml, docs/budgets.yaml)")
    tok_parser = sub.add_parser("qwen-tokenizer", help="write a Qwen2.5 tokenizer folder from qwen.tiktoken")
    tok_parser.add_argument("out", help="folder to write (tokenizer.json, tokenizer_config.json, ...)")
    tok_parser.add_argument(
        "--tiktoken",
        default=None,
        help="ranks file (default: <data root>/tokenizers/qwen.tiktoken, data root as in rlvr_lib.tasks.data)",
    )
    sub.add_parser(
        "memory-probe",
        add_help=False,
        help="measure a paper profile's loss pass + optimizer step on the GPU next to the memory estimate "
        "(memory-probe --help: its options)",
    )
    args = parser.parse_args(argv)
    if args.command == "methods":
        print(format_methods())
        return 0
    if args.command == "tune":
        from rlvr_lib.pipeline.tune_dry import plan, tuned_pairs

        try:
            print("\n".join(tuned_pairs(Path(args.root))) if args.tuned_pairs else plan(Path(args.root)))
        except BAD_INPUT as err:
            return error_line(err)
        return 0
    if args.command == "qwen-tokenizer":
        from rlvr_lib.tasks.data import resolve_data_root
        from rlvr_lib.tasks.qwen_tokenizer import save_qwen_tokenizer

        try:
            source = args.tiktoken or resolve_data_root() / "tokenizers" / "qwen.tiktoken"
            print(save_qwen_tokenizer(source, args.out))
        except BAD_INPUT as err:
            return error_line(err)
        return 0
    from rlvr_lib.pipeline import stages
    from rlvr_lib.workspace import layout

    try:
        if args.command == "check-params":
            pipelines_file = Path(args.params) == Path("params.yaml")
            record = Path(args.out) if args.out else layout.PARAMS_CHECK_FILE if pipelines_file else None
            stages.stage_check_params(args.params, record)
            print(f"{args.params}: valid" + (f" (recorded in {record})" if record else ""))
            return 0
        params = layout.enter_repo(args.params)
        stage = stages.stage_train if args.command == "train" else stages.stage_eval
        stage(params, args.run)
    except BAD_INPUT as err:
        return error_line(err)
    return 0


if __name__ == "__main__":
    sys.exit(main())
