package cuecard

import "fmt"

// Error is one of cuecard's errors, as the core reports it in every language: a code (`script_exhausted`,
// `invalid_scenario`, `assertion_failed`, ...), a message that says what was wrong, and for a scenario the issues
// with their paths. Compare with errors.Is against the Err values, or read it with errors.As.
type Error struct {
	Code    string         `json:"code"`
	Number  int            `json:"number,omitempty"`
	Message string         `json:"message"`
	Issues  []Issue        `json:"issues,omitempty"`
	Context map[string]any `json:"context,omitempty"`
	// Provider is a scripted provider failure's details (`code` is then `provider_error`): its kind, status,
	// message and retry hints.
	Provider map[string]any `json:"provider_error,omitempty"`
}

// Issue is one problem of a scenario: the field's path (`routes[0].steps[1].fail`) and what is wrong with it.
type Issue struct {
	Path    string `json:"path"`
	Message string `json:"message"`
}

func (e *Error) Error() string {
	return fmt.Sprintf("cuecard %s: %s", e.Code, e.Message)
}

// Is makes errors.Is(err, cuecard.ErrScriptExhausted) hold for any error of that code.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Message == "" && t.Code == e.Code
}

// The codes of the core's errors, for errors.Is.
var (
	ErrInvalidScenario      = &Error{Code: "invalid_scenario"}
	ErrInvalidRequest       = &Error{Code: "invalid_request"}
	ErrScriptExhausted      = &Error{Code: "script_exhausted"}
	ErrNoRouteMatched       = &Error{Code: "no_route_matched"}
	ErrInvalidArgument      = &Error{Code: "invalid_argument"}
	ErrInvalidState         = &Error{Code: "invalid_state"}
	ErrRequestCountMismatch = &Error{Code: "request_count_mismatch"}
	ErrAssertionFailed      = &Error{Code: "assertion_failed"}
	ErrIO                   = &Error{Code: "io"}
	ErrNoRecording          = &Error{Code: "no_recording"}
	ErrInternal             = &Error{Code: "internal"}
	// ErrProvider is a scripted provider failure (a 429, an overload) answered to Mock.Chat.
	ErrProvider = &Error{Code: "provider_error"}
)
