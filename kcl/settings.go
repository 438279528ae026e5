package kcl

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/kcl-lang/flux-kcl-controller/kcl/errkind"
	"github.com/kcl-lang/flux-kcl-controller/kcl/modules"
	"github.com/kcl-lang/flux-kcl-controller/kcl/value"
)

// settings are the merged `kcl_cli_configs` and `kcl_options` of -Y files.
type settings struct {
	files, overrides, selectors                    []string
	options                                        []value.KV
	disableNone, sortKeys, strictRange, showHidden bool
	// packageMaps are kcl_cli_configs.package_maps, the settings' -E.
	packageMaps map[string]string
}

// PathRefusedKind marks a settings file or an entry file that lies outside the
// program's root, by its path or through a symlink: it is refused unread.
const PathRefusedKind = errkind.PathRefused

// loadSettings reads settings files (relative to workDir) in order; later files
// win for flags, options accumulate. Each file must lie inside root, symlinks
// included: os.Root refuses any other before opening it, as the engine's
// sandbox does for program files.
func loadSettings(root, workDir string, files []string) (*settings, error) {
	st := &settings{}
	if len(files) == 0 {
		return st, nil
	}
	r, err := os.OpenRoot(root)
	if err != nil {
		return nil, fmt.Errorf("kcl: settings root: %w", err)
	}
	defer r.Close()
	for _, f := range files {
		p := f
		if !filepath.IsAbs(p) {
			p = filepath.Join(workDir, f)
		}
		rel, inside := within(root, p)
		if !inside {
			return nil, &Error{Kind: PathRefusedKind, Message: fmt.Sprintf("settings file %q is outside the program root", f)}
		}
		b, err := r.ReadFile(rel)
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) && symlinkEscapes(root, p) {
				return nil, &Error{Kind: PathRefusedKind, Message: fmt.Sprintf("settings file %q is a symlink to a file outside the program root", f)}
			}
			return nil, &Error{Kind: errkind.Evaluation, Message: fmt.Sprintf("Failed to load '%s', invalid setting file format", f)}
		}
		doc, err := decodeYAML(b)
		if err != nil {
			return nil, &Error{Kind: errkind.Evaluation, Message: fmt.Sprintf("Failed to load '%s', invalid setting file format", f)}
		}
		d, ok := doc.(*value.Dict)
		if !ok {
			if value.IsNoneOrUndefined(doc) {
				continue
			}
			return nil, &Error{Kind: errkind.Evaluation, Message: fmt.Sprintf("Failed to load '%s', invalid setting file format", f)}
		}
		if cv, ok := d.Get("kcl_cli_configs"); ok {
			if c, ok := cv.(*value.Dict); ok {
				for _, ent := range c.Entries() {
					switch ent.Key {
					case "files", "file":
						st.files = append(st.files, stringList(ent.Value)...)
					case "overrides":
						st.overrides = stringList(ent.Value)
					case "path_selector":
						st.selectors = stringList(ent.Value)
					case "disable_none":
						st.disableNone = ent.Value.Truth()
					case "sort_keys":
						st.sortKeys = ent.Value.Truth()
					case "strict_range_check":
						st.strictRange = ent.Value.Truth()
					case "show_hidden":
						st.showHidden = ent.Value.Truth()
					case "package_maps":
						if m, ok := ent.Value.(*value.Dict); ok {
							for _, pm := range m.Entries() {
								if st.packageMaps == nil {
									st.packageMaps = map[string]string{}
								}
								st.packageMaps[pm.Key] = pm.Value.String()
							}
						}
					}
				}
			}
		}
		if ov, ok := d.Get("kcl_options"); ok {
			l, ok := ov.(*value.List)
			if !ok && !value.IsNoneOrUndefined(ov) {
				return nil, &Error{Kind: errkind.Evaluation, Message: fmt.Sprintf("Failed to load '%s', invalid setting file format", f)}
			}
			if l != nil {
				for _, el := range l.Elems {
					kd, ok := el.(*value.Dict)
					if !ok {
						return nil, &Error{Kind: errkind.Evaluation, Message: fmt.Sprintf("Failed to load '%s', invalid setting file format", f)}
					}
					k, _ := kd.Get("key")
					v, _ := kd.Get("value")
					if k == nil {
						return nil, &Error{Kind: errkind.Evaluation, Message: fmt.Sprintf("Failed to load '%s', invalid setting file format", f)}
					}
					if v == nil {
						v = value.None
					}
					st.options = append(st.options, value.KV{Key: k.String(), Value: settingsOptionValue(v)})
				}
			}
		}
	}
	return st, nil
}

// within reports whether p lies lexically inside root, and its path there.
func within(root, p string) (string, bool) {
	rel, err := filepath.Rel(root, filepath.Clean(p))
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", false
	}
	return rel, true
}

// symlinkEscapes tells a refusal by os.Root (a link leaving root) from other
// read errors, for the message only: the refusal itself is os.Root's. It
// follows links without opening the file they point to.
func symlinkEscapes(root, p string) bool {
	resolved, err := filepath.EvalSymlinks(p)
	if err != nil {
		// A dangling link: judge its target lexically.
		target, lerr := os.Readlink(p)
		if lerr != nil {
			return true
		}
		if !filepath.IsAbs(target) {
			target = filepath.Join(filepath.Dir(p), target)
		}
		resolved = target
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		realRoot = root
	}
	_, inside := within(realRoot, resolved)
	return !inside
}

func stringList(v value.Value) []string {
	l, ok := v.(*value.List)
	if !ok {
		if s, ok := v.(value.Str); ok {
			return []string{string(s)}
		}
		return nil
	}
	var out []string
	for _, e := range l.Elems {
		out = append(out, e.String())
	}
	return out
}

// decodeYAML decodes one YAML document with the yaml system module.
func decodeYAML(b []byte) (value.Value, error) {
	m, ok := modules.Load("yaml")
	if !ok {
		return nil, fmt.Errorf("yaml module unavailable")
	}
	dec, ok := m.Attr("decode")
	if !ok {
		return nil, fmt.Errorf("yaml.decode unavailable")
	}
	fn, ok := dec.(value.Callable)
	if !ok {
		return nil, fmt.Errorf("yaml.decode is not callable")
	}
	return fn.Call(&value.Thread{}, []value.Value{value.Str(string(b))}, nil)
}
