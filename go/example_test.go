package cuecard_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"cuecard.dev/cuecard"
)

const question = `{"model":"gpt-4o","messages":[{"role":"user","content":"Weather in Paris?"}]}`

// ANCHOR: example

// A test scripts the answer, hands the mock's Transport to the client under test, then asserts what was sent. In a
// test, cuecard.New(t, ...) also checks at the end that every step was used.
func Example() {
	mock, err := cuecard.Open(cuecard.Responds("Sunny, 22 degrees."))
	if err != nil {
		panic(err)
	}
	defer mock.Close()
	client := &http.Client{Transport: mock.Transport()}
	response, err := client.Post("https://api.openai.com/v1/chat/completions", "application/json",
		strings.NewReader(question))
	if err != nil {
		panic(err)
	}
	defer response.Body.Close()
	var completion struct {
		Choices []struct {
			Message struct{ Content string }
		}
	}
	if err := json.NewDecoder(response.Body).Decode(&completion); err != nil {
		panic(err)
	}
	fmt.Println(completion.Choices[0].Message.Content)
	fmt.Println(mock.Check(cuecard.LastUserMessageContains("Paris")))
	// Output:
	// Sunny, 22 degrees.
	// <nil>
}

// ANCHOR_END: example

// A rate limit first, then the answer: the client sees the provider's 429 with its retry hint.
func ExampleFailsWith() {
	mock, _ := cuecard.Open(cuecard.FailsWith(cuecard.RateLimited, cuecard.RetryAfter(1000)), cuecard.Responds("ok"))
	defer mock.Close()
	client := &http.Client{Transport: mock.Transport()}
	response, err := client.Post("https://api.openai.com/v1/chat/completions", "application/json",
		strings.NewReader(question))
	if err != nil {
		panic(err)
	}
	response.Body.Close()
	fmt.Println(response.StatusCode, response.Header.Get("retry-after-ms"))
	err = mock.Check(cuecard.ReceivedRequests(2))
	fmt.Println(errors.Is(err, cuecard.ErrAssertionFailed))
	// Output:
	// 429 1000
	// true
}

// Code that only takes a base URL talks to the mock's Handler on a loopback server (cuecard.Serve in a test).
func ExampleMock_Handler() {
	mock, _ := cuecard.Open(cuecard.Responds("Bonjour."))
	defer mock.Close()
	server := httptest.NewServer(mock.Handler())
	defer server.Close()
	response, err := http.Post(server.URL+"/v1/messages", "application/json",
		strings.NewReader(`{"model":"claude-sonnet-4-5","max_tokens":64,"messages":[{"role":"user","content":"Hi"}]}`))
	if err != nil {
		panic(err)
	}
	defer response.Body.Close()
	var message struct {
		Content []struct{ Text string }
	}
	_ = json.NewDecoder(response.Body).Decode(&message)
	fmt.Println(message.Content[0].Text)
	// Output: Bonjour.
}

// The word-like token rule every language shares.
func ExampleTokenize() {
	tokens, _ := cuecard.Tokenize("Hello, world!")
	fmt.Printf("%q\n", tokens)
	// Output: ["Hello" "," " world" "!"]
}
