package tokens_test

import (
	"fmt"

	"github.com/mithub/mithub/pkg/tokens"
)

func ExampleBudget() {
	window := tokens.ContextWindow("gpt-4o-mini", 0) // MITHUB_LLM_CONTEXT_WINDOW unset
	b := tokens.NewBudget(window, 4096)
	fmt.Println(window, b.Available())
	fmt.Println(tokens.NewBudget(tokens.ContextWindow("HCX-003", 0), 1024).Available())
	// Output:
	// 128000 111104
	// 6348
}

func ExamplePacker() {
	counter, err := tokens.ForModel("gpt-4o")
	if err != nil {
		fmt.Println(err)
		return
	}
	p := tokens.Packer{Counter: counter, Budget: 52}
	packed := p.Pack(
		[]tokens.Part{
			{Name: "system", Text: "You are MitHub, a meeting assistant. Answer in the user's language."},
			{Name: "question", Text: "밋허브야, 지난주에 정한 배포 일정이 언제였지?"},
		},
		[]tokens.Part{
			{Name: "slide", Tokens: tokens.ImageTokens},
			{Name: "recent turns", Text: "민지: 배포는 3월 14일 금요일로 하죠.\n준호: 좋아요, QA는 목요일까지 끝낼게요.", Truncate: tokens.KeepTail},
		},
	)
	for _, part := range packed.Parts {
		fmt.Printf("%-12s tokens=%-4d included=%-5v truncated=%v\n", part.Name, part.Tokens, part.Included, part.Truncated)
	}
	fmt.Printf("total %d of %d, overflow %d\n", packed.Total, packed.Budget, packed.Overflow())
	fmt.Printf("%q\n", packed.Parts[3].Text)
	// Output:
	// system       tokens=15   included=true  truncated=false
	// question     tokens=19   included=true  truncated=false
	// slide        tokens=0    included=false truncated=false
	// recent turns tokens=18   included=true  truncated=true
	// total 52 of 52, overflow 0
	// "죠.\n준호: 좋아요, QA는 목요일까지 끝낼게요."
}

func ExampleCorrector() {
	var c tokens.Corrector
	// A provider reported 1200 prompt tokens where cl100k_base counted 1000.
	c.Observe("meta-llama/Llama-3.1-8B-Instruct", 1000, 1200)
	c.Observe("llama-3.1-8b-instruct", 1000, 1200)
	fmt.Printf("%.3f\n", c.Factor("llama-3.1-8b-instruct"))
	fmt.Println(c.Adjust("llama-3.1-8b-instruct", 500))
	fmt.Println(c.Factor("gpt-4o"), c.Adjust("gpt-4o", 500))
	// Output:
	// 1.072
	// 536
	// 1 500
}
