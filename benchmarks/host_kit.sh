#!/bin/bash
# Build .hostcarry/ (git-ignored), what benchmarks/host_pairs.sh needs on a lent host that
# has torch 2.11, numpy, pandas, pyarrow, accelerate, safetensors... (KINDS.md's list) but not DVC, papermill, trl:
#   wheels  the Python 3.12 x86-64 wheels of every package the host lacks (WHEELS below: the closure of dvc, dvclive,
#           papermill, ipykernel, nbclient, trl, datasets, math-verify, less the host's own; transformers, tokenizers
#           and peft at our pins, not the host's 5.17 / 0.23.2 / 0.21.0), installed by python3.12's pip into a folder
#           and packed as .hostcarry/site.tar.xz (jedi, parso and debugpy left out: IPython and ipykernel run without)
#   state   data, base_model@N and filter_data@N for every seed, built by DVC in a scratch copy of HEAD (one thread,
#           as a lane), refused unless every cached output has the hash the committed dvc.lock records (otherwise the
#           host would train from other bytes than the committed pairs); packed with their lock entries
#   state-here  the same state taken from this checkout as it is (data/generated, data/validation (the tuning's
#           validation split), models/base, data/filtered, e.g.
#           adopted from an earlier host call by `host_merge.py --adopt-base`), refused unless DVC finds those stages
#           up to date here
#   todo PAIRS|--tuning [STUDY ...]  .hostcarry/todo.txt: the pairs of PAIRS (--tuning: every tuning run, its DVC
#           files written first) whose train or eval stage is not current here
#           (a host's slim tree lacks the committed results, so its driver cannot tell which pairs are made), plus the
#           pairs whose trained models the named sampling studies read (models are not carried: the host retrains them)
#   all     both, and .hostcarry/commit (the commit origin.json names); prints the size
set -eu
KIT=.hostcarry
PY312=${PY312:-python3.12}
WHEELS="aiohttp-retry==2.9.1 amqp==5.4.2 annotated-types==0.8.0 appdirs==1.4.4 asttokens==3.0.2 asyncssh==2.24.1
atpublic==9.0.0 billiard==4.3.2 celery==5.7.0 cffi==2.1.1 click-didyoumean==0.3.1 click-plugins==1.1.1.2
click-repl==0.4.1 comm==0.2.3 configobj==5.0.9 cryptography==50.0.2 datasets==5.2.0 dictdiffer==0.10.0 dill==0.4.1
diskcache==5.6.3 distro==1.9.0 dpath==2.2.0 dulwich==1.2.21 dvc==3.67.1 dvc-data==3.18.3 dvc-http==2.32.0
dvc-objects==5.2.0 dvc-render==1.0.2 dvc-studio-client==0.23.0 dvc-task==0.40.2 dvclive==3.49.1 entrypoints==0.4.2
executing==2.3.0 fastjsonschema==2.22.3 flatten-dict==0.5.0 flufl-lock==9.2.0 funcy==2.1 gitdb==4.0.12
gitpython==3.2.1 grandalf==0.8 gto==1.10.1 hydra-core==1.3.8 ipykernel==7.4.0 ipython==9.18.1
ipython-pygments-lexers==1.1.1 iterative-telemetry==0.0.10 jsonschema==4.26.0 jsonschema-specifications==2025.9.1
jupyter-client==8.10.0 jupyter-core==5.9.1 kombu==5.7.0 latex2sympy2-extended==1.11.0 math-verify==0.9.0
matplotlib-inline==0.2.2 multiprocess==0.70.19 nbclient==0.11.0 nbformat==5.11.1 nest-asyncio2==1.7.4
omegaconf==2.3.1 orjson==3.13.0 papermill==2.7.0 peft==0.21.2 pexpect==4.9.0 platformdirs==4.14.8
prompt-toolkit==3.0.53 ptyprocess==0.7.0 pure-eval==0.2.4 pycparser==3.12 pydantic==2.14.4 pydantic-core==2.50.5
pydantic-settings==2.16.3 pydot==4.0.1 pygit2==1.21.0 pygtrie==2.6.2 python-dotenv==1.2.4 pyzmq==27.3.0
referencing==0.37.0 rpds-py==2026.9.1 ruamel-yaml==0.19.1 ruamel-yaml-clib==0.2.15 scmrepo==3.6.2 semver==3.1.2
shortuuid==1.0.13 shtab==1.13.0 smmap==5.0.3 sqltrie==0.11.3 stack-data==0.6.3 tenacity==9.2.1 tokenizers==0.23.3
tomlkit==0.15.2 tornado==6.6.1 traitlets==5.16.1 transformers==5.24.0 trl==1.16.0 typing-inspection==0.4.5
tzlocal==5.4.5 vine==5.1.0 voluptuous==0.16.0 wcwidth==0.9.4 zc-lockfile==4.0"
PLATFORMS="--platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 --platform manylinux_2_17_x86_64
--platform manylinux2014_x86_64 --platform manylinux1_x86_64 --platform any"

wheels() {
  local whl=/tmp/hostkit_whl site=/tmp/hostkit_site
  rm -rf $whl $site && mkdir -p $whl $KIT
  python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp $PLATFORMS -d $whl $WHEELS
  python3 -m pip wheel -q --no-deps -w $whl antlr4-python3-runtime==4.9.3  # hydra's pin: an sdist only, pure Python
  $PY312 -m pip install -q --no-index --no-deps --no-compile --target $site $whl/*.whl
  rm -rf $site/jedi $site/parso $site/debugpy $site/jedi-* $site/parso-* $site/debugpy-*
  tar -C $site -cf - . | xz -6 -T0 > $KIT/site.tar.xz
  echo "wheels: $(ls $whl | wc -l) ($(du -sh $whl | cut -f1)), site $(du -sh $site | cut -f1) -> $(du -h $KIT/site.tar.xz | cut -f1)"
}

state() {
  local src=$PWD w=/tmp/hostkit_state seeds
  rm -rf $w && mkdir -p $w $KIT && git archive HEAD | tar -x -C $w
  seeds=$(sed -n 's/^- \([0-9]*\)$/\1/p' $w/pipelines/seeds.yaml)
  ( cd $w && git init -q && git add -A >/dev/null && git -c user.name=kit -c user.email=kit@localhost commit -qm snapshot
    export OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 RLVR_LANES=1 PYTHONPATH=$w
    export RLVR_COMMIT=$(git -C "$src" rev-parse HEAD)
    dvc repro -s data validation_data
    for n in $seeds; do dvc repro -s base_model@$n filter_data@$n; done )
  python3 - "$src/dvc.lock" "$w/dvc.lock" $seeds <<'PY'
import sys
from dvc.utils.serialize import dump_yaml, load_yaml  # DVC's YAML 1.2 (PyYAML reads 1e-05 as a string)
ours, built = (load_yaml(p)["stages"] for p in sys.argv[1:3])
names = ["data", "validation_data"] + [f"{k}@{n}" for n in sys.argv[3:] for k in ("base_model", "filter_data")]
bad = [f"{name}: {o['path']} built {o['md5']}, committed {c.get(o['path'])}" for name in names
       for c in [{x["path"]: x["md5"] for x in ours[name]["outs"]}] for o in built[name]["outs"]
       if not o["path"].startswith("reports/") and o["md5"] != c.get(o["path"])]
if bad:
    sys.exit("refused: today's code does not rebuild the committed data and base policies:\n  " + "\n  ".join(bad))
dump_yaml(sys.argv[2].replace("dvc.lock", ".hoststate.lock.yaml"), {n: built[n] for n in names})
PY
  ( cd $w && tar -cf - .hoststate.lock.yaml data/generated data/validation data/filtered models/base reports/data_filters \
      reports/notebooks/data.ipynb reports/notebooks/validation_data.ipynb reports/notebooks/base_model_seed*.ipynb \
      reports/notebooks/filter_data_seed*.ipynb ) \
    | xz -6 -T0 > $KIT/state.tar.xz
  echo "state: $(du -h $KIT/state.tar.xz | cut -f1)"
}

state_here() {
  local seeds names
  seeds=$(sed -n 's/^- \([0-9]*\)$/\1/p' pipelines/seeds.yaml)
  names="data validation_data $(for n in $seeds; do echo base_model@$n filter_data@$n; done)"
  if ! dvc status $names 2>&1 | grep -q "up to date"; then
    echo "refused: DVC does not find $names up to date here:"; dvc status $names 2>&1 | head -20; exit 1
  fi
  mkdir -p $KIT
  python3 - dvc.lock $names <<'PY'
import sys
from dvc.utils.serialize import dump_yaml, load_yaml  # DVC's YAML 1.2: PyYAML reads a lock's 1e-05 as a string
stages = load_yaml(sys.argv[1])["stages"]
dump_yaml(".hoststate.lock.yaml", {n: stages[n] for n in sys.argv[2:]})
PY
  tar -cf - .hoststate.lock.yaml data/generated data/validation data/filtered models/base reports/data_filters \
      reports/notebooks/data.ipynb reports/notebooks/validation_data.ipynb reports/notebooks/base_model_seed*.ipynb \
      reports/notebooks/filter_data_seed*.ipynb | xz -6 -T0 > $KIT/state.tar.xz
  rm .hoststate.lock.yaml
  echo "state (from this checkout): $(du -h $KIT/state.tar.xz | cut -f1)"
}

todo() {  # the pairs of PAIRS (--tuning: every tuning run) not yet current here, and those the named studies read
  local pairs=${1:?usage: $0 todo PAIRS|--tuning [STUDY ...]}
  shift
  mkdir -p $KIT
  python3 - "$pairs" $KIT/todo.txt "$@" <<'PY'
import sys
from pathlib import Path
from rlvr_lib.pipeline.lineage import stage_lineages
from rlvr_lib.pipeline.repro_lanes import only_studies

pairs, out, studies = sys.argv[1], Path(sys.argv[2]), sys.argv[3:]
if pairs == "--tuning":  # every tuning run tune__<arm>__<k>:N, its stages in pipelines/tune/<arm>/dvc.yaml
    from rlvr_lib.pipeline import tune_dvc
    from rlvr_lib.pipeline.repro_lanes import tuning_runs
    from rlvr_lib.settings.config import load_params

    tune_dvc.write(Path("."))
    listed = [f"{run}:{n}" for run, seeds in tuning_runs(load_params()).items() for n in seeds]
    def stages(run, seed):
        _, arm, k = run.split("__")
        return [f"pipelines/tune/{arm}/dvc.yaml:{kind}_{k}@{seed}" for kind in ("train", "eval")]
else:
    listed = [line.strip() for line in Path(pairs).read_text().splitlines() if line.strip() and not line.startswith("#")]
    def stages(run, seed):
        return [f"pipelines/{run}/dvc.yaml:{kind}@{seed}" for kind in ("train", "eval")]
lineages = stage_lineages()
current = {e.address for e in lineages if e.state == "current"}
read = {d.split("/")[1] for e in lineages if e.address.split(":")[-1] in {n for u in only_studies(studies) for n in u.stages}
        for d in e.deps if d.startswith("runs/")}
def done(pair):
    return all(stage in current for stage in stages(*pair.split(":")))
keep = [p for p in listed if not done(p) or p.split(":")[0] in read]
out.write_text("".join(f"{p}\n" for p in keep))
print(f"todo: {len(keep)} of {len(listed)} pairs ({sum(not done(p) for p in listed)} not current here, "
      f"{sum(done(p) and p.split(':')[0] in read for p in listed)} current but read by {' '.join(studies) or 'no study'}) -> {out}")
PY
}

case "${1:-all}" in
  wheels) wheels ;;
  state) state ;;
  state-here) state_here ;;
  todo) shift; todo "$@" ;;
  all) wheels; state ;;
  *) echo "usage: $0 wheels | state | state-here | todo PAIRS|--tuning [STUDY ...] | all" >&2; exit 2 ;;
esac
git rev-parse HEAD > $KIT/commit
echo ".hostcarry: $(du -sh $KIT | cut -f1) ($(du -sb $KIT | cut -f1) bytes; with the slim tree it must stay under 64 MiB)"
