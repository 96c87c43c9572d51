"""Diagnostics in the format compilers use: ``file:line:col: severity: message``.

Every problem polypragma reports is a :class:`Diagnostic`.  Problems that stop
the handling of one region are raised as :class:`Unsupported` (the region is
then copied through unchanged, with a warning); problems with the file as a
whole are raised as :class:`FatalError`.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass


@dataclass(frozen=True)
class Location:
    file: str
    line: int
    column: int = 1

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"


@dataclass(frozen=True)
class Diagnostic:
    location: Location | None
    severity: str  # "error", "warning" or "note"
    message: str

    def __str__(self) -> str:
        where = f"{self.location}: " if self.location else "polypragma: "
        return f"{where}{self.severity}: {self.message}"


class PolypragmaError(Exception):
    """Base of the errors polypragma raises."""

    def __init__(self, message: str, location: Location | None = None):
        super().__init__(message)
        self.message = message
        self.location = location

    def diagnostic(self, severity: str = "error") -> Diagnostic:
        return Diagnostic(self.location, severity, self.message)

    def __reduce__(self):
        # as raised, whatever the subclass's own arguments: an error of a forked process crosses to the
        # parent as a pickle (forked.run)
        return _rebuilt, (type(self), self.message, self.location), self.__dict__


def _rebuilt(cls: type, message: str, location: Location | None) -> PolypragmaError:
    error = cls.__new__(cls)
    PolypragmaError.__init__(error, message, location)
    return error


class FatalError(PolypragmaError):
    """The file cannot be processed at all (bad markup, preprocessor failure)."""


class Unsupported(PolypragmaError):
    """A region uses a construct outside the polyhedral model.

    ``construct`` names it for the user ("while loop", "call to printf").
    """

    def __init__(self, construct: str, location: Location | None, why: str = "is not supported"):
        super().__init__(f"region left as written: {construct} {why}", location)


class Reporter:
    """Collects diagnostics and prints them to a stream as they arrive."""

    def __init__(self, stream=None):
        self.stream = stream if stream is not None else sys.stderr
        self.diagnostics: list[Diagnostic] = []

    def report(self, diagnostic: Diagnostic) -> None:
        self.diagnostics.append(diagnostic)
        print(diagnostic, file=self.stream)

    def error(self, message: str, location: Location | None = None) -> None:
        self.report(Diagnostic(location, "error", message))

    def warning(self, message: str, location: Location | None = None) -> None:
        self.report(Diagnostic(location, "warning", message))

    @property
    def error_count(self) -> int:
        return sum(d.severity == "error" for d in self.diagnostics)
