package engine

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestDefaultConfigIsValid(t *testing.T) {
	c := DefaultConfig()
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	if c.GPU.WorkersPerGPU != 2 {
		t.Fatalf("default workers per GPU %d, want 2", c.GPU.WorkersPerGPU)
	}
	r, err := c.resolved()
	if err != nil {
		t.Fatal(err)
	}
	if r.Memory.Budget <= 0 || r.Synthesis.Workers <= 0 || r.Queue.GPUQueueDepth != 2 {
		t.Fatalf("resolved %+v", r)
	}
}

// The example config documents every knob and reads back to the config it
// was written from.
func TestExampleConfigRoundTrip(t *testing.T) {
	for _, c := range []Config{DefaultConfig(), func() Config {
		c := DefaultConfig()
		c.GPU.Devices = []int{0, 1, 3}
		c.Memory.Budget = 384 * GiB
		c.Memory.EvictIdle = 90 * time.Second
		c.Queue.DefaultTimeout = 2 * time.Hour
		c.Timeline.Path = "/var/log/filc2/timeline.jsonl"
		c.Serve.MetricsListen = "127.0.0.1:9100"
		return c
	}()} {
		var b strings.Builder
		if err := WriteExampleConfig(&b, c); err != nil {
			t.Fatal(err)
		}
		back, err := ParseConfig(b.String())
		if err != nil {
			t.Fatalf("%v\n%s", err, b.String())
		}
		if !reflect.DeepEqual(back, c) {
			t.Fatalf("round trip:\n got %+v\nwant %+v\n%s", back, c, b.String())
		}
		for _, key := range tomlKeys(reflect.TypeOf(c), "") {
			table, knob, _ := strings.Cut(key, ".")
			if !strings.Contains(b.String(), "["+table+"]") || !strings.Contains(b.String(), "\n"+knob+" = ") {
				t.Errorf("the example does not set %s", key)
			}
		}
	}
}

func tomlKeys(t reflect.Type, prefix string) []string {
	var keys []string
	for i := range t.NumField() {
		f := t.Field(i)
		name := prefix + f.Tag.Get("toml")
		if f.Type.Kind() == reflect.Struct {
			keys = append(keys, tomlKeys(f.Type, name+".")...)
		} else {
			keys = append(keys, name)
		}
	}
	return keys
}

func TestParseConfig(t *testing.T) {
	c, err := ParseConfig(`
[gpu]
devices = [1, 2]
[memory]
budget = "96 GiB"
evict_idle = "5m"
[queue]
default_timeout = "45m"
`)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(c.GPU.Devices, []int{1, 2}) || c.GPU.WorkersPerGPU != 2 || c.Memory.Budget != 96*GiB ||
		c.Memory.EvictIdle != 5*time.Minute || c.Queue.DefaultTimeout != 45*time.Minute || c.Queue.MaxQueued != 64 {
		t.Fatalf("parsed %+v", c)
	}
	for _, bad := range []struct{ text, want string }{
		{"[gpu]\nworkers = 2", "unknown keys gpu.workers"},
		{"[gpu]\ndevices = []", "gpu.devices is empty"},
		{"[gpu]\ndevices = [0, 0]", "distinct"},
		{"[gpu]\nworkers_per_gpu = 0", "workers_per_gpu"},
		{"[memory]\nbudget = \"lots\"", "byte size"},
		{"[params]\npce_dir = \"/elsewhere\"", "pce_dir"},
		{"[queue]\nmax_queued = 0", "max_queued"},
		{"[queue]\nretain_finished = \"-1s\"", "retain_finished"},
	} {
		if _, err := ParseConfig(bad.text); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%q: %v, want an error about %s", bad.text, err, bad.want)
		}
	}
}

func TestByteSize(t *testing.T) {
	for _, c := range []struct {
		in   string
		want ByteSize
	}{{"0", 0}, {"auto", 0}, {"1024", KiB}, {"64GiB", 64 * GiB}, {"64 GiB", 64 * GiB}, {"2GB", 2e9}, {"512MiB", 512 * MiB}, {"7B", 7}, {"1TiB", TiB}} {
		var b ByteSize
		if err := b.UnmarshalText([]byte(c.in)); err != nil || b != c.want {
			t.Errorf("%q: %v, %v", c.in, b, err)
		}
	}
	for _, in := range []string{"", "-1", "1.5GiB", "GiB", "99999999999TiB"} {
		var b ByteSize
		if err := b.UnmarshalText([]byte(in)); err == nil {
			t.Errorf("%q parsed as %v", in, b)
		}
	}
	if s := (384 * GiB).String(); s != "384GiB" {
		t.Errorf("384GiB prints as %s", s)
	}
	if s := ByteSize(1000).String(); s != "1000" {
		t.Errorf("1000 bytes print as %s", s)
	}
}

func TestBudget(t *testing.T) {
	s := newSignal()
	b := newBudget(100, s)
	if !b.tryReserve(60) || b.tryReserve(41) || !b.tryReserve(40) || b.tryReserve(1) {
		t.Fatal("reservations beyond the total")
	}
	ch := s.wait()
	b.release(50)
	select {
	case <-ch:
	default:
		t.Fatal("a release did not broadcast")
	}
	if st := b.status(); st.InUse != 50 || st.HighWater != 100 || st.Reservations != 2 {
		t.Fatalf("status %+v", st)
	}
	defer func() {
		if recover() == nil {
			t.Fatal("releasing more than reserved did not panic")
		}
	}()
	b.release(51)
}
