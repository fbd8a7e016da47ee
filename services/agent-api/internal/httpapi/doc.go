// Package httpapi is agent-api's HTTP edge on Fiber: routing, bearer-key
// auth, strict JSON decoding, the error mapper, metrics and the OpenAPI
// document. Handlers stay thin; state lives in the store and the context
// cache.
package httpapi
