package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"deskpilot/agent/dialect"
	"deskpilot/agent/llm"
)

// This file is the seam between the loop and the two kinds of dialect: the
// ones whose model answers in text (Parse) and the dialect.ToolDialects,
// whose model answers through a tool of the request (the vendors' computer
// tools, Holo3's schema). The loop asks for a reply with ask, approves the
// vendor's safety checks with approve, and writes the next user turn with
// answer; everything else (the sandbox, the guard, the policy, traces) is
// the same for both.

// toolDialect is the run's dialect as a ToolDialect, or nil.
func (r *runState) toolDialect() dialect.ToolDialect {
	td, _ := r.dialect.(dialect.ToolDialect)
	return td
}

// space is the run's screenshot space, as the dialect declares it.
func (r *runState) space() dialect.Space {
	return dialect.Space{Image: r.mapper.Image, Mode: r.mapper.Mode}
}

// ask calls the model for a step and reads its reply with the run's
// dialect; the assistant turn goes into the history. perr is a reply the
// dialect could not read (for the model); err is a failed call (the run's).
func (r *runState) ask(ctx context.Context) (reply dialect.Reply, perr, err error) {
	resp, err := r.completeResponse(ctx, r.conv.request(), true)
	if err != nil {
		return dialect.Reply{}, nil, err
	}
	td := r.toolDialect()
	if td == nil {
		reply, perr = r.dialect.Parse(resp.Text)
		turn := reply.Turn
		if turn == "" {
			turn = resp.Text
		}
		r.conv.add("assistant", dialect.StepTurn(r.dialect, r.step, turn))
		return reply, perr, nil
	}
	reply, perr = td.ParseResponse(resp)
	r.conv.msgs = append(r.conv.msgs, assistantTurn(reply, resp))
	return reply, perr, nil
}

// assistantTurn is a ToolDialect reply as the history keeps it: its text
// (the dialect's Turn, without the reasoning the server sent apart), its
// calls, and the response id the Responses API continues from.
func assistantTurn(reply dialect.Reply, resp llm.Response) llm.Message {
	m := llm.Message{Role: "assistant", ID: resp.ID}
	text := reply.Turn
	if text == "" {
		text = resp.Text
	}
	if strings.TrimSpace(text) != "" {
		m.Parts = append(m.Parts, llm.Part{Text: text})
	}
	for i := range reply.Calls {
		m.Parts = append(m.Parts, llm.Part{Call: &reply.Calls[i]})
	}
	if len(m.Parts) == 0 {
		m.Parts = []llm.Part{{Text: "(no reply)"}}
	}
	return m
}

// approve asks the person about the reply's safety checks (the vendor's
// pending_safety_checks or require_confirmation). It returns the approved
// checks to acknowledge; when one is refused the reply's code does not run
// and note says why, for the model.
func (r *runState) approve(ctx context.Context, reply *dialect.Reply) (acks []llm.SafetyCheck, note string) {
	if reply.Refused != "" {
		return nil, "The action was blocked by the model provider's safety service: " + reply.Refused
	}
	if reply.Code == "" {
		return nil, "" // nothing runs: nothing to approve
	}
	for _, c := range reply.Checks {
		what := fmt.Sprintf("the model's next action, which its provider flagged (%s): %s", c.Code, c.Message)
		if err := r.confirm(ctx, what); err != nil {
			reply.Code = ""
			return nil, err.Error()
		}
		acks = append(acks, c)
	}
	return acks, ""
}

// answer writes the user turn after a step: the dialect's results for a
// ToolDialect (each call answered, the screenshot with the last), else the
// observation as the dialect's history lays it out.
func (r *runState) answer(reply dialect.Reply, obs observation, failed bool, acks []llm.SafetyCheck) {
	td := r.toolDialect()
	if td == nil {
		r.conv.user(obs.text, obs.attached, obs.shot)
		return
	}
	images := append(append([]llm.Part(nil), obs.attached...), obs.shot)
	o := dialect.Outcome{Task: r.task, Text: obs.text}
	if failed {
		o.Problems = []string{obs.text}
	} else if obs.text != "" {
		o.Output = obs.text
	}
	parts := td.Results(reply, o, acks, images)
	r.conv.msgs = append(r.conv.msgs, llm.Message{Role: "user", Parts: parts})
}

// completeResponse calls the model, streaming deltas as events, and counts
// usage. A ToolDialect shapes the request (its tool; its schema on steps).
func (r *runState) completeResponse(ctx context.Context, msgs []llm.Message, step bool) (llm.Response, error) {
	req := llm.Request{Messages: msgs, MaxTokens: r.cfg.MaxTokens}
	if r.cfg.Temperature != 0 {
		t := r.cfg.Temperature
		req.Temperature = &t
	}
	if step {
		req.Stop = r.dialect.Stop()
	}
	if td := r.toolDialect(); td != nil {
		td.Prepare(&req, r.space(), step)
	}
	t0 := r.a.now()
	n := r.step
	req.OnRetry = func(rt llm.Retry) {
		r.a.log().Info("model call retried", "step", n, "attempt", rt.Attempt, "delay", rt.Delay, "err", rt.Err)
		if rt.Discard {
			r.disp.emit(TextDelta{Step: n, Reset: true})
		}
	}
	r.calls++
	resp, err := r.a.Model.Complete(ctx, req, func(d string) {
		r.disp.emit(TextDelta{Step: n, Text: d})
	})
	if err != nil {
		return resp, fmt.Errorf("model call: %w", err)
	}
	r.cut = resp.Cut
	u := Usage{Input: resp.Usage.Input, Output: resp.Usage.Output}
	r.usage.Input += u.Input
	r.usage.Output += u.Output
	r.disp.emit(ModelReplied{Step: n, Text: replyText(resp), Usage: u, Duration: r.a.now().Sub(t0)})
	return resp, nil
}

// replyText is a reply as events and traces show it: its text, then each
// tool call on a line of its own.
func replyText(resp llm.Response) string {
	if len(resp.Calls) == 0 {
		return resp.Text
	}
	var b strings.Builder
	b.WriteString(resp.Text)
	for _, c := range resp.Calls {
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		in := c.Input
		if !json.Valid(in) {
			in, _ = json.Marshal(string(in))
		}
		fmt.Fprintf(&b, "[tool call %s %s] %s", c.Name, c.ID, in)
	}
	return b.String()
}
