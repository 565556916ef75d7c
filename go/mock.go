// Package cuecard is a deterministic stand-in for an LLM in Go tests: a test scripts what the model answers, the code
// under test runs against it (through Mock.Transport, an http.RoundTripper that any Go SDK takes, or Serve, a
// loopback server), and the test asserts what was sent.
//
// The engine is cuecard's Rust core, the same one the Python, Node, JVM, C and WebAssembly packages drive, run in
// process by wazero: the same scenario gives the same bytes in every language.
package cuecard

import (
	"fmt"
	"os"
	"sync"
)

// TB is what a Mock needs of a test: testing.T, testing.B and testing.F are TBs.
type TB interface {
	Helper()
	Cleanup(func())
	Errorf(format string, args ...any)
	Fatalf(format string, args ...any)
}

// Mock is a scripted model. Its methods are safe for concurrent use.
type Mock struct {
	engine *engine
	id     int
	// finalChecks are run when the test ends (New): every step used, no unexpected request.
	finalChecks bool
	// recording is where the mock records what it lacks (Recorded, in a mode that records).
	recording *recording
}

// Option scripts a new Mock (Responds, FailsWith, FromScenario, ...), in the order given.
type Option func(*setup) error

type setup struct {
	scenario any
	settings map[string]any
	steps    []func(*Mock) error
	lenient  bool
}

// New makes a Mock for test t from opts. When the test ends, it fails the test unless every scripted step answered a
// request and no request came that the script did not expect (as the pytest fixture does); AllowUnused turns that
// off. A scenario that does not read is a t.Fatalf naming the field.
func New(t TB, opts ...Option) *Mock {
	t.Helper()
	mock, err := Open(opts...)
	if err != nil {
		t.Fatalf("%v", err)
		return nil
	}
	t.Cleanup(func() {
		defer mock.Close()
		if !mock.finalChecks || mock.engine.closed() {
			return
		}
		for _, check := range []Check{AllStepsUsed(), NoUnexpectedRequests()} {
			if err := mock.Check(check); err != nil {
				t.Errorf("%v", err)
			}
		}
	})
	return mock
}

// Open makes a Mock outside a test (close it with Close); New is the one for tests.
func Open(opts ...Option) (*Mock, error) {
	var s setup
	for _, option := range opts {
		if err := option(&s); err != nil {
			return nil, err
		}
	}
	engine, err := newEngine()
	if err != nil {
		return nil, err
	}
	mock := &Mock{engine: engine, finalChecks: !s.lenient}
	request := map[string]any{"op": "new", "scenario": s.scenario}
	if s.settings != nil {
		request["settings"] = s.settings
	}
	if err := engine.do(request, &mock.id); err != nil {
		engine.close()
		return nil, err
	}
	for _, step := range s.steps {
		if err := step(mock); err != nil {
			mock.Close()
			return nil, err
		}
	}
	return mock, nil
}

// Close frees the engine's instance. A closed Mock answers every call with ErrInvalidState.
func (m *Mock) Close() { m.engine.close() }

func (m *Mock) op(name string, fields map[string]any, out any) error {
	request := map[string]any{"op": name, "mock": m.id}
	for key, value := range fields {
		request[key] = value
	}
	return m.engine.do(request, out)
}

// ---- options ------------------------------------------------------------------------------------------------------

// FromScenario reads a scenario file (YAML or JSON; a recording is one).
func FromScenario(path string) Option {
	return func(s *setup) error {
		text, err := os.ReadFile(path)
		if err != nil {
			return &Error{Code: "io", Message: fmt.Sprintf("cannot read the scenario %s: %v", path, err),
				Context: map[string]any{"path": path}}
		}
		s.scenario = string(text)
		return nil
	}
}

// Scenario is a scenario as data (what a scenario file holds: `{"cuecard": 1, "routes": [...]}`), or its text.
func Scenario(scenario any) Option {
	return func(s *setup) error { s.scenario = scenario; return nil }
}

// Settings configures the mock (`instant`, `usage`, `seed`, `on_exhausted`, `journal_limit`, ...).
func Settings(settings map[string]any) Option {
	return func(s *setup) error { s.settings = settings; return nil }
}

// AllowUnused keeps the end of the test from checking that every step was used and no request was unexpected.
func AllowUnused() Option {
	return func(s *setup) error { s.lenient = true; return nil }
}

func step(f func(*Mock) error) Option {
	return func(s *setup) error { s.steps = append(s.steps, f); return nil }
}

// Responds adds a step answering with text (streamed in word-like tokens to a client that streams).
func Responds(text string) Option { return step(func(m *Mock) error { return m.ThenResponds(text) }) }

// Streams adds a step streaming exactly these tokens.
func Streams(tokens ...string) Option {
	return step(func(m *Mock) error { return m.ThenStreams(tokens...) })
}

// CallsTool adds a step calling one tool with arguments (any JSON value; a string is the raw arguments text).
func CallsTool(name string, arguments any) Option {
	return step(func(m *Mock) error { return m.ThenCallsTool(name, arguments) })
}

// Step adds any step as data (`{"text": ..., "finish_reason": "length"}`, `{"tool_calls": [...]}`, ...).
func Step(step map[string]any) Option { return stepOption(step) }

func stepOption(s map[string]any) Option {
	return step(func(m *Mock) error { return m.op("then_responds", map[string]any{"step": s}, nil) })
}

// FailsWith adds a step failing before anything is streamed, with kind's status and error body.
func FailsWith(kind Kind, details ...FailDetail) Option {
	return step(func(m *Mock) error { return m.ThenFails(kind, details...) })
}

// Repeats makes the last step answer every request after it.
func Repeats() Option { return step(func(m *Mock) error { return m.ThenRepeats() }) }

// ---- verbs --------------------------------------------------------------------------------------------------------

// ThenResponds adds a step answering with text.
func (m *Mock) ThenResponds(text string) error {
	return m.op("then_responds", map[string]any{"step": text}, nil)
}

// ThenStreams adds a step streaming exactly these tokens.
func (m *Mock) ThenStreams(tokens ...string) error {
	if tokens == nil {
		tokens = []string{}
	}
	return m.op("then_streams", map[string]any{"tokens": tokens}, nil)
}

// ThenCallsTool adds a step calling one tool.
func (m *Mock) ThenCallsTool(name string, arguments any) error {
	return m.op("then_calls_tool", map[string]any{"name": name, "arguments": arguments}, nil)
}

// ThenFails adds a step failing with kind before anything is streamed.
func (m *Mock) ThenFails(kind Kind, details ...FailDetail) error {
	return m.op("then_fails", map[string]any{"fail": failure(kind, details)}, nil)
}

// AndFails makes the last step fail after its text was streamed (a stream cut mid-way).
func (m *Mock) AndFails(kind Kind, details ...FailDetail) error {
	return m.op("and_fails", map[string]any{"fail": failure(kind, details)}, nil)
}

// ThenRepeats makes the last step answer every request after it.
func (m *Mock) ThenRepeats() error { return m.op("then_repeats", nil, nil) }

// Reset forgets every request (the journal), keeping the script from its first step.
func (m *Mock) Reset() error { return m.op("reset", nil, nil) }

// Kind is a provider failure's kind; each has a default status, retryability and message.
type Kind string

// The failure kinds.
const (
	RateLimited           Kind = "rate_limited"
	Overloaded            Kind = "overloaded"
	ServerError           Kind = "server_error"
	Unavailable           Kind = "unavailable"
	Timeout               Kind = "timeout"
	Unauthorized          Kind = "unauthorized"
	Forbidden             Kind = "forbidden"
	NotFound              Kind = "not_found"
	BadRequest            Kind = "bad_request"
	ContextLengthExceeded Kind = "context_length_exceeded"
	ContentFiltered       Kind = "content_filtered"
	ConnectionReset       Kind = "connection_reset"
)

// FailDetail refines a failure: RetryAfter, Status, Message.
type FailDetail func(map[string]any)

// RetryAfter is the retry-after the provider asks for, in milliseconds.
func RetryAfter(ms int) FailDetail { return func(f map[string]any) { f["retry_after_ms"] = ms } }

// Status is the failure's HTTP status instead of its kind's.
func Status(status int) FailDetail { return func(f map[string]any) { f["status"] = status } }

// Message is the failure's error message instead of its kind's.
func Message(message string) FailDetail { return func(f map[string]any) { f["message"] = message } }

func failure(kind Kind, details []FailDetail) map[string]any {
	f := map[string]any{"kind": string(kind)}
	for _, detail := range details {
		detail(f)
	}
	return f
}

// ---- the token rule -----------------------------------------------------------------------------------------------

var tokenizer struct {
	once   sync.Once
	engine *engine
	err    error
}

func tokenizerEngine() (*engine, error) {
	tokenizer.once.Do(func() { tokenizer.engine, tokenizer.err = newEngine() })
	return tokenizer.engine, tokenizer.err
}

// Tokenize splits text by cuecard's word-like token rule (docs/concepts/tokens.md), as a streamed answer is split.
func Tokenize(text string) ([]string, error) {
	engine, err := tokenizerEngine()
	if err != nil {
		return nil, err
	}
	var tokens []string
	err = engine.do(map[string]any{"op": "tokenize", "text": text}, &tokens)
	return tokens, err
}

// Version is the engine's version (the core's, as every language reports it).
func Version() (string, error) {
	engine, err := tokenizerEngine()
	if err != nil {
		return "", err
	}
	var version string
	err = engine.do(map[string]any{"op": "version"}, &version)
	return version, err
}

// CountTokens is len(Tokenize(text)): what usage reports for text.
func CountTokens(text string) (int, error) {
	engine, err := tokenizerEngine()
	if err != nil {
		return 0, err
	}
	var count int
	err = engine.do(map[string]any{"op": "count_tokens", "text": text}, &count)
	return count, err
}
