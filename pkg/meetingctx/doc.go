// Package meetingctx holds the live context of one meeting: the L0 window
// of recent final turns, bounded by turn count and tokens, and the cursor
// (highest transcript seq applied). Turns must arrive in seq order; a gap
// is reported so the caller can load the missing rows from the store, which
// is the source of truth.
package meetingctx
