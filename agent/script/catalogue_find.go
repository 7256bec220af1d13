package script

import "deskpilot/actions"

// groundBuiltins are the grounding builtins: controls found by their text
// (OCR), in the accessibility tree, or by the numbered marks of a
// set-of-marks screenshot, so the model names what to click instead of
// estimating where it is. The find_* ones look at the screen (kind screen);
// the click_* ones click (kind pointer: guarded, the screen watched after).
func groundBuiltins() []Tool {
	xy := `.x and .y are its centre in the screenshot's coordinates, ready for click(m.x, m.y); .w and .h its size`
	return []Tool{
		{Name: "find_text", Group: "grounding", Kind: KindScreen, Returns: "list[Match]",
			Doc: `Read the text on the screen now (OCR) and return where text appears, best match first: a list of matches, ` +
				`each with .text (what was read there), .x, .y, .w, .h, .score (1.0 = exactly the text asked, down to 0.6) and ` +
				`.kind: "button" (or the control's accessible role: "menu item", "link", "entry"...) when the text is on a ` +
				`control, "text" when it is plain text; a control comes before plain text of about the same score. ` +
				xy + `. By default case and spacing are ignored, a phrase matches across the words of one line and small reading ` +
				`errors are forgiven. An empty list means the text is not on the screen; the observation then says what was read ` +
				`that comes closest.`,
			Params: []Param{
				{Name: "text", Type: "str", Doc: `the visible text to look for: a label, a button's caption, a menu item, e.g. "Save as".`},
				{Name: "exact", Type: "bool", Default: "False", Doc: "True: only the same letters in the same case, as whole words."},
			}},
		{Name: "click_text", Group: "grounding", Kind: KindPointer, Target: actions.TargetText, Gesture: actions.GestureClick,
			Doc: `Click the centre of visible text on the screen, found as find_text finds it: click_text("OK") clicks the best ` +
				`match. An error, naming the closest text read, when it is not on the screen.`,
			Params: []Param{
				{Name: "text", Type: "str", Doc: "the visible text to click."},
				{Name: "index", Type: "int", Default: "0", Doc: "which match to click, in find_text's order (0 = the best)."},
			}},
		{Name: "find_elements", Group: "grounding", Kind: KindScreen, Returns: "list[Element]",
			Doc: `Return the accessible elements (buttons, fields, check boxes, menu items, labels...) visible on the screen that ` +
				`match, best first: each with .name, .role ("push button", "text", "check box"...), .x, .y, .w, .h, .states ` +
				`(e.g. ["enabled", "focused", "checked"]) and .text (a field's content). ` + xy + `. Apps without an ` +
				`accessibility tree (Tk, Xaw, games) have no elements: use find_text for them.`,
			Params: []Param{
				{Name: "name", Type: "str | None", Default: "None", Doc: "part of the element's name, any case; None for any name."},
				{Name: "role", Type: "str | None", Default: "None", Doc: `a role, e.g. "button", "checkbox", "textbox", "menuitem", "link"; None for any.`},
				{Name: "states", Type: "list[str] | None", Default: "None", Doc: `states that must hold, e.g. ["checked"]; "!checked" or "disabled" for ones that must not.`},
			}},
		{Name: "click_element", Group: "grounding", Kind: KindPointer, Target: actions.TargetElement, Gesture: actions.GestureClick,
			Doc: `Click the centre of the accessible element best matching name (and role), e.g. click_element("Save", role="button"). ` +
				`A text field is focused before the call returns, ready for type_text. An error listing the elements there are ` +
				`when none matches.`,
			Params: []Param{
				{Name: "name", Type: "str", Doc: "the element's name or part of it, any case."},
				{Name: "role", Type: "str | None", Default: "None", Doc: `its role, e.g. "button" or "textbox"; None for any.`},
			}},
		{Name: "click_mark", Group: "grounding", Kind: KindPointer, Target: actions.TargetMark, Gesture: actions.GestureClick,
			Doc: `Click the centre of box n of the set-of-marks screenshot: the newest screenshot shows numbered boxes over the ` +
				`controls, listed in the observation as [n] role "name".`,
			Params: []Param{{Name: "n", Type: "int", Doc: "the number of the box, as drawn on the newest screenshot."}}},
	}
}
