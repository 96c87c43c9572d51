"""What the extractor asks of a region once its walk is over, from the accesses it collected: the globals
a call of a function without a body may reach, pointers that may alias an array the region writes, and
values of types the GPU targets cannot hold."""

from __future__ import annotations

from collections.abc import Callable

import islpy as isl
from pycparser import c_ast

from polypragma.diagnostics import Location, Unsupported
from polypragma.frontend.accesses import EXTERNAL_STATE, AccessRecord, Subscript
from polypragma.frontend.affine import AffineBuilder
from polypragma.frontend.c_tree import identifier_types, subtree, text
from polypragma.frontend.symbols import EXTENDED_TYPES, Scope
from polypragma.model import Statement


def external_call_records(records: list[AccessRecord], external: list[tuple[str, isl.Set, AffineBuilder, c_ast.Node]],
                          outer: Scope) -> list[AccessRecord]:
    """A function without a body may reach the file's globals: a statement calling one (``external``: its
    name, domain, builder and call) reads and may write every global the region accesses (accesses.py
    models its arguments).  The records of those accesses."""
    if not external:
        return []
    root = outer
    while root.parent is not None:
        root = root.parent
    declared = {id(v.decl) for v in root.names.values() if v.decl is not None}
    accessed: dict[str, AccessRecord] = {}
    for record in records:
        # a global, or a member of a global struct (p__x shares the declaration of p)
        if record.variable is not EXTERNAL_STATE and id(record.variable.decl) in declared \
                and not record.variable.declared_in_region:
            accessed.setdefault(record.name, record)
    out = []
    for name, domain, builder, call in external:
        for record in accessed.values():
            whole = [Subscript(None, None, call)] * record.variable.ctype.rank
            for is_write in (False, True):
                out.append(AccessRecord(name, record.variable, record.name, is_write, False, whole,
                                        domain, builder, call))
    return out


def extended_type_use(records: list[AccessRecord], statements: list[Statement]) -> tuple[str, c_ast.Node] | None:
    """The first value of one of GCC's extended types (``_Float16``, ``__float128``...), with its type: the
    c target keeps them as written; CUDA and OpenCL kernels have no such types (their half types differ),
    so the GPU targets refuse them."""
    uses = [(record.variable.ctype.resolved or record.variable.ctype.base, record.node) for record in records]
    for statement in statements:
        uses += [(name, node) for node in subtree(statement.body) if isinstance(node, c_ast.Cast)
                 for name in identifier_types(node.to_type)]
    return next(((name, node) for name, node in uses if name in EXTENDED_TYPES), None)


def check_aliases(records: list[AccessRecord], origins: dict[str, list[c_ast.Node]],
                  location: Callable[[c_ast.Node], Location]) -> None:
    """The model takes distinct arrays for disjoint memory.  A pointer set from another array the region
    accesses (``double *B = A + 1;``; ``origins``: the values assigned to each pointer before the region)
    breaks that when the region writes either: its dependences would be missed, so the region is refused
    (it once gave wrong results)."""
    accessed: dict[str, list] = {}
    for record in records:
        if not record.variable.declared_in_region:
            accessed.setdefault(record.variable.name, []).append(record)
    for name, pointer_records in accessed.items():
        variable = pointer_records[0].variable
        if variable.ctype.pointer_depth == 0:
            continue
        values = list(origins.get(name, []))
        if isinstance(variable.decl, c_ast.Decl) and variable.decl.init is not None:
            values.append(variable.decl.init)
        for value in values:
            sources = [n.name for n in subtree(value) if isinstance(n, c_ast.ID)
                       and n.name != name and n.name in accessed]
            for source in sources:
                written = [r for r in pointer_records + accessed[source] if r.is_write]
                if not written:
                    continue
                first = written[0]
                line = value.coord.line if value.coord is not None else "?"
                raise Unsupported(
                    f"pointer '{name}'", location(first.node),
                    f"is set from '{source}' at line {line} ('{text(value)}') and may alias it, and the "
                    f"region writes '{first.variable.name}': not supported (the model takes different "
                    "arrays to be disjoint)")
