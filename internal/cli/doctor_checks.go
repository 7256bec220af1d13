package cli

import (
	"context"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"os"
	"time"

	"github.com/godbus/dbus/v5"
	"github.com/zalando/go-keyring"

	"deskpilot/internal/wiring"
)

// fixError is a failed check with what to do about it.
type fixError struct {
	what, fix string
}

func (e *fixError) Error() string { return e.what + "; fix: " + e.fix }

// checkAccessibility tells whether the accessibility tree can be read: a D-Bus
// session, and AT-SPI's bus on it (find_elements, click_element, marks, the a11y
// layer need both).
func checkAccessibility(ctx context.Context) (string, error) {
	if os.Getenv("DBUS_SESSION_BUS_ADDRESS") == "" {
		if rt := os.Getenv("XDG_RUNTIME_DIR"); rt == "" || !fileExists(rt+"/bus") {
			return "", &fixError{"no D-Bus session bus (DBUS_SESSION_BUS_ADDRESS is unset and there is no $XDG_RUNTIME_DIR/bus)",
				"start deskpilot in a desktop session, or under one: dbus-run-session -- deskpilot …"}
		}
	}
	conn, err := dbus.ConnectSessionBus(dbus.WithContext(ctx))
	if err != nil {
		return "", &fixError{"the D-Bus session bus does not answer: " + err.Error(), "start deskpilot in a desktop session, or under dbus-run-session -- deskpilot …"}
	}
	defer conn.Close()
	var addr string
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := conn.Object("org.a11y.Bus", "/org/a11y/bus").CallWithContext(cctx, "org.a11y.Bus.GetAddress", 0).Store(&addr); err != nil || addr == "" {
		return "", &fixError{"AT-SPI's bus (org.a11y.Bus) is not on the session bus", "install at-spi2-core (sudo apt install at-spi2-core); apps then publish their trees"}
	}
	return "AT-SPI bus found on the D-Bus session", nil
}

// checkOCR reads a small image, which starts Tesseract with its English data.
func checkOCR(ctx context.Context) (string, error) {
	r, err := wiring.NewOCR()
	if err != nil {
		return "", &fixError{err.Error(), "install Tesseract (sudo apt install tesseract-ocr tesseract-ocr-eng)"}
	}
	defer r.Close()
	img := image.NewRGBA(image.Rect(0, 0, 64, 32))
	draw.Draw(img, img.Rect, image.NewUniform(color.White), image.Point{}, draw.Src)
	cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if _, err := r.Read(cctx, img); err != nil {
		return "", &fixError{"Tesseract cannot start: " + err.Error(),
			"install its English data (sudo apt install tesseract-ocr-eng), or point TESSDATA_PREFIX at the folder holding eng.traineddata"}
	}
	return "Tesseract reads text (find_text, click_text, the ocr layer)", nil
}

// checkKeyring tells whether the OS keyring (Secret Service) can hold keys; without
// it keys come from environment variables only.
func checkKeyring() (string, error) {
	_, err := keyring.Get(keyringService, "probe")
	if err == nil || errors.Is(err, keyring.ErrNotFound) {
		return "the Secret Service keyring answers (the app keeps keys there)", nil
	}
	return "", &fixError{"no keyring: " + err.Error(),
		"keys then come from environment variables only (export OPENAI_API_KEY=…); for the app to keep them, run a Secret Service (gnome-keyring, KWallet) in the session"}
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// modelFix is what to do when the model endpoint failed doctor's request.
func modelFix(err error, baseURL string) error {
	return &fixError{err.Error(), fmt.Sprintf("check that a server runs at %s and serves the model (--base-url, --model), and that its key variable is set", baseURL)}
}
