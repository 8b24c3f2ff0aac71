#!/bin/bash
# One screenshot per paper of its executed notebook opened in JupyterLab (headless Chromium against `jupyter lab`):
# checks that the notebook renders its equations (MathJax) and figures in a real browser. Writes
# docs/screenshots/<paper>.png. Needs chromium (Debian: apt-get install chromium) and the project's venv.
#   bash benchmarks/lab_screenshots.sh [PAPER...]   (default: erpo cw_grpo tepo opefo aer summary)
set -eu
PORT=${PORT:-8899}
PAPERS=${*:-erpo cw_grpo tepo opefo aer summary}
OUT=docs/screenshots
mkdir -p "$OUT"
.venv/bin/jupyter lab --no-browser --port "$PORT" --IdentityProvider.token= --ServerApp.password= \
  --allow-root --ServerApp.open_browser=False --LabApp.news_url=None --LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate > /tmp/lab_screenshots.log 2>&1 &
LAB=$!
trap 'kill $LAB 2>/dev/null' EXIT
for _ in $(seq 60); do curl -s -o /dev/null "http://localhost:$PORT/lab" && break; sleep 1; done
for paper in $PAPERS; do
  # the notebook alone (simple interface), scrolled to its top: title, Summary, The method's equations
  url="http://localhost:$PORT/doc/tree/reports/notebooks/paper_$paper.ipynb"
  chromium --headless=new --no-sandbox --disable-gpu --hide-scrollbars --window-size=1280,2200 \
    --virtual-time-budget=25000 --screenshot="$OUT/$paper.png" "$url" 2>/dev/null
  echo "$OUT/$paper.png"
done
