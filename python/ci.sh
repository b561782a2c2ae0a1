#!/usr/bin/env bash
# The Python package's own checks beyond pytest, run from the repository root with the venv's
# python as $PY (default: python3), the package installed in it:
#   1. the wheel: `maturin build --release` (abi3, stripped: `strip = true` in pyproject.toml);
#      its size and the installed extension's size checked against MAX_WHEEL_MB / MAX_SO_MB;
#   2. the stubs: `mypy.stubtest kalaha._kalaha` checks python/kalaha/_kalaha.pyi against the
#      installed extension, and mypy checks the package with them;
#   3. the API reference: pdoc builds it from the docstrings into $DOCS (default
#      checkpoints/runs/python-api, run output that git ignores).
# Needs `pip install maturin mypy pdoc` in the venv. Prints one line per check.
set -euo pipefail
PY=${PY:-python3}
MAX_WHEEL_MB=${MAX_WHEEL_MB:-30}
MAX_SO_MB=${MAX_SO_MB:-50}
DOCS=${DOCS:-checkpoints/runs/python-api}
WHEELS=$(mktemp -d)
trap 'rm -rf "$WHEELS"' EXIT

echo "== python: the wheel (maturin build --release) =="
"$PY" -m maturin build --release --manifest-path python/Cargo.toml --out "$WHEELS" --quiet
wheel=$(ls "$WHEELS"/*.whl)
wheel_bytes=$(stat -c %s "$wheel")
so=$("$PY" -c 'import kalaha._kalaha as k; print(k.__file__)')
so_bytes=$(stat -c %s "$so")
echo "wheel $(basename "$wheel"): $((wheel_bytes / 1048576)) MB (at most $MAX_WHEEL_MB); installed extension $((so_bytes / 1048576)) MB (at most $MAX_SO_MB)"
if (( wheel_bytes > MAX_WHEEL_MB * 1048576 )); then echo "the wheel is over $MAX_WHEEL_MB MB" >&2; exit 1; fi
if (( so_bytes > MAX_SO_MB * 1048576 )); then echo "the installed extension is over $MAX_SO_MB MB" >&2; exit 1; fi

echo "== python: stubs against the runtime (mypy.stubtest) and mypy over the package =="
"$PY" -m mypy.stubtest kalaha._kalaha --allowlist python/stubtest-allowlist.txt
"$PY" -m mypy --ignore-missing-imports --follow-imports=silent python/kalaha/research.py python/kalaha/_registration.py python/kalaha/_progress.py python/kalaha/_util.py python/kalaha/gym.py

echo "== python: API reference (pdoc) =="
# The submodules by name: kalaha's __all__ holds only what needs no optional package, and pdoc
# follows __all__. A module that fails to import fails this step.
"$PY" -m pdoc kalaha kalaha.gym kalaha.kalah_v0 kalaha.multiagent kalaha.torch kalaha.research \
    kalaha.distributed kalaha.labels -o "$DOCS" --docformat restructuredtext
for page in kalaha kalaha/gym kalaha/kalah_v0 kalaha/multiagent kalaha/torch kalaha/research kalaha/distributed; do
    test -s "$DOCS/$page.html" || { echo "the API reference lacks $page.html" >&2; exit 1; }
done
echo "API reference written to $DOCS"
