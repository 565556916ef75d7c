package cuecard

import (
	"encoding/json"
)

// Check is one check as data (`{"check": "has_model", "model": "gpt-4o"}`): every language has the same checks with
// the same failure messages (docs/reference/checks.md). The functions below build the common ones; CheckOf any.
type Check map[string]any

// CheckOf builds any check by name with its fields.
func CheckOf(name string, fields map[string]any) Check {
	check := Check{"check": name}
	for key, value := range fields {
		check[key] = value
	}
	return check
}

// AllStepsUsed: every step of every route answered a request.
func AllStepsUsed() Check { return Check{"check": "all_steps_used"} }

// NoUnexpectedRequests: no request arrived after its route ran out or matched no route.
func NoUnexpectedRequests() Check { return Check{"check": "no_unexpected_requests"} }

// ReceivedRequests: exactly n requests arrived.
func ReceivedRequests(n int) Check { return Check{"check": "received_requests", "times": n} }

// LastUserMessageContains: the last request's last user message contains text.
func LastUserMessageContains(text string) Check {
	return Check{"check": "has_last_user_message_containing", "text": text}
}

// SystemMessageContains: the last request's system message contains text.
func SystemMessageContains(text string) Check {
	return Check{"check": "has_system_message_containing", "text": text}
}

// OffersTool: the last request offered the tool name.
func OffersTool(name string) Check { return Check{"check": "offers_tool", "name": name} }

// HasModel: the last request asked for model.
func HasModel(model string) Check { return Check{"check": "has_model", "model": model} }

// NoContractViolations: every wire request kept its provider's contract.
func NoContractViolations() Check { return Check{"check": "no_contract_violations"} }

// Check runs one check: nil when it holds, else an *Error (ErrAssertionFailed) whose message says what was expected,
// what happened and every request.
func (m *Mock) Check(check Check) error {
	return m.op("check", map[string]any{"check": map[string]any(check)}, nil)
}

// Assert runs checks, each failure a t.Errorf with the core's message.
func (m *Mock) Assert(t TB, checks ...Check) {
	t.Helper()
	for _, check := range checks {
		if err := m.Check(check); err != nil {
			t.Errorf("%v", err)
		}
	}
}

// Require runs checks, the first failure a t.Fatalf with the core's message.
func (m *Mock) Require(t TB, checks ...Check) {
	t.Helper()
	for _, check := range checks {
		if err := m.Check(check); err != nil {
			t.Fatalf("%v", err)
		}
	}
}

// Journal is what the mock received, as GET /_cuecard/journal gives it in every language.
type Journal struct {
	// Count is how many requests were journaled.
	Count int `json:"count"`
	// Entries are the requests in arrival order: each with its `request` (the neutral request), `route`, `step`,
	// `outcome` and `response`.
	Entries []map[string]any `json:"entries"`
	// UnusedSteps are the steps no request took.
	UnusedSteps []map[string]any `json:"unused_steps"`
	// Document is the whole journal document (the MCP, A2A and socket sections beside the requests).
	Document json.RawMessage `json:"-"`
}

// Journal reads what the mock received.
func (m *Mock) Journal() (Journal, error) {
	var raw json.RawMessage
	if err := m.op("journal", nil, &raw); err != nil {
		return Journal{}, err
	}
	var journal Journal
	if err := json.Unmarshal(raw, &journal); err != nil {
		return Journal{}, &Error{Code: "internal", Message: err.Error()}
	}
	journal.Document = raw
	return journal, nil
}

// Requests are the neutral requests received, in order (`messages`, `model`, `tools`, ...).
func (m *Mock) Requests() ([]map[string]any, error) {
	journal, err := m.Journal()
	if err != nil {
		return nil, err
	}
	requests := make([]map[string]any, 0, len(journal.Entries))
	for _, entry := range journal.Entries {
		request, _ := entry["request"].(map[string]any)
		requests = append(requests, request)
	}
	return requests, nil
}
