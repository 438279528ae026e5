package value

import "strings"

// Schema is an instance of a KCL schema: its attributes live in Config (an ordered
// Dict with operation metadata, like a config), plus what the evaluator needs to
// re-run the schema when the instance is later unioned with more config.
type Schema struct {
	// Name is the schema name without package path, e.g. "Deployment".
	Name string
	// PkgPath is the package path of the instance (not of the definition), "__main__"
	// for the main package.
	PkgPath string
	// Config holds the attributes in output order.
	Config *Dict
	// ConfigKeys are the keys the instance was configured with, e.g. "a" in
	// `MySchema {a = "foo"}`.
	ConfigKeys []string
	// Optional maps attribute name to whether it is optional (`a?: int`).
	Optional map[string]bool
	// Args and Kwargs are the instance's schema arguments (MySchema(1, b=2) {...}).
	Args   []Value
	Kwargs []KV
	// Def is the evaluator's schema type (opaque here): it lets union re-resolve the
	// instance and lets instances()/isinstance walk the type.
	Def any
	// Meta is free for the evaluator (e.g. config positions for error messages).
	Meta any
}

// NewSchema returns an instance of name with an empty config.
func NewSchema(name, pkgPath string) *Schema {
	return &Schema{Name: name, PkgPath: pkgPath, Config: NewDict(4)}
}

func (s *Schema) Type() string { return s.Name }

// Truth: a schema instance is true when it has attributes, like a dict.
func (s *Schema) Truth() bool { return s.Config.Len() > 0 }

// String prints the attributes like a dict.
func (s *Schema) String() string {
	var b strings.Builder
	writeDictText(&b, s.Config)
	return b.String()
}

// FullName is pkgpath.Name, or Name for the main package: the type path the output
// planner and type checks use.
func (s *Schema) FullName() string {
	if s.PkgPath == "" || s.PkgPath == MainPkg {
		return s.Name
	}
	return s.PkgPath + "." + s.Name
}

// MainPkg is the package path of the main package.
const MainPkg = "__main__"

// Get returns attribute key.
func (s *Schema) Get(key string) (Value, bool) { return s.Config.Get(key) }

// Copy returns a shallow copy with its own config dict.
func (s *Schema) Copy() *Schema {
	c := *s
	c.Config = s.Config.Copy()
	c.ConfigKeys = append([]string(nil), s.ConfigKeys...)
	return &c
}

// Freeze freezes the attributes.
func (s *Schema) Freeze() { s.Config.Freeze() }

// Frozen reports whether the attributes are frozen.
func (s *Schema) Frozen() bool { return s.Config.Frozen() }

// AsDict returns the dict behind a dict or schema value.
func AsDict(v Value) (*Dict, bool) {
	switch x := v.(type) {
	case *Dict:
		return x, true
	case *Schema:
		return x.Config, true
	}
	return nil, false
}
