package cuecard

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A test records once against an upstream (here another mock standing in for the real API), then replays the file
// without it: the same answers, the upstream not asked again, and the key never written.
func TestARecordingIsMadeOnceThenReplayedWithoutTheUpstream(t *testing.T) {
	path := filepath.Join(t.TempDir(), "weather.yaml")
	upstream := New(t, Responds("Sunny in Paris."), Responds("Rain in Oslo."))
	ask := func(mock *Mock, city string) string {
		client := &http.Client{Transport: mock.Transport()}
		request, _ := http.NewRequest("POST", "https://api.openai.com/v1/chat/completions",
			strings.NewReader(fmt.Sprintf(`{"model":"gpt-4o","messages":[{"role":"user","content":"Weather in %s?"}]}`, city)))
		request.Header.Set("authorization", "Bearer sk-live-0123456789abcdefghijklmn")
		request.Header.Set("content-type", "application/json")
		response, err := client.Do(request)
		if err != nil {
			t.Fatal(err)
		}
		return readAll(t, response)
	}
	recording := Recorded(t, RecordingPath(path), RecordingMode("once"), Upstream(upstream.Transport()), AllowRecordingInCI())
	live := []string{ask(recording, "Paris"), ask(recording, "Oslo")}
	if !strings.Contains(live[0], "Sunny in Paris.") || !strings.Contains(live[1], "Rain in Oslo.") {
		t.Fatalf("recorded: %q", live)
	}
	text, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(text), "sk-live") || !strings.Contains(string(text), "recorded_on:") {
		t.Fatalf("the recording: %s", text)
	}
	replay := Recorded(t, RecordingPath(path), RecordingMode("none"))
	replayed := []string{ask(replay, "Paris"), ask(replay, "Oslo")}
	for i := range live {
		if !strings.Contains(replayed[i], []string{"Sunny in Paris.", "Rain in Oslo."}[i]) {
			t.Errorf("replayed %d: %s", i, replayed[i])
		}
	}
	upstream.Assert(t, ReceivedRequests(2))
	// Mode none without the file is refused, saying how to record it.
	missing := &namedRecorder{name: "TestMissing"}
	Recorded(missing, RecordingPath(filepath.Join(t.TempDir(), "absent.yaml")))
	if len(missing.errors) != 1 || !strings.Contains(missing.errors[0], "CUECARD_RECORD=once") {
		t.Fatalf("a missing recording: %q", missing.errors)
	}
	// Recording in CI is refused unless allowed.
	t.Setenv("CI", "true")
	inCI := &namedRecorder{name: "TestInCI"}
	Recorded(inCI, RecordingPath(filepath.Join(t.TempDir(), "new.yaml")), RecordingMode("all"))
	if len(inCI.errors) != 1 || !strings.Contains(inCI.errors[0], "CI is set") {
		t.Fatalf("recording in CI: %q", inCI.errors)
	}
}

func TestAReplayPastItsMaxAgeIsLoggedAndStillReplayed(t *testing.T) {
	path := filepath.Join(t.TempDir(), "old.yaml")
	old := "cuecard: 1\nrecording: {version: 1, recorded_on: 2025-01-15, max_age_days: 7}\nroutes:\n- steps: [{text: Still here.}]\n"
	if err := os.WriteFile(path, []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	named := &namedRecorder{name: "TestOld"}
	mock := Recorded(named, RecordingPath(path))
	if len(named.logs) != 1 || !strings.Contains(named.logs[0], "was recorded on 2025-01-15") ||
		!strings.Contains(named.logs[0], "max_age_days of 7") || !strings.Contains(named.logs[0], path) {
		t.Fatalf("the age warning: %q", named.logs)
	}
	if body := readAll(t, mustPost(t, mock)); !strings.Contains(body, "Still here.") {
		t.Fatalf("still replayed: %s", body)
	}
	named.end()
	if len(named.errors) != 0 {
		t.Fatalf("the replay's end-of-test checks: %q", named.errors)
	}
	if err := os.WriteFile(path, []byte(strings.Replace(old, "max_age_days: 7", "max_age_days: 100000", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	trusted := &namedRecorder{name: "TestTrusted"}
	Recorded(trusted, RecordingPath(path))
	if len(trusted.logs) != 0 {
		t.Fatalf("a recording within its age logs nothing: %q", trusted.logs)
	}
}

func mustPost(t *testing.T, mock *Mock) *http.Response {
	t.Helper()
	client := &http.Client{Transport: mock.Transport()}
	response, err := client.Post("https://api.openai.com/v1/chat/completions", "application/json",
		strings.NewReader(`{"model":"gpt-4o","messages":[{"role":"user","content":"Hi"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	return response
}

func TestARecordingIsNamedAfterItsTest(t *testing.T) {
	t.Run("a sub/test", func(t *testing.T) {
		named := &namedRecorder{name: t.Name()}
		Recorded(named)
		want := filepath.Join("testdata", "recordings", "TestARecordingIsNamedAfterItsTest.a_sub.test.yaml")
		if len(named.errors) != 1 || !strings.Contains(named.errors[0], want) {
			t.Fatalf("want a refusal naming %s: %q", want, named.errors)
		}
	})
}

type namedRecorder struct {
	recorder
	name string
}

func (n *namedRecorder) Name() string { return n.name }

func readAll(t *testing.T, response *http.Response) string {
	t.Helper()
	defer response.Body.Close()
	body, err := io.ReadAll(response.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(body)
}
