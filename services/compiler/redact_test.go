package compiler

import "testing"

func TestRedact(t *testing.T) {
	r := newRedactor([]string{"hunter2", "hunter2-long", "ab", ""})
	got := r.redact(`option("password") "hunter2-long" != "hunter2"; tab ab, "ab"`)
	want := `option("password") "[redacted]" != "[redacted]"; tab [redacted], "[redacted]"`
	if got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
}
