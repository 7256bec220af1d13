package desktop

// Finding is one line of a Wayland diagnosis.
type Finding struct {
	Name   string
	OK     bool   // false: it breaks the backend in use, or is needed and missing
	Note   bool   // informational: neither passes nor fails
	Detail string // what was found
	Fix    string // what to do, when not OK
}
