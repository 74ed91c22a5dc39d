package cli

import (
	"context"
	"errors"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/filecoin-project/go-jsonrpc"

	"github.com/filc2/filc2/plugin"
	"github.com/filc2/filc2/plugin/plugintest"
)

// systemd stops a service with SIGTERM to every process of it: `filc2
// serve` and its plugin both get it. The plugin ignores it, serve drains
// it: the jobs in flight, longer than --shutdown-grace, are cancelled and
// their callers told the prover shut down (retryable); serve exits 0 within
// the grace and a few seconds, without taking the plugin's exit for a
// crash (no restart) and without go-plugin having to kill it.
func TestServeSIGTERMToGroup(t *testing.T) {
	params := plugintest.Params(t)
	a, b := plugintest.Sealed(t)
	home := filepath.Join(t.TempDir(), "home")
	if err := os.Mkdir(home, 0o700); err != nil {
		t.Fatal(err)
	}
	secret, err := plugin.Secret(home)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := plugin.NewToken(secret, plugin.AllPermissions)
	if err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "f2g")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	sock := filepath.Join(dir, "api.sock")
	const grace = time.Second
	cmd := exec.Command(plugintest.Binary(t), "serve", "--listen", "unix://"+sock, "--params-dir", params,
		"--backend", "cpu", "--shutdown-grace", grace.String())
	cmd.Env = append(os.Environ(), plugin.EnvHome+"="+home)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // a group of its own, as a service's
	logs := new(lockedBuffer)
	cmd.Stdout, cmd.Stderr = logs, logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pgid := cmd.Process.Pid
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		syscall.Kill(-pgid, syscall.SIGKILL)
		if t.Failed() {
			t.Logf("serve log:\n%s", logs)
		}
	})
	waitUntil(t, time.Minute, "serve to write its URL", func() bool {
		_, err := os.Stat(filepath.Join(home, apiFile))
		return err == nil
	})
	hc := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, "unix", sock)
	}}}
	api := client(t, "http://filc2"+plugin.RPCPath, tok, jsonrpc.WithHTTPClient(hc))
	ctx := context.Background()
	awaited := make(chan error, 2)
	for i, c1 := range [][]byte{a, b} {
		id, err := api.Submit(ctx, plugin.ProveRequest{Sector: sectorRef(uint64(i + 1)), Commit1Out: c1})
		if err != nil {
			t.Fatal(err)
		}
		go func() {
			_, err := api.Await(ctx, id)
			awaited <- err
		}()
	}
	waitUntil(t, 30*time.Second, "a job to run", func() bool {
		st, err := api.Status(ctx)
		return err == nil && len(st.Running) > 0
	})

	t0 := time.Now()
	if err := syscall.Kill(-pgid, syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		if err != nil {
			t.Fatalf("serve exited with %v", err)
		}
	case <-time.After(grace + 10*time.Second):
		t.Fatalf("serve did not exit within %v of SIGTERM", grace+10*time.Second)
	}
	t.Logf("serve stopped %v after SIGTERM to its group (grace %v)", time.Since(t0).Round(time.Millisecond), grace)
	for range 2 {
		select {
		case err := <-awaited:
			var un *plugin.UnavailableError
			if !errors.As(err, &un) || !strings.Contains(err.Error(), "shut down") {
				t.Errorf("a job cut short by the shutdown: %v", err)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("an Await did not return")
		}
	}
	log := logs.String()
	for _, bad := range []string{"plugin died", "restarting", "plugin failed to exit gracefully"} {
		if strings.Contains(log, bad) {
			t.Errorf("the serve log says %q", bad)
		}
	}
	for _, want := range []string{"ignoring the signal", "jobs still in flight were cancelled", "stopped"} {
		if !strings.Contains(log, want) {
			t.Errorf("the serve log does not say %q", want)
		}
	}
	waitUntil(t, 5*time.Second, "the plugin to exit", func() bool { return syscall.Kill(-pgid, 0) == syscall.ESRCH })
}
