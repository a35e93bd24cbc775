"""Benchmarks that run aakaar and its references in the same process, interleaved."""
