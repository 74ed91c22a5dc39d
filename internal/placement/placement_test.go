package placement

import (
	"context"
	"testing"
)

func TestDeviceOnly(t *testing.T) {
	ctx := context.Background()
	if DeviceOnly(ctx) {
		t.Fatal("a plain context asks for device-only loads")
	}
	d := WithDeviceOnly(ctx)
	if !DeviceOnly(d) {
		t.Fatal("WithDeviceOnly is not seen")
	}
	c, cancel := context.WithCancel(d)
	defer cancel()
	if !DeviceOnly(c) {
		t.Fatal("a derived context lost device-only")
	}
}
