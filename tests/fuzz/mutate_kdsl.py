""".kdsl mutators: token-level (irc's own lexer) and grammar-aware (statements, blocks, expressions).

Token-level mutations break the syntax in small ways (the parser's error recovery and every diagnostic's
location get exercised); grammar-aware ones keep most inputs well-formed so that they reach sema, the
passes, the backend, ptxas and the emulator: statements are moved, duplicated, deleted and wrapped in
control flow; expressions are spliced between places; constants are replaced by boundary values; and
intrinsic calls with edge-case operands (barrier ids, mbarrier counts and parities, shuffle lanes) are
inserted. Every mutator is a pure function of (text, rng, corpus).
"""

from __future__ import annotations

import random

from irc.frontend.kdsl.parse import _grammar

INTS = [
    "0", "1", "2", "3", "7", "15", "16", "17", "31", "32", "33", "63", "64", "127", "128", "255", "256",
    "1023", "1024", "1025", "4095", "4096", "65535", "65536", "1048575", "1048576", "2147483647",
    "2147483648", "4294967295", "4294967296", "9223372036854775807", "18446744073709551615",
    "18446744073709551616", "100000000000000000000000", "0xFFFFFFFF", "0x80000000", "(1 << 31)",
    "(1 << 63)", "(1 << 64)", "(1 << 200)", "(1 << 4000000000)", "(-1)", "(-2147483648)",
]  # fmt: skip
SUFFIXES = ["", "", "u32", "i32", "u64", "i64"]
FLOATS = ["0.0", "-0.0", "1.0", "0.5", "1e30", "1e38", "3.5e38", "1e300", "1e-45", "65504.0", "65536.0"]
OPS = ["+", "-", "*", "/", "%", "<<", ">>", "&", "|", "^", "==", "!=", "<", "<=", ">", ">=", "&&", "||"]
WRAPS = [
    "if tid.x < {k}u32 {{ {s} }}",
    "if tid.x == 0u32 {{ {s} }} else {{ {s} }}",
    "for fz in 0u32..{k}u32 {{ {s} }}",
    "unroll for fz in 0..{k} {{ {s} }}",
    "while tid.x > {k}u32 {{ {s} break; }}",
    "{{ {s} }}",
    "if ctaid.x < {k}u32 {{ {s} }}",
    "for fz in tid.x..{k}u32 step 32u32 {{ {s} }}",
]
# statements that use only built-ins, so they fit into any kernel body
SNIPPETS = [
    "barrier();",
    "barrier({k});",
    "barrier({k}, {k2});",
    "barrier({k}, 128);",
    "syncwarp();",
    "let fzv = shfl_xor(tid.x, {k});",
    "let fzv = shfl_idx(tid.x, {k});",
    "let fzv = ballot(tid.x < {k}u32);",
    "shared fzb: mbarrier; if tid.x == 0u32 {{ mbarrier_init(&fzb, {k}u32); }} barrier();",
    "shared fzb: mbarrier; if tid.x == 0u32 {{ mbarrier_init(&fzb, 1u32); }} barrier(); "
    "let fzs = mbarrier_arrive(&fzb); mbarrier_wait(&fzb, {k}u32);",
    "shared fzb: mbarrier; mbarrier_init(&fzb, {k}); let fzt = mbarrier_test_wait(&fzb, {k2});",
    "shared fzs: [u32; {k}]; fzs[tid.x % {k}u32] = tid.x; barrier();",
    "shared fzs: [u32; 64]; let fzp = &fzs[0]; let fzq = fzp[{k}u32];",
    "let fzc = {k} << {k2};",
    "let fzf = ({k} << {k2}) as f32;",
    "let fzf = {k} as f32 / {k2} as f32;",
    "var fzr: [u32; {k}]; fzr[0] = 1u32;",
    "unroll for fzi in 0..{k} {{ unroll for fzj in 0..{k2} {{ }} }}",
    "let fzd = ({k} as i64) * ({k2} as i64);",
]


def _toks(text: str) -> list:
    lexed = _grammar().lexer.tokenize(text, "m.kdsl")
    return [t for t in lexed.tokens if t.type != "$END"]


def _offsets(text: str, toks) -> list[tuple[int, int]]:
    """(start, end) character offsets of every token."""
    starts = [0]
    for line in text.split("\n"):
        starts.append(starts[-1] + len(line) + 1)
    return [(starts[t.line - 1] + t.col - 1, starts[t.end_line - 1] + t.end_col - 1) for t in toks]


def _int(rng: random.Random) -> str:
    v = rng.choice(INTS)
    s = rng.choice(SUFFIXES)
    return v + s if s and v[0].isdigit() else v


# ------------------------------------------------------------------------------------- token level
def token_mutate(text: str, rng: random.Random, corpus: list[str]) -> str:
    toks = _toks(text)
    if not toks:
        return text
    offs = _offsets(text, toks)
    i = rng.randrange(len(toks))
    a, b = offs[i]
    op = rng.randrange(8)
    if op == 0:  # delete a token
        return text[:a] + text[b:]
    if op == 1:  # duplicate a token
        return text[:b] + " " + text[a:b] + text[b:]
    if op == 2 and i + 1 < len(toks):  # swap with the next token
        c, d = offs[i + 1]
        return text[:a] + text[c:d] + text[b:c] + text[a:b] + text[d:]
    if op == 3:  # a token from anywhere in the corpus
        other = rng.choice(corpus)
        ot = _toks(other)
        if ot:
            oo = _offsets(other, ot)
            j = rng.randrange(len(ot))
            return text[:a] + other[oo[j][0] : oo[j][1]] + text[b:]
    if op == 4:  # an operator for another
        idx = [k for k, t in enumerate(toks) if t.value in OPS]
        if idx:
            k = rng.choice(idx)
            return text[: offs[k][0]] + rng.choice(OPS) + text[offs[k][1] :]
    # boundary literals for literals
    idx = [k for k, t in enumerate(toks) if t.type in ("INT", "FLOAT")]
    if not idx:
        return text[:a] + _int(rng) + text[b:]
    k = rng.choice(idx)
    new = _int(rng) if toks[k].type == "INT" or rng.random() < 0.3 else rng.choice(FLOATS)
    return text[: offs[k][0]] + new + text[offs[k][1] :]


# --------------------------------------------------------------------------------- grammar aware
def _statements(text: str, toks, offs) -> list[tuple[int, int]]:
    """Character ranges of statements inside kernel/function bodies (nested ones too): a statement
    starts at a token where none is open at that brace depth and ends at the `;` at the same depth, or
    at the `}` that returns to that depth (unless `else` follows)."""
    out = []
    depth = 0
    open_at: dict[int, int] = {}  # depth -> start offset of the open statement
    nest = 0  # ( and [ depth: `[f16; 4]` holds a `;` that ends nothing
    for k, t in enumerate(toks):
        if t.type in ("LPAR", "LSQB"):
            nest += 1
        elif t.type in ("RPAR", "RSQB"):
            nest = max(0, nest - 1)
        if t.type == "LBRACE":
            if depth >= 1 and depth not in open_at:
                open_at[depth] = offs[k][0]
            depth += 1
            continue
        if t.type == "RBRACE":
            open_at.pop(depth, None)  # an unterminated statement before `}`
            depth -= 1
            nxt = toks[k + 1].type if k + 1 < len(toks) else ""
            if depth in open_at and nxt != "ELSE":
                out.append((open_at.pop(depth), offs[k][1]))
            continue
        if depth >= 1 and depth not in open_at:
            open_at[depth] = offs[k][0]
        if t.type == "SEMICOLON" and depth in open_at and nest == 0:
            out.append((open_at.pop(depth), offs[k][1]))
    return out


def _exprs(text: str, toks, offs) -> list[tuple[int, int]]:
    """Parenthesised and bracketed sub-expressions, plus single literal/identifier operands."""
    out = []
    stack: list[int] = []
    for k, t in enumerate(toks):
        if t.type in ("LPAR", "LSQB"):
            stack.append(k)
        elif t.type in ("RPAR", "RSQB") and stack:
            j = stack.pop()
            if k > j + 1:
                out.append((offs[j + 1][0], offs[k - 1][1]))
        elif t.type in ("INT", "FLOAT"):
            out.append(offs[k])
    return out


def grammar_mutate(text: str, rng: random.Random, corpus: list[str]) -> str:
    toks = _toks(text)
    offs = _offsets(text, toks)
    stmts = _statements(text, toks, offs)
    k, k2 = _int(rng), _int(rng)
    op = rng.randrange(9)
    if not stmts or op == 0:  # insert an edge-case snippet
        snip = rng.choice(SNIPPETS).format(k=k, k2=k2)
        if not stmts:
            return text
        a, _ = rng.choice(stmts)
        return text[:a] + snip + " " + text[a:]
    a, b = rng.choice(stmts)
    s = text[a:b]
    if op == 1:  # delete a statement
        return text[:a] + text[b:]
    if op == 2:  # duplicate a statement
        return text[:b] + " " + s + text[b:]
    if op == 3:  # wrap it in control flow
        w = rng.choice(WRAPS).format(k=rng.choice(["0", "1", "2", "3", "4", "32", "33"]), s=s)
        return text[:a] + w + text[b:]
    if op == 4:  # move it elsewhere
        c, _ = rng.choice(stmts)
        rest = text[:a] + text[b:]
        c = c if c < a else max(0, c - (b - a))
        return rest[:c] + s + " " + rest[c:]
    if op == 5:  # a statement from another corpus file
        other = rng.choice(corpus)
        ot = _toks(other)
        os_ = _statements(other, ot, _offsets(other, ot))
        if os_:
            c, d = rng.choice(os_)
            return text[:a] + other[c:d] + " " + text[a:]
    exprs = _exprs(text, toks, offs)
    if not exprs:
        return text
    c, d = rng.choice(exprs)
    if op == 6:  # splice another sub-expression in
        e, f = rng.choice(exprs)
        return text[:c] + "(" + text[e:f] + ")" + text[d:]
    if op == 7:  # a boundary constant expression
        return text[:c] + rng.choice([k, f"({k} {rng.choice(OPS)} {k2})", f"({k} as f32)"]) + text[d:]
    # grow: nest the statement in many blocks, repeat it, or chain an expression (time must stay linear)
    n = rng.choice([2, 5, 10, 100, 500, 1100, 3000])
    kind = rng.randrange(3)
    if kind == 0:
        return text[:a] + "{ " * n + s + " }" * n + text[b:]
    if kind == 1:
        return text[:a] + (s + "\n") * min(n, 2000) + text[b:]
    e = text[c:d]
    return text[:c] + "(" + " + ".join([f"({e})"] * min(n, 5000)) + ")" + text[d:]


def mutate(text: str, rng: random.Random, corpus: list[str]) -> str:
    """1-4 mutations, mostly grammar-aware."""
    for _ in range(rng.choice([1, 1, 2, 3, 4])):
        try:
            text = (
                grammar_mutate(text, rng, corpus) if rng.random() < 0.7 else token_mutate(text, rng, corpus)
            )
        except Exception:  # noqa: BLE001 - the lexer may refuse mutated text: keep the last good one
            break
    return text
