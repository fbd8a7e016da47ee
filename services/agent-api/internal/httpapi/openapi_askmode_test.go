package httpapi_test

import (
	"encoding/json"
	"os"
	"slices"
	"testing"

	"github.com/mithub/mithub/pkg/askmode"
)

// openAPISchema is the part of a JSON schema the ask mode checks read.
type openAPISchema struct {
	Ref        string                   `json:"$ref"`
	AllOf      []openAPISchema          `json:"allOf"`
	Enum       []any                    `json:"enum"`
	Default    any                      `json:"default"`
	Properties map[string]openAPISchema `json:"properties"`
}

// TestOpenAPIAskModes: the spec lists exactly the modes the server
// accepts, in the same order, and defaults the request's mode to
// askmode.Default; the request and the result both use that one list.
func TestOpenAPIAskModes(t *testing.T) {
	raw, err := os.ReadFile("openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	var spec struct {
		Components struct {
			Schemas map[string]openAPISchema `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(raw, &spec); err != nil {
		t.Fatal(err)
	}
	const ref = "#/components/schemas/AskMode"
	schemas := spec.Components.Schemas
	var want []any
	for _, m := range askmode.Modes() {
		want = append(want, string(m))
	}
	if got := schemas["AskMode"].Enum; !slices.Equal(got, want) {
		t.Errorf("AskMode enum is %q, the Go list is %q", got, want)
	}
	req := schemas["AskRequest"].Properties["mode"]
	if len(req.AllOf) != 1 || req.AllOf[0].Ref != ref {
		t.Errorf("AskRequest.mode is not allOf [%s]: %+v", ref, req)
	}
	if req.Default != string(askmode.Default) {
		t.Errorf("AskRequest.mode default is %v, want %q", req.Default, askmode.Default)
	}
	if res := schemas["AskResult"].Properties["mode"]; res.Ref != ref {
		t.Errorf("AskResult.mode is not %s: %+v", ref, res)
	}
}
