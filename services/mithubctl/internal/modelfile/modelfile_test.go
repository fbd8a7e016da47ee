package modelfile

import "testing"

func TestMarshalIsIndentedWithAFinalNewline(t *testing.T) {
	b, err := Marshal(map[string]any{"b": 1, "a": []int{2}})
	if err != nil {
		t.Fatal(err)
	}
	if want := "{\n  \"a\": [\n    2\n  ],\n  \"b\": 1\n}\n"; string(b) != want {
		t.Errorf("Marshal = %q, want %q", b, want)
	}
	if _, err := Marshal(func() {}); err == nil {
		t.Error("Marshal(func) succeeded")
	}
}
