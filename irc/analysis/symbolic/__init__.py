"""The symbolic core of the analyzer: every check's hard question as a satisfiability query over two
symbolic threads of one launch, answered by an SMT solver (z3), with the model as a witness.

`encode` gives IR values and path conditions as solver terms, `launch` the launch and its contract,
`queries` the questions, `witness` the concrete launch a model describes. The uniformity lattice stays
the fast path; checks ask the solver only what the lattice cannot decide. See docs/analyzer.md.
"""
