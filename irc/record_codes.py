"""The methods of irc's `@record` classes, as code shipped in the package. Generated: do not edit.

Regenerate with `python tests/test_record_codes.py --update` (the test fails until this file matches the
classes). `irc.records` looks a generated source up here by its exact text; each function below is that
text, indented, with its top-level names declared `global` so that running the function's code with
`exec(code, env)` defines them in `env`, as running the text itself would. A source not found here is
compiled at run time. Nothing here is read from or written to the user cache directory.
"""

def _m0():  # <record Access>
    global __init__
    def __init__(self, op, block, index, write, atomic, ptr, offset, size, wmma=_dflt_wmma):
        self.op = op
        self.block = block
        self.index = index
        self.write = write
        self.atomic = atomic
        self.ptr = ptr
        self.offset = offset
        self.size = size
        self.wmma = wmma


def _m1():  # <record Addr>
    global __eq__, __hash__, __init__
    def __init__(self, base, offset=_dflt_offset, index=_dflt_index):
        _set(self, 'base', base)
        _set(self, 'offset', offset)
        _set(self, 'index', index)
    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.base,self.offset,self.index,) == (other.base,other.offset,other.index,)
        return NotImplemented
    def __hash__(self):
        return hash((self.base,self.offset,self.index,))


def _m2():  # <record AddrOf>
    global __init__
    def __init__(self, span, operand):
        self.span = span
        self.operand = operand


def _m3():  # <record Allocation>
    global __eq__, __init__
    def __init__(self, fn, liveness, colour=_MISSING, cls=_MISSING, max_live=_MISSING, dom_order=_MISSING):
        self.fn = fn
        self.liveness = liveness
        self.colour = _make_colour() if colour is _MISSING else colour
        self.cls = _make_cls() if cls is _MISSING else cls
        self.max_live = _make_max_live() if max_live is _MISSING else max_live
        self.dom_order = _make_dom_order() if dom_order is _MISSING else dom_order
    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.fn,self.liveness,self.colour,self.cls,self.max_live,self.dom_order,) == (other.fn,other.liveness,other.colour,other.cls,other.max_live,other.dom_order,)
        return NotImplemented


def _m4():  # <record AllowComment>
    global __init__
    def __init__(self, line, checks, span):
        self.line = line
        self.checks = checks
        self.span = span


def _m5():  # <record Arch>
    global __eq__, __hash__, __init__
    def __init__(self, name, number, arch_specific, family):
        _set(self, 'name', name)
        _set(self, 'number', number)
        _set(self, 'arch_specific', arch_specific)
        _set(self, 'family', family)
    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.name,self.number,self.arch_specific,self.family,) == (other.name,other.number,other.arch_specific,other.family,)
        return NotImplemented
    def __hash__(self):
        return hash((self.name,self.number,self.arch_specific,self.family,))


def _m6():  # <record Arg>
    global __eq__, __hash__, __init__
    def __init__(self, name, kind=_dflt_kind, allowed=_dflt_allowed, var=_dflt_var, spaces=_dflt_spaces, length=_dflt_length, lengths=_dflt_lengths, const=_dflt_const, values=_dflt_values, multiple_of=_dflt_multiple_of, binds=_dflt_binds, lane=_dflt_lane):
        _set(self, 'name', name)
        _set(self, 'kind', kind)
        _set(self, 'allowed', allowed)
        _set(self, 'var', var)
        _set(self, 'spaces', spaces)
        _set(self, 'length', length)
        _set(self, 'lengths', lengths)
        _set(self, 'const', const)
        _set(self, 'values', values)
        _set(self, 'multiple_of', multiple_of)
        _set(self, 'binds', binds)
        _set(self, 'lane', lane)
    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.name,self.kind,self.allowed,self.var,self.spaces,self.length,self.lengths,self.const,self.values,self.multiple_of,self.binds,self.lane,) == (other.name,other.kind,other.allowed,other.var,other.spaces,other.length,other.lengths,other.const,other.values,other.multiple_of,other.binds,other.lane,)
        return NotImplemented
    def __hash__(self):
        return hash((self.name,self.kind,self.allowed,self.var,self.spaces,self.length,self.lengths,self.const,self.values,self.multiple_of,self.binds,self.lane,))


def _m7():  # <record ArrayList>
    global __init__
    def __init__(self, span, elems):
        self.span = span
        self.elems = elems


def _m8():  # <record ArrayRepeat>
    global __init__
    def __init__(self, span, value, count):
        self.span = span
        self.value = value
        self.count = count


def _m9():  # <record ArrayType>
    global __eq__, __hash__, __init__
    def __init__(self, elem, dims):
        _set(self, 'elem', elem)
        _set(self, 'dims', dims)
    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.elem,self.dims,) == (other.elem,other.dims,)
        return NotImplemented
    def __hash__(self):
        return hash((self.elem,self.dims,))


def _m10():  # <record ArrayType>
    global __init__
    def __init__(self, span, elem, dims):
        self.span = span
        self.elem = elem
        self.dims = dims


def _m11():  # <record AssignStmt>
    global __init__
    def __init__(self, span, target, op, value):
        self.span = span
        self.target = target
        self.op = op
        self.value = value


def _m12():  # <record Assume>
    global __eq__, __init__
    def __init__(self, text, where, tree=_dflt_tree):
        self.text = text
        self.where = where
        self.tree = tree
    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.text,self.where,self.tree,) == (other.text,other.where,other.tree,)
        return NotImplemented


def _m13():  # <record AttrArg>
    global __init__
    def __init__(self, span, key, value):
        self.span = span
        self.key = key
        self.value = value


def _m14():  # <record Attribute>
    global __init__
    def __init__(self, span, name, args):
        self.span = span
        self.name = name
        self.args = args


def _m15():  # <record BarrierKey>
    global __eq__, __hash__, __init__
    def __init__(self, sym, offset):
        _set(self, 'sym', sym)
        _set(self, 'offset', offset)
    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.sym,self.offset,) == (other.sym,other.offset,)
        return NotImplemented
    def __hash__(self):
        return hash((self.sym,self.offset,))


def _m16():  # <record BarrierObject>
    global __eq__, __init__
    def __init__(self, sym, inits=_MISSING, arrives=_MISSING, announces=_MISSING, copies=_MISSING, waits=_MISSING, others=_MISSING):
        self.sym = sym
        self.inits = _make_inits() if inits is _MISSING else inits
        self.arrives = _make_arrives() if arrives is _MISSING else arrives
        self.announces = _make_announces() if announces is _MISSING else announces
        self.copies = _make_copies() if copies is _MISSING else copies
        self.waits = _make_waits() if waits is _MISSING else waits
        self.others = _make_others() if others is _MISSING else others
    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.sym,self.inits,self.arrives,self.announces,self.copies,self.waits,self.others,) == (other.sym,other.inits,other.arrives,other.announces,other.copies,other.waits,other.others,)
        return NotImplemented


def _m17():  # <record Binary>
    global __init__
    def __init__(self, span, op, lhs, rhs, op_span):
        self.span = span
        self.op = op
        self.lhs = lhs
        self.rhs = rhs
        self.op_span = op_span


def _m18():  # <record Block>
    global __eq__, __init__
    def __init__(self, label, instrs=_MISSING, succs=_MISSING, fallthrough=_dflt_fallthrough):
        self.label = label
        self.instrs = _make_instrs() if instrs is _MISSING else instrs
        self.succs = _make_succs() if succs is _MISSING else succs
        self.fallthrough = fallthrough
    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.label,self.instrs,self.succs,self.fallthrough,) == (other.label,other.instrs,other.succs,other.fallthrough,)
        return NotImplemented


def _m19():  # <record Block>
    global __init__
    def __init__(self, span, stmts):
        self.span = span
        self.stmts = stmts


def _m20():  # <record BoolLit>
    global __init__
    def __init__(self, span, value):
        self.span = span
        self.value = value


def _m21():  # <record BreakStmt>
    global __init__
    def __init__(self, span):
        self.span = span


def _m22():  # <record Call>
    global __init__
    def __init__(self, span, callee, callee_span, args):
        self.span = span
        self.callee = callee
        self.callee_span = callee_span
        self.args = args


def _m23():  # <record Cast>
    global __init__
    def __init__(self, span, operand, target, bits=_dflt_bits):
        self.span = span
        self.operand = operand
        self.target = target
        self.bits = bits


def _m24():  # <record CheckInfo>
    global __eq__, __hash__, __init__
    def __init__(self, name, severity, summary, doc):
        _set(self, 'name', name)
        _set(self, 'severity', severity)
        _set(self, 'summary', summary)
        _set(self, 'doc', doc)
    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.name,self.severity,self.summary,self.doc,) == (other.name,other.severity,other.summary,other.doc,)
        return NotImplemented
    def __hash__(self):
        return hash((self.name,self.severity,self.summary,self.doc,))


def _m25():  # <record CompileOptions>
    global __eq__, __init__
    def __init__(self, arch=_dflt_arch, defines=_MISSING, optimize=_dflt_optimize, verify_each=_dflt_verify_each, dump_after=_dflt_dump_after, time_passes=_dflt_time_passes, check=_dflt_check, check_alloc=_dflt_check_alloc, contracts=_dflt_contracts):
        self.arch = arch
        self.defines = _make_defines() if defines is _MISSING else defines
        self.optimize = optimize
        self.verify_each = verify_each
        self.dump_after = dump_after
        self.time_passes = time_passes
        self.check = check
        self.check_alloc = check_alloc
        self.contracts = contracts
    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.arch,self.defines,self.optimize,self.verify_each,self.dump_after,self.time_passes,self.check,self.check_alloc,self.contracts,) == (other.arch,other.defines,other.optimize,other.verify_each,other.dump_after,other.time_passes,other.check,other.check_alloc,other.contracts,)
        return NotImplemented


def _m26():  # <record CompileResult>
    global __eq__, __init__
    def __init__(self, module, ptx_text, ptx, stats, diagnostics, path=_dflt_path, arch=_dflt_arch):
        self.module = module
        self.ptx_text = ptx_text
        self.ptx = ptx
        self.stats = stats
        self.diagnostics = diagnostics
        self.path = path
        self.arch = arch
    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.module,self.ptx_text,self.ptx,self.stats,self.diagnostics,self.path,self.arch,) == (other.module,other.ptx_text,other.ptx,other.stats,other.diagnostics,other.path,other.arch,)
        return NotImplemented


def _m27():  # <record Config>
    global __eq__, __init__
    def __init__(self, root, path=_dflt_path, include=_MISSING, exclude=_MISSING, arch=_dflt_arch, werror=_dflt_werror, enable=_dflt_enable, disable=_MISSING, baseline=_dflt_baseline, targets=_MISSING, severity=_MISSING, warn_unused_allow=_dflt_warn_unused_allow, docs_url=_dflt_docs_url, contracts=_dflt_contracts, nvcc=_dflt_nvcc, nvcc_flags=_MISSING, cuda_arch=_MISSING, compile_commands=_dflt_compile_commands):
        self.root = root
        self.path = path
        self.include = _make_include() if include is _MISSING else include
        self.exclude = _make_exclude() if exclude is _MISSING else exclude
        self.arch = arch
        self.werror = werror
        self.enable = enable
        self.disable = _make_disable() if disable is _MISSING else disable
        self.baseline = baseline
        self.targets = _make_targets() if targets is _MISSING else targets
        self.severity = _make_severity() if severity is _MISSING else severity
        self.warn_unused_allow = warn_unused_allow
        self.docs_url = docs_url
        self.contracts = contracts
        self.nvcc = nvcc
        self.nvcc_flags = _make_nvcc_flags() if nvcc_flags is _MISSING else nvcc_flags
        self.cuda_arch = _make_cuda_arch() if cuda_arch is _MISSING else cuda_arch
        self.compile_commands = compile_commands
    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.root,self.path,self.include,self.exclude,self.arch,self.werror,self.enable,self.disable,self.baseline,self.targets,self.severity,self.warn_unused_allow,self.docs_url,self.contracts,self.nvcc,self.nvcc_flags,self.cuda_arch,self.compile_commands,) == (other.root,other.path,other.include,other.exclude,other.arch,other.werror,other.enable,other.disable,other.baseline,other.targets,other.severity,other.warn_unused_allow,other.docs_url,other.contracts,other.nvcc,other.nvcc_flags,other.cuda_arch,other.compile_commands,)
        return NotImplemented


def _m28():  # <record ConstItem>
    global __init__
    def __init__(self, span, name, name_span, type, init, spec):
        self.span = span
        self.name = name
        self.name_span = name_span
        self.type = type
        self.init = init
        self.spec = spec


def _m29():  # <record ContinueStmt>
    global __init__
    def __init__(self, span):
        self.span = span


def _m30():  # <record Contract>
    global __eq__, __init__
    def __init__(self, block=_dflt_block, grid=_dflt_grid, assumes=_MISSING, param_names=_dflt_param_names, origin=_dflt_origin):
        self.block = block
        self.grid = grid
        self.assumes = _make_assumes() if assumes is _MISSING else assumes
        self.param_names = param_names
        self.origin = origin
    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.block,self.grid,self.assumes,self.param_names,self.origin,) == (other.block,other.grid,other.assumes,other.param_names,other.origin,)
        return NotImplemented


def _m31():  # <record Contracts>
    global __eq__, __init__
    def __init__(self, rules=_MISSING):
        self.rules = _make_rules() if rules is _MISSING else rules
    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.rules,) == (other.rules,)
        return NotImplemented


def _m32():  # <record CudaOptions>
    global __eq__, __init__
    def __init__(self, nvcc, flags=_MISSING, archs=_MISSING, directory=_dflt_directory):
        self.nvcc = nvcc
        self.flags = _make_flags() if flags is _MISSING else flags
        self.archs = _make_archs() if archs is _MISSING else archs
        self.directory = directory
    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.nvcc,self.flags,self.archs,self.directory,) == (other.nvcc,other.flags,other.archs,other.directory,)
        return NotImplemented


def _m33():  # <record Diagnostic>
    global __eq__, __init__
    def __init__(self, check, severity, message, span, labels=_MISSING, help=_dflt_help, notes=_MISSING, kernel=_dflt_kernel, origin=_dflt_origin, witness=_dflt_witness):
        self.check = check
        self.severity = severity
        self.message = message
        self.span = span
        self.labels = _make_labels() if labels is _MISSING else labels
        self.help = help
        self.notes = _make_notes() if notes is _MISSING else notes
        self.kernel = kernel
        self.origin = origin
        self.witness = witness
    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.check,self.severity,self.message,self.span,self.labels,self.help,self.notes,self.kernel,self.origin,self.witness,) == (other.check,other.severity,other.message,other.span,other.labels,other.help,other.notes,other.kernel,other.origin,other.witness,)
        return NotImplemented


def _m34():  # <record Divisor>
    global __eq__, __hash__, __init__
    def __init__(self, div, provable):
        _set(self, 'div', div)
        _set(self, 'provable', provable)
    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.div,self.provable,) == (other.div,other.provable,)
        return NotImplemented
    def __hash__(self):
        return hash((self.div,self.provable,))


def _m35():  # <record EdgeCopies>
    global __eq__, __init__
    def __init__(self, pred, succ_index, succ, moves=_MISSING, binds=_MISSING, split=_dflt_split):
        self.pred = pred
        self.succ_index = succ_index
        self.succ = succ
        self.moves = _make_moves() if moves is _MISSING else moves
        self.binds = _make_binds() if binds is _MISSING else binds
        self.split = split
    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.pred,self.succ_index,self.succ,self.moves,self.binds,self.split,) == (other.pred,other.succ_index,other.succ,other.moves,other.binds,other.split,)
        return NotImplemented


def _m36():  # <record Elem>
    global __eq__, __hash__, __init__
    def __init__(self, name, values, optional, is_type, gates=_dflt_gates):
        _set(self, 'name', name)
        _set(self, 'values', values)
        _set(self, 'optional', optional)
        _set(self, 'is_type', is_type)
        _set(self, 'gates', gates)
    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.name,self.values,self.optional,self.is_type,self.gates,) == (other.name,other.values,other.optional,other.is_type,other.gates,)
        return NotImplemented
    def __hash__(self):
        return hash((self.name,self.values,self.optional,self.is_type,self.gates,))


def _m37():  # <record EmitResult>
    global __eq__, __init__
    def __init__(self, ptx, text, stats=_MISSING):
        self.ptx = ptx
        self.text = text
        self.stats = _make_stats() if stats is _MISSING else stats
    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.ptx,self.text,self.stats,) == (other.ptx,other.text,other.stats,)
        return NotImplemented


def _m38():  # <record EmittedForm>
    global __eq__, __hash__, __init__
    def __init__(self, name, opcode, gate, sample):
        _set(self, 'name', name)
        _set(self, 'opcode', opcode)
        _set(self, 'gate', gate)
        _set(self, 'sample', sample)
    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.name,self.opcode,self.gate,self.sample,) == (other.name,other.opcode,other.gate,other.sample,)
        return NotImplemented
    def __hash__(self):
        return hash((self.name,self.opcode,self.gate,self.sample,))


def _m39():  # <record EmuStats>
    global __eq__, __init__
    def __init__(self, thread_instructions=_dflt_thread_instructions, steps=_dflt_steps, ctas=_dflt_ctas, threads=_dflt_threads, wall_time=_dflt_wall_time, chunks=_dflt_chunks, race_notes=_MISSING):
        self.thread_instructions = thread_instructions
        self.steps = steps
        self.ctas = ctas
        self.threads = threads
        self.wall_time = wall_time
        self.chunks = chunks
        self.race_notes = _make_race_notes() if race_notes is _MISSING else race_notes
    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.thread_instructions,self.steps,self.ctas,self.threads,self.wall_time,self.chunks,self.race_notes,) == (other.thread_instructions,other.steps,other.ctas,other.threads,other.wall_time,other.chunks,other.race_notes,)
        return NotImplemented


def _m40():  # <record Entry>
    global __eq__, __init__
    def __init__(self, file, directory, flags=_MISSING, archs=_MISSING):
        self.file = file
        self.directory = directory
        self.flags = _make_flags() if flags is _MISSING else flags
        self.archs = _make_archs() if archs is _MISSING else archs
    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.file,self.directory,self.flags,self.archs,) == (other.file,other.directory,other.flags,other.archs,)
        return NotImplemented


def _m41():  # <record ErrorType>
    global __eq__, __hash__, __init__
    def __init__(self, ):
        pass
    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return () == ()
        return NotImplemented
    def __hash__(self):
        return hash(())


def _m42():  # <record Expr>
    global __init__
    def __init__(self, span):
        self.span = span


def _m43():  # <record ExprStmt>
    global __init__
    def __init__(self, span, expr):
        self.span = span
        self.expr = expr


def _m44():  # <record FloatLit>
    global __init__
    def __init__(self, span, value, suffix, text):
        self.span = span
        self.value = value
        self.suffix = suffix
        self.text = text


def _m45():  # <record FnInfo>
    global __eq__, __init__
    def __init__(self, item, params, ret, allow=_dflt_allow):
        self.item = item
        self.params = params
        self.ret = ret
        self.allow = allow
    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.item,self.params,self.ret,self.allow,) == (other.item,other.params,other.ret,other.allow,)
        return NotImplemented


def _m46():  # <record FnItem>
    global __init__
    def __init__(self, span, name, name_span, attrs, params, ret, body, kernel):
        self.span = span
        self.name = name
        self.name_span = name_span
        self.attrs = attrs
        self.params = params
        self.ret = ret
        self.body = body
        self.kernel = kernel


def _m47():  # <record ForListStmt>
    global __init__
    def __init__(self, span, var, var_span, items, body):
        self.span = span
        self.var = var
        self.var_span = var_span
        self.items = items
        self.body = body


def _m48():  # <record ForStmt>
    global __init__
    def __init__(self, span, var, var_span, start, end, step, body, unroll, factor=_dflt_factor):
        self.span = span
        self.var = var
        self.var_span = var_span
        self.start = start
        self.end = end
        self.step = step
        self.body = body
        self.unroll = unroll
        self.factor = factor


def _m49():  # <record Form>
    global __eq__, __hash__, __init__
    def __init__(self, stem, text, head, elems, operands, relaxed, gate):
        _set(self, 'stem', stem)
        _set(self, 'text', text)
        _set(self, 'head', head)
        _set(self, 'elems', elems)
        _set(self, 'operands', operands)
        _set(self, 'relaxed', relaxed)
        _set(self, 'gate', gate)
    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.stem,self.text,self.head,self.elems,self.operands,self.relaxed,self.gate,) == (other.stem,other.text,other.head,other.elems,other.operands,other.relaxed,other.gate,)
        return NotImplemented
    def __hash__(self):
        return hash((self.stem,self.text,self.head,self.elems,self.operands,self.relaxed,self.gate,))


def _m50():  # <record Function>
    global __eq__, __init__
    def __init__(self, name, kind, params=_MISSING, ret_params=_MISSING, visible=_dflt_visible, extern=_dflt_extern, directives=_MISSING, body=_dflt_body, line=_dflt_line, meta=_MISSING):
        self.name = name
        self.kind = kind
        self.params = _make_params() if params is _MISSING else params
        self.ret_params = _make_ret_params() if ret_params is _MISSING else ret_params
        self.visible = visible
        self.extern = extern
        self.directives = _make_directives() if directives is _MISSING else directives
        self.body = body
        self.line = line
        self.meta = _make_meta() if meta is _MISSING else meta
    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.name,self.kind,self.params,self.ret_params,self.visible,self.extern,self.directives,self.body,self.line,self.meta,) == (other.name,other.kind,other.params,other.ret_params,other.visible,other.extern,other.directives,other.body,other.line,other.meta,)
        return NotImplemented


def _m51():  # <record FunctionContext>
    global __eq__, __init__
    def __init__(self, fn, module, arch=_dflt_arch, _cfg=_dflt__cfg, _facts=_dflt__facts, _namer=_dflt__namer, cache=_MISSING):
        self.fn = fn
        self.module = module
        self.arch = arch
        self._cfg = _cfg
        self._facts = _facts
        self._namer = _namer
        self.cache = _make_cache() if cache is _MISSING else cache
    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.fn,self.module,self.arch,self._cfg,self._facts,self._namer,self.cache,) == (other.fn,other.module,other.arch,other._cfg,other._facts,other._namer,other.cache,)
        return NotImplemented


def _m52():  # <record Gate>
    global __eq__, __hash__, __init__
    def __init__(self, targets, min_version):
        _set(self, 'targets', targets)
        _set(self, 'min_version', min_version)
    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.targets,self.min_version,) == (other.targets,other.min_version,)
        return NotImplemented
    def __hash__(self):
        return hash((self.targets,self.min_version,))


def _m53():  # <record IfStmt>
    global __init__
    def __init__(self, span, cond, then, else_):
        self.span = span
        self.cond = cond
        self.then = then
        self.else_ = else_


def _m54():  # <record Imm>
    global __eq__, __hash__, __init__
    def __init__(self, value, text):
        _set(self, 'value', value)
        _set(self, 'text', text)
    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.value,self.text,) == (other.value,other.text,)
        return NotImplemented
    def __hash__(self):
        return hash((self.value,self.text,))


def _m55():  # <record Index>
    global __init__
    def __init__(self, span, base, indices):
        self.span = span
        self.base = base
        self.indices = indices


def _m56():  # <record Instr>
    global __eq__, __init__
    def __init__(self, opcode, operands=_MISSING, pred=_dflt_pred, pred_neg=_dflt_pred_neg, line=_dflt_line, loc=_dflt_loc, meta=_MISSING):
        self.opcode = opcode
        self.operands = _make_operands() if operands is _MISSING else operands
        self.pred = pred
        self.pred_neg = pred_neg
        self.line = line
        self.loc = loc
        self.meta = _make_meta() if meta is _MISSING else meta
    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.opcode,self.operands,self.pred,self.pred_neg,self.line,self.loc,self.meta,) == (other.opcode,other.operands,other.pred,other.pred_neg,other.line,other.loc,other.meta,)
        return NotImplemented


def _m57():  # <record InstrInfo>
    global __eq__, __hash__, __init__
    def __init__(self, key, dests=_dflt_dests, mem=_dflt_mem, spaces=_dflt_spaces, barrier=_dflt_barrier, warp_granular_barrier=_dflt_warp_granular_barrier, cluster_barrier=_dflt_cluster_barrier, warp_collective=_dflt_warp_collective, terminator=_dflt_terminator, parks=_dflt_parks, polls=_dflt_polls, pure=_dflt_pure, is_async=_dflt_is_async, fence=_dflt_fence, form=_dflt_form, known=_dflt_known):
        _set(self, 'key', key)
        _set(self, 'dests', dests)
        _set(self, 'mem', mem)
        _set(self, 'spaces', spaces)
        _set(self, 'barrier', barrier)
        _set(self, 'warp_granular_barrier', warp_granular_barrier)
        _set(self, 'cluster_barrier', cluster_barrier)
        _set(self, 'warp_collective', warp_collective)
        _set(self, 'terminator', terminator)
        _set(self, 'parks', parks)
        _set(self, 'polls', polls)
        _set(self, 'pure', pure)
        _set(self, 'is_async', is_async)
        _set(self, 'fence', fence)
        _set(self, 'form', form)
        _set(self, 'known', known)
    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.key,self.dests,self.mem,self.spaces,self.barrier,self.warp_granular_barrier,self.cluster_barrier,self.warp_collective,self.terminator,self.parks,self.polls,self.pure,self.is_async,self.fence,self.form,self.known,) == (other.key,other.dests,other.mem,other.spaces,other.barrier,other.warp_granular_barrier,other.cluster_barrier,other.warp_collective,other.terminator,other.parks,other.polls,other.pure,other.is_async,other.fence,other.form,other.known,)
        return NotImplemented
    def __hash__(self):
        return hash((self.key,self.dests,self.mem,self.spaces,self.barrier,self.warp_granular_barrier,self.cluster_barrier,self.warp_collective,self.terminator,self.parks,self.polls,self.pure,self.is_async,self.fence,self.form,self.known,))


def _m58():  # <record IntLit>
    global __init__
    def __init__(self, span, value, suffix, text):
        self.span = span
        self.value = value
        self.suffix = suffix
        self.text = text


def _m59():  # <record Intrinsic>
    global __eq__, __hash__, __init__
    def __init__(self, name, args, ret=_MISSING, optional=_dflt_optional, target=_dflt_target, collective=_dflt_collective, barrier=_dflt_barrier, pure=_dflt_pure, doc=_dflt_doc, op=_dflt_op, op_attrs=_dflt_op_attrs):
        _set(self, 'name', name)
        _set(self, 'args', args)
        _set(self, 'ret', _make_ret() if ret is _MISSING else ret)
        _set(self, 'optional', optional)
        _set(self, 'target', target)
        _set(self, 'collective', collective)
        _set(self, 'barrier', barrier)
        _set(self, 'pure', pure)
        _set(self, 'doc', doc)
        _set(self, 'op', op)
        _set(self, 'op_attrs', op_attrs)
    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.name,self.args,self.ret,self.optional,self.target,self.collective,self.barrier,self.pure,self.doc,self.op,self.op_attrs,) == (other.name,other.args,other.ret,other.optional,other.target,other.collective,other.barrier,other.pure,other.doc,other.op,other.op_attrs,)
        return NotImplemented
    def __hash__(self):
        return hash((self.name,self.args,self.ret,self.optional,self.target,self.collective,self.barrier,self.pure,self.doc,self.op,self.op_attrs,))


def _m60():  # <record Item>
    global __init__
    def __init__(self, span, name, name_span):
        self.span = span
        self.name = name
        self.name_span = name_span


def _m61():  # <record Item>
    global __eq__, __init__
    def __init__(self, start, end, line, is_function, name):
        self.start = start
        self.end = end
        self.line = line
        self.is_function = is_function
        self.name = name
    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.start,self.end,self.line,self.is_function,self.name,) == (other.start,other.end,other.line,other.is_function,other.name,)
        return NotImplemented


def _m62():  # <record Kernel>
    global __eq__, __init__
    def __init__(self, name, module, param_names, param_types, stats=_MISSING):
        self.name = name
        self.module = module
        self.param_names = param_names
        self.param_types = param_types
        self.stats = _make_stats() if stats is _MISSING else stats
    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.name,self.module,self.param_names,self.param_types,self.stats,) == (other.name,other.module,other.param_names,other.param_types,other.stats,)
        return NotImplemented


def _m63():  # <record KernelInfo>
    global __eq__, __init__
    def __init__(self, item, block=_dflt_block, max_registers=_dflt_max_registers, min_blocks_per_sm=_dflt_min_blocks_per_sm, cluster=_dflt_cluster, allow=_dflt_allow, shared=_MISSING):
        self.item = item
        self.block = block
        self.max_registers = max_registers
        self.min_blocks_per_sm = min_blocks_per_sm
        self.cluster = cluster
        self.allow = allow
        self.shared = _make_shared() if shared is _MISSING else shared
    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.item,self.block,self.max_registers,self.min_blocks_per_sm,self.cluster,self.allow,self.shared,) == (other.item,other.block,other.max_registers,other.min_blocks_per_sm,other.cluster,other.allow,other.shared,)
        return NotImplemented


def _m64():  # <record Kind>
    global __eq__, __hash__, __init__
    def __init__(self, issue, commit, wait, foreign, hazard):
        _set(self, 'issue', issue)
        _set(self, 'commit', commit)
        _set(self, 'wait', wait)
        _set(self, 'foreign', foreign)
        _set(self, 'hazard', hazard)
    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.issue,self.commit,self.wait,self.foreign,self.hazard,) == (other.issue,other.commit,other.wait,other.foreign,other.hazard,)
        return NotImplemented
    def __hash__(self):
        return hash((self.issue,self.commit,self.wait,self.foreign,self.hazard,))


def _m65():  # <record Label>
    global __eq__, __init__
    def __init__(self, name, line=_dflt_line):
        self.name = name
        self.line = line
    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.name,self.line,) == (other.name,other.line,)
        return NotImplemented


def _m66():  # <record Label>
    global __eq__, __hash__, __init__
    def __init__(self, span, message, origin=_dflt_origin):
        _set(self, 'span', span)
        _set(self, 'message', message)
        _set(self, 'origin', origin)
    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.span,self.message,self.origin,) == (other.span,other.message,other.origin,)
        return NotImplemented
    def __hash__(self):
        return hash((self.span,self.message,self.origin,))


def _m67():  # <record LetStmt>
    global __init__
    def __init__(self, span, name, name_span, type, init, mutable):
        self.span = span
        self.name = name
        self.name_span = name_span
        self.type = type
        self.init = init
        self.mutable = mutable


def _m68():  # <record LexResult>
    global __eq__, __init__
    def __init__(self, tokens, diagnostics, allow_comments, unterminated=_dflt_unterminated):
        self.tokens = tokens
        self.diagnostics = diagnostics
        self.allow_comments = allow_comments
        self.unterminated = unterminated
    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.tokens,self.diagnostics,self.allow_comments,self.unterminated,) == (other.tokens,other.diagnostics,other.allow_comments,other.unterminated,)
        return NotImplemented


def _m69():  # <record Limit>
    global __eq__, __hash__, __init__
    def __init__(self, name, default, what, help):
        _set(self, 'name', name)
        _set(self, 'default', default)
        _set(self, 'what', what)
        _set(self, 'help', help)
    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.name,self.default,self.what,self.help,) == (other.name,other.default,other.what,other.help,)
        return NotImplemented
    def __hash__(self):
        return hash((self.name,self.default,self.what,self.help,))


def _m70():  # <record LineMap>
    global __eq__, __init__
    def __init__(self, starts, origins):
        self.starts = starts
        self.origins = origins
    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.starts,self.origins,) == (other.starts,other.origins,)
        return NotImplemented


def _m71():  # <record Loc>
    global __eq__, __init__
    def __init__(self, file, line, col, up=_dflt_up):
        self.file = file
        self.line = line
        self.col = col
        self.up = up
    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.file,self.line,self.col,self.up,) == (other.file,other.line,other.col,other.up,)
        return NotImplemented


def _m72():  # <record LocDirective>
    global __eq__, __init__
    def __init__(self, file, line, args, ptx_lines=_MISSING):
        self.file = file
        self.line = line
        self.args = args
        self.ptx_lines = _make_ptx_lines() if ptx_lines is _MISSING else ptx_lines
    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.file,self.line,self.args,self.ptx_lines,) == (other.file,other.line,other.args,other.ptx_lines,)
        return NotImplemented


def _m73():  # <record LoopState>
    global __eq__, __init__
    def __init__(self, breaks=_dflt_breaks):
        self.breaks = breaks
    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.breaks,) == (other.breaks,)
        return NotImplemented


def _m74():  # <record MBarrier>
    global __eq__, __hash__, __init__
    def __init__(self, ):
        pass
    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return () == ()
        return NotImplemented
    def __hash__(self):
        return hash(())


def _m75():  # <record MBarrierType>
    global __eq__, __hash__, __init__
    def __init__(self, ):
        pass
    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return () == ()
        return NotImplemented
    def __hash__(self):
        return hash(())


def _m76():  # <record Match>
    global __eq__, __hash__, __init__
    def __init__(self, form, types, vec, gates):
        _set(self, 'form', form)
        _set(self, 'types', types)
        _set(self, 'vec', vec)
        _set(self, 'gates', gates)
    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.form,self.types,self.vec,self.gates,) == (other.form,other.types,other.vec,other.gates,)
        return NotImplemented
    def __hash__(self):
        return hash((self.form,self.types,self.vec,self.gates,))


def _m77():  # <record Member>
    global __init__
    def __init__(self, span, base, field):
        self.span = span
        self.base = base
        self.field = field


def _m78():  # <record Mismatch>
    global __eq__, __hash__, __init__
    def __init__(self, message, culprit=_dflt_culprit):
        _set(self, 'message', message)
        _set(self, 'culprit', culprit)
    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.message,self.culprit,) == (other.message,other.culprit,)
        return NotImplemented
    def __hash__(self):
        return hash((self.message,self.culprit,))


def _m79():  # <record Module>
    global __eq__, __init__
    def __init__(self, version=_dflt_version, target=_dflt_target, address_size=_dflt_address_size, files=_MISSING, globals=_MISSING, functions=_MISSING, path=_dflt_path, meta=_MISSING):
        self.version = version
        self.target = target
        self.address_size = address_size
        self.files = _make_files() if files is _MISSING else files
        self.globals = _make_globals() if globals is _MISSING else globals
        self.functions = _make_functions() if functions is _MISSING else functions
        self.path = path
        self.meta = _make_meta() if meta is _MISSING else meta
    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.version,self.target,self.address_size,self.files,self.globals,self.functions,self.path,self.meta,) == (other.version,other.target,other.address_size,other.files,other.globals,other.functions,other.path,other.meta,)
        return NotImplemented


def _m80():  # <record Move>
    global __eq__, __init__
    def __init__(self, kind, dst, src, cls, vid=_dflt_vid, imm=_dflt_imm):
        self.kind = kind
        self.dst = dst
        self.src = src
        self.cls = cls
        self.vid = vid
        self.imm = imm
    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.kind,self.dst,self.src,self.cls,self.vid,self.imm,) == (other.kind,other.dst,other.src,other.cls,other.vid,other.imm,)
        return NotImplemented


def _m81():  # <record Name>
    global __init__
    def __init__(self, span, ident):
        self.span = span
        self.ident = ident


def _m82():  # <record NamedType>
    global __init__
    def __init__(self, span, name):
        self.span = span
        self.name = name


def _m83():  # <record Need>
    global __eq__, __hash__, __init__
    def __init__(self, version=_dflt_version, family=_dflt_family, removed=_dflt_removed):
        _set(self, 'version', version)
        _set(self, 'family', family)
        _set(self, 'removed', removed)
    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.version,self.family,self.removed,) == (other.version,other.family,other.removed,)
        return NotImplemented
    def __hash__(self):
        return hash((self.version,self.family,self.removed,))


def _m84():  # <record Neg>
    global __eq__, __hash__, __init__
    def __init__(self, inner):
        _set(self, 'inner', inner)
    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.inner,) == (other.inner,)
        return NotImplemented
    def __hash__(self):
        return hash((self.inner,))


def _m85():  # <record Node>
    global __init__
    def __init__(self, span):
        self.span = span


def _m86():  # <record OpDef>
    global __eq__, __hash__, __init__
    def __init__(self, name, operands, results, traits=_dflt_traits, effect=_dflt_effect, attrs=_dflt_attrs, gate=_dflt_gate, ptx=_dflt_ptx, doc=_dflt_doc, opt_attrs=_dflt_opt_attrs, imm=_dflt_imm, mask=_dflt_mask, uniformity=_dflt_uniformity, shared_write=_dflt_shared_write, sem=_dflt_sem, ranges=_dflt_ranges):
        _set(self, 'name', name)
        _set(self, 'operands', operands)
        _set(self, 'results', results)
        _set(self, 'traits', traits)
        _set(self, 'effect', effect)
        _set(self, 'attrs', attrs)
        _set(self, 'gate', gate)
        _set(self, 'ptx', ptx)
        _set(self, 'doc', doc)
        _set(self, 'opt_attrs', opt_attrs)
        _set(self, 'imm', imm)
        _set(self, 'mask', mask)
        _set(self, 'uniformity', uniformity)
        _set(self, 'shared_write', shared_write)
        _set(self, 'sem', sem)
        _set(self, 'ranges', ranges)
    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.name,self.operands,self.results,self.traits,self.effect,self.attrs,self.gate,self.ptx,self.doc,self.opt_attrs,self.imm,self.mask,self.uniformity,self.shared_write,self.sem,self.ranges,) == (other.name,other.operands,other.results,other.traits,other.effect,other.attrs,other.gate,other.ptx,other.doc,other.opt_attrs,other.imm,other.mask,other.uniformity,other.shared_write,other.sem,other.ranges,)
        return NotImplemented
    def __hash__(self):
        return hash((self.name,self.operands,self.results,self.traits,self.effect,self.attrs,self.gate,self.ptx,self.doc,self.opt_attrs,self.imm,self.mask,self.uniformity,self.shared_write,self.sem,self.ranges,))


def _m87():  # <record OpSpec>
    global __eq__, __hash__, __init__
    def __init__(self, kind, type, optional, pair=_dflt_pair, iff=_dflt_iff):
        _set(self, 'kind', kind)
        _set(self, 'type', type)
        _set(self, 'optional', optional)
        _set(self, 'pair', pair)
        _set(self, 'iff', iff)
    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.kind,self.type,self.optional,self.pair,self.iff,) == (other.kind,other.type,other.optional,other.pair,other.iff,)
        return NotImplemented
    def __hash__(self):
        return hash((self.kind,self.type,self.optional,self.pair,self.iff,))


def _m88():  # <record Operand>
    global __eq__, __hash__, __init__
    def __init__(self, kind, index=_dflt_index, end=_dflt_end, name=_dflt_name, items=_dflt_items):
        _set(self, 'kind', kind)
        _set(self, 'index', index)
        _set(self, 'end', end)
        _set(self, 'name', name)
        _set(self, 'items', items)
    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.kind,self.index,self.end,self.name,self.items,) == (other.kind,other.index,other.end,other.name,other.items,)
        return NotImplemented
    def __hash__(self):
        return hash((self.kind,self.index,self.end,self.name,self.items,))


def _m89():  # <record OperandRange>
    global __eq__, __hash__, __init__
    def __init__(self, where, lo, hi, multiple=_dflt_multiple, what=_dflt_what, ptx=_dflt_ptx, pow2=_dflt_pow2):
        _set(self, 'where', where)
        _set(self, 'lo', lo)
        _set(self, 'hi', hi)
        _set(self, 'multiple', multiple)
        _set(self, 'what', what)
        _set(self, 'ptx', ptx)
        _set(self, 'pow2', pow2)
    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.where,self.lo,self.hi,self.multiple,self.what,self.ptx,self.pow2,) == (other.where,other.lo,other.hi,other.multiple,other.what,other.ptx,other.pow2,)
        return NotImplemented
    def __hash__(self):
        return hash((self.where,self.lo,self.hi,self.multiple,self.what,self.ptx,self.pow2,))


def _m90():  # <record Outcome>
    global __eq__, __init__
    def __init__(self, status, model=_dflt_model, reason=_dflt_reason):
        self.status = status
        self.model = model
        self.reason = reason
    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.status,self.model,self.reason,) == (other.status,other.model,other.reason,)
        return NotImplemented


def _m91():  # <record Pair>
    global __eq__, __hash__, __init__
    def __init__(self, first, second):
        _set(self, 'first', first)
        _set(self, 'second', second)
    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.first,self.second,) == (other.first,other.second,)
        return NotImplemented
    def __hash__(self):
        return hash((self.first,self.second,))


def _m92():  # <record Param>
    global __eq__, __init__
    def __init__(self, name, type, align=_dflt_align, dims=_MISSING, ptr_space=_dflt_ptr_space, ptr_align=_dflt_ptr_align, line=_dflt_line):
        self.name = name
        self.type = type
        self.align = align
        self.dims = _make_dims() if dims is _MISSING else dims
        self.ptr_space = ptr_space
        self.ptr_align = ptr_align
        self.line = line
    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.name,self.type,self.align,self.dims,self.ptr_space,self.ptr_align,self.line,) == (other.name,other.type,other.align,other.dims,other.ptr_space,other.ptr_align,other.line,)
        return NotImplemented


def _m93():  # <record Param>
    global __init__
    def __init__(self, span, name, type):
        self.span = span
        self.name = name
        self.type = type


def _m94():  # <record ParamSpec>
    global __eq__, __hash__, __init__
    def __init__(self, name, type, kind, bits=_dflt_bits, signed=_dflt_signed, either_sign=_dflt_either_sign, dtype=_dflt_dtype, box=_dflt_box):
        _set(self, 'name', name)
        _set(self, 'type', type)
        _set(self, 'kind', kind)
        _set(self, 'bits', bits)
        _set(self, 'signed', signed)
        _set(self, 'either_sign', either_sign)
        _set(self, 'dtype', dtype)
        _set(self, 'box', box)
    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.name,self.type,self.kind,self.bits,self.signed,self.either_sign,self.dtype,self.box,) == (other.name,other.type,other.kind,other.bits,other.signed,other.either_sign,other.dtype,other.box,)
        return NotImplemented
    def __hash__(self):
        return hash((self.name,self.type,self.kind,self.bits,self.signed,self.either_sign,self.dtype,self.box,))


def _m95():  # <record Parsed>
    global __eq__, __hash__, __init__
    def __init__(self, opcode, operands):
        _set(self, 'opcode', opcode)
        _set(self, 'operands', operands)
    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.opcode,self.operands,) == (other.opcode,other.operands,)
        return NotImplemented
    def __hash__(self):
        return hash((self.opcode,self.operands,))


def _m96():  # <record PassContext>
    global __eq__, __init__
    def __init__(self, arch=_dflt_arch, diagnostics=_MISSING, options=_MISSING, facts=_MISSING):
        self.arch = arch
        self.diagnostics = _make_diagnostics() if diagnostics is _MISSING else diagnostics
        self.options = _make_options() if options is _MISSING else options
        self.facts = _make_facts() if facts is _MISSING else facts
    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.arch,self.diagnostics,self.options,self.facts,) == (other.arch,other.diagnostics,other.options,other.facts,)
        return NotImplemented


def _m97():  # <record Pending>
    global __init__
    def __init__(self, copy, counts, status, passed, skipped):
        self.copy = copy
        self.counts = counts
        self.status = status
        self.passed = passed
        self.skipped = skipped


def _m98():  # <record Pending>
    global __eq__, __init__
    def __init__(self, pid, kind, ins, ids, actions=_MISSING, smem=_dflt_smem, grp=_dflt_grp, deps=_MISSING, ctas=_dflt_ctas, rsmem=_dflt_rsmem):
        self.pid = pid
        self.kind = kind
        self.ins = ins
        self.ids = ids
        self.actions = _make_actions() if actions is _MISSING else actions
        self.smem = smem
        self.grp = grp
        self.deps = _make_deps() if deps is _MISSING else deps
        self.ctas = ctas
        self.rsmem = rsmem
    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.pid,self.kind,self.ins,self.ids,self.actions,self.smem,self.grp,self.deps,self.ctas,self.rsmem,) == (other.pid,other.kind,other.ins,other.ids,other.actions,other.smem,other.grp,other.deps,other.ctas,other.rsmem,)
        return NotImplemented


def _m99():  # <record PointerOrigin>
    global __eq__, __hash__, __init__
    def __init__(self, decl, offset, off_div):
        _set(self, 'decl', decl)
        _set(self, 'offset', offset)
        _set(self, 'off_div', off_div)
    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.decl,self.offset,self.off_div,) == (other.decl,other.offset,other.off_div,)
        return NotImplemented
    def __hash__(self):
        return hash((self.decl,self.offset,self.off_div,))


def _m100():  # <record Program>
    global __init__
    def __init__(self, span, path, items, allow_comments=_MISSING, asserts=_MISSING):
        self.span = span
        self.path = path
        self.items = items
        self.allow_comments = _make_allow_comments() if allow_comments is _MISSING else allow_comments
        self.asserts = _make_asserts() if asserts is _MISSING else asserts


def _m101():  # <record Protocol>
    global __eq__, __init__
    def __init__(self, objects, opaque, untraced, carried=_dflt_carried):
        self.objects = objects
        self.opaque = opaque
        self.untraced = untraced
        self.carried = carried
    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.objects,self.opaque,self.untraced,self.carried,) == (other.objects,other.opaque,other.untraced,other.carried,)
        return NotImplemented


def _m102():  # <record Ptr>
    global __eq__, __hash__, __init__
    def __init__(self, space, elem, readonly=_dflt_readonly):
        _set(self, 'space', space)
        _set(self, 'elem', elem)
        _set(self, 'readonly', readonly)
    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.space,self.elem,self.readonly,) == (other.space,other.elem,other.readonly,)
        return NotImplemented
    def __hash__(self):
        return hash((self.space,self.elem,self.readonly,))


def _m103():  # <record PtrType>
    global __eq__, __hash__, __init__
    def __init__(self, space, elem):
        _set(self, 'space', space)
        _set(self, 'elem', elem)
    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.space,self.elem,) == (other.space,other.elem,)
        return NotImplemented
    def __hash__(self):
        return hash((self.space,self.elem,))


def _m104():  # <record PtrType>
    global __init__
    def __init__(self, span, space, elem, readonly=_dflt_readonly):
        self.span = span
        self.space = space
        self.elem = elem
        self.readonly = readonly


def _m105():  # <record PtxKernel>
    global __eq__, __init__
    def __init__(self, name, module, params):
        self.name = name
        self.module = module
        self.params = params
    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.name,self.module,self.params,) == (other.name,other.module,other.params,)
        return NotImplemented


def _m106():  # <record PtxResult>
    global __eq__, __init__
    def __init__(self, arch, ptx, ptx_path, diagnostics=_MISSING, cached=_dflt_cached):
        self.arch = arch
        self.ptx = ptx
        self.ptx_path = ptx_path
        self.diagnostics = _make_diagnostics() if diagnostics is _MISSING else diagnostics
        self.cached = cached
    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.arch,self.ptx,self.ptx_path,self.diagnostics,self.cached,) == (other.arch,other.ptx,other.ptx_path,other.diagnostics,other.cached,)
        return NotImplemented


def _m107():  # <record PtxTarget>
    global __eq__, __hash__, __init__
    def __init__(self, name, number, suffix, min_version):
        _set(self, 'name', name)
        _set(self, 'number', number)
        _set(self, 'suffix', suffix)
        _set(self, 'min_version', min_version)
    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.name,self.number,self.suffix,self.min_version,) == (other.name,other.number,other.suffix,other.min_version,)
        return NotImplemented
    def __hash__(self):
        return hash((self.name,self.number,self.suffix,self.min_version,))


def _m108():  # <record PtxasMessage>
    global __eq__, __hash__, __init__
    def __init__(self, line, message, severity=_dflt_severity):
        _set(self, 'line', line)
        _set(self, 'message', message)
        _set(self, 'severity', severity)
    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.line,self.message,self.severity,) == (other.line,other.message,other.severity,)
        return NotImplemented
    def __hash__(self):
        return hash((self.line,self.message,self.severity,))


def _m109():  # <record PtxasResult>
    global __eq__, __init__
    def __init__(self, ok, errors, stderr, info=_MISSING, warnings=_MISSING, stdout=_dflt_stdout, returncode=_dflt_returncode, gmem_bytes=_dflt_gmem_bytes):
        self.ok = ok
        self.errors = errors
        self.stderr = stderr
        self.info = _make_info() if info is _MISSING else info
        self.warnings = _make_warnings() if warnings is _MISSING else warnings
        self.stdout = stdout
        self.returncode = returncode
        self.gmem_bytes = gmem_bytes
    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.ok,self.errors,self.stderr,self.info,self.warnings,self.stdout,self.returncode,self.gmem_bytes,) == (other.ok,other.errors,other.stderr,other.info,other.warnings,other.stdout,other.returncode,other.gmem_bytes,)
        return NotImplemented


def _m110():  # <record RaceAccess>
    global __eq__, __init__
    def __init__(self, op, thread, block, instr, line, source, space, address, buffer, offset):
        self.op = op
        self.thread = thread
        self.block = block
        self.instr = instr
        self.line = line
        self.source = source
        self.space = space
        self.address = address
        self.buffer = buffer
        self.offset = offset
    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.op,self.thread,self.block,self.instr,self.line,self.source,self.space,self.address,self.buffer,self.offset,) == (other.op,other.thread,other.block,other.instr,other.line,other.source,other.space,other.address,other.buffer,other.offset,)
        return NotImplemented


def _m111():  # <record Reason>
    global __eq__, __hash__, __init__
    def __init__(self, kind, text=_dflt_text, value=_dflt_value, block=_dflt_block):
        _set(self, 'kind', kind)
        _set(self, 'text', text)
        _set(self, 'value', value)
        _set(self, 'block', block)
    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.kind,self.text,self.value,self.block,) == (other.kind,other.text,other.value,other.block,)
        return NotImplemented
    def __hash__(self):
        return hash((self.kind,self.text,self.value,self.block,))


def _m112():  # <record Record>
    global __init__
    def __init__(self, ):
        pass


def _m113():  # <record Reg>
    global __eq__, __hash__, __init__
    def __init__(self, name):
        _set(self, 'name', name)
    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.name,) == (other.name,)
        return NotImplemented
    def __hash__(self):
        return hash((self.name,))


def _m114():  # <record RegArray>
    global __eq__, __hash__, __init__
    def __init__(self, elem, n, cols=_dflt_cols):
        _set(self, 'elem', elem)
        _set(self, 'n', n)
        _set(self, 'cols', cols)
    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.elem,self.n,self.cols,) == (other.elem,other.n,other.cols,)
        return NotImplemented
    def __hash__(self):
        return hash((self.elem,self.n,self.cols,))


def _m115():  # <record RegDecl>
    global __eq__, __init__
    def __init__(self, type, prefix=_dflt_prefix, count=_dflt_count, names=_MISSING, line=_dflt_line):
        self.type = type
        self.prefix = prefix
        self.count = count
        self.names = _make_names() if names is _MISSING else names
        self.line = line
    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.type,self.prefix,self.count,self.names,self.line,) == (other.type,other.prefix,other.count,other.names,other.line,)
        return NotImplemented


def _m116():  # <record Ret>
    global __eq__, __hash__, __init__
    def __init__(self, kind=_dflt_kind, name=_dflt_name, length=_dflt_length):
        _set(self, 'kind', kind)
        _set(self, 'name', name)
        _set(self, 'length', length)
    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.kind,self.name,self.length,) == (other.kind,other.name,other.length,)
        return NotImplemented
    def __hash__(self):
        return hash((self.kind,self.name,self.length,))


def _m117():  # <record ReturnStmt>
    global __init__
    def __init__(self, span, value):
        self.span = span
        self.value = value


def _m118():  # <record Rule>
    global __eq__, __init__
    def __init__(self, kernels, contract):
        self.kernels = kernels
        self.contract = contract
    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.kernels,self.contract,) == (other.kernels,other.contract,)
        return NotImplemented


def _m119():  # <record SAddr>
    global __eq__, __hash__, __init__
    def __init__(self, sym, off):
        _set(self, 'sym', sym)
        _set(self, 'off', off)
    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.sym,self.off,) == (other.sym,other.off,)
        return NotImplemented
    def __hash__(self):
        return hash((self.sym,self.off,))


def _m120():  # <record Scalar>
    global __eq__, __hash__, __init__
    def __init__(self, name):
        _set(self, 'name', name)
    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.name,) == (other.name,)
        return NotImplemented
    def __hash__(self):
        return hash((self.name,))


def _m121():  # <record ScalarType>
    global __eq__, __hash__, __init__
    def __init__(self, name):
        _set(self, 'name', name)
    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.name,) == (other.name,)
        return NotImplemented
    def __hash__(self):
        return hash((self.name,))


def _m122():  # <record Scope>
    global __eq__, __init__
    def __init__(self, body=_MISSING, line=_dflt_line):
        self.body = _make_body() if body is _MISSING else body
        self.line = line
    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.body,self.line,) == (other.body,other.line,)
        return NotImplemented


def _m123():  # <record Sem>
    global __eq__, __hash__, __init__
    def __init__(self, fn, kinds=_dflt_kinds, attrs=_MISSING):
        _set(self, 'fn', fn)
        _set(self, 'kinds', kinds)
        _set(self, 'attrs', _make_attrs() if attrs is _MISSING else attrs)
    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.fn,self.kinds,self.attrs,) == (other.fn,other.kinds,other.attrs,)
        return NotImplemented
    def __hash__(self):
        return hash((self.fn,self.kinds,self.attrs,))


def _m124():  # <record SharedArray>
    global __eq__, __hash__, __init__
    def __init__(self, elem, shape, align=_dflt_align, dynamic=_dflt_dynamic):
        _set(self, 'elem', elem)
        _set(self, 'shape', shape)
        _set(self, 'align', align)
        _set(self, 'dynamic', dynamic)
    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.elem,self.shape,self.align,self.dynamic,) == (other.elem,other.shape,other.align,other.dynamic,)
        return NotImplemented
    def __hash__(self):
        return hash((self.elem,self.shape,self.align,self.dynamic,))


def _m125():  # <record SharedLayout>
    global __eq__, __init__
    def __init__(self, offsets=_MISSING, sizes=_MISSING, aligns=_MISSING, total=_dflt_total, dynamic=_dflt_dynamic, externs=_MISSING, dyn_array_offset=_dflt_dyn_array_offset):
        self.offsets = _make_offsets() if offsets is _MISSING else offsets
        self.sizes = _make_sizes() if sizes is _MISSING else sizes
        self.aligns = _make_aligns() if aligns is _MISSING else aligns
        self.total = total
        self.dynamic = dynamic
        self.externs = _make_externs() if externs is _MISSING else externs
        self.dyn_array_offset = dyn_array_offset
    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.offsets,self.sizes,self.aligns,self.total,self.dynamic,self.externs,self.dyn_array_offset,) == (other.offsets,other.sizes,other.aligns,other.total,other.dynamic,other.externs,other.dyn_array_offset,)
        return NotImplemented


def _m126():  # <record SharedStmt>
    global __init__
    def __init__(self, span, name, name_span, type, align, dynamic=_dflt_dynamic):
        self.span = span
        self.name = name
        self.name_span = name_span
        self.type = type
        self.align = align
        self.dynamic = dynamic


def _m127():  # <record Side>
    global __eq__, __init__
    def __init__(self, access, thread, iters=_MISSING):
        self.access = access
        self.thread = thread
        self.iters = _make_iters() if iters is _MISSING else iters
    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.access,self.thread,self.iters,) == (other.access,other.thread,other.iters,)
        return NotImplemented


def _m128():  # <record Sink>
    global __eq__, __hash__, __init__
    def __init__(self, ):
        pass
    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return () == ()
        return NotImplemented
    def __hash__(self):
        return hash(())


def _m129():  # <record Span>
    global __eq__, __hash__, __init__
    def __init__(self, file, line, col, end_line, end_col):
        _set(self, 'file', file)
        _set(self, 'line', line)
        _set(self, 'col', col)
        _set(self, 'end_line', end_line)
        _set(self, 'end_col', end_col)
    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.file,self.line,self.col,self.end_line,self.end_col,) == (other.file,other.line,other.col,other.end_line,other.end_col,)
        return NotImplemented
    def __hash__(self):
        return hash((self.file,self.line,self.col,self.end_line,self.end_col,))


def _m130():  # <record SpecialReg>
    global __eq__, __hash__, __init__
    def __init__(self, name, type, fields, need):
        _set(self, 'name', name)
        _set(self, 'type', type)
        _set(self, 'fields', fields)
        _set(self, 'need', need)
    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.name,self.type,self.fields,self.need,) == (other.name,other.type,other.fields,other.need,)
        return NotImplemented
    def __hash__(self):
        return hash((self.name,self.type,self.fields,self.need,))


def _m131():  # <record StaticAssert>
    global __init__
    def __init__(self, span, cond, message):
        self.span = span
        self.cond = cond
        self.message = message


def _m132():  # <record Step>
    global __init__
    def __init__(self, v, d, xs, others, ops, pairs, verdict=_dflt_verdict):
        self.v = v
        self.d = d
        self.xs = xs
        self.others = others
        self.ops = ops
        self.pairs = pairs
        self.verdict = verdict


def _m133():  # <record Stmt>
    global __init__
    def __init__(self, span):
        self.span = span


def _m134():  # <record Summary>
    global __eq__, __hash__, __init__
    def __init__(self, barrier=_dflt_barrier, collective=_dflt_collective, unknown=_dflt_unknown, unknown_collective_only=_dflt_unknown_collective_only):
        _set(self, 'barrier', barrier)
        _set(self, 'collective', collective)
        _set(self, 'unknown', unknown)
        _set(self, 'unknown_collective_only', unknown_collective_only)
    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.barrier,self.collective,self.unknown,self.unknown_collective_only,) == (other.barrier,other.collective,other.unknown,other.unknown_collective_only,)
        return NotImplemented
    def __hash__(self):
        return hash((self.barrier,self.collective,self.unknown,self.unknown_collective_only,))


def _m135():  # <record Suppressions>
    global __eq__, __init__
    def __init__(self, by_line=_MISSING, malformed=_MISSING):
        self.by_line = _make_by_line() if by_line is _MISSING else by_line
        self.malformed = _make_malformed() if malformed is _MISSING else malformed
    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.by_line,self.malformed,) == (other.by_line,other.malformed,)
        return NotImplemented


def _m136():  # <record Sym>
    global __eq__, __hash__, __init__
    def __init__(self, name):
        _set(self, 'name', name)
    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.name,) == (other.name,)
        return NotImplemented
    def __hash__(self):
        return hash((self.name,))


def _m137():  # <record Symbol>
    global __init__
    def __init__(self, name, kind, type, span, value=_dflt_value, values=_dflt_values, decl=_dflt_decl):
        self.name = name
        self.kind = kind
        self.type = type
        self.span = span
        self.value = value
        self.values = values
        self.decl = decl


def _m138():  # <record TensorMap>
    global __eq__, __init__
    def __init__(self, array, box, swizzle=_dflt_swizzle, oob_fill=_dflt_oob_fill):
        self.array = array
        self.box = box
        self.swizzle = swizzle
        self.oob_fill = oob_fill
        self.__post_init__()
    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.array,self.box,self.swizzle,self.oob_fill,) == (other.array,other.box,other.swizzle,other.oob_fill,)
        return NotImplemented


def _m139():  # <record TensorMap>
    global __eq__, __hash__, __init__
    def __init__(self, elem, box):
        _set(self, 'elem', elem)
        _set(self, 'box', box)
    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.elem,self.box,) == (other.elem,other.box,)
        return NotImplemented
    def __hash__(self):
        return hash((self.elem,self.box,))


def _m140():  # <record TensorMap>
    global __eq__, __init__
    def __init__(self, elem_size, address, rank, oob_nan, dims, strides, box, kind=_dflt_kind):
        self.elem_size = elem_size
        self.address = address
        self.rank = rank
        self.oob_nan = oob_nan
        self.dims = dims
        self.strides = strides
        self.box = box
        self.kind = kind
    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.elem_size,self.address,self.rank,self.oob_nan,self.dims,self.strides,self.box,self.kind,) == (other.elem_size,other.address,other.rank,other.oob_nan,other.dims,other.strides,other.box,other.kind,)
        return NotImplemented


def _m141():  # <record TensorMapType>
    global __eq__, __hash__, __init__
    def __init__(self, elem, box):
        _set(self, 'elem', elem)
        _set(self, 'box', box)
    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.elem,self.box,) == (other.elem,other.box,)
        return NotImplemented
    def __hash__(self):
        return hash((self.elem,self.box,))


def _m142():  # <record TensorMapType>
    global __init__
    def __init__(self, span, elem, box):
        self.span = span
        self.elem = elem
        self.box = box


def _m143():  # <record Ternary>
    global __init__
    def __init__(self, span, cond, then, else_):
        self.span = span
        self.cond = cond
        self.then = then
        self.else_ = else_


def _m144():  # <record Threads>
    global __eq__, __init__
    def __init__(self, lo, hi, why=_dflt_why, tids=_dflt_tids):
        self.lo = lo
        self.hi = hi
        self.why = why
        self.tids = tids
    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.lo,self.hi,self.why,self.tids,) == (other.lo,other.hi,other.why,other.tids,)
        return NotImplemented


def _m145():  # <record TypeExpr>
    global __init__
    def __init__(self, span):
        self.span = span


def _m146():  # <record TypedProgram>
    global __eq__, __init__
    def __init__(self, program, arch, types, values, per_copy_const, refs, builtins, decls, calls, const_index_checks, consts, kernels, fns, warnings=_MISSING):
        self.program = program
        self.arch = arch
        self.types = types
        self.values = values
        self.per_copy_const = per_copy_const
        self.refs = refs
        self.builtins = builtins
        self.decls = decls
        self.calls = calls
        self.const_index_checks = const_index_checks
        self.consts = consts
        self.kernels = kernels
        self.fns = fns
        self.warnings = _make_warnings() if warnings is _MISSING else warnings
    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.program,self.arch,self.types,self.values,self.per_copy_const,self.refs,self.builtins,self.decls,self.calls,self.const_index_checks,self.consts,self.kernels,self.fns,self.warnings,) == (other.program,other.arch,other.types,other.values,other.per_copy_const,other.refs,other.builtins,other.decls,other.calls,other.const_index_checks,other.consts,other.kernels,other.fns,other.warnings,)
        return NotImplemented


def _m147():  # <record Unary>
    global __init__
    def __init__(self, span, op, operand):
        self.span = span
        self.op = op
        self.operand = operand


def _m148():  # <record UnsizedType>
    global __init__
    def __init__(self, span, elem):
        self.span = span
        self.elem = elem


def _m149():  # <record UntypedFloat>
    global __eq__, __hash__, __init__
    def __init__(self, ):
        pass
    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return () == ()
        return NotImplemented
    def __hash__(self):
        return hash(())


def _m150():  # <record UntypedInt>
    global __eq__, __hash__, __init__
    def __init__(self, ):
        pass
    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return () == ()
        return NotImplemented
    def __hash__(self):
        return hash(())


def _m151():  # <record VarDecl>
    global __eq__, __init__
    def __init__(self, space, type, name, align=_dflt_align, dims=_MISSING, init=_dflt_init, extern=_dflt_extern, visible=_dflt_visible, line=_dflt_line):
        self.space = space
        self.type = type
        self.name = name
        self.align = align
        self.dims = _make_dims() if dims is _MISSING else dims
        self.init = init
        self.extern = extern
        self.visible = visible
        self.line = line
    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.space,self.type,self.name,self.align,self.dims,self.init,self.extern,self.visible,self.line,) == (other.space,other.type,other.name,other.align,other.dims,other.init,other.extern,other.visible,other.line,)
        return NotImplemented


def _m152():  # <record Variant>
    global __eq__, __hash__, __init__
    def __init__(self, op, fixed, types, captures, attrs, kinds):
        _set(self, 'op', op)
        _set(self, 'fixed', fixed)
        _set(self, 'types', types)
        _set(self, 'captures', captures)
        _set(self, 'attrs', attrs)
        _set(self, 'kinds', kinds)
    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.op,self.fixed,self.types,self.captures,self.attrs,self.kinds,) == (other.op,other.fixed,other.types,other.captures,other.attrs,other.kinds,)
        return NotImplemented
    def __hash__(self):
        return hash((self.op,self.fixed,self.types,self.captures,self.attrs,self.kinds,))


def _m153():  # <record Vec>
    global __eq__, __hash__, __init__
    def __init__(self, items):
        _set(self, 'items', items)
    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.items,) == (other.items,)
        return NotImplemented
    def __hash__(self):
        return hash((self.items,))


def _m154():  # <record Void>
    global __eq__, __hash__, __init__
    def __init__(self, ):
        pass
    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return () == ()
        return NotImplemented
    def __hash__(self):
        return hash(())


def _m155():  # <record WhileStmt>
    global __init__
    def __init__(self, span, cond, body):
        self.span = span
        self.cond = cond
        self.body = body


def _m156():  # <record WhyStep>
    global __eq__, __hash__, __init__
    def __init__(self, value, op, level, text):
        _set(self, 'value', value)
        _set(self, 'op', op)
        _set(self, 'level', level)
        _set(self, 'text', text)
    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.value,self.op,self.level,self.text,) == (other.value,other.op,other.level,other.text,)
        return NotImplemented
    def __hash__(self):
        return hash((self.value,self.op,self.level,self.text,))


def _m157():  # <record Witness>
    global __eq__, __init__
    def __init__(self, a, b, byte, same_warp, start):
        self.a = a
        self.b = b
        self.byte = byte
        self.same_warp = same_warp
        self.start = start
    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.a,self.b,self.byte,self.same_warp,self.start,) == (other.a,other.b,other.byte,other.same_warp,other.start,)
        return NotImplemented


def _m158():  # <record Witness>
    global __eq__, __init__
    def __init__(self, block_dim, grid_dim, block, threads, params=_MISSING, param_index=_MISSING, iterations=_MISSING, groups=_MISSING, story=_dflt_story, contract=_dflt_contract, confirmed=_dflt_confirmed, refs=_MISSING):
        self.block_dim = block_dim
        self.grid_dim = grid_dim
        self.block = block
        self.threads = threads
        self.params = _make_params() if params is _MISSING else params
        self.param_index = _make_param_index() if param_index is _MISSING else param_index
        self.iterations = _make_iterations() if iterations is _MISSING else iterations
        self.groups = _make_groups() if groups is _MISSING else groups
        self.story = story
        self.contract = contract
        self.confirmed = confirmed
        self.refs = _make_refs() if refs is _MISSING else refs
    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.block_dim,self.grid_dim,self.block,self.threads,self.params,self.param_index,self.iterations,self.groups,self.story,self.contract,self.confirmed,self.refs,) == (other.block_dim,other.grid_dim,other.block,other.threads,other.params,other.param_index,other.iterations,other.groups,other.story,other.contract,other.confirmed,other.refs,)
        return NotImplemented


def _m159():  # <record _Ann>
    global __eq__, __init__
    def __init__(self, line, start, end, primary, message):
        self.line = line
        self.start = start
        self.end = end
        self.primary = primary
        self.message = message
    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.line,self.start,self.end,self.primary,self.message,) == (other.line,other.start,other.end,other.primary,other.message,)
        return NotImplemented


def _m160():  # <record _Inline>
    global __eq__, __init__
    def __init__(self, join, n_results, saved_loops=_MISSING):
        self.join = join
        self.n_results = n_results
        self.saved_loops = _make_saved_loops() if saved_loops is _MISSING else saved_loops
    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.join,self.n_results,self.saved_loops,) == (other.join,other.n_results,other.saved_loops,)
        return NotImplemented


def _m161():  # <record _Loop>
    global __eq__, __init__
    def __init__(self, break_block=_dflt_break_block, cont_block=_dflt_cont_block):
        self.break_block = break_block
        self.cont_block = cont_block
    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.break_block,self.cont_block,) == (other.break_block,other.cont_block,)
        return NotImplemented


CODES = {
    '<record Access>\x00def __init__(self, op, block, index, write, atomic, ptr, offset, size, wmma=_dflt_wmma):\n    self.op = op\n    self.block = block\n    self.index = index\n    self.write = write\n    self.atomic = atomic\n    self.ptr = ptr\n    self.offset = offset\n    self.size = size\n    self.wmma = wmma\n': _m0,
    "<record Addr>\x00def __init__(self, base, offset=_dflt_offset, index=_dflt_index):\n    _set(self, 'base', base)\n    _set(self, 'offset', offset)\n    _set(self, 'index', index)\ndef __eq__(self, other):\n    if other.__class__ is self.__class__:\n        return (self.base,self.offset,self.index,) == (other.base,other.offset,other.index,)\n    return NotImplemented\ndef __hash__(self):\n    return hash((self.base,self.offset,self.index,))\n": _m1,
    '<record AddrOf>\x00def __init__(self, span, operand):\n    self.span = span\n    self.operand = operand\n': _m2,
    '<record Allocation>\x00def __init__(self, fn, liveness, colour=_MISSING, cls=_MISSING, max_live=_MISSING, dom_order=_MISSING):\n    self.fn = fn\n    self.liveness = liveness\n    self.colour = _make_colour() if colour is _MISSING else colour\n    self.cls = _make_cls() if cls is _MISSING else cls\n    self.max_live = _make_max_live() if max_live is _MISSING else max_live\n    self.dom_order = _make_dom_order() if dom_order is _MISSING else dom_order\ndef __eq__(self, other):\n    if other.__class__ is self.__class__:\n        return (self.fn,self.liveness,self.colour,self.cls,self.max_live,self.dom_order,) == (other.fn,other.liveness,other.colour,other.cls,other.max_live,other.dom_order,)\n    return NotImplemented\n': _m3,
    '<record AllowComment>\x00def __init__(self, line, checks, span):\n    self.line = line\n    self.checks = checks\n    self.span = span\n': _m4,
    "<record Arch>\x00def __init__(self, name, number, arch_specific, family):\n    _set(self, 'name', name)\n    _set(self, 'number', number)\n    _set(self, 'arch_specific', arch_specific)\n    _set(self, 'family', family)\ndef __eq__(self, other):\n    if other.__class__ is self.__class__:\n        return (self.name,self.number,self.arch_specific,self.family,) == (other.name,other.number,other.arch_specific,other.family,)\n    return NotImplemented\ndef __hash__(self):\n    return hash((self.name,self.number,self.arch_specific,self.family,))\n": _m5,
    "<record Arg>\x00def __init__(self, name, kind=_dflt_kind, allowed=_dflt_allowed, var=_dflt_var, spaces=_dflt_spaces, length=_dflt_length, lengths=_dflt_lengths, const=_dflt_const, values=_dflt_values, multiple_of=_dflt_multiple_of, binds=_dflt_binds, lane=_dflt_lane):\n    _set(self, 'name', name)\n    _set(self, 'kind', kind)\n    _set(self, 'allowed', allowed)\n    _set(self, 'var', var)\n    _set(self, 'spaces', spaces)\n    _set(self, 'length', length)\n    _set(self, 'lengths', lengths)\n    _set(self, 'const', const)\n    _set(self, 'values', values)\n    _set(self, 'multiple_of', multiple_of)\n    _set(self, 'binds', binds)\n    _set(self, 'lane', lane)\ndef __eq__(self, other):\n    if other.__class__ is self.__class__:\n        return (self.name,self.kind,self.allowed,self.var,self.spaces,self.length,self.lengths,self.const,self.values,self.multiple_of,self.binds,self.lane,) == (other.name,other.kind,other.allowed,other.var,other.spaces,other.length,other.lengths,other.const,other.values,other.multiple_of,other.binds,other.lane,)\n    return NotImplemented\ndef __hash__(self):\n    return hash((self.name,self.kind,self.allowed,self.var,self.spaces,self.length,self.lengths,self.const,self.values,self.multiple_of,self.binds,self.lane,))\n": _m6,
    '<record ArrayList>\x00def __init__(self, span, elems):\n    self.span = span\n    self.elems = elems\n': _m7,
    '<record ArrayRepeat>\x00def __init__(self, span, value, count):\n    self.span = span\n    self.value = value\n    self.count = count\n': _m8,
    "<record ArrayType>\x00def __init__(self, elem, dims):\n    _set(self, 'elem', elem)\n    _set(self, 'dims', dims)\ndef __eq__(self, other):\n    if other.__class__ is self.__class__:\n        return (self.elem,self.dims,) == (other.elem,other.dims,)\n    return NotImplemented\ndef __hash__(self):\n    return hash((self.elem,self.dims,))\n": _m9,
    '<record ArrayType>\x00def __init__(self, span, elem, dims):\n    self.span = span\n    self.elem = elem\n    self.dims = dims\n': _m10,
    '<record AssignStmt>\x00def __init__(self, span, target, op, value):\n    self.span = span\n    self.target = target\n    self.op = op\n    self.value = value\n': _m11,
    '<record Assume>\x00def __init__(self, text, where, tree=_dflt_tree):\n    self.text = text\n    self.where = where\n    self.tree = tree\ndef __eq__(self, other):\n    if other.__class__ is self.__class__:\n        return (self.text,self.where,self.tree,) == (other.text,other.where,other.tree,)\n    return NotImplemented\n': _m12,
    '<record AttrArg>\x00def __init__(self, span, key, value):\n    self.span = span\n    self.key = key\n    self.value = value\n': _m13,
    '<record Attribute>\x00def __init__(self, span, name, args):\n    self.span = span\n    self.name = name\n    self.args = args\n': _m14,
    "<record BarrierKey>\x00def __init__(self, sym, offset):\n    _set(self, 'sym', sym)\n    _set(self, 'offset', offset)\ndef __eq__(self, other):\n    if other.__class__ is self.__class__:\n        return (self.sym,self.offset,) == (other.sym,other.offset,)\n    return NotImplemented\ndef __hash__(self):\n    return hash((self.sym,self.offset,))\n": _m15,
    '<record BarrierObject>\x00def __init__(self, sym, inits=_MISSING, arrives=_MISSING, announces=_MISSING, copies=_MISSING, waits=_MISSING, others=_MISSING):\n    self.sym = sym\n    self.inits = _make_inits() if inits is _MISSING else inits\n    self.arrives = _make_arrives() if arrives is _MISSING else arrives\n    self.announces = _make_announces() if announces is _MISSING else announces\n    self.copies = _make_copies() if copies is _MISSING else copies\n    self.waits = _make_waits() if waits is _MISSING else waits\n    self.others = _make_others() if others is _MISSING else others\ndef __eq__(self, other):\n    if other.__class__ is self.__class__:\n        return (self.sym,self.inits,self.arrives,self.announces,self.copies,self.waits,self.others,) == (other.sym,other.inits,other.arrives,other.announces,other.copies,other.waits,other.others,)\n    return NotImplemented\n': _m16,
    '<record Binary>\x00def __init__(self, span, op, lhs, rhs, op_span):\n    self.span = span\n    self.op = op\n    self.lhs = lhs\n    self.rhs = rhs\n    self.op_span = op_span\n': _m17,
    '<record Block>\x00def __init__(self, label, instrs=_MISSING, succs=_MISSING, fallthrough=_dflt_fallthrough):\n    self.label = label\n    self.instrs = _make_instrs() if instrs is _MISSING else instrs\n    self.succs = _make_succs() if succs is _MISSING else succs\n    self.fallthrough = fallthrough\ndef __eq__(self, other):\n    if other.__class__ is self.__class__:\n        return (self.label,self.instrs,self.succs,self.fallthrough,) == (other.label,other.instrs,other.succs,other.fallthrough,)\n    return NotImplemented\n': _m18,
    '<record Block>\x00def __init__(self, span, stmts):\n    self.span = span\n    self.stmts = stmts\n': _m19,
    '<record BoolLit>\x00def __init__(self, span, value):\n    self.span = span\n    self.value = value\n': _m20,
    '<record BreakStmt>\x00def __init__(self, span):\n    self.span = span\n': _m21,
    '<record Call>\x00def __init__(self, span, callee, callee_span, args):\n    self.span = span\n    self.callee = callee\n    self.callee_span = callee_span\n    self.args = args\n': _m22,
    '<record Cast>\x00def __init__(self, span, operand, target, bits=_dflt_bits):\n    self.span = span\n    self.operand = operand\n    self.target = target\n    self.bits = bits\n': _m23,
    "<record CheckInfo>\x00def __init__(self, name, severity, summary, doc):\n    _set(self, 'name', name)\n    _set(self, 'severity', severity)\n    _set(self, 'summary', summary)\n    _set(self, 'doc', doc)\ndef __eq__(self, other):\n    if other.__class__ is self.__class__:\n        return (self.name,self.severity,self.summary,self.doc,) == (other.name,other.severity,other.summary,other.doc,)\n    return NotImplemented\ndef __hash__(self):\n    return hash((self.name,self.severity,self.summary,self.doc,))\n": _m24,
    '<record CompileOptions>\x00def __init__(self, arch=_dflt_arch, defines=_MISSING, optimize=_dflt_optimize, verify_each=_dflt_verify_each, dump_after=_dflt_dump_after, time_passes=_dflt_time_passes, check=_dflt_check, check_alloc=_dflt_check_alloc, contracts=_dflt_contracts):\n    self.arch = arch\n    self.defines = _make_defines() if defines is _MISSING else defines\n    self.optimize = optimize\n    self.verify_each = verify_each\n    self.dump_after = dump_after\n    self.time_passes = time_passes\n    self.check = check\n    self.check_alloc = check_alloc\n    self.contracts = contracts\ndef __eq__(self, other):\n    if other.__class__ is self.__class__:\n        return (self.arch,self.defines,self.optimize,self.verify_each,self.dump_after,self.time_passes,self.check,self.check_alloc,self.contracts,) == (other.arch,other.defines,other.optimize,other.verify_each,other.dump_after,other.time_passes,other.check,other.check_alloc,other.contracts,)\n    return NotImplemented\n': _m25,
    '<record CompileResult>\x00def __init__(self, module, ptx_text, ptx, stats, diagnostics, path=_dflt_path, arch=_dflt_arch):\n    self.module = module\n    self.ptx_text = ptx_text\n    self.ptx = ptx\n    self.stats = stats\n    self.diagnostics = diagnostics\n    self.path = path\n    self.arch = arch\ndef __eq__(self, other):\n    if other.__class__ is self.__class__:\n        return (self.module,self.ptx_text,self.ptx,self.stats,self.diagnostics,self.path,self.arch,) == (other.module,other.ptx_text,other.ptx,other.stats,other.diagnostics,other.path,other.arch,)\n    return NotImplemented\n': _m26,
    '<record Config>\x00def __init__(self, root, path=_dflt_path, include=_MISSING, exclude=_MISSING, arch=_dflt_arch, werror=_dflt_werror, enable=_dflt_enable, disable=_MISSING, baseline=_dflt_baseline, targets=_MISSING, severity=_MISSING, warn_unused_allow=_dflt_warn_unused_allow, docs_url=_dflt_docs_url, contracts=_dflt_contracts, nvcc=_dflt_nvcc, nvcc_flags=_MISSING, cuda_arch=_MISSING, compile_commands=_dflt_compile_commands):\n    self.root = root\n    self.path = path\n    self.include = _make_include() if include is _MISSING else include\n    self.exclude = _make_exclude() if exclude is _MISSING else exclude\n    self.arch = arch\n    self.werror = werror\n    self.enable = enable\n    self.disable = _make_disable() if disable is _MISSING else disable\n    self.baseline = baseline\n    self.targets = _make_targets() if targets is _MISSING else targets\n    self.severity = _make_severity() if severity is _MISSING else severity\n    self.warn_unused_allow = warn_unused_allow\n    self.docs_url = docs_url\n    self.contracts = contracts\n    self.nvcc = nvcc\n    self.nvcc_flags = _make_nvcc_flags() if nvcc_flags is _MISSING else nvcc_flags\n    self.cuda_arch = _make_cuda_arch() if cuda_arch is _MISSING else cuda_arch\n    self.compile_commands = compile_commands\ndef __eq__(self, other):\n    if other.__class__ is self.__class__:\n        return (self.root,self.path,self.include,self.exclude,self.arch,self.werror,self.enable,self.disable,self.baseline,self.targets,self.severity,self.warn_unused_allow,self.docs_url,self.contracts,self.nvcc,self.nvcc_flags,self.cuda_arch,self.compile_commands,) == (other.root,other.path,other.include,other.exclude,other.arch,other.werror,other.enable,other.disable,other.baseline,other.targets,other.severity,other.warn_unused_allow,other.docs_url,other.contracts,other.nvcc,other.nvcc_flags,other.cuda_arch,other.compile_commands,)\n    return NotImplemented\n': _m27,
    '<record ConstItem>\x00def __init__(self, span, name, name_span, type, init, spec):\n    self.span = span\n    self.name = name\n    self.name_span = name_span\n    self.type = type\n    self.init = init\n    self.spec = spec\n': _m28,
    '<record ContinueStmt>\x00def __init__(self, span):\n    self.span = span\n': _m29,
    '<record Contract>\x00def __init__(self, block=_dflt_block, grid=_dflt_grid, assumes=_MISSING, param_names=_dflt_param_names, origin=_dflt_origin):\n    self.block = block\n    self.grid = grid\n    self.assumes = _make_assumes() if assumes is _MISSING else assumes\n    self.param_names = param_names\n    self.origin = origin\ndef __eq__(self, other):\n    if other.__class__ is self.__class__:\n        return (self.block,self.grid,self.assumes,self.param_names,self.origin,) == (other.block,other.grid,other.assumes,other.param_names,other.origin,)\n    return NotImplemented\n': _m30,
    '<record Contracts>\x00def __init__(self, rules=_MISSING):\n    self.rules = _make_rules() if rules is _MISSING else rules\ndef __eq__(self, other):\n    if other.__class__ is self.__class__:\n        return (self.rules,) == (other.rules,)\n    return NotImplemented\n': _m31,
    '<record CudaOptions>\x00def __init__(self, nvcc, flags=_MISSING, archs=_MISSING, directory=_dflt_directory):\n    self.nvcc = nvcc\n    self.flags = _make_flags() if flags is _MISSING else flags\n    self.archs = _make_archs() if archs is _MISSING else archs\n    self.directory = directory\ndef __eq__(self, other):\n    if other.__class__ is self.__class__:\n        return (self.nvcc,self.flags,self.archs,self.directory,) == (other.nvcc,other.flags,other.archs,other.directory,)\n    return NotImplemented\n': _m32,
    '<record Diagnostic>\x00def __init__(self, check, severity, message, span, labels=_MISSING, help=_dflt_help, notes=_MISSING, kernel=_dflt_kernel, origin=_dflt_origin, witness=_dflt_witness):\n    self.check = check\n    self.severity = severity\n    self.message = message\n    self.span = span\n    self.labels = _make_labels() if labels is _MISSING else labels\n    self.help = help\n    self.notes = _make_notes() if notes is _MISSING else notes\n    self.kernel = kernel\n    self.origin = origin\n    self.witness = witness\ndef __eq__(self, other):\n    if other.__class__ is self.__class__:\n        return (self.check,self.severity,self.message,self.span,self.labels,self.help,self.notes,self.kernel,self.origin,self.witness,) == (other.check,other.severity,other.message,other.span,other.labels,other.help,other.notes,other.kernel,other.origin,other.witness,)\n    return NotImplemented\n': _m33,
    "<record Divisor>\x00def __init__(self, div, provable):\n    _set(self, 'div', div)\n    _set(self, 'provable', provable)\ndef __eq__(self, other):\n    if other.__class__ is self.__class__:\n        return (self.div,self.provable,) == (other.div,other.provable,)\n    return NotImplemented\ndef __hash__(self):\n    return hash((self.div,self.provable,))\n": _m34,
    '<record EdgeCopies>\x00def __init__(self, pred, succ_index, succ, moves=_MISSING, binds=_MISSING, split=_dflt_split):\n    self.pred = pred\n    self.succ_index = succ_index\n    self.succ = succ\n    self.moves = _make_moves() if moves is _MISSING else moves\n    self.binds = _make_binds() if binds is _MISSING else binds\n    self.split = split\ndef __eq__(self, other):\n    if other.__class__ is self.__class__:\n        return (self.pred,self.succ_index,self.succ,self.moves,self.binds,self.split,) == (other.pred,other.succ_index,other.succ,other.moves,other.binds,other.split,)\n    return NotImplemented\n': _m35,
    "<record Elem>\x00def __init__(self, name, values, optional, is_type, gates=_dflt_gates):\n    _set(self, 'name', name)\n    _set(self, 'values', values)\n    _set(self, 'optional', optional)\n    _set(self, 'is_type', is_type)\n    _set(self, 'gates', gates)\ndef __eq__(self, other):\n    if other.__class__ is self.__class__:\n        return (self.name,self.values,self.optional,self.is_type,self.gates,) == (other.name,other.values,other.optional,other.is_type,other.gates,)\n    return NotImplemented\ndef __hash__(self):\n    return hash((self.name,self.values,self.optional,self.is_type,self.gates,))\n": _m36,
    '<record EmitResult>\x00def __init__(self, ptx, text, stats=_MISSING):\n    self.ptx = ptx\n    self.text = text\n    self.stats = _make_stats() if stats is _MISSING else stats\ndef __eq__(self, other):\n    if other.__class__ is self.__class__:\n        return (self.ptx,self.text,self.stats,) == (other.ptx,other.text,other.stats,)\n    return NotImplemented\n': _m37,
    "<record EmittedForm>\x00def __init__(self, name, opcode, gate, sample):\n    _set(self, 'name', name)\n    _set(self, 'opcode', opcode)\n    _set(self, 'gate', gate)\n    _set(self, 'sample', sample)\ndef __eq__(self, other):\n    if other.__class__ is self.__class__:\n        return (self.name,self.opcode,self.gate,self.sample,) == (other.name,other.opcode,other.gate,other.sample,)\n    return NotImplemented\ndef __hash__(self):\n    return hash((self.name,self.opcode,self.gate,self.sample,))\n": _m38,
    '<record EmuStats>\x00def __init__(self, thread_instructions=_dflt_thread_instructions, steps=_dflt_steps, ctas=_dflt_ctas, threads=_dflt_threads, wall_time=_dflt_wall_time, chunks=_dflt_chunks, race_notes=_MISSING):\n    self.thread_instructions = thread_instructions\n    self.steps = steps\n    self.ctas = ctas\n    self.threads = threads\n    self.wall_time = wall_time\n    self.chunks = chunks\n    self.race_notes = _make_race_notes() if race_notes is _MISSING else race_notes\ndef __eq__(self, other):\n    if other.__class__ is self.__class__:\n        return (self.thread_instructions,self.steps,self.ctas,self.threads,self.wall_time,self.chunks,self.race_notes,) == (other.thread_instructions,other.steps,other.ctas,other.threads,other.wall_time,other.chunks,other.race_notes,)\n    return NotImplemented\n': _m39,
    '<record Entry>\x00def __init__(self, file, directory, flags=_MISSING, archs=_MISSING):\n    self.file = file\n    self.directory = directory\n    self.flags = _make_flags() if flags is _MISSING else flags\n    self.archs = _make_archs() if archs is _MISSING else archs\ndef __eq__(self, other):\n    if other.__class__ is self.__class__:\n        return (self.file,self.directory,self.flags,self.archs,) == (other.file,other.directory,other.flags,other.archs,)\n    return NotImplemented\n': _m40,
    '<record ErrorType>\x00def __init__(self, ):\n    pass\ndef __eq__(self, other):\n    if other.__class__ is self.__class__:\n        return () == ()\n    return NotImplemented\ndef __hash__(self):\n    return hash(())\n': _m41,
    '<record Expr>\x00def __init__(self, span):\n    self.span = span\n': _m42,
    '<record ExprStmt>\x00def __init__(self, span, expr):\n    self.span = span\n    self.expr = expr\n': _m43,
    '<record FloatLit>\x00def __init__(self, span, value, suffix, text):\n    self.span = span\n    self.value = value\n    self.suffix = suffix\n    self.text = text\n': _m44,
    '<record FnInfo>\x00def __init__(self, item, params, ret, allow=_dflt_allow):\n    self.item = item\n    self.params = params\n    self.ret = ret\n    self.allow = allow\ndef __eq__(self, other):\n    if other.__class__ is self.__class__:\n        return (self.item,self.params,self.ret,self.allow,) == (other.item,other.params,other.ret,other.allow,)\n    return NotImplemented\n': _m45,
    '<record FnItem>\x00def __init__(self, span, name, name_span, attrs, params, ret, body, kernel):\n    self.span = span\n    self.name = name\n    self.name_span = name_span\n    self.attrs = attrs\n    self.params = params\n    self.ret = ret\n    self.body = body\n    self.kernel = kernel\n': _m46,
    '<record ForListStmt>\x00def __init__(self, span, var, var_span, items, body):\n    self.span = span\n    self.var = var\n    self.var_span = var_span\n    self.items = items\n    self.body = body\n': _m47,
    '<record ForStmt>\x00def __init__(self, span, var, var_span, start, end, step, body, unroll, factor=_dflt_factor):\n    self.span = span\n    self.var = var\n    self.var_span = var_span\n    self.start = start\n    self.end = end\n    self.step = step\n    self.body = body\n    self.unroll = unroll\n    self.factor = factor\n': _m48,
    "<record Form>\x00def __init__(self, stem, text, head, elems, operands, relaxed, gate):\n    _set(self, 'stem', stem)\n    _set(self, 'text', text)\n    _set(self, 'head', head)\n    _set(self, 'elems', elems)\n    _set(self, 'operands', operands)\n    _set(self, 'relaxed', relaxed)\n    _set(self, 'gate', gate)\ndef __eq__(self, other):\n    if other.__class__ is self.__class__:\n        return (self.stem,self.text,self.head,self.elems,self.operands,self.relaxed,self.gate,) == (other.stem,other.text,other.head,other.elems,other.operands,other.relaxed,other.gate,)\n    return NotImplemented\ndef __hash__(self):\n    return hash((self.stem,self.text,self.head,self.elems,self.operands,self.relaxed,self.gate,))\n": _m49,
    '<record Function>\x00def __init__(self, name, kind, params=_MISSING, ret_params=_MISSING, visible=_dflt_visible, extern=_dflt_extern, directives=_MISSING, body=_dflt_body, line=_dflt_line, meta=_MISSING):\n    self.name = name\n    self.kind = kind\n    self.params = _make_params() if params is _MISSING else params\n    self.ret_params = _make_ret_params() if ret_params is _MISSING else ret_params\n    self.visible = visible\n    self.extern = extern\n    self.directives = _make_directives() if directives is _MISSING else directives\n    self.body = body\n    self.line = line\n    self.meta = _make_meta() if meta is _MISSING else meta\ndef __eq__(self, other):\n    if other.__class__ is self.__class__:\n        return (self.name,self.kind,self.params,self.ret_params,self.visible,self.extern,self.directives,self.body,self.line,self.meta,) == (other.name,other.kind,other.params,other.ret_params,other.visible,other.extern,other.directives,other.body,other.line,other.meta,)\n    return NotImplemented\n': _m50,
    '<record FunctionContext>\x00def __init__(self, fn, module, arch=_dflt_arch, _cfg=_dflt__cfg, _facts=_dflt__facts, _namer=_dflt__namer, cache=_MISSING):\n    self.fn = fn\n    self.module = module\n    self.arch = arch\n    self._cfg = _cfg\n    self._facts = _facts\n    self._namer = _namer\n    self.cache = _make_cache() if cache is _MISSING else cache\ndef __eq__(self, other):\n    if other.__class__ is self.__class__:\n        return (self.fn,self.module,self.arch,self._cfg,self._facts,self._namer,self.cache,) == (other.fn,other.module,other.arch,other._cfg,other._facts,other._namer,other.cache,)\n    return NotImplemented\n': _m51,
    "<record Gate>\x00def __init__(self, targets, min_version):\n    _set(self, 'targets', targets)\n    _set(self, 'min_version', min_version)\ndef __eq__(self, other):\n    if other.__class__ is self.__class__:\n        return (self.targets,self.min_version,) == (other.targets,other.min_version,)\n    return NotImplemented\ndef __hash__(self):\n    return hash((self.targets,self.min_version,))\n": _m52,
    '<record IfStmt>\x00def __init__(self, span, cond, then, else_):\n    self.span = span\n    self.cond = cond\n    self.then = then\n    self.else_ = else_\n': _m53,
    "<record Imm>\x00def __init__(self, value, text):\n    _set(self, 'value', value)\n    _set(self, 'text', text)\ndef __eq__(self, other):\n    if other.__class__ is self.__class__:\n        return (self.value,self.text,) == (other.value,other.text,)\n    return NotImplemented\ndef __hash__(self):\n    return hash((self.value,self.text,))\n": _m54,
    '<record Index>\x00def __init__(self, span, base, indices):\n    self.span = span\n    self.base = base\n    self.indices = indices\n': _m55,
    '<record Instr>\x00def __init__(self, opcode, operands=_MISSING, pred=_dflt_pred, pred_neg=_dflt_pred_neg, line=_dflt_line, loc=_dflt_loc, meta=_MISSING):\n    self.opcode = opcode\n    self.operands = _make_operands() if operands is _MISSING else operands\n    self.pred = pred\n    self.pred_neg = pred_neg\n    self.line = line\n    self.loc = loc\n    self.meta = _make_meta() if meta is _MISSING else meta\ndef __eq__(self, other):\n    if other.__class__ is self.__class__:\n        return (self.opcode,self.operands,self.pred,self.pred_neg,self.line,self.loc,self.meta,) == (other.opcode,other.operands,other.pred,other.pred_neg,other.line,other.loc,other.meta,)\n    return NotImplemented\n': _m56,
    "<record InstrInfo>\x00def __init__(self, key, dests=_dflt_dests, mem=_dflt_mem, spaces=_dflt_spaces, barrier=_dflt_barrier, warp_granular_barrier=_dflt_warp_granular_barrier, cluster_barrier=_dflt_cluster_barrier, warp_collective=_dflt_warp_collective, terminator=_dflt_terminator, parks=_dflt_parks, polls=_dflt_polls, pure=_dflt_pure, is_async=_dflt_is_async, fence=_dflt_fence, form=_dflt_form, known=_dflt_known):\n    _set(self, 'key', key)\n    _set(self, 'dests', dests)\n    _set(self, 'mem', mem)\n    _set(self, 'spaces', spaces)\n    _set(self, 'barrier', barrier)\n    _set(self, 'warp_granular_barrier', warp_granular_barrier)\n    _set(self, 'cluster_barrier', cluster_barrier)\n    _set(self, 'warp_collective', warp_collective)\n    _set(self, 'terminator', terminator)\n    _set(self, 'parks', parks)\n    _set(self, 'polls', polls)\n    _set(self, 'pure', pure)\n    _set(self, 'is_async', is_async)\n    _set(self, 'fence', fence)\n    _set(self, 'form', form)\n    _set(self, 'known', known)\ndef __eq__(self, other):\n    if other.__class__ is self.__class__:\n        return (self.key,self.dests,self.mem,self.spaces,self.barrier,self.warp_granular_barrier,self.cluster_barrier,self.warp_collective,self.terminator,self.parks,self.polls,self.pure,self.is_async,self.fence,self.form,self.known,) == (other.key,other.dests,other.mem,other.spaces,other.barrier,other.warp_granular_barrier,other.cluster_barrier,other.warp_collective,other.terminator,other.parks,other.polls,other.pure,other.is_async,other.fence,other.form,other.known,)\n    return NotImplemented\ndef __hash__(self):\n    return hash((self.key,self.dests,self.mem,self.spaces,self.barrier,self.warp_granular_barrier,self.cluster_barrier,self.warp_collective,self.terminator,self.parks,self.polls,self.pure,self.is_async,self.fence,self.form,self.known,))\n": _m57,
    '<record IntLit>\x00def __init__(self, span, value, suffix, text):\n    self.span = span\n    self.value = value\n    self.suffix = suffix\n    self.text = text\n': _m58,
    "<record Intrinsic>\x00def __init__(self, name, args, ret=_MISSING, optional=_dflt_optional, target=_dflt_target, collective=_dflt_collective, barrier=_dflt_barrier, pure=_dflt_pure, doc=_dflt_doc, op=_dflt_op, op_attrs=_dflt_op_attrs):\n    _set(self, 'name', name)\n    _set(self, 'args', args)\n    _set(self, 'ret', _make_ret() if ret is _MISSING else ret)\n    _set(self, 'optional', optional)\n    _set(self, 'target', target)\n    _set(self, 'collective', collective)\n    _set(self, 'barrier', barrier)\n    _set(self, 'pure', pure)\n    _set(self, 'doc', doc)\n    _set(self, 'op', op)\n    _set(self, 'op_attrs', op_attrs)\ndef __eq__(self, other):\n    if other.__class__ is self.__class__:\n        return (self.name,self.args,self.ret,self.optional,self.target,self.collective,self.barrier,self.pure,self.doc,self.op,self.op_attrs,) == (other.name,other.args,other.ret,other.optional,other.target,other.collective,other.barrier,other.pure,other.doc,other.op,other.op_attrs,)\n    return NotImplemented\ndef __hash__(self):\n    return hash((self.name,self.args,self.ret,self.optional,self.target,self.collective,self.barrier,self.pure,self.doc,self.op,self.op_attrs,))\n": _m59,
    '<record Item>\x00def __init__(self, span, name, name_span):\n    self.span = span\n    self.name = name\n    self.name_span = name_span\n': _m60,
    '<record Item>\x00def __init__(self, start, end, line, is_function, name):\n    self.start = start\n    self.end = end\n    self.line = line\n    self.is_function = is_function\n    self.name = name\ndef __eq__(self, other):\n    if other.__class__ is self.__class__:\n        return (self.start,self.end,self.line,self.is_function,self.name,) == (other.start,other.end,other.line,other.is_function,other.name,)\n    return NotImplemented\n': _m61,
    '<record Kernel>\x00def __init__(self, name, module, param_names, param_types, stats=_MISSING):\n    self.name = name\n    self.module = module\n    self.param_names = param_names\n    self.param_types = param_types\n    self.stats = _make_stats() if stats is _MISSING else stats\ndef __eq__(self, other):\n    if other.__class__ is self.__class__:\n        return (self.name,self.module,self.param_names,self.param_types,self.stats,) == (other.name,other.module,other.param_names,other.param_types,other.stats,)\n    return NotImplemented\n': _m62,
    '<record KernelInfo>\x00def __init__(self, item, block=_dflt_block, max_registers=_dflt_max_registers, min_blocks_per_sm=_dflt_min_blocks_per_sm, cluster=_dflt_cluster, allow=_dflt_allow, shared=_MISSING):\n    self.item = item\n    self.block = block\n    self.max_registers = max_registers\n    self.min_blocks_per_sm = min_blocks_per_sm\n    self.cluster = cluster\n    self.allow = allow\n    self.shared = _make_shared() if shared is _MISSING else shared\ndef __eq__(self, other):\n    if other.__class__ is self.__class__:\n        return (self.item,self.block,self.max_registers,self.min_blocks_per_sm,self.cluster,self.allow,self.shared,) == (other.item,other.block,other.max_registers,other.min_blocks_per_sm,other.cluster,other.allow,other.shared,)\n    return NotImplemented\n': _m63,
    "<record Kind>\x00def __init__(self, issue, commit, wait, foreign, hazard):\n    _set(self, 'issue', issue)\n    _set(self, 'commit', commit)\n    _set(self, 'wait', wait)\n    _set(self, 'foreign', foreign)\n    _set(self, 'hazard', hazard)\ndef __eq__(self, other):\n    if other.__class__ is self.__class__:\n        return (self.issue,self.commit,self.wait,self.foreign,self.hazard,) == (other.issue,other.commit,other.wait,other.foreign,other.hazard,)\n    return NotImplemented\ndef __hash__(self):\n    return hash((self.issue,self.commit,self.wait,self.foreign,self.hazard,))\n": _m64,
    '<record Label>\x00def __init__(self, name, line=_dflt_line):\n    self.name = name\n    self.line = line\ndef __eq__(self, other):\n    if other.__class__ is self.__class__:\n        return (self.name,self.line,) == (other.name,other.line,)\n    return NotImplemented\n': _m65,
    "<record Label>\x00def __init__(self, span, message, origin=_dflt_origin):\n    _set(self, 'span', span)\n    _set(self, 'message', message)\n    _set(self, 'origin', origin)\ndef __eq__(self, other):\n    if other.__class__ is self.__class__:\n        return (self.span,self.message,self.origin,) == (other.span,other.message,other.origin,)\n    return NotImplemented\ndef __hash__(self):\n    return hash((self.span,self.message,self.origin,))\n": _m66,
    '<record LetStmt>\x00def __init__(self, span, name, name_span, type, init, mutable):\n    self.span = span\n    self.name = name\n    self.name_span = name_span\n    self.type = type\n    self.init = init\n    self.mutable = mutable\n': _m67,
    '<record LexResult>\x00def __init__(self, tokens, diagnostics, allow_comments, unterminated=_dflt_unterminated):\n    self.tokens = tokens\n    self.diagnostics = diagnostics\n    self.allow_comments = allow_comments\n    self.unterminated = unterminated\ndef __eq__(self, other):\n    if other.__class__ is self.__class__:\n        return (self.tokens,self.diagnostics,self.allow_comments,self.unterminated,) == (other.tokens,other.diagnostics,other.allow_comments,other.unterminated,)\n    return NotImplemented\n': _m68,
    "<record Limit>\x00def __init__(self, name, default, what, help):\n    _set(self, 'name', name)\n    _set(self, 'default', default)\n    _set(self, 'what', what)\n    _set(self, 'help', help)\ndef __eq__(self, other):\n    if other.__class__ is self.__class__:\n        return (self.name,self.default,self.what,self.help,) == (other.name,other.default,other.what,other.help,)\n    return NotImplemented\ndef __hash__(self):\n    return hash((self.name,self.default,self.what,self.help,))\n": _m69,
    '<record LineMap>\x00def __init__(self, starts, origins):\n    self.starts = starts\n    self.origins = origins\ndef __eq__(self, other):\n    if other.__class__ is self.__class__:\n        return (self.starts,self.origins,) == (other.starts,other.origins,)\n    return NotImplemented\n': _m70,
    '<record Loc>\x00def __init__(self, file, line, col, up=_dflt_up):\n    self.file = file\n    self.line = line\n    self.col = col\n    self.up = up\ndef __eq__(self, other):\n    if other.__class__ is self.__class__:\n        return (self.file,self.line,self.col,self.up,) == (other.file,other.line,other.col,other.up,)\n    return NotImplemented\n': _m71,
    '<record LocDirective>\x00def __init__(self, file, line, args, ptx_lines=_MISSING):\n    self.file = file\n    self.line = line\n    self.args = args\n    self.ptx_lines = _make_ptx_lines() if ptx_lines is _MISSING else ptx_lines\ndef __eq__(self, other):\n    if other.__class__ is self.__class__:\n        return (self.file,self.line,self.args,self.ptx_lines,) == (other.file,other.line,other.args,other.ptx_lines,)\n    return NotImplemented\n': _m72,
    '<record LoopState>\x00def __init__(self, breaks=_dflt_breaks):\n    self.breaks = breaks\ndef __eq__(self, other):\n    if other.__class__ is self.__class__:\n        return (self.breaks,) == (other.breaks,)\n    return NotImplemented\n': _m73,
    '<record MBarrier>\x00def __init__(self, ):\n    pass\ndef __eq__(self, other):\n    if other.__class__ is self.__class__:\n        return () == ()\n    return NotImplemented\ndef __hash__(self):\n    return hash(())\n': _m74,
    '<record MBarrierType>\x00def __init__(self, ):\n    pass\ndef __eq__(self, other):\n    if other.__class__ is self.__class__:\n        return () == ()\n    return NotImplemented\ndef __hash__(self):\n    return hash(())\n': _m75,
    "<record Match>\x00def __init__(self, form, types, vec, gates):\n    _set(self, 'form', form)\n    _set(self, 'types', types)\n    _set(self, 'vec', vec)\n    _set(self, 'gates', gates)\ndef __eq__(self, other):\n    if other.__class__ is self.__class__:\n        return (self.form,self.types,self.vec,self.gates,) == (other.form,other.types,other.vec,other.gates,)\n    return NotImplemented\ndef __hash__(self):\n    return hash((self.form,self.types,self.vec,self.gates,))\n": _m76,
    '<record Member>\x00def __init__(self, span, base, field):\n    self.span = span\n    self.base = base\n    self.field = field\n': _m77,
    "<record Mismatch>\x00def __init__(self, message, culprit=_dflt_culprit):\n    _set(self, 'message', message)\n    _set(self, 'culprit', culprit)\ndef __eq__(self, other):\n    if other.__class__ is self.__class__:\n        return (self.message,self.culprit,) == (other.message,other.culprit,)\n    return NotImplemented\ndef __hash__(self):\n    return hash((self.message,self.culprit,))\n": _m78,
    '<record Module>\x00def __init__(self, version=_dflt_version, target=_dflt_target, address_size=_dflt_address_size, files=_MISSING, globals=_MISSING, functions=_MISSING, path=_dflt_path, meta=_MISSING):\n    self.version = version\n    self.target = target\n    self.address_size = address_size\n    self.files = _make_files() if files is _MISSING else files\n    self.globals = _make_globals() if globals is _MISSING else globals\n    self.functions = _make_functions() if functions is _MISSING else functions\n    self.path = path\n    self.meta = _make_meta() if meta is _MISSING else meta\ndef __eq__(self, other):\n    if other.__class__ is self.__class__:\n        return (self.version,self.target,self.address_size,self.files,self.globals,self.functions,self.path,self.meta,) == (other.version,other.target,other.address_size,other.files,other.globals,other.functions,other.path,other.meta,)\n    return NotImplemented\n': _m79,
    '<record Move>\x00def __init__(self, kind, dst, src, cls, vid=_dflt_vid, imm=_dflt_imm):\n    self.kind = kind\n    self.dst = dst\n    self.src = src\n    self.cls = cls\n    self.vid = vid\n    self.imm = imm\ndef __eq__(self, other):\n    if other.__class__ is self.__class__:\n        return (self.kind,self.dst,self.src,self.cls,self.vid,self.imm,) == (other.kind,other.dst,other.src,other.cls,other.vid,other.imm,)\n    return NotImplemented\n': _m80,
    '<record Name>\x00def __init__(self, span, ident):\n    self.span = span\n    self.ident = ident\n': _m81,
    '<record NamedType>\x00def __init__(self, span, name):\n    self.span = span\n    self.name = name\n': _m82,
    "<record Need>\x00def __init__(self, version=_dflt_version, family=_dflt_family, removed=_dflt_removed):\n    _set(self, 'version', version)\n    _set(self, 'family', family)\n    _set(self, 'removed', removed)\ndef __eq__(self, other):\n    if other.__class__ is self.__class__:\n        return (self.version,self.family,self.removed,) == (other.version,other.family,other.removed,)\n    return NotImplemented\ndef __hash__(self):\n    return hash((self.version,self.family,self.removed,))\n": _m83,
    "<record Neg>\x00def __init__(self, inner):\n    _set(self, 'inner', inner)\ndef __eq__(self, other):\n    if other.__class__ is self.__class__:\n        return (self.inner,) == (other.inner,)\n    return NotImplemented\ndef __hash__(self):\n    return hash((self.inner,))\n": _m84,
    '<record Node>\x00def __init__(self, span):\n    self.span = span\n': _m85,
    "<record OpDef>\x00def __init__(self, name, operands, results, traits=_dflt_traits, effect=_dflt_effect, attrs=_dflt_attrs, gate=_dflt_gate, ptx=_dflt_ptx, doc=_dflt_doc, opt_attrs=_dflt_opt_attrs, imm=_dflt_imm, mask=_dflt_mask, uniformity=_dflt_uniformity, shared_write=_dflt_shared_write, sem=_dflt_sem, ranges=_dflt_ranges):\n    _set(self, 'name', name)\n    _set(self, 'operands', operands)\n    _set(self, 'results', results)\n    _set(self, 'traits', traits)\n    _set(self, 'effect', effect)\n    _set(self, 'attrs', attrs)\n    _set(self, 'gate', gate)\n    _set(self, 'ptx', ptx)\n    _set(self, 'doc', doc)\n    _set(self, 'opt_attrs', opt_attrs)\n    _set(self, 'imm', imm)\n    _set(self, 'mask', mask)\n    _set(self, 'uniformity', uniformity)\n    _set(self, 'shared_write', shared_write)\n    _set(self, 'sem', sem)\n    _set(self, 'ranges', ranges)\ndef __eq__(self, other):\n    if other.__class__ is self.__class__:\n        return (self.name,self.operands,self.results,self.traits,self.effect,self.attrs,self.gate,self.ptx,self.doc,self.opt_attrs,self.imm,self.mask,self.uniformity,self.shared_write,self.sem,self.ranges,) == (other.name,other.operands,other.results,other.traits,other.effect,other.attrs,other.gate,other.ptx,other.doc,other.opt_attrs,other.imm,other.mask,other.uniformity,other.shared_write,other.sem,other.ranges,)\n    return NotImplemented\ndef __hash__(self):\n    return hash((self.name,self.operands,self.results,self.traits,self.effect,self.attrs,self.gate,self.ptx,self.doc,self.opt_attrs,self.imm,self.mask,self.uniformity,self.shared_write,self.sem,self.ranges,))\n": _m86,
    "<record OpSpec>\x00def __init__(self, kind, type, optional, pair=_dflt_pair, iff=_dflt_iff):\n    _set(self, 'kind', kind)\n    _set(self, 'type', type)\n    _set(self, 'optional', optional)\n    _set(self, 'pair', pair)\n    _set(self, 'iff', iff)\ndef __eq__(self, other):\n    if other.__class__ is self.__class__:\n        return (self.kind,self.type,self.optional,self.pair,self.iff,) == (other.kind,other.type,other.optional,other.pair,other.iff,)\n    return NotImplemented\ndef __hash__(self):\n    return hash((self.kind,self.type,self.optional,self.pair,self.iff,))\n": _m87,
    "<record Operand>\x00def __init__(self, kind, index=_dflt_index, end=_dflt_end, name=_dflt_name, items=_dflt_items):\n    _set(self, 'kind', kind)\n    _set(self, 'index', index)\n    _set(self, 'end', end)\n    _set(self, 'name', name)\n    _set(self, 'items', items)\ndef __eq__(self, other):\n    if other.__class__ is self.__class__:\n        return (self.kind,self.index,self.end,self.name,self.items,) == (other.kind,other.index,other.end,other.name,other.items,)\n    return NotImplemented\ndef __hash__(self):\n    return hash((self.kind,self.index,self.end,self.name,self.items,))\n": _m88,
    "<record OperandRange>\x00def __init__(self, where, lo, hi, multiple=_dflt_multiple, what=_dflt_what, ptx=_dflt_ptx, pow2=_dflt_pow2):\n    _set(self, 'where', where)\n    _set(self, 'lo', lo)\n    _set(self, 'hi', hi)\n    _set(self, 'multiple', multiple)\n    _set(self, 'what', what)\n    _set(self, 'ptx', ptx)\n    _set(self, 'pow2', pow2)\ndef __eq__(self, other):\n    if other.__class__ is self.__class__:\n        return (self.where,self.lo,self.hi,self.multiple,self.what,self.ptx,self.pow2,) == (other.where,other.lo,other.hi,other.multiple,other.what,other.ptx,other.pow2,)\n    return NotImplemented\ndef __hash__(self):\n    return hash((self.where,self.lo,self.hi,self.multiple,self.what,self.ptx,self.pow2,))\n": _m89,
    '<record Outcome>\x00def __init__(self, status, model=_dflt_model, reason=_dflt_reason):\n    self.status = status\n    self.model = model\n    self.reason = reason\ndef __eq__(self, other):\n    if other.__class__ is self.__class__:\n        return (self.status,self.model,self.reason,) == (other.status,other.model,other.reason,)\n    return NotImplemented\n': _m90,
    "<record Pair>\x00def __init__(self, first, second):\n    _set(self, 'first', first)\n    _set(self, 'second', second)\ndef __eq__(self, other):\n    if other.__class__ is self.__class__:\n        return (self.first,self.second,) == (other.first,other.second,)\n    return NotImplemented\ndef __hash__(self):\n    return hash((self.first,self.second,))\n": _m91,
    '<record Param>\x00def __init__(self, name, type, align=_dflt_align, dims=_MISSING, ptr_space=_dflt_ptr_space, ptr_align=_dflt_ptr_align, line=_dflt_line):\n    self.name = name\n    self.type = type\n    self.align = align\n    self.dims = _make_dims() if dims is _MISSING else dims\n    self.ptr_space = ptr_space\n    self.ptr_align = ptr_align\n    self.line = line\ndef __eq__(self, other):\n    if other.__class__ is self.__class__:\n        return (self.name,self.type,self.align,self.dims,self.ptr_space,self.ptr_align,self.line,) == (other.name,other.type,other.align,other.dims,other.ptr_space,other.ptr_align,other.line,)\n    return NotImplemented\n': _m92,
    '<record Param>\x00def __init__(self, span, name, type):\n    self.span = span\n    self.name = name\n    self.type = type\n': _m93,
    "<record ParamSpec>\x00def __init__(self, name, type, kind, bits=_dflt_bits, signed=_dflt_signed, either_sign=_dflt_either_sign, dtype=_dflt_dtype, box=_dflt_box):\n    _set(self, 'name', name)\n    _set(self, 'type', type)\n    _set(self, 'kind', kind)\n    _set(self, 'bits', bits)\n    _set(self, 'signed', signed)\n    _set(self, 'either_sign', either_sign)\n    _set(self, 'dtype', dtype)\n    _set(self, 'box', box)\ndef __eq__(self, other):\n    if other.__class__ is self.__class__:\n        return (self.name,self.type,self.kind,self.bits,self.signed,self.either_sign,self.dtype,self.box,) == (other.name,other.type,other.kind,other.bits,other.signed,other.either_sign,other.dtype,other.box,)\n    return NotImplemented\ndef __hash__(self):\n    return hash((self.name,self.type,self.kind,self.bits,self.signed,self.either_sign,self.dtype,self.box,))\n": _m94,
    "<record Parsed>\x00def __init__(self, opcode, operands):\n    _set(self, 'opcode', opcode)\n    _set(self, 'operands', operands)\ndef __eq__(self, other):\n    if other.__class__ is self.__class__:\n        return (self.opcode,self.operands,) == (other.opcode,other.operands,)\n    return NotImplemented\ndef __hash__(self):\n    return hash((self.opcode,self.operands,))\n": _m95,
    '<record PassContext>\x00def __init__(self, arch=_dflt_arch, diagnostics=_MISSING, options=_MISSING, facts=_MISSING):\n    self.arch = arch\n    self.diagnostics = _make_diagnostics() if diagnostics is _MISSING else diagnostics\n    self.options = _make_options() if options is _MISSING else options\n    self.facts = _make_facts() if facts is _MISSING else facts\ndef __eq__(self, other):\n    if other.__class__ is self.__class__:\n        return (self.arch,self.diagnostics,self.options,self.facts,) == (other.arch,other.diagnostics,other.options,other.facts,)\n    return NotImplemented\n': _m96,
    '<record Pending>\x00def __init__(self, copy, counts, status, passed, skipped):\n    self.copy = copy\n    self.counts = counts\n    self.status = status\n    self.passed = passed\n    self.skipped = skipped\n': _m97,
    '<record Pending>\x00def __init__(self, pid, kind, ins, ids, actions=_MISSING, smem=_dflt_smem, grp=_dflt_grp, deps=_MISSING, ctas=_dflt_ctas, rsmem=_dflt_rsmem):\n    self.pid = pid\n    self.kind = kind\n    self.ins = ins\n    self.ids = ids\n    self.actions = _make_actions() if actions is _MISSING else actions\n    self.smem = smem\n    self.grp = grp\n    self.deps = _make_deps() if deps is _MISSING else deps\n    self.ctas = ctas\n    self.rsmem = rsmem\ndef __eq__(self, other):\n    if other.__class__ is self.__class__:\n        return (self.pid,self.kind,self.ins,self.ids,self.actions,self.smem,self.grp,self.deps,self.ctas,self.rsmem,) == (other.pid,other.kind,other.ins,other.ids,other.actions,other.smem,other.grp,other.deps,other.ctas,other.rsmem,)\n    return NotImplemented\n': _m98,
    "<record PointerOrigin>\x00def __init__(self, decl, offset, off_div):\n    _set(self, 'decl', decl)\n    _set(self, 'offset', offset)\n    _set(self, 'off_div', off_div)\ndef __eq__(self, other):\n    if other.__class__ is self.__class__:\n        return (self.decl,self.offset,self.off_div,) == (other.decl,other.offset,other.off_div,)\n    return NotImplemented\ndef __hash__(self):\n    return hash((self.decl,self.offset,self.off_div,))\n": _m99,
    '<record Program>\x00def __init__(self, span, path, items, allow_comments=_MISSING, asserts=_MISSING):\n    self.span = span\n    self.path = path\n    self.items = items\n    self.allow_comments = _make_allow_comments() if allow_comments is _MISSING else allow_comments\n    self.asserts = _make_asserts() if asserts is _MISSING else asserts\n': _m100,
    '<record Protocol>\x00def __init__(self, objects, opaque, untraced, carried=_dflt_carried):\n    self.objects = objects\n    self.opaque = opaque\n    self.untraced = untraced\n    self.carried = carried\ndef __eq__(self, other):\n    if other.__class__ is self.__class__:\n        return (self.objects,self.opaque,self.untraced,self.carried,) == (other.objects,other.opaque,other.untraced,other.carried,)\n    return NotImplemented\n': _m101,
    "<record Ptr>\x00def __init__(self, space, elem, readonly=_dflt_readonly):\n    _set(self, 'space', space)\n    _set(self, 'elem', elem)\n    _set(self, 'readonly', readonly)\ndef __eq__(self, other):\n    if other.__class__ is self.__class__:\n        return (self.space,self.elem,self.readonly,) == (other.space,other.elem,other.readonly,)\n    return NotImplemented\ndef __hash__(self):\n    return hash((self.space,self.elem,self.readonly,))\n": _m102,
    "<record PtrType>\x00def __init__(self, space, elem):\n    _set(self, 'space', space)\n    _set(self, 'elem', elem)\ndef __eq__(self, other):\n    if other.__class__ is self.__class__:\n        return (self.space,self.elem,) == (other.space,other.elem,)\n    return NotImplemented\ndef __hash__(self):\n    return hash((self.space,self.elem,))\n": _m103,
    '<record PtrType>\x00def __init__(self, span, space, elem, readonly=_dflt_readonly):\n    self.span = span\n    self.space = space\n    self.elem = elem\n    self.readonly = readonly\n': _m104,
    '<record PtxKernel>\x00def __init__(self, name, module, params):\n    self.name = name\n    self.module = module\n    self.params = params\ndef __eq__(self, other):\n    if other.__class__ is self.__class__:\n        return (self.name,self.module,self.params,) == (other.name,other.module,other.params,)\n    return NotImplemented\n': _m105,
    '<record PtxResult>\x00def __init__(self, arch, ptx, ptx_path, diagnostics=_MISSING, cached=_dflt_cached):\n    self.arch = arch\n    self.ptx = ptx\n    self.ptx_path = ptx_path\n    self.diagnostics = _make_diagnostics() if diagnostics is _MISSING else diagnostics\n    self.cached = cached\ndef __eq__(self, other):\n    if other.__class__ is self.__class__:\n        return (self.arch,self.ptx,self.ptx_path,self.diagnostics,self.cached,) == (other.arch,other.ptx,other.ptx_path,other.diagnostics,other.cached,)\n    return NotImplemented\n': _m106,
    "<record PtxTarget>\x00def __init__(self, name, number, suffix, min_version):\n    _set(self, 'name', name)\n    _set(self, 'number', number)\n    _set(self, 'suffix', suffix)\n    _set(self, 'min_version', min_version)\ndef __eq__(self, other):\n    if other.__class__ is self.__class__:\n        return (self.name,self.number,self.suffix,self.min_version,) == (other.name,other.number,other.suffix,other.min_version,)\n    return NotImplemented\ndef __hash__(self):\n    return hash((self.name,self.number,self.suffix,self.min_version,))\n": _m107,
    "<record PtxasMessage>\x00def __init__(self, line, message, severity=_dflt_severity):\n    _set(self, 'line', line)\n    _set(self, 'message', message)\n    _set(self, 'severity', severity)\ndef __eq__(self, other):\n    if other.__class__ is self.__class__:\n        return (self.line,self.message,self.severity,) == (other.line,other.message,other.severity,)\n    return NotImplemented\ndef __hash__(self):\n    return hash((self.line,self.message,self.severity,))\n": _m108,
    '<record PtxasResult>\x00def __init__(self, ok, errors, stderr, info=_MISSING, warnings=_MISSING, stdout=_dflt_stdout, returncode=_dflt_returncode, gmem_bytes=_dflt_gmem_bytes):\n    self.ok = ok\n    self.errors = errors\n    self.stderr = stderr\n    self.info = _make_info() if info is _MISSING else info\n    self.warnings = _make_warnings() if warnings is _MISSING else warnings\n    self.stdout = stdout\n    self.returncode = returncode\n    self.gmem_bytes = gmem_bytes\ndef __eq__(self, other):\n    if other.__class__ is self.__class__:\n        return (self.ok,self.errors,self.stderr,self.info,self.warnings,self.stdout,self.returncode,self.gmem_bytes,) == (other.ok,other.errors,other.stderr,other.info,other.warnings,other.stdout,other.returncode,other.gmem_bytes,)\n    return NotImplemented\n': _m109,
    '<record RaceAccess>\x00def __init__(self, op, thread, block, instr, line, source, space, address, buffer, offset):\n    self.op = op\n    self.thread = thread\n    self.block = block\n    self.instr = instr\n    self.line = line\n    self.source = source\n    self.space = space\n    self.address = address\n    self.buffer = buffer\n    self.offset = offset\ndef __eq__(self, other):\n    if other.__class__ is self.__class__:\n        return (self.op,self.thread,self.block,self.instr,self.line,self.source,self.space,self.address,self.buffer,self.offset,) == (other.op,other.thread,other.block,other.instr,other.line,other.source,other.space,other.address,other.buffer,other.offset,)\n    return NotImplemented\n': _m110,
    "<record Reason>\x00def __init__(self, kind, text=_dflt_text, value=_dflt_value, block=_dflt_block):\n    _set(self, 'kind', kind)\n    _set(self, 'text', text)\n    _set(self, 'value', value)\n    _set(self, 'block', block)\ndef __eq__(self, other):\n    if other.__class__ is self.__class__:\n        return (self.kind,self.text,self.value,self.block,) == (other.kind,other.text,other.value,other.block,)\n    return NotImplemented\ndef __hash__(self):\n    return hash((self.kind,self.text,self.value,self.block,))\n": _m111,
    '<record Record>\x00def __init__(self, ):\n    pass\n': _m112,
    "<record Reg>\x00def __init__(self, name):\n    _set(self, 'name', name)\ndef __eq__(self, other):\n    if other.__class__ is self.__class__:\n        return (self.name,) == (other.name,)\n    return NotImplemented\ndef __hash__(self):\n    return hash((self.name,))\n": _m113,
    "<record RegArray>\x00def __init__(self, elem, n, cols=_dflt_cols):\n    _set(self, 'elem', elem)\n    _set(self, 'n', n)\n    _set(self, 'cols', cols)\ndef __eq__(self, other):\n    if other.__class__ is self.__class__:\n        return (self.elem,self.n,self.cols,) == (other.elem,other.n,other.cols,)\n    return NotImplemented\ndef __hash__(self):\n    return hash((self.elem,self.n,self.cols,))\n": _m114,
    '<record RegDecl>\x00def __init__(self, type, prefix=_dflt_prefix, count=_dflt_count, names=_MISSING, line=_dflt_line):\n    self.type = type\n    self.prefix = prefix\n    self.count = count\n    self.names = _make_names() if names is _MISSING else names\n    self.line = line\ndef __eq__(self, other):\n    if other.__class__ is self.__class__:\n        return (self.type,self.prefix,self.count,self.names,self.line,) == (other.type,other.prefix,other.count,other.names,other.line,)\n    return NotImplemented\n': _m115,
    "<record Ret>\x00def __init__(self, kind=_dflt_kind, name=_dflt_name, length=_dflt_length):\n    _set(self, 'kind', kind)\n    _set(self, 'name', name)\n    _set(self, 'length', length)\ndef __eq__(self, other):\n    if other.__class__ is self.__class__:\n        return (self.kind,self.name,self.length,) == (other.kind,other.name,other.length,)\n    return NotImplemented\ndef __hash__(self):\n    return hash((self.kind,self.name,self.length,))\n": _m116,
    '<record ReturnStmt>\x00def __init__(self, span, value):\n    self.span = span\n    self.value = value\n': _m117,
    '<record Rule>\x00def __init__(self, kernels, contract):\n    self.kernels = kernels\n    self.contract = contract\ndef __eq__(self, other):\n    if other.__class__ is self.__class__:\n        return (self.kernels,self.contract,) == (other.kernels,other.contract,)\n    return NotImplemented\n': _m118,
    "<record SAddr>\x00def __init__(self, sym, off):\n    _set(self, 'sym', sym)\n    _set(self, 'off', off)\ndef __eq__(self, other):\n    if other.__class__ is self.__class__:\n        return (self.sym,self.off,) == (other.sym,other.off,)\n    return NotImplemented\ndef __hash__(self):\n    return hash((self.sym,self.off,))\n": _m119,
    "<record Scalar>\x00def __init__(self, name):\n    _set(self, 'name', name)\ndef __eq__(self, other):\n    if other.__class__ is self.__class__:\n        return (self.name,) == (other.name,)\n    return NotImplemented\ndef __hash__(self):\n    return hash((self.name,))\n": _m120,
    "<record ScalarType>\x00def __init__(self, name):\n    _set(self, 'name', name)\ndef __eq__(self, other):\n    if other.__class__ is self.__class__:\n        return (self.name,) == (other.name,)\n    return NotImplemented\ndef __hash__(self):\n    return hash((self.name,))\n": _m121,
    '<record Scope>\x00def __init__(self, body=_MISSING, line=_dflt_line):\n    self.body = _make_body() if body is _MISSING else body\n    self.line = line\ndef __eq__(self, other):\n    if other.__class__ is self.__class__:\n        return (self.body,self.line,) == (other.body,other.line,)\n    return NotImplemented\n': _m122,
    "<record Sem>\x00def __init__(self, fn, kinds=_dflt_kinds, attrs=_MISSING):\n    _set(self, 'fn', fn)\n    _set(self, 'kinds', kinds)\n    _set(self, 'attrs', _make_attrs() if attrs is _MISSING else attrs)\ndef __eq__(self, other):\n    if other.__class__ is self.__class__:\n        return (self.fn,self.kinds,self.attrs,) == (other.fn,other.kinds,other.attrs,)\n    return NotImplemented\ndef __hash__(self):\n    return hash((self.fn,self.kinds,self.attrs,))\n": _m123,
    "<record SharedArray>\x00def __init__(self, elem, shape, align=_dflt_align, dynamic=_dflt_dynamic):\n    _set(self, 'elem', elem)\n    _set(self, 'shape', shape)\n    _set(self, 'align', align)\n    _set(self, 'dynamic', dynamic)\ndef __eq__(self, other):\n    if other.__class__ is self.__class__:\n        return (self.elem,self.shape,self.align,self.dynamic,) == (other.elem,other.shape,other.align,other.dynamic,)\n    return NotImplemented\ndef __hash__(self):\n    return hash((self.elem,self.shape,self.align,self.dynamic,))\n": _m124,
    '<record SharedLayout>\x00def __init__(self, offsets=_MISSING, sizes=_MISSING, aligns=_MISSING, total=_dflt_total, dynamic=_dflt_dynamic, externs=_MISSING, dyn_array_offset=_dflt_dyn_array_offset):\n    self.offsets = _make_offsets() if offsets is _MISSING else offsets\n    self.sizes = _make_sizes() if sizes is _MISSING else sizes\n    self.aligns = _make_aligns() if aligns is _MISSING else aligns\n    self.total = total\n    self.dynamic = dynamic\n    self.externs = _make_externs() if externs is _MISSING else externs\n    self.dyn_array_offset = dyn_array_offset\ndef __eq__(self, other):\n    if other.__class__ is self.__class__:\n        return (self.offsets,self.sizes,self.aligns,self.total,self.dynamic,self.externs,self.dyn_array_offset,) == (other.offsets,other.sizes,other.aligns,other.total,other.dynamic,other.externs,other.dyn_array_offset,)\n    return NotImplemented\n': _m125,
    '<record SharedStmt>\x00def __init__(self, span, name, name_span, type, align, dynamic=_dflt_dynamic):\n    self.span = span\n    self.name = name\n    self.name_span = name_span\n    self.type = type\n    self.align = align\n    self.dynamic = dynamic\n': _m126,
    '<record Side>\x00def __init__(self, access, thread, iters=_MISSING):\n    self.access = access\n    self.thread = thread\n    self.iters = _make_iters() if iters is _MISSING else iters\ndef __eq__(self, other):\n    if other.__class__ is self.__class__:\n        return (self.access,self.thread,self.iters,) == (other.access,other.thread,other.iters,)\n    return NotImplemented\n': _m127,
    '<record Sink>\x00def __init__(self, ):\n    pass\ndef __eq__(self, other):\n    if other.__class__ is self.__class__:\n        return () == ()\n    return NotImplemented\ndef __hash__(self):\n    return hash(())\n': _m128,
    "<record Span>\x00def __init__(self, file, line, col, end_line, end_col):\n    _set(self, 'file', file)\n    _set(self, 'line', line)\n    _set(self, 'col', col)\n    _set(self, 'end_line', end_line)\n    _set(self, 'end_col', end_col)\ndef __eq__(self, other):\n    if other.__class__ is self.__class__:\n        return (self.file,self.line,self.col,self.end_line,self.end_col,) == (other.file,other.line,other.col,other.end_line,other.end_col,)\n    return NotImplemented\ndef __hash__(self):\n    return hash((self.file,self.line,self.col,self.end_line,self.end_col,))\n": _m129,
    "<record SpecialReg>\x00def __init__(self, name, type, fields, need):\n    _set(self, 'name', name)\n    _set(self, 'type', type)\n    _set(self, 'fields', fields)\n    _set(self, 'need', need)\ndef __eq__(self, other):\n    if other.__class__ is self.__class__:\n        return (self.name,self.type,self.fields,self.need,) == (other.name,other.type,other.fields,other.need,)\n    return NotImplemented\ndef __hash__(self):\n    return hash((self.name,self.type,self.fields,self.need,))\n": _m130,
    '<record StaticAssert>\x00def __init__(self, span, cond, message):\n    self.span = span\n    self.cond = cond\n    self.message = message\n': _m131,
    '<record Step>\x00def __init__(self, v, d, xs, others, ops, pairs, verdict=_dflt_verdict):\n    self.v = v\n    self.d = d\n    self.xs = xs\n    self.others = others\n    self.ops = ops\n    self.pairs = pairs\n    self.verdict = verdict\n': _m132,
    '<record Stmt>\x00def __init__(self, span):\n    self.span = span\n': _m133,
    "<record Summary>\x00def __init__(self, barrier=_dflt_barrier, collective=_dflt_collective, unknown=_dflt_unknown, unknown_collective_only=_dflt_unknown_collective_only):\n    _set(self, 'barrier', barrier)\n    _set(self, 'collective', collective)\n    _set(self, 'unknown', unknown)\n    _set(self, 'unknown_collective_only', unknown_collective_only)\ndef __eq__(self, other):\n    if other.__class__ is self.__class__:\n        return (self.barrier,self.collective,self.unknown,self.unknown_collective_only,) == (other.barrier,other.collective,other.unknown,other.unknown_collective_only,)\n    return NotImplemented\ndef __hash__(self):\n    return hash((self.barrier,self.collective,self.unknown,self.unknown_collective_only,))\n": _m134,
    '<record Suppressions>\x00def __init__(self, by_line=_MISSING, malformed=_MISSING):\n    self.by_line = _make_by_line() if by_line is _MISSING else by_line\n    self.malformed = _make_malformed() if malformed is _MISSING else malformed\ndef __eq__(self, other):\n    if other.__class__ is self.__class__:\n        return (self.by_line,self.malformed,) == (other.by_line,other.malformed,)\n    return NotImplemented\n': _m135,
    "<record Sym>\x00def __init__(self, name):\n    _set(self, 'name', name)\ndef __eq__(self, other):\n    if other.__class__ is self.__class__:\n        return (self.name,) == (other.name,)\n    return NotImplemented\ndef __hash__(self):\n    return hash((self.name,))\n": _m136,
    '<record Symbol>\x00def __init__(self, name, kind, type, span, value=_dflt_value, values=_dflt_values, decl=_dflt_decl):\n    self.name = name\n    self.kind = kind\n    self.type = type\n    self.span = span\n    self.value = value\n    self.values = values\n    self.decl = decl\n': _m137,
    '<record TensorMap>\x00def __init__(self, array, box, swizzle=_dflt_swizzle, oob_fill=_dflt_oob_fill):\n    self.array = array\n    self.box = box\n    self.swizzle = swizzle\n    self.oob_fill = oob_fill\n    self.__post_init__()\ndef __eq__(self, other):\n    if other.__class__ is self.__class__:\n        return (self.array,self.box,self.swizzle,self.oob_fill,) == (other.array,other.box,other.swizzle,other.oob_fill,)\n    return NotImplemented\n': _m138,
    "<record TensorMap>\x00def __init__(self, elem, box):\n    _set(self, 'elem', elem)\n    _set(self, 'box', box)\ndef __eq__(self, other):\n    if other.__class__ is self.__class__:\n        return (self.elem,self.box,) == (other.elem,other.box,)\n    return NotImplemented\ndef __hash__(self):\n    return hash((self.elem,self.box,))\n": _m139,
    '<record TensorMap>\x00def __init__(self, elem_size, address, rank, oob_nan, dims, strides, box, kind=_dflt_kind):\n    self.elem_size = elem_size\n    self.address = address\n    self.rank = rank\n    self.oob_nan = oob_nan\n    self.dims = dims\n    self.strides = strides\n    self.box = box\n    self.kind = kind\ndef __eq__(self, other):\n    if other.__class__ is self.__class__:\n        return (self.elem_size,self.address,self.rank,self.oob_nan,self.dims,self.strides,self.box,self.kind,) == (other.elem_size,other.address,other.rank,other.oob_nan,other.dims,other.strides,other.box,other.kind,)\n    return NotImplemented\n': _m140,
    "<record TensorMapType>\x00def __init__(self, elem, box):\n    _set(self, 'elem', elem)\n    _set(self, 'box', box)\ndef __eq__(self, other):\n    if other.__class__ is self.__class__:\n        return (self.elem,self.box,) == (other.elem,other.box,)\n    return NotImplemented\ndef __hash__(self):\n    return hash((self.elem,self.box,))\n": _m141,
    '<record TensorMapType>\x00def __init__(self, span, elem, box):\n    self.span = span\n    self.elem = elem\n    self.box = box\n': _m142,
    '<record Ternary>\x00def __init__(self, span, cond, then, else_):\n    self.span = span\n    self.cond = cond\n    self.then = then\n    self.else_ = else_\n': _m143,
    '<record Threads>\x00def __init__(self, lo, hi, why=_dflt_why, tids=_dflt_tids):\n    self.lo = lo\n    self.hi = hi\n    self.why = why\n    self.tids = tids\ndef __eq__(self, other):\n    if other.__class__ is self.__class__:\n        return (self.lo,self.hi,self.why,self.tids,) == (other.lo,other.hi,other.why,other.tids,)\n    return NotImplemented\n': _m144,
    '<record TypeExpr>\x00def __init__(self, span):\n    self.span = span\n': _m145,
    '<record TypedProgram>\x00def __init__(self, program, arch, types, values, per_copy_const, refs, builtins, decls, calls, const_index_checks, consts, kernels, fns, warnings=_MISSING):\n    self.program = program\n    self.arch = arch\n    self.types = types\n    self.values = values\n    self.per_copy_const = per_copy_const\n    self.refs = refs\n    self.builtins = builtins\n    self.decls = decls\n    self.calls = calls\n    self.const_index_checks = const_index_checks\n    self.consts = consts\n    self.kernels = kernels\n    self.fns = fns\n    self.warnings = _make_warnings() if warnings is _MISSING else warnings\ndef __eq__(self, other):\n    if other.__class__ is self.__class__:\n        return (self.program,self.arch,self.types,self.values,self.per_copy_const,self.refs,self.builtins,self.decls,self.calls,self.const_index_checks,self.consts,self.kernels,self.fns,self.warnings,) == (other.program,other.arch,other.types,other.values,other.per_copy_const,other.refs,other.builtins,other.decls,other.calls,other.const_index_checks,other.consts,other.kernels,other.fns,other.warnings,)\n    return NotImplemented\n': _m146,
    '<record Unary>\x00def __init__(self, span, op, operand):\n    self.span = span\n    self.op = op\n    self.operand = operand\n': _m147,
    '<record UnsizedType>\x00def __init__(self, span, elem):\n    self.span = span\n    self.elem = elem\n': _m148,
    '<record UntypedFloat>\x00def __init__(self, ):\n    pass\ndef __eq__(self, other):\n    if other.__class__ is self.__class__:\n        return () == ()\n    return NotImplemented\ndef __hash__(self):\n    return hash(())\n': _m149,
    '<record UntypedInt>\x00def __init__(self, ):\n    pass\ndef __eq__(self, other):\n    if other.__class__ is self.__class__:\n        return () == ()\n    return NotImplemented\ndef __hash__(self):\n    return hash(())\n': _m150,
    '<record VarDecl>\x00def __init__(self, space, type, name, align=_dflt_align, dims=_MISSING, init=_dflt_init, extern=_dflt_extern, visible=_dflt_visible, line=_dflt_line):\n    self.space = space\n    self.type = type\n    self.name = name\n    self.align = align\n    self.dims = _make_dims() if dims is _MISSING else dims\n    self.init = init\n    self.extern = extern\n    self.visible = visible\n    self.line = line\ndef __eq__(self, other):\n    if other.__class__ is self.__class__:\n        return (self.space,self.type,self.name,self.align,self.dims,self.init,self.extern,self.visible,self.line,) == (other.space,other.type,other.name,other.align,other.dims,other.init,other.extern,other.visible,other.line,)\n    return NotImplemented\n': _m151,
    "<record Variant>\x00def __init__(self, op, fixed, types, captures, attrs, kinds):\n    _set(self, 'op', op)\n    _set(self, 'fixed', fixed)\n    _set(self, 'types', types)\n    _set(self, 'captures', captures)\n    _set(self, 'attrs', attrs)\n    _set(self, 'kinds', kinds)\ndef __eq__(self, other):\n    if other.__class__ is self.__class__:\n        return (self.op,self.fixed,self.types,self.captures,self.attrs,self.kinds,) == (other.op,other.fixed,other.types,other.captures,other.attrs,other.kinds,)\n    return NotImplemented\ndef __hash__(self):\n    return hash((self.op,self.fixed,self.types,self.captures,self.attrs,self.kinds,))\n": _m152,
    "<record Vec>\x00def __init__(self, items):\n    _set(self, 'items', items)\ndef __eq__(self, other):\n    if other.__class__ is self.__class__:\n        return (self.items,) == (other.items,)\n    return NotImplemented\ndef __hash__(self):\n    return hash((self.items,))\n": _m153,
    '<record Void>\x00def __init__(self, ):\n    pass\ndef __eq__(self, other):\n    if other.__class__ is self.__class__:\n        return () == ()\n    return NotImplemented\ndef __hash__(self):\n    return hash(())\n': _m154,
    '<record WhileStmt>\x00def __init__(self, span, cond, body):\n    self.span = span\n    self.cond = cond\n    self.body = body\n': _m155,
    "<record WhyStep>\x00def __init__(self, value, op, level, text):\n    _set(self, 'value', value)\n    _set(self, 'op', op)\n    _set(self, 'level', level)\n    _set(self, 'text', text)\ndef __eq__(self, other):\n    if other.__class__ is self.__class__:\n        return (self.value,self.op,self.level,self.text,) == (other.value,other.op,other.level,other.text,)\n    return NotImplemented\ndef __hash__(self):\n    return hash((self.value,self.op,self.level,self.text,))\n": _m156,
    '<record Witness>\x00def __init__(self, a, b, byte, same_warp, start):\n    self.a = a\n    self.b = b\n    self.byte = byte\n    self.same_warp = same_warp\n    self.start = start\ndef __eq__(self, other):\n    if other.__class__ is self.__class__:\n        return (self.a,self.b,self.byte,self.same_warp,self.start,) == (other.a,other.b,other.byte,other.same_warp,other.start,)\n    return NotImplemented\n': _m157,
    '<record Witness>\x00def __init__(self, block_dim, grid_dim, block, threads, params=_MISSING, param_index=_MISSING, iterations=_MISSING, groups=_MISSING, story=_dflt_story, contract=_dflt_contract, confirmed=_dflt_confirmed, refs=_MISSING):\n    self.block_dim = block_dim\n    self.grid_dim = grid_dim\n    self.block = block\n    self.threads = threads\n    self.params = _make_params() if params is _MISSING else params\n    self.param_index = _make_param_index() if param_index is _MISSING else param_index\n    self.iterations = _make_iterations() if iterations is _MISSING else iterations\n    self.groups = _make_groups() if groups is _MISSING else groups\n    self.story = story\n    self.contract = contract\n    self.confirmed = confirmed\n    self.refs = _make_refs() if refs is _MISSING else refs\ndef __eq__(self, other):\n    if other.__class__ is self.__class__:\n        return (self.block_dim,self.grid_dim,self.block,self.threads,self.params,self.param_index,self.iterations,self.groups,self.story,self.contract,self.confirmed,self.refs,) == (other.block_dim,other.grid_dim,other.block,other.threads,other.params,other.param_index,other.iterations,other.groups,other.story,other.contract,other.confirmed,other.refs,)\n    return NotImplemented\n': _m158,
    '<record _Ann>\x00def __init__(self, line, start, end, primary, message):\n    self.line = line\n    self.start = start\n    self.end = end\n    self.primary = primary\n    self.message = message\ndef __eq__(self, other):\n    if other.__class__ is self.__class__:\n        return (self.line,self.start,self.end,self.primary,self.message,) == (other.line,other.start,other.end,other.primary,other.message,)\n    return NotImplemented\n': _m159,
    '<record _Inline>\x00def __init__(self, join, n_results, saved_loops=_MISSING):\n    self.join = join\n    self.n_results = n_results\n    self.saved_loops = _make_saved_loops() if saved_loops is _MISSING else saved_loops\ndef __eq__(self, other):\n    if other.__class__ is self.__class__:\n        return (self.join,self.n_results,self.saved_loops,) == (other.join,other.n_results,other.saved_loops,)\n    return NotImplemented\n': _m160,
    '<record _Loop>\x00def __init__(self, break_block=_dflt_break_block, cont_block=_dflt_cont_block):\n    self.break_block = break_block\n    self.cont_block = cont_block\ndef __eq__(self, other):\n    if other.__class__ is self.__class__:\n        return (self.break_block,self.cont_block,) == (other.break_block,other.cont_block,)\n    return NotImplemented\n': _m161,
}
