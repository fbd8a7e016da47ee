package room

import (
	"context"
	"log/slog"

	protologger "github.com/livekit/protocol/logger"
	"github.com/livekit/protocol/logger/zaputil"
	lksdk "github.com/livekit/server-sdk-go/v2"
)

// SDKLogLevel is the lowest level of the LiveKit SDK's and pion's records
// that are kept: both log every negotiation step below it.
const SDKLogLevel = slog.LevelWarn

// RouteSDKLogs sends what the LiveKit SDK and pion (WebRTC) log to log,
// as the service's JSON records tagged component=livekit, keeping records
// at SDKLogLevel and above. The SDK's package logger is also the one its
// peer connections give pion; left alone it writes plain text through the
// standard log package. Call it once at start, before any room is joined.
func RouteSDKLogs(log *slog.Logger) {
	lksdk.SetLogger(sdkLogger(log))
}

// sdkLogger adapts log to the SDK's logger interface, with the SDK's
// levels kept (its logr adapter logs warnings at info).
func sdkLogger(log *slog.Logger) protologger.Logger {
	return slogSDK{l: log.With("component", "livekit")}
}

// slogSDK implements protologger.Logger on slog.
type slogSDK struct{ l *slog.Logger }

var _ protologger.Logger = slogSDK{}

func (s slogSDK) log(level slog.Level, msg string, err error, kv []any) {
	if level < SDKLogLevel || !s.l.Enabled(context.Background(), level) {
		return
	}
	if err != nil {
		kv = append(kv, "err", err.Error())
	}
	s.l.Log(context.Background(), level, msg, kv...)
}

func (s slogSDK) Debugw(msg string, kv ...any) { s.log(slog.LevelDebug, msg, nil, kv) }
func (s slogSDK) Infow(msg string, kv ...any)  { s.log(slog.LevelInfo, msg, nil, kv) }
func (s slogSDK) Warnw(msg string, err error, kv ...any) {
	s.log(slog.LevelWarn, msg, err, kv)
}
func (s slogSDK) Errorw(msg string, err error, kv ...any) {
	s.log(slog.LevelError, msg, err, kv)
}
func (s slogSDK) WithValues(kv ...any) protologger.Logger { return slogSDK{l: s.l.With(kv...)} }
func (s slogSDK) WithUnlikelyValues(kv ...any) protologger.UnlikelyLogger {
	return protologger.NewUnlikelyLogger(s, kv...)
}
func (s slogSDK) WithName(name string) protologger.Logger {
	return slogSDK{l: s.l.With("logger", name)}
}
func (s slogSDK) WithComponent(c string) protologger.Logger {
	return slogSDK{l: s.l.With("sdk_component", c)}
}
func (s slogSDK) WithCallDepth(int) protologger.Logger { return s }
func (s slogSDK) WithItemSampler() protologger.Logger  { return s }
func (s slogSDK) WithoutSampler() protologger.Logger   { return s }
func (s slogSDK) WithDeferredValues() (protologger.Logger, protologger.DeferredFieldResolver) {
	return s, zaputil.NoOpDeferrer{}
}
