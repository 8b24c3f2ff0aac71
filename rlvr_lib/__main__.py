"""Command line: ``python -m rlvr_lib methods`` lists every registered method with its paper and defaults."""
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
    args = parser.parse_args(argv)
    if args.command == "methods":
        print(format_methods())
    return 0


if __name__ == "__main__":
    sys.exit(main())
