"""[REAL SOURCE] quotes: the lock every pinned upstream file is proven against (`lock`), the providers that give
those files, git and the verified release archive, behind one protocol (`providers`), the release archive
fetched from the package index's listing, its SHA-256 proven before it is kept (`index`), the store that gives a
file once, cached and checked against the lock (`sources`), the symbols a quote names, found with `ast`
(`symbols`), and the proof that a quote is a verbatim run of its symbol's lines, with the diff when it is not
(`verify`), and what a post's words cite in the pinned tree (`citations`). It imports `codeproof.common` and
`codeproof.series`."""
