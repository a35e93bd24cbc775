// See glue.h. Built by cgo with the flags of go/env.sh (the virtual environment's libpython).
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "glue.h"

static PyObject* serving;        // aakaar.serving
static PyThreadState* main_state;  // saved by ak_init, restored by ak_finalize

static char* dup_str(const char* s) {
  size_t n = strlen(s) + 1;
  char* p = malloc(n);
  if (p) memcpy(p, s, n);
  return p;
}

// The pending Python exception as "Type: message", cleared. Dropping the traceback here matters:
// its frames hold the tensors that view the caller's buffers.
static char* fetch_error(const char* where) {
  PyObject *type, *value, *tb;
  PyErr_Fetch(&type, &value, &tb);
  PyErr_NormalizeException(&type, &value, &tb);
  const char* tname = type ? ((PyTypeObject*)type)->tp_name : "UnknownError";
  PyObject* msg = value ? PyObject_Str(value) : NULL;
  const char* m = msg ? PyUnicode_AsUTF8(msg) : NULL;
  if (!m) {
    PyErr_Clear();
    m = "(no message)";
  }
  size_t n = strlen(where) + strlen(tname) + strlen(m) + 8;
  char* out = malloc(n);
  if (out) snprintf(out, n, "%s: %s: %s", where, tname, m);
  Py_XDECREF(msg);
  Py_XDECREF(type);
  Py_XDECREF(value);
  Py_XDECREF(tb);
  return out;
}

static char* status_error(const char* where, PyStatus st) {
  const char* m = st.err_msg ? st.err_msg : "unknown error";
  size_t n = strlen(where) + strlen(m) + 4;
  char* out = malloc(n);
  if (out) snprintf(out, n, "%s: %s", where, m);
  return out;
}

// [[book:embed_init]]
char* ak_init(const char* python) {
  PyConfig config;
  PyConfig_InitPythonConfig(&config);
  config.install_signal_handlers = 0;  // Go owns SIGINT, SIGTERM, SIGPIPE...
  config.parse_argv = 0;
  // The venv's python as program name and executable: Python finds pyvenv.cfg beside it and puts
  // the venv's site-packages (where aakaar is installed) on sys.path.
  PyStatus st = PyConfig_SetBytesString(&config, &config.program_name, python);
  if (!PyStatus_Exception(st)) st = PyConfig_SetBytesString(&config, &config.executable, python);
  if (!PyStatus_Exception(st)) st = Py_InitializeFromConfig(&config);
  PyConfig_Clear(&config);
  if (PyStatus_Exception(st)) return status_error("Py_InitializeFromConfig", st);
  serving = PyImport_ImportModule("aakaar.serving");
  if (!serving) {
    char* err = fetch_error("import aakaar.serving");
    main_state = PyEval_SaveThread();
    return err;
  }
  main_state = PyEval_SaveThread();  // the GIL is free between calls
  return NULL;
}
// [[/book:embed_init]]

char* ak_set_threads(int n) {
  PyGILState_STATE g = PyGILState_Ensure();
  char* err = NULL;
  PyObject* ak = PyImport_ImportModule("aakaar");
  PyObject* r = ak ? PyObject_CallMethod(ak, "set_num_threads", "i", n) : NULL;
  if (!r) err = fetch_error("aakaar.set_num_threads");
  Py_XDECREF(r);
  Py_XDECREF(ak);
  PyGILState_Release(g);
  return err;
}

static int get_int(PyObject* obj, const char* name, int64_t* out) {
  PyObject* v = PyObject_GetAttrString(obj, name);
  if (!v) return -1;
  *out = PyLong_AsLongLong(v);
  Py_DECREF(v);
  return PyErr_Occurred() ? -1 : 0;
}

char* ak_load(const char* path, void** model, int64_t* in, int64_t* out) {
  PyGILState_STATE g = PyGILState_Ensure();
  char* err = NULL;
  PyObject* m = PyObject_CallMethod(serving, "load_model", "s", path);
  if (!m || get_int(m, "in_features", in) || get_int(m, "out_features", out)) {
    err = fetch_error("aakaar.serving.load_model");
    Py_XDECREF(m);
    m = NULL;
  }
  *model = m;
  PyGILState_Release(g);
  return err;
}

void ak_release_model(void* model) {
  PyGILState_STATE g = PyGILState_Ensure();
  Py_XDECREF((PyObject*)model);
  PyGILState_Release(g);
}

// A writable memoryview over caller-owned memory: no copy, no ownership.
static PyObject* view(void* data, size_t nbytes) {
  return PyMemoryView_FromMemory((char*)data, (Py_ssize_t)nbytes, PyBUF_WRITE);
}

// Drops our reference to a memoryview made by view(), checking first that nothing else holds
// the memory: neither a reference to our memoryview nor another memoryview of it (numpy 2's
// frombuffer keeps a memoryview of ours as its array's base: it shares our managed buffer, whose
// exports count every memoryview on it). memoryview.release() alone would miss the second case.
// If something remains (after a garbage collection, for arrays caught in reference cycles),
// the memory must outlive this call: *pinned tells the caller never to free it.
static int still_used(PyObject* mv) {
  return Py_REFCNT(mv) > 1 || ((PyMemoryViewObject*)mv)->mbuf->exports > 1;
}

static void release_view(PyObject* mv, int* pinned) {
  if (!mv) return;
  if (still_used(mv)) PyGC_Collect();
  if (still_used(mv)) {
    *pinned = 1;
  } else {
    PyObject* r = PyObject_CallMethod(mv, "release", NULL);
    if (!r) {
      PyErr_Clear();
      *pinned = 1;
    }
    Py_XDECREF(r);
  }
  Py_DECREF(mv);
}

// [[book:embed_run]]
char* ak_run(void* model, void* in, size_t in_bytes, void* out, size_t out_bytes, int64_t rows, int mode,
             int* pinned) {
  PyGILState_STATE g = PyGILState_Ensure();
  char* err = NULL;
  *pinned = 0;
  PyObject* vin = view(in, in_bytes);
  PyObject* vout = vin ? view(out, out_bytes) : NULL;
  PyObject* r = NULL;
  if (vout) {
    r = PyObject_CallMethod(serving, mode == 0 ? "run" : "wrap_only", "OOOL", (PyObject*)model, vin, vout,
                            (long long)rows);
  }
  if (!r) err = fetch_error(mode == 0 ? "aakaar.serving.run" : "aakaar.serving.wrap_only");
  Py_XDECREF(r);
  release_view(vin, pinned);
  release_view(vout, pinned);
  PyGILState_Release(g);
  return err;
}
// [[/book:embed_run]]

char* ak_noop(void) {
  PyGILState_STATE g = PyGILState_Ensure();
  char* err = NULL;
  PyObject* r = PyObject_CallMethod(serving, "noop", NULL);
  if (!r) err = fetch_error("aakaar.serving.noop");
  Py_XDECREF(r);
  PyGILState_Release(g);
  return err;
}

void ak_nothing(void) {}

char* ak_exec(const char* src, void* data, size_t nbytes, char** result, int* pinned) {
  PyGILState_STATE g = PyGILState_Ensure();
  char* err = NULL;
  *result = NULL;
  *pinned = 0;
  PyObject* ns = PyDict_New();
  PyObject* mv = data ? view(data, nbytes) : NULL;
  if (ns && PyDict_SetItemString(ns, "__builtins__", PyEval_GetBuiltins()) == 0 &&
      PyDict_SetItemString(ns, "buf", mv ? mv : Py_None) == 0) {
    PyObject* r = PyRun_String(src, Py_file_input, ns, ns);
    if (r) {
      PyObject* res = PyDict_GetItemString(ns, "result");  // borrowed
      PyObject* s = res ? PyObject_Str(res) : NULL;
      const char* u = s ? PyUnicode_AsUTF8(s) : NULL;
      if (u) *result = dup_str(u);
      Py_XDECREF(s);
      Py_DECREF(r);
    }
  }
  if (PyErr_Occurred()) err = fetch_error("exec");
  // Functions the source defined keep ns as their globals: only its name for the buffer goes.
  if (ns && PyDict_GetItemString(ns, "buf") && PyDict_DelItemString(ns, "buf") < 0) PyErr_Clear();
  Py_XDECREF(ns);
  release_view(mv, pinned);
  PyGILState_Release(g);
  return err;
}

char* ak_finalize(void) {
  if (!main_state) return NULL;
  PyEval_RestoreThread(main_state);
  Py_CLEAR(serving);
  main_state = NULL;
  if (Py_FinalizeEx() < 0) return dup_str("Py_FinalizeEx: flushing buffered data failed");
  return NULL;
}
