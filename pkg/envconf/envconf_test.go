package envconf_test

import (
	"strings"
	"testing"
	"time"

	"github.com/mithub/mithub/pkg/envconf"
)

func TestReaderDefaultsAndValues(t *testing.T) {
	r := envconf.FromMap(map[string]string{"A": "7", "D": "2m", "S": " x ", "L": "a, b,,c", "E": ""})
	if got := r.Int("A", 1, 0, 10); got != 7 {
		t.Errorf("Int = %d", got)
	}
	if got := r.Int("MISSING", 3, 0, 10); got != 3 {
		t.Errorf("default Int = %d", got)
	}
	if got := r.Duration("D", time.Second); got != 2*time.Minute {
		t.Errorf("Duration = %s", got)
	}
	if got := r.String("S", "d"); got != "x" {
		t.Errorf("String = %q", got)
	}
	if got := r.String("E", "d"); got != "d" {
		t.Errorf("empty String = %q, want default", got)
	}
	if got := r.List("L", nil); strings.Join(got, "|") != "a|b|c" {
		t.Errorf("List = %q", got)
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
}

func TestReaderNamesEveryBadVariable(t *testing.T) {
	r := envconf.FromMap(map[string]string{"N": "ten", "R": "99", "D": "soon", "M": "blue", "B": "maybe"})
	r.Int("N", 1, 0, 10)
	r.Int("R", 1, 0, 10)
	r.Duration("D", time.Second)
	r.OneOf("M", "red", "red", "green")
	r.Bool("B", false)
	err := r.Err()
	if err == nil {
		t.Fatal("no error")
	}
	for _, name := range []string{"N:", "R:", "D:", "M:", "B:"} {
		if !strings.Contains(err.Error(), name) {
			t.Errorf("error %q does not name %s", err, name)
		}
	}
}
