package dialect

import (
	"fmt"
	"strings"
)

// The computer_use tool is the interface Qwen2.5-VL and Qwen3-VL were
// trained on: its description, actions and arguments are kept as the Qwen
// cookbooks declare them (Qwen-Agent's function schema, rendered by its
// Nous function-calling template). Only the screen resolution varies.

func qwenToolDescription(v3 bool, w, h int) string {
	edges := "Don't click boxes on their edges unless asked."
	if v3 {
		edges = "Don't click boxes on their edges."
	}
	return strings.Join([]string{
		"Use a mouse and keyboard to interact with a computer, and take screenshots.",
		"* This is an interface to a desktop GUI. You do not have access to a terminal or applications menu. You must click on desktop icons to start applications.",
		"* Some applications may take time to start or process actions, so you may need to wait and take successive screenshots to see the results of your actions. E.g. if you click on Firefox and a window doesn't open, try wait and taking another screenshot.",
		fmt.Sprintf("* The screen's resolution is %dx%d.", w, h),
		"* Whenever you intend to move the cursor to click on an element like an icon, you should consult a screenshot to determine the coordinates of the element before moving the cursor.",
		"* If you tried clicking on a program or link but it failed to load, even after waiting, try adjusting your cursor position so that the tip of the cursor visually falls on the element that you want to click.",
		"* Make sure to click any buttons, links, icons, etc with the cursor tip in the center of the element. " + edges,
	}, "\n")
}

func qwenActionDescription(v3 bool) string {
	at := func(what string) string {
		if v3 {
			return what + " at a specified (x, y) pixel coordinate on the screen."
		}
		return what + "."
	}
	lines := []string{
		"The action to perform. The available actions are:",
		"* `key`: Performs key down presses on the arguments passed in order, then performs key releases in reverse order.",
		"* `type`: Type a string of text on the keyboard.",
		"* `mouse_move`: Move the cursor to a specified (x, y) pixel coordinate on the screen.",
		"* `left_click`: " + at("Click the left mouse button"),
		"* `left_click_drag`: Click and drag the cursor to a specified (x, y) pixel coordinate on the screen.",
		"* `right_click`: " + at("Click the right mouse button"),
		"* `middle_click`: " + at("Click the middle mouse button"),
		"* `double_click`: " + at("Double-click the left mouse button"),
	}
	if v3 {
		lines = append(lines, "* `triple_click`: Triple-click the left mouse button at a specified (x, y) pixel coordinate on the screen (simulated as double-click since it's the closest action).")
	}
	lines = append(lines, "* `scroll`: Performs a scroll of the mouse scroll wheel.")
	if v3 {
		lines = append(lines, "* `hscroll`: Performs a horizontal scroll (mapped to regular scroll).")
	}
	lines = append(lines,
		"* `wait`: Wait specified seconds for the change to happen.",
		"* `terminate`: Terminate the current task and report its completion status.")
	if v3 {
		lines = append(lines, "* `answer`: Answer a question.")
	}
	return strings.Join(lines, "\n")
}

// qwenTool is the computer_use function as Qwen-Agent declares it.
func qwenTool(v3 bool, w, h int) jsonObj {
	enum := []string{"key", "type", "mouse_move", "left_click", "left_click_drag", "right_click", "middle_click", "double_click"}
	if v3 {
		enum = append(enum, "triple_click", "scroll", "hscroll", "wait", "terminate", "answer")
	} else {
		enum = append(enum, "scroll", "wait", "terminate")
	}
	text, coord, pixels := "Required only by `action=type`.",
		"(x, y): The x (pixels from the left edge) and y (pixels from the top edge) coordinates to move the mouse to. Required only by `action=mouse_move` and `action=left_click_drag`.",
		"The amount of scrolling to perform. Positive values scroll up, negative values scroll down. Required only by `action=scroll`."
	if v3 {
		text = "Required only by `action=type` and `action=answer`."
		coord = "(x, y): The x (pixels from the left edge) and y (pixels from the top edge) coordinates to move the mouse to."
		pixels = "The amount of scrolling to perform. Positive values scroll up, negative values scroll down. Required only by `action=scroll` and `action=hscroll`."
	}
	params := jsonObj{
		{"properties", jsonObj{
			{"action", jsonObj{{"description", qwenActionDescription(v3)}, {"enum", enum}, {"type", "string"}}},
			{"keys", jsonObj{{"description", "Required only by `action=key`."}, {"type", "array"}}},
			{"text", jsonObj{{"description", text}, {"type", "string"}}},
			{"coordinate", jsonObj{{"description", coord}, {"type", "array"}}},
			{"pixels", jsonObj{{"description", pixels}, {"type", "number"}}},
			{"time", jsonObj{{"description", "The seconds to wait. Required only by `action=wait`."}, {"type", "number"}}},
			{"status", jsonObj{{"description", "The status of the task. Required only by `action=terminate`."}, {"type", "string"}, {"enum", []string{"success", "failure"}}}},
		}},
		{"required", []string{"action"}},
		{"type", "object"},
	}
	return jsonObj{
		{"type", "function"},
		{"function", jsonObj{
			{"name_for_human", "computer_use"},
			{"name", "computer_use"},
			{"description", qwenToolDescription(v3, w, h)},
			{"parameters", params},
			{"args_format", "Format the arguments as a JSON object."},
		}},
	}
}

// qwenToolsBlock is the "# Tools" section of Qwen's function-calling system
// prompt (Qwen-Agent's Nous template) for the computer_use tool.
func qwenToolsBlock(v3 bool, w, h int) string {
	return "# Tools\n\nYou may call one or more functions to assist with the user query.\n\n" +
		"You are provided with function signatures within <tools></tools> XML tags:\n<tools>\n" +
		pyJSON(qwenTool(v3, w, h)) + "\n</tools>\n\n" +
		"For each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:\n" +
		"<tool_call>\n{\"name\": <function-name>, \"arguments\": <args-json-object>}\n</tool_call>"
}
