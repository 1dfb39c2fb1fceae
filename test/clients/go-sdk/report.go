// The report the conformance program prints: one entry per SDK call, in call order, as JSON on
// stdout. A call either succeeded (ok, with the facts the test asserts in detail) or failed
// (error text and, for an API error, the HTTP status). No token or secret value is ever put in a
// report: values are reported as comparisons ("valueMatches"), tokens as facts about them.
package main

import (
	"encoding/json"
	"errors"
	"os"

	sdkerrors "github.com/infisical/go-sdk/packages/errors"
)

// Call is one SDK call's outcome.
type Call struct {
	Name   string         `json:"name"`
	OK     bool           `json:"ok"`
	Status int            `json:"status,omitempty"`
	Error  string         `json:"error,omitempty"`
	Detail map[string]any `json:"detail,omitempty"`
}

// Report collects the calls in order.
type Report struct {
	Client string `json:"client"`
	Calls  []Call `json:"calls"`
}

// record runs fn and appends its outcome under name.
func (r *Report) record(name string, fn func() (map[string]any, error)) {
	detail, err := fn()
	call := Call{Name: name, OK: err == nil, Detail: detail}
	if err != nil {
		call.Error = err.Error()
		var apiErr *sdkerrors.APIError
		if errors.As(err, &apiErr) {
			call.Status = apiErr.StatusCode
		}
		var notModified *sdkerrors.NotModifiedError
		if errors.As(err, &notModified) {
			call.Status = 304
		}
	}
	r.Calls = append(r.Calls, call)
}

// print writes the report as one JSON document on stdout.
func (r *Report) print() {
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	if err := enc.Encode(r); err != nil {
		os.Exit(2)
	}
}
