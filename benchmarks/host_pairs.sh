#!/bin/bash
# Run declared (run, seed) pairs under DVC on a lent host's CPUs (CUDA hidden), in calls of at most 10 minutes that
# resume: a warm machine's driver keeps running between calls; a fresh machine starts again from the checkout, whose
# lock entries (merged home by benchmarks/host_merge.py) let the lane driver skip the pairs already made.
# usage (the device call's command; .hostcarry from benchmarks/host_kit.sh in `carry`):
#   bash benchmarks/host_pairs.sh PAIRS_FILE SECONDS [STUDY ...]
#   TUNING=1 bash benchmarks/host_pairs.sh PAIRS_FILE SECONDS   (issue 41's tuning runs: `repro_lanes --tuning`; the
#   file lists tuning runs tune__<arm>__<k>:N, e.g. benchmarks/host_kit.sh todo --tuning)
#   first call on a machine: copy the checkout to $WORK, install .hostcarry/site.tar.xz into /tmp/site, restore
#   .hostcarry/state.tar.xz (data, base policies, filtered sets and their lock entries, made by an earlier call or on
#   the project's machine; without it the driver builds them here first, and they are packed with the results for
#   `host_merge.py --adopt-base`), git init + commit the snapshot, then start in the background `repro_lanes --pairs-file PAIRS_FILE --studies STUDY..
#   --deadline $DEADLINE` at $JOBS lanes of one thread. Every call: wait until SECONDS have passed since the call began
#   (or the driver ended), then pack into $OUT what the host made since its start: reports/, dvc.lock,
#   pipelines/*/dvc.lock, the lane logs (results.tar.xz.NN, 15 MB parts) and repro.log.
# Environment: WORK (/root/hostpairs), JOBS (the cores), DEADLINE (seconds after the driver's start when no unit
# starts any more, default 1380: a lent machine is held 30 minutes at most), RLVR_MACHINE.
set -u
T0=$(date +%s)
PAIRS=${1:?usage: $0 PAIRS_FILE SECONDS [STUDY ...]} SECONDS_=${2:?usage: $0 PAIRS_FILE SECONDS [STUDY ...]}
shift 2
WORK=${WORK:-/root/hostpairs} OUT=${OUT:-$PWD/host_out} SRC=$PWD CARRY=$PWD/.hostcarry
export PYTHONPATH=/tmp/site:$WORK PATH=/tmp/bin:/tmp/site/bin:$PATH CUDA_VISIBLE_DEVICES= HF_HUB_OFFLINE=1
export DVC_NO_ANALYTICS=1 TOKENIZERS_PARALLELISM=false PYTHONUNBUFFERED=1 RLVR_DATA_ROOT=${RLVR_DATA_ROOT:-$WORK/../shared/data}
export RLVR_COMMIT=$(cat "$CARRY/commit") RLVR_MACHINE=${RLVR_MACHINE:-$(nproc)-core host}

setup() {
  rm -rf "$WORK" && mkdir -p "$WORK" || exit 1
  tar --exclude=./.hostcarry --exclude=./.git -cf - . | tar -C "$WORK" -xf - || exit 1
  [ -d /tmp/site ] || { mkdir -p /tmp/site && tar -C /tmp/site -xJf "$CARRY/site.tar.xz"; } || exit 1
  mkdir -p /tmp/bin
  for tool in dvc papermill; do printf '#!/bin/sh\nexec python3 -m %s "$@"\n' $tool > /tmp/bin/$tool; done
  chmod +x /tmp/bin/*
  cd "$WORK" || exit 1
  if [ -f "$CARRY/state.tar.xz" ]; then restore_state || exit 1; else echo "no state carried: the driver builds it"; fi
  git init -q && git add -A >/dev/null && git -c user.name=host -c user.email=host@localhost commit -qm snapshot
  python3 -c "import torch, transformers, trl, dvc, papermill; print('torch', torch.__version__, '| transformers', transformers.__version__, '| trl', trl.__version__, '| dvc', dvc.__version__, '| cores', __import__('os').cpu_count())" || exit 1
  if [ -f "$CARRY/state.tar.xz" ]; then check_state || exit 3; fi
  echo "setup took $(( $(date +%s) - T0 )) s"
  date +%s > started
  local what="--pairs-file '$SRC/$PAIRS'"
  [ -n "${TUNING:-}" ] && what="--tuning $what"
  setsid nohup bash -c "python3 -m rlvr_lib.pipeline.repro_lanes $what --jobs ${JOBS:-$(nproc)} \
    --deadline ${DEADLINE:-1380} ${*:+--studies $*}; echo \"exit \$? at \$(date +%s)\" > finished" > repro.log 2>&1 < /dev/null &
}

restore_state() {
  xz -dc "$CARRY/state.tar.xz" | tar -xf - || return 1
  python3 - <<'PY' || return 1
from dvc.utils.serialize import load_yaml, modify_yaml
entries = load_yaml(".hoststate.lock.yaml")
with modify_yaml("dvc.lock") as data:  # the state's stages as DVC recorded them where they ran
    data["stages"].update(entries)
print(f"state: {len(entries)} lock entries ({', '.join(entries)})")
PY
  rm .hoststate.lock.yaml
}

check_state() {  # the restored outputs into DVC's cache; their hashes must be the lock entries' (dvc.lock unchanged)
  local names="data validation_data $(sed -n 's/^- \([0-9]*\)$/base_model@\1 filter_data@\1/p' pipelines/seeds.yaml)"
  dvc commit -f -q $names || return 1
  if ! git diff --quiet dvc.lock; then
    echo "the carried base policies differ from their lock entries (rebuild .hostcarry: benchmarks/host_kit.sh state-here):"
    git diff --stat dvc.lock; git diff dvc.lock | head -30; return 1
  fi
}

if [ -f "$WORK/started" ]; then cd "$WORK" && echo "resuming on a warm machine (driver started $(( T0 - $(cat started) )) s ago)"
else setup "$@"; fi
while [ ! -f finished ] && [ "$(date +%s)" -lt $(( T0 + SECONDS_ )) ]; do sleep 10; done
grep -E "to run|done in|up to date|elsewhere|deadline|FAILED|stopped|rror" repro.log | tail -60
[ -f finished ] && cat finished
mkdir -p "$OUT" && cp repro.log "$OUT/"
# the cached outputs of the root stages built here (no state carried): data, base policies, filtered sets
{ find reports -newer started -type f; ls dvc.lock pipelines/*/dvc.lock pipelines/tune/*/dvc.lock 2>/dev/null
  find runs/.repro_logs -type f 2>/dev/null
  find data/generated data/filtered models/base -newer started -type f 2>/dev/null; } \
  | tar -cf - -T - | xz -6 -T0 > /tmp/results.tar.xz
split -b 15M -d /tmp/results.tar.xz "$OUT/results.tar.xz."
ls -la "$OUT"; echo "call took $(( $(date +%s) - T0 )) s"
