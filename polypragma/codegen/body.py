"""Reprint a statement body with new names for its loop iterators and locals."""

from __future__ import annotations

from pycparser import c_ast, c_generator


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
