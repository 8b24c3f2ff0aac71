#!/bin/bash
# Train and evaluate chosen (run, seed) pairs on a many-core machine that has the project's heavy dependencies
# (torch, pandas, pyarrow) but not its venv or DVC, e.g. a lent GPU host with CUDA hidden: each pair runs the train and
# eval stages' own functions (rlvr_lib.pipeline.stages.stage_train / stage_eval, which the DVC stages' notebooks call) in a
# lane of one thread, so the bytes do not depend on the lane count.
# usage: bash benchmarks/train_pairs.sh RUN:SEED [RUN:SEED ...]   (base:N: evaluate seed N's base policy only)
# Needs, beside the checkout: $CARRY/whl/*.whl (the pure-Python packages the host lacks: transformers, trl, datasets,
# math-verify, ...; installed into /tmp/site) and $CARRY/state.tar (models/base/seed<N>, data/generated and
# data/filtered from the machine that built the base policies). Writes $OUT/pairs.tar.xz (reports/training,
# reports/eval and reports/metrics of each pair, and each pair's log) and $OUT/pairs.log.
# Bring the outputs home with `tar -xJf pairs.tar.xz`, then `python benchmarks/train_pairs_logs.py` writes each
# pair's DVCLive logs from its history (the host has no DVCLive).
# Lineage: each pair's outputs carry their origin.json (the stage functions write it), but no dvc.lock entry, since
# DVC does not run here: `python -m rlvr_lib.pipeline.lineage status` lists such stages as without a lock entry. For
# results to commit, run DVC on the host instead (benchmarks/repro_many_cores.sh; README.md, "Lineage").
set -u
CARRY=${CARRY:-.cpucarry}
OUT=${OUT:-$PWD/pairs_out}
JOBS=${JOBS:-$(nproc)}
PAIR_TIMEOUT=${PAIR_TIMEOUT:-3600}  # seconds a pair may take: what finished is packed even when a lease runs short
# DEADLINE: seconds from the start after which every pair stops (a pair left with less than MIN_LEFT seconds is not
# started, one still running then is killed and lost), so that the outputs are packed within a call's time limit
DEADLINE=${DEADLINE:-86400}
MIN_LEFT=${MIN_LEFT:-150}
export STOP_AT=$(( $(date +%s) + DEADLINE )) MIN_LEFT
mkdir -p "$OUT" logs/pairs
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site "$CARRY"/whl/*.whl || exit 1
tar -xf "$CARRY/state.tar" || exit 1
export PYTHONPATH=/tmp/site:$PWD CUDA_VISIBLE_DEVICES= HF_HUB_OFFLINE=1 TOKENIZERS_PARALLELISM=false PYTHONUNBUFFERED=1
export OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1
python3 -c "import torch, transformers, trl; print('torch', torch.__version__, '| transformers', transformers.__version__, '| trl', trl.__version__, '| cores', __import__('os').cpu_count())"
pair() {
  local run=${1%%:*} seed=${1##*:} t0=$(date +%s)
  local left=$(( STOP_AT - t0 ))
  if [ "$left" -lt "$MIN_LEFT" ]; then echo "$(date +%T) $run seed $seed skipped: ${left} s left"; return; fi
  [ "$left" -lt "$PAIR_TIMEOUT" ] || left=$PAIR_TIMEOUT
  timeout "$left" python3 -c "from rlvr_lib.pipeline import stages
from rlvr_lib.workspace.layout import enter_repo
p = enter_repo('params.yaml')
if '$run' != 'base':  # base:N evaluates seed N's base policy only (at the shared and every paper's decoding)
    stages.stage_train(p, '$run', $seed)
stages.stage_eval(p, '$run', $seed)" > "logs/pairs/${run}_seed${seed}.log" 2>&1
  echo "$(date +%T) $run seed $seed exit $? in $(( $(date +%s) - t0 )) s"
}
export -f pair
export PAIR_TIMEOUT
t0=$(date +%s)
printf '%s\n' "$@" | xargs -P "$JOBS" -I{} bash -c 'pair {}' | tee "$OUT/pairs.log"
echo "all $# pairs in $(( $(date +%s) - t0 )) s on $JOBS lanes" | tee -a "$OUT/pairs.log"
paths=()
for p in "$@"; do
  run=${p%%:*} seed=${p##*:}
  for d in reports/training/$run/seed$seed reports/eval/$run/seed$seed reports/metrics/$run/seed$seed.json; do
    [ -e "$d" ] && paths+=("$d")
  done
done
tar -cf - "${paths[@]}" logs/pairs | xz -1 -T0 > "$OUT/pairs.tar.xz"
ls -la "$OUT"
