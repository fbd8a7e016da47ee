package prdoc_test

import (
	"context"
	"fmt"
	"time"

	"github.com/mithub/mithub/pkg/prdoc"
)

func ExampleLocal_Extract() {
	in := prdoc.Input{
		MeetingTitle: "Release sync",
		Date:         time.Date(2026, 1, 7, 0, 0, 0, 0, time.UTC), // a Wednesday
		Turns: []prdoc.Turn{
			{Seq: 0, Speaker: "Alice", Text: "We decided to ship version two on Friday."},
			{Seq: 1, Speaker: "민수", Text: "제가 내일까지 릴리스 노트를 정리하겠습니다."},
			{Seq: 2, Speaker: "Bob", Text: "Who will answer support tickets during the launch week?"},
		},
	}
	d, err := prdoc.NewLocal().Extract(context.Background(), in)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, x := range d.Decisions {
		fmt.Println("decision:", x.Text, "—", x.Speaker)
	}
	for _, a := range d.ActionItems {
		fmt.Println("action:", a.Owner, a.DueDate)
	}
	for _, q := range d.OpenQuestions {
		fmt.Println("open:", q.Text)
	}
	// Output:
	// decision: We decided to ship version two on Friday. — Alice
	// action: 민수 2026-01-08
	// open: Who will answer support tickets during the launch week?
}
