#!/usr/bin/env bash
# Create .venv (if needed), install the Python dependencies and build the release extension into it.
# Idempotent and quick when nothing changed.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
stamp=.venv/.deps-stamp
want=$(sha256sum pyproject.toml | cut -c1-16)
changed=0
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  changed=1
  .venv/bin/python -m pip install -q --upgrade pip >/dev/null
  .venv/bin/python -m pip install -q "maturin>=1.5,<2" "matplotlib>=3.7" "pytest>=7" "hypothesis>=6.90"
fi
# Release build of the compiled module, installed editable so python/hostio is used in place;
# once installed, and while pyproject.toml is unchanged, later runs only rebuild the module in
# place (no pip output).
installed=()
# (Checked from / so that the import is the installed one: this checkout's python/hostio, in place.)
here=$PWD
if [ "$changed" = 0 ] && (cd / && "$here/.venv/bin/python" -c "
import importlib.util as u, os, sys
s = u.find_spec('hostio')
sys.exit(s is None or os.path.dirname(os.path.realpath(s.origin)) != os.path.realpath(sys.argv[1]))" "$here/python/hostio") 2>/dev/null; then
  installed=(--skip-install)
fi
VIRTUAL_ENV="$PWD/.venv" PATH="$PWD/.venv/bin:$PATH" .venv/bin/maturin develop --release --quiet "${installed[@]}"
# Dependencies are known installed only once the package and its dependencies are.
[ "$changed" = 0 ] || echo "$want" > "$stamp"
.venv/bin/python -c "import hostio; print('hostio', hostio.__version__, 'ready in .venv')"
