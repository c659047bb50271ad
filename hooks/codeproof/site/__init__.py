"""What readers get beyond the verified blocks, whatever generator builds the site: the cards and error boxes,
sealed (`render`), the guard that reads each rendered page as a browser does (`guard`), the overview's generated
lists (`overview`), the source pages of the pinned package (`sourcepages`) with their cross-references (`xref`,
jedi) and linked names (`namelinks`), the citations of the posts' words linked (`citations`), where each
generated page is published (`addresses`), the pages a build adds (`generated`), tables that read on a phone
(`tables`), the graph autograd traced, drawn with its nodes linked to their rules (`graphs`), the records of the
runs a stamp links to (`records`), and the check of an output folder once a host has built it (`published`). It imports
`codeproof.common`, `codeproof.series`, `codeproof.quotes` and `codeproof.experiments`."""
