#!/bin/bash
# The full `make repro` on a many-core machine that has the project's heavy dependencies (torch, transformers) but
# not its venv, e.g. the lent GPU hosts (CPU only here: CUDA is hidden, so the bytes follow the laptop's code path).
# usage: bash benchmarks/repro_many_cores.sh start | wait SECONDS | collect
#   start    copy the checkout to $WORK, install the wheels unpacked in $SITE_TAR, restore $STATE_TAR (finished
#            data / base-policy stages from another machine, optional), then start `make repro`'s steps in the
#            background with one lane per core ($JOBS), one thread each; log: $WORK/repro.log
#   wait S   print the progress lines until the run ends or S seconds pass
#   collect  pack what the run made for the repository (reports/, dvc.lock files, the logs) into $OUT
# Environment: WORK (default /root/repro), SITE_TAR, STATE_TAR (default .gpucarry/{site10,state10}.tar.xz), JOBS;
# RLVR_COMMIT (the commit the copy was made from: every origin.json names it, since the host's snapshot commit is not
# the repository's) and RLVR_MACHINE (a name for the machine kind in origin.json, e.g. "64-core host").
set -u
WORK=${WORK:-/root/repro}
SITE_TAR=${SITE_TAR:-.gpucarry/site10.tar.xz}
STATE_TAR=${STATE_TAR:-.gpucarry/state10.tar.xz}
OUT=${OUT:-$PWD/repro_out}
export PYTHONPATH=/tmp/site:$WORK PATH=/tmp/bin:$PATH CUDA_VISIBLE_DEVICES= HF_HUB_OFFLINE=1 DVC_NO_ANALYTICS=1
export TOKENIZERS_PARALLELISM=false PYTHONUNBUFFERED=1 RLVR_DATA_ROOT=${RLVR_DATA_ROOT:-$WORK/../shared/data}
export RLVR_COMMIT=${RLVR_COMMIT:-$(git rev-parse HEAD 2>/dev/null)} RLVR_MACHINE=${RLVR_MACHINE:-$(nproc)-core host}

start() {
  local t0=$(date +%s) src=$PWD
  rm -rf "$WORK" && mkdir -p "$WORK" || exit 1
  tar --exclude=./.gpucarry --exclude=./.git -cf - . | tar -C "$WORK" -xf - && cd "$WORK" || exit 1
  [ -d /tmp/site ] || tar -C /tmp -xJf "$src/$SITE_TAR" || exit 1
  mkdir -p /tmp/bin
  for tool in dvc papermill; do printf '#!/bin/sh\nexec python3 -m %s "$@"\n' $tool > /tmp/bin/$tool; done
  chmod +x /tmp/bin/*
  [ -f "$src/$STATE_TAR" ] && { xz -dc "$src/$STATE_TAR" | tar -xf - || exit 1; }
  git init -q && git add -A >/dev/null && git -c user.name=repro -c user.email=repro@localhost commit -qm snapshot
  [ -f "$src/$STATE_TAR" ] && { dvc commit -f data base_model filter_data eval_base >/dev/null || exit 1; }
  python3 -c "import torch, transformers, trl, dvc, papermill; print('torch', torch.__version__, '| transformers', transformers.__version__, '| trl', trl.__version__, '| cores', __import__('os').cpu_count())"
  echo "setup took $(( $(date +%s) - t0 )) s"
  local jobs=${JOBS:-$(nproc)}
  setsid nohup bash -c "date +%s > started; python3 -m rlvr_lib check-params && python3 -m rlvr_lib.pipeline.dvc_stages \
    && python3 -m rlvr_lib.pipeline.repro_lanes --jobs $jobs && python3 -m rlvr_lib.pipeline.dvc_lock; echo \"exit \$? at \$(date +%s)\" > finished" \
    > repro.log 2>&1 < /dev/null &
  sleep 5; cat repro.log
}

wait_for() {
  cd "$WORK" || exit 1
  local until=$(( $(date +%s) + $1 ))
  while [ ! -f finished ] && [ "$(date +%s)" -lt "$until" ]; do sleep 15; done
  grep -v "^\s*$" repro.log | grep -E "make repro|done in|to run|up to date|stopped|Error|error" | tail -40
  [ -f finished ] && { cat finished; echo "wall: $(( $(cut -d' ' -f4 finished) - $(cat started) )) s"; }
}

collect() {
  cd "$WORK" || exit 1
  mkdir -p "$OUT"
  cp repro.log "$OUT/"
  tar -cf - reports dvc.lock pipelines runs/.repro_logs 2>/dev/null | xz -6 -T0 > /tmp/results.tar.xz
  split -b 15M -d /tmp/results.tar.xz "$OUT/results.tar.xz."
  ls -la "$OUT"
}

case "${1:-}" in
  start) start ;;
  wait) wait_for "${2:-540}" ;;
  collect) collect ;;
  *) echo "usage: $0 start | wait SECONDS | collect" >&2; exit 2 ;;
esac
