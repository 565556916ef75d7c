package cuecard

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// The per-call cost of Transport: an openai-shaped chat completion through the engine (decode, script, journal,
// encode) against a canned http.RoundTripper that returns the same bytes and headers. `go test -bench . ./go`; the
// figures are in docs/contributing/tests-benchmarks.md.

const benchRequest = `{"model":"gpt-4o","messages":[{"role":"user","content":"What is the weather in Paris?"}]}`

func benchCall(b *testing.B, client *http.Client) {
	b.Helper()
	for i := 0; i < b.N; i++ {
		response, err := client.Post("https://api.openai.com/v1/chat/completions", "application/json",
			strings.NewReader(benchRequest))
		if err != nil {
			b.Fatal(err)
		}
		if _, err := io.Copy(io.Discard, response.Body); err != nil {
			b.Fatal(err)
		}
		response.Body.Close()
	}
}

func BenchmarkTransport(b *testing.B) {
	mock, err := Open(Responds("It is sunny in Paris, 22 degrees, with a light breeze from the west."), Repeats(),
		Settings(map[string]any{"journal_limit": 1000}))
	if err != nil {
		b.Fatal(err)
	}
	defer mock.Close()
	b.ReportAllocs()
	benchCall(b, &http.Client{Transport: mock.Transport()})
}

// canned answers every request with one recorded reply: what a hand-written fake costs.
type canned struct {
	status int
	header http.Header
	body   string
}

func (c canned) RoundTrip(request *http.Request) (*http.Response, error) {
	_, _ = io.Copy(io.Discard, request.Body)
	request.Body.Close()
	return &http.Response{StatusCode: c.status, Header: c.header.Clone(), Body: io.NopCloser(strings.NewReader(c.body)),
		ContentLength: int64(len(c.body)), Request: request, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1}, nil
}

func BenchmarkCannedTransport(b *testing.B) {
	mock, err := Open(Responds("It is sunny in Paris, 22 degrees, with a light breeze from the west."))
	if err != nil {
		b.Fatal(err)
	}
	recorded, err := mock.Transport().RoundTrip(mustRequest(b))
	if err != nil {
		b.Fatal(err)
	}
	body, _ := io.ReadAll(recorded.Body)
	mock.Close()
	b.ReportAllocs()
	benchCall(b, &http.Client{Transport: canned{recorded.StatusCode, recorded.Header, string(body)}})
}

func mustRequest(b *testing.B) *http.Request {
	request, err := http.NewRequest("POST", "https://api.openai.com/v1/chat/completions", strings.NewReader(benchRequest))
	if err != nil {
		b.Fatal(err)
	}
	return request
}
