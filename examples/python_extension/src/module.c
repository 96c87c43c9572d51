/* pp_blur.blur(image, passes=1): a blurred copy of a 2-D float64 array. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <numpy/arrayobject.h>

#include "blur.h"

static PyObject *py_blur(PyObject *self, PyObject *args, PyObject *kwargs)
{
  static char *keywords[] = {"image", "passes", NULL};
  PyObject *input;
  int passes = 1;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|i", keywords, &input, &passes))
    return NULL;
  PyArrayObject *image = (PyArrayObject *)PyArray_FROMANY(input, NPY_DOUBLE, 2, 2,
                                                          NPY_ARRAY_C_CONTIGUOUS | NPY_ARRAY_ENSURECOPY);
  if (image == NULL)
    return NULL;
  npy_intp rows = PyArray_DIM(image, 0), cols = PyArray_DIM(image, 1);
  if (passes < 0 || rows > 1000000 || cols > 1000000) {
    Py_DECREF(image);
    PyErr_SetString(PyExc_ValueError, "passes must be >= 0 and the image at most 1e6 x 1e6");
    return NULL;
  }
  double *scratch = PyMem_Calloc((size_t)(rows * cols) + 1, sizeof(double));
  if (scratch == NULL) {
    Py_DECREF(image);
    return PyErr_NoMemory();
  }
  Py_BEGIN_ALLOW_THREADS
  blur(passes, (int)rows, (int)cols, PyArray_DATA(image), (double (*)[cols])scratch);
  Py_END_ALLOW_THREADS
  PyMem_Free(scratch);
  return (PyObject *)image;
}

static PyMethodDef methods[] = {
  {"blur", (PyCFunction)(void (*)(void))py_blur, METH_VARARGS | METH_KEYWORDS,
   "blur(image, passes=1): a copy of the 2-D array with passes of a 3x3 box blur inside its border"},
  {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "pp_blur", NULL, -1, methods};

PyMODINIT_FUNC PyInit_pp_blur(void)
{
  import_array();
  return PyModule_Create(&module);
}
