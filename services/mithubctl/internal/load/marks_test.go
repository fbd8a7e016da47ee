package load

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestParseMarks(t *testing.T) {
	f, ok, err := ParseMarks(strings.NewReader("# postgres\nfault_start 1700000000000\nnoise\nfault_end 1700000005500\n"))
	if err != nil || !ok || f.End.Sub(f.Start) != 5500*time.Millisecond {
		t.Fatalf("got %+v, %v, %v", f, ok, err)
	}
	if _, ok, err := ParseMarks(strings.NewReader("fault_start 1\n")); ok || err != nil {
		t.Fatalf("half a window: ok %v, err %v", ok, err)
	}
	if _, _, err := ParseMarks(strings.NewReader("fault_start 10\nfault_end 5\n")); err == nil {
		t.Fatal("end before start: no error")
	}
	if _, _, err := ParseMarks(strings.NewReader("fault_start soon\n")); err == nil {
		t.Fatal("bad number: no error")
	}
}

func TestRecoveryOf(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 0)
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	down := errors.New("connection refused")
	f := Fault{Start: at(10), End: at(15)}
	rs := []Result{
		{Start: at(8), End: at(9), Err: down},      // before the fault: not counted
		{Start: at(9.9), End: at(10.2), Err: down}, // in flight when it began
		{Start: at(12), End: at(12.1), Err: down},
		{Start: at(14), End: at(14.5)},              // success before the end does not count as recovery
		{Start: at(15.1), End: at(15.2), Err: down}, // still failing after the restart
		{Start: at(16), End: at(16.75)},             // first success after the end
		{Start: at(17), End: at(17.1), Err: down},   // after the recovery: not counted
	}
	got := RecoveryOf(EPUtterances, rs, f)
	if !got.Recovered || got.FirstOK != 1750*time.Millisecond || got.Errors != 3 || got.LastError != 200*time.Millisecond {
		t.Fatalf("got %+v", got)
	}
	if got := RecoveryOf(EPAsk, rs[:5], f); got.Recovered {
		t.Fatalf("no success after the end, got %+v", got)
	}
}
