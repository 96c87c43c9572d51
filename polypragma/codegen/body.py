"""Reprint a statement body with new names for its loop iterators and locals."""

from __future__ import annotations

import copy

from pycparser import c_ast, c_generator

from polypragma.frontend.library import PURE_FUNCTIONS, argument_types, is_assert, opencl_call
from polypragma.gpu.data import referenced_array


class BodyPrinter(c_generator.CGenerator):
    """pycparser's C generator with identifiers replaced by ``substitutions``."""

    def __init__(self, substitutions: dict[str, str]):
        super().__init__(reduce_parentheses=True)
        self.substitutions = substitutions

    def visit_ID(self, n: c_ast.ID) -> str:
        return self.substitutions.get(n.name, n.name)

    def visit_FuncCall(self, n: c_ast.FuncCall) -> str:
        name = n.name.name if isinstance(n.name, c_ast.ID) else self._parenthesize_unless_simple(n.name)
        return f"{name}({self.visit(n.args) if n.args is not None else ''})"

    def statement(self, node: c_ast.Node, indent: int) -> list[str]:
        """``node`` as a complete statement, indented by ``indent`` spaces."""
        self.indent_level = indent
        text = self._generate_stmt(node, add_indent=False)
        return text.rstrip("\n").split("\n")


# C's assert in a kernel: a failed condition sets the flag the kernel receives, which the host reads
ASSERT_HELPER = "polypragma_assert"
ASSERT_FLAG = "polypragma_checks"
ASSERT_DEFINITION = (f"#define {ASSERT_HELPER}(condition) ((condition) ? (void)0 : (void)({ASSERT_FLAG}[0] = 1))")


class DeviceBodyPrinter(BodyPrinter):
    """Statement bodies inside kernels: multi-dimensional subscripts of device
    buffers become one flat index, scalars kept in device memory are read
    through their buffer, and math functions take the target's names."""

    def __init__(self, substitutions: dict[str, str], arrays: dict, opencl: bool, replace=None, access=None):
        super().__init__(substitutions)
        self.arrays = arrays  # name -> DeviceArray
        self.opencl = opencl
        self.replace = replace  # node -> text of a promoted reference, or None
        self.access = access  # (array, flat index) -> text of a read through constant memory or a texture

    def _named(self, name: str) -> str:
        """The name ``name`` stands for in this statement: a local hoisted under another name (the second of
        two inlined bodies' ``s`` is ``s_1``), else itself."""
        renamed = self.substitutions.get(name, name)
        return renamed if renamed.isidentifier() else name

    def visit_ID(self, n: c_ast.ID) -> str:
        name = self._named(n.name)
        array = self.arrays.get(name)
        if array is not None and array.scalar:
            return f"{name}[0]"
        return super().visit_ID(n)

    def visit_ArrayRef(self, n: c_ast.ArrayRef) -> str:
        if self.replace is not None:
            promoted = self.replace(n)
            if promoted is not None:
                return promoted
        subscripts = []
        base = n
        while isinstance(base, c_ast.ArrayRef):
            subscripts.insert(0, base.subscript)
            base = base.name
        if isinstance(base, c_ast.StructRef):
            # rows through a struct's pointer member (p->a[i], p[i].a[j]) live in a buffer of their own, p__a
            member = self.arrays.get(referenced_array(n))
            if member is not None and member.row_member:
                subscripts = _struct_subscripts(base) + subscripts
                base = c_ast.ID(member.name)
        array = self.arrays.get(self._named(base.name)) if isinstance(base, c_ast.ID) else None
        if array is None or (not array.linearise and len(subscripts) != 1):
            return super().visit_ArrayRef(n)
        if array.linearise:
            index = f"({self.visit(subscripts[0])})"
            for extent, sub in zip(array.inner_extents, subscripts[1:]):
                index = f"({index}) * ({extent}) + ({self.visit(sub)})"
        else:
            index = self.visit(subscripts[0])
        special = self.access(array, index) if self.access is not None else None
        if special is not None:
            return special
        if not array.linearise and not array.row_member:
            return super().visit_ArrayRef(n)
        return f"{array.name}[{index}]"

    def visit_StructRef(self, n: c_ast.StructRef) -> str:
        # a member of a struct variable promoted to shared memory or registers (p[i].x); else as written,
        # on the struct variable's buffer
        if self.replace is not None:
            promoted = self.replace(n)
            if promoted is not None:
                return promoted
        return super().visit_StructRef(n)

    def visit_FuncCall(self, n: c_ast.FuncCall) -> str:
        name = n.name.name if isinstance(n.name, c_ast.ID) else None
        if is_assert(n):  # the kernel's flag, set when the condition is false (kernel_lines declares it)
            return f"{ASSERT_HELPER}({self.visit(n.args.exprs[0])})"
        types = argument_types(name) if name is not None else None
        if types is not None:
            # CUDA and OpenCL overload the library's functions, where an integer argument (or a float one
            # of a double function) picks another overload or none: each argument converted as C does
            if self.opencl:  # (where 'long' is 64 bits, and 'long long' a reserved word)
                types = tuple(t.replace("long long", "long") for t in types)
            args = [self.visit(a) if _typed(a, t) else f"({t})({self.visit(a)})"
                    for t, a in zip(types, n.args.exprs if n.args else [])]
            return opencl_call(name, args) if self.opencl else f"{name}({', '.join(args)})"
        if name is not None and name not in PURE_FUNCTIONS:
            # a pure function of the file, emitted under a name no built-in of the target has
            args = self.visit(n.args) if n.args is not None else ""
            return f"{device_function_name(name)}({args})"
        return super().visit_FuncCall(n)


def _typed(node: c_ast.Node, type_: str) -> bool:
    """Whether ``node`` is a constant of type ``type_`` (which needs no conversion)."""
    if not isinstance(node, c_ast.Constant):
        return False
    if type_ == "int":
        return node.type == "int" and node.value.isdigit()
    return node.type == type_ and node.value[-1:].lower() != "l"


def _struct_subscripts(node: c_ast.StructRef) -> list[c_ast.Node]:
    """The subscripts of the struct variable in a member access whose fields take none: ``p[k]`` for
    ``p[k].a``, ``0`` for ``p->a`` (``p[0].a``), none for ``v.a``."""
    while isinstance(node.name, c_ast.StructRef):
        node = node.name
    subscripts = [c_ast.Constant("int", "0")] if node.type == "->" else []
    base = node.name
    while isinstance(base, c_ast.ArrayRef):
        subscripts.insert(0, base.subscript)
        base = base.name
    return subscripts


def device_function_name(name: str) -> str:
    """The name of a function of the file in kernel code (OpenCL has a built-in 'clamp', CUDA 'min')."""
    return f"polypragma_fn_{name}"


def device_functions(scop, opencl: bool) -> list[tuple[str, str]]:
    """The pure functions of the file the region's statements call, as device functions (callees
    first): ``static __device__`` for CUDA, plain functions of the OpenCL program; with their names in
    the source (region_text.device_functions gives each once for the file)."""
    out = []
    for definition in scop.functions:
        renamed = copy.deepcopy(definition)
        declarator = renamed.decl.type.type
        while not isinstance(declarator, c_ast.TypeDecl):
            declarator = declarator.type
        declarator.declname = renamed.decl.name = device_function_name(definition.decl.name)
        text = DeviceBodyPrinter({}, {}, opencl).visit(renamed).rstrip("\n")
        out.append((definition.decl.name, text if opencl else f"static __device__ {text}"))
    return out
