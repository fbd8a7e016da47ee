package tasks_test

import (
	"fmt"

	mithubv1 "github.com/mithub/mithub/pkg/gen/mithub/v1"
	"github.com/mithub/mithub/pkg/tasks"
)

func ExampleNewPRGenerateTask() {
	task, err := tasks.NewPRGenerateTask(&mithubv1.PRGenerateTask{
		PrId:      "a3e0c1d2-7b8f-4e59-8f6a-1c2d3e4f5a6b",
		MeetingId: "4f1c2b9e-0d55-4a43-9a0e-7d1b7f3c2a10",
		TenantId:  "0b7e2a4c-1111-4c2d-9e3f-5a6b7c8d9e0f",
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	p, err := tasks.ParsePRGenerateTask(task.Payload())
	fmt.Println(task.Type(), p.GetPrId(), err)
	// Output: pr:generate a3e0c1d2-7b8f-4e59-8f6a-1c2d3e4f5a6b <nil>
}
