package cuecard

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
)

const chatBody = `{"model":"gpt-4o","messages":[{"role":"user","content":"Weather in Paris?"}]%s}`

func post(t *testing.T, client *http.Client, url, body string) (*http.Response, string) {
	t.Helper()
	response, err := client.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatalf("POST %s: %v", url, err)
	}
	defer response.Body.Close()
	text, err := io.ReadAll(response.Body)
	if err != nil {
		t.Fatalf("reading %s: %v", url, err)
	}
	return response, string(text)
}

func TestTransportAnswersWholeAndStreamedAndJournalsEachRequestOnce(t *testing.T) {
	mock := New(t, Responds("Sunny, 22 degrees."), Responds("Rain tomorrow."))
	client := &http.Client{Transport: mock.Transport()}
	response, body := post(t, client, "https://api.openai.com/v1/chat/completions", fmt.Sprintf(chatBody, ""))
	if response.StatusCode != 200 || !strings.Contains(body, `"content":"Sunny, 22 degrees."`) {
		t.Fatalf("%d %s", response.StatusCode, body)
	}
	response, body = post(t, client, "https://api.openai.com/v1/chat/completions", fmt.Sprintf(chatBody, `,"stream":true`))
	if !strings.HasPrefix(response.Header.Get("content-type"), "text/event-stream") || !strings.HasSuffix(body, "data: [DONE]\n\n") {
		t.Fatalf("%v %s", response.Header, body)
	}
	if got := strings.Count(body, `"content":"`) - strings.Count(body, `"content":""`); got != 3 {
		t.Errorf("the stream carried %d text deltas, want 3 (Rain, ' tomorrow', '.'): %s", got, body)
	}
	journal, err := mock.Journal()
	if err != nil || journal.Count != 2 {
		t.Fatalf("journal: %+v %v", journal.Count, err)
	}
	mock.Assert(t, ReceivedRequests(2), LastUserMessageContains("Paris"), HasModel("gpt-4o"))
}

func TestAFailureIsTheProvidersErrorOnTheWireAndACheckFailureNamesEveryRequest(t *testing.T) {
	mock := New(t, FailsWith(RateLimited, RetryAfter(1500)), Responds("ok"))
	client := &http.Client{Transport: mock.Transport()}
	response, body := post(t, client, "http://x/v1/chat/completions", fmt.Sprintf(chatBody, ""))
	if response.StatusCode != 429 || response.Header.Get("retry-after-ms") != "1500" || !strings.Contains(body, "rate_limit") {
		t.Fatalf("%d %v %s", response.StatusCode, response.Header, body)
	}
	post(t, client, "http://x/v1/chat/completions", fmt.Sprintf(chatBody, ""))
	err := mock.Check(ReceivedRequests(3))
	if !errors.Is(err, ErrAssertionFailed) {
		t.Fatalf("want an assertion failure, got %v", err)
	}
	var failed *Error
	if !errors.As(err, &failed) || !strings.Contains(failed.Message, "failed rate_limited 429") {
		t.Fatalf("the message names each request: %v", err)
	}
}

func TestBadInputIsATypedErrorNamingWhatWasWrong(t *testing.T) {
	_, err := Open(Scenario(map[string]any{"cuecard": 1, "routes": []any{map[string]any{"steps": []any{map[string]any{"fail": "rate_limitd"}}}}}))
	var bad *Error
	if !errors.Is(err, ErrInvalidScenario) || !errors.As(err, &bad) || len(bad.Issues) == 0 ||
		!strings.HasPrefix(bad.Issues[0].Path, "routes[0].steps[0]") {
		t.Fatalf("want invalid_scenario naming the step, got %#v", err)
	}
	_, err = Open(FromScenario("testdata/no-such-file.yaml"))
	if !errors.Is(err, ErrIO) || !strings.Contains(err.Error(), "no-such-file.yaml") {
		t.Fatalf("want io naming the file, got %v", err)
	}
	mock := New(t, Responds("only one"), AllowUnused())
	client := &http.Client{Transport: mock.Transport()}
	post(t, client, "http://x/v1/chat/completions", fmt.Sprintf(chatBody, ""))
	response, body := post(t, client, "http://x/v1/chat/completions", fmt.Sprintf(chatBody, ""))
	if response.StatusCode != 422 || response.Header.Get("x-cuecard-error") != "script_exhausted" {
		t.Fatalf("a script that runs out: %d %v %s", response.StatusCode, response.Header, body)
	}
	response, body = post(t, client, "http://x/v1/chat/completions", "{not json")
	if response.StatusCode != 400 || !strings.Contains(body, "JSON") {
		t.Fatalf("a malformed request: %d %s", response.StatusCode, body)
	}
	if err := mock.ThenStreams(); err != nil {
		t.Fatal(err)
	}
	mock.Close()
	if err := mock.Check(AllStepsUsed()); !errors.Is(err, ErrInvalidState) {
		t.Fatalf("a closed mock: %v", err)
	}
}

// recorder is a TB that keeps what a test would have been told.
type recorder struct {
	mu       sync.Mutex
	errors   []string
	logs     []string
	cleanups []func()
}

func (r *recorder) Logf(f string, a ...any) { r.logs = append(r.logs, fmt.Sprintf(f, a...)) }

func (r *recorder) Helper()                   {}
func (r *recorder) Cleanup(f func())          { r.cleanups = append(r.cleanups, f) }
func (r *recorder) Fatalf(f string, a ...any) { r.Errorf(f, a...) }
func (r *recorder) Errorf(f string, a ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errors = append(r.errors, fmt.Sprintf(f, a...))
}
func (r *recorder) end() {
	for i := len(r.cleanups) - 1; i >= 0; i-- {
		r.cleanups[i]()
	}
}

func TestTheEndOfATestChecksTheScriptWasUsedAndNothingUnexpectedCame(t *testing.T) {
	unused := &recorder{}
	New(unused, Responds("never asked"))
	unused.end()
	if len(unused.errors) != 1 || !strings.Contains(unused.errors[0], "all_steps_used() failed") {
		t.Fatalf("an unused step fails the test: %q", unused.errors)
	}
	extra := &recorder{}
	mock := New(extra, Responds("one"))
	client := &http.Client{Transport: mock.Transport()}
	for i := 0; i < 2; i++ {
		response, err := client.Post("http://x/v1/chat/completions", "application/json", strings.NewReader(fmt.Sprintf(chatBody, "")))
		if err != nil {
			t.Fatal(err)
		}
		response.Body.Close()
	}
	extra.end()
	if len(extra.errors) != 1 || !strings.Contains(extra.errors[0], "no_unexpected_requests() failed") {
		t.Fatalf("an unexpected request fails the test: %q", extra.errors)
	}
	lenient := &recorder{}
	New(lenient, Responds("never asked"), AllowUnused())
	lenient.end()
	if len(lenient.errors) != 0 {
		t.Fatalf("AllowUnused: %q", lenient.errors)
	}
}

func TestAStreamCutByTheScriptEndsTheBodyWithUnexpectedEOF(t *testing.T) {
	mock := New(t, Responds("It is sunny in Paris today."))
	if err := mock.AndFails(ConnectionReset); err != nil {
		t.Fatal(err)
	}
	for _, through := range []string{"transport", "server"} {
		client, url := &http.Client{Transport: mock.Transport()}, "http://x/v1/chat/completions"
		if through == "server" {
			server := Serve(t, mock)
			client, url = http.DefaultClient, server.OpenAIBaseURL+"/chat/completions"
			if err := mock.Reset(); err != nil {
				t.Fatal(err)
			}
		}
		response, err := client.Post(url, "application/json", strings.NewReader(fmt.Sprintf(chatBody, `,"stream":true`)))
		if err != nil {
			t.Fatalf("%s: %v", through, err)
		}
		lines := 0
		scanner := bufio.NewScanner(response.Body)
		for scanner.Scan() {
			if strings.HasPrefix(scanner.Text(), "data: {") {
				lines++
			}
		}
		response.Body.Close()
		if !errors.Is(scanner.Err(), io.ErrUnexpectedEOF) || lines == 0 {
			t.Errorf("%s: %d events, then %v; want events, then io.ErrUnexpectedEOF", through, lines, scanner.Err())
		}
	}
}

func TestFiftyParallelSubtestsEachHaveTheirOwnMock(t *testing.T) {
	for i := 0; i < 50; i++ {
		t.Run(fmt.Sprintf("test-%02d", i), func(t *testing.T) {
			t.Parallel()
			answer := fmt.Sprintf("answer %d", i)
			mock := New(t, Responds(answer))
			client := &http.Client{Transport: mock.Transport()}
			_, body := post(t, client, "http://x/v1/chat/completions", fmt.Sprintf(chatBody, ""))
			if !strings.Contains(body, `"content":"`+answer+`"`) {
				t.Fatalf("%s: %s", answer, body)
			}
			mock.Require(t, ReceivedRequests(1))
		})
	}
}

func TestOneServerRoutesEachTestToItsOwnScriptAndJournal(t *testing.T) {
	mock := New(t, Responds("first"), Responds("second"), AllowUnused())
	server := Serve(t, mock)
	ask := func(base string) string {
		_, body := post(t, http.DefaultClient, base+"/v1/chat/completions", fmt.Sprintf(chatBody, ""))
		return body
	}
	var wg sync.WaitGroup
	for _, id := range []string{"alpha", "beta", "gamma"} {
		wg.Add(1)
		go func(id string) {
			defer wg.Done()
			if first, second := ask(server.TestURL(id)), ask(server.TestURL(id)); !strings.Contains(first, `"first"`) ||
				!strings.Contains(second, `"second"`) {
				t.Errorf("%s: each test starts at the first step: %s / %s", id, first, second)
			}
		}(id)
	}
	wg.Wait()
	for _, id := range []string{"alpha", "beta", "gamma"} {
		journal, err := server.TestJournal(id)
		if err != nil || journal.Count != 2 {
			t.Errorf("%s: %d requests (%v), want 2", id, journal.Count, err)
		}
	}
	if body := ask(server.URL); !strings.Contains(body, `"first"`) {
		t.Errorf("the unprefixed surface is the mock itself: %s", body)
	}
	mock.Assert(t, ReceivedRequests(1))
	if journal, err := server.TestJournal("never-asked"); err != nil || journal.Count != 0 {
		t.Errorf("a test that sent nothing: %d requests (%v)", journal.Count, err)
	}
}

func TestTheVersionIsTheCores(t *testing.T) {
	version, err := Version()
	if err != nil || version != "0.1.0" {
		t.Fatalf("%q %v", version, err)
	}
}
