"""The series as its author writes it: `extra.series` in mkdocs.yml (`config`), a post's front matter
(`frontmatter`) and blocks (`blocks`: each checked against its kind's schema, and every near miss), its first paragraph and reading time
(`prose`), the inline code spans of its words with their lines (`spans`), the model of the series built from the posts (`model`: its entries, numbers, titles, announcements,
neighbours),
a new post's scaffold (`scaffold`) and the rewriting of a post's blocks in place (`rewrite`). It imports only
`codeproof.common`."""
