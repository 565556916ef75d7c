package cuecard

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
)

// Server is a loopback HTTP server answered by a Mock, for code that only takes a base URL.
type Server struct {
	// URL is the server's base URL (`http://127.0.0.1:PORT`): Anthropic, Gemini, Ollama and Bedrock clients take it.
	URL string
	// OpenAIBaseURL is URL + "/v1", the base URL OpenAI clients take.
	OpenAIBaseURL string
	server        *httptest.Server
	mock          *Mock
	id            int
}

// Serve starts a loopback server (127.0.0.1, a free port) answered by the mock's wire face, stopped when the test
// ends. Its unprefixed surface is the mock itself. Under `/t/{id}/` (TestURL, or the header `x-cuecard-test: {id}`)
// each id is a test of its own, made from the mock's scenario at its first request, with its own script position and
// journal (TestJournal): one server for many parallel tests, routed by the core as `cuecard serve` routes them.
func Serve(t TB, mock *Mock) *Server {
	t.Helper()
	served := &Server{mock: mock}
	if err := mock.op("serve", nil, &served.id); err != nil {
		t.Fatalf("%v", err)
		return nil
	}
	served.server = httptest.NewServer(handler(func(method, target string, header http.Header, host string,
		body []byte) (*reply, error) {
		var answered reply
		request := map[string]any{"server": served.id, "request": wireRequest(method, target, header, host, body)}
		err := mock.op("serve_http", request, &answered)
		return &answered, err
	}))
	t.Cleanup(served.server.Close)
	served.URL = served.server.URL
	served.OpenAIBaseURL = served.URL + "/v1"
	return served
}

// TestURL is the base URL of test id on this server (`URL/t/{id}`; OpenAI clients add `/v1`).
func (s *Server) TestURL(id string) string { return s.URL + "/t/" + id }

// TestJournal reads what test id received (`GET /_cuecard/t/{id}/journal`).
func (s *Server) TestJournal(id string) (Journal, error) {
	var answered reply
	request := map[string]any{"server": s.id, "request": wireRequest("GET", "/_cuecard/t/"+id+"/journal", nil,
		s.server.Listener.Addr().String(), nil)}
	if err := s.mock.op("serve_http", request, &answered); err != nil {
		return Journal{}, err
	}
	var journal Journal
	if answered.Status != http.StatusOK {
		return Journal{}, &Error{Code: "not_found", Message: answered.Body}
	}
	if err := json.Unmarshal([]byte(answered.Body), &journal); err != nil {
		return Journal{}, &Error{Code: "internal", Message: err.Error()}
	}
	journal.Document = json.RawMessage(answered.Body)
	return journal, nil
}

// Close stops the server (Serve also stops it when the test ends).
func (s *Server) Close() { s.server.Close() }

// Handler is the mock's wire face as an http.Handler: each request answered as `cuecard serve` answers it, a stream
// flushed frame by frame as its frames fall due, a cut stream or a dropped connection aborting the response.
func (m *Mock) Handler() http.Handler { return handler(m.handle) }

// handler serves each request with answer (the mock's face, or a server's routing over it).
func handler(answer func(method, target string, header http.Header, host string, body []byte) (*reply, error)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, request *http.Request) {
		body, err := io.ReadAll(request.Body)
		if err != nil {
			http.Error(w, "cuecard: cannot read the request body: "+err.Error(), http.StatusBadRequest)
			return
		}
		answered, err := answer(request.Method, request.URL.RequestURI(), request.Header, request.Host, body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		ctx := request.Context()
		if wait(ctx, answered.DelayMs) != nil {
			return
		}
		if answered.Kind == "abort" {
			panic(http.ErrAbortHandler)
		}
		for _, header := range answered.Headers {
			w.Header().Add(header[0], header[1])
		}
		w.WriteHeader(answered.Status)
		if answered.Kind != "stream" {
			_, _ = io.WriteString(w, answered.Body)
			return
		}
		flusher, _ := w.(http.Flusher)
		flush := func() {
			if flusher != nil {
				flusher.Flush()
			}
		}
		flush()
		if answered.writeFrames(ctx, w, flush) == nil && answered.End == "cut" {
			// The client sees the body end without its last chunk, as from a provider that went away.
			panic(http.ErrAbortHandler)
		}
	})
}
