package dialect

import (
	"fmt"
	"strings"
)

// The computer_use tool Fara-7B was trained on, kept as Fara's agent
// declares it (microsoft/fara@360e87fceebcf96c6e80d2b15b2ea6da802078ea,
// src/fara/_prompts.py, FaraComputerUse, with the press_enter and
// delete_existing_text arguments the agent turns on). Only the screen
// resolution varies.

func faraDescription(w, h int) string {
	return strings.Join([]string{
		"Use a mouse and keyboard to interact with a computer, and take screenshots.",
		"* This is an interface to a desktop GUI. You do not have access to a terminal or applications menu. You must click on desktop icons to start applications.",
		"* Some applications may take time to start or process actions, so you may need to wait and take successive screenshots to see the results of your actions. E.g. if you click on Firefox and a window doesn't open, try wait and taking another screenshot.",
		fmt.Sprintf("* The screen's resolution is %dx%d.", w, h),
		"* Whenever you intend to move the cursor to click on an element like an icon, you should consult a screenshot to determine the coordinates of the element before moving the cursor.",
		"* If you tried clicking on a program or link but it failed to load, even after waiting, try adjusting your cursor position so that the tip of the cursor visually falls on the element that you want to click.",
		"* Make sure to click any buttons, links, icons, etc with the cursor tip in the center of the element. Don't click boxes on their edges unless asked.",
		"* When a separate scrollable container prominently overlays the webpage, if you want to scroll within it, you typically need to mouse_move() over it first and then scroll().",
		"* If a popup window appears that you want to close, if left_click() on the 'X' or close button doesn't work, try key(keys=['Escape']) to close it.",
		"* On some search bars, when you type(), you may need to press_enter=False and instead separately call left_click() on the search button to submit the search query. This is especially true of search bars that have auto-suggest popups for e.g. locations",
		"* For calendar widgets, you usually need to left_click() on arrows to move between months and left_click() on dates to select them; type() is not typically used to input dates there.",
		"* If asked to monitor a page for changes, you can use wait() to pause for a while and avoid busy-waiting. You may need to follow that with refresh() to see the latest content.",
	}, "\n")
}

const faraActionDescription = "The action to perform. The available actions are:\n" +
	"* `key`: Performs key down presses on the arguments passed in order, then performs key releases in reverse order. Includes \"Enter\", \"Alt\", \"Shift\", \"Tab\", \"Control\", \"Backspace\", \"Delete\", \"Escape\", \"ArrowUp\", \"ArrowDown\", \"ArrowLeft\", \"ArrowRight\", \"PageDown\", \"PageUp\", \"Shift\", etc.\n" +
	"* `type`: Type a string of text on the keyboard.\n" +
	"* `mouse_move`: Move the cursor to a specified (x, y) pixel coordinate on the screen.\n" +
	"* `left_click`: Click the left mouse button.\n" +
	"* `scroll`: Performs a scroll of the mouse scroll wheel.\n" +
	"* `visit_url`: Visit a specified URL.\n" +
	"* `web_search`: Perform a web search with a specified query.\n" +
	"* `history_back`: Go back to the previous page in the browser history.\n" +
	"* `pause_and_memorize_fact`: Pause and memorize a fact for future reference.\n" +
	"* `wait`: Wait specified number of seconds (e.g., for a page to load or a change to happen).\n" +
	"* `refresh`: Refresh the current webpage to update its content.\n" +
	"* `terminate`: Terminate the current task and report its completion status."

// faraTool is the computer_use function as Fara's agent declares it.
func faraTool(w, h int) jsonObj {
	str := func(d string) jsonObj { return jsonObj{{"description", d}, {"type", "string"}} }
	params := jsonObj{
		{"properties", jsonObj{
			{"action", jsonObj{{"description", faraActionDescription}, {"enum", []string{"key", "type", "mouse_move", "left_click", "scroll",
				"visit_url", "web_search", "history_back", "pause_and_memorize_fact", "wait", "refresh", "terminate"}}, {"type", "string"}}},
			{"keys", jsonObj{{"description", "Required only by `action=key`."}, {"type", "array"}}},
			{"text", str("Required only by `action=type`.")},
			{"press_enter", jsonObj{{"description", "Whether to press the Enter key after typing. Required only by `action=type`."}, {"type", "boolean"}}},
			{"delete_existing_text", jsonObj{{"description", "Whether to delete existing text before typing. Required only by `action=type`."}, {"type", "boolean"}}},
			{"coordinate", jsonObj{{"description", "(x, y): The x (pixels from the left edge) and y (pixels from the top edge) coordinates to move the mouse to. Required only by `action=left_click`, `action=mouse_move`, and `action=type`."}, {"type", "array"}}},
			{"pixels", jsonObj{{"description", "The amount of scrolling to perform. Positive values scroll up, negative values scroll down. Required only by `action=scroll`."}, {"type", "number"}}},
			{"url", str("The URL to visit. Required only by `action=visit_url`.")},
			{"query", str("The query to search for. Required only by `action=web_search`.")},
			{"fact", str("The fact to remember for the future. Required only by `action=pause_and_memorize_fact`.")},
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
			{"description", faraDescription(w, h)},
			{"parameters", params},
			{"args_format", "Format the arguments as a JSON object."},
		}},
	}
}
