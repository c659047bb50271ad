#!/usr/bin/env bash
# One entry point for the site: sets up .venv from the pinned requirements, then runs the command.
#   ./dev.sh build    build the site into site/ (strict: any problem fails)
#   ./dev.sh serve    serve it at http://127.0.0.1:8000 while you write
#   ./dev.sh test     run the test suite
#   ./dev.sh check    verify every block, then what a strict build checks besides (links, anchors, nav)
#   ./dev.sh update | lock    the verification engine: repair drifted quotes and outputs | pin new files
#   ./dev.sh new N "标题"    scaffold post N in docs/posts/ (and drop its announcement from mkdocs.yml)
set -euo pipefail
cd "$(dirname "$0")"

venv=.venv
stamp="$venv/.requirements.sha256"
want=$(cat requirements.txt pyproject.toml | sha256sum | cut -d' ' -f1)
if [ ! -x "$venv/bin/python" ] || [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  python3 -c 'import sys; sys.exit(sys.version_info < (3, 10))' || { echo "dev.sh: Python 3.10+ is needed" >&2; exit 2; }
  python3 -m venv "$venv"
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r requirements.txt
  # The engine, importable as `codeproof` from anywhere (see pyproject.toml); its dependencies are pinned above.
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-deps --no-build-isolation --editable .
  echo "$want" > "$stamp"
fi
export NO_MKDOCS_2_WARNING=1
export PATH="$PWD/$venv/bin:$PATH"

command=${1:-}
shift || true
case "$command" in
  build) exec mkdocs build --strict "$@" ;;
  serve) exec mkdocs serve "$@" ;;
  test)
    # The browser tests inject axe-core, pinned in package-lock.json, into every page.
    if [ "$(cat node_modules/.lock.sha256 2>/dev/null)" != "$(sha256sum package-lock.json | cut -d' ' -f1)" ]; then
      command -v npm >/dev/null || { echo "dev.sh: the browser tests need npm (Node.js) to install axe-core" >&2; exit 2; }
      npm ci --no-audit --no-fund --silent && sha256sum package-lock.json | cut -d' ' -f1 > node_modules/.lock.sha256
    fi
    exec python -m pytest "$@" ;;
  check)
    # The engine first (it says the most about blocks); then MkDocs' own checks, as a strict build makes them.
    python -m codeproof check "$@"
    out=$(mktemp -d)
    trap 'rm -rf "$out"' EXIT
    mkdocs build --strict --site-dir "$out" ;;
  update|lock|new) exec python -m codeproof "$command" "$@" ;;
  *) sed -n '2,8p' "$0" >&2; exit 2 ;;
esac
