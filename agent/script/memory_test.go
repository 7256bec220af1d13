package script

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"deskpilot/vision"
)

// memParentEnv makes the test binary a sandbox's parent that runs one block
// of hostile code and prints its own peak memory (TestParentMemoryIsBounded).
const memParentEnv = "DESKPILOT_TEST_MEMORY_PARENT"

// slowInput types at a keyboard's pace and honours ctx between chunks, as
// the real input does.
type slowInput struct{ fakeInput }

func (s *slowInput) Type(ctx context.Context, text string) error {
	for i := 0; i < len(text); i += 64 {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Millisecond):
		}
	}
	return nil
}

// The inputs: each is one block a model could write.
func memoryCases() map[string]string {
	return map[string]string{
		"type_text 4 MiB":     `type_text("a" * (4 << 20))`,
		"type_text 60 MiB":    `type_text("a" * (60 << 20))`,
		"final_answer 70 MiB": `final_answer("A" * (70 << 20))`,
		"print 60 MiB":        `print("B" * (60 << 20))`,
		"fail 60 MiB":         `fail("C" * (60 << 20))`,
		"calls at the limit":  "for i in range(40):\n    type_text(\"x\" * 9000)",
		"states 60 MiB":       `find_elements(states=["checked"] * (10 << 20))`,
	}
}

// runMemoryParent runs one case as the sandbox's parent and prints
// "peak=<bytes> outcome=<text>" on standard output.
func runMemoryParent(code string) {
	m := vision.NewMapper(testDisplay, 960, "")
	d := DesktopDeps{Mapper: m, Input: &slowInput{}}
	s := NewSandbox(SandboxOptions{Options: Options{Timeout: 10 * time.Second}}, append(Desktop(d), Ground(d, GroundDeps{})...)...)
	defer s.Close()
	base, _ := peakBytes()
	res := s.Exec(context.Background(), code)
	peak, _ := peakBytes()
	out := "ok"
	switch {
	case res.Err != nil:
		out = res.Err.Msg
	case res.Final != nil:
		out = fmt.Sprintf("answered %d bytes", len(res.Final.Value))
	}
	if len(out) > 300 {
		out = out[:300]
	}
	fmt.Printf("base=%d peak=%d outcome=%s\n", base, peak, strings.ReplaceAll(out, "\n", " "))
}

// peakBytes is this process's peak resident memory (VmHWM).
func peakBytes() (int64, bool) {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, false
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb << 10, err == nil
		}
	}
	return 0, false
}

// watchPeak reads the peak resident memory of process pid until it ends,
// and then sends it.
func watchPeak(pid int) <-chan int64 {
	ch := make(chan int64, 1)
	go func() {
		var peak int64
		for {
			data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
			if err != nil || strings.Contains(string(data), "State:\tZ") {
				ch <- peak
				return
			}
			for _, line := range strings.Split(string(data), "\n") {
				if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
					kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
					peak = max(peak, kb<<10)
				}
			}
			time.Sleep(50 * time.Millisecond)
		}
	}()
	return ch
}

// maxParentGrowth is the documented bound on what the agent's process holds
// for what the code sends it in one block, whatever the code sends.
const maxParentGrowth = 48 << 20

// The parent's memory stays bounded whatever the code sends it: each input
// runs in a fresh parent process, whose peak resident memory is read.
func TestParentMemoryIsBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a parent process per case")
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for name, code := range memoryCases() {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, self, "-test.run=^$")
			cmd.Env = append(os.Environ(), memParentEnv+"="+code)
			var buf strings.Builder
			cmd.Stdout, cmd.Stderr = &buf, &buf
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			watched := watchPeak(cmd.Process.Pid)
			err := cmd.Wait()
			out := buf.String()
			if err != nil {
				t.Fatalf("parent: %v after a peak of %d MiB\n%s", err, <-watched>>20, out)
			}
			var base, peak int64
			var outcome string
			line := strings.TrimSpace(string(out))
			if _, err := fmt.Sscanf(line, "base=%d peak=%d outcome=", &base, &peak); err != nil {
				t.Fatalf("parent printed %q", line)
			}
			_, outcome, _ = strings.Cut(line, "outcome=")
			t.Logf("%s: parent peak %d MiB (%+d MiB over its start): %s", name, peak>>20, (peak-base)>>20, outcome)
			if peak-base > maxParentGrowth {
				t.Errorf("the parent grew by %d MiB, more than the %d MiB bound", (peak-base)>>20, maxParentGrowth>>20)
			}
		})
	}
}
