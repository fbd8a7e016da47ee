package mithubv1_test

import (
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"google.golang.org/protobuf/encoding/prototext"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"

	mithubv1 "github.com/mithub/mithub/pkg/gen/mithub/v1"
)

// v0File loads the descriptors of the first released message shapes
// (testdata/v0.proto, compiled into testdata/v0.binpb).
// They load once: dynamic messages are only equal when they share a
// descriptor.
func v0File(t *testing.T) protoreflect.FileDescriptor {
	t.Helper()
	fd, err := loadV0()
	if err != nil {
		t.Fatal(err)
	}
	return fd
}

var loadV0 = sync.OnceValues(func() (protoreflect.FileDescriptor, error) {
	b, err := os.ReadFile(filepath.Join("testdata", "v0.binpb"))
	if err != nil {
		return nil, err
	}
	var set descriptorpb.FileDescriptorSet
	if err := proto.Unmarshal(b, &set); err != nil {
		return nil, fmt.Errorf("decode v0.binpb: %w", err)
	}
	files, err := protodesc.NewFiles(&set)
	if err != nil {
		return nil, fmt.Errorf("build v0 descriptors: %w", err)
	}
	return files.FindFileByPath("v0.proto")
})

func v0Message(t *testing.T, name protoreflect.Name) *dynamicpb.Message {
	t.Helper()
	md := v0File(t).Messages().ByName(name)
	if md == nil {
		t.Fatalf("v0.proto has no message %s", name)
	}
	return dynamicpb.NewMessage(md)
}

// fixture reads a committed payload written by a v0 binary.
func fixture(t *testing.T, name string) []byte {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	b, err := hex.DecodeString(strings.Join(strings.Fields(string(raw)), ""))
	if err != nil {
		t.Fatalf("decode %s: %v", name, err)
	}
	return b
}

// The fixture really is the v0 encoding of its text form: the old
// message reads it back to the same content.
func TestV0FixturesMatchTheirText(t *testing.T) {
	tests := []struct {
		msg     protoreflect.Name
		payload string
		text    string
	}{
		{"PRGenerateTask", "prgenerate_v0.hex", "prgenerate_v0.txtpb"},
		{"PRDocument", "prdocument_v0.hex", "prdocument_v0.txtpb"},
	}
	for _, tt := range tests {
		t.Run(string(tt.msg), func(t *testing.T) {
			fromWire := v0Message(t, tt.msg)
			if err := proto.Unmarshal(fixture(t, tt.payload), fromWire); err != nil {
				t.Fatalf("v0 decode: %v", err)
			}
			txt, err := os.ReadFile(filepath.Join("testdata", tt.text))
			if err != nil {
				t.Fatal(err)
			}
			fromText := v0Message(t, tt.msg)
			if err := prototext.Unmarshal(txt, fromText); err != nil {
				t.Fatalf("parse %s: %v", tt.text, err)
			}
			if !proto.Equal(fromWire, fromText) {
				t.Fatalf("fixture and text differ:\nwire %v\ntext %v", fromWire, fromText)
			}
		})
	}
}

// A new binary reads a pr:generate payload that an old agent-api enqueued:
// every old field keeps its value, every new field is its zero value.
func TestPRGenerateTaskReadsV0Payload(t *testing.T) {
	got := &mithubv1.PRGenerateTask{}
	if err := proto.Unmarshal(fixture(t, "prgenerate_v0.hex"), got); err != nil {
		t.Fatalf("decode v0 payload: %v", err)
	}
	topics := got.GetSnapshot().GetTopics()
	checks := []struct {
		name string
		got  any
		want any
	}{
		{"meeting_id", got.GetMeetingId(), "4f1c2b9e-0d55-4a43-9a0e-7d1b7f3c2a10"},
		{"pr_id", got.GetPrId(), "a3e0c1d2-7b8f-4e59-8f6a-1c2d3e4f5a6b"},
		{"last_transcript_id", got.GetLastTranscriptId(), int64(9_007_199_254_740_993)},
		{"topics", len(topics), 2},
		{"topic 1 title", topics[1].GetTitle(), "회의록 자동화"},
		{"topic 1 span", [2]int32{topics[1].GetStartSeq(), topics[1].GetEndSeq()}, [2]int32{25, 49}},
		{"topic 0 keywords", strings.Join(topics[0].GetKeywords(), ","), "release,load test"},
		{"taken_at", got.GetSnapshot().GetTakenAtUnixMs(), int64(1_767_225_600_000)},
		// Added after v0: absent means zero.
		{"requested_by", got.GetRequestedBy(), ""},
		{"cursor_seq", got.GetSnapshot().GetCursorSeq(), int32(0)},
		{"topic end_ms", topics[0].GetEndMs(), int64(0)},
		{"unknown fields", len(got.ProtoReflect().GetUnknown()), 0},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
}

func TestPRDocumentReadsV0Payload(t *testing.T) {
	got := &mithubv1.PRDocument{}
	if err := proto.Unmarshal(fixture(t, "prdocument_v0.hex"), got); err != nil {
		t.Fatalf("decode v0 payload: %v", err)
	}
	checks := []struct {
		name string
		got  any
		want any
	}{
		{"title", got.GetTitle(), "Weekly sync: release plan"},
		{"agenda", len(got.GetAgenda()), 2},
		{"agenda 1", got.GetAgenda()[1].GetTitle(), "회의록 자동화"},
		{"decision speaker", got.GetDecisions()[0].GetSpeaker(), "Alice"},
		{"action owner", got.GetActionItems()[0].GetOwner(), "민수"},
		{"action due", got.GetActionItems()[0].GetDue(), "금요일"},
		{"markdown", got.GetMarkdown(), "# Weekly sync: release plan\n"},
		{"due_date", got.GetActionItems()[0].GetDueDate(), ""},
		{"open_questions", len(got.GetOpenQuestions()), 0},
		{"memory_updates", len(got.GetMemoryUpdates()), 0},
		{"provider", got.GetProvider(), ""},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
}

// An old binary reads what the current one writes: the fields it knows
// keep their values, the others are kept as unknown fields, and when the
// old binary re-encodes the message (a retry re-enqueue) nothing is lost.
func TestV0ReaderReadsCurrentPayloads(t *testing.T) {
	tests := []struct {
		name    string
		give    proto.Message
		v0      protoreflect.Name
		oldWant map[protoreflect.Name]string
	}{
		{
			name: "pr:generate task",
			give: samplePRGenerateTask(),
			v0:   "PRGenerateTask",
			oldWant: map[protoreflect.Name]string{
				"meeting_id": "4f1c2b9e-0d55-4a43-9a0e-7d1b7f3c2a10",
				"pr_id":      "a3e0c1d2-7b8f-4e59-8f6a-1c2d3e4f5a6b",
			},
		},
		{
			name: "PR document",
			give: &mithubv1.PRDocument{
				PrId: "pr-1", MeetingId: "m-1", Title: "주간 회의",
				Agenda:        []*mithubv1.AgendaItem{{Title: "예산", Keywords: []string{"예산"}, StartSeq: 3, EndSeq: 9, TopicId: "t-1"}},
				ActionItems:   []*mithubv1.ActionItem{{Text: "Send the deck", Owner: "Bob", Due: "Friday", DueDate: "2026-01-02"}},
				OpenQuestions: []*mithubv1.OpenQuestion{{Text: "Who pays?", Asker: "Ann"}},
				MemoryUpdates: []*mithubv1.MemoryUpdate{{Category: "03-decisions", Content: "- ship"}},
				Markdown:      "# 주간 회의\n", Provider: "local", GeneratedAtUnixMs: 1,
			},
			v0: "PRDocument",
			oldWant: map[protoreflect.Name]string{
				"title":    "주간 회의",
				"markdown": "# 주간 회의\n",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wire := mustMarshal(t, tt.give)
			old := v0Message(t, tt.v0)
			if err := proto.Unmarshal(wire, old); err != nil {
				t.Fatalf("v0 decode: %v", err)
			}
			for field, want := range tt.oldWant {
				fd := old.Descriptor().Fields().ByName(field)
				if got := old.Get(fd).String(); got != want {
					t.Errorf("v0 %s = %q, want %q", field, got, want)
				}
			}
			reencoded, err := proto.MarshalOptions{Deterministic: true}.Marshal(old)
			if err != nil {
				t.Fatalf("v0 encode: %v", err)
			}
			back := tt.give.ProtoReflect().New().Interface()
			if err := proto.Unmarshal(reencoded, back); err != nil {
				t.Fatalf("decode v0 re-encoding: %v", err)
			}
			if !proto.Equal(back, tt.give) {
				t.Fatalf("v0 decode → encode lost data:\nwant %v\ngot  %v", tt.give, back)
			}
		})
	}
}
