package store

import (
	"container/heap"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/pgvector/pgvector-go"
)

// Vector modes reported by VectorMode.
const (
	// VectorModePgvector: topics also carry embedding_vec vector(D) with an
	// HNSW cosine index, and search runs in the database.
	VectorModePgvector = "pgvector"
	// VectorModeRealArray: embeddings live only in the real[] column and
	// search computes exact cosine similarity in Go.
	VectorModeRealArray = "real[]"
)

const (
	// MaxVectorDim is the largest embedding dimension pgvector's vector
	// type holds.
	MaxVectorDim = 16000
	// maxHNSWDim is the largest dimension an HNSW index on vector accepts;
	// above it the column is still used, with exact scans.
	maxHNSWDim = 2000
)

// vectorConfig is what EnableVectors learned about the database.
type vectorConfig struct {
	mode string
	// dim is the configured embedding dimension; 0 until EnableVectors ran,
	// and then any dimension is accepted on write.
	dim int
	// iterativeScan: pgvector ≥ 0.8 can keep scanning an HNSW index until
	// enough rows pass the query's filters (hnsw.iterative_scan).
	iterativeScan bool
}

func (s *Store) vectors() vectorConfig {
	s.vecMu.RLock()
	defer s.vecMu.RUnlock()
	if s.vec.mode == "" {
		return vectorConfig{mode: VectorModeRealArray}
	}
	return s.vec
}

func (s *Store) setVectors(c vectorConfig) {
	s.vecMu.Lock()
	defer s.vecMu.Unlock()
	s.vec = c
}

// VectorMode reports how topic embeddings are stored and searched:
// VectorModePgvector or VectorModeRealArray. It is VectorModeRealArray
// until EnableVectors has switched pgvector on.
func (s *Store) VectorMode() string {
	return s.vectors().mode
}

// migrateLockKey is the advisory lock Migrate holds; schema changes made by
// EnableVectors take the same lock, so they never interleave with a
// migration or with another replica's EnableVectors.
const migrateLockKey = `hashtextextended('mithub.migrate.' || current_schema(), 0)`

// EnableVectors prepares topic embeddings of dimension dim. Call it after
// Migrate, on every replica, before writing topics.
//
// When CREATE EXTENSION vector succeeds (or the extension is already
// installed), topics get an embedding_vec vector(dim) column, filled from
// the real[] column for rows already embedded, and an HNSW cosine index;
// the Store then writes both columns and searches in the database, and it
// reports true. When the extension is not available (not installed on the
// server, or the role may not create it) nothing changes in the database,
// the Store keeps exact search over real[] in Go, and it reports false.
// Either way dim becomes the dimension every embedding must have.
//
// An embedding_vec column of another dimension is an error naming both:
// the stored vectors must be dropped or re-embedded to switch.
func (s *Store) EnableVectors(ctx context.Context, dim int) (bool, error) {
	if dim <= 0 || dim > MaxVectorDim {
		return false, fmt.Errorf("%w: embedding dimension %d is outside 1..%d", ErrInvalid, dim, MaxVectorDim)
	}
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return false, fmt.Errorf("acquire connection: %w", err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock(`+migrateLockKey+`)`); err != nil {
		return false, fmt.Errorf("take migration lock: %w", err)
	}
	defer func() {
		_, _ = conn.Exec(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock(`+migrateLockKey+`)`)
	}()

	cfg := vectorConfig{mode: VectorModeRealArray, dim: dim}
	err = pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		ok, err := createVectorExtension(ctx, tx)
		if err != nil || !ok {
			return err
		}
		if cfg.iterativeScan, err = prepareVectorColumn(ctx, tx, dim); err != nil {
			return err
		}
		cfg.mode = VectorModePgvector
		return nil
	})
	if err != nil {
		return false, fmt.Errorf("enable vectors: %w", err)
	}
	s.setVectors(cfg)
	return cfg.mode == VectorModePgvector, nil
}

// createVectorExtension runs CREATE EXTENSION inside a savepoint, so that a
// server without pgvector leaves the transaction usable and unchanged.
func createVectorExtension(ctx context.Context, tx pgx.Tx) (bool, error) {
	sp, err := tx.Begin(ctx)
	if err != nil {
		return false, err
	}
	if _, err := sp.Exec(ctx, `CREATE EXTENSION IF NOT EXISTS vector`); err != nil {
		if rbErr := sp.Rollback(ctx); rbErr != nil {
			return false, rbErr
		}
		if extensionUnavailable(err) {
			return false, nil
		}
		return false, fmt.Errorf("create extension vector: %w", err)
	}
	return true, sp.Commit(ctx)
}

// extensionUnavailable tells "this server cannot have pgvector" apart from
// real failures.
func extensionUnavailable(err error) bool {
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) {
		return false
	}
	switch pgErr.Code {
	case "0A000", // feature_not_supported: extension "vector" is not available (PG 15+)
		"58P01", // undefined_file: no control file (older servers)
		"42501": // insufficient_privilege: not installed and we may not install it
		return true
	}
	return false
}

// prepareVectorColumn adds embedding_vec and its index when missing, fills
// it for rows embedded before, and reports whether the installed pgvector
// supports iterative index scans.
func prepareVectorColumn(ctx context.Context, tx pgx.Tx, dim int) (bool, error) {
	var (
		typ    string
		typmod int
	)
	err := tx.QueryRow(ctx, `
		SELECT format_type(a.atttypid, NULL), a.atttypmod
		FROM pg_attribute a
		WHERE a.attrelid = 'topics'::regclass AND a.attname = 'embedding_vec' AND NOT a.attisdropped`).Scan(&typ, &typmod)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		if _, err := tx.Exec(ctx, `ALTER TABLE topics ADD COLUMN embedding_vec vector(`+strconv.Itoa(dim)+`)`); err != nil {
			return false, fmt.Errorf("add topics.embedding_vec: %w", err)
		}
	case err != nil:
		return false, fmt.Errorf("inspect topics.embedding_vec: %w", err)
	case !strings.HasSuffix(typ, "vector") || typmod != dim:
		have := "no fixed dimension"
		if typmod > 0 {
			have = "dimension " + strconv.Itoa(typmod)
		}
		return false, fmt.Errorf("%w: topics.embedding_vec (%s) has %s, but the embedding dimension is %d; drop the column or re-embed to change dimensions",
			ErrConflict, typ, have, dim)
	}
	if _, err := tx.Exec(ctx, `
		UPDATE topics SET embedding_vec = embedding::vector
		WHERE embedding_vec IS NULL AND embedding IS NOT NULL AND cardinality(embedding) = $1`, dim); err != nil {
		return false, fmt.Errorf("fill topics.embedding_vec: %w", err)
	}
	if dim <= maxHNSWDim {
		if _, err := tx.Exec(ctx, `CREATE INDEX IF NOT EXISTS topics_embedding_hnsw
			ON topics USING hnsw (embedding_vec vector_cosine_ops)`); err != nil {
			return false, fmt.Errorf("create topics_embedding_hnsw: %w", err)
		}
	}
	var version string
	if err := tx.QueryRow(ctx, `SELECT extversion FROM pg_extension WHERE extname = 'vector'`).Scan(&version); err != nil {
		return false, fmt.Errorf("read pgvector version: %w", err)
	}
	return versionAtLeast(version, 0, 8), nil
}

// versionAtLeast compares a "major.minor[.patch]" version.
func versionAtLeast(v string, major, minor int) bool {
	parts := strings.SplitN(v, ".", 3)
	if len(parts) < 2 {
		return false
	}
	ma, err1 := strconv.Atoi(parts[0])
	mi, err2 := strconv.Atoi(parts[1])
	if err1 != nil || err2 != nil {
		return false
	}
	return ma > major || ma == major && mi >= minor
}

// checkVector reports why v cannot be stored or searched with: wrong
// dimension (when dim is known), a non-finite component, or the zero
// vector, whose cosine similarity is undefined.
func checkVector(v []float32, dim int) error {
	if dim > 0 && len(v) != dim {
		return fmt.Errorf("%w: vector has %d dimensions, want %d", ErrInvalid, len(v), dim)
	}
	if len(v) > MaxVectorDim {
		return fmt.Errorf("%w: vector has %d dimensions, at most %d are supported", ErrInvalid, len(v), MaxVectorDim)
	}
	zero := true
	for _, x := range v {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return fmt.Errorf("%w: vector has a non-finite component", ErrInvalid)
		}
		if x != 0 {
			zero = false
		}
	}
	if zero {
		return fmt.Errorf("%w: zero vector (store no embedding instead)", ErrInvalid)
	}
	return nil
}

// searchPgvector lets the database rank by cosine distance, in one round
// trip. The query is sent in pgvector's text form ('[1,2,3]', from
// pgvector-go's Vector, a driver.Valuer) and cast to vector in SQL: pgx
// sends values of types it has not registered as text, so no per-connection
// type registration (an AfterConnect hook that would have to know whether
// the extension exists) is needed. The batch is one implicit transaction,
// so the transaction-local settings hold for the query and vanish after:
// ef_search at least k, else HNSW returns at most ef_search rows, and,
// where pgvector supports it, an iterative scan, so the tenant and meeting
// filters do not starve the result.
func (s *Store) searchPgvector(ctx context.Context, vc vectorConfig, tenantID, meetingID string, query []float32, k int) ([]ScoredTopic, error) {
	args := []any{pgvector.NewVector(query), tenantID, k}
	if meetingID != "" {
		args = append(args, meetingID)
	}
	var hits []ScoredTopic
	b := &pgx.Batch{}
	b.Queue(`SELECT set_config('hnsw.ef_search', $1, true)`, strconv.Itoa(max(k, 40)))
	if vc.iterativeScan {
		b.Queue(`SELECT set_config('hnsw.iterative_scan', 'strict_order', true)`)
	}
	b.Queue(pgvectorQuery(meetingID != ""), args...).Query(func(rows pgx.Rows) error {
		var err error
		hits, err = pgx.CollectRows(rows, pgx.RowToStructByName[ScoredTopic])
		return err
	})
	err := s.pool.SendBatch(ctx, b).Close()
	return hits, err
}

// pgvectorQuery is searchPgvector's nearest-neighbour query: $1 the query
// vector, $2 the tenant, $3 k and, when byMeeting, $4 the meeting. It
// orders by the cosine distance operator itself, so the HNSW cosine index
// can serve it.
func pgvectorQuery(byMeeting bool) string {
	where := `tenant_id = $2 AND embedding_vec IS NOT NULL`
	if byMeeting {
		where += ` AND meeting_id = $4`
	}
	return `SELECT ` + topicColumns + `, 1 - (embedding_vec <=> $1::vector) AS score
		FROM topics WHERE ` + where + `
		ORDER BY embedding_vec <=> $1::vector LIMIT $3`
}

// searchExact streams the candidates and keeps the best k by exact cosine
// similarity in a bounded heap: one statement, so one snapshot. Only the
// embedding of most rows is decoded (see embeddingOf); the full row is
// decoded only when it would enter the heap.
func (s *Store) searchExact(ctx context.Context, tenantID, meetingID string, query []float32, k int, minScore float64) ([]ScoredTopic, error) {
	args := []any{tenantID}
	where := `tenant_id = $1 AND embedding IS NOT NULL`
	if meetingID != "" {
		where += ` AND meeting_id = $2`
		args = append(args, meetingID)
	}
	rows, err := s.pool.Query(ctx, `SELECT `+topicColumns+` FROM topics WHERE `+where, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	qnorm := math.Sqrt(dot(query, query))
	top := make(topK, 0, k)
	col := -1 // index of the embedding column
	var buf []float32
	for rows.Next() {
		if col < 0 {
			col = columnIndex(rows, "embedding")
		}
		emb, err := embeddingOf(rows, col, buf)
		if err != nil {
			return nil, err
		}
		buf = emb
		if len(emb) != len(query) {
			id := "?"
			if t, err := pgx.RowToStructByName[TopicRow](rows); err == nil {
				id = t.ID
			}
			return nil, fmt.Errorf("%w: topic %s has a %d-dimensional embedding, the query has %d dimensions",
				ErrInvalid, id, len(emb), len(query))
		}
		score := cosine(query, qnorm, emb)
		if score < minScore || len(top) == k && score < top[0].Score {
			continue
		}
		t, err := pgx.RowToStructByName[TopicRow](rows)
		if err != nil {
			return nil, err
		}
		top.offer(ScoredTopic{TopicRow: t, Score: score}, k)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return top, nil
}

func columnIndex(rows pgx.Rows, name string) int {
	for i, fd := range rows.FieldDescriptions() {
		if fd.Name == name {
			return i
		}
	}
	return -1
}

// embeddingOf returns the current row's embedding. pgx receives float4[]
// in PostgreSQL's binary array format; decoding that here into one reused
// buffer spares an allocation per row and a generic decode per element.
// The text format (simple protocol) goes through pgx.
func embeddingOf(rows pgx.Rows, col int, buf []float32) ([]float32, error) {
	if col >= 0 && rows.FieldDescriptions()[col].Format == pgx.BinaryFormatCode {
		return decodeFloat4Array(rows.RawValues()[col], buf)
	}
	t, err := pgx.RowToStructByName[TopicRow](rows)
	return t.Embedding, err
}

const float4OID = 700

// decodeFloat4Array decodes a binary one-dimensional float4[] without
// NULLs into buf's storage: ndim, has-null flag, element type, then per
// dimension its length and lower bound, then per element its length (4)
// and big-endian IEEE 754 bits.
func decodeFloat4Array(src []byte, buf []float32) ([]float32, error) {
	if len(src) < 12 {
		return nil, errors.New("malformed float4[]")
	}
	ndim := binary.BigEndian.Uint32(src)
	if ndim == 0 {
		return buf[:0], nil
	}
	if ndim != 1 || len(src) < 20 || binary.BigEndian.Uint32(src[8:]) != float4OID {
		return nil, fmt.Errorf("%w: embedding is not a one-dimensional real[]", ErrInvalid)
	}
	n := int(binary.BigEndian.Uint32(src[12:]))
	src = src[20:]
	if n < 0 || len(src) != 8*n {
		return nil, fmt.Errorf("%w: embedding has NULL components", ErrInvalid)
	}
	buf = slices.Grow(buf[:0], n)[:n]
	for i := range buf {
		e := src[8*i:]
		if binary.BigEndian.Uint32(e) != 4 {
			return nil, fmt.Errorf("%w: embedding has NULL components", ErrInvalid)
		}
		buf[i] = math.Float32frombits(binary.BigEndian.Uint32(e[4:]))
	}
	return buf, nil
}

func dot(a, b []float32) float64 {
	var sum float64
	for i := range a {
		sum += float64(a[i]) * float64(b[i])
	}
	return sum
}

// cosine is the cosine similarity of q (with norm qnorm) and v; 0 when v
// is the zero vector.
func cosine(q []float32, qnorm float64, v []float32) float64 {
	var d, vv float64
	for i, x := range v {
		y := float64(x)
		d += float64(q[i]) * y
		vv += y * y
	}
	if vv == 0 {
		return 0
	}
	return d / (qnorm * math.Sqrt(vv))
}

// worse orders hits: lower score, then higher id, ranks lower.
func worse(a, b ScoredTopic) bool {
	return a.Score < b.Score || a.Score == b.Score && a.ID > b.ID
}

// topK is a min-heap on worse: the weakest hit kept is at index 0.
type topK []ScoredTopic

func (h topK) Len() int           { return len(h) }
func (h topK) Less(i, j int) bool { return worse(h[i], h[j]) }
func (h topK) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *topK) Push(x any)        { *h = append(*h, x.(ScoredTopic)) }
func (h *topK) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// offer keeps c when fewer than k hits are kept or c beats the weakest.
func (h *topK) offer(c ScoredTopic, k int) {
	if len(*h) < k {
		heap.Push(h, c)
		return
	}
	if worse((*h)[0], c) {
		(*h)[0] = c
		heap.Fix(h, 0)
	}
}
