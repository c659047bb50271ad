"""MkDocs and what it is built with here: Material, its search (lunr) and mkdocs-rss-plugin. What is specific to
them stays in this package (ARCHITECTURE.md names the three facts of theirs the core keeps), so the rest of the
engine is a core any Python-Markdown generator can host and outlives MkDocs 1.x and Material (end of life May
2027): MkDocs' events as calls of the build (`hooks`, which the hook file hooks/series.py binds), the series in
MkDocs' navigation (`navigation`), Material's search index and lunr files (`search`), the feed plugin's JSON feeds
(`feeds`), and the theme template of the pages the build adds (theme/); and Zensical, which has none of MkDocs'
events: the staging folder it builds from (`stage`) and its build and preview server (`zensical`). It imports `codeproof.common`,
`codeproof.series`, `codeproof.site`, `codeproof.engine`, `codeproof.build` and `codeproof.cards`."""
