package lenient_test

import (
	"fmt"

	"github.com/mithub/mithub/pkg/llm/lenient"
)

func ExampleExtract() {
	answer := "Sure! Here are the topics:\n```json\n{\"topics\": [{\"title\": '예산 검토',}, {\"title\": \"일정"
	raw, err := lenient.Extract(answer)
	fmt.Println(string(raw), err)
	// Output: {"topics":[{"title":"예산 검토"}]} <nil>
}

func ExampleDecode() {
	var v struct {
		Start    int      `json:"start_seq"`
		Keywords []string `json:"keywords"`
	}
	err := lenient.Decode(`{"start_seq": "12", "keywords": "예산"}`, &v)
	fmt.Println(v.Start, v.Keywords, err)
	// Output: 12 [예산] <nil>
}
