"""Rewrite the statements of a region into the forms the extractor models, without changing what they do.

* A label that no ``goto`` of the function targets is dropped (it names nothing; kept, it would be
  printed once per copy of its statement in generated code).
* A counted ``while`` loop, ``i = lb; while (cond) { ...; i += c; }`` where the body writes ``i``
  only in its last statement, becomes ``for (i = lb; cond; i += c) { ... }``; the same with the
  iterator declared just before (``int i = lb;``) when the rest of the block does not use it.
* A call statement to a ``void`` function of the file is replaced by the function's body, its parameters
  by the arguments, where that means the same (see :func:`polypragma.frontend.functions.inline_call`):
  what it writes through its pointer parameters becomes accesses of the region; a ``memcpy`` or
  ``memset`` of whole elements by the loop it means (:mod:`polypragma.frontend.memory_calls`).
* A ``break`` or ``continue`` inside an ``if`` of a loop body comes out of it: ``if (d) { X; if (c)
  break; Z }`` is ``if (d) { X } if (d && c) break; if (d) { Z }`` when ``d`` has no side effects and
  reads nothing ``X`` (or the else branch) writes; nested ifs come out one by one.
* ``continue`` at the top level of a loop body: ``if (c) { X; continue; } R`` becomes
  ``if (c) { X } else { R }``, and a ``continue`` that ends the body is dropped.
* ``*(p + e)`` is ``p[e]`` and ``*p`` is ``p[0]``, as C defines them.
* ``B[k++] = v;`` is ``B[k] = v; k++;``, and a counter or pointer that steps by the same amount each
  iteration of a loop is the function of the iterators it is (:mod:`polypragma.frontend.induction`).
* A pointer the region declares to name a row or an element of an array (``double *row = A[i];``) is
  replaced by what it names (:mod:`polypragma.frontend.aliases`).
* ``if (c) break;`` first in a loop body joins the loop's condition (``while (1) { if (i >= n) break; ...``
  is ``while (!(i >= n)) { ...``), so a loop written with ``for (;;)`` or ``while (1)`` can be counted;
  a ``for`` without initialisation and increment is the ``while`` loop it means, and one without
  increment whose body steps its iterator last (``for (i = 0; i < n;) { ...; i++; }``) a counted loop.
* A loop that ends by rotating pointers (``double *tmp = a; a = b; b = tmp;``) is unrolled by the
  rotation's period, each copy naming its arrays (:mod:`polypragma.frontend.rotations`).
* A ``switch`` is the chain of conditions on its scrutinee it means (:mod:`polypragma.frontend.switch`).
* A ``for`` header with comma expressions is a loop on one iterator, the other variables it steps
  functions of that iterator (:mod:`polypragma.frontend.for_headers`).

The region's items are copied first: the user's AST is not changed.
"""

from __future__ import annotations

import copy
from typing import Callable

from pycparser import c_ast

from polypragma.frontend.affine import constant_value
from polypragma.frontend.aliases import substitute_aliases
from polypragma.frontend.c_tree import STEPS, has_side_effects, rewrite_children, subtree, writes
from polypragma.frontend.for_headers import split_header
from polypragma.frontend.functions import substitute
from polypragma.frontend.induction import split_increments, substitute_inductions
from polypragma.frontend.library import PURE_FUNCTIONS
from polypragma.frontend.loops import loop_start, loop_step
from polypragma.frontend.rotations import Epilogue, unrolled_rotation
from polypragma.frontend.row_bounds import Assumptions
from polypragma.frontend.switch import switch_conditions
from polypragma.model import CType


_INLINE_DEPTH = 8  # calls inlined into inlined bodies, at most (a recursive function is not inlined)


def normalise(items: list[c_ast.Node], goto_targets: set[str],
              inline: Callable[[c_ast.FuncCall], c_ast.Compound | str | None] | None = None,
              used_after: set[str] = frozenset(), notes: dict[int, str] | None = None,
              variable_type: Callable[[str], CType | None] = lambda name: None,
              assumptions: Assumptions | None = None,
              inline_value: Callable[..., tuple[c_ast.Decl, c_ast.Compound] | None] | None = None,
              epilogue: Epilogue | None = None) -> list[c_ast.Node]:
    """The region's ``items`` rewritten (a copy).  ``used_after``: names the function reads after the
    region.  ``notes`` receives, by ``id`` of a statement left as it is, why it could not be rewritten
    (a switch), for the diagnostic.  ``variable_type(name)``: the type of a variable of the region (None:
    unknown), for the counters of loops.  ``assumptions`` receives the conditions under which pointers to
    rows were replaced (aliases.substitute_aliases).  ``inline_value(call)``: a function's body that sets a
    fresh variable to the value the call returns, with the variable's declaration, or None: an expression
    statement's calls are then run before it (:func:`_value_calls`); ``inline_value(call, where)`` notes
    why such a call stays a call (``where`` it is), for the diagnostic.  ``epilogue`` receives the statements
    the region's generated code runs after it, not its original loops (rotations.py)."""
    _State.inline = inline
    _State.inline_value = inline_value
    _State.assumptions = assumptions
    _State.variable_type = variable_type
    _State.depth = 0
    _State.notes = notes if notes is not None else {}
    items = [_dereferences(copy.deepcopy(item)) for item in items]
    _State.uses = {}
    for item in items:
        for n in subtree(item):
            if isinstance(n, c_ast.ID):
                _State.uses[n.name] = _State.uses.get(n.name, 0) + 1
    _State.used_after = set(used_after)
    try:
        # pointers the region steps but does not declare: at its top level they start from their values
        # before it
        declared = {n.name for item in items for n in subtree(item) if isinstance(n, c_ast.Decl)}
        entry = frozenset(name for name in _State.uses if name not in declared
                          and (variable_type(name) is not None and variable_type(name).pointer_depth == 1))
        _State.exits = any(isinstance(n, (c_ast.Return, c_ast.Goto)) for item in items for n in subtree(item))
        _State.epilogue = epilogue if epilogue is not None else Epilogue()
        return _block(items, goto_targets, entry, top=True)
    finally:
        _State.inline = None
        _State.inline_value = None
        _State.assumptions = None


class _State:
    inline: Callable[[c_ast.FuncCall], c_ast.Compound | str | None] | None = None
    depth = 0
    notes: dict[int, str] = {}
    uses: dict[str, int] = {}  # occurrences of each name in the region
    used_after: set[str] = set()
    variable_type: Callable[[str], CType | None] = staticmethod(lambda name: None)
    assumptions: Assumptions | None = None
    inline_value: Callable[..., tuple[c_ast.Decl, c_ast.Compound] | None] | None = None
    exits = False  # the region has a return or goto
    epilogue = Epilogue()


def _read_elsewhere(node: c_ast.Node, name: str) -> bool:
    """Whether the region reads ``name`` outside ``node``, or the function after the region."""
    return name in _State.used_after or _State.uses.get(name, 0) > _occurrences(node, name)


def _unrolled(loop: c_ast.For, later: list[c_ast.Node] | None) -> c_ast.For:
    """``loop``, unrolled where it ends by rotating pointers (:mod:`polypragma.frontend.rotations`), its
    epilogue kept for the region's end; ``later``: the region's top-level statements after it, where it is
    one of them (None where it is not).  A rotation it cannot unroll is the epilogue's ``refused``."""
    placed = None if later is not None else "the loop is inside another statement of the region"
    if later is not None and _State.exits:
        placed = "the region may leave by a 'return' or 'goto' before the loop"
    unrolled = unrolled_rotation(loop, placed, lambda name: _uses(later or [], name), _State.variable_type)
    if isinstance(unrolled, tuple):
        if _State.epilogue.refused is None:
            _State.epilogue.refused = unrolled
        return loop
    if unrolled is None:
        return loop
    _State.epilogue.statements.append(unrolled.epilogue)
    _State.epilogue.described.append(unrolled.description)
    iterator = loop_start(loop)[0]
    if isinstance(loop.init, c_ast.Assignment) and _State.uses.get(iterator, 0) == _occurrences(loop, iterator):
        _State.epilogue.iterators.add(iterator)
    return unrolled.loop


def _occurrences(node: c_ast.Node, name: str) -> int:
    return sum(1 for n in subtree(node) if isinstance(n, c_ast.ID) and n.name == name)


def _split_header(loop: c_ast.For) -> list[c_ast.Node] | None:
    parts = split_header(loop, lambda name: _read_elsewhere(loop, name))
    if isinstance(parts, str):
        _State.notes[id(loop)] = parts
        return None
    return parts


def _block(items: list[c_ast.Node], targets: set[str], entry: frozenset[str] = frozenset(),
           top: bool = False) -> list[c_ast.Node]:
    """``items`` normalised; ``entry``: pointers whose values where they start are those before the region
    (induction.substitute_inductions); ``top``: the region's top-level statements."""
    flat: list[tuple[c_ast.Node, bool]] = []  # (item, whether it is normalised already)
    aliased = substitute_aliases(items, _State.used_after, _State.variable_type, _State.notes, _State.assumptions)
    for k, item in enumerate(aliased):
        if isinstance(item, c_ast.For):
            item = _unrolled(item, aliased[k + 1:] if top else None)
            parts = _split_header(item)  # the loop's statements stay at this level
            flat.extend((part, False) for part in parts) if parts is not None else flat.append((item, False))
        elif isinstance(item, c_ast.While) and (counted := _countdown(item)) is not None:
            flat.extend((part, False) for part in counted)
        else:
            flat.extend(_split_initialiser(item, targets) or [(item, False)])
    items = [split for item, done in flat for split in _split_increments(item if done else _statement(item, targets))]
    out: list[c_ast.Node] = []
    k = 0
    while k < len(items):
        item = items[k]
        if isinstance(item, c_ast.While) and out:
            loop = _counted(out[-1], item, items[k + 1:])
            if loop is not None:
                out[-1] = loop
                k += 1
                continue
        out.append(item)
        k += 1
    return substitute_inductions(out, _State.used_after, _State.variable_type, entry)


def _value_calls(node: c_ast.Assignment) -> list[c_ast.Node] | None:
    """An assignment whose expressions call functions of the file that return a value and can be inlined
    (``y[i] = alpha * dot(n, A[i], x);``) as the calls' bodies, each setting a variable of its own to its
    value, then the assignment reading the variables: ``{ double dot_value; { ...; dot_value = s; } y[i] =
    alpha * dot_value; }``.  C sequences a call indeterminately with the rest of the expression, so running
    it first is one of the orders C allows (also in another call's arguments, which C evaluates before that
    call); not a call that C may not evaluate (the right operand of ``&&`` and ``||``, a branch of ``?:``),
    nor one in a comma expression.  None where there is no such call."""
    found: list[c_ast.Node] = []

    def left(parts: list[c_ast.Node | None], where: str) -> None:  # calls that stay calls, and why
        for part in parts:
            for call in (n for n in subtree(part) if isinstance(n, c_ast.FuncCall)) if part is not None else ():
                _State.inline_value(call, where)

    def visit(n: c_ast.Node) -> c_ast.Node:
        if isinstance(n, c_ast.FuncCall):
            if n.args is not None:  # (C evaluates every argument before the call)
                n.args.exprs = [visit(a) for a in n.args.exprs]
            inlined = _State.inline_value(n)
            if inlined is None:
                return n
            declaration, body = inlined
            found.extend([declaration, body])
            return c_ast.ID(declaration.name, coord=n.coord)
        if isinstance(n, c_ast.TernaryOp):
            n.cond = visit(n.cond)
            left([n.iftrue, n.iffalse], "in a branch of '?:', which C may not evaluate")
        elif isinstance(n, c_ast.BinaryOp) and n.op in ("&&", "||"):
            n.left = visit(n.left)
            left([n.right], f"right of '{n.op}', where C may not evaluate it")
        elif isinstance(n, c_ast.ExprList):
            left([n], "in a comma expression")
        else:
            rewrite_children(n, visit)
        return n

    visit(node)
    return found + [node] if found else None


def _split_initialiser(item: c_ast.Node, targets: set[str]) -> list[tuple[c_ast.Node, bool]] | None:
    """``double d = dot(n, a, x);`` as ``double d;`` and the block :func:`_value_calls` makes of ``d = dot(n, a,
    x);`` (normalised), where it inlines a call (a scalar's initialiser, not ``const``), else None."""
    if not (isinstance(item, c_ast.Decl) and item.name and item.init is not None and _State.inline_value is not None
            and _State.depth < _INLINE_DEPTH and isinstance(item.type, c_ast.TypeDecl)
            and "const" not in (item.quals or []) and "const" not in (item.type.quals or [])
            and not (item.storage or []) and not isinstance(item.init, c_ast.InitList)
            and any(isinstance(n, c_ast.FuncCall) for n in subtree(item.init))):
        return None
    items = _value_calls(c_ast.Assignment("=", c_ast.ID(item.name, coord=item.coord), item.init, coord=item.coord))
    if items is None:
        return None
    item.init = None
    _State.depth += 1
    try:
        block = _statement(c_ast.Compound(items, coord=item.coord), targets)
    finally:
        _State.depth -= 1
    return [(item, False), (block, True)]


def _split_increments(node: c_ast.Node) -> list[c_ast.Node]:
    """An expression statement with its steps of names as statements of their own (``B[k++] = v;`` is
    ``B[k] = v; k++;``), dereferences read again as subscripts; an ``if``/``else`` of two updates as two
    ``if`` statements (:func:`_split_updates`)."""
    if isinstance(node, c_ast.If):
        parts = _split_updates(node)
        return parts if len(parts) > 1 else _sink_condition(node) or parts
    parts = split_increments(node)
    return parts if len(parts) == 1 else [_dereferences(part) for part in parts]


_UPDATES = ("+=", "-=", "*=", "&=", "|=", "^=")


def _split_updates(node: c_ast.If) -> list[c_ast.Node]:
    """``if (c) a += x; else b++;`` as ``if (c) a += x; if (!(c)) b++;``: each branch an update of its own
    variable (an accumulation, as a count or sum split by a condition), which the condition does not read,
    and the condition without side effects, so it has the same value twice.  Each is then a reduction
    under a condition (reductions.py); as one statement, the loop was carried by both."""
    if node.iffalse is None:
        return [node]
    branches = [_alone(node.iftrue), _alone(node.iffalse)]
    targets = []
    for branch in branches:
        target = branch.lvalue if isinstance(branch, c_ast.Assignment) and branch.op in _UPDATES else \
            branch.expr if isinstance(branch, c_ast.UnaryOp) and branch.op in STEPS else None
        while isinstance(target, c_ast.ArrayRef):
            target = target.name
        if not isinstance(target, c_ast.ID):
            return [node]
        targets.append(target.name)
    read = {n.name for n in subtree(node.cond) if isinstance(n, c_ast.ID)}
    # what the first branch writes must not change the condition, evaluated again for the second
    written = set(targets) | _assigned(branches[0])
    calls = [n for branch in branches for n in subtree(branch) if isinstance(n, c_ast.FuncCall)]
    if targets[0] == targets[1] or read & written or has_side_effects(node.cond) or any(
            not (isinstance(call.name, c_ast.ID) and call.name.name in PURE_FUNCTIONS) for call in calls):
        return [node]
    negated = c_ast.UnaryOp("!", copy.deepcopy(node.cond), coord=node.cond.coord)
    return [c_ast.If(node.cond, branches[0], None, coord=node.coord),
            c_ast.If(negated, branches[1], None, coord=node.iffalse.coord or node.coord)]


def _sink_condition(node: c_ast.If) -> list[c_ast.Node] | None:
    """``if (c) { S; for (int j = ...) T; }`` on data as ``if (c) S; for (int j = ...) if (c) T;`` (and an
    ``else`` under ``!(c)``), the condition moved into the counted loops it guards, where it has the same
    value at every place: it reads nothing the branches write and has no side effects.  Guarding a loop,
    the condition made the loop part of one statement run as written (its subscripts unknown to the
    model, its iterations in order); inside it, each iteration is a statement of the loop (``if (s > 0.0)
    for (j...) A[i][j] /= s;``: a row scaled in parallel).  None where nothing changes: no such loop, a
    condition on integers the model may take as affine, a branch that jumps (return, goto) or calls a
    function other than the C library's pure ones."""
    branches = [b for b in (node.iftrue, node.iffalse) if b is not None]
    if not any(isinstance(n, c_ast.For) for b in branches for n in subtree(b)) or not _on_data(node.cond):
        return None
    read = {n.name for n in subtree(node.cond) if isinstance(n, c_ast.ID)}
    if has_side_effects(node.cond, PURE_FUNCTIONS):
        return None
    for branch in branches:
        # (a call left in a branch may write what the condition reads: a function without a body)
        if read & _assigned(branch) or any(
                isinstance(n, (c_ast.Return, c_ast.Goto, c_ast.Label)) or (isinstance(n, c_ast.FuncCall) and not (
                    isinstance(n.name, c_ast.ID) and n.name.name in PURE_FUNCTIONS)) for n in subtree(branch)):
            return None
    out = _sunk(node.cond, node.iftrue)
    if node.iffalse is not None:
        out += _sunk(c_ast.UnaryOp("!", node.cond, coord=node.cond.coord), node.iffalse)
    return out


def _on_data(condition: c_ast.Node) -> bool:
    """Whether ``condition`` reads memory, calls a function or reads a variable that is not an integer."""
    for n in subtree(condition):
        if isinstance(n, (c_ast.ArrayRef, c_ast.StructRef, c_ast.FuncCall)) or (isinstance(n, c_ast.UnaryOp)
                                                                                 and n.op == "*"):
            return True
        if isinstance(n, c_ast.ID):
            ctype = _State.variable_type(n.name)
            if ctype is not None and not ctype.is_integer:
                return True
    return False


def _sunk(condition: c_ast.Node, node: c_ast.Node) -> list[c_ast.Node]:
    """``node`` run where ``condition`` holds, as statements: the condition inside counted loops whose
    iterator they declare (which runs, then, but does nothing, where it does not hold), around the others
    (joined with ``&&`` to the condition of an ``if`` without ``else``); a block that declares a variable is
    kept whole."""
    if isinstance(node, c_ast.Compound) and not any(isinstance(item, c_ast.Decl) for item in node.block_items or []):
        return [s for item in node.block_items or [] for s in _sunk(condition, item)]
    if isinstance(node, c_ast.For) and isinstance(node.init, c_ast.DeclList) and node.stmt is not None:
        inner = _sunk(condition, node.stmt)
        node.stmt = inner[0] if len(inner) == 1 else c_ast.Compound(inner, coord=node.stmt.coord)
        return [node]
    if isinstance(node, c_ast.If) and node.iffalse is None:  # if (c && d): C evaluates d only where c holds
        return [c_ast.If(c_ast.BinaryOp("&&", copy.deepcopy(condition), node.cond, coord=node.coord), node.iftrue,
                         None, coord=node.coord)]
    return [c_ast.If(copy.deepcopy(condition), node, None, coord=node.coord)]


def _body(node: c_ast.Node | None) -> c_ast.Node | None:
    """A loop's or branch's statement, with the steps an expression statement splits off in a block."""
    if node is None:
        return None
    parts = _split_increments(node)
    return parts[0] if len(parts) == 1 else c_ast.Compound(parts, coord=node.coord)


def _statement(node: c_ast.Node, targets: set[str]) -> c_ast.Node:
    if isinstance(node, c_ast.Label) and node.name not in targets and node.stmt is not None:
        return _statement(node.stmt, targets)
    if isinstance(node, c_ast.Assignment) and _State.inline_value is not None and _State.depth < _INLINE_DEPTH:
        items = _value_calls(node)
        if items is not None:
            _State.depth += 1
            try:
                return _statement(c_ast.Compound(items, coord=node.coord), targets)
            finally:
                _State.depth -= 1
    if isinstance(node, c_ast.FuncCall) and _State.inline is not None and _State.depth < _INLINE_DEPTH:
        body = _State.inline(node)
        if isinstance(body, c_ast.Compound):
            body = _dereferences(body)
            _State.depth += 1
            try:
                return _statement(body, targets)
            finally:
                _State.depth -= 1
    if isinstance(node, c_ast.While) and (counted := _countdown(node)) is not None:
        return _statement(c_ast.Compound(counted, coord=node.coord), targets)
    if isinstance(node, c_ast.For):
        parts = _split_header(node)
        if parts is not None:
            return _statement(c_ast.Compound(parts, coord=node.coord), targets)
        if node.next is None and node.init is not None and node.cond is not None:
            # for (i = 0; i < n;) { ...; i++; }: the increment is the body's last statement
            init = node.init
            before = init.decls[0] if isinstance(init, c_ast.DeclList) and len(init.decls) == 1 else \
                init if isinstance(init, c_ast.Assignment) else None
            counted = _counted(before, c_ast.While(node.cond, node.stmt, coord=node.coord), []) \
                if before is not None else None
            if counted is not None:
                node = counted
        if node.init is None and node.next is None:
            # for (; c; ) is while (c), for (;;) is while (1): a counted loop when set just before
            node = c_ast.While(node.cond if node.cond is not None else c_ast.Constant("int", "1"), node.stmt,
                               coord=node.coord)
    if isinstance(node, c_ast.Switch):
        chain = switch_conditions(node)
        if isinstance(chain, str):
            _State.notes[id(node)] = chain
        else:
            return _statement(chain, targets)
    if isinstance(node, c_ast.Compound):
        node.block_items = _block(node.block_items or [], targets)
    elif isinstance(node, c_ast.If):
        node.iftrue = _body(_statement(node.iftrue, targets)) if node.iftrue is not None else None
        node.iffalse = _body(_statement(node.iffalse, targets)) if node.iffalse is not None else None
    elif isinstance(node, (c_ast.For, c_ast.While, c_ast.DoWhile)):
        body = _body(_statement(node.stmt, targets)) if node.stmt is not None else None
        if not isinstance(node, c_ast.DoWhile):
            body = _continues(_lift_exits(body))
        node.stmt = body
        if not isinstance(node, c_ast.DoWhile):
            _leading_breaks(node)
    return node


def _dereferences(node: c_ast.Node) -> c_ast.Node:
    """``*(p + e)`` as ``p[e]``, ``*(p - e)`` as ``p[-e]`` and ``*p`` as ``p[0]``: C defines the first as the
    second, so they are subscripts the model reads (other dereferences are left, and refused)."""
    rewrite_children(node, _dereferences)
    if isinstance(node, c_ast.UnaryOp) and node.op == "*":
        split = _pointer_sum(node.expr)
        if split is not None:
            base, offset = split
            return c_ast.ArrayRef(base, offset or c_ast.Constant("int", "0", coord=node.coord), coord=node.coord)
    return node


def _pointer_sum(node: c_ast.Node) -> tuple[c_ast.Node, c_ast.Node | None] | None:
    """``p + a - b`` (``p`` a name or an element, leftmost) as ``(p, a + -b)``; ``p`` as ``(p, None)``."""
    if isinstance(node, (c_ast.ID, c_ast.ArrayRef)):
        return node, None
    if isinstance(node, c_ast.BinaryOp) and node.op in ("+", "-"):
        left = _pointer_sum(node.left)
        if left is None:
            return None
        right = node.right if node.op == "+" else c_ast.UnaryOp("-", node.right, coord=node.coord)
        return left[0], right if left[1] is None else c_ast.BinaryOp("+", left[1], right, coord=node.coord)
    return None


def _leading_breaks(loop: c_ast.For | c_ast.While) -> None:
    """Fold ``if (c) break;`` at the start of the body into the condition: ``for (i = 0; cond; i++) {
    if (c) break; R }`` is ``for (i = 0; cond && !(c); i++) { R }`` when ``c`` has no side effects (it
    is evaluated at the same points).  A loop without a condition, or with a constant one
    (``while (1)``), gets ``!(c)``."""
    body = loop.stmt
    items = list(body.block_items or []) if isinstance(body, c_ast.Compound) else [body]
    folded = []
    while items and is_break(items[0]) and not has_side_effects(items[0].cond):
        folded.append(items.pop(0).cond)
    if not folded:
        return
    condition = loop.cond
    if isinstance(condition, c_ast.Constant) and condition.type in ("int", "char") \
            and condition.value.rstrip("uUlL") not in ("0", "0x0", "'\\0'"):
        condition = None
    for c in folded:
        negated = c_ast.UnaryOp("!", c, coord=c.coord)
        condition = negated if condition is None else c_ast.BinaryOp("&&", condition, negated, coord=c.coord)
    loop.cond = condition
    loop.stmt = c_ast.Compound(items, coord=body.coord)


def is_break(node: c_ast.Node) -> bool:
    """``if (c) break;`` (or ``if (c) { break; }``) without else."""
    if not isinstance(node, c_ast.If) or node.iffalse is not None:
        return False
    then = node.iftrue
    if isinstance(then, c_ast.Compound) and len(then.block_items or []) == 1:
        then = then.block_items[0]
    return isinstance(then, c_ast.Break)


def _uses(nodes: list[c_ast.Node], name: str) -> bool:
    return any(isinstance(n, c_ast.ID) and n.name == name for node in nodes for n in subtree(node))


def _countdown(loop: c_ast.While) -> list[c_ast.Node] | None:
    """``while (n--) S`` (``n-- != 0``, ``n-- > 0``), on an integer ``n`` that ``S`` does not write and that
    nothing in ``S`` leaves early, as ``for (int n_down = 0; n_down < n; n_down++) S`` with ``S`` reading
    ``n - 1 - n_down`` for ``n`` (its value there), where nothing else in the region or after it in the
    function reads ``n`` (its final value, -1, is then never seen).  The same iterations for every ``n``
    that does not count down past the type's range; None for any other loop."""
    cond = loop.cond
    if isinstance(cond, c_ast.BinaryOp) and cond.op in ("!=", ">") and constant_value(cond.right) == 0:
        cond = cond.left
    if not (isinstance(cond, c_ast.UnaryOp) and cond.op == "p--" and isinstance(cond.expr, c_ast.ID)) \
            or loop.stmt is None:
        return None
    name = cond.expr.name
    ctype = _State.variable_type(name)
    if ctype is None or not ctype.is_integer or ctype.rank or ctype.pointer_depth or writes(loop.stmt, name) \
            or any(isinstance(n, (c_ast.Break, c_ast.Goto, c_ast.Return, c_ast.Label)) for n in subtree(loop.stmt)) \
            or _read_elsewhere(loop, name):
        return None  # (a value of n read after the loop would make n a scalar the region writes, not a bound)
    fresh, k = f"{name}_down", 1
    while fresh in _State.uses:
        fresh, k = f"{name}_down{k}", k + 1
    _State.uses[fresh] = 1
    at = loop.coord
    wide = ctype.is_unsigned or "long" in ctype.resolved.split()
    declaration = c_ast.Decl(fresh, [], [], [], [], c_ast.TypeDecl(fresh, [], None, c_ast.IdentifierType(
        ["long" if wide else "int"])), c_ast.Constant("int", "0"), None, coord=at)
    value = c_ast.BinaryOp("-", c_ast.BinaryOp("-", c_ast.ID(name, coord=at), c_ast.Constant("int", "1"), coord=at),
                           c_ast.ID(fresh, coord=at), coord=at)
    counted = c_ast.For(c_ast.DeclList([declaration], coord=at),
                        c_ast.BinaryOp("<", c_ast.ID(fresh, coord=at), c_ast.ID(name, coord=at), coord=at),
                        c_ast.UnaryOp("p++", c_ast.ID(fresh, coord=at), coord=at),
                        substitute(copy.deepcopy(loop.stmt), {name: value}, {}), coord=at)
    return [counted]


def _counted(before: c_ast.Node, loop: c_ast.While, rest: list[c_ast.Node]) -> c_ast.For | None:
    """``before; loop`` as one ``for`` loop, or None when they are not a counted loop."""
    if isinstance(before, c_ast.Assignment) and before.op == "=" and isinstance(before.lvalue, c_ast.ID):
        name = before.lvalue.name
        init: c_ast.Node = before
    elif isinstance(before, c_ast.Decl) and before.init is not None and isinstance(before.type, c_ast.TypeDecl) \
            and not _uses(rest, before.name):
        name = before.name
        init = c_ast.DeclList([before], coord=before.coord)
    else:
        return None
    body = loop.stmt
    items = list(body.block_items or []) if isinstance(body, c_ast.Compound) else [body]
    if not items or loop.cond is None:
        return None
    step = items[-1]
    if not writes(step, name) or any(writes(item, name) for item in items[:-1]) or writes(loop.cond, name):
        return None
    if any(isinstance(n, (c_ast.Continue, c_ast.Break)) for item in items[:-1] for n in subtree(item)):
        return None  # they would skip the increment or leave the loop: not a counted loop
    stmt = c_ast.Compound(items[:-1], coord=body.coord)
    result = c_ast.For(init, loop.cond, step, stmt, coord=loop.coord)
    return result if loop_step(result, name, {}) else None


def _lift_exits(body: c_ast.Node | None) -> c_ast.Node | None:
    """``body`` of a loop with the breaks and continues inside its ifs brought to its top level (see the
    module); an if that cannot be so rewritten stays as it is (the extractor says why)."""
    if isinstance(body, c_ast.If) and _exit_in(body) is not None:
        body = c_ast.Compound([body], coord=body.coord)  # (a body that is one if, without braces)
    if not isinstance(body, c_ast.Compound):
        return body
    items: list[c_ast.Node] = []
    for item in body.block_items or []:
        if isinstance(item, c_ast.If) and _exit_in(item) is not None and not is_break(item) \
                and not _ends_in_continue(item):
            lifted = _lift_if(item)
            if lifted is not None:
                items.extend(lifted)
                continue
        items.append(item)
    body.block_items = items
    return body


def _ends_in_continue(node: c_ast.If) -> bool:
    """``if (c) { X; continue; }`` without else, X free of exits: _continues takes it as it is."""
    if node.iffalse is not None:
        return False
    then = node.iftrue
    items = list(then.block_items or []) if isinstance(then, c_ast.Compound) else [then]
    return bool(items) and isinstance(items[-1], c_ast.Continue) and all(_exit_in(i) is None for i in items[:-1])


def _exit_in(node: c_ast.Node | None) -> c_ast.Node | None:
    """The first break or continue of the enclosing loop in ``node`` (not of a loop or switch in it)."""
    if node is None:
        return None
    if isinstance(node, (c_ast.Break, c_ast.Continue)):
        return node
    if isinstance(node, (c_ast.For, c_ast.While, c_ast.DoWhile, c_ast.Switch)):
        return None
    for _, child in node.children():
        found = _exit_in(child)
        if found is not None:
            return found
    return None


def _lift_if(node: c_ast.If) -> list[c_ast.Node] | None:
    """``node`` as a sequence whose breaks and continues are in ifs of their own, or None."""
    cond, then, other = node.cond, node.iftrue, node.iffalse
    if has_side_effects(cond):
        return None
    if _exit_in(then) is None:
        # the exit is in the else branch: if (!d) { else } else { then }
        cond, then, other = c_ast.UnaryOp("!", cond, coord=cond.coord), other, then
    items = list(then.block_items or []) if isinstance(then, c_ast.Compound) else [then]
    k = 0
    while k < len(items):
        item = items[k]
        if _exit_in(item) is None:
            k += 1
            continue
        if isinstance(item, (c_ast.Break, c_ast.Continue)):
            guard, leave = None, item
        elif isinstance(item, c_ast.If) and item.iffalse is None and _single(item.iftrue) is not None \
                and not has_side_effects(item.cond):
            guard, leave = item.cond, _single(item.iftrue)
        elif isinstance(item, c_ast.If):
            inner = _lift_if(item)
            if inner is None:
                return None
            items[k:k + 1] = inner
            continue
        elif isinstance(item, c_ast.Compound) and not any(isinstance(i, c_ast.Decl) for i in item.block_items or []):
            items[k:k + 1] = list(item.block_items or [])
            continue
        else:
            return None
        before, after = items[:k], items[k + 1:]
        if any(isinstance(i, c_ast.Decl) for i in before):
            return None  # a local of the branch would leave its scope
        written = {name for part in [*before, other] if part is not None for name in _assigned(part)}
        if any(isinstance(n, c_ast.ID) and n.name in written for n in subtree(cond)):
            return None  # the condition would be evaluated again after X changed it
        out: list[c_ast.Node] = []
        if before or other is not None:
            out.append(c_ast.If(cond, c_ast.Compound(before, coord=node.coord), other, coord=node.coord))
        test = cond if guard is None else c_ast.BinaryOp("&&", cond, guard, coord=guard.coord)
        out.append(c_ast.If(copy.deepcopy(test), c_ast.Compound([leave], coord=leave.coord), None,
                            coord=leave.coord))
        if after:
            rest = c_ast.If(copy.deepcopy(cond), c_ast.Compound(after, coord=node.coord), None, coord=node.coord)
            lifted = _lift_if(rest) if _exit_in(rest) is not None else [rest]
            if lifted is None:
                return None
            out.extend(lifted)
        return out
    return None


def _alone(node: c_ast.Node) -> c_ast.Node:
    """The statement alone in block ``node``, or ``node``."""
    return node.block_items[0] if isinstance(node, c_ast.Compound) and len(node.block_items or []) == 1 else node


def _single(node: c_ast.Node) -> c_ast.Node | None:
    """The break or continue that ``node`` is (alone in a block or not)."""
    if isinstance(node, c_ast.Compound) and len(node.block_items or []) == 1:
        node = node.block_items[0]
    return node if isinstance(node, (c_ast.Break, c_ast.Continue)) else None


def _assigned(node: c_ast.Node) -> set[str]:
    """Names of the variables and arrays ``node`` may assign."""
    names = set()
    for n in subtree(node):
        target = n.lvalue if isinstance(n, c_ast.Assignment) else \
            n.expr if isinstance(n, c_ast.UnaryOp) and n.op in STEPS else None
        while isinstance(target, (c_ast.ArrayRef, c_ast.StructRef)):
            target = target.name
        if isinstance(target, c_ast.ID):
            names.add(target.name)
        if isinstance(n, c_ast.FuncCall):
            names.add("")  # a call may write anything the condition reads: refuse below through an ID
    return names


def _continues(body: c_ast.Node | None) -> c_ast.Node | None:
    """``body`` of a loop without the ``continue`` statements at its top level (see the module)."""
    if not isinstance(body, c_ast.Compound):
        return body
    items = list(body.block_items or [])
    for k, item in enumerate(items):
        if isinstance(item, c_ast.Continue) and k == len(items) - 1:
            body.block_items = items[:k]
            return body
        if not (isinstance(item, c_ast.If) and item.iffalse is None):
            continue
        then = item.iftrue
        then_items = list(then.block_items or []) if isinstance(then, c_ast.Compound) else [then]
        if not then_items or not isinstance(then_items[-1], c_ast.Continue):
            continue
        rest = c_ast.Compound(items[k + 1:], coord=item.coord)
        guarded = c_ast.If(item.cond, c_ast.Compound(then_items[:-1], coord=item.coord),
                           _continues(rest), coord=item.coord)
        body.block_items = items[:k] + [guarded]
        return body
    return body
