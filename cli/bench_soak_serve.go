package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/filc2/filc2/plugin"
)

// bench soak's `filc2 serve`: a child process of this binary with a private
// $FILC2_PATH, the CPU backend, a loopback port and the fault spec in its
// environment, which its plugin reads.

// soakServe is the running `filc2 serve` of a soak.
type soakServe struct {
	cmd     *exec.Cmd
	home    string // its private $FILC2_PATH
	logPath string // its stdout and stderr
	url     string // from $FILC2_PATH/api
	exited  chan struct{}
	err     error // cmd.Wait's, once exited is closed
}

// startSoakServe runs `bin serve` with home as $FILC2_PATH and faults as
// $FILC2_INJECT_FAULTS, and waits (up to a minute) for it to write its URL.
func startSoakServe(ctx context.Context, bin, home, params string, queue int, faults string) (*soakServe, error) {
	s := &soakServe{home: home, logPath: filepath.Join(home, "serve.log"), exited: make(chan struct{})}
	logf, err := os.Create(s.logPath)
	if err != nil {
		return nil, fmt.Errorf("bench soak: serve's log: %w", err)
	}
	defer logf.Close() // the child has its own descriptor
	s.cmd = exec.Command(bin, "serve", "--listen", "127.0.0.1:0", "--params-dir", params, "--backend", "cpu",
		"--queue", strconv.Itoa(queue))
	env := []string{}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, plugin.EnvHome+"=") && !strings.HasPrefix(kv, EnvInjectFaults+"=") {
			env = append(env, kv)
		}
	}
	s.cmd.Env = append(env, plugin.EnvHome+"="+home, EnvInjectFaults+"="+faults)
	s.cmd.Stdout, s.cmd.Stderr = logf, logf
	if err := s.cmd.Start(); err != nil {
		return nil, fmt.Errorf("bench soak: starting %s serve: %w", bin, err)
	}
	go func() {
		s.err = s.cmd.Wait()
		close(s.exited)
	}()
	deadline := time.NewTimer(time.Minute)
	defer deadline.Stop()
	for {
		if b, err := os.ReadFile(filepath.Join(home, apiFile)); err == nil {
			s.url = strings.TrimSpace(string(b))
			return s, nil
		}
		select {
		case <-s.exited:
			return nil, fmt.Errorf("bench soak: serve exited before serving (%v); its log:\n%s", s.err, s.logTail(40))
		case <-ctx.Done():
			s.stop(5 * time.Second)
			return nil, ctx.Err()
		case <-deadline.C:
			s.stop(5 * time.Second)
			return nil, fmt.Errorf("bench soak: serve wrote no %s within a minute; its log:\n%s", filepath.Join(home, apiFile), s.logTail(40))
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// pid is serve's process id.
func (s *soakServe) pid() int { return s.cmd.Process.Pid }

// running reports whether serve has not exited.
func (s *soakServe) running() bool {
	select {
	case <-s.exited:
		return false
	default:
		return true
	}
}

// stop sends SIGTERM and waits up to grace for serve (and so its plugin) to
// exit; then it kills it. It returns how serve ended: nil for a clean exit.
func (s *soakServe) stop(grace time.Duration) error {
	if !s.running() {
		return s.exitErr()
	}
	s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.exited:
		return s.exitErr()
	case <-time.After(grace):
		s.cmd.Process.Kill()
		<-s.exited
		return fmt.Errorf("serve did not exit within %v of SIGTERM and was killed", grace)
	}
}

// exitErr describes serve's exit once it exited: nil for status 0.
func (s *soakServe) exitErr() error {
	if s.err != nil {
		return fmt.Errorf("serve exited: %w", s.err)
	}
	return nil
}

// logTail returns the last n lines of serve's log.
func (s *soakServe) logTail(n int) string {
	b, err := os.ReadFile(s.logPath)
	if err != nil {
		return "(no log: " + err.Error() + ")"
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// base is serve's URL without the RPC path, for /metrics.
func (s *soakServe) base() string { return strings.TrimSuffix(s.url, plugin.RPCPath) }

// hostCounters reads the plugin host's counters from serve's /metrics:
// restarts, jobs resubmitted to a restarted plugin, jobs lost with one.
func hostCounters(ctx context.Context, hc *http.Client, base string) (restarts, resubmitted, lost int64, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/metrics", nil)
	if err != nil {
		return 0, 0, 0, err
	}
	resp, err := hc.Do(req)
	if err != nil {
		return 0, 0, 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return 0, 0, 0, fmt.Errorf("/metrics: %s", resp.Status)
	}
	want := map[string]*int64{"filc2_plugin_restarts_total": &restarts, "filc2_plugin_jobs_resubmitted_total": &resubmitted,
		"filc2_plugin_jobs_lost_total": &lost}
	sc := bufio.NewScanner(io.LimitReader(resp.Body, 16<<20))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) != 2 || want[f[0]] == nil {
			continue
		}
		v, err := strconv.ParseFloat(f[1], 64)
		if err != nil {
			return 0, 0, 0, fmt.Errorf("/metrics: %s %q: %w", f[0], f[1], err)
		}
		*want[f[0]] = int64(v)
	}
	return restarts, resubmitted, lost, sc.Err()
}

// parentPID reads process pid's parent from /proc/PID/stat (Linux).
func parentPID(pid int) (int, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, err
	}
	// pid (comm) state ppid …; comm may hold spaces and parentheses.
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return 0, fmt.Errorf("/proc/%d/stat: no command name", pid)
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 2 {
		return 0, fmt.Errorf("/proc/%d/stat: too short", pid)
	}
	return strconv.Atoi(f[1])
}

// rssBytes is process pid's resident memory (VmRSS), 0 where /proc has none.
func rssBytes(pid int) int64 {
	if pid <= 0 {
		return 0
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0
	}
	for line := range strings.Lines(string(b)) {
		rest, ok := strings.CutPrefix(line, "VmRSS:")
		if !ok {
			continue
		}
		f := strings.Fields(rest)
		if len(f) == 2 && f[1] == "kB" {
			if kb, err := strconv.ParseInt(f[0], 10, 64); err == nil {
				return kb << 10
			}
		}
	}
	return 0
}

// errServeExited is the cause of a soak stopped because serve died under it.
var errServeExited = errors.New("serve exited during the soak")
