//go:build linux

package agent_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"deskpilot/agent"
	"deskpilot/agent/llm/llmtest"
	"deskpilot/internal/config"
	"deskpilot/vision/xdisplay"
)

// BenchmarkStepOverhead measures what a step costs besides the model: parse, run the
// code (one pointer move), let an idle screen settle, observe (capture, downscale,
// encode) and hand the events to the trace. It reports the median per step, with
// the code in the sandbox child (the default) and in process.
//
// "busy1080" runs on a 1920x1080 display of its own full of terminals
// (xdisplay.StartBusy), each step printing a line (no action, so no settle):
// the "busy 1920x1080, instant model" figure, whose cost is the
// observation, the trace and the code's round trip.
func BenchmarkStepOverhead(b *testing.B) {
	for _, sandbox := range []string{"process", "none"} {
		b.Run("sandbox="+sandbox, func(b *testing.B) { stepOverhead(b, sandbox, "move(%d, %d)") })
	}
	b.Run("busy1080/sandbox=process", func(b *testing.B) {
		d, err := xdisplay.Start(b.Context(), xdisplay.Options{Width: 1920, Height: 1080})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { _ = d.Close() })
		d.Busy(b)
		b.Setenv("DISPLAY", d.Name)
		b.Setenv("XAUTHORITY", d.XAuthority)
		stepOverhead(b, "process", "print(%d, %d)")
	})
}

func stepOverhead(b *testing.B, sandbox, step string) {
	steps := max(b.N, 5)
	var replies []llmtest.Reply
	for i := range steps - 1 {
		replies = append(replies, code(fmt.Sprintf(step, 100+i%500, 100+i%300)))
	}
	replies = append(replies, code("final_answer(\"done\")"))
	r := newRig(b, config.Settings{MaxSteps: steps + 1, Sandbox: sandbox}, replies...)
	var overhead []time.Duration
	var model time.Duration
	// The events are watched, not kept: the rig's log keeps every event, a
	// 1920x1080 step's frames (12 MB) with it, which no watcher of a real
	// run does, and the heap growing by that much a step would make every
	// frame-sized buffer fresh memory for the kernel to fault in.
	h := r.hooks()
	h.Event = func(e agent.Event) {
		switch e := e.(type) {
		case agent.ModelReplied:
			model = e.Duration
		case agent.Observed:
			if e.Step > 0 {
				overhead = append(overhead, e.Duration-model)
			}
		}
	}
	b.ResetTimer()
	fin := r.agent.Run(b.Context(), "benchmark", h)
	b.StopTimer()
	if fin.Outcome != agent.Answered {
		b.Fatalf("run ended %s: %s", fin.Outcome, fin.Error)
	}
	slices.Sort(overhead)
	b.ReportMetric(float64(overhead[len(overhead)/2].Microseconds())/1000, "ms-median/step")
	b.ReportMetric(float64(overhead[len(overhead)*9/10].Microseconds())/1000, "ms-p90/step")
}

// BenchmarkPromptGrowth reports the request size and image count at step 5 and at
// step 50 of a run: with only the newest screenshots kept, they stay flat.
func BenchmarkPromptGrowth(b *testing.B) {
	for range b.N {
		var replies []llmtest.Reply
		for i := range 49 {
			replies = append(replies, code(fmt.Sprintf("print(%d)", i)))
		}
		replies = append(replies, code("final_answer(\"done\")"))
		r := newRig(b, config.Settings{MaxSteps: 50}, replies...)
		if fin := r.agent.Run(b.Context(), "growth", r.hooks()); fin.Outcome != agent.Answered {
			b.Fatalf("run ended %s: %s", fin.Outcome, fin.Error)
		}
		reqs := r.srv.Requests()
		b.ReportMetric(float64(len(reqs[4].Body)), "bytes@step5")
		b.ReportMetric(float64(len(reqs[49].Body)), "bytes@step50")
		b.ReportMetric(float64(len(reqs[4].Images())), "images@step5")
		b.ReportMetric(float64(len(reqs[49].Images())), "images@step50")
	}
}
