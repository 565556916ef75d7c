package cuecard

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// NamedTB is a TB that has a name and a log (testing.T, B and F): a recording is named after its test, and a
// replay past the recording's max_age_days is logged.
type NamedTB interface {
	TB
	Name() string
	Logf(format string, args ...any)
}

// RecordOption configures Recorded.
type RecordOption func(*recordSetup)

type recordSetup struct {
	path      string
	mode      string
	upstream  http.RoundTripper
	redact    []string
	allowInCI bool
}

// RecordingPath keeps the recording at path instead of testdata/recordings/<TestName>.yaml.
func RecordingPath(path string) RecordOption { return func(s *recordSetup) { s.path = path } }

// RecordingMode is the mode (none, once, new, all) instead of the environment's CUECARD_RECORD.
func RecordingMode(mode string) RecordOption { return func(s *recordSetup) { s.mode = mode } }

// Upstream is where a request the recording lacks goes when the mode records (http.DefaultTransport unless given):
// the request as the SDK made it, to the URL its base URL names — the real API.
func Upstream(transport http.RoundTripper) RecordOption {
	return func(s *recordSetup) { s.upstream = transport }
}

// Redact keeps texts out of the recording (the keys a client sends never are written either).
func Redact(texts ...string) RecordOption {
	return func(s *recordSetup) { s.redact = append(s.redact, texts...) }
}

// AllowRecordingInCI records even though CI is set (a CI run replays; recording there is usually a mistake).
func AllowRecordingInCI() RecordOption { return func(s *recordSetup) { s.allowInCI = true } }

// recording is what a Recorded mock records into.
type recording struct {
	path     string
	yaml     bool
	recorder int
	upstream http.RoundTripper
}

// Recorded is a mock that replays the test's recording, testdata/recordings/<TestName>.yaml (subtests joined with
// `.`), through Transport and Serve like any mock. The mode comes from CUECARD_RECORD (none unless set, as in every
// language): none replays and needs the file; once records it when it is missing; new replays it and records what
// it lacks; all records anew. A recording older than its `max_age_days` is logged (t.Logf) and still replayed.
// Recording forwards each request the recording lacks to the upstream as the SDK made it,
// gives the SDK the real answer, and writes the file after each exchange. Recording while CI is set is refused
// unless AllowRecordingInCI. When the test ends, a replay checks every recorded exchange was used and nothing else
// was asked.
func Recorded(t NamedTB, opts ...RecordOption) *Mock {
	t.Helper()
	setup := recordSetup{mode: os.Getenv("CUECARD_RECORD"), upstream: http.DefaultTransport}
	for _, option := range opts {
		option(&setup)
	}
	if setup.mode == "" {
		setup.mode = "none"
	}
	fail := func(err error) *Mock { t.Fatalf("%v", err); return nil }
	if setup.path == "" {
		engine, err := tokenizerEngine()
		if err != nil {
			return fail(err)
		}
		var name string
		if err := engine.do(map[string]any{"op": "recording_name", "names": strings.Split(t.Name(), "/")}, &name); err != nil {
			return fail(err)
		}
		setup.path = filepath.Join("testdata", "recordings", name)
	}
	request := map[string]any{"op": "recording_open", "path": setup.path, "mode": setup.mode,
		"ci": os.Getenv("CI") != "", "allow_in_ci": setup.allowInCI, "redact": setup.redact,
		"today": time.Now().UTC().Unix() / 86400}
	text, err := os.ReadFile(setup.path)
	switch {
	case err == nil:
		request["text"] = string(text)
	case !os.IsNotExist(err):
		return fail(&Error{Code: "io", Message: fmt.Sprintf("cannot read the recording %s: %v", setup.path, err)})
	}
	engine, err := tokenizerEngine()
	if err != nil {
		return fail(err)
	}
	var opened struct {
		Records    bool    `json:"records"`
		Replays    bool    `json:"replays"`
		Recorder   *int    `json:"recorder"`
		YAML       bool    `json:"yaml"`
		AgeWarning *string `json:"age_warning"`
	}
	if err := engine.do(request, &opened); err != nil {
		return fail(err)
	}
	if opened.AgeWarning != nil {
		// The replay goes on: the warning says the real API may have moved since (as in every language).
		t.Logf("cuecard: %s", *opened.AgeWarning)
	}
	options := []Option{}
	if opened.Replays {
		options = append(options, Scenario(string(text)))
	}
	if opened.Records {
		// Misses are forwarded and written, not unexpected: the end of the test checks nothing.
		options = append(options, AllowUnused())
	}
	mock := New(t, options...)
	if opened.Records && opened.Recorder != nil {
		// The recorder lives in the shared engine (the one Tokenize uses), which outlives every test.
		mock.recording = &recording{path: setup.path, yaml: opened.YAML, recorder: *opened.Recorder,
			upstream: setup.upstream}
		recorder := *opened.Recorder
		t.Cleanup(func() { _ = engine.do(map[string]any{"op": "recording_close", "recorder": recorder}, nil) })
	}
	return mock
}

// forward sends a request the recording lacks to the upstream, records the exchange and writes the recording.
func (r *recording) forward(request *http.Request, body []byte, wire map[string]any) (*http.Response, error) {
	upstream := request.Clone(request.Context())
	upstream.Body = io.NopCloser(bytes.NewReader(body))
	upstream.ContentLength = int64(len(body))
	response, err := r.upstream.RoundTrip(upstream)
	if err != nil {
		return nil, err
	}
	answer, readErr := io.ReadAll(response.Body)
	response.Body.Close()
	headers := [][2]string{}
	for name, values := range response.Header {
		for _, value := range values {
			headers = append(headers, [2]string{strings.ToLower(name), value})
		}
	}
	engine, err := tokenizerEngine()
	if err != nil {
		return nil, err
	}
	reply := map[string]any{"status": response.StatusCode, "headers": headers,
		"body_base64": base64.StdEncoding.EncodeToString(answer), "cut": readErr != nil}
	var text string
	if err := engine.do(map[string]any{"op": "recording_record", "recorder": r.recorder, "request": wire,
		"reply": reply, "yaml": r.yaml}, &text); err != nil {
		return nil, err
	}
	if err := writeWhole(r.path, text); err != nil {
		return nil, err
	}
	response.Body = io.NopCloser(bytes.NewReader(answer))
	if readErr != nil {
		response.Body = io.NopCloser(io.MultiReader(bytes.NewReader(answer), errorReader{readErr}))
	}
	return response, nil
}

// writeWhole writes text to path through a temporary file renamed over it, so the file is never half written.
func writeWhole(path, text string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return &Error{Code: "io", Message: fmt.Sprintf("cannot write %s: %v", path, err)}
	}
	partial := path + ".cuecard-partial"
	if err := os.WriteFile(partial, []byte(text), 0o644); err != nil {
		return &Error{Code: "io", Message: fmt.Sprintf("cannot write %s: %v", path, err)}
	}
	if err := os.Rename(partial, path); err != nil {
		return &Error{Code: "io", Message: fmt.Sprintf("cannot write %s: %v", path, err)}
	}
	return nil
}

type errorReader struct{ err error }

func (e errorReader) Read([]byte) (int, error) { return 0, e.err }
