package plugin_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/filc2/filc2/plugin"
	"github.com/filc2/filc2/plugin/plugintest"
)

const envGuardChild = "FILC2_TEST_GUARD_STDOUT"

func TestMain(m *testing.M) {
	if os.Getenv(envGuardChild) == "1" {
		guardChild()
		return
	}
	code := m.Run()
	plugintest.Cleanup()
	os.Exit(code)
}

// guardChild is TestGuardStdout's subprocess: a stray line during start-up,
// then the handshake.
func guardChild() {
	restore, err := plugin.GuardStdout()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println("stray line during start-up")
	if err := restore(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println("1|1|unix|/tmp/x|netrpc|")
	os.Exit(0)
}

// While guarded, stdout goes to stderr; after restore the handshake line is
// the first thing on stdout.
func TestGuardStdout(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), envGuardChild+"=1")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v: %s", err, stderr.String())
	}
	if stdout.String() != "1|1|unix|/tmp/x|netrpc|\n" || !strings.Contains(stderr.String(), "stray line during start-up") {
		t.Fatalf("stdout %q, stderr %q", stdout.String(), stderr.String())
	}
}
