package cuecard

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
)

// The engine: cuecard's Rust core compiled to WebAssembly (go/face, built by tests/run-all.sh and scripts/release.sh
// into this directory) and run by wazero, a WebAssembly runtime in pure Go. No cgo, no C compiler: the package builds
// wherever Go does, cross-compiling included.
//
//go:embed cuecard.wasm
var faceModule []byte

// The runtime and the compiled module are made once per process; each Mock gets an instance of its own.
var (
	compileOnce sync.Once
	sharedRT    wazero.Runtime
	compiled    wazero.CompiledModule
	compileErr  error
)

func compiledFace() (wazero.Runtime, wazero.CompiledModule, error) {
	compileOnce.Do(func() {
		ctx := context.Background()
		config := wazero.NewRuntimeConfig()
		if cache := compilationCache(); cache != nil {
			config = config.WithCompilationCache(cache)
		}
		sharedRT = wazero.NewRuntimeWithConfig(ctx, config)
		compiled, compileErr = sharedRT.CompileModule(ctx, faceModule)
	})
	return sharedRT, compiled, compileErr
}

// compilationCache keeps the engine's native code between test binaries, as Go's build cache keeps packages:
// compiling the module takes about 0.7 s, reading it back a few milliseconds. It lives in the user's cache directory
// (cuecard/wazero), or CUECARD_WAZERO_CACHE names another; CUECARD_WAZERO_CACHE=off compiles every time. Without a
// usable directory there is no cache, and nothing else changes.
func compilationCache() wazero.CompilationCache {
	dir := os.Getenv("CUECARD_WAZERO_CACHE")
	if dir == "off" {
		return nil
	}
	if dir == "" {
		base, err := os.UserCacheDir()
		if err != nil {
			return nil
		}
		dir = filepath.Join(base, "cuecard", "wazero")
	}
	cache, err := wazero.NewCompilationCacheWithDir(dir)
	if err != nil {
		return nil
	}
	return cache
}

// engine is one instance of the face. An instance is single-threaded: its calls are serialised.
type engine struct {
	mu       sync.Mutex
	module   api.Module
	alloc    api.Function
	free     api.Function
	call     api.Function
	broken   error
	isClosed bool
}

func newEngine() (*engine, error) {
	rt, cm, err := compiledFace()
	if err != nil {
		return nil, fmt.Errorf("cuecard: the engine does not compile: %w", err)
	}
	// An anonymous instance: a runtime holds any number of them.
	module, err := rt.InstantiateModule(context.Background(), cm, wazero.NewModuleConfig().WithName(""))
	if err != nil {
		return nil, fmt.Errorf("cuecard: the engine does not start: %w", err)
	}
	return &engine{
		module: module,
		alloc:  module.ExportedFunction("cuecard_alloc"),
		free:   module.ExportedFunction("cuecard_free"),
		call:   module.ExportedFunction("cuecard_call"),
	}, nil
}

// do runs one operation of the face: request is marshalled to JSON, the answer's value unmarshalled into out (when
// not nil). A refusal is an *Error with the core's code.
func (e *engine) do(request any, out any) error {
	payload, err := json.Marshal(request)
	if err != nil {
		return &Error{Code: "invalid_argument", Message: fmt.Sprintf("cannot encode the request: %v", err)}
	}
	answer, err := e.roundTrip(payload)
	if err != nil {
		return err
	}
	var envelope struct {
		OK    json.RawMessage `json:"ok"`
		Error *Error          `json:"error"`
	}
	if err := json.Unmarshal(answer, &envelope); err != nil {
		return &Error{Code: "internal", Message: fmt.Sprintf("the engine's answer is not JSON: %v", err)}
	}
	if envelope.Error != nil {
		return envelope.Error
	}
	if out != nil {
		if err := json.Unmarshal(envelope.OK, out); err != nil {
			return &Error{Code: "internal", Message: fmt.Sprintf("the engine's answer does not fit %T: %v", out, err)}
		}
	}
	return nil
}

// roundTrip writes payload into the instance, calls the face and reads its answer back.
func (e *engine) roundTrip(payload []byte) ([]byte, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.broken != nil {
		return nil, e.broken
	}
	ctx := context.Background()
	results, err := e.alloc.Call(ctx, uint64(len(payload)))
	if err != nil {
		return nil, e.fail(err)
	}
	pointer := uint32(results[0])
	if !e.module.Memory().Write(pointer, payload) {
		return nil, e.fail(fmt.Errorf("the request does not fit the engine's memory"))
	}
	results, err = e.call.Call(ctx, uint64(pointer), uint64(len(payload)))
	if err != nil {
		return nil, e.fail(err)
	}
	at, length := uint32(results[0]>>32), uint32(results[0])
	view, ok := e.module.Memory().Read(at, length)
	if !ok {
		return nil, e.fail(fmt.Errorf("the engine's answer is outside its memory"))
	}
	answer := append([]byte(nil), view...)
	if _, err := e.free.Call(ctx, uint64(at), uint64(length)); err != nil {
		return nil, e.fail(err)
	}
	return answer, nil
}

// fail marks the instance unusable after a trap (a panic in the core): its memory may be inconsistent, so every
// later call says why instead of running on it.
func (e *engine) fail(err error) error {
	e.broken = &Error{Code: "internal", Message: fmt.Sprintf("the engine stopped: %v", err)}
	return e.broken
}

// closed says whether close was called.
func (e *engine) closed() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.isClosed
}

func (e *engine) close() {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.isClosed {
		return
	}
	e.isClosed = true
	if e.broken == nil {
		e.broken = &Error{Code: "invalid_state", Message: "the mock was closed"}
	}
	_ = e.module.Close(context.Background())
}
