package inspect

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/klippa-app/go-pdfium"
	"github.com/klippa-app/go-pdfium/enums"
	"github.com/klippa-app/go-pdfium/references"
	"github.com/klippa-app/go-pdfium/requests"
	"github.com/klippa-app/go-pdfium/structs"
)

// Bounds on reading a PDF's form (hostile files: a page of a million
// widgets, a list of a million options, a value of megabytes). PDFium
// itself bounds the field tree it builds (the depth of kids, cycles between
// fields and their parents).
const (
	maxPageAnnots   = 5000 // annotations looked at per page
	maxPageFields   = 1000 // form widgets read per page
	maxFieldOptions = 500  // options of a choice field looked at
	maxFieldValue   = 4000 // characters of one field's value kept
)

// formField is one widget of a filled-in AcroForm field on a page, read
// before the page is flattened: what it shows and where.
type formField struct {
	name  string  // the field's user name (/TU) or its full name (/T of it and its parents)
	value string  // the text, the chosen options, or a check mark
	mark  bool    // a check box or radio button: its own glyphs in the box are replaced
	rect  box     // the widget's rectangle in page space, when place
	size  float64 // the text size, 0 when automatic
	multi bool    // a multi-line text field
	place bool    // the widget has a usable rectangle
}

// formReader reads the form widgets of a document's pages. Most widgets
// carry their field's entries themselves (/FT, /T, /V) and are read from
// their own dictionary. A widget with a parent field, which may inherit
// entries from it (a radio button of a group), and a choice field's option
// labels, need
// PDFium's form environment, which is opened for the first such widget;
// opening it loads every field of the document, at a cost that grows with
// the square of their number (a minute for 20,000), so it is not opened for
// a page of more than maxEnvAnnots annotations.
type formReader struct {
	inst    pdfium.Pdfium
	doc     references.FPDF_DOCUMENT
	hasForm bool
	opened  bool
	env     references.FPDF_FORMHANDLE // "" when not open
}

// maxEnvAnnots is the most annotations a page may have for its widgets to
// open the form environment.
const maxEnvAnnots = 1000

func newFormReader(inst pdfium.Pdfium, doc references.FPDF_DOCUMENT) *formReader {
	ft, err := inst.FPDF_GetFormType(&requests.FPDF_GetFormType{Document: doc})
	return &formReader{inst: inst, doc: doc, hasForm: err == nil && ft.FormType != enums.FPDF_FORMTYPE_NONE}
}

// form returns the form environment, opening it on first use; ok is false
// when there is none to be had.
func (r *formReader) form(pageAnnots int) (references.FPDF_FORMHANDLE, bool) {
	if !r.hasForm || pageAnnots > maxEnvAnnots {
		return "", false
	}
	if !r.opened {
		r.opened = true
		// Reading needs none of the callbacks; the engine requires them
		// set. None that asks for a page is called (see daSize).
		info := structs.FPDF_FORMFILLINFO{
			FFI_Invalidate:         func(references.FPDF_PAGE, float64, float64, float64, float64) {},
			FFI_SetCursor:          func(enums.FXCT) {},
			FFI_SetTimer:           func(int, func(int)) int { return 0 },
			FFI_KillTimer:          func(int) {},
			FFI_GetLocalTime:       func() structs.FPDF_SYSTEMTIME { return structs.FPDF_SYSTEMTIME{} },
			FFI_GetPage:            func(references.FPDF_DOCUMENT, int) *references.FPDF_PAGE { return nil },
			FFI_GetRotation:        func(references.FPDF_PAGE) enums.FPDF_PAGE_ROTATION { return enums.FPDF_PAGE_ROTATION_NONE },
			FFI_ExecuteNamedAction: func(string) {},
		}
		if env, err := r.inst.FPDFDOC_InitFormFillEnvironment(&requests.FPDFDOC_InitFormFillEnvironment{Document: r.doc, FormFillInfo: info}); err == nil {
			r.env = env.FormHandle
		}
	}
	return r.env, r.env != ""
}

// close releases the form environment; call it before closing the document.
func (r *formReader) close() {
	if r.env != "" {
		r.inst.FPDFDOC_ExitFormFillEnvironment(&requests.FPDFDOC_ExitFormFillEnvironment{FormHandle: r.env})
		r.env = ""
	}
}

// pageFields reads the filled-in form widgets of a loaded page: text
// fields and choice fields with a value, check boxes and radio buttons
// (checked or not). Hidden widgets, push buttons and signatures are left
// out; so are password fields.
func (r *formReader) pageFields(page references.FPDF_PAGE) []formField {
	pg := requests.Page{ByReference: &page}
	count, err := r.inst.FPDFPage_GetAnnotCount(&requests.FPDFPage_GetAnnotCount{Page: pg})
	if err != nil || count.Count <= 0 {
		return nil
	}
	var out []formField
	for i := 0; i < count.Count && i < maxPageAnnots && len(out) < maxPageFields; i++ {
		a, err := r.inst.FPDFPage_GetAnnot(&requests.FPDFPage_GetAnnot{Page: pg, Index: i})
		if err != nil {
			continue
		}
		if f, ok := r.readField(a.Annotation, count.Count); ok {
			out = append(out, f)
		}
		r.inst.FPDFPage_CloseAnnot(&requests.FPDFPage_CloseAnnot{Annotation: a.Annotation})
	}
	return out
}

// PDF field flags (/Ff).
const (
	fieldMultiline  = 1 << 12
	fieldPassword   = 1 << 13
	fieldRadio      = 1 << 15
	fieldPushbutton = 1 << 16
	fieldCombo      = 1 << 17
)

// readField reads one annotation as a form widget; ok is false when it is
// none or shows nothing to read.
func (r *formReader) readField(a references.FPDF_ANNOTATION, pageAnnots int) (formField, bool) {
	inst := r.inst
	var f formField
	st, err := inst.FPDFAnnot_GetSubtype(&requests.FPDFAnnot_GetSubtype{Annotation: a})
	if err != nil || st.Subtype != enums.FPDF_ANNOT_SUBTYPE_WIDGET {
		return f, false
	}
	if fl, err := inst.FPDFAnnot_GetFlags(&requests.FPDFAnnot_GetFlags{Annotation: a}); err == nil &&
		fl.Flags&(enums.FPDF_ANNOT_FLAG_HIDDEN|enums.FPDF_ANNOT_FLAG_NOVIEW) != 0 {
		return f, false
	}
	own := func(key string) string {
		v, err := inst.FPDFAnnot_GetStringValue(&requests.FPDFAnnot_GetStringValue{Annotation: a, Key: key})
		if err != nil {
			return ""
		}
		return v.Value
	}
	ft := own("FT")
	var form references.FPDF_FORMHANDLE
	env := false
	if ft == "" || ft == "Ch" || hasKey(inst, a, "Parent") {
		// Entries may be inherited (a radio button's flags), or options
		// have labels.
		form, env = r.form(pageAnnots)
	}
	kind := enums.FPDF_FORMFIELD_TYPE_UNKNOWN
	flags := 0
	switch {
	case env:
		ty, err := inst.FPDFAnnot_GetFormFieldType(&requests.FPDFAnnot_GetFormFieldType{FormHandle: form, Annotation: a})
		if err != nil {
			return f, false
		}
		kind = ty.FormFieldType
		if ff, err := inst.FPDFAnnot_GetFormFieldFlags(&requests.FPDFAnnot_GetFormFieldFlags{FormHandle: form, Annotation: a}); err == nil {
			flags = int(ff.Flags)
		}
	case ft == "":
		return f, false // inherits its type, and the form cannot be read here
	default:
		if n, err := inst.FPDFAnnot_GetNumberValue(&requests.FPDFAnnot_GetNumberValue{Annotation: a, Key: "Ff"}); err == nil && n.Value > 0 && n.Value < 1<<30 {
			flags = int(n.Value)
		}
		switch {
		case ft == "Tx":
			kind = enums.FPDF_FORMFIELD_TYPE_TEXTFIELD
		case ft == "Ch" && flags&fieldCombo != 0:
			kind = enums.FPDF_FORMFIELD_TYPE_COMBOBOX
		case ft == "Ch":
			kind = enums.FPDF_FORMFIELD_TYPE_LISTBOX
		case ft == "Btn" && flags&fieldPushbutton != 0:
			kind = enums.FPDF_FORMFIELD_TYPE_PUSHBUTTON
		case ft == "Btn" && flags&fieldRadio != 0:
			kind = enums.FPDF_FORMFIELD_TYPE_RADIOBUTTON
		case ft == "Btn":
			kind = enums.FPDF_FORMFIELD_TYPE_CHECKBOX
		}
	}
	value := func() string {
		if !env {
			return truncRunes(own("V"), maxFieldValue)
		}
		v, err := inst.FPDFAnnot_GetFormFieldValue(&requests.FPDFAnnot_GetFormFieldValue{FormHandle: form, Annotation: a})
		if err != nil {
			return ""
		}
		return truncRunes(v.FormFieldValue, maxFieldValue)
	}
	switch kind {
	case enums.FPDF_FORMFIELD_TYPE_CHECKBOX, enums.FPDF_FORMFIELD_TYPE_RADIOBUTTON:
		// The state the widget shows: its appearance state (/AS), or
		// without one the field's value. FPDFAnnot_IsChecked needs the
		// engine's view of the page (see daSize).
		state := own("AS")
		if state == "" {
			state = value()
		}
		on := state != "" && state != "Off"
		f.value, f.mark = checkMark(kind == enums.FPDF_FORMFIELD_TYPE_RADIOBUTTON, on), true
	case enums.FPDF_FORMFIELD_TYPE_TEXTFIELD:
		if flags&fieldPassword != 0 {
			return f, false
		}
		f.multi = flags&fieldMultiline != 0
		f.value = value()
	case enums.FPDF_FORMFIELD_TYPE_COMBOBOX, enums.FPDF_FORMFIELD_TYPE_LISTBOX:
		if env {
			f.value = chosen(inst, form, a)
		}
		if f.value == "" {
			f.value = value()
		}
	default:
		return f, false // push buttons, signatures, XFA
	}
	f.value = strings.TrimSpace(f.value)
	if f.value == "" {
		return f, false
	}
	f.name = strings.TrimSpace(own("TU"))
	if f.name == "" && env {
		if n, err := inst.FPDFAnnot_GetFormFieldAlternateName(&requests.FPDFAnnot_GetFormFieldAlternateName{FormHandle: form, Annotation: a}); err == nil {
			f.name = strings.TrimSpace(n.FormFieldAlternateName)
		}
		if f.name == "" {
			if n, err := inst.FPDFAnnot_GetFormFieldName(&requests.FPDFAnnot_GetFormFieldName{FormHandle: form, Annotation: a}); err == nil {
				f.name = strings.TrimSpace(n.FormFieldName)
			}
		}
	}
	if f.name == "" {
		f.name = strings.TrimSpace(own("T"))
	}
	f.name = truncRunes(f.name, 200)
	// The size from the widget's own /DA; FPDFAnnot_GetFontSize would make
	// the engine ask for the page through a callback, which go-pdfium
	// answers by registering the document a second time (closed twice when
	// the instance is reused: a corrupt heap).
	f.size = daSize(own("DA"))
	if rr, err := inst.FPDFAnnot_GetRect(&requests.FPDFAnnot_GetRect{Annotation: a}); err == nil {
		rc := rr.Rect
		l, rt := float64(min(rc.Left, rc.Right)), float64(max(rc.Left, rc.Right))
		t, b := float64(max(rc.Top, rc.Bottom)), float64(min(rc.Top, rc.Bottom))
		if rt-l >= 1 && t-b >= 1 && rt-l < 1e5 && t-b < 1e5 {
			f.rect, f.place = box{left: l, right: rt, top: t, bottom: b}, true
		}
	}
	return f, true
}

func hasKey(inst pdfium.Pdfium, a references.FPDF_ANNOTATION, key string) bool {
	h, err := inst.FPDFAnnot_HasKey(&requests.FPDFAnnot_HasKey{Annotation: a, Key: key})
	return err == nil && h.HasKey
}

// daSize is the text size a default appearance string ("/Helv 12 Tf 0 g")
// sets, 0 when automatic or unset.
func daSize(da string) float64 {
	fs := strings.Fields(da)
	for i := len(fs) - 1; i >= 1; i-- {
		if fs[i] == "Tf" {
			if v, err := strconv.ParseFloat(fs[i-1], 64); err == nil && v > 0 && v < 1000 {
				return v
			}
			return 0
		}
	}
	return 0
}

// checkMark is how a check box or radio button reads.
func checkMark(radio, on bool) string {
	switch {
	case radio && on:
		return "◉"
	case radio:
		return "○"
	case on:
		return "☑"
	}
	return "☐"
}

// chosen is the labels of a choice field's selected options.
func chosen(inst pdfium.Pdfium, form references.FPDF_FORMHANDLE, a references.FPDF_ANNOTATION) string {
	n, err := inst.FPDFAnnot_GetOptionCount(&requests.FPDFAnnot_GetOptionCount{FormHandle: form, Annotation: a})
	if err != nil {
		return ""
	}
	var labels []string
	size := 0
	for i := 0; i < n.OptionCount && i < maxFieldOptions && size < maxFieldValue; i++ {
		sel, err := inst.FPDFAnnot_IsOptionSelected(&requests.FPDFAnnot_IsOptionSelected{FormHandle: form, Annotation: a, Index: i})
		if err != nil || !sel.IsOptionSelected {
			continue
		}
		l, err := inst.FPDFAnnot_GetOptionLabel(&requests.FPDFAnnot_GetOptionLabel{FormHandle: form, Annotation: a, Index: i})
		if err != nil || strings.TrimSpace(l.OptionLabel) == "" {
			continue
		}
		labels = append(labels, strings.TrimSpace(l.OptionLabel))
		size += len(l.OptionLabel)
	}
	return truncRunes(strings.Join(labels, ", "), maxFieldValue)
}

func truncRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n]) + "…"
}

// mergeFields adds form values to a page's text runs, each where its
// widget is, so the layout reads it with the page. A value the page already
// shows inside its widget (a field whose appearance, flattened into the
// page, draws it) is not added again; a value shown in part (a long value
// in a field that scrolls) replaces the part. A check box's or radio
// button's own glyphs in its box give way to its mark. Widgets without a
// usable rectangle are returned as unplaced.
func mergeFields(boxes []box, fields []formField) ([]box, []formField) {
	var unplaced []formField
	drop := make([]bool, len(boxes))
	var added []box
	for _, f := range fields {
		if !f.place {
			unplaced = append(unplaced, f)
			continue
		}
		var inside []int
		for i, b := range boxes {
			if !drop[i] && inWidget(b, f.rect) {
				inside = append(inside, i)
			}
		}
		if f.mark {
			for _, i := range inside {
				if utf8.RuneCountInString(strings.TrimSpace(boxes[i].text)) <= 2 {
					drop[i] = true
				}
			}
		} else if len(inside) > 0 {
			var shown strings.Builder
			for _, i := range inside {
				shown.WriteString(boxes[i].text)
			}
			have, want := squash(shown.String()), squash(f.value)
			switch {
			case strings.Contains(have, want):
				continue // already on the page
			case have != "" && strings.Contains(want, have):
				for _, i := range inside {
					drop[i] = true
				}
			}
		}
		added = append(added, fieldBoxes(f)...)
	}
	out := make([]box, 0, len(boxes)+len(added))
	for i, b := range boxes {
		if !drop[i] {
			out = append(out, b)
		}
	}
	return append(out, added...), unplaced
}

// inWidget reports whether a text run lies in a widget's rectangle: its
// middle is inside.
func inWidget(b, r box) bool {
	x, y := (b.left+b.right)/2, (b.top+b.bottom)/2
	return x >= r.left && x <= r.right && y >= r.bottom && y <= r.top
}

// squash folds text for comparing what a page shows with a value: letters
// and digits only, lower case.
func squash(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return unicode.ToLower(r)
		}
		return -1
	}, s)
}

// fieldBoxes places a field's value in its widget: one line centred in the
// rectangle, or for a multi-line field its lines from the top.
func fieldBoxes(f formField) []box {
	r := f.rect
	h := r.top - r.bottom
	size := f.size
	if size == 0 {
		size = min(h*0.8, 12)
	}
	lh := min(h, size*1.15)
	lines := strings.FieldsFunc(f.value, func(r rune) bool { return r == '\n' || r == '\r' })
	if len(lines) == 0 {
		return nil
	}
	var out []box
	top := r.top
	if !f.multi && len(lines) == 1 {
		top = (r.top+r.bottom)/2 + lh/2
	}
	for _, line := range lines {
		w := min(r.right-r.left, 0.5*size*float64(utf8.RuneCountInString(line)))
		out = append(out, box{left: r.left, right: r.left + max(w, 1), top: top, bottom: top - lh, text: line})
		top -= lh // lines past the rectangle's bottom go on below it, as a scrolled field would show them
	}
	return out
}

// formSection lists fields the page could not place, after its text.
func formSection(fields []formField) string {
	if len(fields) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("Form fields:")
	for _, f := range fields {
		name := f.name
		if name == "" {
			name = "(unnamed)"
		}
		fmt.Fprintf(&b, "\n%s: %s", name, strings.Join(strings.Fields(f.value), " "))
	}
	return b.String()
}
