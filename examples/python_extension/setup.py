import numpy
from setuptools import Extension, setup

from polypragma.setuptools import build_ext, offload

extension = Extension("pp_blur", ["src/module.c", "src/blur.c"], include_dirs=[numpy.get_include()])
setup(ext_modules=offload([extension]), cmdclass={"build_ext": build_ext})
