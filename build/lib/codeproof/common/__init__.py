"""What every part of the engine shares and nothing else owns: the plain values the parts pass each other
(`structure`: problems, blocks and front matter, file references, excerpts, runs and checks), the kinds of proof block,
one module each, and the registry their tables are derived from (`kinds`), how a marker is recognised however it is
written (`markers`), whole-file and all-or-none writes and file names in reports (`filesystem`), Markdown fences that hold any
text (`fences`), the Jinja2 templates (`templates`), signed cache files (`signing`), where a repository's state is kept,
outside it (`usercache`), git run with no configuration a repository can hold (`gitrun`), exact edits of YAML
values (`yamledit`), settings checked against a schema with every mistake at its key (`schema`), a rendered page as one tree, read as a browser reads it, edited and written once (`pagetree`), the inline code of that tree that words cite the source with (`inlinecode`) and the one base class of the errors reported to a person (`errors`). It imports no other part of the engine."""
