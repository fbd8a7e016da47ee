package lenient_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/mithub/mithub/pkg/llm/lenient"
)

func TestExtract(t *testing.T) {
	tests := []struct {
		name string
		give string
		want string
	}{
		{"plain object", `{"a": 1, "b": [true, null]}`, `{"a":1,"b":[true,null]}`},
		{"plain array", ` [1, 2] `, `[1,2]`},
		{"empty object", `{}`, `{}`},
		{"json fence", "Here you go:\n```json\n{\"a\": 1}\n```\nAnything else?", `{"a":1}`},
		{"bare fence", "```\n[1,2]\n```", `[1,2]`},
		{"unclosed fence", "```json\n{\"a\": \"b\"}", `{"a":"b"}`},
		{"fence without JSON then JSON", "```python\nprint(1)\n```\n{\"a\": 1}", `{"a":1}`},
		{"leading and trailing prose", `Sure! The answer is {"a": "x"} — hope that helps {`, `{"a":"x"}`},
		{"bracket in prose before", `See note [1]. {"topics": [{"start_seq": 0}]}`, `{"topics":[{"start_seq":0}]}`},
		{"braces in prose before", `Use {curly braces} like this: {"ok": true}`, `{"ok":true}`},
		{"trailing comma object", `{"a": 1, "b": 2,}`, `{"a":1,"b":2}`},
		{"trailing comma array", `[1, 2, 3,]`, `[1,2,3]`},
		{"doubled comma", `[1,, 2]`, `[1,2]`},
		{"single quotes", `{'title': 'Budget', 'n': 2}`, `{"title":"Budget","n":2}`},
		{"apostrophe inside single quotes", `{'title': 'Let's ship it', 'x': 'it''s'}`, `{"title":"Let's ship it","x":"it''s"}`},
		{"double quote inside single quotes", `{'q': 'say "hi"'}`, `{"q":"say \"hi\""}`},
		{"escaped apostrophe", `{'q': 'don\'t'}`, `{"q":"don't"}`},
		{"unquoted keys", `{title: "x", start_seq: 3, end-seq: 4}`, `{"title":"x","start_seq":3,"end-seq":4}`},
		{"unquoted Korean key", `{제목: "예산"}`, `{"제목":"예산"}`},
		{"smart quotes around keys", `{“title”: “회의 요약”, “n”: 1}`, `{"title":"회의 요약","n":1}`},
		{"smart single quotes", `{‘title’: ‘plan’}`, `{"title":"plan"}`},
		{"smart quotes inside a string stay", `{"s": "그는 “좋다”고 했다"}`, `{"s":"그는 “좋다”고 했다"}`},
		{"unescaped inner quotes", `{"s": "He said "yes" to it", "n": 1}`, `{"s":"He said \"yes\" to it","n":1}`},
		{"raw newline and tab in string", "{\"s\": \"a\nb\tc\"}", `{"s":"a\nb\tc"}`},
		{"missing comma between lines", "{\"a\": \"x\"\n\"b\": \"y\"}", `{"a":"x","b":"y"}`},
		{"missing comma between objects", "[{\"a\":1}\n{\"a\":2}]", `[{"a":1},{"a":2}]`},
		{"comments", "{\n// the title\n\"a\": 1, /* n */ \"b\": 2}", `{"a":1,"b":2}`},
		{"python literals", `{"a": True, "b": False, "c": None}`, `{"a":true,"b":false,"c":null}`},
		{"loose numbers", `[+1, .5, 007, 5., -0.25e2]`, `[1,0.5,7,5,-0.25e2]`},
		{"invalid escape", `{"p": "C:\data\new"}`, `{"p":"C:\\data\new"}`},
		{"unicode escape", `{"k": "\uD55C\uae00"}`, `{"k":"\uD55C\uae00"}`},
		{"mismatched closer", `{"a": [1, 2}`, `{"a":[1,2]}`},
		{"cut array drops last element", `[{"a": 1}, {"a": 2}, {"a":`, `[{"a":1},{"a":2}]`},
		{"cut number dropped", `[1, 2, 3`, `[1,2]`},
		{"cut inside nested object", `{"continue_to": -1, "topics": [{"start_seq": 0, "end_seq": 4, "title": "A"}, {"start_seq": 5, "end_se`, `{"continue_to":-1,"topics":[{"start_seq":0,"end_seq":4,"title":"A"}]}`},
		{"cut string in object closed", `{"title": "예산", "summary": "다음 분기 예산을 논`, `{"title":"예산","summary":"다음 분기 예산을 논"}`},
		{"cut string in array dropped", `["a", "b", "unfini`, `["a","b"]`},
		{"cut after key", `{"a": 1, "b"`, `{"a":1}`},
		{"cut after colon", `{"a": 1, "b":`, `{"a":1}`},
		{"cut literal", `[true, fal`, `[true]`},
		{"cut unicode escape", `{"a": "x", "b": "\uD5`, `{"a":"x","b":""}`},
		{"cut array after a complete element", `{"k": ["x", "y"`, `{"k":["x","y"]}`},
		{"cut after comma", `[1, 2,`, `[1,2]`},
		{"ellipsis in array", `[1, 2, ...]`, `[1,2]`},
		{"Korean survives", `{"title":"분기 예산 검토","keywords":["예산","마케팅"]}`, `{"title":"분기 예산 검토","keywords":["예산","마케팅"]}`},
		{"unicode spaces", "{\u3000\"a\":\u00a01}", `{"a":1}`},
		{"invalid UTF-8", "{\"a\": \"x\xffy\"}", `{"a":"x` + "\uFFFD" + `y"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := lenient.Extract(tt.give)
			if err != nil {
				t.Fatalf("Extract(%q): %v", tt.give, err)
			}
			if string(got) != tt.want {
				t.Errorf("Extract(%q)\n got %s\nwant %s", tt.give, got, tt.want)
			}
			if !json.Valid(got) {
				t.Errorf("invalid JSON %s", got)
			}
		})
	}
}

func TestExtractNothing(t *testing.T) {
	tests := []struct {
		name string
		give string
	}{
		{"empty", ""},
		{"prose", "I cannot help with that."},
		{"Korean prose", "죄송합니다. 요약할 내용이 없습니다."},
		{"braces in prose only", "The {meeting} went [well]"},
		{"lone bracket", "Answer: {"},
		{"lone array bracket", "["},
		{"bare scalar", `"just a string"`},
		{"cut before any member", `{"ti`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := lenient.Extract(tt.give)
			if !errors.Is(err, lenient.ErrNoJSON) {
				t.Errorf("Extract(%q) = %s, %v; want ErrNoJSON", tt.give, got, err)
			}
		})
	}
}

func TestExtractDeepNesting(t *testing.T) {
	deep := ""
	for range 5000 {
		deep += "["
	}
	if got, err := lenient.Extract(deep + "1"); err == nil && !json.Valid(got) {
		t.Errorf("invalid JSON for deep nesting")
	}
}
