package agent_test

import (
	"image"
	"os"
	"strings"
	"testing"
	"time"

	"deskpilot/actions"
	"deskpilot/actions/robot"
	"deskpilot/agent/llm/llmtest"
	"deskpilot/internal/config"
)

// A run whose code only waits and prints never reaches the guard of a desktop
// action; a person moving the mouse still pauses it before the next model request.
func TestTakeoverPausesBeforeTheNextModelRequest(t *testing.T) {
	replies := []llmtest.Reply{code("wait(2)\nprint(\"waited\")")}
	for range 6 {
		replies = append(replies, code("print(\"still here\")"))
	}
	r := newRig(t, config.Settings{MaxSteps: 10}, append(replies, code("final_answer(\"done\")"))...)
	person, err := robot.New(os.Getenv("DISPLAY"), image.Rect(0, 0, 1280, 800))
	if err != nil {
		t.Fatal(err)
	}
	defer person.Close()
	codeSeen, paused := r.events.watchCodeAndPauses()
	s := r.agent.Start(t.Context(), "only waits", r.hooks())
	defer s.Stop()
	<-codeSeen // step 1 waits 2 s: the person moves the mouse meanwhile
	if err := person.Move(t.Context(), actions.Point{X: 321, Y: 432}); err != nil {
		t.Fatal(err)
	}
	select {
	case p := <-paused:
		if !strings.Contains(p.Reason, "mouse") {
			t.Errorf("pause reason %q", p.Reason)
		}
	case <-s.Done():
		t.Fatalf("the run went on to its end (%d model requests) after the person moved the mouse", len(r.srv.Requests()))
	}
	if n := len(r.srv.Requests()); n != 1 {
		t.Errorf("%d model requests before the pause, want 1: the model was asked again after the person took over", n)
	}
	s.Resume("")
	select {
	case <-s.Done():
	case <-time.After(time.Minute):
		t.Fatal("the run did not finish after Resume")
	}
	if fin := s.Result(); fin.Answer != "done" {
		t.Fatalf("got %s %q (%s)", fin.Outcome, fin.Answer, fin.Error)
	}
}
