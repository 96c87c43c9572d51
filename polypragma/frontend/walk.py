"""The state of the walk over a region (:class:`polypragma.frontend.extract.RegionExtractor`): the loops
around a point of it, with its domain and scope; the blocks being walked; the locals hoisted to the top of
the region.  Also the sequence of the schedules of a block's items."""

from __future__ import annotations

from dataclasses import dataclass

import islpy as isl
from pycparser import c_ast

from polypragma.frontend.symbols import Scope
from polypragma.model import Variable


@dataclass
class Loop:
    c_name: str
    dim: str  # dimension name in isl spaces (unique along a path)
    reverse: bool
    ctype: str
    unsigned: bool = False
    modulus: int | None = None  # an unsigned iterator that wraps around: its value is the dimension mod this


@dataclass
class Walk:
    loops: list[Loop]
    domain: isl.Set  # over the loops' dimensions, unnamed tuple
    scope: Scope


@dataclass
class Frame:
    """A block being walked: where a ``goto`` finds its label, and what it may skip."""
    items: list[c_ast.Node]
    depth: int  # loops around the block
    index: int = 0  # the item being walked
    first: int = 0  # index in the walk's statements of the first statement of that item


@dataclass
class Hoisted:
    variable: Variable
    new_name: str
    at_region_level: bool


def sequence(pieces: list[isl.Schedule]) -> isl.Schedule | None:
    """The schedules of a block's items, one after another (None for none)."""
    if not pieces:
        return None
    result = pieces[0]
    for p in pieces[1:]:
        result = result.sequence(p)
    return result
