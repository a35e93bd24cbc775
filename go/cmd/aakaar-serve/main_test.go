package main

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"aakaar"
)

func TestTheModelFlagIsRequired(t *testing.T) {
	if err := run(nil); err == nil || !strings.Contains(err.Error(), "-model is required") {
		t.Fatalf("want an error naming -model, got %v", err)
	}
}

func freeAddr(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// The whole program: it serves, and SIGINT (which Python must not have taken over) stops it
// cleanly: Python finalized, no shared buffer left.
func TestServeThenStopOnSIGINT(t *testing.T) {
	python, err := aakaar.FindPython()
	if err != nil {
		t.Fatal(err)
	}
	model := filepath.Join(t.TempDir(), "m.aksv")
	out, err := exec.Command(python, "-c", fmt.Sprintf(
		"from aakaar.serving import build_mlp, save_model; save_model(%q, build_mlp([784, 16, 47]), [784, 16, 47])", model)).CombinedOutput()
	if err != nil {
		t.Fatalf("writing a model: %v\n%s", err, out)
	}
	addr := freeAddr(t)
	done := make(chan error, 1)
	go func() { done <- run([]string{"-model", model, "-addr", addr, "-threads", "1", "-max-delay", "1ms"}) }()
	var resp *http.Response
	for start := time.Now(); ; time.Sleep(20 * time.Millisecond) {
		if resp, err = http.Get("http://" + addr + "/healthz"); err == nil {
			break
		}
		if time.Since(start) > 30*time.Second {
			t.Fatalf("the server did not come up: %v", err)
		}
	}
	resp.Body.Close()
	resp, err = http.Post("http://"+addr+"/v1/predict/raw", "application/octet-stream", bytes.NewReader(make([]byte, 784*4)))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || len(body) != 47*4 {
		t.Fatalf("predict: %d, %d bytes", resp.StatusCode, len(body))
	}
	if err := syscall.Kill(syscall.Getpid(), syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("run returned %v after SIGINT", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("SIGINT did not stop the server")
	}
	if n := aakaar.LiveTensors(); n != 0 {
		t.Fatalf("%d shared tensors left after shutdown", n)
	}
}
