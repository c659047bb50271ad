"""[EXPERIMENT] and [OUTPUT] blocks: the scripts run contained (bubblewrap's sandbox, or the fallback) with a
signed cache (`runner`), the comparison of recorded and printed output, within a tolerance (`compare`), and the
experiments folder as readers download it (`resources`). It imports `codeproof.common` and
`codeproof.series`."""
