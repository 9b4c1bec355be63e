"""What the command line and CI integration need around the pipeline: configuration (`config`), baselines,
`// irc: allow(...)` suppression, renderers (text, JSON, SARIF, GitHub), check descriptions (`checkinfo`),
`--why` chains, `--emit cfg`, the body of `irc run`, and the editor support (Pygments lexer, TextMate
grammar). Kept apart from the compiler's layers so `irc/` itself shows the pipeline."""
