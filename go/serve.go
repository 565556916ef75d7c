package cuecard

import (
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
}

// Serve starts a loopback server (127.0.0.1, a free port) whose handler is the mock's wire face, stopped when the
// test ends.
func Serve(t TB, mock *Mock) *Server {
	t.Helper()
	server := httptest.NewServer(mock.Handler())
	t.Cleanup(server.Close)
	return &Server{URL: server.URL, OpenAIBaseURL: server.URL + "/v1", server: server}
}

// Close stops the server (Serve also stops it when the test ends).
func (s *Server) Close() { s.server.Close() }

// Handler is the mock's wire face as an http.Handler: each request answered as `cuecard serve` answers it, a stream
// flushed frame by frame as its frames fall due, a cut stream or a dropped connection aborting the response.
func (m *Mock) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, request *http.Request) {
		body, err := io.ReadAll(request.Body)
		if err != nil {
			http.Error(w, "cuecard: cannot read the request body: "+err.Error(), http.StatusBadRequest)
			return
		}
		answered, err := m.handle(request.Method, request.URL.RequestURI(), request.Header, request.Host, body)
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
