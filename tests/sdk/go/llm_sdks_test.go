// The Go SDKs of the providers, unmodified, against cuecard's Go package through Mock.Transport — an
// http.RoundTripper answered in process by the engine, no socket (issue #56): openai-go (text, a stream, a tool round
// trip, a 429 retried, a stream cut), go-openai, anthropic-sdk-go, and the AWS SDK for Go v2's Bedrock Runtime
// (Converse and ConverseStream, whose event stream is binary). Each test asserts what the SDK returned and what the
// mock received; cuecard.New fails the test at its end if a scripted step went unused.
package sdkgo_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	anthropic "github.com/anthropics/anthropic-sdk-go/v2"
	anthropicoption "github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/types"
	openai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/shared"
	goopenai "github.com/sashabaranov/go-openai"

	"cuecard.dev/cuecard"
)

func openaiClient(mock *cuecard.Mock) openai.Client {
	return openai.NewClient(option.WithHTTPClient(&http.Client{Transport: mock.Transport()}), option.WithAPIKey("sk-test"))
}

func question(text string) openai.ChatCompletionNewParams {
	return openai.ChatCompletionNewParams{Model: "gpt-4o", Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage(text)}}
}

func TestOpenAIGoTextAndStream(t *testing.T) {
	mock := cuecard.New(t, cuecard.Responds("Sunny in Paris."), cuecard.Responds("Rain in Oslo, 9 degrees."))
	client := openaiClient(mock)
	completion, err := client.Chat.Completions.New(context.Background(), question("Weather in Paris?"))
	if err != nil || completion.Choices[0].Message.Content != "Sunny in Paris." || completion.Usage.CompletionTokens != 4 {
		t.Fatalf("%+v %v", completion, err)
	}
	stream := client.Chat.Completions.NewStreaming(context.Background(), question("And in Oslo?"))
	accumulated := openai.ChatCompletionAccumulator{}
	chunks := 0
	for stream.Next() {
		accumulated.AddChunk(stream.Current())
		chunks++
	}
	if err := stream.Err(); err != nil || accumulated.Choices[0].Message.Content != "Rain in Oslo, 9 degrees." {
		t.Fatalf("%+v %v", accumulated.Choices, err)
	}
	if chunks < 8 {
		t.Errorf("the answer came in %d chunks; word-like tokens make more", chunks)
	}
	mock.Assert(t, cuecard.ReceivedRequests(2), cuecard.LastUserMessageContains("Oslo"))
}

func TestOpenAIGoToolRoundTrip(t *testing.T) {
	// ANCHOR: tool_round_trip
	mock := cuecard.New(t, cuecard.CallsTool("get_weather", map[string]any{"city": "Paris"}), cuecard.Responds("It is 22 degrees in Paris."))
	client := openaiClient(mock)
	params := question("Weather in Paris?")
	params.Tools = []openai.ChatCompletionToolUnionParam{openai.ChatCompletionFunctionTool(shared.FunctionDefinitionParam{
		Name:       "get_weather",
		Parameters: shared.FunctionParameters{"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}},
	})}
	first, err := client.Chat.Completions.New(context.Background(), params)
	if err != nil || len(first.Choices[0].Message.ToolCalls) != 1 {
		t.Fatalf("%+v %v", first, err)
	}
	call := first.Choices[0].Message.ToolCalls[0]
	if call.Function.Name != "get_weather" || call.Function.Arguments != `{"city":"Paris"}` {
		t.Fatalf("the tool call: %+v", call)
	}
	params.Messages = append(params.Messages, first.Choices[0].Message.ToParam(), openai.ToolMessage("22 degrees", call.ID))
	second, err := client.Chat.Completions.New(context.Background(), params)
	if err != nil || second.Choices[0].Message.Content != "It is 22 degrees in Paris." {
		t.Fatalf("%+v %v", second, err)
	}
	requests, err := mock.Requests()
	if err != nil {
		t.Fatal(err)
	}
	messages := requests[1]["messages"].([]any)
	if last := messages[len(messages)-1].(map[string]any); last["role"] != "tool" {
		t.Fatalf("the tool's result went back: %v", last)
	}
	mock.Assert(t, cuecard.OffersTool("get_weather"))
	// ANCHOR_END: tool_round_trip
}

func TestOpenAIGoRetriesA429AndSeesACutStream(t *testing.T) {
	mock := cuecard.New(t, cuecard.FailsWith(cuecard.RateLimited, cuecard.RetryAfter(10)), cuecard.Responds("After the retry."),
		cuecard.Responds("A stream that breaks off in the middle of its sentence"))
	if err := mock.AndFails(cuecard.ConnectionReset); err != nil {
		t.Fatal(err)
	}
	client := openaiClient(mock)
	completion, err := client.Chat.Completions.New(context.Background(), question("Hi"))
	if err != nil || completion.Choices[0].Message.Content != "After the retry." {
		t.Fatalf("the SDK retries the 429 by itself: %+v %v", completion, err)
	}
	mock.Assert(t, cuecard.ReceivedRequests(2))
	stream := client.Chat.Completions.NewStreaming(context.Background(), question("Tell me"), option.WithMaxRetries(0))
	text := ""
	for stream.Next() {
		if len(stream.Current().Choices) > 0 {
			text += stream.Current().Choices[0].Delta.Content
		}
	}
	if stream.Err() == nil || text == "" || !strings.HasPrefix("A stream that breaks off in the middle of its sentence", text) {
		t.Fatalf("a cut stream: text %q, err %v", text, stream.Err())
	}
}

func TestGoOpenAITextAndStream(t *testing.T) {
	mock := cuecard.New(t, cuecard.Responds("Hello from go-openai."), cuecard.Responds("Streamed to go-openai."))
	config := goopenai.DefaultConfig("sk-test")
	config.HTTPClient = &http.Client{Transport: mock.Transport()}
	client := goopenai.NewClientWithConfig(config)
	request := goopenai.ChatCompletionRequest{Model: "gpt-4o", Messages: []goopenai.ChatCompletionMessage{{Role: "user", Content: "Hi"}}}
	response, err := client.CreateChatCompletion(context.Background(), request)
	if err != nil || response.Choices[0].Message.Content != "Hello from go-openai." {
		t.Fatalf("%+v %v", response, err)
	}
	text, err := goOpenAIStream(client, request)
	if err != nil {
		t.Fatal(err)
	}
	if text != "Streamed to go-openai." {
		t.Fatalf("%q", text)
	}
}

func TestAnthropicSDKGoTextAndStream(t *testing.T) {
	mock := cuecard.New(t, cuecard.Responds("Bonjour."), cuecard.Responds("Un flux de mots."))
	client := anthropic.NewClient(anthropicoption.WithHTTPClient(&http.Client{Transport: mock.Transport()}), anthropicoption.WithAPIKey("sk-ant-test"))
	params := anthropic.MessageNewParams{Model: "claude-sonnet-4-5", MaxTokens: 256,
		Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("Salut"))}}
	message, err := client.Messages.New(context.Background(), params)
	if err != nil || message.Content[0].Text != "Bonjour." || message.StopReason != anthropic.StopReasonEndTurn {
		t.Fatalf("%+v %v", message, err)
	}
	stream := client.Messages.NewStreaming(context.Background(), params)
	accumulated := anthropic.Message{}
	for stream.Next() {
		if err := accumulated.Accumulate(stream.Current()); err != nil {
			t.Fatal(err)
		}
	}
	if err := stream.Err(); err != nil || accumulated.Content[0].Text != "Un flux de mots." {
		t.Fatalf("%+v %v", accumulated.Content, err)
	}
	mock.Assert(t, cuecard.HasModel("claude-sonnet-4-5"))
}

func TestAWSSDKGoBedrockConverseAndConverseStream(t *testing.T) {
	mock := cuecard.New(t, cuecard.Responds("Converse answered."), cuecard.Responds("A binary event stream, decoded."))
	client := bedrockruntime.New(bedrockruntime.Options{
		Region:       "us-east-1",
		Credentials:  credentials.NewStaticCredentialsProvider("AKIDTEST", "secret", ""),
		HTTPClient:   &http.Client{Transport: mock.Transport()},
		BaseEndpoint: aws.String("https://bedrock-runtime.us-east-1.amazonaws.com"),
	})
	messages := []types.Message{{Role: types.ConversationRoleUser, Content: []types.ContentBlock{&types.ContentBlockMemberText{Value: "Hi"}}}}
	output, err := client.Converse(context.Background(), &bedrockruntime.ConverseInput{ModelId: aws.String("amazon.nova-pro-v1:0"), Messages: messages})
	if err != nil {
		t.Fatal(err)
	}
	said := output.Output.(*types.ConverseOutputMemberMessage).Value.Content[0].(*types.ContentBlockMemberText).Value
	if said != "Converse answered." || output.StopReason != types.StopReasonEndTurn {
		t.Fatalf("%q %v", said, output.StopReason)
	}
	streamed, err := client.ConverseStream(context.Background(), &bedrockruntime.ConverseStreamInput{ModelId: aws.String("amazon.nova-pro-v1:0"), Messages: messages})
	if err != nil {
		t.Fatal(err)
	}
	stream := streamed.GetStream()
	text, stopped := "", types.StopReason("")
	for event := range stream.Events() {
		switch event := event.(type) {
		case *types.ConverseStreamOutputMemberContentBlockDelta:
			if delta, ok := event.Value.Delta.(*types.ContentBlockDeltaMemberText); ok {
				text += delta.Value
			}
		case *types.ConverseStreamOutputMemberMessageStop:
			stopped = event.Value.StopReason
		}
	}
	if err := stream.Close(); err != nil || stream.Err() != nil {
		t.Fatalf("%v %v", err, stream.Err())
	}
	if text != "A binary event stream, decoded." || stopped != types.StopReasonEndTurn {
		t.Fatalf("%q %q", text, stopped)
	}
}

func anthropicClient(mock *cuecard.Mock) anthropic.Client {
	return anthropic.NewClient(anthropicoption.WithHTTPClient(&http.Client{Transport: mock.Transport()}),
		anthropicoption.WithAPIKey("sk-ant-test"))
}

func TestAnthropicSDKGoToolRoundTripA429RetriedAndACutStream(t *testing.T) {
	mock := cuecard.New(t, cuecard.FailsWith(cuecard.Overloaded), cuecard.CallsTool("get_weather", map[string]any{"city": "Paris"}),
		cuecard.Responds("22 degrees in Paris."), cuecard.Responds("A stream that breaks off in the middle"))
	if err := mock.AndFails(cuecard.ConnectionReset); err != nil {
		t.Fatal(err)
	}
	client := anthropicClient(mock)
	tool := anthropic.ToolUnionParam{OfTool: &anthropic.ToolParam{Name: "get_weather",
		InputSchema: anthropic.ToolInputSchemaParam{Properties: map[string]any{"city": map[string]any{"type": "string"}}}}}
	params := anthropic.MessageNewParams{Model: "claude-sonnet-4-5", MaxTokens: 256, Tools: []anthropic.ToolUnionParam{tool},
		Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("Weather in Paris?"))}}
	// The overloaded 529 first: the SDK retries it by itself.
	first, err := client.Messages.New(context.Background(), params)
	if err != nil || first.StopReason != anthropic.StopReasonToolUse {
		t.Fatalf("%+v %v", first, err)
	}
	use := first.Content[0].AsToolUse()
	if use.Name != "get_weather" || string(use.Input) != `{"city":"Paris"}` {
		t.Fatalf("the tool use: %+v", use)
	}
	params.Messages = append(params.Messages, first.ToParam(),
		anthropic.NewUserMessage(anthropic.NewToolResultBlock(use.ID, "22 degrees", false)))
	second, err := client.Messages.New(context.Background(), params)
	if err != nil || second.Content[0].Text != "22 degrees in Paris." {
		t.Fatalf("%+v %v", second, err)
	}
	stream := client.Messages.NewStreaming(context.Background(), params, anthropicoption.WithMaxRetries(0))
	text := ""
	for stream.Next() {
		if event := stream.Current(); event.Type == "content_block_delta" {
			text += event.Delta.Text
		}
	}
	if stream.Err() == nil || text == "" || !strings.HasPrefix("A stream that breaks off in the middle", text) {
		t.Fatalf("a cut stream: %q %v", text, stream.Err())
	}
	mock.Assert(t, cuecard.ReceivedRequests(4), cuecard.OffersTool("get_weather"))
}

func TestGoOpenAIToolRoundTripA429AndACutStream(t *testing.T) {
	mock := cuecard.New(t, cuecard.FailsWith(cuecard.RateLimited, cuecard.RetryAfter(5)),
		cuecard.CallsTool("get_weather", map[string]any{"city": "Oslo"}), cuecard.Responds("9 degrees in Oslo."),
		cuecard.Responds("A stream that breaks off in the middle"))
	if err := mock.AndFails(cuecard.ConnectionReset); err != nil {
		t.Fatal(err)
	}
	config := goopenai.DefaultConfig("sk-test")
	config.HTTPClient = &http.Client{Transport: mock.Transport()}
	client := goopenai.NewClientWithConfig(config)
	request := goopenai.ChatCompletionRequest{Model: "gpt-4o",
		Messages: []goopenai.ChatCompletionMessage{{Role: goopenai.ChatMessageRoleUser, Content: "Weather in Oslo?"}},
		Tools: []goopenai.Tool{{Type: goopenai.ToolTypeFunction, Function: &goopenai.FunctionDefinition{Name: "get_weather",
			Parameters: map[string]any{"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}}}}}}
	// go-openai does not retry: the caller sees the 429 as an APIError, and retries.
	_, err := client.CreateChatCompletion(context.Background(), request)
	var apiError *goopenai.APIError
	if !errors.As(err, &apiError) || apiError.HTTPStatusCode != 429 {
		t.Fatalf("want the 429 as an APIError, got %v", err)
	}
	first, err := client.CreateChatCompletion(context.Background(), request)
	if err != nil || len(first.Choices[0].Message.ToolCalls) != 1 {
		t.Fatalf("%+v %v", first, err)
	}
	call := first.Choices[0].Message.ToolCalls[0]
	if call.Function.Name != "get_weather" || call.Function.Arguments != `{"city":"Oslo"}` {
		t.Fatalf("the tool call: %+v", call)
	}
	request.Messages = append(request.Messages, first.Choices[0].Message,
		goopenai.ChatCompletionMessage{Role: goopenai.ChatMessageRoleTool, Content: "9 degrees", ToolCallID: call.ID})
	second, err := client.CreateChatCompletion(context.Background(), request)
	if err != nil || second.Choices[0].Message.Content != "9 degrees in Oslo." {
		t.Fatalf("%+v %v", second, err)
	}
	text, err := goOpenAIStream(client, request)
	if err == nil {
		t.Fatalf("the cut stream ended cleanly after %q", text)
	}
	if text == "" || !strings.HasPrefix("A stream that breaks off in the middle", text) {
		t.Fatalf("a cut stream: %q", text)
	}
	mock.Assert(t, cuecard.ReceivedRequests(4))
}

// What a Go test suite feels: openai-go's Chat.Completions.New through Mock.Transport against the same SDK on a
// canned http.RoundTripper returning the same bytes and headers (`go test -bench . ./tests/sdk/go`).
func BenchmarkOpenAIGoThroughTransport(b *testing.B) {
	mock, err := cuecard.Open(cuecard.Responds("It is sunny in Paris, 22 degrees, with a light breeze."), cuecard.Repeats(),
		cuecard.Settings(map[string]any{"journal_limit": 1000}))
	if err != nil {
		b.Fatal(err)
	}
	defer mock.Close()
	benchOpenAIGo(b, mock.Transport())
}

func BenchmarkOpenAIGoCanned(b *testing.B) {
	mock, err := cuecard.Open(cuecard.Responds("It is sunny in Paris, 22 degrees, with a light breeze."))
	if err != nil {
		b.Fatal(err)
	}
	request, _ := http.NewRequest("POST", "https://api.openai.com/v1/chat/completions",
		strings.NewReader(`{"model":"gpt-4o","messages":[{"role":"user","content":"Weather in Paris?"}]}`))
	recorded, err := mock.Transport().RoundTrip(request)
	if err != nil {
		b.Fatal(err)
	}
	body, _ := io.ReadAll(recorded.Body)
	mock.Close()
	benchOpenAIGo(b, cannedTransport{recorded.StatusCode, recorded.Header, string(body)})
}

func benchOpenAIGo(b *testing.B, transport http.RoundTripper) {
	client := openai.NewClient(option.WithHTTPClient(&http.Client{Transport: transport}), option.WithAPIKey("sk-test"))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		completion, err := client.Chat.Completions.New(context.Background(), question("Weather in Paris?"))
		if err != nil || len(completion.Choices) != 1 {
			b.Fatal(err)
		}
	}
}

type cannedTransport struct {
	status int
	header http.Header
	body   string
}

func (c cannedTransport) RoundTrip(request *http.Request) (*http.Response, error) {
	if request.Body != nil {
		_, _ = io.Copy(io.Discard, request.Body)
		request.Body.Close()
	}
	return &http.Response{StatusCode: c.status, Header: c.header.Clone(), Body: io.NopCloser(strings.NewReader(c.body)),
		ContentLength: int64(len(c.body)), Request: request, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1}, nil
}

// goOpenAIStream reads a go-openai stream to its end: the text, and the error that ended it (nil at io.EOF).
func goOpenAIStream(client *goopenai.Client, request goopenai.ChatCompletionRequest) (string, error) {
	stream, err := client.CreateChatCompletionStream(context.Background(), request)
	if err != nil {
		return "", err
	}
	defer stream.Close()
	text := ""
	for {
		chunk, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			return text, nil
		}
		if err != nil {
			return text, err
		}
		if len(chunk.Choices) > 0 {
			text += chunk.Choices[0].Delta.Content
		}
	}
}
