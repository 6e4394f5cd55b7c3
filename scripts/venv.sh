#!/usr/bin/env bash
# Creates (or reuses) .venv with the real frameworks the tests compare against
# (test/python/requirements.txt). Prints the python path on its last line.
# Re-installs only when the requirements file changed.
set -euo pipefail
cd "$(dirname "$0")/.."
req=test/python/requirements.txt
stamp=.venv/.requirements.sha
sum=$(sha256sum "$req" | cut -d' ' -f1)
if [ -x .venv/bin/python ] && [ "$(cat "$stamp" 2>/dev/null)" = "$sum" ]; then
  echo "$PWD/.venv/bin/python"; exit 0
fi
py=${PYTHON:-python3}
if ! "$py" -m venv --help >/dev/null 2>&1; then
  echo "oomlens tests need Python's venv module: apt-get install python3-venv" >&2; exit 2
fi
[ -x .venv/bin/python ] || "$py" -m venv .venv >&2
echo "setting up .venv from $req (first run: a few minutes)..." >&2
.venv/bin/python -m pip install -q --disable-pip-version-check -r "$req" >&2
echo "$sum" > "$stamp"
echo "$PWD/.venv/bin/python"
