package agent

import (
	"bytes"
	"fmt"
	"slices"
	"text/template"
	"time"

	"deskpilot/agent/dialect"
	"deskpilot/agent/llm"
	"deskpilot/assets"
	"deskpilot/vision"
)

// prompts holds the parsed templates of assets/prompts (the system prompt is the
// dialect's).
type prompts struct {
	plan, final *template.Template
}

func loadPrompts() (prompts, error) {
	var p prompts
	for name, dst := range map[string]**template.Template{
		"plan.tmpl": &p.plan, "final.tmpl": &p.final,
	} {
		t, err := template.ParseFS(assets.Prompts, "prompts/"+name)
		if err != nil {
			return p, fmt.Errorf("prompt %s: %w", name, err)
		}
		*dst = t
	}
	return p, nil
}

func render(t *template.Template, data any) (string, error) {
	var b bytes.Buffer
	if err := t.Execute(&b, data); err != nil {
		return "", fmt.Errorf("render %s: %w", t.Name(), err)
	}
	return b.String(), nil
}

func (a *Agent) systemPrompt(d dialect.Dialect, task string, m vision.Mapper, tools string, now time.Time) (string, error) {
	note := ""
	if a.DisplayCount > 1 {
		note = fmt.Sprintf("You control display %d of %d; the screenshot shows only that display.", a.Config.Monitor, a.DisplayCount)
	}
	s, err := d.SystemPrompt(dialect.Prompt{
		Task:        task,
		Coordinates: m.Contract(),
		DisplayNote: note,
		Tools:       tools,
		Date:        now.Format("Monday, 2 January 2006"),
		Screen:      m.Display.Size(),
		Image:       m.Image,
	})
	if err != nil {
		return "", fmt.Errorf("system prompt (%s): %w", d.Name(), err)
	}
	return s, nil
}

// textMsg is a message with one text part.
func textMsg(role, text string) llm.Message {
	return llm.Message{Role: role, Parts: []llm.Part{{Text: text}}}
}

// prunedNote replaces a screenshot the request no longer carries.
const prunedNote = "[an older screenshot was removed here to keep the request small]"

// pruneImages returns a copy of msgs in which only the newest keep images remain;
// older images become a one-line placeholder, so a long run's requests stay flat,
// or, with drop, go (a message left without parts goes too).
func pruneImages(msgs []llm.Message, keep int, drop bool) []llm.Message {
	out := make([]llm.Message, 0, len(msgs))
	seen := 0
	for i := len(msgs) - 1; i >= 0; i-- {
		m := msgs[i]
		var parts []llm.Part
		for j := len(m.Parts) - 1; j >= 0; j-- {
			p := m.Parts[j]
			if p.IsImage() {
				seen++
				if seen > keep {
					if drop {
						continue
					}
					p = llm.Part{Text: prunedNote}
				}
			}
			parts = append(parts, p)
		}
		if len(parts) == 0 && len(m.Parts) > 0 {
			continue
		}
		slices.Reverse(parts)
		m.Parts = parts
		out = append(out, m)
	}
	slices.Reverse(out)
	return out
}
