package plugin

import (
	"context"
	"log/slog"

	"github.com/hashicorp/go-hclog"
)

// SlogHandler returns a slog.Handler that writes through l, so that packages
// logging with slog (the engine) end up in the plugin's hclog stream, which
// the host forwards.
func SlogHandler(l hclog.Logger) slog.Handler { return &hclogHandler{l: l} }

type hclogHandler struct {
	l     hclog.Logger
	attrs []any
	group string
}

func (h *hclogHandler) Enabled(_ context.Context, lv slog.Level) bool {
	return h.l.IsTrace() || lv >= hclogToSlog(h.l.GetLevel())
}

func hclogToSlog(l hclog.Level) slog.Level {
	switch l {
	case hclog.Trace, hclog.Debug:
		return slog.LevelDebug
	case hclog.Info, hclog.NoLevel, hclog.DefaultLevel:
		return slog.LevelInfo
	case hclog.Warn:
		return slog.LevelWarn
	}
	return slog.LevelError
}

func (h *hclogHandler) Handle(_ context.Context, r slog.Record) error {
	args := append([]any(nil), h.attrs...)
	r.Attrs(func(a slog.Attr) bool {
		args = append(args, h.key(a.Key), a.Value.Resolve().Any())
		return true
	})
	switch {
	case r.Level >= slog.LevelError:
		h.l.Error(r.Message, args...)
	case r.Level >= slog.LevelWarn:
		h.l.Warn(r.Message, args...)
	case r.Level >= slog.LevelInfo:
		h.l.Info(r.Message, args...)
	default:
		h.l.Debug(r.Message, args...)
	}
	return nil
}

func (h *hclogHandler) key(k string) string {
	if h.group == "" {
		return k
	}
	return h.group + "." + k
}

func (h *hclogHandler) WithAttrs(as []slog.Attr) slog.Handler {
	n := &hclogHandler{l: h.l, group: h.group, attrs: append([]any(nil), h.attrs...)}
	for _, a := range as {
		n.attrs = append(n.attrs, h.key(a.Key), a.Value.Resolve().Any())
	}
	return n
}

func (h *hclogHandler) WithGroup(name string) slog.Handler {
	g := name
	if h.group != "" {
		g = h.group + "." + name
	}
	return &hclogHandler{l: h.l, group: g, attrs: h.attrs}
}
