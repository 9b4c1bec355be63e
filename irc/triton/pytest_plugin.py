"""`pytest --irc`: check every Triton kernel compiled during the test session, and fail the session on
findings.

Registered through the `pytest11` entry point, so it is there wherever irc is installed; without `--irc`
it only adds the option (triton is not even imported). With it, irc installs Triton's compilation
listener (`triton.knobs.compilation.listener`, called for every `triton.compile` -- the JIT's launches and
explicit compiles alike, cache hits included), checks each new kernel's PTX as `irc.triton.check`
does (findings in the kernel's .py lines, naming the `@triton.jit` function and its constexprs), and
after the tests prints the findings with the test that compiled each kernel. Error findings set the
session's exit status to 1; warnings are shown only. No GPU is needed for the check itself.
"""

from __future__ import annotations

from typing import Any

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("irc", "irc static analysis of GPU kernels")
    group.addoption(
        "--irc",
        action="store_true",
        default=False,
        help="check every Triton kernel compiled during the session with irc; error findings fail the session",
    )


def pytest_configure(config: pytest.Config) -> None:
    if config.getoption("irc", default=False):
        config.pluginmanager.register(TritonChecker(config), "irc-triton-checker")


class TritonChecker:
    """The session's listener and report."""

    def __init__(self, config: pytest.Config):
        try:
            import triton  # noqa: F401
            from triton import knobs
        except ImportError as e:
            raise pytest.UsageError(f"--irc checks Triton kernels and needs triton: {e}") from None
        self.knobs = knobs
        self.previous = knobs.compilation.listener
        knobs.compilation.listener = self.listener
        self.current = "(outside a test)"
        self.seen: set[str] = set()
        self.kernels = 0
        self.findings: list[tuple[str, Any]] = []  # (test node id, Diagnostic)
        self.problems: list[str] = []  # kernels that could not be checked

    def listener(
        self, *, src: Any, metadata: dict, metadata_group: dict, times: Any, cache_hit: bool
    ) -> None:
        if self.previous is not None:
            self.previous(
                src=src, metadata=metadata, metadata_group=metadata_group, times=times, cache_hit=cache_hit
            )
        key = str(metadata.get("hash", id(src)))
        if key in self.seen:
            return
        self.seen.add(key)
        self.kernels += 1
        name = str(metadata.get("name", "?"))
        ptx_path = next((str(p) for k, p in metadata_group.items() if str(k).endswith(".ptx")), None)
        if ptx_path is None:
            self.problems.append(
                f"{name}: no PTX in Triton's cache (TRITON_STORE_BINARY_ONLY?): not analysed"
            )
            return
        try:
            self._check(src, metadata, name, ptx_path)
        except Exception as e:  # a bug in irc must not break the user's test; it is reported below  # noqa: BLE001
            self.problems.append(f"{name}: irc internal error: {type(e).__name__}: {e}")

    def _check(self, src: Any, metadata: dict, name: str, ptx_path: str) -> None:
        from pathlib import Path

        from irc.triton import check_compiled, describe

        fn = getattr(src, "fn", None)
        names = list(getattr(fn, "arg_names", []) or [])
        constexprs = {}
        for k, v in (getattr(src, "constants", None) or {}).items():
            idx = k[0] if isinstance(k, tuple) and k else k
            constexprs[names[idx] if isinstance(idx, int) and idx < len(names) else str(k)] = v
        target = metadata.get("target")
        arch = getattr(target, "arch", None) if not isinstance(target, dict) else target.get("arch")
        opts = {k: metadata[k] for k in ("num_warps", "num_stages") if k in metadata}
        note = describe(name, constexprs, f"sm_{arch}" if arch is not None else "?", opts)
        ptx = Path(ptx_path).read_text(encoding="utf-8")
        for d in check_compiled(ptx, ptx_path, note):
            self.findings.append((self.current, d))

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_protocol(self, item: pytest.Item, nextitem: Any) -> Any:
        self.current = item.nodeid
        try:
            return (yield)
        finally:
            self.current = "(outside a test)"

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        tr = terminalreporter
        errors = sum(1 for _, d in self.findings if d.is_error)
        tr.section("irc: Triton kernels")
        from irc.tooling.render import render_text

        for test, d in self.findings:
            tr.write_line(f"compiled in {test}:")
            tr.write(render_text([d], {}))
        for p in self.problems:
            tr.write_line(f"irc: {p}")
        what = (
            f"{len(self.findings)} finding{'s' if len(self.findings) != 1 else ''}"
            if self.findings
            else "no findings"
        )
        tr.write_line(f"irc: {what} in {self.kernels} Triton kernel{'s' if self.kernels != 1 else ''}")
        if errors:
            tr.write_line(f"irc: {errors} error finding{'s' if errors != 1 else ''}: the session fails")

    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        if any(d.is_error for _, d in self.findings) and session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    def pytest_unconfigure(self, config: pytest.Config) -> None:
        if self.knobs.compilation.listener == self.listener:
            self.knobs.compilation.listener = self.previous
