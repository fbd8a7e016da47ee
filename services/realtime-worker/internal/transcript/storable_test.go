package transcript

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mithub/mithub/pkg/store"
)

func TestStorableReplacesInvalidBytes(t *testing.T) {
	seg := Segment{ID: "s1", SpeakerID: "ali\xffce", Text: "언제 \xed\x95 출시해? what\x00 is it", Final: true}
	parts, r := Storable(seg)
	if len(parts) != 1 || r.Parts != 1 {
		t.Fatalf("got %d parts (%d), want 1", len(parts), r.Parts)
	}
	p := parts[0]
	// Each byte of a broken sequence is replaced, as utf8.DecodeRune reads it.
	if want := "언제 \uFFFD\uFFFD 출시해? what\uFFFD is it"; p.Text != want {
		t.Errorf("text = %q, want %q", p.Text, want)
	}
	if p.SpeakerID != "ali\uFFFDce" {
		t.Errorf("speaker = %q", p.SpeakerID)
	}
	if r.Replaced != 4 || !r.Changed() {
		t.Errorf("repairs = %+v, want 4 replaced", r)
	}
	if p.ID != "s1" {
		t.Errorf("id = %q, want s1 (not split)", p.ID)
	}
	if err := utterance(p).Validate(); err != nil {
		t.Errorf("repaired segment not storable: %v", err)
	}
}

func TestStorableLeavesGoodSegmentsAlone(t *testing.T) {
	seg := Segment{ID: "s1", SpeakerID: "bob", Text: "미트허브, 출시일이 언제야?", Final: true}
	parts, r := Storable(seg)
	if r.Changed() || len(parts) != 1 || parts[0] != seg {
		t.Fatalf("good segment changed: %+v %+v", parts, r)
	}
	exact := Segment{ID: "s2", SpeakerID: "bob", Text: strings.Repeat("a", MaxTextBytes)}
	if parts, r := Storable(exact); len(parts) != 1 || r.Changed() {
		t.Fatalf("text of exactly the limit was split into %d", len(parts))
	}
}

func TestStorableSplitsLongTextWithoutLosingAny(t *testing.T) {
	cases := map[string]string{
		"english words": strings.Repeat("the launch date moved again ", 1500),          // 42 000 bytes
		"korean words":  strings.Repeat("출시일이 다시 바뀌었습니다 ", 1200),                       // 3-byte runes
		"no whitespace": strings.Repeat("가", 15000),                                    // 45 000 bytes, one word
		"mixed":         strings.Repeat("x", 32767) + "한" + strings.Repeat(" y", 9000), // rune straddles the limit
	}
	for name, text := range cases {
		t.Run(name, func(t *testing.T) {
			seg := Segment{ID: "seg-7", SpeakerID: "carol", Text: text, Final: true, StartMS: 10, EndMS: 20}
			parts, r := Storable(seg)
			if len(parts) < 2 || r.Parts != len(parts) {
				t.Fatalf("got %d parts (repairs %+v), want a split", len(parts), r)
			}
			var joined strings.Builder
			for i, p := range parts {
				if want := "seg-7#" + string(rune('1'+i)); i < 9 && p.ID != want {
					t.Errorf("part %d id = %q, want %q", i, p.ID, want)
				}
				if len(p.Text) > MaxTextBytes || !utf8.ValidString(p.Text) {
					t.Errorf("part %d: %d bytes, valid=%v", i, len(p.Text), utf8.ValidString(p.Text))
				}
				if p.SpeakerID != "carol" || !p.Final || p.StartMS != 10 || p.EndMS != 20 {
					t.Errorf("part %d lost the segment's fields: %+v", i, p)
				}
				if err := utterance(p).Validate(); err != nil {
					t.Errorf("part %d not storable: %v", i, err)
				}
				joined.WriteString(p.Text)
			}
			if joined.String() != text {
				t.Errorf("parts joined differ from the text (%d vs %d bytes)", joined.Len(), len(text))
			}
			// Whitespace-separated text is cut after a space, not mid-word.
			if strings.HasSuffix(name, "words") && !strings.HasSuffix(parts[0].Text, " ") {
				t.Errorf("first part ends mid-word: %q", parts[0].Text[len(parts[0].Text)-20:])
			}
			again, _ := Storable(seg)
			for i := range again {
				if again[i].ID != parts[i].ID || again[i].Text != parts[i].Text {
					t.Fatalf("split is not deterministic at part %d", i)
				}
			}
		})
	}
}

func TestMaxTextBytesIsTheStoreLimit(t *testing.T) {
	if MaxTextBytes != store.MaxTextLen {
		t.Fatalf("MaxTextBytes %d, store limit %d", MaxTextBytes, store.MaxTextLen)
	}
}

func utterance(s Segment) store.Utterance {
	return store.Utterance{SegmentID: s.ID, SpeakerID: s.SpeakerID, SpeakerName: s.SpeakerName, Text: s.Text,
		StartMS: s.StartMS, EndMS: s.EndMS, Confidence: 1, Source: SourceTextStream}
}
