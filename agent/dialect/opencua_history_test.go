package dialect

import (
	"errors"
	"strings"
	"testing"
)

// OpenCUA's history keeps a step as "# Step N:\n## Action:\n{action}\n"
// (its agent's STEP_TEMPLATE and ACTION_HISTORY_TEMPLATE), a reply whose
// code block never closes runs nothing, and the user turn ends with its
// INSTRUTION_TEMPLATE.
func TestOpenCUAHistory(t *testing.T) {
	d, _ := New("opencua", Options{})
	reply := "## Thought:\nThe File menu is at the top left.\n## Action:\nClick the File menu.\n## Code:\n```python\npyautogui.click(x=0.02, y=0.03)\n```"
	r, err := d.Parse(reply)
	if err != nil {
		t.Fatal(err)
	}
	if r.Turn != "## Action:\nClick the File menu.\n" {
		t.Errorf("Turn = %q", r.Turn)
	}
	if got := StepTurn(d, 3, r.Turn); got != "# Step 3:\n## Action:\nClick the File menu.\n" {
		t.Errorf("StepTurn = %q", got)
	}
	// Other dialects keep their turns as they are.
	q, _ := New("qwen3", Options{})
	if got := StepTurn(q, 3, "x"); got != "x" {
		t.Errorf("qwen3 StepTurn = %q", got)
	}
	p, _ := New("pyautogui", Options{})
	if got := StepTurn(p, 3, "x"); got != "x" {
		t.Errorf("pyautogui StepTurn = %q", got)
	}
	// Without an Action section the whole reply is kept.
	r, err = d.Parse("```python\npyautogui.click(x=0.5, y=0.5)\n```")
	if err != nil || r.Turn != "" {
		t.Errorf("no Action section: Turn %q, err %v", r.Turn, err)
	}
	// Cut by the token limit inside the code block: nothing runs.
	r, err = d.Parse("## Thought:\nI will type it.\n## Action:\nType the name.\n## Code:\n```python\npyautogui.click(x=0.5, y=0.5)\npyautogui.write(message='Ada Lov")
	var fe *FormatError
	if !errors.As(err, &fe) || !strings.Contains(fe.Reason, "ends inside its code block") || r.Code != "" {
		t.Errorf("cut reply: code %q, err %v", r.Code, err)
	}
	cut := "## Action:\nClick.\n## Code:\n```python\npyautogui.click(x=0.5, y=0.5)\n"
	if _, err := d.Parse(cut); err == nil {
		t.Errorf("a reply cut after a whole line ran: %q", cut)
	}
	obs := HistorianOf(d).Observation(Outcome{Task: "close it"})
	if !strings.HasSuffix(obs, "# Task Instruction:\nclose it\n\nPlease generate the next move according to the screenshot, task instruction and previous steps (if provided).\n") {
		t.Errorf("Observation = %q", obs)
	}
}
