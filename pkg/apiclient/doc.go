// Package apiclient is a typed HTTP client for the agent-api /v1 routes that
// workers and the mithubctl CLI use: meetings, utterance ingest, sync and the
// meeting context.
//
// Every call takes a context. Calls that are safe to repeat (GETs,
// PostUtterances, whose segment ids make it idempotent, and Sync) are retried
// on connection errors and on 429/502/503/504 responses with exponential
// backoff and jitter, bounded by RetryPolicy.MaxElapsedTime and by the
// context. Calls that are not (CreateMeeting, EndMeeting) are retried only
// when the connection was refused, that is when the request cannot have
// reached the server.
//
// Error responses become *APIError values carrying the HTTP status and the
// server's error code and message:
//
//	m, err := c.GetMeeting(ctx, id)
//	var apiErr *apiclient.APIError
//	if errors.As(err, &apiErr) && apiErr.Status == http.StatusNotFound {
//		// no such meeting for this tenant
//	}
package apiclient
