"""codeproof: prove the quoted source and the recorded experiment output of a code-reading series.

One package with one import name (installed by ./dev.sh from pyproject.toml), used by the MkDocs
hook (hooks/series.py), the command line (`python -m codeproof`), the tests and the benchmarks.
"""
