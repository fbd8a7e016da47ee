package mithubv1_test

import (
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	mithubv1 "github.com/mithub/mithub/pkg/gen/mithub/v1"
)

func samplePRGenerateTask() *mithubv1.PRGenerateTask {
	return &mithubv1.PRGenerateTask{
		MeetingId: "4f1c2b9e-0d55-4a43-9a0e-7d1b7f3c2a10",
		PrId:      "a3e0c1d2-7b8f-4e59-8f6a-1c2d3e4f5a6b",
		TenantId:  "dev",
		Snapshot: &mithubv1.TopicSnapshot{
			Topics: []*mithubv1.Topic{
				{
					Id:       "t-1",
					Seq:      0,
					Title:    "Release plan",
					Summary:  "Ship v2 on Friday after the load test.",
					Keywords: []string{"release", "load test"},
					StartSeq: 0,
					EndSeq:   24,
					StartMs:  0,
					EndMs:    181_500,
				},
				{
					Id:       "t-2",
					Seq:      1,
					Title:    "회의록 자동화",
					Summary:  "밋허브가 회의록 초안을 만든다.",
					Keywords: []string{"밋허브"},
					StartSeq: 25,
					EndSeq:   49,
					StartMs:  181_500,
					EndMs:    402_250,
				},
			},
			TakenAtUnixMs: 1_767_225_600_000,
			CursorSeq:     49,
		},
		LastTranscriptId: 9_007_199_254_740_993,
		RequestedBy:      "dev-key",
	}
}

func TestPRGenerateTaskRoundTrip(t *testing.T) {
	want := samplePRGenerateTask()

	b, err := proto.Marshal(want)
	if err != nil {
		t.Fatalf("marshal: %v", err)
	}
	got := &mithubv1.PRGenerateTask{}
	if err := proto.Unmarshal(b, got); err != nil {
		t.Fatalf("unmarshal: %v", err)
	}

	if !proto.Equal(want, got) {
		t.Fatalf("round trip changed the task:\nwant %v\ngot  %v", want, got)
	}
	if got.GetSnapshot().GetTopics()[1].GetTitle() != "회의록 자동화" {
		t.Errorf("topic title = %q, want %q", got.GetSnapshot().GetTopics()[1].GetTitle(), "회의록 자동화")
	}
	if got.GetLastTranscriptId() != 9_007_199_254_740_993 {
		t.Errorf("last_transcript_id = %d, want 9007199254740993", got.GetLastTranscriptId())
	}
}

func TestPRGenerateTaskZeroValueIsEmpty(t *testing.T) {
	b, err := proto.Marshal(&mithubv1.PRGenerateTask{})
	if err != nil {
		t.Fatalf("marshal: %v", err)
	}
	if len(b) != 0 {
		t.Fatalf("zero task encodes to %d bytes, want 0", len(b))
	}
}

// A newer producer may add fields that this binary does not know yet. They
// must survive decode → encode so that a re-enqueued task loses nothing.
func TestUnknownFieldsSurviveReencode(t *testing.T) {
	const (
		newTaskField  protowire.Number = 100 // e.g. a future PRGenerateTask.language
		newTopicField protowire.Number = 50  // e.g. a future Topic.speaker_ids
	)
	tests := []struct {
		name string
		give func(t *testing.T) []byte
		// Values of the new fields after decode → encode → decode.
		wantTaskField  string
		wantTopicField string
	}{
		{
			name: "top-level field",
			give: func(t *testing.T) []byte {
				b := mustMarshal(t, samplePRGenerateTask())
				b = protowire.AppendTag(b, newTaskField, protowire.BytesType)
				return protowire.AppendString(b, "ko-KR")
			},
			wantTaskField: "ko-KR",
		},
		{
			name: "field nested in a topic",
			give: func(t *testing.T) []byte {
				snap := mustMarshal(t, samplePRGenerateTask().GetSnapshot())
				topic := mustMarshal(t, &mithubv1.Topic{Id: "t-3", Seq: 2})
				topic = protowire.AppendTag(topic, newTopicField, protowire.BytesType)
				topic = protowire.AppendString(topic, "ko-KR")
				snap = protowire.AppendTag(snap, 1, protowire.BytesType) // TopicSnapshot.topics
				snap = protowire.AppendBytes(snap, topic)
				task := mustMarshal(t, &mithubv1.PRGenerateTask{MeetingId: "m-1", PrId: "pr-1"})
				task = protowire.AppendTag(task, 4, protowire.BytesType) // PRGenerateTask.snapshot
				return protowire.AppendBytes(task, snap)
			},
			wantTopicField: "ko-KR",
		},
	}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			decoded := &mithubv1.PRGenerateTask{}
			if err := proto.Unmarshal(tt.give(t), decoded); err != nil {
				t.Fatalf("unmarshal: %v", err)
			}
			reencoded := mustMarshal(t, decoded)

			again := &mithubv1.PRGenerateTask{}
			if err := proto.Unmarshal(reencoded, again); err != nil {
				t.Fatalf("unmarshal re-encoded: %v", err)
			}
			if !proto.Equal(decoded, again) {
				t.Fatalf("re-encode changed the task:\nwant %v\ngot  %v", decoded, again)
			}

			gotTask := stringField(t, again.ProtoReflect().GetUnknown(), newTaskField)
			topics := again.GetSnapshot().GetTopics()
			gotTopic := stringField(t, topics[len(topics)-1].ProtoReflect().GetUnknown(), newTopicField)
			if gotTask != tt.wantTaskField {
				t.Errorf("task field %d = %q, want %q", newTaskField, gotTask, tt.wantTaskField)
			}
			if gotTopic != tt.wantTopicField {
				t.Errorf("topic field %d = %q, want %q", newTopicField, gotTopic, tt.wantTopicField)
			}
		})
	}
}

func mustMarshal(t *testing.T, m proto.Message) []byte {
	t.Helper()
	b, err := proto.Marshal(m)
	if err != nil {
		t.Fatalf("marshal %T: %v", m, err)
	}
	return b
}

// stringField returns the value of the length-delimited field num in raw
// wire bytes, or "" when it is absent.
func stringField(t *testing.T, b []byte, num protowire.Number) string {
	t.Helper()
	for len(b) > 0 {
		n, typ, tagLen := protowire.ConsumeTag(b)
		if tagLen < 0 {
			t.Fatalf("bad tag: %v", protowire.ParseError(tagLen))
		}
		b = b[tagLen:]
		if n == num && typ == protowire.BytesType {
			v, vLen := protowire.ConsumeString(b)
			if vLen < 0 {
				t.Fatalf("bad field %d: %v", num, protowire.ParseError(vLen))
			}
			return v
		}
		fieldLen := protowire.ConsumeFieldValue(n, typ, b)
		if fieldLen < 0 {
			t.Fatalf("bad field %d: %v", n, protowire.ParseError(fieldLen))
		}
		b = b[fieldLen:]
	}
	return ""
}
