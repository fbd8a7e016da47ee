package load

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"
)

// Fault is the window of an injected fault: Start when it began, End when
// the faulty part was started again (or the fault switched off).
type Fault struct {
	Start, End time.Time
}

// ParseMarks reads lines "fault_start <unix ms>" and "fault_end <unix ms>";
// other lines are ignored. ok is false unless both are present.
func ParseMarks(r io.Reader) (f Fault, ok bool, err error) {
	var haveStart, haveEnd bool
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) != 2 || (fields[0] != "fault_start" && fields[0] != "fault_end") {
			continue
		}
		ms, err := strconv.ParseInt(fields[1], 10, 64)
		if err != nil {
			return Fault{}, false, fmt.Errorf("marks: %q: %w", sc.Text(), err)
		}
		if fields[0] == "fault_start" {
			f.Start, haveStart = time.UnixMilli(ms), true
		} else {
			f.End, haveEnd = time.UnixMilli(ms), true
		}
	}
	if err := sc.Err(); err != nil {
		return Fault{}, false, err
	}
	if haveStart && haveEnd && f.End.Before(f.Start) {
		return Fault{}, false, fmt.Errorf("marks: fault_end before fault_start")
	}
	return f, haveStart && haveEnd, nil
}

func readMarks(path string) (Fault, bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return Fault{}, false, err
	}
	defer f.Close()
	return ParseMarks(f)
}

// Recovery is how one endpoint fared around a fault.
type Recovery struct {
	Endpoint string
	// Errors counts failed requests that ended after the fault's start
	// and started before the first success after its end.
	Errors int
	// FirstOK is the time from the fault's end to the end of the first
	// successful request finishing after it; Recovered is false when none
	// did.
	FirstOK   time.Duration
	Recovered bool
	// LastError is the end of the last failed request, relative to the
	// fault's end (negative: before it).
	LastError time.Duration
}

// RecoveryOf measures results of one endpoint around f.
func RecoveryOf(endpoint string, rs []Result, f Fault) Recovery {
	rec := Recovery{Endpoint: endpoint}
	var first time.Time
	for _, r := range rs {
		if r.Err == nil && !r.End.Before(f.End) && (first.IsZero() || r.End.Before(first)) {
			first = r.End
		}
	}
	if !first.IsZero() {
		rec.FirstOK, rec.Recovered = first.Sub(f.End), true
	}
	for _, r := range rs {
		if r.Err == nil || r.End.Before(f.Start) || (!first.IsZero() && r.Start.After(first)) {
			continue
		}
		rec.Errors++
		if d := r.End.Sub(f.End); rec.Errors == 1 || d > rec.LastError {
			rec.LastError = d
		}
	}
	return rec
}
