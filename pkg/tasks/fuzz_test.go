package tasks_test

import (
	"errors"
	"reflect"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/mithub/mithub/pkg/tasks"
)

// FuzzParsePayloads decodes fuzzed task payloads with every parser. A
// rejected payload wraps the parser's sentinel; an accepted one builds a
// task again whose payload parses to the same value.
func FuzzParsePayloads(f *testing.F) {
	f.Fuzz(func(t *testing.T, kind uint8, payload []byte) {
		switch kind % 4 {
		case 0:
			p, err := tasks.ParsePRGenerateTask(payload)
			if err != nil {
				mustWrap(t, err, tasks.ErrInvalidPayload)
				return
			}
			task, err := tasks.NewPRGenerateTask(p)
			if err != nil {
				t.Fatalf("NewPRGenerateTask(%v): %v", p, err)
			}
			again, err := tasks.ParsePRGenerateTask(task.Payload())
			if err != nil || !proto.Equal(p, again) {
				t.Fatalf("round trip: %v, %v != %v", err, again, p)
			}
		case 1:
			p, err := tasks.ParseBotJoinTask(payload)
			if err != nil {
				mustWrap(t, err, tasks.ErrInvalidPayload)
				return
			}
			task, err := tasks.NewBotJoinTask(p)
			if err != nil {
				t.Fatalf("NewBotJoinTask(%v): %v", p, err)
			}
			again, err := tasks.ParseBotJoinTask(task.Payload())
			if err != nil || !proto.Equal(p, again) {
				t.Fatalf("round trip: %v, %v != %v", err, again, p)
			}
		case 2:
			p, err := tasks.ParseMemoryBankUpdateTask(payload)
			if err != nil {
				mustWrap(t, err, tasks.ErrInvalidPayload)
				return
			}
			task, err := tasks.NewMemoryBankUpdateTask(p)
			if err != nil {
				t.Fatalf("NewMemoryBankUpdateTask(%v): %v", p, err)
			}
			again, err := tasks.ParseMemoryBankUpdateTask(task.Payload())
			if err != nil || !proto.Equal(p, again) {
				t.Fatalf("round trip: %v, %v != %v", err, again, p)
			}
		default:
			p, err := tasks.ParseMemoryPayload(payload)
			if err != nil {
				mustWrap(t, err, tasks.ErrBadMemoryPayload)
				return
			}
			task, err := tasks.NewMemoryTask(p)
			if err != nil {
				t.Fatalf("NewMemoryTask(%+v): %v", p, err)
			}
			again, err := tasks.ParseMemoryPayload(task.Payload())
			if err != nil || !reflect.DeepEqual(p, again) {
				t.Fatalf("round trip: %v, %+v != %+v", err, again, p)
			}
		}
	})
}

func mustWrap(t *testing.T, err, sentinel error) {
	t.Helper()
	if !errors.Is(err, sentinel) {
		t.Fatalf("error %v does not wrap %v", err, sentinel)
	}
}
