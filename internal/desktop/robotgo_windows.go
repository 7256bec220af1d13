//go:build cgo && windows

package desktop

import (
	"errors"
	"fmt"
	"image"
	"slices"
	"time"
	"unsafe"

	"golang.org/x/sys/windows"
)

// Windows API the robotgo backend needs beyond golang.org/x/sys/windows.
type win32 struct {
	getLastInputInfo, getTickCount, getTopWindow, getWindow, isIconic, getWindowRect *windows.LazyProc
}

func newWin32() win32 {
	user32, kernel32 := windows.NewLazySystemDLL("user32.dll"), windows.NewLazySystemDLL("kernel32.dll")
	return win32{
		getLastInputInfo: user32.NewProc("GetLastInputInfo"),
		getTickCount:     kernel32.NewProc("GetTickCount"),
		getTopWindow:     user32.NewProc("GetTopWindow"),
		getWindow:        user32.NewProc("GetWindow"),
		isIconic:         user32.NewProc("IsIconic"),
		getWindowRect:    user32.NewProc("GetWindowRect"),
	}
}

// systemIdle is the time since the last input of any device in this session
// (GetLastInputInfo), synthetic input included, like X11's idle time.
func systemIdle() (time.Duration, error) {
	w := newWin32()
	info := struct{ size, time uint32 }{size: 8}
	if ok, _, err := w.getLastInputInfo.Call(uintptr(unsafe.Pointer(&info))); ok == 0 {
		return 0, fmt.Errorf("GetLastInputInfo: %w", err)
	}
	now, _, _ := w.getTickCount.Call()
	return time.Duration(uint32(now)-info.time) * time.Millisecond, nil
}

// maxTopWindows bounds the walk over the top-level windows.
const maxTopWindows = 10000

// systemOwnWindows returns the visible parts of process pid's top-level
// windows: it walks the top-level windows in Z order (GetTopWindow,
// GetWindow GW_HWNDNEXT; no callback, so nothing to leak per call) and skips
// hidden, minimized and cloaked ones (a window on another virtual desktop).
func systemOwnWindows(pid int) ([]image.Rectangle, error) {
	w := newWin32()
	const gwHwndNext, dwmwaCloaked, dwmwaFrameBounds = 2, 14, 9
	var topFirst []stacked
	h, _, _ := w.getTopWindow.Call(0)
	for n := 0; h != 0 && n < maxTopWindows; n++ {
		hwnd := windows.HWND(h)
		if r, ok := w.shown(hwnd, dwmwaCloaked, dwmwaFrameBounds); ok {
			var owner uint32
			if _, err := windows.GetWindowThreadProcessId(hwnd, &owner); err == nil {
				topFirst = append(topFirst, stacked{rect: r, own: int(owner) == pid})
			}
		}
		h, _, _ = w.getWindow.Call(h, gwHwndNext)
	}
	if len(topFirst) == 0 {
		return nil, errors.New("no visible top-level window")
	}
	slices.Reverse(topFirst)
	return visibleParts(topFirst), nil
}

// shown returns the window's rectangle when it is visible, not minimized and
// not cloaked.
func (w win32) shown(hwnd windows.HWND, cloakedAttr, boundsAttr uint32) (image.Rectangle, bool) {
	if !windows.IsWindowVisible(hwnd) {
		return image.Rectangle{}, false
	}
	if iconic, _, _ := w.isIconic.Call(uintptr(hwnd)); iconic != 0 {
		return image.Rectangle{}, false
	}
	var cloaked uint32
	if windows.DwmGetWindowAttribute(hwnd, cloakedAttr, unsafe.Pointer(&cloaked), 4) == nil && cloaked != 0 {
		return image.Rectangle{}, false
	}
	var r struct{ left, top, right, bottom int32 }
	if windows.DwmGetWindowAttribute(hwnd, boundsAttr, unsafe.Pointer(&r), 16) != nil {
		if ok, _, _ := w.getWindowRect.Call(uintptr(hwnd), uintptr(unsafe.Pointer(&r))); ok == 0 {
			return image.Rectangle{}, false
		}
	}
	rect := image.Rect(int(r.left), int(r.top), int(r.right), int(r.bottom))
	return rect, !rect.Empty()
}
