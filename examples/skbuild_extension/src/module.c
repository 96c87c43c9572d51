/* pp_smooth.smooth(signal, passes=1): a smoothed copy of a 1-D float64 array. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <numpy/arrayobject.h>

#include "smooth.h"

static PyObject *py_smooth(PyObject *self, PyObject *args, PyObject *kwargs)
{
  static char *keywords[] = {"signal", "passes", NULL};
  PyObject *input;
  int passes = 1;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|i", keywords, &input, &passes))
    return NULL;
  PyArrayObject *signal = (PyArrayObject *)PyArray_FROMANY(input, NPY_DOUBLE, 1, 1,
                                                           NPY_ARRAY_C_CONTIGUOUS | NPY_ARRAY_ENSURECOPY);
  if (signal == NULL)
    return NULL;
  npy_intp n = PyArray_DIM(signal, 0);
  if (passes < 0 || n > 1000000000) {
    Py_DECREF(signal);
    PyErr_SetString(PyExc_ValueError, "passes must be >= 0 and the signal shorter than 1e9");
    return NULL;
  }
  double *scratch = PyMem_Calloc((size_t)n + 1, sizeof(double));
  if (scratch == NULL) {
    Py_DECREF(signal);
    return PyErr_NoMemory();
  }
  Py_BEGIN_ALLOW_THREADS
  smooth(passes, (int)n, PyArray_DATA(signal), scratch);
  Py_END_ALLOW_THREADS
  PyMem_Free(scratch);
  return (PyObject *)signal;
}

static PyMethodDef methods[] = {
  {"smooth", (PyCFunction)(void (*)(void))py_smooth, METH_VARARGS | METH_KEYWORDS,
   "smooth(signal, passes=1): a copy of the 1-D array with passes of (1/4, 1/2, 1/4) smoothing inside its ends"},
  {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "pp_smooth", NULL, -1, methods};

PyMODINIT_FUNC PyInit_pp_smooth(void)
{
  import_array();
  return PyModule_Create(&module);
}
