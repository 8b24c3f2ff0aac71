"""Command line.

``python -m rlvr_lib methods`` lists every registered method with its paper and defaults;
``python -m rlvr_lib train RUN`` / ``eval RUN`` run one pipeline stage outside papermill, e.g. under
``accelerate launch -m rlvr_lib train grpo`` on several GPUs;
``python -m rlvr_lib qwen-tokenizer OUT`` writes a Qwen2.5 tokenizer folder built from ``qwen.tiktoken``.
"""
from __future__ import annotations

import argparse
import sys

from .methods import REGISTRY


def format_methods() -> str:
    lines = []
    for name in sorted(REGISTRY):
        cls = REGISTRY[name]
        lines.append(f"{name}  [{cls.updates_per_batch} update(s) per rollout batch]")
        lines.append(f"    paper: {cls.paper}")
        defaults = ", ".join(f"{k}={v!r}" for k, v in cls.defaults().items())
        lines.append(f"    defaults: {defaults or '(none)'}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m rlvr_lib", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("methods", help="list registered methods with their paper and default hyperparameters")
    for stage in ("train", "eval"):
        stage_parser = sub.add_parser(stage, help=f"run the {stage} stage for one entry of params.yaml 'methods'")
        stage_parser.add_argument("run", help="an entry of params.yaml 'methods' (or 'base' for eval)")
        stage_parser.add_argument("--params", default="params.yaml")
    tok_parser = sub.add_parser("qwen-tokenizer", help="write a Qwen2.5 tokenizer folder from qwen.tiktoken")
    tok_parser.add_argument("out", help="folder to write (tokenizer.json, tokenizer_config.json, ...)")
    tok_parser.add_argument("--tiktoken", default=None,
                            help="ranks file (default: <data root>/tokenizers/qwen.tiktoken, data root as in rlvr_lib.data)")
    args = parser.parse_args(argv)
    if args.command == "methods":
        print(format_methods())
        return 0
    if args.command == "qwen-tokenizer":
        from .data import resolve_data_root
        from .qwen_tokenizer import save_qwen_tokenizer

        source = args.tiktoken or resolve_data_root() / "tokenizers" / "qwen.tiktoken"
        print(save_qwen_tokenizer(source, args.out))
        return 0
    from . import pipeline

    params = pipeline.enter_repo(args.params)
    stage = pipeline.stage_train if args.command == "train" else pipeline.stage_eval
    stage(params, args.run)
    return 0


if __name__ == "__main__":
    sys.exit(main())
