// Command aakaar-serve serves a served-model file (aakaar.serving.save_model) over HTTP:
//
//	POST /v1/predict      {"inputs": [[784 floats], ...]} -> {"outputs": [[47 floats], ...], "classes": [...]}
//	POST /v1/predict/raw  rows of little-endian float32 -> the logits, the same way
//	GET  /healthz, GET /metrics (Prometheus text format)
//
// Build and run (README.md): source go/env.sh; cd go && go run ./cmd/aakaar-serve -model m.aksv
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"aakaar"
	"aakaar/server"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "aakaar-serve:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	fs := flag.NewFlagSet("aakaar-serve", flag.ContinueOnError)
	model := fs.String("model", "", "served-model file (aakaar.serving.save_model)")
	addr := fs.String("addr", "127.0.0.1:8080", "listen address")
	python := fs.String("python", "", "the virtual environment's python (default: $AAKAAR_PYTHON or the nearest .venv/bin/python)")
	threads := fs.Int("threads", 0, "aakaar's CPU threads (0: one less than the cores)")
	maxBatch := fs.Int("max-batch", 64, "most rows per call of the model (1: no batching)")
	maxDelay := fs.Duration("max-delay", 2*time.Millisecond, "longest a row waits for its batch to fill")
	queue := fs.Int("queue", 4096, "rows that may wait; more get 503")
	cfg := server.DefaultConfig()
	fs.Int64Var(&cfg.MaxBodyBytes, "max-body", cfg.MaxBodyBytes, "largest request body in bytes (413 above)")
	fs.IntVar(&cfg.MaxRows, "max-rows", cfg.MaxRows, "most rows per request (413 above)")
	fs.DurationVar(&cfg.Timeout, "timeout", cfg.Timeout, "per-request deadline (504 after)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *model == "" {
		return errors.New("-model is required (a file written by aakaar.serving.save_model)")
	}
	if *python == "" {
		p, err := aakaar.FindPython()
		if err != nil {
			return err
		}
		*python = p
	}
	logger := log.New(os.Stderr, "aakaar-serve: ", log.LstdFlags)
	if err := aakaar.Init(*python, aakaar.Options{Threads: *threads}); err != nil {
		return err
	}
	defer func() {
		if err := aakaar.Shutdown(); err != nil {
			logger.Printf("shutdown: %v", err)
		}
		logger.Printf("stopped; shared tensors still allocated: %d", aakaar.LiveTensors())
	}()
	m, err := aakaar.Load(*model)
	if err != nil {
		return err
	}
	defer m.Close()
	metrics := server.NewMetrics()
	b, err := aakaar.NewBatcher(m, aakaar.BatchConfig{MaxBatch: *maxBatch, MaxDelay: *maxDelay, QueueSize: *queue},
		metrics.ObserveBatch)
	if err != nil {
		return err
	}
	defer b.Close()
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: server.New(b, metrics, cfg, logger).Handler(), ReadHeaderTimeout: 10 * time.Second}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		shut, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = srv.Shutdown(shut)
	}()
	logger.Printf("serving %s (%d -> %d) on http://%s, batches of up to %d rows, %v max delay",
		*model, m.In, m.Out, ln.Addr(), *maxBatch, *maxDelay)
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
