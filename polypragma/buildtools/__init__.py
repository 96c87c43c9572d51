"""Build integration: dependency files, and the hooks for setuptools and pre-commit.

The CMake package lives in ``cmake/`` at the top of the repository (installed
as ``polypragma/cmake``); ``polypragma --cmake-dir`` prints where.
"""
