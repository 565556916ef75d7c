package cuecard

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// The shared vectors of tests/vectors, which every language runs: the same inputs, the same expected outputs (golden
// outputs of the Rust core). Each runner asserts it ran every vector. The WebAssembly engine serves no realtime
// sockets and no A2A agents (as the browser module), so those vectors are passed over and counted.

func readVectors(t *testing.T, name string) []map[string]any {
	t.Helper()
	text, err := os.ReadFile(filepath.Join("..", "tests", "vectors", name))
	if err != nil {
		t.Fatalf("the shared vectors: %v", err)
	}
	var file struct {
		Vectors []map[string]any `json:"vectors"`
	}
	if err := json.Unmarshal(text, &file); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return file.Vectors
}

// canonical re-reads a value through JSON, so values from the engine and from a file compare alike.
func canonical(t *testing.T, value any) any {
	t.Helper()
	text, err := json.Marshal(value)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(text, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestTokenizerVectors(t *testing.T) {
	mock, err := Open()
	if err != nil {
		t.Fatal(err)
	}
	defer mock.Close()
	ran := 0
	for _, name := range []string{"tokenizer.json", "tokenizer-reference.json"} {
		vectors := readVectors(t, name)
		for _, vector := range vectors {
			input, _ := vector["input"].(string)
			tokens, err := Tokenize(input)
			if err != nil {
				t.Fatalf("%v: %v", vector["id"], err)
			}
			if !reflect.DeepEqual(canonical(t, tokens), canonical(t, vector["expected"])) {
				t.Errorf("%v: tokenize(%q) = %q, want %v", vector["id"], input, tokens, vector["expected"])
			}
			count, err := CountTokens(input)
			if err != nil || count != len(tokens) {
				t.Errorf("%v: count %d (%v), want %d", vector["id"], count, err, len(tokens))
			}
			ran++
		}
		if len(vectors) < 30 {
			t.Fatalf("%s: only %d vectors", name, len(vectors))
		}
	}
	t.Logf("tokenizer vectors: %d ran", ran)
}

// servedHere says whether the engine in this package serves a wire request: not realtime sockets, not A2A agents.
func servedHere(requests []any) bool {
	for _, r := range requests {
		request, _ := r.(map[string]any)
		path, _ := request["path"].(string)
		if request["method"] == "WS" || path == "/a2a" || strings.HasPrefix(path, "/a2a/") || strings.HasPrefix(path, "/.well-known/agent") {
			return false
		}
		headers, _ := request["headers"].([]any)
		for _, h := range headers {
			pair, _ := h.([]any)
			if len(pair) == 2 && pair[0] == "upgrade" && pair[1] == "websocket" {
				return false
			}
		}
	}
	return true
}

func TestWireVectors(t *testing.T) {
	vectors := readVectors(t, "wire.json")
	ran, passedOver, total := 0, 0, 0
	for _, vector := range vectors {
		input := vector["input"].(map[string]any)
		requests := input["requests"].([]any)
		expected := vector["expected"].([]any)
		total += len(requests)
		if !servedHere(requests) {
			passedOver += len(requests)
			continue
		}
		mock, err := Open(Scenario(input["scenario"]), AllowUnused())
		if err != nil {
			t.Fatalf("%v: %v", vector["id"], err)
		}
		for i, request := range requests {
			var answered any
			if err := mock.op("handle_http", map[string]any{"request": request}, &answered); err != nil {
				t.Fatalf("%v #%d: %v", vector["id"], i, err)
			}
			if !reflect.DeepEqual(answered, canonical(t, expected[i])) {
				got, _ := json.Marshal(answered)
				want, _ := json.Marshal(expected[i])
				t.Errorf("%v #%d:\n got %s\nwant %s", vector["id"], i, got, want)
			}
			ran++
		}
		mock.Close()
	}
	if ran+passedOver != total || len(vectors) < 18 || ran == 0 || passedOver == 0 {
		t.Fatalf("ran %d and passed over %d of %d requests in %d vectors", ran, passedOver, total, len(vectors))
	}
	t.Logf("wire vectors: %d requests ran, %d passed over (sockets, A2A)", ran, passedOver)
}

func TestVerifyVectors(t *testing.T) {
	vectors := readVectors(t, "verify.json")
	ran, passedOver, total := 0, 0, 0
	for _, vector := range vectors {
		input := vector["input"].(map[string]any)
		calls := input["calls"].([]any)
		checks := input["checks"].([]any)
		expected := vector["expected"].([]any)
		total += len(checks)
		var wire []any
		for _, c := range calls {
			if call := c.(map[string]any); call["mode"] == "http" {
				wire = append(wire, call["request"])
			}
		}
		if !servedHere(wire) {
			passedOver += len(checks)
			continue
		}
		mock, err := Open(Scenario(input["scenario"]), AllowUnused())
		if err != nil {
			t.Fatalf("%v: %v", vector["id"], err)
		}
		for _, c := range calls {
			call := c.(map[string]any)
			switch call["mode"] {
			case "http":
				if err := mock.op("handle_http", map[string]any{"request": call["request"]}, nil); err != nil {
					t.Fatalf("%v: %v", vector["id"], err)
				}
			case "chat":
				// A scripted failure is the answer itself here: only cuecard's and the provider's errors are expected.
				err := mock.op("chat", map[string]any{"request": call["request"]}, nil)
				var cuecardErr *Error
				if err != nil && !errors.As(err, &cuecardErr) {
					t.Fatalf("%v: %v", vector["id"], err)
				}
			default:
				t.Fatalf("%v: a call mode this runner does not know: %v", vector["id"], call["mode"])
			}
		}
		observer := 0
		if records, ok := input["observer"].([]any); ok {
			if err := mock.engine.do(map[string]any{"op": "observer_new"}, &observer); err != nil {
				t.Fatal(err)
			}
			for _, r := range records {
				record := r.(map[string]any)
				var index int
				if err := mock.engine.do(map[string]any{"op": "observer_start_call", "observer": observer,
					"context": record["context"]}, &index); err != nil {
					t.Fatalf("%v: %v", vector["id"], err)
				}
				for _, event := range record["events"].([]any) {
					if err := mock.engine.do(map[string]any{"op": "observer_report", "observer": observer,
						"index": index, "event": event}, nil); err != nil {
						t.Fatalf("%v: %v", vector["id"], err)
					}
				}
			}
		}
		for i, check := range checks {
			fields := map[string]any{"check": check}
			if observer != 0 {
				fields["observer"] = observer
			}
			err := mock.op("check", fields, nil)
			want := expected[i].(map[string]any)
			switch {
			case err == nil && want["pass"] != true:
				t.Errorf("%v %v: passed, want %v", vector["id"], check, want["message"])
			case err != nil && !errors.Is(err, ErrAssertionFailed):
				t.Errorf("%v %v: %v", vector["id"], check, err)
			case err != nil && err.(*Error).Message != want["message"]:
				t.Errorf("%v %v:\n got %s\nwant %v", vector["id"], check, err.(*Error).Message, want["message"])
			}
			ran++
		}
		mock.Close()
	}
	if ran+passedOver != total || len(vectors) < 7 || passedOver == 0 {
		t.Fatalf("ran %d and passed over %d of %d checks in %d vectors", ran, passedOver, total, len(vectors))
	}
	t.Logf("verify vectors: %d checks ran, %d passed over (sockets, A2A)", ran, passedOver)
}
