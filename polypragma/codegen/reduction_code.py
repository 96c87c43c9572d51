"""Kernel code of parallel reductions (:mod:`polypragma.reductions`), for CUDA and OpenCL alike.

A reduction whose updates of a launch all go to one element (a sum into a scalar, a dot product, a
row's sum when the row loop is on the host, a minimum or a maximum) is accumulated by each thread in
a register, from the operator's identity; at the end of the kernel the block combines its threads'
values (CUDA: warp shuffles, then the warps' values in the first warp, for a block of whole warps;
else, and on OpenCL, a tree in shared (local) memory), and one thread combines the block's value with
the element with one atomic update.
The element's value from before the launch is thus combined exactly once, and the order of the
combination is the only difference from the sequential sum.  Any other reduction updates its
elements with one atomic operation each: on the block's own copy in shared memory, merged into the array
at the kernel's end, where :mod:`polypragma.gpu.block_copies` gives the array one (a histogram of 32-bit
integers with few bins), else on the array itself.

Atomics are helper macros, one per operator and type: the hardware's own where there is one (CUDA's
``atomicAdd`` on int, float and double, sm_60 and later, and its ``atomicOr``, ``atomicAnd`` and
``atomicXor`` on 32- and 64-bit integers; OpenCL 1.1's ``atomic_add``, ``atomic_min``, ``atomic_max``,
``atomic_or``, ``atomic_and`` and ``atomic_xor`` on 32-bit integers), else a compare-and-swap loop on the value's bits (OpenCL's
64-bit one needs ``cl_khr_int64_base_atomics``: a device without it fails to build the program, and
the region's original loops run instead, with a message).
"""

from __future__ import annotations

import islpy as isl

from polypragma.gpu.block_copies import block_copy
from polypragma.gpu.mapping import Kernel, KernelReduction
from polypragma.isl_helpers import coalesced
from polypragma.model import _plain_c, c_expression

# the identity of each operator a thread starts from (-0.0 for floating-point sums: x + -0.0 is x for
# every x, -0.0 included); for the minimum and maximum, the type's largest and smallest values, written
# without a header (infinities from their bits on CUDA, OpenCL C's INFINITY)
IDENTITY = {"+": "0", "*": "1", "|": "0", "^": "0"}
# (and every bit set for '&')
_ALL_ONES = {"int": "(-1)", "unsigned int": "4294967295u", "long": "(-1L)", "unsigned long": "18446744073709551615UL"}
FLOAT_IDENTITY = {"double": "-0.0", "float": "-0.0f"}
_LARGEST = {"int": "2147483647", "unsigned int": "4294967295u", "long": "9223372036854775807L",
            "unsigned long": "18446744073709551615UL"}
_SMALLEST = {"int": "(-2147483647 - 1)", "unsigned int": "0u", "long": "(-9223372036854775807L - 1)",
             "unsigned long": "0UL"}
_CUDA_INFINITY = {"double": "__longlong_as_double(0x7ff0000000000000LL)", "float": "__int_as_float(0x7f800000)"}
_OPENCL_INFINITY = {"double": "((double)INFINITY)", "float": "INFINITY"}


def identity(kr: KernelReduction, opencl: bool) -> str:
    return _identity(kr.reduction.op, _type(kr.reduction.element_type), opencl)


def _identity(op: str, ctype: str, opencl: bool) -> str:
    if op in ("min", "max"):
        infinity = (_OPENCL_INFINITY if opencl else _CUDA_INFINITY).get(ctype)
        if infinity is not None:
            return infinity if op == "min" else f"(-{infinity})"
        return (_LARGEST if op == "min" else _SMALLEST)[ctype]
    if op == "&":
        return _ALL_ONES[ctype]
    return FLOAT_IDENTITY[ctype] if op == "+" and ctype in FLOAT_IDENTITY else IDENTITY[op]


_WORD = {4: ("unsigned int", "uint"), 8: ("unsigned long long", "ulong")}
_SIZE = {"int": 4, "unsigned int": 4, "unsigned": 4, "float": 4, "long": 8, "unsigned long": 8, "double": 8}
_NAMES = {"+": "add", "*": "mul", "min": "min", "max": "max", "|": "or", "&": "and", "^": "xor"}

# CUDA's own atomics: (op, type) -> call on (p, v)
_CUDA_NATIVE = {
    ("+", "int"): "atomicAdd((p), (v))", ("+", "unsigned int"): "atomicAdd((p), (v))",
    ("+", "float"): "atomicAdd((p), (v))", ("+", "double"): "atomicAdd((p), (v))",
    ("+", "long"): "atomicAdd((unsigned long long *)(p), (unsigned long long)(v))",
    ("+", "unsigned long"): "atomicAdd((unsigned long long *)(p), (unsigned long long)(v))",
    ("min", "int"): "atomicMin((p), (v))", ("max", "int"): "atomicMax((p), (v))",
    ("min", "unsigned int"): "atomicMin((p), (v))", ("max", "unsigned int"): "atomicMax((p), (v))",
    ("min", "long"): "atomicMin((long long *)(p), (long long)(v))",
    ("max", "long"): "atomicMax((long long *)(p), (long long)(v))",
    ("min", "unsigned long"): "atomicMin((unsigned long long *)(p), (unsigned long long)(v))",
    ("max", "unsigned long"): "atomicMax((unsigned long long *)(p), (unsigned long long)(v))",
    **{(op, ctype): f"{call}((p), (v))" for op, call in (("|", "atomicOr"), ("&", "atomicAnd"), ("^", "atomicXor"))
       for ctype in ("int", "unsigned int")},
    **{(op, ctype): f"{call}((unsigned long long *)(p), (unsigned long long)(v))"
       for op, call in (("|", "atomicOr"), ("&", "atomicAnd"), ("^", "atomicXor")) for ctype in ("long", "unsigned long")},
}
_OPENCL_NATIVE = {
    ("+", "int"): "atomic_add((volatile __global int *)(p), (v))",
    ("+", "unsigned int"): "atomic_add((volatile __global uint *)(p), (v))",
    ("min", "int"): "atomic_min((volatile __global int *)(p), (v))",
    ("max", "int"): "atomic_max((volatile __global int *)(p), (v))",
    ("min", "unsigned int"): "atomic_min((volatile __global uint *)(p), (v))",
    ("max", "unsigned int"): "atomic_max((volatile __global uint *)(p), (v))",
    **{(op, ctype): f"{call}((volatile __global {word} *)(p), (v))"
       for op, call in (("|", "atomic_or"), ("&", "atomic_and"), ("^", "atomic_xor"))
       for ctype, word in (("int", "int"), ("unsigned int", "uint"))},
}

# in the OpenCL program, before the first 64-bit compare-and-swap
OPENCL_INT64_ATOMICS = [
    "#ifdef cl_khr_int64_base_atomics",
    "#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable",
    "#else",
    "#error \"polypragma: a parallel reduction needs cl_khr_int64_base_atomics, which this device lacks; the "
    "original loops run instead (or generate the code with --no-reductions)\"",
    "#endif",
]


def combine(op: str, a: str, b: str) -> str:
    if op in ("+", "*", "|", "&", "^"):
        return f"{a} {op} {b}"
    return f"({b} {'<' if op == 'min' else '>'} {a} ? {b} : {a})"


def _type(ctype: str) -> str:
    return "unsigned int" if ctype == "unsigned" else ctype


def atomic_name(op: str, ctype: str, local: bool = False) -> str:
    """The macro of an atomic update (``local``: of OpenCL's local memory, a block copy's)."""
    return f"polypragma_atomic_{_NAMES[op]}_{_type(ctype).replace(' ', '_')}{'_local' if local else ''}"


def atomic_macro(op: str, ctype: str, opencl: bool, local: bool = False) -> str:
    """The definition of the macro ``atomic_name(op, ctype, local)(p, v)``: ``*p = *p op v``, atomically
    (``local``: on OpenCL's local memory, for the 32-bit integers of BLOCK_COPY_TYPES)."""
    ctype = _type(ctype)
    name = atomic_name(op, ctype, local)
    native = (_OPENCL_NATIVE if opencl else _CUDA_NATIVE).get((op, ctype))
    if native is not None:
        return f"#define {name}(p, v) {native.replace('__global', '__local') if local else native}"
    word_c, word_cl = _WORD[_SIZE[ctype]]
    word = word_cl if opencl else word_c
    space = "__global " if opencl else ""
    if opencl:
        swap = "atom_cmpxchg" if _SIZE[ctype] == 8 else "atomic_cmpxchg"
        call = f"{swap}((volatile __global {word} *)(p), polypragma_old.bits, polypragma_new.bits)"
    else:
        call = f"atomicCAS(({word} *)(p), polypragma_old.bits, polypragma_new.bits)"
    return (f"#define {name}(p, v) do {{ const {ctype} polypragma_v = (v); "
            f"union {{ {ctype} value; {word} bits; }} polypragma_old, polypragma_new; "
            f"polypragma_old.value = *(volatile {space}{ctype} *)(p); "
            f"for (;;) {{ polypragma_new.value = {combine(op, 'polypragma_old.value', 'polypragma_v')}; "
            f"const {word} polypragma_seen = {call}; "
            "if (polypragma_seen == polypragma_old.bits) break; polypragma_old.bits = polypragma_seen; } } while (0)")


def warp_atomic_name(op: str, ctype: str) -> str:
    """The macro of an atomic update combined first among the warp's threads that update the same element."""
    return atomic_name(op, ctype).replace("polypragma_atomic_", "polypragma_warp_atomic_", 1)


def warp_atomic_macro(op: str, ctype: str) -> str:
    """The definition of ``warp_atomic_name(op, ctype)(p, v)`` (CUDA): the threads of the warp that run it
    together (``__activemask``) and update the same element (``__match_any_sync``) combine their values
    with shuffles (five steps where that is the whole warp), and the first of them makes the one atomic
    update (:func:`atomic_macro`, which the code must use too); before sm_70, which has no
    ``__match_any_sync``, each thread makes its own.  A reduction spread along a warp's ``x`` whose element
    the warp's threads share (a fused kernel's ``q[i] += A[i][j] * p[j]``, gpu/fuse.py) thus makes one
    atomic update a warp and a step instead of 32 on one element."""
    ctype = _type(ctype)
    name, atomic = warp_atomic_name(op, ctype), atomic_name(op, ctype)
    full = "0xffffffffu"

    def combined(into: str, value: str) -> str:
        return f"{{ const {ctype} polypragma_o = {value}; {into} = {combine(op, into, 'polypragma_o')}; }}"

    body = (
        f"do {{ {ctype} *const polypragma_wp = (p); {ctype} polypragma_wv = (v); unsigned polypragma_lane; "
        'asm("mov.u32 %0, %%laneid;" : "=r"(polypragma_lane)); '
        "const unsigned polypragma_peers = __match_any_sync(__activemask(), (unsigned long long)polypragma_wp); "
        f"if (polypragma_peers == {full}) {{ "
        "for (int polypragma_s = 16; polypragma_s > 0; polypragma_s >>= 1) "
        f"{combined('polypragma_wv', f'__shfl_xor_sync({full}, polypragma_wv, polypragma_s)')} "
        f"}} else {{ {ctype} polypragma_ws = {_identity(op, ctype, False)}; "
        "for (unsigned polypragma_m = polypragma_peers; polypragma_m; polypragma_m &= polypragma_m - 1) "
        f"{combined('polypragma_ws', '__shfl_sync(polypragma_peers, polypragma_wv, __ffs(polypragma_m) - 1)')} "
        "polypragma_wv = polypragma_ws; } "
        f"if ((int)polypragma_lane == __ffs(polypragma_peers) - 1) {atomic}(polypragma_wp, polypragma_wv); }} while (0)")
    return "\n".join(["#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700", f"#define {name}(p, v) {body}", "#else",
                      f"#define {name}(p, v) {atomic}((p), (v))", "#endif"])


def _merge_name(r, macros: set[str], opencl: bool) -> str:
    """The macro that merges a thread's run of updates into its element (adding its definitions to
    ``macros``): on CUDA, combined in the warp first (:func:`warp_atomic_macro`)."""
    macros.add(atomic_macro(r.op, r.element_type, opencl))
    if opencl:
        return atomic_name(r.op, r.element_type)
    macros.add(warp_atomic_macro(r.op, r.element_type))
    return warp_atomic_name(r.op, r.element_type)


def accumulator(k: int) -> str:
    """The register of the ``k``-th reduction of a kernel."""
    return f"polypragma_reduction{k}"


def update(k: int, reduction: KernelReduction, target: str, operand: str, opencl: bool, macros: set[str],
           local: bool = False) -> str:
    """The statement of one update: into the thread's register, or atomic on the element ``target`` (``local``:
    of the block's copy in shared memory, :func:`block_copies`)."""
    r = reduction.reduction
    value = f"-({operand})" if r.negate else f"({operand})"
    if reduction.accumulated or reduction.runs:
        mine = accumulator(k)
        if r.op in ("min", "max"):
            step = f"{mine} = {combine(r.op, mine, f'({operand})')};"
        else:
            step = f"{mine} = {mine} {'-' if r.negate else r.op} ({operand});"
        if reduction.accumulated:
            return step
        # a run of updates of one element: merged into it when the thread's element changes
        merge = _merge_name(r, macros, opencl)
        at = f"{mine}_at"
        space = "__global " if opencl else ""
        return (f"{{ {space}{_type(r.element_type)} *polypragma_element = &{target}; "
                f"if (polypragma_element != {at}) {{ if ({at}) {merge}({at}, {mine}); "
                f"{at} = polypragma_element; {mine} = {identity(reduction, opencl)}; }} {step} }}")
    local = local and opencl
    macros.add(atomic_macro(r.op, r.element_type, opencl, local))
    return f"{atomic_name(r.op, r.element_type, local)}(&{target}, {value});"


def _copied(kernel: Kernel, copies: dict[str, int]):
    """Each block copy (:func:`~polypragma.gpu.block_copies.block_copies`) as (array, elements, operator,
    element type)."""
    ops = {kr.reduction.array: (kr.reduction.op, _type(kr.reduction.element_type)) for kr in kernel.reductions}
    return [(name, elements, *ops[name]) for name, elements in sorted(copies.items())]


def _each_element(kernel: Kernel, elements: int) -> str:
    """A loop of the block's threads over ``elements``, each thread the elements from its rank by the block's."""
    return (f"for (int polypragma_e = {_lane(kernel)}; polypragma_e < {elements}; "
            f"polypragma_e += {_threads(kernel)})")


def block_copy_start(kernel: Kernel, copies: dict[str, int], shared_declaration, barrier: str,
                     opencl: bool) -> list[str]:
    """The start of a kernel with block copies (``copies``: array -> elements): their declarations, each
    element set to its operator's identity by the block's threads in turn, then a barrier."""
    if not copies:
        return []
    out = []
    for name, elements, op, ctype in _copied(kernel, copies):
        out.append("  " + shared_declaration(ctype, block_copy(name), f"[{elements}]"))
        out.append(f"  {_each_element(kernel, elements)} {block_copy(name)}[polypragma_e] = "
                   f"{_identity(op, ctype, opencl)};")
    return out + [f"  {barrier}"]


def block_copy_merge(kernel: Kernel, copies: dict[str, int], barrier: str, macros: set[str], opencl: bool) -> list[str]:
    """The end of a kernel with block copies: a barrier, then each element the block changed merged into the
    array in global memory with one atomic update.  Every thread of the block runs it (no condition around
    the barrier)."""
    if not copies:
        return []
    out = [f"  {barrier}"]
    for name, elements, op, ctype in _copied(kernel, copies):
        macros.add(atomic_macro(op, ctype, opencl))
        mine = f"{block_copy(name)}[polypragma_e]"
        out.append(f"  {_each_element(kernel, elements)} if ({mine} != {_identity(op, ctype, opencl)}) "
                   f"{atomic_name(op, ctype)}(&{name}[polypragma_e], {mine});")
    return out


WARP = 32


def _shuffled(kernel: Kernel, opencl: bool) -> bool:
    """Whether the block combines through CUDA's warp shuffles (whole warps only)."""
    return not opencl and _threads(kernel) % WARP == 0


def declarations(kernel: Kernel, shared_declaration, opencl: bool) -> list[str]:
    """The registers of the accumulated reductions and the shared arrays that combine them (a value per
    thread for the tree, per warp after shuffles)."""
    threads = _threads(kernel)
    slots = threads // WARP if _shuffled(kernel, opencl) else threads
    out = []
    for k, kr in enumerate(kernel.reductions):
        if kr.accumulated:
            ctype = kr.reduction.element_type
            out.append(f"  {ctype} {accumulator(k)} = {identity(kr, opencl)};")
            out.append("  " + shared_declaration(ctype, f"{accumulator(k)}_block", f"[{slots}]"))
        elif kr.runs:
            ctype = _type(kr.reduction.element_type)
            out.append(f"  {ctype} {accumulator(k)} = {identity(kr, opencl)};")
            out.append(f"  {'__global ' if opencl else ''}{ctype} *{accumulator(k)}_at = 0;")
    return out


def _threads(kernel: Kernel) -> int:
    count = 1
    for b in kernel.sizes.block[:kernel.mapped]:
        count *= b
    return count


def finish(kernel: Kernel, arrays: dict, barrier: str, macros: set[str], opencl: bool) -> list[str]:
    """The end of the kernel: each accumulated reduction combined in the block, then one atomic update
    of its element by the block's first thread.  Every thread of the block runs it (no condition on
    the thread around the barriers).  CUDA combines each warp's values with shuffles, then the warps'
    values in the first warp; OpenCL (and a CUDA block of partial warps) in a tree in local memory."""
    runs = []
    for k, kr in enumerate(kernel.reductions):
        if kr.runs:
            runs += _last_run(kernel, k, kr, macros, opencl)
    accumulated = [(k, kr) for k, kr in enumerate(kernel.reductions) if kr.accumulated]
    if not accumulated:
        return runs
    lane = _lane(kernel)
    out = ["  {", f"    const int polypragma_lane = {lane};"]
    if _shuffled(kernel, opencl):
        out += _shuffles(kernel, accumulated, barrier)
    else:
        out += _tree(kernel, accumulated, barrier)
    for k, kr in accumulated:
        r = kr.reduction
        array = arrays[r.array]
        macros.add(atomic_macro(r.op, r.element_type, opencl))
        update = f"{atomic_name(r.op, r.element_type)}(&{_element(array, kr.element, arrays)}, {accumulator(k)});"
        condition = _condition(kr.where, kernel.context)
        out += [f"      {update}"] if condition is None else [f"      if ({condition})", f"        {update}"]
    out += ["    }", "  }"]
    return runs + out


def _last_run(kernel: Kernel, k: int, kr: KernelReduction, macros: set[str], opencl: bool) -> list[str]:
    """The merge of a thread's last run of updates (a reduction spread over threads, ``kr.runs``) into its
    element.  On CUDA, with whole warps, a warp whose threads all end on one element (a matrix-vector
    product's row along ``x``: its threads share the row's element) combines their values with shuffles
    and makes one atomic update; any other warp, and OpenCL, one atomic update a thread that has run
    any update."""
    r = kr.reduction
    mine, at = accumulator(k), f"{accumulator(k)}_at"
    merge = f"if ({at}) {_merge_name(r, macros, opencl)}({at}, {mine});"
    if not _shuffled(kernel, opencl):
        return [f"  {merge}"]
    alone = f"if ({at}) {atomic_name(r.op, r.element_type)}({at}, {mine});"
    lane = _lane(kernel)
    return [
        "  {",
        f"    const {_type(r.element_type)} *polypragma_first = ({_type(r.element_type)} *)"
        f"__shfl_sync(0xffffffffu, (unsigned long long){at}, 0);",
        f"    if (__all_sync(0xffffffffu, {at} == polypragma_first)) {{",
        *_warp_sums([(k, kr)], "      "),
        f"      if (({lane}) % {WARP} == 0) {alone}",
        "    } else {",
        f"      {merge}",
        "    }",
        "  }",
    ]


def _element(array, element, arrays: dict) -> str:
    """The accumulator's element in kernel code: of its own buffer, or of its struct variable's (a member:
    ``s[0].sum`` for ``s->sum``, ``p[i].w[k]``, which live in the buffer of the structs)."""
    member = array.member
    if member is None:
        return f"{array.name}[{_flat(array, element)}]"
    coordinates = [c_expression(pa) for pa in element]
    text = f"{member.struct}[{_flat(arrays[member.struct], element[:member.rank])}]"
    taken = member.rank
    for field, count in member.path:
        text += f".{field}" + "".join(f"[{c}]" for c in coordinates[taken:taken + count])
        taken += count
    return text


def _condition(where: isl.Set | None, context: isl.Set) -> str | None:
    """``where`` (on the kernel's parameters) as a C condition, None where it always holds: a launch
    whose parameters give the reduction no instance updates no element (its index may be out of
    bounds)."""
    if where is None:
        return None
    known = context.params()
    where = coalesced(where.align_params(known.get_space()).gist_params(known))
    if where.plain_is_universe():
        return None
    build = isl.AstBuild.from_context(isl.Set.universe(where.get_space()))
    return _plain_c(build.expr_from_set(where))


def _warp_sums(accumulated, pad: str) -> list[str]:
    out = [f"{pad}for (int polypragma_step = {WARP // 2}; polypragma_step > 0; polypragma_step >>= 1) {{"]
    for k, kr in accumulated:
        mine = accumulator(k)
        # (every lane shuffles: a shuffle under a condition, as in a minimum's ?:, would be divergent)
        out.append(f"{pad}  {{ const {_type(kr.reduction.element_type)} polypragma_other = "
                   f"__shfl_down_sync(0xffffffffu, {mine}, polypragma_step);")
        out.append(f"{pad}    {mine} = {combine(kr.reduction.op, mine, 'polypragma_other')}; }}")
    out.append(f"{pad}}}")
    return out


def _shuffles(kernel: Kernel, accumulated, barrier: str) -> list[str]:
    """Each warp's sum by shuffles, the warps' sums through shared memory, their sum by the first warp:
    the block's value in the registers of thread 0, which opens the block of its atomic updates."""
    warps = _threads(kernel) // WARP
    out = _warp_sums(accumulated, "    ")
    if warps == 1:
        return out + ["    if (polypragma_lane == 0) {"]
    out.append(f"    if (polypragma_lane % {WARP} == 0) {{")
    out += [f"      {accumulator(k)}_block[polypragma_lane / {WARP}] = {accumulator(k)};" for k, _ in accumulated]
    out += ["    }", f"    {barrier}", f"    if (polypragma_lane < {WARP}) {{"]
    out += [f"      {accumulator(k)} = polypragma_lane < {warps} ? {accumulator(k)}_block[polypragma_lane] : "
            f"{identity(kr, False)};" for k, kr in accumulated]
    out += _warp_sums(accumulated, "      ")
    out += ["    }", "    if (polypragma_lane == 0) {"]
    return out


def _tree(kernel: Kernel, accumulated, barrier: str) -> list[str]:
    """The threads' values combined pairwise in shared (local) memory, halving the distance at each step;
    thread 0 takes the block's value back into its register, and opens the block of its atomic updates."""
    threads = _threads(kernel)
    half = 1
    while half * 2 < threads:
        half *= 2
    out = [f"    {accumulator(k)}_block[polypragma_lane] = {accumulator(k)};" for k, _ in accumulated]
    out.append(f"    {barrier}")
    if threads > 1:
        out.append(f"    for (int polypragma_step = {half}; polypragma_step > 0; polypragma_step >>= 1) {{")
        out.append(f"      if (polypragma_lane < polypragma_step && polypragma_lane + polypragma_step < {threads}) {{")
        for k, kr in accumulated:
            block = f"{accumulator(k)}_block"
            mine, other = f"{block}[polypragma_lane]", f"{block}[polypragma_lane + polypragma_step]"
            out.append(f"        {mine} = {combine(kr.reduction.op, mine, other)};")
        out += ["      }", f"      {barrier}", "    }"]
    out.append("    if (polypragma_lane == 0) {")
    out += [f"      {accumulator(k)} = {accumulator(k)}_block[0];" for k, _ in accumulated]
    return out


def _lane(kernel: Kernel) -> str:
    """The thread's rank in its block, ``x`` fastest (its lane in its warp is this modulo a warp)."""
    lane = kernel.thread_params[-1]
    for d in range(kernel.mapped - 2, -1, -1):
        lane = f"{lane} + {_inner(kernel, d)} * {kernel.thread_params[d]}"
    return lane


def _inner(kernel: Kernel, d: int) -> int:
    """Threads of the block along the mapped members after ``d``."""
    count = 1
    for b in kernel.sizes.block[d + 1:kernel.mapped]:
        count *= b
    return count


def _flat(array, element) -> str:
    """The offset of the element of coordinates ``element`` (over the kernel's parameters) in its buffer."""
    if not element:
        return "0"
    coordinates = [c_expression(pa) for pa in element]
    index = coordinates[0]
    for extent, c in zip(array.inner_extents, coordinates[1:]):
        index = f"({index}) * ({extent}) + ({c})"
    return index
