// The C side of the Go runtime: the only code that touches the CPython API.
//
// Every function below must be called on the one OS thread that called ak_init (the Go runtime
// guarantees it: a goroutine locked to its thread runs them all). Each takes the GIL itself and
// releases it before it returns, so between calls no thread holds it.
//
// Errors come back as a malloc'd string (the caller frees it) and NULL means success.
#pragma once
#include <stddef.h>
#include <stdint.h>

// Starts the interpreter as `python` (a virtual environment's bin/python: its site-packages are
// used), with Python's signal handlers off, imports aakaar.serving and releases the GIL.
char* ak_init(const char* python);
// Sets aakaar's CPU thread pool size.
char* ak_set_threads(int n);
// Loads a served-model file; *model is a new reference, *in/*out the row sizes.
char* ak_load(const char* path, void** model, int64_t* in, int64_t* out);
void ak_release_model(void* model);
// Runs aakaar.serving.run (mode 0) or wrap_only (mode 1) on `rows` rows of caller-owned
// buffers. *pinned is set when Python still holds a buffer afterwards (it must then not be freed).
char* ak_run(void* model, void* in, size_t in_bytes, void* out, size_t out_bytes, int64_t rows, int mode,
             int* pinned);
// Calls aakaar.serving.noop(): the price of a call from C into Python (GIL included).
char* ak_noop(void);
// Nothing at all: the price of a call from Go into C.
void ak_nothing(void);
// Runs Python source with `buf` bound to a writable memoryview of (data, nbytes) (None when data is
// NULL); *result is str(result) when the source sets `result`, else NULL. For tests and diagnostics.
char* ak_exec(const char* src, void* data, size_t nbytes, char** result, int* pinned);
// Takes the GIL back and finalizes the interpreter.
char* ak_finalize(void);
