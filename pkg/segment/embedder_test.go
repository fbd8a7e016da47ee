package segment_test

import (
	"context"
	"errors"
	"hash/fnv"
	"math"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/mithub/mithub/pkg/segment"
)

func dot(a, b []float32) float64 {
	s := 0.0
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

func embedOne(t *testing.T, e *segment.Embedder, text string) []float32 {
	t.Helper()
	vs, err := e.Embed(context.Background(), []string{text})
	if err != nil {
		t.Fatalf("Embed(%q): %v", text, err)
	}
	return vs[0]
}

func TestEmbedderUnitVectors(t *testing.T) {
	for _, dim := range []int{64, 256, 1024} {
		e := segment.NewEmbedder(dim)
		if e.Dimension() != dim {
			t.Fatalf("Dimension() = %d, want %d", e.Dimension(), dim)
		}
		texts := []string{
			"The remote control needs a bigger battery .",
			"배터리 수명이 너무 짧아서 교체해야 합니다",
			"Yeah , OK .", // stop words only: still a vector
			"네",
			"Q3",
		}
		vs, err := e.Embed(context.Background(), texts)
		if err != nil {
			t.Fatal(err)
		}
		for i, v := range vs {
			if len(v) != dim {
				t.Fatalf("text %d: length %d, want %d", i, len(v), dim)
			}
			if n := math.Sqrt(dot(v, v)); math.Abs(n-1) > 1e-5 {
				t.Errorf("dim %d text %d: norm %v, want 1", dim, i, n)
			}
		}
	}
	if got := segment.NewEmbedder(0).Dimension(); got != segment.DefaultDimension {
		t.Errorf("NewEmbedder(0).Dimension() = %d, want %d", got, segment.DefaultDimension)
	}
}

func TestEmbedderDeterministic(t *testing.T) {
	text := "We decided to use a rubber case and a kinetic battery . 고무 케이스로 결정했습니다"
	a := embedOne(t, segment.NewEmbedder(256), text)
	b := embedOne(t, segment.NewEmbedder(256), text)
	if !reflect.DeepEqual(a, b) {
		t.Fatal("two embedders disagree on the same text")
	}
}

func TestEmbedderSimilarity(t *testing.T) {
	e := segment.NewEmbedder(256)
	tests := []struct {
		name            string
		text, near, far string
	}{
		{
			name: "english",
			text: "The remote control needs a bigger battery .",
			near: "How long does the battery of the remote last ?",
			far:  "Let's order pizza for lunch on Friday .",
		},
		{
			name: "korean",
			text: "리모컨 배터리 수명이 너무 짧아요",
			near: "배터리를 더 큰 걸로 바꾸면 리모컨이 무거워집니다",
			far:  "금요일 점심 메뉴는 피자로 정했어요",
		},
		{
			name: "inflection",
			text: "designing the buttons",
			near: "button design",
			far:  "budget approval",
		},
		{
			name: "particles",
			text: "회의에서 예산을 논의했습니다",
			near: "예산 회의",
			far:  "디자인 리뷰",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := embedOne(t, e, tt.text)
			near, far := dot(v, embedOne(t, e, tt.near)), dot(v, embedOne(t, e, tt.far))
			if near <= far+0.1 {
				t.Errorf("cos(near) = %.3f, cos(far) = %.3f; want near clearly above far", near, far)
			}
		})
	}
}

func TestEmbedderRejectsFeaturelessText(t *testing.T) {
	e := segment.NewEmbedder(128)
	for _, text := range []string{"", "   ", "{disfmarker}", "... ?!", "{vocalsound} ,"} {
		vs, err := e.Embed(context.Background(), []string{"battery", text})
		if !errors.Is(err, segment.ErrNoFeatures) || vs != nil {
			t.Errorf("Embed(%q) = %v, %v; want ErrNoFeatures and no vectors", text, vs, err)
		}
		if err != nil && !strings.Contains(err.Error(), "text 1") {
			t.Errorf("error %q does not name text 1", err)
		}
	}
}

func TestEmbedderContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := segment.NewEmbedder(64).Embed(ctx, []string{"battery"}); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}

func TestEmbedderConcurrent(t *testing.T) {
	e := segment.NewEmbedder(256)
	want := embedOne(t, e, "remote control battery")
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 50 {
				vs, err := e.Embed(context.Background(), []string{"remote control battery"})
				if err != nil || !reflect.DeepEqual(vs[0], want) {
					t.Error("concurrent Embed differs")
					return
				}
			}
		})
	}
	wg.Wait()
}

func TestFNV1a(t *testing.T) {
	// The feature hash is standard FNV-1a over the kind byte and the term.
	h := fnv.New64a()
	h.Write([]byte{1})
	h.Write([]byte("battery"))
	if got := segment.HashTerm(1, "battery"); got != h.Sum64() {
		t.Errorf("hash = %x, want FNV-1a %x", got, h.Sum64())
	}
}

// TestEmbedderGolden pins the vector of one text: stored embeddings stay
// comparable only while the features and the hashing do not change, so a
// change here means existing topic embeddings must be recomputed.
func TestEmbedderGolden(t *testing.T) {
	v := embedOne(t, segment.NewEmbedder(256), "The remote control needs a bigger battery . 리모컨 배터리를 바꿔요")
	got := make(map[int]float32)
	for i, x := range v {
		if math.Abs(float64(x)) > 0.2 {
			got[i] = float32(math.Round(float64(x)*1e4) / 1e4)
		}
	}
	want := map[int]float32{
		49: 0.2973, 73: 0.223, 93: -0.2973, 98: 0.2081, 140: 0.2081,
		156: -0.2973, 186: -0.2081, 199: 0.3716, 202: 0.2973, 243: 0.2081,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("components above 0.2 = %v, want %v", got, want)
	}
}
