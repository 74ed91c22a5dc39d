package cli

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	ucli "github.com/urfave/cli/v2"
)

// The unauthenticated gRPC service is refused beyond loopback unless told
// otherwise; loopback and unix sockets need no flag.
func TestListenGRPCLoopbackOnly(t *testing.T) {
	log := hclog.NewNullLogger()
	if ln, err := listenGRPC("0.0.0.0:0", false, log); err == nil || !strings.Contains(err.Error(), "--grpc-allow-remote") {
		if ln != nil {
			ln.Close()
		}
		t.Fatalf("0.0.0.0 without --grpc-allow-remote: %v, want refused naming the flag", err)
	}
	for _, c := range []struct {
		addr   string
		remote bool
	}{{"0.0.0.0:0", true}, {"127.0.0.1:0", false}, {"localhost:0", false}, {"[::1]:0", false},
		{"unix://" + filepath.Join(t.TempDir(), "g.sock"), false}} {
		ln, err := listenGRPC(c.addr, c.remote, log)
		if err != nil {
			if strings.Contains(c.addr, "::1") && strings.Contains(err.Error(), "cannot assign") {
				continue // no IPv6 loopback here
			}
			t.Errorf("%s (allow remote %v): %v", c.addr, c.remote, err)
			continue
		}
		ln.Close()
	}
}

// serveSettingsOf reads [serve] from --config and lets the flags override it.
func TestServeSettings(t *testing.T) {
	conf := filepath.Join(t.TempDir(), "c.toml")
	os.WriteFile(conf, []byte("[serve]\nlisten = \"127.0.0.1:7000\"\nmetrics_listen = \"127.0.0.1:7001\"\n"+
		"grpc_listen = \"127.0.0.1:7002\"\nshutdown_grace = \"45s\"\nmax_connections = 10\nmax_websockets = 8\n"+
		"body_timeout = \"5s\"\nidle_timeout = \"7s\"\n"), 0o600)
	settings := func(args ...string) (serveSettings, error) {
		fs := flag.NewFlagSet("serve", flag.ContinueOnError)
		for _, f := range serveCommand().Flags {
			if err := f.Apply(fs); err != nil {
				t.Fatal(err)
			}
		}
		if err := fs.Parse(args); err != nil {
			t.Fatal(err)
		}
		return serveSettingsOf(ucli.NewContext(ucli.NewApp(), fs, nil))
	}
	s, err := settings()
	if err != nil || s.listen != "127.0.0.1:9830" || s.metricsListen != "" || s.grpcListen != "" || s.grace != 30*time.Second ||
		s.limits.MaxConnections != 256 || s.limits.MaxWebsockets != 64 || s.limits.MaxReadWebsockets != 16 {
		t.Fatalf("defaults: %+v %v", s, err)
	}
	s, err = settings("--config", conf)
	if err != nil || s.listen != "127.0.0.1:7000" || s.metricsListen != "127.0.0.1:7001" || s.grpcListen != "127.0.0.1:7002" ||
		s.grace != 45*time.Second || s.limits.MaxConnections != 10 || s.limits.MaxWebsockets != 8 || s.limits.MaxReadWebsockets != 2 ||
		s.limits.BodyTimeout != 5*time.Second || s.limits.IdleTimeout != 7*time.Second {
		t.Fatalf("config: %+v %v", s, err)
	}
	s, err = settings("--config", conf, "--listen", "unix:///x", "--shutdown-grace", "1s", "--grpc-listen", "")
	if err != nil || s.listen != "unix:///x" || s.grace != time.Second || s.grpcListen != "" || s.metricsListen != "127.0.0.1:7001" {
		t.Fatalf("flags over the config: %+v %v", s, err)
	}
	for _, args := range [][]string{{"--shutdown-grace", "-1s"}, {"--listen", ""}, {"--metrics-listen", "127.0.0.1:9830"}} {
		if _, err := settings(args...); err == nil {
			t.Errorf("%v accepted", args)
		}
	}
}
