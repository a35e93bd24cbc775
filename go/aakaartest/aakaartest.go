// Package aakaartest holds the helpers the tests and the benchmark share: starting Python,
// writing a model with random weights, and making the model raise or stall on purpose.
package aakaartest

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"time"

	"aakaar"
)

// Sizes of the test model: chapter 17's MLP, narrower (random weights; nothing is trained).
var Sizes = []int{784, 64, 47}

// Start initializes Python (one aakaar thread: tests share two cores) and writes a model with
// random weights of sizes into a fresh temporary folder; cleanup removes it.
func Start(threads int, sizes []int) (modelPath string, cleanup func(), err error) {
	python, err := aakaar.FindPython()
	if err != nil {
		return "", nil, err
	}
	if err := aakaar.Init(python, aakaar.Options{Threads: threads}); err != nil {
		return "", nil, err
	}
	dir, err := os.MkdirTemp("", "aakaar-go-")
	if err != nil {
		return "", nil, err
	}
	modelPath = filepath.Join(dir, "mlp.aksv")
	if err := SaveRandomModel(modelPath, sizes, 0); err != nil {
		os.RemoveAll(dir)
		return "", nil, err
	}
	return modelPath, func() { os.RemoveAll(dir) }, nil
}

func pyList(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = fmt.Sprint(x)
	}
	return "[" + strings.Join(s, ", ") + "]"
}

// SaveRandomModel writes an MLP of sizes with aakaar's default initialization under seed.
func SaveRandomModel(path string, sizes []int, seed int) error {
	_, err := aakaar.Exec(fmt.Sprintf(`
import aakaar
from aakaar.serving import build_mlp, save_model
aakaar.manual_seed(%d)
save_model(%q, build_mlp(%s), %s)
`, seed, path, pyList(sizes), pyList(sizes)), nil)
	return err
}

// FailOn makes aakaar.serving.run raise ValueError on any batch holding a row whose first
// element is marker (an exception inside the model); restore undoes it.
func FailOn(marker float32) (restore func() error, err error) {
	_, err = aakaar.Exec(fmt.Sprintf(`
import numpy as np, aakaar.serving as s
_orig = getattr(s, "_unpatched_run", s.run)
s._unpatched_run = _orig
def _failing(model, inputs, outputs, rows):
    x = np.frombuffer(inputs, dtype=np.float32, count=rows * model.in_features).reshape(rows, -1)
    if (x[:, 0] == np.float32(%v)).any():
        raise ValueError("the test model refuses rows starting with %v")
    _orig(model, inputs, outputs, rows)
s.run = _failing
`, marker, marker), nil)
	return func() error {
		_, err := aakaar.Exec("import aakaar.serving as s\ns.run = s._unpatched_run", nil)
		return err
	}, err
}

// Stall occupies the Python thread for d (in Python's time.sleep) and returns at once; calls
// queue behind it. done is closed when the stall ends.
func Stall(d time.Duration) (done chan struct{}) {
	done = make(chan struct{})
	started := make(chan struct{})
	go func() {
		defer close(done)
		close(started)
		_, _ = aakaar.Exec(fmt.Sprintf("import time\ntime.sleep(%g)", d.Seconds()), nil)
	}()
	<-started
	time.Sleep(20 * time.Millisecond) // let the stall reach the Python thread first
	return done
}

// RandomRows is n rows of width uniform [0, 1) floats from seed.
func RandomRows(n, width int, seed int64) [][]float32 {
	rng := rand.New(rand.NewSource(seed))
	rows := make([][]float32, n)
	for i := range rows {
		rows[i] = make([]float32, width)
		for j := range rows[i] {
			rows[i][j] = rng.Float32()
		}
	}
	return rows
}
