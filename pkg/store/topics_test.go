package store_test

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"math"
	mrand "math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/uuid"

	"github.com/mithub/mithub/pkg/store"
	"github.com/mithub/mithub/pkg/store/storetest"
)

// contractDim is the embedding dimension of the contract suite.
const contractDim = 8

// TestTopicsRealArray runs the topic contract on the Debian PostgreSQL,
// which has no pgvector: embeddings in real[], exact cosine in Go.
func TestTopicsRealArray(t *testing.T) {
	runTopicContract(t, func(t *testing.T) *store.Store {
		s := storetest.New(t)
		enabled, err := s.EnableVectors(context.Background(), contractDim)
		if err != nil {
			t.Fatal(err)
		}
		if enabled || s.VectorMode() != store.VectorModeRealArray {
			t.Fatalf("EnableVectors = %v, mode %q: the test database has pgvector; "+
				"point MITHUB_TEST_DATABASE_URL at a PostgreSQL without it to test the real[] path", enabled, s.VectorMode())
		}
		return s
	})
}

func TestEnableVectorsRejectsBadDimension(t *testing.T) {
	s := storetest.New(t)
	for _, dim := range []int{0, -1, store.MaxVectorDim + 1} {
		if _, err := s.EnableVectors(context.Background(), dim); !errors.Is(err, store.ErrInvalid) {
			t.Errorf("EnableVectors(%d): %v, want ErrInvalid", dim, err)
		}
	}
}

// TestTopicsPgvector runs the same contract on PGlite with pgvector. One
// server (booting it takes seconds) serves every subtest; the subtests
// keep apart by working in tenants of their own. Before that it checks
// switching an existing database to pgvector.
func TestTopicsPgvector(t *testing.T) {
	ctx := context.Background()
	dsn := storetest.StartPGlite(t)

	// Topics embedded while the store ran without pgvector...
	before := storetest.OpenPGlite(t, dsn)
	tn, m := topicMeeting(t, before)
	early := topic(0, "embedded before pgvector", unitVec(2))
	if err := before.ReplaceTopics(ctx, tn, m, []store.TopicRow{early}); err != nil {
		t.Fatal(err)
	}
	before.Close()

	// ...are found by pgvector search once it is enabled.
	s := storetest.OpenPGlite(t, dsn)
	for range 2 { // the second call finds everything in place
		enabled, err := s.EnableVectors(ctx, contractDim)
		if err != nil || !enabled {
			t.Fatalf("EnableVectors = %v, %v on PGlite", enabled, err)
		}
	}
	if got := s.VectorMode(); got != store.VectorModePgvector {
		t.Fatalf("VectorMode() = %q on PGlite, want %q", got, store.VectorModePgvector)
	}
	hits := search(t, s, tn, m, unitVec(2), 5, 0.5)
	assertIDs(t, hitIDs(hits), early.ID)

	_, err := s.EnableVectors(ctx, 2*contractDim)
	if !errors.Is(err, store.ErrConflict) ||
		!strings.Contains(err.Error(), fmt.Sprint(contractDim)) || !strings.Contains(err.Error(), fmt.Sprint(2*contractDim)) {
		t.Fatalf("EnableVectors with another dimension: %v; want ErrConflict naming %d and %d", err, contractDim, 2*contractDim)
	}
	if got := s.VectorMode(); got != store.VectorModePgvector {
		t.Fatalf("a failed EnableVectors changed the mode to %q", got)
	}

	t.Run("the HNSW index exists and serves the tenant query", func(t *testing.T) {
		hnswIndexServesTenantSearch(t, s)
	})

	runTopicContract(t, func(*testing.T) *store.Store { return s })
}

// hnswIndexServesTenantSearch checks that EnableVectors built the HNSW
// cosine index and that the tenant-wide nearest-neighbour query can use
// it: without it, every search scans and sorts all the tenant's topics.
func hnswIndexServesTenantSearch(t *testing.T, s *store.Store) {
	ctx := context.Background()
	const index = "topics_embedding_hnsw"
	def, err := s.TopicIndexDef(ctx, index)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(def, "USING hnsw (embedding_vec vector_cosine_ops)") {
		t.Fatalf("index %s: %q, want an HNSW index on embedding_vec with vector_cosine_ops", index, def)
	}
	rng := mrand.New(mrand.NewPCG(7, 8))
	for range 2 { // this tenant and another
		tn, m := topicMeeting(t, s)
		rows := make([]store.TopicRow, 20)
		for i := range rows {
			rows[i] = topic(i, fmt.Sprint("topic ", i), randVec(rng))
		}
		if err := s.ReplaceTopics(ctx, tn, m, rows); err != nil {
			t.Fatal(err)
		}
		plan, err := s.ExplainTenantTopicSearch(ctx, tn, randVec(rng), 5)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.ContainsFunc(plan, func(l string) bool { return strings.Contains(l, "Index Scan using "+index) }) {
			t.Fatalf("the tenant's nearest-neighbour query does not use %s:\n%s", index, strings.Join(plan, "\n"))
		}
	}
}

// runTopicContract is the behaviour every vector backend of the topics
// repository must show. newStore may hand several subtests the same store:
// each subtest creates its own tenants.
func runTopicContract(t *testing.T, newStore func(t *testing.T) *store.Store) {
	t.Run("replace and list round trip", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		ctx := context.Background()
		tn, m := topicMeeting(t, s)
		merged := newUUID()
		want := []store.TopicRow{
			{ID: newUUID(), Seq: 0, Title: "분기 예산 검토", Summary: "3분기 예산 초과분을 마케팅에서 충당하기로 했다.",
				Keywords: []string{"예산", "3분기", "마케팅"}, StartSeq: 0, EndSeq: 24, StartMS: 0, EndMS: 91000,
				Embedding: vec(1, 2, 3, 4, 5, 6, 7, 8), MergedFrom: []string{merged}, Version: 3},
			{ID: newUUID(), Seq: 1, Title: "Release plan", Summary: "Ship v2 on Friday; 배포는 금요일.",
				Keywords: []string{"release", "배포"}, StartSeq: 25, EndSeq: 40, StartMS: 91000, EndMS: 150500,
				Embedding: vec(-0.5, 0.25, 0, 1e-3, 7, -8, 0.125, 1), Version: 1},
			{ID: newUUID(), Seq: 2, Title: "잡담", Summary: "", StartSeq: 41, EndSeq: 41, StartMS: 150500, EndMS: 151000},
		}
		if err := s.ReplaceTopics(ctx, tn, m, want); err != nil {
			t.Fatal(err)
		}
		got, err := s.ListTopics(ctx, tn, m)
		if err != nil {
			t.Fatal(err)
		}
		// The store fills in the meeting, version 1 for 0, empty lists for
		// nil and the update time.
		want[1].MergedFrom = []string{}
		want[2].Keywords, want[2].MergedFrom, want[2].Version = []string{}, []string{}, 1
		assertTopics(t, got, want, m)

		// Writing the same list again rewrites nothing.
		if err := s.ReplaceTopics(ctx, tn, m, want); err != nil {
			t.Fatal(err)
		}
		again, err := s.ListTopics(ctx, tn, m)
		if err != nil {
			t.Fatal(err)
		}
		for i := range again {
			if !again[i].UpdatedAt.Equal(got[i].UpdatedAt) {
				t.Errorf("topic %d: unchanged row was rewritten (updated_at %v → %v)", i, got[i].UpdatedAt, again[i].UpdatedAt)
			}
		}
	})

	t.Run("replace shrinks and reorders without seq conflicts", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		ctx := context.Background()
		tn, m := topicMeeting(t, s)
		var first []store.TopicRow
		for i := range 5 {
			first = append(first, topic(i, fmt.Sprintf("topic %c", 'A'+i), unitVec(i)))
		}
		if err := s.ReplaceTopics(ctx, tn, m, first); err != nil {
			t.Fatal(err)
		}
		// E, C and A move to new seqs (E takes A's), B and D go, F is new.
		a, c, e := first[0], first[2], first[4]
		e.Seq, c.Seq, a.Seq = 0, 1, 2
		f := topic(3, "topic F", unitVec(5))
		second := []store.TopicRow{a, c, e, f} // input order is not seq order
		if err := s.ReplaceTopics(ctx, tn, m, second); err != nil {
			t.Fatal(err)
		}
		assertIDs(t, listIDs(t, s, tn, m), e.ID, c.ID, a.ID, f.ID)

		// A pairwise swap: every row takes a seq another row holds.
		e.Seq, c.Seq, a.Seq, f.Seq = 1, 0, 3, 2
		if err := s.ReplaceTopics(ctx, tn, m, []store.TopicRow{e, c, a, f}); err != nil {
			t.Fatal(err)
		}
		assertIDs(t, listIDs(t, s, tn, m), c.ID, e.ID, f.ID, a.ID)

		if err := s.ReplaceTopics(ctx, tn, m, nil); err != nil {
			t.Fatal(err)
		}
		assertIDs(t, listIDs(t, s, tn, m))
	})

	t.Run("concurrent replaces of one meeting", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		ctx := context.Background()
		tn, m := topicMeeting(t, s)
		var base []store.TopicRow
		for i := range 6 {
			base = append(base, topic(i, fmt.Sprint("t", i), unitVec(i)))
		}
		const writers, rounds = 4, 10
		errs := make(chan error, writers*rounds)
		var wg sync.WaitGroup
		for w := range writers {
			wg.Go(func() {
				rng := mrand.New(mrand.NewPCG(uint64(w), 3))
				for range rounds {
					// Every seq changes hands, and one topic may go or come back.
					list := slices.Clone(base)
					for i, p := range rng.Perm(len(list)) {
						list[i].Seq = p
					}
					if rng.IntN(2) == 0 {
						list = list[1:]
					}
					if err := s.ReplaceTopics(ctx, tn, m, list); err != nil {
						errs <- err
					}
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		ids := listIDs(t, s, tn, m)
		if len(ids) < len(base)-1 {
			t.Fatalf("%d topics left, want %d or %d", len(ids), len(base)-1, len(base))
		}
	})

	t.Run("missing embeddings stay NULL and are skipped by search", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		ctx := context.Background()
		tn, m := topicMeeting(t, s)
		embedded := topic(0, "embedded", unitVec(0))
		plain := topic(1, "not embedded", nil)
		empty := topic(2, "empty vector", []float32{})
		if err := s.ReplaceTopics(ctx, tn, m, []store.TopicRow{embedded, plain, empty}); err != nil {
			t.Fatal(err)
		}
		if n := nullEmbeddings(t, s, m); n != 2 {
			t.Fatalf("%d topics with NULL embeddings, want 2", n)
		}
		got, err := s.ListTopics(ctx, tn, m)
		if err != nil {
			t.Fatal(err)
		}
		if got[1].Embedding != nil || got[2].Embedding != nil {
			t.Fatalf("embeddings read back as %v and %v, want nil", got[1].Embedding, got[2].Embedding)
		}
		hits := search(t, s, tn, m, unitVec(1), 10, -1)
		assertIDs(t, hitIDs(hits), embedded.ID)

		// Embedding later, by id, makes the topic searchable; nil clears it.
		if err := s.SetTopicEmbeddings(ctx, tn, map[string][]float32{plain.ID: unitVec(1)}); err != nil {
			t.Fatal(err)
		}
		hits = search(t, s, tn, m, unitVec(1), 10, -1)
		assertIDs(t, hitIDs(hits), plain.ID, embedded.ID)
		if math.Abs(hits[0].Score-1) > 1e-6 {
			t.Fatalf("identical vectors score %v, want 1", hits[0].Score)
		}
		if err := s.SetTopicEmbeddings(ctx, tn, map[string][]float32{plain.ID: nil}); err != nil {
			t.Fatal(err)
		}
		if n := nullEmbeddings(t, s, m); n != 2 {
			t.Fatalf("%d topics with NULL embeddings after clearing, want 2", n)
		}
	})

	t.Run("search ranks by exact cosine similarity", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		ctx := context.Background()
		tn, m := topicMeeting(t, s)
		rng := mrand.New(mrand.NewPCG(7, 11))
		var topics []store.TopicRow
		for i := range 20 {
			topics = append(topics, topic(i, fmt.Sprint("t", i), randVec(rng)))
		}
		if err := s.ReplaceTopics(ctx, tn, m, topics); err != nil {
			t.Fatal(err)
		}
		query := randVec(rng)
		want := exactRanking(query, topics)

		hits := search(t, s, tn, m, query, 5, -1)
		assertRanking(t, hits, want[:5])

		// minScore keeps the hits scoring at least that much.
		cut := (want[2].Score + want[3].Score) / 2
		hits = search(t, s, tn, m, query, 5, cut)
		assertRanking(t, hits, want[:3])

		// k beyond the number of topics returns them all.
		hits = search(t, s, tn, m, query, 100, -1)
		assertRanking(t, hits, want)
	})

	t.Run("meeting scoped and tenant wide search", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		ctx := context.Background()
		tn, m1 := topicMeeting(t, s)
		m2 := addMeeting(t, s, tn)
		one := []store.TopicRow{topic(0, "m1 a", unitVec(0)), topic(1, "m1 b", vec(1, 1, 0, 0, 0, 0, 0, 0))}
		two := []store.TopicRow{topic(0, "m2 a", vec(0.9, 0.1, 0, 0, 0, 0, 0, 0)), topic(1, "m2 b", unitVec(7))}
		if err := s.ReplaceTopics(ctx, tn, m1, one); err != nil {
			t.Fatal(err)
		}
		if err := s.ReplaceTopics(ctx, tn, m2, two); err != nil {
			t.Fatal(err)
		}
		q := unitVec(0)
		hits := search(t, s, tn, m1, q, 10, 0.1)
		assertIDs(t, hitIDs(hits), one[0].ID, one[1].ID)
		for _, h := range hits {
			if h.MeetingID != m1 {
				t.Fatalf("meeting-scoped search returned a topic of %s", h.MeetingID)
			}
		}
		hits = search(t, s, tn, "", q, 10, 0.1)
		assertIDs(t, hitIDs(hits), one[0].ID, two[0].ID, one[1].ID)
		if hits[1].MeetingID != m2 {
			t.Fatalf("tenant-wide hit 1 is in meeting %s, want %s", hits[1].MeetingID, m2)
		}
	})

	t.Run("tenant isolation", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		ctx := context.Background()
		owner, m := topicMeeting(t, s)
		other, otherMeeting := topicMeeting(t, s)
		secret := topic(0, "비밀 계획", unitVec(0))
		if err := s.ReplaceTopics(ctx, owner, m, []store.TopicRow{secret}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.ListTopics(ctx, other, m); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("list another tenant's meeting: %v, want ErrNotFound", err)
		}
		if _, err := s.SearchTopics(ctx, other, m, unitVec(0), 5, -1); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("search another tenant's meeting: %v, want ErrNotFound", err)
		}
		if hits := search(t, s, other, "", unitVec(0), 5, -1); len(hits) != 0 {
			t.Fatalf("tenant-wide search sees another tenant's topics: %+v", hits)
		}
		if err := s.ReplaceTopics(ctx, other, m, nil); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("replace another tenant's topics: %v, want ErrNotFound", err)
		}
		if err := s.SetTopicEmbeddings(ctx, other, map[string][]float32{secret.ID: unitVec(3)}); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("embed another tenant's topic: %v, want ErrNotFound", err)
		}
		// A topic id cannot be moved into another meeting.
		if err := s.ReplaceTopics(ctx, other, otherMeeting, []store.TopicRow{secret}); !errors.Is(err, store.ErrConflict) {
			t.Fatalf("take another meeting's topic id: %v, want ErrConflict", err)
		}
		got, err := s.ListTopics(ctx, owner, m)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 1 || got[0].Title != secret.Title || !slices.Equal(got[0].Embedding, secret.Embedding) {
			t.Fatalf("owner's topics changed: %+v", got)
		}
	})

	t.Run("dimension mismatch is invalid", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		ctx := context.Background()
		tn, m := topicMeeting(t, s)
		tp := topic(0, "x", unitVec(0))
		if err := s.ReplaceTopics(ctx, tn, m, []store.TopicRow{tp}); err != nil {
			t.Fatal(err)
		}
		short := []float32{1, 2, 3}
		if _, err := s.SearchTopics(ctx, tn, m, short, 5, -1); !errors.Is(err, store.ErrInvalid) {
			t.Fatalf("search with a %d-dimensional query: %v, want ErrInvalid", len(short), err)
		}
		if _, err := s.SearchTopics(ctx, tn, "", short, 5, -1); !errors.Is(err, store.ErrInvalid) {
			t.Fatalf("tenant-wide search with a %d-dimensional query: %v, want ErrInvalid", len(short), err)
		}
		if err := s.ReplaceTopics(ctx, tn, m, []store.TopicRow{topic(0, "x", short)}); !errors.Is(err, store.ErrInvalid) {
			t.Fatalf("store a %d-dimensional embedding: %v, want ErrInvalid", len(short), err)
		}
		if err := s.SetTopicEmbeddings(ctx, tn, map[string][]float32{tp.ID: short}); !errors.Is(err, store.ErrInvalid) {
			t.Fatalf("set a %d-dimensional embedding: %v, want ErrInvalid", len(short), err)
		}
		got, err := s.ListTopics(ctx, tn, m)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 1 || !slices.Equal(got[0].Embedding, tp.Embedding) {
			t.Fatalf("rejected writes changed the topics: %+v", got)
		}
	})

	t.Run("bad vectors and k are invalid", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		ctx := context.Background()
		tn, m := topicMeeting(t, s)
		nan := unitVec(0)
		nan[3] = float32(math.NaN())
		tests := []struct {
			name     string
			query    []float32
			k        int
			minScore float64
		}{
			{"k zero", unitVec(0), 0, 0},
			{"k negative", unitVec(0), -1, 0},
			{"k too large", unitVec(0), store.MaxSearchK + 1, 0},
			{"nil query", nil, 5, 0},
			{"zero query", make([]float32, contractDim), 5, 0},
			{"NaN in query", nan, 5, 0},
			{"NaN min score", unitVec(0), 5, math.NaN()},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				_, err := s.SearchTopics(ctx, tn, m, tt.query, tt.k, tt.minScore)
				if !errors.Is(err, store.ErrInvalid) {
					t.Fatalf("got %v, want ErrInvalid", err)
				}
			})
		}
	})

	t.Run("invalid replacement changes nothing", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		ctx := context.Background()
		tn, m := topicMeeting(t, s)
		kept := topic(0, "kept", unitVec(0))
		if err := s.ReplaceTopics(ctx, tn, m, []store.TopicRow{kept}); err != nil {
			t.Fatal(err)
		}
		zero := topic(1, "zero vector", make([]float32, contractDim))
		dupID := topic(1, "same id", nil)
		dupID.ID = kept.ID
		badRange := topic(1, "ends before it starts", nil)
		badRange.StartSeq, badRange.EndSeq = 5, 4
		badID := topic(1, "bad id", nil)
		badID.ID = "not-a-uuid"
		badMerged := topic(1, "bad merged_from", nil)
		badMerged.MergedFrom = []string{"nope"}
		badText := topic(1, "nul \x00 in title", nil)
		negative := topic(1, "negative seq", nil)
		negative.Seq = -1
		tests := []struct {
			name string
			give []store.TopicRow
		}{
			{"zero embedding", []store.TopicRow{kept, zero}},
			{"duplicate id", []store.TopicRow{kept, dupID}},
			{"duplicate seq", []store.TopicRow{kept, topic(0, "same seq", nil)}},
			{"end before start", []store.TopicRow{badRange}},
			{"id not a uuid", []store.TopicRow{badID}},
			{"merged_from not a uuid", []store.TopicRow{badMerged}},
			{"NUL in text", []store.TopicRow{badText}},
			{"negative seq", []store.TopicRow{negative}},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				if err := s.ReplaceTopics(ctx, tn, m, tt.give); !errors.Is(err, store.ErrInvalid) {
					t.Fatalf("got %v, want ErrInvalid", err)
				}
			})
		}
		assertIDs(t, listIDs(t, s, tn, m), kept.ID)
		if _, err := s.ListTopics(ctx, tn, "not-a-uuid"); !errors.Is(err, store.ErrInvalid) {
			t.Fatalf("list with a malformed meeting id: %v, want ErrInvalid", err)
		}
	})

	t.Run("meeting without topics", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		ctx := context.Background()
		tn, m := topicMeeting(t, s)
		got, err := s.ListTopics(ctx, tn, m)
		if err != nil || len(got) != 0 {
			t.Fatalf("list: %v, %v; want no topics", got, err)
		}
		hits, err := s.SearchTopics(ctx, tn, m, unitVec(0), 5, -1)
		if err != nil || len(hits) != 0 {
			t.Fatalf("search: %v, %v; want no hits", hits, err)
		}
		if _, err := s.ListTopics(ctx, tn, newUUID()); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("list of an unknown meeting: %v, want ErrNotFound", err)
		}
	})
}

// topicMeeting creates a tenant of its own and a meeting in it.
func topicMeeting(t testing.TB, s *store.Store) (tenantID, meetingID string) {
	t.Helper()
	tn, err := s.EnsureTenant(context.Background(), "topics-"+newUUID())
	if err != nil {
		t.Fatal(err)
	}
	return tn.ID, addMeeting(t, s, tn.ID)
}

func addMeeting(t testing.TB, s *store.Store, tenantID string) string {
	t.Helper()
	m, err := s.CreateMeeting(context.Background(), tenantID, store.NewMeeting{Title: "회의", Language: "ko"})
	if err != nil {
		t.Fatal(err)
	}
	return m.ID
}

func newUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

func topic(seq int, title string, emb []float32) store.TopicRow {
	return store.TopicRow{ID: newUUID(), Seq: seq, Title: title, Summary: title + ".",
		Keywords: []string{title}, StartSeq: seq * 10, EndSeq: seq*10 + 9, StartMS: int64(seq) * 1000,
		EndMS: int64(seq)*1000 + 999, Embedding: emb, Version: 1}
}

func vec(xs ...float32) []float32 { return xs }

// unitVec is the i-th basis vector of the contract dimension.
func unitVec(i int) []float32 {
	v := make([]float32, contractDim)
	v[i] = 1
	return v
}

func randVec(rng *mrand.Rand) []float32 {
	return randVecDim(rng, contractDim)
}

func randVecDim(rng *mrand.Rand, dim int) []float32 {
	v := make([]float32, dim)
	for i := range v {
		v[i] = float32(rng.NormFloat64())
	}
	return v
}

func search(t *testing.T, s *store.Store, tenantID, meetingID string, q []float32, k int, minScore float64) []store.ScoredTopic {
	t.Helper()
	hits, err := s.SearchTopics(context.Background(), tenantID, meetingID, q, k, minScore)
	if err != nil {
		t.Fatal(err)
	}
	return hits
}

func listIDs(t *testing.T, s *store.Store, tenantID, meetingID string) []string {
	t.Helper()
	got, err := s.ListTopics(context.Background(), tenantID, meetingID)
	if err != nil {
		t.Fatal(err)
	}
	ids := make([]string, len(got))
	for i, tp := range got {
		if i > 0 && tp.Seq <= got[i-1].Seq {
			t.Fatalf("topics out of seq order: %d after %d", tp.Seq, got[i-1].Seq)
		}
		ids[i] = tp.ID
	}
	return ids
}

func hitIDs(hits []store.ScoredTopic) []string {
	ids := make([]string, len(hits))
	for i, h := range hits {
		ids[i] = h.ID
	}
	return ids
}

func assertIDs(t *testing.T, got []string, want ...string) {
	t.Helper()
	if len(got) == 0 && len(want) == 0 {
		return
	}
	if !slices.Equal(got, want) {
		t.Fatalf("ids %v, want %v", got, want)
	}
}

func assertTopics(t *testing.T, got, want []store.TopicRow, meetingID string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d topics, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i].UpdatedAt.IsZero() {
			t.Errorf("topic %d: no updated_at", i)
		}
		w := want[i]
		w.MeetingID, w.UpdatedAt = meetingID, got[i].UpdatedAt
		if !reflect.DeepEqual(got[i], w) {
			t.Errorf("topic %d:\n got %+v\nwant %+v", i, got[i], w)
		}
	}
}

// nullEmbeddings counts the meeting's topics without an embedding, in
// every column that holds one.
func nullEmbeddings(t *testing.T, s *store.Store, meetingID string) int {
	t.Helper()
	cond := `embedding IS NULL`
	if s.VectorMode() == store.VectorModePgvector {
		cond = `embedding IS NULL AND embedding_vec IS NULL`
	}
	var n int
	if err := s.Pool().QueryRow(context.Background(),
		`SELECT count(*) FROM topics WHERE meeting_id = $1 AND `+cond, meetingID).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// exactRanking scores every embedded topic in float64, best first.
func exactRanking(q []float32, topics []store.TopicRow) []store.ScoredTopic {
	var out []store.ScoredTopic
	for _, tp := range topics {
		if tp.Embedding == nil {
			continue
		}
		var dot, qq, vv float64
		for i := range q {
			a, b := float64(q[i]), float64(tp.Embedding[i])
			dot, qq, vv = dot+a*b, qq+a*a, vv+b*b
		}
		out = append(out, store.ScoredTopic{TopicRow: tp, Score: dot / math.Sqrt(qq*vv)})
	}
	slices.SortFunc(out, func(a, b store.ScoredTopic) int { return -cmpFloat(a.Score, b.Score) })
	return out
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func assertRanking(t *testing.T, got, want []store.ScoredTopic) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d hits, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i].ID != want[i].ID {
			t.Fatalf("hit %d is %q (%.6f), want %q (%.6f)", i, got[i].Title, got[i].Score, want[i].Title, want[i].Score)
		}
		// pgvector accumulates in float32; Go in float64.
		if math.Abs(got[i].Score-want[i].Score) > 1e-5 {
			t.Fatalf("hit %d scores %.9f, exact cosine is %.9f", i, got[i].Score, want[i].Score)
		}
		if !slices.Equal(got[i].Embedding, want[i].Embedding) {
			t.Fatalf("hit %d carries embedding %v, want %v", i, got[i].Embedding, want[i].Embedding)
		}
	}
}

// BenchmarkSearchTopicsRealArray measures exact search without pgvector:
// one meeting's 30 topics (the L1 cap), and a tenant with 10,000 topics in
// 200 meetings, searched whole and one meeting at a time; 256 dimensions.
func BenchmarkSearchTopicsRealArray(b *testing.B) {
	const dim = 256
	s := storetest.New(b)
	ctx := context.Background()
	if enabled, err := s.EnableVectors(ctx, dim); err != nil || enabled {
		b.Fatalf("EnableVectors = %v, %v; want the real[] mode", enabled, err)
	}
	rng := mrand.New(mrand.NewPCG(1, 2))
	// fill gives a new tenant meetings×perMeeting embedded topics.
	fill := func(name string, meetings, perMeeting int) (tenantID string, meetingIDs []string) {
		tn, err := s.EnsureTenant(ctx, name)
		if err != nil {
			b.Fatal(err)
		}
		for range meetings {
			m := addMeeting(b, s, tn.ID)
			topics := make([]store.TopicRow, perMeeting)
			for j := range topics {
				topics[j] = topic(j, fmt.Sprint("topic ", j), randVecDim(rng, dim))
			}
			if err := s.ReplaceTopics(ctx, tn.ID, m, topics); err != nil {
				b.Fatal(err)
			}
			meetingIDs = append(meetingIDs, m)
		}
		return tn.ID, meetingIDs
	}
	query := randVecDim(rng, dim)
	run := func(name, tenantID, meetingID string) {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				hits, err := s.SearchTopics(ctx, tenantID, meetingID, query, 5, -1)
				if err != nil || len(hits) != 5 {
					b.Fatalf("%d hits, %v", len(hits), err)
				}
			}
		})
	}
	smallTenant, small := fill("bench-small", 1, 30)
	run("meeting_of_30", smallTenant, small[0])
	largeTenant, large := fill("bench-large", 200, 50)
	// Plan with statistics, as autovacuum would have gathered by now.
	if _, err := s.Pool().Exec(ctx, `ANALYZE topics`); err != nil {
		b.Fatal(err)
	}
	run("tenant_of_10000", largeTenant, "")
	run("meeting_in_10000", largeTenant, large[0])
}

func TestSaveL1NeverGoesBackwards(t *testing.T) {
	s := storetest.New(t)
	ctx := context.Background()
	tn, err := s.EnsureTenant(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	m, err := s.CreateMeeting(ctx, tn.ID, store.NewMeeting{Title: "l1"})
	if err != nil {
		t.Fatal(err)
	}
	row := func(seq, start, end int) store.TopicRow {
		return store.TopicRow{ID: uuid.NewString(), Seq: seq, Title: "t", Summary: "s", StartSeq: start, EndSeq: end}
	}
	ahead := []store.TopicRow{row(0, 0, 30), row(1, 31, 49)}
	if err := s.SaveL1(ctx, tn.ID, m.ID, 49, ahead); err != nil {
		t.Fatal(err)
	}
	if err := s.SaveL1(ctx, tn.ID, m.ID, 24, []store.TopicRow{row(0, 0, 24)}); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("stale save: %v, want ErrConflict", err)
	}
	got, err := s.ListTopics(ctx, tn.ID, m.ID)
	if err != nil || len(got) != 2 || got[1].EndSeq != 49 {
		t.Fatalf("after stale save: %+v %v", got, err)
	}
	if err := s.SaveL1(ctx, tn.ID, m.ID, 49, []store.TopicRow{row(0, 0, 49)}); err != nil {
		t.Fatalf("same cursor after a merge: %v", err)
	}
}
