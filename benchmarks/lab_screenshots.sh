#!/bin/bash
# One screenshot per paper of its executed notebook opened in JupyterLab (headless Chromium against `jupyter lab`):
# checks that the notebook renders its equations (MathJax) and figures in a real browser. Writes
# docs/screenshots/<paper>.png (its top: Summary, The method) and prints, from the whole notebook rendered in the
# browser, how many equations MathJax typeset and how many of its figures are shown. Needs chromium (Debian:
# apt-get install chromium) and the project's venv.
#   bash benchmarks/lab_screenshots.sh [PAPER...]   (default: erpo cw_grpo tepo opefo aer summary)
set -eu
PORT=${PORT:-8899}
PAPERS=${*:-erpo cw_grpo tepo opefo aer summary}
OUT=docs/screenshots
mkdir -p "$OUT"
# a settings folder of its own: no "get notified about news?" prompt over the page
export JUPYTERLAB_SETTINGS_DIR=$(mktemp -d)
mkdir -p "$JUPYTERLAB_SETTINGS_DIR/@jupyterlab/apputils-extension"
echo '{"fetchNews": "false", "checkForUpdates": false}' \
  > "$JUPYTERLAB_SETTINGS_DIR/@jupyterlab/apputils-extension/notification.jupyterlab-settings"
.venv/bin/jupyter lab --no-browser --port "$PORT" --IdentityProvider.token= --ServerApp.password= \
  --allow-root --ServerApp.open_browser=False > /tmp/lab_screenshots.log 2>&1 &
LAB=$!
trap 'kill $LAB 2>/dev/null' EXIT
for _ in $(seq 60); do curl -s -o /dev/null "http://localhost:$PORT/lab" && break; sleep 1; done
for paper in $PAPERS; do
  # the notebook alone (simple interface), scrolled to its top: title, Summary, The method's equations
  url="http://localhost:$PORT/doc/tree/reports/notebooks/paper_$paper.ipynb"
  chromium --headless=new --no-sandbox --disable-gpu --hide-scrollbars --window-size=1280,2200 \
    --virtual-time-budget=25000 --screenshot="$OUT/$paper.png" "$url" 2>/dev/null
  # the whole notebook rendered at once (a window tall enough that JupyterLab draws every cell): the equations MathJax
  # typeset and the figures the browser shows, against the figures the notebook holds
  chromium --headless=new --no-sandbox --disable-gpu --window-size=1280,80000 --virtual-time-budget=40000 \
    --dump-dom "$url" 2>/dev/null > /tmp/lab_dom.html
  .venv/bin/python - "$paper" /tmp/lab_dom.html "reports/notebooks/paper_$paper.ipynb" <<'PY'
import json, re, sys
paper, dom, notebook = sys.argv[1], open(sys.argv[2]).read(), json.load(open(sys.argv[3]))
held = sum("image/png" in o.get("data", {}) for c in notebook["cells"] for o in c.get("outputs", []))
shown = len(re.findall(r'<img[^>]+src="data:image/png', dom))
equations = len(re.findall(r"<mjx-container", dom))
print(f"{paper}: {equations} equations typeset, {shown} of {held} figures shown")
PY
  echo "$OUT/$paper.png"
done
