#!/bin/bash
# The working tree a device call sends is limited to 64 MiB; the tracked tree is about 110 MiB, most of it results a host
# run does not read (reports/training, reports/eval, reports/notebooks). `slim` leaves them out of the working tree by a
# sparse checkout (about 18 MiB, the base evaluations kept; git keeps them, nothing is deleted from the repository), `full` brings them back.
# usage: bash benchmarks/host_tree.sh slim | full     (run in the checkout the device call sends)
set -eu
case "${1:-}" in
  slim) git sparse-checkout set --no-cone '/*' '!/reports/training/' '!/reports/eval/' '!/reports/notebooks/' \
          '/reports/eval/base/' '/reports/notebooks/eval_base_seed*'  # the base evaluations' outputs: not rerun there
        du -sh --exclude=.git . ;;
  full) git sparse-checkout disable ;;
  *) echo "usage: $0 slim | full" >&2; exit 2 ;;
esac
