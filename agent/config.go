package agent

import (
	"image"

	"deskpilot/agent/dialect"
	"deskpilot/vision"
)

// Config is what a run needs to know, resolved by its caller (internal/config
// owns the settings and their sources; internal/wiring turns them into this).
// The zero value of each field means the documented default.
type Config struct {
	Model   string // model name, recorded in the trace and the events
	BaseURL string // endpoint, recorded in the trace (without credentials)
	// Dialect is the reply format the model speaks; nil = dialect.Code.
	Dialect dialect.Dialect
	// CoordMode is how the code dialect's model writes points; "" = pixels.
	// Other dialects bring their own coordinate space.
	CoordMode vision.CoordMode
	// MaxSide is the longest side of the screenshots sent; 0 = 1366. Dialects with
	// a fixed resize rule ignore it.
	MaxSide int
	// ImageSize, when set, is the exact size of the screenshots sent, whatever
	// the dialect would choose (replay: the size a trace was recorded with).
	ImageSize   image.Point
	ImageFormat vision.Format // "" = PNG
	// ImageQuality is the JPEG quality, 1..100; 0 = 85.
	ImageQuality int
	MaxSteps     int // step limit; 0 = 30
	// KeepImages is how many screenshots stay in the request at least; 0 =
	// the dialect's (dialect.History.KeepImages: 5 for UI-TARS and Qwen, 3
	// for the vendors' tools and pyautogui), else DefaultKeepImages.
	KeepImages int
	// ImageChunk is how many older screenshots leave the request at a time:
	// the request keeps between KeepImages and KeepImages+ImageChunk-1 of
	// them, so for ImageChunk steps in a row each request starts with the
	// previous one, byte for byte, and a provider's prompt cache hits. 1 drops
	// one every step (no cache hits); 0 = what keeps the request within
	// DefaultImageBound screenshots (KeepImages, if that is more).
	ImageChunk  int
	PlanEvery   int     // planning interval in steps; 0 = no planning
	MaxTokens   int     // longest reply in tokens; 0 = 2048
	Temperature float64 // sampling temperature; 0 = the server's default
	// TraceDir is where traces are written (a folder per run); "" = no trace.
	TraceDir string
	// Monitor is the index of the target monitor, told to the model when the
	// desktop has several.
	Monitor int
	// Policy is the safety policy.
	Policy Policy
	// CodeMemory caps the memory of the process the model's code runs in,
	// bytes; 0 = script.DefaultMemory (512 MiB).
	CodeMemory int64
	// Marks turns set-of-marks on: each screenshot carries numbered boxes over
	// the controls (accessible elements, else words read by OCR), listed in
	// the observation; click_mark(n) clicks one.
	Marks bool
	// ObserveA11y adds a table of the visible accessible elements to each
	// observation; ObserveOCR adds the screen's text lines with positions.
	ObserveA11y, ObserveOCR bool
	// InProcess runs the model's code in this process instead of a sandbox
	// child process (tests of the loop alone; debugging). The default, a
	// child, is what keeps hostile code from crashing or exhausting the agent.
	InProcess bool
}

// Defaults used when a field is zero.
const (
	DefaultMaxSteps   = 30
	DefaultKeepImages = 1
	// DefaultImageBound is the most screenshots a request holds when
	// ImageChunk is not set and KeepImages is at most 3.
	DefaultImageBound = 5
	DefaultMaxTokens  = 2048
)

// withDefaults returns c with every zero field set to its default.
func (c Config) withDefaults() Config {
	if c.Dialect == nil {
		c.Dialect = dialect.Code{}
	}
	if c.CoordMode == "" {
		c.CoordMode = vision.CoordPixels
	}
	if c.MaxSide <= 0 {
		c.MaxSide = vision.DefaultMaxSide
	}
	if c.ImageFormat == "" {
		c.ImageFormat = vision.FormatPNG
	}
	if c.MaxSteps <= 0 {
		c.MaxSteps = DefaultMaxSteps
	}
	if c.KeepImages <= 0 {
		c.KeepImages = dialect.HistorianOf(c.Dialect).History().KeepImages
	}
	if c.KeepImages <= 0 {
		c.KeepImages = DefaultKeepImages
	}
	if c.ImageChunk <= 0 {
		c.ImageChunk = defaultChunk(c.KeepImages)
	}
	if c.MaxTokens <= 0 {
		c.MaxTokens = DefaultMaxTokens
	}
	return c
}

// defaultChunk is the image chunk for keep screenshots kept: as many as keep
// the request within DefaultImageBound (1 keeps 1 to 5, 3 keeps 3 to 5), and
// never fewer than keep, as families that keep more were run with.
//
// Keeping one screenshot and dropping four at a time is the default because
// it is what a prompt cache serves best on a screen that changes every step:
// a drop re-sends from the oldest screenshot that leaves to the end, and the
// fewer screenshots stay after it, the less that is (docs/benchmarks.md, "The
// same share in tokens").
func defaultChunk(keep int) int {
	return max(DefaultImageBound-keep+1, keep)
}
