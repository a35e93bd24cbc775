package aakaar

// UnpinForTest lets a test free a tensor it pinned on purpose, once Python let go of it.
func UnpinForTest(t *Tensor) { t.pinned = false }
