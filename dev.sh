#!/usr/bin/env bash
# One entry point for the site: sets up .venv from the hashed lock, then runs the command.
#   ./dev.sh build    build the site into site/ (strict: any problem fails)
#   ./dev.sh serve    serve it at http://127.0.0.1:8000/autograd-series/ while you write
#   ./dev.sh test [--fast]    run the test suite (--fast: all but the browser's, the real site's and the slow ones)
#   ./dev.sh check    verify every block, then what a strict build checks besides (links, anchors, nav)
#   ./dev.sh update | lock    the verification engine: repair drifted quotes and outputs | pin new files
#   ./dev.sh new N "标题"    scaffold post N in docs/posts/ (and drop its announcement from mkdocs.yml)
#   ./dev.sh drift --to REF | rebase --to REF    what a newer autograd changes in the quotes | move the baseline
#   ./dev.sh lock-requirements    after changing a pin in requirements.txt: rewrite requirements.lock (needs uv)
set -euo pipefail
cd "$(dirname "$0")"

venv=.venv
stamp="$venv/.requirements.sha256"
# uv installs the lock several times faster than pip. It comes from PyPI, pinned and hashed in
# requirements-uv.lock, into .cache/; where it cannot be had (or with DEV_SH_NO_UV=1), pip does the same work.
uv_pin="uv==0.13.8"
uv_home=.cache/uv
export UV_PYTHON_DOWNLOADS=never  # uv uses the python3 it is given and never downloads one

have_uv() {
  [ -z "${DEV_SH_NO_UV:-}" ] || return 1
  local want
  want=$(sha256sum requirements-uv.lock | cut -d' ' -f1)
  if [ "$(cat "$uv_home/.lock.sha256" 2>/dev/null)" != "$want" ]; then
    rm -rf "$uv_home" && mkdir -p "$uv_home"
    echo "dev.sh: fetching uv, the installer ($uv_pin, hashed in requirements-uv.lock)..." >&2
    # Into a folder of its own, which neither a system Python's guard (PEP 668) nor a user's pip settings refuse.
    PIP_REQUIRE_VIRTUALENV=0 PIP_USER=0 python3 -m pip install --quiet --disable-pip-version-check \
      --require-hashes --only-binary :all: --no-deps --target "$uv_home" \
      -r requirements-uv.lock >"$uv_home/install.log" 2>&1 \
      || { echo "dev.sh: uv could not be installed (see $uv_home/install.log); installing with pip" >&2; return 1; }
    echo "$want" > "$uv_home/.lock.sha256"
  fi
}

# After a pin changes in requirements.txt: the locks are written before any install, which would read them.
if [ "${1:-}" = lock-requirements ]; then
  have_uv || { echo "dev.sh: lock-requirements needs uv (unset DEV_SH_NO_UV, or see $uv_home/install.log)" >&2; exit 2; }
  # Pins for the Python that dev.sh needs; the hashes cover every platform's files of each pinned release.
  "$uv_home/bin/uv" pip compile --quiet --python-version 3.11.5 --generate-hashes \
    --custom-compile-command "./dev.sh lock-requirements" -o requirements.lock requirements.txt
  echo "$uv_pin" | "$uv_home/bin/uv" pip compile --quiet --generate-hashes \
    --custom-compile-command "./dev.sh lock-requirements" -o requirements-uv.lock -
  exit
fi

want=$(cat requirements.lock pyproject.toml | sha256sum | cut -d' ' -f1)
if [ ! -x "$venv/bin/python" ] || [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  python3 -c 'import sys; sys.exit(sys.version_info < (3, 11, 5))' || { echo "dev.sh: Python 3.11.5+ is needed (the pinned packages require it)" >&2; exit 2; }
  started=$SECONDS
  echo "dev.sh: installing the $(grep -c '^[a-z]' requirements.lock) pinned packages of requirements.lock into .venv (once; it takes some seconds)..." >&2
  # The engine, importable as `codeproof` from anywhere (see pyproject.toml), is installed editable and
  # without dependencies: the lock pins those, setuptools (its build backend) and pip among them.
  if have_uv; then
    python3 -m venv --without-pip "$venv"
    # Compiled as pip does: else the first build compiles every module and MkDocs logs their DeprecationWarnings.
    # uv's own lines say each phase as it ends (resolved, built, prepared, installed, compiled); not the list.
    "$uv_home/bin/uv" pip install --python "$venv/bin/python" --compile-bytecode --require-hashes -r requirements.lock \
      2>&1 | sed -u -e '/^ [+-] /d' -e 's/^/  uv: /' >&2
    "$uv_home/bin/uv" pip install --quiet --python "$venv/bin/python" --no-deps --no-build-isolation --editable .
  else
    python3 -m venv "$venv"
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --require-hashes -r requirements.lock
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-deps --no-build-isolation --editable .
  fi
  echo "$want" > "$stamp"
  echo "dev.sh: installed in $((SECONDS - started)) s" >&2
fi
export NO_MKDOCS_2_WARNING=1
export PATH="$PWD/$venv/bin:$PATH"

command=${1:-}
shift || true
case "$command" in
  build) exec mkdocs build --strict "$@" ;;
  serve) exec mkdocs serve "$@" ;;
  test)
    # --fast deselects the tests marked browser, real_site or slow (pyproject.toml); every other argument is pytest's.
    args=() fast=
    for arg in "$@"; do
      if [ "$arg" = --fast ]; then fast=1; else args+=("$arg"); fi
    done
    # The browser tests inject axe-core, pinned in package-lock.json, into every page.
    if [ -z "$fast" ] && [ "$(cat node_modules/.lock.sha256 2>/dev/null)" != "$(sha256sum package-lock.json | cut -d' ' -f1)" ]; then
      command -v npm >/dev/null || { echo "dev.sh: the browser tests need npm (Node.js) to install axe-core" >&2; exit 2; }
      npm ci --no-audit --no-fund --silent && sha256sum package-lock.json | cut -d' ' -f1 > node_modules/.lock.sha256
    fi
    exec python -m pytest ${fast:+-m "not browser and not real_site and not slow"} ${args[@]+"${args[@]}"} ;;
  check)
    # The engine first (it says the most about blocks); then MkDocs' own checks, as a strict build makes them.
    python -m codeproof check "$@"
    out=$(mktemp -d)
    trap 'rm -rf "$out"' EXIT
    mkdocs build --strict --site-dir "$out" ;;
  update|lock|new|drift|rebase) exec python -m codeproof "$command" "$@" ;;
  *) sed -n '2,10p' "$0" >&2; exit 2 ;;
esac
