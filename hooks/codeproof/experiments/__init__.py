"""[EXPERIMENT], [OUTPUT] and [FIGURE] blocks: the scripts run contained (bubblewrap's sandbox, or the fallback)
with a signed cache (`runner`), the comparison of recorded and printed output, within a tolerance (`compare`), the
experiments folder as readers download it (`resources`), the figures a run writes, cleaned for a page
(`figures`), and the graph autograd traces in a run (`tracing`). It imports `codeproof.common` and
`codeproof.series`."""
