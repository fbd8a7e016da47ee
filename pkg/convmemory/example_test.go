package convmemory_test

import (
	"fmt"

	"github.com/mithub/mithub/pkg/convmemory"
)

// A context renders older parts as summaries and the newest turns
// verbatim, ready for a prompt.
func ExampleContext_Text() {
	c := convmemory.Context{Items: []convmemory.ContextItem{
		{Kind: "summary", Level: 2, FromTurn: 0, ToTurn: 249, Text: "Budget review — the GPU budget moves to Q3."},
		{Kind: "turn", FromTurn: 250, ToTurn: 250, Speaker: "Kim", Text: "그럼 배포는 목요일로 하죠."},
		{Kind: "turn", FromTurn: 251, ToTurn: 251, Speaker: "Alice", Text: "Agreed, Thursday."},
	}}
	fmt.Print(c.Text())
	// Output:
	// [Summary of turns 0-249]
	// Budget review — the GPU budget moves to Q3.
	//
	// [Recent turns]
	// Kim: 그럼 배포는 목요일로 하죠.
	// Alice: Agreed, Thursday.
}
