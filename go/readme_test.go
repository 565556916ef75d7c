package cuecard_test

import (
	"net/http"
	"strings"
	"testing"

	"cuecard.dev/cuecard"
)

// The README's Go example (the front page's): any Go SDK's HTTP client, answered in process.
func TestReadmeFrontPage(t *testing.T) {
	mock := cuecard.New(t, cuecard.Responds("Hello!"))
	client := &http.Client{Transport: mock.Transport()} // openai-go: option.WithHTTPClient(client)
	response, err := client.Post("https://api.openai.com/v1/chat/completions", "application/json",
		strings.NewReader(`{"model":"gpt-4o","messages":[{"role":"user","content":"Hi"}]}`))
	if err != nil || response.StatusCode != 200 {
		t.Fatalf("%v %v", response, err)
	}
	mock.Require(t, cuecard.LastUserMessageContains("Hi"), cuecard.ReceivedRequests(1))
}
