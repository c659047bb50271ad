"""The kinds of proof block, one module each (`source`, `experiment`, `output`, `figure`), on what every kind
declares (`base`) and what the engine hands a kind to check and render with (`proofs`), and the registry of them
(`registry`), from which the engine's tables of kinds are derived: the header's pattern, the cards' labels and classes
there, the marker's pattern however written in codeproof.common.markers. It imports only `codeproof.common`.

Why so: a kind is a class, as pymdownx.blocks declares a block, because one class reads top-down as the whole kind:
its attributes are the declarations (name, card face, header schema, how it drifts), its methods what the build does
with its blocks. The kinds sit at the bottom of the engine, since the parser and the markers need their declarations
there; what their methods need from the parts above (the verifier, the runner, the renderer) the engine hands them as
arguments, as pymdownx hands a Block its `md`, so imports stay downward without splitting a kind in two modules (its
declarations low, its behaviour high). The registry lists the kinds by hand, in order, rather than discovering them:
the order is the authoring guide's, and a reader sees every kind in one line. So a new kind is its module, a line in
the registry, its card's template and the contract tests (tests/test_kinds.py) that then run on it.
"""
