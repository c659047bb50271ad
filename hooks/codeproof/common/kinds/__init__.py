"""The kinds of proof block, one module each (`source`, `experiment`, `output`, `figure`), on what every kind
declares (`base`), and the registry of them (`registry`), from which the engine's tables of kinds are derived: the
header's pattern, the cards' labels and classes there, the marker's pattern however written in
codeproof.common.markers.

A kind is a class, as pymdownx.blocks declares a block: its attributes are the declarations (name, card face, header
schema), its methods what the build does with its blocks. The kinds sit at the bottom of the engine, since the parser
and the markers need their declarations there; what their methods need from the parts above (the verifier, the
runner, the renderer) the engine hands them, as pymdownx hands a Block its `md`. So imports stay downward and a new
kind is its module, a line below, its card's template and its tests.
"""
