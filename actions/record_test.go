package actions

import (
	"encoding/json"
	"testing"
	"time"
)

func TestRecordJSON(t *testing.T) {
	r := Record{Name: "click", Args: "640, 400", Model: &[2]float64{640, 400}, Screen: &[2]int{900, 562},
		Start: time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC), Duration: 1500 * time.Microsecond, Result: "clicked"}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"name":"click","args":"640, 400","model":[640,400],"screen":[900,562],"start":"2026-11-30T12:00:00Z","duration_ms":1,"result":"clicked"}`
	if string(b) != want {
		t.Errorf("json = %s\nwant   %s", b, want)
	}
	var back Record
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if back.Duration != time.Millisecond || back.Name != "click" || back.Screen[0] != 900 || !back.Start.Equal(r.Start) {
		t.Errorf("round trip = %+v", back)
	}
	if b, _ := json.Marshal(Record{Name: "wait"}); string(b) != `{"name":"wait"}` {
		t.Errorf("zero fields written: %s", b)
	}
}
