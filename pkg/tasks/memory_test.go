package tasks_test

import (
	"errors"
	"testing"

	"github.com/mithub/mithub/pkg/tasks"
)

func TestMemoryTasks(t *testing.T) {
	p := tasks.MemoryPayload{TenantID: "t", ConversationID: "c", Epoch: 7, TargetTokens: 100, Level: 1, Seq: 3, ChildIDs: []int64{4, 5}}
	task, err := tasks.NewMemoryTask(p)
	if err != nil {
		t.Fatal(err)
	}
	if task.Type() != tasks.TypeMemorySummarize {
		t.Errorf("level 1 task type %s", task.Type())
	}
	got, err := tasks.ParseMemoryPayload(task.Payload())
	if err != nil || got.Seq != 3 || len(got.ChildIDs) != 2 || got.Epoch != 7 {
		t.Errorf("round trip: %+v %v", got, err)
	}
	p.Level = 2
	if task, _ := tasks.NewMemoryTask(p); task.Type() != tasks.TypeMemoryMerge {
		t.Errorf("level 2 task type %s", task.Type())
	}
	if tasks.MemoryTaskID(p) == tasks.MemoryTaskID(tasks.MemoryPayload{ConversationID: "c", Epoch: 8, Level: 2, Seq: 3}) {
		t.Error("task ids of two runs collide")
	}
}

func TestMemoryPayloadValidation(t *testing.T) {
	tests := []struct {
		name string
		give string
	}{
		{"not json", "{"},
		{"no tenant", `{"conversation_id":"c","level":1,"child_ids":[1],"target_tokens":1}`},
		{"level 0", `{"tenant_id":"t","conversation_id":"c","level":0,"child_ids":[1],"target_tokens":1}`},
		{"negative seq", `{"tenant_id":"t","conversation_id":"c","level":1,"seq":-1,"child_ids":[1],"target_tokens":1}`},
		{"no children", `{"tenant_id":"t","conversation_id":"c","level":1,"target_tokens":1}`},
		{"no target", `{"tenant_id":"t","conversation_id":"c","level":1,"child_ids":[1]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := tasks.ParseMemoryPayload([]byte(tt.give)); !errors.Is(err, tasks.ErrBadMemoryPayload) {
				t.Errorf("err = %v, want ErrBadMemoryPayload", err)
			}
		})
	}
}
