package actions

import (
	"errors"
	"image"
	"strings"
	"testing"
)

func TestCheckPoint(t *testing.T) {
	primary := image.Rect(0, 0, 1280, 800)
	second := image.Rect(1920, 0, 3840, 1080)
	tests := []struct {
		name   string
		p      Point
		bounds image.Rectangle
		msg    []string // substrings of the error; nil means no error
	}{
		{name: "origin", p: Point{0, 0}, bounds: primary},
		{name: "last pixel", p: Point{1279, 799}, bounds: primary},
		{name: "right edge", p: Point{1280, 10}, bounds: primary,
			msg: []string{"point (1280, 10) is outside the target display: x=1280 is right of the display (x must be 0..1279, y must be 0..799)"}},
		{name: "below", p: Point{10, 800}, bounds: primary, msg: []string{"y=800 is below the display"}},
		{name: "negative both", p: Point{-1, -5}, bounds: primary,
			msg: []string{"x=-1 is left of the display and y=-5 is above the display"}},
		{name: "second monitor inside", p: Point{1920, 500}, bounds: second},
		{name: "second monitor left of it", p: Point{1919, 500}, bounds: second,
			msg: []string{"x=1919 is left of the display", "x must be 1920..3839"}},
		{name: "empty bounds", p: Point{0, 0}, bounds: image.Rectangle{}, msg: []string{"bounds", "empty"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckPoint(tt.p, tt.bounds)
			if tt.msg == nil {
				if err != nil {
					t.Fatalf("CheckPoint(%v, %v) = %v, want nil", tt.p, tt.bounds, err)
				}
				return
			}
			if err == nil {
				t.Fatalf("CheckPoint(%v, %v) = nil, want an error", tt.p, tt.bounds)
			}
			var oob *OutOfBoundsError
			if !tt.bounds.Empty() && (!errors.As(err, &oob) || oob.Point != tt.p) {
				t.Errorf("CheckPoint(%v, %v) = %#v, want *OutOfBoundsError for the point", tt.p, tt.bounds, err)
			}
			for _, m := range tt.msg {
				if !strings.Contains(err.Error(), m) {
					t.Errorf("error %q does not contain %q", err, m)
				}
			}
		})
	}
}

func TestParseButton(t *testing.T) {
	tests := []struct {
		in      string
		want    Button
		wantErr bool
	}{
		{"left", Left, false}, {" Right ", Right, false}, {"MIDDLE", Middle, false},
		{"center", Middle, false}, {"wheel", Middle, false},
		{"", 0, true}, {"primary", 0, true}, {"4", 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseButton(tt.in)
			if tt.wantErr {
				if err == nil || !strings.Contains(err.Error(), "left, middle, right") {
					t.Fatalf("ParseButton(%q) = %v, %v; want an error listing the buttons", tt.in, got, err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("ParseButton(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
			}
			if again, err := ParseButton(got.String()); err != nil || again != got {
				t.Fatalf("ParseButton(%q) = %v, %v; want %v", got.String(), again, err, got)
			}
		})
	}
}

func TestButtonValid(t *testing.T) {
	var zero Button
	if zero != Left || !zero.Valid() {
		t.Errorf("zero Button = %v, valid %v; want left, valid", zero, zero.Valid())
	}
	if b := Button(7); b.Valid() || b.String() != "button(7)" {
		t.Errorf("Button(7) = %q, valid %v; want button(7), invalid", b, b.Valid())
	}
}

func TestParseDirection(t *testing.T) {
	tests := []struct {
		in      string
		want    Direction
		wantErr bool
	}{
		{"up", ScrollUp, false}, {"Down", ScrollDown, false}, {" LEFT", ScrollLeft, false},
		{"right", ScrollRight, false}, {"", "", true}, {"north", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseDirection(tt.in)
			if tt.wantErr {
				if err == nil || !strings.Contains(err.Error(), "up, down, left, right") {
					t.Fatalf("ParseDirection(%q) = %v, %v; want an error listing the directions", tt.in, got, err)
				}
				return
			}
			if err != nil || got != tt.want || !got.Valid() {
				t.Fatalf("ParseDirection(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
			}
		})
	}
}
