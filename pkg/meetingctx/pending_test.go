package meetingctx

import (
	"fmt"
	"testing"
)

func turnsFrom(n, capacity int) []Turn {
	ts := make([]Turn, n, capacity)
	for i := range ts {
		ts[i] = Turn{Seq: i, Text: fmt.Sprintf("발언 %d: the budget review", i)}
	}
	return ts
}

// A segmented backlog does not keep its array: what is left moves to a
// small one, and nothing left is no array at all.
func TestDropFrontReleasesABacklogsArray(t *testing.T) {
	backlog := turnsFrom(1000, 1024)
	rest := dropFront(backlog, 990, DefaultChunkTurns)
	if len(rest) != 10 || rest[0].Seq != 990 || rest[9].Seq != 999 {
		t.Fatalf("rest has %d turns from seq %d", len(rest), rest[0].Seq)
	}
	if cap(rest) > 2*DefaultChunkTurns {
		t.Fatalf("rest kept capacity %d", cap(rest))
	}
	rest[0].Text = "changed"
	if backlog[990].Text == "changed" {
		t.Fatal("rest still shares the backlog's array")
	}
	if got := dropFront(backlog, 1000, DefaultChunkTurns); got != nil {
		t.Fatalf("an emptied backlog kept an array of capacity %d", cap(got))
	}
}

// A buffer of the usual size is resliced in place, without a copy.
func TestDropFrontKeepsASmallArray(t *testing.T) {
	buf := turnsFrom(30, 40)
	rest := dropFront(buf, 25, DefaultChunkTurns)
	if len(rest) != 5 || rest[0].Seq != 25 {
		t.Fatalf("rest has %d turns from seq %d", len(rest), rest[0].Seq)
	}
	if &rest[0] != &buf[25] {
		t.Fatal("a small buffer was copied")
	}
}
