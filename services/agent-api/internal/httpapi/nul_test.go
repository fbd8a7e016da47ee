package httpapi_test

import (
	"io"
	"strings"
	"testing"
)

// A NUL anywhere in a meeting's metadata (key or value, nested) is a 400
// naming it, not the 500 PostgreSQL's jsonb refusal used to give; the same
// metadata without the NUL, in Korean, is stored.
func TestNULInMetadataIs400(t *testing.T) {
	a := newSecApp(t, nil, nil)
	key := a.key("acme")
	for _, body := range []string{
		`{"title":"t","metadata":{"project":"a\u0000b"}}`,
		`{"title":"t","metadata":{"a\u0000":"b"}}`,
		`{"title":"t","metadata":{"팀":{"목록":["x","\u0000"]}}}`,
	} {
		resp := a.do("POST", "/v1/meetings", key, body)
		raw, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 400 || !strings.Contains(string(raw), "NUL") {
			t.Errorf("%s: status %d body %s, want 400 naming the NUL", body, resp.StatusCode, raw)
		}
	}
	resp := a.do("POST", "/v1/meetings", key, `{"title":"t","metadata":{"팀":{"목록":["x","회의"]}}}`)
	if resp.StatusCode != 201 {
		raw, _ := io.ReadAll(resp.Body)
		t.Fatalf("metadata without NUL: status %d %s", resp.StatusCode, raw)
	}
}
