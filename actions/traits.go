package actions

// Traits are what the builtin catalogue (agent/script's Builtins) declares
// about a builtin's actions, recorded with each action (Record) so that whoever
// reads an action later (the trace's overlay, the dataset's redaction, the
// next observation's marks) asks the action, never a list of builtin names.
// The zero value says nothing: no point, no gesture, no typing.
type Traits struct {
	// Target says how the action's screen point (Record.Screen) was found;
	// "" = it has none.
	Target Target
	// Gesture is what a pointer action does at its point; "" = it does not
	// act at one (it may still carry a point it found, locate).
	Gesture Gesture
	// Types says what it types at the keyboard focus; "" = nothing.
	Types Typing
}

// Target says how the screen point an action acts at (or finds) is
// determined.
type Target string

// The targets.
const (
	TargetXY       Target = "xy"       // the model's own coordinates, the x and y parameters
	TargetText     Target = "text"     // the centre of text read on the screen (OCR)
	TargetElement  Target = "element"  // the centre of an accessible element found by name and role
	TargetMark     Target = "mark"     // the centre of a numbered box of a set-of-marks screenshot
	TargetGrounder Target = "grounder" // where a grounding model found a described element
)

// Gesture is what a pointer action does at its point. Its value names the
// marker a report draws for it.
type Gesture string

// The gestures.
const (
	GestureClick  Gesture = "click"  // presses and releases a button once (any button)
	GestureDouble Gesture = "double" // a double click of the left button
	GestureRight  Gesture = "right"  // a click of the right button
	GestureMove   Gesture = "move"   // moves the pointer there, no button
	GestureScroll Gesture = "scroll" // turns the wheel there, no button
	GestureDrag   Gesture = "drag"   // presses at the point, releases at a second one (Record.To)
	// GesturePress presses the left button at the point and keeps it down
	// (a drag over several steps); GestureRelease lets it go there.
	GesturePress   Gesture = "press"
	GestureRelease Gesture = "release"
)

// Presses reports whether g presses a mouse button at its point, which gives
// the keyboard focus to what is there: the field the next typed text goes to.
func (g Gesture) Presses() bool {
	switch g {
	case GestureClick, GestureDouble, GestureRight, GestureDrag, GesturePress:
		return true
	}
	return false
}

// Typing says what an action types at the keyboard focus.
type Typing string

// The kinds of typing.
const (
	TypesText   Typing = "text"   // text the model wrote, given as an argument
	TypesSecret Typing = "secret" // a stored secret named by the model, its value never shown
)
