package apiclient

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"unicode/utf8"
)

// maxErrorText is how much of a non-JSON error body APIError.Message keeps.
const maxErrorText = 512

// APIError is an HTTP error response from the API.
type APIError struct {
	// Status is the HTTP status code.
	Status int
	// Code is the machine-readable code from the error body; empty when the
	// body was not the API's JSON error shape.
	Code string
	// Message is the server's message, or the (truncated) body text when
	// the body was not JSON.
	Message string
}

func (e *APIError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "api error %d", e.Status)
	if e.Code != "" {
		b.WriteString(" ")
		b.WriteString(e.Code)
	}
	if e.Message != "" {
		b.WriteString(": ")
		b.WriteString(e.Message)
	}
	return b.String()
}

// errorBody is the API's error envelope.
type errorBody struct {
	Error *struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// newAPIError builds an APIError from a status and the response body.
func newAPIError(status int, body []byte) *APIError {
	var eb errorBody
	if err := json.Unmarshal(body, &eb); err == nil && eb.Error != nil &&
		(eb.Error.Code != "" || eb.Error.Message != "") {
		return &APIError{Status: status, Code: eb.Error.Code, Message: eb.Error.Message}
	}
	text := strings.TrimSpace(string(body))
	if text == "" {
		text = http.StatusText(status)
	}
	return &APIError{Status: status, Message: truncate(text, maxErrorText)}
}

// truncate shortens s to at most n bytes without splitting a UTF-8 sequence.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
