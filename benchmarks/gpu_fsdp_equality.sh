#!/bin/bash
# FSDP2 with 1 process vs 2 processes (benchmarks/gpu_fsdp_equality.py), with plain SGD (the sharded gradient and
# update alone) and with AdamW (whose per-element normalisation g / (|g| + eps) turns rounding differences of
# near-zero gradients into update differences of up to the learning rate), on a machine with 4 GPUs: SGD on GPUs
# 0-1, AdamW on GPUs 2-3, at the same time. usage: OUT=DIR bash benchmarks/gpu_fsdp_equality.sh
set -u
OUT=${OUT:-$PWD/gpu_out}; mkdir -p "$OUT"
export HF_HUB_OFFLINE=1 PYTHONUNBUFFERED=1 CUDA_DEVICE_ORDER=PCI_BUS_ID
[ -d /tmp/site/trl ] || python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site:$PWD
LAUNCH="python3 -m accelerate.commands.launch --config_file configs/accelerate/fsdp2.yaml --mixed_precision no"
pair() {  # $1 optimizer, $2 first GPU, $3 port
  local o=$1 g=$2 p=$3
  CUDA_VISIBLE_DEVICES=$g timeout 120 $LAUNCH --num_processes 1 --main_process_port $p \
    benchmarks/gpu_fsdp_equality.py run --optim $o --out /tmp/eq/$o-1 > "$OUT/equality_$o.log" 2>&1
  CUDA_VISIBLE_DEVICES=$g,$((g + 1)) timeout 120 $LAUNCH --num_processes 2 --main_process_port $((p + 1)) \
    benchmarks/gpu_fsdp_equality.py run --optim $o --out /tmp/eq/$o-2 >> "$OUT/equality_$o.log" 2>&1
}
pair sgd 0 29611 &
pair adamw 2 29621 &
wait
for tol in 1e-6 1e-5; do python3 benchmarks/gpu_fsdp_equality.py compare /tmp/eq/sgd-1 /tmp/eq/sgd-2 --tol $tol; done \
  2>&1 | tee "$OUT/equality.txt"
for tol in 1e-5 1e-3; do python3 benchmarks/gpu_fsdp_equality.py compare /tmp/eq/adamw-1 /tmp/eq/adamw-2 --tol $tol; done \
  2>&1 | tee -a "$OUT/equality.txt"
