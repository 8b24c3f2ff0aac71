#!/bin/bash
# The GPU measurements of docs/gpu.md, as run on the lent GPU machines (no internet there).
# usage: bash benchmarks/gpu_run.sh STEP...   with STEP one of
#   setup               install the wheels in .whl (if present), build the model + tokenizer, run the data stage
#                       (SETUP_DATA=0: not the data stage; only `proof` and `dist` need it)
#   proof:SECONDS:RUNS  train RUNS (comma-separated entries of benchmarks/gpu_proof.yaml) through
#                       `python -m rlvr_lib train`, one at a time, in the order given; none starts after SECONDS.
#                       GPUS=N: N at a time, one per GPU, each alone on its GPU (worker i sees only GPU i and
#                       takes the next run of the list when it is free); PROOF_WORKERS=2: two at a time on GPU 0.
#                       Each run's peak GPU memory: nvidia-smi's memory.used of its GPU. PROOF_STOP=S: a run
#                       still training S seconds after the start is stopped (rc 124), so the logs come back
#   chunks:REPEATS:RUNS the RUNS (e.g. grpo,grpo_chunk32) alternated, each in its own process, REPEATS times
#   compare:REPEATS     our grpo vs stock TRL GRPOTrainer, each in its own process, alternated (COMPARE_GEN: the
#                       generation of both, default | static_compile; COMPARE_EXTRA: more NAME='one-args' configs)
#   methods             every method's update cost against grpo's on one rollout batch
#   rollout             generation tokens/s of the transformers options, one process each
#   dist                1-vs-2-process equality (accelerate launch) and 1-vs-2-GPU step time
# Logs and results go to $OUT (default ./gpu_out).
set -u
OUT=${OUT:-$PWD/gpu_out}; mkdir -p "$OUT/logs"
export RLVR_DATA_ROOT=${RLVR_DATA_ROOT:-$PWD/data} HF_HUB_OFFLINE=1 TOKENIZERS_PARALLELISM=false
export PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True PYTHONUNBUFFERED=1
MODEL=${MODEL:-/tmp/rlvr_gpu_model}
PARAMS=${PARAMS:-benchmarks/gpu_proof.yaml}
START=$(date +%s)
elapsed() { echo $(( $(date +%s) - START )); }

setup() {
  if ls .whl/*.whl >/dev/null 2>&1 && [ ! -d /tmp/site/trl ]; then  # once per machine
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl || exit 1
  fi
  export PYTHONPATH=/tmp/site:$PWD
  python3 - <<'PY'
import torch, transformers, trl, datasets, peft, accelerate, pyarrow
print("GPU:", torch.cuda.get_device_name(), "x", torch.cuda.device_count(), "| torch", torch.__version__,
      "| transformers", transformers.__version__, "| trl", trl.__version__, "| datasets", datasets.__version__,
      "| peft", peft.__version__, "| accelerate", accelerate.__version__, "| pyarrow", pyarrow.__version__)
PY
  [ -f $MODEL/config.json ] || python3 benchmarks/gpu_step.py model $MODEL --data-root "$RLVR_DATA_ROOT" 2>&1 | tail -2
  [ "${SETUP_DATA:-1}" = 0 ] && { echo "setup done at $(elapsed) s (no data stage)"; return; }
  python3 -c "
from rlvr_lib import pipeline
counts = pipeline.stage_data(pipeline.enter_repo('$PARAMS'))
print('data stage:', counts['report']['train_steps'], '-> written', {k: v for k, v in counts.items() if k != 'report'})
" 2>&1 | tail -1
  echo "setup done at $(elapsed) s"
}

train_one() {  # $1 run, $2 its GPU (nvidia-smi's index): one `python -m rlvr_lib train`, its peak GPU memory (MiB)
  local run=$1 gpu=$2 t0=$(date +%s) start=$(elapsed) limit=()
  rm -rf "runs/$run" "reports/training/$run"
  nvidia-smi -i "$gpu" --query-gpu=memory.used --format=csv,noheader,nounits -lms 200 > "$OUT/logs/mem_$run.txt" &
  local poll=$!
  if [ -n "${PROOF_STOP:-}" ]; then
    local left=$(( PROOF_STOP - start )); (( left < 1 )) && left=1
    limit=(timeout -k 15 "$left")
  fi
  "${limit[@]}" python3 -m rlvr_lib train "$run" --params $PARAMS > "$OUT/logs/proof_$run.log" 2>&1
  local rc=$?
  kill $poll; wait $poll 2>/dev/null
  local peak=$(sort -n "$OUT/logs/mem_$run.txt" | tail -1)
  echo "RUN $run gpu=$gpu rc=$rc start=${start}s wall=$(( $(date +%s) - t0 ))s peak_gpu_mib=$peak $(grep -m1 'peak memory estimate' "$OUT/logs/proof_$run.log" | sed 's/.*peak memory estimate/estimate/')"
  history_line "$run"
}

history_line() {  # $1 run: its steps, step times and generation times from history.json
  python3 - "$1" <<'PY'
import json, pathlib, sys
run = sys.argv[1]
for hist in sorted(pathlib.Path("reports/training", run).glob("seed*/history.json")):
    rows = json.loads(hist.read_text())
    final = (pathlib.Path("runs") / run / hist.parent.name / "final" / "config.json").exists()
    steps = [round(r["step_time"], 1) for r in rows]
    gen = [round(r.get("timing/generation_s", 0.0), 1) for r in rows]
    print(f"PROOF {run}: {len(rows)} optimizer steps, step_time {steps} s, generation {gen} s, final model saved: {final}")
PY
}

proof_worker() {  # $1 deadline, $2 GPU, $3.. runs: trains, in order, each run that no other worker has taken
  local deadline=$1 gpu=$2; shift 2
  for run in "$@"; do
    mkdir "$PROOF_TAKEN/$run" 2>/dev/null || continue  # atomic: exactly one worker takes each run
    if [ "$(elapsed)" -ge "$deadline" ]; then echo "SKIPPED $run (deadline)"; continue; fi
    train_one "$run" "$gpu"
  done
}

proof() {  # $1 deadline, $2 comma-separated runs: one shared queue; GPUS workers one per GPU, else PROOF_WORKERS on GPU 0
  IFS=, read -ra runs <<< "$2"
  PROOF_TAKEN=$(mktemp -d)
  if [ -n "${GPUS:-}" ]; then
    for ((i = 0; i < GPUS; i++)); do
      CUDA_DEVICE_ORDER=PCI_BUS_ID CUDA_VISIBLE_DEVICES=$i proof_worker "$1" "$i" "${runs[@]}" &
    done
  else
    for ((i = 0; i < ${PROOF_WORKERS:-1}; i++)); do proof_worker "$1" 0 "${runs[@]}" & done
  fi
  wait
  rm -rf "$PROOF_TAKEN"
}

chunks() {  # $1 repeats, $2 comma-separated runs: alternated, each in its own process
  IFS=, read -ra runs <<< "$2"
  for ((r = 1; r <= $1; r++)); do
    for run in "${runs[@]}"; do echo "repeat $r"; train_one "$run" 0; done
  done
}

compare() {
  local gen=${COMPARE_GEN:-default}
  local common="--model $MODEL --data-root $RLVR_DATA_ROOT --prompts 8 --generations 8 --grad-accum 4 --max-completion-length ${COMPARE_LEN:-1024} --gradient-checkpointing --steps ${COMPARE_STEPS:-3} --warmup-steps ${COMPARE_WARMUP:-1} --generation $gen"
  local extra=(); eval "extra=(${COMPARE_EXTRA:-})"  # e.g. COMPARE_EXTRA="ours_fwd='--impl ours --behaviour-forward'"
  python3 benchmarks/gpu_step.py compare --repeats "$1" --deadline "${COMPARE_DEADLINE:-0}" \
    --log "$OUT/compare_$gen.jsonl" --common "$common" trl="--impl trl" ours="--impl ours" "${extra[@]}" 2>&1 | grep -v Warning
}

methods() {
  timeout ${METHODS_TIMEOUT:-1800} python3 benchmarks/gpu_step.py methods --model $MODEL --data-root "$RLVR_DATA_ROOT" --prompts 8 --generations 8 \
    --grad-accum 4 --max-completion-length ${METHODS_LEN:-1024} --gradient-checkpointing --rounds 2 2>&1 | grep -E "^\||^GPU|Error"
}

rollout() {
  for opt in ${ROLLOUT_OPTIONS:-default static static_compile paged}; do
    timeout ${ROLLOUT_TIMEOUT:-240} python3 benchmarks/gpu_step.py rollout --model $MODEL --data-root "$RLVR_DATA_ROOT" \
      --option $opt --batch 64 --new-tokens ${ROLLOUT_TOKENS:-256} --repeats ${ROLLOUT_REPEATS:-2} 2>&1 | grep -E "rep |RESULT|Error" | tail -4
    echo "ROLLOUT $opt rc=${PIPESTATUS[0]}"
  done
}

dist() {
  export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
  CUDA_VISIBLE_DEVICES=0 python3 benchmarks/dist_equality.py run --out "$OUT/eq1" 2>&1 | tail -1
  python3 -m accelerate.commands.launch --num_processes 2 --num_machines 1 --mixed_precision no --dynamo_backend no \
    benchmarks/dist_equality.py run --out "$OUT/eq2" 2>&1 | tail -1
  python3 benchmarks/dist_equality.py compare "$OUT/eq1" "$OUT/eq2" | tee "$OUT/equality.md"
  python3 - <<PY  # the proof's grpo run with DIST_LEN completion tokens, DIST_STEPS steps, DIST_GEN generation
import yaml
d = yaml.safe_load(open("$PARAMS"))
d["train"].update(max_completion_length=int("${DIST_LEN:-1024}"), max_steps=int("${DIST_STEPS:-2}"),
                  rollout_generation="${DIST_GEN:-auto}")
d["methods"] = {"grpo": {}}
yaml.safe_dump(d, open("benchmarks/_dist.yaml", "w"))
PY
  for n in 1 2; do
    local t0=$(date +%s)
    local gpus=0; [ "$n" = 2 ] && gpus=0,1; rm -f reports/training/grpo/seed0/history.json
    CUDA_VISIBLE_DEVICES=$gpus timeout ${DIST_TIMEOUT:-1800} python3 -m accelerate.commands.launch --num_processes $n --num_machines 1 \
      --mixed_precision no --dynamo_backend no -m rlvr_lib train grpo --params benchmarks/_dist.yaml > "$OUT/logs/dist_grpo_$n.log" 2>&1
    echo "DIST grpo generation=${DIST_GEN:-auto} processes=$n rc=$? wall=$(( $(date +%s) - t0 ))s steps: $(python3 -c "import json; print([round(r['step_time'], 2) for r in json.load(open('reports/training/grpo/seed0/history.json'))])")"
  done
}

for step in "$@"; do
  IFS=: read -r name a1 a2 <<< "$step"
  echo "=== $name $a1 $a2 (t=$(elapsed) s)"
  case $name in
    setup) setup ;;
    proof) proof "$a1" "$a2" ;;
    chunks) chunks "$a1" "$a2" ;;
    compare) compare "${a1:-3}" ;;
    methods) methods ;;
    rollout) rollout ;;
    dist) dist ;;
    *) echo "unknown step $name"; exit 2 ;;
  esac
done
tar czf "$OUT/logs.tgz" -C "$OUT" logs && rm -rf "$OUT/logs"
echo "all done at $(elapsed) s"
