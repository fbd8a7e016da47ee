package store

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/mithub/mithub/pkg/conversation"
	"github.com/mithub/mithub/pkg/textutil"
)

// fillTermsBatch is how many nodes fillNodeTerms tokenizes per round trip.
const fillTermsBatch = 2000

// SearchNodes returns the limit nodes of the tenant's conversation (every
// conversation of the tenant's for conversationID "") that score best by
// Okapi BM25 against terms, best first; ties go to higher levels, then
// earlier seqs. Candidates are all nodes sharing a term, found through the
// GIN index on memory_nodes.terms, so no match is left unscored however
// old; N and the average length (in tokens) are over the whole scope.
// Nodes stored since the last search get their terms first.
func (s *Store) SearchNodes(ctx context.Context, tenantID, conversationID string, terms []string, limit int) ([]conversation.NodeMatch, error) {
	if len(terms) == 0 {
		return nil, nil
	}
	if limit <= 0 {
		limit = 10
	}
	limit = min(limit, 1000)
	var conv any
	if conversationID != "" {
		conv = conversationID
	}
	if err := s.fillNodeTerms(ctx, tenantID, conv); err != nil {
		return nil, fmt.Errorf("search memory: %w", err)
	}
	rows, err := s.pool.Query(ctx, searchNodesSQL, tenantID, conv, terms, limit, textutil.BM25K1, textutil.BM25B)
	if err != nil {
		return nil, fmt.Errorf("search memory: %w", translate(err))
	}
	ms, err := pgx.CollectRows(rows, pgx.RowToStructByName[conversation.NodeMatch])
	if err != nil {
		return nil, fmt.Errorf("search memory: %w", translate(err))
	}
	return ms, nil
}

// searchNodesSQL scores the nodes sharing a term with $3 by BM25 (the
// formula of textutil.BM25, k1 = $5, b = $6) and returns the best $4 with
// the turns each covers: a summary's first and last turns are found by
// following its first and last children down to level 0.
const searchNodesSQL = `
WITH RECURSIVE
scope AS (
	SELECT count(*)::float8 AS n, coalesce(avg(tokens), 0)::float8 AS avgdl FROM memory_nodes
	WHERE tenant_id = $1 AND ($2::uuid IS NULL OR conversation_id = $2::uuid)),
cand AS (
	SELECT id, level, seq, tokens, terms FROM memory_nodes
	WHERE tenant_id = $1 AND ($2::uuid IS NULL OR conversation_id = $2::uuid) AND terms && $3::text[]),
tf AS (
	SELECT c.id, c.level, c.seq, c.tokens, t.term, count(*)::float8 AS tf
	FROM cand c, unnest(c.terms) AS t(term)
	WHERE t.term = ANY($3::text[])
	GROUP BY c.id, c.level, c.seq, c.tokens, t.term),
df AS (SELECT term, count(*)::float8 AS df FROM tf GROUP BY term),
scored AS (
	SELECT tf.id, tf.level, tf.seq,
		sum(ln(1 + (s.n - df.df + 0.5) / (df.df + 0.5)) * tf.tf * ($5::float8 + 1)
			/ (tf.tf + $5::float8 * (1 - $6::float8 + $6::float8 * tf.tokens / greatest(s.avgdl, 1)))) AS score
	FROM tf JOIN df USING (term) CROSS JOIN scope s
	GROUP BY tf.id, tf.level, tf.seq
	ORDER BY score DESC, tf.level DESC, tf.seq, tf.id
	LIMIT $4),
hit AS (
	SELECT n.id, n.conversation_id, n.level, n.seq, n.text, n.tokens, n.child_ids, n.created_at, sc.score
	FROM scored sc JOIN memory_nodes n ON n.id = sc.id),
walk (hit_id, lo, hi, level) AS (
	SELECT id, child_ids[1], child_ids[cardinality(child_ids)], level FROM hit
	WHERE level > 0 AND cardinality(child_ids) > 0
	UNION ALL
	SELECT w.hit_id, a.child_ids[1], b.child_ids[cardinality(b.child_ids)], w.level - 1
	FROM walk w JOIN memory_nodes a ON a.id = w.lo JOIN memory_nodes b ON b.id = w.hi
	WHERE w.level > 1 AND cardinality(a.child_ids) > 0 AND cardinality(b.child_ids) > 0),
span AS (
	SELECT w.hit_id, a.seq AS from_turn, b.seq AS to_turn
	FROM walk w JOIN memory_nodes a ON a.id = w.lo JOIN memory_nodes b ON b.id = w.hi
	WHERE w.level = 1 AND a.level = 0 AND b.level = 0)
SELECT h.id, h.conversation_id, h.level, h.seq, h.text, h.tokens, h.child_ids, h.created_at, h.score,
	CASE WHEN h.level = 0 THEN h.seq ELSE coalesce(sp.from_turn, -1) END AS from_turn,
	CASE WHEN h.level = 0 THEN h.seq ELSE coalesce(sp.to_turn, -1) END AS to_turn
FROM hit h LEFT JOIN span sp ON sp.hit_id = h.id
ORDER BY h.score DESC, h.level DESC, h.seq, h.id`

// fillNodeTerms stores the search terms (textutil.Terms) of the scope's
// nodes that have none yet: the tokenizer is Go, so inserts leave terms
// NULL and the first search of a scope fills them, in batches. conv is a
// conversation id, or nil for all of the tenant's.
func (s *Store) fillNodeTerms(ctx context.Context, tenantID string, conv any) error {
	type pending struct {
		ID   int64  `db:"id"`
		Text string `db:"text"`
	}
	var buf []string
	for {
		rows, err := s.pool.Query(ctx, `SELECT id, text FROM memory_nodes
			WHERE tenant_id = $1 AND ($2::uuid IS NULL OR conversation_id = $2::uuid) AND terms IS NULL
			ORDER BY id LIMIT $3`, tenantID, conv, fillTermsBatch)
		if err != nil {
			return fmt.Errorf("read unindexed nodes: %w", translate(err))
		}
		ps, err := pgx.CollectRows(rows, pgx.RowToStructByName[pending])
		if err != nil {
			return fmt.Errorf("read unindexed nodes: %w", translate(err))
		}
		if len(ps) == 0 {
			return nil
		}
		ids := make([]int64, len(ps))
		docs := make([]string, len(ps))
		for i, p := range ps {
			buf = textutil.Terms(buf[:0], p.Text)
			ids[i], docs[i] = p.ID, strings.Join(buf, " ")
		}
		// Terms hold no spaces: they are runs of letters and digits.
		if _, err := s.pool.Exec(ctx, `UPDATE memory_nodes m SET terms = string_to_array(u.doc, ' ')
			FROM unnest($1::bigint[], $2::text[]) AS u(id, doc)
			WHERE m.id = u.id AND m.terms IS NULL`, ids, docs); err != nil {
			return fmt.Errorf("index nodes: %w", translate(err))
		}
		if len(ps) < fillTermsBatch {
			return nil
		}
	}
}
