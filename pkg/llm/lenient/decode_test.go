package lenient_test

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/mithub/mithub/pkg/llm/lenient"
)

type topic struct {
	StartSeq int      `json:"start_seq"`
	EndSeq   *int     `json:"end_seq"`
	Title    string   `json:"title"`
	Score    float64  `json:"score"`
	Final    bool     `json:"final"`
	Keywords []string `json:"keywords"`
	Ignored  string   `json:"-"`
}

type reply struct {
	ContinueTo int     `json:"continue_to"`
	Topics     []topic `json:"topics"`
}

func intp(n int) *int { return &n }

func TestDecodeCoercion(t *testing.T) {
	tests := []struct {
		name string
		give string
		want reply
	}{
		{
			name: "well typed",
			give: `{"continue_to": 2, "topics": [{"start_seq": 3, "end_seq": 5, "title": "예산", "score": 0.5, "final": true, "keywords": ["a"]}]}`,
			want: reply{ContinueTo: 2, Topics: []topic{{StartSeq: 3, EndSeq: intp(5), Title: "예산", Score: 0.5, Final: true, Keywords: []string{"a"}}}},
		},
		{
			name: "numbers as strings",
			give: `{"continue_to": "-1", "topics": [{"start_seq": "3", "end_seq": " 7 ", "score": "0.25"}]}`,
			want: reply{ContinueTo: -1, Topics: []topic{{StartSeq: 3, EndSeq: intp(7), Score: 0.25}}},
		},
		{
			name: "integral floats into ints",
			give: `{"topics": [{"start_seq": 3.0, "end_seq": "1e1"}]}`,
			want: reply{Topics: []topic{{StartSeq: 3, EndSeq: intp(10)}}},
		},
		{
			name: "number into string",
			give: `{"topics": [{"title": 2024}]}`,
			want: reply{Topics: []topic{{Title: "2024"}}},
		},
		{
			name: "bool strings",
			give: `{"topics": [{"final": "true"}, {"final": " FALSE "}]}`,
			want: reply{Topics: []topic{{Final: true}, {Final: false}}},
		},
		{
			name: "single object for an array",
			give: `{"topics": {"start_seq": 1, "title": "하나"}}`,
			want: reply{Topics: []topic{{StartSeq: 1, Title: "하나"}}},
		},
		{
			name: "single string for a string slice",
			give: `{"topics": [{"keywords": "예산"}]}`,
			want: reply{Topics: []topic{{Keywords: []string{"예산"}}}},
		},
		{
			name: "one-element array for a scalar",
			give: `{"continue_to": [4], "topics": [{"title": ["회의"]}]}`,
			want: reply{ContinueTo: 4, Topics: []topic{{Title: "회의"}}},
		},
		{
			name: "case-insensitive keys and unknown keys",
			give: `{"Continue_To": 1, "extra": {"x": 1}, "topics": []}`,
			want: reply{ContinueTo: 1, Topics: []topic{}},
		},
		{
			name: "null leaves zero",
			give: `{"continue_to": null, "topics": null}`,
			want: reply{},
		},
		{
			name: "dash field ignored",
			give: `{"topics": [{"-": "x", "Ignored": "y"}]}`,
			want: reply{Topics: []topic{{}}},
		},
		{
			name: "repaired and coerced",
			give: "```json\n{continue_to: '-1', topics: [{start_seq: '0', end_seq: 4, title: '분기 예산',}, {start_seq: 5, end_s",
			want: reply{ContinueTo: -1, Topics: []topic{{StartSeq: 0, EndSeq: intp(4), Title: "분기 예산"}}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got reply
			if err := lenient.Decode(tt.give, &got); err != nil {
				t.Fatalf("Decode: %v", err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Decode(%q)\n got %+v\nwant %+v", tt.give, got, tt.want)
			}
		})
	}
}

func TestDecodeTypeErrors(t *testing.T) {
	tests := []struct {
		name     string
		give     string
		wantPath string
		want     reply
	}{
		{"fraction into int", `{"continue_to": 1.5, "topics": [{"title": "t"}]}`, "continue_to", reply{Topics: []topic{{Title: "t"}}}},
		{"word into int", `{"topics": [{"start_seq": "three", "title": "t"}]}`, "topics[0].start_seq", reply{Topics: []topic{{Title: "t"}}}},
		{"object into string", `{"topics": [{"title": {"a": 1}, "start_seq": 2}]}`, "topics[0].title", reply{Topics: []topic{{StartSeq: 2}}}},
		{"string into struct", `{"topics": ["n/a", {"title": "t"}]}`, "topics[0]", reply{Topics: []topic{{}, {Title: "t"}}}},
		{"yes into bool", `{"topics": [{"final": "yes"}]}`, "topics[0].final", reply{Topics: []topic{{}}}},
		{"many values for a scalar", `{"continue_to": [1, 2]}`, "continue_to", reply{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got reply
			err := lenient.Decode(tt.give, &got)
			var te *lenient.TypeError
			if !errors.As(err, &te) || te.Path != tt.wantPath {
				t.Fatalf("err = %v, want a TypeError at %s", err, tt.wantPath)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %+v, want %+v (the rest still decoded)", got, tt.want)
			}
		})
	}
}

type inner struct {
	Note string `json:"note"`
}

type Embedded struct {
	Shared string `json:"shared"`
}

type rich struct {
	Embedded
	*inner
	Any     any               `json:"any"`
	Counts  map[string]int    `json:"counts"`
	ByID    map[int]string    `json:"by_id"`
	Small   int8              `json:"small"`
	U       uint              `json:"u"`
	F32     float32           `json:"f32"`
	Arr     [2]string         `json:"arr"`
	Ptr     *string           `json:"ptr"`
	When    time.Time         `json:"when"`
	Raw     json.RawMessage   `json:"raw"`
	Nested  map[string][]bool `json:"nested"`
	private string
}

func TestDecodeKinds(t *testing.T) {
	give := `{"shared": "s", "note": "n", "any": {"x": [1, "2"]}, "counts": {"a": "3", "b": 4},
		"by_id": {"7": "seven"}, "small": "12", "u": "5", "f32": "1.5", "arr": ["a", "b", "c"],
		"ptr": 9, "when": "2026-01-02T03:04:05Z", "raw": {"k": [1]}, "nested": {"k": "true"}, "private": "p"}`
	var got rich
	if err := lenient.Decode(give, &got); err != nil {
		t.Fatal(err)
	}
	nine := "9"
	want := rich{
		Embedded: Embedded{Shared: "s"},
		Any:      map[string]any{"x": []any{1.0, "2"}},
		Counts:   map[string]int{"a": 3, "b": 4},
		ByID:     map[int]string{7: "seven"},
		Small:    12,
		U:        5,
		F32:      1.5,
		Arr:      [2]string{"a", "b"},
		Ptr:      &nine,
		When:     time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),
		Raw:      json.RawMessage(`{"k":[1]}`),
		Nested:   map[string][]bool{"k": {true}},
	}
	if got.inner != nil {
		t.Errorf("unexported embedded pointer was set: %+v", got.inner)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
}

func TestDecodeOverflow(t *testing.T) {
	var got struct {
		Small int8 `json:"small"`
		U     uint `json:"u"`
	}
	err := lenient.Decode(`{"small": 300, "u": -1}`, &got)
	var te *lenient.TypeError
	if !errors.As(err, &te) || te.Path != "small" {
		t.Errorf("err = %v, want a TypeError at small", err)
	}
}

func TestDecodeNoJSON(t *testing.T) {
	var got reply
	if err := lenient.Decode("no idea", &got); !errors.Is(err, lenient.ErrNoJSON) {
		t.Errorf("err = %v, want ErrNoJSON", err)
	}
}

func TestDecodeTopLevelArrayIntoSlice(t *testing.T) {
	var got []topic
	if err := lenient.Decode(`Topics: [{"start_seq": "1"}, {"start_seq": 2}]`, &got); err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].StartSeq != 1 || got[1].StartSeq != 2 {
		t.Errorf("got %+v", got)
	}
}

func TestUnmarshalNeedsPointer(t *testing.T) {
	var r reply
	if err := lenient.Unmarshal([]byte(`{}`), r); err == nil {
		t.Error("Unmarshal into a non-pointer succeeded")
	}
	if err := lenient.Unmarshal([]byte(`{`), &r); err == nil {
		t.Error("Unmarshal of invalid JSON succeeded")
	}
}
