#!/usr/bin/env bash
# One entry point for the site: sets up .venv from the hashed lock, then runs the command.
#   ./dev.sh build [--matrix]    build the site into site/ (strict: any problem fails; --matrix: run the
#                                 experiments in every environment of the matrix too, and say so on the pages)
#   ./dev.sh build --host zensical    build it with Zensical instead, from a staging folder (ARCHITECTURE.md)
#   ./dev.sh serve [--host zensical]    serve it at http://127.0.0.1:8000/autograd-series/ while you write
#   ./dev.sh test [--fast]    run the test suite (--fast: all but the browser's, the real site's and the slow ones)
#   ./dev.sh check    verify every block, then what a strict build checks besides (links, anchors, nav)
#   ./dev.sh update | lock    the verification engine: repair drifted quotes and outputs | pin new files
#   ./dev.sh new N "标题"    scaffold post N in docs/posts/ (and drop its announcement from mkdocs.yml)
#   ./dev.sh drift --to REF | rebase --to REF    what a newer autograd changes in the quotes | move the baseline
#   ./dev.sh lock-requirements    after changing a pin in requirements(-test).txt: rewrite the locks (needs uv)
#   ./dev.sh zensical build|serve [options]    the same as --host zensical, with the adapter's own options
set -euo pipefail
cd "$(dirname "$0")"

# Tool state never comes from the repository, which can hold any path (a committed .venv/bin/python would run
# here). What dev.sh keeps (uv, axe-core, the record of each .venv it made) lives in the user's cache, keyed by
# the repository's real path as the engine keys its own (hooks/codeproof/common/usercache.py).
cache_home="${XDG_CACHE_HOME:-$HOME/.cache}/codeproof"
state="$cache_home/repositories/$(printf %s "$(pwd -P)" | sha256sum | cut -c1-32)"
export UV_PYTHON_DOWNLOADS=never  # uv uses the python3 it is given and never downloads one
export UV_NO_CONFIG=1  # and reads no uv.toml, of the repository's or anyone's

refuse() {  # refuse WHAT HINT
  echo "dev.sh: $1" >&2
  echo "  hint: $2" >&2
  exit 2
}

# git as the engine runs it (common/gitrun.py): no system or global configuration, no fsmonitor program or hook,
# and any owner's repository read (safe.directory: with nothing of the repository's run, reading it is safe). Not
# a git work tree (a downloaded archive): nothing is tracked. Any other failure refuses: it must not read as "none".
tracked_in() {  # prints a character when git tracks a file in $1, nothing when none (call it as an assignment)
  local listed status=0
  listed=$(GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null git -c core.fsmonitor=false -c core.hooksPath=/dev/null \
    -c safe.directory='*' ls-files -- "$1" 2>&1) || status=$?
  if [ "$status" != 0 ]; then
    case "$listed" in *"not a git repository"*) return 0 ;; esac
    refuse "cannot ask git what it tracks in $1: ${listed:0:300}" "run dev.sh in the repository's work tree"
  fi
  printf %s "${listed:0:1}"
}

# Code that Python would run without reading its source, which no review sees: compiled modules (.so, .pyd) and
# bytecode not checked against its source (a hash-based .pyc, or one outside __pycache__). Python writes none of
# these in the tree itself, so any is refused, tracked or left behind (by a commit that was undone, say).
unreviewable=$(python3 -I -S - <<'PY'
import os
found = []
for folder, subfolders, names in os.walk("."):
    subfolders[:] = [d for d in subfolders if not (folder == "." and d in (".git", ".venv"))]
    for name in names:
        path = os.path.join(folder, name)[2:]
        if name.endswith((".so", ".pyd", ".dylib")) or name.endswith((".pyc", ".pyo")) and os.path.basename(folder) != "__pycache__":
            found.append(path)
        elif name.endswith(".pyc"):
            with open(path, "rb") as handle:
                if int.from_bytes(handle.read(8)[4:8], "little") != 0:  # PEP 552: hash-based
                    found.append(path)
print(" ".join(found[:5]) + (f" (and {len(found) - 5} more)" if len(found) > 5 else ""))
PY
)
[ -z "$unreviewable" ] || refuse "the tree holds compiled code that Python would run unreviewed: $unreviewable" \
  "delete it (Python makes none of these in the tree itself); if git tracks it: git rm --cached, then delete it"
export PYTHONSAFEPATH=1  # python -m … never imports from the working folder first (a codeproof/ there would run)

# A folder that must stay in the tree (.venv, where editors look for it) is trusted only when git tracks nothing
# in it, it is no link, and the record dev.sh wrote when it made it names this very folder (device and inode) and
# what it held (every entry's name, size, time and inode: a checkout that writes into it changes them).
contents() {  # what a folder holds, as a digest of its entries (0.3 s for a .venv of 34,000); then find's tests
  find "$@" -printf '%P %s %T@ %i\n' | LC_ALL=C sort | sha256sum | cut -d' ' -f1
}

made_here() {  # made_here FOLDER: prints the content key its record holds; refuses a folder dev.sh did not make
  local folder=$1 record="$state/$1.record" tracked
  tracked=$(tracked_in "$folder")
  [ -z "$tracked" ] || refuse "$folder/ holds files that git tracks: a committed $folder/ would run as if this machine had made it" \
    "git rm -r --cached $folder && rm -rf $folder (dev.sh makes it)"
  if [ -L "$folder" ] || { [ -e "$folder" ] && [ ! -d "$folder" ]; }; then
    refuse "$folder is a link or a file, not a folder dev.sh made" "delete it (rm $folder): dev.sh makes $folder/ itself"
  fi
  [ -e "$folder" ] || return 0
  local identity made key held
  identity=$(stat -c '%d:%i' "$folder")
  read -r made key held 2>/dev/null <"$record" || true
  [ "${made:-}" = "$identity" ] || refuse "$folder/ was not made by dev.sh on this machine (no record of it in $state)" \
    "delete it (rm -rf $folder): dev.sh makes it again from the hashed lock"
  [ "$key" = unfinished ] || [ "${held:-}" = "$(contents "$folder")" ] || refuse \
    "$folder/ changed since dev.sh made it (its record in $state names other files)" \
    "delete it (rm -rf $folder): dev.sh makes it again from the hashed lock"
  echo "${key:-}"
}

# uv installs the lock several times faster than pip. It comes from PyPI, pinned and hashed in
# requirements-uv.lock, into the user's cache; where it cannot be had (or with DEV_SH_NO_UV=1), pip does the same
# work. Its binary is checked before each use against the hash that the verified wheel's RECORD gives.
uv_pin="uv==0.13.8"
uv_home="$cache_home/uv/$(sha256sum requirements-uv.lock | cut -c1-32)"
uv="$uv_home/bin/uv"

have_uv() {
  [ -z "${DEV_SH_NO_UV:-}" ] || return 1
  local recorded
  recorded=$(cat "$uv_home.sha256" 2>/dev/null || true)
  if [ -z "$recorded" ] || [ "$(sha256sum "$uv" 2>/dev/null | cut -d' ' -f1)" != "$recorded" ]; then
    rm -rf "$uv_home" "$uv_home.sha256" && mkdir -p "$uv_home"
    echo "dev.sh: fetching uv, the installer ($uv_pin, hashed in requirements-uv.lock)..." >&2
    # Into a folder of its own, which neither a system Python's guard (PEP 668) nor a user's pip settings refuse.
    PIP_REQUIRE_VIRTUALENV=0 PIP_USER=0 python3 -m pip install --quiet --disable-pip-version-check \
      --require-hashes --only-binary :all: --no-deps --target "$uv_home" \
      -r requirements-uv.lock >"$uv_home.log" 2>&1 \
      || { echo "dev.sh: uv could not be installed (see $uv_home.log); installing with pip" >&2; return 1; }
    # The binary's SHA-256 as the wheel (its hash pinned) records it, kept beside the folder, not in it.
    python3 -c 'import base64, sys
for line in open(sys.argv[1]):
    name, digest, _ = line.rsplit(",", 2)
    if name.endswith("/bin/uv"):
        print(base64.urlsafe_b64decode(digest.removeprefix("sha256=") + "==").hex())' \
      "$uv_home"/uv-*.dist-info/RECORD >"$uv_home.sha256"
    [ "$(sha256sum "$uv" | cut -d' ' -f1)" = "$(cat "$uv_home.sha256")" ] \
      || { echo "dev.sh: the installed uv is not the binary its wheel records; installing with pip" >&2; return 1; }
  fi
}

# After a pin changes in requirements.txt or requirements-test.txt: the locks are written before any install.
if [ "${1:-}" = lock-requirements ]; then
  have_uv || { echo "dev.sh: lock-requirements needs uv (unset DEV_SH_NO_UV, or see $uv_home.log)" >&2; exit 2; }
  # Pins for the Python that dev.sh needs; the hashes cover every platform's files of each pinned release.
  for set in requirements requirements-test; do
    "$uv" pip compile --quiet --python-version 3.11.5 --generate-hashes \
      --custom-compile-command "./dev.sh lock-requirements" -o "$set.lock" "$set.txt"
  done
  # The engine's core alone, and with Zensical: each set pyproject.toml names, whole and hashed, each package at
  # the version the site and the tests pin (-c): one version of each across every set.
  "$uv" pip compile --quiet --python-version 3.11.5 --generate-hashes \
    --custom-compile-command "./dev.sh lock-requirements" -c requirements-test.txt -o requirements-core.lock pyproject.toml
  "$uv" pip compile --quiet --python-version 3.11.5 --generate-hashes --extra zensical \
    --custom-compile-command "./dev.sh lock-requirements" -c requirements-test.txt -o requirements-zensical.lock pyproject.toml
  echo "$uv_pin" | "$uv" pip compile --quiet --generate-hashes \
    --custom-compile-command "./dev.sh lock-requirements" -o requirements-uv.lock -
  # Then each matrix environment's lock (extra.series.experiments.matrix), which the engine reads from mkdocs.yml
  # once .venv holds the new set (below).
fi

# Two locked sets: what the site needs (requirements.lock), and for `test` that and what only the tests need
# (requirements-test.lock, a superset): an author's first build installs no browser driver nor test runner.
# CODEPROOF_VENV names an environment its caller made and vouches for (the tests share theirs with copies of the
# repository); else .venv/, made here.
venv=${CODEPROOF_VENV:-.venv}
site_set=$(cat requirements.lock pyproject.toml | sha256sum | cut -d' ' -f1)
test_set=$(cat requirements-test.lock pyproject.toml | sha256sum | cut -d' ' -f1)
lock=requirements.lock want=$site_set
[ "${1:-}" != test ] || lock=requirements-test.lock want=$test_set
made=$want
# An author's first build byte-compiles .venv beside the build (below), holding this lock: wait for it to end.
mkdir -p "$state"
exec 9>"$state/.venv.compiling"
flock -n 9 || { echo "dev.sh: waiting for .venv's byte-compiling to end: \`$(cat "$state/.venv.compiling.by" 2>/dev/null || echo ./dev.sh)\` started it after installing .venv (one process, at the lowest priority; it takes about a minute)..." >&2; flock 9; }
exec 9>&-
[ -n "${CODEPROOF_VENV:-}" ] || made=$(made_here .venv)  # (exits here when it refuses)
if [ "$made" != "$want" ] && [ "$made" != "$test_set" ]; then  # the test set holds the site's too
  python3 -c 'import sys; sys.exit(sys.version_info < (3, 11, 5))' || { echo "dev.sh: Python 3.11.5+ is needed (the pinned packages require it)" >&2; exit 2; }
  started=$SECONDS
  mkdir -p "$state"
  # Made, not yet installed: an install that fails is made again by the next run, not refused as another's.
  record_venv() { echo "$(stat -c '%d:%i' "$venv") $1 $(contents "$venv")" >"$state/.venv.record"; }
  if [ "$made" = "$site_set" ]; then  # the site's set is there: only what the tests add
    echo "dev.sh: installing what the tests add ($lock) into .venv (once)..." >&2
    record_venv unfinished
  else
    echo "dev.sh: installing the $(grep -c '^[a-z]' "$lock") pinned packages of $lock into .venv (once; it takes some seconds)..." >&2
    rm -rf "$venv" "$state/.venv.record"
    if have_uv; then python3 -m venv --without-pip "$venv"; else python3 -m venv "$venv"; fi
    record_venv unfinished
  fi
  # The engine, importable as `codeproof` from anywhere (see pyproject.toml), is installed editable and
  # without dependencies: the lock pins those, setuptools (its build backend) and pip among them.
  # Byte-compiled at once for the tests; for an author's build, beside the build (below), so that it need not
  # wait for the 3,000 files: the first build is a third faster.
  compile=--compile-bytecode
  [ "${1:-}" = test ] || [ "${DEV_SH_NO_UV:-}" ] || compile=
  if have_uv; then
    # uv's own lines say each phase as it ends (resolved, built, prepared, installed, compiled); not the list.
    # The lock names every package the set needs (uv wrote it whole): installed as named, without resolving
    # their dependencies again from the index (a second and a half of a first build).
    "$uv" pip install --python "$venv/bin/python" $compile --no-deps --require-hashes -r "$lock" \
      2>&1 | sed -u -e '/^ [+-] /d' -e 's/^/  uv: /' >&2
    # Its import hook compiled in any case: else the first python that starts without -B (a bench) writes that
    # .pyc into .venv/, which then no longer matches its record, and dev.sh refuses it.
    "$uv" pip install --quiet --python "$venv/bin/python" --compile-bytecode --no-deps --no-build-isolation --editable .
  else
    compile=--compile-bytecode
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --require-hashes -r "$lock"
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-deps --no-build-isolation --editable .
  fi
  echo "dev.sh: installed in $((SECONDS - started)) s" >&2
  # A first build's pinned release archive downloads while MkDocs starts; the build waits for it (codeproof.fetch).
  case "${1:-}" in
    build|serve) "$venv/bin/python" -B -m codeproof.fetch </dev/null >/dev/null & ;;
  esac
  if [ -n "$compile" ]; then
    record_venv "$want"
  else
    # One process on one core, at the lowest priority (the build comes first), holding the lock that the next
    # dev.sh waits on; then .venv is recorded as made. First what the build runs first beside its own process (which
    # compiles in memory what has no .pyc yet): the cross-referencing workers, the experiments' runs (python -B).
    # Its log, with the DeprecationWarnings that compiling third-party code gives, is kept in the user's cache.
    # It records .venv only if no file but bytecode came into it meanwhile (a checkout then, say); a folder's time
    # changes as its __pycache__ is made, so folders are left out of that comparison.
    purelib=$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_path("purelib"))')
    files_but_bytecode() { contents "$venv" -not -type d -not -path '*/__pycache__*'; }
    installed=$(files_but_bytecode)
    exec 9>"$state/.venv.compiling"
    flock 9
    echo "./dev.sh${1:+ $1}" >"$state/.venv.compiling.by"  # what the next dev.sh says it waits for
    (
      for first in parso jedi numpy matplotlib autograd PIL fontTools kiwisolver contourpy ""; do
        nice -n 19 "$venv/bin/python" -m compileall -q -j 1 --invalidation-mode timestamp "$purelib/$first"
      done && [ "$(files_but_bytecode)" = "$installed" ] && record_venv "$want"
    ) </dev/null >"$state/compile.log" 2>&1 &
    exec 9>&-
    # Meanwhile this build writes no .pyc of its own into .venv/ (its record would no longer hold), and the
    # compiler's warnings on third-party code stay out of its log, MkDocs' DeprecationWarnings as before.
    export PYTHONDONTWRITEBYTECODE=1 PYTHONWARNINGS="module::DeprecationWarning,ignore:invalid escape sequence"
  fi
fi
export NO_MKDOCS_2_WARNING=1
# uv as checked above, for the engine's matrix environments (experiments/matrix.py), which it makes with it.
if have_uv; then export CODEPROOF_UV="$uv"; fi
export PATH="$(cd "$venv" && pwd)/bin:$PATH"

command=${1:-}
shift || true
# --host zensical: Zensical (./dev.sh test installs it) builds or serves the site, through its adapter.
if [ "${1:-}" = --host ] && { [ "$command" = build ] || [ "$command" = serve ]; }; then
  case "${2:-}" in
    mkdocs) shift 2 ;;
    zensical)  # a build is strict, as MkDocs' is here: Zensical's warnings (a link to no page) stop it too
      shift 2
      if [ "$command" = build ]; then set -- build --strict "$@"; else set -- serve "$@"; fi
      command=zensical ;;
    *) refuse "$command --host ${2:-}: no such host" "the hosts are mkdocs (the default) and zensical" ;;
  esac
fi
case "$command" in
  build)
    # --matrix: the build runs the experiments in each environment of extra.series.experiments.matrix too, and
    # the pages say where their outputs hold; every other argument is mkdocs'.
    if [ "${1:-}" = --matrix ]; then shift; export CODEPROOF_MATRIX=1; fi
    exec mkdocs build --strict "$@" ;;
  serve) exec mkdocs serve "$@" ;;
  test)
    # --fast deselects the tests marked browser, real_site or slow (pyproject.toml); every other argument is pytest's.
    args=() fast=
    for arg in "$@"; do
      if [ "$arg" = --fast ]; then fast=1; else args+=("$arg"); fi
    done
    # The browser tests inject axe-core, pinned in package-lock.json, into every page: installed into the user's
    # cache (tests/site_server.py reads it there), from copies of package.json and its lock, so that no .npmrc
    # of the repository's is read; no package's install script runs.
    node="$state/node"
    if [ -z "$fast" ] && [ "$(cat "$node.sha256" 2>/dev/null)" != "$(cat package.json package-lock.json | sha256sum | cut -d' ' -f1)" ]; then
      command -v npm >/dev/null || { echo "dev.sh: the browser tests need npm (Node.js) to install axe-core" >&2; exit 2; }
      rm -rf "$node" "$node.sha256" && mkdir -p "$node" && cp package.json package-lock.json "$node/"
      (cd "$node" && npm ci --ignore-scripts --no-audit --no-fund --silent)
      cat package.json package-lock.json | sha256sum | cut -d' ' -f1 >"$node.sha256"
    fi
    # pytest's own cache (the tests that failed last, for --lf) is tool state too: kept in the user's cache, so a
    # .pytest_cache/ that a branch commits is never read.
    exec python -m pytest -o "cache_dir=$state/pytest" ${fast:+-m "not browser and not real_site and not slow"} \
      ${args[@]+"${args[@]}"} ;;
  check)
    # The engine first (it says the most about blocks); then MkDocs' own checks, as a strict build makes them.
    python -m codeproof check "$@"
    out=$(mktemp -d)
    trap 'rm -rf "$out"' EXIT
    mkdocs build --strict --site-dir "$out" ;;
  update|lock|new|drift|rebase) exec python -m codeproof "$command" "$@" ;;
  lock-requirements) exec python -m codeproof lock-matrix ;;
  zensical)
    python -c 'import zensical' 2>/dev/null || refuse "Zensical is not installed in .venv" "run ./dev.sh test once (requirements-test.txt pins it), or install requirements-zensical.lock"
    exec python -m codeproof.adapter.zensical "$@" ;;
  *) sed -n '2,14p' "$0" >&2; exit 2 ;;
esac
