package cuecard

import (
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"
)

// reply is the engine's answer to one HTTP request (core's HttpReply as data): a whole response, a stream of frames
// with the virtual milliseconds before each, or a connection dropped before any response.
type reply struct {
	Kind    string      `json:"kind"`
	DelayMs int64       `json:"delay_ms"`
	StallMs int64       `json:"stall_ms"`
	Status  int         `json:"status"`
	Headers [][2]string `json:"headers"`
	Body    string      `json:"body"`
	Frames  []struct {
		DelayMs int64  `json:"delay_ms"`
		Data    string `json:"data"`
	} `json:"frames"`
	End    string `json:"end"`
	Base64 bool   `json:"base64"`
}

// handle answers one HTTP request with the wire protocols (OpenAI, Anthropic, Gemini, Ollama, Bedrock, ...), journaled
// once, as `cuecard serve` answers it.
func (m *Mock) handle(method, target string, header http.Header, host string, body []byte) (*reply, error) {
	var answered reply
	request := map[string]any{"request": wireRequest(method, target, header, host, body)}
	if err := m.op("handle_http", request, &answered); err != nil {
		return nil, err
	}
	return &answered, nil
}

// wireRequest is an HTTP request as the engine reads it: the method, the target (path and query), the headers
// (names lower-cased) and the body (as text, or base64 when it is not UTF-8).
func wireRequest(method, target string, header http.Header, host string, body []byte) map[string]any {
	headers := make([][2]string, 0, len(header)+1)
	if host != "" {
		headers = append(headers, [2]string{"host", host})
	}
	for name, values := range header {
		for _, value := range values {
			headers = append(headers, [2]string{strings.ToLower(name), value})
		}
	}
	request := map[string]any{"method": method, "path": target, "headers": headers}
	if utf8.Valid(body) {
		request["body"] = string(body)
	} else {
		request["body_base64"] = base64.StdEncoding.EncodeToString(body)
	}
	return request
}

// Transport is an http.RoundTripper answered by the mock, in process (no socket): give it to any Go SDK's HTTP client
// (openai-go's option.WithHTTPClient, anthropic-sdk-go, go-openai's ClientConfig.HTTPClient, the AWS SDK's
// HTTPClient, langchaingo, genai). The host in the request's URL is ignored: every request reaches the mock.
// Scripted delays are waited for in real time (the mock's `instant` setting makes them zero); a stream cut by the
// script ends its body with io.ErrUnexpectedEOF, a dropped connection is an ECONNRESET error.
func (m *Mock) Transport() http.RoundTripper { return transport{m} }

type transport struct{ mock *Mock }

func (t transport) RoundTrip(request *http.Request) (*http.Response, error) {
	var body []byte
	if request.Body != nil {
		read, err := io.ReadAll(request.Body)
		_ = request.Body.Close()
		if err != nil {
			return nil, err
		}
		body = read
	}
	host := request.Host
	if host == "" && request.URL != nil {
		host = request.URL.Host
	}
	wire := wireRequest(request.Method, request.URL.RequestURI(), request.Header, host, body)
	var answered reply
	fields := map[string]any{"request": wire, "records": t.mock.recording != nil}
	if err := t.mock.op("handle_http", fields, &answered); err != nil {
		return nil, err
	}
	if answered.Kind == "forward" {
		return t.mock.recording.forward(request, body, wire)
	}
	ctx := request.Context()
	if answered.Kind == "abort" {
		if err := wait(ctx, answered.DelayMs); err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("cuecard: the script dropped the connection: %w", syscall.ECONNRESET)
	}
	if err := wait(ctx, answered.DelayMs); err != nil {
		return nil, err
	}
	response := &http.Response{
		Status:     fmt.Sprintf("%d %s", answered.Status, http.StatusText(answered.Status)),
		StatusCode: answered.Status,
		Proto:      "HTTP/1.1",
		ProtoMajor: 1,
		ProtoMinor: 1,
		Header:     http.Header{},
		Request:    request,
	}
	for _, header := range answered.Headers {
		response.Header.Add(header[0], header[1])
	}
	if answered.Kind != "stream" {
		response.Body = io.NopCloser(strings.NewReader(answered.Body))
		response.ContentLength = int64(len(answered.Body))
		return response, nil
	}
	reader, writer := io.Pipe()
	response.Body = reader
	response.ContentLength = -1
	go func() {
		err := answered.writeFrames(ctx, writer, func() {})
		if err == nil && answered.End == "cut" {
			err = io.ErrUnexpectedEOF
		}
		_ = writer.CloseWithError(err)
	}()
	return response, nil
}

// writeFrames writes a stream's frames to w as they fall due, calling flush after each; it stops when ctx ends or w
// refuses (the client left).
func (r *reply) writeFrames(ctx context.Context, w io.Writer, flush func()) error {
	if err := wait(ctx, r.StallMs); err != nil {
		return err
	}
	for _, frame := range r.Frames {
		if err := wait(ctx, frame.DelayMs); err != nil {
			return err
		}
		data := []byte(frame.Data)
		if r.Base64 {
			decoded, err := base64.StdEncoding.DecodeString(frame.Data)
			if err != nil {
				return err
			}
			data = decoded
		}
		if _, err := w.Write(data); err != nil {
			return err
		}
		flush()
	}
	return nil
}

// wait sleeps ms milliseconds, or less when ctx ends first.
func wait(ctx context.Context, ms int64) error {
	if ms <= 0 {
		return ctx.Err()
	}
	timer := time.NewTimer(time.Duration(ms) * time.Millisecond)
	defer timer.Stop()
	select {
	case <-timer.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
