package script

import (
	"fmt"
	"slices"

	"deskpilot/actions"

	"go.starlark.net/starlark"
)

// Kind says what a builtin acts on. The agent derives how it treats a call from
// it: builtins that act on the desktop pass its guard (takeover, deskpilot's own
// window, the confirmation policy) and are followed by watching the screen
// settle; the others are not. The app colours each kind in its own way.
type Kind string

// The kinds of builtins.
const (
	KindPointer  Kind = "pointer"  // the mouse at a point on the screen
	KindKeyboard Kind = "keyboard" // keys and typed text
	KindApp      Kind = "app"      // starts programs or opens pages on the desktop
	KindScreen   Kind = "screen"   // looks at the screen; never acts on it
	KindResearch Kind = "research" // the text browser and the file inspector, off the screen
	KindControl  Kind = "control"  // the run itself: final_answer, ask_user, wait
	// KindReplay checks a replayed run against its recording. Its builtins
	// exist only in replays (`deskpilot replay`, `deskpilot play`): a run
	// with a model never registers them, so they are not in its prompt.
	KindReplay Kind = "replay"
)

// Acts reports whether builtins of kind k act on the desktop: they are guarded
// and the screen is watched after them.
func (k Kind) Acts() bool { return k == KindPointer || k == KindKeyboard || k == KindApp }

// The confirmation policy's entries (config `confirm`): a builtin's Risk names
// the entry that makes the person approve its calls.
const (
	RiskLaunch      = "launch"       // launch(): every program started
	RiskOpenURL     = "open_url"     // open_url(): every page opened in the desktop browser
	RiskCloseCombos = "close_combos" // press()/hold() of a combo that closes windows or ends the session
	// RiskSendAfterRead: a run that read a file under the home folder sends
	// data to a domain it has not reached before (visit_page, web_search,
	// open_url): what it read could leave with it.
	RiskSendAfterRead = "send_after_read"
	defaultGroupName  = "other"
)

// Checkpoint is the name of the replay builtin checkpoint(step): the agent
// binds it in replays, and a played script's checkpoint lines split it into
// the segments it checks.
const Checkpoint = "checkpoint"

// Builtins is the catalogue: every builtin deskpilot offers the model, declared
// once with its metadata and without its implementation. The prompt's tool list
// (in this order), the guard, the off-screen rule, the policy and the app's
// highlighting all derive from it. Implementations bind to an entry by name
// (builtin); adding a builtin is one entry here plus its Fn. The slice is new on
// each call.
func Builtins() []Tool {
	xy := []Param{
		{Name: "x", Type: "int", Doc: "horizontal position in the screenshot's coordinates (0 is the left edge)."},
		{Name: "y", Type: "int", Doc: "vertical position in the screenshot's coordinates (0 is the top edge)."},
	}
	corners := []Param{
		{Name: "x1", Type: "int", Doc: "x of the first corner."},
		{Name: "y1", Type: "int", Doc: "y of the first corner."},
		{Name: "x2", Type: "int", Doc: "x of the second corner."},
		{Name: "y2", Type: "int", Doc: "y of the second corner."},
	}
	keys := Param{Name: "keys", Type: "str", Doc: `a key or a combination joined with "+", e.g. "enter", "tab", "ctrl+s", "ctrl+shift+t".`}
	url := Param{Name: "url", Type: "str", Doc: `an http(s) address, e.g. "https://en.wikipedia.org/wiki/Starlark", or "[N]" for link N of the current page.`}
	return withLimits(slices.Concat(
		pointerBuiltins(xy),
		[]Tool{
			{Name: "type_text", Group: "keyboard", Kind: KindKeyboard, Types: actions.TypesText,
				Doc:    "Type text at the keyboard focus as if on a keyboard; any Unicode works. Click the field first; use press() for enter, tab and shortcuts.",
				Params: []Param{{Name: "text", Type: "str", Doc: "the text to type."}}},
			{Name: "type_secret", Group: "keyboard", Kind: KindKeyboard, Types: actions.TypesSecret,
				Doc:    "Type the stored secret called name (a password or token) at the keyboard focus. You never see its value and it is never logged.",
				Params: []Param{{Name: "name", Type: "str", Doc: "the secret's name, as given in the task."}}},
			{Name: "press", Group: "keyboard", Kind: KindKeyboard, Risk: RiskCloseCombos,
				Doc:    `Press a key or key combination and release it, e.g. press("enter"), press("ctrl+s"), press("alt+f4").`,
				Params: []Param{keys}},
			{Name: "hold", Group: "keyboard", Kind: KindKeyboard, Risk: RiskCloseCombos,
				Doc:    fmt.Sprintf("Hold a key or combination down for some seconds (at most %d), then release it.", int(MaxHold.Seconds())),
				Params: []Param{keys, {Name: "seconds", Type: "float", Doc: "how long to hold."}}},
		},
		screenBuiltins(corners),
		groundBuiltins(),
		[]Tool{
			{Name: "ask_user", Group: "control", Kind: KindControl, Returns: "str",
				Doc:    "Hands the wheel to the person: shows them the question and returns their reply. Use it for choices, missing information or confirmation only they can give.",
				Params: []Param{{Name: "question", Type: "str", Doc: "what you need to know, in one or two sentences"}}},
			{Name: "launch", Group: "apps", Kind: KindApp, Risk: RiskLaunch,
				Doc:    "Starts a desktop program on this display. The person may be asked to approve it.",
				Params: []Param{{Name: "app", Type: "str", Doc: `program and arguments, e.g. "gedit notes.txt" (no shell syntax)`}}},
			{Name: "open_url", Group: "apps", Kind: KindApp, Risk: RiskOpenURL, Sends: []string{"url"},
				Doc:    "Opens the address in the desktop's web browser (to read pages as text, use visit_page instead). The person may be asked to approve it.",
				Params: []Param{{Name: "url", Type: "str", Doc: "an http or https address"}}},
		},
		researchBuiltins(url),
		[]Tool{{Name: Checkpoint, Group: "replay", Kind: KindReplay,
			Doc:    "Compare the screen with the frame this step saw when the run was recorded, and the neighbourhood of each point its pointer actions aimed at. When they differ the script stops before acting (exit 4) unless played with --force; with --adapt, targets found elsewhere on the screen are clicked there.",
			Params: []Param{{Name: "step", Type: "int", Doc: "the recorded step whose frame the screen must look like."}}}},
		[]Tool{{Name: "final_answer", Group: "control", Kind: KindControl,
			Doc: "Give the final answer and end the task. The block stops here, even inside a function.",
			Params: []Param{{Name: "answer", Type: "Any",
				Doc: "the answer to the task; a string is given as-is, any other value as str(value)."}}}},
	))
}

func pointerBuiltins(xy []Param) []Tool {
	mods := Param{Name: "modifiers", Type: "str", Default: `""`,
		Doc: `modifier keys held down during the action, joined with "+": "shift" (extend a selection), "ctrl" (add to it), "ctrl+shift"; "" holds none.`}
	with := func(ps ...Param) []Param { return append(slices.Clone(ps), mods) }
	return []Tool{
		{Name: "click", Group: "mouse", Kind: KindPointer, Target: actions.TargetXY, Grounded: true, Gesture: actions.GestureClick,
			Doc:    "Move the mouse to (x, y) and click there.",
			Params: with(append(slices.Clone(xy), Param{Name: "button", Type: "str", Default: `"left"`, Doc: `"left", "right" or "middle".`})...)},
		{Name: "double_click", Group: "mouse", Kind: KindPointer, Target: actions.TargetXY, Grounded: true, Gesture: actions.GestureDouble, Params: with(xy...),
			Doc: "Double-click the left button at (x, y), e.g. to open a file or select a word."},
		{Name: "right_click", Group: "mouse", Kind: KindPointer, Target: actions.TargetXY, Grounded: true, Gesture: actions.GestureRight, Params: with(xy...),
			Doc: "Click the right button at (x, y), usually to open a context menu."},
		{Name: "move", Group: "mouse", Kind: KindPointer, Target: actions.TargetXY, Grounded: true, Gesture: actions.GestureMove, Params: with(xy...),
			Doc: "Move the mouse to (x, y) without clicking, e.g. to hover over a menu or tooltip. With the button held by mouse_down, this drags."},
		{Name: "drag", Group: "mouse", Kind: KindPointer, Target: actions.TargetXY, Grounded: true, Gesture: actions.GestureDrag,
			Doc: "Press the left button at (x1, y1), move to (x2, y2) and release: drag and drop, select text, move a slider.",
			Params: with(
				Param{Name: "x1", Type: "int", Doc: "x where the drag starts."},
				Param{Name: "y1", Type: "int", Doc: "y where the drag starts."},
				Param{Name: "x2", Type: "int", Doc: "x where it ends."},
				Param{Name: "y2", Type: "int", Doc: "y where it ends."},
			)},
		{Name: "scroll", Group: "mouse", Kind: KindPointer, Target: actions.TargetXY, Gesture: actions.GestureScroll,
			Doc: "Move the mouse to (x, y) and turn the wheel there.",
			Params: with(append(slices.Clone(xy),
				Param{Name: "direction", Type: "str", Default: `"down"`, Doc: `"up", "down", "left" or "right".`},
				Param{Name: "amount", Type: "int", Default: "3", Doc: fmt.Sprintf("wheel clicks, 1 to %d (one click is about three lines of text).", MaxScroll)})...)},
		{Name: "mouse_down", Group: "mouse", Kind: KindPointer, Target: actions.TargetXY, Gesture: actions.GesturePress, Params: xy,
			Doc: "Press the left button at (x, y) and keep it down, to drag over several steps: move() then drags, mouse_up() releases it. The run releases it when it ends. For a drag within one block, use drag()."},
		{Name: "mouse_up", Group: "mouse", Kind: KindPointer, Target: actions.TargetXY, Gesture: actions.GestureRelease, Params: xy,
			Doc: "Move to (x, y) with the left button held by mouse_down() and release it there: the drop of a drag."},
		{Name: locateName, Group: "mouse", Kind: KindScreen, Target: actions.TargetGrounder, Returns: "tuple[int, int]",
			Doc: "Find an element on the screen as it is now and return its centre (x, y) in the screenshot's coordinates, without acting. A grounding model looks for it; when it finds none, locate fails. Offered only when a grounder is configured.",
			Params: []Param{{Name: "description", Type: "str",
				Doc: `the element as you would point it out to a person: its text or icon, its kind and where it is, e.g. "the Save button at the bottom of the form".`}}},
	}
}

// locateName is the builtin that finds a described element with the
// grounder; a grounded click logs its grounding as a call of it.
const locateName = "locate"

// MaxDescription is the longest element description, in bytes, the grounded
// builtins take.
const MaxDescription = 500

// groundedBuiltin returns entry t as a run with a grounder offers it: a
// Grounded entry also takes a description of an element instead of x, y (a
// drag a description for each end); its doc shows both forms. Other entries
// come back unchanged.
func groundedBuiltin(t Tool) Tool {
	desc := func(name, axis string) Param {
		return Param{Name: name, Type: "int | str", MaxLen: MaxDescription,
			Doc: axis + ` position in the screenshot's coordinates, or a description of the element, e.g. "the Save button".`}
	}
	none := func(name, doc string) Param {
		return Param{Name: name, Type: "int | None", Default: "None", MaxLen: numberLen, Doc: doc + "; left out with a description."}
	}
	switch {
	case !t.Grounded:
	case t.Gesture != actions.GestureDrag:
		t.Params = slices.Clone(t.Params)
		t.Params[0], t.Params[1] = desc("x", "horizontal"), none("y", "vertical position")
		t.Doc += fmt.Sprintf(` Or describe the element instead of giving x, y, e.g. %s("the Save button"): a grounding model finds it on the screen as it is now, and the observation says where it acted.`, t.Name)
	default:
		t.Params = slices.Clone(t.Params)
		t.Params[0] = desc("x1", "the start's horizontal")
		t.Params[1] = Param{Name: "y1", Type: "int | str", MaxLen: MaxDescription, Doc: "y where the drag starts, or a description of the element where it ends."}
		t.Params[2], t.Params[3] = none("x2", "x where it ends"), none("y2", "y where it ends")
		t.Doc += ` Or describe both ends, e.g. drag("the report.pdf icon", "the Trash icon"): a grounding model finds them on the screen as it is now.`
	}
	return t
}

func screenBuiltins(corners []Param) []Tool {
	return []Tool{
		{Name: "screenshot", Group: "screen", Kind: KindScreen,
			Doc: "Capture the screen now and show it with the next observation. A fresh screenshot follows every block anyway; use this to see a state in between."},
		{Name: "zoom", Group: "screen", Kind: KindScreen, Params: corners,
			Doc: "Show the region between corners (x1, y1) and (x2, y2) at the screen's full resolution with the next observation, to read small text. Positions in the zoomed image are not screen coordinates: keep using the screenshot's."},
		{Name: "screen_size", Group: "screen", Kind: KindScreen, Returns: "tuple[int, int]",
			Doc: "Return (width, height) of the coordinate space you click in: the screenshot's size in pixels, or (1000, 1000) for normalised coordinates."},
		{Name: "cursor_position", Group: "screen", Kind: KindScreen, Returns: "tuple[int, int] | None",
			Doc: "Return the mouse position (x, y) in the screenshot's coordinates, or None when the mouse is on another display."},
		{Name: "wait", Group: "screen", Kind: KindControl,
			Doc:    fmt.Sprintf("Pause, e.g. while a page or app loads (at most %d seconds per call). Waiting does not count toward the block's time limit.", int(MaxWait.Seconds())),
			Params: []Param{{Name: "seconds", Type: "float", Doc: "how long to wait."}}},
	}
}

func researchBuiltins(url Param) []Tool {
	return []Tool{
		{Name: "web_search", Group: "browser", Kind: KindResearch, Returns: "str", Sends: []string{"query", "year"},
			Doc: `Search the web and return the results as text: a numbered list of titles with links, dates and snippets. Print it to read it, e.g. print(web_search("tallest building in Europe")), then open a result with visit_page(link).`,
			Params: []Param{
				{Name: "query", Type: "str", Doc: "what to search for, as you would type it into a search engine."},
				{Name: "year", Type: "int | None", Default: "None", Doc: "only results published in this year, e.g. 2023; None for any time."},
			}},
		{Name: "visit_page", Group: "browser", Kind: KindResearch, Returns: "str", Params: []Param{url}, Sends: []string{"url"},
			Doc: `Open a web page and return its first viewport as text: a header (Address, Title, "Viewport position: Showing page X of Y.") and a few thousand characters of the page as markdown, the article first. Links show as [text][N] with their sites listed below the viewport; visit_page("[N]") follows link N of the current page. A file (PDF, Office document, archive) is downloaded and returned as text, saying where it was saved. Print the result to read it.`},
		{Name: "page_down", Group: "browser", Kind: KindResearch, Returns: "str",
			Doc: "Scroll the current page one viewport down and return that viewport, with the header. At the last viewport it stays there."},
		{Name: "page_up", Group: "browser", Kind: KindResearch, Returns: "str",
			Doc: "Scroll the current page one viewport up and return that viewport, with the header. At the first viewport it stays there."},
		{Name: "find_on_page", Group: "browser", Kind: KindResearch, Returns: "str",
			Doc:    "Find text on the current page, ignoring case and punctuation; * matches any run of characters. The search starts at the current viewport and wraps around to the top. Return the viewport holding the first match, or a message saying it was not found.",
			Params: []Param{{Name: "text", Type: "str", Doc: `the words to find, e.g. "population" or "founded in *".`}}},
		{Name: "find_next", Group: "browser", Kind: KindResearch, Returns: "str",
			Doc: "Return the viewport holding the next match of the last find_on_page, wrapping around to the top."},
		{Name: "archived_url", Group: "browser", Kind: KindResearch, Returns: "str", Sends: []string{"url", "date"},
			Doc: "Open the Wayback Machine's copy of a page as it was near a date (or its nearest snapshot) and return the first viewport, like visit_page. Use it for pages that have changed or are gone.",
			Params: []Param{
				{Name: "url", Type: "str", Doc: "the address of the page as it was then."},
				{Name: "date", Type: "str", Doc: `the date as "YYYYMMDD", e.g. "20200131".`},
			}},
		{Name: "inspect_file", Group: "files", Kind: KindResearch, Returns: "str", Sends: []string{"question"},
			Doc: `Read a local file and return its content as markdown text: plain text, Markdown, CSV/TSV, JSON, XML, RSS/Atom, HTML, PDF (with page markers), DOCX, XLSX (a table per sheet), PPTX (a section per slide), EPUB, notebooks, ZIP (a listing and its first files; read a member as "archive.zip/member") and images (size, format and a caption). A long file comes a part at a time, ending with a note that says how to read on (page=N). With a question, a model reads the file and its answer is returned instead of the text. Print the result to read it.`,
			Params: []Param{
				{Name: "path", Type: "str", Doc: `the file: an absolute path, "~/..." or the path a download was saved to.`},
				{Name: "question", Type: "str | None", Default: "None", Doc: `a question about the file, e.g. "What is the total in the last row?"; None returns the text.`},
				{Name: "page", Type: "int", Default: "1", Doc: "where to start in a long file: for a PDF the page number, for other files the part (as the note at the end of the previous part says)."},
			}},
	}
}

// Traits returns the traits of every builtin of the catalogue, by name, for
// action records that carry none (traces written before records carried
// them: trace.Trace.FillTraits). The map is new on each call.
func Traits() map[string]actions.Traits {
	out := map[string]actions.Traits{}
	for _, t := range Builtins() {
		out[t.Name] = t.Traits()
	}
	return out
}

// Builtin returns the catalogue's entry called name with fn as its
// implementation. An unknown name is a programming error: it panics.
func Builtin(name string, fn func(c *Call, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error)) Tool {
	for _, t := range Builtins() {
		if t.Name == name {
			t.Fn = fn
			return t
		}
	}
	panic("script: no builtin " + name + " in the catalogue")
}
