package modules

import "testing"

// Each message is what json.decode fails with in the official engine 0.12.1.
func TestSerdeError(t *testing.T) {
	for text, want := range map[string]string{
		`{bad`:             "key must be a string at line 1 column 2",
		`{"a": }`:          "expected value at line 1 column 7",
		`[1, 2`:            "EOF while parsing a list at line 1 column 5",
		`{"a": 1,}`:        "trailing comma at line 1 column 9",
		"[1,\n 2,\n]":      "trailing comma at line 3 column 1",
		`tru`:              "EOF while parsing a value at line 1 column 3",
		``:                 "EOF while parsing a value at line 1 column 0",
		`1 2`:              "trailing characters at line 1 column 3",
		`{"a" 1}`:          "expected `:` at line 1 column 6",
		`"abc`:             "EOF while parsing a string at line 1 column 4",
		`[1 2]`:            "expected `,` or `]` at line 1 column 4",
		`{"a": 1 "b"}`:     "expected `,` or `}` at line 1 column 9",
		`{"a":1,`:          "EOF while parsing a value at line 1 column 7",
		`01`:               "invalid number at line 1 column 2",
		`-a`:               "invalid number at line 1 column 2",
		`nux`:              "expected ident at line 1 column 3",
		`"\x"`:             "invalid escape at line 1 column 3",
		`"\u12g4"`:         "invalid escape at line 1 column 7",
		"[\n\n":            "EOF while parsing a list at line 3 column 0",
		`{"k": 1e400}`:     "number out of range at line 1 column 11",
		`{"a": [1, true]}`: "",
	} {
		if got := serdeError(text); got != want {
			t.Errorf("%q: got %q, want %q", text, got, want)
		}
	}
}
