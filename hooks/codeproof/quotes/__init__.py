"""[REAL SOURCE] quotes: the pinned upstream files, fetched from git or the verified release archive and
checked against the lock (`sources`), the symbols a quote names, found with `ast` (`symbols`), and the proof that a
quote is a verbatim run of its symbol's lines, with the diff when it is not (`verify`), and what a post's words cite in the pinned tree (`citations`). It imports
`codeproof.common` and `codeproof.series`."""
