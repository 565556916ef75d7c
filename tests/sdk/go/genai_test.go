package sdkgo_test

import (
	"context"
	"net/http"
	"testing"

	"google.golang.org/genai"

	"cuecard.dev/cuecard"
)

// The Google Gen AI SDK for Go (google.golang.org/genai), unmodified, through Mock.Transport on the Gemini API's
// wire: a whole answer with its finish reason and usage, and a stream read to its end.
func TestGenAIGoGenerateContentAndStream(t *testing.T) {
	mock := cuecard.New(t, cuecard.Responds("Sunny in Paris."), cuecard.Responds("Rain in Oslo, 9 degrees."))
	client, err := genai.NewClient(context.Background(), &genai.ClientConfig{APIKey: "test-key", Backend: genai.BackendGeminiAPI,
		HTTPClient: &http.Client{Transport: mock.Transport()}})
	if err != nil {
		t.Fatal(err)
	}
	answer, err := client.Models.GenerateContent(context.Background(), "gemini-2.5-flash", genai.Text("Weather in Paris?"), nil)
	if err != nil || answer.Text() != "Sunny in Paris." || answer.Candidates[0].FinishReason != genai.FinishReasonStop ||
		answer.UsageMetadata.CandidatesTokenCount != 4 {
		t.Fatalf("%+v %v", answer, err)
	}
	text, chunks := "", 0
	for chunk, err := range client.Models.GenerateContentStream(context.Background(), "gemini-2.5-flash", genai.Text("And Oslo?"), nil) {
		if err != nil {
			t.Fatal(err)
		}
		text += chunk.Text()
		chunks++
	}
	if text != "Rain in Oslo, 9 degrees." || chunks < 4 {
		t.Fatalf("%q in %d chunks", text, chunks)
	}
	mock.Assert(t, cuecard.ReceivedRequests(2), cuecard.HasModel("gemini-2.5-flash"))
}
