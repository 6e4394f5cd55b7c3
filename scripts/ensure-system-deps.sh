#!/usr/bin/env bash
# What `npm run test:all` needs from the system, beyond Node and npm:
#   python3 with torch and torchvision  the PyTorch ground truth of the catalogue tests
#   chromium                            the browser of the real-editor suite
#   libkrb5-dev, g++, make              code-server's native modules (scripts/e2e-setup.sh)
#   python3-venv                        scripts/venv.sh (the test venv of real frameworks)
# As root, apt-installs what is missing (Debian); otherwise stops at once and
# prints the exact command to run. Run first by `npm run test:all` and .ci/run.
set -euo pipefail

need=()
# The tests look in $OOMLENS_PYTHON, /usr/bin/python3 (where Debian's python3-torch goes), then python3 on PATH.
has() { for py in ${OOMLENS_PYTHON:-} /usr/bin/python3 python3; do "$py" -c "$1" 2>/dev/null && return 0; done; return 1; }
has 'import torch, torchvision' || need+=(python3-torch python3-torchvision)
[ -x /usr/bin/chromium ] || need+=(chromium)
dpkg -s libkrb5-dev >/dev/null 2>&1 || need+=(libkrb5-dev)
command -v g++ >/dev/null 2>&1 || need+=(g++)
command -v make >/dev/null 2>&1 || need+=(make)
has 'import ensurepip, venv' || need+=(python3-venv)

if [ ${#need[@]} -eq 0 ]; then
  echo "ensure-system-deps: python3 with torch, chromium, libkrb5-dev, g++, make, python3-venv: all present"
  exit 0
fi

cmd="apt-get update && apt-get install -y ${need[*]}"
if [ "${EUID:-$(id -u)}" != 0 ]; then
  echo "ensure-system-deps: missing Debian packages: ${need[*]}" >&2
  echo "ensure-system-deps: install them, then run the tests again:" >&2
  echo "  sudo sh -c '$cmd'" >&2
  exit 1
fi
echo "ensure-system-deps: installing ${need[*]} (apt-get, a few minutes)"
export DEBIAN_FRONTEND=noninteractive
# Wait for a concurrent apt/dpkg run instead of failing on its lock.
apt-get -o DPkg::Lock::Timeout=600 update -qq
apt-get -o DPkg::Lock::Timeout=600 install -y -qq "${need[@]}"
echo "ensure-system-deps: done"
