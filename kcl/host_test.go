package kcl

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// Without Options.Host (the controller's runs) a program writes nothing and
// sees no environment nor resolver: each write is refused, naming itself, before it
// touches the disk, and read_env finds nothing even for a variable set.
func TestWithoutHostProgramsWriteNothingAndSeeNoEnvironmentNorResolver(t *testing.T) {
	cases := map[string]string{
		`file.write("w.txt", "x")`:            "file.write() is not allowed: the program root is read-only",
		`file.append("w.txt", "x")`:           "file.append() is not allowed: the program root is read-only",
		`file.mkdir("d")`:                     "file.mkdir() is not allowed: the program root is read-only",
		`file.delete("main.k")`:               "file.delete() is not allowed: the program root is read-only",
		`file.cp("main.k", "copy.k")`:         "file.cp() is not allowed: the program root is read-only",
		`file.mv("main.k", "moved.k")`:        "file.mv() is not allowed: the program root is read-only",
		`json.dump_to_file({}, "a.json")`:     "json.dump_to_file() is not allowed: programs cannot write files",
		`yaml.dump_to_file({}, "a.yaml")`:     "yaml.dump_to_file() is not allowed: programs cannot write files",
		`yaml.dump_all_to_file([], "a.yaml")`: "yaml.dump_all_to_file() is not allowed: programs cannot write files",
	}
	for call, want := range cases {
		t.Run(call, func(t *testing.T) {
			dir := t.TempDir()
			src := "import file\nimport json\nimport yaml\n" + call + "\n"
			if err := os.WriteFile(filepath.Join(dir, "main.k"), []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := Run(context.Background(), Options{WorkDir: dir, Files: []string{"main.k"}})
			var kerr *Error
			if !errors.As(err, &kerr) || kerr.Message != want {
				t.Fatalf("got %v, want %q", err, want)
			}
			entries, err := os.ReadDir(dir)
			if err != nil {
				t.Fatal(err)
			}
			if len(entries) != 1 || entries[0].Name() != "main.k" {
				t.Errorf("the directory holds %v, want main.k alone", entries)
			}
		})
	}

	t.Setenv("KCL_HOST_TEST_SET", "value")
	dir := t.TempDir()
	src := "import file\na = file.read_env(\"KCL_HOST_TEST_SET\")\nb = file.read_env(\"KCL_HOST_TEST_SET\") or \"unset\"\n"
	if err := os.WriteFile(filepath.Join(dir, "main.k"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), Options{WorkDir: dir, Files: []string{"main.k"}})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(res.YAML), "b: unset\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}

	// Nor a resolver: net.fqdn returns the name as given.
	if err := os.WriteFile(filepath.Join(dir, "main.k"), []byte("import net\na = net.fqdn(\"localhost\")\nb = net.fqdn()\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err = Run(context.Background(), Options{WorkDir: dir, Files: []string{"main.k"}})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(res.YAML), "a: localhost\nb: ''\n"; got != want {
		t.Errorf("net.fqdn without a host: got %q, want %q", got, want)
	}
}

// Without Options.Host every reader stays inside the program root, however
// the path leaves it (absolute, ".."), where bin/kcl's reads go anywhere.
func TestWithoutHostReadsStayInTheProgramRoot(t *testing.T) {
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "o.txt"), []byte("secret"), 0o644); err != nil {
		t.Fatal(err)
	}
	o := filepath.Join(outside, "o.txt")
	cases := map[string]string{
		`a = file.read("` + o + `")`:         "failed to access the file '" + o + "': the path is outside the program root",
		`a = file.read("../o.txt")`:          "failed to access the file '../o.txt': the path is outside the program root",
		`a = file.size("` + o + `")`:         "failed to get size of '" + o + "': the path is outside the program root",
		`a = file.abs("` + o + `")`:          "Could not get the absolute path of " + o,
		`a = file.glob("` + outside + `/*")`: "failed to access the file matching '" + outside + "/*': the path is outside the program root",
		`a = crypto.filesha256("` + o + `")`: "failed to access file '" + o + "': the path is outside the program root",
	}
	for stmt, want := range cases {
		t.Run(stmt, func(t *testing.T) {
			dir := t.TempDir()
			src := "import file\nimport crypto\n" + stmt + "\n"
			if err := os.WriteFile(filepath.Join(dir, "main.k"), []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := Run(context.Background(), Options{WorkDir: dir, Files: []string{"main.k"}})
			var kerr *Error
			if !errors.As(err, &kerr) || kerr.Message != want {
				t.Fatalf("got %v, want %q", err, want)
			}
		})
	}

	dir := t.TempDir()
	src := "import file\na = file.exists(\"" + o + "\")\nb = file.exists(\"../" + filepath.Base(outside) + "/o.txt\")\n"
	if err := os.WriteFile(filepath.Join(dir, "main.k"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), Options{WorkDir: dir, Files: []string{"main.k"}})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(res.YAML), "a: false\nb: false\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
