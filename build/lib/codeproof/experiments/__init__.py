"""[EXPERIMENT], [OUTPUT] and [FIGURE] blocks: the scripts run once per build each, in parallel (`runner`), by a
supervisor program that contains each run and records what it reads (`supervisor`), in bubblewrap's sandbox or the
fallback, with a fixed environment (`sandbox`) and, where the machine lets it, a memory
group that counts all the run's memory (`memorygroup`), their good runs kept in a signed cache (`cache`); the comparison
of recorded and printed output, within a tolerance (`compare`), the experiments folder as readers download it
(`resources`), the figures a run writes, cleaned for a page (`figures`), the graph autograd traces in a run
(`tracing`), and the environments readers run them in, made from their locks (`matrix`). It imports `codeproof.common` and `codeproof.series`."""
