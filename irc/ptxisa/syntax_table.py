"""The syntax rows of PTX instructions (notation: `irc.ptxisa.syntax`). Written from the PTX ISA 9.0 manual's
syntax sections; gates (`[8.0 sm_90]`: lowest `.version`, gate family of `irc.target`) measured with ptxas
13.5. A stem without rows here is not checked for modifiers (the lifter still warns about opcodes it does not
know: `unknown-instruction`).
"""

from __future__ import annotations

TABLE_TEXT = r"""
# ptxas 13.5's leniencies (measured by inserting each modifier into every form below):
%ignored .global_address .rank .box_dim .global_dim .global_stride .element_stride .elemtype
%ignored .interleave_layout .swizzle_mode .swizzle_atomicity .fill_mode
%repeatable .sync .uni .sat .approx .relu .satfinite .cc .shiftamt
%pred-ignored abs add atom cos cvt ex2 fma lg2 max min mul neg rcp red rsqrt set setp sin sqrt sub tanh
# ... and its order rules: these modifiers are part of the opcode's name for ptxas
%head mul .hi .lo .wide
%head mad .hi .lo .wide
%head mul24 .hi .lo
%head mad24 .hi .lo
%head madc .hi .lo
%head dp2a .hi .lo
%head div .full
%head cvta .to
%head mbarrier .init .inval .arrive .arrive_drop .test_wait .try_wait .expect_tx .complete_tx .pending_count
%second mbarrier .parity .expect_tx .noComplete
%ordered cp.async .shared .shared::cta .global
# ---------------------------------------------------------------------------------- integer arithmetic
== add
.itype = .u16 .u32 .u64 .s16 .s64 .u16x2[8.0 sm_90] .s16x2[8.0 sm_90]
.rnd = .rn .rz .rm .rp
add.itype                      d, s, s
add{.sat}.s32                  d, s, s
add{.rnd}{.ftz}{.sat}.f32      d, s, s
add{.rnd}{.ftz}.f32x2          d, s, s          [8.6 sm_100]
add{.rnd}.f64                  d, s, s
add{.rn}{.ftz}{.sat}.f16       d, s, s          [4.2 sm_53]
add{.rn}{.ftz}{.sat}.f16x2     d, s, s          [4.2 sm_53]
add{.rn}.bf16                  d, s, s          [7.8 sm_90]
add{.rn}.bf16x2                d, s, s          [7.8 sm_90]
add{.rnd}{.sat}.f32.f16        d:f32, s:f16, s:f32   [8.6 sm_100]
add{.rnd}{.sat}.f32.bf16       d:f32, s:bf16, s:f32   [8.6 sm_100]
add.cc.cty                     -
.cty = .u32 .s32 .u64 .s64

== sub
.itype = .u16 .u32 .u64 .s16 .s64
.rnd = .rn .rz .rm .rp
sub.itype                      d, s, s
sub{.sat}.s32                  d, s, s
sub{.rnd}{.ftz}{.sat}.f32      d, s, s
sub{.rnd}{.ftz}.f32x2          d, s, s          [8.6 sm_100]
sub{.rnd}.f64                  d, s, s
sub{.rn}{.ftz}{.sat}.f16       d, s, s          [4.2 sm_53]
sub{.rn}{.ftz}{.sat}.f16x2     d, s, s          [4.2 sm_53]
sub{.rn}.bf16                  d, s, s          [7.8 sm_90]
sub{.rn}.bf16x2                d, s, s          [7.8 sm_90]
sub{.rnd}{.sat}.f32.f16        d:f32, s:f16, s:f32   [8.6 sm_100]
sub{.rnd}{.sat}.f32.bf16       d:f32, s:bf16, s:f32   [8.6 sm_100]
sub.cc.cty                     -
.cty = .u32 .s32 .u64 .s64

== mul
.hl = .hi .lo
.itype = .u16 .u32 .u64 .s16 .s32 .s64
.wtype = .u16 .u32 .s16 .s32
.rnd = .rn .rz .rm .rp
mul.hl.itype                   d, s, s
mul.wide.wtype                 d:2T, s, s
mul{.rnd}{.ftz}{.sat}.f32      d, s, s
mul{.rnd}{.ftz}.f32x2          d, s, s          [8.6 sm_100]
mul{.rnd}.f64                  d, s, s
mul{.rn}{.ftz}{.sat}.f16       d, s, s          [4.2 sm_53]
mul{.rn}{.ftz}{.sat}.f16x2     d, s, s          [4.2 sm_53]
mul{.rn}.bf16                  d, s, s          [7.8 sm_90]
mul{.rn}.bf16x2                d, s, s          [7.8 sm_90]

== mad
.hl = .hi .lo
.itype = .u16 .u32 .u64 .s16 .s32 .s64
.wtype = .u16 .u32 .s16 .s32
.rnd = .rn .rz .rm .rp
mad.hl.itype                   d, s, s, s
mad.hi.sat.s32                 d, s, s, s
mad.wide.wtype                 d:2T, s, s, s:2T
mad.rnd{.ftz}{.sat}.f32        d, s, s, s
mad.rnd.f64                    d, s, s, s
mad.hl.cc.cty                  -
.cty = .u32 .s32 .u64 .s64

== mul24
.hl = .hi .lo
.type = .u32 .s32
mul24.hl.type                  d, s, s

== mad24
.hl = .hi .lo
.type = .u32 .s32
mad24.hl.type                  d, s, s, s
mad24.hi.sat.s32               d, s, s, s

== sad
.type = .u16 .u32 .u64 .s16 .s32 .s64
sad.type                       d, s, s, s

== div
.itype = .u16 .u32 .u64 .s16 .s32 .s64
.rnd = .rn .rz .rm .rp
div.itype                      d, s, s
div.approx{.ftz}.f32           d, s, s
div.full{.ftz}.f32             d, s, s
div.rnd{.ftz}.f32              d, s, s
div.rnd.f64                    d, s, s

== rem
.type = .u16 .u32 .u64 .s16 .s32 .s64
rem.type                       d, s, s

== abs
.itype = .s16 .s32 .s64
abs.itype                      d, s
abs{.ftz}.f32                  d, s
abs.f64                        d, s
abs{.ftz}.f16                  d, s             [6.5 sm_53]
abs{.ftz}.f16x2                d, s             [6.5 sm_53]
abs.bf16                       d, s             [7.0 sm_80]
abs.bf16x2                     d, s             [7.0 sm_80]

== neg
.itype = .s16 .s32 .s64
neg.itype                      d, s
neg{.ftz}.f32                  d, s
neg.f64                        d, s
neg{.ftz}.f16                  d, s             [6.0 sm_53]
neg{.ftz}.f16x2                d, s             [6.0 sm_53]
neg.bf16                       d, s             [7.0 sm_80]
neg.bf16x2                     d, s             [7.0 sm_80]

== min
.atype = .u16 .u32 .u64 .s16 .s64 .u16x2[8.0 sm_90]
.btype = .s32 .s16x2[8.0 sm_90]
.nan = .NaN[7.0 sm_80]
min.atype                      d, s, s
min{.relu[8.0 sm_90]}.btype               d, s, s
min{.ftz}{.nan}.f32            d, s, s
min{.ftz}{.nan}.xorsign.abs.f32  d, s, s   [7.2 sm_86]
min{.ftz}{.nan}{.abs}.f32      d, s, s, s   [8.8 sm_100]
min.f64                        d, s, s
min{.ftz}{.nan}.f16          d, s, s    [7.0 sm_80]
min{.ftz}{.nan}.f16x2        d, s, s    [7.0 sm_80]
min{.nan}.bf16                 d, s, s    [7.0 sm_80]
min{.nan}.bf16x2               d, s, s    [7.0 sm_80]
min{.ftz}{.nan}.xorsign.abs.f16     -   [7.2 sm_86]
min{.ftz}{.nan}.xorsign.abs.f16x2   -   [7.2 sm_86]
min{.nan}.xorsign.abs.bf16          -   [7.2 sm_86]
min{.nan}.xorsign.abs.bf16x2        -   [7.2 sm_86]

== max
.atype = .u16 .u32 .u64 .s16 .s64 .u16x2[8.0 sm_90]
.btype = .s32 .s16x2[8.0 sm_90]
.nan = .NaN[7.0 sm_80]
max.atype                      d, s, s
max{.relu[8.0 sm_90]}.btype               d, s, s
max{.ftz}{.nan}.f32            d, s, s
max{.ftz}{.nan}.xorsign.abs.f32  d, s, s   [7.2 sm_86]
max{.ftz}{.nan}{.abs}.f32      d, s, s, s   [8.8 sm_100]
max.f64                        d, s, s
max{.ftz}{.nan}.f16          d, s, s    [7.0 sm_80]
max{.ftz}{.nan}.f16x2        d, s, s    [7.0 sm_80]
max{.nan}.bf16                 d, s, s    [7.0 sm_80]
max{.nan}.bf16x2               d, s, s    [7.0 sm_80]
max{.ftz}{.nan}.xorsign.abs.f16     -   [7.2 sm_86]
max{.ftz}{.nan}.xorsign.abs.f16x2   -   [7.2 sm_86]
max{.nan}.xorsign.abs.bf16          -   [7.2 sm_86]
max{.nan}.xorsign.abs.bf16x2        -   [7.2 sm_86]

== popc
.type = .b32 .b64
popc.type                      d:u32, s

== clz
.type = .b32 .b64
clz.type                       d:u32, s

== bfind
.type = .u32 .u64 .s32 .s64
bfind{.shiftamt}.type          d:u32, s

== brev
.type = .b32 .b64
brev.type                      d, s

== bfe
.type = .u32 .u64 .s32 .s64
bfe.type                       d, s, s:u32, s:u32

== bfi
.type = .b32 .b64
bfi.type                       d, s, s, s:u32, s:u32

== fns
fns.b32                        d, s, s, s:s32

== dp4a
.type = .u32 .s32
dp4a.type.type                 d:s32, s:T0, s:T1, s:s32    [6.0 sm_70]

== dp2a
.hl = .hi .lo
.type = .u32 .s32
dp2a.hl.type.type              d:s32, s:T0, s:T1, s:s32    [6.0 sm_70]

== bmsk
.mode = .clamp .wrap
bmsk.mode.b32                  d, s, s          [7.6 sm_70]

== szext
.mode = .clamp .wrap
.type = .u32 .s32
szext.mode.type                d, s, s:u32      [7.6 sm_70]

# -------------------------------------------------------------------------------- extended precision
== addc
.type = .u32 .s32 .u64 .s64
addc{.cc}.type                 d, s, s

== subc
.type = .u32 .s32 .u64 .s64
subc{.cc}.type                 d, s, s

== madc
.hl = .hi .lo
.type = .u32 .s32 .u64 .s64
madc.hl{.cc}.type              d, s, s, s

# ------------------------------------------------------------------------------------- floating point
== fma
.rnd = .rn .rz .rm .rp
fma.rnd{.ftz}{.sat}.f32        d, s, s, s
fma.rnd{.ftz}.f32x2            d, s, s, s       [8.6 sm_100]
fma.rnd.f64                    d, s, s, s
fma.rn{.ftz}{.sat}.f16         d, s, s, s       [4.2 sm_53]
fma.rn{.ftz}{.sat}.f16x2       d, s, s, s       [4.2 sm_53]
fma.rn{.ftz}.relu.f16          d, s, s, s       [7.0 sm_80]
fma.rn{.ftz}.relu.f16x2        d, s, s, s       [7.0 sm_80]
fma.rn{.relu}.bf16             d, s, s, s       [7.0 sm_80]
fma.rn{.relu}.bf16x2           d, s, s, s       [7.0 sm_80]
fma.rnd{.sat}.f32.f16          d:f32, s:f16, s:f16, s:f32   [8.6 sm_100]
fma.rnd{.sat}.f32.bf16         d:f32, s:bf16, s:bf16, s:f32   [8.6 sm_100]

== rcp
.rnd = .rn .rz .rm .rp
rcp.approx{.ftz}.f32           d, s
rcp.rnd{.ftz}.f32              d, s
rcp.rnd.f64                    d, s
rcp.approx.ftz.f64             d, s

== sqrt
.rnd = .rn .rz .rm .rp
sqrt.approx{.ftz}.f32          d, s
sqrt.rnd{.ftz}.f32             d, s
sqrt.rnd.f64                   d, s

== rsqrt
rsqrt.approx{.ftz}.f32         d, s
rsqrt.approx{.ftz}.f64         d, s

== sin
sin.approx{.ftz}.f32           d, s

== cos
cos.approx{.ftz}.f32           d, s

== lg2
lg2.approx{.ftz}.f32           d, s

== ex2
.htype = .f16 .f16x2
.btype = .bf16 .bf16x2
ex2.approx{.ftz}.f32           d, s
ex2.approx.htype               d, s             [7.0 sm_75]
ex2.approx.ftz.btype           d, s             [7.8 sm_90]

== tanh
.type = .f16 .f32 .f16x2 .bf16[7.8 sm_90] .bf16x2[7.8 sm_90]
tanh.approx.type               d, s             [7.0 sm_75]

== copysign
.type = .f32 .f64
copysign.type                  d, s, s

== testp
.op = .finite .infinite .number .notanumber .normal .subnormal
.type = .f32 .f64
testp.op.type                  p, s

# ---------------------------------------------------------------------------------- compare and select
== setp
# the comparisons each type class takes (measured: `setp.geu.s32` and `setp.lo.s32` are rejected)
.bcmp = .eq .ne
.scmp = .eq .ne .lt .le .gt .ge
.ucmp = .eq .ne .lt .le .gt .ge .lo .ls .hi .hs
.fcmp = .eq .ne .lt .le .gt .ge .equ .neu .ltu .leu .gtu .geu .num .nan
.bop = .and .or .xor
.btype = .b16 .b32 .b64
.utype = .u16 .u32 .u64
.stype = .s16 .s32 .s64
setp.bcmp.btype                pq, s, s
setp.bcmp.bop.btype            pq, s, s, n
setp.ucmp.utype                pq, s, s
setp.ucmp.bop.utype            pq, s, s, n
setp.scmp.stype                pq, s, s
setp.scmp.bop.stype            pq, s, s, n
setp.fcmp{.ftz}.f32            pq, s, s
setp.fcmp.bop{.ftz}.f32        pq, s, s, n
setp.fcmp.f64                  pq, s, s
setp.fcmp.bop.f64              pq, s, s, n
setp.fcmp{.ftz}.f16            p, s, s          [4.2 sm_53]
setp.fcmp.bop{.ftz}.f16        p, s, s, n       [4.2 sm_53]
setp.fcmp{.ftz}.f16x2          pq, s, s         [4.2 sm_53]
setp.fcmp.bop{.ftz}.f16x2      pq, s, s, n      [4.2 sm_53]
setp.fcmp.bf16                 p, s, s          [7.8 sm_90]
setp.fcmp.bop.bf16             p, s, s, n       [7.8 sm_90]
setp.fcmp.bf16x2               pq, s, s         [7.8 sm_90]
setp.fcmp.bop.bf16x2           pq, s, s, n      [7.8 sm_90]

== set
.bcmp = .eq .ne
.scmp = .eq .ne .lt .le .gt .ge
.ucmp = .eq .ne .lt .le .gt .ge .lo .ls .hi .hs
.fcmp = .eq .ne .lt .le .gt .ge .equ .neu .ltu .leu .gtu .geu .num .nan
.bop = .and .or .xor
.dtype = .u32 .s32 .f32
.btype = .b16 .b32 .b64
.utype = .u16 .u32 .u64
.stype = .s16 .s32 .s64
set.bcmp{.bop}.dtype.btype            -
set.ucmp{.bop}.dtype.utype            -
set.scmp{.bop}.dtype.stype            -
set.fcmp{.bop}{.ftz}.dtype.f32        -
set.fcmp{.bop}.dtype.f64              -

== selp
.type = .b16 .b32 .b64 .u16 .u32 .u64 .s16 .s32 .s64 .f32 .f64
selp.type                      d, s, s, n

== slct
.dtype = .b16 .b32 .b64 .u16 .u32 .u64 .s16 .s32 .s64 .f32 .f64
slct.dtype.s32                 d:T0, s:T0, s:T0, s:s32
slct{.ftz}.dtype.f32           d:T0, s:T0, s:T0, s:f32

# --------------------------------------------------------------------------------------------- logic
== and
.type = .pred .b16 .b32 .b64
and.type                       d, s, s

== or
.type = .pred .b16 .b32 .b64
or.type                        d, s, s

== xor
.type = .pred .b16 .b32 .b64
xor.type                       d, s, s

== not
.type = .pred .b16 .b32 .b64
not.type                       d, s

== cnot
.type = .b16 .b32 .b64
cnot.type                      d, s

== lop3
.bop = .or .and
lop3.b32                       d, s, s, s, i
lop3.bop.b32                   -                [8.2 sm_70]

== shl
.type = .b16 .b32 .b64
shl.type                       d, s, s:u32

== shr
.type = .b16 .b32 .b64 .u16 .u32 .u64 .s16 .s32 .s64
shr.type                       d, s, s:u32

== shf
.dir = .l .r
.mode = .clamp .wrap
shf.dir.mode.b32               d, s, s, s:u32

== prmt
.mode = .f4e .b4e .rc8 .ecl .ecr .rc16
prmt.b32{.mode}                d, s, s, s

# ------------------------------------------------------------------------------------- data movement
== mov
.type = .pred .b16 .b32 .b64 .u16 .u32 .u64 .s16 .s32 .s64 .f32 .f64
.btype = .b16 .b32 .b64 .b128
mov.btype                      dp, sp
mov.type                       d, s

== cvt
# dtype <- atype (measured, ptxas 13.5): `x` no such conversion; rounding `-` none, `i`/`I` .rni .rzi .rmi .rpi
# required/optional, `f`/`F` .rn .rz .rm .rp required/optional; `z` .ftz allowed; `s` .sat allowed
%cvt      u8    u16   u32   u64   s8    s16   s32   s64   bf16  f16   f32   f64
%cvt u8   -     -s    -s    -s    -s    -s    -s    -s    x     is    izs   is
%cvt u16  -     -     -s    -s    -s    -s    -s    -s    i     is    izs   is
%cvt u32  -     -     -     -s    -s    -s    -s    -s    i     is    izs   is
%cvt u64  -     -     -     -     -s    -s    -s    -s    i     is    izs   is
%cvt s8   -s    -s    -s    -s    -     -s    -s    -s    x     is    izs   is
%cvt s16  -     -s    -s    -s    -     -     -s    -s    i     is    izs   is
%cvt s32  -     -     -s    -s    -     -     -     -s    i     is    izs   is
%cvt s64  -     -     -     -s    -     -     -     -     i     is    izs   is
%cvt bf16 x     f     f     f     x     f     f     f     I     F     fz    f
%cvt f16  fs    fs    fs    fs    fs    fs    fs    fs    F     Is    fzs   fs
%cvt f32  fzs   fzs   fzs   fzs   fzs   fzs   fzs   fzs   Fz    -zs   Izs   fzs
%cvt f64  fs    fs    fs    fs    fs    fs    fs    fs    F     -s    -zs   Is
%cvt-gate bf16.f32 7.0 sm_80
%cvt-gate f32.bf16 7.1 sm_80
%cvt-gate bf16 7.8 sm_90
.rnz = .rn .rz
cvt.rnz{.relu}{.satfinite}.f16x2.f32        d:b32, s:f32, s:f32 ~   [7.0 sm_80]
cvt.rnz{.relu}{.satfinite}.bf16x2.f32       d:b32, s:f32, s:f32 ~   [7.0 sm_80]
cvt.rna{.satfinite}.tf32.f32                d:b32, s:f32 ~          [7.0 sm_80]
cvt.rnz{.satfinite}{.relu}.tf32.f32         -                       [7.8 sm_90]
.f8x2 = .e4m3x2 .e5m2x2
cvt.rn.satfinite{.relu}.f8x2.f32            -                       [7.8 sm_89]
cvt.rn.satfinite{.relu}.f8x2.f16x2          -                       [7.8 sm_89]
cvt.rn{.relu}.f16x2.f8x2                    -                       [7.8 sm_89]

== cvta
.space = .const .global .local .shared .shared::cta[7.8] .shared::cluster[7.8 sm_90]
.space += .param[7.7 sm_70] .param::entry[8.3 sm_70]
# (`cvta.*.u32`: 32-bit addresses, which ptxas 13 no longer compiles)
cvta.space.u64                 d, s
cvta.to.space.u64              d, s

== ld
# The state space limits the other modifiers (measured): `.volatile` and the memory-model semantics need a
# generic, global or shared address; eviction priorities, cache hints and prefetch sizes a global one.
.ss = .const .global .local .param .shared .shared::cta[7.8] .shared::cluster[7.8 sm_90] .param::entry[8.3] .param::func[8.3]
.ms = .global .shared .shared::cta[7.8] .shared::cluster[7.8 sm_90]
.cop = .ca .cg .cs .lu .cv
.ncop = .ca .cg .cs
.l1 = .L1::evict_normal[7.4 sm_70] .L1::evict_unchanged[7.4 sm_70] .L1::evict_first[7.4 sm_70] .L1::evict_last[7.4 sm_70] .L1::no_allocate[7.4 sm_70]
.l2 = .L2::evict_normal .L2::evict_first .L2::evict_last
.hint = .L2::cache_hint[7.4 sm_80]
.pf = .L2::64B[7.4 sm_75] .L2::128B[7.4 sm_75]
.pf += .L2::256B[7.4 sm_80]
.scope = .cta .cluster[7.8 sm_90] .gpu .sys
.vec = .v2 .v4 .v8
.type = .b8 .b16 .b32 .b64 .b128[8.3 sm_70] .u8 .u16 .u32 .u64 .s8 .s16 .s32 .s64 .f32 .f64
.weak = .weak[6.0 sm_70]
ld{.weak}{.ss}{.cop}{.vec}.type                                    vd, m ~
ld{.weak}{.global}{.cop}{.hint}{.pf}{.vec}.type                    vd, m, s:b64?^L2::cache_hint ~
ld{.weak}{.global}{.l1}{.hint}{.pf}{.vec}.type                     vd, m, s:b64?^L2::cache_hint ~
ld{.weak}{.global}{.l1}.l2{.hint}{.pf}.v8.b32                      -
ld{.weak}{.global}{.l1}.l2{.hint}{.pf}.v4.b64                      -
ld.volatile{.ms}{.vec}.type                                        vd, m ~
ld.volatile{.global}{.pf}{.vec}.type                               vd, m ~
ld.volatile.local{.vec}.type                                       vd, m ~        [9.1]
ld.relaxed.scope{.ms}{.vec}.type                                   vd, m ~        [6.0 sm_70]
ld.relaxed.scope{.global}{.l1}{.hint}{.pf}{.vec}.type              vd, m, s:b64?^L2::cache_hint ~     [6.0 sm_70]
ld.acquire.scope{.ms}{.vec}.type                                   vd, m ~        [6.0 sm_70]
ld.acquire.scope{.global}{.l1}{.hint}{.pf}{.vec}.type              vd, m, s:b64?^L2::cache_hint ~     [6.0 sm_70]
ld.mmio.relaxed.sys{.global}.type                                  d, m ~         [8.2 sm_70]
ld.global{.ncop}.nc{.hint}{.pf}{.vec}.type                         vd, m, s:b64?^L2::cache_hint ~
ld.global.nc{.l1}{.hint}{.pf}{.vec}.type                           vd, m, s:b64?^L2::cache_hint ~

== ldu
.vec = .v2 .v4
.type = .b8 .b16 .b32 .b64 .b128 .u8 .u16 .u32 .u64 .s8 .s16 .s32 .s64 .f32 .f64
ldu{.global}{.vec}.type        vd, m ~

== st
.ss = .global .local .param .param::func[8.3] .shared .shared::cta[7.8] .shared::cluster[7.8 sm_90]
.ms = .global .shared .shared::cta[7.8] .shared::cluster[7.8 sm_90]
.cop = .wb .cg .cs .wt
.l1 = .L1::evict_normal[7.4 sm_70] .L1::evict_unchanged[7.4 sm_70] .L1::evict_first[7.4 sm_70] .L1::evict_last[7.4 sm_70] .L1::no_allocate[7.4 sm_70]
.l2 = .L2::evict_normal .L2::evict_first .L2::evict_last
.hint = .L2::cache_hint[7.4 sm_80]
.scope = .cta .cluster[7.8 sm_90] .gpu .sys
.vec = .v2 .v4 .v8
.type = .b8 .b16 .b32 .b64 .b128[8.3 sm_70] .u8 .u16 .u32 .u64 .s8 .s16 .s32 .s64 .f32 .f64
.weak = .weak[6.0 sm_70]
st{.weak}{.ss}{.cop}{.vec}.type                                    m, vs ~
st{.weak}{.global}{.cop}{.hint}{.vec}.type                         m, vs, s:b64?^L2::cache_hint ~
st{.weak}{.global}{.l1}{.hint}{.vec}.type                          m, vs, s:b64?^L2::cache_hint ~
st{.weak}{.global}{.l1}.l2{.hint}.v8.b32                           -
st{.weak}{.global}{.l1}.l2{.hint}.v4.b64                           -
st.volatile{.ms}{.vec}.type                                        m, vs ~
st.volatile.local{.vec}.type                                       m, vs ~        [9.1]
st.relaxed.scope{.ms}{.vec}.type                                   m, vs ~        [6.0 sm_70]
st.relaxed.scope{.global}{.l1}{.hint}{.vec}.type                   m, vs, s:b64?^L2::cache_hint ~     [6.0 sm_70]
st.release.scope{.ms}{.vec}.type                                   m, vs ~        [6.0 sm_70]
st.release.scope{.global}{.l1}{.hint}{.vec}.type                   m, vs, s:b64?^L2::cache_hint ~     [6.0 sm_70]
st.mmio.relaxed.sys{.global}.type                                  m, s ~         [8.2 sm_70]

== prefetch
.space = .global .local
.level = .L1 .L2
.ev = .L2::evict_last[7.4 sm_80] .L2::evict_normal[7.4 sm_80]
.tms = .const .param
prefetch{.space}.level         m
prefetch.global.ev             m
prefetch{.tms}.tensormap       m                 [8.0 sm_90]

== prefetchu
prefetchu.L1                   m

== isspacep
.space = .const .global .local .shared .shared::cta[7.8] .shared::cluster[7.8 sm_90]
.space += .param[7.7 sm_70] .param::entry[8.3 sm_70]
isspacep.space                 p, s:b64

== mapa
.type = .u32 .u64
mapa{.shared::cluster}.type    -                 [7.8 sm_90]

== getctarank
.type = .u32 .u64
getctarank{.shared::cluster}.type   -           [7.8 sm_90]

# ------------------------------------------------------------------------------------ control flow
== bra
bra{.uni}                      l

== brx
brx.idx{.uni}                  -

== call
call{.uni}                     -

== ret
ret{.uni}

== exit
exit

== trap
trap

== brkpt
brkpt

== nanosleep
nanosleep.u32                  s                 [6.2 sm_70]

== pmevent
pmevent{.mask}                 -

# ----------------------------------------------------------------------------------- synchronization
== bar
.op = .and .or
.cta = .cta[7.8]
bar{.cta}.sync                 s:u32, s:u32?
bar{.cta}.arrive               s:u32, s:u32
bar{.cta}.red.popc.u32         d, s:u32, n
bar{.cta}.red.popc.u32         d, s:u32, s:u32, n
bar{.cta}.red.op.pred          p, s:u32, n
bar{.cta}.red.op.pred          p, s:u32, s:u32, n

== bar.warp.sync
bar.warp.sync                  s:b32             [6.0]

== barrier
.op = .and .or
.cta = .cta[7.8]
barrier{.cta}.sync{.aligned}               s:u32, s:u32?        [6.0]
barrier{.cta}.arrive{.aligned}             s:u32, s:u32         [6.0]
barrier{.cta}.red.popc{.aligned}.u32       d, s:u32, n          [6.0]
barrier{.cta}.red.popc{.aligned}.u32       d, s:u32, s:u32, n   [6.0]
barrier{.cta}.red.op{.aligned}.pred        p, s:u32, n          [6.0]
barrier{.cta}.red.op{.aligned}.pred        p, s:u32, s:u32, n   [6.0]
.csem = .release[8.0] .relaxed[8.0]
barrier.cluster.arrive{.csem}{.aligned}         [7.8 sm_90]
barrier.cluster.wait{.acquire[8.0]}{.aligned}   [7.8 sm_90]

== membar
.level = .cta .gl .sys
membar.level
membar.proxy.alias             [7.5 sm_60]

== fence
.sem = .sc .acq_rel .acquire[8.6 sm_90] .release[8.6 sm_90]
.scope = .cta .cluster[7.8 sm_90] .gpu .sys
fence{.sem}.scope              [6.0 sm_70]
fence.proxy.alias              [7.5 sm_70]
fence.proxy.async              [8.0 sm_90]
fence.proxy.async.global       [8.0 sm_90]
fence.proxy.async.shared::cta  [8.0 sm_90]
fence.proxy.async.shared::cluster  [8.0 sm_90]
fence.mbarrier_init.release.cluster  [8.0 sm_90]
fence.proxy.tensormap::generic.release.scope            [8.3 sm_90]
fence.proxy.tensormap::generic.acquire.scope  m, i  [8.3 sm_90]

== atom
# the types each operation takes (measured: atom.add.s64, atom.min.f32 and atom.and.u32 are rejected)
.space = .global .shared .shared::cta[7.8] .shared::cluster[7.8 sm_90]
.sem = .relaxed[6.0 sm_70] .acquire[6.0 sm_70] .release[6.0 sm_70] .acq_rel[6.0 sm_70]
.scope = .cta[6.0 sm_60] .gpu[6.0 sm_60] .sys[6.0 sm_60]
.scope += .cluster[7.8 sm_90]
.hint = .L2::cache_hint[7.4 sm_80]
.bop = .and .or .xor
.btype = .b32 .b64
.mtype = .u32 .u64 .s32 .s64
.mm = .min .max
.id = .inc .dec
.atype = .u32 .u64 .s32 .f32 .f64[6.0 sm_60]
atom{.sem}{.scope}{.space}.bop{.hint}.btype           d, m, s, s:b64?^L2::cache_hint
atom{.sem}{.scope}{.space}.exch{.hint}.btype          d, m, s, s:b64?^L2::cache_hint
atom{.sem}{.scope}{.space}.cas.btype                  d, m, s, s
atom{.sem}{.scope}{.space}.add{.hint}.atype           d, m, s, s:b64?^L2::cache_hint
atom{.sem}{.scope}{.space}.id{.hint}.u32              d, m, s, s:b64?^L2::cache_hint
atom{.sem}{.scope}{.space}.mm{.hint}.mtype            d, m, s, s:b64?^L2::cache_hint
atom{.sem}{.scope}{.space}.cas.b16                    d, m, s, s        [6.3 sm_70]
atom{.sem}{.scope}{.space}.cas.b128                   d, m, s, s        [8.3 sm_90]
atom{.sem}{.scope}{.space}.exch{.hint}.b128           d, m, s, s:b64?^L2::cache_hint   [8.3 sm_90]
atom{.sem}{.scope}{.space}.add.noftz{.hint}.f16       d, m, s, s:b64?^L2::cache_hint   [6.3 sm_70]
atom{.sem}{.scope}{.space}.add.noftz{.hint}.f16x2     d, m, s, s:b64?^L2::cache_hint   [6.2 sm_60]
atom{.sem}{.scope}{.space}.add.noftz{.hint}.bf16      d, m, s, s:b64?^L2::cache_hint   [7.8 sm_90]
atom{.sem}{.scope}{.space}.add.noftz{.hint}.bf16x2    d, m, s, s:b64?^L2::cache_hint   [7.8 sm_90]

== red
.space = .global .shared .shared::cta[7.8] .shared::cluster[7.8 sm_90]
.sem = .relaxed[6.0 sm_70] .release[6.0 sm_70]
.scope = .cta[6.0 sm_60] .gpu[6.0 sm_60] .sys[6.0 sm_60]
.scope += .cluster[7.8 sm_90]
.hint = .L2::cache_hint[7.4 sm_80]
.bop = .and .or .xor
.btype = .b32 .b64
.mtype = .u32 .u64 .s32 .s64
.mm = .min .max
.id = .inc .dec
.atype = .u32 .u64 .s32 .f32 .f64[6.0 sm_60]
.v24 = .v2 .v4
.v248 = .v2 .v4 .v8
.hf = .f16 .bf16
.hf2 = .f16x2 .bf16x2
red{.sem}{.scope}{.space}.bop{.hint}.btype            m, s, s:b64?^L2::cache_hint
red{.sem}{.scope}{.space}.add{.hint}.atype            m, s, s:b64?^L2::cache_hint
red{.sem}{.scope}{.space}.id{.hint}.u32               m, s, s:b64?^L2::cache_hint
red{.sem}{.scope}{.space}.mm{.hint}.mtype             m, s, s:b64?^L2::cache_hint
red{.sem}{.scope}{.space}.add.noftz{.hint}.f16        m, s, s:b64?^L2::cache_hint   [6.3 sm_70]
red{.sem}{.scope}{.space}.add.noftz{.hint}.f16x2      m, s, s:b64?^L2::cache_hint   [6.2 sm_60]
red{.sem}{.scope}{.space}.add.noftz{.hint}.bf16       m, s, s:b64?^L2::cache_hint   [7.8 sm_90]
red{.sem}{.scope}{.space}.add.noftz{.hint}.bf16x2     m, s, s:b64?^L2::cache_hint   [7.8 sm_90]
red{.sem}{.scope}{.global}.add{.hint}.v24.f32                 m, vs, s:b64?^L2::cache_hint   [8.1 sm_90]
red{.sem}{.scope}{.global}.add.noftz{.hint}.v248.hf           m, vs, s:b64?^L2::cache_hint   [8.1 sm_90]
red{.sem}{.scope}{.global}.add.noftz{.hint}.v24.hf2           m, vs, s:b64?^L2::cache_hint   [8.1 sm_90]

== vote
.mode = .all .any .uni
vote.sync.mode.pred            p, n, s:b32       [6.0]
vote.sync.ballot.b32           d, n, s:b32       [6.0]
vote.mode.pred                 p, n              [-6.4 sm_70]
vote.ballot.b32                d, n              [-6.4 sm_70]

== shfl
.mode = .up .down .bfly .idx
shfl.sync.mode.b32             dq:b32, s, s:b32, s:b32, s:b32   [6.0]
shfl.mode.b32                  dq:b32, s, s:b32, s:b32          [-6.4 sm_70]

== activemask
activemask.b32                 d                 [6.2]

== redux
.iop = .add .min .max
.bop = .and .or .xor
.type = .u32 .s32
redux.sync.iop.type            d, r, s:b32      [7.0 sm_80]
redux.sync.bop.b32             d, r, s:b32      [7.0 sm_80]
redux.sync.fop{.abs}{.NaN}.f32  d, r, s:b32     [8.6 sm_100f]
.fop = .min .max

== match
.type = .b32 .b64
match.any.sync.type            d:b32, s, s:b32   [6.0 sm_70]
match.all.sync.type            dq:b32, s, s:b32      [6.0 sm_70]

== mbarrier
.state = .shared .shared::cta[7.8]
.xstate = .shared .shared::cta[7.8] .shared::cluster[8.0 sm_90]
.asem = .release[8.0] .relaxed[8.6 sm_90]
.ascope = .cta[8.0] .cluster[8.0 sm_90]
.wsem = .acquire[8.0] .relaxed[8.6 sm_90]
mbarrier.init{.state}.b64                                        m, s:b32             [7.0 sm_80]
mbarrier.inval{.state}.b64                                       m                    [7.0 sm_80]
mbarrier.arrive{.asem.ascope}{.state}.b64                      d_:b64, m            [7.0 sm_80]
mbarrier.arrive{.asem.ascope}{.state}.b64                      d_:b64, m, s:b32     [7.8 sm_90]
mbarrier.arrive{.asem.ascope}.shared::cluster.b64              z, m, s:b32?    [8.0 sm_90]
mbarrier.arrive.expect_tx{.asem.ascope}{.state}.b64            d_:b64, m, s:b32     [8.0 sm_90]
mbarrier.arrive.expect_tx{.asem.ascope}.shared::cluster.b64    z, m, s:b32     [8.0 sm_90]
mbarrier.arrive.noComplete{.release.cta}{.state}.b64           d:b64, m, s:b32      [7.0 sm_80]
mbarrier.arrive_drop{.asem.ascope}{.state}.b64                 d_:b64, m, s:b32?    [7.0 sm_80]
mbarrier.arrive_drop{.asem.ascope}.shared::cluster.b64         z, m, s:b32?    [8.0 sm_90]
mbarrier.arrive_drop.expect_tx{.asem.ascope}{.state}.b64       d_:b64, m, s:b32     [8.0 sm_90]
mbarrier.arrive_drop.noComplete{.release.cta}{.state}.b64      d:b64, m, s:b32      [7.0 sm_80]
mbarrier.expect_tx{.relaxed.ascope}{.xstate}.b64               m, s:b32             [8.0 sm_90]
mbarrier.complete_tx{.relaxed.ascope}{.xstate}.b64             m, s:b32             [8.0 sm_90]
mbarrier.test_wait{.wsem.ascope}{.state}.b64                   p, m, s:b64          [7.0 sm_80]
mbarrier.test_wait.parity{.wsem.ascope}{.state}.b64            p, m, s:b32          [7.1 sm_80]
mbarrier.try_wait{.wsem.ascope}{.state}.b64                    p, m, s:b64, s:b32?  [7.8 sm_90]
mbarrier.try_wait.parity{.wsem.ascope}{.state}.b64             p, m, s:b32, s:b32?  [7.8 sm_90]
mbarrier.pending_count.b64                                       d:b32, s:b64         [7.0 sm_80]

# ----------------------------------------------------------------------------------------- async copy
== cp.async
.state = .shared .shared::cta[7.8]
.hint = .L2::cache_hint[7.4]
.pf = .L2::64B[7.4] .L2::128B[7.4] .L2::256B[7.4]
.cpk = .ca .cg
cp.async.cpk.state.global{.pf}          m, m, i, s?              [7.0 sm_80]
cp.async.cpk.state.global.hint{.pf}     m, m, i, s:b64           [7.0 sm_80]
cp.async.cpk.state.global.hint{.pf}     m, m, i, s, s:b64        [7.0 sm_80]

== cp.async.commit_group
cp.async.commit_group                                            [7.0 sm_80]

== cp.async.wait_group
cp.async.wait_group            i                                 [7.0 sm_80]

== cp.async.wait_all
cp.async.wait_all                                                [7.0 sm_80]

== cp.async.mbarrier.arrive
.state = .shared .shared::cta[7.8]
cp.async.mbarrier.arrive{.noinc}{.state}.b64   m                 [7.0 sm_80]

== cp.async.bulk.commit_group
cp.async.bulk.commit_group                       [8.0 sm_90]

== cp.async.bulk.wait_group
cp.async.bulk.wait_group{.read}  i               [8.0 sm_90]

# ---------------------------------------------------------------------------------------- warp matrix
== ldmatrix
.num = .x1 .x2 .x4
.ss = .shared .shared::cta[7.8]
ldmatrix.sync.aligned.m8n8.num{.trans}{.ss}.b16  x, m     [6.5 sm_75]
ldmatrix.sync.aligned.m16n16.num.trans{.ss}.b8  x, m     [8.6 sm_100a]
.fmt = .b6x16_p32 .b4x16_p64
ldmatrix.sync.aligned.m8n16.num{.ss}.b8x16.fmt  x, m     [8.6 sm_100a]
ldmatrix.sync.aligned.m16n16.num.trans{.ss}.b8x16.fmt  x, m     [8.6 sm_100a]

== stmatrix
.num = .x1 .x2 .x4
.ss = .shared .shared::cta
stmatrix.sync.aligned.m8n8.num{.trans}{.ss}.b16  m, x     [7.8 sm_90]
stmatrix.sync.aligned.m16n8.num.trans{.ss}.b8  m, x     [8.6 sm_100a]

== movmatrix
movmatrix.sync.aligned.m8n8.trans.b16                       d:b32, s:b32   [7.8 sm_75]

== mma
.lay = .row .col
.fty = .f16 .f32
mma.sync.aligned.m8n8k4.lay.lay.fty.f16.f16.fty             x, x, x, x     [6.4 sm_70]
mma.sync.aligned.m16n8k8.row.col.fty.f16.f16.fty  x, x, x, x     [6.5 sm_75]
mma.sync.aligned.m16n8k16.row.col.fty.f16.f16.fty  x, x, x, x     [7.0 sm_80]
mma.sync.aligned.m16n8k4.row.col.f32.tf32.tf32.f32  x, x, x, x     [7.0 sm_80]
mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32  x, x, x, x     [7.0 sm_80]
mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32  x, x, x, x     [7.0 sm_80]
mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32  x, x, x, x     [7.0 sm_80]
.f8 = .e4m3 .e5m2
.f8shape = .m16n8k16 .m16n8k32
mma.sync.aligned.f8shape.row.col.fty.f8.f8.fty  x, x, x, x     [8.4 sm_89]
.f64shape = .m8n8k4 .m16n8k4 .m16n8k8 .m16n8k16
mma.sync.aligned.f64shape.row.col.f64.f64.f64.f64  x, x, x, x     [7.0 sm_80]
.i8shape = .m8n8k16 .m16n8k16 .m16n8k32
.i8 = .u8 .s8
mma.sync.aligned.i8shape.row.col{.satfinite}.s32.i8.i8.s32  x, x, x, x     [6.5 sm_75]
.i4shape = .m8n8k32 .m16n8k32 .m16n8k64
.i4 = .u4 .s4
mma.sync.aligned.i4shape.row.col{.satfinite}.s32.i4.i4.s32  x, x, x, x     [6.5 sm_75]
.b1shape = .m8n8k128 .m16n8k128 .m16n8k256
.bop = .xor .and
mma.sync.aligned.b1shape.row.col.s32.b1.b1.s32.bop.popc  x, x, x, x     [6.5 sm_75]

== wmma
.lay = .row .col
.ss = .global .shared .shared::cta[7.8]
.h16shape = .m16n16k16 .m8n32k16 .m32n8k16
.abtype = .f16 .s8 .u8
.ctype = .f16 .f32 .s32
wmma.load.a.sync.aligned.lay.h16shape{.ss}.abtype  x, m, s:u32?     [6.0 sm_70]
wmma.load.b.sync.aligned.lay.h16shape{.ss}.abtype  x, m, s:u32?     [6.0 sm_70]
wmma.load.c.sync.aligned.lay.h16shape{.ss}.ctype  x, m, s:u32?     [6.0 sm_70]
wmma.load.a.sync.aligned.lay.h16shape{.ss}.bf16  x, m, s:u32?     [7.0 sm_80]
wmma.load.b.sync.aligned.lay.h16shape{.ss}.bf16  x, m, s:u32?     [7.0 sm_80]
wmma.load.a.sync.aligned.lay.m16n16k8{.ss}.tf32  x, m, s:u32?     [7.0 sm_80]
wmma.load.b.sync.aligned.lay.m16n16k8{.ss}.tf32  x, m, s:u32?     [7.0 sm_80]
wmma.load.c.sync.aligned.lay.m16n16k8{.ss}.f32  x, m, s:u32?     [7.0 sm_80]
wmma.load.a.sync.aligned.lay.m8n8k4{.ss}.f64  x, m, s:u32?     [7.0 sm_80]
wmma.load.b.sync.aligned.lay.m8n8k4{.ss}.f64  x, m, s:u32?     [7.0 sm_80]
wmma.load.c.sync.aligned.lay.m8n8k4{.ss}.f64  x, m, s:u32?     [7.0 sm_80]
.i4 = .s4 .u4
wmma.load.a.sync.aligned.row.m8n8k32{.ss}.i4  x, m, s:u32?     [6.3 sm_75]
wmma.load.b.sync.aligned.col.m8n8k32{.ss}.i4  x, m, s:u32?     [6.3 sm_75]
wmma.load.c.sync.aligned.lay.m8n8k32{.ss}.s32  x, m, s:u32?     [6.3 sm_75]
wmma.load.a.sync.aligned.row.m8n8k128{.ss}.b1  x, m, s:u32?     [6.3 sm_75]
wmma.load.b.sync.aligned.col.m8n8k128{.ss}.b1  x, m, s:u32?     [6.3 sm_75]
wmma.load.c.sync.aligned.lay.m8n8k128{.ss}.s32  x, m, s:u32?     [6.3 sm_75]
wmma.store.d.sync.aligned.lay.h16shape{.ss}.ctype  m, x, s:u32?     [6.0 sm_70]
.dshape = .m8n8k32 .m8n8k128
wmma.store.d.sync.aligned.lay.dshape{.ss}.s32  m, x, s:u32?     [6.3 sm_75]
wmma.store.d.sync.aligned.lay.m16n16k8{.ss}.f32  m, x, s:u32?     [7.0 sm_80]
wmma.store.d.sync.aligned.lay.m8n8k4{.ss}.f64  m, x, s:u32?     [7.0 sm_80]
.fty = .f16 .f32
.i8 = .s8 .u8
.rnd = .rn .rz .rm .rp
wmma.mma.sync.aligned.lay.lay.h16shape.fty.fty  x, x, x, x     [6.0 sm_70]
wmma.mma.sync.aligned.lay.lay.h16shape.s32.i8.i8.s32{.satfinite}  x, x, x, x     [6.3 sm_75]
wmma.mma.sync.aligned.lay.lay.h16shape.f32.bf16.bf16.f32  x, x, x, x     [7.0 sm_80]
wmma.mma.sync.aligned.lay.lay.m16n16k8.f32.tf32.tf32.f32  x, x, x, x     [7.0 sm_80]
wmma.mma.sync.aligned.lay.lay.m8n8k4{.rnd}.f64.f64.f64.f64  x, x, x, x     [7.0 sm_80]
wmma.mma.sync.aligned.row.col.m8n8k32.s32.i4.i4.s32{.satfinite}  x, x, x, x     [6.3 sm_75]
.bop = .xor .and
wmma.mma.bop.popc.sync.aligned.row.col.m8n8k128.s32.b1.b1.s32  x, x, x, x     [6.3 sm_75]

== wgmma
.f16n = .m64n8k16 .m64n16k16 .m64n24k16 .m64n32k16 .m64n40k16 .m64n48k16 .m64n56k16 .m64n64k16 .m64n72k16 .m64n80k16 .m64n88k16 .m64n96k16 .m64n104k16 .m64n112k16 .m64n120k16 .m64n128k16 .m64n136k16 .m64n144k16 .m64n152k16 .m64n160k16 .m64n168k16 .m64n176k16 .m64n184k16 .m64n192k16 .m64n200k16 .m64n208k16 .m64n216k16 .m64n224k16 .m64n232k16 .m64n240k16 .m64n248k16 .m64n256k16
.tf32n = .m64n8k8 .m64n16k8 .m64n24k8 .m64n32k8 .m64n40k8 .m64n48k8 .m64n56k8 .m64n64k8 .m64n72k8 .m64n80k8 .m64n88k8 .m64n96k8 .m64n104k8 .m64n112k8 .m64n120k8 .m64n128k8 .m64n136k8 .m64n144k8 .m64n152k8 .m64n160k8 .m64n168k8 .m64n176k8 .m64n184k8 .m64n192k8 .m64n200k8 .m64n208k8 .m64n216k8 .m64n224k8 .m64n232k8 .m64n240k8 .m64n248k8 .m64n256k8
.f8n = .m64n8k32 .m64n16k32 .m64n24k32 .m64n32k32 .m64n40k32 .m64n48k32 .m64n56k32 .m64n64k32 .m64n72k32 .m64n80k32 .m64n88k32 .m64n96k32 .m64n104k32 .m64n112k32 .m64n120k32 .m64n128k32 .m64n136k32 .m64n144k32 .m64n152k32 .m64n160k32 .m64n168k32 .m64n176k32 .m64n184k32 .m64n192k32 .m64n200k32 .m64n208k32 .m64n216k32 .m64n224k32 .m64n232k32 .m64n240k32 .m64n248k32 .m64n256k32
.i8n = .m64n8k32 .m64n16k32 .m64n24k32 .m64n32k32 .m64n48k32 .m64n64k32 .m64n80k32 .m64n96k32 .m64n112k32 .m64n128k32 .m64n144k32 .m64n160k32 .m64n176k32 .m64n192k32 .m64n208k32 .m64n224k32
.b1n = .m64n8k256 .m64n16k256 .m64n24k256 .m64n32k256 .m64n48k256 .m64n64k256 .m64n80k256 .m64n96k256 .m64n112k256 .m64n128k256 .m64n144k256 .m64n160k256 .m64n176k256 .m64n192k256 .m64n208k256 .m64n224k256 .m64n240k256 .m64n256k256
.fty = .f16 .f32
.f8 = .e4m3 .e5m2
.i8 = .s8 .u8
wgmma.mma_async.sync.aligned.f16n.fty.f16.f16               -     [8.0 sm_90a]
wgmma.mma_async.sync.aligned.f16n.f32.bf16.bf16             -     [8.0 sm_90a]
wgmma.mma_async.sync.aligned.tf32n.f32.tf32.tf32            -     [8.0 sm_90a]
wgmma.mma_async.sync.aligned.f8n.fty.f8.f8                  -     [8.0 sm_90a]
wgmma.mma_async.sync.aligned.i8n{.satfinite}.s32.i8.i8      -     [8.0 sm_90a]
wgmma.mma_async.sync.aligned.b1n.s32.b1.b1.and.popc         -     [8.0 sm_90a]
wgmma.fence.sync.aligned                                    [8.0 sm_90a]
wgmma.commit_group.sync.aligned                             [8.0 sm_90a]
wgmma.wait_group.sync.aligned   i                           [8.0 sm_90a]

== tcgen05
.cg = .cta_group::1 .cta_group::2
tcgen05.alloc.cg.sync.aligned{.shared::cta}.b32             m, s:b32        [8.6 sm_100a]
tcgen05.dealloc.cg.sync.aligned.b32                         s:b32, s:b32    [8.6 sm_100a]
tcgen05.relinquish_alloc_permit.cg.sync.aligned                             [8.6 sm_100a]
.mc = .multicast::cluster
tcgen05.commit.cg.mbarrier::arrive::one{.shared::cluster}{.mc}.b64   m, s:b16?^multicast::cluster   [8.6 sm_100a]
.cpshape = .128x256b .4x256b .128x128b .64x128b .32x128b
.cpmc = .warpx2::02_13 .warpx2::01_23 .warpx4
.cpfmt = .b6x16_p32 .b4x16_p64
tcgen05.cp.cg.cpshape{.cpmc}                                -     [8.6 sm_100a]
tcgen05.cp.cg.cpshape{.cpmc}.b8x16.cpfmt                    -     [8.6 sm_100a]
tcgen05.fence::before_thread_sync                                           [8.6 sm_100a]
tcgen05.fence::after_thread_sync                                            [8.6 sm_100a]
.ldshape = .16x64b .16x128b .16x256b .32x32b
.num = .x1 .x2 .x4 .x8 .x16 .x32 .x64 .x128
tcgen05.ld.sync.aligned.ldshape.num{.pack::16b}.b32         -     [8.6 sm_100a]
tcgen05.ld.sync.aligned.16x32bx2.num{.pack::16b}.b32        -     [8.6 sm_100a]
tcgen05.st.sync.aligned.ldshape.num{.unpack::16b}.b32       -     [8.6 sm_100a]
tcgen05.st.sync.aligned.16x32bx2.num{.unpack::16b}.b32      -     [8.6 sm_100a]
tcgen05.wait::ld.sync.aligned                                               [8.6 sm_100a]
tcgen05.wait::st.sync.aligned                                               [8.6 sm_100a]
tcgen05.shift.cg.down                                       mt    [8.6 sm_100a_only]
.kind = .kind::f16 .kind::tf32 .kind::f8f6f4 .kind::i8
.bkind = .kind::mxf8f6f4 .kind::mxf4 .kind::mxf4nvf4
.svec = .scale_vec::1X .scale_vec::2X .scale_vec::4X .block16 .block32
.coll = .collector::a::fill .collector::a::use .collector::a::lastuse .collector::a::discard
tcgen05.mma.cg.kind{.ashift}{.coll}                         -     [8.6 sm_100a]
tcgen05.mma.cg.bkind.block_scale{.svec}{.coll}              -     [8.6 sm_100a]
tcgen05.mma.sp.cg.kind{.ashift}{.coll}                      -     [8.6 sm_100a]
tcgen05.mma.sp.cg.bkind.block_scale{.svec}{.coll}           -     [8.6 sm_100a]
tcgen05.mma.ws.cg.kind{.coll}                               -     [8.6 sm_100a]
tcgen05.mma.ws.sp.cg.kind{.coll}                            -     [8.6 sm_100a]

# --------------------------------------------------------------------------------- bulk async (sm_90)
== cp.async.bulk
.hint = .L2::cache_hint
cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes{.multicast::cluster}{.hint}   -  [8.0 sm_90]
cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes{.hint}         -  [8.6 sm_90]
cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes       -  [8.0 sm_90]
cp.async.bulk.global.shared::cta.bulk_group{.hint}{.cp_mask}                 -  [8.0 sm_90]

== cp.async.bulk.prefetch
cp.async.bulk.prefetch.L2.global{.L2::cache_hint}                            -  [8.0 sm_90]

== cp.async.bulk.tensor
.dim = .1d .2d .3d .4d .5d
.lmode = .tile .tile::gather4 .im2col .im2col::w .im2col::w::128
.smode = .tile .tile::scatter4 .im2col_no_offs
.cg = .cta_group::1[8.6 sm_100a] .cta_group::2[8.6 sm_100a]
.hint = .L2::cache_hint
cp.async.bulk.tensor.dim.shared::cluster.global{.lmode}.mbarrier::complete_tx::bytes{.multicast::cluster}{.cg}{.hint}  -  [8.0 sm_90]
cp.async.bulk.tensor.dim.shared::cta.global{.lmode}.mbarrier::complete_tx::bytes{.cg}{.hint}   -  [8.6 sm_90]
cp.async.bulk.tensor.dim.global.shared::cta{.smode}.bulk_group{.hint}        -  [8.0 sm_90]

== cp.async.bulk.prefetch.tensor
.dim = .1d .2d .3d .4d .5d
.lmode = .tile .tile::gather4 .im2col .im2col::w .im2col::w::128
cp.async.bulk.prefetch.tensor.dim.L2.global{.lmode}{.L2::cache_hint}         -  [8.0 sm_90]

== cp.reduce.async.bulk
.op = .and .or .xor .add .inc .dec .min .max
.t1 = .b32 .u32 .s32 .b64 .u64
.t2 = .f16 .bf16 .b32 .u32 .s32 .b64 .u64 .s64 .f32 .f64
cp.reduce.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes.op.t1   -  [8.0 sm_90]
cp.reduce.async.bulk.global.shared::cta.bulk_group{.L2::cache_hint}.op.t2            -  [8.0 sm_90]
.h = .f16 .bf16
cp.reduce.async.bulk.global.shared::cta.bulk_group{.L2::cache_hint}.add.noftz.h      -  [8.0 sm_90]

== cp.reduce.async.bulk.tensor
.dim = .1d .2d .3d .4d .5d
.op = .add .min .max .inc .dec .and .or .xor
.mode = .tile .im2col_no_offs
cp.reduce.async.bulk.tensor.dim.global.shared::cta.op{.mode}.bulk_group{.L2::cache_hint}   -  [8.0 sm_90]

== tensormap
.f1 = .global_address .rank
.f2 = .box_dim .global_dim .global_stride .element_stride
.f3 = .elemtype .interleave_layout .swizzle_mode .swizzle_atomicity .fill_mode
.ss = .global .shared::cta
.ty = .b32 .b64
tensormap.replace.tile.f1{.ss}.b1024.ty                     -               [8.3 arch_specific]
tensormap.replace.tile.f2{.ss}.b1024.ty                     -               [8.3 arch_specific]
tensormap.replace.tile.f3{.ss}.b1024.ty                     -               [8.3 arch_specific]
.scope = .cta .cluster .gpu .sys
tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.scope.sync.aligned   -   [8.3 sm_90]

== st.async
.ty = .b32 .b64 .u32 .u64 .s32 .s64 .f32 .f64
.vec = .v2 .v4
st.async{.weak}{.cluster}{.shared::cluster}{.mbarrier::complete_tx::bytes}{.vec}.ty   -   [8.1 sm_90]

== red.async
.op = .inc .dec .min .max .add .and .or .xor
.ty = .u32 .s32 .b32 .u64 .s64 .b64
red.async.relaxed.cluster{.shared::cluster}.mbarrier::complete_tx::bytes.op.ty      -   [8.1 sm_90]

== elect
elect.sync                     dP:b32, s:b32     [8.0 sm_90]

== griddepcontrol
.action = .launch_dependents .wait
griddepcontrol.action                            [7.8 sm_90]

== setmaxnreg
.action = .inc .dec
setmaxnreg.action.sync.aligned.u32   i           [8.0 arch_specific]

== stacksave
.type = .u32 .u64
stacksave.type                 d                 [7.3 sm_52]

== stackrestore
.type = .u32 .u64
stackrestore.type              s                 [7.3 sm_52]

== alloca
.type = .u32 .u64
alloca.type                    -                 [7.3 sm_52]

== discard
discard{.global}.L2            m, i              [7.4 sm_80]

== applypriority
applypriority{.global}.L2::evict_normal    m, i  [7.4 sm_80]

== createpolicy
.pri = .L2::evict_last .L2::evict_normal .L2::evict_first .L2::evict_unchanged
.sec = .L2::evict_first .L2::evict_unchanged
createpolicy.range{.global}.pri{.sec}.b64       -   [7.4 sm_80]
createpolicy.fractional.pri{.sec}.b64           -   [7.4 sm_80]
createpolicy.cvt.L2.b64                         -   [7.4 sm_80]

# ------------------------------------------------------------------------ video (operands not checked)

== vadd
.t = .u32 .s32
.op2 = .add .min .max
vadd.t.t.t{.sat}{.op2}          -

== vsub
.t = .u32 .s32
.op2 = .add .min .max
vsub.t.t.t{.sat}{.op2}          -

== vabsdiff
.t = .u32 .s32
.op2 = .add .min .max
vabsdiff.t.t.t{.sat}{.op2}          -

== vmin
.t = .u32 .s32
.op2 = .add .min .max
vmin.t.t.t{.sat}{.op2}          -

== vmax
.t = .u32 .s32
.op2 = .add .min .max
vmax.t.t.t{.sat}{.op2}          -

== vadd2
.t = .u32 .s32
vadd2.t.t.t{.sat}                  -
vadd2.t.t.t.add                    -

== vsub2
.t = .u32 .s32
vsub2.t.t.t{.sat}                  -
vsub2.t.t.t.add                    -

== vavrg2
.t = .u32 .s32
vavrg2.t.t.t{.sat}                  -
vavrg2.t.t.t.add                    -

== vabsdiff2
.t = .u32 .s32
vabsdiff2.t.t.t{.sat}                  -
vabsdiff2.t.t.t.add                    -

== vmin2
.t = .u32 .s32
vmin2.t.t.t{.sat}                  -
vmin2.t.t.t.add                    -

== vmax2
.t = .u32 .s32
vmax2.t.t.t{.sat}                  -
vmax2.t.t.t.add                    -

== vadd4
.t = .u32 .s32
vadd4.t.t.t{.sat}                  -
vadd4.t.t.t.add                    -

== vsub4
.t = .u32 .s32
vsub4.t.t.t{.sat}                  -
vsub4.t.t.t.add                    -

== vavrg4
.t = .u32 .s32
vavrg4.t.t.t{.sat}                  -
vavrg4.t.t.t.add                    -

== vabsdiff4
.t = .u32 .s32
vabsdiff4.t.t.t{.sat}                  -
vabsdiff4.t.t.t.add                    -

== vmin4
.t = .u32 .s32
vmin4.t.t.t{.sat}                  -
vmin4.t.t.t.add                    -

== vmax4
.t = .u32 .s32
vmax4.t.t.t{.sat}                  -
vmax4.t.t.t.add                    -

== vset
.t = .u32 .s32
.cmp = .eq .ne .lt .le .gt .ge
.op2 = .add .min .max
vset.t.t.cmp{.op2}               -

== vset2
.t = .u32 .s32
.cmp = .eq .ne .lt .le .gt .ge
vset2.t.t.cmp{.add}              -

== vset4
.t = .u32 .s32
.cmp = .eq .ne .lt .le .gt .ge
vset4.t.t.cmp{.add}              -

== vmad
.t = .u32 .s32
.scale = .shr7 .shr15
vmad.t.t.t{.po}{.sat}{.scale}    -

== vshl
.t = .u32 .s32
.mode = .clamp .wrap
.op2 = .add .min .max
vshl.t.t.u32{.sat}.mode{.op2}    -

== vshr
.t = .u32 .s32
.mode = .clamp .wrap
.op2 = .add .min .max
vshr.t.t.u32{.sat}.mode{.op2}    -

== tex
# (operands not checked; `.cube`/`.acube` with .f32 coordinates and `.2dms`/`.a2dms` with .s32 are not
# modelled: the coordinate type is any of the two)
.geom = .1d .2d .3d .a1d .a2d .cube .acube .2dms .a2dms
.dtype = .u32 .s32 .f16 .f32
.ctype = .s32 .f32
.mip = .base .level .grad
tex{.mip}.geom.v4.dtype.ctype           -
tex{.mip}.geom.v2.f16x2.ctype           -
"""

#: Special registers (PTX ISA chapter 10): name, type, the fields a vector one takes, and a gate
#: (measured with ptxas 13.5: `%tid.w` exists; `%envreg0`..`%envreg31`, `%pm0`..`%pm7` and `%pm0_64`..
#: `%pm7_64` are numbered families). Only `mov` and `cvt` take a special register as an operand.
SPECIAL_REGISTERS_TEXT = r"""
tid u32 xyzw
ntid u32 xyzw
ctaid u32 xyzw
nctaid u32 xyzw
laneid u32 -
warpid u32 -
nwarpid u32 -
smid u32 -
nsmid u32 -
gridid u64 -
lanemask_eq u32 -
lanemask_le u32 -
lanemask_lt u32 -
lanemask_ge u32 -
lanemask_gt u32 -
clock u32 -
clock_hi u32 -
clock64 u64 -
globaltimer u64 -
globaltimer_lo u32 -
globaltimer_hi u32 -
total_smem_size u32 -
dynamic_smem_size u32 -
aggr_smem_size u32 -      [8.1 sm_90]
reserved_smem_offset_begin b32 -    [7.6]
reserved_smem_offset_end b32 -      [7.6]
reserved_smem_offset_cap b32 -      [7.6]
reserved_smem_offset_0 b32 -        [7.6]
reserved_smem_offset_1 b32 -        [7.6]
current_graph_exec u64 -  [8.0]
is_explicit_cluster pred -          [7.8 sm_90]
clusterid u32 xyzw                  [7.8 sm_90]
nclusterid u32 xyzw                 [7.8 sm_90]
cluster_ctaid u32 xyzw              [7.8 sm_90]
cluster_nctaid u32 xyzw             [7.8 sm_90]
cluster_ctarank u32 -               [7.8 sm_90]
cluster_nctarank u32 -              [7.8 sm_90]
envreg# b32 -                       # 0 .. 31
pm# u32 -                           # 0 .. 7
pm#_64 u64 -                        # 0 .. 7
"""
